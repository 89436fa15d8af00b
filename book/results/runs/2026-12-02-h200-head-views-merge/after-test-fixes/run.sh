#!/bin/bash
# merge-heads after the two test fixes: test_head_views, pytest's head-view cases on both paths.
R=$PWD; B=/tmp/b; L=$OUT/logs; mkdir -p $B $L
tar -xJf .deps/dev13/bin.tar.xz -C $B
export LD_LIBRARY_PATH=$B:/usr/local/cuda/lib64:/usr/local/cuda/lib
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
timeout 200 $B/test_head_views > $L/test_head_views.txt 2>&1; echo "test_head_views rc=$?: $(grep -E '^(test cases|All tests)' $L/test_head_views.txt | tail -1)" >> $L/status
wait
export NORMLAB_CAPI=$B/libnormlab_capi.so PYTHONPATH=$R/python
(cd python/tests && timeout 120 python3 -m pytest -q -p no:cacheprovider -k "head_view" .) > $L/pytest.txt 2>&1; echo "pytest rc=$?: $(tail -n 1 $L/pytest.txt)" >> $L/status
(cd python/tests && NORMLAB_TORCH_BACKEND=ctypes timeout 120 python3 -m pytest -q -p no:cacheprovider -k "head_view" .) > $L/pytest_ctypes.txt 2>&1; echo "pytest ctypes rc=$?: $(tail -n 1 $L/pytest_ctypes.txt)" >> $L/status
cd $OUT && tar -cJf logs.tar.xz logs && rm -rf logs
