mkdir -p /tmp/b && tar xJf .deps/s28/bins4.tar.xz -C /tmp/b
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib
B=/tmp/b
for round in 1 2; do
 for v in main hints; do
  for shape in "bf16 4096 8192" "bf16 4096 16384" "bf16 16384 4096" "bf16 8192 576" "fp32 2048 8192"; do set -- $shape
   for op in rmsnorm layernorm; do
    echo "== round $round $v $1 $2 x $3 $op" >> $OUT/time.log
    timeout 60 $B/$v --dtype $1 --rows $2 --cols $3 --op $op --kernel ch09_$op 2>&1 | grep -E "^09 +ch09_$op " >> $OUT/time.log
   done
  done
 done
done
