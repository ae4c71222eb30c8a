//! Refused constructs: each named in Polars' notation, every one reported.

use expect_test::expect;
use polars::prelude::*;

use crate::{explain, orders};

/// A window the GPU does not run: one of one value per group joined to
/// the rows (whose empty frame Polars gives lists).
fn joined_window() -> Expr {
    col("amount")
        .sum()
        .over_with_options(Some([col("status")]), None, WindowMapping::Join)
        .unwrap()
}

#[test]
fn unsupported_dtypes_are_named() {
    let lists = df!("id" => [1i64, 2]).unwrap().lazy().select([
        col("id"),
        concat_list([col("id"), col("id")])
            .unwrap()
            .list()
            .diff(1, polars::series::ops::NullBehavior::Drop)
            .alias("pair"),
    ]);
    expect![[r#"
        refused: col("id").list.concat(col("id")).list.diff(): list.diff of list[i64] by other than a literal count, or with null_behavior="drop", is not supported on the GPU yet
    "#]].assert_eq(&explain(lists));
    // A decimal construct the GPU lacks is named with its types.
    let decimals = || col("amount").cast(DataType::Decimal(10, 2));
    let quotients =
        orders().select([decimals().floor_div(col("qty").cast(DataType::Decimal(5, 1)))]);
    expect![[r#"
        refused: col("amount").cast(Decimal(10, 2)) // col("qty").cast(Decimal(5, 1)).cast(Decimal(10, 2)): `floordiv` of decimal[10,2] and decimal[10,2] is not supported on the GPU yet (decimals run held and moved with their rows, as sort, group-by and join keys, compared, added, subtracted, multiplied, divided, negated, in abs, cast from and to numbers, decimals and text, rounded, tested by is_in, ranked, in running extremes, and in sum, mean, median, quantile, std, var, min, max, arg_min, arg_max, first, last, counts, n_unique and lists (made, exploded, measured, indexed, sliced, sorted, searched, counted, compared, summed, averaged, their medians and spreads, evaluated by list.eval and list.agg, their extremes and their places))
    "#]].assert_eq(&explain(quotients));
    // Decimals run cast, summed and averaged; their running sums go to Polars.
    let decimal = orders().select([col("amount").cast(DataType::Decimal(10, 2)).cum_sum(false)]);
    expect![[r#"
        refused: col("amount").cast(Decimal(10, 2)).cum_sum(): cum_sum of decimals: Polars' plan types it as its input, its engine gives precision 38
    "#]]
    .assert_eq(&explain(decimal));
    // Texts made categories (added to the categories as they first come) run.
    let categorical =
        orders().select([col("status").cast(DataType::from_categories(Categories::global()))]);
    expect![[r#"
        Select [cast(col("status") -> cat) as "status"]  -> [status: cat]
          DataFrameScan rows=3 columns=[4] of 6  -> [status: str]
    "#]]
    .assert_eq(&explain(categorical));
}

#[test]
fn a_refusal_met_twice_is_reported_once() {
    // A self-join reads the frame twice: its binary column is refused once.
    let frame = || {
        df!("k" => [1i64, 2], "b" => [b"x".as_slice(), b"yz".as_slice()])
            .unwrap()
            .lazy()
    };
    let joined = frame().join(
        frame(),
        [col("k")],
        [col("k")],
        JoinArgs::new(JoinType::Inner),
    );
    let text = explain(joined);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("binary"), "{text}");
}

#[test]
fn unsupported_functions_and_joined_windows_are_named() {
    expect![[r#"
        refused: col("amount").sum().over(col("status")): a window with mapping_strategy="join" of one value per group, or ordered, is not supported on the GPU
    "#]].assert_eq(&explain(
        orders().select([joined_window().alias("w")]),
    ));
    expect![[r#"
        refused: col("status").str.contains("\bo[a-z]+"): the regular expression "\\bo[a-z]+" has no DFA the GPU runs: unsupported regex feature for DFAs: cannot build DFAs for regexes with Unicode word boundaries; switch to ASCII word boundaries, or heuristically enable Unicode word boundaries or use a different regex engine
    "#]].assert_eq(&explain(
        orders().select([col("status").str().contains(lit(r"\bo[a-z]+"), true)]),
    ));
}

#[test]
fn three_unsupported_pieces_are_all_reported() {
    let lf = orders().select([
        joined_window().alias("window"),
        col("amount")
            .map(Ok, |_, field| Ok(field.clone()))
            .alias("running"),
        col("status")
            .str()
            .replace_all(lit("(o)+"), lit("$1"), false)
            .alias("replaced"),
        col("id"),
    ]);
    let text = explain(lf);
    assert_eq!(text.matches("refused:").count(), 3, "{text}");
    expect![[r#"
        refused: col("amount").sum().over(col("status")): a window with mapping_strategy="join" of one value per group, or ordered, is not supported on the GPU
        refused: col("amount").map(): user-defined functions run on the CPU only
        refused: col("status").str.replace("(o)+", "$1"): str.replace of "(o)+" by "$1" (capture groups): only a group of the pattern's sequence (not inside a repetition or a choice) runs on the GPU
    "#]].assert_eq(&text);
}

#[test]
fn group_by_lists_of_distinct_values_or_texts_made_per_group_are_refused() {
    expect![[r#"
        refused: col("amount").unique(): a list of the distinct floats of each group or list is not supported on the GPU yet
        refused: col("status").shift(1).str.to_uppercase(): a list result of texts made within each group of other rows or of aggregations (beyond a text column shifted, reversed, filled or sorted) is not supported on the GPU yet
    "#]]
    .assert_eq(&explain(orders().group_by([col("status")]).agg([
        col("amount").unique().alias("unique"),
        col("status")
            .shift(lit(1))
            .str()
            .to_uppercase()
            .alias("previous"),
        col("amount").sort(Default::default()).alias("sorted"),
        col("qty").cum_sum(false).alias("running"),
    ])));
}

#[test]
fn unsupported_scan_columns_are_refused_at_the_scan() {
    let kinds = Series::new("kind".into(), [1i128, 2]);
    let lf = DataFrame::new(2, vec![kinds.into()])
        .unwrap()
        .lazy()
        .filter(col("kind").is_not_null());
    expect![[r#"
        refused: DF ["kind"]; PROJECT */1 COLUMNS: column "kind": dtype i128 is not supported on the GPU
    "#]].assert_eq(&explain(lf));
}

#[test]
fn a_literal_clipped_by_every_rows_bounds_is_named() {
    expect![[r#"
        refused: 5.clip(col("id"), 9): a function of one value with arguments of every row (`5`) is not supported on the GPU
    "#]]
    .assert_eq(&explain(orders().select([
        lit(5i64).clip(col("id"), lit(9i64)).alias("c"),
        col("id"),
    ])));
}
