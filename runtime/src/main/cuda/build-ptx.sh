#!/usr/bin/env bash
# Compiles the CUDA kernels to the PTX the runtime jar ships: build-ptx.sh OUTPUT_DIR [--update].
#
# With nvcc (CUDA 12 or newer) each .cu becomes OUTPUT_DIR/dev/ondevice/cuda/<name>.ptx for
# compute_80, and the PTX is lowered to ISA 8.0 (CUDA 12.0), so that drivers from R525 on can load
# it: the .version line is rewritten and the optimisation hints that need ISA 8.3 (pragma
# "used_bytes_mask") are dropped. Without nvcc the committed copies in src/main/ptx are used. Where
# ptxas exists every PTX file is validated for sm_80 and sm_90; an instruction the lowered ISA does
# not have fails the build there. --update also refreshes the committed copies.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
committed="$here/../ptx"
out="$1/dev/ondevice/cuda"
update="${2:-}"
mkdir -p "$out"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
ptxas="${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}"
if [ -x "$nvcc" ]; then
  for src in "$here"/*.cu; do
    name="$(basename "$src" .cu)"
    target="$out/$name.ptx"
    if [ ! -f "$target" ] || [ "$src" -nt "$target" ] || [ "$here/ondevice.cuh" -nt "$target" ] || [ "$0" -nt "$target" ]; then
      # Multiply-adds are fused only in the matrix products, where speed needs it: elsewhere each
      # multiplication and addition rounds on its own, as Java's do on the CPU, so that results
      # such as random draws and optimizer updates match the CPU's bit for bit.
      fmad=false
      if [ "$name" = gemm ]; then fmad=true; fi
      "$nvcc" -arch=compute_80 -ptx -fmad="$fmad" -I "$here" "$src" -o "$target.raw"
      sed -e 's/^\.version [0-9.]*$/.version 8.0/' -e '/^\s*\.pragma "used_bytes_mask/d' "$target.raw" > "$target"
      rm -f "$target.raw"
    fi
    if [ "$update" = "--update" ]; then
      cp "$target" "$committed/$name.ptx"
    fi
  done
  echo "ptx: compiled $(ls "$here"/*.cu | wc -l) kernel sources with $("$nvcc" --version | tail -1)"
else
  cp "$committed"/*.ptx "$out/"
  echo "ptx: nvcc not found; using the committed PTX of src/main/ptx"
fi
if [ -x "$ptxas" ]; then
  for ptx in "$out"/*.ptx; do
    for arch in sm_80 sm_90; do
      "$ptxas" -arch="$arch" "$ptx" -o /dev/null
    done
  done
  echo "ptx: validated $(ls "$out"/*.ptx | wc -l) files with ptxas for sm_80 and sm_90"
else
  echo "ptx: ptxas not found; the PTX was not validated"
fi
