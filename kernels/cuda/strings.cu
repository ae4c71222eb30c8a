// String functions that make strings, and string concatenation.
//
// A new string column is made in three steps: a kernel writes each row's
// source byte range (start and length), an exclusive scan of the lengths
// gives the new offsets, and string_copy_ranges copies the bytes. Strings
// are UTF-8: a byte starts a character unless it is 0b10xxxxxx.
#include "kernel_common.cuh"

__device__ __forceinline__ bool starts_char(unsigned char byte) { return (byte & 0xC0) != 0x80; }

// Polars' str.slice(offset, length), counted in characters: a negative
// offset counts from the end, and when it reaches before the start the
// length shrinks by the characters missing; `length` u64 max means to the
// end. Writes each row's byte range; a null row gets length 0.
extern "C" __global__ void string_slice_ranges(const i64* offsets, const unsigned char* bytes,
                                               const u32* validity, u64 n, i64 offset,
                                               u64 length, i64* starts, i64* lengths) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        i64 begin = offsets[i], end = offsets[i + 1];
        starts[i] = begin;
        lengths[i] = 0;
        if (!is_valid(validity, i)) continue;
        u64 chars = 0;
        for (i64 k = begin; k < end; ++k) chars += starts_char(bytes[k]) ? 1 : 0;
        u64 first = 0, count = length;
        if (offset >= 0) {
            first = static_cast<u64>(offset) < chars ? static_cast<u64>(offset) : chars;
        } else {
            // Unsigned negation: exact for every negative i64.
            u64 back = 0ull - static_cast<u64>(offset);
            if (back <= chars) {
                first = chars - back;
            } else {
                u64 missing = back - chars;
                count = count > missing ? count - missing : 0;
            }
        }
        u64 last = chars - first < count ? chars : first + count;
        i64 from = end, to = end;
        u64 c = 0;
        for (i64 k = begin; k < end; ++k) {
            if (!starts_char(bytes[k])) continue;
            if (c == first) from = k;
            if (c == last) {
                to = k;
                break;
            }
            ++c;
        }
        starts[i] = from;
        lengths[i] = to - from;
    }
}
EMU_KERNEL(string_slice_ranges)

// out_bytes[out_offsets[i]..out_offsets[i + 1]] = bytes from starts[i].
extern "C" __global__ void string_copy_ranges(const unsigned char* bytes, const i64* starts,
                                              u64 n, const i64* out_offsets,
                                              unsigned char* out_bytes) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        i64 from = starts[i], to = out_offsets[i], length = out_offsets[i + 1] - to;
        for (i64 k = 0; k < length; ++k) out_bytes[to + k] = bytes[from + k];
    }
}
EMU_KERNEL(string_copy_ranges)

// Appends the n + 1 offsets of n strings to a concatenation: dst[at + k] =
// src[k] - src[0] + base, where `base` is the bytes the strings before hold.
extern "C" __global__ void string_offsets_append(const i64* src, u64 n, i64* dst, u64 at,
                                                 i64 base) {
    i64 first = src[0];
    for (u64 k = global_index(); k <= n; k += global_stride()) dst[at + k] = src[k] - first + base;
}
EMU_KERNEL(string_offsets_append)

// Each string's length in bytes, or in characters when `chars`; 0 for null.
extern "C" __global__ void string_lengths(const i64* offsets, const unsigned char* bytes,
                                          const u32* validity, u64 n, u32 chars, u32* out) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        u32 length = 0;
        if (is_valid(validity, i)) {
            i64 begin = offsets[i], end = offsets[i + 1];
            if (chars) {
                for (i64 k = begin; k < end; ++k) length += starts_char(bytes[k]) ? 1 : 0;
            } else {
                length = static_cast<u32>(end - begin);
            }
        }
        out[i] = length;
    }
}
EMU_KERNEL(string_lengths)
