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
// (Arrow layout, bit row % 8 of byte row / 8; null when the chunk holds no NULL in that column). A plain-text
// column (Arrow VarChar) streams nothing: its column word is the device-visible address of its batch's int32
// offsets at the chunk's first row, and its text word the address of the batch's UTF-8 bytes (both read in
// place, zero-copy), so row r's string is text[offsets[r] .. offsets[r + 1]); text is null for other columns.
// 38 words, passed by value for a streamed chunk and as an array in device memory for a table of resident
// chunks, where first_tile counts the tiles of the chunks before it; the by-value chunk of a launch over a table
// carries instead the address of the launch's tile counter (null: static striding; see for_each_tile).
// GpuChunkTable.java writes the same layout.
struct ChunkArg {
  unsigned long long rows;
  union {
    unsigned long long first_tile;
    unsigned long long* next_tile;
  };
  const void* column[kMaxColumns];
  const unsigned char* validity[kMaxColumns];
  const unsigned char* text[kMaxColumns];
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

// The next global tile of a table this block takes from the launch's counter (every thread gets it): tiles read
// over the link take unequal times, and a block that claims its next tile when done keeps the multiprocessors busy
// to the end, where fixed shares leave them waiting on the slowest blocks.
__device__ __forceinline__ unsigned long long claim_tile(unsigned long long* next_tile) {
  __shared__ unsigned long long claimed;
  __syncthreads();  // every thread has read the tile claimed before
  if (threadIdx.x == 0) claimed = atomicAdd(next_tile, 1ull);
  __syncthreads();
  return claimed;
}

// Calls tile(chunk, first_row) for this block's share of the tiles: of the one chunk (table == nullptr), or
// of every chunk of the table, block b taking global tiles b, b + gridDim.x, ... in chunk order, or, where
// the launch has a tile counter (chunk.next_tile), each next tile it claims (increasing, so in chunk order too).
template <unsigned long long kTileRows, typename Tile>
__device__ __forceinline__ void for_each_tile(const ChunkArg& chunk, const ChunkArg* __restrict__ table,
                                              long long table_count, unsigned long long table_tiles, Tile tile) {
  if (table == nullptr) {
    const unsigned long long tiles = tiles_of(chunk.rows, kTileRows);
    for (unsigned long long t = blockIdx.x; t < tiles; t += gridDim.x) tile(chunk, t * kTileRows);
    return;
  }
  long long c = 0;
  const bool claiming = chunk.next_tile != nullptr;
  for (unsigned long long t = claiming ? claim_tile(chunk.next_tile) : blockIdx.x; t < table_tiles;
       t = claiming ? claim_tile(chunk.next_tile) : t + gridDim.x) {
    while (c + 1 < table_count && t >= table[c + 1].first_tile) c++;
    tile(table[c], (t - table[c].first_tile) * kTileRows);
  }
}

// Whether the `n` bytes at `s` equal those at `p`.
__device__ __forceinline__ bool bytes_equal(const unsigned char* s, const unsigned char* p, long long n) {
  for (long long i = 0; i < n; i++) {
    if (s[i] != p[i]) return false;
  }
  return true;
}

// Whether the UTF-8 bytes [s, s + length) match a LIKE pattern of literal pieces separated by '%' (no '_', no
// escape), as the CPU backend's Utf8LikeMatcher matches it: one piece is the whole string; else the first piece
// is a prefix, the last a suffix not overlapping it, and each piece between found at its leftmost place after
// the one before, ending by the suffix's start (the leftmost match ends earliest and leaves the most for the
// rest). Byte-wise search is exact on UTF-8: a character's bytes never occur inside another's. The pattern is
// GpuProgram's LIKE_TEXT constants: piece count n, n byte lengths, then the pieces' bytes back to back.
__device__ __forceinline__ bool like_pieces(const unsigned char* s, long long length, const long long* pattern) {
  const long long n = pattern[0];
  const long long* lengths = pattern + 1;
  const unsigned char* piece = reinterpret_cast<const unsigned char*>(pattern + 1 + n);
  if (n == 1) return length == lengths[0] && bytes_equal(s, piece, length);
  const long long head = lengths[0];
  const long long tail = lengths[n - 1];
  if (length < head + tail || !bytes_equal(s, piece, head)) return false;
  long long from = head;
  const long long end = length - tail;  // where the suffix starts
  piece += head;
  for (long long k = 1; k < n - 1; k++) {
    const long long m = lengths[k];
    long long at = from;
    while (at + m <= end && !bytes_equal(s + at, piece, m)) at++;
    if (at + m > end) return false;
    from = at + m;
    piece += m;
  }
  return bytes_equal(s + end, piece, tail);
}

// Bytes of local memory like_text copies a row's text into (its words, a row of up to kTextWindow - 32 bytes: TPC-H's
// o_comment); every thread's stack holds it, so it stays small.
constexpr int kTextWindow = 128;

// LIKE of the `length` bytes at `s` in host memory read in place: a row that fits the window is first copied
// into local memory in aligned 16-byte words (each a few link requests), since the search reads a byte at a time
// and some bytes more than once, and every read of host memory crosses the link; a longer row is searched in
// place. The aligned words may reach up to 15 bytes before and after the row, never past its 16-byte blocks, so
// never onto another page.
__device__ __forceinline__ bool like_text(const unsigned char* s, long long length, const long long* pattern) {
  if (length == 0 || length > kTextWindow - 32) return like_pieces(s, length, pattern);
  uint4 window[kTextWindow / 16];
  const unsigned long long at = reinterpret_cast<unsigned long long>(s);
  const uint4* first = reinterpret_cast<const uint4*>(at & ~15ull);
  const int skip = static_cast<int>(at & 15);
  const int words = static_cast<int>((skip + length + 15) / 16);
  for (int i = 0; i < words; i++) window[i] = first[i];
  return like_pieces(reinterpret_cast<const unsigned char*>(window) + skip, length, pattern);
}

// A tile's plain text staged in shared memory: where column c's bytes from the 16-byte aligned host address
// origin[c] on lie in shared memory (base[c]; null when the column is not staged, and LIKE reads it in place).
struct TextTile {
  const unsigned char* base[kMaxColumns];
  unsigned long long origin[kMaxColumns];
  unsigned long long words[kMaxColumns];
};

// The dynamic shared memory of this launch, in bytes (0 when the host gave none).
__device__ __forceinline__ unsigned dynamic_shared_bytes() {
  unsigned bytes;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
  return bytes;
}

// Copies the text of rows [first, first + kTileRows) of each plain-text column of `ch` into an equal share of
// `shared` (`shared_bytes` of dynamic shared memory), where it fits: the block reads the tile's bytes once, as
// aligned 16-byte words side by side, instead of each thread reading its own row's words across the link, so a
// LIKE over text streams at the link's rate. Block-wide: every thread of the block must call it, and the tile's
// readers may use `staged` until the next call. The aligned words reach at most 15 bytes beyond the tile's text,
// never past its last 16-byte block, so never onto another page.
template <unsigned long long kTileRows>
__device__ __forceinline__ void stage_text(const ChunkArg& ch, unsigned long long first, TextTile* staged,
                                           uint4* shared, unsigned shared_bytes) {
  __syncthreads();  // the previous tile's readers are done with the shared text
  if (threadIdx.x == 0) {
    int columns = 0;
    for (int c = 0; c < kMaxColumns; c++) columns += ch.text[c] != nullptr;
    const unsigned long long share = columns ? (shared_bytes / columns) & ~15u : 0;
    const unsigned long long last = min(first + kTileRows, ch.rows);
    for (int c = 0, k = 0; c < kMaxColumns; c++) {
      staged->base[c] = nullptr;
      if (ch.text[c] == nullptr || share == 0) continue;
      const int* offsets = static_cast<const int*>(ch.column[c]);
      const unsigned long long from = reinterpret_cast<unsigned long long>(ch.text[c] + offsets[first]);
      const unsigned long long to = reinterpret_cast<unsigned long long>(ch.text[c] + offsets[last]);
      const unsigned long long origin = from & ~15ull;
      const unsigned long long words = (to - origin + 15) / 16;
      if (words * 16 <= share) {
        staged->base[c] = reinterpret_cast<const unsigned char*>(shared) + k * share;
        staged->origin[c] = origin;
        staged->words[c] = words;
      }
      k++;
    }
  }
  __syncthreads();
  for (int c = 0; c < kMaxColumns; c++) {
    if (staged->base[c] == nullptr) continue;
    uint4* to = reinterpret_cast<uint4*>(const_cast<unsigned char*>(staged->base[c]));
    const uint4* from = reinterpret_cast<const uint4*>(staged->origin[c]);
    for (unsigned long long i = threadIdx.x; i < staged->words[c]; i += blockDim.x) to[i] = from[i];
  }
  __syncthreads();
}

// Row text at host address s as the tile staged it (in shared memory), or s itself where it was not staged.
__device__ __forceinline__ const unsigned char* staged_text(const TextTile* staged, int c, const unsigned char* s,
                                                            bool& in_shared) {
  in_shared = staged != nullptr && staged->base[c] != nullptr;
  return in_shared ? staged->base[c] + (reinterpret_cast<unsigned long long>(s) - staged->origin[c]) : s;
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
