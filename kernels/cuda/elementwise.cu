// Elementwise primitives: iota and fill.
#include "kernel_common.cuh"

template <typename T>
__device__ __forceinline__ void iota(T* out, u64 n, T start) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        out[i] = static_cast<T>(start + static_cast<T>(i));
    }
}

template <typename T>
__device__ __forceinline__ void fill(T* out, u64 n, T value) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        out[i] = value;
    }
}

#define ELEMENTWISE(T, suffix)                                                       \
    extern "C" __global__ void iota_##suffix(T* out, u64 n, T start) {               \
        iota<T>(out, n, start);                                                      \
    }                                                                                \
    EMU_KERNEL(iota_##suffix)                                                        \
    extern "C" __global__ void fill_##suffix(T* out, u64 n, T value) {               \
        fill<T>(out, n, value);                                                      \
    }                                                                                \
    EMU_KERNEL(fill_##suffix)

ELEMENTWISE(u32, u32)
ELEMENTWISE(u64, u64)
ELEMENTWISE(i32, i32)
ELEMENTWISE(i64, i64)
ELEMENTWISE(double, f64)
