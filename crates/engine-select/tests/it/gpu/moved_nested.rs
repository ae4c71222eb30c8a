//! Lists and structs moved whole to other rows inside expressions: shifted, reversed, gathered, sorted by keys and filled from a neighbour, over the frame, within window groups and per group of a group-by, and read after the move (fields, list functions).

use super::lists::{list_frame, polars_explode};
use super::structs::struct_frame;
use super::*;

/// A frame of list columns (null and empty lists, null values inside,
/// texts, a sliced column) and a struct column (null structs, null
/// fields) side by side, with a group key and a sort key.
pub(super) fn nested_frame() -> LazyFrame {
    let lists = list_frame().collect().unwrap();
    let structs = struct_frame()
        .select([col("pair"), col("v")])
        .collect()
        .unwrap();
    lists
        .hstack(structs.columns())
        .unwrap()
        .lazy()
        .with_row_index("row", None)
}

/// The moves of one nested column `name`: shifts both ways and past the
/// frame's ends, reverse, a gather (negative indices), sorts by keys
/// (several, descending, nulls last), fills forward and backward (with a
/// limit).
fn moves(name: &str) -> Vec<Expr> {
    let c = || col(name);
    let descending = SortMultipleOptions::default()
        .with_order_descending_multi([true, false])
        .with_nulls_last(true);
    vec![
        c().shift(lit(1)).alias("down"),
        c().shift(lit(-2)).alias("up"),
        c().shift(lit(9)).alias("past the end"),
        c().reverse().alias("reversed"),
        c().gather(
            col("row").cast(DataType::Int64) * lit(-1i64) - lit(1i64),
            false,
        )
        .alias("gathered by rows"),
        c().sort_by([col("v")], Default::default()).alias("by v"),
        c().sort_by([col("k"), col("v")], descending)
            .alias("by k, v"),
        c().shift(lit(1))
            .fill_null_with_strategy(FillNullStrategy::Forward(None))
            .alias("forward"),
        c().fill_null_with_strategy(FillNullStrategy::Backward(Some(1)))
            .alias("backward"),
    ]
}

#[test]
fn lists_and_structs_move_whole_to_other_rows() {
    let frame = nested_frame();
    for name in ["li", "ls", "lf", "ld", "pair"] {
        // (One at a time: each a frame of its own.)
        for moved in moves(name) {
            assert_gpu_eq(name, frame.clone().select([col("row"), moved]));
        }
        // A select of one gather by literal indices: their rows.
        let indices = Series::new("".into(), [-1i64, 0, 3, 3, -6]);
        let gathered = col(name).gather(lit(indices), false);
        assert_gpu_eq(name, frame.clone().select([gathered]));
    }
    // Lists of structs and of lists, moved.
    let listed = frame
        .clone()
        .group_by_stable([col("k")])
        .agg([col("pair"), col("li"), col("v").sum()])
        .with_row_index("row", None);
    for name in ["pair", "li"] {
        for moved in moves(name) {
            let lf = listed.clone().select([col("k"), moved]);
            assert_gpu_eq(&format!("list of {name}"), lf);
        }
    }
    // Structs built and then moved.
    let built = || as_struct(vec![col("li"), col("ls"), col("v")]);
    assert_gpu_eq(
        "structs built and moved",
        frame.clone().select([
            built().reverse().alias("reversed"),
            built()
                .sort_by([col("v")], Default::default())
                .alias("sorted"),
        ]),
    );
}

#[test]
fn lists_and_structs_move_within_window_groups_and_per_group() {
    let frame = nested_frame();
    for name in ["li", "ls", "pair"] {
        let c = || col(name);
        let over = |e: Expr| e.over([col("b")]).unwrap();
        assert_gpu_eq(
            &format!("{name} within window groups"),
            frame.clone().with_columns([
                over(c().shift(lit(1))).alias("shifted"),
                over(c().reverse()).alias("reversed"),
                over(c().sort_by([col("v")], Default::default())).alias("sorted"),
                over(
                    c().shift(lit(-1))
                        .fill_null_with_strategy(FillNullStrategy::Backward(None)),
                )
                .alias("filled"),
            ]),
        );
        assert_gpu_eq(
            &format!("{name} per group"),
            frame
                .clone()
                .group_by([col("b")])
                .agg([
                    c().shift(lit(1)).alias("shifted"),
                    c().reverse().alias("reversed"),
                    c().sort_by(
                        [col("v")],
                        SortMultipleOptions::default().with_order_descending(true),
                    )
                    .alias("sorted"),
                    c().sort_by([col("v")], Default::default())
                        .head(Some(2))
                        .alias("head"),
                ])
                .sort(["b"], Default::default()),
        );
    }
}

#[test]
fn what_moved_lists_and_structs_meet_reads_the_moved_rows() {
    let frame = nested_frame();
    let sorted = |name: &str| col(name).sort_by([col("v")], Default::default());
    assert_gpu_eq(
        "fields and list functions of moved values",
        frame.clone().select([
            col("pair")
                .shift(lit(1))
                .struct_()
                .field_by_name("a")
                .alias("a"),
            sorted("pair").struct_().field_by_name("b").alias("b"),
            col("li").reverse().list().len().alias("len"),
            sorted("li").list().sum().alias("sum"),
            col("ls").shift(lit(-1)).list().first().alias("first"),
            col("ls")
                .reverse()
                .list()
                .join(lit("-"), true)
                .alias("joined"),
        ]),
    );
    assert_gpu_eq(
        "moved lists exploded, moved structs unnested",
        frame
            .clone()
            .select([col("row"), col("li").reverse(), sorted("pair")])
            .explode(by_name(["li"], true, false), polars_explode())
            .unnest(by_name(["pair"], true, false), None),
    );
    // Inside windows and per group, what reads a moved value (or a struct
    // built of moved values) reads it moved within the group.
    let over = |e: Expr| e.over([col("b")]).unwrap();
    assert_gpu_eq(
        "read within window groups",
        frame.clone().with_columns([
            over(col("pair").shift(lit(1)).struct_().field_by_name("a")).alias("a"),
            over(
                as_struct(vec![col("v").shift(lit(1))])
                    .struct_()
                    .field_by_name("v"),
            )
            .alias("v before"),
            over(col("li").reverse().list().sum()).alias("sum"),
        ]),
    );
    assert_gpu_eq(
        "read per group",
        frame
            .clone()
            .group_by([col("b")])
            .agg([
                col("li").shift(lit(1)).list().len().alias("len"),
                as_struct(vec![col("v").cum_sum(false)])
                    .struct_()
                    .field_by_name("v")
                    .alias("running"),
            ])
            .sort(["b"], Default::default()),
    );
}

/// Polars' `reverse` of lists all null (a list column, or a struct's
/// list field) gives their values the Null type, which `list.contains`
/// then rejects: such a reverse leaves the query to Polars, its answer or
/// its error; lists of which one is valid, or none at all, reverse on the
/// device.
#[test]
fn reversed_lists_all_null_leave_polars_its_null_typed_answer() {
    let lists = |valid: bool| {
        let one = valid.then(|| Series::new("".into(), [true, false]));
        let c = Series::new("c".into(), [None, one, None])
            .cast(&DataType::List(Box::new(DataType::Boolean)))
            .unwrap();
        df!("k" => [1i64, 2, 1])
            .unwrap()
            .hstack(&[c.into()])
            .unwrap()
            .lazy()
    };
    let contains = |e: Expr| e.list().contains(lit(false), false).alias("x");
    let reason = "of lists all null (Polars' reverse gives their values the Null type)";
    assert_cpu_answer_with_reason(lists(false).select([col("c").reverse()]), reason);
    assert_cpu_answer_with_reason(lists(false).reverse(), reason);
    assert_cpu_error(lists(false).select([contains(col("c").reverse())]));
    let field = as_struct(vec![col("c"), col("k")]).reverse();
    let field = field.struct_().field_by_name("c");
    assert_cpu_error(lists(false).select([contains(field)]));
    assert_gpu_eq(
        "one list valid",
        lists(true).select([contains(col("c").reverse())]),
    );
    assert_gpu_eq(
        "no rows",
        lists(false)
            .filter(lit(false))
            .select([contains(col("c").reverse())]),
    );
    // Within window groups Polars keeps the type.
    let over = col("c").reverse().over([col("k")]).unwrap();
    assert_gpu_eq(
        "within window groups",
        lists(false).select([contains(over)]),
    );
}
