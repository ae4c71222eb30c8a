//! Lists compared (`==`, `!=`, `eq_missing`, `ne_missing`) on the device (of values and of structs of keys): as long and equal value by value as Polars' total equality has them (nulls equal, NaN equal to NaN, -0.0 to 0.0), null where a list is (but for the `_missing` forms); ordering comparisons and lists of one value stay with Polars.

use super::lists::list_frame;
use super::*;

/// The list frame beside lists equal, shorter, longer or differing, by
/// shifts and slices of its own.
fn pairs() -> LazyFrame {
    list_frame().with_columns([
        col("li").shift(lit(1)).alias("li1"),
        col("li").list().head(lit(2)).alias("li2"),
        col("ls").reverse().alias("ls1"),
        col("lf").list().sort(Default::default()).alias("lf1"),
        col("ld").shift(lit(-1)).alias("ld1"),
    ])
}

#[test]
fn lists_compared_match_the_cpu() {
    let frame = pairs();
    for (a, b) in [
        ("li", "li1"),
        ("li", "li2"),
        ("ls", "ls1"),
        ("lf", "lf1"),
        ("ld", "ld1"),
    ] {
        assert_gpu_eq(
            &format!("{a} and {b}"),
            frame.clone().select([
                col(a).eq(col(b)).alias("eq"),
                col(a).neq(col(b)).alias("ne"),
                col(a).eq_missing(col(b)).alias("eq_missing"),
                col(a).neq_missing(col(b)).alias("ne_missing"),
                col(a).eq(col(a)).alias("itself"),
            ]),
        );
    }
    assert_gpu_eq(
        "in a filter, then per group",
        frame
            .clone()
            .filter(col("li").eq_missing(col("li2")))
            .group_by_stable([col("b")])
            .agg([col("k").sum()]),
    );
    assert_gpu_eq(
        "of no rows",
        frame
            .clone()
            .filter(col("k").gt(lit(10)))
            .select([col("li").eq(col("li1"))]),
    );
    // Polars orders no lists: its error.
    assert_cpu_error(frame.clone().select([col("li").lt(col("li1"))]));
    assert_cpu_answer_with_reason(
        frame.select([col("li").eq(col("li").first())]),
        "a comparison of lists with one list",
    );
}

/// Lists of structs compared: as long and equal struct by struct, a null
/// struct apart from a struct of null fields, floats in fields by Polars'
/// total equality (NaN equal to NaN, -0.0 to 0.0).
#[test]
fn lists_of_structs_compared_match_the_cpu() {
    let k = [
        Some(1i64),
        Some(2),
        Some(1),
        Some(5),
        None,
        None,
        Some(1),
        None,
    ];
    let s = [
        Some("a"),
        None,
        Some("bb"),
        Some("a"),
        None,
        Some("x"),
        Some("a"),
        None,
    ];
    let x = [
        Some(0.0f64),
        Some(-0.0),
        Some(f64::NAN),
        Some(f64::NAN),
        None,
        Some(1.0),
        Some(0.0),
        None,
    ];
    let null = [false, false, false, false, true, false, false, false];
    let listed =
        df!("k" => k, "s" => s, "x" => x, "null" => null, "g" => [1i64, 1, 2, 3, 4, 5, 6, 7])
            .unwrap()
            .lazy()
            .with_columns([
                when(col("null"))
                    .then(lit(Null {}))
                    .otherwise(as_struct(vec![col("k"), col("s")]))
                    .alias("st"),
                as_struct(vec![col("x")]).alias("fx"),
            ])
            .group_by_stable([col("g")])
            .agg([col("st"), col("fx")]);
    let mut compared = vec![];
    for (column, by) in [("st", 1), ("st", -1), ("fx", 1), ("fx", 2)] {
        let other = || col(column).shift(lit(by));
        compared.extend([
            col(column).eq(other()).alias(format!("{column} == {by}")),
            col(column).neq(other()).alias(format!("{column} != {by}")),
            col(column)
                .eq_missing(other())
                .alias(format!("{column} eq_missing {by}")),
            col(column)
                .neq_missing(other())
                .alias(format!("{column} ne_missing {by}")),
        ]);
    }
    assert_gpu_eq("lists of structs compared", listed.select(compared));
}
