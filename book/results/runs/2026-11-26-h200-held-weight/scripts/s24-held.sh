#!/bin/bash
# chapter 08 with the weight held in registers for 16-bit LayerNorm only (new) against main; test_ch08; sanitizers.
exec > >(tee $OUT/s24.log) 2>&1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
B=/tmp/b24; rm -rf $B; mkdir -p $B && tar -xJf .deps/carry9/h.txz -C $B
R=$OUT/res; mkdir -p $R
timeout 300 $B/test_ch08 > $R/test_ch08.txt 2>&1; echo "test_ch08 rc=$? $(tail -2 $R/test_ch08.txt)"
for shape in "16384 4096 bf16" "4096 8192 bf16" "16384 4096 fp16" "8192 576 bf16"; do set -- $shape
  for i in 1 2; do for v in main new; do
    $B/$v/ch08_backward --rows $1 --cols $2 --dtype $3 > $R/ch08-$1x$2-$3-$v-$i.txt 2>&1
    echo "$1x$2-$3 $v $(grep -E '^08' $R/ch08-$1x$2-$3-$v-$i.txt | grep -v atomic | awk '{print $2, $4, $(NF-2)}' | tr '\n' ' ')"
  done; done
done
for tool in memcheck racecheck; do for a in "--rows 2000 --cols 1024 --dtype bf16 --quick" "--rows 300 --cols 4096 --dtype fp16 --quick" "--rows 37 --cols 2048 --dtype bf16 --quick"; do
  compute-sanitizer --tool $tool --error-exitcode 1 $B/new/ch08_backward $a > /dev/null 2>&1; echo "$tool new $a rc=$?"; done; done
tar -czf $OUT/s24.tgz -C $OUT res
