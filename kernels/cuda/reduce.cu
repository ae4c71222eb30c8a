// Reductions: each block reduces a grid-stride share of the input to one partial.
//
// A device-wide reduction is two launches: many blocks write partials, then
// one block reduces the partials (the same kernel, with `n` = blocks).
#include "kernel_common.cuh"

struct SumOp {
    template <typename A>
    __device__ __forceinline__ static A identity() { return A(0); }
    template <typename A>
    __device__ __forceinline__ static A combine(A a, A b) { return a + b; }
};

// Reduces `value` over the calling block with warp shuffles and shared
// memory; thread 0 gets the result. The block size is a multiple of 32.
template <typename Op, typename A>
__device__ __forceinline__ A block_reduce(A value) {
    __shared__ A warp_results[32];
    for (int delta = 16; delta > 0; delta /= 2) {
        value = Op::combine(value, __shfl_down_sync(0xffffffffu, value, delta));
    }
    unsigned int lane = threadIdx.x % 32;
    unsigned int warp = threadIdx.x / 32;
    if (lane == 0) warp_results[warp] = value;
    __syncthreads();
    A result = Op::template identity<A>();
    if (warp == 0) {
        unsigned int warps = blockDim.x / 32;
        value = lane < warps ? warp_results[lane] : Op::template identity<A>();
        for (int delta = 16; delta > 0; delta /= 2) {
            value = Op::combine(value, __shfl_down_sync(0xffffffffu, value, delta));
        }
        result = value;
    }
    return result;
}

template <typename Op, typename T, typename A>
__device__ __forceinline__ void reduce_partials(const T* in, u64 n, A* partials) {
    A value = Op::template identity<A>();
    for (u64 i = global_index(); i < n; i += global_stride()) {
        value = Op::combine(value, static_cast<A>(in[i]));
    }
    value = block_reduce<Op, A>(value);
    if (threadIdx.x == 0) partials[blockIdx.x] = value;
}

#define REDUCE(op, Op, T, A, suffix)                                                   \
    extern "C" __global__ void reduce_##op##_##suffix(const T* in, u64 n, A* partials) { \
        reduce_partials<Op, T, A>(in, n, partials);                                    \
    }                                                                                  \
    EMU_KERNEL(reduce_##op##_##suffix)

REDUCE(sum, SumOp, i64, i64, i64)
REDUCE(sum, SumOp, u32, u64, u32)
REDUCE(sum, SumOp, u64, u64, u64)
REDUCE(sum, SumOp, double, double, f64)
