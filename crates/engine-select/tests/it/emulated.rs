//! GPU collects that really run, on the device under test (the emulated device unless `GPU_TEST_DEVICE` names a GPU), compared with Polars' CPU engine.

use engine_select::{
    DeviceKind, Engine, EngineError, ExecutedBy, FallbackKind, GpuEngine, LazyFrameExt,
    MemoryResource,
};
use polars::prelude::*;
use polars_core::chunked_array::cast::CastOptions;
use polars_core::series::ops::NullBehavior;

use crate::{orders, under_test, under_test_executed_by};

/// The engine on the emulated device, for what only it has (eight devices,
/// one of them with a tiny pool).
fn emulated() -> GpuEngine {
    GpuEngine::new().with_device_kind(DeviceKind::Emulated)
}

/// Runs `lf` on the CPU and, with fallback disabled (so a fallback can never
/// pass as a GPU result), on the emulated device; both must agree on dtypes,
/// nulls, values and row order (floats bit for bit: filters move values).
pub fn assert_gpu_eq(name: &str, lf: LazyFrame) {
    let expected = lf.clone().collect().unwrap();
    let engine = Engine::Gpu(under_test().with_raise_on_fail(true));
    let (actual, report) = lf
        .collect_with_report(&engine)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(report.executed_by, under_test_executed_by(), "{name}");
    assert_eq!(expected.schema(), actual.schema(), "{name}: dtypes");
    assert!(
        expected.equals_missing(&actual),
        "{name}\nexpected {expected}\nactual {actual}"
    );
}

/// Runs `lf` through the GPU engine, fallback allowed: the CPU's answer,
/// with a fallback reason that contains `reason`.
fn assert_cpu_answer_with_reason(lf: LazyFrame, reason: &str) {
    let expected = lf.clone().collect().unwrap();
    let (actual, report) = lf.collect_with_report(&Engine::Gpu(under_test())).unwrap();
    assert!(expected.equals_missing(&actual), "{reason}: {report}");
    assert!(
        report
            .fallback_reasons
            .iter()
            .any(|r| r.message.contains(reason)),
        "expected a reason with {reason:?}: {report}"
    );
}

/// Runs `lf`, a query Polars rejects, through the GPU engine, fallback
/// allowed: Polars' own error, word for word.
fn assert_cpu_error(lf: LazyFrame) {
    let expected = lf.clone().collect().unwrap_err().to_string();
    match lf.collect_with_report(&Engine::Gpu(under_test())) {
        Err(EngineError::Polars(e)) => assert_eq!(e.to_string(), expected),
        other => panic!(
            "expected {expected}, got {:?}",
            other.map(|(_, report)| report)
        ),
    }
}

/// As [`assert_gpu_eq`], floats within a relative 1e-9: for aggregations
/// whose summation order differs from Polars' (variance, interpolated
/// quantiles).
fn assert_gpu_close(name: &str, lf: LazyFrame) {
    let expected = lf.clone().collect().unwrap();
    let engine = Engine::Gpu(under_test().with_raise_on_fail(true));
    let (actual, report) = lf
        .collect_with_report(&engine)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(report.executed_by == under_test_executed_by(), "{name}");
    crate::assert_frames_close(&expected, &actual, name);
}

fn table() -> LazyFrame {
    let mut df = df!(
        "i" => [Some(5i64), None, Some(-3), Some(5), Some(0), Some(i64::MAX), Some(i64::MIN), None],
        "k" => [Some(4i64), Some(1), Some(-3), None, Some(0), Some(i64::MIN), Some(i64::MAX), None],
        "u" => [Some(1u32), Some(2), None, Some(4), Some(5), Some(6), Some(7), Some(8)],
        "f" => [Some(1.5), Some(f64::NAN), None, Some(-0.0), Some(f64::INFINITY), Some(2.5), Some(0.0), Some(f64::NAN)],
        "b" => [Some(true), Some(false), None, Some(true), Some(false), Some(true), None, Some(false)],
        "s" => [Some("a"), Some(""), None, Some("long string with ünïcode"), Some("x"), None, Some("y"), Some("z")],
    )
    .unwrap();
    let days = Series::new(
        "d".into(),
        [
            Some(19_000i32),
            Some(19_001),
            None,
            Some(18_999),
            Some(19_000),
            Some(0),
            Some(-1),
            Some(20_000),
        ],
    );
    df.with_column(days.cast(&DataType::Date).unwrap().into())
        .unwrap();
    df.lazy()
}

#[test]
fn scans_filters_projections_slices_and_sorts_match_the_cpu() {
    let cases: Vec<(&str, LazyFrame)> = vec![
        ("scan", table()),
        ("project", table().select([col("s"), col("i")])),
        ("rename", table().select([col("f").alias("g"), col("b")])),
        ("int > literal", table().filter(col("i").gt(lit(0i64)))),
        ("int == literal", table().filter(col("i").eq(lit(5i64)))),
        ("literal < int", table().filter(lit(0i64).lt(col("i")))),
        ("u32 <= literal", table().filter(col("u").lt_eq(lit(4u32)))),
        ("float != literal", table().filter(col("f").neq(lit(1.5)))),
        ("float vs NaN", table().filter(col("f").eq(lit(f64::NAN)))),
        (
            "float > literal (NaN greatest)",
            table().filter(col("f").gt(lit(2.0))),
        ),
        ("-0.0 == 0.0", table().filter(col("f").eq(lit(0.0)))),
        ("column vs column", table().filter(col("i").gt_eq(col("k")))),
        (
            "date range",
            table().filter(col("d").gt(date_literal(18_999))),
        ),
        ("bool column", table().filter(col("b"))),
        ("not bool", table().filter(col("b").not())),
        (
            "kleene and",
            table().filter(col("b").and(col("i").gt(lit(0i64)))),
        ),
        (
            "kleene or",
            table().filter(col("b").or(col("f").lt(lit(0.0)))),
        ),
        ("is_null", table().filter(col("s").is_null())),
        ("is_not_null", table().filter(col("i").is_not_null())),
        ("nothing passes", table().filter(col("i").gt(lit(i64::MAX)))),
        ("slice", table().slice(2, 3)),
        ("negative slice", table().slice(-3, 2)),
        ("slice starting before the first row", table().slice(-10, 4)),
        ("slice ending before the first row", table().slice(-20, 4)),
        (
            "filter then slice",
            table().filter(col("u").gt(lit(1u32))).slice(1, 10),
        ),
        ("string ==", table().filter(col("s").eq(lit("x")))),
        ("string !=", table().filter(col("s").neq(lit("")))),
        ("literal == string", table().filter(lit("y").eq(col("s")))),
        (
            "starts_with",
            table().filter(col("s").str().starts_with(lit("lo"))),
        ),
        (
            "ends_with",
            table().filter(col("s").str().ends_with(lit("ode"))),
        ),
        (
            "contains literal",
            table().filter(col("s").str().contains_literal(lit("ü"))),
        ),
        (
            "contains empty",
            table().filter(col("s").str().contains_literal(lit(""))),
        ),
        (
            "is_between both",
            table().filter(col("i").is_between(lit(-3i64), lit(5i64), ClosedInterval::Both)),
        ),
        (
            "is_between left",
            table().filter(col("f").is_between(lit(0.0), lit(2.5), ClosedInterval::Left)),
        ),
        (
            "is_between dates none",
            table().filter(col("d").is_between(
                date_literal(18_999),
                date_literal(20_000),
                ClosedInterval::None,
            )),
        ),
        (
            "is_in ints",
            table().filter(col("i").is_in(
                lit(Series::new("".into(), [5i64, 0, 7])).implode(false),
                false,
            )),
        ),
        (
            "is_in strings",
            table().filter(col("s").is_in(
                lit(Series::new("".into(), ["a", "z", "nope"])).implode(false),
                false,
            )),
        ),
        (
            "mixed",
            table().filter(
                col("s")
                    .str()
                    .starts_with(lit("l"))
                    .or(col("i").is_between(lit(0i64), lit(10i64), ClosedInterval::Right))
                    .and(col("u").neq(lit(4u32)).or(col("b").is_null())),
            ),
        ),
        (
            "sort ints",
            table().sort(
                ["i"],
                SortMultipleOptions::default().with_maintain_order(true),
            ),
        ),
        (
            "sort desc nulls last",
            table().sort(
                ["f"],
                SortMultipleOptions::default()
                    .with_order_descending(true)
                    .with_nulls_last(true)
                    .with_maintain_order(true),
            ),
        ),
        (
            "sort floats asc",
            table().sort(
                ["f"],
                SortMultipleOptions::default().with_maintain_order(true),
            ),
        ),
        (
            // Polars' sum leaves i + k under the nulls (1, 5 and 0): they
            // still tie, in row order.
            "sort by a sum with nulls",
            table()
                .with_column((col("i") + col("k")).alias("w"))
                .collect()
                .unwrap()
                .lazy()
                .sort(
                    ["w"],
                    SortMultipleOptions::default().with_maintain_order(true),
                ),
        ),
        (
            "sort two keys",
            table().sort(
                ["u", "d"],
                SortMultipleOptions::default()
                    .with_order_descending_multi([true, false])
                    .with_nulls_last_multi([false, true])
                    .with_maintain_order(true),
            ),
        ),
        (
            "top-k",
            table()
                .sort(
                    ["k"],
                    SortMultipleOptions::default().with_maintain_order(true),
                )
                .limit(3),
        ),
        (
            "filter then sort",
            table().filter(col("s").is_not_null()).sort(
                ["d"],
                SortMultipleOptions::default()
                    .with_order_descending(true)
                    .with_maintain_order(true),
            ),
        ),
        (
            "sort strings",
            table().sort(
                ["s"],
                SortMultipleOptions::default().with_maintain_order(true),
            ),
        ),
        (
            "sort strings descending nulls last, then ints",
            table().sort(
                ["s", "i"],
                SortMultipleOptions::default()
                    .with_order_descending_multi([true, false])
                    .with_nulls_last_multi([true, false])
                    .with_maintain_order(true),
            ),
        ),
        (
            "regex sequences of texts",
            table().filter(
                col("s")
                    .str()
                    .contains(lit("lo.*ü.*de|y|z"), false)
                    .or(col("s").str().contains(lit("x.*nothing"), false)),
            ),
        ),
        (
            "not a regex sequence",
            table().filter(col("s").str().contains(lit("n.*n"), false).not()),
        ),
        (
            "filter strings",
            table().filter(col("s").is_not_null()).select([col("s")]),
        ),
    ];
    for (name, lf) in cases {
        assert_gpu_eq(name, lf);
    }
}

/// A date literal from days since 1970-01-01.
fn date_literal(days: i32) -> Expr {
    lit(days).cast(DataType::Date)
}

#[test]
fn computed_expressions_match_the_cpu() {
    let cases: Vec<(&str, LazyFrame)> = vec![
        (
            "add wraps",
            table().with_columns([(col("i") + col("k")).alias("sum")]),
        ),
        (
            "sub and mul",
            table().select([
                (col("i") - lit(1i64)).alias("a"),
                (col("k") * lit(3i64)).alias("b"),
            ]),
        ),
        (
            "floor division and modulo",
            table().select([
                (col("i") / col("k")).alias("div"),
                (col("i") % col("k")).alias("rem"),
                col("i").floor_div(col("k")).alias("floordiv"),
            ]),
        ),
        (
            "u32 wraps",
            table().select([(col("u") - lit(5u32)).alias("u")]),
        ),
        (
            "floats",
            table().select([
                (col("f") * lit(2.0)).alias("twice"),
                (-col("f")).alias("neg"),
                col("f").abs().alias("abs"),
                (col("f") / lit(0.0)).alias("inf"),
            ]),
        ),
        (
            "rounding: ties, overflow of x * 10^d, NaN, infinities, nulls",
            df!("r" => [
                Some(0.125), Some(2.5), Some(-2.5), Some(0.5), Some(1.005), Some(2.675),
                Some(-0.0), Some(1e300), Some(f64::NAN), Some(f64::NEG_INFINITY), None,
                Some(123_456.789_5), Some(-7.45),
            ])
            .unwrap()
            .lazy()
            .select([
                col("r").round(0, RoundMode::HalfToEven).alias("even 0"),
                col("r").round(2, RoundMode::HalfToEven).alias("even 2"),
                col("r")
                    .round(1, RoundMode::HalfAwayFromZero)
                    .alias("away 1"),
                col("r").round(3, RoundMode::ToZero).alias("to zero 3"),
                col("r").truncate(1).alias("truncate 1"),
                col("r").truncate(0).alias("truncate 0"),
                col("r").round(299, RoundMode::HalfToEven).alias("even 299"),
            ]),
        ),
        (
            "date parts of dates and timestamps (leap days, before 1970, sub-day)",
            {
                let days = [
                    Some(0i64),
                    Some(-1),
                    Some(11_016),
                    Some(11_017),
                    Some(-25_508),
                    Some(-719_468),
                    Some(-719_469),
                    Some(2_932_896),
                    Some(19_000),
                    None,
                    Some(59),
                    Some(-306),
                ];
                let mut df = df!("days" => days).unwrap();
                let date = df.column("days").unwrap().cast(&DataType::Int32).unwrap();
                let date = date.cast(&DataType::Date).unwrap().with_name("date".into());
                df.with_column(date).unwrap();
                for (name, unit, per_day) in [
                    ("ns", TimeUnit::Nanoseconds, 86_400_000_000_000i64),
                    ("us", TimeUnit::Microseconds, 86_400_000_000),
                    ("ms", TimeUnit::Milliseconds, 86_400_000),
                ] {
                    // A moment a little before each day ends (after, for 0); days
                    // out of the unit's range are nulls.
                    let stamps: Vec<Option<i64>> = days
                        .iter()
                        .map(|d| {
                            let d = (*d)?;
                            let offset = if d == 0 { -1 } else { per_day - 1 };
                            d.checked_mul(per_day)?.checked_add(offset)
                        })
                        .collect();
                    let stamps = Series::new(name.into(), stamps)
                        .cast(&DataType::Datetime(unit, None))
                        .unwrap();
                    df.with_column(stamps.into()).unwrap();
                }
                let parts = |c: &str| {
                    [
                        col(c).dt().year().alias(format!("{c} year")),
                        col(c).dt().quarter().alias(format!("{c} quarter")),
                        col(c).dt().month().alias(format!("{c} month")),
                        col(c).dt().day().alias(format!("{c} day")),
                        col(c).dt().weekday().alias(format!("{c} weekday")),
                    ]
                };
                let exprs: Vec<Expr> = ["date", "ns", "us", "ms"]
                    .into_iter()
                    .flat_map(parts)
                    .collect();
                df.lazy().select(exprs)
            },
        ),
        (
            "string predicates inside computed expressions",
            table().select([
                when(col("s").eq(lit("x")))
                    .then(col("i"))
                    .otherwise(lit(0i64))
                    .alias("picked"),
                (col("s").str().starts_with(lit("l")).or(col("b"))).alias("or"),
                col("s")
                    .is_in(
                        lit(Series::new("".into(), ["a", "z", ""])).implode(false),
                        false,
                    )
                    .not()
                    .alias("not in"),
                when(col("s").str().contains(lit("ng"), true))
                    .then(col("f"))
                    .otherwise(lit(-1.0))
                    .alias("contains"),
            ]),
        ),
        (
            "whole-column aggregations broadcast in row-wise expressions",
            table().with_columns([
                (col("i") - col("i").max()).alias("gap"),
                (col("u").cast(DataType::Float64) / col("u").sum().cast(DataType::Float64))
                    .alias("share"),
                col("s")
                    .eq(lit("x"))
                    .or(col("u").eq(col("u").min()))
                    .alias("mixed"),
            ]),
        ),
        (
            "filters against whole-column aggregations",
            table()
                .filter(col("u").eq(col("u").max()).or(col("k").gt(col("k").mean())))
                .filter(col("f").is_not_null()),
        ),
        (
            "comparisons as columns",
            table().select([
                col("i").gt(col("k")).alias("gt"),
                col("f").eq(lit(f64::NAN)).alias("nan"),
            ]),
        ),
        (
            "null checks and fill",
            table().select([
                col("i").is_null().alias("n"),
                col("i").fill_null(lit(0i64)).alias("filled"),
            ]),
        ),
        (
            "when then otherwise",
            table().select([when(col("b"))
                .then(col("i"))
                .otherwise(col("k"))
                .alias("pick")]),
        ),
        (
            "casts",
            table().select([
                col("u").cast(DataType::Int64).alias("u64"),
                col("i").cast(DataType::Float64).alias("f"),
                col("b").cast(DataType::Int32).alias("b32"),
                col("d").cast(DataType::Int32).alias("days"),
            ]),
        ),
        (
            "kleene as values",
            table().select([
                col("b").and(col("i").gt(lit(0i64))).alias("and"),
                col("b").or(col("i").is_null()).alias("or"),
                col("b").not().alias("not"),
            ]),
        ),
        (
            "computed filter",
            table().filter((col("i") + col("k")).gt(lit(0i64))),
        ),
        (
            "float classes (NaN, infinities, -0.0, null)",
            table().select([
                col("f").is_nan().alias("nan"),
                col("f").is_not_nan().alias("not nan"),
                col("f").is_finite().alias("finite"),
                col("f").is_infinite().alias("infinite"),
                col("i")
                    .cast(DataType::Float64)
                    .is_finite()
                    .alias("finite ints"),
            ]),
        ),
        (
            "a filter of non-NaN finite values",
            table().filter(col("f").is_not_nan().and(col("f").is_finite())),
        ),
        ("a filter of NaN", table().filter(col("f").is_nan())),
        (
            "with_columns replaces",
            table().with_columns([(col("f") + lit(1.0)).alias("f")]),
        ),
        (
            "select mixes",
            table().select([col("s"), (col("u") * lit(2u32)).alias("u2"), col("i")]),
        ),
    ];
    for (name, lf) in cases {
        assert_gpu_eq(name, lf);
    }
}

#[test]
fn string_slices_match_the_cpu() {
    let words = || {
        df!(
            "s" => [Some("+13-555"), Some(""), None, Some("ünïcode 中文 😀"), Some("ab"), Some("exactly"), Some("\n\n")],
            "n" => [1i64, 2, 3, 4, 5, 6, 7],
        )
        .unwrap()
        .lazy()
    };
    let slices: &[(i64, Option<u64>)] = &[
        (0, Some(2)),
        (1, Some(3)),
        (0, None),
        (4, None),
        (-3, None),
        (-3, Some(2)),
        (-9, Some(4)),
        (-100, Some(200)),
        (100, Some(1)),
        (2, Some(0)),
    ];
    for &(offset, length) in slices {
        let sliced = match length {
            Some(length) => col("s").str().slice(lit(offset), lit(length)),
            None => col("s").str().slice(lit(offset), lit(NULL)),
        };
        assert_gpu_eq(
            &format!("slice({offset}, {length:?})"),
            words().with_columns([sliced.clone().alias("part")]),
        );
    }
    let cases = [
        (
            "slice of a slice, then grouped by",
            words()
                .with_columns([col("s")
                    .str()
                    .slice(lit(1), lit(6u64))
                    .str()
                    .slice(lit(-2), lit(1u64))
                    .alias("part")])
                .group_by([col("part")])
                .agg([col("n").sum()])
                .sort(["part"], Default::default()),
        ),
        (
            "a slice matched by a pattern",
            words()
                .with_columns([col("s").str().slice(lit(0), lit(3u64)).alias("code")])
                .filter(col("code").str().contains(lit("13|ab|ün"), true)),
        ),
        (
            "a string column copied under a new name",
            words().with_columns([col("s").alias("t")]),
        ),
        (
            "lengths in bytes and characters",
            words().select([
                col("s").str().len_bytes().alias("bytes"),
                col("s").str().len_chars().alias("chars"),
                (col("s").str().len_bytes() - col("s").str().len_chars()).alias("extra bytes"),
            ]),
        ),
        (
            "a filter and a sum of lengths",
            words()
                .filter(col("s").str().len_chars().gt(lit(2u32)))
                .select([col("s").str().len_chars().sum().alias("chars")]),
        ),
    ];
    for (name, lf) in cases {
        assert_gpu_eq(name, lf);
    }
}

/// `n` rows of every physical type, nulls every `null_every` rows (0: none).
fn rows(n: usize, seed: i64, null_every: usize) -> LazyFrame {
    fn pick<T>(i: usize, null_every: usize, value: T) -> Option<T> {
        (null_every == 0 || !i.is_multiple_of(null_every)).then_some(value)
    }
    df!(
        "i" => (0..n).map(|i| pick(i, null_every, seed * 1000 + i as i64)).collect::<Vec<_>>(),
        "b" => (0..n).map(|i| pick(i, null_every, (i + seed as usize).is_multiple_of(3))).collect::<Vec<_>>(),
        "f" => (0..n).map(|i| pick(i, null_every, i as f64 / 4.0 - seed as f64)).collect::<Vec<_>>(),
        "s" => (0..n).map(|i| pick(i, null_every, format!("{seed}-{}", "é".repeat(i % 5)))).collect::<Vec<_>>(),
        "u8" => (0..n).map(|i| pick(i, null_every, (i % 250) as u8)).collect::<Vec<_>>(),
    )
    .unwrap()
    .lazy()
}

#[test]
fn unions_match_the_cpu() {
    let union = |parts: Vec<LazyFrame>| concat(parts, UnionArgs::default()).unwrap();
    let cases = [
        (
            "two inputs, lengths off the 32-bit words",
            union(vec![rows(45, 1, 7), rows(70, 2, 0)]),
        ),
        (
            "three inputs, one empty, one without nulls",
            union(vec![
                rows(3, 1, 2),
                rows(0, 2, 0),
                rows(33, 3, 0),
                rows(31, 4, 5),
            ]),
        ),
        (
            "filtered inputs, then a slice",
            union(vec![
                rows(50, 1, 3).filter(col("b")),
                rows(50, 2, 4).filter(col("i").gt(lit(2010i64))),
            ])
            .slice(5, 17),
        ),
        (
            "a union grouped afterwards",
            union(vec![rows(40, 1, 6), rows(40, 1, 9)])
                .group_by([col("s")])
                .agg([col("i").sum(), len()])
                .sort(["s"], Default::default()),
        ),
    ];
    for (name, lf) in cases {
        assert_gpu_eq(name, lf);
    }
}

#[test]
fn distinct_rows_and_side_by_side_frames_match_the_cpu() {
    let unique = |subset: Option<Vec<&str>>, keep| {
        let subset = subset.map(|names: Vec<&str>| names.into_iter().map(col).collect());
        groups().unique_stable_generic(subset, keep)
    };
    let sorted = |lf: LazyFrame| {
        lf.sort(
            ["g", "h", "v"],
            SortMultipleOptions::default().with_nulls_last(true),
        )
    };
    let mut cases = vec![];
    for keep in [
        UniqueKeepStrategy::First,
        UniqueKeepStrategy::Last,
        UniqueKeepStrategy::None,
        UniqueKeepStrategy::Any,
    ] {
        cases.push((
            format!("distinct rows by g and s, keep {keep:?}, in order"),
            unique(Some(vec!["g", "s"]), keep),
        ));
        cases.push((
            format!("distinct rows by g, keep {keep:?}, in order"),
            unique(Some(vec!["g"]), keep),
        ));
        cases.push((
            format!("distinct rows by h, keep {keep:?}, sorted afterwards"),
            sorted(groups().unique_generic(Some(vec![col("h")]), keep)),
        ));
    }
    cases.push((
        "distinct whole rows, then a slice".into(),
        unique(None, UniqueKeepStrategy::First).slice(1, 4),
    ));
    let short = df!("w" => [Some(1i32), None, Some(3)], "t" => ["p", "q", "r"])
        .unwrap()
        .lazy();
    let one = df!("one" => [Some(7u8)]).unwrap().lazy();
    cases.push((
        "side by side, the shorter padded with nulls".into(),
        concat_lf_horizontal([groups(), short.clone()], HConcatOptions::default()).unwrap(),
    ));
    cases.push((
        "side by side, the longer second".into(),
        concat_lf_horizontal([short, one, groups()], HConcatOptions::default()).unwrap(),
    ));
    let one = df!("one" => [Some(7u8)]).unwrap().lazy();
    let broadcast = HConcatOptions {
        broadcast_unit_length: true,
        ..Default::default()
    };
    cases.push((
        "side by side, one row repeated".into(),
        concat_lf_horizontal([groups(), one], broadcast).unwrap(),
    ));
    for (name, lf) in cases {
        assert_gpu_eq(&name, lf);
    }
}

#[test]
fn strict_side_by_side_frames_of_different_heights_are_an_error_on_both_engines() {
    let strict = HConcatOptions {
        strict: true,
        ..Default::default()
    };
    let short = df!("w" => [1i32, 2]).unwrap().lazy();
    let lf = concat_lf_horizontal([groups(), short], strict).unwrap();
    assert!(lf.clone().collect().is_err());
    let engine = Engine::Gpu(under_test().with_raise_on_fail(true));
    let err = lf.collect_with(&engine).unwrap_err();
    // The device's own error: the same kind Polars raises.
    assert!(err.to_string().contains("frames of 2 and 10 rows"), "{err}");
}

#[test]
fn spreads_and_quantiles_match_the_cpu() {
    let spreads = || {
        let mut aggs = vec![
            col("v").std(1).alias("std v"),
            col("x").var(1).alias("var x"),
            col("v").var(0).alias("var0 v"),
            col("x").std(2).alias("std2 x"),
            col("v").median().alias("median v"),
            col("x").median().alias("median x"),
            (col("v").median() * lit(2.0)).alias("twice median"),
        ];
        for (i, method) in [
            QuantileMethod::Nearest,
            QuantileMethod::Lower,
            QuantileMethod::Higher,
            QuantileMethod::Midpoint,
            QuantileMethod::Linear,
            QuantileMethod::Equiprobable,
        ]
        .into_iter()
        .enumerate()
        {
            for (j, q) in [0.0, 0.1, 0.5, 0.75, 1.0].into_iter().enumerate() {
                aggs.push(
                    col(if j % 2 == 0 { "v" } else { "x" })
                        .quantile(lit(q), method)
                        .alias(format!("q{i}_{j}")),
                );
            }
        }
        aggs
    };
    let cases = [
        (
            "per group",
            groups().group_by_stable([col("g")]).agg(spreads()),
        ),
        (
            "per group of two keys",
            groups()
                .group_by_stable([col("h"), col("s")])
                .agg(spreads()),
        ),
        ("whole columns", groups().select(spreads())),
        (
            "no rows",
            groups().filter(col("h").gt(lit(5u32))).select(spreads()),
        ),
        (
            "floats with NaN, infinities and -0.0",
            table().select([
                col("f").median().alias("median"),
                col("f").std(1).alias("std"),
                col("f")
                    .quantile(lit(0.3), QuantileMethod::Linear)
                    .alias("q"),
            ]),
        ),
    ];
    for (name, lf) in cases {
        assert_gpu_close(name, lf);
    }
}

fn groups() -> LazyFrame {
    df!(
        "g" => [Some(1i64), Some(2), Some(1), None, Some(3), Some(2), None, Some(1), Some(3), Some(3)],
        "h" => [1u32, 1, 2, 1, 2, 1, 1, 1, 2, 2],
        "v" => [Some(10i64), None, Some(-3), Some(7), Some(1), Some(1 << 40), None, Some(2), Some(-(1 << 41)), Some(5)],
        "x" => [Some(1.5), Some(f64::NAN), None, Some(-2.0), Some(0.0), Some(3.25), Some(1.0), None, Some(2.0), Some(-0.5)],
        "s" => [Some("shared prefix one"), Some("a"), Some("shared prefix one"), None, Some("shared prefix two"), Some("a"), None, Some("shared prefix one"), Some("shared prefix two"), Some("")],
    )
    .unwrap()
    .lazy()
}

#[test]
fn group_bys_match_the_cpu() {
    let aggregations = || {
        [
            col("v").sum().alias("sum"),
            col("x").mean().alias("mean"),
            col("v").min().alias("min"),
            col("x").max().alias("max"),
            col("x").first().alias("first"),
            col("v").last().alias("last"),
            col("v").count().alias("count"),
            col("x").len().alias("x_len"),
            len().alias("len"),
            (col("v") * lit(2i64)).sum().alias("twice"),
            (lit(0.2) * col("x").mean()).alias("scaled mean"),
            (col("v").max() - col("v").min()).alias("range"),
            (col("v").sum() + col("v").count().cast(DataType::Int64)).alias("sum plus count"),
            col("v").n_unique().alias("distinct v"),
            col("x").n_unique().alias("distinct x"),
            col("s").n_unique().alias("distinct s"),
            col("h").n_unique().alias("distinct h"),
            (col("g").n_unique() * lit(10u32)).alias("distinct g times 10"),
        ]
    };
    let cases: Vec<(&str, LazyFrame)> = vec![
        (
            "one key, in order",
            groups().group_by_stable([col("g")]).agg(aggregations()),
        ),
        (
            "two keys, in order",
            groups()
                .group_by_stable([col("h"), col("g")])
                .agg(aggregations()),
        ),
        (
            "a string key, in order",
            groups().group_by_stable([col("s")]).agg(aggregations()),
        ),
        (
            "string and integer keys, in order",
            groups()
                .group_by_stable([col("s"), col("h")])
                .agg(aggregations()),
        ),
        (
            "a float key (NaNs one group, -0.0 and 0.0 one group), in order",
            table().group_by_stable([col("f")]).agg([
                col("i").sum().alias("sum"),
                col("u").first(),
                len(),
            ]),
        ),
        (
            "a string key, sorted afterwards",
            groups()
                .group_by([col("s")])
                .agg([col("v").sum().alias("sum"), len()])
                .sort(["s"], SortMultipleOptions::default()),
        ),
        (
            "distinct values in order of first appearance",
            groups().select([col("s").unique_stable()]),
        ),
        (
            "distinct values, sorted afterwards",
            groups()
                .select([col("x").unique()])
                .sort(["x"], SortMultipleOptions::default()),
        ),
        ("distinct dates", table().select([col("d").unique_stable()])),
        (
            "distinct counts of whole columns (NaNs one value, -0.0 and 0.0 one value)",
            table().select([
                col("f").n_unique().alias("f"),
                col("s").n_unique().alias("s"),
                col("i").n_unique().alias("i"),
                col("d").n_unique().alias("d"),
            ]),
        ),
        (
            "distinct floats per group",
            table()
                .with_columns([(col("u") % lit(2u32)).alias("parity")])
                .group_by_stable([col("parity")])
                .agg([col("f").n_unique(), col("s").n_unique().alias("s")]),
        ),
        (
            "distinct counts of no rows",
            table()
                .filter(col("i").gt(lit(i64::MAX)))
                .select([col("f").n_unique(), col("s").n_unique().alias("s")]),
        ),
        (
            "sorted afterwards",
            groups()
                .group_by([col("g")])
                .agg([col("x").sum().alias("sum"), len()])
                .sort(["g"], SortMultipleOptions::default()),
        ),
        (
            "whole-column aggregations",
            groups().select([
                col("v").sum().alias("sum"),
                col("x").mean().alias("mean"),
                col("v").min().alias("min"),
                col("x").max().alias("max"),
                col("x").first().alias("first"),
                col("v").last().alias("last"),
                col("v").count().alias("count"),
                col("x").len().alias("x_len"),
                len().alias("len"),
                (lit(100.0)
                    * when(col("h").eq(lit(1u32)))
                        .then(col("x"))
                        .otherwise(lit(0.0))
                        .sum()
                    / col("x").sum())
                .alias("share"),
            ]),
        ),
        (
            "aggregations of nothing",
            groups().filter(col("h").gt(lit(99u32))).select([
                col("v").sum().alias("sum"),
                col("x").mean().alias("mean"),
                col("v").min().alias("min"),
                col("x").first().alias("first"),
                len().alias("len"),
            ]),
        ),
        ("a shared subplan joined with itself", {
            let shared = groups()
                .filter(col("h").eq(lit(1u32)))
                .select([col("g"), col("v")])
                .cache();
            shared.clone().join(
                shared,
                [col("g")],
                [col("g")],
                JoinArgs {
                    maintain_order: MaintainOrderJoin::Left,
                    ..JoinArgs::new(JoinType::Inner)
                },
            )
        }),
        (
            "filter, group, sort",
            groups()
                .filter(col("x").is_not_null())
                .group_by_stable([col("h")])
                .agg([col("x").min(), col("v").mean()]),
        ),
    ];
    for (name, lf) in cases {
        assert_gpu_eq(name, lf);
    }
}

fn customers() -> LazyFrame {
    let mut df = df!(
        "key" => [Some(5i64), Some(0), None, Some(5), Some(42), Some(-3)],
        "name" => [Some("five"), Some("zero"), Some("nobody"), Some("five again"), None, Some("minus three")],
        "score" => [Some(1.5), None, Some(3.0), Some(4.0), Some(5.0), Some(6.0)],
    )
    .unwrap();
    let days = Series::new(
        "day".into(),
        [
            Some(19_000i32),
            None,
            Some(19_001),
            Some(18_999),
            Some(0),
            Some(19_000),
        ],
    );
    df.with_column(days.cast(&DataType::Date).unwrap().into())
        .unwrap();
    df.lazy()
}

#[test]
fn joins_match_the_cpu() {
    let ordered = |how| JoinArgs {
        maintain_order: MaintainOrderJoin::Left,
        ..JoinArgs::new(how)
    };
    let cases: Vec<(&str, LazyFrame)> = vec![
        (
            "inner",
            table().join(
                customers(),
                [col("i")],
                [col("key")],
                ordered(JoinType::Inner),
            ),
        ),
        (
            "left",
            table().join(
                customers(),
                [col("i")],
                [col("key")],
                ordered(JoinType::Left),
            ),
        ),
        (
            "semi",
            table().join(
                customers(),
                [col("i")],
                [col("key")],
                JoinArgs::new(JoinType::Semi),
            ),
        ),
        (
            "anti",
            table().join(
                customers(),
                [col("i")],
                [col("key")],
                JoinArgs::new(JoinType::Anti),
            ),
        ),
        (
            "dates",
            table().join(
                customers(),
                [col("d")],
                [col("day")],
                ordered(JoinType::Inner),
            ),
        ),
        (
            "two keys",
            table().join(
                customers(),
                [col("i"), col("d")],
                [col("key"), col("day")],
                ordered(JoinType::Inner),
            ),
        ),
        (
            "a float key and an integer key",
            table().join(
                customers(),
                [col("f"), col("i")],
                [col("score"), col("key")],
                ordered(JoinType::Inner),
            ),
        ),
        ("cross", table().cross_join(customers(), None)),
        (
            "cross with one aggregated row",
            table().cross_join(customers().select([col("score").max().alias("best")]), None),
        ),
        (
            "cross fused with a filter",
            table()
                .cross_join(customers(), None)
                .filter(col("i").gt(col("key")).and(col("s").neq(lit("x")))),
        ),
        (
            "cross with an empty side",
            table().cross_join(customers().filter(col("key").gt(lit(100i64))), None),
        ),
        (
            "suffix clash",
            table().select([col("i"), col("s").alias("name")]).join(
                customers(),
                [col("i")],
                [col("key")],
                ordered(JoinType::Left),
            ),
        ),
        (
            "join then filter and sort",
            table()
                .join(
                    customers(),
                    [col("i")],
                    [col("key")],
                    ordered(JoinType::Inner),
                )
                .filter(col("score").gt(lit(2.0)))
                .sort(
                    ["score", "i"],
                    SortMultipleOptions::default().with_maintain_order(true),
                ),
        ),
    ];
    for (name, lf) in cases {
        assert_gpu_eq(name, lf);
    }
}

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
        "values that do not fit in `strict_cast(#0:i -> i8)`",
    );
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
        "texts that are not numbers of the type in `strict_cast(#0:s -> i64)`",
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
        "texts that are not numbers of the type in `strict_cast(#0:s -> f32)`",
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
fn operators_not_executed_yet_fall_back_with_the_reason() {
    // A slice of groups in no particular order: which groups is Polars' choice.
    let lf = orders()
        .group_by([col("status")])
        .agg([col("amount").sum()])
        .slice(0, 2);
    let (_, report) = lf.collect_with_report(&Engine::Gpu(under_test())).unwrap();
    assert_eq!(
        report.executed_by,
        ExecutedBy::Cpu(engine_select::CpuEngine::InMemory)
    );
    let messages: Vec<String> = report
        .fallback_reasons
        .iter()
        .map(|r| r.message.clone())
        .collect();
    assert!(
        messages.iter().any(
            |m| m.starts_with("a sliced group-by without maintain_order")
                && m.ends_with("is not executed on the device yet")
        ),
        "{report}"
    );
    assert!(
        report
            .fallback_reasons
            .iter()
            .all(|r| r.kind == FallbackKind::Unsupported),
        "{report}"
    );
}

/// `left` joined with `right` on the named keys as an inner, left, semi and
/// anti join: each on the device equals the CPU's.
fn assert_joins_eq(
    name: &str,
    (left, left_on): (LazyFrame, &[&str]),
    (right, right_on): (LazyFrame, &[&str]),
) {
    let columns = |names: &[&str]| names.iter().map(|name| col(*name)).collect::<Vec<_>>();
    for kind in [
        JoinType::Inner,
        JoinType::Left,
        JoinType::Semi,
        JoinType::Anti,
    ] {
        assert_gpu_eq(
            &format!("{kind:?} join on {name}"),
            left.clone().join(
                right.clone(),
                columns(left_on),
                columns(right_on),
                JoinArgs::new(kind),
            ),
        );
    }
}

#[test]
fn joins_on_several_or_text_keys_match_the_cpu() {
    assert_joins_eq(
        "an integer and a date key",
        (table(), &["i", "d"]),
        (customers(), &["key", "day"]),
    );
    assert_joins_eq(
        "a float and an integer key",
        (table(), &["f", "i"]),
        (customers(), &["score", "key"]),
    );
    assert_joins_eq(
        "a text key (nulls, empty and repeated texts)",
        (orders(), &["status"]),
        (
            customers().with_columns([col("name").alias("status")]),
            &["status"],
        ),
    );
    assert_joins_eq(
        "a text and a float key",
        (table(), &["s", "f"]),
        (customers(), &["name", "score"]),
    );
}

#[test]
fn joins_on_float_and_boolean_keys_match_the_cpu() {
    let left = df!(
        "f" => [Some(1.5), Some(f64::NAN), Some(-0.0), Some(0.0), None, Some(2.0), Some(f64::NAN), Some(1.5)],
        "b" => [Some(true), Some(false), None, Some(true), Some(false), Some(true), None, Some(false)],
        "v" => [0i64, 1, 2, 3, 4, 5, 6, 7],
    )
    .unwrap()
    .lazy()
    .with_columns([col("f").cast(DataType::Float32).alias("g")]);
    let right = df!(
        "f" => [Some(f64::NAN), Some(0.0), Some(1.5), None, Some(3.0), Some(-0.0)],
        "b" => [Some(false), None, Some(true), Some(true), Some(false), Some(false)],
        "w" => [10i64, 11, 12, 13, 14, 15],
    )
    .unwrap()
    .lazy()
    .with_columns([col("f").cast(DataType::Float32).alias("g")]);
    assert_joins_eq(
        "a float key (NaN, -0.0 and 0.0, nulls, repeats)",
        (left.clone(), &["f"]),
        (right.clone(), &["f"]),
    );
    assert_joins_eq(
        "an f32 key",
        (left.clone(), &["g"]),
        (right.clone(), &["g"]),
    );
    assert_joins_eq(
        "a boolean key (nulls)",
        (left.clone(), &["b"]),
        (right.clone(), &["b"]),
    );
    assert_joins_eq(
        "a boolean and a float key",
        (left, &["b", "f"]),
        (right, &["b", "f"]),
    );
}

#[test]
fn joins_with_nulls_equal_match_nulls_on_the_device() {
    // With several keys, every key is coded: null one value among the others.
    for (name, left_on, right_on) in [
        ("an integer key", vec!["i"], vec!["key"]),
        ("a text key", vec!["s"], vec!["name"]),
        ("a float key", vec!["f"], vec!["score"]),
        ("two keys", vec!["i", "d"], vec!["key", "day"]),
    ] {
        for how in keyed_joins_but_full() {
            let mut args = JoinArgs::new(how.clone());
            args.nulls_equal = true;
            let columns = |names: &[&str]| names.iter().map(|name| col(*name)).collect::<Vec<_>>();
            assert_gpu_eq(
                &format!("{how:?} join with nulls equal on {name}"),
                table().join(customers(), columns(&left_on), columns(&right_on), args),
            );
        }
    }
}

#[test]
fn a_missing_emulated_device_is_a_clear_reason_or_error() {
    let engine = Engine::Gpu(emulated().with_device(9).with_raise_on_fail(true));
    let err = table().collect_with(&engine).unwrap_err();
    assert!(matches!(err, EngineError::GpuUnavailable { .. }), "{err}");
    assert!(
        err.to_string().contains("emulated device 9 does not exist"),
        "{err}"
    );
}

/// The emulated device only this test uses: its first query fixes its
/// memory resource, a pool that may not grow past 1 MiB.
const SMALL_DEVICE: usize = 7;

#[test]
fn device_out_of_memory_falls_back_with_the_reason_or_raises() {
    let small = emulated()
        .with_device(SMALL_DEVICE)
        .with_memory_resource(MemoryResource::Pool {
            initial_bytes: 0,
            maximum_bytes: Some(1 << 20),
        });
    let tiny_runs_on_the_device = |engine: GpuEngine| {
        let tiny = table().filter(col("i").gt(lit(0i64)));
        let (_, report) = tiny.collect_with_report(&Engine::Gpu(engine)).unwrap();
        assert!(
            matches!(
                report.executed_by,
                ExecutedBy::Gpu {
                    device: SMALL_DEVICE,
                    ..
                }
            ),
            "{report}"
        );
    };
    // A small query fits: the device works.
    tiny_runs_on_the_device(small.clone());
    // 400,000 rows of i64 and f64 (6.4 MB) do not.
    let big = df!(
        "k" => (0..400_000i64).map(|i| i % 7).collect::<Vec<_>>(),
        "x" => (0..400_000).map(f64::from).collect::<Vec<_>>(),
    )
    .unwrap()
    .lazy()
    .group_by([col("k")])
    .agg([col("x").sum()])
    .sort(["k"], Default::default());
    let expected = big.clone().collect().unwrap();
    let (df, report) = big
        .clone()
        .collect_with_report(&Engine::Gpu(small.clone()))
        .unwrap();
    assert!(df.equals_missing(&expected), "the CPU's answer, whole");
    assert_eq!(
        report.executed_by,
        ExecutedBy::Cpu(engine_select::CpuEngine::InMemory),
        "{report}"
    );
    assert!(
        report
            .fallback_reasons
            .iter()
            .any(|r| r.kind == FallbackKind::OutOfMemory
                && r.message
                    .contains("out of device memory: 3200000 bytes requested")),
        "{report}"
    );
    let err = big
        .collect_with(&Engine::Gpu(small.with_raise_on_fail(true)))
        .unwrap_err();
    assert!(err.to_string().contains("out of device memory"), "{err}");
    // The device is still usable after running out.
    tiny_runs_on_the_device(emulated().with_device(SMALL_DEVICE));
}

#[test]
fn several_emulated_devices_run_queries_at_the_same_time() {
    std::thread::scope(|scope| {
        for device in 0..4 {
            scope.spawn(move || {
                let engine = Engine::Gpu(emulated().with_device(device).with_raise_on_fail(true));
                for _ in 0..5 {
                    let lf = table().filter(col("i").gt(lit(-10i64)));
                    let (df, report) = lf.clone().collect_with_report(&engine).unwrap();
                    assert_eq!(
                        report.executed_by,
                        ExecutedBy::Gpu {
                            device,
                            emulated: true
                        }
                    );
                    assert!(df.equals_missing(&lf.collect().unwrap()));
                }
            });
        }
    });
}

#[test]
fn common_subexpressions_of_whole_column_aggregations_match_the_cpu() {
    // Polars computes a repeated aggregation once, in a with_columns that
    // keeps it one row; a select of only such columns is one row.
    let cases = [
        (
            "a select of a repeated sum",
            groups().select([
                col("v").sum().alias("sum v"),
                (col("v").sum() * lit(2i64)).alias("twice"),
            ]),
        ),
        (
            "a select of a repeated median beside another aggregation",
            groups().select([
                col("v").median().alias("median v"),
                col("v").std(1).alias("std v"),
                (col("v").median() * lit(2.0)).alias("twice median"),
            ]),
        ),
        (
            "a repeated sum beside row-wise expressions",
            groups().select([
                (col("v") - col("v").sum()).alias("minus sum"),
                (col("v").sum() * lit(2i64)).alias("twice"),
                col("v").sum().alias("sum"),
            ]),
        ),
        (
            "aggregations beside row-wise expressions: repeated on every row",
            groups().select([
                col("v").max().alias("max"),
                (col("v") - col("v").min()).alias("above the min"),
                len().alias("rows"),
            ]),
        ),
        (
            "aggregations beside row-wise expressions of no rows",
            groups().filter(lit(false)).select([
                col("v").max().alias("max"),
                (col("v") - col("v").min()).alias("above the min"),
            ]),
        ),
        (
            "a repeated sum in with_columns",
            groups().with_columns([
                col("v").sum().alias("sum v"),
                (col("v").sum() * lit(2i64)).alias("twice"),
            ]),
        ),
    ];
    for (name, lf) in cases {
        assert_gpu_close(name, lf);
    }
}

#[test]
fn aggregations_of_large_groups_and_whole_columns_match_the_cpu() {
    // A few groups of thousands of rows each: reduced in chunks on the device.
    let n = 20_000i64;
    let lf = df!(
        "g" => (0..n).map(|i| (i * 7919 % 3) as i32).collect::<Vec<_>>(),
        "i" => (0..n).map(|i| (i % 11 != 0).then_some(i * 104_729 % 20_011 - 10_000)).collect::<Vec<_>>(),
        "f" => (0..n).map(|i| (i % 13 != 0).then_some((i * 31 % 997) as f64 / 8.0 - 60.0)).collect::<Vec<_>>(),
        "u" => (0..n).map(|i| (i * 17 % 1000) as u32).collect::<Vec<_>>(),
    )
    .unwrap()
    .lazy();
    let aggregations = || {
        [
            col("i").sum().alias("i sum"),
            col("i").min().alias("i min"),
            col("i").max().alias("i max"),
            col("i").mean().alias("i mean"),
            col("i").count().alias("i count"),
            col("f").sum().alias("f sum"),
            col("f").min().alias("f min"),
            col("f").max().alias("f max"),
            col("f").mean().alias("f mean"),
            col("u").sum().alias("u sum"),
            col("u").mean().alias("u mean"),
            col("f").std(1).alias("f std"),
            col("i").var(0).alias("i var"),
            len().alias("len"),
        ]
    };
    assert_gpu_close(
        "large groups",
        lf.clone()
            .group_by([col("g")])
            .agg(aggregations())
            .sort(["g"], Default::default()),
    );
    assert_gpu_close("whole columns", lf.select(aggregations()));
}

#[test]
fn a_subplan_used_three_times_runs_on_the_device_and_every_use_gets_its_rows() {
    let base = table()
        .filter(col("i").is_not_null())
        .with_columns([(col("k") * lit(2i64)).alias("k2")]);
    let lf = base
        .clone()
        .join(
            base.clone().select([col("i"), col("k2").alias("right_k2")]),
            [col("i")],
            [col("i")],
            JoinArgs::new(JoinType::Inner),
        )
        .join(
            base.select([col("i"), col("f").alias("third_f")]),
            [col("i")],
            [col("i")],
            JoinArgs::new(JoinType::Left),
        )
        .sort(["i", "k", "right_k2"], Default::default());
    let plan = engine_select::explain_gpu(lf.clone()).unwrap();
    assert!(plan.matches("Cache").count() >= 3, "{plan}");
    assert_gpu_eq("a subplan shared three times", lf);
}

#[test]
fn right_and_full_joins_match_the_cpu() {
    let customers = || {
        customers().with_columns([
            // Initials: some equal a text of the left side ("z").
            col("name")
                .str()
                .slice(lit(0i64), lit(1u64))
                .alias("initial"),
            (col("key") * lit(2i64)).alias("double"),
        ])
    };
    for (name, left_on, right_on) in [
        ("an integer key", vec![col("i")], vec![col("key")]),
        ("a text key", vec![col("s")], vec![col("initial")]),
        ("a float key", vec![col("f")], vec![col("score")]),
        (
            "two keys",
            vec![col("i"), col("d")],
            vec![col("key"), col("day")],
        ),
    ] {
        assert_every_join_eq(
            name,
            (table(), left_on),
            (customers(), right_on),
            &[
                JoinCoalesce::JoinSpecific,
                JoinCoalesce::CoalesceColumns,
                JoinCoalesce::KeepColumns,
            ],
        );
    }
}

/// The kinds of joins on keys whose rows come in an order Polars defines.
fn keyed_joins_but_full() -> [JoinType; 5] {
    [
        JoinType::Inner,
        JoinType::Left,
        JoinType::Semi,
        JoinType::Anti,
        JoinType::Right,
    ]
}

/// `left` joined with `right` on the keys in every kind but cross, with
/// each of the `coalesce` options: on the device each equals the CPU's (a
/// full join's rows sorted, their order being Polars' to choose).
fn assert_every_join_eq(
    name: &str,
    (left, left_on): (LazyFrame, Vec<Expr>),
    (right, right_on): (LazyFrame, Vec<Expr>),
    coalesce: &[JoinCoalesce],
) {
    for &coalesce in coalesce {
        let join = |how| {
            left.clone().join(
                right.clone(),
                left_on.clone(),
                right_on.clone(),
                JoinArgs::new(how).with_coalesce(coalesce),
            )
        };
        for how in keyed_joins_but_full() {
            assert_gpu_eq(&format!("{how:?} join on {name} ({coalesce:?})"), join(how));
        }
        assert_gpu_eq(
            &format!("full join on {name} ({coalesce:?})"),
            sorted_rows(join(JoinType::Full)),
        );
    }
}

/// `lf` sorted by all its columns (booleans aside: the device sorts none),
/// for results in an order Polars leaves open.
fn sorted_rows(lf: LazyFrame) -> LazyFrame {
    let names: Vec<PlSmallStr> = lf
        .clone()
        .collect_schema()
        .unwrap()
        .iter()
        .filter(|(_, dtype)| **dtype != DataType::Boolean)
        .map(|(name, _)| name.clone())
        .collect();
    lf.sort(
        names,
        SortMultipleOptions::default()
            .with_nulls_last(true)
            .with_maintain_order(true),
    )
}

#[test]
fn joins_on_expressions_and_on_keys_of_differing_types_match_the_cpu() {
    let left = || {
        df!(
            "a" => [Some(1i32), Some(2), None, Some(4), Some(2), Some(-5), Some(7)],
            "s" => [Some("Ab"), Some("b"), Some("C"), None, Some("ab"), Some(""), Some("B")],
            "v" => [0i64, 1, 2, 3, 4, 5, 6],
        )
        .unwrap()
        .lazy()
    };
    let right = || {
        df!(
            "k" => [Some(2i64), Some(4), Some(8), None, Some(1), Some(-5)],
            "t" => [Some("ab"), None, Some("c"), Some("b"), Some(""), Some("x")],
            "w" => [10i64, 11, 12, 13, 14, 15],
        )
        .unwrap()
        .lazy()
    };
    for (name, left_on, right_on) in [
        ("i32 to i64 keys", vec![col("a")], vec![col("k")]),
        (
            "integer expressions",
            vec![col("a") % lit(3i32)],
            vec![(col("k") % lit(3i64)).cast(DataType::Int32)],
        ),
        (
            "text expressions",
            vec![col("s").str().to_lowercase()],
            vec![col("t")],
        ),
        (
            "an expression and a column",
            vec![col("a") * lit(2i32), col("s").str().to_lowercase()],
            vec![col("k").cast(DataType::Int32), col("t")],
        ),
    ] {
        assert_every_join_eq(
            name,
            (left(), left_on),
            (right(), right_on),
            &[JoinCoalesce::JoinSpecific, JoinCoalesce::KeepColumns],
        );
    }
    // Coalesced full join keys of differing types: Polars casts the key
    // column in a projection before the join, whose schema still gives the
    // old type; that projection falls back.
    assert_cpu_answer_with_reason(
        sorted_rows(left().join(
            right(),
            [col("a")],
            [col("k")],
            JoinArgs::new(JoinType::Full).with_coalesce(JoinCoalesce::CoalesceColumns),
        )),
        "is i32 in Polars' plan but its expression gives i64",
    );
}

#[test]
fn parquet_and_csv_scans_are_read_on_the_host_and_the_rest_runs_on_the_device() {
    let folder = std::env::temp_dir().join(format!("gpu-scan-test-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let mut df = orders().collect().unwrap();
    let parquet = folder.join("orders.parquet");
    ParquetWriter::new(std::fs::File::create(&parquet).unwrap())
        .finish(&mut df)
        .unwrap();
    let csv = folder.join("orders.csv");
    CsvWriter::new(std::fs::File::create(&csv).unwrap())
        .finish(&mut df)
        .unwrap();
    let query = |lf: LazyFrame| {
        lf.filter(col("amount").gt(lit(1.0)))
            .group_by([col("customer")])
            .agg([col("amount").sum(), col("qty").max()])
            .sort(["customer"], Default::default())
    };
    let from_parquet =
        LazyFrame::scan_parquet(parquet.to_str().unwrap().into(), Default::default()).unwrap();
    let from_csv = LazyCsvReader::new(csv.to_str().unwrap().into())
        .with_has_header(true)
        .finish()
        .unwrap();
    assert_gpu_eq("a parquet scan", query(from_parquet.clone()));
    assert_gpu_eq("a csv scan", query(from_csv));
    // A scan shared by two uses is read once and feeds both.
    assert_gpu_eq(
        "a parquet scan used twice",
        query(from_parquet.clone())
            .join(
                query(from_parquet).select([col("customer"), col("qty").alias("qty2")]),
                [col("customer")],
                [col("customer")],
                JoinArgs::new(JoinType::Inner),
            )
            .sort(["customer"], Default::default()),
    );
    std::fs::remove_dir_all(&folder).unwrap();
}

#[test]
fn a_plan_the_device_runs_in_part_is_a_mixed_plan_unless_all_or_nothing_is_asked() {
    let lf = table()
        .filter(col("i").is_not_null())
        .with_columns([(col("k") * lit(2i64)).alias("k2")])
        .select([
            col("i"),
            col("k2"),
            col("k2")
                .cast(DataType::Float64)
                .cum_prod(false)
                .alias("ordering"),
        ]);
    let explained = engine_select::explain_gpu(lf.clone()).unwrap();
    assert!(
        explained.contains("cannot run on the GPU: ")
            && explained
                .matches("runs on the GPU, in a mixed plan:")
                .count()
                == 1,
        "{explained}"
    );
    let expected = lf.clone().collect().unwrap();
    let (df, report) = lf
        .clone()
        .collect_with_report(&Engine::Gpu(under_test()))
        .unwrap();
    assert!(df.equals_missing(&expected), "{df}\n{expected}");
    let ExecutedBy::Gpu { device, emulated } = under_test_executed_by() else {
        unreachable!()
    };
    assert_eq!(
        report.executed_by,
        ExecutedBy::Mixed {
            device,
            emulated,
            subplans: 1
        },
        "{report}"
    );
    assert!(
        report.to_string().contains("1 subplan(s)) and cpu"),
        "{report}"
    );
    assert!(
        report
            .fallback_reasons
            .iter()
            .any(|r| r.message.contains("function cum_prod")),
        "{report}"
    );
    // With raise_on_fail the user asked for the GPU or an error.
    let err = lf
        .collect_with(&Engine::Gpu(under_test().with_raise_on_fail(true)))
        .unwrap_err();
    assert!(err.to_string().contains("function cum_prod"), "{err}");
    // Nothing worth the device (a cum_prod of an in-memory frame): the CPU.
    let (_, report) = table()
        .select([col("k").cast(DataType::Float64).cum_prod(false)])
        .collect_with_report(&Engine::Gpu(under_test()))
        .unwrap();
    assert_eq!(
        report.executed_by,
        ExecutedBy::Cpu(engine_select::CpuEngine::InMemory),
        "{report}"
    );
}

#[test]
fn boolean_keys_sort_group_and_deduplicate_as_on_the_cpu() {
    for descending in [false, true] {
        for nulls_last in [false, true] {
            assert_gpu_eq(
                &format!("sort by a boolean (descending {descending}, nulls last {nulls_last})"),
                table().sort_by_exprs(
                    [col("b"), col("u")],
                    SortMultipleOptions::default()
                        .with_order_descending_multi([descending, false])
                        .with_nulls_last(nulls_last)
                        .with_maintain_order(true),
                ),
            );
        }
    }
    assert_gpu_eq(
        "group by a boolean",
        table()
            .group_by([col("b")])
            .agg([col("u").sum(), col("i").count()])
            .sort(["b"], SortMultipleOptions::default().with_nulls_last(true)),
    );
    assert_gpu_eq(
        "distinct rows with a boolean",
        table()
            .select([col("b"), col("u") % lit(2u32)])
            .unique_stable(None, UniqueKeepStrategy::First),
    );
    assert_gpu_eq(
        "unique booleans",
        table().select([col("b").unique_stable()]),
    );
}

#[test]
fn sliced_joins_and_ordered_group_bys_run_on_the_device() {
    for how in [
        JoinType::Inner,
        JoinType::Left,
        JoinType::Right,
        JoinType::Semi,
        JoinType::Anti,
    ] {
        for (offset, len) in [(0i64, 2u32), (1, 3), (-2, 5), (10, 3)] {
            assert_gpu_eq(
                &format!("{how:?} join sliced at ({offset}, {len})"),
                table()
                    .join(
                        customers(),
                        [col("i")],
                        [col("key")],
                        JoinArgs::new(how.clone()),
                    )
                    .slice(offset, len),
            );
        }
    }
    for (offset, len) in [(0i64, 2u32), (1, 2), (-1, 1)] {
        assert_gpu_eq(
            &format!("ordered group-by sliced at ({offset}, {len})"),
            table()
                .group_by_stable([col("b")])
                .agg([col("u").sum()])
                .slice(offset, len),
        );
    }
}

#[test]
fn aggregations_inside_aggregations_are_taken_per_group() {
    let deviations = || {
        [
            (col("u") - col("u").mean()).abs().sum().alias("deviation"),
            ((col("f") - col("f").min()) * lit(2.0))
                .max()
                .alias("range2"),
            (col("u").cast(DataType::Int64) - col("u").cast(DataType::Int64).max())
                .sum()
                .alias("below max"),
        ]
    };
    let lf = df!(
        "g" => [1i32, 2, 1, 2, 1, 3, 3, 1],
        "u" => [Some(4u32), Some(9), None, Some(1), Some(7), Some(3), Some(3), Some(10)],
        "f" => [Some(1.5), Some(-2.0), Some(3.25), None, Some(0.5), Some(8.0), Some(-1.0), Some(2.0)],
    )
    .unwrap()
    .lazy();
    assert_gpu_close(
        "nested aggregations per group",
        lf.clone()
            .group_by([col("g")])
            .agg(deviations())
            .sort(["g"], Default::default()),
    );
    assert_gpu_close(
        "nested aggregations over the frame",
        lf.select(deviations()),
    );
}

#[test]
fn f32_keys_group_as_on_the_cpu() {
    let lf = table().with_columns([col("f").cast(DataType::Float32).alias("g")]);
    assert_gpu_eq(
        "group by an f32 (NaN, -0.0 and 0.0, nulls)",
        lf.clone()
            .group_by([col("g")])
            .agg([col("u").sum(), len()])
            .sort(["g"], SortMultipleOptions::default().with_nulls_last(true)),
    );
    assert_gpu_eq(
        "distinct rows by an f32",
        lf.clone()
            .select([col("g"), col("b")])
            .unique_stable(None, UniqueKeepStrategy::First),
    );
    assert_gpu_eq("unique f32", lf.select([col("g").unique_stable()]));
}

#[test]
fn case_changes_map_every_character_as_polars_does() {
    let texts = df!(
        "s" => [
            Some("hello, World 42"),
            Some("straße ﬁnal ŉ ΐ"),
            Some(""),
            None,
            Some("ǅ ǆ ǈ ß ᾳ ǰ İ ı"),
            Some("日本語 😀 ёжик"),
            Some("ÀÉÎÕÜ àéîõü"),
        ],
    )
    .unwrap()
    .lazy();
    assert_gpu_eq(
        "str.to_uppercase",
        texts.clone().select([
            col("s").str().to_uppercase().alias("upper"),
            col("s")
                .str()
                .slice(lit(1i64), lit(4u64))
                .str()
                .to_uppercase()
                .alias("slice then upper"),
            col("s")
                .str()
                .to_uppercase()
                .str()
                .slice(lit(-3i64), lit(2u64))
                .alias("upper then slice"),
        ]),
    );
    // No byte to write at all (a property test found this crash).
    assert_gpu_eq(
        "str.to_uppercase of empty and null texts",
        df!("s" => [Some(""), None, Some("")])
            .unwrap()
            .lazy()
            .select([col("s").str().to_uppercase()]),
    );
    // Lower case, with the final-sigma rule in its contexts (words, marks,
    // apostrophes, and past Polars' 16-byte ASCII blocks).
    let greek = df!(
        "s" => [
            Some("ΟΔΥΣΣΕΥΣ"),
            Some("ΣΑΣ ΣΑΣ. Σ"),
            Some("ΑΣ' Α'Σ ΑΣ\u{0301} Α\u{0301}Σ"),
            Some("ABCDEFGHIJKLMNOPΣ"),
            Some("ABCDEFGHIJKLMNOPQΣ"),
            Some("İSTANBUL ǅ ẞ"),
            None,
        ],
    )
    .unwrap()
    .lazy();
    assert_gpu_eq(
        "str.to_lowercase",
        texts
            .clone()
            .collect()
            .unwrap()
            .vstack(&greek.collect().unwrap())
            .unwrap()
            .lazy()
            .select([
                col("s").str().to_lowercase().alias("lower"),
                col("s")
                    .str()
                    .to_uppercase()
                    .str()
                    .to_lowercase()
                    .alias("upper, lower"),
            ]),
    );
}

#[test]
fn clips_floors_ceilings_and_coalesces_match_the_cpu() {
    // Floats with NaN, infinities and -0.0; bounds that are columns with
    // nulls and NaN, literals, nulls, or of another type (cast strictly).
    let frame = df!(
        "x" => [Some(1.5f64), Some(-2.5), None, Some(f64::NAN), Some(f64::INFINITY), Some(-0.0), Some(7.0), Some(-1e300)],
        "lo" => [Some(0.0f64), None, Some(1.0), Some(0.0), Some(-1.0), Some(f64::NAN), Some(8.0), Some(-5.0)],
        "hi" => [Some(1.0f64), Some(-3.0), Some(2.0), None, Some(f64::NAN), Some(1.0), Some(9.0), None],
        "f" => [Some(1.5f32), Some(-2.5), None, Some(f32::NAN), Some(-0.5), Some(0.5), Some(1e30), Some(-7.25)],
        "i" => [Some(5i64), None, Some(-3), Some(i64::MAX), Some(i64::MIN), Some(0), Some(10), Some(-10)],
        "j" => [None, Some(1i64), None, Some(2), None, Some(3), None, None],
        "u" => [Some(1u8), Some(200), None, Some(0), Some(255), Some(7), Some(9), Some(100)],
    )
    .unwrap()
    .lazy()
    .with_column(
        (col("i") % lit(1000i64))
            .cast(DataType::Int32)
            .cast(DataType::Date)
            .alias("d"),
    );
    assert_gpu_eq(
        "clip",
        frame.clone().select([
            col("x").clip(col("lo"), col("hi")).alias("columns"),
            col("x").clip(lit(-1.0), lit(1.0)).alias("literals"),
            col("x").clip_min(lit(0.0)).alias("min only"),
            col("x").clip_max(col("hi")).alias("max only"),
            col("x").clip(lit(NULL), lit(2.0)).alias("null lower"),
            col("x").clip(lit(f64::NAN), lit(2.0)).alias("nan lower"),
            col("f").clip(lit(-1.0f32), lit(1.0f32)).alias("f32"),
            col("i").clip(lit(-4i64), lit(6i64)).alias("i64"),
            col("i").clip(col("j"), lit(4i64)).alias("i64 by column"),
            col("i").clip(lit(-4.7), lit(6.2)).alias("i64 by floats"),
            col("u").clip(lit(3u8), lit(100u8)).alias("u8"),
            col("u").clip_min(lit(5)).alias("u8 by i32"),
            col("d")
                .clip(date_literal(-5), date_literal(400))
                .alias("dates"),
        ]),
    );
    assert_gpu_eq(
        "floor and ceil",
        frame.clone().select([
            col("x").floor().alias("floor"),
            col("x").ceil().alias("ceil"),
            col("f").floor().alias("f32 floor"),
            col("f").ceil().alias("f32 ceil"),
            col("i").floor().alias("i64 floor"),
            (col("x") / lit(3.0)).ceil().alias("expression"),
        ]),
    );
    assert_gpu_eq(
        "coalesce",
        frame.clone().select([
            coalesce(&[col("j"), col("i")]).alias("two"),
            coalesce(&[
                col("j"),
                lit(NULL).cast(DataType::Int64),
                col("i"),
                lit(0i64),
            ])
            .alias("four"),
            coalesce(&[col("lo"), col("hi"), col("x")]).alias("floats"),
        ]),
    );
    // A bound that does not fit the input's type fails as on the CPU.
    assert_cpu_error(frame.select([col("u").clip(lit(-1), lit(300))]));
}

/// A xorshift generator: reproducible pseudo-random words.
fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

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
fn window_aggregations_over_partitions_match_the_cpu() {
    let frame = || {
        df!(
            "g" => [Some("a"), Some("b"), None, Some("a"), Some("c"), Some("b"), None, Some("a"), Some("b")],
            "h" => [Some(1i32), Some(1), Some(2), Some(2), Some(1), Some(1), Some(2), Some(1), None],
            "x" => [Some(1.5f64), None, Some(-2.0), Some(4.0), Some(f64::NAN), Some(3.0), Some(0.5), Some(-1.0), Some(2.0)],
            "i" => [Some(5i64), Some(-3), None, Some(7), Some(1), Some(2), Some(9), None, Some(4)],
            "b" => [Some(true), Some(false), None, Some(true), Some(true), Some(false), Some(false), None, Some(true)],
        )
        .unwrap()
        .lazy()
    };
    assert_gpu_eq(
        "windows in with_columns",
        frame().with_columns([
            col("i").sum().over([col("g")]).unwrap().alias("sum by g"),
            col("x")
                .mean()
                .over([col("g"), col("h")])
                .unwrap()
                .alias("mean by g, h"),
            (col("i") - col("i").min().over([col("h")]).unwrap()).alias("i minus min by h"),
            len().over([col("g")]).unwrap().alias("rows by g"),
            col("i")
                .count()
                .over([col("b")])
                .unwrap()
                .alias("count by b"),
            (col("x") / col("x").sum().over([col("g")]).unwrap() + col("x").mean()).alias("share"),
            col("i").over([col("g")]).unwrap().alias("elementwise"),
            (col("i") - col("i").mean())
                .abs()
                .max()
                .over([col("h")])
                .unwrap()
                .alias("spread"),
            col("x")
                .first()
                .over([col("x")])
                .unwrap()
                .alias("first by a float"),
        ]),
    );
    assert_gpu_eq(
        "a window in a filter and a select",
        frame()
            .filter(col("i").gt_eq(col("i").median().over([col("g")]).unwrap()))
            .select([
                col("g"),
                col("i"),
                col("i").n_unique().over([col("h")]).unwrap().alias("n"),
            ]),
    );
    assert_gpu_eq(
        "windows partitioned by expressions",
        frame().with_columns([
            col("i")
                .sum()
                .over([col("i") % lit(2i64)])
                .unwrap()
                .alias("by parity"),
            len()
                .over([col("g").str().to_uppercase(), col("h")])
                .unwrap()
                .alias("by upper case and h"),
        ]),
    );
    assert_gpu_eq(
        "the sum of a window",
        frame().select([col("i").sum().over([col("g")]).unwrap().sum()]),
    );
    assert_gpu_eq(
        "a whole-frame sum beside a window: repeated on every row",
        frame().select([
            col("i").sum(),
            col("i").sum().over([col("g")]).unwrap().alias("w"),
        ]),
    );
    assert_gpu_eq(
        "a whole-frame sum inside a window",
        frame().select([(col("i") + col("i").sum()).over([col("g")]).unwrap()]),
    );
    // What the device does not compute falls back with its reason, and the
    // CPU's answer.
    let cases = [
        (
            vec![
                col("i")
                    .sum()
                    .over([col("g")])
                    .unwrap()
                    .over([col("h")])
                    .unwrap(),
            ],
            "a window inside the window",
        ),
        (
            vec![col("i").sum().over([col("i").sum()]).unwrap()],
            "a window partitioned or ordered by",
        ),
    ];
    for (exprs, reason) in cases {
        assert_cpu_answer_with_reason(frame().select(exprs), reason);
    }
}

#[test]
fn shifts_fills_and_cumulative_sums_within_groups_match_the_cpu() {
    // (Small values: Polars' debug build panics on sums that overflow.)
    let frame = || {
        df!(
            "g" => [Some("a"), Some("b"), None, Some("a"), Some("c"), Some("b"), None, Some("a"), Some("b"), Some("a")],
            "h" => [Some(1i32), Some(1), Some(2), Some(2), Some(1), Some(1), Some(2), Some(1), None, Some(2)],
            "x" => [Some(5i64), Some(-3), None, Some(7), Some(1), None, Some(9), None, Some(4), Some(-8)],
            "f" => [Some(1.5f64), None, Some(-2.0), Some(f64::NAN), Some(0.5), Some(3.0), None, Some(-1.0), Some(2.0), None],
            "b" => [Some(true), Some(false), None, Some(true), Some(true), Some(false), Some(true), None, Some(true), Some(true)],
            "s" => [Some("p"), None, Some("q"), None, Some("r"), Some("s"), None, Some(""), Some("t"), None],
        )
        .unwrap()
        .lazy()
    };
    let over = |e: Expr, by: &[&str]| {
        e.over(by.iter().map(|c| col(*c)).collect::<Vec<_>>())
            .unwrap()
    };
    let fill = |e: Expr, strategy| e.fill_null_with_strategy(strategy);
    assert_gpu_eq(
        "row-order parts within windows",
        frame().with_columns([
            over(col("x").shift(lit(1)), &["g"]).alias("lag by g"),
            over(col("x").shift(lit(-2)), &["g", "h"]).alias("lead 2 by g, h"),
            over(col("f").shift(lit(1)), &["h"]).alias("float lag by h"),
            over(col("b").shift(lit(1)), &["g"]).alias("bool lag by g"),
            over(col("x").shift(lit(100)), &["g"]).alias("shift past every group"),
            over(col("x").shift(lit(i64::MAX)), &["g"]).alias("shift by i64::MAX"),
            over(col("x").cum_sum(false), &["g"]).alias("running sum by g"),
            over(col("b").cum_sum(false), &["h"]).alias("running count by h"),
            over((col("x") * lit(2i64)).cum_sum(false), &["h"]).alias("computed running sum"),
            over(fill(col("x"), FillNullStrategy::Forward(None)), &["g"]).alias("forward by g"),
            over(fill(col("f"), FillNullStrategy::Backward(Some(1))), &["h"])
                .alias("backward 1 by h"),
            over(col("x") - col("x").shift(lit(1)), &["g"]).alias("difference by g"),
            over(
                col("x").cum_sum(false).cast(DataType::Float64) / col("x").sum(),
                &["g"],
            )
            .alias("share of the group's sum"),
            over(col("x").shift(lit(1)).sum(), &["g"]).alias("sum of the lag by g"),
            col("x")
                .cum_sum(false)
                .over([col("x") % lit(2i64)])
                .unwrap()
                .alias("by an expression"),
        ]),
    );
    assert_gpu_eq(
        "a lag by group in a filter",
        frame().filter(over(col("x").shift(lit(1)), &["g"]).gt(col("x"))),
    );
    assert_gpu_eq(
        "row-order parts inside aggregations of a group-by",
        frame().group_by_stable([col("g")]).agg([
            col("x").shift(lit(1)).sum().alias("sum of the lag"),
            col("x").cum_sum(false).max().alias("largest running sum"),
            fill(col("x"), FillNullStrategy::Forward(None))
                .last()
                .alias("last filled"),
            (col("x") - col("x").shift(lit(-1)))
                .abs()
                .mean()
                .alias("mean step"),
        ]),
    );
    assert_gpu_eq(
        "row-order parts inside whole-frame aggregations",
        frame().select([col("x").shift(lit(1)).sum().alias("sum of the lag")]),
    );
    assert_gpu_eq(
        "row-order parts inside whole-frame aggregations, repeated on every row",
        frame().with_columns([(col("x") - col("x").cum_sum(false).max()).alias("below the top")]),
    );
    assert_gpu_eq(
        "shifts and fills of text within windows",
        frame().with_columns([
            over(col("s").shift(lit(1)), &["g"]).alias("lag by g"),
            over(col("s").str().to_uppercase().shift(lit(-1)), &["h"]).alias("lead by h"),
            over(fill(col("s"), FillNullStrategy::Forward(None)), &["g"]).alias("forward by g"),
            over(
                fill(col("s"), FillNullStrategy::Backward(Some(1))),
                &["h", "b"],
            )
            .alias("backward 1 by h, b"),
        ]),
    );
    assert_gpu_eq(
        "a comparison of a text lag by group",
        frame().filter(over(col("s").shift(lit(1)), &["g"]).eq(lit("p"))),
    );
    // Ordered windows: each partition's rows in the order of a key.
    let ordered = |e: Expr, by: &[&str], key: Expr, descending: bool, nulls_last: bool| {
        let options = SortOptions::default()
            .with_order_descending(descending)
            .with_nulls_last(nulls_last);
        let partition: Vec<Expr> = by.iter().map(|c| col(*c)).collect();
        let partition = (!partition.is_empty()).then_some(partition);
        e.over_with_options(
            partition,
            Some((vec![key], options)),
            WindowMapping::GroupsToRows,
        )
        .unwrap()
    };
    let t = || col("f").fill_nan(lit(9.0));
    assert_gpu_eq(
        "ordered windows",
        frame().with_columns([
            ordered(col("x").cum_sum(false), &["g"], t(), false, false).alias("running sum by f"),
            ordered(col("x").shift(lit(1)), &["g"], t(), true, true).alias("lag by f descending"),
            ordered(
                fill(col("x"), FillNullStrategy::Forward(None)),
                &["h"],
                col("x"),
                false,
                true,
            )
            .alias("forward by x"),
            ordered(col("x").first(), &["g"], t(), false, true).alias("first by f"),
            ordered(col("f").last(), &["g", "h"], col("x"), true, false).alias("last by x"),
            ordered(col("x").sum(), &["g"], t(), false, false).alias("sum (order aside)"),
            ordered(
                col("x") - col("x").shift(lit(1)),
                &["g"],
                col("s"),
                false,
                true,
            )
            .alias("step by s"),
            ordered(col("s").shift(lit(-1)), &["h"], t(), false, false).alias("text lead by f"),
            ordered(col("x").cum_sum(false), &[], col("x"), true, true)
                .alias("over the frame by x"),
        ]),
    );
    assert_cpu_answer_with_reason(
        frame().select([ordered(
            col("x").rank(RankOptions::default(), None),
            &["g"],
            col("x"),
            false,
            false,
        )]),
        "a rank, distinctness test or sort in the ordered window",
    );
    // A window of text made row by row from the row's own values.
    assert_gpu_eq(
        "a window of a string operation",
        frame().select([over(col("s").str().to_uppercase(), &["g"])]),
    );
}

#[test]
fn shift_and_fill_matches_the_cpu() {
    let frame = || {
        let mut df = df!(
            "g" => [Some("a"), Some("b"), None, Some("a"), Some("c"), Some("b"), None, Some("a")],
            "x" => [Some(5i64), None, Some(-3), Some(7), Some(1), None, Some(9), Some(2)],
            "u" => [Some(5u8), Some(0), None, Some(7), Some(255), Some(1), Some(9), Some(2)],
            "f" => [Some(1.5f64), None, Some(-0.0), Some(f64::NAN), Some(0.5), Some(3.0), None, Some(-1.0)],
            "b" => [Some(true), Some(false), None, Some(true), Some(true), Some(false), Some(true), None],
            "s" => [Some("p"), None, Some("q"), None, Some("r"), Some(""), None, Some("t")],
            "d" => [Some(19_000i32), None, Some(-1), Some(0), Some(365), None, Some(7), Some(1)],
        )
        .unwrap();
        let date = df.column("d").unwrap().cast(&DataType::Date).unwrap();
        df.with_column(date).unwrap();
        df.lazy()
    };
    let fill = |column: &str, n: i64, value: Expr| {
        col(column)
            .shift_and_fill(lit(n), value)
            .alias(format!("{column} by {n}"))
    };
    assert_gpu_eq(
        "shift_and_fill over the frame: nulls shifted in stay null",
        frame().select([
            fill("x", 1, lit(0i64)),
            fill("x", -2, lit(-1i64)),
            fill("x", 3, lit(2.9)),
            fill("x", 0, lit(100i64)),
            fill("x", 20, lit(4i64)),
            fill("x", -20, lit(NULL)),
            fill("u", 2, lit(300i64)),
            fill("u", -1, lit(-1i64)),
            fill("f", 1, lit(f64::NAN)),
            fill("f", -1, lit(7i64)),
            fill("b", 2, lit(false)),
            fill("s", -3, lit("fill")),
            fill("s", 1, lit("")),
            fill("d", 1, lit(3i32).cast(DataType::Date)),
        ]),
    );
    assert_gpu_eq(
        "shift_and_fill within windows, aggregations and filters",
        frame()
            .with_columns([
                col("x")
                    .shift_and_fill(lit(1), lit(0i64))
                    .over([col("g")])
                    .unwrap()
                    .alias("lag by g"),
                col("s")
                    .shift_and_fill(lit(-1), lit("end"))
                    .over([col("g")])
                    .unwrap()
                    .alias("text lead by g"),
            ])
            .filter(col("x").shift_and_fill(lit(1), lit(0i64)).lt(col("x"))),
    );
    assert_gpu_eq(
        "windows of text made row by row from parts within the window",
        frame().with_columns([
            when(col("x").gt(col("x").mean()))
                .then(col("s"))
                .otherwise(lit("low"))
                .over([col("g")])
                .unwrap()
                .alias("above the group's mean"),
            concat_str([col("s"), col("s").shift(lit(1))], "-", false)
                .over([col("g")])
                .unwrap()
                .alias("with the one before"),
            col("s")
                .shift(lit(1))
                .fill_null(col("s").first())
                .str()
                .to_uppercase()
                .over([col("g")])
                .unwrap()
                .alias("lag or the group's first, upper"),
        ]),
    );
    assert_gpu_eq(
        "shift_and_fill inside group-by aggregations",
        frame().group_by_stable([col("g")]).agg([
            col("x")
                .shift_and_fill(lit(1), lit(10i64))
                .sum()
                .alias("sum"),
            col("f")
                .shift_and_fill(lit(-1), lit(0.25))
                .last()
                .alias("last"),
        ]),
    );
    assert_cpu_answer_with_reason(
        frame().select([col("x").shift_and_fill(lit(1), col("x").max())]),
        "a fill value that is not a literal",
    );
}

#[test]
fn horizontal_sums_means_minima_and_maxima_match_the_cpu() {
    let frame = || {
        df!(
            "a" => [Some(5i64), None, Some(-3), Some(i64::MAX), None, Some(0), Some(i64::MIN)],
            "b" => [Some(2i64), Some(7), None, Some(1), None, Some(0), Some(-1)],
            "c" => [None, Some(-7i64), Some(4), Some(1), None, Some(9), Some(i64::MIN)],
            "x" => [Some(100i8), Some(-128), None, Some(127), Some(1), None, Some(-5)],
            "y" => [Some(100i8), Some(-1), Some(3), Some(1), None, None, Some(-128)],
            "u" => [Some(1u32), Some(u32::MAX), None, Some(7), Some(0), None, Some(3)],
            "f" => [Some(1.5f64), None, Some(f64::NAN), Some(-0.0), None, Some(f64::INFINITY), Some(0.1)],
            "g" => [Some(2.25f64), Some(3.0), None, Some(0.0), None, Some(f64::NEG_INFINITY), Some(0.2)],
            "h" => [Some(1.5f32), None, Some(-2.0), Some(3.0), None, Some(0.25), Some(f32::MAX)],
            "k" => [Some(0.5f32), Some(1.0), Some(f32::NAN), None, None, Some(0.5), Some(f32::MAX)],
            "p" => [Some(true), Some(false), None, Some(true), None, Some(true), Some(false)],
            "q" => [Some(true), None, Some(true), Some(false), None, Some(true), Some(false)],
        )
        .unwrap()
        .lazy()
        .with_columns([
            col("a").cast(DataType::Date).alias("d"),
            col("b").cast(DataType::Date).alias("e"),
        ])
    };
    let cols = |names: &str| names.split(' ').map(col).collect::<Vec<_>>();
    let mut exprs = vec![];
    for names in [
        "a b c", "x y", "u a", "f g", "h k", "p q", "a", "a x", "f", "p",
    ] {
        for ignore_nulls in [true, false] {
            exprs.push(
                polars::lazy::dsl::sum_horizontal(cols(names), ignore_nulls)
                    .unwrap()
                    .alias(format!("sum {names} {ignore_nulls}")),
            );
        }
    }
    for names in ["a b c", "x y", "u", "f g", "h k", "p q", "a", "f", "h"] {
        for ignore_nulls in [true, false] {
            exprs.push(
                polars::lazy::dsl::mean_horizontal(cols(names), ignore_nulls)
                    .unwrap()
                    .alias(format!("mean {names} {ignore_nulls}")),
            );
        }
    }
    for names in ["a b c", "x y", "u b", "d e", "a x", "a", "f"] {
        exprs.push(
            polars::lazy::dsl::min_horizontal(cols(names))
                .unwrap()
                .alias(format!("min {names}")),
        );
        exprs.push(
            polars::lazy::dsl::max_horizontal(cols(names))
                .unwrap()
                .alias(format!("max {names}")),
        );
    }
    assert_gpu_eq("horizontal aggregations", frame().select(exprs));
    assert_gpu_eq(
        "a horizontal sum in a filter",
        frame().filter(
            polars::lazy::dsl::sum_horizontal(cols("a b"), true)
                .unwrap()
                .gt(lit(3i64)),
        ),
    );
    for (expr, reason) in [
        (
            polars::lazy::dsl::min_horizontal(cols("f g")),
            "min_horizontal of f64",
        ),
        (
            polars::lazy::dsl::max_horizontal(cols("p q")),
            "max_horizontal of bool",
        ),
        (
            polars::lazy::dsl::sum_horizontal(cols("f g f"), true),
            "more than two float inputs",
        ),
        (
            polars::lazy::dsl::mean_horizontal(cols("a x"), true),
            "differing types",
        ),
    ] {
        assert_cpu_answer_with_reason(frame().select([expr.unwrap()]), reason);
    }
}

#[test]
fn ranks_distinctness_tests_and_differences_match_the_cpu() {
    let frame = || {
        df!(
            "g" => [Some("a"), Some("b"), None, Some("a"), Some("b"), Some("a"), None, Some("b"), Some("a"), Some("a")],
            "i" => [Some(3i64), Some(-1), None, Some(3), Some(7), None, Some(3), Some(-1), Some(0), Some(3)],
            "f" => [Some(0.0f64), Some(f64::NAN), Some(-0.0), None, Some(1.5), Some(f64::NAN), Some(-2.0), Some(1.5), None, Some(f64::INFINITY)],
            "s" => [Some("x"), None, Some("y"), Some("x"), Some(""), None, Some("y"), Some("z"), Some(""), Some("x")],
            "b" => [Some(true), None, Some(false), Some(true), None, Some(false), Some(true), Some(true), None, Some(false)],
            "u" => [Some(200u8), Some(3), Some(200), None, Some(0), Some(255), Some(3), Some(1), Some(9), Some(0)],
            "w" => [Some(5u32), Some(1), None, Some(u32::MAX), Some(0), Some(7), Some(2), Some(1), Some(9), Some(4)],
        )
        .unwrap()
        .lazy()
        .with_columns([col("i").cast(DataType::Date).alias("d"), col("f").cast(DataType::Float32).alias("h")])
    };
    let methods = [
        RankMethod::Average,
        RankMethod::Min,
        RankMethod::Max,
        RankMethod::Dense,
        RankMethod::Ordinal,
    ];
    let rank = |c: &str, method, descending| col(c).rank(RankOptions { method, descending }, None);
    let mut exprs = vec![];
    for method in methods {
        for descending in [false, true] {
            for c in ["i", "f", "h", "d", "u", "w", "s", "b"] {
                exprs.push(
                    rank(c, method, descending).alias(format!("rank {c} {method:?} {descending}")),
                );
            }
            exprs.push(
                rank("i", method, descending)
                    .over([col("g")])
                    .unwrap()
                    .alias(format!("rank i by g {method:?} {descending}")),
            );
            exprs.push(
                rank("s", method, descending)
                    .over([col("g")])
                    .unwrap()
                    .alias(format!("rank s by g {method:?} {descending}")),
            );
            exprs.push(
                rank("f", method, descending)
                    .over([col("g"), col("b")])
                    .unwrap()
                    .alias(format!("rank f by g, b {method:?} {descending}")),
            );
        }
    }
    for c in ["i", "f", "h", "s", "b", "u", "d"] {
        exprs.extend([
            col(c).is_unique().alias(format!("{c} unique")),
            col(c).is_duplicated().alias(format!("{c} duplicated")),
            col(c).is_first_distinct().alias(format!("{c} first")),
            col(c).is_last_distinct().alias(format!("{c} last")),
            col(c)
                .is_first_distinct()
                .over([col("g")])
                .unwrap()
                .alias(format!("{c} first by g")),
            col(c)
                .is_duplicated()
                .over([col("g")])
                .unwrap()
                .alias(format!("{c} duplicated by g")),
        ]);
    }
    for (c, n) in [
        ("i", 1i64),
        ("i", -2),
        ("u", 1),
        ("w", 2),
        ("f", 1),
        ("h", -1),
    ] {
        exprs.push(
            col(c)
                .diff(lit(n), NullBehavior::Ignore)
                .alias(format!("diff {c} {n}")),
        );
    }
    exprs.push(
        col("i")
            .diff(lit(1i64), NullBehavior::Ignore)
            .over([col("g")])
            .unwrap()
            .alias("diff i by g"),
    );
    assert_gpu_eq("ranks, distinctness and differences", frame().select(exprs));
    assert_gpu_eq(
        "first distinct rows in a filter",
        frame().filter(col("s").is_first_distinct().and(col("i").is_not_null())),
    );
    assert_gpu_eq(
        "ranks and duplicates inside group-by aggregations",
        frame().group_by_stable([col("g")]).agg([
            rank("i", RankMethod::Dense, false)
                .max()
                .alias("distinct values"),
            col("i").is_duplicated().sum().alias("duplicated rows"),
        ]),
    );
    assert_gpu_eq(
        "whole-frame sums of booleans",
        frame().select([
            col("b").sum().alias("true values"),
            col("i").is_unique().sum().alias("unique values"),
        ]),
    );
    for (expr, reason) in [
        (col("i").diff(lit(1i64), NullBehavior::Drop), "diff"),
        (
            col("d").diff(lit(1i64), NullBehavior::Ignore),
            "diff of date",
        ),
    ] {
        assert_cpu_answer_with_reason(frame().select([expr]), reason);
    }
}

#[test]
fn aggregations_of_filtered_expressions_and_picks_by_another_column_match_the_cpu() {
    let frame = || {
        df!(
            "g" => [Some("a"), Some("b"), None, Some("a"), Some("b"), Some("a"), None, Some("c")],
            "x" => [Some(5i64), Some(-3), None, Some(7), Some(1), None, Some(9), Some(2)],
            "f" => [Some(1.5f64), None, Some(f64::NAN), Some(-2.0), Some(0.5), Some(3.0), None, Some(4.0)],
            "p" => [Some(true), Some(false), None, Some(true), Some(true), Some(true), Some(false), Some(false)],
            "s" => [Some("q"), None, Some("r"), Some("s"), Some(""), Some("t"), Some("u"), None],
            // Ties for the greatest in group "a"; none valid in group "c".
            "t" => [Some(3i64), Some(1), Some(2), Some(3), None, Some(1), Some(0), None],
        )
        .unwrap()
        .lazy()
    };
    let aggs = || {
        let kept = |e: Expr| e.filter(col("p"));
        vec![
            kept(col("x")).sum().alias("sum"),
            kept(col("x")).mean().alias("mean"),
            kept(col("f")).min().alias("min"),
            kept(col("f")).max().alias("max"),
            kept(col("x")).count().alias("count"),
            kept(col("x")).len().alias("len"),
            kept(col("f")).std(1).alias("std"),
            kept(col("x")).median().alias("median"),
            col("x")
                .filter(col("x").gt(col("x").mean()))
                .sum()
                .alias("above the mean"),
            (col("x") * lit(2i64))
                .filter(col("f").is_not_nan())
                .sum()
                .alias("where not NaN"),
        ]
    };
    assert_gpu_eq(
        "filtered aggregations per group",
        frame().group_by_stable([col("g")]).agg(aggs()),
    );
    assert_gpu_eq(
        "filtered aggregations of a frame",
        frame().select([
            col("x").filter(col("p")).sum().alias("sum"),
            col("f").filter(col("p")).max().alias("max"),
            col("x")
                .filter(col("x").gt(col("x").mean()))
                .len()
                .alias("above the mean"),
        ]),
    );
    // In a select, Polars computes a filter used twice once, as a column of
    // a with_columns of its own; the device runs the query without it.
    assert_gpu_eq(
        "a filter used twice",
        frame().select([
            col("x").filter(col("p")).sum().alias("sum"),
            col("x").filter(col("p")).mean().alias("mean"),
        ]),
    );
    let picks = || {
        vec![
            col("x").filter(col("p")).first().alias("first kept"),
            col("f").filter(col("p")).last().alias("last kept"),
            col("s")
                .filter(col("x").gt(lit(0i64)))
                .first()
                .alias("first positive's text"),
            col("f").max_by(col("t")).alias("f at the latest t"),
            col("s").min_by(col("t")).alias("s at the earliest t"),
            col("x").max_by(col("x")).alias("the max"),
            (col("x") * lit(2i64))
                .min_by(col("t") - col("x"))
                .alias("computed"),
        ]
    };
    let by_t = |e: Expr, descending: bool, nulls_last: bool| {
        e.sort_by(
            [col("t")],
            SortMultipleOptions::default()
                .with_order_descending(descending)
                .with_nulls_last(nulls_last),
        )
    };
    let in_order = || {
        vec![
            by_t(col("x"), false, false)
                .last()
                .alias("x at the latest t"),
            by_t(col("f"), true, true)
                .first()
                .alias("f at the greatest t, nulls last"),
            by_t(col("s"), false, true)
                .first()
                .alias("s at the earliest t"),
            by_t(col("x"), true, false)
                .last()
                .alias("x, descending, nulls first"),
            by_t(col("x") * lit(2i64), false, false)
                .first()
                .alias("computed"),
        ]
    };
    assert_gpu_eq(
        "first and last in the order of a key, per group",
        frame().group_by_stable([col("g")]).agg(in_order()),
    );
    assert_gpu_eq(
        "first and last in the order of a key, of a frame",
        frame().select(in_order()),
    );
    assert_gpu_eq(
        "first and last in the order of a key, in a window",
        frame().with_columns([by_t(col("f"), false, false)
            .last()
            .over([col("g")])
            .unwrap()
            .alias("w")]),
    );
    // Several keys: Polars sorts stably when asked to keep the order.
    let by_two = |e: Expr, descending: Vec<bool>, maintain_order: bool| {
        e.sort_by(
            [col("p"), col("t")],
            SortMultipleOptions::default()
                .with_order_descending_multi(descending)
                .with_nulls_last(true)
                .with_maintain_order(maintain_order),
        )
    };
    assert_gpu_eq(
        "first and last in the order of two keys, per group",
        frame().group_by_stable([col("g")]).agg([
            by_two(col("x"), vec![false, false], true)
                .first()
                .alias("first"),
            by_two(col("f"), vec![true, false], true)
                .last()
                .alias("last, p descending"),
            by_two(col("s"), vec![false, true], true)
                .first()
                .alias("first, t descending"),
        ]),
    );
    assert_cpu_answer_with_reason(
        frame()
            .group_by_stable([col("g")])
            .agg([by_two(col("x"), vec![false, false], false).first()]),
        "rows equal on every key of",
    );
    assert_gpu_eq(
        "first, last, min_by and max_by per group",
        frame().group_by_stable([col("g")]).agg(picks()),
    );
    assert_gpu_eq(
        "first, last, min_by and max_by of a frame",
        frame().select(picks()),
    );
    assert_gpu_eq(
        "max_by in a window",
        frame().with_columns([col("f")
            .max_by(col("t"))
            .over([col("g")])
            .unwrap()
            .alias("w")]),
    );
    for (expr, reason) in [
        (col("x").max_by(col("f")), "max_by by f64"),
        (
            col("x").filter(col("p")).n_unique(),
            "n_unique of a filtered expression",
        ),
        (col("x").filter(col("p")), "aggregation implode"),
    ] {
        assert_cpu_answer_with_reason(frame().group_by_stable([col("g")]).agg([expr]), reason);
    }
}

#[test]
fn first_last_min_and_max_of_text_temporals_booleans_and_small_integers_match_the_cpu() {
    let frame = || {
        df!(
            "g" => [Some(1i32), Some(2), Some(1), None, Some(2), Some(1), Some(3), Some(3), None],
            "s" => [Some("pear"), None, Some("apple"), Some("fig"), Some(""), Some("Äpfel"), None, None, Some("kiwi")],
            "i" => [Some(19_000i32), Some(-5), None, Some(0), Some(19_000), Some(18_999), None, Some(7), Some(3)],
            "b" => [Some(true), Some(false), None, Some(false), None, Some(true), None, Some(true), Some(false)],
            "u" => [Some(200u8), Some(3), None, Some(255), Some(0), Some(7), None, Some(1), Some(9)],
        )
        .unwrap()
        .lazy()
        .with_columns([
            col("i").cast(DataType::Date).alias("d"),
            (col("i").cast(DataType::Int64) * lit(86_400_000i64))
                .cast(DataType::Datetime(TimeUnit::Milliseconds, None))
                .alias("t"),
            (col("u").cast(DataType::Int8)).alias("k"),
        ])
    };
    let aggs = || {
        let mut aggs = vec![];
        for c in ["s", "d", "t", "b", "u", "k"] {
            aggs.extend([
                col(c).first().alias(format!("first {c}")),
                col(c).last().alias(format!("last {c}")),
                col(c).min().alias(format!("min {c}")),
                col(c).max().alias(format!("max {c}")),
            ]);
        }
        aggs.push(
            col("s")
                .str()
                .to_uppercase()
                .max()
                .alias("max of upper case"),
        );
        aggs
    };
    assert_gpu_eq(
        "first, last, min and max per group",
        frame().group_by_stable([col("g")]).agg(aggs()),
    );
    assert_gpu_eq(
        "first, last, min and max of a frame",
        frame().select(aggs()),
    );
    assert_gpu_eq(
        "the latest date of each group, in a window",
        frame().with_columns([col("d").max().over([col("g")]).unwrap().alias("latest")]),
    );
    assert_gpu_eq(
        "text aggregations in windows and repeated on every row",
        frame().with_columns([
            col("s").max().over([col("g")]).unwrap().alias("max by g"),
            col("s")
                .first()
                .over([col("g"), col("b")])
                .unwrap()
                .alias("first by g, b"),
            col("s").min().alias("min"),
            (col("s").last() + lit("!")).alias("last!"),
        ]),
    );
}

#[test]
fn padding_text_literals_and_dates_as_text_match_the_cpu() {
    let frame = || {
        df!(
            "s" => [Some("7"), Some("-42"), Some("+3"), None, Some(""), Some("héllo"), Some("-"), Some("😀x"), Some("123456789")],
        )
        .unwrap()
        .lazy()
    };
    let s = || col("s").str();
    assert_gpu_eq(
        "pad_start, pad_end and zfill",
        frame().select([
            s().pad_start(lit(5), '*').alias("start 5"),
            s().pad_end(lit(7), 'é').alias("end 7"),
            s().pad_start(lit(0), ' ').alias("start 0"),
            s().zfill(lit(4)).alias("zfill 4"),
            s().zfill(lit(0)).alias("zfill 0"),
            s().to_uppercase()
                .str()
                .pad_start(lit(6), '😀')
                .alias("computed"),
            s().zfill(lit(NULL).cast(DataType::UInt64))
                .alias("null length"),
        ]),
    );
    let days = [
        Some(0i32),
        Some(-1),
        None,
        Some(19_723),
        Some(-719_529),
        Some(2_932_897),
        Some(-25_000),
    ];
    let dates = df!("days" => days).unwrap().lazy().with_columns([
        col("days").cast(DataType::Date).alias("d"),
        (col("days").cast(DataType::Int64) * lit(86_400_000i64) + lit(45_296_789i64))
            .cast(DataType::Datetime(TimeUnit::Milliseconds, None))
            .alias("ms"),
        (col("days").cast(DataType::Int64) * lit(86_400_000_000i64) - lit(1i64))
            .cast(DataType::Datetime(TimeUnit::Microseconds, None))
            .alias("us"),
        (col("days").cast(DataType::Int64) * lit(86_400_000_000_000i64) / lit(9i64))
            .cast(DataType::Datetime(TimeUnit::Nanoseconds, None))
            .alias("ns"),
    ]);
    assert_gpu_eq(
        "dates and timestamps as text",
        dates.select([
            col("d").cast(DataType::String),
            col("ms").cast(DataType::String),
            col("us").cast(DataType::String),
            col("ns").cast(DataType::String),
            (lit("on ") + col("d").cast(DataType::String)).alias("sentence"),
        ]),
    );
    assert_gpu_eq(
        "text literals repeated on every row",
        frame().with_columns([
            lit("x").alias("text"),
            lit(NULL).cast(DataType::String).alias("null text"),
        ]),
    );
    assert_cpu_answer_with_reason(
        frame().select([s().zfill(col("s").str().len_chars())]),
        "zfill to a length that is not a literal",
    );
}

#[test]
fn aggregations_of_small_integers_booleans_and_f32_match_the_cpu() {
    let frame = || {
        df!(
            "g" => [1i32, 2, 1, 2, 1, 3, 3, 1],
            "k" => [Some(1i8), Some(-128), None, Some(127), Some(5), None, None, Some(-3)],
            "j" => [Some(300i16), Some(-32768), Some(7), None, Some(32767), Some(1), None, Some(0)],
            "u" => [Some(1u8), Some(255), None, Some(3), Some(5), Some(255), None, Some(1)],
            "w" => [Some(65535u16), Some(0), Some(9), None, Some(65535), Some(2), None, Some(4)],
            "b" => [Some(true), Some(false), None, Some(true), Some(true), None, None, Some(false)],
            "h" => [Some(1.5f32), Some(-2.0), None, Some(f32::NAN), Some(3.0), Some(f32::MAX), None, Some(-0.0)],
        )
        .unwrap()
        .lazy()
    };
    let aggs = || {
        let mut aggs = vec![];
        for c in ["k", "j", "u", "w"] {
            aggs.extend([
                col(c).sum().alias(format!("sum {c}")),
                col(c).mean().alias(format!("mean {c}")),
                col(c).n_unique().alias(format!("n_unique {c}")),
                col(c).std(1).alias(format!("std {c}")),
                col(c).median().alias(format!("median {c}")),
            ]);
        }
        aggs.extend([
            col("k").null_count().alias("null_count k"),
            col("b").null_count().alias("null_count b"),
            col("b").mean().alias("mean b"),
            col("b").n_unique().alias("n_unique b"),
            col("b").var(0).alias("var b"),
            col("h").min().alias("min h"),
            col("h").max().alias("max h"),
            col("h").n_unique().alias("n_unique h"),
        ]);
        aggs
    };
    assert_gpu_close(
        "small types per group",
        frame().group_by_stable([col("g")]).agg(aggs()),
    );
    assert_gpu_close("small types over the frame", frame().select(aggs()));
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
fn divisions_by_one_value_match_polars_scalar_kernels() {
    // Polars divides by a value of one row (a literal, a whole-frame
    // aggregation) by multiplying with its reciprocal, unless both sides
    // have one row: the last bits differ from a division.
    let frame = |n: usize| {
        let xs: Vec<Option<f64>> = (1..=n)
            // 49 * (1 / 49) is not 1: the first row tells a division by
            // the reciprocal from a plain one.
            .map(|i| {
                (i % 13 != 0).then(|| {
                    if i == 1 {
                        49.0
                    } else {
                        i as f64 * 0.37 + 1.0 / i as f64
                    }
                })
            })
            .collect();
        // Group 0 of `w` holds one row, the others many; `o` is one group.
        let ws: Vec<i64> = (0..n as i64)
            .map(|i| if i == 0 { 0 } else { 1 + i % 3 })
            .collect();
        df!(
            "x" => xs,
            "g" => (0..n as i64).map(|i| i % 3).collect::<Vec<_>>(),
            "w" => ws,
            "o" => vec![1i32; n],
        )
        .unwrap()
        .lazy()
        .with_columns([
            col("x").cast(DataType::Float32).alias("h"),
            (col("x") * lit(1000.0)).cast(DataType::Int64).alias("i"),
        ])
    };
    let exprs = || {
        vec![
            (col("x") / lit(3.0)).alias("x / 3"),
            (col("x") / lit(7.1)).alias("x / 7.1"),
            col("x").floor_div(lit(0.3)).alias("x // 0.3"),
            (col("x") % lit(0.3)).alias("x % 0.3"),
            (col("x") / col("x").max()).alias("x / max"),
            (col("h") / lit(3.0f32)).alias("f32 / 3"),
            (col("h") % lit(0.3f32)).alias("f32 % 0.3"),
            (col("i") / lit(3.0)).alias("i / 3.0"),
            (lit(1.0) / col("x")).alias("1 / x"),
            (col("x").max() / lit(3.0) + col("x")).alias("max / 3 + x"),
        ]
    };
    for n in [1, 2, 200] {
        assert_gpu_eq(
            &format!("divisions by one value, {n} rows"),
            frame(n).select(exprs()),
        );
        assert_gpu_eq(
            &format!("divisions by one value per group, {n} rows"),
            frame(n).group_by_stable([col("g")]).agg([
                (col("x") / lit(3.0)).max().alias("max of x / 3"),
                (col("x").max() / lit(7.1)).alias("max / 7.1"),
                (col("x") / col("x").max()).sum().alias("sum of x / max"),
                (col("x") % col("x").max()).min().alias("min of x % max"),
                (col("x").max() / lit(3.0) + col("x"))
                    .sum()
                    .alias("sum of max / 3 + x"),
            ]),
        );
        // In a window Polars divides by each group's value: by its
        // reciprocal in a group of several rows, row by row in a group of
        // one; a group's value by a literal row by row when there is one
        // group.
        for by in ["w", "o"] {
            let over = |e: Expr| e.over([col(by)]).unwrap();
            assert_gpu_eq(
                &format!("divisions by one value per window of {by}, {n} rows"),
                frame(n).select([
                    over(col("x") / col("x").max()).alias("x / max"),
                    over(col("x").floor_div(col("x").max() * lit(0.3))).alias("x // (max * 0.3)"),
                    over(col("x") % (col("x").min() + lit(0.1))).alias("x % (min + 0.1)"),
                    over(col("i") / col("i").sum()).alias("i / sum"),
                    over(col("h") / col("h").max()).alias("f32 / max"),
                    over(col("x").max() / lit(3.0)).alias("max / 3"),
                    over(col("x").max() / lit(3.0) + col("x")).alias("max / 3 + x"),
                    over(col("x").max() / col("x")).alias("max / x"),
                ]),
            );
        }
    }
}

#[test]
fn additions_of_a_zero_scalar_keep_negative_zero_as_polars_does() {
    // Polars' scalar kernels return the other side unchanged when adding
    // or subtracting a zero held at one row, and negate when subtracting
    // from one: -0.0 + 0.0 stays -0.0, 0.0 - 0.0 is -0.0. Row by row (both
    // sides of one row, a group of one row) IEEE rules apply. Equality
    // cannot tell the zeros apart; their reciprocals (-inf, inf) can.
    let frame = |n: usize| {
        let xs: Vec<Option<f64>> = (0..n)
            .map(|i| match i % 4 {
                0 => Some(-0.0),
                1 => Some(0.0),
                2 => None,
                _ => Some(i as f64 * 0.5),
            })
            .collect();
        let ws: Vec<i64> = (0..n as i64)
            .map(|i| if i == 0 { 0 } else { 1 + i % 3 })
            .collect();
        df!("x" => xs, "w" => ws, "o" => vec![1i32; n])
            .unwrap()
            .lazy()
            .with_columns([
                col("x").cast(DataType::Float32).alias("h"),
                (col("x") * lit(0.0)).alias("z"),
            ])
    };
    let reciprocal = |e: Expr, name: &str| (lit(1.0) / e).alias(name);
    for n in [1, 2, 9, 200] {
        assert_gpu_eq(
            &format!("zero scalars, {n} rows"),
            frame(n).select([
                reciprocal(col("x") + lit(0.0), "x + 0"),
                reciprocal(lit(0.0) + col("x"), "0 + x"),
                reciprocal(col("x") - lit(0.0), "x - 0"),
                reciprocal(col("x") - lit(-0.0), "x - -0"),
                reciprocal(lit(0.0) - col("x"), "0 - x"),
                reciprocal(lit(-0.0) - col("x"), "-0 - x"),
                reciprocal((col("h") + lit(0.0f32)).cast(DataType::Float64), "f32 + 0"),
                reciprocal(col("x") + col("z").min(), "x + min of zeros"),
                reciprocal(col("x") + lit(1.5), "x + 1.5"),
            ]),
        );
        for by in ["w", "o"] {
            let over = |e: Expr| e.over([col(by)]).unwrap();
            assert_gpu_eq(
                &format!("zero values per window of {by}, {n} rows"),
                frame(n).select([
                    reciprocal(over(col("x") + col("z").min()), "x + min"),
                    reciprocal(over(col("z").max() - col("x")), "max - x"),
                    reciprocal(over(col("x") - col("z").min()), "x - min"),
                    reciprocal(over(col("z").min() - lit(0.0)), "min - 0"),
                ]),
            );
        }
    }
}

#[test]
fn powers_the_cpu_computes_exactly_run_on_the_device() {
    let frame = df!(
        "x" => [Some(1.5f64), Some(-2.5), None, Some(f64::NAN), Some(f64::INFINITY), Some(-0.0), Some(1e100), Some(0.1)],
        "f" => [Some(1.5f32), Some(-2.5), None, Some(f32::NAN), Some(f32::NEG_INFINITY), Some(0.3), Some(1e30), Some(2.0)],
        "i" => [Some(5i64), Some(-3), None, Some(i64::MAX), Some(i64::MIN), Some(0), Some(1_000_003), Some(-1)],
        "u" => [Some(1u8), Some(200), None, Some(0), Some(255), Some(7), Some(3), Some(16)],
    )
    .unwrap()
    .lazy();
    let mut exprs = vec![
        col("x").sqrt().alias("sqrt"),
        col("f").sqrt().alias("f32 sqrt"),
        col("i").sqrt().alias("i64 sqrt"),
        col("x").pow(0.5).alias("x^0.5"),
        col("f").pow(0.5).alias("f^0.5"),
        col("i").pow(0.5).alias("i^0.5"),
        col("x")
            .pow(lit(NULL).cast(DataType::Float64))
            .alias("x^null"),
    ];
    for e in 0..=10 {
        exprs.push(col("i").pow(e).alias(format!("i^{e}")));
        exprs.push(col("u").pow(e).alias(format!("u^{e}")));
        if e < 10 {
            exprs.push(col("x").pow(e as f64).alias(format!("x^{e}")));
            exprs.push(col("f").pow(e as f64).alias(format!("f^{e}")));
        }
    }
    assert_gpu_eq("exact powers", frame.clone().select(exprs));
    // powf itself stays on the CPU (its last bit is libm's), with the reason.
    for exponent in [lit(2.5), lit(10.0), lit(-1.0)] {
        assert_cpu_answer_with_reason(frame.clone().select([col("x").pow(exponent)]), "powf");
    }
}

#[test]
fn shifts_of_a_frame_match_the_cpu() {
    let frame = || table().with_columns([(col("i") % lit(7i64)).alias("m")]);
    let mut exprs = vec![];
    // (Not i64::MIN: Polars' debug build panics negating it.)
    for periods in [
        0i64,
        1,
        -1,
        3,
        -3,
        7,
        8,
        9,
        -8,
        -100,
        i64::MIN + 1,
        i64::MAX,
    ] {
        exprs.push(col("i").shift(lit(periods)).alias(format!("i {periods}")));
    }
    exprs.extend([
        col("f").shift(lit(2)).alias("f"),
        col("b").shift(lit(-2)).alias("b"),
        col("d").shift(lit(1)).alias("d"),
        col("s").shift(lit(1)).alias("s"),
        col("s").str().to_uppercase().shift(lit(-3)).alias("S"),
        (col("m") * lit(2i64)).shift(lit(2)).alias("expression"),
        (col("m") - col("m").shift(lit(1))).alias("difference"),
    ]);
    assert_gpu_eq("shifts", frame().select(exprs));
    assert_gpu_eq(
        "a shift beside a whole-frame mean",
        frame().with_columns([(col("m").shift(lit(1)) - col("m").mean()).alias("minus the mean")]),
    );
    assert_gpu_eq(
        "a shift in a filter",
        frame().filter(col("m").gt(col("m").shift(lit(1)))),
    );
    // Shifts of aggregated values are Polars' to compute.
    let cases = [
        (
            frame()
                .group_by_stable([col("b")])
                .agg([col("m").sum().shift(lit(1))]),
            "in order over one value",
        ),
        (
            frame().select([col("m").sum().shift(lit(1))]),
            "in order over one value",
        ),
        (
            frame().select([col("m").shift(col("m").max())]),
            "shift by a count that is not a literal",
        ),
    ];
    for (lf, reason) in cases {
        assert_cpu_answer_with_reason(lf, reason);
    }
}

#[test]
fn string_concatenation_matches_the_cpu() {
    let frame = || table().with_columns([col("s").str().to_uppercase().alias("t")]);
    assert_gpu_eq(
        "+ of strings",
        frame().select([
            (col("s") + col("t")).alias("s + t"),
            (lit("<") + col("s") + lit(">")).alias("bracketed"),
            (col("s") + lit(NULL).cast(DataType::String)).alias("plus null"),
            (col("s").str().slice(lit(0), lit(2)) + lit("|") + col("t").shift(lit(1)))
                .alias("computed"),
            (col("s") + lit("")).alias("plus nothing"),
        ]),
    );
    assert_gpu_eq(
        "concat_str",
        frame().select([
            concat_str([col("s"), col("t")], "", false).alias("plain"),
            concat_str([col("s"), lit("-"), col("t")], ", ", false).alias("separated"),
            concat_str([col("s"), col("t"), col("s")], "|", true).alias("ignoring nulls"),
            concat_str([col("s")], "|", true).alias("one, ignoring nulls"),
            concat_str([lit(NULL).cast(DataType::String), col("t")], "/", true)
                .alias("null literal"),
            concat_str(
                [col("s").str().slice(lit(1), lit(NULL)), col("t")],
                "€",
                false,
            )
            .alias("computed"),
        ]),
    );
    assert_gpu_eq(
        "integers and booleans as text",
        frame().select([
            col("i").cast(DataType::String).alias("i64"),
            col("u").cast(DataType::String).alias("u32"),
            col("b").cast(DataType::String).alias("bool"),
            (col("i") % lit(100i64))
                .cast(DataType::Int8)
                .cast(DataType::String)
                .alias("i8"),
            concat_str([col("s"), col("i"), col("b")], "-", true).alias("mixed"),
        ]),
    );
    assert_gpu_eq(
        "coalesce and fill_null of texts",
        frame().select([
            coalesce(&[col("s"), col("t").shift(lit(1))]).alias("two"),
            col("s").fill_null(lit("?")).alias("fill_null"),
            coalesce(&[
                col("s").shift(lit(2)),
                lit(NULL).cast(DataType::String),
                col("t").shift(lit(1)),
                lit("z"),
            ])
            .alias("four"),
        ]),
    );
    assert_gpu_eq(
        "when/then/otherwise of texts",
        frame().select([
            when(col("i").gt(lit(0i64)))
                .then(lit("positive"))
                .otherwise(lit("not positive"))
                .alias("literals"),
            when(col("b"))
                .then(col("s"))
                .otherwise(col("t"))
                .alias("columns"),
            when(col("s").eq(lit("x")))
                .then(lit(NULL).cast(DataType::String))
                .otherwise(col("s").str().to_uppercase())
                .alias("null branch"),
            when(col("f").is_nan())
                .then(lit("nan"))
                .when(col("f").gt(lit(0.0)))
                .then(col("i").cast(DataType::String))
                .otherwise(col("s"))
                .alias("chained"),
        ]),
    );
    assert_gpu_eq(
        "extreme 64-bit integers as text",
        df!(
            "u" => [Some(0u64), Some(u64::MAX), None, Some(10), Some(9)],
            "i" => [Some(i64::MIN), Some(i64::MAX), Some(-1), Some(0), None],
        )
        .unwrap()
        .lazy()
        .select([
            col("u").cast(DataType::String),
            col("i").cast(DataType::String),
        ]),
    );
    assert_gpu_eq(
        "floats in concat_str",
        frame().select([concat_str([col("s"), col("f")], "", false)]),
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
fn strips_heads_and_tails_of_strings_match_the_cpu() {
    let texts = [
        Some("  padded\t"),
        Some("\u{3000}\u{2003}ideographic\u{85}\n"),
        Some("xx--xyx"),
        Some(""),
        None,
        Some("   "),
        Some("€uro€"),
        Some("no change"),
        Some("😀 grin 😀"),
    ];
    let frame = df!("s" => texts).unwrap().lazy();
    let mut exprs = vec![
        col("s").str().strip_chars(lit(NULL)).alias("strip"),
        col("s")
            .str()
            .strip_chars_start(lit(NULL))
            .alias("strip start"),
        col("s").str().strip_chars_end(lit(NULL)).alias("strip end"),
        col("s").str().strip_chars(lit("x-")).alias("strip x-"),
        col("s")
            .str()
            .strip_chars_start(lit("€u"))
            .alias("strip start €u"),
        col("s")
            .str()
            .strip_chars_end(lit("😀 "))
            .alias("strip end emoji"),
        col("s").str().strip_chars(lit("")).alias("strip nothing"),
        col("s")
            .str()
            .to_uppercase()
            .str()
            .strip_chars(lit("X"))
            .alias("upper strip"),
    ];
    for n in [0i64, 1, 3, 20] {
        exprs.push(col("s").str().head(lit(n)).alias(format!("head {n}")));
        exprs.push(col("s").str().tail(lit(n)).alias(format!("tail {n}")));
        exprs.push(col("s").str().tail(lit(-n)).alias(format!("tail -{n}")));
        exprs.push(col("s").str().head(lit(-n)).alias(format!("head -{n}")));
    }
    for affix in ["", "a", "x", "€u", "😀", "x y"] {
        exprs.push(
            col("s")
                .str()
                .strip_prefix(lit(affix))
                .alias(format!("strip prefix {affix:?}")),
        );
        exprs.push(
            col("s")
                .str()
                .strip_suffix(lit(affix))
                .alias(format!("strip suffix {affix:?}")),
        );
    }
    assert_gpu_eq("strip, head and tail", frame.clone().select(exprs));
    assert_cpu_answer_with_reason(
        frame.select([col("s").str().strip_prefix(col("s"))]),
        "str.strip_prefix needs a literal text",
    );
}

#[test]
fn all_and_any_horizontal_are_kleene_as_on_the_cpu() {
    let frame = df!(
        "a" => [Some(true), Some(true), Some(false), None, None, Some(false), Some(true), None, Some(false)],
        "b" => [Some(true), None, None, None, Some(false), Some(false), Some(false), Some(true), Some(true)],
        "c" => [Some(true), Some(true), Some(true), Some(true), None, None, None, None, Some(false)],
    )
    .unwrap()
    .lazy();
    assert_gpu_eq(
        "all_horizontal and any_horizontal",
        frame.clone().select([
            all_horizontal([col("a"), col("b"), col("c")])
                .unwrap()
                .alias("all"),
            any_horizontal([col("a"), col("b"), col("c")])
                .unwrap()
                .alias("any"),
            all_horizontal([col("a")]).unwrap().alias("all of one"),
            any_horizontal([col("a").not(), col("b").is_null()])
                .unwrap()
                .alias("any of two"),
        ]),
    );
    assert_gpu_eq(
        "a filter by any_horizontal",
        frame.filter(any_horizontal([col("a"), col("c")]).unwrap()),
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
fn replacements_match_the_cpu() {
    let texts = [
        Some("aaaa"),
        Some("banana"),
        None,
        Some(""),
        Some("a€a€€b"),
        Some("no match here"),
        Some("ana ana anana"),
        Some("😀😀x😀"),
    ];
    let frame = df!("s" => texts).unwrap().lazy();
    let s = || col("s").str();
    assert_gpu_eq(
        "str.replace and replace_all of literal texts",
        frame.clone().select([
            s().replace(lit("a"), lit("o"), true).alias("first a"),
            s().replace_all(lit("a"), lit("o"), true).alias("every a"),
            s().replace_all(lit("ana"), lit(""), true)
                .alias("every ana, removed"),
            s().replace_n(lit("a"), lit("[$0]"), true, 2).alias("two a"),
            s().replace_n(lit("a"), lit("x"), true, 0).alias("no a"),
            s().replace_all(lit("€"), lit("EUR"), false)
                .alias("a pattern without punctuation"),
            s().replace_all(lit("😀"), lit("."), true).alias("emoji"),
            s().replace(lit("an"), lit(NULL).cast(DataType::String), true)
                .alias("null value"),
            s().to_uppercase()
                .str()
                .replace_all(lit("A"), lit("aa"), true)
                .alias("computed"),
        ]),
    );
    assert_gpu_eq(
        "replacements of regular expressions",
        frame.clone().select([
            s().replace_all(lit("a.a"), lit("x"), false)
                .alias("every a.a"),
            s().replace(lit("[aä]n"), lit("<>"), false)
                .alias("first [aä]n"),
            s().replace_n(lit("a+"), lit("_"), false, 0)
                .alias("n = 0: once"),
            s().replace_all(lit(r"(?i)^A|a$"), lit("|"), false)
                .alias("anchored"),
            s().replace_all(lit(r"\p{Emoji_Presentation}+"), lit(""), false)
                .alias("emoji"),
        ]),
    );
    assert_cpu_answer_with_reason(
        frame
            .clone()
            .select([s().replace_all(lit("(a)n"), lit("$1"), false)]),
        "by a value with `$`",
    );
    assert_gpu_eq(
        "replacements of regular expressions that match empty text",
        frame.clone().select([
            s().replace_all(lit("x?"), lit("-"), false).alias("x?"),
            s().replace_all(lit("a*"), lit("<>"), false).alias("a*"),
            s().replace(lit("n*"), lit("_"), false).alias("first n*"),
            s().replace_all(lit("€*"), lit("."), false).alias("€*"),
        ]),
    );
    assert_cpu_error(
        frame
            .clone()
            .select([s().replace_n(lit("a+"), lit("_"), false, 2)]),
    );
    assert_cpu_error(frame.select([s().replace_all(
        lit("a"),
        lit(NULL).cast(DataType::String),
        true,
    )]));
}

#[test]
fn predicates_and_lengths_of_computed_texts_match_the_cpu() {
    let frame = || table().with_columns([col("s").str().to_uppercase().alias("t")]);
    assert_gpu_eq(
        "a filter on a computed text",
        frame().filter(
            col("s")
                .str()
                .to_uppercase()
                .str()
                .contains_literal(lit("A")),
        ),
    );
    assert_gpu_eq(
        "predicates and lengths of computed texts",
        frame().select([
            col("s")
                .str()
                .strip_chars(lit(NULL))
                .eq(lit("x"))
                .alias("eq"),
            lit("y").neq(col("t").str().to_lowercase()).alias("neq"),
            (col("s") + col("t")).str().len_chars().alias("chars"),
            col("s")
                .str()
                .slice(lit(1), lit(NULL))
                .str()
                .len_bytes()
                .alias("bytes"),
            col("t")
                .str()
                .replace_all(lit("NG"), lit(""), true)
                .str()
                .ends_with(lit("U"))
                .alias("ends"),
            col("s")
                .str()
                .head(lit(1))
                .is_in(
                    lit(Series::new("".into(), ["l", "x", ""])).implode(false),
                    false,
                )
                .alias("is_in"),
            (col("s")
                .str()
                .to_uppercase()
                .str()
                .starts_with(lit("L"))
                .and(col("b")))
            .alias("and"),
            col("s")
                .str()
                .to_uppercase()
                .eq(col("t"))
                .alias("computed == column"),
            col("s")
                .str()
                .to_uppercase()
                .lt(col("s").str().strip_chars(lit(NULL)))
                .alias("computed < computed"),
        ]),
    );
    assert_gpu_eq(
        "a case-insensitive filter",
        frame().filter(
            col("s")
                .str()
                .to_lowercase()
                .eq(col("t").str().to_lowercase()),
        ),
    );
}

#[test]
fn text_comparisons_between_columns_and_with_literals_match_the_cpu() {
    let frame = || {
        df!(
            "a" => [Some("abc"), Some("ab"), None, Some(""), Some("é"), Some("z"), Some("abd"), Some("ab")],
            "b" => [Some("abd"), Some("ab"), Some("x"), None, Some("e"), Some(""), Some("abc"), Some("abc")],
        )
        .unwrap()
        .lazy()
    };
    assert_gpu_eq(
        "text comparisons",
        frame().select([
            col("a").eq(col("b")).alias("a == b"),
            col("a").neq(col("b")).alias("a != b"),
            col("a").lt(col("b")).alias("a < b"),
            col("a").lt_eq(col("b")).alias("a <= b"),
            col("a").gt(col("b")).alias("a > b"),
            col("a").gt_eq(col("b")).alias("a >= b"),
            col("a").lt(lit("ab")).alias("a < 'ab'"),
            lit("ab").lt(col("a")).alias("'ab' < a"),
            col("b").gt_eq(lit("")).alias("b >= ''"),
            col("a")
                .gt(lit(NULL).cast(DataType::String))
                .alias("a > null"),
        ]),
    );
    assert_gpu_eq(
        "a filter comparing texts",
        frame().filter(col("a").lt(col("b")).or(col("b").gt(lit("x")))),
    );
}

#[test]
fn null_aware_equality_matches_the_cpu() {
    // eq_missing and ne_missing: two nulls are equal, a null and a value
    // are not; never null. Texts, integers, floats (NaN), booleans, dates,
    // against columns, literals and a null literal.
    let frame = df!(
        "a" => [Some("x"), None, None, Some(""), Some("y")],
        "b" => [Some("x"), None, Some("x"), None, Some("z")],
        "i" => [Some(1i64), None, Some(3), None, Some(5)],
        "j" => [Some(1i64), None, None, Some(4), Some(6)],
        "f" => [Some(f64::NAN), None, Some(0.0), Some(-0.0), None],
        "p" => [Some(true), None, Some(false), None, Some(true)],
    )
    .unwrap()
    .lazy()
    .with_columns([col("i").cast(DataType::Date).alias("d")]);
    assert_gpu_eq(
        "null-aware equality",
        frame.clone().select([
            col("a").eq_missing(col("b")).alias("a == b"),
            col("a").neq_missing(col("b")).alias("a != b"),
            col("a").eq_missing(lit("x")).alias("a == 'x'"),
            col("i").eq_missing(col("j")).alias("i == j"),
            col("i").neq_missing(col("j")).alias("i != j"),
            col("i")
                .eq_missing(lit(NULL).cast(DataType::Int64))
                .alias("i == null"),
            col("f").eq_missing(lit(f64::NAN)).alias("f == NaN"),
            col("f").neq_missing(lit(0.0)).alias("f != 0"),
            col("p").eq_missing(lit(true)).alias("p == true"),
            col("d")
                .neq_missing(col("j").cast(DataType::Date))
                .alias("d != j"),
        ]),
    );
    assert_gpu_eq(
        "a filter by null-aware equality",
        frame.filter(col("i").eq_missing(col("j"))),
    );
}

#[test]
fn sorts_by_computed_keys_match_the_cpu() {
    let options = |descending: bool| {
        SortMultipleOptions::default()
            .with_order_descending(descending)
            .with_nulls_last(true)
            .with_maintain_order(true)
    };
    assert_gpu_eq(
        "sort by an expression",
        table().sort_by_exprs([col("i") % lit(3i64)], options(false)),
    );
    assert_gpu_eq(
        "sort by a text expression, then a column",
        table().sort_by_exprs(
            [col("s").str().to_uppercase(), col("k")],
            SortMultipleOptions::default()
                .with_order_descending_multi([true, false])
                .with_maintain_order(true),
        ),
    );
    assert_gpu_eq(
        "sort by two expressions",
        table().sort_by_exprs(
            [col("i") % lit(3i64), col("s").str().len_bytes()],
            options(false),
        ),
    );
    assert_gpu_eq(
        "top rows by a computed key",
        table()
            .sort_by_exprs([(col("f") * lit(2.0)).abs(), col("u")], options(true))
            .slice(0, 3),
    );
}

#[test]
fn group_bys_on_computed_keys_match_the_cpu() {
    let aggs = || {
        [
            col("k").max().alias("max"),
            col("u").sum().alias("sum"),
            len(),
        ]
    };
    assert_gpu_eq(
        "group by an integer expression",
        table()
            .group_by_stable([(col("i") % lit(3i64)).alias("m")])
            .agg(aggs()),
    );
    assert_gpu_eq(
        "group by a text expression and a column",
        table()
            .group_by_stable([col("s").str().to_uppercase().alias("S"), col("b")])
            .agg(aggs()),
    );
    assert_gpu_eq(
        "group by a date part, in no particular order (sorted after)",
        table()
            .group_by([col("d").dt().year().alias("year")])
            .agg(aggs())
            .sort(["year"], Default::default()),
    );
}

#[test]
fn forward_and_backward_fills_match_the_cpu() {
    let frame = || {
        df!(
            "x" => [None, Some(1i64), None, None, Some(4), None, None, None, Some(8), None],
            "s" => [Some("a"), None, None, Some("d"), None, None, None, Some(""), None, None],
            "f" => [None, None, Some(f64::NAN), None, Some(-1.5), None, None, None, None, Some(2.0)],
        )
        .unwrap()
        .lazy()
    };
    let fill = |c: &str, strategy| col(c).fill_null_with_strategy(strategy);
    let mut exprs = vec![];
    for (name, strategy) in [
        ("forward", FillNullStrategy::Forward(None)),
        ("backward", FillNullStrategy::Backward(None)),
        ("forward 1", FillNullStrategy::Forward(Some(1))),
        ("backward 2", FillNullStrategy::Backward(Some(2))),
        ("forward 0", FillNullStrategy::Forward(Some(0))),
    ] {
        for c in ["x", "s", "f"] {
            exprs.push(fill(c, strategy).alias(format!("{c} {name}")));
        }
    }
    exprs.push(
        (col("x") * lit(2i64))
            .fill_null_with_strategy(FillNullStrategy::Forward(None))
            .alias("computed"),
    );
    assert_gpu_eq("forward and backward fills", frame().select(exprs));
    assert_gpu_eq(
        "a fill in a filter",
        frame().filter(fill("x", FillNullStrategy::Backward(None)).gt(lit(3i64))),
    );
    // By a value: the strategies of numbers (and `zero`/`one` of booleans).
    let texts = df!("s" => [Some("b"), None, Some("a")]).unwrap().lazy();
    assert_cpu_answer_with_reason(
        texts.select([col("s").fill_null_with_strategy(FillNullStrategy::Min)]),
        "fill_null with the strategy Min of str",
    );
}

#[test]
fn cumulative_sums_of_integers_match_the_cpu() {
    // (Small values: Polars' debug build panics on sums that overflow.)
    let frame = || {
        df!(
            "i" => [Some(5i64), None, Some(-3), Some(7), None, Some(1_000_000_000_000), Some(-2)],
            "j" => [Some(2_000i32), Some(-7), None, Some(-5), Some(1), Some(2), Some(3)],
            "u" => [Some(200u8), Some(100), None, Some(255), Some(1), Some(0), Some(9)],
            "b" => [Some(true), None, Some(true), Some(false), Some(true), None, Some(true)],
            "f" => [Some(0.1f64), Some(0.2), None, Some(0.3), Some(1e16), Some(1.0), Some(-1e16)],
        )
        .unwrap()
        .lazy()
    };
    assert_gpu_eq(
        "cum_sum",
        frame().select([
            col("i").cum_sum(false).alias("i"),
            col("j").cum_sum(false).alias("i32"),
            col("u").cum_sum(false).alias("u8 as i64"),
            col("b").cum_sum(false).alias("bool as u32"),
            (col("i") * lit(2i64)).cum_sum(false).alias("computed"),
            col("i").cum_sum(true).alias("reversed"),
            col("b").cum_sum(true).alias("reversed bool"),
            col("u").cum_sum(true).alias("reversed u8 as i64"),
            col("i")
                .cum_sum(true)
                .over([col("b")])
                .unwrap()
                .alias("reversed by b"),
        ]),
    );
    assert_gpu_eq(
        "cum_count",
        frame().select([
            col("i").cum_count(false).alias("forward"),
            col("i").cum_count(true).alias("reversed"),
            col("f")
                .cum_count(false)
                .over([col("b")])
                .unwrap()
                .alias("forward by b"),
            col("f")
                .cum_count(true)
                .over([col("b")])
                .unwrap()
                .alias("reversed by b"),
        ]),
    );
    assert_gpu_eq(
        "a cum_sum in a filter",
        frame().filter(col("i").cum_sum(false).gt(lit(5i64))),
    );
    for (lf, reason) in [
        (
            frame().select([col("j").cum_sum(true)]),
            "reversed cum_sum as i32",
        ),
        (frame().select([col("f").cum_sum(false)]), "cum_sum of f64"),
    ] {
        assert_cpu_answer_with_reason(lf, reason);
    }
}

#[test]
fn running_maxima_and_minima_match_the_cpu() {
    // Zeros of both signs, NaN before and after numbers, nulls, extremes.
    let frame = |n: usize| {
        let floats = [
            Some(f64::NAN),
            Some(-0.0),
            Some(0.0),
            None,
            Some(f64::NAN),
            Some(-0.0),
            Some(1.5),
            Some(f64::NEG_INFINITY),
            Some(-2.5),
            Some(f64::INFINITY),
        ];
        let ints = [
            Some(3i64),
            None,
            Some(i64::MIN),
            Some(-7),
            Some(3),
            Some(i64::MAX),
        ];
        df!(
            "x" => (0..n).map(|i| floats[(i * 7 + i / 10) % floats.len()]).collect::<Vec<_>>(),
            "i" => (0..n).map(|i| ints[(i * 5 + i / 6) % ints.len()]).collect::<Vec<_>>(),
            "u" => (0..n).map(|i| (i % 9 != 4).then_some((i * 37 % 11) as u64 * (u64::MAX / 10))).collect::<Vec<_>>(),
            "g" => (0..n).map(|i| (i * 13 % 5) as i32).collect::<Vec<_>>(),
            "t" => (0..n).map(|i| (i * 29 % 17) as i64).collect::<Vec<_>>(),
        )
        .unwrap()
        .lazy()
        .with_columns([
            col("x").cast(DataType::Float32).alias("h"),
            col("i").cast(DataType::Int8).alias("s"),
        ])
    };
    // Reciprocals tell the zeros apart.
    let inv = |e: Expr| lit(1.0) / e;
    for n in [1, 7, 100, 5_000] {
        let mut exprs = Vec::new();
        for (name, minimum, reverse) in [
            ("cum_max", false, false),
            ("cum_min", true, false),
            ("reversed cum_max", false, true),
            ("reversed cum_min", true, true),
        ] {
            let run = |e: Expr| {
                if minimum {
                    e.cum_min(reverse)
                } else {
                    e.cum_max(reverse)
                }
            };
            exprs.extend([
                inv(run(col("x"))).alias(format!("1 / {name} of x")),
                run(col("x")).alias(format!("{name} of x")),
                run(col("h")).alias(format!("{name} of f32")),
                run(col("i")).alias(format!("{name} of i64")),
                run(col("s")).alias(format!("{name} of i8")),
                run(col("u")).alias(format!("{name} of u64")),
                run(col("i") * lit(-1i64)).alias(format!("{name} of a computed value")),
                inv(run(col("x")).over([col("g")]).unwrap()).alias(format!("1 / {name} by g")),
                run(col("i"))
                    .over([col("g")])
                    .unwrap()
                    .alias(format!("{name} of i64 by g")),
                run(col("x"))
                    .over_with_options(
                        Some(vec![col("g")]),
                        Some((vec![col("t")], SortOptions::default())),
                        WindowMapping::GroupsToRows,
                    )
                    .unwrap()
                    .alias(format!("{name} by g ordered by t")),
            ]);
        }
        assert_gpu_eq(
            &format!("running extremes, {n} rows"),
            frame(n).select(exprs),
        );
        assert_gpu_eq(
            &format!("running extremes per group, {n} rows"),
            frame(n).group_by_stable([col("g")]).agg([
                col("i").cum_max(false).last().alias("last running max"),
                (col("x").cum_min(false) - col("x"))
                    .max()
                    .alias("largest drop"),
            ]),
        );
    }
    assert_cpu_answer_with_reason(
        frame(5).select([(col("i").gt(lit(0i64))).cum_min(false)]),
        "cum_min of bool",
    );
}

#[test]
fn common_subexpressions_the_device_cannot_hold_are_computed_where_used() {
    // Polars' optimiser moves a filter used twice into a with_columns of
    // its own, at its own length: the device runs the query optimised
    // without common subexpressions instead, whole, with the same result.
    let frame = || {
        df!(
            "x" => [Some(1i64), Some(2), None, Some(4), Some(5), Some(6)],
            "y" => [Some(1.0f64), Some(2.0), Some(3.0), None, Some(5.0), Some(0.5)],
            "s" => ["a", "b", "a", "c", "b", "a"],
        )
        .unwrap()
        .lazy()
    };
    let kept = || col("x").filter(col("y").gt(lit(1.5)));
    let query = || {
        frame().select([
            kept().sum().alias("sum"),
            kept().mean().alias("mean"),
            kept().max().alias("max"),
        ])
    };
    assert!(
        query().explain(true).unwrap().contains("__POLARS_CSE"),
        "the query no longer has common subexpressions"
    );
    assert_gpu_eq("a filter used thrice", query());
    assert_gpu_eq(
        "a filter used twice per group",
        frame()
            .group_by_stable([col("s")])
            .agg([kept().sum().alias("sum"), kept().count().alias("count")]),
    );
    // Without the common subexpressions it still cannot run: the first
    // plan falls back, with its own reasons.
    let unsupported = || {
        frame().select([
            kept().sum().alias("sum"),
            kept().mean().alias("mean"),
            col("y").cum_prod(false).alias("product"),
        ])
    };
    assert_cpu_answer_with_reason(unsupported(), "filter inside an expression");
    let raised = unsupported()
        .collect_with_report(&Engine::Gpu(under_test().with_raise_on_fail(true)))
        .unwrap_err()
        .to_string();
    assert!(raised.contains("filter inside an expression"), "{raised}");
}

#[test]
fn row_indices_number_the_rows_on_the_device() {
    let frame = || {
        df!(
            "x" => [Some(3i64), None, Some(1), Some(4), Some(1), Some(5)],
            "s" => ["a", "b", "c", "d", "e", "f"],
        )
        .unwrap()
        .lazy()
    };
    assert_gpu_eq("with_row_index", frame().with_row_index("index", None));
    assert_gpu_eq(
        "with_row_index from an offset, after a filter, used in an expression",
        frame()
            .filter(col("x").is_not_null())
            .with_row_index("n", Some(10))
            .with_columns([(col("n") * lit(2u32)).alias("twice")]),
    );
    assert_gpu_eq(
        "with_row_index up to the last u32",
        frame().with_row_index("n", Some(u32::MAX - 6)),
    );
    assert_gpu_eq(
        "with_row_index of an empty frame",
        frame()
            .filter(col("x").gt(lit(100i64)))
            .with_row_index("n", Some(u32::MAX)),
    );
    // Numbers past u32: Polars' own error, word for word.
    assert_cpu_error(frame().with_row_index("n", Some(u32::MAX - 2)));
}

#[test]
fn texts_of_the_form_yyyy_mm_dd_parse_as_dates_and_timestamps_on_the_device() {
    let dates = |texts: &[Option<&str>]| {
        df!("s" => texts.to_vec(), "x" => (0..texts.len() as i64).collect::<Vec<_>>())
            .unwrap()
            .lazy()
    };
    let format = |format: &str, strict: bool| StrptimeOptions {
        format: Some(format.into()),
        strict,
        ..Default::default()
    };
    let canonical = [
        Some("2024-02-29"),
        None,
        Some("1970-01-01"),
        Some("0001-01-01"),
        Some("9999-12-31"),
        Some("1969-12-31"),
        Some("2000-03-01"),
    ];
    let to_date = |strict| col("s").str().to_date(format("%Y-%m-%d", strict));
    assert_gpu_eq(
        "dates parsed on the device",
        dates(&canonical).select([
            to_date(true).alias("date"),
            to_date(false).alias("lenient"),
            to_date(true).dt().year().alias("year"),
            (to_date(true) - lit(10_957i32).cast(DataType::Date))
                .dt()
                .total_days(false)
                .alias("days since 2000"),
        ]),
    );
    assert_gpu_eq(
        "a filter by a parsed date",
        dates(&canonical).filter(to_date(true).gt(lit(3_652i32).cast(DataType::Date))),
    );
    // Texts of other forms, or that are no dates: Polars' parser decides.
    assert_cpu_answer_with_reason(
        dates(&[Some("2021-1-5"), Some("2021-01-05")]).select([to_date(true)]),
        "not of the form YYYY-MM-DD",
    );
    assert_cpu_answer_with_reason(
        dates(&[Some("2021-02-30"), Some("x"), Some("2021-01-05")]).select([to_date(false)]),
        "not of the form YYYY-MM-DD",
    );
    assert_cpu_error(dates(&[Some("2021-02-30"), Some("2021-01-05")]).select([to_date(true)]));
    // Other formats of fixed-width fields and literal text run too; a text
    // of another width leaves the column to Polars, and so does a format
    // with other specifiers.
    let to_date_as = |f: &str, strict| col("s").str().to_date(format(f, strict));
    assert_gpu_eq(
        "dates in other formats",
        dates(&[
            Some("29/02/2024"),
            None,
            Some("01/01/1970"),
            Some("31/12/1969"),
        ])
        .select([
            to_date_as("%d/%m/%Y", true).alias("d/m/Y"),
            to_date_as("%d/%m/%Y", false).alias("lenient"),
        ]),
    );
    assert_gpu_eq(
        "dates without separators",
        dates(&[Some("20240229"), Some("19691231")]).select([to_date_as("%Y%m%d", true)]),
    );
    assert_cpu_answer_with_reason(
        dates(&[Some("5/1/2021"), Some("05/01/2021")]).select([to_date_as("%d/%m/%Y", false)]),
        "not of the form DD/MM/YYYY",
    );
    assert_cpu_answer_with_reason(
        dates(&[Some("05 Jan 2021")]).select([to_date_as("%d %b %Y", true)]),
        "strptime",
    );
    // Without a format Polars infers one from the first text: `%Y-%m-%d`
    // for texts of that form, which the device parses; any other text
    // leaves the column to Polars' inference.
    let inferred = || col("s").str().to_date(StrptimeOptions::default());
    assert_gpu_eq(
        "dates of an inferred format",
        dates(&canonical).select([inferred()]),
    );
    assert_gpu_eq(
        "no dates to infer a format from",
        dates(&[None, None]).select([inferred()]),
    );
    for texts in [
        &[Some("2021-01-05"), Some("2021/01/06")][..],
        &[Some("05.01.2021"), Some("06.01.2021")],
    ] {
        assert_cpu_answer_with_reason(
            dates(texts).select([inferred()]),
            "not of the form YYYY-MM-DD",
        );
    }
    // Timestamps of the form YYYY-MM-DD HH:MM:SS, in each unit.
    let to_datetime = |unit: Option<TimeUnit>, strict| {
        col("s").str().to_datetime(
            unit,
            None,
            format("%Y-%m-%d %H:%M:%S", strict),
            lit("raise"),
        )
    };
    let stamps = [
        Some("2024-02-29 23:59:59"),
        None,
        Some("1970-01-01 00:00:00"),
        Some("1969-12-31 23:59:59"),
        Some("2262-04-11 23:47:16"),
        Some("0001-01-01 00:00:01"),
    ];
    assert_gpu_eq(
        "timestamps parsed on the device",
        dates(&stamps).select([
            to_datetime(None, true).alias("us"),
            to_datetime(Some(TimeUnit::Milliseconds), true).alias("ms"),
            to_datetime(Some(TimeUnit::Milliseconds), false).alias("lenient ms"),
            to_datetime(None, true).dt().hour().alias("hour"),
        ]),
    );
    let to_datetime_as = |f: &str| {
        col("s")
            .str()
            .to_datetime(None, None, format(f, true), lit("raise"))
    };
    assert_gpu_eq(
        "timestamps in other formats",
        dates(&[
            Some("2024-02-29T23:59:59"),
            None,
            Some("1969-12-31T00:00:01"),
        ])
        .select([
            to_datetime_as("%FT%T").alias("F T"),
            col("s")
                .str()
                .slice(lit(0), lit(16))
                .str()
                .to_datetime(None, None, format("%Y-%m-%dT%H:%M", true), lit("raise"))
                .alias("no seconds"),
        ]),
    );
    let inferred_stamps = |unit| {
        col("s")
            .str()
            .to_datetime(unit, None, StrptimeOptions::default(), lit("raise"))
    };
    assert_gpu_eq(
        "timestamps of an inferred format",
        dates(&stamps).select([
            inferred_stamps(None).alias("us"),
            inferred_stamps(Some(TimeUnit::Milliseconds)).alias("ms"),
        ]),
    );
    for texts in [
        &[Some("2021-01-05 01:02:03"), Some("2021-01-05T01:02:03")][..],
        &[Some("2021-01-05 01:02:03.5")],
        &[Some("05/01/2021 01:02:03")],
    ] {
        assert_cpu_answer_with_reason(
            dates(texts).select([inferred_stamps(None)]),
            "not of the form YYYY-MM-DD HH:MM:SS",
        );
    }
    assert_gpu_eq(
        "nanosecond timestamps parsed on the device",
        dates(&stamps[..4]).select([to_datetime(Some(TimeUnit::Nanoseconds), true)]),
    );
    for texts in [
        &[Some("2021-01-05 1:02:03")][..],
        &[Some("2021-01-05T01:02:03")],
        &[Some("2021-01-05 24:00:00")],
    ] {
        assert_cpu_answer_with_reason(
            dates(texts).select([to_datetime(None, false)]),
            "not of the form YYYY-MM-DD HH:MM:SS",
        );
    }
    // (Past i64 nanoseconds the device leaves the texts to Polars too, as
    // the kernel tests check; Polars' debug build panics on them.)
}

#[test]
fn arg_min_and_arg_max_match_the_cpu() {
    let frame = || {
        let mut df = df!(
            "g" => ["a", "b", "a", "c", "b", "a", "c", "a"],
            "x" => [Some(3i64), None, Some(7), Some(-1), Some(8), Some(-2), None, Some(5)],
            "f" => [Some(f64::NAN), Some(1.5), None, Some(f64::NAN), Some(-0.0), Some(2.5), None, Some(-3.0)],
            "b" => [Some(true), Some(false), None, Some(false), Some(true), Some(false), Some(true), None],
            "u" => [1u8, 2, 3, 4, 5, 6, 7, 0],
            "n" => [Some(1i32), Some(2), Some(3), None, Some(4), Some(0), None, Some(-5)],
            "d" => [Some(19_000i32), None, Some(-1), Some(0), Some(365), Some(-400), Some(7), Some(1)],
        )
        .unwrap();
        let date = df.column("d").unwrap().cast(&DataType::Date).unwrap();
        df.with_column(date).unwrap();
        df.lazy()
    };
    let both = |column: &str| {
        [
            col(column).arg_min().alias(format!("{column} min")),
            col(column).arg_max().alias(format!("{column} max")),
        ]
    };
    let all = || {
        ["x", "f", "b", "u", "n", "d"]
            .into_iter()
            .flat_map(both)
            .collect::<Vec<_>>()
    };
    assert_gpu_eq("arg_min and arg_max over the frame", frame().select(all()));
    assert_gpu_eq(
        "arg_min and arg_max of no rows",
        frame().filter(col("u").gt(lit(200u8))).select(all()),
    );
    assert_gpu_eq(
        "arg_min and arg_max per group (NaN only where all valid values are NaN; null where none is valid)",
        frame().group_by_stable([col("g")]).agg(all()),
    );
    assert_gpu_eq(
        "arg_max in windows and expressions",
        frame().with_columns([
            col("x")
                .arg_max()
                .over([col("g")])
                .unwrap()
                .alias("in window"),
            (col("x").arg_min() + lit(10u32)).alias("in an expression"),
        ]),
    );
    // A best value held twice: Polars' answer depends on whether it knows
    // the values sorted (the first of them, else the last for a maximum of
    // ascending values): the device cannot tell, so the collect falls back.
    let ties = "more than once in a group";
    assert_cpu_answer_with_reason(
        frame().select([col("u").cast(DataType::Int64).clip_max(lit(4i64)).arg_max()]),
        ties,
    );
    let sorted = df!("t" => [3i64, 1, 3, 2])
        .unwrap()
        .lazy()
        .sort(["t"], Default::default());
    assert_eq!(
        sorted
            .clone()
            .select([col("t").arg_max()])
            .collect()
            .unwrap(),
        df!("t" => [3u32]).unwrap(),
        "Polars takes the last maximum of values it knows sorted"
    );
    assert_cpu_answer_with_reason(sorted.select([col("t").arg_max()]), ties);
    assert_cpu_answer_with_reason(
        frame()
            .group_by_stable([col("g")])
            .agg([col("f").fill_nan(lit(2.5)).arg_max()]),
        ties,
    );
}

#[test]
fn reverse_matches_the_cpu() {
    let frame = || {
        df!(
            "g" => [Some("a"), Some("b"), None, Some("a"), Some("c"), Some("b"), None, Some("a")],
            "x" => [Some(5i64), None, Some(-3), Some(7), Some(1), None, Some(9), Some(2)],
            "f" => [Some(1.5f64), None, Some(-0.0), Some(f64::NAN), Some(0.5), Some(3.0), None, Some(-1.0)],
            "b" => [Some(true), Some(false), None, Some(true), Some(true), Some(false), Some(true), None],
            "s" => [Some("p"), None, Some("q"), None, Some("r"), Some(""), None, Some("t")],
            "t" => [3i32, 1, 4, 1, 5, 9, 2, 6],
        )
        .unwrap()
        .lazy()
    };
    let reversed = |column: &str| col(column).reverse().alias(format!("{column} reversed"));
    assert_gpu_eq(
        "reverse over the frame",
        frame().with_columns([
            reversed("x"),
            reversed("f"),
            reversed("b"),
            reversed("s"),
            (col("x") - col("x").reverse()).alias("x less its mirror"),
            col("x")
                .reverse()
                .cum_sum(false)
                .alias("running sum from the end"),
        ]),
    );
    assert_gpu_eq(
        "reverse of no rows",
        frame()
            .filter(col("t").gt(lit(100)))
            .select([reversed("x"), reversed("s")]),
    );
    assert_gpu_eq(
        "reverse within windows (ordered too)",
        frame().with_columns([
            col("x").reverse().over([col("g")]).unwrap().alias("x by g"),
            col("s").reverse().over([col("g")]).unwrap().alias("s by g"),
            col("x")
                .reverse()
                .over_with_options(
                    Some([col("g")]),
                    Some(([col("t")], SortOptions::default())),
                    Default::default(),
                )
                .unwrap()
                .alias("x by g in the order of t"),
        ]),
    );
    assert_gpu_eq(
        "reverse inside aggregations",
        frame().group_by_stable([col("g")]).agg([
            col("x").reverse().first().alias("first of the reversed"),
            (col("x").reverse() * col("t"))
                .sum()
                .alias("dot with the mirror"),
        ]),
    );
}

#[test]
fn aggregations_of_drop_nulls_and_drop_nans_match_the_cpu() {
    let frame = || {
        df!(
            "g" => ["a", "b", "a", "c", "b", "a", "c", "a"],
            "x" => [None, Some(4i64), Some(7), None, Some(8), Some(-2), None, Some(5)],
            "f" => [Some(f64::NAN), Some(1.5), None, Some(f64::NAN), Some(f64::NAN), Some(2.5), None, None],
        )
        .unwrap()
        .lazy()
    };
    let aggregations = || {
        [
            col("x").drop_nulls().sum().alias("x sum"),
            col("x").drop_nulls().len().alias("x len"),
            col("x").drop_nulls().first().alias("x first"),
            col("x").drop_nulls().last().alias("x last"),
            col("x").drop_nans().len().alias("x len without NaN"),
            col("f").drop_nans().len().alias("f len"),
            col("f").drop_nans().count().alias("f count"),
            col("f").drop_nans().first().alias("f first"),
            col("f").drop_nans().max().alias("f max"),
            col("f").drop_nans().mean().alias("f mean"),
            col("f").drop_nulls().last().alias("f last not null"),
        ]
    };
    assert_gpu_eq(
        "aggregations of drop_nulls and drop_nans per group",
        frame().group_by_stable([col("g")]).agg(aggregations()),
    );
    assert_gpu_eq(
        "aggregations of drop_nulls and drop_nans over the frame",
        frame().select(aggregations()),
    );
    assert_gpu_eq(
        "drop_nulls in a select",
        frame().select([col("x").drop_nulls()]),
    );
}

#[test]
fn str_join_matches_the_cpu() {
    let frame = || {
        df!(
            "g" => ["a", "b", "a", "c", "b", "a", "c", "a", "d"],
            "s" => [Some("p"), None, Some("qé"), None, Some(""), Some("r"), None, Some("st"), Some("u")],
        )
        .unwrap()
        .lazy()
    };
    let joins = || {
        [
            col("s").str().join("-", true).alias("dash"),
            col("s").str().join("", true).alias("none between"),
            col("s").str().join(" · ", true).alias("middle dot"),
            col("s").str().join(",", false).alias("nulls propagate"),
            col("s")
                .str()
                .to_uppercase()
                .str()
                .join("+", true)
                .alias("upper"),
        ]
    };
    assert_gpu_eq(
        "str.join per group (a group of nulls only joins to the empty text)",
        frame().group_by_stable([col("g")]).agg(joins()),
    );
    assert_gpu_eq("str.join over the frame", frame().select(joins()));
    assert_gpu_eq(
        "str.join of no rows",
        frame().filter(col("g").eq(lit("z"))).select(joins()),
    );
    assert_gpu_eq(
        "str.join in a window",
        frame().with_columns([col("s")
            .str()
            .join("/", true)
            .over([col("g")])
            .unwrap()
            .alias("joined by g")]),
    );
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
fn whole_frame_float_sums_and_means_follow_polars_order_bit_for_bit() {
    // Values whose sums round at every step: any other order of additions
    // differs in the last bits (sizes about blocks of 128 and their tree).
    // (Unfiltered: Polars sums each chunk of a column, and a filter splits
    // its frame into chunks by its number of threads.)
    let mut next = xorshift(7);
    for n in [5usize, 127, 128, 129, 1000, 12_345, 40_000] {
        for nulls in [false, true] {
            let mut value = || {
                let x = next();
                let f = (x % 1_000_003) as f64 / 7.3 - 50_000.0;
                let i = (x >> 3) as i64 - (1 << 59);
                (!(nulls && x.is_multiple_of(7))).then_some((f, i))
            };
            let (f, i): (Vec<_>, Vec<_>) = (0..n).map(|_| value().unzip()).unzip();
            let lf = df!("f" => f, "i" => i).unwrap().lazy();
            assert_gpu_eq(
                &format!("sums and means of {n} rows, nulls {nulls}"),
                lf.clone().select([
                    col("f").sum().alias("f sum"),
                    col("f").mean().alias("f mean"),
                    col("i").mean().alias("i mean"),
                    (col("f").sum() / col("f").mean()).alias("ratio"),
                ]),
            );
            assert_gpu_eq(
                &format!("whole-frame sums in row-wise expressions of {n} rows, nulls {nulls}"),
                lf.clone()
                    .with_columns([(col("f") - col("f").mean()).alias("centred")]),
            );
            // Of a filter inside the aggregation: Polars sums the values kept.
            let kept = || col("f").gt(lit(-20_000.0));
            assert_gpu_eq(
                &format!("sums and means of filtered values of {n} rows, nulls {nulls}"),
                lf.select([
                    col("f").filter(kept()).sum().alias("f sum"),
                    col("f").filter(kept()).mean().alias("f mean"),
                    col("i").filter(kept()).mean().alias("i mean"),
                ]),
            );
        }
    }
}

#[test]
fn aggregations_of_slices_match_the_cpu() {
    let frame = || {
        df!(
            "g" => ["a", "b", "a", "c", "b", "a", "c", "a", "a"],
            "x" => [Some(5i64), None, Some(7), Some(-1), Some(8), None, Some(2), Some(3), Some(4)],
            "s" => [Some("p"), Some("q"), None, Some("r"), Some(""), Some("t"), None, Some("u"), Some("v")],
        )
        .unwrap()
        .lazy()
    };
    let aggregations = || {
        [
            col("x").head(Some(2)).sum().alias("head 2 sum"),
            col("x").tail(Some(2)).mean().alias("tail 2 mean"),
            col("x")
                .slice(lit(1), lit(2))
                .first()
                .alias("slice 1, 2 first"),
            col("x")
                .slice(lit(-3), lit(2))
                .last()
                .alias("slice -3, 2 last"),
            col("x")
                .slice(lit(-10), lit(11))
                .len()
                .alias("slice -10, 11 len"),
            col("x").head(Some(0)).len().alias("head 0 len"),
            col("x").tail(Some(100)).count().alias("tail 100 count"),
            col("s").head(Some(3)).last().alias("third text"),
            col("x")
                .slice(lit(2), lit(NULL))
                .max()
                .alias("from the third on, max"),
        ]
    };
    assert_gpu_eq(
        "aggregations of slices per group",
        frame().group_by_stable([col("g")]).agg(aggregations()),
    );
    assert_gpu_eq(
        "aggregations of slices over the frame",
        frame().select(aggregations()),
    );
    assert_gpu_eq(
        "an aggregation of a slice in a window",
        frame().with_columns([col("x")
            .head(Some(2))
            .sum()
            .over([col("g")])
            .unwrap()
            .alias("w")]),
    );
}

#[test]
fn join_validation_matches_the_cpu() {
    let left = || {
        df!("k" => [Some(1i64), Some(2), Some(2), Some(3)], "a" => ["w", "x", "y", "z"])
            .unwrap()
            .lazy()
    };
    let right = |keys: &[Option<i64>]| {
        let b: Vec<i64> = (0..keys.len() as i64).collect();
        df!("k" => keys, "b" => b).unwrap().lazy()
    };
    // (A full join's rows come in an order Polars leaves open.)
    let join = |l: LazyFrame, r: LazyFrame, how: JoinType, validation| {
        let maintain_order = match how {
            JoinType::Full => MaintainOrderJoin::None,
            _ => MaintainOrderJoin::Left,
        };
        let joined = l.join(
            r,
            [col("k")],
            [col("k")],
            JoinArgs {
                validation,
                maintain_order,
                ..JoinArgs::new(how.clone())
            },
        );
        match how {
            JoinType::Full => sorted_rows(joined),
            _ => joined,
        }
    };
    let unique = [Some(2i64), Some(3), Some(9)];
    for how in [JoinType::Inner, JoinType::Left, JoinType::Full] {
        // Valid: the side that must be unique is.
        assert_gpu_eq(
            &format!("{how} m:1"),
            join(
                left(),
                right(&unique),
                how.clone(),
                JoinValidation::ManyToOne,
            ),
        );
        assert_gpu_eq(
            &format!("{how} 1:m"),
            join(
                right(&unique),
                left(),
                how.clone(),
                JoinValidation::OneToMany,
            ),
        );
        assert_gpu_eq(
            &format!("{how} 1:1"),
            join(
                right(&unique),
                right(&[Some(3), Some(4)]),
                how.clone(),
                JoinValidation::OneToOne,
            ),
        );
        // Invalid: Polars raises its own error.
        assert_cpu_error(join(left(), left(), how.clone(), JoinValidation::ManyToOne));
        assert_cpu_error(join(
            left(),
            right(&unique),
            how.clone(),
            JoinValidation::OneToOne,
        ));
    }
    // A null key on a side that must be unique: Polars' engine decides.
    assert_cpu_answer_with_reason(
        join(
            left(),
            right(&[Some(2), None, None]),
            JoinType::Left,
            JoinValidation::ManyToOne,
        ),
        "join keys did not fulfill m:1 validation",
    );
    // Polars validates no other join.
    assert_cpu_error(join(
        left(),
        right(&unique),
        JoinType::Semi,
        JoinValidation::ManyToOne,
    ));
}

#[test]
fn joins_keep_the_order_asked_for_or_fall_back() {
    let left = || {
        df!("k" => [3i64, 1, 2, 1], "a" => [0i64, 1, 2, 3])
            .unwrap()
            .lazy()
    };
    let right = || {
        df!("k" => [1i64, 9, 3, 1], "b" => [0i64, 1, 2, 3])
            .unwrap()
            .lazy()
    };
    let join = |how: JoinType, maintain_order| {
        left().join(
            right(),
            [col("k")],
            [col("k")],
            JoinArgs {
                maintain_order,
                ..JoinArgs::new(how)
            },
        )
    };
    use MaintainOrderJoin::{Left, LeftRight, Right, RightLeft};
    for (how, order) in [
        (JoinType::Inner, Left),
        (JoinType::Inner, LeftRight),
        (JoinType::Left, Left),
        (JoinType::Left, LeftRight),
        (JoinType::Right, Right),
        (JoinType::Right, RightLeft),
    ] {
        assert_gpu_eq(&format!("{how} join keeping {order:?}"), join(how, order));
    }
    // Orders the device does not produce fall back, with the CPU's rows.
    for (how, order) in [
        (JoinType::Inner, Right),
        (JoinType::Inner, RightLeft),
        (JoinType::Left, Right),
        (JoinType::Right, Left),
        (JoinType::Full, Left),
        (JoinType::Full, Right),
    ] {
        let reason = format!("join keeping the order {order:?}");
        assert_cpu_answer_with_reason(join(how, order), &reason);
    }
}

#[test]
fn fill_null_by_min_max_mean_zero_and_one_matches_the_cpu() {
    let frame = || {
        let mut df = df!(
            "g" => ["a", "b", "a", "c", "b", "a", "c"],
            "x" => [Some(4i64), None, Some(7), None, Some(-3), None, None],
            "u" => [Some(5u32), None, Some(6), Some(1), None, Some(2), Some(9)],
            "f" => [Some(f64::NAN), None, Some(2.5), Some(-1.0), None, Some(0.25), Some(7.0)],
            "b" => [Some(true), None, Some(false), None, Some(true), None, Some(false)],
            "n" => [None::<i32>, None, None, None, None, None, None],
            "d" => [Some(19_000i32), None, Some(-5), Some(3), None, Some(0), None],
        )
        .unwrap();
        let date = df.column("d").unwrap().cast(&DataType::Date).unwrap();
        df.with_column(date).unwrap();
        df.lazy()
    };
    use FillNullStrategy::{Max, Mean, Min, One, Zero};
    let fills = |strategies: &[FillNullStrategy], columns: &[&str]| {
        let mut exprs = vec![];
        for column in columns {
            for strategy in strategies {
                exprs.push(
                    col(*column)
                        .fill_null_with_strategy(*strategy)
                        .alias(format!("{column} {strategy:?}")),
                );
            }
        }
        exprs
    };
    let numbers = fills(&[Min, Max, Mean, Zero, One], &["x", "u", "f", "n"]);
    let others = [fills(&[Zero, One], &["b"]), fills(&[Min, Max], &["d"])].concat();
    assert_gpu_eq(
        "fill_null by a value of the column",
        frame().select([numbers.clone(), others.clone()].concat()),
    );
    let by_group: Vec<Expr> = [numbers, others]
        .concat()
        .into_iter()
        .map(|e| e.over([col("g")]).unwrap())
        .collect();
    assert_gpu_eq(
        "fill_null by a value of the group",
        frame().select(by_group),
    );
}

#[test]
fn any_all_has_nulls_and_is_empty_match_the_cpu() {
    let frame = || {
        df!(
            "g" => ["a", "a", "b", "b", "c", "c", "d", "e", "e"],
            "b" => [Some(true), None, Some(false), None, Some(true), Some(false), None, Some(false), Some(false)],
            "x" => [Some(1i64), None, Some(2), Some(3), None, None, Some(4), Some(5), None],
        )
        .unwrap()
        .lazy()
    };
    let aggregations = || {
        vec![
            col("b").any(true).alias("any"),
            col("b").any(false).alias("any, Kleene"),
            col("b").all(true).alias("all"),
            col("b").all(false).alias("all, Kleene"),
            col("x").is_null().any(true).alias("has nulls"),
            col("x").has_nulls().alias("has_nulls"),
            col("x").is_empty(false).alias("is_empty"),
            col("x").is_empty(true).alias("is_empty, nulls aside"),
        ]
    };
    assert_gpu_eq(
        "any, all and has_nulls per group (true, false, null and mixed groups)",
        frame().group_by_stable([col("g")]).agg(aggregations()),
    );
    assert_gpu_eq(
        "any, all and has_nulls of a frame",
        frame().select(aggregations()),
    );
    assert_gpu_eq(
        "any, all and has_nulls of no rows",
        frame().filter(col("g").eq(lit("z"))).select(aggregations()),
    );
    assert_gpu_eq(
        "any in a window",
        frame().with_columns([col("b").any(false).over([col("g")]).unwrap().alias("w")]),
    );
}

#[test]
fn common_aggregations_of_no_rows_keep_their_values() {
    // Polars computes an aggregation used twice once, in a with_columns of
    // its own: over no rows it still has a value (0, false), not null.
    let none = || {
        df!("x" => [Some(1i64), None, Some(3)])
            .unwrap()
            .lazy()
            .filter(col("x").gt(lit(10i64)))
    };
    assert_gpu_eq(
        "aggregations used twice, of no rows",
        none().select([
            col("x").sum().alias("a"),
            col("x").sum().alias("b"),
            col("x").has_nulls().alias("c"),
            col("x").has_nulls().alias("d"),
        ]),
    );
    assert_gpu_eq(
        "expressions of an aggregation used twice, of no rows",
        none().select([
            (col("x").count() + lit(1u32)).alias("a"),
            (col("x").count() * lit(2u32)).alias("b"),
        ]),
    );
}

#[test]
fn item_matches_the_cpu_or_leaves_polars_its_error() {
    let frame = || {
        df!(
            "g" => ["a", "b", "c", "a"],
            "k" => [1i64, 2, 3, 4],
            "s" => [Some("p"), None, Some("q"), Some("r")],
        )
        .unwrap()
        .lazy()
    };
    assert_gpu_eq(
        "item per group of one row",
        frame().group_by_stable([col("k")]).agg([
            col("s").item(false).alias("s"),
            col("g").item(true).alias("g"),
        ]),
    );
    assert_gpu_eq(
        "item of one row",
        frame()
            .filter(col("k").eq(lit(3i64)))
            .select([col("s").item(false), col("k").item(false)]),
    );
    assert_gpu_eq(
        "item of no rows, allowed: null",
        frame()
            .filter(col("k").gt(lit(9i64)))
            .select([col("s").item(true), col("k").item(true)]),
    );
    // Polars raises where a group has another number of rows.
    assert_cpu_error(
        frame()
            .group_by_stable([col("g")])
            .agg([col("k").item(false)]),
    );
    assert_cpu_error(frame().select([col("k").item(true)]));
    assert_cpu_error(
        frame()
            .filter(col("k").gt(lit(9i64)))
            .select([col("k").item(false)]),
    );
}

#[test]
fn sorts_inside_expressions_match_the_cpu() {
    let mut next = xorshift(0x5047_1e55);
    let n = 300;
    let mut draw = |k: u64| next() % k;
    let i: Vec<Option<i64>> = (0..n)
        .map(|_| (draw(9) != 0).then(|| draw(20) as i64 - 10))
        .collect();
    let f: Vec<Option<f64>> = (0..n)
        .map(|_| match draw(12) {
            0 => None,
            1 => Some(f64::NAN),
            2 => Some(f64::INFINITY),
            k => Some(k as f64 * 0.5 - 3.0),
        })
        .collect();
    let s: Vec<Option<String>> = (0..n)
        .map(|_| (draw(7) != 0).then(|| ["b", "a", "ab", "", "é", "ba"][draw(6) as usize].into()))
        .collect();
    let g: Vec<i32> = (0..n).map(|_| draw(5) as i32).collect();
    let frame = || {
        df!("i" => &i, "f" => &f, "s" => &s, "g" => &g)
            .unwrap()
            .lazy()
    };
    let descending = SortOptions::default()
        .with_order_descending(true)
        .with_nulls_last(true);
    let by_desc = SortMultipleOptions::default()
        .with_order_descending(true)
        .with_nulls_last(true);
    assert_gpu_eq(
        "sorts over the frame",
        frame().select([
            col("i").sort(Default::default()).alias("i"),
            col("i").sort(descending).alias("i desc"),
            col("f").sort(Default::default()).alias("f"),
            col("f").sort(descending).alias("f desc"),
            col("s").sort(Default::default()).alias("s"),
            col("s").sort(descending).alias("s desc"),
            col("i")
                .sort_by([col("s")], Default::default())
                .alias("i by s"),
            col("s")
                .sort_by([col("f")], by_desc.clone())
                .alias("s by f"),
            col("i").arg_sort(false, false).alias("arg"),
            col("f").arg_sort(true, true).alias("arg desc"),
            (col("i").sort(Default::default()) - col("i")).alias("computed"),
            col("i")
                .sort_by(
                    [col("g"), col("f")],
                    SortMultipleOptions::default().with_maintain_order(true),
                )
                .alias("two keys"),
        ]),
    );
    assert_gpu_eq(
        "sorts within windows",
        frame().with_columns([
            col("i")
                .sort(Default::default())
                .over([col("g")])
                .unwrap()
                .alias("i"),
            col("f")
                .arg_sort(true, false)
                .over([col("g")])
                .unwrap()
                .alias("arg"),
            col("s")
                .sort(descending)
                .over([col("g")])
                .unwrap()
                .alias("s"),
            col("i")
                .sort_by([col("f")], Default::default())
                .over([col("g")])
                .unwrap()
                .alias("by f"),
        ]),
    );
    assert_gpu_eq(
        "sorts inside aggregations",
        frame().group_by_stable([col("g")]).agg([
            col("i").sort(Default::default()).first().alias("first"),
            col("i").sort(descending).last().alias("last"),
            (col("i").sort(descending) - col("i"))
                .abs()
                .max()
                .alias("computed"),
            col("s")
                .sort_by([col("i")], Default::default())
                .last()
                .alias("s"),
        ]),
    );
    // Polars sorts by several keys stably only when asked to keep the
    // order: rows equal on every key are in its own order, so data with
    // them goes to Polars; without them, the device sorts.
    assert_cpu_answer_with_reason(
        frame().select([col("i").sort_by([col("g"), col("f")], Default::default())]),
        "rows equal on every key of",
    );
    let distinct = || {
        frame().with_row_index("r", None).with_columns([
            (col("r") % lit(97u32)).alias("r97"),
            (col("r") / lit(97u32)).alias("q"),
        ])
    };
    assert_gpu_eq(
        "a sort_by by two keys without maintain_order, no rows equal on both",
        distinct().select([
            col("s").sort_by([col("r97"), col("q")], Default::default()),
            col("i")
                .sort_by([col("r97"), col("q")], by_desc.clone())
                .alias("descending"),
        ]),
    );
    assert_gpu_eq(
        "first and last by two keys without maintain_order, per group",
        distinct().group_by_stable([col("g")]).agg([
            col("i")
                .sort_by([col("r97"), col("q")], Default::default())
                .first(),
            col("s")
                .sort_by([col("q"), col("r97")], by_desc.clone())
                .last(),
        ]),
    );
}

#[test]
fn counts_offsets_and_extracts_of_matches_match_the_cpu() {
    let texts = [
        Some("banana"),
        Some(""),
        None,
        Some("aaaa"),
        Some("naïve ananas"),
        Some("ünïcödé a"),
        Some("no match"),
        Some("ana"),
    ];
    let frame = || df!("s" => texts).unwrap().lazy();
    let s = || col("s").str();
    assert_gpu_eq(
        "count_matches and find of literal texts",
        frame().select([
            s().count_matches(lit("an"), true).alias("an"),
            s().count_matches(lit("aa"), true).alias("aa"),
            s().count_matches(lit(""), true).alias("empty"),
            s().count_matches(lit("ï"), false)
                .alias("regex without punctuation"),
            s().find_literal(lit("an")).alias("find an"),
            s().find_literal(lit("a")).alias("find a"),
            s().find_literal(lit("")).alias("find empty"),
            s().find(lit("na"), true).alias("find regex"),
            s().head(lit(3))
                .str()
                .find_literal(lit("a"))
                .alias("of texts made"),
        ]),
    );
    assert_gpu_eq(
        "count_matches and find of regular expressions",
        frame().select([
            s().count_matches(lit("a+"), false).alias("a+"),
            s().count_matches(lit("(an)+"), false).alias("(an)+"),
            s().count_matches(lit(r"\w(?-u:\b)"), false)
                .alias("last letters"),
            s().find(lit("n[aä]"), true).alias("find n[aä]"),
            s().find(lit(r"(?-u:\b)a"), true).alias("find a word's a"),
        ]),
    );
    assert_gpu_eq(
        "count_matches and find of regular expressions that match empty text",
        frame().select([
            s().count_matches(lit("a*"), false).alias("a*"),
            s().count_matches(lit("n?"), false).alias("n?"),
            s().count_matches(lit("(?m)$"), false).alias("ends"),
            s().find(lit("x*"), true).alias("find x*"),
            s().find(lit("[aï]*$"), true).alias("find [aï]*$"),
        ]),
    );
    assert_gpu_eq(
        "extract of whole matches",
        frame().select([
            s().extract(lit(r"n[aä]+"), 0).alias("group 0"),
            s().extract(lit(r"^(\w+)"), 1).alias("first word"),
            s().extract(lit(r"(?<last>\w+)$"), 1).alias("last word"),
            s().extract(lit("an"), 0).alias("a literal"),
            s().extract(lit(""), 0).alias("empty"),
            s().to_uppercase()
                .str()
                .extract(lit("[AÏ]N"), 0)
                .alias("of texts made"),
        ]),
    );
    assert_cpu_answer_with_reason(
        frame().select([s().extract(lit(r"n(a)"), 1)]),
        "only a group that spans the whole match",
    );
}

#[test]
fn membership_in_another_column_matches_the_cpu() {
    let mut next = xorshift(0x0015_1dc0);
    let n = 200;
    let mut draw = |k: u64| next() % k;
    let a: Vec<Option<i64>> = (0..n)
        .map(|_| (draw(8) != 0).then(|| draw(30) as i64))
        .collect();
    let b: Vec<Option<i64>> = (0..n)
        .map(|_| (draw(10) != 0).then(|| draw(60) as i64 - 15))
        .collect();
    let floats = [
        Some(0.0),
        Some(-0.0),
        Some(f64::NAN),
        None,
        Some(1.5),
        Some(-2.0),
    ];
    let f: Vec<Option<f64>> = (0..n).map(|_| floats[draw(6) as usize]).collect();
    let h: Vec<Option<f64>> = (0..n).map(|_| floats[draw(4) as usize]).collect();
    let words = [Some("x"), Some("yy"), None, Some(""), Some("zé")];
    let s: Vec<Option<&str>> = (0..n).map(|_| words[draw(5) as usize]).collect();
    let t: Vec<Option<&str>> = (0..n).map(|_| words[draw(3) as usize]).collect();
    let g: Vec<i32> = (0..n).map(|_| draw(4) as i32).collect();
    let frame = || {
        df!("a" => &a, "b" => &b, "f" => &f, "h" => &h, "s" => &s, "t" => &t, "g" => &g)
            .unwrap()
            .lazy()
    };
    let member =
        |x: &str, y: &str, nulls_equal: bool| col(x).is_in(col(y).implode(false), nulls_equal);
    assert_gpu_eq(
        "is_in another column, over the frame",
        frame().select([
            member("a", "b", false).alias("ints"),
            member("a", "b", true).alias("ints, nulls equal"),
            member("f", "h", false).alias("floats"),
            member("h", "f", true).alias("floats, nulls equal"),
            member("s", "t", false).alias("texts"),
            member("t", "s", true).alias("texts, nulls equal"),
            (col("a") * lit(2i64))
                .is_in((col("b") + lit(1i64)).implode(false), false)
                .alias("computed"),
        ]),
    );
    assert_gpu_eq(
        "a filter by is_in another column",
        frame().filter(member("a", "b", false)),
    );
    assert_gpu_eq(
        "is_in another column, per group",
        frame()
            .group_by_stable([col("g")])
            .agg([member("a", "b", false).sum().alias("members")]),
    );
    assert_gpu_eq(
        "is_in another column, in a window",
        frame().with_columns([member("s", "t", true).over([col("g")]).unwrap().alias("w")]),
    );
}

#[test]
fn sorts_parses_formats_and_memberships_of_no_rows_and_one_row_match_the_cpu() {
    let frame = || {
        df!(
            "i" => [Some(3i64), None, Some(1)],
            "f" => [Some(1.5), Some(f64::NAN), None],
            "s" => [Some("2.5"), None, Some("x")],
            "g" => [1i32, 1, 2],
        )
        .unwrap()
        .lazy()
    };
    let queries = |lf: LazyFrame| {
        [
            lf.clone().select([
                col("i").sort(Default::default()).alias("sorted"),
                col("f").arg_sort(true, true).alias("arg"),
                col("s")
                    .sort_by([col("i"), col("f")], Default::default())
                    .alias("by two"),
                col("s").cast(DataType::Float64).alias("parsed"),
                col("f").cast(DataType::String).alias("written"),
                col("s").str().count_matches(lit("."), true).alias("count"),
                col("i")
                    .is_in((col("i") + lit(1i64)).implode(false), false)
                    .alias("member"),
            ]),
            lf.clone()
                .with_columns([col("i").sort(Default::default()).over([col("g")]).unwrap()]),
            lf.group_by_stable([col("g")]).agg([
                col("f").sort_by([col("i")], Default::default()).first(),
                col("i")
                    .is_in(col("i").implode(false), true)
                    .sum()
                    .alias("members"),
            ]),
        ]
    };
    for (rows, lf) in [(0, frame().filter(lit(false))), (1, frame().slice(0, 1))] {
        for (k, query) in queries(lf).into_iter().enumerate() {
            assert_gpu_eq(&format!("{rows} rows, query {k}"), query);
        }
    }
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
    assert_cpu_answer_with_reason(
        frame().select([round("us", "1w")]),
        "dt.round of datetime[us] by \"1w\"",
    );
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
        ]),
    );
    assert_cpu_answer_with_reason(
        dates().select([round("d", "12h")]),
        "dt.round of date by \"12h\"",
    );
}

#[test]
fn texts_matched_against_patterns_of_their_rows_match_the_cpu() {
    let frame = || {
        df!(
            "s" => [Some("banana"), Some("apple"), None, Some(""), Some("naïve"), Some("x"), Some("abc")],
            "p" => [Some("ban"), Some("le"), Some("a"), Some(""), None, Some("xy"), Some("b")],
        )
        .unwrap()
        .lazy()
    };
    let s = || col("s").str();
    assert_gpu_eq(
        "starts_with, ends_with and contains of a pattern per row",
        frame().select([
            s().starts_with(col("p")).alias("starts"),
            s().ends_with(col("p")).alias("ends"),
            s().contains_literal(col("p")).alias("contains"),
            s().to_uppercase()
                .str()
                .starts_with(col("p").str().to_uppercase())
                .alias("made"),
        ]),
    );
    assert_gpu_eq(
        "a filter by a pattern per row",
        frame().filter(s().ends_with(col("p")).or(s().starts_with(col("p")))),
    );
    // A regular expression per row: Polars compiles each one.
    assert_cpu_answer_with_reason(
        frame().select([s().contains(col("p"), false)]),
        "str.contains needs a literal pattern",
    );
}

#[test]
fn is_between_bounds_of_the_rows_match_the_cpu() {
    let frame = || {
        df!(
            "i" => [Some(1i64), Some(5), None, Some(3), Some(0), Some(2)],
            "lo" => [None, Some(0i64), Some(0), None, Some(0), Some(3)],
            "hi" => [Some(3i64), Some(3), Some(3), Some(2), None, Some(1)],
            "f" => [Some(0.5), Some(f64::NAN), Some(-0.0), None, Some(2.0), Some(1.0)],
        )
        .unwrap()
        .lazy()
        .with_columns([col("i").cast(DataType::Date).alias("d")])
    };
    let between = |closed| col("i").is_between(col("lo"), col("hi"), closed);
    assert_gpu_eq(
        "is_between bounds of the rows",
        frame().select([
            between(ClosedInterval::Both).alias("both"),
            between(ClosedInterval::Left).alias("left"),
            between(ClosedInterval::Right).alias("right"),
            between(ClosedInterval::None).alias("none"),
            col("f")
                .is_between(lit(0.0), col("f") * lit(2.0), ClosedInterval::Both)
                .alias("floats"),
            col("d")
                .is_between(
                    col("d"),
                    lit(NULL).cast(DataType::Date),
                    ClosedInterval::Both,
                )
                .alias("dates"),
        ]),
    );
    assert_gpu_eq(
        "a filter by is_between bounds of the rows",
        frame().filter(between(ClosedInterval::Both)),
    );
}

#[test]
fn regular_expressions_match_through_their_dfa() {
    // Random comments in the manner of PDS-H's, with digits, spaces,
    // newlines and characters beyond ASCII; some null, one empty. (The
    // DFAs' answers for the rest of the syntax are checked against the
    // `regex` crate in ir-lower.)
    let words = [
        "special",
        "requests",
        "pending",
        "deposits",
        "Customer",
        "Complaints",
        " ",
        " ",
        "\n",
        "42",
        "7",
        "-",
        "ü",
        "日本",
        ".",
    ];
    let mut next = xorshift(0x5eed_0017);
    let texts: Vec<Option<String>> = (0..400)
        .map(|row| match next() % 13 {
            0 => None,
            _ if row == 7 => Some(String::new()),
            _ => Some(
                (0..next() % 8)
                    .map(|_| words[(next() % words.len() as u64) as usize])
                    .collect(),
            ),
        })
        .collect();
    let frame = || df!("s" => texts.clone()).unwrap().lazy();
    let patterns = [
        "^special",
        "requests$",
        "(?i)customer.*complaints",
        r"\d+",
        r"^\d",
        r"pend(ing)?\s",
        r"^\w+$",
        r"(?m)^deposits",
        "ü|日",
        r"[^\x00-\x7f]",
        r"\.\s*$",
        "(?s)s.r",
    ];
    for pattern in patterns {
        let contains = || col("s").str().contains(lit(pattern), true);
        // Each pattern tells some texts from others.
        let matched = frame().filter(contains()).collect().unwrap().height();
        assert!(0 < matched && matched < 300, "{pattern}: {matched} of 400");
        assert_gpu_eq(pattern, frame().select([contains().alias("m")]));
        assert_gpu_eq(pattern, frame().filter(contains().not()));
    }
    // A pattern beyond the DFA falls back, with the reason.
    assert_cpu_answer_with_reason(
        frame().filter(col("s").str().contains(lit(r"\bfoo"), true)),
        r#"the regular expression "\\bfoo" has no DFA the GPU runs"#,
    );
}

#[test]
fn filters_inside_a_select_keep_the_rows_of_their_predicate() {
    let qty_over_2 = || col("qty").gt(lit(2));
    let cases = [
        (
            "filter",
            orders().select([col("amount").filter(qty_over_2())]),
        ),
        ("drop_nulls", orders().select([col("amount").drop_nulls()])),
        ("drop_nans", orders().select([col("amount").drop_nans()])),
        (
            "drop_nans of integers",
            orders().select([col("qty").drop_nans()]),
        ),
        (
            "values that read other rows, filtered alike",
            orders().select([
                col("id")
                    .cum_sum(false)
                    .filter(qty_over_2())
                    .alias("running"),
                col("status").filter(qty_over_2()),
                col("amount")
                    .rank(RankOptions::default(), None)
                    .filter(qty_over_2())
                    .alias("rank"),
            ]),
        ),
        (
            "a predicate of other rows",
            orders().select([col("status").filter(col("id").shift(lit(1)).gt(lit(4)))]),
        ),
        (
            "no rows",
            orders()
                .filter(col("id").lt(lit(0)))
                .select([col("status").drop_nulls()]),
        ),
        (
            "slices alike",
            orders().select([
                col("id")
                    .cum_sum(false)
                    .slice(lit(-6), lit(4))
                    .alias("running"),
                col("status").slice(lit(-6), lit(4)),
            ]),
        ),
        (
            "heads alike",
            orders().select([
                col("id").reverse().head(Some(3)),
                col("amount").head(Some(3)),
            ]),
        ),
        (
            "gather_every",
            orders().select([
                col("status").gather_every(3, 1),
                col("id").shift(lit(1)).gather_every(3, 1).alias("before"),
            ]),
        ),
        (
            "gather_every past the end",
            orders().select([col("status").gather_every(2, 12)]),
        ),
        (
            "scalars beside a filter",
            orders().select([
                col("status").filter(qty_over_2()),
                col("amount").sum().alias("total"),
                lit(7i64).alias("seven"),
                col("qty").filter(qty_over_2()).alias("kept qty"),
            ]),
        ),
        (
            "a scalar beside a filter that keeps no row",
            orders().select([col("id").filter(col("id").lt(lit(0))), col("qty").max()]),
        ),
        (
            "aggregations of gather_every",
            orders().group_by_stable([col("customer")]).agg([
                col("id").gather_every(2, 0).sum().alias("sum"),
                col("status").gather_every(2, 1).first().alias("first"),
                col("qty").gather_every(3, 0).len().alias("len"),
            ]),
        ),
    ];
    for (name, lf) in cases {
        assert_gpu_eq(name, lf);
    }
    // Filters that keep different rows: Polars compares the lengths.
    assert_cpu_answer_with_reason(
        orders().select([
            col("qty").drop_nulls(),
            (col("qty") * lit(2)).drop_nulls().alias("twice"),
        ]),
        "filters inside expressions that keep different rows",
    );
    assert_cpu_error(orders().select([col("qty").drop_nulls(), col("id").drop_nulls()]));
    assert_cpu_error(orders().select([col("qty").gather_every(0, 0)]));
}

#[test]
fn whole_frame_sums_minima_and_maxima_match_the_cpu() {
    // The device-wide reductions, read in place: every integer type (32-bit
    // sums wrap in their own type, as Polars' do), booleans, temporal
    // types (durations summed too), floats with NaN, columns with nulls,
    // all null and empty, floats all NaN, over sizes of one block, several,
    // and many.
    let mut next = xorshift(11);
    for n in [0usize, 1, 255, 257, 5_000, 70_001] {
        let mut column = |every: u64| -> Vec<Option<u64>> {
            (0..n)
                .map(|_| {
                    let x = next();
                    (every == 0 || !x.is_multiple_of(every)).then_some(x)
                })
                .collect()
        };
        let (a, b, c) = (column(0), column(5), column(1));
        let df = df!(
            "i32" => a.iter().map(|x| x.map(|x| i32::MAX - (x % 1000) as i32)).collect::<Vec<_>>(),
            "u32" => b.iter().map(|x| x.map(|x| u32::MAX - (x % 7) as u32)).collect::<Vec<_>>(),
            "i64" => b.iter().map(|x| x.map(|x| x as i64)).collect::<Vec<_>>(),
            "u64" => a.iter().map(|x| x.map(|x| x >> 3)).collect::<Vec<_>>(),
            "i8" => b.iter().map(|x| x.map(|x| x as i8)).collect::<Vec<_>>(),
            "u16" => a.iter().map(|x| x.map(|x| x as u16)).collect::<Vec<_>>(),
            "days" => b.iter().map(|x| x.map(|x| (x % 40_000) as i32 - 20_000)).collect::<Vec<_>>(),
            "none" => c.iter().map(|x| x.map(|x| x as i64)).collect::<Vec<_>>(),
            "b" => b.iter().map(|x| x.map(|x| x % 3 == 0)).collect::<Vec<_>>(),
            "f" => b.iter().map(|x| x.map(|x| if x % 11 == 0 { f64::NAN } else { (x % 10_007) as f64 - 5_000.5 })).collect::<Vec<_>>(),
            // Only NaN among the values: NaN is the minimum and the maximum.
            "nan" => b.iter().map(|x| x.map(|_| f64::NAN)).collect::<Vec<_>>(),
        )
        .unwrap()
        .lazy()
        .with_columns([
            // Computed on the CPU below: the slots under the nulls of "i64"
            // hold the values of "u16".
            (col("i64") + col("u16").cast(DataType::Int64))
                .cast(DataType::Float64)
                .alias("g"),
            col("days").cast(DataType::Date).alias("date"),
            col("i64")
                .cast(DataType::Duration(TimeUnit::Microseconds))
                .alias("span"),
        ])
        .collect()
        .unwrap()
        .lazy();
        let numbers = ["i32", "u32", "i64", "u64", "i8", "u16", "none", "b"];
        let mut exprs = Vec::new();
        for name in numbers {
            exprs.push(col(name).sum().alias(format!("{name} sum")));
        }
        for name in numbers.into_iter().chain(["date", "span", "f", "nan"]) {
            exprs.push(col(name).min().alias(format!("{name} min")));
            exprs.push(col(name).max().alias(format!("{name} max")));
        }
        // A filter's values (nulls under it) and an aggregation of a sum.
        exprs.push(col("i64").filter(col("b")).max().alias("filtered max"));
        exprs.push(
            (col("i64") + col("u16").cast(DataType::Int64))
                .min()
                .alias("sum min"),
        );
        exprs.push(col("span").sum().alias("span sum"));
        // Float sums and means in Polars' order, of the column in place.
        exprs.push(col("g").sum().alias("g sum"));
        exprs.push(col("g").mean().alias("g mean"));
        exprs.push(col("g").max().alias("g max"));
        assert_gpu_eq(&format!("n = {n}"), df.clone().select(exprs));
        // Sums per group (segment kernels), of values that do not overflow
        // (Polars' own group sums check for overflow in a debug build).
        let small_span = col("u16")
            .cast(DataType::Int64)
            .cast(DataType::Duration(TimeUnit::Milliseconds))
            .alias("small span");
        let sums = [col("u16").sum(), col("i8").sum(), small_span.sum()];
        assert_gpu_eq(
            &format!("groups, n = {n}"),
            df.group_by([col("b")])
                .agg(sums)
                .sort(["b"], SortMultipleOptions::default()),
        );
    }
}

#[test]
fn aggregations_of_an_empty_frame_give_one_row_as_on_the_cpu() {
    // One row of nulls, zeros or counts, whatever the kernel behind the
    // aggregation (reductions, sorts that pick a row, distinct counts).
    let empty = table().filter(col("u").gt(lit(100u32)));
    let cases = [
        ("text min", col("s").min()),
        ("text max", col("s").max()),
        ("text first", col("s").first()),
        ("text last", col("s").last()),
        ("boolean first", col("b").first()),
        ("boolean min", col("b").min()),
        ("f32 min", col("f").cast(DataType::Float32).min()),
        ("i8 max", col("i").cast(DataType::Int8).max()),
        ("date min", col("d").min()),
        ("i64 sum", col("i").sum()),
        ("i64 mean", col("i").mean()),
        ("count", col("i").count()),
        ("len", len()),
        ("distinct texts", col("s").n_unique()),
        ("distinct integers", col("i").n_unique()),
        ("median", col("f").median()),
        (
            "quantile",
            col("f").quantile(lit(0.3), QuantileMethod::Linear),
        ),
        ("std", col("f").std(1)),
        ("arg_min", col("i").arg_min()),
        ("joined texts", col("s").str().join("-", true)),
        (
            "first by another column",
            col("i")
                .sort_by([col("k")], SortMultipleOptions::default())
                .first(),
        ),
        ("first kept", col("i").filter(col("b")).first()),
        ("sum kept", col("i").filter(col("b")).sum()),
    ];
    for (name, expr) in cases {
        assert_gpu_eq(name, empty.clone().select([expr]));
    }
}

#[test]
fn products_of_integers_match_the_cpu() {
    // Wrapping products of the valid values (1 for none): small integers
    // and booleans as i64, u64 as u64; per group, of a whole frame (empty
    // too, and in chunks past 512 rows), over windows and of a filter in
    // groups.
    // Factors of mostly one in size, so that Polars' debug build, whose
    // products check for overflow, does not panic.
    let mut next = xorshift(29);
    for n in [0usize, 1, 40, 1_500] {
        let mut factor = || -> Option<i64> {
            let x = next();
            (!x.is_multiple_of(6)).then_some(match x % 97 {
                0 => 2,
                1 => -3,
                2 => 0,
                k if k % 2 == 0 => 1,
                _ => -1,
            })
        };
        let (a, b): (Vec<_>, Vec<_>) = (0..n).map(|_| (factor(), factor())).unzip();
        let g: Vec<u32> = (0..n as u32).map(|i| i % 7 / 2).collect();
        let df = df!(
            "g" => g,
            "i8" => a.iter().map(|x| x.map(|x| x as i8)).collect::<Vec<_>>(),
            "u16" => a.iter().map(|x| x.map(|x| x.unsigned_abs() as u16)).collect::<Vec<_>>(),
            "i32" => b.iter().map(|x| x.map(|x| x as i32)).collect::<Vec<_>>(),
            "i64" => a.clone(),
            "u64" => b.iter().map(|x| x.map(|x| x.unsigned_abs())).collect::<Vec<_>>(),
            "b" => b.iter().map(|x| x.map(|x| x != 0)).collect::<Vec<_>>(),
            "none" => vec![None::<i64>; n],
        )
        .unwrap()
        .lazy();
        let products = || {
            ["i8", "u16", "i32", "i64", "u64", "b", "none"]
                .into_iter()
                .map(|name| col(name).product().alias(format!("{name} product")))
                .collect::<Vec<_>>()
        };
        assert_gpu_eq(
            &format!("whole frame, n = {n}"),
            df.clone().select(products()),
        );
        let filtered = col("i64").filter(col("b")).product().alias("filtered");
        assert_gpu_eq(
            &format!("per group, n = {n}"),
            df.clone()
                .group_by_stable([col("g")])
                .agg([products(), vec![filtered]].concat()),
        );
        assert_gpu_eq(
            &format!("windows, n = {n}"),
            df.clone().select([
                col("g"),
                col("i32")
                    .product()
                    .over([col("g")])
                    .unwrap()
                    .alias("window"),
            ]),
        );
    }
    let floats = df!("f" => [1.5, 2.0]).unwrap().lazy();
    assert_cpu_answer_with_reason(floats.select([col("f").product()]), "product of f64");
}
