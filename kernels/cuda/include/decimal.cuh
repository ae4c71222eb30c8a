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
