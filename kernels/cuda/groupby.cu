// Group-by over rows sorted by their keys: segment boundaries and per-segment aggregations.
//
// After a stable sort by the keys, each group is a run of rows: group_flags
// marks the first row of each run (a key differs from the previous row's, nulls
// equal to nulls), and the runs' starts come from scanning and compacting the
// flags. Each aggregation kernel then reduces every segment [starts[g],
// starts[g + 1]) (the last one ends at n) with one thread per group. Large
// groups are first split into chunks that never cross a group
// (segment_chunk_counts, segment_chunk_starts): the same kernels reduce each
// chunk to a partial, then each group's partials, so a group of millions of
// rows is not left to one thread.
#include "kernel_common.cuh"

// flags[i] |= row i starts a new run of this key column.
template <typename T>
__device__ __forceinline__ void group_flags(const T* values, const u32* validity, u64 n,
                                            unsigned char* flags) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        bool starts = i == 0;
        if (!starts) {
            bool a = is_valid(validity, i - 1), b = is_valid(validity, i);
            starts = a != b || (a && values[i - 1] != values[i]);
        }
        if (starts) flags[i] = 1;
    }
}

#define FLAGS(T, suffix)                                                                   \
    extern "C" __global__ void group_flags_##suffix(const T* values, const u32* validity,   \
                                                    u64 n, unsigned char* flags) {          \
        group_flags<T>(values, validity, n, flags);                                         \
    }                                                                                       \
    EMU_KERNEL(group_flags_##suffix)

FLAGS(i32, i32)
FLAGS(i64, i64)
FLAGS(u32, u32)
FLAGS(u64, u64)

__device__ __forceinline__ void segment(const u64* starts, u64 groups, u64 n, u64 g, u64* begin,
                                        u64* end) {
    *begin = starts[g];
    *end = g + 1 < groups ? starts[g + 1] : n;
}

__device__ __forceinline__ void set_valid(u32* validity, u64 g, bool valid) {
    u32 bit = 1u << (g % 32);
    if (valid) {
        atomicOr(&validity[g / 32], bit);
    } else {
        atomicAnd(&validity[g / 32], ~bit);
    }
}

// Sum of the valid values (0 for none), wrapping in the output type. A
// group of one row sums to its value, as Polars' group-by takes it (so a
// lone -0.0 stays -0.0; from 0 it would be 0.0).
template <typename T, typename A>
__device__ __forceinline__ void segment_sum(const T* values, const u32* validity,
                                            const u64* starts, u64 groups, u64 n, A* out) {
    for (u64 g = global_index(); g < groups; g += global_stride()) {
        u64 begin, end;
        segment(starts, groups, n, g, &begin, &end);
        A sum = A(0);
        if (end - begin == 1 && is_valid(validity, begin)) {
            out[g] = static_cast<A>(values[begin]);
            continue;
        }
        for (u64 i = begin; i < end; ++i) {
            if (is_valid(validity, i)) sum = static_cast<A>(sum + static_cast<A>(values[i]));
        }
        out[g] = sum;
    }
}

// Product of the valid values (1 for none), multiplied in W: integers
// wrapping in the 64-bit type (W unsigned: the same bits for signed values,
// without the undefined overflow of signed C++ arithmetic); floats in their
// own type, one thread a group from its first value to its last, as
// Polars' loop rounds.
template <typename T, typename W>
__device__ __forceinline__ void segment_product(const T* values, const u32* validity,
                                                const u64* starts, u64 groups, u64 n, T* out) {
    for (u64 g = global_index(); g < groups; g += global_stride()) {
        u64 begin, end;
        segment(starts, groups, n, g, &begin, &end);
        W product = W(1);
        for (u64 i = begin; i < end; ++i) {
            if (is_valid(validity, i)) product = product * static_cast<W>(values[i]);
        }
        out[g] = static_cast<T>(product);
    }
}

// The sum (as a double) and the count of the valid values of [begin, end).
template <typename T>
__device__ __forceinline__ double valid_sum(const T* values, const u32* validity, u64 begin,
                                            u64 end, u64* count) {
    double sum = 0.0;
    *count = 0;
    for (u64 i = begin; i < end; ++i) {
        if (is_valid(validity, i)) {
            sum += static_cast<double>(values[i]);
            ++*count;
        }
    }
    return sum;
}

// Mean of the valid values as a double; null for none. A group of one row
// has its value as its mean (Polars' group-by: a lone -0.0 stays -0.0).
template <typename T>
__device__ __forceinline__ void segment_mean(const T* values, const u32* validity,
                                             const u64* starts, u64 groups, u64 n, double* out,
                                             u32* out_validity) {
    for (u64 g = global_index(); g < groups; g += global_stride()) {
        u64 begin, end, count;
        segment(starts, groups, n, g, &begin, &end);
        double sum = valid_sum(values, validity, begin, end, &count);
        if (end - begin == 1 && count == 1) sum = static_cast<double>(values[begin]);
        out[g] = count == 0 ? 0.0 : sum / static_cast<double>(count);
        set_valid(out_validity, g, count != 0);
    }
}

// Minimum or maximum of the valid values; null for none. Floats skip NaN
// unless every value is NaN.
template <typename T, bool MAX>
__device__ __forceinline__ void segment_extreme(const T* values, const u32* validity,
                                                const u64* starts, u64 groups, u64 n, T* out,
                                                u32* out_validity) {
    for (u64 g = global_index(); g < groups; g += global_stride()) {
        u64 begin, end;
        segment(starts, groups, n, g, &begin, &end);
        bool any = false;
        T best = T(0);
        for (u64 i = begin; i < end; ++i) {
            if (!is_valid(validity, i)) continue;
            T v = values[i];
            if (!any) {
                best = v;
                any = true;
            } else if (best != best) {
                best = v;
            } else if (v == v && (MAX ? v > best : v < best)) {
                best = v;
            }
        }
        out[g] = best;
        set_valid(out_validity, g, any);
    }
}

// The first or last row's value of each group, null included.
template <typename T, bool LAST>
__device__ __forceinline__ void segment_pick(const T* values, const u32* validity,
                                             const u64* starts, u64 groups, u64 n, T* out,
                                             u32* out_validity) {
    for (u64 g = global_index(); g < groups; g += global_stride()) {
        u64 begin, end;
        segment(starts, groups, n, g, &begin, &end);
        if (begin == end) {  // an empty column's only "group"
            out[g] = T(0);
            set_valid(out_validity, g, false);
            continue;
        }
        u64 row = LAST ? end - 1 : begin;
        out[g] = values[row];
        set_valid(out_validity, g, is_valid(validity, row));
    }
}

// Rows of each group (len), or its valid rows (count) when `validity` is given.
extern "C" __global__ void segment_count(const u32* validity, const u64* starts, u64 groups,
                                         u64 n, u32* out) {
    for (u64 g = global_index(); g < groups; g += global_stride()) {
        u64 begin, end;
        segment(starts, groups, n, g, &begin, &end);
        u32 count = 0;
        for (u64 i = begin; i < end; ++i) count += is_valid(validity, i) ? 1u : 0u;
        out[g] = count;
    }
}
EMU_KERNEL(segment_count)

#define SEGMENT_SUM(T, A, suffix)                                                           \
    extern "C" __global__ void segment_sum_##suffix(const T* values, const u32* validity,    \
                                                    const u64* starts, u64 groups, u64 n,    \
                                                    A* out) {                                \
        segment_sum<T, A>(values, validity, starts, groups, n, out);                         \
    }                                                                                        \
    EMU_KERNEL(segment_sum_##suffix)

#define SEGMENT_TYPED(T, suffix)                                                             \
    extern "C" __global__ void segment_mean_##suffix(const T* values, const u32* validity,    \
                                                     const u64* starts, u64 groups, u64 n,    \
                                                     double* out, u32* out_validity) {        \
        segment_mean<T>(values, validity, starts, groups, n, out, out_validity);              \
    }                                                                                         \
    EMU_KERNEL(segment_mean_##suffix)                                                         \
    extern "C" __global__ void segment_min_##suffix(const T* values, const u32* validity,     \
                                                    const u64* starts, u64 groups, u64 n,     \
                                                    T* out, u32* out_validity) {              \
        segment_extreme<T, false>(values, validity, starts, groups, n, out, out_validity);    \
    }                                                                                         \
    EMU_KERNEL(segment_min_##suffix)                                                          \
    extern "C" __global__ void segment_max_##suffix(const T* values, const u32* validity,     \
                                                    const u64* starts, u64 groups, u64 n,     \
                                                    T* out, u32* out_validity) {              \
        segment_extreme<T, true>(values, validity, starts, groups, n, out, out_validity);     \
    }                                                                                         \
    EMU_KERNEL(segment_max_##suffix)                                                          \
    extern "C" __global__ void segment_first_##suffix(const T* values, const u32* validity,   \
                                                      const u64* starts, u64 groups, u64 n,   \
                                                      T* out, u32* out_validity) {            \
        segment_pick<T, false>(values, validity, starts, groups, n, out, out_validity);       \
    }                                                                                         \
    EMU_KERNEL(segment_first_##suffix)                                                        \
    extern "C" __global__ void segment_last_##suffix(const T* values, const u32* validity,    \
                                                     const u64* starts, u64 groups, u64 n,    \
                                                     T* out, u32* out_validity) {             \
        segment_pick<T, true>(values, validity, starts, groups, n, out, out_validity);        \
    }                                                                                         \
    EMU_KERNEL(segment_last_##suffix)

#define SEGMENT_PRODUCT(T, W, suffix)                                                       \
    extern "C" __global__ void segment_product_##suffix(const T* values, const u32* validity, \
                                                        const u64* starts, u64 groups, u64 n, \
                                                        T* out) {                             \
        segment_product<T, W>(values, validity, starts, groups, n, out);                     \
    }                                                                                         \
    EMU_KERNEL(segment_product_##suffix)

SEGMENT_PRODUCT(i64, u64, i64)
SEGMENT_PRODUCT(u64, u64, u64)
SEGMENT_PRODUCT(double, double, f64)
SEGMENT_PRODUCT(float, float, f32)
SEGMENT_SUM(i32, i32, i32)
SEGMENT_SUM(i64, i64, i64)
SEGMENT_SUM(u32, u32, u32)
SEGMENT_SUM(u64, u64, u64)
SEGMENT_SUM(double, double, f64)
// Sums as doubles, the partials of a mean.
SEGMENT_SUM(i32, double, i32_f64)
SEGMENT_SUM(i64, double, i64_f64)
SEGMENT_SUM(u32, double, u32_f64)
SEGMENT_SUM(u64, double, u64_f64)
SEGMENT_TYPED(i32, i32)
SEGMENT_TYPED(i64, i64)
SEGMENT_TYPED(u32, u32)
SEGMENT_TYPED(u64, u64)
SEGMENT_TYPED(double, f64)

// The group of each of the n sorted rows: the last g with starts[g] <= row
// (starts ascend from 0, each below 2^63).
extern "C" __global__ void segment_ids(const u64* starts, u64 groups, u64 n, u32* out) {
    const i64* positions = reinterpret_cast<const i64*>(starts);
    for (u64 i = global_index(); i < n; i += global_stride()) {
        out[i] = static_cast<u32>(last_at_or_before(positions, groups, static_cast<i64>(i)));
    }
}
EMU_KERNEL(segment_ids)

// Where sorted position i's group begins and ends, and the row it stands
// for; false (nothing to write) for a group number, start or row out of range.
__device__ __forceinline__ bool sorted_position(const u64* starts, u64 groups,
                                                const u32* group_of, const i64* rows, u64 n,
                                                u64 i, u64* begin, u64* end) {
    u64 g = group_of[i];
    if (g >= groups || rows[i] < 0 || static_cast<u64>(rows[i]) >= n) return false;
    segment(starts, groups, n, g, begin, end);
    return *begin <= i && i < *end && *end <= n;
}

// Polars' shifts and fills within groups, as a gather: for each sorted
// position i, the position it reads (sources[i], or i - shift where sources
// is null; -1 for none), kept only inside i's group, and written at the row i
// stands for: out[rows[i]] = rows[source], or -1. `shift` is at most n in
// absolute value, so i - shift cannot overflow.
extern "C" __global__ void segment_sources(const i64* sources, i64 shift, const u64* starts,
                                           u64 groups, const u32* group_of, const i64* rows,
                                           u64 n, i64* out) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        u64 begin, end;
        if (!sorted_position(starts, groups, group_of, rows, n, i, &begin, &end)) continue;
        i64 source = sources != nullptr ? sources[i] : static_cast<i64>(i) - shift;
        bool inside = source >= static_cast<i64>(begin) && source < static_cast<i64>(end);
        out[rows[i]] = inside ? rows[source] : -1;
    }
}
EMU_KERNEL(segment_sources)

// Inclusive scans restarted at each group: the whole scan (in sorted order)
// less its value before the group began, wrapping, written at the row each
// position stands for: out[rows[i]] = scan[i] - scan[begin - 1].
extern "C" __global__ void segment_rebase(const u64* scan, const u64* starts, u64 groups,
                                          const u32* group_of, const i64* rows, u64 n, u64* out) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        u64 begin, end;
        if (!sorted_position(starts, groups, group_of, rows, n, i, &begin, &end)) continue;
        u64 before = begin > 0 ? scan[begin - 1] : 0;
        out[rows[i]] = scan[i] - before;
    }
}
EMU_KERNEL(segment_rebase)

// Polars' rank, from rows sorted by partition, then value (nulls last), with
// `ties` the starts of the runs of equal values (which never cross a
// partition) and `parts` the partitions' starts; tie_of and part_of give
// each sorted position's run and partition. A position's places count from
// its partition's start: the run's first (min), last (max), the run's number
// within the partition (dense), its own (ordinal), or the mean of the first
// and last (average). Written at the row it stands for. False where an
// argument is out of range (nothing is written).
__device__ __forceinline__ bool rank_places(const u64* ties, u64 n_ties, const u32* tie_of,
                                            const u64* parts, u64 n_parts, const u32* part_of,
                                            const i64* rows, u64 n, u64 i, u64* first,
                                            u64* last, u64* dense, u64* ordinal) {
    u64 t = tie_of[i], p = part_of[i];
    if (t >= n_ties || p >= n_parts || rows[i] < 0 || static_cast<u64>(rows[i]) >= n) {
        return false;
    }
    u64 begin, end, part_begin, part_end;
    segment(ties, n_ties, n, t, &begin, &end);
    segment(parts, n_parts, n, p, &part_begin, &part_end);
    if (!(part_begin <= begin && begin <= i && i < end && end <= part_end && part_end <= n)) {
        return false;
    }
    u64 first_tie = tie_of[part_begin];
    if (first_tie > t) return false;
    *first = begin - part_begin + 1;
    *last = end - part_begin;
    *dense = t - first_tie + 1;
    *ordinal = i - part_begin + 1;
    return true;
}

// method: 0 min, 1 max, 2 dense, 3 ordinal.
extern "C" __global__ void rank_places_u32(u32 method, const u64* parts, u64 n_parts,
                                           const u32* part_of, const u64* ties, u64 n_ties,
                                           const u32* tie_of, const i64* rows, u64 n, u32* out) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        u64 first, last, dense, ordinal;
        if (!rank_places(ties, n_ties, tie_of, parts, n_parts, part_of, rows, n, i, &first, &last,
                         &dense, &ordinal)) {
            continue;
        }
        u64 place = method == 0 ? first : method == 1 ? last : method == 2 ? dense : ordinal;
        out[rows[i]] = static_cast<u32>(place);
    }
}
EMU_KERNEL(rank_places_u32)

extern "C" __global__ void rank_averages_f64(const u64* parts, u64 n_parts,
                                             const u32* part_of, const u64* ties, u64 n_ties,
                                             const u32* tie_of, const i64* rows, u64 n,
                                             double* out) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        u64 first, last, dense, ordinal;
        if (!rank_places(ties, n_ties, tie_of, parts, n_parts, part_of, rows, n, i, &first, &last,
                         &dense, &ordinal)) {
            continue;
        }
        out[rows[i]] = 0.5 * (static_cast<double>(first) + static_cast<double>(last));
    }
}
EMU_KERNEL(rank_averages_f64)

// How many chunks of at most `tile` rows each group splits into (at least
// one, so an empty group keeps its slot).
extern "C" __global__ void segment_chunk_counts(const u64* starts, u64 groups, u64 n, u64 tile,
                                                u64* counts) {
    for (u64 g = global_index(); g < groups; g += global_stride()) {
        u64 begin, end;
        segment(starts, groups, n, g, &begin, &end);
        u64 chunks = (end - begin + tile - 1) / tile;
        counts[g] = chunks == 0 ? 1 : chunks;
    }
}
EMU_KERNEL(segment_chunk_counts)

// The first row of each chunk: chunk j belongs to the last group g with
// chunk_offsets[g] <= j (the exclusive sums of the counts above) and starts
// (j - chunk_offsets[g]) tiles into it. Slots past the last chunk (out has
// room for an upper bound) start at n: empty chunks, which add nothing.
extern "C" __global__ void segment_chunk_starts(const u64* starts, u64 groups, u64 n, u64 tile,
                                                const u64* chunk_offsets, u64 slots,
                                                u64* chunk_starts) {
    for (u64 j = global_index(); j < slots; j += global_stride()) {
        u64 low = 0, high = groups;
        while (high - low > 1) {
            u64 middle = low + (high - low) / 2;
            if (chunk_offsets[middle] <= j) {
                low = middle;
            } else {
                high = middle;
            }
        }
        u64 begin, end;
        segment(starts, groups, n, low, &begin, &end);
        u64 k = j - chunk_offsets[low];
        u64 count = (end - begin + tile - 1) / tile;
        chunk_starts[j] = k < (count == 0 ? 1 : count) ? begin + k * tile : n;
    }
}
EMU_KERNEL(segment_chunk_starts)

// Means from per-group sums and counts of valid values; null for none.
extern "C" __global__ void mean_of_sums(const double* sums, const u32* counts, u64 groups,
                                        double* out, u32* out_validity) {
    for (u64 g = global_index(); g < groups; g += global_stride()) {
        u32 count = counts[g];
        out[g] = count == 0 ? 0.0 : sums[g] / static_cast<double>(count);
        set_valid(out_validity, g, count != 0);
    }
}
EMU_KERNEL(mean_of_sums)

// Variance of each group's valid values with `ddof` delta degrees of
// freedom, as Polars computes it per group: Welford's running mean and sum
// of squared deviations, in row order; null when there are no more than
// `ddof` values; `take_sqrt` gives the standard deviation. (Large groups
// take two passes over chunks instead: segment_squared_deviations_f64.)
extern "C" __global__ void segment_variance_f64(const double* values, const u32* validity,
                                                const u64* starts, u64 groups, u64 n, u32 ddof,
                                                u32 take_sqrt, double* out, u32* out_validity) {
    for (u64 g = global_index(); g < groups; g += global_stride()) {
        u64 begin, end;
        segment(starts, groups, n, g, &begin, &end);
        // Polars' per-group variance: Welford's running mean and sum of
        // squared deviations over the valid values in row order
        // (`online_variance`), step for step.
        double mean = 0.0, m2 = 0.0;
        u64 count = 0;
        for (u64 i = begin; i < end; ++i) {
            if (!is_valid(validity, i)) continue;
            double value = values[i];
            double delta_1 = value - mean;
            double new_mean = delta_1 / static_cast<double>(count + 1) + mean;
            double delta_2 = value - new_mean;
            m2 = m2 + delta_1 * delta_2;
            mean = new_mean;
            ++count;
        }
        bool valid = count > ddof;
        double result = 0.0;
        if (valid) {
            result = m2 / (static_cast<double>(count) - static_cast<double>(ddof));
            if (take_sqrt) result = sqrt(result);
        }
        out[g] = result;
        set_valid(out_validity, g, valid);
    }
}
EMU_KERNEL(segment_variance_f64)

// The second pass of a variance over chunks: each chunk's sum of squared
// deviations of its valid values from `means[c]`, its group's mean.
extern "C" __global__ void segment_squared_deviations_f64(const double* values,
                                                          const u32* validity,
                                                          const u64* starts, u64 chunks, u64 n,
                                                          const double* means, double* out) {
    for (u64 c = global_index(); c < chunks; c += global_stride()) {
        u64 begin, end;
        segment(starts, chunks, n, c, &begin, &end);
        double mean = means[c], squares = 0.0;
        for (u64 i = begin; i < end; ++i) {
            if (is_valid(validity, i)) squares += (values[i] - mean) * (values[i] - mean);
        }
        out[c] = squares;
    }
}
EMU_KERNEL(segment_squared_deviations_f64)

// Polars' variance of a column or a list (`ChunkVar::var`, polars-compute's
// `VarState`), first step: each chunk of at most 128 consecutive values (of
// the valid values only, packed) as its weight, mean and sum of squared
// deviations from that mean, both sums taken in order from -0.0 as
// `alg_sum_f64` takes them.
extern "C" __global__ void segment_chunk_moments_f64(const double* values, const u64* starts,
                                                     u64 chunks, u64 n, double* weights,
                                                     double* means, double* squares) {
    for (u64 c = global_index(); c < chunks; c += global_stride()) {
        u64 begin, end;
        segment(starts, chunks, n, c, &begin, &end);
        double weight = static_cast<double>(end - begin), mean = 0.0, dp = -0.0;
        if (end > begin) {
            double sum = -0.0;
            for (u64 i = begin; i < end; ++i) sum = sum + values[i];
            mean = sum / weight;
            for (u64 i = begin; i < end; ++i) dp = dp + (values[i] - mean) * (values[i] - mean);
        } else {
            dp = 0.0;
        }
        weights[c] = weight;
        means[c] = mean;
        squares[c] = dp;
    }
}
EMU_KERNEL(segment_chunk_moments_f64)

// The second step: each group's chunks (group g's from offsets[g]) merged in
// order as `VarState::combine` merges them, from weight, mean and sum 0, and
// finished as `VarState::finalize` (null for no more than `ddof` values, a
// negative variance 0.0); `take_sqrt` gives the standard deviation.
extern "C" __global__ void fold_chunk_moments_f64(const double* weights, const double* means,
                                                  const double* squares, const u64* offsets,
                                                  u64 groups, u64 chunks, u32 ddof,
                                                  u32 take_sqrt, double* out, u32* out_validity) {
    for (u64 g = global_index(); g < groups; g += global_stride()) {
        u64 begin, end;
        segment(offsets, groups, chunks, g, &begin, &end);
        double weight = 0.0, mean = 0.0, dp = 0.0;
        for (u64 c = begin; c < end; ++c) {
            double other_weight = weights[c];
            if (other_weight == 0.0) continue;
            double new_weight = weight + other_weight;
            double other_weight_frac = other_weight / new_weight;
            double delta_mean = means[c] - mean;
            double new_mean = mean + delta_mean * other_weight_frac;
            dp = dp + (squares[c] + other_weight * (means[c] - new_mean) * delta_mean);
            weight = new_weight;
            mean = new_mean;
            if (weight == 0.0) {
                mean = 0.0;
                dp = 0.0;
            }
        }
        bool valid = weight > static_cast<double>(ddof);
        double result = 0.0;
        if (valid) {
            double var = dp / (weight - static_cast<double>(ddof));
            result = var < 0.0 ? 0.0 : var;
            if (take_sqrt) result = sqrt(result);
        }
        out[g] = result;
        set_valid(out_validity, g, valid);
    }
}
EMU_KERNEL(fold_chunk_moments_f64)

// Variances (standard deviations with take_sqrt) from each group's sum of
// squared deviations and count, as segment_variance_f64 finishes them.
extern "C" __global__ void variance_of_squares(const double* squares, const u32* counts,
                                               u64 groups, u32 ddof, u32 take_sqrt, double* out,
                                               u32* out_validity) {
    for (u64 g = global_index(); g < groups; g += global_stride()) {
        u64 count = counts[g];
        bool valid = count > ddof;
        double result = 0.0;
        if (valid) {
            result = squares[g] / static_cast<double>(count - ddof);
            if (result < 0.0) result = 0.0;
            if (take_sqrt) result = sqrt(result);
        }
        out[g] = result;
        set_valid(out_validity, g, valid);
    }
}
EMU_KERNEL(variance_of_squares)

// The quantile `q` of each group's valid values, as Polars computes it
// (`quantile_idx`: the place counts the nulls, sorted first, so an
// interpolation's proportion is rounded as Polars rounds it). The values of
// each group must be sorted in total order (NaN last) with the nulls first.
// Null for a group without a valid value.
extern "C" __global__ void segment_quantile_f64(const double* values, const u32* validity,
                                                const u64* starts, u64 groups, u64 n, double q,
                                                u32 method, double* out, u32* out_validity) {
    for (u64 g = global_index(); g < groups; g += global_stride()) {
        u64 first, end;
        segment(starts, groups, n, g, &first, &end);
        u64 begin = first;
        while (begin < end && !is_valid(validity, begin)) ++begin;
        u64 count = end - begin, nulls = begin - first, length = end - first;
        double result = 0.0;
        if (count == 1) {
            result = values[begin];
        } else if (count > 1) {
            const double* sorted = values + first;
            double float_idx = static_cast<double>(count - 1) * q + static_cast<double>(nulls);
            u64 idx, top;
            if (method == NEAREST) {
                idx = top = static_cast<u64>(round(float_idx));
            } else if (method == EQUIPROBABLE) {
                double at = ceil(static_cast<double>(count) * q) - 1.0;
                idx = top = static_cast<u64>(at > 0.0 ? at : 0.0) + nulls;
            } else {
                idx = static_cast<u64>(method == HIGHER ? ceil(float_idx) : float_idx);
                if (idx > length - 1) idx = length - 1;
                top = static_cast<u64>(ceil(float_idx));
            }
            double lower = sorted[idx];
            result = lower;
            if (idx != top && (method == MIDPOINT || method == LINEAR)) {
                double upper = sorted[idx + 1];
                if (lower != upper) {
                    result = method == MIDPOINT
                                 ? (lower + upper) / 2.0
                                 : (float_idx - static_cast<double>(idx)) * (upper - lower) + lower;
                }
            }
        }
        out[g] = result;
        set_valid(out_validity, g, count != 0);
    }
}
EMU_KERNEL(segment_quantile_f64)
