#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One closing line for a ctest run, from its output: "N passed, N failed, N skipped". ctest's
# own "100% tests passed" counts skipped tests as passed.
#   ctest ... | tee LOG; scripts/ctest_summary.sh LOG
# Prints nothing and exits 1 when LOG holds no ctest summary (the run stopped before testing).
set -euo pipefail
log=$1
# "100% tests passed, 0 tests failed out of 304" (or "No tests were found!!!").
total=$(sed -n 's/.* tests failed out of \([0-9][0-9]*\).*/\1/p' "$log" | tail -1)
[ -n "$total" ] || exit 1
failed=$(sed -n 's/.* \([0-9][0-9]*\) tests failed out of .*/\1/p' "$log" | tail -1)
# Each skipped test is listed once under "The following tests did not run:", as
# "<tab>NN - name (Skipped)".
skipped=$(grep -cE '^[[:space:]]+[0-9]+ - .* \(Skipped\)$' "$log" || true)
echo "$((total - failed - skipped)) passed, $failed failed, $skipped skipped"
