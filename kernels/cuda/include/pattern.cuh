// Patterns the string kernels search for: literal bytes, or a regular expression as the tables of a DFA built on the host (ir-lower's `RegexDfa`).
#pragma once

#include "kernel_common.cuh"

// Whether a byte of UTF-8 text starts a character (is not 0b10xxxxxx).
__device__ __forceinline__ bool starts_char(unsigned char byte) { return (byte & 0xC0) != 0x80; }

// Flags of a DFA's states. The host's DFA reports a match one byte late: a
// state flagged DFA_MATCHED follows the last byte of a match.
enum DfaFlag : unsigned char { DFA_MATCHED = 1, DFA_DEAD = 2, DFA_MATCHED_AT_END = 4 };

// A DFA's tables: from state s a byte b leads to
// transitions[s * stride + classes[b]]; the host checked that every entry
// names a state. `starts` (anchored DFAs) holds the start state after each
// byte, at its index, and at the text's start, at 256.
struct Dfa {
    const unsigned char* classes;
    const u32* transitions;
    const unsigned char* flags;
    const u32* starts;
    u32 stride;

    __device__ __forceinline__ u32 next(u32 state, unsigned char byte) const {
        return transitions[static_cast<u64>(state) * stride + classes[byte]];
    }
};

// What the matching kernels search for: `dfa.classes` null for the literal
// bytes `text[0..text_len)`, else the anchored DFA.
struct Pattern {
    const unsigned char* text;
    u64 text_len;
    Dfa dfa;

    // The end of the match that begins at `k` in the string bytes[begin,
    // end), or -1: the literal there, or the DFA's leftmost-first match
    // (the last match its walk passes before it dies or the string ends).
    __device__ __forceinline__ i64 match_at(const unsigned char* bytes, i64 begin, i64 k,
                                            i64 end) const {
        if (dfa.classes == nullptr) {
            if (end - k < static_cast<i64>(text_len)) return -1;
            for (u64 b = 0; b < text_len; ++b) {
                if (bytes[k + b] != text[b]) return -1;
            }
            return k + static_cast<i64>(text_len);
        }
        u32 state = dfa.starts[k == begin ? 256 : bytes[k - 1]];
        i64 found = -1;
        for (i64 j = k; j < end; ++j) {
            state = dfa.next(state, bytes[j]);
            unsigned char flag = dfa.flags[state];
            if (flag & DFA_MATCHED) found = j;
            if (flag & DFA_DEAD) return found;
        }
        return (dfa.flags[state] & DFA_MATCHED_AT_END) ? end : found;
    }
};
