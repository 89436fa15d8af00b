#!/bin/bash
# The committed rule: chapter 09's GPU tests, the API dispatcher's GPU test, the new sanitizer runs, and the dispatcher against chapter 07 (old) once more, alternated.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:$LD_LIBRARY_PATH
export NORMLAB_REQUIRE_GPU=1
R=$OUT/w3; mkdir -p $R
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $R/gpu.txt
mkdir -p /tmp/f && tar -xJf .deps/s24/ch09final.txz -C /tmp/f && tar -xJf .deps/s24/ch09cur.txz -C /tmp/f || exit 1
(/tmp/f/test_ch09 2>&1 | tail -4; /tmp/f/test_dispatch_run 2>&1 | tail -4) > $R/tests.txt
for tool in memcheck racecheck; do bash scripts/sanitize.sh $tool /tmp/f/ch09_new --rows 67 --cols 12288 --dtype bf16 --quick > $R/sanitize-$tool.txt 2>&1; echo "$tool rc=$?" >> $R/tests.txt; done
L=$R/w3.log
for i in 1 2; do
for shape in "2048 12288 bf16" "4096 16384 bf16" "4096 12000 bf16" "4096 14000 fp16"; do set -- $shape
  for op in layernorm add_layernorm; do
    for b in cur new; do echo "== $shape $op $b" >> $L; /tmp/f/ch09_$b --rows $1 --cols $2 --dtype $3 --op $op --kernel "ch09_${op}" 2>&1 | grep -E "^09 +ch09_${op} |FAIL" | awk '{print $2, $4, $5, $(NF-2)}' >> $L; done
  done
done; done
date -u >> $R/gpu.txt
cat $R/tests.txt; grep -c . $L
tar -C $OUT -czf $OUT/w3.tgz w3
