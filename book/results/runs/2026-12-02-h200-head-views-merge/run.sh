#!/bin/bash
# The merge of head views (branch heads) with the wide backward: the GPU test programs that head
# views touch, sanitizers on head views, pytest on both paths, bench/head_views.py twice.
R=$PWD; B=/tmp/b; L=$OUT/logs; mkdir -p $B $L
tar -xJf .deps/dev12/bin.tar.xz -C $B
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
printf '%s\n' test_head_views test_known_wrong_head_views test_ch07 test_ch08 test_ch09 test_ch10 test_dispatch_run test_capabilities test_same_function test_ch09_dispatch test_known_wrong_ch07 test_known_wrong_ch09 | xargs -P 4 -I{} sh -c 'timeout 300 ./{} > '$L'/{}.txt 2>&1; echo "{} rc=$?: $(grep -E "^(test cases|All tests)" '$L'/{}.txt | tail -1)" >> '$L'/status'
cd $R
for tool in memcheck racecheck; do
  for args in "--op rmsnorm --rows 992 --cols 128 --dtype bf16 --groups 32 --group-gap 2048" "--op layernorm --rows 693 --cols 64 --dtype fp16 --groups 7" "--op rmsnorm_backward --rows 96 --cols 128 --dtype bf16 --groups 32 --group-gap 2048" "--op layernorm --rows 35 --cols 4099 --dtype fp32 --groups 5 --group-gap 3"; do
    echo "== $tool $args" >> $L/sanitize.txt
    timeout 90 compute-sanitizer --error-exitcode 9 --tool $tool $B/normlab check $args >> $L/sanitize.txt 2>&1; echo "$tool [$args] rc=$?" >> $L/status
  done
done
wait
export NORMLAB_CAPI=$B/libnormlab_capi.so PYTHONPATH=$R/python
(cd python/tests && timeout 240 python3 -m pytest -q -rs -p no:cacheprovider .) > $L/pytest.txt 2>&1; echo "pytest rc=$?: $(tail -n 1 $L/pytest.txt)" >> $L/status
(cd python/tests && NORMLAB_TORCH_BACKEND=ctypes timeout 200 python3 -m pytest -q -p no:cacheprovider .) > $L/pytest_ctypes.txt 2>&1; echo "pytest ctypes rc=$?: $(tail -n 1 $L/pytest_ctypes.txt)" >> $L/status
for i in 1 2; do timeout 100 python3 bench/head_views.py > $L/head_views-$i.txt 2>&1; echo "head_views $i rc=$?" >> $L/status; done
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
