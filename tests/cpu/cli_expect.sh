# SPDX-License-Identifier: Apache-2.0
# Sourced by the command-line test scripts (check_cli.sh, check_program_options.sh, ...).
# expect PROGRAM STATUS TEXT ARGS...: PROGRAM ARGS exits with STATUS and its output (stdout and
# stderr) contains TEXT. expect_brief PROGRAM STATUS TEXT ARGS...: the same, and the output is
# at most two lines (the problem and where the usage is). expect_absent PROGRAM STATUS TEXT
# ARGS...: exits with STATUS and its output does not contain TEXT. Each counts a failure
# otherwise; finish SUMMARY: exit 1 after any failure.
failures=0
# judge WANT TEXT MODE PROGRAM ARGS...: runs PROGRAM ARGS and reports it; MODE is contains,
# brief or absent.
judge() {
  local want=$1 text=$2 mode=$3
  shift 3
  local output status found=1 passed=1
  output=$("$@" 2>&1)
  status=$?
  grep -q -F -- "$text" <<<"$output" && found=0
  case $mode in
    contains) [ "$found" -eq 0 ] && passed=0 ;;
    brief) [ "$found" -eq 0 ] && [ "$(wc -l <<<"$output")" -le 2 ] && passed=0 ;;
    absent) [ "$found" -ne 0 ] && passed=0 ;;
  esac
  if [ "$status" -ne "$want" ] || [ "$passed" -ne 0 ]; then
    echo "FAILED: $* -> exit $status, expected $want and \"$text\" ($mode):"
    echo "$output" | head -3
    failures=$((failures + 1))
  else
    echo "ok: ${*:2} -> $(head -1 <<<"$output")"
  fi
}
expect() {
  judge "$2" "$3" contains "$1" "${@:4}"
}
expect_brief() {
  judge "$2" "$3" brief "$1" "${@:4}"
}
expect_absent() {
  judge "$2" "$3" absent "$1" "${@:4}"
}
finish() {
  if [ "$failures" -ne 0 ]; then
    echo "FAILED: $failures invocations did not end as expected"
    exit 1
  fi
  echo "ok: $1"
}
