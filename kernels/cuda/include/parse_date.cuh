// Texts parsed as dates and times of day by a small program of fixed-width fields and literal bytes, as Polars' parsers (its fixed-width one, chrono's) read them: shared by the string kernels' parses.
#pragma once

#include "kernel_common.cuh"
#include "calendar.cuh"

// Reads `count` ASCII digits at `t` into `value`; false if one is not a digit.
__device__ __forceinline__ bool read_digits(const unsigned char* t, int count, i64* value) {
    i64 v = 0;
    bool digits = true;
    for (int k = 0; k < count; ++k) {
        digits = digits && t[k] >= '0' && t[k] <= '9';
        v = v * 10 + (t[k] - '0');
    }
    *value = v;
    return digits;
}

// Items of a parse format (`program`): a byte below 256 must be that byte;
// the fields are fixed-width ASCII digits; then a separator and a fraction.
#define PARSE_YEAR 256u    // 4 digits
#define PARSE_MONTH 257u   // 2 digits, 01 to 12
#define PARSE_DAY 258u     // 2 digits, a day of the month
#define PARSE_HOUR 259u    // 2 digits, 00 to 23
#define PARSE_MINUTE 260u  // 2 digits, 00 to 59
#define PARSE_SECOND 261u  // 2 digits, 00 to 59
#define PARSE_SPACE_OR_T 262u  // ' ' or 'T' (Polars' inferred formats read either)
#define PARSE_FRACTION 263u    // chrono's `%.f`: nothing, or '.' and 1 to 9 digits

// What a parse made of a text (see parse_date_time).
#define DATE_PARSED 0u     // the date (and time of day) it names
#define DATE_UNDECIDED 1u  // not of the form: Polars' parsers may read it otherwise
#define DATE_NO_VALUE 2u   // neither of Polars' parsers reads a value from it

// The text at `t` of `len` bytes, of exactly the form `program` gives,
// naming a date (and a time of day; missing time fields are 0): days since
// 1970-01-01, seconds into the day and nanoseconds into the second,
// DATE_PARSED. A text of that form whose fields name no date or time is
// DATE_NO_VALUE (Polars' fixed-width parser and chrono's both refuse a
// month, day, hour or minute out of range and a second past 60; chrono
// takes a second of 60 as a leap second, so that one is DATE_UNDECIDED);
// any other text is DATE_UNDECIDED.
__device__ __forceinline__ u32 parse_date_time(const unsigned char* t, i64 len,
                                               const u32* program, u32 program_len,
                                               i64* days, i64* seconds, i64* nanos) {
    i64 at = 0;
    i64 field[6] = {1970, 1, 1, 0, 0, 0};
    i64 fraction = 0;
    for (u32 p = 0; p < program_len; ++p) {
        u32 item = program[p];
        if (item < 256) {
            if (at >= len || t[at] != item) return DATE_UNDECIDED;
            ++at;
            continue;
        }
        if (item == PARSE_SPACE_OR_T) {
            if (at >= len || (t[at] != ' ' && t[at] != 'T')) return DATE_UNDECIDED;
            ++at;
            continue;
        }
        if (item == PARSE_FRACTION) {
            if (at >= len || t[at] != '.') continue;
            ++at;
            int digits = 0;
            i64 scale = 1000000000;
            while (at < len && t[at] >= '0' && t[at] <= '9') {
                if (digits < 9) {
                    scale /= 10;
                    fraction += (t[at] - '0') * scale;
                }
                ++digits;
                ++at;
            }
            // (Chrono skips digits past 9, but Polars' inference then reads
            // a text by its pattern's regular expression, which does not.)
            if (digits == 0 || digits > 9) return DATE_UNDECIDED;
            continue;
        }
        int width = item == PARSE_YEAR ? 4 : 2;
        i64 value;
        if (at + width > len || !read_digits(t + at, width, &value)) return DATE_UNDECIDED;
        at += width;
        field[item - PARSE_YEAR] = value;
    }
    if (at != len) return DATE_UNDECIDED;
    i64 year = field[0], month = field[1], day = field[2];
    if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month)) {
        return DATE_NO_VALUE;
    }
    if (field[3] > 23 || field[4] > 59 || field[5] > 60) return DATE_NO_VALUE;
    if (field[5] == 60) return DATE_UNDECIDED;
    *days = days_from_civil(year, month, day);
    *seconds = field[3] * 3600 + field[4] * 60 + field[5];
    *nanos = fraction;
    return DATE_PARSED;
}

// Whether neither of Polars' parsers (its fixed-width one, chrono's) reads
// a value from the text at `t` of `len` bytes in the format `program`: it
// is empty, or holds a byte none of them consumes (each consumes digits,
// signs, whitespace and the format's literal bytes only; a byte past ASCII
// may start a Unicode space chrono skips, so it counts as consumed).
__device__ __forceinline__ bool unreadable(const unsigned char* t, i64 len, const u32* program,
                                           u32 program_len) {
    if (len == 0) return true;
    for (i64 k = 0; k < len; ++k) {
        unsigned char c = t[k];
        bool consumed = (c >= '0' && c <= '9') || c == '+' || c == '-' || c == ' ' ||
                        (c >= '\t' && c <= '\r') || c >= 0x80;
        for (u32 p = 0; !consumed && p < program_len; ++p) {
            consumed = program[p] == c || (program[p] == PARSE_SPACE_OR_T && c == 'T') ||
                       (program[p] == PARSE_FRACTION && c == '.');
        }
        if (!consumed) return true;
    }
    return false;
}
