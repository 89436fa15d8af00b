#!/bin/bash
# Call C2 (at once after C1): time the staged configurations at the H200 table's points where a
# row of 512 chunks or more fits them, ranked in among the times kept there; rebuild with the
# table; stage the peers' second part.
s=$(date +%s); L=$OUT/logs; mkdir -p $L
el() { echo $(( $(date +%s) - s )); }
exec > >(tee $L/c2.txt) 2>&1
cp -r .deps/peers-2 /tmp/peerstage/
mkdir -p build/tuned && cp kernels/tuned/nvidia-h200.4200GBps.tsv build/tuned/
T=build/gpu/tools/normlab
tune() { $T tune --out build/tuned --update --kernel staged/ --repetitions 15 --rows 1,32,256,big "$@" --budget-s $(( 560 - $(el) )) >> $L/tune.log 2>&1; echo "tune $* rc=$? at $(el)s"; }
tune --dtypes bf16 --widths 4096,5120,6144,7168,8192,10240,12288,14336,16384,24576,32768
tune --dtypes fp16 --widths 6144,10240,16384
tune --dtypes fp32 --widths 3584,6144,10240,16384
grep -iE "fail|mismatch|stopped" $L/tune.log | head
grep -c "staged/" $L/tune.log; grep -E "\] .*: staged/" $L/tune.log | head -80
cp build/tuned/nvidia-h200.4200GBps.tsv $L/ && cp build/tuned/nvidia-h200.4200GBps.tsv kernels/tuned/
cmake --build --preset gpu -j 16 > $L/rebuild.log 2>&1; echo "rebuilt rc=$? at $(el)s"
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
