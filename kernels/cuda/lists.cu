// Lists: a column of lists is `offsets` (one more than there are lists;
// list i is the child rows offsets[i]..offsets[i + 1]) over a child column.
// These kernels give the child rows a gather or an explode of lists reads
// (the engine gathers the child column by them), and the sums and means of
// lists of floats in the order Polars adds them.
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

// Polars' float sum of values[begin, end) (polars-compute's float_sum, as a
// column's sum or a list's with nulls takes it), in P: the first
// (end - begin) % 128 values summed in order from -0.0, the rest in blocks
// of 128, each summed in 16 lanes (lane j takes values j, j + 16, ..., from
// 0.0) then folded 16 to 8 to 4 and added as (l0 + l2) + (l1 + l3), the
// blocks' sums added pairwise (the lower floor(blocks / 2) first,
// recursively); the pairwise sum (0.0 without blocks) plus the first values'
// sum. Nulls add 0.0.
template <typename P, typename T>
__device__ __forceinline__ P polars_block_sum(const T* values, const u32* validity, i64 first) {
    P lanes[16];
    for (int j = 0; j < 16; ++j) lanes[j] = P(0);
    for (int c = 0; c < 8; ++c) {
        for (int j = 0; j < 16; ++j) {
            const i64 i = first + 16 * c + j;
            lanes[j] = lanes[j] + (is_valid(validity, i) ? static_cast<P>(values[i]) : P(0));
        }
    }
    for (int j = 0; j < 8; ++j) lanes[j] = lanes[j] + lanes[j + 8];
    for (int j = 0; j < 4; ++j) lanes[j] = lanes[j] + lanes[j + 4];
    return (lanes[0] + lanes[2]) + (lanes[1] + lanes[3]);
}

// The pairwise sum of `blocks` blocks of 128 values from `first`, walked
// with a stack of the halves pending (Polars recurses).
template <typename P, typename T>
__device__ __forceinline__ P polars_pairwise_sum(const T* values, const u32* validity, i64 first,
                                                 u64 blocks) {
    i64 firsts[64];
    u64 counts[64];
    P lefts[64];
    unsigned char stages[64];
    int top = 0;
    firsts[0] = first;
    counts[0] = blocks;
    stages[0] = 0;
    P result = P(0);
    while (true) {
        if (stages[top] == 0 && counts[top] > 1) {
            // The lower half first.
            stages[top] = 1;
            firsts[top + 1] = firsts[top];
            counts[top + 1] = counts[top] / 2;
            stages[top + 1] = 0;
            ++top;
            continue;
        }
        if (stages[top] == 1) {
            // Then the upper half.
            lefts[top] = result;
            stages[top] = 2;
            const u64 lower = counts[top] / 2;
            firsts[top + 1] = firsts[top] + static_cast<i64>(128 * lower);
            counts[top + 1] = counts[top] - lower;
            stages[top + 1] = 0;
            ++top;
            continue;
        }
        result = stages[top] == 0 ? polars_block_sum<P>(values, validity, firsts[top])
                                  : lefts[top] + result;
        if (top == 0) return result;
        --top;
    }
}

template <typename P, typename T>
__device__ __forceinline__ P polars_float_sum(const T* values, const u32* validity, i64 begin,
                                              i64 end) {
    const u64 head = static_cast<u64>(end - begin) % 128;
    P rest = P(-0.0);
    for (i64 i = begin; i < begin + static_cast<i64>(head); ++i) {
        rest = rest + (is_valid(validity, i) ? static_cast<P>(values[i]) : P(0));
    }
    const u64 blocks = (static_cast<u64>(end - begin) - head) / 128;
    const P main = blocks > 0 ? polars_pairwise_sum<P>(values, validity,
                                                        begin + static_cast<i64>(head), blocks)
                              : P(0);
    return main + rest;
}

// Polars' list.sum (`mean` 0) or list.mean (`mean` 1) of lists of floats
// (and the mean of 64-bit integers), which take one of two paths
// (polars-ops' list sum_mean): where the child holds no null
// (`valid_total` null, or equal to `child_len`), each list's values summed
// in order from -0.0 in S, the mean that over the list's length (null for
// an empty list); else each list as a column of its own: the sum 0.0 plus
// its float sum in P (0.0 where no value is valid), the mean -0.0 plus
// that float sum, over its number of valid values (null for none). Writes
// each list's result in O and its validity (the list's own validity is the
// caller's).
template <typename T, typename S, typename P, typename O>
__device__ __forceinline__ void list_float_sums(const i64* offsets, u64 n, const T* values,
                                                const u32* validity, const u64* valid_total,
                                                u64 child_len, u32 mean, O* out,
                                                u32* out_validity) {
    const bool with_nulls = valid_total != nullptr && *valid_total != child_len;
    const unsigned int lane = threadIdx.x % 32;
    for (u64 i = global_index(); i - lane < n; i += global_stride()) {
        bool valid = false;
        if (i < n) {
            const i64 begin = offsets[i], end = offsets[i + 1];
            O result = O(0);
            if (!with_nulls) {
                S sum = S(-0.0);
                for (i64 k = begin; k < end; ++k) sum = sum + static_cast<S>(values[k]);
                valid = mean == 0 || end > begin;
                if (mean == 0) {
                    result = static_cast<O>(sum);
                } else if (valid) {
                    result = static_cast<O>(sum / static_cast<S>(end - begin));
                }
            } else {
                u64 count = 0;
                for (i64 k = begin; k < end; ++k) count += is_valid(validity, k) ? 1 : 0;
                const P sum = polars_float_sum<P>(values, validity, begin, end);
                valid = mean == 0 || count > 0;
                if (mean == 0) {
                    result = count == 0 ? O(0) : static_cast<O>(P(0) + sum);
                } else if (valid) {
                    result = static_cast<O>((P(-0.0) + sum) / static_cast<P>(count));
                }
            }
            out[i] = result;
        }
        const u32 bits = __ballot_sync(FULL_MASK, valid);
        if (lane == 0) out_validity[i / 32] = bits;
    }
}

#define LIST_FLOAT_SUMS(name, T, S, P, O)                                                      \
    extern "C" __global__ void name(const i64* offsets, u64 n, const T* values,               \
                                    const u32* validity, const u64* valid_total,              \
                                    u64 child_len, u32 mean, O* out, u32* out_validity) {     \
        list_float_sums<T, S, P, O>(offsets, n, values, validity, valid_total, child_len,     \
                                    mean, out, out_validity);                                 \
    }                                                                                         \
    EMU_KERNEL(name)

// Sums and means of f64; sums of f32 (in f32); means of f32 (in f32 without
// nulls, in f64 with them, as Polars' mean of a column is); means of i64
// and u64 (in f64).
LIST_FLOAT_SUMS(list_float_sums_f64, double, double, double, double)
LIST_FLOAT_SUMS(list_float_sums_f32, float, float, float, float)
LIST_FLOAT_SUMS(list_float_means_f32, float, float, double, float)
LIST_FLOAT_SUMS(list_float_means_i64, i64, double, double, double)
LIST_FLOAT_SUMS(list_float_means_u64, u64, double, double, double)
