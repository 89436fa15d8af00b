#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what normlab needs besides the CUDA Toolkit, on Debian 12/13 and Ubuntu 22.04/24.04.
#
#   scripts/deps.sh                 install what is missing (apt-get, as root or through sudo;
#                                   cuobjdump/nvdisasm from PyPI when the CUDA Toolkit has none)
#   scripts/deps.sh --tour          only what the tour needs: CMake and Ninja
#   scripts/deps.sh --grade         only what scripts/grade needs: CMake, Ninja, Catch2, cuobjdump
#   scripts/deps.sh --check [--tour|--grade]
#                                   say what is missing, install nothing (exit 1 if anything is)
#   scripts/deps.sh --download DIR [--distro ubuntu-24.04|ubuntu-22.04|debian-13|debian-12]
#                                   on a machine with network: gather the .deb files a GPU server
#                                   of that distribution (default: this one) lacks, and the
#                                   cuobjdump wheels, into DIR
#   scripts/deps.sh --offline DIR   on a machine without network: unpack every .deb in DIR into
#                                   .deps/prefix, which the CMake presets search; no root needed
#   scripts/deps.sh --catch2-3 DIR  build Catch2 3.7.1 from Debian 13's source package with this
#                                   machine's compiler and install it into DIR (CI's Catch2 3 step)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
prefix="$here/.deps/prefix"
tools="$here/.deps/tools"
# The CMake minimum, as CMakeLists.txt states it (the presets' format 6 needs 3.25).
cmake_minimum=$(sed -n 's/^cmake_minimum_required(VERSION \([0-9.]*\)).*/\1/p' "$here/CMakeLists.txt")
sass_wheels=(nvidia-cuda-cuobjdump==13.5.37 nvidia-cuda-nvdisasm==13.5.37)

# debian-12, ubuntu-24.04, ... from /etc/os-release.
this_distro() {
  local ID="" VERSION_ID=""
  # shellcheck disable=SC1091
  [ -r /etc/os-release ] && . /etc/os-release
  echo "$ID-$VERSION_ID"
}

# The packages of one distribution: the Catch2 development package, the Google Benchmark
# runtime library that libbenchmark-dev depends on (a different name in each release), the
# browser of the book's check (Ubuntu has Chromium only as a snap: none there), and where apt
# finds them.
distro_packages() {
  case "$1" in
    debian-12) catch2_pkg=catch2 benchmark_lib=libbenchmark1debian browser_pkg=chromium
               apt_source="deb http://deb.debian.org/debian bookworm main" ;;
    debian-13) catch2_pkg=libcatch2-dev benchmark_lib=libbenchmark1.9.1 browser_pkg=chromium
               apt_source="deb http://deb.debian.org/debian trixie main" ;;
    ubuntu-22.04) catch2_pkg=catch2 benchmark_lib=libbenchmark1 browser_pkg=
               apt_source="deb [trusted=yes] http://archive.ubuntu.com/ubuntu jammy main universe" ;;
    ubuntu-24.04) catch2_pkg=catch2 benchmark_lib=libbenchmark1.8.3 browser_pkg=
               apt_source="deb [trusted=yes] http://archive.ubuntu.com/ubuntu noble main universe" ;;
    *) echo "deps: unsupported distribution '$1' (Debian 12/13, Ubuntu 22.04/24.04 are known)" >&2
       return 1 ;;
  esac
}

# True when a CMake package config NAME is installed: system-wide or unpacked in .deps/prefix.
has_cmake_config() {
  compgen -G "/usr/lib/cmake/$1/*onfig.cmake" >/dev/null ||
    compgen -G "/usr/lib/*/cmake/$1/*onfig.cmake" >/dev/null ||
    compgen -G "$prefix/usr/lib/cmake/$1/*onfig.cmake" >/dev/null ||
    compgen -G "$prefix/usr/lib/*/cmake/$1/*onfig.cmake" >/dev/null
}

has_cmake() {
  command -v cmake >/dev/null || return 1
  local version
  version=$(cmake --version | sed -n 's/^cmake version \([0-9.]*\).*/\1/p')
  [ "$(printf '%s\n%s\n' "$cmake_minimum" "$version" | sort -V | head -1)" = "$cmake_minimum" ]
}

# Fills `missing` with the packages to install; $1 = all, grade or tour.
find_missing() {
  missing=()
  has_cmake || missing+=(cmake)
  command -v ninja >/dev/null || missing+=(ninja-build)
  [ "$1" = tour ] && return 0
  has_cmake_config Catch2 || missing+=("$catch2_pkg")
  [ "$1" = grade ] && return 0
  command -v ccache >/dev/null || missing+=(ccache)  # speeds up rebuilds; CMake uses it if found
  has_cmake_config benchmark || missing+=(libbenchmark-dev)
  command -v doxygen >/dev/null || missing+=(doxygen)
  command -v dot >/dev/null || missing+=(graphviz)
  # The book's formulas (MathJax 2, copied into the HTML) and the browser that checks every
  # page (the test book_browser, skipped without it).
  [ -f /usr/share/javascript/mathjax/MathJax.js ] || missing+=(libjs-mathjax)
  [ -z "$browser_pkg" ] || command -v chromium >/dev/null || missing+=("$browser_pkg")
}

as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null; then
    sudo "$@"
  else
    echo "deps: installing ${missing[*]} needs root, and sudo is not installed." >&2
    echo "deps: as root run: apt-get install ${missing[*]}" >&2
    echo "deps: or without root: scripts/deps.sh --download DIR elsewhere, then --offline DIR" >&2
    exit 1
  fi
}

install_missing() {
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "deps: installing ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  if ! has_cmake; then
    echo "deps: CMake >= $cmake_minimum is needed (this one: $(cmake --version | head -1))." >&2
    echo "deps: on Ubuntu 22.04: python3 -m pip install --user 'cmake>=$cmake_minimum', or Kitware's apt repository (apt.kitware.com)" >&2
    exit 1
  fi
}

cuda_bin() { dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"; }

has_sass_tools() {
  { [ -x "$(cuda_bin)/cuobjdump" ] && [ -x "$(cuda_bin)/nvdisasm" ]; } ||
    { [ -x "$tools/nvidia/cu13/bin/cuobjdump" ] && [ -x "$tools/nvidia/cu13/bin/nvdisasm" ]; }
}

install_sass_tools() {
  # cuobjdump reads the SASS the tests check; the CPU-only toolkit may lack it.
  has_sass_tools && return
  echo "deps: installing cuobjdump and nvdisasm into $tools"
  python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$tools" "$@" "${sass_wheels[@]}"
}

# apt-get with a private configuration that reads only "$1" (a sources line); the machine's
# own apt configuration is untouched. Ubuntu's archive key is not on a Debian machine, so its
# lines say [trusted=yes]: apt still checks each .deb against the index, and --download prints
# every file's SHA-256 to compare with packages.ubuntu.com.
private_apt() {
  local source=$1 root
  shift
  root=$(mktemp -d)
  mkdir -p "$root/lists/partial" "$root/cache/archives/partial"
  echo "$source" >"$root/sources.list"
  touch "$root/status"  # no installed packages: this machine's versions must not win
  local options=(-o "Dir::Etc::sourcelist=$root/sources.list" -o Dir::Etc::sourceparts=-
                 -o "Dir::State::status=$root/status"
                 -o "Dir::State::Lists=$root/lists" -o "Dir::Cache=$root/cache"
                 -o APT::Sandbox::User=root)
  apt-get "${options[@]}" update -qq
  apt-get "${options[@]}" "$@"
  rm -rf "$root"
}

download() {
  local dir=$1 distro=$2
  distro_packages "$distro"
  mkdir -p "$dir"
  dir=$(realpath "$dir")
  local wanted=("$catch2_pkg" libbenchmark-dev "$benchmark_lib")
  [ "$distro" = debian-13 ] && wanted+=(catch2)
  if [ "$distro" = "$(this_distro)" ]; then
    (cd "$dir" && apt-get download "${wanted[@]}")
  else
    (cd "$dir" && private_apt "$apt_source" download "${wanted[@]}")
  fi
  python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$dir" "${sass_wheels[@]}"
  echo "deps: gathered $(ls "$dir" | wc -l) files for $distro in $dir:"
  (cd "$dir" && sha256sum ./*)
}

# Catch2 3 for a machine whose distribution has only Catch2 2 (CI on Debian 12). Debian 13's
# libcatch2-dev .deb cannot be used with g++ 12: its static library calls __cxa_call_terminate
# (GCC 14's libstdc++) and __isoc23_strtoull (glibc 2.38). So the same source package is built
# here, with this compiler. Skipped when DIR already holds it.
build_catch2_3() {
  local dest version=3.7.1-0.5
  mkdir -p "$1"
  dest=$(realpath "$1")
  if [ -f "$dest/lib/cmake/Catch2/Catch2ConfigVersion.cmake" ] &&
     grep -q '"3.7.1"' "$dest/lib/cmake/Catch2/Catch2ConfigVersion.cmake"; then
    echo "deps: Catch2 3.7.1 already in $dest"
    return
  fi
  local work
  work=$(mktemp -d)
  echo "deps: building Catch2 $version (Debian 13 source package) into $dest"
  (cd "$work" && private_apt "deb-src http://deb.debian.org/debian trixie main" \
     source --download-only -qq "catch2=$version" &&
   dpkg-source -x --skip-patches "catch2_$version.dsc" src >/dev/null &&
   cd src && for patch in $(cat debian/patches/series); do patch -s -p1 <"debian/patches/$patch"; done)
  local launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S "$work/src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$dest" -DCMAKE_INSTALL_LIBDIR=lib -DCATCH_INSTALL_DOCS=OFF \
    -DCATCH_INSTALL_EXTRAS=ON -DBUILD_TESTING=OFF "${launcher[@]}" >/dev/null
  cmake --build "$work/build" -j "$(nproc)" >/dev/null
  cmake --install "$work/build" >/dev/null
  rm -rf "$work"
  echo "deps: Catch2 3.7.1 installed in $dest"
}

mode=${1:-}
case "$mode" in
  "" | --tour | --grade | --check)
    distro_packages "$(this_distro)" || { catch2_pkg=catch2 benchmark_lib=libbenchmark1 browser_pkg=; }
    need=${mode#--}
    [ "$mode" = --check ] && need=${2:-} && need=${need#--}
    find_missing "${need:-all}"
    if [ "$mode" = --check ]; then
      [ "$need" = tour ] || has_sass_tools || missing+=("cuobjdump and nvdisasm (from PyPI)")
      [ ${#missing[@]} -eq 0 ] && { echo "deps: nothing missing"; exit 0; }
      echo "deps: missing ${missing[*]}"
      exit 1
    fi
    install_missing
    [ "$mode" = --tour ] || install_sass_tools
    ;;
  --download)
    dir=${2:?--download needs a folder}
    distro=$(this_distro)
    if [ "${3:-}" = --distro ]; then distro=${4:?--distro needs a name}; fi
    download "$dir" "$distro"
    ;;
  --offline)
    dir=${2:?--offline needs a folder}
    mkdir -p "$prefix"
    for deb in "$dir"/*.deb; do dpkg -x "$deb" "$prefix"; done
    if compgen -G "$dir/*.whl" >/dev/null; then install_sass_tools --no-index --find-links "$dir"; fi
    echo "deps: unpacked $(ls "$dir"/*.deb | wc -l) packages into $prefix"
    ;;
  --catch2-3)
    build_catch2_3 "${2:?--catch2-3 needs a folder}"
    ;;
  *)
    sed -n '3,18p' "$0"
    exit 2
    ;;
esac
