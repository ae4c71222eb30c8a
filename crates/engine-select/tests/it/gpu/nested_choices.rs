//! Lists and structs chosen row by row inside expressions (`when/then/otherwise`, `fill_null`, `coalesce`, `shift_and_fill` by null) and null lists and structs (`lit(None).cast(..)`), over the frame, within window groups and per group, and read after the choice.

use super::lists::polars_explode;
use super::moved_nested::nested_frame;
use super::*;

/// A null of the type of column `name` of the nested frame.
fn null_of(name: &str) -> Expr {
    let schema = nested_frame().collect_schema().unwrap();
    lit(NULL).cast(schema.get(name).unwrap().clone())
}

#[test]
fn lists_and_structs_are_chosen_row_by_row() {
    let frame = nested_frame();
    for name in ["li", "ls", "lf", "ld", "pair"] {
        let c = || col(name);
        assert_gpu_eq(
            name,
            frame.clone().select([
                col("row"),
                // (`b` is null on one row: the falsy value there.)
                when(col("b"))
                    .then(c())
                    .otherwise(lit(NULL))
                    .alias("or null"),
                when(col("b"))
                    .then(null_of(name))
                    .otherwise(c())
                    .alias("null or"),
                when(col("v").gt(lit(0)))
                    .then(c())
                    .otherwise(c().reverse())
                    .alias("or reversed"),
                when(col("k").eq(lit(1i64)))
                    .then(c().shift(lit(1)))
                    .when(col("b"))
                    .then(c())
                    .otherwise(c().first())
                    .alias("chained"),
                when(col("v").sum().gt(lit(0)))
                    .then(c())
                    .otherwise(lit(NULL))
                    .alias("by an aggregation"),
                c().shift(lit(1)).fill_null(c()).alias("filled by a column"),
                c().fill_null(c().last()).alias("filled by the last"),
                coalesce(&[c().shift(lit(2)), c().shift(lit(-1)), c()]).alias("coalesced"),
                null_of(name).alias("null"),
            ]),
        );
        // (Polars' own `shift_and_fill` panics on lists of dates.)
        if name != "ld" {
            let shifted = c().shift_and_fill(lit(-2), lit(NULL));
            assert_gpu_eq(name, frame.clone().select([shifted]));
        }
    }
    // A list literal as the other value; a choice by a test of texts.
    let pair = lit(Series::new("".into(), [7i64, 8])).implode(false);
    assert_gpu_eq(
        "beside literals and text tests",
        frame.clone().select([
            col("li").fill_null(pair.clone()).alias("filled"),
            when(
                col("ls")
                    .list()
                    .join(lit(""), true)
                    .str()
                    .contains(lit("x"), false),
            )
            .then(col("pair"))
            .otherwise(lit(NULL))
            .alias("pair"),
            when(col("b")).then(col("li")).otherwise(pair).alias("li"),
        ]),
    );
    // Of no rows.
    assert_gpu_eq(
        "no rows",
        frame.clone().filter(lit(false)).select([
            when(col("b"))
                .then(col("li"))
                .otherwise(lit(NULL))
                .alias("li"),
            col("pair").fill_null(col("pair").first()).alias("pair"),
        ]),
    );
}

#[test]
fn chosen_lists_and_structs_within_groups_and_read_after() {
    let frame = nested_frame();
    let choice = |name: &str| {
        when(col("b"))
            .then(col(name))
            .otherwise(col(name).shift(lit(1)))
    };
    assert_gpu_eq(
        "within window groups",
        frame.clone().with_columns([
            choice("li").over([col("k")]).unwrap().alias("li chosen"),
            choice("pair")
                .over([col("k")])
                .unwrap()
                .alias("pair chosen"),
            (col("ls").shift(lit(1)).fill_null(col("ls").last()))
                .over([col("k")])
                .unwrap()
                .alias("ls filled"),
        ]),
    );
    assert_gpu_eq(
        "per group",
        frame
            .clone()
            .group_by([col("k")])
            .agg([
                choice("li").alias("li"),
                choice("pair").alias("pair"),
                col("ls").fill_null(col("ls").first()).alias("ls"),
            ])
            .sort(["k"], Default::default()),
    );
    assert_gpu_eq(
        "read after the choice",
        frame.clone().select([
            choice("pair").struct_().field_by_name("b").alias("b"),
            choice("pair").is_null().alias("null pair"),
            choice("li").list().len().alias("len"),
            choice("li").is_not_null().alias("list"),
            choice("ls").list().first().alias("first"),
        ]),
    );
    assert_gpu_eq(
        "exploded after the choice",
        frame
            .clone()
            .select([col("row"), choice("li").alias("li")])
            .explode(by_name(["li"], true, false), polars_explode()),
    );
}

/// A function of a list or struct holding an aggregation (a column's
/// first or last list or struct, the fill value of a choice) beside the
/// rows: the function computed whole with its aggregation, over the frame,
/// within window groups and per group (found by the fuzzer: the executor
/// took the aggregation apart from the function reading it).
#[test]
fn functions_of_first_or_last_lists_and_structs_beside_the_rows() {
    let frame = nested_frame();
    let filled = || col("li").shift(lit(-2)).fill_null(col("li").first());
    assert_gpu_eq(
        "over the frame",
        frame.clone().with_columns([
            col("li").last().list().len().is_null().alias("len null"),
            col("pair")
                .first()
                .struct_()
                .field_by_name("b")
                .alias("first b"),
            filled().list().len().alias("filled len"),
            (col("pair").last().struct_().field_by_name("a") + col("v").sum()).alias("a + sum"),
        ]),
    );
    assert_gpu_eq(
        "within window groups",
        frame.clone().with_columns([
            filled()
                .list()
                .len()
                .over([col("k")])
                .unwrap()
                .alias("filled len"),
            (col("pair").first().struct_().field_by_name("a"))
                .over([col("k")])
                .unwrap()
                .alias("first a"),
        ]),
    );
    assert_gpu_eq(
        "per group",
        frame
            .clone()
            .group_by([col("k")])
            .agg([
                col("pair")
                    .first()
                    .struct_()
                    .field_by_name("a")
                    .alias("first a"),
                col("li").last().list().len().alias("last len"),
            ])
            .sort(["k"], Default::default()),
    );
}
