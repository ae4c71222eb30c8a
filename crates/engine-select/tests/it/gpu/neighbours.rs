//! Functions of each row's neighbours and place on the device: peaks, changes in percent, interpolation of nulls, and `int_range`'s numbers of rows and `repeat`'s literal on every row (of a frame, a window's or a group's).

use super::*;

#[test]
fn peaks_match_the_cpu() {
    let frame = || {
        df!(
            "i" => [Some(3i32), Some(1), Some(4), None, Some(5), Some(9), Some(2), Some(6)],
            "u" => [0u8, 2, 1, 1, 3, 0, 0, 1],
            "b" => [Some(true), Some(false), Some(true), Some(true), None, Some(false), Some(true), Some(false)],
            "f" => [-1.0f64, -0.0, 0.0, f64::NAN, 1.0, f64::NAN, f64::INFINITY, -2.0],
        )
        .unwrap()
        .lazy()
    };
    assert_gpu_eq(
        "peak_max and peak_min, the edges against 0",
        frame().select([
            col("i").peak_max().alias("i max"),
            col("i").peak_min().alias("i min"),
            col("u").peak_max().alias("u max"),
            col("u").peak_min().alias("u min"),
            col("b").peak_max().alias("b max"),
            col("f").peak_max().alias("f max"),
            col("f").peak_min().alias("f min"),
            (col("i") * lit(2)).peak_max().alias("of an expression"),
        ]),
    );
    assert_gpu_eq(
        "peaks of a filtered frame, and of one row",
        frame()
            .filter(col("i").is_not_null())
            .select([col("i").peak_max()])
            .join(
                frame().slice(0, 1).select([col("f").peak_min()]),
                [lit(1)],
                [lit(1)],
                JoinArgs::new(JoinType::Left),
            ),
    );
}

#[test]
fn percent_changes_match_the_cpu() {
    let frame = || {
        table().with_columns([
            col("u").cast(DataType::UInt8).alias("u8"),
            col("f").cast(DataType::Float32).alias("f32"),
        ])
    };
    let mut exprs = Vec::new();
    for (column, n) in [
        ("i", 1),
        ("k", 2),
        ("u8", -1),
        ("f", 1),
        ("f", 0),
        ("f32", -2),
    ] {
        exprs.push(
            col(column)
                .pct_change(lit(n))
                .alias(format!("{column} by {n}")),
        );
    }
    assert_gpu_eq("pct_change over the frame", frame().select(exprs));
    assert_gpu_eq(
        "pct_change within groups",
        groups().select([
            col("v")
                .pct_change(lit(1))
                .over([col("g")])
                .unwrap()
                .alias("v"),
            col("x")
                .pct_change(lit(-1))
                .over([col("h")])
                .unwrap()
                .alias("x"),
        ]),
    );
}

#[test]
fn int_ranges_numbering_rows_match_the_cpu() {
    let range = |start: i64, end: Expr, dtype: DataType| int_range(lit(start), end, 1, dtype);
    assert_gpu_eq(
        "int_range of each window's rows",
        groups().with_columns([
            range(0, len(), DataType::Int64)
                .over([col("g")])
                .unwrap()
                .alias("place in g"),
            range(1, len() + lit(1), DataType::UInt32)
                .over([col("g"), col("h")])
                .unwrap()
                .alias("from 1 in g, h"),
        ]),
    );
    assert_gpu_eq(
        "int_range in an aggregation",
        groups()
            .group_by([col("h")])
            .agg([
                (range(0, len(), DataType::Int64) * col("v"))
                    .sum()
                    .alias("weighted"),
                range(-2, lit(-2) + len(), DataType::Int32)
                    .max()
                    .alias("last place"),
            ])
            .sort(["h"], Default::default()),
    );
    assert_gpu_eq(
        "int_range of the frame's rows",
        groups().with_columns([
            range(0, len(), DataType::Int64).alias("i"),
            range(5, len() + lit(5), DataType::UInt32).alias("from 5"),
        ]),
    );
    assert_gpu_eq(
        "int_range alone, and in a filter",
        groups()
            .filter((range(0, len(), DataType::Int64) % lit(3)).eq(lit(1)))
            .select([range(-1, len() - lit(1), DataType::Int16).alias("i")]),
    );
    assert_gpu_eq(
        "int_range of a frame of no columns",
        groups().select([
            range(0, len(), DataType::Int64).alias("i"),
            lit(7).alias("seven"),
        ]),
    );
    assert_gpu_eq(
        "int_range of an empty frame",
        groups()
            .filter(col("v").gt(lit(1e300)))
            .with_columns([range(0, len(), DataType::Int64).alias("i")]),
    );
    assert_cpu_answer_with_reason(
        groups().select([int_range(lit(0), len(), 2, DataType::Int64).alias("i")]),
        "int_range other than of the rows",
    );
}

/// `repeat(value, len())`: a literal on every row of the frame, of a
/// window's partition or of a group (as a list, or aggregated), of no rows
/// too; repeats of a count read from the rows stay with Polars (of a
/// literal count they are Series literals: see `series_literals`).
#[test]
fn repeats_as_many_as_the_rows_match_the_cpu() {
    let each = |value: Expr| repeat(value, len());
    assert_gpu_eq(
        "beside the columns",
        groups().with_columns([
            each(lit(7)).alias("seven"),
            each(lit("a")).alias("a"),
            each(lit(-0.0)).alias("zero"),
            each(lit(NULL).cast(DataType::Int64)).alias("none"),
        ]),
    );
    assert_gpu_eq(
        "alone in a select",
        groups().select([each(lit(true)).alias("t")]),
    );
    assert_gpu_eq(
        "in windows and arithmetic",
        groups().select([
            (each(lit(2i64)).cum_sum(false).over([col("g")]).unwrap() * col("v")).alias("w"),
        ]),
    );
    assert_gpu_eq(
        "per group",
        groups().group_by_stable([col("g")]).agg([
            each(lit(1.5)).sum().alias("sum"),
            each(lit(4i64)).alias("list"),
            int_range(lit(0), len(), 1, DataType::Int64).alias("places"),
        ]),
    );
    assert_gpu_eq(
        "of no rows",
        groups()
            .filter(col("v").gt(lit(1e300)))
            .with_columns([each(lit(3)).alias("three")]),
    );
    assert_cpu_answer_with_reason(
        groups().select([repeat(lit(7), col("v").count()).alias("r")]),
        "repeat other than as many times as there are rows",
    );
}

#[test]
fn interpolations_match_the_cpu() {
    // Gaps of one and of several nulls, nulls before the first and after
    // the last valid value, NaN and infinities as valid values, extremes
    // whose differences wrap, timestamps before 1970 (the slope divided
    // toward zero).
    let frame = || {
        df!(
            "g" => [1i64, 1, 1, 1, 2, 2, 2, 1, 2, 1, 1, 2],
            "f" => [None, Some(1.0f64), None, None, Some(-0.5), None, Some(f64::NAN), Some(4.0), None, None, Some(f64::INFINITY), None],
            "i" => [Some(7i64), None, None, Some(-2), None, Some(i64::MAX), None, Some(i64::MIN), Some(3), None, None, Some(10)],
            "u" => [Some(3u8), None, Some(250), None, None, Some(1), Some(0), None, None, Some(9), None, Some(2)],
            "t" => [Some(-1_000_003i64), None, None, Some(5_000_000), None, Some(-7), None, None, Some(86_400_000_001), None, Some(1), None],
            "d" => [Some(-10i32), None, None, Some(3), Some(19_000), None, None, Some(19_001), None, Some(-1), None, Some(0)],
        )
        .unwrap()
        .lazy()
        .with_columns([
            col("f").cast(DataType::Float32).alias("f32"),
            col("t")
                .cast(DataType::Datetime(TimeUnit::Microseconds, None))
                .alias("ts"),
            col("t").cast(DataType::Duration(TimeUnit::Milliseconds)).alias("dur"),
            col("d").cast(DataType::Date).alias("date"),
            (col("t").abs() * lit(997i64) % lit(86_400_000_000_000i64))
                .cast(DataType::Time)
                .alias("time"),
            col("t")
                .cast(DataType::Datetime(
                    TimeUnit::Milliseconds,
                    Some(TimeZone::opt_try_new(Some("Europe/Amsterdam")).unwrap().unwrap()),
                ))
                .alias("zoned"),
        ])
    };
    let both = |column: &str| {
        [
            col(column)
                .interpolate(InterpolationMethod::Linear)
                .alias(format!("{column} linear")),
            col(column)
                .interpolate(InterpolationMethod::Nearest)
                .alias(format!("{column} nearest")),
        ]
    };
    let columns = ["f", "f32", "i", "u", "ts", "dur", "date", "time", "zoned"];
    assert_gpu_eq(
        "interpolations of a frame",
        frame().select(columns.into_iter().flat_map(both).collect::<Vec<_>>()),
    );
    let within = |column: &str| both(column).map(|e| e.over([col("g")]).unwrap());
    assert_gpu_eq(
        "interpolations within windows",
        frame().select(columns.into_iter().flat_map(within).collect::<Vec<_>>()),
    );
    assert_gpu_eq(
        "interpolations of a sum of rows, and per group",
        frame()
            .group_by_stable([col("g")])
            .agg([(col("f") + col("i").cast(DataType::Float64))
                .interpolate(InterpolationMethod::Linear)
                .sum()
                .alias("sum of a linear interpolation")]),
    );
}
