//! The reasons users read: a corpus of refused queries, one or more per family of refusal, their reasons in one snapshot (`reasons.txt`), each checked for the engine's internal notation.

use expect_test::expect_file;
use polars::prelude::*;

use crate::{customers, explain, orders};

/// A frame of list, struct and decimal columns beside the orders' kinds.
fn nested() -> LazyFrame {
    let lists = Series::new(
        "l".into(),
        [
            Some(Series::new("".into(), [1.5f64, 2.0])),
            None,
            Some(Series::new("".into(), [3.0f64])),
        ],
    );
    let ints = Series::new(
        "li".into(),
        [
            Some(Series::new("".into(), [1i64, 2])),
            Some(Series::new("".into(), [3i64])),
            None,
        ],
    );
    let mut df = df!(
        "k" => [1i64, 2, 3],
        "t" => ["a-b", "c", "d-e-f"],
    )
    .unwrap();
    df.with_column(lists.into()).unwrap();
    df.with_column(ints.into()).unwrap();
    df.lazy().with_columns([
        as_struct(vec![col("k"), col("t")]).alias("s"),
        col("k").cast(DataType::Decimal(10, 2)).alias("d"),
    ])
}

/// A claim of values sorted ascending (`set_sorted`).
fn ascending() -> polars_plan::plans::AExprSorted {
    polars_plan::plans::AExprSorted {
        descending: Some(false),
        nulls_last: None,
    }
}

/// Polars' `join_asof` (backward, sortedness checked) as `change` leaves it.
fn asof(change: impl FnOnce(&mut AsOfOptions)) -> JoinArgs {
    let mut options = AsOfOptions {
        allow_eq: true,
        check_sortedness: true,
        ..Default::default()
    };
    change(&mut options);
    JoinArgs::new(JoinType::AsOf(Box::new(options)))
}

/// Each query the GPU refuses, named by what it tries.
fn refused() -> Vec<(&'static str, LazyFrame)> {
    let o = orders;
    let status = || col("status").str();
    // Windows of three days every day (overlapping) over the orders.
    let three_days = |aggs: Vec<Expr>| {
        let options = DynamicGroupOptions {
            every: Duration::parse("1d"),
            period: Duration::parse("3d"),
            offset: Duration::parse("0ns"),
            ..Default::default()
        };
        o().group_by_dynamic(col("day"), [] as [Expr; 0], options)
            .agg(aggs)
    };
    // A rolling group-by of the orders over the two days up to each.
    let by_days = |aggs: Vec<Expr>| {
        o().sort(["day"], Default::default())
            .rolling(
                col("day"),
                [],
                RollingGroupOptions {
                    index_column: "day".into(),
                    period: Duration::parse("2d"),
                    offset: Duration::parse("-2d"),
                    closed_window: ClosedWindow::Right,
                },
            )
            .agg(aggs)
    };
    // The days as timestamps put in Amsterdam's zone.
    let in_amsterdam = |ambiguous: Expr, non_existent: NonExistent| {
        col("day")
            .cast(DataType::Datetime(TimeUnit::Microseconds, None))
            .dt()
            .replace_time_zone(
                TimeZone::opt_try_new(Some("Europe/Amsterdam")).unwrap(),
                ambiguous,
                non_existent,
            )
    };
    vec![
        // Functions and expressions.
        (
            "a running product of dates",
            o().select([col("day").cum_prod(false)]),
        ),
        (
            "distinct floats sorted over the frame",
            o().select([col("amount").unique().sort(Default::default())]),
        ),
        (
            "a logarithm by a null base",
            o().select([col("amount").log(lit(NULL).cast(DataType::Float64))]),
        ),
        (
            "a fold of a literal start (a user's function)",
            o().select([fold_exprs(
                lit(0i64),
                PlanCallback::new(|(a, b): (Series, Series)| &a + &b),
                [col("qty"), col("qty")],
                false,
                None,
            )]),
        ),
        (
            "a bitwise and of floats",
            o().select([col("amount").and(col("amount"))]),
        ),
        (
            "a filter by `&` of floats (all_horizontal of a count and a float)",
            o().filter(all_horizontal([len(), col("amount")]).unwrap()),
        ),
        (
            "the place of a value that is not a literal",
            o().select([col("qty").index_of(col("qty").max())]),
        ),
        (
            "the most frequent values and their sum per group",
            o().group_by([col("status")])
                .agg([col("qty").mode(true).sum()]),
        ),
        (
            "replacements of many patterns, one empty",
            o().select([status().replace_many(
                lit(Series::new("".into(), ["a", ""])).implode(false),
                lit(Series::new("".into(), ["b"])).implode(false),
                false,
                false,
            )]),
        ),
        (
            "values claimed sorted: floats",
            o().with_columns([col("amount").set_sorted_flag(ascending())]),
        ),
        (
            "values claimed sorted per group",
            o().group_by([col("status")])
                .agg([col("qty").set_sorted_flag(ascending()).max()]),
        ),
        (
            "decimals as Polars holds them (i128)",
            o().select([col("qty").cast(DataType::Decimal(10, 2)).to_physical()]),
        ),
        (
            "replace of decimals",
            o().select([col("qty").cast(DataType::Decimal(10, 2)).replace(
                lit(Series::new("".into(), [1i64])),
                lit(Series::new("".into(), [2i64])),
            )]),
        ),
        (
            "a rolling median of no least count, and weighted rolling sums",
            o().select([
                col("amount").rolling_median(RollingOptionsFixedWindow {
                    min_periods: 0,
                    ..Default::default()
                }),
                col("amount")
                    .rolling_sum(RollingOptionsFixedWindow {
                        window_size: 2,
                        weights: Some(vec![1.0, 0.5]),
                        ..Default::default()
                    })
                    .alias("weighted"),
            ]),
        ),
        (
            "a rolling median by times, and windows by months",
            o().select([
                col("amount").rolling_quantile_by(
                    col("day"),
                    QuantileMethod::Linear,
                    0.5,
                    RollingOptionsDynamicWindow {
                        window_size: Duration::parse("2d"),
                        min_periods: 1,
                        closed_window: ClosedWindow::Right,
                        fn_params: None,
                    },
                ),
                col("amount")
                    .rolling_sum_by(
                        col("day"),
                        RollingOptionsDynamicWindow {
                            window_size: Duration::parse("1mo"),
                            min_periods: 1,
                            closed_window: ClosedWindow::Right,
                            fn_params: None,
                        },
                    )
                    .alias("monthly"),
            ]),
        ),
        (
            "a rolling group-by's places of extremes",
            by_days(vec![col("amount").arg_max(), col("qty").sum()]),
        ),
        (
            "a rolling group-by's sum of a head",
            by_days(vec![col("amount").head(Some(2)).sum()]),
        ),
        (
            "a rolling group-by's maximum of filtered floats",
            by_days(vec![col("amount").filter(col("qty").gt(lit(1))).max()]),
        ),
        (
            "a rolling group-by by float keys",
            o().sort(["day"], Default::default())
                .rolling(
                    col("day"),
                    [col("amount")],
                    RollingGroupOptions {
                        index_column: "day".into(),
                        period: Duration::parse("2d"),
                        offset: Duration::parse("-2d"),
                        closed_window: ClosedWindow::Right,
                    },
                )
                .agg([col("qty").sum()]),
        ),
        (
            "arithmetic of the Null type",
            o().with_columns([lit(NULL).alias("n")])
                .select([(col("n") * col("n")).alias("nothing"), col("id")]),
        ),
        (
            "a shift by a column",
            o().select([col("qty").shift(col("qty").max())]),
        ),
        (
            "a peak per group",
            o().select([col("qty").peak_max().over([col("status")]).unwrap()]),
        ),
        (
            "an entropy of f32",
            o().select([col("amount").cast(DataType::Float32).entropy(2.0, true)]),
        ),
        (
            "a power of integers by a negative exponent",
            o().select([col("qty").pow(lit(-2))]),
        ),
        (
            "a list of a column beside a scalar",
            o().select([col("qty").implode(true).list().get(col("qty"), true)]),
        ),
        // Strings.
        (
            "a regex with a Unicode word boundary",
            o().select([status().contains(lit(r"\bo"), true)]),
        ),
        (
            "a replacement with a capture group in a repetition",
            o().select([status().replace(lit("(o)+"), lit("$1$1"), false)]),
        ),
        (
            "a slice by float bounds",
            o().select([status().slice(col("amount"), lit(2u64))]),
        ),
        (
            "a group in a repetition",
            o().select([status().extract(lit(r"(\w)+"), 1)]),
        ),
        (
            "a split by a column",
            o().select([status().split(col("status"))]),
        ),
        (
            "a split into a struct by a column",
            o().select([status().split_exact(col("status"), 1)]),
        ),
        (
            "text as a list of its characters, joined by a column",
            o().select([status().split(lit("")).list().join(col("status"), true)]),
        ),
        (
            "a date parsed in an unsupported format",
            o().select([status().to_date(StrptimeOptions {
                format: Some("%A %d".into()),
                ..Default::default()
            })]),
        ),
        // Dates and times.
        (
            "a date formatted in a format of a column",
            o().select([col("day").dt().strftime("%Y-%U")]),
        ),
        (
            "a date truncated by a column",
            o().select([col("day").dt().truncate(col("status"))]),
        ),
        // Lists, structs, decimals.
        (
            "a list's differences, the first values dropped",
            nested().select([col("l")
                .list()
                .diff(1, polars::series::ops::NullBehavior::Drop)]),
        ),
        (
            "a list of floats evaluated into its distinct values",
            nested().select([col("l").list().eval(element().unique())]),
        ),
        (
            "an item of a list made by a literal",
            nested().select([(col("k") * lit(0i64))
                .implode(false)
                .list()
                .get(lit(0), true)]),
        ),
        (
            "the differences within lists of decimals",
            nested().select([concat_list([col("d"), col("d")])
                .unwrap()
                .list()
                .diff(1, polars::series::ops::NullBehavior::Ignore)]),
        ),
        (
            "a list's item at an aggregation",
            nested().select([col("li").list().get(col("k").max(), true)]),
        ),
        (
            "lists compared with a first list",
            nested().select([col("li").eq(col("li").first())]),
        ),
        ("lists ordered", nested().select([col("li").lt(col("li"))])),
        (
            "a list sliced from an aggregation",
            nested().select([col("li").list().slice(col("k").min(), col("k"))]),
        ),
        (
            "a list's head by a float length of each row",
            nested().select([col("li").list().head(col("k").cast(DataType::Float64))]),
        ),
        (
            "a list sliced by a literal float length",
            nested().select([col("li").list().slice(col("k"), lit(1.5))]),
        ),
        (
            "a list evaluated into a literal (Polars repeats it)",
            nested().select([col("li").list().eval(lit(1i64))]),
        ),
        (
            "lists of lists as group keys",
            nested()
                .group_by([col("k")])
                .agg([col("li")])
                .group_by([col("li")])
                .agg([col("k").sum()]),
        ),
        ("structs compared", nested().filter(col("s").eq(col("s")))),
        (
            "a running sum of decimals",
            nested().select([col("d").cum_sum(false)]),
        ),
        (
            "a horizontal maximum of three floats",
            o().select([polars::lazy::dsl::max_horizontal([
                col("amount"),
                col("amount") * lit(2.0),
                col("amount") + lit(1.0),
            ])
            .unwrap()]),
        ),
        (
            "a horizontal minimum of two floats per group",
            o().group_by([col("status")])
                .agg([polars::lazy::dsl::min_horizontal([
                    col("amount"),
                    col("amount") * lit(2.0),
                ])
                .unwrap()]),
        ),
        (
            "a sort by a horizontal maximum of two floats",
            o().sort_by_exprs(
                [
                    polars::lazy::dsl::max_horizontal([col("amount"), col("amount") * lit(2.0)])
                        .unwrap(),
                ],
                SortMultipleOptions::default(),
            ),
        ),
        (
            "values sorted by two keys, one descending, claimed sorted per group",
            o().group_by([col("status")]).agg([col("id")
                .sort_by(
                    [col("amount"), col("id")],
                    SortMultipleOptions::default().with_order_descending_multi([true, false]),
                )
                .set_sorted_flag(ascending())]),
        ),
        (
            "a horizontal sum of decimals",
            nested()
                .select([polars::lazy::dsl::sum_horizontal([col("d"), col("d")], true).unwrap()]),
        ),
        // Aggregations, windows, group-bys.
        (
            "the modes of floats per group",
            o().group_by([col("status")])
                .agg([col("amount").mode(true)]),
        ),
        (
            "the modes of a window",
            o().select([col("qty")
                .mode(true)
                .over_with_options(Some([col("status")]), None, WindowMapping::Join)
                .unwrap()]),
        ),
        (
            "value_counts beside a column",
            o().select([
                col("status").value_counts(true, false, "n", false),
                col("id"),
            ]),
        ),
        (
            "counts of lists",
            nested().select([col("li").value_counts(true, false, "n", false)]),
        ),
        (
            "counts of a value",
            o().select([col("amount").sum().unique_counts()]),
        ),
        (
            "a window joined to its rows",
            o().select([col("amount")
                .sum()
                .over_with_options(Some([col("status")]), None, WindowMapping::Join)
                .unwrap()]),
        ),
        (
            "a window exploded inside an expression",
            o().select([col("amount")
                .over_with_options(Some([col("status")]), None, WindowMapping::Explode)
                .unwrap()
                + lit(1.0)]),
        ),
        (
            "a window exploded beside a column's length",
            o().select([
                col("status").len(),
                col("amount")
                    .over_with_options(Some([col("status")]), None, WindowMapping::Explode)
                    .unwrap(),
            ]),
        ),
        (
            "windows exploded that may not line up",
            o().select([
                col("amount")
                    .over_with_options(Some([col("status")]), None, WindowMapping::Explode)
                    .unwrap(),
                col("qty")
                    .head(Some(2))
                    .over_with_options(Some([col("status")]), None, WindowMapping::Explode)
                    .unwrap(),
            ]),
        ),
        (
            "windows exploded over different partitions",
            o().select([
                col("amount")
                    .over_with_options(Some([col("status")]), None, WindowMapping::Explode)
                    .unwrap(),
                col("qty")
                    .over_with_options(Some([col("amount")]), None, WindowMapping::Explode)
                    .unwrap(),
            ]),
        ),
        (
            "a slice of the groups of a group-by in no order",
            o().group_by([col("status")])
                .agg([col("amount").sum()])
                .slice(1, 2),
        ),
        (
            "a slice of a full join in no order",
            o().join(
                o().select([col("id"), col("qty")]),
                [col("id")],
                [col("id")],
                JoinArgs::new(JoinType::Full),
            )
            .slice(0, 3),
        ),
        (
            "a full join keeping the left's order alone",
            o().join(
                o().select([col("id"), col("qty")]),
                [col("id")],
                [col("id")],
                JoinArgs {
                    maintain_order: MaintainOrderJoin::Left,
                    ..JoinArgs::new(JoinType::Full)
                },
            ),
        ),
        (
            "distinct floats listed per group",
            o().group_by([col("status")]).agg([col("amount").unique()]),
        ),
        (
            "a text cast to a timestamp in a zone",
            o().select([col("status").cast(DataType::Datetime(
                TimeUnit::Microseconds,
                TimeZone::opt_try_new(Some("UTC")).unwrap(),
            ))]),
        ),
        (
            "a struct holding a list as a join's key",
            nested()
                .with_columns([as_struct(vec![col("k"), col("li")]).alias("sl")])
                .join(
                    nested()
                        .with_columns([as_struct(vec![col("k"), col("li")]).alias("sl")])
                        .select([col("sl"), col("k").alias("other")]),
                    [col("sl")],
                    [col("sl")],
                    JoinArgs::new(JoinType::Inner),
                ),
        ),
        (
            "an entropy per group",
            o().group_by([col("status")])
                .agg([col("amount").entropy(2.0, true)]),
        ),
        (
            "a power of decimals",
            o().select([col("amount").cast(DataType::Decimal(10, 2)).pow(lit(2))]),
        ),
        (
            "a round of integers to significant figures",
            o().select([col("qty").round_sig_figs(2)]),
        ),
        (
            "a repeat of a literal by a column",
            o().select([repeat(lit(1), col("qty").max())]),
        ),
        (
            "the place of each row's regular expression in a text",
            o().select([status().find(col("status"), false)]),
        ),
        (
            "a regex of each row",
            o().select([status().contains(col("status"), false)]),
        ),
        (
            "lists concatenated with an aggregation",
            nested().select([concat_list([col("li"), col("k").max()]).unwrap()]),
        ),
        (
            "a literal number concatenated with lists of u8",
            nested().select([concat_list([
                col("li").cast(DataType::List(Box::new(DataType::UInt8))),
                lit(2),
            ])
            .unwrap()]),
        ),
        (
            "a time zone replaced, ambiguous times resolved by a column",
            o().select([in_amsterdam(col("status"), NonExistent::Raise)]),
        ),
        (
            "a timestamp rounded to months in a time zone",
            o().select([in_amsterdam(lit("earliest"), NonExistent::Null)
                .dt()
                .round(lit("1mo"))]),
        ),
        (
            "a struct's field added of an aggregation",
            nested().select([col("s")
                .struct_()
                .with_fields(vec![col("k").sum().alias("total")])]),
        ),
        (
            "a regex replacement by a column",
            o().select([status().replace_all(lit("o+"), col("status"), false)]),
        ),
        (
            "the first day of the month in a time zone",
            o().select([in_amsterdam(lit("earliest"), NonExistent::Null)
                .dt()
                .month_start()]),
        ),
        (
            "an offset by a month in Amsterdam",
            o().select([in_amsterdam(lit("earliest"), NonExistent::Null)
                .dt()
                .offset_by(lit("1mo"))]),
        ),
        (
            "an interpolation of decimals",
            nested().select([col("d").interpolate(InterpolationMethod::Linear)]),
        ),
        (
            "a median of f32",
            o().select([col("amount").cast(DataType::Float32).median()]),
        ),
        (
            "sums and means of f32",
            o().group_by([col("qty")]).agg([
                col("amount").cast(DataType::Float32).mean().alias("mean"),
                col("amount").cast(DataType::Float32).sum(),
            ]),
        ),
        (
            "the greatest of shifted texts per group",
            o().group_by([col("qty")])
                .agg([col("status").shift(lit(1)).max()]),
        ),
        (
            "a shift of a window's sums",
            o().select([col("amount")
                .sum()
                .over([col("status")])
                .unwrap()
                .shift(lit(1))]),
        ),
        (
            "a rank in an ordered window",
            o().select([col("amount")
                .rank(RankOptions::default(), None)
                .over_with_options(
                    Some([col("status")]),
                    Some(([col("id")], SortOptions::default())),
                    WindowMapping::GroupsToRows,
                )
                .unwrap()]),
        ),
        (
            "an arg_max of text per group",
            o().group_by([col("id")]).agg([col("status").arg_max()]),
        ),
        (
            "a spread of one value",
            o().select([col("amount").max().std(1)]),
        ),
        (
            "a Series literal inside an expression",
            o().select([col("amount") + lit(Series::new("s".into(), [1.0f64, 2.0, 3.0]))]),
        ),
        (
            "a median per group of a datetime of a frame of one row",
            o().slice(0, 1)
                .with_columns([col("day").cast(DataType::Datetime(TimeUnit::Nanoseconds, None))])
                .group_by([col("id")])
                .agg([col("day").median()]),
        ),
        (
            "a cast of dates to durations",
            o().select([col("day").cast(DataType::Duration(TimeUnit::Milliseconds))]),
        ),
        (
            "is_in of a literal in a column",
            o().select([lit(1i64).is_in(col("id").implode(false), false)]),
        ),
        (
            "is_in of a column in an aggregation",
            o().select([col("amount").is_in(col("amount").mean().implode(false), false)]),
        ),
        (
            "a window of a text literal",
            o().select([lit("x").over([col("status")]).unwrap()]),
        ),
        (
            "a window keyed by an aggregation",
            o().select([col("amount").over([col("qty").sum()]).unwrap()]),
        ),
        (
            "a window keyed by a window",
            o().select([col("amount")
                .over([col("qty").cum_sum(false).over([col("status")]).unwrap()])
                .unwrap()]),
        ),
        (
            "a length of aggregated text beside the rows",
            o().with_columns([col("status").min().str().len_bytes().alias("n")]),
        ),
        // Plans.
        (
            "an unpivot of a duration and a text",
            o().with_columns([(col("day") - col("day")).alias("gap")])
                .unpivot(UnpivotArgsDSL {
                    on: Some(by_name(["gap", "status"], true, false)),
                    index: by_name(["id"], true, false),
                    variable_name: None,
                    value_name: None,
                }),
        ),
        (
            "a sort by a list of lists",
            nested()
                .group_by([col("k")])
                .agg([col("li")])
                .sort(["li"], Default::default()),
        ),
        (
            "a coalescing join on keys of i16 and i8",
            o().with_columns([col("qty").cast(DataType::Int16).alias("q")])
                .join(
                    o().with_columns([col("qty").cast(DataType::Int8).alias("q")]),
                    [col("q")],
                    [col("q")],
                    JoinArgs::new(JoinType::Inner),
                ),
        ),
        (
            "a coalescing join naming a right key twice",
            o().join(
                customers(),
                [col("id"), col("customer")],
                [col("customer"), col("customer")],
                JoinArgs::new(JoinType::Left),
            ),
        ),
        (
            "a float sum of values gathered by another's arg_sort",
            o().select([col("amount")
                .gather(col("qty").arg_sort(false, false), true)
                .sum()]),
        ),
        (
            "a list sum after a slice",
            concat([nested(), nested()], UnionArgs::default())
                .unwrap()
                .slice(1, 2)
                .select([col("l").list().sum()]),
        ),
        (
            "a difference of texts in a list.eval",
            o().select([concat_list([col("status")])
                .unwrap()
                .list()
                .eval(element().max() - element().min())]),
        ),
        (
            "a difference of booleans",
            o().select([col("qty").gt(lit(1)) - col("qty").lt(lit(3))]),
        ),
        (
            "the rows a filter keeps of a strict cast",
            o().select([col("amount")
                .strict_cast(DataType::Decimal(3, 0))
                .filter(col("qty").gt(lit(1)))
                .len()]),
        ),
        (
            "a list mean of a union",
            concat([nested(), nested()], UnionArgs::default())
                .unwrap()
                .with_columns([col("l").list().mean().alias("mean")]),
        ),
        (
            "a join_asof by booleans alone",
            o().with_columns([col("qty").gt(lit(3)).alias("big")]).join(
                o().with_columns([col("qty").gt(lit(3)).alias("big")]),
                [col("id")],
                [col("id")],
                asof(|options| {
                    options.left_by = Some(vec!["big".into()]);
                    options.right_by = Some(vec!["big".into()]);
                }),
            ),
        ),
        (
            "a join_asof on float keys within a tolerance that is no number",
            o().join(
                o(),
                [col("amount")],
                [col("amount")],
                asof(|options| {
                    options.strategy = AsofStrategy::Nearest;
                    options.tolerance = Some(Scalar::new(
                        DataType::String,
                        AnyValue::StringOwned("near".into()),
                    ));
                }),
            ),
        ),
        (
            "a join_asof on text keys by the nearest",
            o().join(
                o(),
                [col("status")],
                [col("status")],
                asof(|options| options.strategy = AsofStrategy::Nearest),
            ),
        ),
        (
            "time windows' boundaries named as a column of the result",
            o().group_by_dynamic(
                col("day"),
                [] as [Expr; 0],
                DynamicGroupOptions {
                    every: Duration::parse("1d"),
                    period: Duration::parse("1d"),
                    offset: Duration::parse("0ns"),
                    include_boundaries: true,
                    ..Default::default()
                },
            )
            .agg([col("amount").sum().alias("_upper_boundary")]),
        ),
        (
            "a sum of filtered values over overlapping time windows",
            three_days(vec![
                col("amount")
                    .filter(col("amount").gt(lit(0.0)))
                    .sum()
                    .alias("sum"),
            ]),
        ),
        (
            "windows of integers started by a weekday",
            o().group_by_dynamic(
                col("id"),
                [] as [Expr; 0],
                DynamicGroupOptions {
                    every: Duration::parse("2i"),
                    period: Duration::parse("3i"),
                    offset: Duration::parse("0i"),
                    start_by: StartBy::Monday,
                    ..Default::default()
                },
            )
            .agg([len()]),
        ),
        (
            "integer ranges by a step of a column",
            o().select([int_ranges(
                col("id"),
                col("qty"),
                col("id"),
                DataType::Int64,
            )]),
        ),
        (
            "integer ranges of a single start and end",
            o().select([int_ranges(
                col("id").min(),
                col("qty").max(),
                lit(1),
                DataType::Int64,
            )]),
        ),
        (
            "a mean of a function of the decimals a filter keeps per group",
            nested()
                .group_by([col("t")])
                .agg([col("d").filter(col("k").gt(lit(1))).shift(lit(1)).mean()]),
        ),
        (
            // (Polars computes `(amount * 2 + 1).abs()` once, as a column
            // of its own: the reason writes it out.)
            "a refused function of a common subexpression",
            o().select([
                (col("amount") * lit(2.0) + lit(1.0))
                    .abs()
                    .log(lit(NULL).cast(DataType::Float64))
                    .alias("a"),
                ((col("amount") * lit(2.0) + lit(1.0)).abs() * lit(3.0)).alias("b"),
            ]),
        ),
        (
            "a join_asof with a tolerance beyond the keys' type",
            o().join(
                o(),
                [col("qty")],
                [col("qty")],
                asof(|options| options.tolerance = Some(Scalar::from(i64::MAX))),
            ),
        ),
    ]
}

/// Marks of the engine's own notation that a user should never read: plan
/// column positions (`#3:`), Polars' common-subexpression temporaries,
/// the engine's temporaries and its internal type names.
const INTERNAL: &[&str] = &[
    "__POLARS_CSER",
    "__gpu",
    "GpuDtype",
    "ExprKind",
    "expression program",
    "Some(",
    "None)",
    "SortMultipleOptions",
    // Literals typed as the engine types them (`1:u32`), and the running
    // counts slices lower to.
    ":bool",
    ":u32",
    ":i64",
    "cum_sum(true",
    // A list function's arguments as the lowered plan shows them.
    "null_on_oob=",
    "[ddof=",
];

#[test]
fn every_refusal_reads_in_polars_notation() {
    let mut listing = String::new();
    for (what, lf) in refused() {
        let text = explain(lf);
        assert!(
            text.starts_with("refused: "),
            "{what}: not refused:\n{text}"
        );
        for marker in INTERNAL {
            assert!(!text.contains(marker), "{what}: {marker:?} in\n{text}");
        }
        let positions = text.split('#').skip(1).any(|after| {
            after
                .split(':')
                .next()
                .is_some_and(|n| n.parse::<u32>().is_ok())
        });
        assert!(!positions, "{what}: a column position in\n{text}");
        listing.push_str(&format!("# {what}\n{text}\n"));
    }
    expect_file!["reasons.txt"].assert_eq(&listing);
}
