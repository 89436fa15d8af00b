#!/bin/bash
# Call 1 of 2: stash the first part of the build (xz of the GPU tests' binaries) in /tmp.
mkdir -p /tmp/stash && cp .deps/carry4/build.txz.part-aa /tmp/stash/ && ls -la /tmp/stash && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
