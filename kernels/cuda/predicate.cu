// Predicates on the device: comparisons to bitmaps, and Kleene logic on (bits, validity) pairs.
//
// Booleans are bitmaps (bit i of 32-bit word i / 32) with an optional
// validity bitmap (null pointer: all valid). Comparisons follow Polars: a
// null operand gives null; floats compare in total order (NaN equals NaN and
// is greater than every number; -0.0 equals 0.0). Each warp writes whole
// words, so launches use block sizes that are multiples of 32.
#include "kernel_common.cuh"
#include "pattern.cuh"

enum CompareOp : u32 { EQ = 0, NE = 1, LT = 2, LE = 3, GT = 4, GE = 5 };

// -1, 0 or 1 in Polars' order (total order for floats).
template <typename T>
__device__ __forceinline__ int order(T a, T b) {
    return a < b ? -1 : (b < a ? 1 : 0);
}
template <>
__device__ __forceinline__ int order<double>(double a, double b) {
    bool a_nan = a != a, b_nan = b != b;
    if (a_nan || b_nan) return a_nan == b_nan ? 0 : (a_nan ? 1 : -1);
    return a < b ? -1 : (b < a ? 1 : 0);
}

__device__ __forceinline__ bool holds(u32 op, int c) {
    switch (op) {
        case EQ: return c == 0;
        case NE: return c != 0;
        case LT: return c < 0;
        case LE: return c <= 0;
        case GT: return c > 0;
        default: return c >= 0;
    }
}

// Row i of a tested against row i of b (or row 0 when `b_scalar`) by
// `test(i, j)`: into bits and validity (null where either is null).
template <typename Test>
__device__ __forceinline__ void test_row_pairs(const u32* a_valid, const u32* b_valid,
                                               u32 b_scalar, u64 n, u32* out_bits,
                                               u32* out_valid, Test test) {
    unsigned int lane = threadIdx.x % 32;
    for (u64 i = global_index(); i - lane < n; i += global_stride()) {
        bool value = false, valid = false;
        if (i < n) {
            u64 j = b_scalar != 0 ? 0 : i;
            valid = is_valid(a_valid, i) && is_valid(b_valid, j);
            value = valid && test(i, j);
        }
        store_warp_bits(out_bits, out_valid, i, value, valid);
    }
}

// Row i of a compared with row i of b (or row 0 when `b_scalar`), `order(i,
// j)` giving -1, 0 or 1: into bits and validity (null where either is null).
template <typename Order>
__device__ __forceinline__ void compare_rows(const u32* a_valid, const u32* b_valid, u32 b_scalar,
                                             u64 n, u32 op, u32* out_bits, u32* out_valid,
                                             Order order_of) {
    test_row_pairs(a_valid, b_valid, b_scalar, n, out_bits, out_valid,
                   [&](u64 i, u64 j) { return holds(op, order_of(i, j)); });
}

// a[i] `op` b[i] (or b[0] when `b_scalar`), into bits and validity.
template <typename T>
__device__ __forceinline__ void compare(const T* a, const u32* a_valid, const T* b,
                                        const u32* b_valid, u32 b_scalar, u64 n, u32 op,
                                        u32* out_bits, u32* out_valid) {
    compare_rows(a_valid, b_valid, b_scalar, n, op, out_bits, out_valid,
                 [&](u64 i, u64 j) { return order<T>(a[i], b[j]); });
}

#define COMPARE(T, suffix)                                                                  \
    extern "C" __global__ void compare_##suffix(const T* a, const u32* a_valid, const T* b,  \
                                                const u32* b_valid, u32 b_scalar, u64 n,     \
                                                u32 op, u32* out_bits, u32* out_valid) {     \
        compare<T>(a, a_valid, b, b_valid, b_scalar, n, op, out_bits, out_valid);            \
    }                                                                                        \
    EMU_KERNEL(compare_##suffix)

COMPARE(i32, i32)
COMPARE(i64, i64)
COMPARE(u32, u32)
COMPARE(u64, u64)
COMPARE(double, f64)

__device__ __forceinline__ u32 word_mask(u64 word, u64 n_bits) {
    u64 first = word * 32;
    if (first + 32 <= n_bits) return FULL_MASK;
    u64 bits = n_bits > first ? n_bits - first : 0;
    return bits == 0 ? 0u : (FULL_MASK >> (32 - bits));
}

__device__ __forceinline__ u32 valid_word(const u32* validity, u64 w, u64 n) {
    return validity == nullptr ? word_mask(w, n) : validity[w];
}

// Kleene and: false if either side is a valid false, null if either is null
// otherwise, else true. `op` 0 is and, 1 is or (true wins over null).
extern "C" __global__ void kleene(const u32* a, const u32* a_valid, const u32* b,
                                  const u32* b_valid, u64 n, u32 op, u32* out,
                                  u32* out_valid) {
    u64 words = (n + 31) / 32;
    for (u64 w = global_index(); w < words; w += global_stride()) {
        u32 mask = word_mask(w, n);
        u32 av = valid_word(a_valid, w, n), bv = valid_word(b_valid, w, n);
        u32 at = a[w] & av, bt = b[w] & bv;   // valid trues
        u32 af = ~a[w] & av, bf = ~b[w] & bv; // valid falses
        u32 value, valid;
        if (op == 0) {
            u32 decided_false = af | bf;
            value = at & bt;
            valid = decided_false | (av & bv);
        } else {
            u32 decided_true = at | bt;
            value = decided_true;
            valid = decided_true | (av & bv);
        }
        out[w] = value & valid & mask;
        out_valid[w] = valid & mask;
    }
}
EMU_KERNEL(kleene)

// Not of bits (validity unchanged: not null is null); also is_null from a
// validity bitmap. Bits past n are 0.
extern "C" __global__ void bits_not(const u32* a, u64 n, u32* out) {
    u64 words = (n + 31) / 32;
    for (u64 w = global_index(); w < words; w += global_stride()) {
        out[w] = ~a[w] & word_mask(w, n);
    }
}
EMU_KERNEL(bits_not)

// The rows a filter keeps: predicate true and valid, one byte per row.
extern "C" __global__ void filter_flags(const u32* bits, const u32* validity, u64 n,
                                        unsigned char* flags) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        bool set = (bits[i / 32] >> (i % 32) & 1u) != 0 && is_valid(validity, i);
        flags[i] = set ? 1 : 0;
    }
}
EMU_KERNEL(filter_flags)

enum StringMatch : u32 { EQUALS = 0, STARTS_WITH = 1, ENDS_WITH = 2, CONTAINS = 3 };

__device__ __forceinline__ bool bytes_equal(const unsigned char* a, const unsigned char* b,
                                            u64 len) {
    for (u64 k = 0; k < len; ++k) {
        if (a[k] != b[k]) return false;
    }
    return true;
}

// The first position at or after `from` where `pattern` starts in `text`,
// or `len + 1` when there is none.
__device__ __forceinline__ u64 find_bytes(const unsigned char* text, u64 len, u64 from,
                                          const unsigned char* pattern, u64 pattern_len) {
    for (u64 at = from; at + pattern_len <= len; ++at) {
        if (bytes_equal(text + at, pattern, pattern_len)) return at;
    }
    return len + 1;
}

// Whether `text` (`len` bytes) equals, starts with, ends with, or contains
// `pattern` (`mode`).
__device__ __forceinline__ bool text_matches(const unsigned char* text, u64 len,
                                             const unsigned char* pattern, u64 pattern_len,
                                             u32 mode) {
    switch (mode) {
        case EQUALS:
            return len == pattern_len && bytes_equal(text, pattern, len);
        case STARTS_WITH:
            return len >= pattern_len && bytes_equal(text, pattern, pattern_len);
        case ENDS_WITH:
            return len >= pattern_len && bytes_equal(text + len - pattern_len, pattern, pattern_len);
        default:
            return find_bytes(text, len, 0, pattern, pattern_len) <= len;
    }
}

// Each string (offsets + bytes) against a literal `pattern`: equal, starts
// with, ends with, or contains it. Null strings give null.
extern "C" __global__ void string_match(const i64* offsets, const unsigned char* bytes,
                                        const u32* validity, u64 n,
                                        const unsigned char* pattern, u64 pattern_len, u32 mode,
                                        u32* out_bits, u32* out_valid) {
    unsigned int lane = threadIdx.x % 32;
    for (u64 i = global_index(); i - lane < n; i += global_stride()) {
        bool value = false, valid = false;
        if (i < n) {
            valid = is_valid(validity, i);
            u64 start = static_cast<u64>(offsets[i]);
            u64 len = static_cast<u64>(offsets[i + 1]) - start;
            value = valid && text_matches(bytes + start, len, pattern, pattern_len, mode);
        }
        store_warp_bits(out_bits, out_valid, i, value, valid);
    }
}
EMU_KERNEL(string_match)

// Each string of `a` against the pattern in the same row of `b` (its only
// row when `b_scalar`): as string_match. Null where either is null.
extern "C" __global__ void string_match_rows(const i64* a_offsets, const unsigned char* a_bytes,
                                             const u32* a_valid, const i64* b_offsets,
                                             const unsigned char* b_bytes, const u32* b_valid,
                                             u32 b_scalar, u64 n, u32 mode, u32* out_bits,
                                             u32* out_valid) {
    test_row_pairs(a_valid, b_valid, b_scalar, n, out_bits, out_valid, [&](u64 i, u64 j) {
        u64 a_start = static_cast<u64>(a_offsets[i]);
        u64 b_start = static_cast<u64>(b_offsets[j]);
        u64 a_len = static_cast<u64>(a_offsets[i + 1]) - a_start;
        u64 b_len = static_cast<u64>(b_offsets[j + 1]) - b_start;
        return text_matches(a_bytes + a_start, a_len, b_bytes + b_start, b_len, mode);
    });
}
EMU_KERNEL(string_match_rows)

// Polars' str.find(literal=True) of the pattern in the same row of `b` (its
// only row when `b_scalar`): the byte offset of its first occurrence in the
// string of `a` (Rust's `str::find`: 0 for an empty pattern), one u32 a row
// in `out` (`mode` is unused: the kernels of pairs of strings share their
// arguments). Null where either is null or there is none.
extern "C" __global__ void string_find_rows(const i64* a_offsets, const unsigned char* a_bytes,
                                            const u32* a_valid, const i64* b_offsets,
                                            const unsigned char* b_bytes, const u32* b_valid,
                                            u32 b_scalar, u64 n, u32 mode, u32* out,
                                            u32* out_valid) {
    (void)mode;
    unsigned int lane = threadIdx.x % 32;
    for (u64 i = global_index(); i - lane < n; i += global_stride()) {
        bool valid = false;
        if (i < n) {
            out[i] = 0;
            u64 j = b_scalar ? 0 : i;
            if (is_valid(a_valid, i) && is_valid(b_valid, j)) {
                u64 a_start = static_cast<u64>(a_offsets[i]);
                u64 b_start = static_cast<u64>(b_offsets[j]);
                u64 a_len = static_cast<u64>(a_offsets[i + 1]) - a_start;
                u64 b_len = static_cast<u64>(b_offsets[j + 1]) - b_start;
                u64 at = find_bytes(a_bytes + a_start, a_len, 0, b_bytes + b_start, b_len);
                valid = at <= a_len;
                if (valid) out[i] = static_cast<u32>(at);
            }
        }
        u32 bits = __ballot_sync(FULL_MASK, valid);
        if (lane == 0) out_valid[i / 32] = bits;
    }
}
EMU_KERNEL(string_find_rows)

// Each string against a choice of alternatives, each a sequence of literal
// texts (the regex `t0.*t1.*...|...`): true when for some alternative its
// texts occur in order with no newline between consecutive ones (`.` does
// not match a newline). Text k is `texts[text_offsets[k]..text_offsets[k + 1]]`;
// alternative a holds texts [alternative_ends[a - 1], alternative_ends[a]).
// Null strings give null.
extern "C" __global__ void string_match_sequence(const i64* offsets, const unsigned char* bytes,
                                                 const u32* validity, u64 n,
                                                 const unsigned char* texts,
                                                 const u64* text_offsets,
                                                 const u32* alternative_ends, u32 n_alternatives,
                                                 u32* out_bits, u32* out_valid) {
    unsigned int lane = threadIdx.x % 32;
    for (u64 i = global_index(); i - lane < n; i += global_stride()) {
        bool value = false, valid = false;
        if (i < n) {
            valid = is_valid(validity, i);
            u64 start = static_cast<u64>(offsets[i]);
            u64 len = static_cast<u64>(offsets[i + 1]) - start;
            const unsigned char* text = bytes + start;
            u32 first = 0;
            for (u32 a = 0; valid && !value && a < n_alternatives; first = alternative_ends[a++]) {
                u32 end = alternative_ends[a];
                if (first == end) {  // an empty alternative matches everything
                    value = true;
                    break;
                }
                const unsigned char* head = texts + text_offsets[first];
                u64 head_len = text_offsets[first + 1] - text_offsets[first];
                // Each place the first text occurs anchors a greedy search
                // for the others (the earliest next one is always best).
                for (u64 s0 = find_bytes(text, len, 0, head, head_len); !value && s0 <= len;
                     s0 = find_bytes(text, len, s0 + 1, head, head_len)) {
                    u64 pos = s0 + head_len;
                    bool ok = true, exhausted = false;
                    for (u32 k = first + 1; ok && k < end; ++k) {
                        const unsigned char* pattern = texts + text_offsets[k];
                        u64 pattern_len = text_offsets[k + 1] - text_offsets[k];
                        u64 at = find_bytes(text, len, pos, pattern, pattern_len);
                        if (at > len) {
                            ok = false;
                            exhausted = true;  // later anchors cannot find it either
                            break;
                        }
                        for (u64 b = pos; b < at; ++b) {
                            if (text[b] == '\n') ok = false;
                        }
                        pos = at + pattern_len;
                    }
                    value = ok;
                    if (exhausted) break;
                }
            }
        }
        store_warp_bits(out_bits, out_valid, i, value, valid);
    }
}
EMU_KERNEL(string_match_sequence)

// Each string walked through a DFA (a regular expression compiled on the
// host, see pattern.cuh) from `start`: true when the walk enters a state
// flagged DFA_MATCHED or ends in one flagged DFA_MATCHED_AT_END; a DFA_DEAD
// state ends it false. Null strings give null.
extern "C" __global__ void string_match_dfa(const i64* offsets, const unsigned char* bytes,
                                            const u32* validity, u64 n,
                                            const unsigned char* classes, const u32* transitions,
                                            const unsigned char* flags, u32 stride, u32 start,
                                            u32* out_bits, u32* out_valid) {
    // Each byte's class is read once per byte of text: keep them at hand.
    __shared__ unsigned char byte_class[256];
    for (unsigned int k = threadIdx.x; k < 256; k += blockDim.x) byte_class[k] = classes[k];
    __syncthreads();
    const Dfa dfa{byte_class, transitions, flags, nullptr, stride};
    test_row_pairs(validity, nullptr, 1, n, out_bits, out_valid, [&](u64 i, u64) {
        u32 state = start;
        for (i64 b = offsets[i]; b < offsets[i + 1]; ++b) {
            state = dfa.next(state, bytes[b]);
            unsigned char flag = flags[state];
            if (flag & DFA_MATCHED) return true;
            if (flag & DFA_DEAD) return false;
        }
        return (flags[state] & DFA_MATCHED_AT_END) != 0;
    });
}
EMU_KERNEL(string_match_dfa)

// Strings compared row by row as Polars compares them (bytes, then length:
// Rust's str order): a[i] `op` b[i] (or b[0] when `b_scalar`), into bits and
// validity; a null operand gives null.
extern "C" __global__ void string_compare(const i64* a_offsets, const unsigned char* a_bytes,
                                          const u32* a_valid, const i64* b_offsets,
                                          const unsigned char* b_bytes, const u32* b_valid,
                                          u32 b_scalar, u64 n, u32 op, u32* out_bits,
                                          u32* out_valid) {
    compare_rows(a_valid, b_valid, b_scalar, n, op, out_bits, out_valid, [&](u64 i, u64 j) {
        i64 a_begin = a_offsets[i], a_len = a_offsets[i + 1] - a_begin;
        i64 b_begin = b_offsets[j], b_len = b_offsets[j + 1] - b_begin;
        i64 common = a_len < b_len ? a_len : b_len;
        for (i64 k = 0; k < common; ++k) {
            unsigned char x = a_bytes[a_begin + k], y = b_bytes[b_begin + k];
            if (x != y) return x < y ? -1 : 1;
        }
        return a_len < b_len ? -1 : (b_len < a_len ? 1 : 0);
    });
}
EMU_KERNEL(string_compare)
