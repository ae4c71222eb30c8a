// Time zones: the local times of instants, by a table of a zone's UTC offsets.
#include "kernel_common.cuh"

// Each valid instant plus the UTC offset of the span of the table it falls
// in: `starts` ascend (the first is the least i64), `offsets[k]` is span k's
// (both in the instants' unit). A valid instant outside [low, high), where
// the table is not known to hold, raises `outside`. Invalid rows copy their
// value. The sum wraps (an instant that near the ends is outside anyway).
extern "C" __global__ void zone_local_times(const i64* instants, const u32* validity, u64 n,
                                            const i64* starts, const i64* offsets, u64 spans,
                                            i64 low, i64 high, i64* out, u32* outside) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        const i64 instant = instants[i];
        if (!is_valid(validity, i)) {
            out[i] = instant;
            continue;
        }
        if (instant < low || instant >= high) atomicOr(outside, 1u);
        u64 first = 0, last = spans;
        while (last - first > 1) {
            const u64 middle = first + (last - first) / 2;
            if (starts[middle] <= instant) {
                first = middle;
            } else {
                last = middle;
            }
        }
        out[i] = static_cast<i64>(static_cast<u64>(instant) + static_cast<u64>(offsets[first]));
    }
}
EMU_KERNEL(zone_local_times)
