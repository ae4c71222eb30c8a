//! Durations and datetimes made of parts on the device (`duration(days = ..)`, `datetime(year, month, day, ..)`, and so `date(..)`), compared with Polars' CPU engine.

use super::*;

/// Durations made of parts (`duration(days = col("n"), ...)`), of integer
/// columns and literals, in each unit: the ticks of each part added,
/// wrapping (the finer parts divided toward zero), null where a part is;
/// added to dates and timestamps; parts of floats stay with Polars.
#[test]
fn durations_made_of_parts_match_the_cpu() {
    let frame = df!(
        "n" => [Some(3i32), None, Some(-2), Some(0), Some(400), Some(i32::MAX)],
        "big" => [Some(7i64), Some(-1), None, Some(i64::MAX / 1_000), Some(-5_000_001), Some(1)],
        "day" => [Some(19_000i32), Some(0), Some(-1), None, Some(20_000), Some(5)],
        "f" => [1.5f64, 2.0, -0.5, 0.0, 3.25, 1.0],
    )
    .unwrap()
    .lazy()
    .with_columns([col("day").cast(DataType::Date)]);
    let mut exprs = vec![];
    for unit in [
        TimeUnit::Milliseconds,
        TimeUnit::Microseconds,
        TimeUnit::Nanoseconds,
    ] {
        let parts = || DurationArgs {
            time_unit: unit,
            ..Default::default()
        };
        exprs.extend([
            duration(parts().with_days(col("n"))).alias(format!("days {unit}")),
            duration(
                parts()
                    .with_weeks(col("n"))
                    .with_hours(lit(2))
                    .with_nanoseconds(col("big")),
            )
            .alias(format!("weeks and nanoseconds {unit}")),
            duration(
                parts()
                    .with_minutes(col("big"))
                    .with_microseconds(col("big"))
                    .with_milliseconds(col("n")),
            )
            .alias(format!("minutes and finer {unit}")),
            duration(
                parts()
                    .with_seconds(col("big"))
                    .with_days(lit(NULL).cast(DataType::Int64)),
            )
            .alias(format!("a null part {unit}")),
        ]);
    }
    exprs.push((col("day") + duration(DurationArgs::new().with_days(col("n")))).alias("later"));
    assert_gpu_eq("durations of parts", frame.clone().select(exprs));
    assert_cpu_answer_with_reason(
        frame.select([duration(DurationArgs::new().with_hours(col("f")))]),
        "duration of parts that are not integers",
    );
}

/// Datetimes made of parts (`datetime(year, month, day, ...)`, and their
/// dates, Polars' `date(..)`), of integer columns and literals, in each
/// unit: leap days, years before the common era and far ahead, a part too
/// large for Polars' cast (null), null parts; parts that make no date or
/// time send the query to Polars, which raises.
#[test]
fn datetimes_made_of_parts_match_the_cpu() {
    let frame = df!(
        "y" => [Some(2000i32), Some(1900), Some(-44), Some(1), Some(9999), None, Some(1970), Some(2024)],
        "m" => [Some(2i64), Some(3), Some(3), Some(1), Some(12), Some(5), Some(300), Some(1)],
        "d" => [Some(29u8), Some(1), Some(15), Some(1), Some(31), Some(5), Some(1), None],
        "h" => [Some(23i16), Some(0), Some(12), Some(0), Some(23), Some(1), Some(2), Some(3)],
        "us" => [Some(999_999i64), Some(0), Some(1), Some(500_000), Some(123_456), Some(0), Some(0), Some(7)],
    )
    .unwrap()
    .lazy();
    let parts = |unit: TimeUnit| {
        DatetimeArgs::new(col("y"), col("m"), col("d"))
            .with_hms(col("h"), lit(59), lit(58))
            .with_microsecond(col("us"))
            .with_time_unit(unit)
    };
    let mut exprs = vec![];
    for unit in [TimeUnit::Milliseconds, TimeUnit::Microseconds] {
        exprs.push(datetime(parts(unit)).alias(format!("at {unit}")));
    }
    exprs.extend([
        datetime(DatetimeArgs::new(
            lit(2024),
            col("m").clip(lit(1), lit(12)),
            lit(10),
        ))
        .alias("literal year"),
        datetime(DatetimeArgs::new(col("y"), col("m"), col("d")))
            .dt()
            .date()
            .alias("date"),
    ]);
    assert_gpu_eq("datetimes of parts", frame.clone().select(exprs));
    assert_gpu_eq(
        "in nanoseconds",
        frame
            .clone()
            .filter(col("y").gt(lit(1900)).and(col("y").lt(lit(2200))))
            .select([datetime(parts(TimeUnit::Nanoseconds)).alias("ns")]),
    );
    // (A thirteenth month, the 29th of February of a common year, the 31st
    // of April: the year read from the rows, so that the parts are no
    // literals Polars would fold.)
    for (y, m, d) in [(2024, 13, 1), (1900, 2, 29), (2023, 4, 31)] {
        let year = col("h").cast(DataType::Int32) * lit(0) + lit(y);
        assert_cpu_error(
            frame
                .clone()
                .select([datetime(DatetimeArgs::new(year, lit(m), lit(d)))]),
        );
    }
}
