#!/bin/bash
# Chapter 10's cluster backward (wide rows) and the one-row backward: the test programs, the
# sanitizers on the cluster kernel, pytest's wide-row and refusal cases, the C++ call cost. The
# peers' wheels (peers-1, peers-2 carried by the calls before into /tmp/peers) are installed for
# the comparison that follows.
R=$PWD; B=/tmp/b; L=$OUT/logs; mkdir -p $B $L
tar -xJf .deps/dev10/bin.tar.xz -C $B
export LD_LIBRARY_PATH=$B:/usr/local/cuda/lib64:/usr/local/cuda/lib
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/gpu.txt
bash scripts/peer-wheels --install /tmp/peers/peers-1 /tmp/peers/peers-2 .deps/peers-3 /tmp/peerlib > $L/peers.txt 2>&1; echo "peers rc=$?" >> $L/status
eval "$(python3 - <<'PY'
import os, sysconfig, torch
r = os.path.dirname(torch.__file__)
print(f"TI={r}/include TL={r}/lib ABI={int(torch._C._GLIBCXX_USE_CXX11_ABI)} "
      f"SUF={sysconfig.get_config_var('EXT_SUFFIX')} PI={sysconfig.get_paths()['include']} TV={torch.__version__}")
PY
)"
(g++ -O2 -std=c++20 -fPIC -shared -fvisibility=hidden -D_GLIBCXX_USE_CXX11_ABI=$ABI -isystem $TI \
  -isystem $TI/torch/csrc/api/include -isystem $PI -Ipython/normlab_torch/csrc \
  python/normlab_torch/csrc/extension.cpp -o $B/_C$SUF -L$B -lnormlab_capi -L$TL -lc10 -ltorch \
  -ltorch_cpu -ltorch_python -Wl,-rpath,'$ORIGIN' > $L/ext_build.txt 2>&1; echo "extension build rc=$?" >> $L/status) &
cd $B
printf '%s\n' test_ch08 test_ch10 test_dispatch_run test_same_function test_capabilities test_known_wrong_ch08 | xargs -P 3 -I{} sh -c 'timeout 300 ./{} > '$L'/{}.txt 2>&1; echo "{} rc=$?: $(grep -E "^(test cases|All tests)" '$L'/{}.txt | tail -1)" >> '$L'/status'
cd $R
S="compute-sanitizer --error-exitcode 9"
for tool in memcheck racecheck synccheck; do
  for args in "--op rmsnorm_backward --rows 5 --cols 65536 --dtype bf16" \
              "--op layernorm_backward --rows 3 --cols 262144 --dtype bf16 --weight-dtype fp32" \
              "--op layernorm_backward --rows 7 --cols 20001 --dtype fp16 --misalign 1 --dresidual" \
              "--op rmsnorm_backward --rows 4 --cols 131072 --dtype fp32 --bias --in-place"; do
    echo "== $tool $args" >> $L/sanitize.txt
    timeout 90 $S --tool $tool $B/normlab check $args >> $L/sanitize.txt 2>&1; echo "$tool [$args] rc=$?" >> $L/status
  done
done
wait
export NORMLAB_CAPI=$B/libnormlab_capi.so PYTHONPATH=$R/python
(cd python/tests && timeout 200 python3 -m pytest -q -rs -p no:cacheprovider -k "wider or refusal or fused_add_gradients or opcheck or one_row" .) > $L/pytest.txt 2>&1; echo "pytest rc=$?: $(tail -n 1 $L/pytest.txt)" >> $L/status
timeout 100 $B/normlab_call_cost --benchmark_filter='/rmsnorm/|/rmsnorm$|empty' --benchmark_min_time=0.2 --benchmark_counters_tabular=true --benchmark_repetitions=3 --benchmark_report_aggregates_only=true > $L/call_cost.txt 2>&1; echo "call_cost rc=$?" >> $L/status
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
