// Gather and scatter of fixed-width values by 64-bit row indices, with validity.
#include "kernel_common.cuh"
#include "spans.cuh"

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

GATHER(signed char, i8)
GATHER(short, i16)
GATHER(unsigned short, u16)
GATHER(float, f32)

// Gather of packed bits (booleans), null on out-of-bounds like gather.
extern "C" __global__ void gather_bits(const u32* bits, const u32* validity, u64 n_values,
                                       const i64* indices, u64 n, u32* out, u32* out_validity) {
    unsigned int lane = threadIdx.x % 32;
    for (u64 i = global_index(); i - lane < n; i += global_stride()) {
        bool valid = false, value = false;
        if (i < n) {
            i64 row = indices[i];
            bool inside = row >= 0 && static_cast<u64>(row) < n_values;
            valid = inside && is_valid(validity, static_cast<u64>(row));
            value = valid && is_valid(bits, static_cast<u64>(row));
        }
        store_warp_bits(out, out_validity, i, value, valid);
    }
}
EMU_KERNEL(gather_bits)

// Gather of strings, in two launches: string_gather_lengths writes each
// output string's length (0 for null or out-of-bounds) and validity; after an
// exclusive scan of the lengths into out_offsets (with the total appended),
// string_gather_bytes copies the bytes.
extern "C" __global__ void string_gather_lengths(const i64* offsets, const u32* validity,
                                                 u64 n_values, const i64* indices, u64 n,
                                                 i64* lengths, u32* out_validity) {
    unsigned int lane = threadIdx.x % 32;
    for (u64 i = global_index(); i - lane < n; i += global_stride()) {
        bool valid = false;
        if (i < n) {
            i64 row = indices[i];
            bool inside = row >= 0 && static_cast<u64>(row) < n_values;
            valid = inside && is_valid(validity, static_cast<u64>(row));
            lengths[i] = valid ? offsets[row + 1] - offsets[row] : 0;
        }
        u32 word = __ballot_sync(FULL_MASK, valid);
        if (lane == 0) out_validity[i / 32] = word;
    }
}
EMU_KERNEL(string_gather_lengths)

extern "C" __global__ void string_gather_bytes(const i64* offsets, const unsigned char* bytes,
                                               const i64* indices, const u32* out_validity,
                                               u64 n, const i64* out_offsets,
                                               unsigned char* out_bytes) {
    for_each_gathered_span(offsets, indices, out_validity, n, out_offsets,
                           [&](i64 to, i64 start, i64 length) {
                               for (i64 k = 0; k < length; ++k) {
                                   out_bytes[to + k] = bytes[start + k];
                               }
                           });
}
EMU_KERNEL(string_gather_bytes)
