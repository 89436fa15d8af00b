# SPDX-License-Identifier: Apache-2.0
# Sourced by the student-copy tests with SOURCE_DIR as $1: makes a student copy of it without
# building (scripts/student-copy DIR --no-build) in $tmp/class, removed on exit, and enters it.
source_dir=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash "$source_dir/scripts/student-copy" "$tmp/class" --no-build
cd "$tmp/class"
