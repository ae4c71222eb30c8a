//! Series literals as columns on the device (`with_columns(lit(series))`, Python's `with_columns(pl.Series(..))`, and constants of more than one value such as `int_range(0, 5)`): new and replaced columns, beside other expressions, in selects, alone; lengths that differ from the frame's stay with Polars.

use super::*;

fn frame() -> LazyFrame {
    df!(
        "x" => [Some(1i64), None, Some(3), Some(-4)],
        "s" => ["a", "bb", "", "ccc"],
    )
    .unwrap()
    .lazy()
}

fn series<T: AsRef<[Option<i64>]>>(name: &str, values: T) -> Expr {
    lit(Series::new(name.into(), values.as_ref()))
}

#[test]
fn series_literals_as_long_as_the_frame_are_its_columns() {
    let ints = || series("z", [Some(10i64), None, Some(30), Some(40)]);
    let texts = || {
        lit(Series::new(
            "t".into(),
            [Some("p"), None, Some("q"), Some("")],
        ))
    };
    let floats = || lit(Series::new("f".into(), [0.5f64, -0.0, f64::NAN, 2.0]));
    let flags = || lit(Series::new("b".into(), [true, false, true, false]));
    for (name, query) in [
        (
            "new columns",
            frame().with_columns([ints(), texts(), floats(), flags()]),
        ),
        (
            "a column replaced, in its place",
            frame().with_columns([series("x", [Some(7i64), Some(8), None, Some(9)])]),
        ),
        (
            "aliased, beside expressions and an aggregation",
            frame().with_columns([
                ints().alias("renamed"),
                (col("x") * lit(2)).alias("twice"),
                col("x").sum().alias("total"),
            ]),
        ),
        (
            "in a select",
            frame().select([col("s"), texts(), col("x").max()]),
        ),
        ("a select of it alone", frame().select([floats()])),
        (
            "read by the steps after it",
            frame()
                .with_columns([ints()])
                .filter(col("z").is_not_null())
                .select([(col("z") + col("x")).alias("sum")]),
        ),
        (
            "dates",
            frame().with_columns([
                series("d", [Some(1i64), Some(2), None, Some(4)]).cast(DataType::Date)
            ]),
        ),
    ] {
        assert_gpu_eq(name, query);
    }
}

/// Constants of more than one value (`int_range(0, 5)`, `repeat(7, 4)`),
/// which Polars computes into a column, are Series literals too; a select
/// of nothing else is as long as they are, whatever its input.
#[test]
fn constant_columns_are_series_literals() {
    let range = |end: i64| int_range(lit(0), lit(end), 1, DataType::Int64);
    for (name, query) in [
        (
            "a range as long as the frame",
            frame().with_columns([range(4).alias("r")]),
        ),
        (
            "a repeat beside a column",
            frame().select([col("x"), repeat(lit(7), lit(4)).alias("sevens")]),
        ),
        (
            "ranges alone, longer than the frame",
            frame().select([
                range(6).alias("r"),
                (int_range(lit(10), lit(22), 2, DataType::Int32) * lit(2)).alias("even"),
            ]),
        ),
        (
            "a Series alone, shorter than the frame",
            frame().select([series("z", [Some(1i64), None])]),
        ),
    ] {
        assert_gpu_eq(name, query);
    }
}

#[test]
fn series_literals_of_another_length_are_polars_own() {
    // Polars raises on a Series longer or shorter than the frame, even of
    // one value (it asks for a scalar), and on Series of differing lengths.
    for values in [vec![Some(1i64), Some(2)], vec![Some(5)], vec![None; 6]] {
        assert_cpu_error(frame().with_columns([series("z", values)]));
    }
    let one = series("z", [Some(5i64)]);
    let two = series("w", [Some(5i64), Some(6)]);
    assert_cpu_error(frame().select([one, two]));
    assert_cpu_error(
        frame().with_columns([int_range(lit(0), lit(9), 1, DataType::Int64).alias("r")]),
    );
}
