// Reductions: each block reduces a grid-stride share of the input to one partial; and Polars' float sum, in its order.
//
// A device-wide reduction is two launches: many blocks write partials, then
// one block reduces the partials (the same kernel, with `n` = blocks and no
// validity). Null elements (validity bit 0) are skipped; an empty or all-null
// input gives the operation's identity (0, the type's highest/lowest value,
// NaN for a float's minimum and maximum), so callers count valid elements to
// tell "no value" apart.
#include "kernel_common.cuh"

// What a minimum (maximum) starts from: the type's highest (lowest) value;
// for floats NaN, which every value replaces, so that NaN is the answer
// only where every value is NaN (Polars' min and max of [NaN] are NaN).
template <typename A>
struct ExtremeStart {
    __device__ __forceinline__ static A min() { return Limits<A>::highest(); }
    __device__ __forceinline__ static A max() { return Limits<A>::lowest(); }
};
template <>
struct ExtremeStart<double> {
    __device__ __forceinline__ static double min() { return __builtin_nan(""); }
    __device__ __forceinline__ static double max() { return __builtin_nan(""); }
};

// Minimum; for floats NaN is ignored unless every value is NaN (fmin).
struct MinOp {
    template <typename A>
    __device__ __forceinline__ static A identity() { return ExtremeStart<A>::min(); }
    template <typename A>
    __device__ __forceinline__ static A combine(A a, A b) {
        if (b != b) return a;
        if (a != a) return b;
        return b < a ? b : a;
    }
};

// Maximum; for floats NaN is ignored unless every value is NaN (fmax).
struct MaxOp {
    template <typename A>
    __device__ __forceinline__ static A identity() { return ExtremeStart<A>::max(); }
    template <typename A>
    __device__ __forceinline__ static A combine(A a, A b) {
        if (b != b) return a;
        if (a != a) return b;
        return b > a ? b : a;
    }
};

template <typename Op, typename T, typename A>
__device__ __forceinline__ void reduce_partials(const T* in, const u32* validity, u64 n,
                                                A* partials) {
    A value = Op::template identity<A>();
    const u64 stride = global_stride();
    u64 i = global_index();
    // Four loads in flight per thread before any is combined.
    for (; i + 3 * stride < n; i += 4 * stride) {
        T loaded[4];
        for (u32 k = 0; k < 4; ++k) loaded[k] = in[i + k * stride];
        for (u32 k = 0; k < 4; ++k) {
            if (is_valid(validity, i + k * stride)) {
                value = Op::combine(value, static_cast<A>(loaded[k]));
            }
        }
    }
    for (; i < n; i += stride) {
        if (is_valid(validity, i)) value = Op::combine(value, static_cast<A>(in[i]));
    }
    value = block_reduce<Op, A>(value);
    if (threadIdx.x == 0) partials[blockIdx.x] = value;
}

#define REDUCE(op, Op, T, A, suffix)                                                      \
    extern "C" __global__ void reduce_##op##_##suffix(const T* in, const u32* validity,    \
                                                      u64 n, A* partials) {                \
        reduce_partials<Op, T, A>(in, validity, n, partials);                             \
    }                                                                                     \
    EMU_KERNEL(reduce_##op##_##suffix)

REDUCE(sum, SumOp, i32, i64, i32)
REDUCE(sum, SumOp, i64, i64, i64)
REDUCE(sum, SumOp, u32, u64, u32)
REDUCE(sum, SumOp, u64, u64, u64)
REDUCE(sum, SumOp, double, double, f64)
REDUCE(min, MinOp, i32, i32, i32)
REDUCE(min, MinOp, i64, i64, i64)
REDUCE(min, MinOp, u32, u32, u32)
REDUCE(min, MinOp, u64, u64, u64)
REDUCE(min, MinOp, double, double, f64)
REDUCE(max, MaxOp, i32, i32, i32)
REDUCE(max, MaxOp, i64, i64, i64)
REDUCE(max, MaxOp, u32, u32, u32)
REDUCE(max, MaxOp, u64, u64, u64)
REDUCE(max, MaxOp, double, double, f64)

// Polars' sum of a float column of one chunk (polars-compute's `float_sum`),
// exactly, in the values' type (f64, or f32 as Polars sums f32 columns):
// the first n % 128 values are summed in order from -0.0; the rest, in
// blocks of 128, each summed in 16 lanes (lane j takes values j, j + 16,
// ..., from 0.0; nulls add 0.0) then folded 16 to 8 to 4 and added as
// (l0 + l2) + (l1 + l3); the block sums are added pairwise, the lower half
// (floor) first; the total is that pairwise sum (0.0 without blocks) plus
// the first values' sum. Three kernels: the block sums, one launch per level
// of the pairwise tree, and the total.

// Each block's sum: the 16 threads of a half warp take one block (lane j of
// the block is thread j). Both half warps of a warp loop together, as the
// shuffles need the whole warp.
template <typename F>
__device__ __forceinline__ void pairwise_sum_blocks(const F* in, const u32* validity, u64 head,
                                                    u64 blocks, F* sums) {
    const u64 lane = threadIdx.x & 15;
    const u64 half = global_index() / 16;
    const u64 warp_first = (global_index() & ~static_cast<u64>(31)) / 16;
    const u64 stride = global_stride() / 16;
    for (u64 first = warp_first; first < blocks; first += stride) {
        const u64 block = first + (half - warp_first);
        F sum = F(0);
        if (block < blocks) {
            const u64 base = head + block * 128 + lane;
            for (u64 c = 0; c < 8; ++c) {
                const u64 i = base + 16 * c;
                sum = sum + (is_valid(validity, i) ? in[i] : F(0));
            }
        }
        sum = sum + __shfl_down_sync(FULL_MASK, sum, 8);
        sum = sum + __shfl_down_sync(FULL_MASK, sum, 4);
        sum = sum + __shfl_down_sync(FULL_MASK, sum, 2);
        sum = sum + __shfl_down_sync(FULL_MASK, sum, 1);
        if (lane == 0 && block < blocks) sums[block] = sum;
    }
}

// One level of the pairwise tree over `blocks` block sums. Node k of level
// `depth` covers the blocks found by halving [0, blocks) `depth` times (the
// lower half floor(size / 2) blocks), along the bits of k from the most
// significant: a node of one block is that block's sum, a node of more the
// sum of its two children in `below` (the level under it); a node of none
// is never read.
template <typename F>
__device__ __forceinline__ void pairwise_sum_level(const F* sums, u64 blocks, u32 depth,
                                                   const F* below, F* out) {
    const u64 nodes = static_cast<u64>(1) << depth;
    for (u64 k = global_index(); k < nodes; k += global_stride()) {
        u64 low = 0, high = blocks;
        for (u32 bit = depth; bit > 0; --bit) {
            const u64 middle = low + (high - low) / 2;
            if ((k >> (bit - 1)) & 1) {
                low = middle;
            } else {
                high = middle;
            }
        }
        const u64 size = high - low;
        if (size == 1) {
            out[k] = sums[low];
        } else if (size > 1) {
            out[k] = below[2 * k] + below[2 * k + 1];
        } else {
            out[k] = F(0);
        }
    }
}

// The total (one thread): the pairwise sum of the blocks, `root`, plus the
// first `head` values summed in order.
template <typename F>
__device__ __forceinline__ void pairwise_sum_total(const F* in, const u32* validity, u64 head,
                                                   u64 blocks, const F* root, F* out) {
    if (global_index() != 0) return;
    F rest = -F(0);
    for (u64 i = 0; i < head; ++i) rest = rest + (is_valid(validity, i) ? in[i] : F(0));
    out[0] = (blocks > 0 ? root[0] : F(0)) + rest;
}

#define PAIRWISE_SUM(F, suffix)                                                                 \
    extern "C" __global__ void pairwise_sum_blocks_##suffix(const F* in, const u32* validity,   \
                                                            u64 head, u64 blocks, F* sums) {    \
        pairwise_sum_blocks<F>(in, validity, head, blocks, sums);                               \
    }                                                                                           \
    EMU_KERNEL(pairwise_sum_blocks_##suffix)                                                    \
    extern "C" __global__ void pairwise_sum_level_##suffix(const F* sums, u64 blocks,           \
                                                           u32 depth, const F* below, F* out) { \
        pairwise_sum_level<F>(sums, blocks, depth, below, out);                                 \
    }                                                                                           \
    EMU_KERNEL(pairwise_sum_level_##suffix)                                                     \
    extern "C" __global__ void pairwise_sum_total_##suffix(const F* in, const u32* validity,    \
                                                           u64 head, u64 blocks, const F* root, \
                                                           F* out) {                            \
        pairwise_sum_total<F>(in, validity, head, blocks, root, out);                           \
    }                                                                                           \
    EMU_KERNEL(pairwise_sum_total_##suffix)

PAIRWISE_SUM(double, f64)
PAIRWISE_SUM(float, f32)
