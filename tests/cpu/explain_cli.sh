#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# normlab explain on any machine: each rule of the dispatcher's table on both sides of its
# boundary, sm_90 assumed (and said) without a GPU, --sm, a call no kernel takes and bad options
# refused by name with exit code 2; the reason printed for one op quotes no other op's
# measurement; normlab check without --kernel refuses, before any GPU work, a case the
# dispatcher finds no kernel for; the tuned tables through --table, --gpu and --rules (the rules'
# checks above pass --rules, so that they hold on a GPU with a table too); normlab tune's usage
# and refusals: explain_cli.sh PATH/TO/normlab
set -u
normlab=$1
source "$(dirname "$0")/cli_expect.sh"
# explain_is KERNEL TEXT ARGS...: normlab explain ARGS exits 0 naming KERNEL, and says TEXT.
explain_is() {
  local kernel=$1 text=$2
  shift 2
  expect "$normlab" 0 "kernel:  $kernel " explain --rules "$@"
  expect "$normlab" 0 "$text" explain --rules "$@"
}
many=(--op rmsnorm --dtype bf16 --rows 8192)
few=(--op add_rmsnorm --dtype bf16 --cols 4096)

expect "$normlab" 0 "usage: normlab explain" explain --help
expect "$normlab" 0 "explain  print the kernel" --help
explain_is ch09_rmsnorm "launch:  narrow32x3: 256 threads a block, 1024 blocks" "${many[@]}" --cols 768
explain_is ch09_rmsnorm "launch:  block2_256x4: 64 threads a block, 8192 blocks" "${many[@]}" --cols 1024
explain_is ch07_rmsnorm "why:     rows wider than chapter 09's blocks take or off the 16-byte grid" "${many[@]}" --cols 1025
explain_is ch09_rmsnorm "launch:  block4_128x6: 64 threads a block" "${many[@]}" --cols 1032
explain_is ch09_layernorm "launch:  block4: 384 threads a block, 8192 blocks" --op layernorm --dtype bf16 --rows 8192 --cols 12288
explain_is ch07_layernorm "kernel:  ch07_layernorm" --op layernorm --dtype bf16 --rows 8192 --cols 12000
explain_is ch09_rmsnorm "launch:  block8_256x2: 256 threads a block, 8192 blocks" "${many[@]}" --cols 16384
explain_is ch09_add_rmsnorm "launch:  block1: 512 threads a block, 64 blocks" "${few[@]}" --rows 64
explain_is ch09_add_rmsnorm "launch:  block2_256x4: 256 threads a block, 65 blocks" "${few[@]}" \
  --rows 65
# 1024 fp32 columns on the grid (256 chunks): a block per row; one element off the grid, 257
# chunks, more than a narrow kernel holds.
explain_is ch09_layernorm "block2_256x4: 128 threads a block" --op layernorm --rows 8192 --cols 1024
explain_is ch07_layernorm "off the 16-byte grid" --op layernorm --rows 8192 --cols 1024 \
  --misalign 1
explain_is ch09_rmsnorm "(1 + w), in place" "${many[@]}" --cols 576 --gemma --in-place \
  --weight-dtype fp32
explain_is ch10_layernorm "why:     many rows on the 16-byte grid of a MiB or more" \
  --op layernorm --rows 128 --cols 1048576 --dtype fp32
explain_is ch08_layernorm_backward "why:     backward" --op layernorm_backward --rows 9 \
  --cols 8192 --bias --dresidual
explain_is ch10_layernorm_backward "ch10_layernorm_backward is the newest chapter's kernel" \
  --op layernorm_backward --rows 9 --cols 8193
expect "$normlab" 2 "ch10_layernorm_backward: needs sm_90 or newer, this GPU is sm_80" explain \
  --op layernorm_backward --rows 9 --cols 8193 --sm 80
expect "$normlab" 0 "GPU:     sm_80 (given by --sm)" explain "${many[@]}" --cols 64 --sm 80
expect env 0 "GPU:     sm_90 (assumed: no CUDA GPU is visible" CUDA_VISIBLE_DEVICES= \
  "$normlab" explain "${many[@]}" --cols 64

# why_of OP OTHER RULE ARGS...: normlab explain --op OP ARGS takes the rule whose reason says
# RULE, and its output says nothing of OTHER, another op (whose measurement it would quote).
why_of() {
  local op=$1 other=$2 rule=$3
  shift 3
  expect "$normlab" 0 "$rule" explain --rules --op "$op" "$@"
  expect_absent "$normlab" 0 "$other" explain --rules --op "$op" "$@"
}
for ops in "rmsnorm LayerNorm" "add_rmsnorm LayerNorm" "layernorm RMSNorm" "add_layernorm RMSNorm"; do
  read -r op other <<<"$ops"
  why_of "$op" "$other" "why:     narrow rows" --dtype bf16 --rows 8192 --cols 512
  why_of "$op" "$other" "chapter 09 splits each row" --dtype bf16 --rows 32 --cols 4096
  why_of "$op" "$other" "why:     few rows (<= 64) wider" --rows 16 --cols 4194304
  why_of "$op" "$other" "why:     many rows of up to" --dtype bf16 --rows 4096 --cols 8192
  why_of "$op" "$other" "grid of a MiB or more" --rows 128 --cols 1048576
  why_of "$op" "$other" "grid, wider than" --dtype bf16 --rows 512 --cols 65536
  why_of "$op" "$other" "why:     rows wider than chapter 09's" --dtype bf16 --rows 8192 --cols 1025
done

expect "$normlab" 2 "'--op'" explain --rows 4 --cols 64
expect "$normlab" 2 "'--cols'" explain --op rmsnorm --rows 4 --cols 0
expect "$normlab" 2 "'--sm'" explain "${many[@]}" --cols 64 --sm 5
expect "$normlab" 2 "'--seed'" explain "${many[@]}" --cols 64 --seed 3
# The pairings and the RMSNorm bias only chapter 07's launcher and chapter 08's backward take:
# planned there by name, where the rules would pick chapter 09.
explain_is ch07_rmsnorm "call:    rmsnorm bf16 8192 x 1024, bias" "${many[@]}" --cols 1024 --bias
explain_is ch07_layernorm "call:    layernorm fp32 8192 x 1024, bf16 parameters" --op layernorm \
  --rows 8192 --cols 1024 --weight-dtype bf16 --bias
explain_is ch07_add_rmsnorm "fp16 parameters" --op add_rmsnorm --rows 8192 --cols 1024 \
  --weight-dtype fp16
explain_is ch07_add_rmsnorm "call:    add_rmsnorm bf16 8192 x 1024, fp32 residual" \
  --op add_rmsnorm --dtype bf16 --rows 8192 --cols 1024 --residual-dtype fp32
explain_is ch07_add_layernorm "fp16 8192 x 576, fp32 parameters, fp32 residual" \
  --op add_layernorm --dtype fp16 --weight-dtype fp32 --rows 8192 --cols 576 \
  --residual-dtype fp32 --bias
explain_is ch08_rmsnorm_backward "call:    rmsnorm_backward bf16 64 x 1000, fp32 dy" \
  --op rmsnorm_backward --dtype bf16 --rows 64 --cols 1000 --dy-dtype fp32 --bias
explain_is ch08_layernorm_backward "fp32 8 x 96, bf16 parameters, fp16 dy" \
  --op layernorm_backward --rows 8 --cols 96 --weight-dtype bf16 --dy-dtype fp16 --bias

expect "$normlab" 2 "ch10_layernorm_backward: rows wider than 524288 bytes" check \
  --op layernorm_backward --rows 9 --cols 262152 --dtype bf16

# Tuned tables: --table FILE, a near grid point's fastest kernel that takes the call (the next
# when a faster one refuses it), the rules where no point is near; --gpu NAME, a compiled-in
# table; a missing or malformed file refused with exit 2.
table=$(mktemp)
trap 'rm -f "$table"' EXIT
printf '# device\tNVIDIA Test GPU\n# date\tD\nrmsnorm\tbf16\t8192\t4096\t%s %s\n' \
  block/block4_128x6=0.05 general/default=0.06 >"$table"
expect "$normlab" 0 "kernel:  ch09_rmsnorm@block4_128x6 " explain --table "$table" "${many[@]}" \
  --cols 4000
expect "$normlab" 0 "runner-up general/default (0.06 ms)" explain --table "$table" "${many[@]}" \
  --cols 4000
expect "$normlab" 0 "table:   $(basename "$table") (NVIDIA Test GPU, tuned D)" explain \
  --table "$table" "${many[@]}" --cols 4000
expect "$normlab" 0 "kernel:  ch07_rmsnorm " explain --table "$table" "${many[@]}" --cols 4000 \
  --misalign 1
updated=$(mktemp)
printf '# device\tNVIDIA Test GPU\n# date\tD\n# updated\tU: slim/ ranked in\nrmsnorm\tbf16\t8192\t4096\t%s\n' \
  block/block4_128x6=0.05 >"$updated"
expect "$normlab" 0 "(NVIDIA Test GPU, tuned D, updated U)" explain --table "$updated" \
  "${many[@]}" --cols 4000
# Several updates: the latest, and how many.
printf '# device\tNVIDIA Test GPU\n# date\tD\n# updated\tU1: slim/ ranked in\n# updated\tU2: staged/ ranked in\nrmsnorm\tbf16\t8192\t4096\t%s\n' \
  block/block4_128x6=0.05 >"$updated"
expect "$normlab" 0 "(NVIDIA Test GPU, tuned D, updated U2 (the last of 2 updates))" explain \
  --table "$updated" "${many[@]}" --cols 4000
# A resumed run's points ("added") count as an update.
printf '# device\tNVIDIA Test GPU\n# date\tD\n# updated\tU1: slim/ ranked in\n# added\tA2: backward points\nrmsnorm\tbf16\t8192\t4096\t%s\n' \
  block/block4_128x6=0.05 >"$updated"
expect "$normlab" 0 "(NVIDIA Test GPU, tuned D, updated A2 (the last of 2 updates))" explain \
  --table "$updated" "${many[@]}" --cols 4000
# A backward call: the table's point of its op, the cluster configuration ranked first there.
printf '# device\tNVIDIA Test GPU\n# date\tD\nlayernorm_backward\tbf16\t4096\t16384\t%s %s\n' \
  cluster/512x4=0.10 cluster/256x4=0.12 >"$updated"
expect "$normlab" 0 "kernel:  ch10_layernorm_backward_cluster@512x4 " explain --table "$updated" \
  --op layernorm_backward --rows 4096 --cols 16000 --dtype bf16
expect "$normlab" 0 "runner-up cluster/256x4 (0.12 ms)" explain --table "$updated" \
  --op layernorm_backward --rows 4096 --cols 16000 --dtype bf16
expect "$normlab" 0 "has no grid point of rmsnorm_backward bf16; the rules" explain \
  --table "$updated" --op rmsnorm_backward --rows 4096 --cols 16000 --dtype bf16
rm -f "$updated"
expect "$normlab" 0 "no grid point of tuned table" explain --table "$table" "${many[@]}" \
  --cols 30000
expect "$normlab" 0 "table:   none (--rules)" explain --rules --table "$table" "${many[@]}" \
  --cols 4000
expect env 0 "table:   none for this GPU: the decision table's rules" CUDA_VISIBLE_DEVICES= \
  "$normlab" explain "${many[@]}" --cols 4096
expect "$normlab" 0 "table:   nvidia-h200." explain --gpu "NVIDIA H200" "${many[@]}" --cols 4096
expect "$normlab" 0 "why:     tuned table nvidia-h200." explain --gpu "NVIDIA H200" "${many[@]}" \
  --cols 4096
expect "$normlab" 0 "table:   none for NVIDIA Unknown" explain --gpu "NVIDIA Unknown" \
  "${many[@]}" --cols 4096
expect "$normlab" 2 "cannot read tuned table /no/such.tsv" explain --table /no/such.tsv \
  "${many[@]}" --cols 64
printf '# device\tX\nrmsnorm\tbf16\t1\n' >"$table"
expect "$normlab" 2 "line 2: expected 5 tab-separated fields" explain --table "$table" \
  "${many[@]}" --cols 64

# normlab check --kernel takes a candidate that explain can name but the registry lacks.
expect "$normlab" 2 "runs rmsnorm, not layernorm" check --kernel ch09_rmsnorm@narrow8x4 \
  --op layernorm --rows 64 --cols 256 --dtype bf16
expect env 69 "no CUDA GPU is visible" CUDA_VISIBLE_DEVICES= "$normlab" check \
  --kernel ch09_rmsnorm@narrow8x4 --op rmsnorm --rows 64 --cols 256 --dtype bf16
expect "$normlab" 2 "names no registered kernel" check --kernel ch09_rmsnorm@nope --op rmsnorm \
  --rows 64 --cols 256 --dtype bf16

# normlab tune: its usage, bad options refused by name before any GPU work, and without a GPU
# exit 69 having written nothing.
expect "$normlab" 0 "usage: normlab tune" tune --help
expect env 0 "lanes/narrow8x4        ch09_layernorm@narrow8x4" CUDA_VISIBLE_DEVICES= "$normlab" \
  tune --list --ops layernorm
expect "$normlab" 0 "grid: 1026 points" tune --list
# Where 128 MiB of rows is exactly a listed count (add + RMSNorm bf16 at 65536: 256 rows), the
# grid has the point once.
expect "$normlab" 0 "grid: 1 points" tune --list --ops add_rmsnorm --dtypes bf16 --widths 65536 \
  --rows 256,big
expect "$normlab" 0 "grid: 4 points" tune --list --ops rmsnorm --dtypes bf16 --widths 4096 \
  --rows 1,32,256,big
expect_absent "$normlab" 0 "lanes/" tune --list --kernel block/
# The backward ops' candidates: chapter 08's deterministic kernel (never the atomic one) and the
# cluster backward's configurations.
expect "$normlab" 0 "cluster/512x4          ch10_layernorm_backward_cluster@512x4" tune --list \
  --ops layernorm_backward
expect "$normlab" 0 "persistent/default     ch08_rmsnorm_backward " tune --list --ops rmsnorm_backward
expect_absent "$normlab" 0 "_atomic" tune --list --ops rmsnorm_backward,layernorm_backward
expect "$normlab" 0 "tune     time every candidate kernel" --help
expect_brief "$normlab" 2 "'--ops' takes norms and their backward" tune --ops copy
expect_brief "$normlab" 2 "'--widths' must be >= 1" tune --widths 256,0
expect_brief "$normlab" 2 "'--rows' has an empty item" tune --rows 1,,2
expect_brief "$normlab" 2 "'--dtypes'" tune --dtypes bf17
expect_brief "$normlab" 2 "is not an option of normlab tune" tune --fast
expect_brief "$normlab" 2 "'--update' needs --kernel" tune --update
expect_brief "$normlab" 2 "'--update' adds to a table" tune --update --kernel slim/ --fresh
expect env 0 "slim/slim4_256x4       ch09_rmsnorm@slim4_256x4" CUDA_VISIBLE_DEVICES= "$normlab" \
  tune --list --ops rmsnorm --kernel slim/
expect_absent "$normlab" 0 "slim/slim4_256x4" tune --list --ops add_layernorm --kernel slim/
out=$(mktemp -d)
expect env 69 "normlab tune: no CUDA GPU is visible" CUDA_VISIBLE_DEVICES= "$normlab" tune \
  --out "$out/tuned"
[ -e "$out/tuned" ] && { echo "FAILED: normlab tune wrote $out/tuned without a GPU"; failures=$((failures + 1)); }
rm -rf "$out"

finish "explain: every rule at its boundary, its reason true for the op; tuned tables; bad options and impossible calls refused (exit 2); tune's usage"
