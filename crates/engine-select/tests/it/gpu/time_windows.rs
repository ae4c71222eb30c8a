//! Time windows of `group_by_dynamic` on the device, without and with `group_by` keys.

use super::*;

#[test]
fn group_by_dynamic_windows_match_the_cpu_or_leave_polars_its_error() {
    let day = 86_400_000i64;
    let times = [0, 1, 2, 9, 10, 40, 41, 75, 200, 201].map(|d| d * day + d * 3_600_000);
    let values = [
        Some(1i64),
        None,
        Some(3),
        Some(-4),
        Some(5),
        Some(6),
        None,
        Some(8),
        Some(9),
        Some(10),
    ];
    let frame = df!(
        "t" => times,
        "v" => values,
        "s" => ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"],
    )
    .unwrap()
    .lazy()
    .with_columns([
        col("t").cast(DataType::Datetime(TimeUnit::Milliseconds, None)),
        col("t")
            .cast(DataType::Datetime(TimeUnit::Milliseconds, None))
            .cast(DataType::Date)
            .alias("d"),
    ]);
    let windows = |every: &str| DynamicGroupOptions {
        every: Duration::parse(every),
        period: Duration::parse(every),
        offset: Duration::parse("0ns"),
        ..Default::default()
    };
    let aggs = || {
        [
            col("v").sum().alias("sum"),
            col("v").max().alias("max"),
            col("s").first().alias("first s"),
            col("t").last().alias("last t"),
            len().alias("n"),
        ]
    };
    for (name, index, every) in [
        ("timestamps by day", "t", "1d"),
        ("timestamps by 10 days", "t", "10d"),
        ("timestamps by 6 hours", "t", "6h"),
        ("timestamps by week", "t", "1w"),
        ("timestamps by month", "t", "1mo"),
        ("dates by 3 days", "d", "3d"),
        ("dates by quarter", "d", "3mo"),
    ] {
        let lf = frame
            .clone()
            .group_by_dynamic(col(index), [] as [Expr; 0], windows(every))
            .agg(aggs());
        assert_gpu_eq(name, lf);
    }
    // Windows closed on the right, labelled by their ends or their first
    // times, moved by an offset (times on the windows' bounds included:
    // the times fall on whole days and hours).
    for (index, every, offset) in [
        ("t", "1d", "0ns"),
        ("t", "10d", "2d"),
        ("t", "6h", "-1h"),
        ("t", "1w", "3d"),
        ("t", "1mo", "0ns"),
        ("d", "3d", "1d"),
        ("d", "1w", "-2d"),
        ("d", "3mo", "0ns"),
    ] {
        for closed in [ClosedWindow::Left, ClosedWindow::Right] {
            for label in [Label::Left, Label::Right, Label::DataPoint] {
                let months = every.ends_with("mo");
                if months && label == Label::Right {
                    continue;
                }
                let options = DynamicGroupOptions {
                    offset: Duration::parse(offset),
                    closed_window: closed,
                    label,
                    ..windows(every)
                };
                let name = format!("{index} every {every} offset {offset}, {closed:?}, {label:?}");
                let lf = frame
                    .clone()
                    .group_by_dynamic(col(index), [] as [Expr; 0], options)
                    .agg(aggs());
                assert_gpu_eq(&name, lf);
            }
        }
    }
    // By months, windows labelled by their ends, or moved by an offset,
    // stay with Polars (months are not added on the device).
    for (offset, label) in [("0ns", Label::Right), ("1d", Label::Left)] {
        let options = DynamicGroupOptions {
            offset: Duration::parse(offset),
            label,
            ..windows("1mo")
        };
        let lf = frame
            .clone()
            .group_by_dynamic(col("t"), [] as [Expr; 0], options)
            .agg([col("v").sum()]);
        assert_cpu_answer_with_reason(lf, "group_by_dynamic");
    }
    // Times out of order, or a null time: Polars raises, and so does the
    // engine.
    for lf in [
        frame.clone().reverse(),
        frame.clone().with_columns([when(col("v").is_null())
            .then(lit(NULL))
            .otherwise(col("t"))
            .alias("t")]),
    ] {
        assert_cpu_error(
            lf.group_by_dynamic(col("t"), [] as [Expr; 0], windows("1d"))
                .agg([col("v").sum()]),
        );
    }
}

#[test]
fn group_by_dynamic_windows_by_keys_match_the_cpu() {
    // Times sorted within each key's rows, not over the frame; keys of
    // integers (a null among them) and texts (whose row encoding Polars
    // sorts them by: a short text's length first).
    let hours = [5i64, 30, 2, 49, 50, 7, 8, 100, 3, 26, 27, 75];
    let keys = [1i64, 1, 2, 1, 1, 3, 3, 1, 4, 4, 4, 2];
    let frame = df!(
        "h" => hours,
        "g" => keys.map(|k| (k != 4).then_some(k)),
        "s" => keys.map(|k| ["", "bb", "a", "ccc", "d"][k as usize]),
        "v" => [Some(1i64), None, Some(3), Some(-4), Some(5), Some(6), None, Some(8), Some(9), Some(10), Some(11), Some(12)],
    )
    .unwrap()
    .lazy()
    .sort(["g"], SortMultipleOptions::default().with_maintain_order(true))
    .with_columns([(col("h") * lit(3_600_000i64))
        .cast(DataType::Datetime(TimeUnit::Milliseconds, None))
        .alias("t")]);
    let windows = |every: &str, label: Label, closed: ClosedWindow| DynamicGroupOptions {
        every: Duration::parse(every),
        period: Duration::parse(every),
        offset: Duration::parse("0ns"),
        label,
        closed_window: closed,
        ..Default::default()
    };
    let aggs = || {
        [
            col("v").sum().alias("sum"),
            col("h").first().alias("first h"),
            len(),
        ]
    };
    for (keys, every, label, closed) in [
        (vec![col("g")], "1d", Label::Left, ClosedWindow::Left),
        (vec![col("s")], "12h", Label::Right, ClosedWindow::Right),
        (
            vec![col("s"), col("g")],
            "1d",
            Label::DataPoint,
            ClosedWindow::Left,
        ),
        (
            vec![(col("g") * lit(10)).alias("tens")],
            "2d",
            Label::Left,
            ClosedWindow::Right,
        ),
    ] {
        let name = format!("by {keys:?} every {every}, {label:?}, {closed:?}");
        let lf = frame
            .clone()
            .group_by_dynamic(col("t"), keys, windows(every, label, closed))
            .agg(aggs());
        assert_gpu_eq(&name, lf);
    }
    // Times out of order within a key's rows: Polars raises, and so does
    // the engine.
    assert_cpu_error(
        frame
            .clone()
            .sort(["v"], Default::default())
            .group_by_dynamic(
                col("t"),
                [col("s")],
                windows("1d", Label::Left, ClosedWindow::Left),
            )
            .agg(aggs()),
    );
}

#[test]
fn group_by_dynamic_windows_of_integers_match_the_cpu() {
    // An index of integers (i32 and i64, negative too), in windows of
    // integer durations ("3i"), as Polars takes them: timestamps of
    // nanoseconds.
    let index = [-7i64, -5, -4, -1, 0, 0, 2, 3, 8, 9, 15, 16];
    let frame = df!(
        "i" => index,
        "v" => [Some(1i64), None, Some(3), Some(-4), Some(5), Some(6), None, Some(8), Some(9), Some(10), Some(11), Some(12)],
        "g" => [1i64, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2],
    )
    .unwrap()
    .lazy()
    .with_columns([col("i").cast(DataType::Int32).alias("i32")]);
    let aggs = || [col("v").sum().alias("sum"), len()];
    for index in ["i", "i32"] {
        for (every, offset) in [("3i", "0i"), ("2i", "1i"), ("5i", "-2i")] {
            for label in [Label::Left, Label::Right, Label::DataPoint] {
                for closed in [ClosedWindow::Left, ClosedWindow::Right] {
                    let options = DynamicGroupOptions {
                        every: Duration::parse(every),
                        period: Duration::parse(every),
                        offset: Duration::parse(offset),
                        label,
                        closed_window: closed,
                        ..Default::default()
                    };
                    let name =
                        format!("{index} every {every} offset {offset}, {label:?}, {closed:?}");
                    let lf = frame
                        .clone()
                        .group_by_dynamic(col(index), [col("g")], options)
                        .agg(aggs());
                    assert_gpu_eq(&name, lf);
                }
            }
        }
    }
    // Durations of the other kind (of time for integers, of integers for
    // timestamps): Polars raises, and so does the engine.
    let of = |every: &str| DynamicGroupOptions {
        every: Duration::parse(every),
        period: Duration::parse(every),
        offset: Duration::parse("0ns"),
        ..Default::default()
    };
    assert_cpu_error(
        frame
            .clone()
            .group_by_dynamic(col("i"), [] as [Expr; 0], of("2d"))
            .agg(aggs()),
    );
    assert_cpu_error(
        frame
            .with_columns([col("i").cast(DataType::Datetime(TimeUnit::Milliseconds, None))])
            .group_by_dynamic(col("i"), [] as [Expr; 0], of("2i"))
            .agg(aggs()),
    );
}

#[test]
fn group_by_dynamic_boundaries_match_the_cpu() {
    // `include_boundaries`: each window's start and end (its start and
    // the period) before the time column, of the time's type (integers of
    // integers).
    let day = 86_400_000i64;
    let times = [0, 1, 2, 9, 10, 40, 41, 75].map(|d| d * day + d * 3_600_000);
    let frame = df!(
        "t" => times,
        "v" => [Some(1i64), None, Some(3), Some(-4), Some(5), Some(6), None, Some(8)],
        "k" => [1i32, 1, 2, 2, 1, 1, 2, 1],
    )
    .unwrap()
    .lazy()
    .with_columns([
        col("t").alias("i"),
        col("t").cast(DataType::Datetime(TimeUnit::Milliseconds, None)),
    ]);
    let options = |every: &str, offset: &str, label, closed| DynamicGroupOptions {
        every: Duration::parse(every),
        period: Duration::parse(every),
        offset: Duration::parse(offset),
        label,
        closed_window: closed,
        include_boundaries: true,
        ..Default::default()
    };
    for (index, every, offset) in [
        ("t", "3d", "0ns"),
        ("t", "6h", "-1h"),
        ("t", "1w", "2d"),
        ("i", "259200000i", "0i"),
    ] {
        for label in [Label::Left, Label::Right, Label::DataPoint] {
            for closed in [ClosedWindow::Left, ClosedWindow::Right] {
                for keys in [vec![], vec![col("k")]] {
                    let name = format!(
                        "{index} every {every} offset {offset}, {label:?}, {closed:?}, {} keys",
                        keys.len()
                    );
                    let lf = frame
                        .clone()
                        .group_by_dynamic(col(index), keys, options(every, offset, label, closed))
                        .agg([col("v").sum().alias("sum"), len().alias("n")]);
                    assert_gpu_eq(&name, lf);
                }
            }
        }
    }
    // By months (an end months on) and of dates (Polars' plan types the
    // boundaries as dates, its engine as timestamps), they stay with
    // Polars.
    let dates = frame.with_columns([col("t").cast(DataType::Date).alias("d")]);
    for (index, every, reason) in [
        ("t", "1mo", "group_by_dynamic by months"),
        ("d", "3d", "group_by_dynamic of dates with boundaries"),
    ] {
        let options = options(every, "0ns", Label::Left, ClosedWindow::Left);
        let lf = dates
            .clone()
            .group_by_dynamic(col(index), [] as [Expr; 0], options)
            .agg([col("v").sum()]);
        assert_cpu_answer_with_reason(lf, reason);
    }
}

#[test]
fn group_by_dynamic_windows_of_any_period_match_the_cpu() {
    // Windows longer than `every` (overlapping) and shorter (gaps between
    // them), closed on either side, both or neither, from the first
    // time's window or from the first time itself, moved by offsets
    // (beyond `every` too), labelled every way, with boundaries, with and
    // without keys; times on the windows' bounds and between them.
    let hour = 3_600_000i64;
    let hours = [0i64, 1, 2, 6, 24, 25, 49, 50, 51, 120, 121, 300];
    let frame = df!(
        "t" => hours.map(|h| h * hour + 30 * 60_000 * (h % 2)),
        "v" => [Some(1i64), None, Some(3), Some(-4), Some(5), Some(6), None, Some(8), Some(9), Some(10), Some(11), Some(12)],
        "f" => [0.1f64, 0.2, 0.3, -0.0, 1e300, 1.5, f64::NAN, 2.5, 0.7, 0.9, -1.25, 3.0],
        "s" => ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"],
        "k" => [1i64, 2, 1, 1, 2, 2, 1, 2, 1, 1, 2, 1],
    )
    .unwrap()
    .lazy()
    .with_columns([
        col("t").alias("i"),
        col("t").cast(DataType::Datetime(TimeUnit::Milliseconds, None)),
    ])
    .with_columns([col("t").cast(DataType::Date).alias("d")]);
    let kept = || {
        vec![
            len().alias("n"),
            col("v").count().alias("count"),
            col("s").first().alias("first s"),
            col("v").last().alias("last v"),
            col("s").max().alias("max s"),
            col("v").n_unique().alias("distinct v"),
        ]
    };
    // Of overlapping windows, as Polars' rolling kernels walk them from
    // window to window (float sums and moments to the bit; NaN, -0.0).
    let summed = || {
        [
            col("f").sum().alias("sum f"),
            col("v").mean().alias("mean v"),
            col("f").mean().alias("mean f"),
            col("f").min().alias("min f"),
            col("f").max().alias("max f"),
            col("v").sum().alias("sum v"),
            col("v").median().alias("median v"),
            col("v")
                .quantile(lit(0.7), QuantileMethod::Linear)
                .alias("quantile v"),
            col("f").cast(DataType::Float32).mean().alias("mean f32"),
            ((col("f") * lit(2.0)).sum() / len().cast(DataType::Float64)).alias("expression"),
            // (A product Polars takes as any group's beside a walked sum.)
            (col("f").product() - col("f").sum()).alias("mixed"),
        ]
    };
    let closings = [
        ClosedWindow::Left,
        ClosedWindow::Right,
        ClosedWindow::Both,
        ClosedWindow::None,
    ];
    let labels = [Label::Left, Label::Right, Label::DataPoint];
    for (case, (index, every, period, offset)) in [
        ("t", "1d", "2d", "0ns"),
        ("t", "1d", "1d", "0ns"),
        ("t", "2d", "1d", "0ns"),
        ("t", "6h", "1d", "-3h"),
        ("t", "1d", "36h", "1h"),
        ("t", "1d", "5h", "-50h"),
        ("t", "1w", "3d", "0ns"),
        ("d", "2d", "5d", "0ns"),
        ("d", "3d", "1d", "-1d"),
        ("i", "7200000i", "10800000i", "0i"),
    ]
    .into_iter()
    .enumerate()
    {
        for (turn, closed) in closings.into_iter().enumerate() {
            // As Polars tells overlapping windows.
            let span = |d: &str| Duration::parse(d).duration_ns();
            let overlapping = span(period) > span(every)
                || span(period) == span(every) && closed == ClosedWindow::Both;
            // A start by a weekday now and then (of times and dates).
            let mut starts = vec![StartBy::WindowBound, StartBy::DataPoint];
            if index != "i" && (case + turn) % 3 == 0 {
                starts.push([StartBy::Wednesday, StartBy::Sunday][case % 2]);
            }
            for start_by in starts {
                // Each label in turn, with keys where windows end them.
                let label = labels[(case + turn) % 3];
                let keys = match label {
                    Label::Right => vec![col("k")],
                    _ => vec![],
                };
                let options = DynamicGroupOptions {
                    every: Duration::parse(every),
                    period: Duration::parse(period),
                    offset: Duration::parse(offset),
                    closed_window: closed,
                    label,
                    start_by,
                    include_boundaries: index == "t" && start_by == StartBy::DataPoint,
                    ..Default::default()
                };
                let mut aggs = kept();
                aggs.extend(summed());
                if overlapping && keys.is_empty() {
                    // Walked too. (With keys, and of windows apart, Polars
                    // answers a window of no valid value or one infinite
                    // by its own path.)
                    aggs.push(col("f").var(1).alias("var f"));
                }
                let name = format!(
                    "{index} every {every} period {period} offset {offset}, {closed:?}, \
                     {start_by:?}, {label:?}, {} keys",
                    keys.len()
                );
                let lf = frame
                    .clone()
                    .group_by_dynamic(col(index), keys, options)
                    .agg(aggs);
                assert_gpu_eq(&name, lf);
            }
        }
    }
    // Slices Polars pushes into the windows (from the end too), of tiling
    // and of overlapping windows.
    for (every, period, offset, len) in [("1d", "1d", 1, 3), ("1d", "2d", -2, 5)] {
        let options = DynamicGroupOptions {
            every: Duration::parse(every),
            period: Duration::parse(period),
            offset: Duration::parse("0ns"),
            include_boundaries: true,
            ..Default::default()
        };
        let lf = frame
            .clone()
            .group_by_dynamic(col("t"), [col("k")], options)
            .agg(kept())
            .slice(offset, len);
        assert_gpu_eq(&format!("every {every} period {period}, sliced"), lf);
    }
    // Standard deviations over overlapping windows: Polars takes the
    // variance's `powf(0.5)`, which the host computes. Places of extremes
    // stay with Polars; so does one window alone, which Polars aggregates
    // as any group.
    let overlapping = DynamicGroupOptions {
        every: Duration::parse("1d"),
        period: Duration::parse("2d"),
        offset: Duration::parse("0ns"),
        ..Default::default()
    };
    assert_gpu_eq(
        "standard deviations over overlapping windows",
        frame
            .clone()
            .group_by_dynamic(col("t"), [] as [Expr; 0], overlapping.clone())
            .agg([col("f").std(1), col("v").std(0).alias("v")]),
    );
    assert_cpu_answer_with_reason(
        frame
            .clone()
            .group_by_dynamic(col("t"), [] as [Expr; 0], overlapping.clone())
            .agg([col("f").arg_min()]),
        "in a group_by_dynamic of overlapping windows",
    );
    // No rows, no windows.
    assert_gpu_eq(
        "overlapping windows of no rows",
        frame
            .clone()
            .filter(col("v").gt(lit(100)))
            .group_by_dynamic(col("t"), [] as [Expr; 0], overlapping.clone())
            .agg([
                col("f").mean(),
                col("v").var(1).alias("var"),
                col("s").max(),
            ]),
    );
    let alone = DynamicGroupOptions {
        start_by: StartBy::DataPoint,
        ..overlapping.clone()
    };
    assert_cpu_answer_with_reason(
        frame
            .clone()
            .limit(1)
            .group_by_dynamic(col("t"), [] as [Expr; 0], alone)
            .agg([col("f").mean()]),
        "with one window",
    );
    // Windows by months of another period stay with Polars.
    let months = DynamicGroupOptions {
        every: Duration::parse("1mo"),
        period: Duration::parse("2mo"),
        ..overlapping
    };
    assert_cpu_answer_with_reason(
        frame
            .clone()
            .group_by_dynamic(col("t"), [] as [Expr; 0], months)
            .agg([len()]),
        "group_by_dynamic by months",
    );
    // A start by a weekday of integers stays with Polars.
    let options = DynamicGroupOptions {
        every: Duration::parse("2i"),
        period: Duration::parse("3i"),
        offset: Duration::parse("0i"),
        start_by: StartBy::Monday,
        ..Default::default()
    };
    assert_cpu_answer_with_reason(
        frame
            .group_by_dynamic(col("i"), [] as [Expr; 0], options)
            .agg([len()]),
        "windows started by a weekday",
    );
}
