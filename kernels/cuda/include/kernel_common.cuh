// Shared definitions of the kernel sources: fixed-width types and what differs between nvcc and the host build.
#pragma once

// UNROLL before a loop of constant trip count unrolls it on the device, so
// that arrays it indexes stay in registers (the host build ignores it).
// SPIN_WAIT() in a loop that waits for another block (a look-back) does
// nothing on the device; on the emulated device it yields the host thread,
// so the block waited for, on another host thread, gets the core.
#ifdef __CUDACC__
#include <cstdint>
#define DYNAMIC_SHARED(type, name) extern __shared__ type name[]
#define EMU_KERNEL(name)
#define UNROLL _Pragma("unroll")
#define SPIN_WAIT()
#else
#define DYNAMIC_SHARED(type, name) type* name = reinterpret_cast<type*>(emu::dynamic_shared())
#define UNROLL
#define SPIN_WAIT() emu::spin_wait()
#endif

typedef unsigned long long u64;
typedef long long i64;
typedef unsigned int u32;
typedef int i32;

// The global index of the calling thread in a one-dimensional launch.
__device__ __forceinline__ u64 global_index() {
    return static_cast<u64>(blockIdx.x) * blockDim.x + threadIdx.x;
}

// The number of threads of a one-dimensional launch, for grid-stride loops.
__device__ __forceinline__ u64 global_stride() {
    return static_cast<u64>(gridDim.x) * blockDim.x;
}

#define FULL_MASK 0xffffffffu

// A value another block published (a look-back): read past the incoherent
// L1, from L2, where the publishing block's stores and atomics land.
template <typename A>
__device__ __forceinline__ A load_published(const A* at) {
    return *const_cast<const volatile A*>(at);
}

// Whether element `i` is valid in an Arrow validity bitmap (bit i, least
// significant first; read as 32-bit words). A null bitmap means all valid.
__device__ __forceinline__ bool is_valid(const u32* validity, u64 i) {
    return validity == nullptr || ((validity[i / 32] >> (i % 32)) & 1u) != 0;
}

// The end of group g of `n_groups` whose positions start at `starts` (the
// last group ends at `n_rows`).
__device__ __forceinline__ u64 group_end(const i64* starts, u64 g, u64 n_groups, u64 n_rows) {
    return g + 1 < n_groups ? static_cast<u64>(starts[g + 1]) : n_rows;
}

// The last of the `n` ascending `starts` at or before `at` (the first is
// at or before every `at` asked): a binary search. The group holding a
// sorted position, the span of a table holding a time.
__device__ __forceinline__ u64 last_at_or_before(const i64* starts, u64 n, i64 at) {
    u64 low = 0, high = n;
    while (high - low > 1) {
        const u64 middle = low + (high - low) / 2;
        if (starts[middle] <= at) {
            low = middle;
        } else {
            high = middle;
        }
    }
    return low;
}

// MurmurHash3's 64-bit finaliser.
__device__ __forceinline__ u64 hash64(u64 key) {
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    key *= 0xc4ceb9fe1a85ec53ull;
    key ^= key >> 33;
    return key;
}

// Stores a warp's 32 boolean results and their validity as one word each
// (lane 0 writes). Every lane of the warp must call it together, with `i`
// the lane's row; rows past the end pass false, false.
__device__ __forceinline__ void store_warp_bits(u32* out_bits, u32* out_valid, u64 i, bool value,
                                                bool valid) {
    u32 bits = __ballot_sync(FULL_MASK, value);
    u32 validity = __ballot_sync(FULL_MASK, valid);
    if (threadIdx.x % 32 == 0) {
        out_bits[i / 32] = bits;
        out_valid[i / 32] = validity;
    }
}

// Numeric limits usable in device code and on the host.
template <typename T> struct Limits;
template <> struct Limits<i32> {
    __device__ __forceinline__ static i32 lowest() { return -2147483647 - 1; }
    __device__ __forceinline__ static i32 highest() { return 2147483647; }
};
template <> struct Limits<u32> {
    __device__ __forceinline__ static u32 lowest() { return 0u; }
    __device__ __forceinline__ static u32 highest() { return 0xffffffffu; }
};
template <> struct Limits<i64> {
    __device__ __forceinline__ static i64 lowest() { return -9223372036854775807LL - 1; }
    __device__ __forceinline__ static i64 highest() { return 9223372036854775807LL; }
};
template <> struct Limits<u64> {
    __device__ __forceinline__ static u64 lowest() { return 0ull; }
    __device__ __forceinline__ static u64 highest() { return 0xffffffffffffffffull; }
};
template <> struct Limits<double> {
    __device__ __forceinline__ static double lowest() { return -__builtin_huge_val(); }
    __device__ __forceinline__ static double highest() { return __builtin_huge_val(); }
};
template <> struct Limits<float> {
    __device__ __forceinline__ static float lowest() { return -__builtin_huge_valf(); }
    __device__ __forceinline__ static float highest() { return __builtin_huge_valf(); }
};

// Addition as a reduction (identity 0).
struct SumOp {
    template <typename A>
    __device__ __forceinline__ static A identity() { return A(0); }
    template <typename A>
    __device__ __forceinline__ static A combine(A a, A b) { return a + b; }
};

// Reduces `value` over the calling block (block size a multiple of 32, at
// most 1024); the result is valid in thread 0.
template <typename Op, typename A>
__device__ __forceinline__ A block_reduce(A value) {
    __shared__ A warp_results[32];
    for (int delta = 16; delta > 0; delta /= 2) {
        value = Op::combine(value, __shfl_down_sync(FULL_MASK, value, delta));
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
            value = Op::combine(value, __shfl_down_sync(FULL_MASK, value, delta));
        }
        result = value;
    }
    __syncthreads();
    return result;
}

// Polars' quantile methods, as gpu-runtime's `QuantileMethod` numbers them
// (the group-by's segment_quantile and the rolling window_quantiles).
enum QuantileMethod : u32 {
    NEAREST = 0,
    LOWER = 1,
    HIGHER = 2,
    MIDPOINT = 3,
    LINEAR = 4,
    EQUIPROBABLE = 5
};

// Inclusive scan of `value` over the calling block (block size a multiple of
// 32); also gives the block total.
template <typename A>
__device__ __forceinline__ A block_inclusive_sum(A value, A* total) {
    __shared__ A warp_totals[32];
    unsigned int lane = threadIdx.x % 32;
    unsigned int warp = threadIdx.x / 32;
    for (int delta = 1; delta < 32; delta *= 2) {
        A other = __shfl_up_sync(FULL_MASK, value, delta);
        if (lane >= static_cast<unsigned int>(delta)) value += other;
    }
    if (lane == 31) warp_totals[warp] = value;
    __syncthreads();
    if (warp == 0) {
        unsigned int warps = blockDim.x / 32;
        A t = lane < warps ? warp_totals[lane] : A(0);
        for (int delta = 1; delta < 32; delta *= 2) {
            A other = __shfl_up_sync(FULL_MASK, t, delta);
            if (lane >= static_cast<unsigned int>(delta)) t += other;
        }
        if (lane < warps) warp_totals[lane] = t;
    }
    __syncthreads();
    if (warp > 0) value += warp_totals[warp - 1];
    *total = warp_totals[blockDim.x / 32 - 1];
    __syncthreads();
    return value;
}
