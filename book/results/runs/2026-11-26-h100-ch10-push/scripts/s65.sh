#!/bin/bash
# s65: a minimal st.async + mbarrier exchange in clusters of 8 and 16, plain and under synccheck
cd .deps/carry18
./st_async_full; echo "plain rc=$?"
for tool in synccheck; do
  compute-sanitizer --tool $tool --error-exitcode 9 ./st_async_full 2>&1 | tail -6; echo "$tool rc=${PIPESTATUS[0]}"
done
