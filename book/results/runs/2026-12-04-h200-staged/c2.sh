#!/bin/bash
# Call C2: the CPU build's test_ch09 and normlab (commit below; the staged launcher now allows its
# shared memory on every launch: C1's test_ch09 found a row of exactly 48 KB refused, the
# block_sum's static shared memory on top), carried as .deps/t2a/test_ch09.xz (part a: test_ch09
# whole) and, in a call at once after it, .deps/t2b/normlab.xz (part b: the rest). The
# sanitizers on the staged RMSNorm kernels (C1 passed --bias to them, and they refused it);
# then the staged configurations timed at the H200 table's points where a row of 512 chunks or
# more fits them, ranked in among the times kept there.
s=$(date +%s); L=$OUT/logs; mkdir -p $L
el() { echo $(( $(date +%s) - s )); }
exec > >(tee $L/c2$1.txt) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
if [ "$1" = a ]; then
  xz -dc .deps/t2a/test_ch09.xz > /tmp/test_ch09 && chmod +x /tmp/test_ch09
  /tmp/test_ch09 > $L/test_ch09.txt 2>&1; echo "test_ch09 rc=$? at $(el)s"; tail -n 3 $L/test_ch09.txt
  cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
  exit
fi
xz -dc .deps/t2b/normlab.xz > /tmp/normlab && chmod +x /tmp/normlab; T=/tmp/normlab
for tool in memcheck racecheck; do
  for args in "rmsnorm bf16 37 10240 8" "add_rmsnorm fp16 64 8192 8" "rmsnorm fp32 1 4096 4" "rmsnorm bf16 3 24576 4" "add_rmsnorm fp32 9 16384 4"; do
    set -- $args
    compute-sanitizer --tool $tool --error-exitcode 9 $T check --kernel ch09_${1}@staged$5 --op $1 --dtype $2 --rows $3 --cols $4 > $L/san.tmp 2>&1
    echo "$tool $args rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|refuse|FAIL|PASS' $L/san.tmp | head -2 | cut -c1-160 | tr '\n' ' ')"
  done
done 2>&1 | tee $L/sanitize.txt
echo "sanitized at $(el)s"
mkdir -p /tmp/tuned && cp kernels/tuned/nvidia-h200.4200GBps.tsv /tmp/tuned/
tune() { $T tune --out /tmp/tuned --update --kernel staged/ --repetitions 15 --rows 1,32,256,big "$@" --budget-s $(( 560 - $(el) )) >> $L/tune.log 2>&1; echo "tune $* rc=$? at $(el)s"; }
tune --dtypes bf16 --widths 4096,5120,6144,7168,8192,10240,12288,14336,16384,24576,32768
tune --dtypes fp16 --widths 6144,10240,16384
tune --dtypes fp32 --widths 3584,6144,10240,16384
grep -iE "fail|mismatch|stopped" $L/tune.log | head
grep -cE "\] .*: staged/" $L/tune.log; grep -E "\] .*: staged/" $L/tune.log | head -80
cp /tmp/tuned/nvidia-h200.4200GBps.tsv $L/
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
