#!/usr/bin/env bash
# Installs what normlab needs besides the CUDA Toolkit.
#
#   scripts/deps.sh                 install what is missing (Debian/Ubuntu: apt-get as root or
#                                   through sudo; cuobjdump/nvdisasm from PyPI when the CUDA
#                                   Toolkit has none)
#   scripts/deps.sh --download DIR  on a machine with network: gather the .deb files (and the
#                                   cuobjdump wheels) into DIR
#   scripts/deps.sh --offline DIR   on a machine without network: unpack every .deb in DIR into
#                                   .deps/prefix, which the CMake presets search; no root needed
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
prefix="$here/.deps/prefix"
tools="$here/.deps/tools"

# Debian package -> a file it installs, to tell whether it is there.
declare -A packages=(
  [cmake]=/usr/bin/cmake
  [ninja-build]=/usr/bin/ninja
  [catch2]=/usr/include/catch2/catch.hpp
  [libbenchmark-dev]=/usr/include/benchmark/benchmark.h
  [doxygen]=/usr/bin/doxygen
  [graphviz]=/usr/bin/dot
  [ccache]=/usr/bin/ccache
)
# What a GPU server without network needs: the test and benchmark libraries.
offline_packages=(catch2 libbenchmark-dev libbenchmark1debian)
sass_wheels=(nvidia-cuda-cuobjdump==13.5.37 nvidia-cuda-nvdisasm==13.5.37)

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

cuda_bin() { dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"; }

install_sass_tools() {
  # cuobjdump reads the SASS the tests check; the CPU-only toolkit may lack it.
  if [ -x "$(cuda_bin)/cuobjdump" ] && [ -x "$(cuda_bin)/nvdisasm" ]; then return; fi
  if [ -x "$tools/nvidia/cu13/bin/cuobjdump" ] && [ -x "$tools/nvidia/cu13/bin/nvdisasm" ]; then return; fi
  echo "deps: installing cuobjdump and nvdisasm into $tools"
  python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$tools" "$@" "${sass_wheels[@]}"
}

case "${1:-}" in
  "")
    missing=()
    for package in "${!packages[@]}"; do
      [ -e "${packages[$package]}" ] || missing+=("$package")
    done
    if [ ${#missing[@]} -gt 0 ]; then
      echo "deps: installing ${missing[*]}"
      as_root apt-get update -qq
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
    install_sass_tools
    ;;
  --download)
    dir=${2:?--download needs a folder}
    mkdir -p "$dir"
    (cd "$dir" && apt-get download "${offline_packages[@]}")
    python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$dir" "${sass_wheels[@]}"
    echo "deps: gathered $(ls "$dir" | wc -l) files in $dir"
    ;;
  --offline)
    dir=${2:?--offline needs a folder}
    mkdir -p "$prefix"
    for deb in "$dir"/*.deb; do dpkg -x "$deb" "$prefix"; done
    if compgen -G "$dir/*.whl" >/dev/null; then install_sass_tools --no-index --find-links "$dir"; fi
    echo "deps: unpacked $(ls "$dir"/*.deb | wc -l) packages into $prefix"
    ;;
  *)
    sed -n '2,12p' "$0"
    exit 2
    ;;
esac
