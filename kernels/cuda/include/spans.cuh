// Spans (the bytes of strings, the child rows of lists), delimited by
// offsets: one more offset than spans, span r is offsets[r]..offsets[r + 1].
#pragma once
#include "kernel_common.cuh"

// For each valid gathered span i (span indices[i] of `offsets`, written at
// out_offsets[i] of the output), write(to, start, length): the gather's
// second step, after string_gather_lengths and a scan of its lengths.
template <typename Write>
__device__ __forceinline__ void for_each_gathered_span(const i64* offsets, const i64* indices,
                                                       const u32* out_validity, u64 n,
                                                       const i64* out_offsets, Write write) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        if (!is_valid(out_validity, i)) continue;
        i64 row = indices[i];
        i64 start = offsets[row];
        write(out_offsets[i], start, offsets[row + 1] - start);
    }
}
