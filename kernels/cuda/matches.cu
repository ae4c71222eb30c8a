// Matches of patterns in strings: their number, the first one's place, all
// of them, the first match itself, a capture group of it, and replacements
// that put groups in (see pattern.cuh for the patterns: literal bytes or the
// tables of a DFA). Strings are UTF-8; a match begins at a character
// boundary.
#include "kernel_common.cuh"
#include "pattern.cuh"

// Calls f(start, end) for each match of `searched` in the string
// bytes[begin, end), from the left: leftmost matches, not overlapping (Rust's
// `str::matches` of a literal text, the `regex` crate's `find_iter` of an
// anchored DFA); matches begin at character boundaries, and an empty match
// where the last one ended is skipped, as both do (an empty literal matches
// at every boundary, so once more than the characters). Stops when f
// returns false.
template <typename F>
__device__ __forceinline__ void for_each_match(const Pattern& searched,
                                               const unsigned char* bytes, i64 begin, i64 end,
                                               F f) {
    i64 k = begin, last_end = -1;
    while (k <= end) {
        i64 match_end = searched.match_at(bytes, begin, k, end);
        // An empty match where the last match ended does not count.
        if (match_end == k && k == last_end) match_end = -1;
        if (match_end >= 0) {
            if (!f(k, match_end)) return;
            last_end = match_end;
        }
        if (match_end > k) {
            k = match_end;
        } else {
            // On to the next character's first byte.
            ++k;
            while (k < end && !starts_char(bytes[k])) ++k;
        }
    }
}

// The first match of `searched` in bytes[begin, end) (the leftmost, as
// for_each_match gives it): its start and end; false where there is none.
__device__ __forceinline__ bool first_match(const Pattern& searched, const unsigned char* bytes,
                                            i64 begin, i64 end, i64* start, i64* match_end) {
    bool found = false;
    for_each_match(searched, bytes, begin, end, [&](i64 s, i64 e) {
        found = true;
        *start = s;
        *match_end = e;
        return false;
    });
    return found;
}

// Polars' str.count_matches of a pattern (the matches for_each_match
// gives) and, with `find`, str.find of one (the byte offset of the first
// match, null where there is none). The pattern is the literal
// `pattern[0..pattern_len)` when `classes` is null, else the DFA (see
// pattern.cuh). Null strings give null.
extern "C" __global__ void string_matches(const i64* offsets, const unsigned char* bytes,
                                          const u32* validity, u64 n,
                                          const unsigned char* pattern, u64 pattern_len,
                                          const unsigned char* classes, const u32* transitions,
                                          const unsigned char* flags, const u32* starts,
                                          u32 stride, u32 find, u32* out, u32* out_validity) {
    const Pattern searched{pattern, pattern_len, {classes, transitions, flags, starts, stride}};
    unsigned int lane = threadIdx.x % 32;
    for (u64 i = global_index(); i - lane < n; i += global_stride()) {
        bool valid = false;
        u32 result = 0;
        if (i < n && is_valid(validity, i)) {
            i64 begin = offsets[i], end = offsets[i + 1];
            u32 count = 0;
            bool found = false;
            for_each_match(searched, bytes, begin, end, [&](i64 start, i64) {
                if (!found) result = static_cast<u32>(start - begin);
                found = true;
                ++count;
                return find == 0;
            });
            if (find == 0) {
                result = count;
                valid = true;
            } else {
                valid = found;
            }
            out[i] = result;
        } else if (i < n) {
            out[i] = 0;
        }
        u32 bits = __ballot_sync(FULL_MASK, valid);
        if (lane == 0) out_validity[i / 32] = bits;
    }
}
EMU_KERNEL(string_matches)

// Polars' str.extract_all: every match of the pattern (as for_each_match
// gives them) in each valid string. Without `firsts`, writes each string's
// number of matches to `counts` (0 for null); with it (their exclusive
// scan), writes the matches' byte ranges from firsts[i] on, as `starts`
// (in `bytes`) and `lengths`.
extern "C" __global__ void string_match_pieces(const i64* offsets, const unsigned char* bytes,
                                               const u32* validity, u64 n,
                                               const unsigned char* pattern, u64 pattern_len,
                                               const unsigned char* classes,
                                               const u32* transitions, const unsigned char* flags,
                                               const u32* starts_after, u32 stride,
                                               const i64* firsts, i64* counts, i64* starts,
                                               i64* lengths) {
    const Pattern searched{pattern, pattern_len, {classes, transitions, flags, starts_after, stride}};
    for (u64 i = global_index(); i < n; i += global_stride()) {
        if (!is_valid(validity, i)) continue;
        i64 piece = firsts == nullptr ? 0 : firsts[i];
        for_each_match(searched, bytes, offsets[i], offsets[i + 1], [&](i64 start, i64 end) {
            if (firsts != nullptr) {
                starts[piece] = start;
                lengths[piece] = end - start;
            }
            ++piece;
            return true;
        });
        if (firsts == nullptr) counts[i] = piece;
    }
}
EMU_KERNEL(string_match_pieces)

// Polars' str.extract of a whole match: the byte range of the first match
// of the pattern (as in `string_matches`) in each string, as `starts` (in
// `bytes`) and `lengths`, with `lengths` 0 and the row null where there is
// none or the string is null.
extern "C" __global__ void string_match_ranges(const i64* offsets, const unsigned char* bytes,
                                               const u32* validity, u64 n,
                                               const unsigned char* pattern, u64 pattern_len,
                                               const unsigned char* classes,
                                               const u32* transitions, const unsigned char* flags,
                                               const u32* starts_after, u32 stride, i64* starts,
                                               i64* lengths, u32* out_validity) {
    const Pattern searched{pattern, pattern_len, {classes, transitions, flags, starts_after, stride}};
    unsigned int lane = threadIdx.x % 32;
    for (u64 i = global_index(); i - lane < n; i += global_stride()) {
        bool found = false;
        if (i < n) {
            i64 begin = offsets[i], end = offsets[i + 1], start, match_end;
            starts[i] = begin;
            lengths[i] = 0;
            found = is_valid(validity, i) &&
                    first_match(searched, bytes, begin, end, &start, &match_end);
            if (found) {
                starts[i] = start;
                lengths[i] = match_end - start;
            }
        }
        u32 bits = __ballot_sync(FULL_MASK, found);
        if (lane == 0) out_validity[i / 32] = bits;
    }
}
EMU_KERNEL(string_match_ranges)

// Part `part` of the joined DFAs `dfas` (its byte classes at 256 * part,
// its start states at 257 * part; the states and their rows shared).
__device__ __forceinline__ Dfa part_of(const Dfa& dfas, u32 part) {
    return Dfa{dfas.classes + 256 * part, dfas.transitions, dfas.flags, dfas.starts + 257 * part,
               dfas.stride};
}

// Whether part `part` of the joined DFAs `dfas` (built to flag every end
// of a match) matches exactly [k, to) of the string bytes[begin, end).
__device__ __forceinline__ bool part_matches_to(const Dfa& dfas, u32 part,
                                                const unsigned char* bytes, i64 begin, i64 k,
                                                i64 to, i64 end) {
    const Dfa dfa = part_of(dfas, part);
    u32 state = dfa.starts[k == begin ? 256 : bytes[k - 1]];
    for (i64 j = k; j < end; ++j) {
        state = dfa.next(state, bytes[j]);
        if (j == to) return (dfa.flags[state] & DFA_MATCHED) != 0;
        if (dfa.flags[state] & DFA_DEAD) return false;
    }
    return to == end && (dfa.flags[state] & DFA_MATCHED_AT_END) != 0;
}

// The one place j in [from, to] where part `first` of `dfas` matches
// [from, j) and part `second` matches [j, to) exactly; -1 where there is
// none or more than one (the match parses more than one way).
__device__ __forceinline__ i64 one_split(const Dfa& dfas, u32 first, u32 second,
                                         const unsigned char* bytes, i64 begin, i64 from, i64 to,
                                         i64 end) {
    const Dfa dfa = part_of(dfas, first);
    u32 state = dfa.starts[from == begin ? 256 : bytes[from - 1]];
    i64 found = -1;
    for (i64 j = from; j <= to; ++j) {
        bool ends_here;
        if (j < end) {
            state = dfa.next(state, bytes[j]);
            ends_here = (dfa.flags[state] & DFA_MATCHED) != 0;
        } else {
            ends_here = (dfa.flags[state] & DFA_MATCHED_AT_END) != 0;
        }
        if (ends_here && part_matches_to(dfas, second, bytes, begin, j, to, end)) {
            if (found >= 0) return -1;
            found = j;
        }
        if (j < end && (dfa.flags[state] & DFA_DEAD)) break;
    }
    return found;
}

// Polars' str.extract of a capture group in the pattern's top-level
// sequence P G S (ir-lower's GroupDfas): the first match [s, e) as
// string_match_ranges finds it, then the group from the one place p where
// P matches [s, p) and G S matches [p, e), to the one place q where G
// matches [p, q) and S matches [q, e). The parts are joined in `parts`:
// P, G S, G, S. Where a match parses more than one way, `ambiguous` is set
// to 1 (the row's value is then not given); null where there is no match
// or the string is null.
extern "C" __global__ void string_group_ranges(const i64* offsets, const unsigned char* bytes,
                                               const u32* validity, u64 n,
                                               const unsigned char* pattern, u64 pattern_len,
                                               const unsigned char* classes,
                                               const u32* transitions, const unsigned char* flags,
                                               const u32* starts_after, u32 stride,
                                               const unsigned char* part_classes,
                                               const u32* part_transitions,
                                               const unsigned char* part_flags,
                                               const u32* part_starts, u32 part_stride,
                                               i64* starts, i64* lengths, u32* out_validity,
                                               u32* ambiguous) {
    const Pattern searched{pattern, pattern_len, {classes, transitions, flags, starts_after, stride}};
    const Dfa parts{part_classes, part_transitions, part_flags, part_starts, part_stride};
    unsigned int lane = threadIdx.x % 32;
    for (u64 i = global_index(); i - lane < n; i += global_stride()) {
        bool found = false;
        if (i < n) {
            i64 begin = offsets[i], end = offsets[i + 1], start, match_end;
            starts[i] = begin;
            lengths[i] = 0;
            found = is_valid(validity, i) &&
                    first_match(searched, bytes, begin, end, &start, &match_end);
            if (found) {
                i64 p = one_split(parts, 0, 1, bytes, begin, start, match_end, end);
                i64 q = p < 0 ? -1 : one_split(parts, 2, 3, bytes, begin, p, match_end, end);
                if (q < 0) {
                    atomicOr(ambiguous, 1u);
                } else {
                    starts[i] = p;
                    lengths[i] = q - p;
                }
            }
        }
        u32 bits = __ballot_sync(FULL_MASK, found);
        if (lane == 0) out_validity[i / 32] = bits;
    }
}
EMU_KERNEL(string_group_ranges)

// Polars' str.replace of a regular expression by a value that puts capture
// groups in (ir-lower's ReplaceGroups): in each valid row, the first `limit`
// matches (leftmost, not overlapping, as for_each_match gives them), each
// replaced by the template's pieces: piece j is `pieces[2j], pieces[2j + 1]`,
// the template's bytes [a, b) where a >= 0, the whole match where a == -1,
// and where a == -2 - g, group g of `groups` (its parts P, G S, G and S at
// 4g to 4g + 3, found in the match as string_group_ranges finds one). Where
// a match parses more than one way, `ambiguous` is set to 1 (the row's text
// is then not given). Unless `write`, writes each row's length (0 for null)
// to `lengths`; with it, writes the text from out_offsets[i].
extern "C" __global__ void string_replace_groups(
    const i64* offsets, const unsigned char* bytes, const u32* validity, u64 n,
    const unsigned char* pattern, u64 pattern_len, const unsigned char* classes,
    const u32* transitions, const unsigned char* flags, const u32* starts_after, u32 stride,
    const unsigned char* group_classes, const u32* group_transitions,
    const unsigned char* group_flags, const u32* group_starts, u32 group_stride,
    const unsigned char* texts, const i64* pieces, u64 piece_count, u64 limit, u32* ambiguous,
    u32 write, i64* lengths, const i64* out_offsets, unsigned char* out_bytes) {
    const Pattern searched{pattern, pattern_len, {classes, transitions, flags, starts_after, stride}};
    const Dfa groups{group_classes, group_transitions, group_flags, group_starts, group_stride};
    for (u64 i = global_index(); i < n; i += global_stride()) {
        if (!is_valid(validity, i)) {
            if (write == 0) lengths[i] = 0;
            continue;
        }
        i64 begin = offsets[i], end = offsets[i + 1];
        unsigned char* out = write != 0 && out_bytes != nullptr ? out_bytes + out_offsets[i] : nullptr;
        i64 written = 0;
        auto put = [&](const unsigned char* from, i64 count) {
            if (out != nullptr) {
                for (i64 b = 0; b < count; ++b) out[written + b] = from[b];
            }
            written += count;
        };
        // The bytes before `kept` are written (or replaced).
        i64 kept = begin;
        u64 replaced = 0;
        if (limit > 0) {
            for_each_match(searched, bytes, begin, end, [&](i64 s, i64 e) {
                put(bytes + kept, s - kept);
                for (u64 j = 0; j < piece_count; ++j) {
                    i64 a = pieces[2 * j], b = pieces[2 * j + 1];
                    if (a >= 0) {
                        put(texts + a, b - a);
                    } else if (a == -1) {
                        put(bytes + s, e - s);
                    } else {
                        u32 g = static_cast<u32>(-2 - a);
                        i64 p = one_split(groups, 4 * g, 4 * g + 1, bytes, begin, s, e, end);
                        i64 q = p < 0 ? -1
                                      : one_split(groups, 4 * g + 2, 4 * g + 3, bytes, begin, p,
                                                  e, end);
                        if (q < 0) {
                            atomicOr(ambiguous, 1u);
                        } else {
                            put(bytes + p, q - p);
                        }
                    }
                }
                kept = e;
                ++replaced;
                return replaced < limit;
            });
        }
        put(bytes + kept, end - kept);
        if (write == 0) lengths[i] = written;
    }
}
EMU_KERNEL(string_replace_groups)
