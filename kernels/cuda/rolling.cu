// Rolling windows by a count of rows (Polars' rolling_sum, rolling_mean, rolling_min, rolling_max, rolling_var, rolling_std, rolling_quantile) and exponentially weighted means, variances and deviations, restarted in each group.
#include "kernel_common.cuh"

// Every kernel here reads groups as the running kernels of scan.cu do: group
// g's rows are rows[starts[g]] .. rows[starts[g + 1] - 1] (the last group
// ends at n_rows), in the order the windows run over; the result of the
// row at position p is written at rows[p], and its validity bit set in
// `out_validity` (zeroed before). Listed windows (`listed`, given bounds
// only) are a list of their own, not one per row: a group is then a run of
// windows (starts[g] the first window's number, n_rows their count), each
// window's bounds are positions in all of `rows` (not relative to the
// group), and its result is written at its number.

// The window of the row at position i of a group of `len` rows, as Polars'
// fixed windows find it: the `window` rows ending at it, or (`center`)
// the rows around it, more after than before when `window` is even; cut at
// the group's ends. [*start, *end), relative to the group.
__device__ __forceinline__ void window_of(u64 i, u64 len, u64 window, u32 center, u64* start,
                                          u64* end) {
    if (center == 0) {
        *start = i + 1 >= window ? i + 1 - window : 0;
        *end = i + 1;
        return;
    }
    const u64 after = (window + 1) / 2;
    const u64 before = window - after;
    *start = i >= before ? i - before : 0;
    *end = i + after < len ? i + after : len;
}

// The window of the row at position i of the group of `len` rows that
// starts at position `first`: by a count of rows (`bounds` null; see
// window_of), or given (windows by times, see time_windows) as [bounds[2p],
// bounds[2p + 1]) relative to the group, p = first + i. False where a given
// window holds fewer than `min_periods` rows, or none is given ((1, 0), a
// row of a null time): Polars' rolling_*_by skips such a window, the row
// null and the walk going on from the last window.
__device__ __forceinline__ bool window_at(const i64* bounds, u64 first, u64 i, u64 len, u64 window,
                                          u32 center, u64 min_periods, u64* start, u64* end) {
    if (bounds == nullptr) {
        window_of(i, len, window, center, start, end);
        return true;
    }
    *start = static_cast<u64>(bounds[2 * (first + i)]);
    *end = static_cast<u64>(bounds[2 * (first + i) + 1]);
    return *start <= *end && *end - *start >= min_periods;
}

// Where the result of the window at position (listed: of number) w goes.
__device__ __forceinline__ u64 result_at(const i64* rows, u64 w, u32 listed) {
    return listed != 0 ? w : static_cast<u64>(rows[w]);
}

// The first of the positions [low, high) (rows sorted by time, null times
// last) whose time is not below `bound`, a time at `bound` counting as
// below with `at_too`; a null time is never below.
__device__ __forceinline__ u64 first_past(const i64* times, const u32* validity, const i64* rows,
                                          u64 low, u64 high, i64 bound, bool at_too) {
    while (low < high) {
        const u64 middle = low + (high - low) / 2;
        const u64 r = static_cast<u64>(rows[middle]);
        const i64 time = times[r];
        const bool below = is_valid(validity, r) && (at_too ? time <= bound : time < bound);
        if (below) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    return low;
}

// Polars' windows by times (rolling_*_by, rolling group-bys), with each
// group's rows sorted by time (`times` at their rows, null times last): for
// the row at every position, [start, end) relative to its group, the rows
// whose time lies after t + offset (or at it, `closed_left`) and before
// t + offset + period (or at it, `closed_right`), t the row's own time
// (offset -period: the period before t), as two i64 at 2p; (1, 0) for a
// row of a null time, which is in no window.
extern "C" __global__ void time_windows(const i64* times, const u32* validity, const i64* rows,
                                        const i64* starts, u64 n_rows, u64 n_groups, i64 period,
                                        i64 offset, u32 closed_left, u32 closed_right,
                                        i64* out) {
    for (u64 p = global_index(); p < n_rows; p += global_stride()) {
        const u64 g = last_at_or_before(starts, n_groups, static_cast<i64>(p));
        const u64 first = static_cast<u64>(starts[g]);
        const u64 last = group_end(starts, g, n_groups, n_rows);
        const u64 row = static_cast<u64>(rows[p]);
        if (!is_valid(validity, row)) {
            out[2 * p] = 1;
            out[2 * p + 1] = 0;
            continue;
        }
        // (Wrapping as Polars' release build does.)
        const i64 lower = static_cast<i64>(static_cast<u64>(times[row]) + static_cast<u64>(offset));
        const i64 upper = static_cast<i64>(static_cast<u64>(lower) + static_cast<u64>(period));
        // The first position past the times before the window, and past
        // those in it.
        const u64 start = first_past(times, validity, rows, first, last, lower, closed_left == 0);
        const u64 end = first_past(times, validity, rows, start, last, upper, closed_right != 0);
        out[2 * p] = static_cast<i64>(start - first);
        out[2 * p + 1] = static_cast<i64>(end - first);
    }
}
EMU_KERNEL(time_windows)

__device__ __forceinline__ void set_valid(u32* validity, u64 row) {
    atomicOr(&validity[row / 32], 1u << (row % 32));
}

template <typename T>
__device__ __forceinline__ T quiet_nan();
template <>
__device__ __forceinline__ double quiet_nan<double>() {
    return __longlong_as_double(0x7ff8000000000000ll);
}
template <>
__device__ __forceinline__ float quiet_nan<float>() {
    return __int_as_float(0x7fc00000);
}

// Polars' window sum of floats (its SumWindow, values of type T summed in
// S): finite values added and taken away by Kahan's compensated sums, one
// compensation for each direction; infinities and NaN counted aside and
// given back as the sum while one is in the window. Emptied when a window
// starts at or after the previous one's end.
template <typename T, typename S>
struct FloatWindowSum {
    S sum, err_add, err_sub;
    u64 non_finite, pos_inf, neg_inf;

    __device__ __forceinline__ void reset() {
        sum = S(0);
        err_add = S(0);
        err_sub = S(0);
        non_finite = 0;
        pos_inf = 0;
        neg_inf = 0;
    }

    __device__ __forceinline__ void add(T value) {
        if (isfinite(value)) {
            const S y = static_cast<S>(value) - err_add;
            const S next = sum + y;
            err_add = (next - sum) - y;
            sum = next;
        } else {
            non_finite += 1;
            pos_inf += value > T(0) ? 1 : 0;
            neg_inf += value < T(0) ? 1 : 0;
        }
    }

    __device__ __forceinline__ void take(T value) {
        if (isfinite(value)) {
            const S y = static_cast<S>(T(0) - value) - err_sub;
            const S next = sum + y;
            err_sub = (next - sum) - y;
            sum = next;
        } else {
            non_finite -= 1;
            pos_inf -= value > T(0) ? 1 : 0;
            neg_inf -= value < T(0) ? 1 : 0;
        }
    }

    __device__ __forceinline__ T value() const {
        if (non_finite == 0) return static_cast<T>(sum);
        if (non_finite == pos_inf) return T(__builtin_huge_val());
        if (non_finite == neg_inf) return T(-__builtin_huge_val());
        return quiet_nan<T>();
    }
};

// Polars' window sum of integers, as 64-bit words wrapping around (the
// caller wraps the sums to the result's type).
struct WordWindowSum {
    u64 sum;
    __device__ __forceinline__ void reset() { sum = 0; }
    __device__ __forceinline__ void add(u64 value) { sum += value; }
    __device__ __forceinline__ void take(u64 value) { sum -= value; }
    __device__ __forceinline__ u64 value() const { return sum; }
};

// Rolling sums (or means, `mean`: the sum as T over the count of valid
// values, in T) of each group, one thread per group walking its rows in
// order as Polars' window does: each window's leaving values taken away,
// then its entering values added, so that every sum is Polars' to the
// bit. A row is valid where its window holds at least `min_periods` valid
// values (and, for a mean, one).
template <typename T, typename Sum>
__device__ __forceinline__ void window_sums(const T* values, const u32* validity, const i64* rows,
                                            const i64* starts, u64 n_rows, u64 n_groups,
                                            u64 window, u64 min_periods, u32 center,
                                            const i64* bounds, u32 listed, u32 mean, T* out,
                                            u32* out_validity) {
    for (u64 g = global_index(); g < n_groups; g += global_stride()) {
        const u64 first = static_cast<u64>(starts[g]);
        const u64 len = group_end(starts, g, n_groups, n_rows) - first;
        // Where the group's rows begin in `rows`.
        const u64 base = listed != 0 ? 0 : first;
        Sum state;
        state.reset();
        u64 start = 0, end = 0, nulls = 0;
        for (u64 i = 0; i < len; ++i) {
            u64 next_start, next_end;
            if (!window_at(bounds, first, i, len, window, center, min_periods, &next_start,
                           &next_end)) {
                continue;
            }
            if (next_start >= end) {
                state.reset();
                nulls = 0;
                start = next_start;
                end = next_start;
            }
            for (u64 p = start; p < next_start; ++p) {
                const u64 row = static_cast<u64>(rows[base + p]);
                if (is_valid(validity, row)) {
                    state.take(values[row]);
                } else {
                    nulls -= 1;
                }
            }
            for (u64 p = end; p < next_end; ++p) {
                const u64 row = static_cast<u64>(rows[base + p]);
                if (is_valid(validity, row)) {
                    state.add(values[row]);
                } else {
                    nulls += 1;
                }
            }
            start = next_start;
            end = next_end;
            const u64 count = end - start - nulls;
            const u64 row = result_at(rows, first + i, listed);
            T result = state.value();
            if (mean != 0) result = count == 0 ? T(0) : result / static_cast<T>(count);
            out[row] = result;
            if (count >= min_periods && (mean == 0 || count > 0)) set_valid(out_validity, row);
        }
    }
}

#define WINDOW_SUMS(T, SUM, suffix)                                                           \
    extern "C" __global__ void window_sums_##suffix(                                          \
        const T* values, const u32* validity, const i64* rows, const i64* starts, u64 n_rows, \
        u64 n_groups, u64 window, u64 min_periods, u32 center, const i64* bounds, u32 listed, \
        u32 mean, T* out, u32* out_validity) {                                                \
        window_sums<T, SUM>(values, validity, rows, starts, n_rows, n_groups, window,         \
                            min_periods, center, bounds, listed, mean, out, out_validity);    \
    }                                                                                         \
    EMU_KERNEL(window_sums_##suffix)

typedef FloatWindowSum<double, double> SumOfF64;
typedef FloatWindowSum<float, float> SumOfF32;
typedef FloatWindowSum<float, double> SumOfF32InF64;

// f32 sums in f32 (rolling_sum), in f64 for means (rolling_mean).
WINDOW_SUMS(double, SumOfF64, f64)
WINDOW_SUMS(float, SumOfF32, f32)
WINDOW_SUMS(float, SumOfF32InF64, f32_in_f64)
WINDOW_SUMS(u64, WordWindowSum, u64)

// Whether `a` is strictly better than `b` for a rolling minimum (or
// maximum), as Polars' windows compare them: words of `kind` 0 (i64), 1
// (u64) or 2 (f64); NaN better than any number (it propagates), both zeros
// alike.
__device__ __forceinline__ bool better(u64 a, u64 b, u32 kind, u32 minimum) {
    if (kind == 2) {
        const double x = __longlong_as_double(static_cast<i64>(a));
        const double y = __longlong_as_double(static_cast<i64>(b));
        if (x != x) return y == y;
        if (y != y) return false;
        return minimum != 0 ? x < y : x > y;
    }
    if (kind == 0) {
        const i64 x = static_cast<i64>(a), y = static_cast<i64>(b);
        return minimum != 0 ? x < y : x > y;
    }
    return minimum != 0 ? a < b : a > b;
}

// Rolling minima (or maxima) as rows to gather: for the row at every
// position, the row of the best valid value of its window (the earliest
// of equals), or -1 where the window holds fewer than `min_periods` valid
// values or none. One thread per position, reading its window.
extern "C" __global__ void window_extremes(const u64* words, const u32* validity, u32 kind,
                                           u32 minimum, const i64* rows, const i64* starts,
                                           u64 n_rows, u64 n_groups, u64 window, u64 min_periods,
                                           u32 center, const i64* bounds, u32 listed, i64* out) {
    for (u64 p = global_index(); p < n_rows; p += global_stride()) {
        const u64 g = listed != 0 ? 0 : last_at_or_before(starts, n_groups, static_cast<i64>(p));
        const u64 first = listed != 0 ? 0 : static_cast<u64>(starts[g]);
        const u64 len = group_end(starts, g, n_groups, n_rows) - first;
        u64 start, end;
        if (!window_at(bounds, first, p - first, len, window, center, min_periods, &start,
                       &end)) {
            out[result_at(rows, p, listed)] = -1;
            continue;
        }
        u64 count = 0;
        i64 best = -1;
        for (u64 q = start; q < end; ++q) {
            const i64 row = rows[first + q];
            if (!is_valid(validity, static_cast<u64>(row))) continue;
            count += 1;
            if (best < 0 || better(words[row], words[best], kind, minimum)) best = row;
        }
        out[result_at(rows, p, listed)] = count >= min_periods ? best : -1;
    }
}
EMU_KERNEL(window_extremes)

// Whether float `a` at position `pa` ranks before `b` at `pb` in a rolling
// quantile's window: Polars' total order (NaN after every number, both
// zeros alike), equal values by position.
template <typename T>
__device__ __forceinline__ bool ranks_before(T a, u64 pa, T b, u64 pb) {
    const bool a_nan = a != a, b_nan = b != b;
    if (a_nan != b_nan) return b_nan;
    if (!a_nan && a != b) return a < b;
    return pa < pb;
}

// Polars' rolling_quantile (rolling_median) of floats: for the row at every
// position, the valid values of its window ranked (see ranks_before), and
// of `count` of them the value at the place `method` finds for `q` as
// Polars' rolling quantile does ((count - 1) q, rounded, floored or ceiled;
// Linear and Midpoint combine the values at its floor and ceiling in T);
// null where the window holds fewer than `min_periods` valid values, or
// none. One thread per position, ranking each valid value of its window
// against the others (time quadratic in the window's size).
template <typename T>
__device__ void window_quantiles(const T* values, const u32* validity, const i64* rows,
                                 const i64* starts, u64 n_rows, u64 n_groups, u64 window,
                                 u64 min_periods, u32 center, const i64* bounds, u32 listed,
                                 double q, u32 method, T* out, u32* out_validity) {
    for (u64 p = global_index(); p < n_rows; p += global_stride()) {
        const u64 g = listed != 0 ? 0 : last_at_or_before(starts, n_groups, static_cast<i64>(p));
        const u64 first = listed != 0 ? 0 : static_cast<u64>(starts[g]);
        const u64 len = group_end(starts, g, n_groups, n_rows) - first;
        const u64 row = result_at(rows, p, listed);
        u64 start, end;
        if (!window_at(bounds, first, p - first, len, window, center, min_periods, &start,
                       &end)) {
            continue;
        }
        u64 count = 0;
        for (u64 i = start; i < end; ++i) {
            if (is_valid(validity, static_cast<u64>(rows[first + i]))) count += 1;
        }
        if (count == 0 || count < min_periods) continue;
        const double at = (static_cast<double>(count) - 1.0) * q;
        u64 idx, top;
        if (method == NEAREST) {
            idx = top = static_cast<u64>(round(at));
        } else if (method == EQUIPROBABLE) {
            const double place = ceil(static_cast<double>(count) * q) - 1.0;
            idx = top = place > 0.0 ? static_cast<u64>(place) : 0;
        } else if (method == HIGHER) {
            idx = top = static_cast<u64>(ceil(at));
        } else {
            idx = static_cast<u64>(floor(at));
            top = method == LOWER ? idx : static_cast<u64>(ceil(at));
        }
        if (idx > count - 1) idx = count - 1;
        if (top > count - 1) top = count - 1;
        T lower = T(0), upper = T(0);
        for (u64 i = start; i < end; ++i) {
            const u64 r = static_cast<u64>(rows[first + i]);
            if (!is_valid(validity, r)) continue;
            u64 rank = 0;
            for (u64 j = start; j < end; ++j) {
                const u64 s = static_cast<u64>(rows[first + j]);
                if (is_valid(validity, s) && ranks_before(values[s], j, values[r], i)) rank += 1;
            }
            if (rank == idx) lower = values[r];
            if (rank == top) upper = values[r];
        }
        T result = lower;
        if (top != idx && method == MIDPOINT) {
            result = (lower + upper) / static_cast<T>(2);
        } else if (top != idx && method == LINEAR) {
            const T proportion = static_cast<T>(at - static_cast<double>(idx));
            result = proportion * (upper - lower) + lower;
        }
        out[row] = result;
        set_valid(out_validity, row);
    }
}

#define WINDOW_QUANTILES(T, suffix)                                                                \
    extern "C" __global__ void window_quantiles_##suffix(                                          \
        const T* values, const u32* validity, const i64* rows, const i64* starts, u64 n_rows,     \
        u64 n_groups, u64 window, u64 min_periods, u32 center, const i64* bounds, u32 listed,     \
        double q, u32 method, T* out, u32* out_validity) {                                        \
        window_quantiles<T>(values, validity, rows, starts, n_rows, n_groups, window,             \
                            min_periods, center, bounds, listed, q, method, out, out_validity);   \
    }                                                                                             \
    EMU_KERNEL(window_quantiles_##suffix)

WINDOW_QUANTILES(double, f64)
WINDOW_QUANTILES(float, f32)

// The first (or, `last`, the last) row of each position's window, as rows
// to gather: -1 where the window is empty or skipped (see window_at). One
// thread per position. (Polars' first and last of a rolling group-by's
// windows, null values included.)
extern "C" __global__ void window_ends(const i64* rows, const i64* starts, u64 n_rows,
                                       u64 n_groups, u64 window, u64 min_periods, u32 center,
                                       const i64* bounds, u32 listed, u32 last, i64* out) {
    for (u64 p = global_index(); p < n_rows; p += global_stride()) {
        const u64 g = listed != 0 ? 0 : last_at_or_before(starts, n_groups, static_cast<i64>(p));
        const u64 first = listed != 0 ? 0 : static_cast<u64>(starts[g]);
        const u64 len = group_end(starts, g, n_groups, n_rows) - first;
        u64 start, end;
        const bool some =
            window_at(bounds, first, p - first, len, window, center, min_periods, &start, &end) &&
            end > start;
        out[result_at(rows, p, listed)] = !some ? -1 : rows[first + (last != 0 ? end - 1 : start)];
    }
}
EMU_KERNEL(window_ends)

// Polars' moments of a window (its VarState): weight, mean and the sum of
// squared deviations, updated by Welford's step and merged by Chan's.
struct Moments {
    double weight, mean, dp;
};

__device__ __forceinline__ void insert_moment(Moments* s, double x) {
    const double weight = s->weight + 1.0;
    const double delta = x - s->mean;
    const double mean = s->mean + delta / weight;
    s->dp += (x - mean) * delta;
    s->weight = weight;
    s->mean = mean;
    if (s->weight == 0.0) {
        s->mean = 0.0;
        s->dp = 0.0;
    }
}

__device__ __forceinline__ void combine_moments(Moments* s, const Moments* o) {
    if (o->weight == 0.0) return;
    const double weight = s->weight + o->weight;
    const double fraction = o->weight / weight;
    const double delta = o->mean - s->mean;
    const double mean = s->mean + delta * fraction;
    s->dp += o->dp + o->weight * (o->mean - mean) * delta;
    s->weight = weight;
    s->mean = mean;
    if (s->weight == 0.0) {
        s->mean = 0.0;
        s->dp = 0.0;
    }
}

// Rolling variances (or standard deviations, `root`: the variance as T,
// its square root in T) with `ddof`, one thread per group walking its
// windows as Polars' moment window does: a queue of two stacks, values
// entering pushed on the back (their moments kept as one), the front a
// stack of the moments of its values from each to the newest, refilled
// from the back when a value leaves and it is empty; a window's moments
// the back's merged with the front's top. Infinities and NaN enter as 0
// and make the result NaN while in the window. Each group's stacks live
// in `front` (three doubles per row) and `back` (one) at the group's
// positions. A row is valid where its window holds at least
// `min_periods` valid values and more than `ddof`.
template <typename T>
__device__ __forceinline__ void window_variances(const T* values, const u32* validity,
                                                 const i64* rows, const i64* starts, u64 n_rows,
                                                 u64 n_groups, u64 window, u64 min_periods,
                                                 u32 center, const i64* bounds, u32 listed,
                                                 u32 ddof, u32 root, double* front,
                                                 double* back, T* out, u32* out_validity) {
    for (u64 g = global_index(); g < n_groups; g += global_stride()) {
        const u64 first = static_cast<u64>(starts[g]);
        const u64 len = group_end(starts, g, n_groups, n_rows) - first;
        if (len == 0) continue;
        // Where the group's rows begin in `rows`, and its stacks (listed:
        // at its first window's first row, the runs' rows being apart).
        const u64 base = listed != 0 ? 0 : first;
        const u64 scratch = listed != 0 ? static_cast<u64>(bounds[2 * first]) : first;
        Moments* fronts = reinterpret_cast<Moments*>(front) + scratch;
        double* backs = back + scratch;
        Moments agg_back = {0.0, 0.0, 0.0};
        u64 front_len = 0, back_len = 0, non_finite = 0;
        u64 start = 0, end = 0, nulls = 0;
        for (u64 i = 0; i < len; ++i) {
            u64 next_start, next_end;
            if (!window_at(bounds, first, i, len, window, center, min_periods, &next_start,
                           &next_end)) {
                continue;
            }
            if (next_start >= end) {
                agg_back = Moments{0.0, 0.0, 0.0};
                front_len = 0;
                back_len = 0;
                non_finite = 0;
                nulls = 0;
                start = next_start;
                end = next_start;
            }
            for (u64 p = start; p < next_start; ++p) {
                const u64 row = static_cast<u64>(rows[base + p]);
                if (!is_valid(validity, row)) {
                    nulls -= 1;
                    continue;
                }
                if (front_len == 0) {
                    Moments agg = {0.0, 0.0, 0.0};
                    while (back_len > 0) {
                        back_len -= 1;
                        insert_moment(&agg, backs[back_len]);
                        fronts[front_len] = agg;
                        front_len += 1;
                    }
                    agg_back = Moments{0.0, 0.0, 0.0};
                }
                front_len -= 1;
                if (!isfinite(values[row])) non_finite -= 1;
            }
            for (u64 p = end; p < next_end; ++p) {
                const u64 row = static_cast<u64>(rows[base + p]);
                if (!is_valid(validity, row)) {
                    nulls += 1;
                    continue;
                }
                const T value = values[row];
                double x = 0.0;
                if (isfinite(value)) {
                    x = static_cast<double>(value);
                } else {
                    non_finite += 1;
                }
                backs[back_len] = x;
                back_len += 1;
                insert_moment(&agg_back, x);
            }
            start = next_start;
            end = next_end;
            Moments state = agg_back;
            if (front_len > 0) combine_moments(&state, &fronts[front_len - 1]);
            const u64 row = result_at(rows, first + i, listed);
            const double d = static_cast<double>(ddof);
            if (state.weight <= d) {
                out[row] = T(0);
                continue;
            }
            double variance = state.dp / (state.weight - d);
            if (variance < 0.0) variance = 0.0;
            T result = non_finite > 0 ? quiet_nan<T>() : static_cast<T>(variance);
            if (root != 0) result = sqrt(result);
            out[row] = result;
            if (end - start - nulls >= min_periods) set_valid(out_validity, row);
        }
    }
}

#define WINDOW_VARIANCES(T, suffix)                                                            \
    extern "C" __global__ void window_variances_##suffix(                                      \
        const T* values, const u32* validity, const i64* rows, const i64* starts, u64 n_rows,  \
        u64 n_groups, u64 window, u64 min_periods, u32 center, const i64* bounds, u32 listed,  \
        u32 ddof, u32 root, double* front, double* back, T* out, u32* out_validity) {          \
        window_variances<T>(values, validity, rows, starts, n_rows, n_groups, window,          \
                            min_periods, center, bounds, listed, ddof, root, front, back, out, \
                            out_validity);                                                     \
    }                                                                                          \
    EMU_KERNEL(window_variances_##suffix)

WINDOW_VARIANCES(double, f64)
WINDOW_VARIANCES(float, f32)

// Polars' ewm_mean of each group, one thread per group walking its rows in
// order with Polars' recurrence in T: the first valid value starts the
// mean; then each row decays the weight by 1 - alpha (a null row too,
// unless `ignore_nulls`), and each valid value moves the mean towards it
// by its share of the weight (1, or alpha without `adjust`). A row is
// valid where its value is and at least `min_periods` (at least 1) values
// came so far.
template <typename T>
__device__ __forceinline__ void ewm_means(const T* values, const u32* validity, const i64* rows,
                                          const i64* starts, u64 n_rows, u64 n_groups,
                                          double alpha_f64, u32 adjust, u64 min_periods,
                                          u32 ignore_nulls, T* out, u32* out_validity) {
    const T one = T(1);
    const T alpha = static_cast<T>(alpha_f64);
    const T new_value_weight = adjust != 0 ? one : alpha;
    const u64 least = min_periods > 0 ? min_periods : 1;
    for (u64 g = global_index(); g < n_groups; g += global_stride()) {
        const u64 first = static_cast<u64>(starts[g]);
        const u64 end = group_end(starts, g, n_groups, n_rows);
        T mean = T(0), weight = T(0);
        u64 count = 0;
        for (u64 p = first; p < end; ++p) {
            const u64 row = static_cast<u64>(rows[p]);
            const bool valid = is_valid(validity, row);
            if (count == 0 && valid) {
                count = 1;
                mean = values[row];
                weight = one;
            } else {
                if (valid || ignore_nulls == 0) weight = weight * (one - alpha);
                if (valid) {
                    const T new_weight = weight + new_value_weight;
                    mean = mean + (values[row] - mean) * (new_value_weight / new_weight);
                    weight = adjust != 0 ? weight + one : one;
                    count += 1;
                }
            }
            out[row] = mean;
            if (valid && count >= least) set_valid(out_validity, row);
        }
    }
}

#define EWM_MEANS(T, suffix)                                                                   \
    extern "C" __global__ void ewm_means_##suffix(                                             \
        const T* values, const u32* validity, const i64* rows, const i64* starts, u64 n_rows,  \
        u64 n_groups, double alpha, u32 adjust, u64 min_periods, u32 ignore_nulls, T* out,     \
        u32* out_validity) {                                                                   \
        ewm_means<T>(values, validity, rows, starts, n_rows, n_groups, alpha, adjust,          \
                     min_periods, ignore_nulls, out, out_validity);                            \
    }                                                                                          \
    EMU_KERNEL(ewm_means_##suffix)

EWM_MEANS(double, f64)
EWM_MEANS(float, f32)

// Polars' ewm_var (or ewm_std, `root`: the variance's square root in T) of
// each group, one thread per group with Polars' recurrence in T (its
// weighted covariance of the values with themselves): weights, their sum
// and the sum of their squares decay by 1 - alpha at each valid row (each
// row unless `ignore_nulls`); each valid value moves the mean and the
// covariance; unless `bias`, the covariance is scaled by
// sum^2 / (sum^2 - sum of squares), null where that is not positive.
template <typename T>
__device__ __forceinline__ void ewm_spreads(const T* values, const u32* validity, const i64* rows,
                                            const i64* starts, u64 n_rows, u64 n_groups,
                                            double alpha_f64, u32 adjust, u32 bias,
                                            u64 min_periods, u32 ignore_nulls, u32 root, T* out,
                                            u32* out_validity) {
    const T one = T(1);
    const T alpha = static_cast<T>(alpha_f64);
    const T other_weight = adjust != 0 ? one : alpha;
    const u64 least = min_periods > 0 ? min_periods : 1;
    for (u64 g = global_index(); g < n_groups; g += global_stride()) {
        const u64 first = static_cast<u64>(starts[g]);
        const u64 end = group_end(starts, g, n_groups, n_rows);
        T weight = T(0), mean_x = T(0), mean_y = T(0), cov = T(0);
        T weight_sum = T(0), weight_square_sum = T(0);
        u64 count = 0;
        for (u64 p = first; p < end; ++p) {
            const u64 row = static_cast<u64>(rows[p]);
            const bool valid = is_valid(validity, row);
            if (count == 0 && valid) {
                count = 1;
                mean_x = values[row];
                mean_y = values[row];
                weight = one;
                weight_sum = one;
                weight_square_sum = one;
            } else {
                if (valid || ignore_nulls == 0) {
                    weight_sum = weight_sum * (one - alpha);
                    weight_square_sum = weight_square_sum * ((one - alpha) * (one - alpha));
                    weight = weight * (one - alpha);
                }
                if (valid) {
                    count += 1;
                    const T x = values[row], y = values[row];
                    const T new_weight = weight + other_weight;
                    const T fraction = other_weight / new_weight;
                    const T delta_x = x - mean_x;
                    const T delta_y = y - mean_y;
                    const T new_mean_x = mean_x + delta_x * fraction;
                    const T new_mean_y = mean_y + delta_y * fraction;
                    cov = ((weight * (cov + (mean_x - new_mean_x) * (mean_y - new_mean_y))) +
                           other_weight * (x - new_mean_x) * (y - new_mean_y)) /
                          new_weight;
                    weight = new_weight;
                    mean_x = new_mean_x;
                    mean_y = new_mean_y;
                    weight_sum = weight_sum + other_weight;
                    weight_square_sum = weight_square_sum + other_weight * other_weight;
                    if (adjust == 0) {
                        weight_sum = weight_sum / new_weight;
                        weight_square_sum = weight_square_sum / (new_weight * new_weight);
                        weight = one;
                    }
                }
            }
            bool result_valid = valid && count >= least;
            T result = cov;
            if (result_valid && bias == 0) {
                const T numerator = weight_sum * weight_sum;
                const T denominator = numerator - weight_square_sum;
                if (denominator > T(0)) {
                    result = (numerator / denominator) * cov;
                } else {
                    result_valid = false;
                }
            }
            if (root != 0) result = sqrt(result);
            out[row] = result;
            if (result_valid) set_valid(out_validity, row);
        }
    }
}

#define EWM_SPREADS(T, suffix)                                                                 \
    extern "C" __global__ void ewm_spreads_##suffix(                                           \
        const T* values, const u32* validity, const i64* rows, const i64* starts, u64 n_rows,  \
        u64 n_groups, double alpha, u32 adjust, u32 bias, u64 min_periods, u32 ignore_nulls,   \
        u32 root, T* out, u32* out_validity) {                                                 \
        ewm_spreads<T>(values, validity, rows, starts, n_rows, n_groups, alpha, adjust, bias,  \
                       min_periods, ignore_nulls, root, out, out_validity);                    \
    }                                                                                          \
    EMU_KERNEL(ewm_spreads_##suffix)

EWM_SPREADS(double, f64)
EWM_SPREADS(float, f32)
