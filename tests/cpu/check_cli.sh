#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# normlab refuses bad options by name, with exit code 2, GPU or not, in one line and a pointer
# to the usage (not the usage itself); bare `normlab` and every subcommand's --help print usage;
# --option=value is read as --option value; eps is judged by the library's rule; a kernel asked
# for a case it cannot take is refused by name before any GPU work: check_cli.sh PATH/TO/normlab
set -u
normlab=$1
source "$(dirname "$0")/cli_expect.sh"
valid=(--op rmsnorm --dtype bf16 --rows 4 --cols 64)
# expect_refused OPTION-NAME ARGS...: normlab check ARGS exits 2 naming the option, briefly.
expect_refused() {
  local name=$1
  shift
  expect_brief "$normlab" 2 "'$name'" check "$@"
}

# Usage: bare, --help of each subcommand, an unknown command, unknown options everywhere.
expect "$normlab" 0 "usage: normlab <command>"
expect "$normlab" 0 "usage: normlab <command>" --help
expect "$normlab" 0 "usage: normlab tour" tour --help
expect "$normlab" 0 "usage: normlab check" check --help
expect "$normlab" 0 "usage: normlab check" check --op rmsnorm --help
expect "$normlab" 0 "usage: normlab list" list --help
expect_brief "$normlab" 2 "unknown command 'frobnicate'" frobnicate
expect_brief "$normlab" 2 "see normlab --help" frobnicate
expect_brief "$normlab" 2 "'--bogus'" tour --bogus
expect_brief "$normlab" 2 "see normlab tour --help" tour --rows 0
expect_brief "$normlab" 2 "'--bogus'" list --bogus
expect_brief "$normlab" 2 "see normlab list --help" list --bogus
expect_brief "$normlab" 2 "see normlab check --help" check "${valid[@]}" --rows x
expect_brief "$normlab" 2 "see normlab explain --help" explain "${valid[@]}" --bogus
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
expect_refused --weight-dtype "${valid[@]}" --weight-dtype fp16
expect_refused --weight-dtype "${valid[@]}" --weight-dtype fp64
expect_refused --dy-dtype "${valid[@]}" --dy-dtype fp32
expect_refused --dy-dtype --op rmsnorm_backward --dtype bf16 --rows 4 --cols 64 --dy-dtype fp8
expect_refused --residual-dtype "${valid[@]}" --residual-dtype fp32
expect_refused --residual-dtype --op add_rmsnorm --dtype bf16 --rows 4 --cols 64 \
  --residual-dtype fp16
expect_refused --residual-dtype --op add_layernorm --dtype fp32 --rows 4 --cols 64 \
  --residual-dtype bf16
expect_refused --row-stride "${valid[@]}" --row-stride 63
expect_refused --misalign "${valid[@]}" --misalign -1
expect_refused --misalign "${valid[@]}" --misalign 64
expect_refused --eps "${valid[@]}" --eps -1e-5
expect_refused --eps "${valid[@]}" --eps nan
expect_refused --eps "${valid[@]}" --eps 1e-5x
expect_refused --eps "${valid[@]}" --eps 1e39
# eps as the library judges it (normlab::plan's rule): 0 taken, as PyTorch takes it; 1e-50,
# which is 0 as a float, refused as another eps than the one asked for; 1e39 infinite.
expect "$normlab" 0 "kernel:" explain "${valid[@]}" --eps 0
expect_refused --eps "${valid[@]}" --eps 1e-50
expect "$normlab" 2 "'--eps' is 0 as a float" check "${valid[@]}" --eps 1e-50
expect "$normlab" 2 "argument 'eps' must be >= 0 and finite" explain "${valid[@]}" --eps 1e39
expect "$normlab" 0 "kernel:" explain "${valid[@]}" --eps 1e-30
expect_refused --seed "${valid[@]}" --seed seven
expect_refused --seed "${valid[@]}" --seed -1
expect_refused --distribution "${valid[@]}" --distribution bimodal
expect_refused --distribution "${valid[@]}" --distribution
expect_refused --mean "${valid[@]}" --mean inf
expect_refused --mean "${valid[@]}" --mean 1e400
expect_refused --scale "${valid[@]}" --scale -1
expect_refused --scale "${valid[@]}" --scale one
expect_refused --dresidual "${valid[@]}" --dresidual
# Head views (x's rows in groups): two rows a group at least, a gap only with groups, the norms
# and their backward only, and y never over x in groups.
expect_refused --groups "${valid[@]}" --groups 1
expect_refused --groups "${valid[@]}" --groups many
expect_refused --group-gap "${valid[@]}" --group-gap 64
expect_refused --group-gap "${valid[@]}" --groups 7 --group-gap -1
expect_refused --groups --op add_rmsnorm --dtype bf16 --rows 4 --cols 64 --groups 2
expect_refused --groups "${valid[@]}" --groups 2 --in-place
expect_refused --groups "${valid[@]}" --groups 2 --group-gap 9223372036854775807
expect "$normlab" 0 "x in groups of 7 rows 1280 apart" explain --op rmsnorm --dtype bf16 \
  --rows 693 --cols 128 --groups 7 --group-gap 384
expect "$normlab" 0 "x in groups of 2 rows 192 apart" explain --op rmsnorm_backward --rows 4 \
  --cols 64 --groups 2 --in-place
expect_refused --gemma "${valid[@]}" --gemma --no-weight
expect_refused --kernel "${valid[@]}" --kernel ch99_nothing
expect_refused --kernel "${valid[@]}" --kernel ch00_rmsnorm_eager
expect_refused --kernel --op layernorm --dtype fp32 --rows 4 --cols 64 --kernel ch07_rmsnorm
expect_refused --dump "${valid[@]}" --dump
expect_refused --frobnicate "${valid[@]}" --frobnicate

# --option=value as --option value, in every command; a value so given is judged as any other.
expect "$normlab" 0 "call:    rmsnorm bf16 4 x 64, no weight" explain --op=rmsnorm --dtype=bf16 \
  --rows=4 --cols 64 --no-weight
expect "$normlab" 0 "call:    layernorm fp32 3 x 8, row stride 9" explain --op layernorm \
  --rows=3 --cols=8 --row-stride=9 --eps=1e-6 --sm=80
expect_refused --rows --op=rmsnorm --rows=-1 --cols=64
expect_refused --eps "${valid[@]}" --eps=-0.5
expect_brief "$normlab" 2 "'--rows'" tour --rows=0
expect_brief "$normlab" 2 "'--op'" tour --op=softmax
expect_brief "$normlab" 2 "'--kernel'" tour --kernel=ch99_nothing

# A kernel that cannot take the case is refused by name and reason, with or without a GPU.
gemma=(check --op rmsnorm --dtype fp32 --rows 4 --cols 64 --kernel ch04_rmsnorm_fused_float4 --gemma)
expect "$normlab" 2 "ch04_rmsnorm_fused_float4 (option '--kernel') refuses" "${gemma[@]}"
expect "$normlab" 2 "(1 + w)" "${gemma[@]}"
# RMSNorm with a bias, and fp32 x with bf16 parameters: only the general launcher (chapter 07)
# takes them among the forward kernels; chapter 09's refuses each by name.
expect "$normlab" 2 "no bias with rmsnorm" check "${valid[@]}" --bias --kernel ch09_rmsnorm
expect "$normlab" 2 "no bf16 parameters with fp32 tensors" check --op rmsnorm --rows 4 --cols 64 \
  --weight-dtype bf16 --kernel ch09_rmsnorm
# A kernel without two-level rows refuses a head view by name.
expect "$normlab" 2 "no two-level rows of x" check --op rmsnorm --dtype fp32 --rows 4 --cols 64 \
  --groups 2 --kernel ch04_rmsnorm_fused_float4

finish "usage printed, every bad option and refused kernel refused by name, briefly, with exit code 2"
