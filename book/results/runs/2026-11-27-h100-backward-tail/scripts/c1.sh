set -x
mkdir -p /tmp/b && tar xJf .deps/s27/bins.tar.xz -C /tmp/b
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib
B=/tmp/b
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt
(NL_STAGED=1 timeout 200 $B/test_ch08 2>&1 | tail -30) > $OUT/test_staged.log; 
for round in 1 2 3; do
 for v in base staged; do
  if [ $v = staged ]; then export NL_STAGED=1; else unset NL_STAGED; fi
  for shape in "2048 8192" "4096 8192" "1024 6144"; do set -- $shape
   echo "== round $round $v fp32 $1 x $2" >> $OUT/time.log
   $B/ch08_backward --dtype fp32 --rows $1 --cols $2 --kernel backward 2>&1 | grep -v "^$" >> $OUT/time.log
  done
 done
done
unset NL_STAGED
export NL_STAGED=1
for tool in memcheck racecheck; do
 compute-sanitizer --tool $tool --error-exitcode 9 $B/ch08_backward --dtype fp32 --rows 7 --cols 5000 --quick --kernel backward > $OUT/san_$tool.log 2>&1; echo "rc=$?" >> $OUT/san_$tool.log
done
cd $OUT && tar czf all.tgz *.log gpu.txt
