// The proleptic Gregorian calendar in day counts from 1970-01-01, shared by the evaluator's date parts and the string kernels.
#pragma once

#include "kernel_common.cuh"

// a / b rounded down (b > 0).
__device__ __forceinline__ i64 floor_div(i64 a, i64 b) {
    i64 q = a / b;
    return a % b < 0 ? q - 1 : q;
}

__device__ __forceinline__ bool is_leap(i64 year) {
    return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
}

// The year, month and day of the day `days` after 1970-01-01 (civil from
// days: eras of 400 years of 146097 days, years starting in March so that
// leap days come last).
__device__ __forceinline__ void civil(i64 days, i64* year, i64* month, i64* day) {
    i64 z = days + 719468;
    i64 era = floor_div(z, 146097);
    i64 doe = z - era * 146097;
    i64 yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    i64 doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    i64 mp = (5 * doy + 2) / 153;
    *day = doy - (153 * mp + 2) / 5 + 1;
    *month = mp < 10 ? mp + 3 : mp - 9;
    *year = yoe + era * 400 + (*month <= 2 ? 1 : 0);
}

// The day count of a year, month and day (days from civil: the inverse).
__device__ __forceinline__ i64 days_from_civil(i64 year, i64 month, i64 day) {
    year -= month <= 2 ? 1 : 0;
    i64 era = floor_div(year, 400);
    i64 yoe = year - era * 400;
    i64 doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
    i64 doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

// The number of days of a month (1 to 12) of a year.
__device__ __forceinline__ i64 days_in_month(i64 year, i64 month) {
    if (month == 2) {
        return is_leap(year) ? 29 : 28;
    }
    // 31, 30, 31, 30, 31, 30, 31 from January, again from August.
    return 31 - ((month - 1) % 7) % 2;
}
