// The fused expression evaluator: one launch evaluates a whole elementwise expression tree.
//
// An expression is compiled (by gpu-runtime) into a small stack program of
// 32-bit words; every thread runs it for its rows. Values are 64-bit slots
// (integers sign- or zero-extended, floats as doubles or floats' bits) with a
// validity flag. Semantics follow Polars: nulls propagate; and/or on
// booleans are Kleene; integer arithmetic wraps at the type's width;
// division and modulo floor (the remainder takes the divisor's sign) and give
// null for a zero divisor; true division is in doubles.
#include "kernel_common.cuh"
#include "calendar.cuh"
#include "decimal.cuh"

// Value types (physical).
enum Type : u32 { T_BOOL = 0, T_I8, T_I16, T_I32, T_I64, T_U8, T_U16, T_U32, T_U64, T_F32, T_F64 };

// Opcodes; each is followed by its operands.
enum Op : u32 {
    OP_COLUMN = 1,   // column, type
    OP_CONST = 2,    // type, low word, high word, valid
    OP_BINARY = 3,   // binary op, operand type
    OP_NOT = 4,      // type
    OP_NEGATE = 5,   // type
    OP_ABS = 6,      // type
    OP_IS_NULL = 7,
    OP_IS_NOT_NULL = 8,
    OP_CAST = 9,     // from type, to type
    OP_TERNARY = 10,
    OP_FILL_NULL = 11,
    OP_ROUND = 12,   // mode, decimals, multiplier low word, high word (f64 only)
    OP_DATE_PART = 13,  // part, input type, units per day low word, high word; out type
    OP_FLOAT_CHECK = 14,  // class (0 NaN, 1 not NaN, 2 finite, 3 infinite), float type
    OP_CAST_CHECKED = 15,  // from type, to type (an integer): null where the value does not fit
    OP_DUP = 16,           // pushes a copy of the top value
    OP_STRICT = 17,        // pops a result and the value it came from; flags the row where a
                           // value became null, pushes the result
    OP_CAST_WRAPPING = 18, // from type, to type (an integer): as Rust's `as`
    OP_CLIP = 19,          // type: pops upper, lower; clips the value below them
    OP_FUNCTION = 20,      // function (enum Function), type
    OP_TRUNCATE_MONTHS = 21,  // type (I32 days or I64 ticks), months, ticks per day (two
                              // words each): to the first day of its block of months
    OP_DECIMAL = 22,          // step (enum DecimalStep), its words: decimal arithmetic
                              // (decimal.cuh); flags rows an i64 cannot answer
    OP_ADD_MONTHS = 23,       // months, ticks per day (two words each): an I64 timestamp
                              // moved by whole months
};

// Parts of a date or timestamp: the proleptic Gregorian calendar, ISO
// weekday (Monday 1) and week, day of the year; hours to nanoseconds of the
// time of day.
enum DatePart : u32 {
    P_YEAR = 0, P_QUARTER, P_MONTH, P_DAY, P_WEEKDAY, P_ORDINAL_DAY, P_WEEK,
    P_HOUR, P_MINUTE, P_SECOND, P_MILLISECOND, P_MICROSECOND, P_NANOSECOND,
};

// The 64-bit operand a program holds in two words, low first.
__device__ __forceinline__ u64 program_word64(const u32* words) {
    return words[0] | static_cast<u64>(words[1]) << 32;
}

// ISO weekday of a day count, Monday 1 (1970-01-01 was a Thursday).
__device__ __forceinline__ i64 iso_weekday(i64 days) {
    i64 r = days + 3;
    return r - floor_div(r, 7) * 7 + 1;
}

// Day of the year, 1 to 366.
__device__ __forceinline__ i64 ordinal_day(i64 year, i64 month, i64 day) {
    return days_from_civil(year, month, day) - days_from_civil(year, 1, 1) + 1;
}

// Whether an ISO year has 53 weeks: it starts on a Thursday, or on a
// Wednesday in a leap year.
__device__ __forceinline__ bool long_iso_year(i64 year) {
    i64 first = iso_weekday(days_from_civil(year, 1, 1));
    return first == 4 || (first == 3 && is_leap(year));
}

// `part` of the day `days` after 1970-01-01.
__device__ __forceinline__ i64 date_part(i64 days, u32 part) {
    if (part == P_WEEKDAY) return iso_weekday(days);
    i64 year, month, day;
    civil(days, &year, &month, &day);
    switch (part) {
        case P_YEAR: return year;
        case P_QUARTER: return (month + 2) / 3;
        case P_MONTH: return month;
        case P_ORDINAL_DAY: return ordinal_day(year, month, day);
        case P_WEEK: {
            i64 week = (ordinal_day(year, month, day) - iso_weekday(days) + 10) / 7;
            if (week < 1) return long_iso_year(year - 1) ? 53 : 52;
            if (week == 53 && !long_iso_year(year)) return 1;
            return week;
        }
        default: return day;
    }
}

// `part` (an hour to a nanosecond) of the time of day `tick` (0 <= tick <
// per_day, in ticks of per_day per day).
__device__ __forceinline__ i64 time_part(i64 tick, i64 per_day, u32 part) {
    i64 per_second = per_day / 86400;
    i64 seconds = tick / per_second;
    i64 nanos = (tick % per_second) * (1000000000 / per_second);
    switch (part) {
        case P_HOUR: return seconds / 3600;
        case P_MINUTE: return seconds / 60 % 60;
        case P_SECOND: return seconds % 60;
        case P_MILLISECOND: return nanos / 1000000;
        case P_MICROSECOND: return nanos / 1000;
        default: return nanos;
    }
}

// Rounding modes: ties to even, ties away from zero, toward zero, down, up.
enum Round : u32 { R_HALF_TO_EVEN = 0, R_HALF_AWAY_FROM_ZERO, R_TO_ZERO, R_FLOOR, R_CEIL };

__device__ __forceinline__ double round_by(double x, u32 mode) {
    switch (mode) {
        case R_HALF_TO_EVEN: return rint(x);  // the default rounding mode: ties to even
        case R_HALF_AWAY_FROM_ZERO: return round(x);
        case R_FLOOR: return floor(x);
        case R_CEIL: return ceil(x);
        default: return trunc(x);
    }
}

enum Binary : u32 {
    B_ADD = 0, B_SUB, B_MUL, B_DIV, B_TRUEDIV, B_FLOORDIV, B_MOD,
    B_EQ, B_NE, B_LT, B_LE, B_GT, B_GE, B_AND, B_OR, B_XOR,
    // Division, floor division and modulo of floats (true division of
    // integers, as doubles) by a value broadcast from one row: Polars'
    // scalar kernels multiply by the divisor's reciprocal (rounded to the
    // type) unless both sides have one row.
    B_SCALAR_DIV, B_SCALAR_FLOORDIV, B_SCALAR_MOD,
    // Addition and subtraction of floats with a value broadcast from one
    // row: Polars' scalar kernels return the other operand unchanged for a
    // zero (keeping -0.0) or, subtracting from zero, negate it; unless both
    // sides have one row.
    B_SCALAR_ADD, B_SCALAR_SUB, B_SCALAR_FROM_SUB,
};

struct Slot {
    u64 bits;
    bool valid;
};

__device__ __forceinline__ bool is_float(u32 t) { return t == T_F32 || t == T_F64; }
__device__ __forceinline__ bool is_signed(u32 t) {
    return t == T_I8 || t == T_I16 || t == T_I32 || t == T_I64;
}

__device__ __forceinline__ double as_double(u64 bits, u32 t) {
    if (t == T_F64) {
        double d;
        memcpy(&d, &bits, 8);
        return d;
    }
    if (t == T_F32) {
        float f;
        u32 low = static_cast<u32>(bits);
        memcpy(&f, &low, 4);
        return static_cast<double>(f);
    }
    return is_signed(t) ? static_cast<double>(static_cast<i64>(bits)) : static_cast<double>(bits);
}

__device__ __forceinline__ u64 from_double(double d, u32 t) {
    if (t == T_F64) {
        u64 bits;
        memcpy(&bits, &d, 8);
        return bits;
    }
    float f = static_cast<float>(d);
    u32 bits;
    memcpy(&bits, &f, 4);
    return bits;
}

// Wraps an integer to the width of `t`, sign- or zero-extended again.
__device__ __forceinline__ u64 wrap(u64 v, u32 t) {
    switch (t) {
        case T_BOOL: return v & 1;
        case T_I8: return static_cast<u64>(static_cast<i64>(static_cast<signed char>(v)));
        case T_I16: return static_cast<u64>(static_cast<i64>(static_cast<short>(v)));
        case T_I32: return static_cast<u64>(static_cast<i64>(static_cast<int>(v)));
        case T_U8: return v & 0xffull;
        case T_U16: return v & 0xffffull;
        case T_U32: return v & 0xffffffffull;
        default: return v;
    }
}

// Unary functions of numbers (OP_FUNCTION), numbered as ir-lower's
// `UnaryFunction` (a test in gpu-exec reads both). Each gives Rust's value to
// the last bit; ir-lower says which types each takes.
enum Function : u32 {
    F_SQRT = 0,
    F_SIGN = 1,
};

// `f` of the value `bits` of type `t`, of type `t`.
__device__ __forceinline__ u64 unary_function(u32 f, u64 bits, u32 t) {
    switch (f) {
        case F_SIGN: {
            if (is_float(t)) {
                double x = as_double(bits, t);
                // Zeros and NaN stay as they are, as in Polars.
                return x < 0 ? from_double(-1.0, t) : x > 0 ? from_double(1.0, t) : bits;
            }
            if (is_signed(t) && static_cast<i64>(bits) < 0) return wrap(~0ull, t);
            return bits != 0 ? 1 : 0;
        }
        default: {  // F_SQRT, of floats
            // Correctly rounded in f64, so also for f32 (53 >= 2 * 24 + 2 bits).
            return from_double(sqrt(as_double(bits, t)), t);
        }
    }
}

__device__ __forceinline__ u64 load(u64 column, u32 t, u64 i) {
    switch (t) {
        case T_BOOL: return (reinterpret_cast<const u32*>(column)[i / 32] >> (i % 32)) & 1u;
        case T_I8: return wrap(reinterpret_cast<const unsigned char*>(column)[i], T_I8);
        case T_U8: return reinterpret_cast<const unsigned char*>(column)[i];
        case T_I16: return wrap(reinterpret_cast<const unsigned short*>(column)[i], T_I16);
        case T_U16: return reinterpret_cast<const unsigned short*>(column)[i];
        case T_I32: return wrap(reinterpret_cast<const u32*>(column)[i], T_I32);
        case T_U32:
        case T_F32: return reinterpret_cast<const u32*>(column)[i];
        default: return reinterpret_cast<const u64*>(column)[i];
    }
}

__device__ __forceinline__ int compare_values(u64 a, u64 b, u32 t) {
    if (is_float(t)) {
        double x = as_double(a, t), y = as_double(b, t);
        bool xn = x != x, yn = y != y;
        if (xn || yn) return xn == yn ? 0 : (xn ? 1 : -1);
        return x < y ? -1 : (y < x ? 1 : 0);
    }
    if (is_signed(t) || t == T_BOOL) {
        i64 x = static_cast<i64>(a), y = static_cast<i64>(b);
        return x < y ? -1 : (y < x ? 1 : 0);
    }
    return a < b ? -1 : (b < a ? 1 : 0);
}

// a < b as IEEE numbers for floats (false where either is NaN), by value
// for integers.
__device__ __forceinline__ bool less_ieee(u64 a, u64 b, u32 t) {
    if (is_float(t)) return as_double(a, t) < as_double(b, t);
    return compare_values(a, b, t) < 0;
}

__device__ __forceinline__ Slot binary(u32 op, u32 t, Slot a, Slot b, u64 n) {
    Slot r{0, a.valid && b.valid};
    if (op == B_AND || op == B_OR) {
        if (t == T_BOOL) {
            bool a_true = a.valid && a.bits, b_true = b.valid && b.bits;
            bool a_false = a.valid && !a.bits, b_false = b.valid && !b.bits;
            if (op == B_AND) {
                if (a_false || b_false) return Slot{0, true};
                return Slot{1, a.valid && b.valid};
            }
            if (a_true || b_true) return Slot{1, true};
            return Slot{0, a.valid && b.valid};
        }
        r.bits = op == B_AND ? (a.bits & b.bits) : (a.bits | b.bits);
        return r;
    }
    if (!r.valid) return r;
    if (op >= B_EQ && op <= B_GE) {
        int c = compare_values(a.bits, b.bits, t);
        bool v = op == B_EQ ? c == 0 : op == B_NE ? c != 0 : op == B_LT ? c < 0
               : op == B_LE ? c <= 0 : op == B_GT ? c > 0 : c >= 0;
        r.bits = v ? 1 : 0;
        return r;
    }
    if (op == B_XOR) {
        r.bits = wrap(a.bits ^ b.bits, t);
        return r;
    }
    if (op >= B_SCALAR_ADD && n != 1) {
        double x = as_double(a.bits, t), y = as_double(b.bits, t);
        double v = op == B_SCALAR_FROM_SUB ? (x == 0.0 ? -y : x - y)
                 : y == 0.0 ? x : op == B_SCALAR_ADD ? x + y : x - y;
        r.bits = from_double(v, t);
        return r;
    }
    if (op >= B_SCALAR_DIV && op <= B_SCALAR_MOD) {
        u32 out_t = is_float(t) ? t : static_cast<u32>(T_F64);
        double x = as_double(a.bits, t), y = as_double(b.bits, t);
        double q = n == 1 ? x / y : x * as_double(from_double(1.0 / y, out_t), out_t);
        // (Each step rounded to the type, as the type's own operations are.)
        q = as_double(from_double(q, out_t), out_t);
        double v = q;
        if (op == B_SCALAR_FLOORDIV) v = floor(q);
        if (op == B_SCALAR_MOD) v = x - as_double(from_double(y * floor(q), out_t), out_t);
        r.bits = from_double(v, out_t);
        return r;
    }
    if (op == B_TRUEDIV || is_float(t)) {
        double x = as_double(a.bits, t), y = as_double(b.bits, t);
        double v;
        switch (op) {
            case B_ADD: case B_SCALAR_ADD: v = x + y; break;
            case B_SUB: case B_SCALAR_SUB: case B_SCALAR_FROM_SUB: v = x - y; break;
            case B_MUL: v = x * y; break;
            // (Each step rounded to the type, as the type's own operations
            // are: f32 arithmetic is not f64 arithmetic rounded once.)
            case B_FLOORDIV: v = floor(as_double(from_double(x / y, t), t)); break;
            case B_MOD: {
                double q = floor(as_double(from_double(x / y, t), t));
                v = x - as_double(from_double(q * y, t), t);
                break;
            }
            default: v = x / y; break;
        }
        r.bits = from_double(v, op == B_TRUEDIV && !is_float(t) ? static_cast<u32>(T_F64) : t);
        return r;
    }
    if (op == B_ADD || op == B_SUB || op == B_MUL) {
        u64 v = op == B_ADD ? a.bits + b.bits : op == B_SUB ? a.bits - b.bits : a.bits * b.bits;
        r.bits = wrap(v, t);
        return r;
    }
    // Floor division and modulo; a zero divisor gives null.
    if (b.bits == 0) return Slot{0, false};
    if (is_signed(t)) {
        i64 x = static_cast<i64>(a.bits), y = static_cast<i64>(b.bits);
        if (y == -1) {
            // Avoid the overflow trap of MIN / -1: wrap as Polars does.
            r.bits = wrap(op == B_MOD ? 0 : static_cast<u64>(0) - a.bits, t);
            return r;
        }
        i64 q = x / y, m = x % y;
        if (m != 0 && ((m < 0) != (y < 0))) {
            q -= 1;
            m += y;
        }
        r.bits = wrap(static_cast<u64>(op == B_MOD ? m : q), t);
        return r;
    }
    r.bits = wrap(op == B_MOD ? a.bits % b.bits : a.bits / b.bits, t);
    return r;
}

__device__ __forceinline__ Slot cast(Slot s, u32 from, u32 to) {
    if (!s.valid || from == to) return s;
    if (is_float(to)) return Slot{from_double(as_double(s.bits, from), to), true};
    if (to == T_BOOL) return Slot{is_float(from) ? (as_double(s.bits, from) != 0.0) : s.bits != 0, true};
    // Integer to a wider or equal integer (the compiler only emits these).
    return Slot{wrap(s.bits, to), true};
}

// The bits of an integer type.
__device__ __forceinline__ u32 int_bits(u32 t) {
    switch (t) {
        case T_I8: case T_U8: return 8;
        case T_I16: case T_U16: return 16;
        case T_I32: case T_U32: return 32;
        default: return 64;
    }
}

// A cast to integer type `to` that may not hold the value: floats truncate
// toward zero; out of range (or NaN) gives null, as Polars' non-strict cast.
__device__ __forceinline__ Slot checked_cast(Slot s, u32 from, u32 to) {
    if (!s.valid) return s;
    u32 bits = int_bits(to);
    Slot null_slot{0, false};
    if (is_float(from)) {
        double t = trunc(as_double(s.bits, from));
        if (t != t) return null_slot;
        // 2^(bits - 1) and 2^bits, exactly, as doubles.
        double half = static_cast<double>(1ull << (bits - 1));
        if (is_signed(to)) {
            if (t < -half || t >= half) return null_slot;
            return Slot{wrap(static_cast<u64>(static_cast<i64>(t)), to), true};
        }
        if (t < 0.0 || t >= 2.0 * half) return null_slot;
        return Slot{static_cast<u64>(t), true};
    }
    if (is_signed(from)) {
        i64 v = static_cast<i64>(s.bits);
        if (is_signed(to)) {
            i64 high = static_cast<i64>((1ull << (bits - 1)) - 1);
            if (v < -high - 1 || v > high) return null_slot;
        } else if (v < 0 || (bits < 64 && static_cast<u64>(v) >> bits != 0)) {
            return null_slot;
        }
        return Slot{wrap(s.bits, to), true};
    }
    u64 v = s.bits;
    u64 high = is_signed(to) ? (1ull << (bits - 1)) - 1 : (bits == 64 ? ~0ull : (1ull << bits) - 1);
    if (v > high) return null_slot;
    return Slot{wrap(v, to), true};
}

// A cast to integer type `to` as Rust's `as` (Polars' overflowing cast):
// integers wrap; floats truncate toward zero and saturate at `to`'s
// range, NaN giving 0.
__device__ __forceinline__ Slot wrapping_cast(Slot s, u32 from, u32 to) {
    if (!s.valid || !is_float(from)) return Slot{wrap(s.bits, to), s.valid};
    double t = trunc(as_double(s.bits, from));
    if (t != t) return Slot{0, true};
    u32 bits = int_bits(to);
    double half = static_cast<double>(1ull << (bits - 1));
    if (is_signed(to)) {
        if (t < -half) return Slot{wrap(1ull << (bits - 1), to), true};
        if (t >= half) return Slot{(1ull << (bits - 1)) - 1, true};
        return Slot{wrap(static_cast<u64>(static_cast<i64>(t)), to), true};
    }
    if (t < 0.0) return Slot{0, true};
    if (t >= 2.0 * half) return Slot{bits == 64 ? ~0ull : (1ull << bits) - 1, true};
    return Slot{static_cast<u64>(t), true};
}

constexpr int kStack = 16;

// `failed` is set to 1 where OP_STRICT finds a value that became null, and
// where OP_DECIMAL meets a value Polars holds and an i64 does not; it may be
// null for programs without either.

extern "C" __global__ void eval_expression(const u32* program, u32 program_len,
                                           const u64* columns, const u64* validities, u64 n,
                                           u32 out_type, void* out, u32* out_validity,
                                           u32* failed) {
    unsigned int lane = threadIdx.x % 32;
    for (u64 i = global_index(); i - lane < n; i += global_stride()) {
        Slot stack[kStack];
        int top = 0;
        if (i < n) {
            for (u32 pc = 0; pc < program_len;) {
                u32 op = program[pc++];
                switch (op) {
                    case OP_COLUMN: {
                        u32 c = program[pc++], t = program[pc++];
                        const u32* validity = reinterpret_cast<const u32*>(validities[c]);
                        stack[top++] = Slot{load(columns[c], t, i), is_valid(validity, i)};
                        break;
                    }
                    case OP_CONST: {
                        pc++;  // type
                        u64 low = program[pc++], high = program[pc++];
                        bool valid = program[pc++] != 0;
                        stack[top++] = Slot{low | (high << 32), valid};
                        break;
                    }
                    case OP_BINARY: {
                        u32 b_op = program[pc++], t = program[pc++];
                        Slot b = stack[--top];
                        Slot a = stack[--top];
                        stack[top++] = binary(b_op, t, a, b, n);
                        break;
                    }
                    case OP_NOT: {
                        u32 t = program[pc++];
                        Slot& s = stack[top - 1];
                        s.bits = t == T_BOOL ? (s.bits ^ 1) : wrap(~s.bits, t);
                        break;
                    }
                    case OP_NEGATE: {
                        u32 t = program[pc++];
                        Slot& s = stack[top - 1];
                        s.bits = is_float(t) ? from_double(-as_double(s.bits, t), t)
                                             : wrap(static_cast<u64>(0) - s.bits, t);
                        break;
                    }
                    case OP_ABS: {
                        u32 t = program[pc++];
                        Slot& s = stack[top - 1];
                        if (is_float(t)) {
                            s.bits = from_double(fabs(as_double(s.bits, t)), t);
                        } else if (is_signed(t) && static_cast<i64>(s.bits) < 0) {
                            s.bits = wrap(static_cast<u64>(0) - s.bits, t);
                        }
                        break;
                    }
                    case OP_IS_NULL:
                    case OP_IS_NOT_NULL: {
                        Slot& s = stack[top - 1];
                        s.bits = (s.valid == (op == OP_IS_NOT_NULL)) ? 1 : 0;
                        s.valid = true;
                        break;
                    }
                    case OP_FLOAT_CHECK: {
                        u32 check = program[pc++], t = program[pc++];
                        Slot& s = stack[top - 1];
                        double v = as_double(s.bits, t);
                        bool nan = v != v;
                        bool finite = !nan && v - v == 0.0;
                        bool result = check == 0   ? nan
                                      : check == 1 ? !nan
                                      : check == 2 ? finite
                                                   : !nan && !finite;
                        s.bits = result ? 1 : 0;
                        break;
                    }
                    case OP_CAST_CHECKED: {
                        u32 from = program[pc++], to = program[pc++];
                        stack[top - 1] = checked_cast(stack[top - 1], from, to);
                        break;
                    }
                    case OP_CAST_WRAPPING: {
                        u32 from = program[pc++], to = program[pc++];
                        stack[top - 1] = wrapping_cast(stack[top - 1], from, to);
                        break;
                    }
                    case OP_TRUNCATE_MONTHS: {
                        // Polars' dt.truncate by months: the first day of the
                        // block of `months` months (counted from January 1970)
                        // holding the day.
                        u32 t = program[pc++];
                        i64 months = static_cast<i64>(program_word64(program + pc));
                        i64 per_day = static_cast<i64>(program_word64(program + pc + 2));
                        pc += 4;
                        Slot& s = stack[top - 1];
                        i64 v = t == T_I32 ? static_cast<i64>(static_cast<i32>(s.bits))
                                           : static_cast<i64>(s.bits);
                        i64 year, month, day;
                        civil(floor_div(v, per_day), &year, &month, &day);
                        i64 total = (year - 1970) * 12 + (month - 1);
                        i64 first = total - (total - floor_div(total, months) * months);
                        i64 start_year = 1970 + floor_div(first, 12);
                        i64 start_month = first - floor_div(first, 12) * 12 + 1;
                        s.bits = wrap(static_cast<u64>(days_from_civil(start_year, start_month, 1) * per_day), t);
                        break;
                    }
                    case OP_ADD_MONTHS: {
                        // Polars' dt.offset_by of whole months (its add_month):
                        // the same time of day and day of the month, the day
                        // clamped to the last of the month it lands in;
                        // wrapping where the ticks leave i64.
                        i64 months = static_cast<i64>(program_word64(program + pc));
                        i64 per_day = static_cast<i64>(program_word64(program + pc + 2));
                        pc += 4;
                        Slot& s = stack[top - 1];
                        i64 v = static_cast<i64>(s.bits);
                        i64 days = floor_div(v, per_day);
                        i64 time = v - days * per_day;
                        i64 year, month, day;
                        civil(days, &year, &month, &day);
                        i64 total = year * 12 + (month - 1) + months;
                        i64 to_year = floor_div(total, 12);
                        i64 to_month = total - to_year * 12 + 1;
                        i64 last = days_in_month(to_year, to_month);
                        i64 to_days = days_from_civil(to_year, to_month, day < last ? day : last);
                        s.bits = static_cast<u64>(to_days) * static_cast<u64>(per_day) + static_cast<u64>(time);
                        break;
                    }
                    case OP_FUNCTION: {
                        u32 f = program[pc++];
                        u32 t = program[pc++];
                        Slot& s = stack[top - 1];
                        s.bits = unary_function(f, s.bits, t);
                        break;
                    }
                    case OP_CLIP: {
                        // As Polars' clamp: below the lower bound, else above
                        // the upper; a null bound does not clip.
                        u32 t = program[pc++];
                        Slot upper = stack[--top];
                        Slot lower = stack[--top];
                        Slot& s = stack[top - 1];
                        if (s.valid && lower.valid && less_ieee(s.bits, lower.bits, t)) {
                            s.bits = lower.bits;
                        } else if (s.valid && upper.valid && less_ieee(upper.bits, s.bits, t)) {
                            s.bits = upper.bits;
                        }
                        break;
                    }
                    case OP_DUP: {
                        stack[top] = stack[top - 1];
                        top++;
                        break;
                    }
                    case OP_STRICT: {
                        Slot result = stack[--top];
                        if (stack[top - 1].valid && !result.valid) *failed = 1;
                        stack[top - 1] = result;
                        break;
                    }
                    case OP_DECIMAL: {
                        u32 step = program[pc++];
                        bool overflow = false;
                        if (step == D_ADD || step == D_SUB || step == D_MUL || step == D_DIV) {
                            u32 scale = step >= D_MUL ? program[pc++] : 0;
                            Slot b = stack[--top];
                            Slot& a = stack[top - 1];
                            if (!(a.valid && b.valid)) {
                                a = Slot{0, false};
                                break;
                            }
                            i64 x = static_cast<i64>(a.bits), y = static_cast<i64>(b.bits);
                            i64 r = 0;
                            if (step == D_MUL) {
                                r = decimal_mul(x, y, scale, &overflow);
                            } else if (step == D_DIV) {
                                r = decimal_div(x, y, scale, &overflow);
                            } else {
                                u64 v = step == D_ADD ? a.bits + b.bits : a.bits - b.bits;
                                r = static_cast<i64>(v);
                                // Signed overflow: adding, the result's sign differs
                                // from both operands'; subtracting, the operands'
                                // signs differ and the result's is the subtrahend's.
                                overflow = step == D_ADD ? ((x ^ r) & (y ^ r)) < 0
                                                         : ((x ^ y) & (x ^ r)) < 0;
                            }
                            a.bits = static_cast<u64>(r);
                        } else if (step == D_RESCALE) {
                            u32 from = program[pc], down = program[pc + 1], mode = program[pc + 2];
                            u32 up = program[pc + 3], precision = program[pc + 4];
                            pc += 5;
                            Slot& s = stack[top - 1];
                            if (s.valid) {
                                s.bits = static_cast<u64>(decimal_rescale(s.bits, is_signed(from), down, mode,
                                                                          up, precision, &s.valid, &overflow));
                            }
                        } else if (step == D_TO_FLOAT) {
                            u64 divisor_bits = program_word64(program + pc);
                            u32 out_t = program[pc + 2];
                            pc += 3;
                            double divisor;
                            memcpy(&divisor, &divisor_bits, 8);
                            Slot& s = stack[top - 1];
                            double v = static_cast<double>(static_cast<i64>(s.bits)) / divisor;
                            s.bits = from_double(v, out_t);
                        } else {  // D_FROM_FLOAT
                            u32 from = program[pc];
                            u64 multiplier_bits = program_word64(program + pc + 1);
                            u64 limit_bits = program_word64(program + pc + 3);
                            pc += 5;
                            double multiplier, limit;
                            memcpy(&multiplier, &multiplier_bits, 8);
                            memcpy(&limit, &limit_bits, 8);
                            Slot& s = stack[top - 1];
                            if (s.valid) {
                                double x = as_double(s.bits, from);
                                if (!(fabs(x) < limit)) {
                                    s = Slot{0, false};
                                } else {
                                    double r = rint(x * multiplier);
                                    // 2^63 exactly, as a double. Polars checks the
                                    // float, not the scaled value, against the
                                    // precision: a scaled value beyond it is a
                                    // decimal Polars raises on where it meets it
                                    // (an implode) and keeps elsewhere: Polars
                                    // answers (10^p is exact up to p = 18).
                                    double high = 9223372036854775808.0;
                                    if (r >= high || r < -high || fabs(r) >= limit) {
                                        overflow = true;
                                        s = Slot{0, false};
                                    } else {
                                        s.bits = static_cast<u64>(static_cast<i64>(r));
                                    }
                                }
                            }
                        }
                        if (overflow) *failed = 1;
                        break;
                    }
                    case OP_CAST: {
                        u32 from = program[pc++], to = program[pc++];
                        stack[top - 1] = cast(stack[top - 1], from, to);
                        break;
                    }
                    case OP_TERNARY: {
                        Slot f = stack[--top];
                        Slot t = stack[--top];
                        Slot p = stack[--top];
                        stack[top++] = (p.valid && p.bits != 0) ? t : f;
                        break;
                    }
                    case OP_ROUND: {
                        // As Polars: round(x * 10^d) / 10^d, the input where
                        // that overflows; the host computes 10^d as Polars does.
                        u32 mode = program[pc++], decimals = program[pc++];
                        u64 low = program[pc++], high = program[pc++];
                        u64 multiplier_bits = low | (high << 32);
                        double multiplier;
                        memcpy(&multiplier, &multiplier_bits, 8);
                        Slot& s = stack[top - 1];
                        double x = as_double(s.bits, T_F64);
                        double r = round_by(x, mode);
                        if (decimals != 0) {
                            r = round_by(x * multiplier, mode) / multiplier;
                            if (!isfinite(r)) r = x;
                        }
                        s.bits = from_double(r, T_F64);
                        break;
                    }
                    case OP_DATE_PART: {
                        u32 part = program[pc++], t = program[pc++];
                        u64 low = program[pc++], high = program[pc++];
                        u32 out_t = program[pc++];
                        i64 per_day = static_cast<i64>(low | (high << 32));
                        Slot& s = stack[top - 1];
                        i64 v = t == T_I32 ? static_cast<i64>(static_cast<i32>(s.bits))
                                           : static_cast<i64>(s.bits);
                        i64 days = floor_div(v, per_day);
                        i64 r = part >= P_HOUR ? time_part(v - days * per_day, per_day, part)
                                               : date_part(days, part);
                        s.bits = wrap(static_cast<u64>(r), out_t);
                        break;
                    }
                    default: {  // OP_FILL_NULL
                        Slot value = stack[--top];
                        Slot& s = stack[top - 1];
                        if (!s.valid) s = value;
                        break;
                    }
                }
            }
        }
        Slot result = top > 0 ? stack[top - 1] : Slot{0, false};
        bool valid = i < n && result.valid;
        if (out_type == T_BOOL) {
            store_warp_bits(static_cast<u32*>(out), out_validity, i, valid && result.bits != 0, valid);
            continue;
        }
        u32 validity_word = __ballot_sync(FULL_MASK, valid);
        if (lane == 0) out_validity[i / 32] = validity_word;
        if (i >= n) continue;
        u64 v = valid ? result.bits : 0;
        switch (out_type) {
            case T_I8:
            case T_U8: static_cast<unsigned char*>(out)[i] = static_cast<unsigned char>(v); break;
            case T_I16:
            case T_U16: static_cast<unsigned short*>(out)[i] = static_cast<unsigned short>(v); break;
            case T_I32:
            case T_U32:
            case T_F32: static_cast<u32*>(out)[i] = static_cast<u32>(v); break;
            default: static_cast<u64*>(out)[i] = v; break;
        }
    }
}
EMU_KERNEL(eval_expression)
