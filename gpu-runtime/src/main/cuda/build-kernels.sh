#!/usr/bin/env bash
# Compiles every .cu file under SRC_DIR into OUT_DIR/<folder>/<name>.fatbin (sm_80 and sm_90 machine
# code plus compute_90 PTX for newer GPUs). Folders mirror the Java packages: join/nopa/nopa_hash_join.cu is
# the kernel module "join/nopa/nopa_hash_join" of org.spillway.gpu.join.nopa. SRC_DIR is on the include path for
# the header all modules share (block_primitives.cuh). Without nvcc it warns and succeeds, so CPU-only
# builds still work; with nvcc any compile error fails the build. NVCC overrides the compiler path;
# NVCC=none builds without kernels (as on a machine without CUDA).
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
find "$SRC_DIR" -name '*.cu' | sort | while read -r cu; do
  name=${cu#"$SRC_DIR"/}
  name=${name%.cu}
  out="$OUT_DIR/$name.fatbin"
  mkdir -p "$(dirname "$out")"
  # Rebuild only what changed (the .cu file or a shared .cuh header): nvcc costs seconds per file on CI.
  if [[ -f $out && $out -nt $cu ]] && ! find "$SRC_DIR" -name '*.cuh' -newer "$out" | grep -q .; then continue; fi
  echo "[spillway] nvcc $name.cu"
  "$NVCC" -fatbin -O3 -std=c++17 -I "$SRC_DIR" \
    -gencode arch=compute_80,code=sm_80 \
    -gencode arch=compute_90,code=[sm_90,compute_90] \
    -o "$out.tmp" "$cu"
  mv "$out.tmp" "$out"
done
