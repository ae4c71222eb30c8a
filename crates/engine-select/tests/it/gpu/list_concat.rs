//! `concat_list` of lists and values on the device: each row's lists appended in order, values as lists of one (literals too, numbers and lists of numbers cast to the lists' type), null where a list is; over the frame, per group, of lists of texts, dates, lists and structs, read after.

use super::lists::list_frame;
use super::*;

#[test]
fn lists_and_values_concatenated_match_the_cpu() {
    let frame = list_frame();
    assert_gpu_eq(
        "lists with lists and values",
        frame.clone().select([
            concat_list([col("li"), col("li")]).unwrap().alias("twice"),
            concat_list([
                col("li"),
                col("k"),
                col("li").list().sort(Default::default()),
            ])
            .unwrap()
            .alias("around a value"),
            concat_list([col("k"), col("li")])
                .unwrap()
                .alias("value first"),
            concat_list([col("ls"), col("ls"), lit("!")])
                .unwrap()
                .alias("texts and a literal"),
            concat_list([col("ld"), col("ld")]).unwrap().alias("dates"),
            // Numbers cast to the lists' type, literals and columns.
            concat_list([col("li"), lit(7), col("k").cast(DataType::Int32)])
                .unwrap()
                .alias("cast"),
            concat_list([col("lf"), col("k")]).unwrap().alias("floats"),
            // A literal first (Polars repeats it on every row).
            concat_list([lit(0), col("li")])
                .unwrap()
                .alias("literal first"),
            concat_list([lit("<"), col("ls"), lit(">")])
                .unwrap()
                .alias("texts between literals"),
        ]),
    );
    assert_gpu_eq(
        "read after, per group, of sliced columns",
        frame
            .clone()
            .filter(col("k").is_not_null())
            .with_columns([concat_list([col("li"), col("k")])
                .unwrap()
                .list()
                .sum()
                .alias("sum")])
            .group_by_stable([col("b")])
            .agg([
                concat_list([col("lf"), col("lf")]).unwrap().alias("lf"),
                concat_list([col("li"), col("sum")]).unwrap().alias("li"),
            ]),
    );
    assert_gpu_eq(
        "lists of lists and of structs",
        frame
            .clone()
            .group_by_stable([col("b")])
            .agg([
                col("li"),
                as_struct(vec![col("k"), (col("k") * lit(2)).alias("twice")]).alias("pairs"),
            ])
            .select([
                concat_list([col("li"), col("li")]).unwrap().alias("li"),
                concat_list([col("pairs"), col("pairs").list().tail(lit(1))])
                    .unwrap()
                    .alias("pairs"),
            ]),
    );
    assert_gpu_eq(
        "of no rows",
        frame
            .clone()
            .filter(col("k").gt(lit(10)))
            .select([concat_list([col("li"), col("k")]).unwrap()]),
    );
    // An aggregation beside the lists stays with Polars, with its reason.
    assert_cpu_answer_with_reason(
        frame.select([concat_list([col("li"), col("k").max()]).unwrap()]),
        "concat_list of an aggregation",
    );
}

/// Lists and values of differing number types concatenated: each list's
/// values and each value cast to the supertype Polars plans (wider
/// integers, floats), nulls, empty lists and null lists kept (a list cast
/// to its own type is the list); a literal
/// number Polars makes a column of its own type (`2` as i32, where its plan
/// took it as the lists' u8) stays with Polars, whose answer's type is not
/// its plan's.
#[test]
fn lists_and_values_of_differing_number_types_match_the_cpu() {
    let list = |values: Vec<Option<i64>>| Some(Series::new("".into(), values));
    let frame = df!(
        "small" => [list(vec![Some(1), Some(255)]), None, list(vec![None]), list(vec![])],
        "wide" => [list(vec![Some(-7)]), list(vec![Some(i64::MAX), None]), None, list(vec![Some(0)])],
        "v" => [Some(3i16), None, Some(-1), Some(i16::MIN)],
    )
    .unwrap()
    .lazy()
    .with_columns([
        col("small").cast(DataType::List(Box::new(DataType::UInt8))),
        col("wide").cast(DataType::List(Box::new(DataType::Int64))),
    ]);
    assert_gpu_eq(
        "lists cast to the supertype",
        frame.clone().select([
            concat_list([col("small"), col("wide")])
                .unwrap()
                .alias("u8 then i64"),
            concat_list([col("wide"), col("small")])
                .unwrap()
                .alias("i64 then u8"),
            concat_list([col("small"), col("v")])
                .unwrap()
                .alias("u8 and i16"),
            concat_list([col("v"), col("small")])
                .unwrap()
                .alias("i16 then u8"),
            concat_list([
                col("small").cast(DataType::List(Box::new(DataType::Float32))),
                col("wide"),
            ])
            .unwrap()
            .alias("f32 and i64"),
            concat_list([col("small"), col("v").cast(DataType::Float64)])
                .unwrap()
                .alias("u8 and f64"),
        ]),
    );
    assert_cpu_answer_with_reason(
        frame.select([concat_list([col("small"), lit(2)]).unwrap()]),
        "Polars plans list[u8] and answers list[i32]",
    );
}

/// `concat_list` of texts beside categoricals or enums, or lists of them:
/// Polars casts the categories to text (the supertype), and so does the
/// device, over the frame and per group.
#[test]
fn categories_among_texts_concatenated_match_the_cpu() {
    let frame = || {
        df!(
            "s" => [Some("apple"), None, Some("fig"), Some(""), Some("kiwi")],
            "t" => [Some("b"), Some("a"), None, Some("c"), Some("a")],
            "k" => [1i32, 2, 1, 2, 1],
        )
        .unwrap()
        .lazy()
        .with_columns([
            col("t")
                .cast(DataType::from_categories(Categories::global()))
                .alias("cat"),
            col("t")
                .cast(DataType::from_frozen_categories(
                    FrozenCategories::new(["c", "a", "b"]).unwrap(),
                ))
                .alias("enum"),
        ])
    };
    let concatenated = || {
        [
            concat_list([col("cat"), col("s")])
                .unwrap()
                .alias("cat, text"),
            concat_list([col("s"), col("enum"), lit("x")])
                .unwrap()
                .alias("text, enum, literal"),
            concat_list([
                col("cat").implode(false).over([col("k")]).unwrap(),
                col("s"),
            ])
            .unwrap()
            .alias("list of cat, text"),
        ]
    };
    assert_gpu_eq("over the frame", frame().select(concatenated()));
    assert_gpu_eq(
        "per group",
        frame()
            .group_by_stable([col("k")])
            .agg([concat_list([col("cat"), col("s")]).unwrap().alias("lists")]),
    );
}
