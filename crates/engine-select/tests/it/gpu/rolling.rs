//! Rolling windows by a count of rows on the device (`rolling_sum`, `rolling_mean`, `rolling_min`, `rolling_max`, `rolling_var`, `rolling_std`, `rolling_quantile`, `rolling_median`) and exponentially weighted means and spreads, over frames and within windows' groups, and what falls back.

use super::*;

fn window(window_size: usize, min_periods: usize, center: bool) -> RollingOptionsFixedWindow {
    RollingOptionsFixedWindow {
        window_size,
        min_periods,
        center,
        ..Default::default()
    }
}

/// The six functions of `column` by every window of `windows`, named.
fn all_of(column: &str, windows: &[(usize, usize, bool)]) -> Vec<Expr> {
    let mut exprs = Vec::new();
    for &(size, min, center) in windows {
        let options = window(size, min, center);
        let name = |f: &str| {
            format!(
                "{column} {f} {size}/{min}{}",
                if center { " c" } else { "" }
            )
        };
        exprs.push(col(column).rolling_sum(options.clone()).alias(name("sum")));
        exprs.push(
            col(column)
                .rolling_mean(options.clone())
                .alias(name("mean")),
        );
        exprs.push(col(column).rolling_min(options.clone()).alias(name("min")));
        exprs.push(col(column).rolling_max(options.clone()).alias(name("max")));
        exprs.push(col(column).rolling_var(options.clone()).alias(name("var")));
        let ddof = RollingOptionsFixedWindow {
            fn_params: Some(RollingFnParams::Var(RollingVarParams {
                ddof: (size % 3) as u8,
            })),
            ..options
        };
        exprs.push(col(column).rolling_std(ddof).alias(name("std")));
    }
    exprs
}

const WINDOWS: &[(usize, usize, bool)] = &[
    (1, 1, false),
    (2, 2, false),
    (2, 1, true),
    (3, 0, false),
    (3, 2, true),
    (4, 4, true),
    (5, 1, false),
    (12, 3, false),
];

#[test]
fn rolling_windows_of_every_type_match_the_cpu() {
    // (No extremes of i64 in sums: Polars' debug build panics on overflow.)
    let frame = || {
        table().with_columns([
            col("i").clip(lit(-1000i64), lit(1000i64)).alias("i"),
            col("u").cast(DataType::UInt8).alias("u8"),
            col("i").cast(DataType::Int16).alias("i16"),
            col("f").cast(DataType::Float32).alias("f32"),
        ])
    };
    for column in ["i", "u", "u8", "i16", "f", "f32", "b"] {
        assert_gpu_eq(
            &format!("rolling windows of {column}"),
            frame().select(all_of(column, WINDOWS)),
        );
    }
    // Minima and maxima keep temporal types.
    let options = window(3, 1, false);
    assert_gpu_eq(
        "rolling extremes of dates and durations",
        frame().select([
            col("d").rolling_min(options.clone()).alias("d min"),
            col("d").rolling_max(options.clone()).alias("d max"),
            (col("d") - col("d").shift(lit(1)))
                .rolling_max(options)
                .alias("gap max"),
        ]),
    );
}

#[test]
fn rolling_float_sums_are_polars_to_the_bit() {
    // Mixed magnitudes, so that the order of the additions and the
    // compensations show in the last bits; infinities and NaN entering and
    // leaving windows.
    let mut next = xorshift(29);
    let n = 3000;
    let values: Vec<Option<f64>> = (0..n)
        .map(|i| {
            let r = next();
            match r % 97 {
                0 => None,
                1 => Some(f64::INFINITY),
                2 => Some(f64::NEG_INFINITY),
                3 => Some(f64::NAN),
                _ => Some(((r >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 10f64.powi(i % 19 - 4)),
            }
        })
        .collect();
    let frame = df!(
        "x" => values.clone(),
        "y" => values.iter().map(|v| v.map(|v| v as f32)).collect::<Vec<_>>(),
        "g" => (0..n).map(|_| next() % 7).collect::<Vec<_>>(),
    )
    .unwrap()
    .lazy();
    let windows = [(1, 1, false), (7, 3, false), (8, 8, true), (50, 1, true)];
    assert_gpu_eq(
        "float windows over the frame",
        frame.clone().select(
            all_of("x", &windows)
                .into_iter()
                .chain(all_of("y", &windows))
                .collect::<Vec<_>>(),
        ),
    );
    let ewm = EWMOptions {
        alpha: 0.3,
        ..Default::default()
    };
    let over_g: Vec<Expr> = all_of("x", &windows)
        .into_iter()
        .chain(all_of("y", &windows))
        .chain([
            col("x").ewm_mean(ewm).alias("x ewm"),
            col("y").ewm_mean(ewm).alias("y ewm"),
            col("x").ewm_var(ewm).alias("x ewm var"),
            col("y").ewm_std(ewm).alias("y ewm std"),
        ])
        .map(|e| e.over([col("g")]).unwrap())
        .collect();
    assert_gpu_eq("float windows within groups", frame.select(over_g));
}

#[test]
fn rolling_windows_within_groups_and_inside_expressions_match_the_cpu() {
    let options = window(2, 1, false);
    assert_gpu_eq(
        "rolling windows over groups, in expressions",
        groups().select([
            col("g"),
            col("v")
                .rolling_sum(options.clone())
                .over([col("g")])
                .unwrap()
                .alias("sum by g"),
            col("x")
                .rolling_mean(window(3, 2, true))
                .over([col("g"), col("h")])
                .unwrap()
                .alias("mean by g, h"),
            (col("v").rolling_max(options.clone()) - col("v")).alias("max less v"),
            (col("x") * lit(2.0))
                .rolling_min(options.clone())
                .fill_null(lit(0.0))
                .alias("min of a product"),
            col("v")
                .rolling_sum(options.clone())
                .sum()
                .alias("total of sums"),
        ]),
    );
    // Sorted first, then rolled: a window over a sorted frame.
    assert_gpu_eq(
        "rolling over a sorted frame",
        groups()
            .sort(["v"], SortMultipleOptions::default().with_nulls_last(true))
            .select([
                col("v"),
                col("v").rolling_mean(window(3, 1, false)).alias("mean"),
            ]),
    );
    // Group-bys of rolled values, and empty frames.
    assert_gpu_eq(
        "a group-by of rolling sums",
        groups()
            .with_column(col("v").rolling_sum(options.clone()).alias("r"))
            .group_by([col("h")])
            .agg([col("r").sum(), col("r").max().alias("m")])
            .sort(["h"], Default::default()),
    );
    assert_gpu_eq(
        "rolling windows within a group-by's groups",
        groups()
            .group_by([col("h")])
            .agg([
                col("v")
                    .rolling_sum(options.clone())
                    .sum()
                    .alias("sum of sums"),
                col("x")
                    .rolling_max(options.clone())
                    .min()
                    .alias("least max"),
            ])
            .sort(["h"], Default::default()),
    );
    assert_gpu_eq(
        "rolling windows of an empty frame",
        groups()
            .filter(col("h").gt(lit(5u32)))
            .select(all_of("v", &[(2, 1, false)])),
    );
}

#[test]
fn exponentially_weighted_means_and_spreads_match_the_cpu() {
    let frame = || {
        groups().with_columns([
            col("x").cast(DataType::Float32).alias("x32"),
            col("v").cast(DataType::Float64).alias("vf"),
        ])
    };
    let mut exprs = Vec::new();
    for (i, alpha) in [0.5, 0.1, 1.0 / 3.0, 1.0].into_iter().enumerate() {
        for (adjust, ignore_nulls) in [(true, true), (true, false), (false, true), (false, false)] {
            let options = EWMOptions {
                alpha,
                adjust,
                bias: ignore_nulls == adjust,
                min_periods: i % 3,
                ignore_nulls,
            };
            let name = |c: &str, f: &str| format!("{c} {f} {alpha} {adjust} {ignore_nulls}");
            for c in ["x", "x32", "vf", "h"] {
                exprs.push(col(c).ewm_mean(options).alias(name(c, "mean")));
                exprs.push(col(c).ewm_var(options).alias(name(c, "var")));
                exprs.push(col(c).ewm_std(options).alias(name(c, "std")));
            }
        }
    }
    assert_gpu_eq("ewm_mean over the frame", frame().select(exprs));
    let options = EWMOptions {
        alpha: 0.25,
        ..Default::default()
    };
    assert_gpu_eq(
        "ewm_mean and ewm_std within groups",
        frame().select([
            col("x")
                .ewm_mean(options)
                .over([col("g")])
                .unwrap()
                .alias("x by g"),
            col("x")
                .ewm_std(options)
                .over([col("g")])
                .unwrap()
                .alias("x std by g"),
            (col("vf") * lit(0.5))
                .ewm_mean(options)
                .over([col("h")])
                .unwrap()
                .alias("half v by h"),
        ]),
    );
}

#[test]
fn rolling_functions_the_device_does_not_run_fall_back_with_their_reasons() {
    let weighted = RollingOptionsFixedWindow {
        weights: Some(vec![0.5, 1.0]),
        ..window(2, 1, false)
    };
    // (Polars panics on weights over nulls.)
    assert_cpu_answer_with_reason(
        groups().select([col("h").rolling_sum(weighted)]),
        "rolling_sum with weights is not supported on the GPU",
    );
    assert_cpu_answer_with_reason(
        groups().select([col("x").rolling_quantile(
            QuantileMethod::Linear,
            0.5,
            window(2, 0, false),
        )]),
        "rolling_quantile with min_periods=0 is not supported on the GPU",
    );
    assert_cpu_answer_with_reason(
        groups().select([col("x").rolling_median(window(513, 1, false))]),
        "rolling_quantile of windows over 512 rows",
    );
    // A group-by's lists of rolled values.
    let listed = groups()
        .group_by([col("h")])
        .agg([col("v").rolling_sum(window(2, 1, false))])
        .sort(["h"], Default::default());
    let expected = listed.clone().collect().unwrap();
    let (actual, _) = listed
        .collect_with_report(&Engine::Gpu(under_test()))
        .unwrap();
    assert!(expected.equals_missing(&actual), "{expected} {actual}");
    // Polars' own errors: for texts, and for more periods than the window
    // holds.
    assert_cpu_error(groups().select([col("s").rolling_min(window(2, 1, false))]));
    assert_cpu_error(groups().select([col("v").rolling_sum(window(2, 3, false))]));
}

/// Windows by times of `size` (Polars' duration text), closed as `closed`.
fn by_times(size: &str, min_periods: usize, closed: ClosedWindow) -> RollingOptionsDynamicWindow {
    RollingOptionsDynamicWindow {
        window_size: Duration::parse(size),
        min_periods,
        closed_window: closed,
        fn_params: None,
    }
}

/// The six functions of `column` by the times of `by`, in windows of each
/// of `sizes` (closed in turn on each side, with a few least counts), named.
fn all_by(column: &str, by: &str, sizes: &[&str]) -> Vec<Expr> {
    let closings = [
        ClosedWindow::Right,
        ClosedWindow::Left,
        ClosedWindow::Both,
        ClosedWindow::None,
    ];
    let mut exprs = Vec::new();
    for (i, size) in sizes.iter().enumerate() {
        for (j, closed) in closings.into_iter().enumerate() {
            let min_periods = (i + j) % 4;
            let options = by_times(size, min_periods, closed);
            let name = |f: &str| format!("{column} {f} by {by} {size} {closed:?} {min_periods}");
            let (x, t) = (col(column), col(by));
            exprs.extend([
                x.clone()
                    .rolling_sum_by(t.clone(), options.clone())
                    .alias(name("sum")),
                x.clone()
                    .rolling_mean_by(t.clone(), options.clone())
                    .alias(name("mean")),
                x.clone()
                    .rolling_min_by(t.clone(), options.clone())
                    .alias(name("min")),
                x.clone()
                    .rolling_max_by(t.clone(), options.clone())
                    .alias(name("max")),
                x.clone()
                    .rolling_var_by(t.clone(), options.clone())
                    .alias(name("var")),
                x.rolling_std_by(
                    t,
                    RollingOptionsDynamicWindow {
                        fn_params: Some(RollingFnParams::Var(RollingVarParams {
                            ddof: (i % 3) as u8,
                        })),
                        ..options
                    },
                )
                .alias(name("std")),
            ]);
        }
    }
    exprs
}

/// `n` rows of random times (many equal, out of order, some null) as
/// timestamps of milliseconds (`t`), dates (`d`) and integers (`k`), with
/// floats of mixed magnitudes (with infinities, NaN and nulls: `x`, and as
/// f32 `y`), small integers (`i`), booleans (`b`) and groups (`g`).
fn timed(n: usize, seed: u64) -> LazyFrame {
    let mut next = xorshift(seed);
    let mut column = |f: &mut dyn FnMut(u64) -> Option<i64>| -> Vec<Option<i64>> {
        (0..n).map(|_| f(next())).collect()
    };
    let hours = column(&mut |r| (r % 13 != 0).then_some((r >> 8) as i64 % 200));
    let x: Vec<Option<f64>> = column(&mut |r| Some(r as i64))
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            let r = r.unwrap() as u64;
            match r % 41 {
                0 => None,
                1 => Some(f64::INFINITY),
                2 => Some(f64::NEG_INFINITY),
                3 => Some(f64::NAN),
                4 => Some(-0.0),
                _ => Some(
                    ((r >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 10f64.powi(i as i32 % 17 - 4),
                ),
            }
        })
        .collect();
    let i = column(&mut |r| (r % 11 != 0).then_some((r >> 5) as i64 % 1000 - 500));
    let g = column(&mut |r| Some(r as i64 % 5));
    let b: Vec<Option<bool>> = column(&mut |r| (r % 7 != 0).then_some(r % 2 == 0).map(i64::from))
        .into_iter()
        .map(|v| v.map(|v| v == 1))
        .collect();
    let millis: Vec<Option<i64>> = hours.iter().map(|h| h.map(|h| h * 3_600_000)).collect();
    let days: Vec<Option<i32>> = hours.iter().map(|h| h.map(|h| h as i32 / 5)).collect();
    let mut frame = df!(
        "k" => hours.clone(),
        "x" => x.clone(),
        "y" => x.iter().map(|v| v.map(|v| v as f32)).collect::<Vec<_>>(),
        "i" => i,
        "b" => b,
        "g" => g,
    )
    .unwrap();
    let t = Series::new("t".into(), millis)
        .cast(&DataType::Datetime(TimeUnit::Milliseconds, None))
        .unwrap();
    let d = Series::new("d".into(), days).cast(&DataType::Date).unwrap();
    frame.with_column(t.into()).unwrap();
    frame.with_column(d.into()).unwrap();
    frame.lazy()
}

#[test]
fn rolling_windows_by_times_match_the_cpu() {
    let frame = timed(400, 41);
    for column in ["x", "y", "i", "b"] {
        assert_gpu_eq(
            &format!("rolling windows of {column} by timestamps"),
            frame
                .clone()
                .select(all_by(column, "t", &["3h", "1d", "90m", "1w2d"])),
        );
    }
    assert_gpu_eq(
        "rolling windows by dates and integers",
        frame.clone().select(
            all_by("x", "d", &["1d", "3d"])
                .into_iter()
                .chain(all_by("i", "k", &["1i", "7i"]))
                .collect::<Vec<_>>(),
        ),
    );
    // Sorted times with no null (Polars' path without a sort).
    let sorted = frame.clone().filter(col("t").is_not_null()).sort(
        ["t"],
        SortMultipleOptions::default().with_maintain_order(true),
    );
    assert_gpu_eq(
        "rolling windows by sorted timestamps",
        sorted.select(all_by("x", "t", &["5h"])),
    );
    // Within windows' groups, and inside expressions.
    let options = by_times("4h", 1, ClosedWindow::Right);
    assert_gpu_eq(
        "rolling windows by times within groups",
        frame.clone().select([
            col("x")
                .rolling_sum_by(col("t"), options.clone())
                .over([col("g")])
                .unwrap()
                .alias("sum by g"),
            col("i")
                .rolling_max_by(col("k"), by_times("3i", 2, ClosedWindow::Both))
                .over([col("g"), col("b")])
                .unwrap()
                .alias("max by g, b"),
            (col("y").rolling_mean_by(col("t"), options.clone()) * lit(2.0f32)).alias("twice"),
        ]),
    );
    assert_gpu_eq(
        "rolling windows by times within a group-by's groups",
        frame
            .clone()
            .group_by([col("g")])
            .agg([col("x")
                .rolling_var_by(col("t"), options)
                .max()
                .alias("greatest variance")])
            .sort(["g"], Default::default()),
    );
    // Quantiles and medians by times (of integers: floats holding both
    // zeros Polars ranks in an order of its own).
    let quantiles: Vec<Expr> = [
        (QuantileMethod::Linear, 0.5, "3h", 1, ClosedWindow::Right),
        (QuantileMethod::Nearest, 0.3, "1d", 2, ClosedWindow::Left),
        (QuantileMethod::Lower, 0.9, "90m", 1, ClosedWindow::Both),
        (QuantileMethod::Higher, 0.1, "5h", 3, ClosedWindow::None),
        (QuantileMethod::Midpoint, 0.5, "2h", 1, ClosedWindow::Right),
        (
            QuantileMethod::Equiprobable,
            0.7,
            "1d",
            1,
            ClosedWindow::Right,
        ),
    ]
    .into_iter()
    .enumerate()
    .map(|(i, (method, q, size, min_periods, closed))| {
        col("i")
            .rolling_quantile_by(col("t"), method, q, by_times(size, min_periods, closed))
            .alias(format!("quantile {i}"))
    })
    .chain([col("i")
        .rolling_median_by(col("k"), by_times("9i", 1, ClosedWindow::Right))
        .over([col("g")])
        .unwrap()
        .alias("median by g")])
    .collect();
    assert_gpu_eq(
        "rolling quantiles by times",
        frame.clone().select(quantiles),
    );
    assert_gpu_eq(
        "rolling windows by times of an empty frame",
        frame
            .filter(col("g").gt(lit(10)))
            .select(all_by("x", "t", &["1h"])),
    );
}

#[test]
fn rolling_windows_by_times_the_device_does_not_run_fall_back_with_their_reasons() {
    let frame = || timed(20, 7);
    assert_cpu_answer_with_reason(
        frame().select([col("x").rolling_quantile_by(
            col("t"),
            QuantileMethod::Linear,
            0.5,
            by_times("2h", 0, ClosedWindow::Right),
        )]),
        "rolling_quantile_by with min_periods=0 is not supported on the GPU",
    );
    // A window wider than the device ranks.
    assert_cpu_answer_with_reason(
        timed(700, 3).select([
            col("i").rolling_median_by(col("t"), by_times("1000w", 1, ClosedWindow::Right))
        ]),
        "a rolling quantile of a window of",
    );
    assert_cpu_answer_with_reason(
        frame()
            .select([col("x").rolling_sum_by(col("t"), by_times("1mo", 1, ClosedWindow::Right))]),
        "rolling_sum_by by datetime[ms] in windows of 1mo is not supported on the GPU",
    );
    // Polars' own errors: a window of integers by times.
    assert_cpu_error(
        frame().select([col("x").rolling_sum_by(col("t"), by_times("2i", 1, ClosedWindow::Right))]),
    );
}

/// Rolling group-by options: windows of `period` before each row's time of
/// `index`, closed as `closed`.
fn rolling_groups(index: &str, period: &str, closed: ClosedWindow) -> RollingGroupOptions {
    RollingGroupOptions {
        index_column: index.into(),
        period: Duration::parse(period),
        offset: Duration::parse(&format!("-{period}")),
        closed_window: closed,
    }
}

#[test]
fn rolling_group_bys_match_the_cpu() {
    // Sorted times without nulls, as Polars' rolling group-bys need (sorted
    // stably: equal times in a defined order, which float sums show).
    let stably = SortMultipleOptions::default().with_maintain_order(true);
    let frame = || {
        timed(300, 5)
            .filter(col("t").is_not_null())
            .sort(["t"], stably.clone())
    };
    let closings = [
        ClosedWindow::Right,
        ClosedWindow::Left,
        ClosedWindow::Both,
        ClosedWindow::None,
    ];
    for (i, closed) in closings.into_iter().enumerate() {
        let period = ["2h", "1d", "90m", "1w"][i];
        assert_gpu_eq(
            &format!("a rolling group-by of {period}, closed {closed:?}"),
            frame()
                .rolling(col("t"), [], rolling_groups("t", period, closed))
                .agg([
                    col("x").sum().alias("x sum"),
                    col("y").mean().alias("y mean"),
                    col("i").sum().alias("i sum"),
                    col("b").sum().alias("b sum"),
                    col("x").min().alias("x min"),
                    col("i").max().alias("i max"),
                    col("d").max().alias("d max"),
                    col("x").var(1).alias("x var"),
                    col("y").var(0).alias("y var"),
                    col("i").median().alias("i median"),
                    col("i")
                        .quantile(lit(0.3), QuantileMethod::Nearest)
                        .alias("i quantile"),
                    col("x").count().alias("x count"),
                    len().alias("rows"),
                    col("x").first().alias("x first"),
                    col("b").last().alias("b last"),
                    col("i").last().alias("i last"),
                    col("d").first().alias("d first"),
                    (col("i") * lit(2) + col("k"))
                        .sum()
                        .alias("of an expression"),
                    (col("x").sum() / col("i").count().cast(DataType::Float64))
                        .alias("an expression of sums"),
                ]),
        );
    }
    // Windows moved by an offset: partly behind each row, ahead of it,
    // wholly behind it, from it.
    for (i, offset) in ["-1h", "2h", "-5h", "0h", "-0h"].into_iter().enumerate() {
        let closed = closings[i % 4];
        assert_gpu_eq(
            &format!("a rolling group-by of 2h offset by {offset}, closed {closed:?}"),
            frame()
                .rolling(
                    col("t"),
                    [],
                    RollingGroupOptions {
                        offset: Duration::parse(offset),
                        ..rolling_groups("t", "2h", closed)
                    },
                )
                .agg([
                    col("x").sum().alias("x sum"),
                    col("i").min().alias("i min"),
                    col("x").first().alias("x first"),
                    len().alias("rows"),
                ]),
        );
    }
    // By dates (several rows a day) and by integers.
    assert_gpu_eq(
        "a rolling group-by by dates",
        frame()
            .sort(
                ["d"],
                SortMultipleOptions::default().with_maintain_order(true),
            )
            .rolling(col("d"), [], rolling_groups("d", "3d", ClosedWindow::Right))
            .agg([col("x").sum(), col("i").mean().alias("i mean")]),
    );
    assert_gpu_eq(
        "a rolling group-by by integers",
        frame()
            .select([col("k").cast(DataType::Int32), col("i")])
            .rolling(col("k"), [], rolling_groups("k", "5i", ClosedWindow::Both))
            .agg([col("i").sum(), col("i").min().alias("least")]),
    );
    assert_gpu_eq(
        "a rolling group-by by integers, ahead",
        frame()
            .select([col("k").cast(DataType::Int32), col("i")])
            .rolling(
                col("k"),
                [],
                RollingGroupOptions {
                    offset: Duration::parse("1i"),
                    ..rolling_groups("k", "3i", ClosedWindow::Left)
                },
            )
            .agg([col("i").sum(), col("i").last().alias("last")]),
    );
}

/// Texts whose row encoding orders them otherwise than their lengths do
/// (of 1 byte, and of 255, 256, 257, 511 and 512: a length above 253 as
/// 0xFE and four little-endian bytes), empty and null, by the group `g` (0
/// to 4) and the sign of `i`.
fn texts_by_group() -> Expr {
    let repeated = |n: usize| lit("ab".repeat(n).chars().take(n).collect::<String>());
    let text = when(col("i").lt(lit(0)).and(col("g").eq(lit(0))))
        .then(repeated(1))
        .when(col("g").eq(lit(0)))
        .then(repeated(256))
        .when(col("g").eq(lit(1)))
        .then(repeated(255))
        .when(col("g").eq(lit(2)).and(col("i").lt(lit(0))))
        .then(repeated(512))
        .when(col("g").eq(lit(2)))
        .then(repeated(511))
        .when(col("g").eq(lit(3)))
        .then(lit(""))
        .when(col("i").is_null())
        .then(repeated(257))
        .otherwise(lit(NULL).cast(DataType::String));
    text.alias("text")
}

#[test]
fn rolling_group_bys_by_keys_match_the_cpu() {
    // Times sorted within each key's rows (Polars raises otherwise), and
    // not over the whole frame where sorted by key first.
    let stably = SortMultipleOptions::default().with_maintain_order(true);
    let frame = || {
        timed(300, 7)
            .filter(col("t").is_not_null())
            .sort(["t"], stably.clone())
            .with_columns([
                texts_by_group(),
                when(col("g").eq(lit(4)))
                    .then(lit(NULL).cast(DataType::Int64))
                    .otherwise(col("g"))
                    .alias("g"),
            ])
    };
    let aggs = || {
        [
            col("x").sum().alias("x sum"),
            col("i").min().alias("i min"),
            col("x").first().alias("x first"),
            col("i").median().alias("i median"),
            len().alias("rows"),
        ]
    };
    let keyed = |keys: Vec<Expr>, closed: ClosedWindow| {
        frame()
            .rolling(col("t"), keys, rolling_groups("t", "5h", closed))
            .agg(aggs())
    };
    for (name, lf) in [
        (
            "by an integer with nulls",
            keyed(vec![col("g")], ClosedWindow::Right),
        ),
        (
            "by texts of many lengths, empty and null",
            keyed(vec![col("text")], ClosedWindow::Both),
        ),
        (
            "by a boolean and an integer",
            keyed(vec![col("b"), col("g")], ClosedWindow::Left),
        ),
        (
            "by a text and a computed key",
            keyed(
                vec![col("text"), (col("i") % lit(3)).alias("r")],
                ClosedWindow::None,
            ),
        ),
        (
            "by dates, rows sorted by key and time",
            frame()
                .sort(["d", "t"], stably.clone())
                .rolling(
                    col("t"),
                    [col("d")],
                    rolling_groups("t", "1d", ClosedWindow::Right),
                )
                .agg(aggs()),
        ),
        (
            "by integers within texts, by integer times",
            frame()
                .select([col("k").cast(DataType::Int32), col("i"), col("text")])
                .sort(["text", "k"], stably.clone())
                .rolling(
                    col("k"),
                    [col("text")],
                    rolling_groups("k", "4i", ClosedWindow::Both),
                )
                .agg([col("i").sum(), col("i").max().alias("most")]),
        ),
        (
            "an empty frame",
            frame()
                .filter(col("i").gt(lit(10_000)))
                .rolling(
                    col("t"),
                    [col("text")],
                    rolling_groups("t", "5h", ClosedWindow::Right),
                )
                .agg(aggs()),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
    // Polars' own error: times out of order within a key's rows.
    assert_cpu_error(
        frame()
            .sort(["i"], stably.clone())
            .rolling(
                col("t"),
                [col("g")],
                rolling_groups("t", "3h", ClosedWindow::Right),
            )
            .agg([col("x").sum()]),
    );
}

#[test]
fn rolling_group_bys_the_device_does_not_run_fall_back_with_their_reasons() {
    let frame = || {
        timed(40, 9).filter(col("t").is_not_null()).sort(
            ["t"],
            SortMultipleOptions::default().with_maintain_order(true),
        )
    };
    let groups = || frame().rolling(col("t"), [], rolling_groups("t", "3h", ClosedWindow::Right));
    assert_cpu_answer_with_reason(
        groups().agg([col("x").arg_max()]),
        "in a rolling group-by is not supported on the GPU",
    );
    assert_cpu_answer_with_reason(
        frame()
            .with_columns([col("i").cast(DataType::String).alias("text")])
            .rolling(col("t"), [], rolling_groups("t", "3h", ClosedWindow::Right))
            .agg([col("text").first()]),
        "in a rolling group-by is not supported on the GPU",
    );
    // (Standard deviations run: the variance's walk, its `powf(0.5)` on
    // the host, as Polars takes them.)
    assert_gpu_eq(
        "standard deviations in a rolling group-by",
        groups().agg([col("x").std(1), col("i").std(0).alias("i")]),
    );
    assert_cpu_answer_with_reason(
        groups().agg([col("x").shift(lit(1)).sum()]),
        "in a rolling group-by is not supported on the GPU",
    );
    assert_cpu_answer_with_reason(
        frame()
            .rolling(
                col("t"),
                [col("x")],
                rolling_groups("t", "3h", ClosedWindow::Right),
            )
            .agg([col("i").sum()]),
        "a rolling group-by by `col(\"x\")` (f64)",
    );
    // Polars' own error: times out of order.
    assert_cpu_error(
        timed(40, 9)
            .filter(col("t").is_not_null())
            .rolling(col("t"), [], rolling_groups("t", "3h", ClosedWindow::Right))
            .agg([col("x").sum()]),
    );
}

/// Numbers for rolling quantiles: nulls, NaN, infinities, a huge value,
/// repeats, and one zero (both zeros leave the query to Polars), in two
/// groups.
fn quantile_frame() -> LazyFrame {
    df!(
        "x" => [Some(1.5), None, Some(f64::NAN), Some(-2.0), Some(0.0), Some(f64::INFINITY),
            Some(3.25), None, Some(-1e300), Some(7.0), Some(1.5), Some(f64::NEG_INFINITY)],
        "i" => [Some(5i64), Some(3), None, Some(-7), Some(5), Some(0), Some(100), Some(-3), None,
            Some(8), Some(1), Some(2)],
        "g" => [1i64, 2, 1, 1, 2, 2, 1, 2, 1, 1, 2, 1],
    )
    .unwrap()
    .lazy()
    .with_columns([
        col("x").cast(DataType::Float32).alias("x32"),
        col("i").cast(DataType::Int32).alias("i32"),
    ])
}

#[test]
fn rolling_quantiles_and_medians_match_the_cpu() {
    let methods = crate::QUANTILE_METHODS;
    let quantiles = [0.0, 0.1, 0.25, 0.5, 0.7, 0.9, 1.0];
    for column in ["x", "x32", "i", "i32"] {
        let mut exprs = Vec::new();
        for &(size, min, center) in WINDOWS {
            let options = window(size, min.max(1), center);
            let name = format!("{size}/{min}{}", if center { " c" } else { "" });
            for (k, method) in methods.into_iter().enumerate() {
                for q in [quantiles[k], quantiles[(k + 3) % quantiles.len()]] {
                    exprs.push(
                        col(column)
                            .rolling_quantile(method, q, options.clone())
                            .alias(format!("{name} {method:?} {q}")),
                    );
                }
            }
            exprs.push(
                col(column)
                    .rolling_median(options)
                    .alias(format!("{name} median")),
            );
        }
        assert_gpu_eq(
            &format!("rolling quantiles of {column}"),
            quantile_frame().select(exprs),
        );
    }
    assert_gpu_eq(
        "rolling medians within groups, beside the values",
        quantile_frame().select([
            col("x"),
            col("x")
                .rolling_median(window(3, 1, false))
                .over([col("g")])
                .unwrap()
                .alias("x median"),
            col("i")
                .rolling_quantile(QuantileMethod::Higher, 0.8, window(4, 2, true))
                .over([col("g")])
                .unwrap()
                .alias("i q80"),
        ]),
    );
    assert_gpu_eq(
        "a rolling median of no rows",
        quantile_frame()
            .filter(col("i").gt(lit(1000)))
            .select([col("x").rolling_median(window(3, 1, false))]),
    );
    // Which zero Polars gives of -0.0 and 0.0 is its own.
    assert_cpu_answer_with_reason(
        quantile_frame()
            .with_columns([when(col("i").eq(lit(3)))
                .then(lit(-0.0))
                .otherwise(col("x"))
                .alias("x")])
            .select([col("x").rolling_median(window(4, 1, false))]),
        "holding -0.0 and 0.0",
    );
}
