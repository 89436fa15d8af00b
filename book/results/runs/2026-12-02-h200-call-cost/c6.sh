set -o pipefail
mkdir -p /tmp/b && tar xJf .deps/lead/bins.tar.xz -C /tmp/b
export LD_LIBRARY_PATH=/tmp/b:/usr/local/cuda/lib64:/usr/local/cuda/lib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
python3 -m pip install -q --no-index --no-deps --target /tmp/site .deps/liger/*.whl
export PYTHONPATH=/tmp/site:$PWD/python NORMLAB_CAPI=/tmp/b/libnormlab_capi.so PYTHONUNBUFFERED=1
(cd python/tests && timeout 150 python3 -m pytest -q -p no:cacheprovider . ; echo rc=$?) > $OUT/pytest.log 2>&1
(timeout 150 python3 python/bench_overhead.py; echo rc=$?) > $OUT/overhead.log 2>&1
(timeout 60 /tmp/b/normlab_call_cost --benchmark_filter='run/|launch/' --benchmark_repetitions=3 --benchmark_min_time=0.05s --benchmark_report_aggregates_only=true; echo rc=$?) > $OUT/call_cost.log 2>&1
(timeout 60 python3 book/results/runs/2026-12-02-h200-call-cost/breakdown.py; echo rc=$?) > $OUT/breakdown.log 2>&1
