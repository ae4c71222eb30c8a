//! Timestamps in time zones on the device: instants, local times in any zone of Polars' database, and wall-clock times made instants.

use super::*;

/// Timestamps in UTC and in Asia/Kathmandu (+05:45) of the same instants,
/// before and after 1970, with a naive copy and a duration.
fn zoned_timestamps() -> LazyFrame {
    let zone = |name: &str| TimeZone::opt_try_new(Some(name)).unwrap().unwrap();
    let us = [
        Some(-1i64),
        Some(1_700_000_123_456_789),
        None,
        Some(-86_400_000_001),
        Some(0),
        Some(1_700_000_123_456_789),
        Some(86_399_999_999),
    ];
    df!(
        "k" => [3i64, 1, 2, 1, 3, 5, 2],
        "utc" => us,
        "ktm" => us,
        "naive" => us,
        "span" => [Some(5i64), Some(-3_600_000_000), Some(7), None, Some(86_400_000_000), Some(0), Some(1)],
    )
    .unwrap()
    .lazy()
    .with_columns([
        col("utc").cast(DataType::Datetime(TimeUnit::Microseconds, Some(zone("UTC")))),
        col("ktm").cast(DataType::Datetime(
            TimeUnit::Microseconds,
            Some(zone("Asia/Kathmandu")),
        )),
        col("naive").cast(DataType::Datetime(TimeUnit::Microseconds, None)),
        col("span").cast(DataType::Duration(TimeUnit::Microseconds)),
    ])
}

#[test]
fn timestamps_in_time_zones_match_the_cpu() {
    let frame = zoned_timestamps();
    let zone = |name: &str| TimeZone::opt_try_new(Some(name)).unwrap().unwrap();
    let kathmandu = lit(Scalar::new(
        DataType::Datetime(TimeUnit::Microseconds, Some(zone("Asia/Kathmandu"))),
        AnyValue::Datetime(0, TimeUnit::Microseconds, None),
    ));
    for (name, lf) in [
        ("zoned timestamps, as they are", frame.clone()),
        (
            "sorted by a zoned timestamp",
            frame.clone().sort(["ktm", "k"], Default::default()),
        ),
        (
            "grouped by zoned timestamps",
            frame.clone().group_by_stable([col("ktm")]).agg([
                col("k").sum(),
                col("utc").max().alias("latest"),
                col("utc").first().alias("first"),
            ]),
        ),
        (
            "distinct zoned timestamps",
            frame
                .clone()
                .unique_stable(Some(cols(["utc"])), UniqueKeepStrategy::Last),
        ),
        (
            "joined on zoned timestamps",
            frame
                .clone()
                .join(
                    frame.clone().select([col("ktm"), col("k").alias("k2")]),
                    [col("ktm")],
                    [col("ktm")],
                    JoinArgs::new(JoinType::Left),
                )
                .sort(["k", "k2", "utc"], Default::default()),
        ),
        (
            "filtered by a zoned literal",
            frame.clone().filter(col("ktm").gt_eq(kathmandu.clone())),
        ),
        (
            "instants: compared, moved by durations, subtracted, converted",
            frame.clone().select([
                col("ktm").lt(kathmandu.clone()).alias("before 1970"),
                (col("ktm") + col("span")).alias("ktm + span"),
                (col("utc") - col("span")).alias("utc - span"),
                (col("ktm") - col("ktm").shift(lit(1))).alias("ktm - previous"),
                col("utc")
                    .dt()
                    .convert_time_zone(zone("Asia/Kathmandu"))
                    .alias("utc in Kathmandu"),
                col("ktm")
                    .dt()
                    .convert_time_zone(zone("UTC"))
                    .alias("ktm in UTC"),
                col("ktm")
                    .dt()
                    .cast_time_unit(TimeUnit::Milliseconds)
                    .alias("ktm in ms"),
                col("ktm")
                    .cast(DataType::Datetime(TimeUnit::Nanoseconds, Some(zone("UTC"))))
                    .alias("ktm cast to ns in UTC"),
                col("ktm").cast(DataType::Int64).alias("ktm as i64"),
                col("ktm")
                    .dt()
                    .timestamp(TimeUnit::Milliseconds)
                    .alias("timestamp"),
                col("ktm")
                    .min()
                    .over([col("k")])
                    .unwrap()
                    .alias("min over k"),
            ]),
        ),
        (
            "UTC: local time is the instant's",
            frame.clone().select([
                col("utc").dt().hour().alias("hour"),
                col("utc").dt().day().alias("day"),
                col("utc").dt().year().alias("year"),
                col("utc").dt().date().alias("date"),
                col("utc").dt().time().alias("time"),
                col("naive")
                    .dt()
                    .replace_time_zone(Some(zone("UTC")), lit("raise"), NonExistent::Raise)
                    .alias("naive in UTC"),
                col("utc")
                    .dt()
                    .replace_time_zone(None, lit("raise"), NonExistent::Raise)
                    .alias("utc made naive"),
            ]),
        ),
        (
            "Kathmandu: local time is the instant's plus +05:45 (or +05:30 before 1986)",
            frame.clone().select([
                col("ktm").dt().hour().alias("hour"),
                col("ktm").dt().minute().alias("minute"),
                col("ktm").dt().date().alias("date"),
            ]),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
    // Naive timestamps read as local times of another zone.
    assert_gpu_eq(
        "naive timestamps made instants in Kathmandu",
        frame.select([col("naive").dt().replace_time_zone(
            Some(zone("Asia/Kathmandu")),
            lit("raise"),
            NonExistent::Raise,
        )]),
    );
}

/// Instants on, just before and just after the daylight-saving changes of
/// 2021 in Amsterdam and New York, Lord Howe's half-hour ones, Kathmandu's
/// change from +05:30 in 1986, and before 1970; every row in every zone.
fn instants_around_zone_changes() -> Vec<Option<i64>> {
    let seconds = [
        1_616_893_200i64, // 2021-03-28 01:00 UTC: Amsterdam to summer time
        1_635_642_000,    // 2021-10-31 01:00 UTC: Amsterdam to winter time
        1_615_705_200,    // 2021-03-14 07:00 UTC: New York to summer time
        1_636_264_800,    // 2021-11-07 06:00 UTC: New York to winter time
        1_617_461_000,    // 2021-04-03 14:43:20 UTC: near Lord Howe's change
        504_901_800,      // 1985-12-31 18:30 UTC: Kathmandu to +05:45
        -1_000_000_000,
        0,
    ];
    let mut instants = Vec::new();
    for second in seconds {
        for delta in [-1i64, 0, 1, 1_799, 3_600] {
            instants.push(Some((second + delta) * 1_000 + 7));
        }
    }
    instants.push(None);
    instants
}

/// The ticks of `unit` in a millisecond.
fn ticks_per_ms(unit: TimeUnit) -> i64 {
    match unit {
        TimeUnit::Milliseconds => 1,
        TimeUnit::Microseconds => 1_000,
        TimeUnit::Nanoseconds => 1_000_000,
    }
}

#[test]
fn local_times_in_time_zones_match_the_cpu() {
    let zone = |name: &str| TimeZone::opt_try_new(Some(name)).unwrap().unwrap();
    let ms = instants_around_zone_changes();
    let n = ms.len();
    let frame = df!("ms" => ms, "k" => (0..n as i64).map(|i| i % 4).collect::<Vec<_>>())
        .unwrap()
        .lazy();
    for (zone_name, unit) in [
        ("Europe/Amsterdam", TimeUnit::Milliseconds),
        ("America/New_York", TimeUnit::Microseconds),
        ("Australia/Lord_Howe", TimeUnit::Nanoseconds),
        ("Asia/Kathmandu", TimeUnit::Milliseconds),
    ] {
        let per_ms = ticks_per_ms(unit);
        let zoned = frame.clone().with_columns([(col("ms") * lit(per_ms))
            .cast(DataType::Datetime(unit, Some(zone(zone_name))))
            .alias("t")]);
        let name = |what: &str| format!("{what} in {zone_name}");
        assert_gpu_eq(
            &name("parts of local times"),
            zoned.clone().select([
                col("t"),
                col("t").dt().hour().alias("hour"),
                col("t").dt().minute().alias("minute"),
                col("t").dt().second().alias("second"),
                col("t").dt().day().alias("day"),
                col("t").dt().weekday().alias("weekday"),
                col("t").dt().month().alias("month"),
                col("t").dt().year().alias("year"),
                col("t").dt().ordinal_day().alias("ordinal day"),
                col("t").dt().date().alias("date"),
                col("t").dt().time().alias("time"),
                col("t")
                    .dt()
                    .replace_time_zone(None, lit("raise"), NonExistent::Raise)
                    .alias("wall clock"),
                col("t")
                    .dt()
                    .to_string("%Y-%m-%d %H:%M:%S%.3f")
                    .alias("as text"),
            ]),
        );
        assert_gpu_eq(
            &name("rows per local date and hour"),
            zoned
                .clone()
                .group_by_stable([col("t").dt().date().alias("date"), col("t").dt().hour()])
                .agg([len(), col("k").sum()]),
        );
        assert_gpu_eq(
            &name("a filter by local hour"),
            zoned.clone().filter(col("t").dt().hour().lt(lit(3i8))),
        );
    }
    // Text with the zone's offset or name stays with Polars.
    let zoned = frame.clone().select([col("ms")
        .cast(DataType::Datetime(
            TimeUnit::Milliseconds,
            Some(zone("Europe/Amsterdam")),
        ))
        .dt()
        .to_string("%Y-%m-%d %H:%M %z")]);
    assert_cpu_answer_with_reason(zoned, "with the format");
    // Past the years the GPU's table of a zone's offsets reaches: Polars.
    let far = df!("ms" => [Some(1_000i64), Some(8_000_000_000_000)])
        .unwrap()
        .lazy()
        .select([col("ms")
            .cast(DataType::Datetime(
                TimeUnit::Milliseconds,
                Some(zone("Europe/Amsterdam")),
            ))
            .dt()
            .hour()]);
    assert_cpu_answer_with_reason(far, "the GPU's table of the zone's offsets does not reach");
}

/// Wall-clock times (as plain timestamps, in milliseconds) every ten
/// minutes and around each second of two hours either side of the local
/// times the clocks skip or pass twice in 2021 in Amsterdam, New York and
/// Lord Howe, and Kathmandu's skipped quarter hour of 1986.
fn wall_times_around_zone_changes() -> Vec<Option<i64>> {
    let anchors = [
        1_616_896_800i64, // 2021-03-28 02:00, skipped in Amsterdam
        1_635_645_600,    // 2021-10-31 02:00, twice in Amsterdam
        1_615_687_200,    // 2021-03-14 02:00, skipped in New York
        1_636_246_800,    // 2021-11-07 01:00, twice in New York
        1_617_499_800,    // 2021-04-04 01:30, twice in Lord Howe
        504_921_600,      // 1986-01-01 00:00, skipped in Kathmandu
    ];
    let mut times = Vec::new();
    for anchor in anchors {
        for step in -12i64..=12 {
            times.push(Some((anchor + step * 600) * 1_000));
        }
        for delta in [-1i64, 1, 1_799, 3_599, 3_600] {
            times.push(Some((anchor + delta) * 1_000 + 3));
        }
    }
    times.push(None);
    times
}

#[test]
fn wall_clock_times_made_instants_in_time_zones_match_the_cpu() {
    let zone = |name: &str| TimeZone::opt_try_new(Some(name)).unwrap().unwrap();
    let frame = df!("ms" => wall_times_around_zone_changes())
        .unwrap()
        .lazy();
    let in_zone = |name: &str, ambiguous: &str, non_existent: NonExistent| {
        col("naive").dt().replace_time_zone(
            Some(zone(name)),
            lit(ambiguous.to_string()),
            non_existent,
        )
    };
    // Each zone, whether the times hold one the clocks pass twice, and one
    // they skip.
    for (name, unit, twice, skipped) in [
        ("Europe/Amsterdam", TimeUnit::Milliseconds, true, true),
        ("America/New_York", TimeUnit::Microseconds, true, true),
        ("Australia/Lord_Howe", TimeUnit::Nanoseconds, true, false),
        ("Asia/Kathmandu", TimeUnit::Milliseconds, false, true),
    ] {
        let per_ms = ticks_per_ms(unit);
        let naive = frame.clone().with_columns([(col("ms") * lit(per_ms))
            .cast(DataType::Datetime(unit, None))
            .alias("naive")]);
        assert_gpu_eq(
            &format!("wall-clock times made instants in {name}"),
            naive.clone().select([
                col("naive"),
                in_zone(name, "earliest", NonExistent::Null).alias("earliest"),
                in_zone(name, "latest", NonExistent::Null).alias("latest"),
                in_zone(name, "null", NonExistent::Null).alias("null"),
                in_zone(name, "earliest", NonExistent::Null)
                    .dt()
                    .hour()
                    .alias("hour there"),
                in_zone(name, "latest", NonExistent::Null)
                    .dt()
                    .replace_time_zone(
                        Some(zone("Asia/Kathmandu")),
                        lit("earliest"),
                        NonExistent::Null,
                    )
                    .alias("the same wall clock in Kathmandu"),
            ]),
        );
        // A time the clocks pass twice or skip, where that raises: Polars'
        // error; without such times, the device's answer.
        let raising = [
            (twice, in_zone(name, "raise", NonExistent::Null)),
            (skipped, in_zone(name, "earliest", NonExistent::Raise)),
        ];
        for (raises, expr) in raising {
            let lf = naive.clone().select([expr]);
            if raises {
                assert_cpu_error(lf);
            } else {
                assert_gpu_eq(&format!("raising on no such time in {name}"), lf);
            }
        }
    }
}

/// Timestamps in a time zone truncated (`dt.truncate`) as Polars does: the
/// local time there truncated, made an instant of the zone again (in UTC,
/// the instant truncated), and rounded (`dt.round`: the instant plus half
/// of the duration, truncated so); by days, weeks, months, quarters and years
/// around the zones' changes, by hours and minutes away from them. A
/// truncation to a local time the clocks skip or pass twice (an hour of
/// New York's fall back) Polars resolves by the original instant's
/// offset (a truncation to months there it raises on): the query is its.
#[test]
fn timestamps_in_time_zones_truncate_their_local_times() {
    let zone = |name: &str| TimeZone::opt_try_new(Some(name)).unwrap().unwrap();
    let ms = instants_around_zone_changes();
    let frame = df!("ms" => ms).unwrap().lazy();
    for (zone_name, unit) in [
        ("Europe/Amsterdam", TimeUnit::Milliseconds),
        ("America/New_York", TimeUnit::Microseconds),
        ("Australia/Lord_Howe", TimeUnit::Nanoseconds),
        ("UTC", TimeUnit::Milliseconds),
    ] {
        let per_ms = ticks_per_ms(unit);
        let zoned = frame.clone().select([(col("ms") * lit(per_ms))
            .cast(DataType::Datetime(unit, Some(zone(zone_name))))
            .alias("t")]);
        let truncated = |every: &str| col("t").dt().truncate(lit(every)).alias(every);
        let rounded = |every: &str| {
            let name = format!("round {every}");
            col("t").dt().round(lit(every)).alias(name)
        };
        let mut exprs = ["1d", "2d", "1w", "1mo", "1q", "1y"]
            .map(truncated)
            .to_vec();
        exprs.extend(["1d", "12h", "1w"].map(rounded));
        assert_gpu_eq(&format!("truncations in {zone_name}"), zoned.select(exprs));
    }
    // By hours and minutes, New York's away from its changes.
    let hours = df!("ms" => [Some(1_600_000_000_000i64), Some(1_650_000_123_456), None, Some(-86_400_000 * 365)])
        .unwrap()
        .lazy()
        .select([col("ms")
            .cast(DataType::Datetime(TimeUnit::Milliseconds, Some(zone("America/New_York"))))
            .alias("t")]);
    assert_gpu_eq(
        "truncations by hours in New York",
        hours.select([
            col("t").dt().truncate(lit("1h")).alias("hour"),
            col("t").dt().truncate(lit("15m")).alias("quarter"),
        ]),
    );
    // New York's fall back: 01:00 local passes twice.
    let fall_back = df!("ms" => [Some(1_636_264_800_000i64 + 1_800_000)])
        .unwrap()
        .lazy()
        .select([col("ms")
            .cast(DataType::Datetime(
                TimeUnit::Milliseconds,
                Some(zone("America/New_York")),
            ))
            .dt()
            .truncate(lit("1h"))]);
    assert_cpu_answer_with_reason(
        fall_back,
        "which Polars resolves by the original instant's offset",
    );
}
