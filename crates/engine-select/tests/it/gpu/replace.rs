//! `replace` and `replace_strict` by literal values on the device: integers, floats, texts, booleans and dates, one new value or one per old value, nulls on either side, defaults, and what falls back.

use super::*;

/// A literal list of `values`.
fn values<T: ?Sized, V>(values: V) -> Expr
where
    Series: NamedFrom<V, T>,
{
    lit(Series::new("".into(), values))
}

#[test]
fn replace_by_literal_values_matches_the_cpu() {
    let frame = || {
        table().with_columns([
            col("i").cast(DataType::Int32).alias("i32"),
            col("u").cast(DataType::UInt8).alias("u8"),
        ])
    };
    assert_gpu_eq(
        "replace of integers, texts, booleans and dates",
        frame().select([
            col("i")
                .replace(values([5i64, -3]), values([50i64, 30]))
                .alias("pairs"),
            col("i")
                .replace(values([5i64, 0]), values([7i64]))
                .alias("one new"),
            col("i")
                .replace(values([Some(5i64), None]), values([Some(1i64), Some(2)]))
                .alias("null old"),
            col("i")
                .replace(values([5i64, -3]), values([None::<i64>, Some(9)]))
                .alias("null new"),
            col("i")
                .replace(values([Some(0i64), None]), values([Some(-1i64)]))
                .alias("null old, one new"),
            col("i32")
                .replace(values([5i64, 0]), values([500i64, 1]))
                .alias("i32 by i64"),
            col("u8")
                .replace(values([1i64, 4]), values([40i64, 10]))
                .alias("u8"),
            col("s")
                .replace(values(["a", ""]), values(["A", "empty"]))
                .alias("texts"),
            col("s")
                .replace(values([None::<&str>]), values(["none"]))
                .alias("null text"),
            col("b")
                .replace(values([true]), values([false]))
                .alias("booleans"),
            col("d")
                .replace(
                    values([Some(19_000i32)]).cast(DataType::Date),
                    date_literal(1),
                )
                .alias("dates"),
            col("i")
                .replace(values(Vec::<i64>::new()), values(Vec::<i64>::new()))
                .alias("none"),
        ]),
    );
}

#[test]
fn replace_strict_with_a_default_matches_the_cpu() {
    assert_gpu_eq(
        "replace_strict with defaults",
        table().select([
            col("i")
                .replace_strict(
                    values([5i64, -3, 0]),
                    values([1.5f64, 2.5, 3.5]),
                    Some(lit(0.0)),
                    None::<DataType>,
                )
                .alias("floats"),
            col("i")
                .replace_strict(
                    values([5i64]),
                    values([1i64]),
                    Some(col("k")),
                    None::<DataType>,
                )
                .alias("column default"),
            col("s")
                .replace_strict(
                    values([Some("a"), None]),
                    values([Some(1i64), Some(2)]),
                    Some(lit(-1i64)),
                    None::<DataType>,
                )
                .alias("texts to numbers"),
            col("u")
                .replace_strict(
                    values([1i64, 2, 4]),
                    values(["one", "two", "four"]),
                    Some(lit("other")),
                    None::<DataType>,
                )
                .alias("numbers to texts"),
            col("i")
                .replace_strict(
                    values([5i64, 0]),
                    values([1i64, 2]),
                    Some(lit(3i64)),
                    Some(DataType::Int16),
                )
                .alias("return dtype"),
        ]),
    );
}

#[test]
fn replace_strict_without_a_default_matches_the_cpu_or_leaves_polars_its_error() {
    // Every valid value mapped: null rows stay null, unless an old value
    // is null.
    assert_gpu_eq(
        "replace_strict without a default",
        table().select([
            col("i")
                .replace_strict(
                    values([5i64, 0, -3, i64::MAX, i64::MIN]),
                    values([1i64, 2, 3, 4, 5]),
                    None::<Expr>,
                    None::<DataType>,
                )
                .alias("every value"),
            col("i")
                .replace_strict(
                    values([
                        Some(5i64),
                        Some(0),
                        Some(-3),
                        Some(i64::MAX),
                        Some(i64::MIN),
                        None,
                    ]),
                    values(["a", "b", "c", "d", "e", "null"]),
                    None::<Expr>,
                    None::<DataType>,
                )
                .alias("nulls too"),
            col("b")
                .replace_strict(
                    values([true, false]),
                    values([1.5]),
                    None::<Expr>,
                    None::<DataType>,
                )
                .alias("one new value"),
        ]),
    );
    // A value left out: Polars' own error (the device sends it there).
    assert_cpu_error(table().select([col("i").replace_strict(
        values([5i64, 0, 1, -3, i64::MAX]),
        values([1i64, 2, 3, 4, 5]),
        None::<Expr>,
        None::<DataType>,
    )]));
}

#[test]
fn replace_of_floats_matches_the_cpu() {
    // NaN, both zeros, an infinity and a null in the column; one old
    // value (Polars' `==`), several with one new value (its membership
    // test) or as many (its join): NaN matches NaN, both zeros alike,
    // every way.
    let nan = f64::NAN;
    assert_gpu_eq(
        "replace of floats",
        table()
            .with_columns([col("f").cast(DataType::Float32).alias("f32")])
            .select([
                col("f")
                    .replace(values([nan]), values([9.0]))
                    .alias("one NaN"),
                col("f")
                    .replace(values([0.0]), values([7.0]))
                    .alias("one zero"),
                col("f")
                    .replace(values([-0.0]), values([7.0]))
                    .alias("one negative zero"),
                col("f")
                    .replace(values([nan, 1.5]), values([9.0]))
                    .alias("NaN among others"),
                col("f")
                    .replace(values([nan, -0.0, 2.5]), values([1.0, 2.0, 3.0]))
                    .alias("pairs"),
                col("f")
                    .replace(values([Some(f64::INFINITY), None]), values([0.5, -0.5]))
                    .alias("infinity and null"),
                col("f")
                    .replace_strict(
                        values([nan, 0.0]),
                        values([1i64, 2]),
                        Some(lit(-1i64)),
                        None::<DataType>,
                    )
                    .alias("strict, to integers"),
                col("f32")
                    .replace(values([nan, 0.0]), values([4.0f32, 5.0]))
                    .alias("f32 pairs"),
            ]),
    );
    // Polars' own error: old values alike (both zeros, two NaN).
    assert_cpu_error(table().select([col("f").replace(values([0.0, -0.0]), values([1.0, 2.0]))]));
    assert_cpu_error(table().select([col("f").replace(values([nan, nan]), values([1.0]))]));
}

#[test]
fn replace_the_device_does_not_run_falls_back_with_its_reason() {
    assert_cpu_answer_with_reason(
        table().select([col("i")
            .clip(lit(-1000i64), lit(1000i64))
            .cast(DataType::Decimal(10, 2))
            .replace(values([1i64]), values([2i64]))]),
        "replace of decimal[10,2] is not supported on the GPU",
    );
    // Polars' own errors: an incomplete mapping, repeated old values, a
    // value that does not fit.
    assert_cpu_error(table().select([col("i").replace_strict(
        values([5i64]),
        values([1i64]),
        None::<Expr>,
        None::<DataType>,
    )]));
    assert_cpu_error(table().select([col("i").replace(values([5i64, 5]), values([1i64, 2]))]));
    assert_cpu_error(
        table().select([col("u")
            .cast(DataType::UInt8)
            .replace(values([300i64]), values([1i64]))]),
    );
}
