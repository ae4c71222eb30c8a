//! Lists exploded inside expressions: group-bys whose aggregations, and selects whose expressions, read the input only through one exploded list expression (`agg(col("tags").explode())`, `select(col("t").str.split(" ").explode().value_counts())`), which explode first; selects of such aggregations beside aggregations of the input (`select([l.explode().max(), len()])`), side by side; selects of several exploded lists alone, exploded together.

use super::lists::{list_frame, polars_explode};
use super::*;

#[test]
fn group_bys_of_one_exploded_list_explode_first() {
    let frame = list_frame();
    let exploded = |name: &str| col(name).explode(polars_explode());
    let split = || col("ls").list().join(lit(" "), true).str().split(lit(" "));
    for (name, lf) in [
        (
            "each group's values of its lists, counted, distinct, first",
            frame.clone().group_by_stable([col("b")]).agg([
                exploded("li").alias("values"),
                exploded("li").count().alias("count"),
                exploded("li").len().alias("len"),
                exploded("li").n_unique().alias("distinct"),
                exploded("li").first().alias("first"),
            ]),
        ),
        (
            "texts split, by a computed key, in no order",
            frame
                .clone()
                .group_by([col("k").is_null().alias("no k")])
                .agg([split().explode(polars_explode()).sort(Default::default())])
                .sort(["no k"], Default::default()),
        ),
        (
            "floats: their nulls counted, the largest",
            frame.clone().group_by_stable([col("k")]).agg([
                exploded("lf").null_count().alias("nulls"),
                exploded("lf").max().alias("max"),
            ]),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
    // An aggregation reading another column beside the explode: Polars'.
    assert_cpu_answer_with_reason(
        frame
            .group_by_stable([col("b")])
            .agg([exploded("li"), col("k").sum()]),
        "explode inside an expression or beside other columns",
    );
}

/// Selects reading the input only through one exploded list expression
/// (beside literals): the lists exploded first, the select over them —
/// functions of the values, aggregations, counts of each value (words
/// counted); other columns, `len()` (the input's rows) or two different
/// lists beside it stay with Polars.
#[test]
fn selects_of_one_exploded_list_explode_first() {
    let frame = df!(
        "t" => [Some("a b a"), Some("c"), None, Some(""), Some("d e a"), Some("b")],
        "k" => [1i64, 2, 1, 2, 3, 1],
    )
    .unwrap()
    .lazy();
    let words = || col("t").str().split(lit(" ")).explode(polars_explode());
    for (name, lf) in [
        (
            "words and a literal",
            frame.clone().select([words(), lit(1i64).alias("one")]),
        ),
        (
            "functions of the words",
            frame.clone().select([
                words().str().len_chars().alias("chars"),
                words().str().to_uppercase().alias("upper"),
                words().is_first_distinct().alias("first seen"),
                words().shift(lit(1)).alias("before"),
            ]),
        ),
        (
            "aggregations of the words",
            frame.clone().select([
                words().count().alias("count"),
                words().n_unique().alias("distinct"),
                words().null_count().alias("nulls"),
                words().sort(Default::default()).last().alias("greatest"),
            ]),
        ),
        (
            "words counted, most first",
            frame
                .clone()
                .select([words().value_counts(true, false, "n", false)]),
        ),
        (
            "words' distinct values in order",
            frame.clone().select([words().unique_stable()]),
        ),
        (
            "aggregations of the words beside the rows' count and an aggregation of the input",
            frame.clone().select([
                len().alias("rows"),
                words().n_unique().alias("distinct"),
                col("k").sum().alias("k sum"),
                words().count().alias("words"),
                col("t").null_count().alias("no text"),
            ]),
        ),
        (
            "a list column's largest value beside the rows' count",
            list_frame().select([
                col("li").explode(polars_explode()).max().alias("max"),
                len(),
            ]),
        ),
        (
            "a list column's values beside their sum",
            list_frame().select([
                col("li").explode(polars_explode()).alias("value"),
                col("li").explode(polars_explode()).sum().alias("sum"),
            ]),
        ),
    ] {
        assert_gpu_eq(name, lf.clone());
        // (In partitions too: the explode row-wise, the rest over them.)
        super::partitioned::assert_partitioned_in(name, lf, false, &[2, 3], |_, _| {});
    }
    // Beside another column, the input's rows or another list: Polars'.
    for lf in [
        frame.clone().select([words(), col("k")]),
        frame.clone().select([words(), len()]),
        frame.clone().select([
            words(),
            col("t").str().split(lit("a")).explode(polars_explode()),
        ]),
    ] {
        let expected = lf.clone().collect();
        match lf.collect_with_report(&Engine::Gpu(under_test())) {
            Ok((answer, report)) => {
                assert!(
                    report
                        .fallback_reasons
                        .iter()
                        .any(|r| r.message.contains("explode")),
                    "{report}"
                );
                assert!(answer.equals_missing(&expected.unwrap()));
            }
            Err(e) => assert_eq!(e.to_string(), expected.unwrap_err().to_string()),
        }
    }
}

/// Selects of exploded list expressions alone, of the same options: the
/// lists exploded together (their rows lined up), of groups' lists of
/// numbers and texts (empty ones too), of texts split. Where a row's lists
/// span different numbers of values Polars explodes each on its own and
/// lines them up by place (or raises, where the totals differ): the query
/// stays with it, saying why. Exploded expressions of other options stay
/// with Polars too.
#[test]
fn selects_of_several_exploded_lists_explode_together() {
    let frame = groups();
    let e = polars_explode;
    let lists = || {
        frame
            .clone()
            .group_by_stable([col("g")])
            .agg([col("v"), col("x"), col("s")])
    };
    let kept = || {
        frame.clone().group_by_stable([col("g")]).agg([
            col("v").filter(col("h").eq(lit(2))),
            col("s").filter(col("h").eq(lit(2))),
        ])
    };
    let words = |name: &str| col("s").str().split(lit(" ")).explode(e()).alias(name);
    for (name, lf) in [
        (
            "groups' lists of numbers and texts",
            lists().select([
                col("v").explode(e()),
                col("x").explode(e()),
                col("s").explode(e()),
            ]),
        ),
        (
            "groups' filtered lists, some empty",
            kept().select([col("v").explode(e()), col("s").explode(e())]),
        ),
        (
            "texts split twice",
            frame.clone().select([words("a"), words("b")]),
        ),
    ] {
        assert_gpu_eq(name, lf.clone());
        super::partitioned::assert_partitioned_in(name, lf, false, &[2, 3], |_, _| {});
    }
    let list = |values: Vec<i64>| Series::new("".into(), values);
    let misaligned = df!(
        "a" => [list(vec![1, 2]), list(vec![3])],
        "b" => [list(vec![1]), list(vec![4, 5])],
    )
    .unwrap()
    .lazy();
    assert_cpu_answer_with_reason(
        misaligned
            .clone()
            .select([col("a").explode(e()), col("b").explode(e())]),
        "lines them up by place",
    );
    assert_cpu_error(
        misaligned
            .clone()
            .select([col("a").explode(e()), col("b").head(Some(1)).explode(e())]),
    );
    let other = ExplodeOptions {
        empty_as_null: false,
        keep_nulls: true,
    };
    assert_cpu_answer_with_reason(
        lists().select([col("v").explode(e()), col("s").explode(other)]),
        "explode inside an expression or beside other columns",
    );
}
