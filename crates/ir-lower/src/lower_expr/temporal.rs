//! Temporal functions (`dt.*`): fields, truncation, the months' first and last days, offsets, formats and parsing, durations, and sums and differences of dates, datetimes and durations.

use super::*;
use crate::expr::AmbiguousTime;

/// `left op right`, a sum or difference that Polars computes between two
/// temporal types (`planned`: its result type), as it computes it: a
/// datetime and a duration (in either order for a sum) both in the
/// result's unit, the coarser (the datetime rounded down, the duration
/// truncated); a date and a duration (the date first) as a datetime in
/// microseconds and the duration, both in the coarser unit, the result
/// back to a date (rounded down); durations of two units in the result's
/// unit; timestamps of two units subtracted in the coarser; the physical
/// integers added or subtracted (wrapping). Comparisons of timestamps (or
/// of durations) of two units compare them in the coarser. `None` where
/// they are no such pair (a duration plus a date, which Polars adds in
/// whole days truncated, included) or a cast they need does not run.
pub(crate) fn temporal_arithmetic(
    op: BinaryOp,
    left: &GpuExpr,
    right: &GpuExpr,
    planned: GpuDtype,
) -> Option<GpuExpr> {
    use GpuDtype::{Date, Datetime, Duration, Time};
    let (plus, minus) = (op == BinaryOp::Plus, op == BinaryOp::Minus);
    let cast = |e: &GpuExpr, to: GpuDtype| {
        (e.dtype == to || cast_supported(e.dtype, to))
            .then(|| e.clone().cast(to, CastMode::NonStrict))
    };
    // The sum or difference of the physical values, as `out`.
    let physical = |a: Option<GpuExpr>, b: Option<GpuExpr>, out: GpuDtype| {
        let int64 = GpuDtype::Int64;
        let (a, b) = (cast(&a?, int64)?, cast(&b?, int64)?);
        cast(&a.binary(op, b, int64), out)
    };
    match (left.dtype, right.dtype, planned) {
        (Datetime(_), Duration(_), Datetime(unit)) if plus || minus => {
            physical(cast(left, planned), cast(right, Duration(unit)), planned)
        }
        (Duration(_), Datetime(_), Datetime(unit)) if plus => {
            physical(cast(left, Duration(unit)), cast(right, planned), planned)
        }
        (Date, Duration(unit), Date) if plus || minus => {
            // Polars takes the date as microseconds, then both in the
            // coarser unit.
            let unit = match unit {
                TimeUnit::Milliseconds => unit,
                _ => TimeUnit::Microseconds,
            };
            let (left, right) = (cast(left, Datetime(unit)), cast(right, Duration(unit)));
            let sum = physical(left, right, Datetime(unit));
            sum.and_then(|sum| cast(&sum, Date))
        }
        // Polars subtracts times as nanoseconds, giving a duration.
        (Time, Time, Duration(TimeUnit::Nanoseconds)) if minus => {
            physical(Some(left.clone()), Some(right.clone()), planned)
        }
        (Duration(a), Duration(b), Duration(_)) if a != b && (plus || minus) => {
            let (l, r) = (cast(left, planned), cast(right, planned));
            l.zip(r).map(|(l, r)| l.binary(op, r, planned))
        }
        // Timestamps of two units: both in the coarser (rounded down).
        (Datetime(a), Datetime(b), Duration(unit)) if a != b && minus => physical(
            cast(left, Datetime(unit)),
            cast(right, Datetime(unit)),
            planned,
        ),
        _ if op.is_comparison() => {
            let (l, r) = same_unit(left, right)?;
            Some(l.binary(op, r, planned))
        }
        _ => None,
    }
}

/// `left` and `right`, both timestamps or both durations of two units, in
/// the coarser one, as Polars compares them (timestamps rounded down,
/// durations truncated); `None` for other pairs.
fn same_unit(left: &GpuExpr, right: &GpuExpr) -> Option<(GpuExpr, GpuExpr)> {
    use GpuDtype::{Datetime, Duration};
    let coarser = |a: TimeUnit, b: TimeUnit| if a.per_day() < b.per_day() { a } else { b };
    let to = match (left.dtype, right.dtype) {
        (Datetime(a), Datetime(b)) if a != b => Datetime(coarser(a, b)),
        (Duration(a), Duration(b)) if a != b => Duration(coarser(a, b)),
        _ => return None,
    };
    let cast = |e: &GpuExpr| match e.dtype == to {
        true => e.clone(),
        false => e.clone().cast(to, CastMode::NonStrict),
    };
    Some((cast(left), cast(right)))
}

/// Polars' `dt.month_start` (`end`: `dt.month_end`) of `input`, a date
/// or a timestamp without a time zone: the first (last) day of its month,
/// a timestamp's time of day kept. The first day is the truncation to the
/// month; the last, the day before the first of the month after (the
/// truncation of 31 days after the first), as Polars rolls back, then adds
/// a month and takes a day. `None` for other types.
pub(crate) fn month_bound(input: GpuExpr, end: bool) -> Option<GpuExpr> {
    let dtype = input.dtype;
    let (physical, per_day) = match dtype {
        GpuDtype::Date => (GpuDtype::Int32, 1),
        GpuDtype::Datetime(unit) => (GpuDtype::Int64, unit.per_day()),
        _ => return None,
    };
    let truncated = |e: GpuExpr, every| GpuExpr {
        kind: ExprKind::Truncate {
            input: Box::new(e),
            every,
        },
        dtype,
    };
    let ticks = |e: GpuExpr| e.cast(physical, CastMode::NonStrict);
    let plus = |e: GpuExpr, n: i64| {
        ticks(e).binary(
            BinaryOp::Plus,
            GpuExpr::literal(Scalar::Int(n), physical),
            physical,
        )
    };
    let first = truncated(input.clone(), Truncation::Months(1));
    let day = match end {
        false => ticks(first),
        true => {
            let next = plus(first, 31 * per_day).cast(dtype, CastMode::NonStrict);
            plus(truncated(next, Truncation::Months(1)), -per_day)
        }
    };
    let day = match dtype {
        GpuDtype::Date => day,
        // The time of day: the ticks since the day's midnight.
        _ => {
            let midnight = truncated(input.clone(), Truncation::Fixed(per_day));
            let time = ticks(input).binary(BinaryOp::Minus, ticks(midnight), physical);
            day.binary(BinaryOp::Plus, time, physical)
        }
    };
    Some(day.cast(dtype, CastMode::NonStrict))
}

/// `dtype`, a timestamp in a time zone, as the plain timestamp of its
/// instant (in UTC); other types as they are.
pub(crate) fn instant_dtype(dtype: GpuDtype) -> GpuDtype {
    match dtype {
        GpuDtype::ZonedDatetime(unit, _) => GpuDtype::Datetime(unit),
        other => other,
    }
}

/// `value`, a timestamp in a time zone, as the plain timestamp of the
/// wall-clock time it shows: in UTC the instant's, in another zone of
/// Polars' database a [`ExprKind::LocalTime`]; other values (and zones the
/// database does not know) as they are.
pub(crate) fn local_time(value: GpuExpr) -> GpuExpr {
    match value.dtype {
        GpuDtype::ZonedDatetime(_, zone) if zone.is_utc() => instant(value),
        GpuDtype::ZonedDatetime(unit, zone) if zone.to_polars().to_chrono().is_ok() => GpuExpr {
            kind: ExprKind::LocalTime {
                input: Box::new(instant(value)),
                zone,
            },
            dtype: GpuDtype::Datetime(unit),
        },
        _ => value,
    }
}

/// `value`'s physical integers read as `dtype` (both 64-bit).
pub(crate) fn reinterpreted(value: GpuExpr, dtype: GpuDtype) -> GpuExpr {
    value
        .cast(GpuDtype::Int64, CastMode::NonStrict)
        .cast(dtype, CastMode::NonStrict)
}

/// `value`, a timestamp in a time zone, as the plain timestamp of its
/// instant (in UTC); other values as they are.
pub(crate) fn instant(value: GpuExpr) -> GpuExpr {
    match value.dtype {
        GpuDtype::ZonedDatetime(unit, _) => reinterpreted(value, GpuDtype::Datetime(unit)),
        _ => value,
    }
}

/// The time of day of `input`, a datetime in `unit`, as Polars casts one to
/// `time` (and `dt.time()` takes it): the remainder of its ticks by a day's,
/// floored (before 1970 too), in nanoseconds.
pub(crate) fn time_of_day(input: GpuExpr, unit: TimeUnit) -> GpuExpr {
    let int64 = GpuDtype::Int64;
    let int = |v: i64| GpuExpr::literal(Scalar::Int(v), int64);
    let per_nanosecond = TimeUnit::Nanoseconds.per_day() / unit.per_day();
    input
        .cast(int64, CastMode::NonStrict)
        .binary(BinaryOp::Modulus, int(unit.per_day()), int64)
        .binary(BinaryOp::Multiply, int(per_nanosecond), int64)
        .cast(GpuDtype::Time, CastMode::NonStrict)
}

/// The first and last days (from 1970-01-01) of chrono's calendar
/// (-262143-01-01 to 262142-12-31): Polars takes a date or datetime's
/// parts through it, null beyond.
const CALENDAR_DAYS: (i64, i64) = (-96_465_293, 95_026_236);

/// `value`, a part of the date or datetime `input`, null where `input` lies
/// beyond chrono's calendar ([`CALENDAR_DAYS`]), as Polars gives it.
pub(crate) fn within_calendar(input: &GpuExpr, value: GpuExpr) -> GpuExpr {
    let (first, last) = CALENDAR_DAYS;
    let (physical, per_day) = match input.dtype {
        GpuDtype::Date => (GpuDtype::Int32, 1),
        GpuDtype::Datetime(unit) => (GpuDtype::Int64, unit.per_day()),
        _ => return value,
    };
    let bound = |days: i64, end: bool| {
        let ticks = days.checked_mul(per_day)?;
        if end {
            ticks.checked_add(per_day - 1)
        } else {
            Some(ticks)
        }
    };
    let ticks = input.clone().cast(physical, CastMode::NonStrict);
    let literal = |v: i64| GpuExpr::literal(Scalar::Int(v), physical);
    let tests: Vec<GpuExpr> = [
        bound(first, false).map(|lo| {
            ticks
                .clone()
                .binary(BinaryOp::GtEq, literal(lo), GpuDtype::Boolean)
        }),
        bound(last, true).map(|hi| {
            ticks
                .clone()
                .binary(BinaryOp::LtEq, literal(hi), GpuDtype::Boolean)
        }),
    ]
    .into_iter()
    .flatten()
    .collect();
    let Some(inside) = tests
        .into_iter()
        .reduce(|a, b| a.binary(BinaryOp::And, b, GpuDtype::Boolean))
    else {
        // (Nanosecond timestamps never leave it.)
        return value;
    };
    let dtype = value.dtype;
    inside.then(value, GpuExpr::literal(Scalar::Null, dtype), dtype)
}

/// `function` (`dt.is_leap_year`, `dt.millennium`, `dt.century`,
/// `dt.iso_year` or `dt.days_in_month`) of a date or datetime, from its
/// year, month and ISO week as Polars computes it.
pub(crate) fn calendar(input: GpuExpr, function: &IRTemporalFunction) -> GpuExpr {
    use IRTemporalFunction as T;
    let int32 = GpuDtype::Int32;
    let part = |part, dtype| {
        let value = GpuExpr {
            kind: ExprKind::Temporal {
                part,
                input: Box::new(input.clone()),
            },
            dtype,
        };
        within_calendar(&input, value).cast(int32, CastMode::NonStrict)
    };
    let year = part(TemporalPart::Year, int32);
    let int = |v| GpuExpr::literal(Scalar::Int(v), int32);
    let is = |a: GpuExpr, op, b| a.binary(op, b, GpuDtype::Boolean);
    let arithmetic = |a: GpuExpr, op, b| a.binary(op, b, int32);
    // Divisible by 4, and by 400 where by 100.
    let leap = || {
        let rest = |by: i64| arithmetic(year.clone(), BinaryOp::Modulus, int(by));
        let by_4 = is(rest(4), BinaryOp::Eq, int(0));
        let not_by_100 = is(rest(100), BinaryOp::NotEq, int(0));
        let by_400 = is(rest(400), BinaryOp::Eq, int(0));
        is(by_4, BinaryOp::And, is(not_by_100, BinaryOp::Or, by_400))
    };
    // Polars: (year - 1) floor-divided by 100 (1000), plus 1.
    let of_years = |years| {
        let before = arithmetic(year.clone(), BinaryOp::Minus, int(1));
        arithmetic(
            arithmetic(before, BinaryOp::FloorDivide, int(years)),
            BinaryOp::Plus,
            int(1),
        )
    };
    match function {
        T::Millennium => of_years(1000),
        T::Century => of_years(100),
        T::IsoYear => {
            // The ISO year of the first days of January in the last week of
            // the year before, and of the last of December in week 1.
            let month = part(TemporalPart::Month, GpuDtype::Int8);
            let week = part(TemporalPart::Week, GpuDtype::Int8);
            let both = |a, b| is(a, BinaryOp::And, b);
            let next = both(
                is(month.clone(), BinaryOp::Eq, int(12)),
                is(week.clone(), BinaryOp::Eq, int(1)),
            );
            let previous = both(
                is(month, BinaryOp::Eq, int(1)),
                is(week, BinaryOp::GtEq, int(52)),
            );
            let shift = next.then(int(1), previous.then(int(-1), int(0), int32), int32);
            arithmetic(year, BinaryOp::Plus, shift)
        }
        T::DaysInMonth => {
            let month = part(TemporalPart::Month, GpuDtype::Int8);
            let month_is = |m| is(month.clone(), BinaryOp::Eq, int(m));
            let short = [4, 6, 9, 11]
                .map(month_is)
                .into_iter()
                .reduce(|a, b| is(a, BinaryOp::Or, b))
                .unwrap_or_else(|| int(0));
            let days = month_is(2).then(
                leap().then(int(29), int(28), int32),
                short.then(int(30), int(31), int32),
                int32,
            );
            // Null stays null (a null test picks the last branch).
            let null = GpuExpr::literal(Scalar::Null, int32);
            input
                .clone()
                .is_not_null()
                .then(days, null, int32)
                .cast(GpuDtype::Int8, CastMode::NonStrict)
        }
        _ => leap(),
    }
}

/// A strptime `format` as fixed-width fields and literal bytes, where the
/// device parses it: `%Y`, `%m`, `%d` (and `%F`, their ISO form) once each,
/// for a timestamp (`datetime`) also `%H` and `%M` once each and `%S` at
/// most once (`%T` is `%H:%M:%S`; `%.f` right after it), or no time field
/// at all (midnight, as Polars' parser gives a date alone), `%%` for '%',
/// any other text as itself. `None` for any other specifier or field
/// count.
pub(crate) fn parse_format(format: &str, datetime: bool) -> Option<Vec<FormatPart>> {
    let parts = parts_of(format, b"YmdHMSFT%.")?;
    if !fraction_after_seconds(&parts) {
        return None;
    }
    let count = |field| parts.iter().filter(|&&part| part == field).count();
    let date = [FormatPart::Year, FormatPart::Month, FormatPart::Day];
    let time = [FormatPart::Hour, FormatPart::Minute];
    let timeless = time.iter().all(|&field| count(field) == 0) && count(FormatPart::Second) == 0;
    let fits = date.iter().all(|&field| count(field) == 1)
        && if datetime {
            timeless
                || time.iter().all(|&field| count(field) == 1) && count(FormatPart::Second) <= 1
        } else {
            timeless
        };
    fits.then_some(parts)
}

/// The parse of Polars' cast of text to `to`: to dates chrono's parse of
/// `YYYY-MM-DD` (`str.to_date`'s parser, whose texts of any other form, or
/// no date, send the query to Polars); to timestamps without a zone
/// chrono's parse in RFC 3339's format, `%Y-%m-%dT%H:%M:%S%.f%:z`, whose
/// date and time of day Polars keeps however the rest parses: texts of the
/// form YYYY-MM-DDTHH:MM:SS, with a fraction of the second or not (any
/// other sends the query to Polars). `None` for other types.
pub(crate) fn cast_parse_format(to: GpuDtype) -> Option<Vec<FormatPart>> {
    match to {
        GpuDtype::Date => parse_format("%Y-%m-%d", false),
        GpuDtype::Datetime(_) => parse_format("%Y-%m-%dT%H:%M:%S%.f", true),
        _ => None,
    }
}

/// Whether the parts of a parse hold no fraction of a second but chrono's
/// `%.f` right after the seconds (which the device parses as chrono does:
/// nothing, or a `.` and its digits).
fn fraction_after_seconds(parts: &[FormatPart]) -> bool {
    parts.iter().enumerate().all(|(i, part)| match part {
        FormatPart::Fraction(_) => false,
        FormatPart::FractionAuto => i > 0 && parts[i - 1] == FormatPart::Second,
        _ => true,
    })
}

/// The parts of a chrono `format` of a time of day (`str.to_time`) that
/// the device parses: an hour and a minute, a second at most (and `%.f`
/// after it), no date.
pub(crate) fn parse_time_format(format: &str) -> Option<Vec<FormatPart>> {
    let parts = parts_of(format, b"HMST%.")?;
    if !fraction_after_seconds(&parts) {
        return None;
    }
    let count = |field| parts.iter().filter(|&&part| part == field).count();
    let fits = count(FormatPart::Hour) == 1
        && count(FormatPart::Minute) == 1
        && count(FormatPart::Second) <= 1;
    fits.then_some(parts)
}

/// The parts of a chrono `format` whose specifiers are all among
/// `specifiers`; `None` for any other.
fn parts_of(format: &str, specifiers: &[u8]) -> Option<Vec<FormatPart>> {
    let mut bytes = format.bytes();
    while let Some(byte) = bytes.next() {
        if byte == b'%' && !specifiers.contains(&bytes.next()?) {
            return None;
        }
    }
    FormatPart::parse(format)
}

/// Polars' `dt.total_*` of a duration `input`, in units of `nanos_per`
/// nanoseconds: the ticks divided toward zero (or multiplied, wrapping, to
/// a finer unit); `fractional`, the ticks as f64 over the unit in ticks,
/// that divisor computed as Polars computes it (the ticks in a second,
/// times or over the unit's seconds) so that every bit agrees.
pub(crate) fn total_of_duration(
    input: GpuExpr,
    nanos_per: i64,
    fractional: bool,
    dtype: GpuDtype,
) -> Result<GpuExpr, String> {
    let GpuDtype::Duration(unit) = input.dtype else {
        return Err(format!("dt.total of {}", input.dtype));
    };
    let per_second = unit.per_day() / 86_400;
    let tick_nanos = 1_000_000_000 / per_second;
    let ticks = input.cast(GpuDtype::Int64, CastMode::NonStrict);
    if fractional {
        let t = per_second as f64;
        let divisor = match nanos_per {
            86_400_000_000_000 => t * 86_400.0,
            3_600_000_000_000 => t * 3_600.0,
            60_000_000_000 => t * 60.0,
            1_000_000_000 => t,
            1_000_000 => t / 1_000.0,
            1_000 => t / 1_000_000.0,
            _ => t / 1_000_000_000.0,
        };
        if dtype != GpuDtype::Float64 {
            return Err(format!("a fractional dt.total as {dtype}"));
        }
        // Polars divides by a number of its own, always with its scalar
        // kernel: a product with the reciprocal (on any number of rows).
        let ticks = ticks.cast(GpuDtype::Float64, CastMode::NonStrict);
        let reciprocal = GpuExpr::literal(Scalar::Float(1.0 / divisor), GpuDtype::Float64);
        return Ok(ticks.binary(BinaryOp::Multiply, reciprocal, dtype));
    }
    if dtype != GpuDtype::Int64 {
        return Err(format!("dt.total as {dtype}"));
    }
    let int = |v| GpuExpr::literal(Scalar::Int(v), GpuDtype::Int64);
    if nanos_per <= tick_nanos {
        return Ok(ticks.binary(BinaryOp::Multiply, int(tick_nanos / nanos_per), dtype));
    }
    // Toward zero: the floored quotient, plus one for a negative value with
    // a remainder.
    let divisor = nanos_per / tick_nanos;
    let floored = ticks
        .clone()
        .binary(BinaryOp::FloorDivide, int(divisor), dtype);
    let negative = ticks
        .clone()
        .binary(BinaryOp::Lt, int(0), GpuDtype::Boolean);
    let inexact = ticks.binary(BinaryOp::Modulus, int(divisor), dtype).binary(
        BinaryOp::NotEq,
        int(0),
        GpuDtype::Boolean,
    );
    let up = negative
        .binary(BinaryOp::And, inexact, GpuDtype::Boolean)
        .cast(dtype, CastMode::NonStrict);
    Ok(floored.binary(BinaryOp::Plus, up, dtype))
}

/// The truncation of values of `dtype` (a date or a timestamp) by `every`,
/// as Polars truncates them (its fast path: days and smaller units
/// together; weeks; months only where not rounding; a date by whole
/// days), or `None`.
pub(crate) fn truncation(
    every: &polars::prelude::Duration,
    dtype: GpuDtype,
    round: bool,
) -> Option<Truncation> {
    let per_day: i64 = match dtype {
        GpuDtype::Date => 1,
        GpuDtype::Datetime(unit) => unit.per_day(),
        _ => return None,
    };
    let (months, weeks, days, nanos) = (
        every.months(),
        every.weeks(),
        every.days(),
        every.nanoseconds(),
    );
    let date = dtype == GpuDtype::Date;
    Some(match (months, weeks, days, nanos) {
        (0, 0, _, 0) if date => Truncation::Fixed(days),
        (0, 0, ..) if !date => {
            let units = match dtype {
                GpuDtype::Datetime(TimeUnit::Milliseconds) => nanos / 1_000_000,
                GpuDtype::Datetime(TimeUnit::Microseconds) => nanos / 1_000,
                _ => nanos,
            };
            Truncation::Fixed(days.checked_mul(per_day)?.checked_add(units)?)
        }
        (0, weeks, 0, 0) => Truncation::Weeks(weeks),
        (months, 0, 0, 0) if !round => Truncation::Months(months),
        _ => return None,
    })
}

impl ExprLowering<'_> {
    /// `dt.truncate(every)` of a date or a timestamp (no time zone), `every`
    /// a literal: how Polars truncates by it, or a refusal where Polars
    /// raises an error (a negative or mixed duration) or does what is not
    /// done here (sub-day truncation of dates). With `round`, `dt.round` of
    /// a timestamp by a duration of days and smaller units: the truncation
    /// of the timestamp plus half of `every`; of a date by whole days, the
    /// same of its millisecond timestamp, as Polars rounds it; by whole
    /// weeks, both so (months and dates by parts of days are refused).
    pub(crate) fn truncate(&mut self, node: Node, inputs: &[ExprIR], round: bool) -> Lowered {
        let function = if round { "dt.round" } else { "dt.truncate" };
        let input = self.boxed(inputs.first()?.node());
        let Some(text) = inputs
            .get(1)
            .and_then(|every| self.literal_str(every.node()))
        else {
            return self.refuse(
                node,
                format!("{function} needs a literal duration on the GPU"),
            );
        };
        let every = match polars::prelude::Duration::try_parse(&text) {
            Ok(every) if !every.negative() => every,
            _ => return self.refuse(node, format!("{function} by {text:?}")),
        };
        let input = input?;
        // A timestamp in a time zone Polars truncates as its local time
        // there, made an instant of the zone again (a time the clocks skip
        // or pass twice it resolves by the original's offset, RFC 5545: the
        // query goes to it there; in UTC, the instant's truncation); it
        // rounds (by weeks, days and smaller units) as it truncates the
        // instant plus half of `every`.
        if let GpuDtype::ZonedDatetime(unit, zone) = input.dtype {
            let plain = GpuDtype::Datetime(unit);
            let every = truncation(&every, plain, false);
            // (Not by a zero duration: Polars' window divides by it.)
            let half = match (round, &every) {
                (_, Some(Truncation::Fixed(0) | Truncation::Weeks(0))) => None,
                (false, _) => Some(0),
                (true, Some(Truncation::Fixed(units))) if *units > 0 => Some(units / 2),
                (true, Some(Truncation::Weeks(weeks))) if *weeks > 0 => {
                    weeks.checked_mul(7 * unit.per_day()).map(|units| units / 2)
                }
                _ => None,
            };
            let (Some(every), Some(half)) = (every, half) else {
                return self.refuse(
                    node,
                    format!(
                        "{function} of {} by {text:?} is not supported on the GPU",
                        input.dtype
                    ),
                );
            };
            let zoned = input.dtype;
            let shown = format!("{function} of {zoned} is not supported on the GPU");
            let shifted = match half {
                0 => *input,
                half => {
                    let int64 = GpuDtype::Int64;
                    let half = GpuExpr::literal(Scalar::Int(half), int64);
                    instant(*input)
                        .cast(int64, CastMode::Wrapping)
                        .binary(BinaryOp::Plus, half, int64)
                        .cast(zoned, CastMode::Wrapping)
                }
            };
            let local = local_time(shifted);
            if local.dtype != plain {
                return self.refuse(node, shown);
            }
            let truncated = GpuExpr {
                kind: ExprKind::Truncate {
                    input: Box::new(local),
                    every,
                },
                dtype: plain,
            };
            let dtype = self.dtype(node)?;
            if zone.is_utc() {
                return Some(reinterpreted(truncated, dtype));
            }
            return Some(GpuExpr {
                kind: ExprKind::Localized {
                    input: Box::new(truncated),
                    zone,
                    ambiguous: AmbiguousTime::Raise,
                    non_existent_raises: true,
                    resolved_by_polars: true,
                },
                dtype,
            });
        }
        if !matches!(input.dtype, GpuDtype::Date | GpuDtype::Datetime(_)) {
            return self.refuse(
                node,
                format!("{function} of {} is not supported on the GPU", input.dtype),
            );
        }
        let date = input.dtype == GpuDtype::Date;
        let Some(every) = truncation(&every, input.dtype, round) else {
            return self.refuse(
                node,
                format!(
                    "{function} of {} by {text:?} is not supported on the GPU",
                    input.dtype
                ),
            );
        };
        let dtype = self.dtype(node)?;
        let input = match every {
            // Polars' fast path rounds a timestamp to the multiple of `every`
            // below it shifted by half of `every` (rounded down): ties up.
            Truncation::Fixed(units) if round && !date && units > 0 => {
                let int64 = GpuDtype::Int64;
                let half = GpuExpr::literal(Scalar::Int(units / 2), int64);
                Box::new(
                    input
                        .cast(int64, CastMode::Wrapping)
                        .binary(BinaryOp::Plus, half, int64)
                        .cast(dtype, CastMode::Wrapping),
                )
            }
            // A date Polars rounds as its millisecond timestamp, then takes
            // the day: by whole days, that is the timestamp's rounding (to a
            // multiple of whole days, so the day is exact).
            Truncation::Fixed(days) if round && date && days > 0 => {
                let ms = GpuDtype::Datetime(TimeUnit::Milliseconds);
                let every_ms = match days.checked_mul(TimeUnit::Milliseconds.per_day()) {
                    Some(every_ms) => every_ms,
                    None => return self.refuse(node, format!("{function} by {text:?}")),
                };
                let int64 = GpuDtype::Int64;
                let half = GpuExpr::literal(Scalar::Int(every_ms / 2), int64);
                let shifted = input
                    .cast(ms, CastMode::NonStrict)
                    .cast(int64, CastMode::Wrapping)
                    .binary(BinaryOp::Plus, half, int64)
                    .cast(ms, CastMode::Wrapping);
                let rounded = GpuExpr {
                    kind: ExprKind::Truncate {
                        input: Box::new(shifted),
                        every: Truncation::Fixed(every_ms),
                    },
                    dtype: ms,
                };
                return Some(rounded.cast(dtype, CastMode::NonStrict));
            }
            // Polars' window rounds by weeks as it does by other fixed
            // lengths (a date as its millisecond timestamp): half of them
            // added, then the truncation to the week (from a Monday).
            Truncation::Weeks(weeks) if round && weeks > 0 => {
                let unit = match input.dtype {
                    GpuDtype::Datetime(unit) => unit,
                    _ => TimeUnit::Milliseconds,
                };
                let half = weeks.checked_mul(7 * unit.per_day()).map(|every| every / 2);
                let Some(half) = half else {
                    return self.refuse(node, format!("{function} by {text:?}"));
                };
                let (held, int64) = (GpuDtype::Datetime(unit), GpuDtype::Int64);
                let shifted = input
                    .cast(held, CastMode::NonStrict)
                    .cast(int64, CastMode::Wrapping)
                    .binary(
                        BinaryOp::Plus,
                        GpuExpr::literal(Scalar::Int(half), int64),
                        int64,
                    )
                    .cast(held, CastMode::Wrapping);
                let rounded = GpuExpr {
                    kind: ExprKind::Truncate {
                        input: Box::new(shifted),
                        every: Truncation::Weeks(weeks),
                    },
                    dtype: held,
                };
                return Some(rounded.cast(dtype, CastMode::NonStrict));
            }
            _ if round => {
                let what = format!("{function} of {} by {text:?}", input.dtype);
                return self.refuse(node, format!("{what} is not supported on the GPU"));
            }
            _ => input,
        };
        Some(GpuExpr {
            kind: ExprKind::Truncate { input, every },
            dtype,
        })
    }

    /// The one input, a timestamp in a time zone, read as the plain
    /// timestamp it shows ([`local_time`]); a zone Polars' database does
    /// not know stays zoned, so that the functions of local time refuse it.
    fn local(&mut self, inputs: &[ExprIR]) -> Lowered {
        let input = self.single(inputs)?;
        Some(local_time(input))
    }

    /// `dt.convert_time_zone` and `dt.replace_time_zone` where the instants
    /// stay as they are: a conversion to any zone, a replacement between no
    /// zone and UTC or by the same zone (other zones' local times are not
    /// computed on the GPU); `None` for other functions.
    fn time_zone_function(
        &mut self,
        node: Node,
        function: &IRTemporalFunction,
        inputs: &[ExprIR],
    ) -> Option<Lowered> {
        use IRTemporalFunction as T;
        if !matches!(function, T::ConvertTimeZone(_) | T::ReplaceTimeZone(..)) {
            return None;
        }
        // No local time is ambiguous in UTC, but Polars reads the strategy.
        let ambiguous = inputs
            .get(1)
            .map(|strategy| self.literal_str(strategy.node()));
        let known = match &ambiguous {
            None => true,
            Some(strategy) => {
                matches!(
                    strategy.as_deref(),
                    Some("raise" | "earliest" | "latest" | "null")
                )
            }
        };
        let Some(input) = self.single(inputs) else {
            return Some(None);
        };
        let Some(dtype) = self.dtype(node) else {
            return Some(None);
        };
        let utc = |dtype| matches!(dtype, GpuDtype::ZonedDatetime(_, zone) if zone.is_utc());
        // A zone replaced by none: the wall-clock times it shows.
        if let (T::ReplaceTimeZone(..), GpuDtype::ZonedDatetime(..), GpuDtype::Datetime(_)) =
            (function, input.dtype, dtype)
            && known
        {
            let local = local_time(input);
            if local.dtype == dtype {
                return Some(Some(local));
            }
            return Some(self.refuse(
                node,
                format!(
                    "{function} of {} to {dtype}: a zone Polars' database does not know",
                    local.dtype
                ),
            ));
        }
        let kept = match (function, input.dtype, dtype) {
            (T::ConvertTimeZone(_), from, _) => matches!(from, GpuDtype::ZonedDatetime(..)),
            (_, GpuDtype::Datetime(_), to) => utc(to),
            (_, from, GpuDtype::Datetime(_)) => utc(from),
            (_, from, to) => from == to || utc(from) && utc(to),
        };
        // A zone replaced by another: the instants that show the wall-clock
        // times there.
        if let (T::ReplaceTimeZone(_, non_existent), GpuDtype::ZonedDatetime(unit, zone)) =
            (function, dtype)
            && !kept
            && let Some(ambiguous) = ambiguous
                .as_ref()
                .map_or(Some(AmbiguousTime::Raise), |name| {
                    name.as_deref().and_then(AmbiguousTime::from_name)
                })
            && zone.to_polars().to_chrono().is_ok()
        {
            let local = local_time(input.clone());
            if local.dtype == GpuDtype::Datetime(unit) {
                return Some(Some(GpuExpr {
                    kind: ExprKind::Localized {
                        input: Box::new(local),
                        zone,
                        ambiguous,
                        non_existent_raises: matches!(
                            non_existent,
                            polars::prelude::NonExistent::Raise
                        ),
                        resolved_by_polars: false,
                    },
                    dtype,
                }));
            }
        }
        Some(if known && kept {
            Some(reinterpreted(input, dtype))
        } else {
            let why = if known {
                "a time zone outside Polars' database"
            } else {
                "an `ambiguous` strategy other than a literal \"raise\", \"earliest\", \
                 \"latest\" or \"null\""
            };
            self.refuse(
                node,
                format!(
                    "{function} of {} to {dtype} with {why} is not supported on the GPU",
                    input.dtype
                ),
            )
        })
    }

    /// Polars' `dt.offset_by` by a literal duration (in a time zone other
    /// than UTC, of no months, days or weeks), added as Polars adds it: its
    /// months first, the day clamped to the last of the month it lands in
    /// ([`ExprKind::OffsetMonths`]), then its fixed length in ticks,
    /// wrapping (to a zoned timestamp's instant); dates as microsecond
    /// timestamps, the result rounded down to a day.
    fn offset_by(&mut self, node: Node, inputs: &[ExprIR]) -> Lowered {
        let input = self.boxed(inputs.first()?.node());
        let text = inputs.get(1).and_then(|by| self.literal_str(by.node()));
        let (input, Some(text)) = (input?, text) else {
            return self.refuse(node, "dt.offset_by needs a literal duration on the GPU");
        };
        let duration = polars::prelude::Duration::try_parse(&text).ok();
        let value = match input.dtype {
            GpuDtype::Date => Some(input.as_ref().clone().cast(
                GpuDtype::Datetime(TimeUnit::Microseconds),
                CastMode::NonStrict,
            )),
            GpuDtype::Datetime(_) | GpuDtype::ZonedDatetime(..) => Some(input.as_ref().clone()),
            _ => None,
        };
        // Months in the wall-clock time of no zone or UTC's; beyond a
        // million years, Polars' calendar panics.
        let months = duration.as_ref().and_then(|duration| {
            let months = duration.months();
            let local = match value.as_ref()?.dtype {
                GpuDtype::Datetime(_) => true,
                GpuDtype::ZonedDatetime(_, zone) => zone.is_utc(),
                _ => false,
            };
            (months == 0 || local && months <= 12_000_000).then_some(if duration.negative() {
                -months
            } else {
                months
            })
        });
        let ticks = (value.as_ref().zip(duration))
            .and_then(|(value, duration)| fixed_ticks(value.dtype, &duration));
        let (Some(value), Some(months), Some(ticks)) = (value, months, ticks) else {
            return self.refuse(
                node,
                format!(
                    "dt.offset_by of {} by {text:?} is not supported on the GPU (in a time \
                     zone other than UTC, months and days are not of fixed length)",
                    input.dtype
                ),
            );
        };
        let int64 = GpuDtype::Int64;
        let mut moved = instant(value.clone());
        if months != 0 {
            moved = GpuExpr {
                dtype: moved.dtype,
                kind: ExprKind::OffsetMonths {
                    input: Box::new(moved),
                    months,
                },
            };
        }
        let moved = moved.cast(int64, CastMode::NonStrict).binary(
            BinaryOp::Plus,
            GpuExpr::literal(Scalar::Int(ticks), int64),
            int64,
        );
        let moved = reinterpreted(moved, value.dtype);
        Some(match input.dtype {
            GpuDtype::Date => moved.cast(GpuDtype::Date, CastMode::NonStrict),
            _ => moved,
        })
    }

    pub(crate) fn temporal(
        &mut self,
        node: Node,
        inputs: &[ExprIR],
        function: &IRTemporalFunction,
    ) -> Lowered {
        use IRTemporalFunction as T;
        if matches!(function, T::Truncate) {
            return self.truncate(node, inputs, false);
        }
        if matches!(function, T::Round) {
            return self.truncate(node, inputs, true);
        }
        if matches!(function, T::OffsetBy) {
            return self.offset_by(node, inputs);
        }
        if let T::Duration(unit) = function {
            return self.duration(node, inputs, (*unit).into());
        }
        if let T::DatetimeFunction {
            time_unit,
            time_zone,
        } = function
        {
            if time_zone.is_some() {
                return self.refuse(node, "datetime made of parts in a time zone");
            }
            return self.datetime_of_parts(node, inputs, (*time_unit).into());
        }
        if matches!(function, T::MonthStart | T::MonthEnd) {
            let input = self.single(inputs)?;
            let from = input.dtype;
            return match month_bound(input, matches!(function, T::MonthEnd)) {
                Some(done) => Some(done),
                None => self.refuse(
                    node,
                    format!("{function} of {from} is not supported on the GPU"),
                ),
            };
        }
        if let Some(lowered) = self.time_zone_function(node, function, inputs) {
            return lowered;
        }
        if let T::Time = function {
            let input = self.local(inputs)?;
            return match input.dtype {
                GpuDtype::Datetime(unit) => Some(time_of_day(input, unit)),
                GpuDtype::Time => Some(input),
                other => self.refuse(
                    node,
                    format!("{function} of {other} is not supported on the GPU"),
                ),
            };
        }
        if let T::Combine(unit) = function {
            // As Polars combines them: the date (of a datetime, rounded
            // down) as a datetime in `unit`, plus the time as a duration
            // in `unit`.
            let [input, time] = self.exactly::<2>(node, inputs)?;
            let unit = TimeUnit::from(*unit);
            let dtypes = (input.dtype, time.dtype);
            let combined = match dtypes {
                (GpuDtype::Date | GpuDtype::Datetime(_), GpuDtype::Time) => {
                    let date = input.cast(GpuDtype::Date, CastMode::NonStrict);
                    let datetime = date.cast(GpuDtype::Datetime(unit), CastMode::NonStrict);
                    let duration = time.cast(GpuDtype::Duration(unit), CastMode::NonStrict);
                    temporal_arithmetic(BinaryOp::Plus, &datetime, &duration, datetime.dtype)
                }
                _ => None,
            };
            return match combined {
                Some(combined) => Some(combined),
                None => self.refuse(node, format!("{function} of {} and {}", dtypes.0, dtypes.1)),
            };
        }
        if let T::Date | T::TimeStamp(_) = function {
            // Casts, as Polars computes them: the date of a timestamp (in
            // UTC) rounds down; a timestamp in a unit is the cast to that
            // unit's datetime (of the instant, in any zone), as an integer.
            let input = match function {
                T::Date => self.local(inputs)?,
                _ => instant(self.single(inputs)?),
            };
            let cast = |input: GpuExpr, dtype| GpuExpr {
                kind: ExprKind::Cast {
                    input: Box::new(input),
                    mode: CastMode::NonStrict,
                },
                dtype,
            };
            return match (function, input.dtype) {
                (T::Date, GpuDtype::Date) => Some(input),
                (T::Date, GpuDtype::Datetime(_)) => Some(cast(input, GpuDtype::Date)),
                (T::TimeStamp(unit), GpuDtype::Date | GpuDtype::Datetime(_)) => {
                    let datetime = cast(input, GpuDtype::Datetime(TimeUnit::from(*unit)));
                    Some(cast(datetime, GpuDtype::Int64))
                }
                (_, other) => self.refuse(
                    node,
                    format!("{function} of {other} is not supported on the GPU"),
                ),
            };
        }
        match function {
            T::TotalDays { fractional }
            | T::TotalHours { fractional }
            | T::TotalMinutes { fractional }
            | T::TotalSeconds { fractional }
            | T::TotalMilliseconds { fractional }
            | T::TotalMicroseconds { fractional }
            | T::TotalNanoseconds { fractional } => {
                let input = self.single(inputs)?;
                let dtype = self.dtype(node)?;
                let nanos_per = match function {
                    T::TotalDays { .. } => 86_400_000_000_000,
                    T::TotalHours { .. } => 3_600_000_000_000,
                    T::TotalMinutes { .. } => 60_000_000_000,
                    T::TotalSeconds { .. } => 1_000_000_000,
                    T::TotalMilliseconds { .. } => 1_000_000,
                    T::TotalMicroseconds { .. } => 1_000,
                    _ => 1,
                };
                return match total_of_duration(input, nanos_per, *fractional, dtype) {
                    Ok(expr) => Some(expr),
                    Err(why) => self.refuse(node, why),
                };
            }
            T::ToString(format) => {
                // Polars' `iso` formats, else a chrono format of the parts
                // the device writes (of a zoned timestamp, its wall-clock
                // time: the formats written hold no offset or zone name).
                let input = self.single(inputs)?;
                let iso = matches!(format.as_str(), "iso" | "iso:strict");
                let input = if iso { input } else { local_time(input) };
                let dtype = input.dtype;
                let parts = match format.as_str() {
                    "iso" | "iso:strict" => FormatPart::iso(dtype, format == "iso:strict"),
                    _ if matches!(
                        dtype,
                        GpuDtype::Date | GpuDtype::Datetime(_) | GpuDtype::Time
                    ) =>
                    {
                        FormatPart::parse(format)
                    }
                    _ => None,
                };
                // Dates have no time of day: Polars raises its error; times
                // of day have no date: Polars panics.
                let parts = parts.filter(|parts| match dtype {
                    GpuDtype::Date => !parts.iter().any(|part| part.of_time()),
                    GpuDtype::Time => parts
                        .iter()
                        .all(|part| part.of_time() || matches!(part, FormatPart::Byte(_))),
                    _ => true,
                });
                let Some(format) = parts else {
                    return self.refuse(
                        node,
                        format!(
                            "dt.to_string of {dtype} with the format {format:?} is not \
                             supported on the GPU (it writes chrono's `%Y %m %d %H %M %S %y \
                             %j %e %b %h %B %a %A %u %w %I %p %F %T %D %R %% %n %t`, `%3f %6f \
                             %9f`, `%.3f %.6f %.9f %.f` and `iso`, without padding modifiers; no \
                             time of day of a date, no date of a time of day)"
                        ),
                    );
                };
                return Some(GpuExpr {
                    kind: ExprKind::Strftime {
                        input: Box::new(input),
                        format,
                    },
                    dtype: GpuDtype::String,
                });
            }
            T::IsLeapYear | T::Millennium | T::Century | T::IsoYear | T::DaysInMonth => {
                let input = self.local(inputs)?;
                if !matches!(input.dtype, GpuDtype::Date | GpuDtype::Datetime(_)) {
                    return self.refuse(
                        node,
                        format!("{function} of {} is not supported on the GPU", input.dtype),
                    );
                }
                return Some(calendar(input, function));
            }
            T::CastTimeUnit(unit) | T::WithTimeUnit(unit) => {
                let input = self.single(inputs)?;
                let unit = TimeUnit::from(*unit);
                let (to, from) = match input.dtype {
                    GpuDtype::Datetime(from) => (GpuDtype::Datetime(unit), from),
                    GpuDtype::ZonedDatetime(from, zone) => {
                        (GpuDtype::ZonedDatetime(unit, zone), from)
                    }
                    GpuDtype::Duration(from) => (GpuDtype::Duration(unit), from),
                    other => return self.refuse(node, format!("{function} of {other}")),
                };
                // The same integers read in the new unit.
                let finer = unit.per_day() / from.per_day();
                return Some(match function {
                    T::WithTimeUnit(_) => reinterpreted(input, to),
                    // Polars multiplies, wrapping, to a finer unit; to a
                    // coarser one it divides as a cast does (datetimes
                    // down, durations toward zero).
                    _ if finer > 1 => {
                        let ticks = input.cast(GpuDtype::Int64, CastMode::NonStrict).binary(
                            BinaryOp::Multiply,
                            GpuExpr::literal(Scalar::Int(finer), GpuDtype::Int64),
                            GpuDtype::Int64,
                        );
                        reinterpreted(ticks, to)
                    }
                    _ => input.cast(to, CastMode::NonStrict),
                });
            }
            _ => {}
        }
        let part = match function {
            T::Year => TemporalPart::Year,
            T::Quarter => TemporalPart::Quarter,
            T::Month => TemporalPart::Month,
            T::Day => TemporalPart::Day,
            T::WeekDay => TemporalPart::Weekday,
            T::OrdinalDay => TemporalPart::OrdinalDay,
            T::Week => TemporalPart::Week,
            T::Hour => TemporalPart::Hour,
            T::Minute => TemporalPart::Minute,
            T::Second => TemporalPart::Second,
            T::Millisecond => TemporalPart::Millisecond,
            T::Microsecond => TemporalPart::Microsecond,
            T::Nanosecond => TemporalPart::Nanosecond,
            T::Datetime | T::Duration { .. } | T::Replace | T::DatetimeFunction { .. } => {
                return self.refuse(
                    node,
                    format!("function {function} is not supported on the GPU"),
                );
            }
            // What Polars features this workspace does not enable add (a
            // crate depending on ours may enable them): refused the same way.
            #[allow(unreachable_patterns)]
            _ => {
                return self.refuse(
                    node,
                    format!("function {function} is not supported on the GPU"),
                );
            }
        };
        let input = self.single(inputs)?;
        // Polars takes the weekday of a date, and of a timestamp without a
        // zone or in UTC, by a closed formula of its days (no calendar
        // bound); of others, through chrono's calendar.
        let closed_formula = part == TemporalPart::Weekday
            && match input.dtype {
                GpuDtype::Date | GpuDtype::Datetime(_) => true,
                GpuDtype::ZonedDatetime(_, zone) => zone.is_utc(),
                _ => false,
            };
        let input = Box::new(local_time(input));
        let date = input.dtype == GpuDtype::Date && !part.of_time();
        let time = input.dtype == GpuDtype::Time && part.of_time();
        if !(date || time || matches!(input.dtype, GpuDtype::Datetime(_))) {
            return self.refuse(
                node,
                format!("{part} of {} is not supported on the GPU", input.dtype),
            );
        }
        let dtype = self.dtype(node)?;
        let value = GpuExpr {
            kind: ExprKind::Temporal {
                part,
                input: input.clone(),
            },
            dtype,
        };
        if closed_formula {
            return Some(value);
        }
        Some(within_calendar(&input, value))
    }
}
