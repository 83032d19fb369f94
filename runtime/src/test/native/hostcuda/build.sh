#!/usr/bin/env bash
# Builds the host-executed CUDA driver (libcuda.so.1) for the CUDA backend's tests on machines
# without a GPU: driver.cpp and every kernel source of runtime/src/main/cuda compiled for the
# host. Usage: build.sh OUTPUT_DIR. Skips, and says so, where g++ is missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cuda="$here/../../../main/cuda"
out="$1"
rm -f "$out/libcuda.so.1"
if [ -z "${ONDEVICE_HOSTCUDA_FORCE:-}" ] && /sbin/ldconfig -p 2> /dev/null | grep -q 'libcuda\.so\.1 '; then
  echo "hostcuda: a CUDA driver is installed; the cuda-backend tests run on it"
  exit 0
fi
if ! command -v g++ > /dev/null; then
  echo "hostcuda: g++ not found; the cuda-backend tests will be reported as skipped"
  exit 0
fi
mkdir -p "$out/obj"
flags=(-std=c++20 -O2 -fPIC -fvisibility=hidden -Wall -Wno-unused-function -Wno-unused-variable -Wno-sign-compare -Wno-unknown-pragmas -I "$cuda" -I "$here")
objects=()
for src in "$cuda"/*.cu; do
  obj="$out/obj/$(basename "$src" .cu).o"
  if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ "$cuda/ondevice.cuh" -nt "$obj" ] || [ "$here/hostcuda.h" -nt "$obj" ]; then
    g++ "${flags[@]}" -x c++ -include hostcuda.h -c "$src" -o "$obj"
  fi
  objects+=("$obj")
done
g++ "${flags[@]}" -c "$here/driver.cpp" -o "$out/obj/driver.o"
g++ -shared -o "$out/libcuda.so.1" -Wl,-soname,libcuda.so.1 "$out/obj/driver.o" "${objects[@]}" -lpthread
echo "hostcuda: built $out/libcuda.so.1"
