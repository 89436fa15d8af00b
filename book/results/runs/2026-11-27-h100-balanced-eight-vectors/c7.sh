mkdir -p /tmp/b && tar xJf .deps/s28/bins6.tar.xz -C /tmp/b
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib
B=/tmp/b
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
for round in 1 2 3; do
 for v in main new; do
  for shape in "bf16 4096 16384 layernorm" "bf16 4096 14336 layernorm" "bf16 4096 20480 layernorm" "bf16 2048 24576 layernorm" "bf16 1024 16384 layernorm" "bf16 4096 16384 add_layernorm"; do set -- $shape
    echo "== round $round $v $1 $2 x $3 $4" >> $OUT/time.log
    timeout 60 $B/$v --dtype $1 --rows $2 --cols $3 --op $4 --kernel ch09_$4 2>&1 | grep -E "^09 +ch09_$4 " >> $OUT/time.log
  done
 done
done
(timeout 240 $B/test_ch09 2>&1 | tail -8) > $OUT/test_ch09.log
for tool in memcheck racecheck; do
 for shape in "bf16 7 16384 layernorm" "bf16 7 20480 layernorm" "bf16 5 16384 add_layernorm"; do set -- $shape
  echo "== $tool $shape" >> $OUT/san.log
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $B/new --dtype $1 --rows $2 --cols $3 --op $4 --kernel ch09_$4 --quick 2>&1 | grep -E "SUMMARY|^09 +ch09_$4 " >> $OUT/san.log; echo "rc=${PIPESTATUS[0]}" >> $OUT/san.log
 done
done
