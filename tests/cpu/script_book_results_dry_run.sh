#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/book_results --help prints its usage, exit 0; --dry-run --peers /nonexistent OUT
# prints the plan, exit 0: the peers' install, then the four steps tests, peers, sweep and
# profile in that order, and writes nothing (OUT not even made); a bad --only value is a usage
# error, exit 2, naming --only and the value.
# A copy of the script alone, so that a command it ran instead of printing would fail for want
# of the script it calls, and anything it wrote would show.
#   script_book_results_dry_run.sh SOURCE_DIR
set -euo pipefail
source_dir=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/repo/scripts" "$tmp/work"
cp "$source_dir/scripts/book_results" "$tmp/repo/scripts/"
script=$tmp/repo/scripts/book_results
failed=0
fail() { echo "FAILED: $1"; failed=1; }

status=0
output=$(bash "$script" --help 2>&1) || status=$?
echo "--help: exit $status"
echo "$output"
[ "$status" -eq 0 ] || fail "--help: exit code $status, not 0"
grep -qF "scripts/book_results [--only STEPS]" <<<"$output" || fail "--help: no usage line"

status=0
output=$(cd "$tmp/work" && bash "$script" --dry-run --peers /nonexistent OUT 2>&1) || status=$?
echo "--dry-run --peers /nonexistent OUT: exit $status"
echo "$output"
[ "$status" -eq 0 ] || fail "--dry-run: exit code $status, not 0"
grep -qF "scripts/peer-wheels --install /nonexistent $tmp/work/OUT/peerlib" <<<"$output" ||
  fail "--dry-run: the plan does not install the peers of /nonexistent into OUT/peerlib"
plan=$(grep -oE "^book_results: step [0-9]+ of [0-9]+: [a-z]+" <<<"$output" | cut -d' ' -f3-) ||
  true
expected="1 of 4: tests
2 of 4: peers
3 of 4: sweep
4 of 4: profile"
[ "$plan" = "$expected" ] ||
  fail "--dry-run: the steps are not tests, peers, sweep, profile in order: $plan"
for command in scripts/gpu_all.sh "bench/compare_peers.py --build" "book/plot_peers.py --combine" \
    "bench/compare_peers.py --sweep" scripts/profile; do
  grep -qF -- "$command" <<<"$output" || fail "--dry-run: the plan never runs $command"
done

status=0
output=$(cd "$tmp/work" && bash "$script" --only tests,bogus --dry-run OUT 2>&1) || status=$?
echo "--only tests,bogus: exit $status: $output"
[ "$status" -eq 2 ] || fail "--only tests,bogus: exit code $status, not 2"
grep -q -- "--only.*bogus" <<<"$output" || fail "--only tests,bogus: the message names neither"

written=$(cd "$tmp" && find . -mindepth 1 ! -path ./repo ! -path ./repo/scripts \
  ! -path ./repo/scripts/book_results ! -path ./work)
[ -z "$written" ] || fail "wrote $written"
[ "$failed" -eq 0 ] && echo "ok: --help, the plan's four steps in order, --only checked, nothing" \
  "written"
exit "$failed"
