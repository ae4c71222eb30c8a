//! `list.eval` on the device beyond values one by one: each list's values filtered (filters, drops of nulls, heads and distinct values, Python's `list.unique`, in each list's order) and aggregated as lists of one; distinct floats and float sums stay with Polars, with the reason.

use super::lists::{list_frame, polars_explode};
use super::*;

#[test]
fn filters_of_each_lists_values_match_the_cpu() {
    let frame = list_frame();
    assert_gpu_eq(
        "list.eval of filters and drops of nulls",
        frame.clone().select([
            col("li")
                .list()
                .eval(element().filter(element().gt(lit(1i64))))
                .alias("above one"),
            col("li")
                .list()
                .eval(element().drop_nulls())
                .alias("without nulls"),
            col("ls")
                .list()
                .eval(element().filter(element().str().len_chars().eq(lit(1u32))))
                .alias("one letter"),
            col("ld")
                .list()
                .eval(element().filter(element().gt(element().min())))
                .alias("above the least"),
            col("li")
                .list()
                .eval(element().filter(element().is_null()))
                .list()
                .len()
                .alias("nulls"),
        ]),
    );
    assert_gpu_eq(
        "the values kept, then their least, their first two and rows of them",
        frame
            .select([
                col("li")
                    .list()
                    .eval(element().drop_nulls())
                    .list()
                    .min()
                    .alias("least"),
                col("li")
                    .list()
                    .eval(element().head(Some(2)))
                    .alias("first two"),
            ])
            .explode(by_name(["first two"], true, false), polars_explode()),
    );
}

#[test]
fn distinct_values_of_each_list_match_the_cpu() {
    // Repeated values and nulls in no order, empty and null lists.
    let ints = Series::new(
        "li".into(),
        [
            Some(Series::new(
                "".into(),
                [Some(3i64), Some(1), Some(3), None, Some(1), None],
            )),
            Some(Series::new_empty("".into(), &DataType::Int64)),
            None,
            Some(Series::new("".into(), [Some(2i64), Some(2), Some(2)])),
            Some(Series::new("".into(), [None::<i64>, None])),
            Some(Series::new(
                "".into(),
                [Some(-1i64), Some(i64::MIN), Some(-1)],
            )),
        ],
    );
    let texts = Series::new(
        "ls".into(),
        [
            Some(Series::new(
                "".into(),
                [Some("b"), Some("a"), Some("b"), None, None],
            )),
            Some(Series::new("".into(), [Some(""), Some("")])),
            None,
            Some(Series::new("".into(), [Some("ü"), Some("u"), Some("ü")])),
            Some(Series::new_empty("".into(), &DataType::String)),
            Some(Series::new("".into(), [Some("z")])),
        ],
    );
    let flags = Series::new(
        "lb".into(),
        [
            Some(Series::new(
                "".into(),
                [Some(true), Some(false), Some(true), None],
            )),
            None,
            Some(Series::new("".into(), [Some(false), Some(false)])),
            Some(Series::new_empty("".into(), &DataType::Boolean)),
            Some(Series::new("".into(), [None::<bool>, Some(true), None])),
            Some(Series::new("".into(), [Some(true)])),
        ],
    );
    let days = Series::new(
        "ld".into(),
        [
            Some(Series::new(
                "".into(),
                [Some(19000i32), None, Some(-3), Some(19000), None],
            )),
            None,
            Some(Series::new_empty("".into(), &DataType::Int32)),
            Some(Series::new("".into(), [Some(0i32), Some(0)])),
            Some(Series::new("".into(), [Some(1i32), Some(2), Some(1)])),
            Some(Series::new("".into(), [None::<i32>])),
        ],
    )
    .cast(&DataType::List(Box::new(DataType::Date)))
    .unwrap();
    let frame =
        DataFrame::new_infer_height(vec![ints.into(), texts.into(), flags.into(), days.into()])
            .unwrap()
            .lazy();
    let mut distinct = Vec::new();
    for name in ["li", "ls", "lb", "ld"] {
        let lists = || col(name).list();
        distinct.extend([
            lists()
                .eval(element().unique())
                .alias(format!("{name} unique")),
            (lists().eval(element().unique_stable())).alias(format!("{name} unique_stable")),
            (lists().eval(element().drop_nulls().unique())).alias(format!("{name} valid unique")),
            (lists().eval(element().unique()).list().len()).alias(format!("{name} distinct")),
        ]);
    }
    assert_gpu_eq(
        "each list's distinct values",
        frame.clone().select(distinct),
    );
    assert_gpu_eq(
        "each list's distinct values, then their least, exploded",
        frame
            .select([
                col("li")
                    .list()
                    .eval(element().unique())
                    .list()
                    .max()
                    .alias("most"),
                col("ls").list().eval(element().unique()).alias("texts"),
            ])
            .explode(by_name(["texts"], true, false), polars_explode()),
    );
    // Floats: Polars' equality of them there is its own.
    assert_cpu_answer_with_reason(
        list_frame().select([col("lf").list().eval(element().unique())]),
        "the distinct floats of each group or list",
    );
}

#[test]
fn aggregations_of_each_list_are_lists_of_one() {
    let frame = list_frame();
    assert_gpu_eq(
        "list.eval of aggregations (an empty list's sum [0], its extreme [null]; a null list null)",
        frame.clone().select([
            col("li").list().eval(element().sum()).alias("sum"),
            col("li").list().eval(element().max()).alias("greatest"),
            col("li").list().eval(element().first()).alias("first"),
            col("li").list().eval(element().mean()).alias("mean"),
            col("li").list().eval(len()).alias("length"),
            col("li").list().eval(element().null_count()).alias("nulls"),
            col("ls")
                .list()
                .eval(element().n_unique())
                .alias("distinct texts"),
            col("ls").list().eval(element().min()).alias("least text"),
            col("ld").list().eval(element().max()).alias("latest"),
            // (Not of i64::MAX: a debug build of Polars checks overflow.)
            col("li")
                .list()
                .head(lit(2))
                .list()
                .eval(element().product())
                .alias("product"),
            col("lf")
                .list()
                .eval(element().product())
                .alias("float product"),
            col("b").alias("kept beside"),
        ]),
    );
    assert_gpu_eq(
        "of expressions of aggregations, then measured and exploded",
        frame
            .clone()
            .select([
                col("li")
                    .list()
                    .eval(element().max() - element().min())
                    .alias("spread"),
                col("li")
                    .list()
                    .eval(element().count() * lit(2u32))
                    .list()
                    .len()
                    .alias("one each"),
            ])
            .explode(by_name(["spread"], true, false), polars_explode()),
    );
    assert_gpu_eq(
        "filtered rows, per group",
        frame
            .filter(col("k").is_not_null())
            .group_by_stable([col("k")])
            .agg([col("li")
                .list()
                .eval(element().max())
                .list()
                .first()
                .max()
                .alias("greatest")]),
    );
    // (Before, `list.agg` of a literal gave one value per list.)
    for (lf, reason) in [
        (
            list_frame().select([col("li").list().agg(lit(1i64))]),
            "list.agg of a literal",
        ),
        (
            list_frame().select([col("ls").list().eval(lit("x"))]),
            "list.eval of a literal",
        ),
    ] {
        assert_cpu_answer_with_reason(lf, reason);
    }
    assert_cpu_answer_with_reason(
        list_frame().select([col("lf").list().eval(element().sum())]),
        "list.eval is not supported on the GPU yet where it takes `item`, `get` or lists",
    );
}
