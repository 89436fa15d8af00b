# SPDX-License-Identifier: Apache-2.0
# Sourced by the command-line test scripts (check_cli.sh, check_program_options.sh).
# expect PROGRAM STATUS TEXT ARGS...: PROGRAM ARGS exits with STATUS and its output (stdout and
# stderr) contains TEXT; counts a failure otherwise. finish SUMMARY: exit 1 after any failure.
failures=0
expect() {
  local program=$1 want=$2 text=$3
  shift 3
  local output status
  output=$("$program" "$@" 2>&1)
  status=$?
  if [ "$status" -ne "$want" ] || ! grep -q -F -- "$text" <<<"$output"; then
    echo "FAILED: $program $* -> exit $status, expected $want and \"$text\":"
    echo "$output" | head -3
    failures=$((failures + 1))
  else
    echo "ok: $* -> $(head -1 <<<"$output")"
  fi
}
finish() {
  if [ "$failures" -ne 0 ]; then
    echo "FAILED: $failures invocations did not end as expected"
    exit 1
  fi
  echo "ok: $1"
}
