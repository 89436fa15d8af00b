#!/bin/bash
# The one-row backward (one launch, no scratch): test_ch08 (its new case), the known-wrong
# backward kernels, dispatch; sanitizers on one-row calls; pytest (extension path whole, ctypes
# on the backward and opcheck cases); bench_overhead twice; the C++ call cost.
R=$PWD; B=/tmp/b; L=$OUT/logs; mkdir -p $B $L
tar -xJf .deps/dev9/bin.tar.xz -C $B
export LD_LIBRARY_PATH=$B:/usr/local/cuda/lib64:/usr/local/cuda/lib
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/gpu.txt
eval "$(python3 - <<'PY'
import os, sysconfig, torch
r = os.path.dirname(torch.__file__)
print(f"TI={r}/include TL={r}/lib ABI={int(torch._C._GLIBCXX_USE_CXX11_ABI)} "
      f"SUF={sysconfig.get_config_var('EXT_SUFFIX')} PI={sysconfig.get_paths()['include']} TV={torch.__version__}")
PY
)"
echo "torch $TV" >> $L/gpu.txt
(g++ -O2 -std=c++20 -fPIC -shared -fvisibility=hidden -D_GLIBCXX_USE_CXX11_ABI=$ABI -isystem $TI \
  -isystem $TI/torch/csrc/api/include -isystem $PI -Ipython/normlab_torch/csrc \
  python/normlab_torch/csrc/extension.cpp -o $B/_C$SUF -L$B -lnormlab_capi -L$TL -lc10 -ltorch \
  -ltorch_cpu -ltorch_python -Wl,-rpath,'$ORIGIN' > $L/ext_build.txt 2>&1; echo "extension build rc=$?" >> $L/status) &
for t in test_ch08 test_known_wrong_ch08 test_backward_workspace test_dispatch_run test_same_function; do
  timeout 200 $B/$t > $L/$t.txt 2>&1; echo "$t rc=$?: $(grep -E '^(test cases|All tests)' $L/$t.txt | tail -1)" >> $L/status
done
S="compute-sanitizer --error-exitcode 9"
for tool in memcheck racecheck; do
  for args in "--op rmsnorm_backward --cols 4096 --dtype bf16 --bias" "--op layernorm_backward --cols 576 --dtype bf16" \
              "--op layernorm_backward --cols 1025 --dtype fp32 --misalign 1" "--op rmsnorm_backward --cols 33 --dtype fp16 --dresidual --in-place" \
              "--op layernorm_backward --cols 8192 --dtype bf16 --weight-dtype fp32 --dy-dtype fp32"; do
    echo "== $tool $args" >> $L/sanitize.txt
    timeout 60 $S --tool $tool $B/normlab check --rows 1 $args >> $L/sanitize.txt 2>&1; echo "$tool [$args] rc=$?" >> $L/status
  done
done
wait
export NORMLAB_CAPI=$B/libnormlab_capi.so PYTHONPATH=$R/python
(cd python/tests && timeout 240 python3 -m pytest -q -rs -p no:cacheprovider .) > $L/pytest.txt 2>&1; echo "pytest rc=$?: $(tail -n 1 $L/pytest.txt)" >> $L/status
(cd python/tests && NORMLAB_TORCH_BACKEND=ctypes timeout 120 python3 -m pytest -q -p no:cacheprovider -k "backward or gradient or opcheck or grad" .) > $L/pytest_ctypes.txt 2>&1; echo "pytest ctypes rc=$?: $(tail -n 1 $L/pytest_ctypes.txt)" >> $L/status
for i in 1 2; do timeout 150 python3 python/bench_overhead.py --batches 15 > $L/bench-$i.txt 2>&1; echo "bench $i rc=$?" >> $L/status; done
timeout 100 $B/normlab_call_cost --benchmark_filter='/rmsnorm/|/rmsnorm$|empty' --benchmark_min_time=0.2 --benchmark_counters_tabular=true --benchmark_repetitions=3 --benchmark_report_aggregates_only=true > $L/call_cost.txt 2>&1; echo "call_cost rc=$?" >> $L/status
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
