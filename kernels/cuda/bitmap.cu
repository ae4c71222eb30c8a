// Validity bitmap operations: and, or, popcount, bitmap to bytes and back.
//
// Bitmaps are Arrow's: bit i (least significant first) of 32-bit word i / 32.
// Bits past `n` in the last word are written as 0.
#include "kernel_common.cuh"

__device__ __forceinline__ u32 tail_mask(u64 word, u64 n_bits) {
    u64 first = word * 32;
    if (first + 32 <= n_bits) return FULL_MASK;
    u64 bits = n_bits > first ? n_bits - first : 0;
    return bits == 0 ? 0u : (FULL_MASK >> (32 - bits));
}

extern "C" __global__ void bitmap_and(const u32* a, const u32* b, u64 n_bits, u32* out) {
    u64 words = (n_bits + 31) / 32;
    for (u64 w = global_index(); w < words; w += global_stride()) {
        out[w] = a[w] & b[w] & tail_mask(w, n_bits);
    }
}
EMU_KERNEL(bitmap_and)

extern "C" __global__ void bitmap_or(const u32* a, const u32* b, u64 n_bits, u32* out) {
    u64 words = (n_bits + 31) / 32;
    for (u64 w = global_index(); w < words; w += global_stride()) {
        out[w] = (a[w] | b[w]) & tail_mask(w, n_bits);
    }
}
EMU_KERNEL(bitmap_or)

// Per-block counts of set bits among the first `n_bits` (a device-wide count
// sums the partials, e.g. with reduce_sum_u64).
extern "C" __global__ void bitmap_popcount(const u32* bitmap, u64 n_bits, u64* partials) {
    u64 words = (n_bits + 31) / 32;
    u64 count = 0;
    for (u64 w = global_index(); w < words; w += global_stride()) {
        count += static_cast<u64>(__popc(bitmap[w] & tail_mask(w, n_bits)));
    }
    count = block_reduce<SumOp, u64>(count);
    if (threadIdx.x == 0) partials[blockIdx.x] = count;
}
EMU_KERNEL(bitmap_popcount)

// One byte per element: 1 where the bit is set, else 0.
extern "C" __global__ void bitmap_to_bool(const u32* bitmap, u64 n, unsigned char* out) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        out[i] = is_valid(bitmap, i) ? 1 : 0;
    }
}
EMU_KERNEL(bitmap_to_bool)

// A bitmap of the non-zero bytes; each warp writes whole words (ballot).
extern "C" __global__ void bool_to_bitmap(const unsigned char* flags, u64 n, u32* out) {
    unsigned int lane = threadIdx.x % 32;
    for (u64 i = global_index(); i - lane < n; i += global_stride()) {
        bool set = i < n && flags[i] != 0;
        u32 word = __ballot_sync(FULL_MASK, set);
        if (lane == 0) out[i / 32] = word;
    }
}
EMU_KERNEL(bool_to_bitmap)

// ORs the first n bits of `src` (null: n set bits) into `dst` from bit `at`;
// `dst` starts zeroed. One thread per source word; neighbours share words,
// so the writes are atomic.
extern "C" __global__ void bitmap_append(const u32* src, u64 n, u32* dst, u64 at) {
    u64 words = (n + 31) / 32;
    for (u64 w = global_index(); w < words; w += global_stride()) {
        u32 bits = (src == nullptr ? FULL_MASK : src[w]) & tail_mask(w, n);
        if (bits == 0) continue;
        u64 position = at + w * 32;
        u32 shift = static_cast<u32>(position % 32);
        atomicOr(&dst[position / 32], bits << shift);
        if (shift != 0) {
            u32 high = bits >> (32 - shift);
            if (high != 0) atomicOr(&dst[position / 32 + 1], high);
        }
    }
}
EMU_KERNEL(bitmap_append)
