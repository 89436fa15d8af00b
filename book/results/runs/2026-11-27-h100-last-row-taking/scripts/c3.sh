mkdir -p /tmp/b && tar xJf .deps/s28/bins3.tar.xz -C /tmp/b
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib
B=/tmp/b
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
for round in 1 2 3; do
 for v in main new; do
  for shape in "fp32 2048 8192" "fp32 4096 8192" "bf16 16384 4096" "bf16 4096 8192" "bf16 8192 576" "fp32 300 4096"; do set -- $shape
   echo "== round $round $v $1 $2 x $3" >> $OUT/time.log
   timeout 60 $B/$v --dtype $1 --rows $2 --cols $3 --kernel backward 2>&1 | grep "backward " | grep -v atomic >> $OUT/time.log
  done
 done
done
(timeout 200 $B/test_ch08 2>&1 | tail -15) > $OUT/test_ch08.log
for tool in memcheck racecheck; do
 for shape in "fp32 400 8192" "bf16 8192 576"; do set -- $shape
  echo "== $tool $shape" >> $OUT/san.log
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $B/new --dtype $1 --rows $2 --cols $3 --quick --kernel backward 2>&1 | tail -3 >> $OUT/san.log; echo "rc=${PIPESTATUS[0]}" >> $OUT/san.log
 done
done
