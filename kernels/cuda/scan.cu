// Prefix sums (inclusive and exclusive) by reduce-then-scan over tiles, and stream compaction.
//
// A scan of n elements with tiles of `tile` elements is three launches:
// scan_tile_sums (one block per tile: the tile's total), scan_offsets (one
// block: exclusive scan of the tile totals), scan_tiles (one block per tile:
// the tile's scan plus its offset). Launch with as many blocks as tiles.
#include "kernel_common.cuh"

template <typename T, typename A>
__device__ __forceinline__ void tile_sums(const T* in, u64 n, u64 tile, A* sums) {
    u64 begin = static_cast<u64>(blockIdx.x) * tile;
    u64 end = begin + tile < n ? begin + tile : n;
    A sum = A(0);
    for (u64 i = begin + threadIdx.x; i < end; i += blockDim.x) sum += static_cast<A>(in[i]);
    sum = block_reduce<SumOp, A>(sum);
    if (threadIdx.x == 0) sums[blockIdx.x] = sum;
}

// Scans [begin, end) of `in` in chunks of the block size, starting from
// `carry`; writes inclusive or exclusive sums.
template <typename T, typename A>
__device__ __forceinline__ void scan_range(const T* in, u64 begin, u64 end, A carry, A* out,
                                           bool inclusive) {
    __shared__ A chunk[1024];
    for (u64 start = begin; start < end; start += blockDim.x) {
        u64 i = start + threadIdx.x;
        A value = i < end ? static_cast<A>(in[i]) : A(0);
        A total;
        A running = block_inclusive_sum<A>(value, &total);
        chunk[threadIdx.x] = running;
        __syncthreads();
        if (i < end) {
            out[i] = inclusive ? carry + running
                               : (threadIdx.x == 0 ? carry : carry + chunk[threadIdx.x - 1]);
        }
        carry += total;
        __syncthreads();
    }
}

#define SCAN(T, A, suffix)                                                                  \
    extern "C" __global__ void scan_tile_sums_##suffix(const T* in, u64 n, u64 tile,         \
                                                       A* sums) {                            \
        tile_sums<T, A>(in, n, tile, sums);                                                  \
    }                                                                                        \
    EMU_KERNEL(scan_tile_sums_##suffix)                                                      \
    extern "C" __global__ void scan_tiles_##suffix(const T* in, u64 n, u64 tile,             \
                                                   const A* offsets, A* out, u32 inclusive) { \
        u64 begin = static_cast<u64>(blockIdx.x) * tile;                                     \
        u64 end = begin + tile < n ? begin + tile : n;                                       \
        scan_range<T, A>(in, begin, end, offsets[blockIdx.x], out, inclusive != 0);          \
    }                                                                                        \
    EMU_KERNEL(scan_tiles_##suffix)

SCAN(unsigned char, u64, u8)
SCAN(i32, i64, i32)
SCAN(i64, i64, i64)
SCAN(u32, u64, u32)
SCAN(u64, u64, u64)
SCAN(double, double, f64)

// One block: the exclusive scan of `n` tile totals, in place into `offsets`.
#define OFFSETS(A, suffix)                                                                  \
    extern "C" __global__ void scan_offsets_##suffix(const A* sums, u64 n, A* offsets) {     \
        scan_range<A, A>(sums, 0, n, A(0), offsets, false);                                  \
    }                                                                                        \
    EMU_KERNEL(scan_offsets_##suffix)

OFFSETS(i64, i64)
OFFSETS(u64, u64)
OFFSETS(double, f64)

// Stream compaction: the indices of the non-zero flags, in order, given the
// exclusive scan of the flags (`positions`, from the u8 scan).
extern "C" __global__ void compact_indices(const unsigned char* flags, const u64* positions,
                                           u64 n, u64* out) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        if (flags[i] != 0) out[positions[i]] = i;
    }
}
EMU_KERNEL(compact_indices)

// Polars' forward (backward) fill of nulls as a gather: the row each row
// takes its value from, the last valid row at or before it (the first at or
// after it), -1 where there is none or it is more than `limit` rows away.
// `positions` is the exclusive scan of the rows' validity flags (n + 1
// entries), `valid_rows` the m valid rows in order.
extern "C" __global__ void fill_sources(const u64* positions, const i64* valid_rows, u64 m,
                                        u64 n, u32 forward, u64 limit, i64* out) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        i64 source = -1;
        if (forward != 0) {
            u64 before = positions[i + 1];
            if (before > 0) source = valid_rows[before - 1];
            if (source >= 0 && i - static_cast<u64>(source) > limit) source = -1;
        } else {
            u64 before = positions[i];
            if (before < m) source = valid_rows[before];
            if (source >= 0 && static_cast<u64>(source) - i > limit) source = -1;
        }
        out[i] = source;
    }
}
EMU_KERNEL(fill_sources)
