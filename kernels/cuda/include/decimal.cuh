// Polars' decimal arithmetic on scaled integers held as i64 (the evaluator's OP_DECIMAL).
//
// Polars holds a decimal as an i128, the value times 10^scale, and computes
// in i128 (polars-compute's decimal.rs). The device holds the same integers
// as i64: every step here gives Polars' result where it fits in an i64, and
// raises `*overflow` where Polars' i128 would hold a value an i64 does not
// (or where Polars raises: a zero divisor), so that Polars answers instead.
#pragma once
#include "kernel_common.cuh"

typedef unsigned __int128 u128;

// Decimal steps (the kernel's numbering; gpu-runtime's `DecimalStep`).
enum DecimalStep : u32 {
    D_RESCALE = 0,     // from type, down, mode, up, precision: an integer (or decimal)
                       // divided by 10^down rounding by `mode` (enum Round), then times
                       // 10^up; null beyond `precision` digits (0: no limit)
    D_ADD = 1,         // two decimals of one scale
    D_SUB = 2,
    D_MUL = 3,         // scale: round(a * b / 10^scale), ties to even
    D_DIV = 4,         // scale: round(a * 10^scale / b), ties to even
    D_TO_FLOAT = 5,    // divisor (f64 bits, two words), out type: the value / 10^scale
    D_FROM_FLOAT = 6,  // from type, multiplier (f64 bits, two words), limit (f64 bits, two
                       // words): null unless |x| < limit (10^precision), else
                       // round(x * 10^scale), ties to even
};

// 10^e as a u128 (e <= 38).
__device__ __forceinline__ u128 pow10_u128(u32 e) {
    u128 r = 1;
    for (u32 i = 0; i < e; i++) r *= 10;
    return r;
}

// The signed value of magnitude `m` and sign `negative` as an i64, or false
// where it does not fit.
__device__ __forceinline__ bool signed_i64(u128 m, bool negative, i64* out) {
    if (negative) {
        if (m > (static_cast<u128>(1) << 63)) return false;
        *out = static_cast<i64>(static_cast<u64>(0) - static_cast<u64>(m));
        return true;
    }
    if (m >= (static_cast<u128>(1) << 63)) return false;
    *out = static_cast<i64>(static_cast<u64>(m));
    return true;
}

__device__ __forceinline__ u128 magnitude(i64 v) {
    return v < 0 ? static_cast<u128>(static_cast<u64>(0) - static_cast<u64>(v))
                 : static_cast<u128>(static_cast<u64>(v));
}

// n / d of magnitudes rounded by `mode` (the evaluator's enum Round: ties
// to even, ties away from zero, toward zero, down, up) for a value of sign
// `negative`.
__device__ __forceinline__ u128 div_round(u128 n, u128 d, u32 mode, bool negative) {
    u128 q = n / d, r = n % d;
    if (r == 0) return q;
    u128 twice = r * 2;
    bool up;
    switch (mode) {
        case 0: up = twice > d || (twice == d && (q & 1) != 0); break;
        case 1: up = twice >= d; break;
        case 3: up = negative; break;
        case 4: up = !negative; break;
        default: up = false; break;
    }
    return up ? q + 1 : q;
}

// D_RESCALE of a value `bits` of integer type `from_signed`: the magnitude
// divided by 10^down (rounded by `mode`), then times 10^up (up <= 38); null
// (valid false) beyond `precision` digits; `overflow` where the result
// leaves i64 within the precision (always for precision 0: Polars' i128
// holds it).
__device__ __forceinline__ i64 decimal_rescale(u64 bits, bool from_signed, u32 down, u32 mode,
                                               u32 up, u32 precision, bool* valid,
                                               bool* overflow) {
    bool negative = from_signed && static_cast<i64>(bits) < 0;
    u128 m = from_signed ? magnitude(static_cast<i64>(bits)) : static_cast<u128>(bits);
    if (down > 0) m = div_round(m, pow10_u128(down), mode, negative);
    // 10^38 is below 2^127: a magnitude past 10^38 / 10^up leaves every
    // precision.
    if (up > 0) {
        u128 p = pow10_u128(up);
        if (m != 0 && m > pow10_u128(38) / p) {
            if (precision == 0) *overflow = true;
            *valid = false;
            return 0;
        }
        m *= p;
    }
    if (precision != 0 && m >= pow10_u128(precision)) {
        *valid = false;
        return 0;
    }
    i64 out;
    if (!signed_i64(m, negative, &out)) {
        *overflow = true;
        *valid = false;
        return 0;
    }
    return out;
}

// D_MUL: round(a * b / 10^scale), ties to even.
__device__ __forceinline__ i64 decimal_mul(i64 a, i64 b, u32 scale, bool* overflow) {
    bool negative = (a < 0) != (b < 0);
    u128 m = magnitude(a) * magnitude(b);  // below 2^126
    if (scale > 0) m = div_round(m, pow10_u128(scale), 0, negative);
    i64 out = 0;
    if (!signed_i64(m, negative, &out)) *overflow = true;
    return out;
}

// D_DIV: round(a * 10^scale / b), ties to even as Polars rounds (a tie
// rounds up unless the divisor is even and the quotient odd); a zero
// divisor raises `overflow` (Polars raises).
__device__ __forceinline__ i64 decimal_div(i64 a, i64 b, u32 scale, bool* overflow) {
    if (b == 0) {
        *overflow = true;
        return 0;
    }
    bool negative = (a < 0) != (b < 0);
    u128 d = magnitude(b);
    u128 pow = pow10_u128(scale);
    u128 la = magnitude(a);
    if (la != 0 && la > (~static_cast<u128>(0) - d / 2) / pow) {
        *overflow = true;
        return 0;
    }
    u128 n = la * pow + d / 2;
    u128 q = n / d, r = n % d;
    if ((d & 1) == 0 && (q & 1) != 0 && r == 0) q -= 1;
    i64 out = 0;
    if (!signed_i64(q, negative, &out)) *overflow = true;
    return out;
}

// atoi_simd's parse of the digits s[0..len) (its parse_pos, leading zeros
// without limit) into `m`: false where there is none, another byte, or a
// value past `limit` (i128::MAX, or i32::MAX for exponents).
__device__ __forceinline__ bool parse_digits(const unsigned char* s, i64 len, u128 limit,
                                             u128* m) {
    if (len <= 0) return false;
    u128 v = 0;
    for (i64 k = 0; k < len; ++k) {
        u32 digit = static_cast<u32>(s[k]) - static_cast<u32>('0');
        if (digit > 9) return false;
        if (v > (limit - digit) / 10) return false;
        v = v * 10 + digit;
    }
    *m = v;
    return true;
}

// atoi_simd's signed parse (an optional '+' or '-', then parse_digits):
// the magnitude and sign, within i128 (or `limit_positive` and one more
// negative).
__device__ __forceinline__ bool parse_signed(const unsigned char* s, i64 len, u128 limit_positive,
                                             u128* m, bool* negative) {
    *negative = false;
    if (len > 0 && (s[0] == '+' || s[0] == '-')) {
        *negative = s[0] == '-';
        ++s;
        --len;
    }
    return parse_digits(s, len, limit_positive + (*negative ? 1 : 0), m);
}

__device__ __forceinline__ bool all_digits(const unsigned char* s, i64 len) {
    for (i64 k = 0; k < len; ++k) {
        if (s[k] < '0' || s[k] > '9') return false;
    }
    return true;
}

__device__ __forceinline__ bool all_zeros(const unsigned char* s, i64 len) {
    for (i64 k = 0; k < len; ++k) {
        if (s[k] != '0') return false;
    }
    return true;
}

// Polars' cast of the text s[0..len) to Decimal(precision, scale)
// (polars-compute's str_to_dec128): digits with an optional sign, one '.'
// and an exponent, rounded to the scale ties to even; false (null) where it
// does not parse or leaves the precision. Where Polars' i128 holds a value
// an i64 does not, or at the edges of its arithmetic (exponents past
// 2^30), `undecided` is set: Polars answers.
__device__ __forceinline__ bool parse_decimal(const unsigned char* s, i64 len, u32 precision,
                                              u32 scale, i64* out, bool* undecided) {
    const u128 i128_max = ~static_cast<u128>(0) >> 1;
    i64 exp_pos = len;
    for (i64 k = 0; k < len; ++k) {
        if (s[k] == 'e' || s[k] == 'E') {
            exp_pos = k;
            break;
        }
    }
    i64 sep_pos = exp_pos;
    for (i64 k = 0; k < exp_pos; ++k) {
        if (s[k] == '.') {
            sep_pos = k;
            break;
        }
    }
    const unsigned char* int_bytes = s;
    i64 int_len = sep_pos;
    const unsigned char* frac_bytes = s + sep_pos;
    i64 frac_len = exp_pos - sep_pos;
    u128 limit = pow10_u128(precision);
    bool negative = false;
    u128 value = 0;
    if (frac_len == 0 && exp_pos == len) {
        // Integers: times 10^scale, within i128 and the precision.
        u128 n;
        if (!parse_signed(s, len, i128_max, &n, &negative)) return false;
        if (n != 0 && n > i128_max / pow10_u128(scale)) return false;
        value = n * pow10_u128(scale);
        if (value >= limit) return false;
    } else {
        if (int_len > 0 && (int_bytes[0] == '+' || int_bytes[0] == '-')) {
            negative = int_bytes[0] == '-';
            ++int_bytes;
            --int_len;
        }
        if (frac_len > 0) {
            ++frac_bytes;
            --frac_len;
        }
        if (frac_len == 0 && int_len == 0) return false;
        i64 exponent = 0;
        if (exp_pos != len) {
            u128 e;
            bool e_negative;
            if (!parse_signed(s + exp_pos + 1, len - exp_pos - 1, 2147483647u, &e, &e_negative)) {
                return false;
            }
            exponent = e_negative ? -static_cast<i64>(e) : static_cast<i64>(e);
            if (exponent > (1 << 30) || exponent < -(1 << 30)) {
                *undecided = true;
                return false;
            }
        }
        i64 combined = exponent + scale;
        unsigned char next_digit;
        bool zeros_after;
        i64 int_scale, frac_scale;
        if (combined < 0) {
            i64 cut = -combined;
            i64 kept = int_len > cut ? int_len - cut : 0;
            if (!all_digits(int_bytes + kept, int_len - kept) || !all_digits(frac_bytes, frac_len)) {
                return false;
            }
            if (cut > int_len) {
                *out = 0;
                return true;
            }
            next_digit = int_bytes[kept];
            zeros_after = all_zeros(int_bytes + kept + 1, int_len - kept - 1) &&
                          all_zeros(frac_bytes, frac_len);
            int_len = kept;
            frac_len = 0;
            int_scale = 0;
            frac_scale = 0;
        } else if (frac_len > combined) {
            if (!all_digits(frac_bytes + combined, frac_len - combined)) return false;
            next_digit = frac_bytes[combined];
            zeros_after = all_zeros(frac_bytes + combined + 1, frac_len - combined - 1);
            frac_len = combined;
            int_scale = combined;
            frac_scale = 0;
        } else {
            next_digit = '0';
            zeros_after = true;
            int_scale = combined;
            frac_scale = combined - frac_len;
        }
        u128 whole = 0, fraction = 0;
        if (int_len > 0 && !parse_digits(int_bytes, int_len, i128_max, &whole)) return false;
        if (frac_len > 0 && !parse_digits(frac_bytes, frac_len, i128_max, &fraction)) return false;
        if (next_digit > '5' || (next_digit == '5' && !zeros_after)) {
            fraction += 1;
        } else if (next_digit == '5') {
            if (combined <= 0) {
                whole += whole % 2;
            } else {
                fraction += fraction % 2;
            }
        }
        if (whole > 0) {
            if (int_scale > 38) return false;
            u128 p = pow10_u128(static_cast<u32>(int_scale));
            if (whole > i128_max / p) return false;
            whole *= p;
        }
        if (fraction > 0) {
            if (frac_scale > 38) return false;
            u128 p = pow10_u128(static_cast<u32>(frac_scale));
            if (fraction > i128_max / p) return false;
            fraction *= p;
        }
        if (whole > i128_max - fraction) {
            // Polars' i128 addition past i128 (its release build wraps).
            *undecided = true;
            return false;
        }
        value = whole + fraction;
        if (value >= limit) return false;
    }
    if (!signed_i64(value, negative, out)) {
        *undecided = true;
        return false;
    }
    return true;
}
