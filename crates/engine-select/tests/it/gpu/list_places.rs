//! `list.get` at each row's own place (an integer expression of the row): from the end where negative, null where the place or the list is null or outside it, Polars' error without `null_on_oob`; over the frame, within window groups and per group.

use super::lists::list_frame;
use super::*;

/// The list frame (null and empty lists, nulls inside, texts, a sliced
/// column) with places per row: within, from the end, outside, null.
fn with_places() -> LazyFrame {
    list_frame().with_columns([
        lit(Series::new(
            "at".into(),
            [Some(1i64), Some(0), None, Some(-1), Some(3), Some(-2)],
        )),
        lit(Series::new(
            "small".into(),
            [Some(0i8), Some(9), Some(1), Some(-5), Some(-4), None],
        )),
        lit(Series::new("unsigned".into(), [2u32, 0, 1, 0, 1, 0])),
    ])
}

#[test]
fn list_get_at_each_rows_place_matches_the_cpu() {
    let frame = with_places();
    for name in ["li", "ls", "lf", "ld"] {
        let c = || col(name);
        assert_gpu_eq(
            name,
            frame.clone().select([
                c().list().get(col("at"), true).alias("at"),
                c().list().get(col("small"), true).alias("small"),
                c().list().get(col("unsigned"), true).alias("unsigned"),
                c().list()
                    .get(col("at") - lit(1i64), true)
                    .alias("computed"),
                c().list()
                    .get(c().list().len().cast(DataType::Int64) - lit(1i64), true)
                    .alias("last"),
            ]),
        );
    }
    // Where every valid list has its row's place, without null_on_oob.
    assert_gpu_eq(
        "within every list",
        frame
            .clone()
            .filter(col("li").list().len().gt(lit(3u32)))
            .select([col("li").list().get(col("at"), false)]),
    );
    // Lists of structs at places; a filter by a value at a place.
    assert_gpu_eq(
        "lists of structs",
        frame
            .clone()
            .group_by_stable([col("b")])
            .agg([
                as_struct(vec![col("k"), col("at")]).alias("pairs"),
                col("small").first(),
            ])
            .select([col("pairs").list().get(col("small"), true).alias("pair")]),
    );
    assert_gpu_eq(
        "filtered by a value at a place",
        frame
            .clone()
            .filter(col("li").list().get(col("at"), true).gt(lit(2i64))),
    );
}

#[test]
fn list_get_at_places_within_groups_and_outside_lists() {
    let frame = with_places();
    let at = || col("li").list().get(col("at"), true);
    assert_gpu_eq(
        "within window groups and per group",
        frame
            .clone()
            .with_column(at().sum().over([col("b")]).unwrap().alias("w")),
    );
    assert_gpu_eq(
        "per group",
        frame
            .clone()
            .group_by([col("b")])
            .agg([at().sum().alias("sum"), at().alias("values")])
            .sort(["b"], Default::default()),
    );
    // A valid list without its row's place: Polars' error.
    assert_cpu_error(
        frame
            .clone()
            .select([col("li").list().get(col("at"), false)]),
    );
    let error = raised_error(
        frame
            .clone()
            .select([col("li").list().get(col("at"), false)]),
    );
    let written = r#"list.get of `col("li")`: a list without its row's place"#;
    assert!(error.contains(written), "{error}");
    // A place that is an aggregation stays with Polars, with its reason.
    assert_cpu_answer_with_reason(
        frame.select([col("li").list().get(col("at").max(), true)]),
        "list.get at a place that is an aggregation, a window or not an integer",
    );
}
