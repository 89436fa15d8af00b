#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A student copy's exercise READMEs point at nothing the copy leaves out: no `solutions/` (the
# copy has none), and no backticked path under a top-level folder the repository tracks that
# is missing from the copy (build/ and the like are made later). The copy is made without
# building (scripts/student-copy DIR --no-build).
#   script_student_copy_readmes.sh SOURCE_DIR
set -euo pipefail
# shellcheck source=script_make_student_copy.sh
source "$(dirname "$0")/script_make_student_copy.sh"
readmes=(exercises/README.md exercises/*/README.md)
failed=0
if grep -n 'solutions/' "${readmes[@]}"; then
  echo "FAILED: the lines above point at solutions/, which a student copy leaves out"
  failed=1
fi
while IFS=: read -r readme path; do
  top=${path%%/*}
  if [ -n "$(git -C "$source_dir" ls-files -- "$top/")" ] && [ ! -e "$path" ]; then
    echo "FAILED: $readme names $path, which is not in the copy"
    failed=1
  fi
done < <(grep -oE '`[^` ]+/[^` ]*`' "${readmes[@]}" | tr -d '`' | sort -u)
[ "$failed" -eq 0 ] && echo "ok: ${#readmes[@]} READMEs, every path they name is in the copy"
exit "$failed"
