#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A chapter program reads its command line as normlab tour does: --help prints usage; bad
# options are refused by name (exit 2) before any GPU work; when every kernel refuses the
# problem, each is named with its reason and the program exits 2.
# check_program_options.sh PROGRAM FP32-ONLY-KERNEL (a kernel of PROGRAM that refuses bf16)
set -u
program=$1
fp32_only=$2
source "$(dirname "$0")/cli_expect.sh"
expect "$program" 0 "usage: $program" --help
expect "$program" 0 "--op OP" --rows 5 --help
expect "$program" 2 "'--bogus'" --bogus
expect "$program" 2 "'--rows'" --rows 1e3
expect "$program" 2 "'--rows'" --rows 99999999999999999999
expect "$program" 2 "'--cols'" --cols -5
expect "$program" 2 "'--dtype'" --dtype fp64
expect "$program" 2 "'--op'" --op softmax
expect "$program" 2 "'--quick=1'" --quick=1
expect "$program" 2 "'--kernel'" --kernel no_such_kernel
expect "$program" 2 "skipped $fp32_only: it refuses" --dtype bf16
finish "usage printed, every bad option refused by name with exit code 2"
