mkdir -p /tmp/b && tar xJf .deps/s28/bins5.tar.xz -C /tmp/b
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib
B=/tmp/b
for round in 1 2; do
 for v in main hints; do
  for shape in "bf16 4096 16384 layernorm" "bf16 4096 14336 layernorm" "bf16 1024 16384 layernorm" "fp16 4096 16384 layernorm" "bf16 4096 16384 add_layernorm" "bf16 4096 12800 layernorm"; do set -- $shape
    echo "== round $round $v $1 $2 x $3 $4" >> $OUT/time.log
    timeout 60 $B/$v --dtype $1 --rows $2 --cols $3 --op $4 --kernel ch09_$4 2>&1 | grep -E "^09 +ch09_$4 " >> $OUT/time.log
  done
 done
done
