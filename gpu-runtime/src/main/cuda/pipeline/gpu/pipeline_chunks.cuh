// Shared by the kernels of GpuColumnarPipeline (columnar_pipeline.cu, selection_aggregate.cu): the chunk
// descriptor a launch reads its columns from, the walk over the tiles of one chunk or of a table of chunks
// (GPU-resident columns of many batches in one launch), the error word and 128-bit additions (block-wide
// sums are in block_primitives.cuh).
#pragma once
#include <cstdint>

#include "block_primitives.cuh"

namespace spillway {

constexpr int kMaxColumns = 12;

// One chunk of rows: per column the device-visible address of its first row, and its validity bitmap
// (Arrow layout, bit row % 8 of byte row / 8; null when the chunk holds no NULL in that column). 26 words,
// passed by value for a streamed chunk and as an array in device memory for a table of resident chunks,
// where first_tile counts the tiles of the chunks before it. GpuChunkTable.java writes the same layout.
struct ChunkArg {
  unsigned long long rows;
  unsigned long long first_tile;
  const void* column[kMaxColumns];
  const unsigned char* validity[kMaxColumns];
};

// Error codes (high word of the error word; the low word is the failing instruction or origin).
enum Error : unsigned {
  ERR_ARITH = 1, ERR_DIVIDE_BY_ZERO = 2, ERR_INT32 = 3, ERR_CAST = 4, ERR_KEY_RANGE = 5, ERR_TABLE_FULL = 6
};

__device__ __forceinline__ void fail(unsigned long long* error, unsigned code, int where) {
  atomicCAS(error, 0ull, (static_cast<unsigned long long>(code) << 32) | static_cast<unsigned>(where));
}

__device__ __forceinline__ unsigned long long tiles_of(unsigned long long rows, unsigned long long tile_rows) {
  return (rows + tile_rows - 1) / tile_rows;
}

// Calls tile(chunk, first_row) for this block's share of the tiles: of the one chunk (table == nullptr), or
// of every chunk of the table, block b taking global tiles b, b + gridDim.x, ... in chunk order.
template <unsigned long long kTileRows, typename Tile>
__device__ __forceinline__ void for_each_tile(const ChunkArg& chunk, const ChunkArg* __restrict__ table,
                                              long long table_count, unsigned long long table_tiles, Tile tile) {
  if (table == nullptr) {
    const unsigned long long tiles = tiles_of(chunk.rows, kTileRows);
    for (unsigned long long t = blockIdx.x; t < tiles; t += gridDim.x) tile(chunk, t * kTileRows);
    return;
  }
  long long c = 0;
  for (unsigned long long t = blockIdx.x; t < table_tiles; t += gridDim.x) {
    while (c + 1 < table_count && t >= table[c + 1].first_tile) c++;
    tile(table[c], (t - table[c].first_tile) * kTileRows);
  }
}

// Adds a signed 64-bit value into a 128-bit (lo, hi) pair held in registers.
__device__ __forceinline__ void add128(unsigned long long& lo, long long& hi, long long v) {
  const unsigned long long old = lo;
  lo += static_cast<unsigned long long>(v);
  hi += (v < 0 ? -1 : 0) + (lo < old ? 1 : 0);
}

// Adds (vlo, vhi) into the 128-bit accumulator at lo and hi in device memory, so that no order of
// additions can overflow; the host checks that the final value fits in 64 bits.
__device__ __forceinline__ void atomic_add128(unsigned long long* lo, unsigned long long* hi, unsigned long long vlo,
                                              long long vhi) {
  const unsigned long long old = atomicAdd(lo, vlo);
  const long long carry = old + vlo < old ? 1 : 0;
  if (vhi + carry != 0) atomicAdd(hi, static_cast<unsigned long long>(vhi + carry));
}

}  // namespace spillway
