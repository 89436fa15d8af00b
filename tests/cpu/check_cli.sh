#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# normlab refuses bad options by name, with exit code 2, GPU or not; bare `normlab` and every
# subcommand's --help print usage; a kernel asked for a case it cannot take is refused by name
# before any GPU work: check_cli.sh PATH/TO/normlab
set -u
normlab=$1
source "$(dirname "$0")/cli_expect.sh"
valid=(--op rmsnorm --dtype bf16 --rows 4 --cols 64)
# expect_refused OPTION-NAME ARGS...: normlab check ARGS exits 2 naming the option.
expect_refused() {
  local name=$1
  shift
  expect "$normlab" 2 "'$name'" check "$@"
}

# Usage: bare, --help of each subcommand, an unknown command, unknown options everywhere.
expect "$normlab" 0 "usage: normlab <command>"
expect "$normlab" 0 "usage: normlab <command>" --help
expect "$normlab" 0 "usage: normlab tour" tour --help
expect "$normlab" 0 "usage: normlab check" check --help
expect "$normlab" 0 "usage: normlab check" check --op rmsnorm --help
expect "$normlab" 0 "usage: normlab list" list --help
expect "$normlab" 2 "unknown command 'frobnicate'" frobnicate
expect "$normlab" 2 "'--bogus'" tour --bogus
expect "$normlab" 2 "'--bogus'" list --bogus
expect "$normlab" 2 "'--rows'" tour --rows 99999999999999999999
expect "$normlab" 2 "'--rows'" tour --rows 0
expect "$normlab" 2 "'--cols'" tour --cols 8k
expect "$normlab" 2 "'--op'" tour --op softmax
expect "$normlab" 2 "'--kernel'" tour --kernel ch99_nothing
expect "$normlab" 2 "'--json'" tour --json

expect_refused --op
expect_refused --op --op softmax --dtype bf16 --rows 4 --cols 64
expect_refused --op --op copy --dtype bf16 --rows 4 --cols 64
expect_refused --dtype "${valid[@]}" --dtype fp8
expect_refused --rows --op rmsnorm --dtype bf16 --cols 64
expect_refused --rows "${valid[@]}" --rows -1
expect_refused --rows "${valid[@]}" --rows 99999999999999999999
expect_refused --rows "${valid[@]}" --rows 99999999999 --cols 99999999999
expect_refused --cols --op rmsnorm --dtype bf16 --rows 4
expect_refused --cols "${valid[@]}" --cols 0
expect_refused --cols "${valid[@]}" --cols 12x
expect_refused --cols "${valid[@]}" --cols " 64"
expect_refused --weight-dtype "${valid[@]}" --weight-dtype bf16
expect_refused --row-stride "${valid[@]}" --row-stride 63
expect_refused --misalign "${valid[@]}" --misalign -1
expect_refused --misalign "${valid[@]}" --misalign 64
expect_refused --eps "${valid[@]}" --eps -1e-5
expect_refused --eps "${valid[@]}" --eps nan
expect_refused --eps "${valid[@]}" --eps 1e-5x
expect_refused --eps "${valid[@]}" --eps 1e39
expect_refused --seed "${valid[@]}" --seed seven
expect_refused --seed "${valid[@]}" --seed -1
expect_refused --distribution "${valid[@]}" --distribution bimodal
expect_refused --distribution "${valid[@]}" --distribution
expect_refused --mean "${valid[@]}" --mean inf
expect_refused --mean "${valid[@]}" --mean 1e400
expect_refused --scale "${valid[@]}" --scale -1
expect_refused --scale "${valid[@]}" --scale one
expect_refused --bias "${valid[@]}" --bias
expect_refused --dresidual "${valid[@]}" --dresidual
expect_refused --gemma "${valid[@]}" --gemma --no-weight
expect_refused --kernel "${valid[@]}" --kernel ch99_nothing
expect_refused --kernel "${valid[@]}" --kernel ch00_rmsnorm_eager
expect_refused --kernel --op layernorm --dtype fp32 --rows 4 --cols 64 --kernel ch07_rmsnorm
expect_refused --dump "${valid[@]}" --dump
expect_refused --frobnicate "${valid[@]}" --frobnicate

# A kernel that cannot take the case is refused by name and reason, with or without a GPU.
gemma=(check --op rmsnorm --dtype fp32 --rows 4 --cols 64 --kernel ch04_rmsnorm_fused_float4 --gemma)
expect "$normlab" 2 "ch04_rmsnorm_fused_float4 (option '--kernel') refuses" "${gemma[@]}"
expect "$normlab" 2 "(1 + w)" "${gemma[@]}"

finish "usage printed, every bad option and refused kernel refused by name with exit code 2"
