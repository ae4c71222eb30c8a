// Lists: a column of lists is `offsets` (one more than there are lists;
// list i is the child rows offsets[i]..offsets[i + 1]) over a child column.
// These kernels give the child rows a gather or an explode of lists reads;
// the engine gathers the child column by them.
#include "spans.cuh"

// Gather of lists, second step (the first is string_gather_lengths, which
// gives each gathered list's length and validity, and a scan of those
// lengths into out_offsets): for gathered list i, the child rows it holds,
// written at out_rows[out_offsets[i]..].
extern "C" __global__ void list_gather_rows(const i64* offsets, const i64* indices,
                                            const u32* out_validity, u64 n,
                                            const i64* out_offsets, i64* out_rows) {
    for_each_gathered_span(offsets, indices, out_validity, n, out_offsets,
                           [&](i64 to, i64 start, i64 length) {
                               for (i64 k = 0; k < length; ++k) out_rows[to + k] = start + k;
                           });
}
EMU_KERNEL(list_gather_rows)

// Explode, first step: how many rows list i becomes (its length; an empty
// list one row if empty_as_null, else none; a null list one row if
// keep_nulls, else none). counts has one more entry, left 0, so that its
// exclusive scan ends with the total.
extern "C" __global__ void list_explode_counts(const i64* offsets, const u32* validity, u64 n,
                                               u32 empty_as_null, u32 keep_nulls,
                                               i64* counts) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        i64 count;
        if (!is_valid(validity, i)) {
            count = keep_nulls ? 1 : 0;
        } else {
            count = offsets[i + 1] - offsets[i];
            if (count == 0 && empty_as_null) count = 1;
        }
        counts[i] = count;
    }
}
EMU_KERNEL(list_explode_counts)

// Explode, second step (after the exclusive scan of the counts into
// starts): for each row list i becomes, the list it came from (parents)
// and the child row it holds (values; -1, a null, for the row of a null or
// empty list).
extern "C" __global__ void list_explode_rows(const i64* offsets, const u32* validity, u64 n,
                                             const i64* starts, i64* parents, i64* values) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        i64 to = starts[i];
        i64 count = starts[i + 1] - to;
        bool valid = is_valid(validity, i);
        i64 start = offsets[i];
        i64 length = valid ? offsets[i + 1] - start : 0;
        for (i64 k = 0; k < count; ++k) {
            parents[to + k] = static_cast<i64>(i);
            values[to + k] = k < length ? start + k : -1;
        }
    }
}
EMU_KERNEL(list_explode_rows)

// list.get: for list i, the child row at `index` (counted from the end when
// negative), -1 (a null) where the list is null or has no such place;
// *outside set to 1 where a valid list has none (Polars raises there
// unless asked for null).
extern "C" __global__ void list_get_rows(const i64* offsets, const u32* validity, u64 n,
                                         i64 index, i64* rows, u32* outside) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        i64 start = offsets[i];
        i64 length = offsets[i + 1] - start;
        i64 place = index < 0 ? length + index : index;
        bool inside = place >= 0 && place < length;
        bool valid = is_valid(validity, i);
        rows[i] = valid && inside ? start + place : -1;
        if (valid && !inside) *outside = 1;
    }
}
EMU_KERNEL(list_get_rows)
