// Reductions: each block reduces a grid-stride share of the input to one partial.
//
// A device-wide reduction is two launches: many blocks write partials, then
// one block reduces the partials (the same kernel, with `n` = blocks and no
// validity). Null elements (validity bit 0) are skipped; an empty or all-null
// input gives the operation's identity (0, or the type's highest/lowest value),
// so callers count valid elements to tell "no value" apart.
#include "kernel_common.cuh"

// Minimum; for floats NaN is ignored unless every value is NaN (fmin).
struct MinOp {
    template <typename A>
    __device__ __forceinline__ static A identity() { return Limits<A>::highest(); }
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
    __device__ __forceinline__ static A identity() { return Limits<A>::lowest(); }
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
    for (u64 i = global_index(); i < n; i += global_stride()) {
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
