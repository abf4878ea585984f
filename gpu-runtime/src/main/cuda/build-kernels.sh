#!/usr/bin/env bash
# Compiles every .cu file in SRC_DIR into OUT_DIR/<name>.fatbin (sm_80 and sm_90 machine code plus
# compute_90 PTX for newer GPUs). Without nvcc it warns and succeeds, so CPU-only builds still work;
# with nvcc any compile error fails the build. NVCC overrides the compiler path; NVCC=none builds
# without kernels (as on a machine without CUDA).
set -euo pipefail
SRC_DIR=$1
OUT_DIR=$2
NVCC=${NVCC:-$(command -v nvcc || true)}
[[ -z $NVCC && -x /usr/local/cuda/bin/nvcc ]] && NVCC=/usr/local/cuda/bin/nvcc
if [[ -z $NVCC || $NVCC == none ]]; then
  echo "[spillway] WARNING: nvcc not found; CUDA kernels are not built and the GPU backend will report them missing"
  exit 0
fi
mkdir -p "$OUT_DIR"
for cu in "$SRC_DIR"/*.cu; do
  name=$(basename "$cu" .cu)
  out="$OUT_DIR/$name.fatbin"
  # Rebuild only what changed (the .cu or a header beside it): nvcc costs seconds per file on a 2-core CI machine.
  if [[ -f $out && $out -nt $cu ]] && ! find "$SRC_DIR" -name '*.cuh' -newer "$out" | grep -q .; then continue; fi
  echo "[spillway] nvcc $name.cu"
  "$NVCC" -fatbin -O3 -std=c++17 \
    -gencode arch=compute_80,code=sm_80 \
    -gencode arch=compute_90,code=[sm_90,compute_90] \
    -o "$out.tmp" "$cu"
  mv "$out.tmp" "$out"
done
