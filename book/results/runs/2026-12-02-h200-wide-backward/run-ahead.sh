#!/bin/bash
# The cluster backward loading the next row ahead: its tests, sanitizers on two shapes, then the
# backward rows of the comparison with every peer (installed from /tmp/peers, carried before).
R=$PWD; B=/tmp/b; L=$OUT/logs; mkdir -p $B $L
tar -xJf .deps/dev10/bin.tar.xz -C $B
export LD_LIBRARY_PATH=$B:/usr/local/cuda/lib64:/usr/local/cuda/lib
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/gpu.txt
bash scripts/peer-wheels --install /tmp/peers/peers-1 /tmp/peers/peers-2 .deps/peers-3 /tmp/peerlib > $L/peers.txt 2>&1; echo "peers rc=$?" >> $L/status
eval "$(python3 - <<'PY'
import os, sysconfig, torch
r = os.path.dirname(torch.__file__)
print(f"TI={r}/include TL={r}/lib ABI={int(torch._C._GLIBCXX_USE_CXX11_ABI)} "
      f"SUF={sysconfig.get_config_var('EXT_SUFFIX')} PI={sysconfig.get_paths()['include']}")
PY
)"
(g++ -O2 -std=c++20 -fPIC -shared -fvisibility=hidden -D_GLIBCXX_USE_CXX11_ABI=$ABI -isystem $TI \
  -isystem $TI/torch/csrc/api/include -isystem $PI -Ipython/normlab_torch/csrc \
  python/normlab_torch/csrc/extension.cpp -o $B/_C$SUF -L$B -lnormlab_capi -L$TL -lc10 -ltorch \
  -ltorch_cpu -ltorch_python -Wl,-rpath,'$ORIGIN' > $L/ext_build.txt 2>&1; echo "extension build rc=$?" >> $L/status) &
cd $B
printf '%s\n' 'test_ch08 [ch10]' test_ch10 test_dispatch_run | xargs -P 3 -I{} sh -c 'timeout 300 ./{} > "'$L'/$(echo {} | cut -d" " -f1).txt" 2>&1; echo "{} rc=$?" >> '$L'/status'
cd $R
for tool in memcheck racecheck synccheck; do
  for args in "--op layernorm_backward --rows 67 --cols 65536 --dtype bf16" "--op rmsnorm_backward --rows 9 --cols 131072 --dtype fp32 --dresidual"; do
    echo "== $tool $args" >> $L/sanitize.txt
    timeout 90 compute-sanitizer --error-exitcode 9 --tool $tool $B/normlab check $args >> $L/sanitize.txt 2>&1; echo "$tool [$args] rc=$?" >> $L/status
  done
done
wait
export PYTHONPATH=/tmp/peerlib:/tmp/peerlib/nvidia_cutlass_dsl/dsl_packages:$R/python NORMLAB_CAPI=$B/libnormlab_capi.so
timeout 330 python3 bench/compare_peers.py --normlab $B/normlab --only backward --out $L --require-torch > $L/compare.txt 2>&1; echo "compare rc=$?" >> $L/status
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
