mkdir -p /tmp/b && tar xJf .deps/s28/bins2.tar.xz -C /tmp/b
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib
B=/tmp/b
for round in 1 2; do
 for v in main new notake nothief; do
  if [ $v = notake ]; then export NL_NOTAKE=1; bin=new; else unset NL_NOTAKE; bin=$v; fi
  for shape in "fp32 2048 8192" "fp32 4096 8192" "bf16 16384 4096"; do set -- $shape
   echo "== round $round $v $1 $2 x $3" >> $OUT/time.log
   timeout 60 $B/$bin --dtype $1 --rows $2 --cols $3 --kernel backward 2>&1 | grep "backward " | grep -v atomic | awk '{print $2, $6}' >> $OUT/time.log
  done
 done
done
