#!/bin/bash
# Call C3 (at once after C2): the peers installed, the three sweeps with the new table.
s=$(date +%s); L=$OUT/logs; mkdir -p $L
el() { echo $(( $(date +%s) - s )); }
exec > >(tee $L/c3.txt) 2>&1
cp -r .deps/peers-3 /tmp/peerstage/
scripts/peer-wheels --install /tmp/peerstage/peers-1 /tmp/peerstage/peers-2 /tmp/peerstage/peers-3 /tmp/peers > $L/peers.log 2>&1; echo "peers rc=$? at $(el)s"
export PYTHONPATH=/tmp/peers:/tmp/peers/nvidia_cutlass_dsl/dsl_packages
for d in fp32 bf16 fp16; do
  b=200; [ $d = bf16 ] && b=330
  python3 bench/compare_peers.py --sweep $d --build build/gpu --out $L/sweep --require-torch --budget-s $b > $L/sweep-$d.log 2>&1; echo "sweep $d rc=$? at $(el)s"
  tail -n 3 $L/sweep-$d.log
done
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
