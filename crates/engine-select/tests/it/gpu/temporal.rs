//! Temporal functions on the device: parts, durations, times of day, truncation and rounding, formatting, calendars (parsing: `gpu::parsed_temporals`).

use super::*;

/// `days` as dates, and as moments at random times of those days (from
/// `next`) in microseconds, nanoseconds (plus a few) and milliseconds.
fn moments(days: &[Option<i64>], mut next: impl FnMut() -> u64) -> LazyFrame {
    let ticks: Vec<Option<i64>> = days
        .iter()
        .map(|d| d.map(|d| d * 86_400_000_000 + (next() % 86_400_000_000) as i64))
        .collect();
    df!("days" => days, "us" => &ticks).unwrap().lazy().select([
        col("days")
            .cast(DataType::Int32)
            .cast(DataType::Date)
            .alias("date"),
        col("us")
            .cast(DataType::Datetime(TimeUnit::Microseconds, None))
            .alias("us"),
        (col("us") * lit(1000i64) + col("days") % lit(1000i64))
            .cast(DataType::Datetime(TimeUnit::Nanoseconds, None))
            .alias("ns"),
        (col("us") / lit(1000i64))
            .cast(DataType::Datetime(TimeUnit::Milliseconds, None))
            .alias("ms"),
    ])
}

#[test]
fn every_date_and_time_part_matches_the_cpu() {
    // Days around the turns of many years (ISO weeks 52, 53 and 1), and
    // spread over ±5000 years; moments anywhere in those days.
    let mut days: Vec<Option<i64>> = (-2400..2400)
        .flat_map(|year: i64| [year * 365 + year / 4 - 3, year * 365 + year / 4 + 3])
        .map(Some)
        .collect();
    let mut next = xorshift(0x2545_f491_4f6c_dd1d);
    days.extend((0..2000).map(|_| Some((next() % 3_650_000) as i64 - 1_825_000)));
    days.extend((-10..400).map(Some));
    days.push(None);
    let frame = moments(&days, next);
    let date_parts = |c: &str| {
        [
            col(c).dt().year().alias(format!("{c} year")),
            col(c).dt().month().alias(format!("{c} month")),
            col(c).dt().day().alias(format!("{c} day")),
            col(c).dt().weekday().alias(format!("{c} weekday")),
            col(c).dt().ordinal_day().alias(format!("{c} ordinal day")),
            col(c).dt().week().alias(format!("{c} week")),
        ]
    };
    let conversions = |c: &str| {
        [
            col(c).dt().date().alias(format!("{c} date")),
            col(c)
                .dt()
                .timestamp(TimeUnit::Milliseconds)
                .alias(format!("{c} ms stamp")),
            col(c)
                .dt()
                .timestamp(TimeUnit::Microseconds)
                .alias(format!("{c} us stamp")),
            col(c)
                .dt()
                .timestamp(TimeUnit::Nanoseconds)
                .alias(format!("{c} ns stamp")),
        ]
    };
    let time_parts = |c: &str| {
        [
            col(c).dt().hour().alias(format!("{c} hour")),
            col(c).dt().minute().alias(format!("{c} minute")),
            col(c).dt().second().alias(format!("{c} second")),
            col(c).dt().millisecond().alias(format!("{c} ms")),
            col(c).dt().microsecond().alias(format!("{c} us")),
            col(c).dt().nanosecond().alias(format!("{c} ns")),
        ]
    };
    let exprs: Vec<Expr> = ["date", "ms", "us", "ns"]
        .into_iter()
        .flat_map(date_parts)
        .chain(["ms", "us", "ns"].into_iter().flat_map(time_parts))
        .chain(["date", "ms", "us", "ns"].into_iter().flat_map(conversions))
        .collect();
    assert_gpu_eq("date and time parts", frame.select(exprs));
}

#[test]
fn duration_totals_leap_years_and_formatted_dates_match_the_cpu() {
    let frame = || {
        df!(
            "days" => [Some(0i32), Some(-1), None, Some(19_723), Some(11_016), Some(-25_567), Some(47_482)],
            "ticks" => [Some(0i64), Some(-1), None, Some(86_399_999), Some(-86_400_001), Some(i64::MAX / 7), Some(123_456_789_012)],
        )
        .unwrap()
        .lazy()
        .with_columns([
            col("days").cast(DataType::Date).alias("d"),
            (col("days").cast(DataType::Int64) * lit(86_400_000_000i64) + lit(7i64))
                .cast(DataType::Datetime(TimeUnit::Microseconds, None))
                .alias("t"),
            col("ticks").cast(DataType::Duration(TimeUnit::Milliseconds)).alias("ms"),
            col("ticks").cast(DataType::Duration(TimeUnit::Nanoseconds)).alias("ns"),
        ])
    };
    let mut exprs = vec![];
    for c in ["ms", "ns"] {
        for fractional in [false, true] {
            let dt = || col(c).dt();
            exprs.extend([
                dt().total_days(fractional)
                    .alias(format!("{c} days {fractional}")),
                dt().total_hours(fractional)
                    .alias(format!("{c} hours {fractional}")),
                dt().total_minutes(fractional)
                    .alias(format!("{c} minutes {fractional}")),
                dt().total_seconds(fractional)
                    .alias(format!("{c} seconds {fractional}")),
                dt().total_milliseconds(fractional)
                    .alias(format!("{c} ms {fractional}")),
                dt().total_microseconds(fractional)
                    .alias(format!("{c} us {fractional}")),
                dt().total_nanoseconds(fractional)
                    .alias(format!("{c} ns {fractional}")),
            ]);
        }
    }
    exprs.extend([
        col("d").dt().is_leap_year().alias("leap d"),
        col("t").dt().is_leap_year().alias("leap t"),
        col("d").dt().to_string("%Y-%m-%d").alias("d as text"),
        col("d").dt().to_string("iso").alias("d as iso"),
        col("t").dt().to_string("iso").alias("t as iso"),
        col("t")
            .dt()
            .to_string("%Y-%m-%d %H:%M:%S%.6f")
            .alias("t as text"),
        (col("d") - col("d").shift(lit(1))).alias("days between"),
        (col("d") - col("d").min())
            .dt()
            .total_days(false)
            .alias("days since the first"),
    ]);
    assert_gpu_eq(
        "duration totals, leap years, formatted dates",
        frame().select(exprs),
    );
    // Chrono formats of the specifiers the device writes, text between
    // them (multi-byte too).
    let formats = [
        "%d/%m/%Y",
        "%Y%m%d",
        "%y-%j %e|%b %B",
        "%a %A %u %w",
        "%F – %D",
        "%%Y%n%t«»",
        "",
    ];
    let time_formats = [
        "%H:%M",
        "%I:%M:%S %p",
        "%T%.3f",
        "%R %9f",
        "%FT%T%.9f",
        "%6f",
        "%T%.f",
    ];
    let mut exprs = vec![];
    for (i, format) in formats.iter().enumerate() {
        exprs.push(col("d").dt().to_string(format).alias(format!("d {i}")));
        exprs.push(col("t").dt().to_string(format).alias(format!("t {i}")));
    }
    for (i, format) in time_formats.iter().enumerate() {
        exprs.push(col("t").dt().to_string(format).alias(format!("time {i}")));
    }
    exprs.push(col("t").dt().to_string("iso:strict").alias("iso:strict"));
    assert_gpu_eq("dt.to_string in chrono formats", frame().select(exprs));
    // Dates have no time of day: Polars raises its own error.
    assert_cpu_error(frame().select([col("d").dt().to_string("%H:%M")]));
    assert_cpu_answer_with_reason(
        frame().select([col("t").dt().to_string("%-d.%m")]),
        "dt.to_string of datetime[us] with the format \"%-d.%m\"",
    );
}

#[test]
fn truncation_of_dates_and_timestamps_matches_the_cpu() {
    // Days around many month and year turns, before and after 1970, at
    // random moments of the day.
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
    let mut days: Vec<Option<i64>> = (-1500..1500).map(|d| Some(d * 29 + 3)).collect();
    days.extend((0..500).map(|_| Some((next() % 200_000) as i64 - 100_000)));
    days.push(None);
    let frame = moments(&days, next);
    let mut exprs = vec![];
    for every in [
        "1d", "3d", "1w", "2w", "1mo", "2mo", "1q", "5mo", "1y", "3y",
    ] {
        for c in ["date", "us", "ns", "ms"] {
            exprs.push(
                col(c)
                    .dt()
                    .truncate(lit(every))
                    .alias(format!("{c} {every}")),
            );
        }
    }
    for every in ["1h", "15m", "1d12h", "7s", "250ms", "3us", "0ns", "1ns"] {
        for c in ["us", "ns", "ms"] {
            exprs.push(
                col(c)
                    .dt()
                    .truncate(lit(every))
                    .alias(format!("{c} {every}")),
            );
        }
    }
    assert_gpu_eq("dt.truncate", frame.clone().select(exprs));
    assert_cpu_answer_with_reason(
        frame.clone().select([col("date").dt().truncate(lit("1h"))]),
        "dt.truncate of date",
    );
    assert_cpu_error(frame.select([col("us").dt().truncate(lit("1mo1d"))]));
}

#[test]
fn calendar_functions_and_time_unit_changes_match_the_cpu() {
    // Days around year, century and millennium boundaries (before 1970 and
    // the year 0 too), leap days, and the first and last days of years whose
    // ISO year differs.
    let days = [
        Some(0i32),
        Some(-1),
        Some(10_956),
        Some(10_957),
        Some(11_016),
        Some(-25_508),
        Some(-719_528),
        Some(-719_162),
        Some(-719_163),
        Some(-36_524),
        Some(-36_525),
        Some(14_244),
        Some(14_245),
        Some(16_801),
        Some(20_088),
        Some(20_089),
        Some(1_000),
        None,
    ];
    let mut df = df!("d" => days).unwrap();
    let date = df.column("d").unwrap().cast(&DataType::Date).unwrap();
    df.with_column(date).unwrap();
    let lf = df.lazy().with_columns([
        (col("d").cast(DataType::Int64) * lit(86_400_000_000i64 + 1234))
            .cast(DataType::Datetime(TimeUnit::Microseconds, None))
            .alias("t"),
        (col("d").cast(DataType::Int64) * lit(-3_600_001i64))
            .cast(DataType::Duration(TimeUnit::Milliseconds))
            .alias("span"),
    ]);
    let calendar = |c: &str| {
        [
            col(c).dt().millennium().alias(format!("{c} millennium")),
            col(c).dt().century().alias(format!("{c} century")),
            col(c).dt().iso_year().alias(format!("{c} iso year")),
            col(c)
                .dt()
                .days_in_month()
                .alias(format!("{c} days in month")),
            col(c).dt().is_leap_year().alias(format!("{c} leap")),
        ]
    };
    assert_gpu_eq(
        "calendar functions of dates and datetimes",
        lf.clone().select(
            calendar("d")
                .into_iter()
                .chain(calendar("t"))
                .collect::<Vec<_>>(),
        ),
    );
    let units = |c: &str| {
        [
            TimeUnit::Nanoseconds,
            TimeUnit::Microseconds,
            TimeUnit::Milliseconds,
        ]
        .into_iter()
        .flat_map(|unit| {
            [
                col(c)
                    .dt()
                    .cast_time_unit(unit)
                    .alias(format!("{c} as {unit}")),
                col(c)
                    .dt()
                    .with_time_unit(unit)
                    .alias(format!("{c} read in {unit}")),
            ]
        })
        .collect::<Vec<_>>()
    };
    assert_gpu_eq(
        "cast_time_unit (datetimes down, durations toward zero) and with_time_unit",
        lf.select(
            units("t")
                .into_iter()
                .chain(units("span"))
                .collect::<Vec<_>>(),
        ),
    );
    // To a finer unit Polars multiplies, wrapping where it overflows.
    let far = df!("far" => [Some(9_300_000_000_000_000i64), Some(-9_300_000_000_000_001), None])
        .unwrap()
        .lazy()
        .select([col("far").cast(DataType::Datetime(TimeUnit::Milliseconds, None))]);
    assert_gpu_eq(
        "cast_time_unit wraps to a finer unit",
        far.select(units("far")),
    );
}

#[test]
fn rounding_timestamps_to_durations_matches_the_cpu() {
    let mut next = xorshift(0x0dd_7001);
    let ticks: Vec<Option<i64>> = (0..300)
        .map(|i| match i % 7 {
            0 => None,
            // Exact halves and multiples of an hour, either side of 1970.
            1 => Some((next() % 2000) as i64 * 1_800_000_000 - 1_800_000_000_000),
            _ => Some((next() % 4_000_000_000_000_000) as i64 - 2_000_000_000_000_000),
        })
        .collect();
    let frame = || {
        df!("t" => &ticks).unwrap().lazy().with_columns([
            col("t")
                .cast(DataType::Datetime(TimeUnit::Microseconds, None))
                .alias("us"),
            (col("t") / lit(1000i64))
                .cast(DataType::Datetime(TimeUnit::Milliseconds, None))
                .alias("ms"),
            col("t")
                .cast(DataType::Datetime(TimeUnit::Nanoseconds, None))
                .alias("ns"),
        ])
    };
    let round = |c: &str, every: &str| col(c).dt().round(lit(every)).alias(format!("{c} {every}"));
    assert_gpu_eq(
        "timestamps rounded to durations",
        frame().select([
            round("us", "1h"),
            round("us", "15m"),
            round("us", "1d"),
            round("ms", "1d2h"),
            round("ms", "3s"),
            round("ns", "7ms"),
            round("ns", "1us"),
        ]),
    );
    assert_gpu_eq(
        "timestamps rounded to weeks",
        frame().select([round("us", "1w"), round("ms", "2w"), round("ns", "1w")]),
    );
    // Weeks and days together: Polars raises.
    assert_cpu_error(frame().select([round("us", "1w1d")]));
    // Dates by whole days, either side of 1970, ties too.
    let days: Vec<Option<i32>> = (-40..40).map(|d| (d % 9 != 0).then_some(d * 3)).collect();
    let dates = || {
        df!("d" => &days)
            .unwrap()
            .lazy()
            .with_columns([col("d").cast(DataType::Date)])
    };
    assert_gpu_eq(
        "dates rounded to whole days",
        dates().select([
            round("d", "1d"),
            round("d", "2d"),
            round("d", "5d"),
            round("d", "7d"),
            round("d", "1w"),
            round("d", "3w"),
        ]),
    );
    assert_cpu_answer_with_reason(
        dates().select([round("d", "12h")]),
        "dt.round of date by \"12h\"",
    );
}

/// Sums and differences of dates, datetimes and durations of differing
/// units, as Polars computes them: both in the result's (coarser) unit, a
/// datetime rounded down and a duration truncated on the way; a date as a
/// datetime in microseconds (or the duration's coarser unit), the result
/// rounded down to a day.
/// Values with remainders below the coarser unit, of both signs, and nulls.
#[test]
fn sums_of_dates_datetimes_and_durations_of_differing_units_match_the_cpu() {
    let us = [
        Some(86_400_000_000i64 + 5),
        Some(-3),
        Some(1_000_999),
        None,
        Some(-86_400_000_001),
        Some(-1_500),
    ];
    let frame = df!(
        "d" => [Some(19_000i32), Some(19_001), Some(-5), Some(3), Some(-1), Some(0)],
        "t" => [Some(1_640_995_200_123_456i64), Some(-1_999), Some(7), Some(0), None, Some(-86_400_000_000)],
        "us" => us,
        "ms" => [Some(86_400_000i64), Some(-1), Some(1_500), Some(3), None, Some(-7)],
        "ns" => [Some(1_999_999i64), Some(-1), Some(5), None, Some(86_400_000_000_000), Some(-2_000_001)],
    )
    .unwrap()
    .lazy()
    .with_columns([
        col("d").cast(DataType::Date),
        col("t").cast(DataType::Datetime(TimeUnit::Microseconds, None)),
        col("us").cast(DataType::Duration(TimeUnit::Microseconds)),
        col("ms").cast(DataType::Duration(TimeUnit::Milliseconds)),
        col("ns").cast(DataType::Duration(TimeUnit::Nanoseconds)),
    ]);
    let datetime = |unit| col("t").cast(DataType::Datetime(unit, None));
    // A duration plus a date Polars adds in whole days, truncated: left
    // to it (and answered as it answers).
    crate::fuzz::assert_same_as_cpu(
        frame
            .clone()
            .select([(col("ns") + col("d")).alias("ns + date")]),
        crate::fuzz::Compare {
            ordered: true,
            floats_close: false,
            partition_rows: None,
            spill_kept: false,
        },
    );
    assert_gpu_eq(
        "sums and differences of temporal types of differing units",
        frame.select([
            (col("d") + col("us")).alias("date + us"),
            (col("d") - col("ms")).alias("date - ms"),
            (col("d") - col("ns")).alias("date - ns"),
            (col("t") + col("us")).alias("us + us"),
            (col("t") - col("ms")).alias("us - ms"),
            (col("t") + col("ns")).alias("us + ns"),
            (col("ms") + col("t")).alias("ms + us"),
            (datetime(TimeUnit::Nanoseconds) - col("ms")).alias("ns - ms"),
            (datetime(TimeUnit::Milliseconds) + col("ns")).alias("ms + ns"),
            (col("us") + col("ms")).alias("us + ms duration"),
            (col("ms") - col("ns")).alias("ms - ns duration"),
            (col("ns") - col("us")).alias("ns - us duration"),
        ]),
    );
}

/// Times of day (nanoseconds since midnight, at a day's edges and beside
/// them) and datetimes before and after 1970, for [`times_of_day_match_the_cpu`].
fn times_of_day() -> LazyFrame {
    const DAY: i64 = 86_400_000_000_000;
    df!(
        "k" => [3i64, 1, 2, 1, 3, 5, 2],
        "t" => [Some(3_600_000_000_123i64), None, Some(0), Some(DAY - 1), Some(45_296_789_000_000), Some(3_600_000_000_123), Some(1)],
        "u" => [Some(0i64), Some(7), None, Some(DAY - 1), Some(3_600_000_000_000), Some(DAY / 2), Some(1)],
        "d" => [Some(-1i64), Some(1_700_000_123_456), None, Some(-86_400_001), Some(0), Some(12_345), Some(-86_400_000)],
    )
    .unwrap()
    .lazy()
    .with_columns([
        col("t").cast(DataType::Time),
        col("u").cast(DataType::Time),
        col("d").cast(DataType::Datetime(TimeUnit::Milliseconds, None)),
    ])
}

#[test]
fn times_of_day_match_the_cpu() {
    let frame = times_of_day();
    let one = lit(Scalar::new(
        DataType::Time,
        AnyValue::Time(3_600_000_000_000),
    ));
    let sorted_rows = |lf: LazyFrame| lf.sort(["k", "t", "u", "d"], Default::default());
    for (name, lf) in [
        ("a frame of times, as it is", frame.clone()),
        (
            "sorted by time, descending, nulls last",
            frame.clone().sort(
                ["t", "k"],
                SortMultipleOptions::default()
                    .with_order_descending(true)
                    .with_nulls_last(true),
            ),
        ),
        (
            "distinct times",
            frame
                .clone()
                .unique_stable(Some(cols(["t"])), UniqueKeepStrategy::First),
        ),
        (
            "grouped by time",
            frame
                .clone()
                .group_by_stable([col("t")])
                .agg([col("k").sum()]),
        ),
        (
            "times aggregated per group",
            frame.clone().group_by_stable([col("k")]).agg([
                col("t").min().alias("min"),
                col("t").max().alias("max"),
                col("t").first().alias("first"),
                col("u").last().alias("last"),
                col("t").n_unique().alias("n_unique"),
                col("t").arg_max().alias("arg_max"),
            ]),
        ),
        (
            "joined on time",
            sorted_rows(frame.clone().join(
                frame.clone().select([col("t"), col("u").alias("u2")]),
                [col("t")],
                [col("t")],
                JoinArgs::new(JoinType::Left),
            )),
        ),
        (
            "filtered by a time",
            frame.clone().filter(col("t").gt(one.clone())),
        ),
        (
            "compared, filled, chosen and clipped",
            frame.clone().select([
                col("t").lt_eq(col("u")).alias("t <= u"),
                col("t").eq(one.clone()).alias("t == 01:00"),
                col("t").fill_null(one.clone()).alias("filled"),
                col("t")
                    .fill_null_with_strategy(FillNullStrategy::Max)
                    .alias("filled by max"),
                when(col("k").gt(lit(1)))
                    .then(col("t"))
                    .otherwise(col("u"))
                    .alias("when"),
                col("t").clip(one.clone(), col("u")).alias("clipped"),
                col("t").max().over([col("k")]).unwrap().alias("max over k"),
                col("u").rank(Default::default(), None).alias("rank"),
            ]),
        ),
        (
            "parts of times",
            frame.clone().select([
                col("t").dt().hour().alias("hour"),
                col("t").dt().minute().alias("minute"),
                col("t").dt().second().alias("second"),
                col("t").dt().millisecond().alias("millisecond"),
                col("t").dt().microsecond().alias("microsecond"),
                col("t").dt().nanosecond().alias("nanosecond"),
            ]),
        ),
        (
            "times of datetimes, casts, differences and combinations",
            frame.clone().select([
                col("d").dt().time().alias("dt.time"),
                col("d").cast(DataType::Time).alias("ms as time"),
                col("d")
                    .cast(DataType::Datetime(TimeUnit::Microseconds, None))
                    .cast(DataType::Time)
                    .alias("us as time"),
                col("t").cast(DataType::Int64).alias("as i64"),
                col("t").cast(DataType::Int16).alias("as i16"),
                col("t")
                    .cast(DataType::Duration(TimeUnit::Milliseconds))
                    .alias("as ms"),
                col("k").cast(DataType::Time).alias("i64 as time"),
                (col("t") - col("u")).alias("t - u"),
                col("d")
                    .dt()
                    .combine(col("t"), TimeUnit::Microseconds)
                    .alias("combined"),
                col("d")
                    .dt()
                    .date()
                    .dt()
                    .combine(col("u"), TimeUnit::Nanoseconds)
                    .alias("date combined"),
            ]),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
    // What Polars computes through floats stays with it (times as text:
    // `casts::times_of_day_are_written_as_text`).
    assert_cpu_answer_with_reason(
        frame.clone().select([col("t").mean()]),
        "mean of time is not supported on the GPU",
    );
    assert_cpu_answer_with_reason(
        frame.select([col("t").cum_max(false)]),
        "cum_max of time is not supported on the GPU",
    );
}

#[test]
fn timestamps_and_durations_of_two_units_meet_in_the_coarser() {
    // Polars subtracts and compares timestamps (and compares durations) of
    // two units in the coarser, rounded down (durations truncated).
    let ticks = [
        Some(1_700_000_000_123_456_789i64),
        Some(-1_234_567),
        None,
        Some(999),
        Some(-1),
        Some(0),
    ];
    let frame = df!("t" => ticks, "u" => [Some(5i64), Some(-7), Some(3), None, Some(-1), Some(0)])
        .unwrap()
        .lazy()
        .with_columns([
            col("t")
                .cast(DataType::Datetime(TimeUnit::Nanoseconds, None))
                .alias("ns"),
            (col("t") / lit(1000i64))
                .cast(DataType::Datetime(TimeUnit::Microseconds, None))
                .alias("us"),
            (col("u") * lit(1_000_000i64))
                .cast(DataType::Datetime(TimeUnit::Milliseconds, None))
                .alias("ms"),
            col("t")
                .cast(DataType::Duration(TimeUnit::Nanoseconds))
                .alias("dns"),
            col("u")
                .cast(DataType::Duration(TimeUnit::Milliseconds))
                .alias("dms"),
        ]);
    assert_gpu_eq(
        "timestamps of two units",
        frame.select([
            (col("ns") - col("us")).alias("ns - us"),
            (col("us") - col("ns")).alias("us - ns"),
            (col("ms") - col("ns")).alias("ms - ns"),
            (col("ns") - col("ms")).alias("ns - ms"),
            col("ns").lt(col("us")).alias("ns < us"),
            col("ns").eq(col("us")).alias("ns == us"),
            col("ms").gt_eq(col("ns")).alias("ms >= ns"),
            col("dns").lt(col("dms")).alias("dns < dms"),
            col("dms").eq(col("dns")).alias("dms == dns"),
            (col("ns") - col("ms")).sum().alias("a sum of differences"),
        ]),
    );
}

#[test]
fn first_and_last_days_of_months_match_the_cpu() {
    // Leap and common Februaries, months of 30 and 31 days, dates before
    // 1970, times of day kept (before 1970 too), every unit.
    let days = [
        Some(19_782i32), // 2024-02-29
        Some(19_417),    // 2023-03-01
        Some(-1),        // 1969-12-31
        None,
        Some(-25_567), // 1900-01-01
        Some(11_016),  // 2000-02-29
        Some(20_088),  // 2024-12-31
    ];
    let frame = df!("d" => days).unwrap().lazy().with_columns([
        col("d").cast(DataType::Date).alias("date"),
        (col("d").cast(DataType::Int64) * lit(86_400_000_000i64) + lit(45_296_789_012i64))
            .cast(DataType::Datetime(TimeUnit::Microseconds, None))
            .alias("us"),
        (col("d").cast(DataType::Int64) * lit(86_400_000i64) - lit(1i64))
            .cast(DataType::Datetime(TimeUnit::Milliseconds, None))
            .alias("ms"),
        (col("d").cast(DataType::Int64) * lit(86_400_000_000_000i64) + lit(1i64))
            .cast(DataType::Datetime(TimeUnit::Nanoseconds, None))
            .alias("ns"),
    ]);
    let bounds = |column: &str| {
        [
            col(column)
                .dt()
                .month_start()
                .alias(format!("{column} start")),
            col(column).dt().month_end().alias(format!("{column} end")),
        ]
    };
    assert_gpu_eq(
        "month_start and month_end",
        frame.select(
            ["date", "us", "ms", "ns"]
                .into_iter()
                .flat_map(bounds)
                .collect::<Vec<_>>(),
        ),
    );
}

#[test]
fn offsets_by_durations_match_the_cpu() {
    // Dates (as microsecond timestamps, rounded down to a day: before 1970
    // too), timestamps of every unit, timestamps in UTC and in a zone of
    // daylight saving time (by hours: their instants), negative offsets.
    let ticks = [
        Some(1_700_000_000_123_456_789i64),
        Some(-1_234_567_890_123),
        None,
        Some(0),
        Some(-1),
    ];
    let zone = |name: &str| TimeZone::opt_try_new(Some(name)).unwrap().unwrap();
    let frame =
        df!("t" => ticks, "d" => [Some(19_782i32), Some(-1), None, Some(0), Some(-719_162)])
            .unwrap()
            .lazy()
            .with_columns([
                col("d").cast(DataType::Date).alias("date"),
                col("t")
                    .cast(DataType::Datetime(TimeUnit::Nanoseconds, None))
                    .alias("ns"),
                (col("t") / lit(1_000i64))
                    .cast(DataType::Datetime(TimeUnit::Microseconds, None))
                    .alias("us"),
                (col("t") / lit(1_000_000i64))
                    .cast(DataType::Datetime(
                        TimeUnit::Milliseconds,
                        Some(zone("UTC")),
                    ))
                    .alias("utc"),
                (col("t") / lit(1_000i64))
                    .cast(DataType::Datetime(
                        TimeUnit::Microseconds,
                        Some(zone("Europe/Amsterdam")),
                    ))
                    .alias("amsterdam"),
            ]);
    let offset = |column: &str, by: &str| {
        col(column)
            .dt()
            .offset_by(lit(by))
            .alias(format!("{column} by {by}"))
    };
    assert_gpu_eq(
        "offsets of fixed length",
        frame.clone().select([
            offset("date", "1d"),
            offset("date", "-12h"),
            offset("date", "2w3d"),
            offset("ns", "1d2h3m4s5ms6us7ns"),
            offset("ns", "-1ns"),
            offset("us", "-3w"),
            offset("utc", "1d"),
            offset("amsterdam", "-90m"),
            offset("amsterdam", "25h"),
        ]),
    );
    // Months first (the day clamped to the month's last: leap days, the
    // 31st), then the rest; before 1970 and backwards too.
    let ends = df!("d" => [19_753i32, 19_782, 19_813, -1, 19_600, -719_162, -25_000])
        .unwrap()
        .lazy()
        .with_columns([col("d").cast(DataType::Date).alias("date")]);
    let ends = ends.with_columns([(col("date")
        .cast(DataType::Datetime(TimeUnit::Milliseconds, None))
        + lit(Duration::parse("13h14m15s16ms")))
    .alias("ms")]);
    assert_gpu_eq(
        "offsets by months",
        ends.select([
            offset("date", "1mo"),
            offset("date", "-1mo"),
            offset("date", "1y"),
            offset("date", "-13mo"),
            offset("date", "1q2d"),
            offset("date", "-2y1mo12h"),
            offset("ms", "1mo"),
            offset("ms", "11mo1d1ms"),
            offset("ms", "-1mo"),
            offset("ms", "-4y"),
        ]),
    );
    assert_gpu_eq(
        "offsets by months of every unit, in UTC",
        frame.clone().select([
            offset("ns", "1mo"),
            offset("us", "-25mo"),
            offset("utc", "2mo1d"),
        ]),
    );
    // Months and days where a zone's days differ in length fall back.
    assert_cpu_answer_with_reason(
        frame.clone().select([offset("amsterdam", "1mo")]),
        "dt.offset_by of datetime[us, Europe/Amsterdam] by \"1mo\"",
    );
    assert_cpu_answer_with_reason(
        frame.select([offset("amsterdam", "1d")]),
        "months and days are not of fixed length",
    );
}

#[test]
fn means_and_medians_of_durations_and_timestamps_match_the_cpu() {
    // Polars takes them of the ticks as floats, cast back toward zero
    // (`v` holds values whose mean is not whole, negative ones too).
    let frame = groups().with_columns([
        col("v")
            .cast(DataType::Duration(TimeUnit::Microseconds))
            .alias("d"),
        col("v")
            .cast(DataType::Datetime(TimeUnit::Milliseconds, None))
            .alias("t"),
    ]);
    assert_gpu_eq(
        "means and medians of durations and timestamps per group",
        frame.clone().group_by_stable([col("g")]).agg([
            col("d").mean().alias("mean d"),
            col("d").median().alias("median d"),
            col("t").mean().alias("mean t"),
            col("t").median().alias("median t"),
            col("d")
                .filter(col("x").gt(lit(0.5)))
                .mean()
                .alias("mean of kept"),
        ]),
    );
    assert_gpu_eq(
        "over windows and the whole frame",
        frame.clone().select([
            col("d").mean().over([col("h")]).unwrap().alias("by h"),
            col("t").median().alias("median t"),
            col("d").mean().alias("mean d"),
        ]),
    );
    // Beyond i64 (the mean of values near i64::MAX rounds to 2^63): per
    // group Polars casts it (null), over the whole frame it saturates.
    let big = df!(
        "g" => [1i64, 1, 2],
        "v" => [i64::MAX, i64::MAX - 1, 5],
    )
    .unwrap()
    .lazy()
    .with_columns([col("v")
        .cast(DataType::Duration(TimeUnit::Nanoseconds))
        .alias("d")]);
    assert_gpu_eq(
        "means beyond i64 per group",
        big.clone()
            .group_by_stable([col("g")])
            .agg([col("d").mean()]),
    );
    assert_gpu_eq(
        "means beyond i64 of the frame",
        big.select([col("d").mean(), col("d").median().alias("m")]),
    );
    // Of dates: their days' moment times a day's microseconds, a
    // timestamp (µs); far dates beyond i64 there, null per group and
    // saturated over the frame (fuzz seed 3006: the days were taken as
    // microseconds).
    let dates = df!(
        "g" => [1i64, 1, 2, 2, 2, 3, 3, 4],
        "day" => [Some(9070i32), Some(9071), Some(-3), None, Some(4), Some(i32::MAX), Some(i32::MAX - 2), Some(i32::MIN)],
    )
    .unwrap()
    .lazy()
    .with_columns([col("day").cast(DataType::Date)]);
    assert_gpu_eq(
        "means and medians of dates per group",
        dates.clone().group_by_stable([col("g")]).agg([
            col("day").mean().alias("mean"),
            col("day").median().alias("median"),
        ]),
    );
    for (name, (offset, len)) in [
        ("near", (0, 5)),
        ("far ahead", (5, 2)),
        ("far back", (7, 1)),
    ] {
        assert_gpu_eq(
            &format!("means and medians of dates, {name}, of the frame"),
            dates.clone().slice(offset, len).select([
                col("day").mean().alias("mean"),
                col("day").median().alias("median"),
            ]),
        );
    }
}
