// Gather and scatter of fixed-width values by 64-bit row indices, with validity.
#include "kernel_common.cuh"

// out[i] = values[indices[i]]; an index outside [0, n_values) or a null value
// gives a null (validity bit 0, value 0). Each warp writes whole validity words.
template <typename T>
__device__ __forceinline__ void gather(const T* values, const u32* validity, u64 n_values,
                                       const i64* indices, u64 n, T* out, u32* out_validity) {
    unsigned int lane = threadIdx.x % 32;
    for (u64 i = global_index(); i - lane < n; i += global_stride()) {
        bool valid = false;
        if (i < n) {
            i64 row = indices[i];
            bool inside = row >= 0 && static_cast<u64>(row) < n_values;
            valid = inside && is_valid(validity, static_cast<u64>(row));
            out[i] = valid ? values[row] : T(0);
        }
        u32 word = __ballot_sync(FULL_MASK, valid);
        if (lane == 0) out_validity[i / 32] = word;
    }
}

// out[indices[i]] = values[i] and its validity bit; indices outside
// [0, n_out) are skipped. Indices must be distinct.
template <typename T>
__device__ __forceinline__ void scatter(const T* values, const u32* validity, const i64* indices,
                                        u64 n, T* out, u32* out_validity, u64 n_out) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        i64 row = indices[i];
        if (row < 0 || static_cast<u64>(row) >= n_out) continue;
        out[row] = values[i];
        u32 bit = 1u << (static_cast<u64>(row) % 32);
        u32* word = &out_validity[static_cast<u64>(row) / 32];
        if (is_valid(validity, i)) {
            atomicOr(word, bit);
        } else {
            atomicAnd(word, ~bit);
        }
    }
}

#define GATHER(T, suffix)                                                                  \
    extern "C" __global__ void gather_##suffix(const T* values, const u32* validity,        \
                                               u64 n_values, const i64* indices, u64 n,     \
                                               T* out, u32* out_validity) {                 \
        gather<T>(values, validity, n_values, indices, n, out, out_validity);              \
    }                                                                                      \
    EMU_KERNEL(gather_##suffix)                                                            \
    extern "C" __global__ void scatter_##suffix(const T* values, const u32* validity,       \
                                                const i64* indices, u64 n, T* out,          \
                                                u32* out_validity, u64 n_out) {             \
        scatter<T>(values, validity, indices, n, out, out_validity, n_out);                \
    }                                                                                      \
    EMU_KERNEL(scatter_##suffix)

GATHER(unsigned char, u8)
GATHER(i32, i32)
GATHER(i64, i64)
GATHER(u32, u32)
GATHER(u64, u64)
GATHER(double, f64)
