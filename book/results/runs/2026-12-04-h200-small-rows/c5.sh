#!/bin/bash
# Call C5: rebuild with the new table, install the peers (third part), and the bf16 sweep.
s=$(date +%s); L=$OUT/logs; mkdir -p $L
el() { echo $(( $(date +%s) - s )); }
exec > >(tee $L/c5.txt) 2>&1
cp -r .deps/peers-3 /tmp/peerstage/
cp build/tuned/nvidia-h200.4200GBps.tsv kernels/tuned/
cmake --build --preset gpu -j 16 > $L/build2.log 2>&1; echo "rebuilt rc=$? at $(el)s"
scripts/peer-wheels --install /tmp/peerstage/peers-1 /tmp/peerstage/peers-2 /tmp/peerstage/peers-3 /tmp/peers > $L/peers.log 2>&1; echo "peers rc=$? at $(el)s"
export PYTHONPATH=/tmp/peers:/tmp/peers/nvidia_cutlass_dsl/dsl_packages
python3 -c "import quack, liger_kernel; print('peers import')"
python3 bench/compare_peers.py --sweep bf16 --build build/gpu --out $L/sweep --require-torch --budget-s 380 > $L/sweep-bf16.log 2>&1; echo "sweep rc=$? at $(el)s"
tail -n 4 $L/sweep-bf16.log
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
