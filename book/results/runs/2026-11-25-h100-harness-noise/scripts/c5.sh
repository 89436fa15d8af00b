#!/bin/bash
# Session 6, call 5: s5's unrun sanitizer tests (ch08 rows_ahead, ch09 medium_4096) and the
# issue-10 diagnosis: pre-harness vs current chapter 04/05 programs, alternated; in-situ kernel times.
exec > >(tee $OUT/c5.log) 2>&1
R=$OUT/res; mkdir -p $R
bash scripts/deps.sh --offline .deps/debs > $R/deps.log 2>&1 || tail -5 $R/deps.log
T0=$(date +%s)
cmake --preset gpu > $R/cfg.log 2>&1 || tail -30 $R/cfg.log
( cmake -S .deps/old -B /tmp/oldb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DNORMLAB_BUILD_BOOK=OFF -DNORMLAB_BUILD_BENCHMARKS=OFF > $R/old-cfg.log 2>&1 && cmake --build /tmp/oldb -j4 --target ch05_layernorm_welford ch04_fused_float4 > $R/old-build.log 2>&1; echo old-rc=$? ) &
OLD=$!
cmake --build build/gpu -j14 --target ch05_layernorm_welford ch04_fused_float4 > $R/build45.log 2>&1 || tail -30 $R/build45.log
echo build45 $(( $(date +%s) - T0 )) s
cmake --build build/gpu -j14 --target ch08_backward ch09_every_width > $R/build89.log 2>&1 &
B89=$!
wait $OLD
echo old-built $(( $(date +%s) - T0 )) s
N5=build/gpu/chapters/05-layernorm-welford/ch05_layernorm_welford; O5=/tmp/oldb/chapters/05-layernorm-welford/ch05_layernorm_welford
N4=build/gpu/chapters/04-fused-float4/ch04_fused_float4; O4=/tmp/oldb/chapters/04-fused-float4/ch04_fused_float4
ls $N5 $O5 $N4 $O4
wait $B89; echo build89-rc=$? $(( $(date +%s) - T0 )) s; tail -3 $R/build89.log
for i in 1 2 3 4 5; do
  for p in O5 N5 O4 N4; do echo "== $p $i"; ${!p} --rows 2048 --cols 8192 | grep -E "ch0[45]_"; done
done > $R/alternate.txt 2>&1
cat $R/alternate.txt | awk '/^==/{k=$2} /ch05_layernorm_sum|ch04_rmsnorm_fused/{print k, $2, $(NF-2)}' | sort | awk '{a[$1" "$2]=a[$1" "$2]" "$3} END{for(k in a) print k, a[k]}' | sort
# in-situ kernel durations (no cache or clock control: the kernel sees what the timed loop leaves)
for p in O5 N5; do ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum -k regex:sum_of_squares --launch-skip 3 --launch-count 15 ${!p} --rows 2048 --cols 8192 > $R/insitu-$p.txt 2>&1; echo "$p in situ:" $(grep gpu__time_duration $R/insitu-$p.txt | awk '{print $NF}' | tr '\n' ' '); done
which nsys && for p in O5 N5; do nsys profile -o /tmp/ns-$p --force-overwrite true ${!p} --rows 2048 --cols 8192 > /dev/null 2>&1; nsys stats -r cuda_gpu_kern_sum,cuda_gpu_trace /tmp/ns-$p.nsys-rep > $R/nsys-$p.txt 2>&1; grep -i "sum_of_squares" $R/nsys-$p.txt | head -3; done
ctest --test-dir build/gpu -R "rows_ahead|medium_4096" --output-on-failure > $R/ctest-new-sanitizers.txt 2>&1; tail -15 $R/ctest-new-sanitizers.txt
echo total $(( $(date +%s) - T0 )) s
tar -czf $OUT/c5.tgz -C $OUT res
