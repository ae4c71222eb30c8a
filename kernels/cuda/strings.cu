// String functions that make strings, and string concatenation.
//
// A new string column is made in three steps: a kernel writes each row's
// source byte range (start and length), an exclusive scan of the lengths
// gives the new offsets, and string_copy_ranges copies the bytes. Strings
// are UTF-8: a byte starts a character unless it is 0b10xxxxxx.
#include "kernel_common.cuh"
#include "decimal.cuh"
#include "calendar.cuh"
#include "parse_date.cuh"
#include "parse_float.cuh"
#include "format_float.cuh"
#include "pattern.cuh"

// Polars' str.slice(offset, length) of the string bytes[begin, end),
// counted in characters: a negative offset counts from the end, and when it
// reaches before the start the length shrinks by the characters missing;
// `length` u64 max means to the end; nothing of the last `drop_last`
// characters is kept (`str.head(-k)`). Gives the byte range [*from, *to).
__device__ __forceinline__ void slice_range(const unsigned char* bytes, i64 begin, i64 end,
                                            i64 offset, u64 length, u64 drop_last, i64* from,
                                            i64* to) {
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
    u64 stop = drop_last < chars ? chars - drop_last : 0;
    if (last > stop) last = stop;
    if (first > last) first = last;
    *from = end;
    *to = end;
    u64 c = 0;
    for (i64 k = begin; k < end; ++k) {
        if (!starts_char(bytes[k])) continue;
        if (c == first) *from = k;
        if (c == last) {
            *to = k;
            break;
        }
        ++c;
    }
}

// Polars' str.slice(offset, length) of each string (see slice_range).
// Writes each row's byte range; a null row gets length 0.
extern "C" __global__ void string_slice_ranges(const i64* offsets, const unsigned char* bytes,
                                               const u32* validity, u64 n, i64 offset,
                                               u64 length, u64 drop_last, i64* starts,
                                               i64* lengths) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        i64 begin = offsets[i], end = offsets[i + 1];
        starts[i] = begin;
        lengths[i] = 0;
        if (!is_valid(validity, i)) continue;
        i64 from, to;
        slice_range(bytes, begin, end, offset, length, drop_last, &from, &to);
        starts[i] = from;
        lengths[i] = to - from;
    }
}
EMU_KERNEL(string_slice_ranges)

// Polars' str.slice (`how` 0), str.head (1) and str.tail (2) by each row's
// `by` (the offset, or the count n) and, for a slice, `by_length` (u64 max:
// to the end): head(n) is slice(0, n), or all but the last -n characters;
// tail(n) the last n (none for 0), or from character -n on. Writes each
// row's byte range and `out_validity`: null where the string or `by` is
// (a null row gets length 0).
extern "C" __global__ void string_slice_rows(const i64* offsets, const unsigned char* bytes,
                                             const u32* validity, u64 n, u32 how, const i64* by,
                                             const u32* by_validity, const u64* by_length,
                                             i64* starts, i64* lengths, u32* out_validity) {
    const u64 ALL = ~0ull;
    unsigned int lane = threadIdx.x % 32;
    for (u64 i = global_index(); i - lane < n; i += global_stride()) {
        bool valid = false;
        if (i < n) {
            i64 begin = offsets[i], end = offsets[i + 1];
            starts[i] = begin;
            lengths[i] = 0;
            valid = is_valid(validity, i) && is_valid(by_validity, i);
            if (valid) {
                i64 b = by[i], offset = 0;
                u64 length = ALL, drop_last = 0;
                // -b as unsigned: exact for every negative i64.
                u64 minus_b = 0ull - static_cast<u64>(b);
                if (how == 0) {
                    offset = b;
                    length = by_length[i];
                } else if (how == 1) {
                    if (b >= 0) {
                        length = static_cast<u64>(b);
                    } else {
                        drop_last = minus_b;
                    }
                } else if (b > 0) {
                    offset = -b;
                } else if (b == 0) {
                    length = 0;
                } else {
                    // From character -b on (past any string's end when -b
                    // is beyond i64).
                    offset = minus_b > 0x7fffffffffffffffull ? 0x7fffffffffffffffll
                                                             : static_cast<i64>(minus_b);
                }
                i64 from, to;
                slice_range(bytes, begin, end, offset, length, drop_last, &from, &to);
                starts[i] = from;
                lengths[i] = to - from;
            }
        }
        u32 bits = __ballot_sync(FULL_MASK, valid);
        if (lane == 0) out_validity[i / 32] = bits;
    }
}
EMU_KERNEL(string_slice_rows)

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

// The code point starting at bytes[k] (valid UTF-8) and its length in bytes.
__device__ __forceinline__ u32 decode_utf8(const unsigned char* bytes, i64 k, u32* length) {
    u32 lead = bytes[k];
    if (lead < 0x80) {
        *length = 1;
        return lead;
    }
    if (lead < 0xE0) {
        *length = 2;
        return ((lead & 0x1Fu) << 6) | (bytes[k + 1] & 0x3Fu);
    }
    if (lead < 0xF0) {
        *length = 3;
        return ((lead & 0x0Fu) << 12) | ((bytes[k + 1] & 0x3Fu) << 6) | (bytes[k + 2] & 0x3Fu);
    }
    *length = 4;
    return ((lead & 0x07u) << 18) | ((bytes[k + 1] & 0x3Fu) << 12) |
           ((bytes[k + 2] & 0x3Fu) << 6) | (bytes[k + 3] & 0x3Fu);
}

// Bytes of code point `c` in UTF-8.
__device__ __forceinline__ u32 utf8_length(u32 c) {
    return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}

// Writes code point `c` as UTF-8 at out; returns its length.
__device__ __forceinline__ u32 encode_utf8(u32 c, unsigned char* out) {
    if (c < 0x80) {
        out[0] = static_cast<unsigned char>(c);
        return 1;
    }
    if (c < 0x800) {
        out[0] = static_cast<unsigned char>(0xC0 | (c >> 6));
        out[1] = static_cast<unsigned char>(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = static_cast<unsigned char>(0xE0 | (c >> 12));
        out[1] = static_cast<unsigned char>(0x80 | ((c >> 6) & 0x3F));
        out[2] = static_cast<unsigned char>(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = static_cast<unsigned char>(0xF0 | (c >> 18));
    out[1] = static_cast<unsigned char>(0x80 | ((c >> 12) & 0x3F));
    out[2] = static_cast<unsigned char>(0x80 | ((c >> 6) & 0x3F));
    out[3] = static_cast<unsigned char>(0x80 | (c & 0x3F));
    return 4;
}

// The first position of the sorted `list` of `count` code points whose
// code point is not below c.
__device__ __forceinline__ u64 lower_bound(const u32* list, u64 count, u32 c) {
    u64 low = 0, high = count;
    while (low < high) {
        u64 middle = low + (high - low) / 2;
        if (list[middle] < c) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    return low;
}

// Whether the sorted `list` of `count` code points holds c.
__device__ __forceinline__ bool listed(const u32* list, u64 count, u32 c) {
    u64 at = lower_bound(list, count, c);
    return at < count && list[at] == c;
}

// Whether the first character in one direction from byte k (backward down
// to byte `floor`, or forward up to byte `end`), skipping the case-ignorable
// ones, is cased (but not case-ignorable); false when there is none.
__device__ __forceinline__ bool cased_beside(const unsigned char* bytes, i64 k, i64 floor,
                                             i64 end, bool backward, const u32* ignorable,
                                             u64 ignorable_count, const u32* cased,
                                             u64 cased_count) {
    while (backward ? k > floor : k < end) {
        if (backward) {
            --k;
            while (k > floor && !starts_char(bytes[k])) --k;
        }
        u32 length;
        u32 c = decode_utf8(bytes, k, &length);
        if (!backward) k += length;
        if (!listed(ignorable, ignorable_count, c)) return listed(cased, cased_count, c);
    }
    return false;
}

// Maps every character of each valid string: ASCII letters to upper case
// (ascii 1) or lower case (ascii 2), other characters through `table` (the
// sorted code points `from`, each with up to three code points in `to`, 0
// ending a shorter mapping; a character not in it stays). Unless `write`,
// writes each row's mapped length in bytes (0 for null) to `lengths`; with
// it, writes the mapped bytes from out_offsets[i] (`out_bytes` is null when
// every mapped string is empty, and then nothing is written).
//
// With a non-empty `cased` list (lower case), a capital sigma (U+03A3) is
// final sigma (U+03C2) where Polars' lower case makes it so: when the first
// character before it that is not case-ignorable is cased, and the first
// after it is not. Polars looks back only as far as the first 16-byte block
// that is not all ASCII (its fast path lower-cases whole ASCII blocks first),
// and so does this kernel.
extern "C" __global__ void string_map_chars(const i64* offsets, const unsigned char* bytes,
                                            const u32* validity, u64 n, u32 ascii,
                                            const u32* from, const u32* to, u64 entries,
                                            const u32* ignorable, u64 ignorable_count,
                                            const u32* cased, u64 cased_count, u32 write,
                                            i64* lengths, const i64* out_offsets,
                                            unsigned char* out_bytes) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        i64 begin = offsets[i], end = offsets[i + 1];
        bool valid = is_valid(validity, i);
        i64 written = 0;
        unsigned char* out = write != 0 ? out_bytes + out_offsets[i] : nullptr;
        // Where Polars' look-back for a final sigma stops.
        i64 floor = begin;
        if (cased_count != 0) {
            while (floor + 16 <= end) {
                bool ascii_block = true;
                for (i64 b = floor; b < floor + 16; ++b) ascii_block &= bytes[b] < 0x80;
                if (!ascii_block) break;
                floor += 16;
            }
        }
        for (i64 k = begin; valid && k < end;) {
            u32 length;
            u32 c = decode_utf8(bytes, k, &length);
            i64 at = k;
            k += length;
            if (c == 0x3A3u && cased_count != 0) {
                bool final_sigma =
                    cased_beside(bytes, at, floor, end, true, ignorable, ignorable_count, cased,
                                 cased_count) &&
                    !cased_beside(bytes, k, floor, end, false, ignorable, ignorable_count, cased,
                                  cased_count);
                c = final_sigma ? 0x3C2u : 0x3C3u;
                written += out != nullptr ? encode_utf8(c, out + written) : utf8_length(c);
                continue;
            }
            if (c < 0x80) {
                if (ascii == 1 && c >= 'a' && c <= 'z') c -= 32;
                if (ascii == 2 && c >= 'A' && c <= 'Z') c += 32;
                if (out != nullptr) out[written] = static_cast<unsigned char>(c);
                written += 1;
                continue;
            }
            u64 low = lower_bound(from, entries, c);
            if (low < entries && from[low] == c) {
                for (u32 j = 0; j < 3; ++j) {
                    u32 mapped = to[3 * low + j];
                    if (mapped == 0) break;
                    written += out != nullptr ? encode_utf8(mapped, out + written)
                                              : utf8_length(mapped);
                }
            } else {
                written += out != nullptr ? encode_utf8(c, out + written) : utf8_length(c);
            }
        }
        if (write == 0) lengths[i] = written;
    }
}
EMU_KERNEL(string_map_chars)

// Whether `c` is white space as Rust's `char::is_whitespace` (Unicode's
// White_Space property), which Polars' strip_chars trims by default.
__device__ __forceinline__ bool is_white_space(u32 c) {
    return c == 0x20 || (c >= 0x09 && c <= 0x0D) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
           c == 0x205F || c == 0x3000;
}

// Polars' str.strip_chars (and _start, _end): each valid row's byte range
// once the characters in `set` (`set_len` code points; white space instead
// when `white_space`) are removed from its start (sides & 1) and its end
// (sides & 2); where `set_offsets` is given, the characters of the row's
// own text (of `set_bytes`, `set_validity`) instead, white space where it
// is null. A null row gets length 0.
extern "C" __global__ void string_strip_ranges(const i64* offsets, const unsigned char* bytes,
                                               const u32* validity, u64 n, const u32* set,
                                               u32 set_len, u32 white_space, u32 sides,
                                               const i64* set_offsets,
                                               const unsigned char* set_bytes,
                                               const u32* set_validity, i64* starts,
                                               i64* lengths) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        i64 begin = offsets[i], end = offsets[i + 1];
        starts[i] = begin;
        lengths[i] = 0;
        if (!is_valid(validity, i)) continue;
        bool by_row = set_offsets != nullptr;
        bool white = by_row ? !is_valid(set_validity, i) : white_space != 0;
        auto strip = [&](u32 c) {
            if (white) return is_white_space(c);
            if (by_row) {
                u32 width;
                for (i64 k = set_offsets[i]; k < set_offsets[i + 1]; k += width) {
                    if (decode_utf8(set_bytes, k, &width) == c) return true;
                }
                return false;
            }
            for (u32 j = 0; j < set_len; ++j) {
                if (set[j] == c) return true;
            }
            return false;
        };
        u32 length;
        if (sides & 1u) {
            while (begin < end && strip(decode_utf8(bytes, begin, &length))) begin += length;
        }
        if (sides & 2u) {
            while (end > begin) {
                i64 last = end - 1;
                while (last > begin && !starts_char(bytes[last])) --last;
                if (!strip(decode_utf8(bytes, last, &length))) break;
                end = last;
            }
        }
        starts[i] = begin;
        lengths[i] = end - begin;
    }
}
EMU_KERNEL(string_strip_ranges)

// Polars' str.replace: the first `limit` (u64 max: all) matches of a
// pattern (a literal `pattern[0..pattern_len)`, not empty, when `classes` is
// null; else the anchored DFA of a regular expression, see pattern.cuh) in
// each valid row, leftmost and not overlapping (matches as `string_matches`
// counts them, empty ones too), replaced by `value`. Unless `write`, writes each row's new
// length in bytes (0 for null) to `lengths`; with it, writes the new bytes
// from out_offsets[i] (`out_bytes` is null when every new string is empty).
extern "C" __global__ void string_replace(const i64* offsets, const unsigned char* bytes,
                                          const u32* validity, u64 n,
                                          const unsigned char* pattern, u64 pattern_len,
                                          const unsigned char* classes, const u32* transitions,
                                          const unsigned char* flags, const u32* starts,
                                          u32 stride, const unsigned char* value, u64 value_len,
                                          u64 limit, u32 write, i64* lengths,
                                          const i64* out_offsets, unsigned char* out_bytes) {
    const Pattern searched{pattern, pattern_len, {classes, transitions, flags, starts, stride}};
    for (u64 i = global_index(); i < n; i += global_stride()) {
        if (!is_valid(validity, i)) {
            if (write == 0) lengths[i] = 0;
            continue;
        }
        i64 begin = offsets[i], end = offsets[i + 1];
        unsigned char* out = write != 0 && out_bytes != nullptr ? out_bytes + out_offsets[i] : nullptr;
        i64 written = 0;
        u64 replaced = 0;
        i64 k = begin, last_end = -1;
        while (k <= end) {
            // Matches begin at character boundaries; an empty match where
            // the last match ended is skipped (as `string_matches` counts).
            bool boundary = k == end || starts_char(bytes[k]);
            i64 match_end = -1;
            if (replaced < limit && boundary) {
                match_end = searched.match_at(bytes, begin, k, end);
                if (match_end == k && k == last_end) match_end = -1;
            }
            if (match_end >= 0) {
                if (out != nullptr) {
                    for (u64 b = 0; b < value_len; ++b) out[written + b] = value[b];
                }
                written += static_cast<i64>(value_len);
                ++replaced;
                last_end = match_end;
                if (match_end > k) {
                    k = match_end;
                    continue;
                }
            }
            if (k == end) break;
            if (out != nullptr) out[written] = bytes[k];
            ++written;
            ++k;
        }
        if (write == 0) lengths[i] = written;
    }
}
EMU_KERNEL(string_replace)

// Whether `pattern_len` bytes of `pattern` occur in `bytes` at `at` (ASCII
// letters in either case with `fold`, as Aho-Corasick's
// ascii_case_insensitive compares them).
__device__ inline bool bytes_at(const unsigned char* bytes, i64 at, const unsigned char* pattern,
                                i64 pattern_len, u32 fold) {
    for (i64 b = 0; b < pattern_len; ++b) {
        unsigned char x = bytes[at + b], y = pattern[b];
        if (fold != 0) {
            if (x >= 'A' && x <= 'Z') x = static_cast<unsigned char>(x + 32);
            if (y >= 'A' && y <= 'Z') y = static_cast<unsigned char>(y + 32);
        }
        if (x != y) return false;
    }
    return true;
}

// Polars' str.replace_many of literal patterns (none empty; pattern p the
// bytes [pattern_offsets[p], pattern_offsets[p + 1]) of `patterns`, replaced
// by value p of `values` alike), non-overlapping, each search going on
// where the last match ended, as Aho-Corasick finds them: with `leftmost`
// (MatchKind::LeftmostFirst) the match starting first, of those there the
// first pattern in order; else (MatchKind::Standard) the match ending
// first, of those there the first pattern in order (the host orders them
// longest first, as the automaton reports them). Two launches, as
// string_replace's.
extern "C" __global__ void string_replace_many(const i64* offsets, const unsigned char* bytes,
                                               const u32* validity, u64 n,
                                               const unsigned char* patterns,
                                               const i64* pattern_offsets, u64 count,
                                               const unsigned char* values,
                                               const i64* value_offsets, u32 leftmost, u32 fold,
                                               u32 write, i64* lengths, const i64* out_offsets,
                                               unsigned char* out_bytes) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        if (!is_valid(validity, i)) {
            if (write == 0) lengths[i] = 0;
            continue;
        }
        i64 begin = offsets[i], end = offsets[i + 1];
        unsigned char* out = write != 0 && out_bytes != nullptr ? out_bytes + out_offsets[i] : nullptr;
        i64 written = 0, from = begin;
        // (Leftmost: `at` is where a match would start; else where it
        // would end.)
        i64 at = leftmost != 0 ? begin : begin + 1;
        while (at <= end) {
            u64 found = count;
            i64 start = 0;
            for (u64 p = 0; p < count && found == count; ++p) {
                i64 length = pattern_offsets[p + 1] - pattern_offsets[p];
                i64 s = leftmost != 0 ? at : at - length;
                if (s >= from && s + length <= end &&
                    bytes_at(bytes, s, patterns + pattern_offsets[p], length, fold)) {
                    found = p;
                    start = s;
                }
            }
            if (found == count) {
                ++at;
                continue;
            }
            i64 length = pattern_offsets[found + 1] - pattern_offsets[found];
            i64 value_len = value_offsets[found + 1] - value_offsets[found];
            if (out != nullptr) {
                for (i64 b = from; b < start; ++b) out[written + (b - from)] = bytes[b];
                for (i64 b = 0; b < value_len; ++b) {
                    out[written + (start - from) + b] = values[value_offsets[found] + b];
                }
            }
            written += (start - from) + value_len;
            from = start + length;
            at = leftmost != 0 ? from : from + 1;
        }
        if (out != nullptr) {
            for (i64 b = from; b < end; ++b) out[written + (b - from)] = bytes[b];
        }
        written += end - from;
        if (write == 0) lengths[i] = written;
    }
}
EMU_KERNEL(string_replace_many)

// Polars' cast of integers, booleans and decimals to strings: each valid
// row's 64-bit value in decimal (`kind` 0: signed, 1: unsigned), "true" and
// "false" (`kind` 2: 0 or 1), or a decimal's scaled integer (`kind` 3, signed)
// with its point before the last `scale` digits (as polars-compute's
// format_dec128: "0.05", "-10.50", every place written). Unless `write`,
// writes each row's length (0 for null) to `lengths`; with it, writes the
// text from out_offsets[i].
extern "C" __global__ void string_from_integers(const u64* values, const u32* validity, u64 n,
                                                u32 kind, u32 scale, u32 write, i64* lengths,
                                                const i64* out_offsets,
                                                unsigned char* out_bytes) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        if (!is_valid(validity, i)) {
            if (write == 0) lengths[i] = 0;
            continue;
        }
        u64 v = values[i];
        // A sign, up to 39 digits (a decimal's leading zeros) and a point.
        unsigned char digits[48];
        u32 count = 0;
        if (kind == 2) {
            const char* text = v != 0 ? "true" : "false";
            for (; text[count] != 0; ++count) digits[count] = static_cast<unsigned char>(text[count]);
        } else {
            bool negative = kind != 1 && static_cast<i64>(v) < 0;
            // Unsigned negation: exact for every negative i64, i64::MIN too.
            u64 magnitude = negative ? 0ull - v : v;
            u32 reversed_from = 0;
            if (negative) digits[count++] = '-';
            reversed_from = count;
            // Written from the last digit: a decimal's `scale` places, its
            // point, then the whole part (at least a 0).
            u32 places = kind == 3 ? scale : 0;
            u32 written = 0;
            do {
                if (places != 0 && written == places) digits[count++] = '.';
                digits[count++] = static_cast<unsigned char>('0' + magnitude % 10);
                magnitude /= 10;
                ++written;
            } while (magnitude != 0 || written <= places);
            for (u32 a = reversed_from, b = count - 1; a < b; ++a, --b) {
                unsigned char t = digits[a];
                digits[a] = digits[b];
                digits[b] = t;
            }
        }
        if (write == 0) {
            lengths[i] = count;
        } else {
            unsigned char* out = out_bytes + out_offsets[i];
            for (u32 k = 0; k < count; ++k) out[k] = digits[k];
        }
    }
}
EMU_KERNEL(string_from_integers)

// Polars' cast of f64 (`width` 64) or f32 (`width` 32) values to strings,
// as zmij writes them (format_float.cuh). Unless `write`, writes each row's
// length (0 for null) to `lengths`; with it, the text from out_offsets[i].
extern "C" __global__ void string_from_floats(const void* values, const u32* validity, u64 n,
                                              u32 width, u32 write, i64* lengths,
                                              const i64* out_offsets, unsigned char* out_bytes) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        if (!is_valid(validity, i)) {
            if (write == 0) lengths[i] = 0;
            continue;
        }
        unsigned char text[32];
        u32 count = width == 64 ? format_f64(static_cast<const u64*>(values)[i], text)
                                : format_f32(static_cast<const u32*>(values)[i], text);
        if (write == 0) {
            lengths[i] = count;
        } else {
            unsigned char* out = out_bytes + out_offsets[i];
            for (u32 k = 0; k < count; ++k) out[k] = text[k];
        }
    }
}
EMU_KERNEL(string_from_floats)

// Row-wise concatenation of k string columns (Polars' concat_str and `+` of
// strings). `table` holds five words per input: its offsets, bytes and
// validity (0: all valid) addresses, the address of a mask (0: none; one
// bit per output row, a row whose bit is 0 takes the input as null), and 1
// when it is a single row repeated on every row (a literal), else 0. A row with a null input is null, unless
// `ignore_nulls`, which skips null inputs (their separators too): such a
// row is valid, empty when every input is null. With `first_only` (and
// `ignore_nulls`), a row is its first valid input, null when none is: a
// coalesce.
struct ConcatInput {
    const i64* offsets;
    const unsigned char* bytes;
    const u32* validity;
    const u32* mask;
    bool repeated;
};

__device__ __forceinline__ ConcatInput concat_input(const u64* table, u32 j) {
    const u64* w = table + 5 * j;
    return ConcatInput{reinterpret_cast<const i64*>(w[0]),
                       reinterpret_cast<const unsigned char*>(w[1]),
                       reinterpret_cast<const u32*>(w[2]), reinterpret_cast<const u32*>(w[3]),
                       w[4] != 0};
}

// Whether input `in` holds a value on output row i (its row `row`).
__device__ __forceinline__ bool concat_valid(const ConcatInput& in, u64 row, u64 i) {
    return is_valid(in.validity, row) && is_valid(in.mask, i);
}

// Each row's length in bytes (0 for null) and its validity bit.
extern "C" __global__ void string_concat_lengths(const u64* table, u32 k, u64 n, u64 sep_len,
                                                 u32 ignore_nulls, u32 first_only,
                                                 i64* lengths, u32* out_validity) {
    unsigned int lane = threadIdx.x % 32;
    for (u64 i = global_index(); i - lane < n; i += global_stride()) {
        bool valid = i < n;
        if (i < n) {
            i64 length = 0;
            u32 present = 0;
            for (u32 j = 0; j < k && !(first_only && present > 0); ++j) {
                ConcatInput in = concat_input(table, j);
                u64 row = in.repeated ? 0 : i;
                if (!concat_valid(in, row, i)) {
                    if (!ignore_nulls) valid = false;
                    continue;
                }
                length += in.offsets[row + 1] - in.offsets[row] + (present > 0 ? sep_len : 0);
                ++present;
            }
            if (first_only && present == 0) valid = false;
            lengths[i] = valid ? length : 0;
        }
        u32 word = __ballot_sync(FULL_MASK, valid);
        if (lane == 0) out_validity[i / 32] = word;
    }
}
EMU_KERNEL(string_concat_lengths)

// Writes each valid row's bytes from out_offsets[i] (`out_bytes` is null
// when every row is empty, and then nothing is written).
extern "C" __global__ void string_concat_write(const u64* table, u32 k, u64 n,
                                               const unsigned char* sep, u64 sep_len,
                                               u32 first_only, const i64* out_offsets,
                                               const u32* out_validity,
                                               unsigned char* out_bytes) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        if (out_bytes == nullptr || !is_valid(out_validity, i)) continue;
        i64 at = out_offsets[i];
        bool first = true;
        for (u32 j = 0; j < k && !(first_only && !first); ++j) {
            ConcatInput in = concat_input(table, j);
            u64 row = in.repeated ? 0 : i;
            if (!concat_valid(in, row, i)) continue;
            if (!first) {
                for (u64 b = 0; b < sep_len; ++b) out_bytes[at++] = sep[b];
            }
            first = false;
            for (i64 b = in.offsets[row]; b < in.offsets[row + 1]; ++b) out_bytes[at++] = in.bytes[b];
        }
    }
}
EMU_KERNEL(string_concat_write)

// Polars' cast of text to an integer type (atoi_simd, as Polars calls it:
// an optional '+', or '-' where `allow_negative`, then one or more ASCII
// digits, leading zeros without limit; nothing else, not even white space):
// the value as 64-bit two's complement words, valid where the text parses
// and its magnitude is at most `max_positive` (`max_negative` after '-').
// A valid text that does not parse raises `failed` (when not null): the
// strict cast's error.
__device__ __forceinline__ bool parse_integer(const unsigned char* s, i64 length,
                                              u32 allow_negative, u64 max_positive,
                                              u64 max_negative, u64* value) {
    i64 k = 0;
    bool negative = false;
    if (length > 0 && s[0] == '+') {
        k = 1;
    } else if (length > 0 && s[0] == '-' && allow_negative != 0) {
        negative = true;
        k = 1;
    }
    if (k == length) return false;
    u64 limit = negative ? max_negative : max_positive;
    u64 magnitude = 0;
    for (; k < length; ++k) {
        u32 digit = static_cast<u32>(s[k]) - static_cast<u32>('0');
        if (digit > 9) return false;
        if (digit > limit || magnitude > (limit - digit) / 10) return false;
        magnitude = magnitude * 10 + digit;
    }
    *value = negative ? 0 - magnitude : magnitude;
    return true;
}

extern "C" __global__ void string_parse_integers(const i64* offsets, const unsigned char* bytes,
                                                 const u32* validity, u64 n,
                                                 u32 allow_negative, u64 max_positive,
                                                 u64 max_negative, u64* out, u32* out_validity,
                                                 u32* failed) {
    unsigned int lane = threadIdx.x % 32;
    for (u64 i = global_index(); i - lane < n; i += global_stride()) {
        bool parsed = false;
        if (i < n && is_valid(validity, i)) {
            u64 value = 0;
            i64 begin = offsets[i];
            parsed = parse_integer(bytes + begin, offsets[i + 1] - begin, allow_negative,
                                   max_positive, max_negative, &value);
            out[i] = value;
            if (!parsed && failed != nullptr) atomicOr(failed, 1u);
        } else if (i < n) {
            out[i] = 0;
        }
        u32 bits = __ballot_sync(FULL_MASK, parsed);
        if (lane == 0) out_validity[i / 32] = bits;
    }
}
EMU_KERNEL(string_parse_integers)

// Polars' cast of text to Decimal(precision, scale) (parse_decimal, in
// decimal.cuh): null where the text is null, does not parse or leaves the
// precision; a valid text that does not parse raises `failed` (when not
// null: the strict cast's error); one Polars' i128 answers and an i64 does
// not raises `undecided` (the caller leaves the column to Polars).
extern "C" __global__ void string_parse_decimals(const i64* offsets, const unsigned char* bytes,
                                                 const u32* validity, u64 n, u32 precision,
                                                 u32 scale, u32* undecided, i64* out,
                                                 u32* out_validity, u32* failed) {
    unsigned int lane = threadIdx.x % 32;
    for (u64 i = global_index(); i - lane < n; i += global_stride()) {
        bool parsed = false;
        if (i < n && is_valid(validity, i)) {
            i64 value = 0;
            bool unknown = false;
            i64 begin = offsets[i];
            parsed = parse_decimal(bytes + begin, offsets[i + 1] - begin, precision, scale, &value,
                                   &unknown);
            out[i] = value;
            if (unknown) atomicOr(undecided, 1u);
            if (!parsed && !unknown && failed != nullptr) atomicOr(failed, 1u);
        } else if (i < n) {
            out[i] = 0;
        }
        u32 bits = __ballot_sync(FULL_MASK, parsed);
        if (lane == 0) out_validity[i / 32] = bits;
    }
}
EMU_KERNEL(string_parse_decimals)

// Polars' cast of text to f64 or f32 (fast_float2::parse, see
// parse_float.cuh): null where the text is null or is no number. A valid
// text that is no number raises `failed` (when not null): the strict
// cast's error. A number only exact big-number arithmetic rounds raises
// `undecided`: the caller leaves the column to Polars.
template <typename F>
__device__ __forceinline__ void parse_floats(const i64* offsets, const unsigned char* bytes,
                                             const u32* validity, u64 n, u32* undecided,
                                             typename F::Float* out, u32* out_validity,
                                             u32* failed) {
    unsigned int lane = threadIdx.x % 32;
    for (u64 i = global_index(); i - lane < n; i += global_stride()) {
        bool parsed = false;
        if (i < n && is_valid(validity, i)) {
            typename F::Float value = 0;
            i64 begin = offsets[i];
            int result = parse_float_text<F>(bytes + begin, offsets[i + 1] - begin, &value);
            parsed = result == PARSE_FLOAT_OK;
            out[i] = value;
            if (result == PARSE_FLOAT_INVALID && failed != nullptr) atomicOr(failed, 1u);
            if (result == PARSE_FLOAT_UNDECIDED) atomicOr(undecided, 1u);
        } else if (i < n) {
            out[i] = 0;
        }
        u32 bits = __ballot_sync(FULL_MASK, parsed);
        if (lane == 0) out_validity[i / 32] = bits;
    }
}

extern "C" __global__ void string_parse_f64(const i64* offsets, const unsigned char* bytes,
                                            const u32* validity, u64 n, u32* undecided,
                                            double* out, u32* out_validity, u32* failed) {
    parse_floats<F64Format>(offsets, bytes, validity, n, undecided, out, out_validity, failed);
}
EMU_KERNEL(string_parse_f64)

extern "C" __global__ void string_parse_f32(const i64* offsets, const unsigned char* bytes,
                                            const u32* validity, u64 n, u32* undecided,
                                            float* out, u32* out_validity, u32* failed) {
    parse_floats<F32Format>(offsets, bytes, validity, n, undecided, out, out_validity, failed);
}
EMU_KERNEL(string_parse_f32)

// Texts of exactly the form `program` gives (see parse_date_time) that name
// a date, as days since 1970-01-01 (i32; Polars' `str.to_date`); with
// `per_second` non-zero, as timestamps in units of 1/per_second s (i64;
// `str.to_datetime`). With `lenient` (a parse that is not strict), a text
// from which neither of Polars' parsers reads a value is null (see
// parse_date_time and unreadable). Any other valid text, or a timestamp
// past i64, sets `failed`: the executor leaves such columns to Polars,
// whose parser decides (null, an error, or a value of another form).
extern "C" __global__ void string_parse_dates(const i64* offsets, const unsigned char* bytes,
                                              const u32* validity, u64 n, u64 per_second,
                                              const u32* program, u32 program_len, u32 lenient,
                                              void* out, u32* out_validity, u32* failed) {
    unsigned int lane = threadIdx.x % 32;
    const i64 ticks = static_cast<i64>(per_second);
    for (u64 i = global_index(); i - lane < n; i += global_stride()) {
        bool parsed = false;
        i64 value = 0;
        if (i < n && is_valid(validity, i)) {
            i64 begin = offsets[i], len = offsets[i + 1] - begin, days = 0, seconds = 0,
                nanos = 0;
            u32 made = parse_date_time(bytes + begin, len, program, program_len, &days, &seconds,
                                       &nanos);
            parsed = made == DATE_PARSED;
            if (parsed && ticks != 0) {
                // (The fraction in the unit, truncated, as chrono's
                // timestamps in a unit take it.)
                i64 total = days * 86400 + seconds;
                i64 part = nanos / (1000000000 / ticks);
                const i64 most = 0x7fffffffffffffffll;
                parsed = total <= (most - part) / ticks && total >= -(most / ticks);
                value = total * ticks + part;
            } else if (parsed) {
                value = days;
            }
            bool no_value = made == DATE_NO_VALUE ||
                            (made == DATE_UNDECIDED &&
                             unreadable(bytes + begin, len, program, program_len));
            if (!parsed && !(lenient != 0 && no_value)) atomicOr(failed, 1u);
        }
        if (i < n) {
            if (ticks == 0) {
                static_cast<i32*>(out)[i] = parsed ? static_cast<i32>(value) : 0;
            } else {
                static_cast<i64*>(out)[i] = parsed ? value : 0;
            }
        }
        u32 bits = __ballot_sync(FULL_MASK, parsed);
        if (lane == 0) out_validity[i / 32] = bits;
    }
}
EMU_KERNEL(string_parse_dates)

// Polars' pad_start (side 0) and pad_end (side 1): `fill` (its UTF-8 bytes)
// added before (after) a string of fewer than `length` characters (each
// row's `row_lengths[i]` where given) until it has that many; zfill (side
// 2): '0's after a leading '+' or '-' until the string has `length` bytes.
// A length past 2^32 (beyond any text Polars holds) counts as 2^32, so that
// the lengths never overflow. Unless `write`, writes each row's length in
// bytes (0 for null) to `lengths`; with it, writes the new bytes from
// out_offsets[i].
extern "C" __global__ void string_pad(const i64* offsets, const unsigned char* bytes,
                                      const u32* validity, u64 n, u64 length,
                                      const u64* row_lengths, const unsigned char* fill,
                                      u64 fill_len, u32 side, u32 write, i64* lengths,
                                      const i64* out_offsets, unsigned char* out_bytes) {
    const u64 MOST = 1ull << 32;
    for (u64 i = global_index(); i < n; i += global_stride()) {
        if (!is_valid(validity, i)) {
            if (write == 0) lengths[i] = 0;
            continue;
        }
        u64 target = row_lengths != nullptr ? row_lengths[i] : length;
        if (target > MOST) target = MOST;
        i64 begin = offsets[i], end = offsets[i + 1];
        u64 size = static_cast<u64>(end - begin);
        u64 have = size;
        if (side != 2) {
            have = 0;
            for (i64 k = begin; k < end; ++k) have += starts_char(bytes[k]) ? 1 : 0;
        }
        u64 padding = target > have ? target - have : 0;
        u64 pad_bytes = side == 2 ? padding : padding * fill_len;
        if (write == 0) {
            lengths[i] = static_cast<i64>(size + pad_bytes);
            continue;
        }
        if (out_bytes == nullptr) continue;  // every new string is empty
        unsigned char* out = out_bytes + out_offsets[i];
        u64 at = 0;
        i64 k = begin;
        if (side == 2 && padding > 0 && size > 0 && (bytes[k] == '-' || bytes[k] == '+')) {
            out[at++] = bytes[k++];
        }
        if (side == 1) {
            for (; k < end; ++k) out[at++] = bytes[k];
        }
        for (u64 p = 0; p < padding; ++p) {
            if (side == 2) {
                out[at++] = '0';
            } else {
                for (u64 b = 0; b < fill_len; ++b) out[at++] = fill[b];
            }
        }
        for (; k < end; ++k) out[at++] = bytes[k];
    }
}
EMU_KERNEL(string_pad)

// Dates and timestamps (no time zone) as text in a chrono format, as Polars
// writes them (`dt.to_string`, and its cast to text): `program` holds one
// item a word, the item's code in the high 24 bits and its argument in the
// low 8: 0 a literal byte (the argument), 1 %Y (four digits, or a sign and
// at least four outside 0..=9999), 2 %m, 3 %d, 4 %H, 5 %M, 6 %S, 7 the
// fraction of the second in `argument` digits, 8 %y (year mod 100,
// euclidean), 9 %j, 10 %e (space-padded day), 11 %b, 12 %B, 13 %a, 14 %A,
// 15 %u (Monday 1), 16 %w (Sunday 0), 17 %I, 18 %p. `values` are days
// (`per_day` 1) or ticks of `per_day` to the day. Unless `write`, writes
// each row's length (0 for null) to `lengths`; with it, the text from
// out_offsets[i].
// English month (1 to 12) and weekday (Monday 0) names, as chrono writes them.
__device__ __forceinline__ const char* month_name(i64 month) {
    switch (month) {
        case 1: return "January";
        case 2: return "February";
        case 3: return "March";
        case 4: return "April";
        case 5: return "May";
        case 6: return "June";
        case 7: return "July";
        case 8: return "August";
        case 9: return "September";
        case 10: return "October";
        case 11: return "November";
        default: return "December";
    }
}

__device__ __forceinline__ const char* weekday_name(i64 weekday) {
    switch (weekday) {
        case 0: return "Monday";
        case 1: return "Tuesday";
        case 2: return "Wednesday";
        case 3: return "Thursday";
        case 4: return "Friday";
        case 5: return "Saturday";
        default: return "Sunday";
    }
}

// Writes `text` (up to its end, or `limit` bytes) at out + count when out
// is not null; the bytes it takes either way.
__device__ __forceinline__ u32 put_text(unsigned char* out, u32 count, const char* text,
                                        u32 limit) {
    u32 k = 0;
    for (; k < limit && text[k] != 0; ++k) {
        if (out) out[count + k] = static_cast<unsigned char>(text[k]);
    }
    return k;
}

// Writes `value` (not negative) in at least `width` digits, padded with
// `pad`, at out + count when out is not null; the bytes it takes.
__device__ __forceinline__ u32 put_number(unsigned char* out, u32 count, u64 value, u32 width,
                                          unsigned char pad) {
    unsigned char digits[20];
    u32 n = 0;
    do {
        digits[n++] = static_cast<unsigned char>('0' + value % 10);
        value /= 10;
    } while (value != 0);
    u32 k = 0;
    for (u32 p = n; p < width; ++p, ++k) {
        if (out) out[count + k] = pad;
    }
    while (n > 0) {
        --n;
        if (out) out[count + k] = digits[n];
        ++k;
    }
    return k;
}

extern "C" __global__ void string_format_temporal(const i64* values, const u32* validity, u64 n,
                                                  i64 per_day, const u32* program,
                                                  u64 program_length, u32 write, i64* lengths,
                                                  const i64* out_offsets,
                                                  unsigned char* out_bytes) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        if (!is_valid(validity, i)) {
            if (write == 0) lengths[i] = 0;
            continue;
        }
        i64 v = values[i];
        i64 days = floor_div(v, per_day);
        i64 ticks = v - days * per_day;  // 0 <= ticks < per_day
        i64 year, month, day;
        civil(days, &year, &month, &day);
        i64 per_second = per_day >= 86400 ? per_day / 86400 : 1;
        i64 seconds = ticks / per_second, fraction = ticks % per_second;
        i64 hour = seconds / 3600;
        i64 weekday = days + 3 - floor_div(days + 3, 7) * 7;  // Monday 0 (1970-01-01 a Thursday)
        unsigned char* out = write ? out_bytes + out_offsets[i] : nullptr;
        u32 count = 0;
        for (u64 p = 0; p < program_length; ++p) {
            u32 code = program[p] >> 8, argument = program[p] & 0xFF;
            switch (code) {
                case 0:
                    if (out) out[count] = static_cast<unsigned char>(argument);
                    count += 1;
                    break;
                case 1: {
                    bool signed_year = year < 0 || year > 9999;
                    if (signed_year) {
                        if (out) out[count] = year < 0 ? '-' : '+';
                        count += 1;
                    }
                    u64 magnitude = year < 0 ? 0ull - static_cast<u64>(year) : static_cast<u64>(year);
                    count += put_number(out, count, magnitude, 4, '0');
                    break;
                }
                case 2: count += put_number(out, count, month, 2, '0'); break;
                case 3: count += put_number(out, count, day, 2, '0'); break;
                case 4: count += put_number(out, count, hour, 2, '0'); break;
                case 5: count += put_number(out, count, seconds / 60 % 60, 2, '0'); break;
                case 6: count += put_number(out, count, seconds % 60, 2, '0'); break;
                case 7: {
                    // The fraction as nanoseconds, cut to `argument` digits.
                    i64 nanos = fraction * (1000000000 / per_second);
                    for (u32 k = 0; k < argument; ++k) {
                        i64 unit = 100000000;
                        for (u32 q = 0; q < k; ++q) unit /= 10;
                        if (out) out[count] = static_cast<unsigned char>('0' + nanos / unit % 10);
                        count += 1;
                    }
                    break;
                }
                case 8: count += put_number(out, count, year - floor_div(year, 100) * 100, 2, '0'); break;
                case 9: {
                    i64 ordinal = days - days_from_civil(year, 1, 1) + 1;
                    count += put_number(out, count, ordinal, 3, '0');
                    break;
                }
                case 10: count += put_number(out, count, day, 2, ' '); break;
                case 11: count += put_text(out, count, month_name(month), 3); break;
                case 12: count += put_text(out, count, month_name(month), 10); break;
                case 13: count += put_text(out, count, weekday_name(weekday), 3); break;
                case 14: count += put_text(out, count, weekday_name(weekday), 10); break;
                case 15: count += put_number(out, count, weekday + 1, 1, '0'); break;
                case 16: count += put_number(out, count, (weekday + 1) % 7, 1, '0'); break;
                case 17: count += put_number(out, count, hour % 12 == 0 ? 12 : hour % 12, 2, '0'); break;
                case 18: count += put_text(out, count, hour < 12 ? "AM" : "PM", 2); break;
                case 19: {
                    // chrono's `%.f`: a dot and the fewest of 3, 6 or 9
                    // digits that hold the fraction; nothing for none.
                    i64 nanos = fraction * (1000000000 / per_second);
                    if (nanos == 0) break;
                    u32 digits = nanos % 1000000 == 0 ? 3 : nanos % 1000 == 0 ? 6 : 9;
                    i64 shown = digits == 3 ? nanos / 1000000 : digits == 6 ? nanos / 1000 : nanos;
                    if (out) out[count] = '.';
                    count += 1;
                    count += put_number(out, count, static_cast<u64>(shown), digits, '0');
                    break;
                }
                default: break;
            }
        }
        if (write == 0) lengths[i] = count;
    }
}
EMU_KERNEL(string_format_temporal)

// Polars' str.split by a literal separator (Rust's str::split: the pieces
// between leftmost non-overlapping matches; with `inclusive`,
// str::split_inclusive: each piece with the match ending it, and the text
// after the last match only if not empty), or into characters when the
// separator is empty. The place of string i's first match at or after
// byte k, or `end`.
__device__ __forceinline__ i64 next_separator(const unsigned char* bytes, i64 k, i64 end,
                                              const unsigned char* separator, u64 separator_len) {
    i64 len = static_cast<i64>(separator_len);
    for (; k + len <= end; ++k) {
        bool same = true;
        for (i64 j = 0; j < len && same; ++j) same = bytes[k + j] == separator[j];
        if (same) return k;
    }
    return end;
}

// For each string, the pieces it splits into (a null string none, as a
// null list), then a visit(start, length) of each piece in order.
template <typename Visit>
__device__ __forceinline__ void split_pieces(const unsigned char* bytes, i64 begin, i64 end,
                                             const unsigned char* separator, u64 separator_len,
                                             bool inclusive, Visit visit) {
    if (separator_len == 0) {
        for (i64 k = begin; k < end;) {
            i64 next = k + 1;
            while (next < end && !starts_char(bytes[next])) ++next;
            visit(k, next - k);
            k = next;
        }
        return;
    }
    i64 len = static_cast<i64>(separator_len);
    i64 k = begin;
    while (true) {
        i64 found = next_separator(bytes, k, end, separator, separator_len);
        if (found == end) {
            if (!inclusive || k < end) visit(k, end - k);
            return;
        }
        visit(k, found - k + (inclusive ? len : 0));
        k = found + len;
    }
}

// Each string's number of pieces (0 for a null string); `counts` has one
// more entry, left 0, so that its exclusive scan ends with the total.
extern "C" __global__ void string_split_counts(const i64* offsets, const unsigned char* bytes,
                                               const u32* validity, u64 n,
                                               const unsigned char* separator,
                                               u64 separator_len, u32 inclusive, i64* counts) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        i64 count = 0;
        if (is_valid(validity, i)) {
            split_pieces(bytes, offsets[i], offsets[i + 1], separator, separator_len,
                         inclusive != 0, [&](i64, i64) { ++count; });
        }
        counts[i] = count;
    }
}
EMU_KERNEL(string_split_counts)

// Each piece's byte range (after the scan of the counts into `firsts`):
// piece j of string i at starts[firsts[i] + j], of lengths[firsts[i] + j].
extern "C" __global__ void string_split_ranges(const i64* offsets, const unsigned char* bytes,
                                               const u32* validity, u64 n,
                                               const unsigned char* separator,
                                               u64 separator_len, u32 inclusive,
                                               const i64* firsts, i64* starts, i64* lengths) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        if (!is_valid(validity, i)) continue;
        i64 piece = firsts[i];
        split_pieces(bytes, offsets[i], offsets[i + 1], separator, separator_len,
                     inclusive != 0, [&](i64 start, i64 length) {
                         starts[piece] = start;
                         lengths[piece] = length;
                         ++piece;
                     });
    }
}
EMU_KERNEL(string_split_ranges)
