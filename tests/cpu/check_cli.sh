#!/usr/bin/env bash
# normlab check refuses bad options by name, with exit code 2, GPU or not:
# check_cli.sh PATH/TO/normlab
set -u
normlab=$1
failures=0
valid=(--op rmsnorm --dtype bf16 --rows 4 --cols 64)
# expect_refused OPTION-NAME ARGS...: exit code 2 and the message names the option.
expect_refused() {
  local name=$1
  shift
  local output status
  output=$("$normlab" check "$@" 2>&1)
  status=$?
  if [ "$status" -ne 2 ] || ! grep -q -- "'$name'" <<<"$output"; then
    echo "FAILED: normlab check $* -> exit $status, expected 2 naming '$name':"
    echo "$output" | head -3
    failures=$((failures + 1))
  else
    echo "ok: $* -> $(head -1 <<<"$output")"
  fi
}
expect_refused --op
expect_refused --op --op softmax --dtype bf16 --rows 4 --cols 64
expect_refused --op --op copy --dtype bf16 --rows 4 --cols 64
expect_refused --dtype --op rmsnorm --rows 4 --cols 64
expect_refused --dtype "${valid[@]}" --dtype fp8
expect_refused --rows --op rmsnorm --dtype bf16 --cols 64
expect_refused --rows "${valid[@]}" --rows -1
expect_refused --cols --op rmsnorm --dtype bf16 --rows 4
expect_refused --cols "${valid[@]}" --cols 0
expect_refused --cols "${valid[@]}" --cols 12x
expect_refused --weight-dtype "${valid[@]}" --weight-dtype bf16
expect_refused --row-stride "${valid[@]}" --row-stride 63
expect_refused --misalign "${valid[@]}" --misalign -1
expect_refused --eps "${valid[@]}" --eps -1e-5
expect_refused --eps "${valid[@]}" --eps nan
expect_refused --seed "${valid[@]}" --seed seven
expect_refused --bias "${valid[@]}" --bias
expect_refused --gemma "${valid[@]}" --gemma --no-weight
expect_refused --kernel "${valid[@]}" --kernel ch99_nothing
expect_refused --kernel "${valid[@]}" --kernel ch00_rmsnorm_eager
expect_refused --kernel --op layernorm --dtype fp32 --rows 4 --cols 64 --kernel ch07_rmsnorm
expect_refused --dump "${valid[@]}" --dump
expect_refused --frobnicate "${valid[@]}" --frobnicate
if [ "$failures" -ne 0 ]; then
  echo "FAILED: $failures invocations were not refused as expected"
  exit 1
fi
echo "ok: every bad option refused by name with exit code 2"
