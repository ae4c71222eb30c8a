// As-of joins: for each left key, the right row Polars' join_asof matches (of its group, by groups), by binary searches of the sorted right keys.
#include "kernel_common.cuh"

// The strategies, as ops::AsofStrategy numbers them.
enum AsofStrategy : u32 { ASOF_BACKWARD = 0, ASOF_FORWARD = 1, ASOF_NEAREST = 2 };

// How the search reads keys of type T: integers by their order, their
// distances as u64; floats by their total order (NaN above every number,
// NaNs alike, -0.0 equal to 0.0: Polars' order of sorted keys), their
// distances in their own type, as Polars' `abs_diff` measures them (NaN
// where one is NaN), a tolerance given as the bits of an f64.
template <typename T>
struct AsofKeys {
    typedef u64 Distance;
    __device__ __forceinline__ static bool less(T a, T b) { return a < b; }
    __device__ __forceinline__ static bool is_nan(T) { return false; }
    __device__ __forceinline__ static u64 distance(T a, T b) {
        return a >= b ? static_cast<u64>(a) - static_cast<u64>(b)
                      : static_cast<u64>(b) - static_cast<u64>(a);
    }
    __device__ __forceinline__ static u64 tolerance(u64 given) { return given; }
};

template <typename F>
struct AsofFloatKeys {
    typedef F Distance;
    __device__ __forceinline__ static bool less(F a, F b) { return a == a && (b != b || a < b); }
    __device__ __forceinline__ static bool is_nan(F a) { return a != a; }
    __device__ __forceinline__ static F distance(F a, F b) { return a > b ? a - b : b - a; }
    __device__ __forceinline__ static F tolerance(u64 given) {
        return static_cast<F>(__longlong_as_double(static_cast<long long>(given)));
    }
};
template <>
struct AsofKeys<float> : AsofFloatKeys<float> {};
template <>
struct AsofKeys<double> : AsofFloatKeys<double> {};

// The first position in [low, high) whose key is not below `key` (above
// it too, `past_equal`): keys ascending there.
template <typename T>
__device__ __forceinline__ u64 first_from(const T* keys, u64 low, u64 high, T key,
                                          bool past_equal) {
    while (low < high) {
        const u64 middle = low + (high - low) / 2;
        const T at = keys[middle];
        const bool before =
            past_equal ? !AsofKeys<T>::less(key, at) : AsofKeys<T>::less(at, key);
        if (before) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    return low;
}

// The first NaN in [low, high) (`high` where none): keys ascending there.
template <typename T>
__device__ __forceinline__ u64 first_nan(const T* keys, u64 low, u64 high) {
    while (low < high) {
        const u64 middle = low + (high - low) / 2;
        if (!AsofKeys<T>::is_nan(keys[middle])) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    return low;
}

// The first position in [low, high) whose validity bit is `valid`, the
// bits there one run of the other value then one of `valid`.
__device__ __forceinline__ u64 first_validity(const u32* validity, u64 low, u64 high, bool valid) {
    while (low < high) {
        const u64 middle = low + (high - low) / 2;
        if (is_valid(validity, middle) != valid) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    return low;
}

// For every left row, the right row Polars' join_asof matches (-1 where
// none does: a null left key, no right row found, or one farther than
// `tolerance` where `has_tolerance`), as Polars' scans find it over keys in
// ascending order, within the left row's group where there are groups
// (`left_groups` not null: Polars' `by`; -1 a null group, which matches
// nothing). The right side is given in the order of its groups
// (`right_groups` ascending, and `right_rows` the right row at each
// position; without groups the right rows themselves), each group's keys
// ascending with their nulls in one run at an end; the left keys of a group
// ascending apart from nulls (the caller checks both).
// Backward: the last right row whose key is at most the left key (below
// it, without `allow_eq`); forward: the first at least it (above it), both
// by the keys' total order. Nearest follows Polars' scan, whose `>`, `>=`
// and `==` no NaN satisfies: the last row of the left key (`allow_eq`; but
// where no number is above it and NaNs or nulls end the group's right
// keys, which the scan passes by), else the nearer of the last row below
// the left key and the last row of the first number above it, the one
// above where both are as near; with no number above, the last row below
// the left key where an equal one stops the scan, else the group's last
// key (a NaN where there are); for a NaN left key, the group's last key.
template <typename T>
__device__ __forceinline__ void asof_search(const T* left, const u32* left_validity, u64 n_left,
                                            const i64* left_groups, const T* right,
                                            const u32* right_validity, const i64* right_groups,
                                            const i64* right_rows, u64 n_right, u32 strategy,
                                            u32 allow_eq, u32 has_tolerance, u64 tolerance_given,
                                            i64* out) {
    typedef AsofKeys<T> K;
    const bool equal = allow_eq != 0;
    const typename K::Distance tolerance = K::tolerance(tolerance_given);
    for (u64 i = global_index(); i < n_left; i += global_stride()) {
        i64 found = -1;
        // The left row's group of right rows.
        u64 first = 0, last = n_right;
        if (left_groups != nullptr) {
            const i64 group = left_groups[i];
            first = group < 0 ? n_right : first_from<i64>(right_groups, 0, n_right, group, false);
            last = group < 0 ? n_right : first_from<i64>(right_groups, first, n_right, group, true);
        }
        // Its rows of keys: after a run of nulls at its start, or before one
        // at its end.
        u64 low = first, high = last;
        if (low < high && !is_valid(right_validity, low)) {
            low = first_validity(right_validity, low, high, true);
        } else if (low < high && !is_valid(right_validity, high - 1)) {
            high = first_validity(right_validity, low, high, false);
        }
        if (is_valid(left_validity, i) && low < high) {
            const T key = left[i];
            if (strategy == ASOF_BACKWARD) {
                const u64 past = first_from(right, low, high, key, equal);
                found = past > low ? static_cast<i64>(past - 1) : -1;
            } else if (strategy == ASOF_FORWARD) {
                const u64 at = first_from(right, low, high, key, !equal);
                found = at < high ? static_cast<i64>(at) : -1;
            } else if (K::is_nan(key)) {
                found = static_cast<i64>(high - 1);
            } else {
                const u64 numbers_end = first_nan(right, low, high);
                const u64 below_end = first_from(right, low, numbers_end, key, false);
                const u64 above = first_from(right, below_end, numbers_end, key, true);
                const bool has_above = above < numbers_end;
                const bool has_equal = above > below_end;
                const bool has_below = below_end > low;
                // (Polars finds an equal key by the row before the first
                // row past it: with no number above the left key, the
                // group's last row, a NaN or a null where they end it.)
                const bool seen_equal = has_above || (numbers_end == high && high == last);
                if (equal && has_equal && seen_equal) {
                    found = static_cast<i64>(above - 1);
                } else if (has_above) {
                    // The last row of the first number above.
                    const u64 run_end = first_from(right, above, high, right[above], true);
                    const bool nearer_above =
                        !has_below ||
                        K::distance(key, right[above]) <= K::distance(key, right[below_end - 1]);
                    found = nearer_above ? static_cast<i64>(run_end - 1)
                                         : static_cast<i64>(below_end - 1);
                } else if (has_equal) {
                    found = has_below ? static_cast<i64>(below_end - 1) : -1;
                } else {
                    found = static_cast<i64>(high - 1);
                }
            }
            if (found >= 0 && has_tolerance != 0 &&
                !(K::distance(key, right[found]) <= tolerance)) {
                found = -1;
            }
        }
        out[i] = found >= 0 && right_rows != nullptr ? right_rows[found] : found;
    }
}

#define ASOF(T, suffix)                                                                          \
    extern "C" __global__ void asof_search_##suffix(                                             \
        const T* left, const u32* left_validity, u64 n_left, const i64* left_groups,             \
        const T* right, const u32* right_validity, const i64* right_groups,                      \
        const i64* right_rows, u64 n_right, u32 strategy, u32 allow_eq, u32 has_tolerance,       \
        u64 tolerance, i64* out) {                                                               \
        asof_search<T>(left, left_validity, n_left, left_groups, right, right_validity,          \
                       right_groups, right_rows, n_right, strategy, allow_eq, has_tolerance,     \
                       tolerance, out);                                                          \
    }                                                                                            \
    EMU_KERNEL(asof_search_##suffix)

ASOF(i64, i64)
ASOF(u64, u64)
ASOF(float, f32)
ASOF(double, f64)
