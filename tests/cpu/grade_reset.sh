#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/grade --reset restores the pristine skeleton even after the student committed an
# answer: grade_reset.sh SOURCE_DIR. Makes a student copy (no build), solves ex04 in it,
# commits, resets, and compares with the skeleton as handed out. It also shows that restoring
# from the index (`git checkout -- FILE`, the old --reset) would not have restored it.
set -euo pipefail
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
bash "$1/scripts/student-copy" "$scratch/class" --no-build
cd "$scratch/class"
[ ! -e solutions ] || { echo "FAILED: the student copy has solutions/"; exit 1; }
file=$(ls exercises/ex04-*/ex04.cu)
cp "$file" "$scratch/pristine"

identity=()
git config user.name >/dev/null || identity=(-c user.name=student -c user.email=student@localhost)
sed -i 's|// TODO(ex04) end|  // my answer\n&|' "$file"
git add "$file"
git "${identity[@]}" commit -q -m "my answer to ex04"
git checkout -- "$file"
if cmp -s "$file" "$scratch/pristine"; then
  echo "FAILED: the edit did not take, so this test could not fail"
  exit 1
fi
echo "ok: restoring from the index after a commit leaves the answer in place"

scripts/grade --reset 04
cmp "$file" "$scratch/pristine" || { echo "FAILED: --reset 04 did not restore $file"; exit 1; }
echo "ok: scripts/grade --reset 04 restored the pristine $file after git commit"
