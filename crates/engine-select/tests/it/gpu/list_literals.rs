//! List literals on the device (`lit([1, None, 3])`): one list repeated on every row, in selects and with_columns, per group, read by list functions and exploded.

use super::*;

/// `values` as one list literal (Polars' `lit([..])`).
fn list_of(values: Series) -> Expr {
    let dtype = DataType::List(Box::new(values.dtype().clone()));
    lit(Scalar::new(dtype, AnyValue::List(values)))
}

#[test]
fn list_literals_match_the_cpu() {
    let frame = || {
        df!(
            "g" => [1i64, 1, 2, 2, 2, 3, 1],
            "x" => [Some(10i64), Some(11), None, Some(13), Some(14), Some(15), Some(16)],
        )
        .unwrap()
        .lazy()
    };
    let ints = || list_of(Series::new("".into(), [Some(1i64), None, Some(3)]));
    let texts = || list_of(Series::new("".into(), ["a", "", "zz"]));
    let floats = || list_of(Series::new("".into(), [-0.0f64, f64::NAN, 2.5]));
    for (name, query) in [
        (
            "beside the columns",
            frame().with_columns([
                ints().alias("ints"),
                texts().alias("texts"),
                floats().alias("floats"),
            ]),
        ),
        ("alone, one row", frame().select([ints().alias("ints")])),
        (
            "beside an aggregation",
            frame().select([texts().alias("texts"), col("x").sum()]),
        ),
        (
            "read by list functions",
            frame().with_columns([
                texts().list().len().alias("n"),
                ints().list().sum().alias("sum"),
                (ints().list().get(lit(-1), true) + col("x")).alias("last plus x"),
            ]),
        ),
        (
            "per group",
            frame()
                .group_by_stable([col("g")])
                .agg([ints().alias("ints"), col("x").sum()]),
        ),
        (
            "of no rows",
            frame()
                .filter(lit(false))
                .with_columns([floats().alias("floats")]),
        ),
        (
            "exploded",
            frame().select([ints().explode(super::lists::polars_explode()).alias("e")]),
        ),
    ] {
        assert_gpu_eq(name, query);
    }
    assert_cpu_answer_with_reason(
        frame()
            .with_columns([list_of(Series::new_empty("".into(), &DataType::Int64)).alias("none")]),
        "a list literal of 0 values",
    );
}

/// Functions of literals that make a list (`lit("a b").str.split(" ")`),
/// which Polars computes into one list value: list literals of their values,
/// on every row, read by list functions and exploded; an empty list stays
/// with Polars.
#[test]
fn lists_made_of_literals_match_the_cpu() {
    let frame = || df!("x" => [Some("p q"), None, Some("r")]).unwrap().lazy();
    let split = || lit("a b  c").str().split(lit(" "));
    let found = || lit("x1 y22 z").str().extract_all(lit(r"\d+"));
    for (name, query) in [
        (
            "beside the columns",
            frame().with_columns([split().alias("split"), found().alias("found")]),
        ),
        (
            "read by list functions",
            frame().with_columns([
                split().list().len().alias("n"),
                split().list().get(lit(1), true).alias("second"),
                split().list().join(lit("-"), true).alias("joined"),
            ]),
        ),
        (
            "exploded",
            frame().select([split().explode(super::lists::polars_explode()).alias("e")]),
        ),
        (
            "per group",
            frame()
                .group_by_stable([col("x")])
                .agg([found().alias("found")]),
        ),
    ] {
        assert_gpu_eq(name, query);
    }
    assert_cpu_answer_with_reason(
        frame().with_columns([lit("").str().extract_all(lit("a")).alias("none")]),
        "a list literal of 0 values",
    );
}
