#!/bin/bash
# The committed tree (ce003f7): the backward kernels after the refactor (the cluster grid shared
# by both cluster kernels, output_row, on_the_grid): every backward test program, the forward
# cluster's, dispatch, same-function, capabilities; sanitizers on the cluster and one-row paths;
# pytest on both paths.
R=$PWD; B=/tmp/b; L=$OUT/logs; mkdir -p $B $L
tar -xJf .deps/dev11/bin.tar.xz -C $B
export LD_LIBRARY_PATH=$B:/usr/local/cuda/lib64:/usr/local/cuda/lib
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/gpu.txt
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
printf '%s\n' test_ch08 test_ch10 test_dispatch_run test_same_function test_known_wrong_ch08 test_backward_workspace test_capabilities | xargs -P 4 -I{} sh -c 'timeout 300 ./{} > '$L'/{}.txt 2>&1; echo "{} rc=$?: $(grep -E "^(test cases|All tests)" '$L'/{}.txt | tail -1)" >> '$L'/status'
cd $R
for tool in memcheck racecheck synccheck; do
  for args in "--op layernorm_backward --rows 5 --cols 262144 --dtype bf16 --weight-dtype fp32" "--op rmsnorm_backward --rows 33 --cols 20001 --dtype fp16 --misalign 1 --dresidual" "--op layernorm_backward --rows 1 --cols 4096 --dtype bf16" "--op rmsnorm --rows 5 --cols 65536 --dtype bf16"; do
    echo "== $tool $args" >> $L/sanitize.txt
    timeout 90 compute-sanitizer --error-exitcode 9 --tool $tool $B/normlab check $args >> $L/sanitize.txt 2>&1; echo "$tool [$args] rc=$?" >> $L/status
  done
done
wait
export NORMLAB_CAPI=$B/libnormlab_capi.so PYTHONPATH=$R/python
(cd python/tests && timeout 240 python3 -m pytest -q -rs -p no:cacheprovider .) > $L/pytest.txt 2>&1; echo "pytest rc=$?: $(tail -n 1 $L/pytest.txt)" >> $L/status
(cd python/tests && NORMLAB_TORCH_BACKEND=ctypes timeout 200 python3 -m pytest -q -p no:cacheprovider .) > $L/pytest_ctypes.txt 2>&1; echo "pytest ctypes rc=$?: $(tail -n 1 $L/pytest_ctypes.txt)" >> $L/status
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
