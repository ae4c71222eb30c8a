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
        const u64 span = last_at_or_before(starts, spans, instant);
        out[i] = static_cast<i64>(static_cast<u64>(instant) + static_cast<u64>(offsets[span]));
    }
}
EMU_KERNEL(zone_local_times)

// The instants whose local times in a zone are `locals` (plain timestamps
// of wall-clock times): for each span k of the table, locals[i] minus
// offsets[k] where that falls in span k (an offset lies within `reach` of
// zero, so only the spans from locals[i] - reach to locals[i] + reach are
// tried). One such instant: it; two (a time the clocks pass twice): the
// earlier or the later by `ambiguous` (0 raise, 1 earliest, 2 latest,
// 3 null); none (a time the clocks skip): null, or with
// `non_existent_raises` a raised `failed`, as an ambiguous time to raise
// on raises it. A valid local time outside [low, high) raises `outside`.
// The result's validity goes to `out_valid`, a word per warp.
extern "C" __global__ void zone_instants(const i64* locals, const u32* validity, u64 n,
                                         const i64* starts, const i64* offsets, u64 spans,
                                         i64 reach, i64 low, i64 high, u32 ambiguous,
                                         u32 non_existent_raises, i64* out, u32* out_valid,
                                         u32* failed, u32* outside) {
    const unsigned int lane = threadIdx.x % 32;
    for (u64 i = global_index(); i - lane < n; i += global_stride()) {
        bool valid = false;
        if (i < n) {
            out[i] = 0;
            const i64 local = locals[i];
            if (is_valid(validity, i)) {
                if (local < low || local >= high) atomicOr(outside, 1u);
                const i64 before = static_cast<i64>(static_cast<u64>(local) - static_cast<u64>(reach));
                const i64 after = static_cast<i64>(static_cast<u64>(local) + static_cast<u64>(reach));
                const u64 last_span = last_at_or_before(starts, spans, after);
                u32 count = 0;
                i64 earliest = 0, latest = 0;
                for (u64 k = last_at_or_before(starts, spans, before); k <= last_span; ++k) {
                    const i64 at = static_cast<i64>(static_cast<u64>(local) - static_cast<u64>(offsets[k]));
                    if (starts[k] <= at && (k + 1 == spans || at < starts[k + 1])) {
                        if (count == 0) earliest = at;
                        latest = at;
                        ++count;
                    }
                }
                if (count == 1 || (count > 1 && ambiguous == 1)) {
                    out[i] = earliest;
                    valid = true;
                } else if (count > 1 && ambiguous == 2) {
                    out[i] = latest;
                    valid = true;
                } else if ((count > 1 && ambiguous == 0) || (count == 0 && non_existent_raises != 0)) {
                    atomicOr(failed, 1u);
                }
            }
        }
        const u32 word = __ballot_sync(FULL_MASK, valid);
        if (lane == 0) out_valid[i / 32] = word;
    }
}
EMU_KERNEL(zone_instants)
