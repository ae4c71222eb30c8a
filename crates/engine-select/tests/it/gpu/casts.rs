//! Casts on the device: between numbers and temporals (temporals to floats too), text parsed as numbers, floats and times of day written as text, `to_physical`.

use super::*;

#[test]
fn casts_between_temporal_units_convert_as_polars_does() {
    let ticks = [
        Some(0i64),
        Some(-1),
        Some(1),
        None,
        Some(-1_500_000),
        Some(1_500_000_001),
        Some(-86_400_000_000_001),
        Some(86_399_999_999_999),
        Some(-86_400_000_000_000),
        Some(1_700_000_123_456),
        // Overflow to finer units: null, as Polars multiplies checked.
        Some(1_700_000_000_123_456_789),
        Some(-9_000_000_000_000_000_000),
    ];
    let mut frame = df!("t" => ticks).unwrap().lazy();
    let units = [
        TimeUnit::Nanoseconds,
        TimeUnit::Microseconds,
        TimeUnit::Milliseconds,
    ];
    let mut casts = vec![];
    for from in units {
        let name = format!("{from:?}");
        frame = frame.with_columns([
            col("t")
                .cast(DataType::Datetime(from, None))
                .alias(format!("dt {name}")),
            col("t")
                .cast(DataType::Duration(from))
                .alias(format!("du {name}")),
        ]);
        casts.push(
            col(format!("dt {name}"))
                .cast(DataType::Date)
                .alias(format!("dt {name} to date")),
        );
        for to in units {
            casts.push(
                col(format!("dt {name}"))
                    .cast(DataType::Datetime(to, None))
                    .alias(format!("dt {name} to {to:?}")),
            );
            casts.push(
                col(format!("du {name}"))
                    .cast(DataType::Duration(to))
                    .alias(format!("du {name} to {to:?}")),
            );
        }
    }
    frame = frame.with_columns([(col("t") % lit(100_000i64))
        .cast(DataType::Int32)
        .cast(DataType::Date)
        .alias("date")]);
    for to in units {
        casts.push(
            col("date")
                .cast(DataType::Datetime(to, None))
                .alias(format!("date to {to:?}")),
        );
    }
    assert_gpu_eq("casts between temporal units", frame.select(casts));
    assert_gpu_eq(
        "date to its days, and back",
        table().select([
            col("d").cast(DataType::Int64).alias("days"),
            col("d")
                .cast(DataType::Int32)
                .cast(DataType::Date)
                .alias("again"),
        ]),
    );
}

#[test]
fn every_cast_the_device_runs_or_refuses_gives_the_cpus_answer() {
    // Whatever runs on the device must equal the CPU, in each of Polars'
    // three cast modes; a strict cast that fails must fail as on the CPU.
    let mut targets = vec![DataType::Boolean];
    targets.extend(integer_types());
    targets.extend([
        DataType::Float32,
        DataType::Float64,
        DataType::Date,
        DataType::Datetime(TimeUnit::Milliseconds, None),
        DataType::Duration(TimeUnit::Microseconds),
    ]);
    let modes = [
        CastOptions::NonStrict,
        CastOptions::Strict,
        CastOptions::Overflowing,
    ];
    let raising = Engine::Gpu(under_test().with_raise_on_fail(true));
    for mode in modes {
        let (mut on_device, mut rejected) = (0, 0);
        for source in ["i", "k", "u", "f", "b", "d"] {
            for target in &targets {
                let case = format!("{source} to {target} ({mode:?})");
                let lf = table().select([col(source)
                    .cast_with_options(target.clone(), mode)
                    .alias("cast")]);
                let expected = lf.clone().collect();
                let fallback = lf.clone().collect_with_report(&Engine::Gpu(under_test()));
                let (expected, (actual, report)) = match (expected, fallback) {
                    (Ok(expected), Ok(actual)) => (expected, actual),
                    (Err(_), Err(EngineError::Polars(_))) => {
                        // Polars' error, raised by the CPU after the device
                        // found the values or refused the cast.
                        match lf.collect_with_report(&raising) {
                            Err(EngineError::GpuUnavailable { reasons }) => {
                                rejected += usize::from(
                                    reasons.iter().all(|r| r.kind == FallbackKind::InvalidData),
                                );
                            }
                            other => panic!("{case}: {:?}", other.map(|(_, r)| r)),
                        }
                        continue;
                    }
                    (expected, actual) => {
                        panic!("{case}: expected {expected:?}, actual {actual:?}")
                    }
                };
                assert!(
                    expected.equals_missing(&actual),
                    "{case}: {report}\nexpected {expected}\nactual {actual}"
                );
                on_device += usize::from(report.executed_by == under_test_executed_by());
            }
        }
        assert!(
            on_device > 40,
            "{mode:?}: only {on_device} casts ran on the device"
        );
        if mode == CastOptions::Strict {
            assert!(
                rejected >= 15,
                "only {rejected} failed strict casts found on the device"
            );
        } else {
            assert_eq!(rejected, 0, "{mode:?}");
        }
    }
    // Casts that may not fit run on the device: null where they do not
    // (non-strict), wrapped or saturated as Rust's `as` (overflowing).
    let lossy = |mode| {
        let casts = [
            (col("f"), DataType::Int32, "f to i32"),
            (col("f"), DataType::UInt64, "f to u64"),
            (col("f"), DataType::Int64, "f to i64"),
            (-col("f"), DataType::UInt8, "-f to u8"),
            (-col("f"), DataType::Int16, "-f to i16"),
            (col("i"), DataType::Int8, "i to i8"),
            (col("i"), DataType::UInt32, "i to u32"),
            (col("k"), DataType::UInt64, "k to u64"),
            (col("u"), DataType::Int8, "u to i8"),
            (col("f") * lit(1e18), DataType::Int64, "big f to i64"),
            (col("f") * lit(1e300), DataType::UInt32, "huge f to u32"),
        ];
        table().select(casts.map(|(input, to, name)| input.cast_with_options(to, mode).alias(name)))
    };
    assert_gpu_eq("non-strict lossy casts", lossy(CastOptions::NonStrict));
    assert_gpu_eq("overflowing casts", lossy(CastOptions::Overflowing));
    // Strict casts of values that fit run on the device whole.
    assert_gpu_eq(
        "strict casts that fit",
        table().select([
            (col("i") % lit(100i64))
                .strict_cast(DataType::Int8)
                .alias("i"),
            col("u").strict_cast(DataType::Int8).alias("u"),
            when(col("f").abs().lt(lit(1e9)))
                .then(col("f"))
                .otherwise(lit(0.0))
                .strict_cast(DataType::Int32)
                .alias("f"),
            col("d")
                .strict_cast(DataType::Datetime(TimeUnit::Nanoseconds, None))
                .alias("d"),
        ]),
    );
    // One that does not fit: Polars' error, and the reason in words.
    assert_invalid_data(
        table().select([col("i").strict_cast(DataType::Int8)]),
        "values that do not fit in `strict_cast(col(\"i\") -> i8)`",
    );
}

#[test]
fn temporals_cast_to_floats_as_their_physical_values() {
    // Days, ticks of the extremes (rounded to f32 from i64 directly), and
    // nanoseconds since midnight, in every mode.
    let frame = df!(
        "d" => [Some(19_000i32), None, Some(-3)],
        "t" => [Some(86_399_999_999_999i64), Some(0), None],
        "u" => [Some(i64::MAX), Some(-1_234_567_890_123_456_789), Some(1)],
    )
    .unwrap()
    .lazy()
    .select([
        col("d").cast(DataType::Date).alias("date"),
        col("t").cast(DataType::Time).alias("time"),
        col("u")
            .cast(DataType::Datetime(TimeUnit::Nanoseconds, None))
            .alias("timestamp"),
        col("u")
            .cast(DataType::Duration(TimeUnit::Milliseconds))
            .alias("duration"),
    ])
    .collect()
    .unwrap()
    .lazy();
    let mut casts = Vec::new();
    for column in ["date", "time", "timestamp", "duration"] {
        for to in [DataType::Float64, DataType::Float32] {
            for mode in [
                CastOptions::NonStrict,
                CastOptions::Strict,
                CastOptions::Overflowing,
            ] {
                let name = format!("{column} to {to} ({mode:?})");
                casts.push(col(column).cast_with_options(to.clone(), mode).alias(name));
            }
        }
    }
    assert_gpu_eq("temporals to floats", frame.select(casts));
}

#[test]
fn to_physical_gives_the_values_as_polars_holds_them() {
    // Temporal values as their ticks, categoricals and enums (of u8 codes)
    // as their codes, the others as they are; a zoned timestamp too.
    let categorical = DataType::from_categories(Categories::global());
    let enumeration = DataType::from_frozen_categories(FrozenCategories::new(["z", "y"]).unwrap());
    let frame = df!(
        "d" => [Some(19_000i32), None, Some(-3)],
        "t" => [Some(86_399_999_999_999i64), Some(0), None],
        "u" => [Some(i64::MAX), Some(-1_234_567_890_123_456_789), None],
        "s" => [Some("y"), None, Some("z")],
        "f" => [Some(1.5f32), None, Some(-0.0)],
    )
    .unwrap()
    .lazy()
    .select([
        col("d").cast(DataType::Date).alias("date"),
        col("t").cast(DataType::Time).alias("time"),
        col("u")
            .cast(DataType::Datetime(TimeUnit::Microseconds, None))
            .alias("timestamp"),
        col("u")
            .cast(DataType::Datetime(
                TimeUnit::Milliseconds,
                TimeZone::opt_try_new(Some("Europe/Amsterdam")).unwrap(),
            ))
            .alias("zoned"),
        col("u")
            .cast(DataType::Duration(TimeUnit::Nanoseconds))
            .alias("duration"),
        col("s").cast(categorical).alias("categorical"),
        col("s").cast(enumeration).alias("enum"),
        col("s"),
        col("f"),
        col("d").gt(lit(0)).alias("b"),
    ])
    .collect()
    .unwrap()
    .lazy();
    assert_gpu_eq(
        "to_physical of every kind of column",
        frame
            .clone()
            .select([all().as_expr().to_physical().name().suffix(" physical")]),
    );
    assert_gpu_eq(
        "to_physical inside expressions",
        frame.select([
            (col("date").to_physical() + lit(1)).alias("day after"),
            col("enum").to_physical().max().alias("largest code"),
        ]),
    );
}

#[test]
fn floats_cast_to_temporals_as_their_ticks() {
    // Fractions (toward zero), negatives, NaN, infinities and values past
    // i64 and i32, to timestamps, dates and durations: the ticks as Polars
    // casts the floats to their integer type (null where they do not fit,
    // or Polars' error in the strict mode).
    let values = [
        Some(1.5e9f64),
        Some(-2.75),
        None,
        Some(f64::NAN),
        Some(f64::INFINITY),
        Some(-1e19),
        Some(3e9),
        Some(-0.0),
    ];
    let frame = df!("f" => values)
        .unwrap()
        .lazy()
        .with_columns([col("f").cast(DataType::Float32).alias("g")]);
    let targets = [
        DataType::Datetime(TimeUnit::Nanoseconds, None),
        DataType::Datetime(TimeUnit::Milliseconds, None),
        DataType::Date,
        DataType::Duration(TimeUnit::Microseconds),
    ];
    let mut casts = Vec::new();
    for column in ["f", "g"] {
        for to in &targets {
            for mode in [CastOptions::NonStrict, CastOptions::Overflowing] {
                let name = format!("{column} to {to} ({mode:?})");
                casts.push(col(column).cast_with_options(to.clone(), mode).alias(name));
            }
        }
    }
    assert_gpu_eq("floats to temporals", frame.clone().select(casts));
    // Strictly, of values that fit: the same; of one that does not,
    // Polars' error.
    let fitting = frame.clone().filter(col("f").abs().lt(lit(1e9)));
    assert_gpu_eq(
        "floats to temporals, strictly",
        fitting.select(
            targets
                .iter()
                .map(|to| col("f").strict_cast(to.clone()).alias(to.to_string()))
                .collect::<Vec<_>>(),
        ),
    );
    assert_cpu_error(frame.select([col("f").strict_cast(DataType::Date)]));
}

/// Polars' integer types, signed then unsigned, narrowest first.
fn integer_types() -> [DataType; 8] {
    [
        DataType::Int8,
        DataType::Int16,
        DataType::Int32,
        DataType::Int64,
        DataType::UInt8,
        DataType::UInt16,
        DataType::UInt32,
        DataType::UInt64,
    ]
}

/// `lf` raises Polars' own error; with raise_on_fail, the device's check
/// found the data invalid, and says so in words containing `message`.
fn assert_invalid_data(lf: LazyFrame, message: &str) {
    assert_cpu_error(lf.clone());
    let raising = Engine::Gpu(under_test().with_raise_on_fail(true));
    match lf.collect_with_report(&raising) {
        Err(EngineError::GpuUnavailable { reasons }) => {
            assert_eq!(reasons.len(), 1, "{reasons:?}");
            assert_eq!(reasons[0].kind, FallbackKind::InvalidData);
            assert!(reasons[0].message.contains(message), "{}", reasons[0]);
        }
        other => panic!("{:?}", other.map(|(_, report)| report)),
    }
}

#[test]
fn casts_of_text_to_integers_parse_as_polars_does() {
    let texts = [
        Some(""),
        Some("+"),
        Some("-"),
        Some("+5"),
        Some("-5"),
        Some("007"),
        Some("1e3"),
        Some(" 1"),
        Some("1 "),
        Some("0x10"),
        Some("1_000"),
        Some("-0"),
        Some("+-1"),
        Some("٣"),
        Some("127"),
        Some("128"),
        Some("-128"),
        Some("-129"),
        Some("255"),
        Some("256"),
        Some("65535"),
        Some("-2147483648"),
        Some("4294967295"),
        Some("4294967296"),
        Some("9223372036854775807"),
        Some("9223372036854775808"),
        Some("-9223372036854775808"),
        Some("18446744073709551615"),
        Some("18446744073709551616"),
        Some("00000000000000000000000000000000042"),
        None,
        Some("12"),
    ];
    let frame = || {
        df!("s" => texts, "t" => texts.map(|t| t.map(|t| t.trim_start_matches('-'))))
            .unwrap()
            .lazy()
    };
    for mode in [CastOptions::NonStrict, CastOptions::Overflowing] {
        let exprs: Vec<Expr> = integer_types()
            .iter()
            .map(|to| {
                col("s")
                    .cast_with_options(to.clone(), mode)
                    .alias(format!("{to}"))
            })
            .collect();
        assert_gpu_eq(
            &format!("texts as integers ({mode:?})"),
            frame().select(exprs),
        );
    }
    assert_gpu_eq(
        "parsed integers in expressions and of texts the device makes",
        frame().select([
            (col("s").cast_with_options(DataType::Int64, CastOptions::NonStrict) + lit(1i64))
                .alias("plus one"),
            (col("s") + lit("1"))
                .cast_with_options(DataType::Int32, CastOptions::NonStrict)
                .alias("with a digit more"),
        ]),
    );
    // Strict casts of texts that all parse run on the device; one that does
    // not gives Polars' own error.
    let digits = || {
        let small = Series::new("".into(), ["007", "127", "255", "+5", "12"]);
        frame().filter(col("s").is_in(lit(small).implode(false), false))
    };
    assert_gpu_eq(
        "strict casts of digits",
        digits().select([
            col("s").strict_cast(DataType::Int16),
            col("t").strict_cast(DataType::UInt16),
        ]),
    );
    assert_invalid_data(
        frame().select([col("s").strict_cast(DataType::Int64)]),
        "texts that are not numbers of the type in `strict_cast(col(\"s\") -> i64)`",
    );
}

#[test]
fn casts_of_text_to_floats_parse_as_polars_does() {
    let fixed = [
        "",
        "+",
        "-",
        ".",
        "5.",
        ".5",
        "+.5e2",
        "1e",
        "1e+",
        "1.5E-3",
        "-0",
        "-0.0",
        "0e999",
        "1e400",
        "-1e400",
        "1e-400",
        "5e-324",
        "1.7976931348623157e308",
        "3.4028236e38",
        "1e-45",
        "0.1",
        "inf",
        "-Infinity",
        "NaN",
        "+nan",
        "infinit",
        " 1",
        "1 ",
        "0x10",
        "1_000",
        "1,5",
        "9007199254740993",
        "94115130000000000000",
        "0000000000000000000001.5",
    ];
    // Random numbers as Rust writes f64 and f32, and random digits with a
    // point and an exponent.
    let mut next = xorshift(0x0005_eedf_10a7);
    let mut texts: Vec<Option<String>> = fixed.iter().map(|t| Some(t.to_string())).collect();
    for i in 0..3000 {
        let r = next();
        texts.push(match i % 4 {
            0 => Some(format!("{:e}", f64::from_bits(r))),
            1 => Some(format!("{}", f32::from_bits(r as u32))),
            2 => Some(format!("{}.{}e{}", r % 100_000, r % 997, (r >> 20) % 80)),
            _ => None,
        });
    }
    let frame = || df!("s" => &texts).unwrap().lazy();
    for mode in [CastOptions::NonStrict, CastOptions::Overflowing] {
        assert_gpu_eq(
            &format!("texts as floats ({mode:?})"),
            frame().select([
                col("s")
                    .cast_with_options(DataType::Float64, mode)
                    .alias("f64"),
                col("s")
                    .cast_with_options(DataType::Float32, mode)
                    .alias("f32"),
            ]),
        );
    }
    assert_gpu_eq(
        "parsed floats in expressions and of texts the device makes",
        frame().select([
            (col("s").cast_with_options(DataType::Float64, CastOptions::NonStrict) * lit(2.0))
                .alias("twice"),
            (col("s") + lit("5"))
                .cast_with_options(DataType::Float32, CastOptions::NonStrict)
                .alias("with a digit more"),
        ]),
    );
    // Strict casts of numbers run on the device; of a text that is none,
    // give Polars' own error.
    let numbers = || {
        let valid = [
            "5.",
            ".5",
            "+.5e2",
            "1.5E-3",
            "-0",
            "1e400",
            "1e-400",
            "NaN",
            "-Infinity",
        ];
        let valid = Series::new("".into(), valid);
        frame().filter(col("s").is_in(lit(valid).implode(false), false))
    };
    assert_gpu_eq(
        "strict casts of numbers",
        numbers().select([col("s").strict_cast(DataType::Float64)]),
    );
    assert_invalid_data(
        frame().select([col("s").strict_cast(DataType::Float32)]),
        "texts that are not numbers of the type in `strict_cast(col(\"s\") -> f32)`",
    );
    // A number of more than 19 digits that the first 19 do not round: Polars
    // rounds it with exact big-number arithmetic.
    assert_cpu_answer_with_reason(
        df!("s" => ["1.5", "1208780.0765352227023243"])
            .unwrap()
            .lazy()
            .select([col("s").cast(DataType::Float64)]),
        "texts of numbers that only exact big-number arithmetic rounds",
    );
}

#[test]
fn floats_as_text_are_written_as_polars_writes_them() {
    let mut values = vec![
        Some(0.0),
        Some(-0.0),
        Some(f64::NAN),
        Some(-f64::NAN),
        Some(f64::INFINITY),
        Some(f64::NEG_INFINITY),
        Some(f64::MAX),
        Some(f64::MIN_POSITIVE),
        Some(5e-324),
        Some(1e-5),
        Some(9.99e-6),
        Some(1e15),
        Some(1e16),
        Some(123456.0),
        Some(0.1 + 0.2),
        None,
    ];
    let mut next = xorshift(0xf10a_7e47);
    values.extend((0..3000).map(|i| match i % 3 {
        0 => Some(f64::from_bits(next())),
        1 => Some((next() % 2_000_000) as f64 / 1000.0 - 1000.0),
        _ => Some((next() >> 11) as f64 * 10f64.powi((next() % 40) as i32 - 20)),
    }));
    let frame = || {
        df!("f" => &values)
            .unwrap()
            .lazy()
            .with_columns([col("f").cast(DataType::Float32).alias("g")])
    };
    assert_gpu_eq(
        "floats as text",
        frame().select([
            col("f").cast(DataType::String).alias("f64"),
            col("g").cast(DataType::String).alias("f32"),
            (col("f") * lit(2.0))
                .cast(DataType::String)
                .alias("computed"),
            concat_str([lit("x = "), col("f"), lit(", y = "), col("g")], "", true)
                .alias("sentence"),
        ]),
    );
}

#[test]
fn rows_a_filter_keeps_of_strict_casts_stay_with_polars() {
    // Polars casts every row before the filter keeps some: a value that
    // does not fit raises even where the filter drops it (fuzz seed 5066,
    // case 68), which the rows counted alone would not see.
    let frame = |a: f64| {
        df!("a" => [a, 1.0], "b" => [0.0f64, 1.0], "g" => [1i64, 2])
            .unwrap()
            .lazy()
    };
    let kept = || {
        col("a")
            .strict_cast(DataType::Decimal(3, 0))
            .filter(col("b").cast(DataType::Boolean))
    };
    for lf in [
        frame(f64::NEG_INFINITY).select([kept().len()]),
        frame(f64::NEG_INFINITY).filter(kept().is_empty(false)),
        frame(1e9)
            .group_by_stable([col("g")])
            .agg([kept().null_count()]),
    ] {
        assert_cpu_error(lf);
    }
    assert_cpu_answer_with_reason(
        frame(2.0).select([kept().len()]),
        "the number of rows a filter keeps of values cast strictly",
    );
}

#[test]
fn lists_cast_value_by_value() {
    let lists = groups()
        .with_columns([col("v").cast(DataType::Int8).alias("small")])
        .group_by_stable([col("g")])
        .agg([col("v"), col("small"), col("g").gt(lit(1)).alias("flags")]);
    let list = |dtype: DataType| DataType::List(Box::new(dtype));
    assert_gpu_eq(
        "lists cast",
        lists.clone().select([
            col("v").cast(list(DataType::Float32)).alias("f32"),
            col("v").cast(list(DataType::String)).alias("text"),
            col("small")
                .cast(list(DataType::UInt8))
                .alias("u8, null where negative"),
            col("flags").cast(list(DataType::Int64)).alias("flags"),
            col("v").cast(list(DataType::Date)).alias("dates"),
        ]),
    );
    assert_cpu_error(lists.select([col("small").strict_cast(list(DataType::UInt8))]));
}

/// Times of day as text: cast (chrono's `%T`), and `dt.to_string` of the
/// time-of-day specifiers and of `iso` (`%T%.f`); a date specifier, which
/// a time of day has none of (Polars panics), stays with Polars.
#[test]
fn times_of_day_are_written_as_text() {
    const DAY: i64 = 86_400_000_000_000;
    let frame = df!(
        "t" => [Some(0i64), Some(DAY - 1), None, Some(DAY / 2), Some(3_723_004_005_006), Some(999), Some(43_199_999_999_999)],
    )
    .unwrap()
    .lazy()
    .select([col("t").cast(DataType::Time)]);
    let mut exprs = vec![col("t").cast(DataType::String).alias("cast")];
    for (i, format) in [
        "%H:%M",
        "%I:%M:%S %p",
        "%T%.3f",
        "%R %9f",
        "%H%M%S%6f",
        "%%T%n%t«»",
        "iso",
        "iso:strict",
        "",
    ]
    .into_iter()
    .enumerate()
    {
        exprs.push(col("t").dt().to_string(format).alias(format!("{i}")));
    }
    assert_gpu_eq("times of day as text", frame.clone().select(exprs));
    let per_group = frame
        .clone()
        .with_row_index("i", None)
        .group_by_stable([(col("i") % lit(2)).alias("odd")])
        .agg([col("t")
            .cast(DataType::String)
            .sort(Default::default())
            .first()]);
    assert_gpu_eq("times of day as text per group", per_group);
    // (Polars panics there: no fallback is tried.)
    let reason = raised_error(frame.clone().select([col("t").dt().to_string("%Y %H")]));
    assert!(reason.contains("no date of a time of day"), "{reason}");
}

/// Integers cast to times of day: Polars casts them to i64 (a strict cast
/// raising where a u64 does not fit), then nulls the values outside a
/// day's nanoseconds, in every mode.
#[test]
fn integers_cast_to_times_of_day_are_null_outside_the_day() {
    const DAY: i64 = 86_400_000_000_000;
    let frame = df!(
        "i" => [Some(0i64), Some(-1), Some(DAY - 1), Some(DAY), None, Some(i64::MIN), Some(i64::MAX), Some(7)],
        "s" => [Some(0i32), Some(-1), Some(i32::MAX), None, Some(5), Some(i32::MIN), Some(1), Some(2)],
        "u" => [Some(0u64), Some(u64::MAX), Some(DAY as u64 - 1), Some(1 << 63), None, Some(3), Some(DAY as u64), Some(9)],
    )
    .unwrap()
    .lazy();
    let mut exprs = vec![];
    for column in ["i", "s", "u"] {
        for mode in [CastOptions::NonStrict, CastOptions::Overflowing] {
            let name = format!("{column} ({mode:?})");
            exprs.push(
                col(column)
                    .cast_with_options(DataType::Time, mode)
                    .alias(name),
            );
        }
    }
    exprs.push(col("i").cast(DataType::Time).dt().hour().alias("hour"));
    assert_gpu_eq("integers as times of day", frame.clone().select(exprs));
    // Strict: of values within the day, the values; else Polars raises.
    let within =
        frame
            .clone()
            .filter(col("i").is_between(lit(0), lit(DAY - 1), ClosedInterval::Both));
    assert_gpu_eq(
        "integers of the day as times of day, strictly",
        within.select([
            col("i").strict_cast(DataType::Time),
            col("u").strict_cast(DataType::Time),
        ]),
    );
    for column in ["i", "s", "u"] {
        assert_cpu_error(
            frame
                .clone()
                .select([col(column).strict_cast(DataType::Time)]),
        );
    }
}
