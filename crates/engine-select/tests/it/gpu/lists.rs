//! Lists on the device: list columns held, gathered (filters, sorts, joins, slices), stacked by unions, made by `implode` and by `agg` of values, exploded, measured by `list.len`, their nulls dropped and their matches counted; what else lists meet stays with Polars, with its reason.

use super::*;

/// A frame with list columns of several value types: empty and null
/// lists, null values inside lists, a sliced list column (its offsets
/// not from 0).
pub(super) fn list_frame() -> LazyFrame {
    let ints = Series::new(
        "li".into(),
        [
            Some(Series::new("".into(), [Some(1i64), None, Some(3)])),
            Some(Series::new_empty("".into(), &DataType::Int64)),
            None,
            Some(Series::new("".into(), [Some(-4i64)])),
            Some(Series::new(
                "".into(),
                [Some(5i64), Some(5), None, Some(i64::MAX)],
            )),
            None,
        ],
    );
    let texts = Series::new(
        "ls".into(),
        [
            Some(Series::new("".into(), [Some("a"), Some("ünïcode")])),
            None,
            Some(Series::new("".into(), [None::<&str>])),
            Some(Series::new_empty("".into(), &DataType::String)),
            Some(Series::new("".into(), [Some(""), Some("x"), Some("y")])),
            Some(Series::new("".into(), [Some("z")])),
        ],
    );
    // Two more lists in front, sliced away: offsets from 3.
    let floats = Series::new(
        "lf".into(),
        [
            Some(Series::new("".into(), [1.0f64, 2.0])),
            Some(Series::new("".into(), [3.0f64])),
            Some(Series::new("".into(), [-0.0f64, f64::NAN])),
            None,
            Some(Series::new_empty("".into(), &DataType::Float64)),
            Some(Series::new("".into(), [0.5f64])),
            Some(Series::new("".into(), [f64::INFINITY, 1.5, 2.5])),
            Some(Series::new("".into(), [7.0f64])),
        ],
    )
    .slice(2, 6);
    let dates = Series::new(
        "ld".into(),
        [
            Some(Series::new("".into(), [19_000i32, 19_001])),
            Some(Series::new("".into(), [0i32])),
            Some(Series::new_empty("".into(), &DataType::Int32)),
            None,
            Some(Series::new("".into(), [-1i32])),
            Some(Series::new("".into(), [20_000i32, 1])),
        ],
    )
    .cast(&DataType::List(Box::new(DataType::Date)))
    .unwrap();
    let mut df = df!(
        "k" => [Some(3i64), Some(1), None, Some(2), Some(1), Some(3)],
        "b" => [Some(true), None, Some(false), Some(true), Some(false), Some(true)],
    )
    .unwrap();
    for column in [ints, texts, floats, dates] {
        df.with_column(column.into()).unwrap();
    }
    df.lazy()
}

/// Polars' explode as `explode(..)` gives it by default: an empty or a
/// null list one row of null.
pub(super) fn polars_explode() -> ExplodeOptions {
    ExplodeOptions {
        empty_as_null: true,
        keep_nulls: true,
    }
}

#[test]
fn list_columns_round_trip_and_move_with_their_rows() {
    let frame = list_frame();
    let other = df!(
        "k" => [1i64, 3, 4],
        "name" => ["one", "three", "four"],
    )
    .unwrap()
    .lazy();
    for (name, lf) in [
        ("list columns, as they are", frame.clone()),
        ("filtered", frame.clone().filter(col("b"))),
        (
            "sorted by another column",
            frame.clone().sort(
                ["k"],
                SortMultipleOptions::default().with_maintain_order(true),
            ),
        ),
        ("sliced", frame.clone().slice(1, 3)),
        ("the last rows", frame.clone().tail(2)),
        (
            "joined, lists on the left",
            frame.clone().join(
                other.clone(),
                [col("k")],
                [col("k")],
                JoinArgs {
                    maintain_order: MaintainOrderJoin::Left,
                    ..JoinArgs::new(JoinType::Left)
                },
            ),
        ),
        (
            "joined, lists on the right (nulls where no row matches)",
            other.clone().join(
                frame.clone(),
                [col("k")],
                [col("k")],
                JoinArgs {
                    maintain_order: MaintainOrderJoin::Left,
                    ..JoinArgs::new(JoinType::Left)
                },
            ),
        ),
        (
            "stacked",
            concat(
                [
                    frame.clone(),
                    frame.clone().filter(col("k").eq(lit(1))),
                    frame.clone(),
                ],
                UnionArgs::default(),
            )
            .unwrap(),
        ),
        (
            "selected, renamed and measured",
            frame.clone().select([
                col("li").alias("renamed"),
                col("ls"),
                col("li").list().len().alias("len li"),
                col("ls").list().len().alias("len ls"),
                (col("lf").list().len() * lit(2u32)).alias("twice len lf"),
            ]),
        ),
        (
            "copied",
            frame
                .clone()
                .with_columns([col("li").alias("copy")])
                .select([col("ls"), col("ls").alias("again"), col("copy")]),
        ),
        (
            "tested for nulls, rows with null lists dropped",
            frame
                .clone()
                .with_columns([
                    col("li").is_null().alias("li null"),
                    col("ls").is_not_null().alias("ls valid"),
                ])
                .drop_nulls(Some(cols(["lf"]))),
        ),
        (
            "counted, and picked first and last per group",
            frame.clone().group_by_stable([col("b")]).agg([
                col("li").first().alias("first li"),
                col("ls").last().alias("last ls"),
                col("lf").count().alias("lists"),
                len(),
            ]),
        ),
        (
            "filtered by a list's length",
            frame.clone().filter(col("li").list().len().gt(lit(1u32))),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
}

#[test]
fn list_functions_match_the_cpu() {
    let frame =
        list_frame().with_columns([col("li").list().len().alias("n"), col("ls").alias("ls2")]);
    let small = df!(
        "k" => [1i64, 1, 1, 2, 2, 3, 4, 4],
        "i8" => [Some(-128i8), Some(-128), None, Some(7), Some(1), None, Some(127), Some(127)],
        "u16" => [Some(65535u16), Some(1), Some(2), None, Some(0), None, Some(3), Some(4)],
        "b" => [Some(true), None, Some(true), Some(false), Some(false), None, Some(true), Some(true)],
    )
    .unwrap()
    .lazy()
    .group_by_stable([col("k")])
    .agg([col("i8"), col("u16"), col("b")]);
    for (name, lf) in [
        (
            "places from either end, first and last",
            frame.clone().select([
                col("li").list().get(lit(0), true).alias("li 0"),
                col("li").list().get(lit(2), true).alias("li 2"),
                col("li").list().get(lit(-2), true).alias("li -2"),
                col("ls").list().first().alias("ls first"),
                col("ls").list().last().alias("ls last"),
                col("lf").list().get(lit(1), true).alias("lf 1"),
                col("ld").list().last().alias("ld last"),
            ]),
        ),
        (
            "sorted within each list: nulls first or last, descending, texts, booleans",
            frame.clone().select([
                col("li").list().sort(SortOptions::default()).alias("li"),
                col("li")
                    .list()
                    .sort(
                        SortOptions::default()
                            .with_order_descending(true)
                            .with_nulls_last(true),
                    )
                    .alias("li descending, nulls last"),
                col("ls")
                    .list()
                    .sort(SortOptions::default().with_nulls_last(true))
                    .alias("ls"),
                col("ld")
                    .list()
                    .sort(SortOptions::default().with_order_descending(true))
                    .alias("ld descending"),
            ]),
        ),
        (
            "sliced, first and last values, from either end",
            frame.clone().select([
                col("li").list().head(lit(2)).alias("li head 2"),
                col("ls").list().tail(lit(1)).alias("ls tail 1"),
                col("li").list().slice(lit(1), lit(2)).alias("li 1..3"),
                col("ld").list().slice(lit(-2), lit(5)).alias("ld last two"),
                col("lf").list().slice(lit(5), lit(1)).alias("lf beyond"),
                col("li")
                    .list()
                    .tail(lit(2))
                    .list()
                    .sum()
                    .alias("li tail sum"),
                col("li")
                    .list()
                    .sort(SortOptions::default())
                    .list()
                    .head(lit(1))
                    .alias("li least"),
            ]),
        ),
        (
            "evaluated within each list: elementwise, ranked, running, shifted, centred",
            frame.clone().select([
                col("li")
                    .list()
                    .eval(element() * lit(2i64))
                    .alias("li doubled"),
                col("li")
                    .list()
                    .eval(element().rank(Default::default(), None))
                    .alias("li ranks"),
                col("ls")
                    .list()
                    .eval(element().shift(lit(1)))
                    .alias("ls shifted"),
                col("ls")
                    .list()
                    .eval(element().str().to_uppercase())
                    .alias("ls upper"),
                col("ld")
                    .list()
                    .eval(element().dt().year())
                    .alias("ld years"),
                col("li")
                    .list()
                    .eval(
                        element().cast(DataType::Float64)
                            - element().cast(DataType::Float64).mean(),
                    )
                    .alias("li centred"),
                col("li")
                    .list()
                    .eval(element().sort(SortOptions::default().with_order_descending(true)))
                    .list()
                    .first()
                    .alias("li greatest"),
            ]),
        ),
        (
            "aggregated per list (Python's list.n_unique, list.any, list.all)",
            frame.clone().select([
                col("li")
                    .list()
                    .agg(element().n_unique())
                    .alias("li distinct"),
                col("ls")
                    .list()
                    .agg(element().n_unique())
                    .alias("ls distinct"),
                col("li").list().agg(element().max()).alias("li max"),
                col("li").list().agg(element().count()).alias("li valid"),
                col("li")
                    .list()
                    .agg(element().null_count())
                    .alias("li nulls"),
                col("ld").list().agg(len()).alias("ld length"),
                // (Of an empty list: null, not the next list's first.)
                col("ls").list().agg(element().first()).alias("ls first"),
                col("ls").list().agg(element().last()).alias("ls last"),
                col("li").list().agg(element().first()).alias("li first"),
            ]),
        ),
        (
            "booleans aggregated per list",
            small.clone().select([
                col("b").list().agg(element().any(true)).alias("any"),
                col("b")
                    .list()
                    .agg(element().all(false))
                    .alias("all, Kleene"),
                col("b").list().agg(element().sum()).alias("trues"),
            ]),
        ),
        (
            "means of lists of small integers: empty, null, of nulls",
            DataFrame::new(
                4,
                vec![
                    Series::new(
                        "l".into(),
                        [
                            Some(Series::new("".into(), [Some(1u8), Some(2), None])),
                            Some(Series::new_empty("".into(), &DataType::UInt8)),
                            None,
                            Some(Series::new("".into(), [None::<u8>])),
                        ],
                    )
                    .into(),
                ],
            )
            .unwrap()
            .lazy()
            .select([col("l").list().mean()]),
        ),
        (
            "sorted lists of small integers and booleans, then measured",
            small.clone().select([
                col("k"),
                col("i8").list().sort(SortOptions::default()).alias("i8"),
                col("b")
                    .list()
                    .sort(SortOptions::default().with_order_descending(true))
                    .alias("b"),
                col("u16")
                    .list()
                    .sort(SortOptions::default())
                    .list()
                    .first()
                    .alias("least u16"),
            ]),
        ),
        (
            "sums, minima, maxima of integers and temporals",
            frame.clone().select([
                col("li").list().min().alias("li min"),
                col("li").list().max().alias("li max"),
                col("ld").list().min().alias("ld min"),
                col("ld").list().max().alias("ld max"),
                col("li").list().arg_max().alias("li arg_max"),
                col("ld").list().arg_min().alias("ld arg_min"),
                col("ld").list().arg_max().alias("ld arg_max"),
            ]),
        ),
        (
            "sums of small integers (widened) and booleans (counted)",
            small.clone().select([
                col("k"),
                col("i8").list().sum().alias("i8 sum"),
                col("u16").list().sum().alias("u16 sum"),
                col("b").list().sum().alias("b sum"),
                col("i8").list().min().alias("i8 min"),
                col("u16").list().max().alias("u16 max"),
                col("u16").list().arg_min().alias("u16 arg_min"),
                col("u16").list().mean().alias("u16 mean"),
                col("i8").list().mean().alias("i8 mean"),
                col("u16")
                    .list()
                    .eval(element().cum_sum(false))
                    .alias("u16 running"),
                col("u16").list().arg_max().alias("u16 arg_max"),
            ]),
        ),
        (
            "membership of literals",
            frame.clone().select([
                col("li")
                    .list()
                    .contains(lit(5i64), false)
                    .alias("li has 5"),
                col("li").list().contains(lit(2i64), true).alias("li has 2"),
                col("ls").list().contains(lit("x"), false).alias("ls has x"),
                col("ld")
                    .list()
                    .contains(date_literal(0), false)
                    .alias("ld has 1970-01-01"),
            ]),
        ),
        (
            "extremes of texts and booleans, and places of booleans'",
            frame
                .clone()
                .with_columns([concat_list([col("b"), col("b").shift(lit(1))])
                    .unwrap()
                    .alias("lb")])
                .select([
                    col("ls").list().max().alias("max text"),
                    col("ls").list().min().alias("min text"),
                    col("lb").list().max().alias("max flag"),
                    col("lb").list().min().alias("min flag"),
                    col("lb").list().head(lit(0)).list().max().alias("of none"),
                    col("lb").list().arg_max().alias("place of max flag"),
                    col("lb").list().arg_min().alias("place of min flag"),
                    col("lb")
                        .list()
                        .head(lit(0))
                        .list()
                        .arg_max()
                        .alias("place of none"),
                ]),
        ),
        (
            "texts joined",
            frame.clone().select([
                col("ls")
                    .list()
                    .join(lit("-"), true)
                    .alias("skipping nulls"),
                col("ls")
                    .list()
                    .join(lit(", "), false)
                    .alias("keeping nulls"),
            ]),
        ),
        (
            "of lists exploded after",
            frame
                .clone()
                .with_columns([col("li").list().first().alias("first")])
                .explode(by_name(["li"], true, false), polars_explode()),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
    // Lists mostly empty (more lists than values), and lists long enough
    // that their sums run in chunks.
    let sparse = df!(
        "k" => (0..40i64).map(|i| i % 13).collect::<Vec<_>>(),
        "v" => (0..40i64).map(|i| (i % 3 == 0).then_some(i - 20)).collect::<Vec<_>>(),
    )
    .unwrap()
    .lazy()
    .group_by_stable([col("k")])
    .agg([col("v").filter(col("k").eq(lit(5)))]);
    let long = df!(
        "k" => (0..5000i64).map(|i| i / 1700).collect::<Vec<_>>(),
        "v" => (0..5000i64).map(|i| (i % 7 != 0).then_some(i % 101 - 50)).collect::<Vec<_>>(),
    )
    .unwrap()
    .lazy()
    .group_by_stable([col("k")])
    .agg([col("v").filter(col("v").gt(lit(40)).or(col("k").neq(lit(1))))]);
    for (name, lf) in [("mostly empty", sparse), ("long", long)] {
        let functions = lf.select([
            col("k"),
            col("v").list().len().alias("len"),
            col("v").list().sum().alias("sum"),
            col("v").list().min().alias("min"),
            col("v").list().max().alias("max"),
            col("v").list().first().alias("first"),
            col("v").list().get(lit(-3), true).alias("third last"),
        ]);
        assert_gpu_eq(name, functions);
    }
    // A place a list lacks: Polars raises, and so does the engine.
    assert_cpu_error(frame.clone().select([col("li").list().get(lit(1), false)]));
    let error = raised_error(frame.clone().select([col("li").list().get(lit(1), false)]));
    let written = r#"list.get of `col("li")`: a list without that place"#;
    assert!(error.contains(written), "{error}");
}

#[test]
fn texts_split_into_lists_match_the_cpu() {
    let texts = df!(
        "k" => [1i64, 2, 3, 4, 5, 6, 7],
        "s" => [Some("a,b,,c"), Some(""), None, Some(",lead and trail,"), Some("ünï,cödé"), Some("no separator"), Some(",,")],
    )
    .unwrap()
    .lazy();
    for (name, lf) in [
        (
            "split by a text, inclusive or not, into characters",
            texts.clone().select([
                col("k"),
                col("s").str().split(lit(",")).alias("by comma"),
                col("s").str().split_inclusive(lit(",")).alias("inclusive"),
                col("s").str().split(lit(",,")).alias("by two"),
                col("s").str().split(lit("")).alias("characters"),
                col("s")
                    .str()
                    .to_uppercase()
                    .str()
                    .split(lit(" "))
                    .alias("of made texts"),
            ]),
        ),
        (
            "split, then exploded",
            texts
                .clone()
                .with_columns([col("s").str().split(lit(","))])
                .explode(by_name(["s"], true, false), polars_explode()),
        ),
        (
            "split, then measured and picked",
            texts.clone().select([
                col("s").str().split(lit(",")).list().len().alias("pieces"),
                col("s")
                    .str()
                    .split(lit(","))
                    .list()
                    .last()
                    .alias("last piece"),
                col("s")
                    .str()
                    .split(lit(","))
                    .list()
                    .join(lit("+"), true)
                    .alias("joined"),
            ]),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
}

#[test]
fn lists_are_made_by_implode_and_by_agg_of_values() {
    let frame = list_frame();
    let numbers = groups();
    let in_order = |lf: LazyFrame| lf.sort(["g"], SortMultipleOptions::default());
    for (name, lf) in [
        (
            "each group's values, of every type",
            in_order(numbers.clone().group_by([col("g")]).agg([
                col("v"),
                col("x").alias("xs"),
                col("s"),
                (col("v") * lit(2)).alias("twice v"),
                col("x").is_nan().alias("nan x"),
                col("v").count().alias("count"),
            ])),
        ),
        (
            "in the order of the groups' first rows",
            numbers
                .clone()
                .group_by_stable([col("h")])
                .agg([col("s"), col("v").implode(true).alias("imploded v")]),
        ),
        (
            "of a frame's lists",
            frame.clone().group_by_stable([col("k")]).agg([col("b")]),
        ),
        (
            "the whole column as one list",
            numbers.clone().select([
                col("v").implode(true),
                col("s").implode(true).alias("all s"),
            ]),
        ),
        (
            "of no rows",
            numbers
                .clone()
                .filter(col("h").gt(lit(10u32)))
                .select([col("v").implode(true)]),
        ),
        (
            "each group's values computed in the group",
            in_order(
                numbers.clone().group_by([col("g")]).agg([
                    col("v").cum_sum(false).alias("running"),
                    col("v").shift(lit(1)).alias("shifted"),
                    col("x").sort(SortOptions::default()).alias("sorted"),
                    col("v")
                        .sort(
                            SortOptions::default()
                                .with_order_descending(true)
                                .with_nulls_last(true),
                        )
                        .alias("descending"),
                    (col("v") - col("v").min()).alias("above the least"),
                    col("v").reverse().alias("reversed"),
                    col("h").rank(RankOptions::default(), None).alias("ranks"),
                ]),
            ),
        ),
        (
            "each group's values a filter keeps",
            in_order(numbers.clone().group_by([col("g")]).agg([
                col("v").drop_nulls().alias("valid"),
                col("x").filter(col("v").gt(lit(1))).alias("of large v"),
                col("s").filter(col("h").eq(lit(1u32))).alias("of h 1"),
                col("v").head(Some(2)).alias("first two"),
                col("s").tail(Some(1)).alias("last one"),
                col("v").gather_every(2, 1).alias("every second"),
                col("v").unique_stable().alias("distinct v"),
                col("s").unique_stable().alias("distinct s"),
                // Per group Polars keeps the order they first come in.
                col("v").unique().alias("distinct v, unordered"),
                col("s").unique().alias("distinct s, unordered"),
            ])),
        ),
        (
            "a column's values a filter keeps, and sorted",
            numbers.clone().select([
                col("v").drop_nulls().implode(true).alias("valid"),
                col("x")
                    .sort(SortOptions::default())
                    .implode(true)
                    .alias("sorted"),
            ]),
        ),
        (
            "concat_list of columns and computed values, texts, nulls kept",
            numbers.clone().select([
                concat_list([col("v"), col("v") * lit(2i64), col("v").shift(lit(1))])
                    .unwrap()
                    .alias("v three ways"),
                concat_list([col("s"), col("s").str().to_uppercase()])
                    .unwrap()
                    .alias("s twice"),
                concat_list([col("x")]).unwrap().alias("x alone"),
            ]),
        ),
        (
            "concat_list then a list function",
            numbers
                .clone()
                .filter(col("g").is_not_null())
                .select([concat_list([col("v"), col("h").cast(DataType::Int64)])
                    .unwrap()
                    .list()
                    .max()
                    .alias("greater")]),
        ),
        (
            "concat_list of an empty frame",
            numbers
                .clone()
                .filter(col("h").gt(lit(100u32)))
                .select([concat_list([col("s"), col("s")]).unwrap().alias("s")]),
        ),
        (
            "the column's list on every row",
            numbers.clone().with_columns([
                col("v").implode(true).alias("all v"),
                col("s").drop_nulls().implode(true).alias("valid s"),
            ]),
        ),
        (
            "beside the column",
            numbers
                .clone()
                .select([col("h"), col("x").implode(true).alias("all x")]),
        ),
        (
            "texts moved within each group: shifted, reversed, filled, sorted by another column",
            numbers.clone().group_by_stable([col("g")]).agg([
                col("s").shift(lit(1)).alias("shifted"),
                col("s").shift(lit(-2)).alias("back"),
                col("s").reverse().alias("reversed"),
                col("s")
                    .fill_null_with_strategy(FillNullStrategy::Forward(None))
                    .alias("filled"),
                col("s")
                    .fill_null_with_strategy(FillNullStrategy::Backward(Some(1)))
                    .alias("filled back"),
                col("s")
                    .sort_by(
                        [col("v")],
                        SortMultipleOptions::default()
                            .with_order_descending(true)
                            .with_maintain_order(true),
                    )
                    .alias("by v"),
            ]),
        ),
        (
            "the distinct valid values of each group, in order of first appearance",
            numbers.clone().group_by_stable([col("g")]).agg([
                col("v").drop_nulls().unique().alias("valid v"),
                col("s").drop_nulls().unique_stable().alias("valid s"),
            ]),
        ),
        (
            "the distinct values of each group sorted, nulls first or last",
            numbers.clone().group_by_stable([col("g")]).agg([
                col("v").unique().sort(Default::default()).alias("v"),
                col("s")
                    .unique()
                    .sort(
                        SortOptions::default()
                            .with_order_descending(true)
                            .with_nulls_last(true),
                    )
                    .alias("s"),
            ]),
        ),
        (
            "then exploded back",
            in_order(numbers.clone().group_by([col("g")]).agg([col("s")]))
                .explode(by_name(["s"], true, false), polars_explode()),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
}

#[test]
fn distinct_values_inside_aggregations_match_the_cpu() {
    // A group's first and last distinct values (in order of first
    // appearance), the first and last of its distinct values sorted, their
    // counts: as of the values themselves.
    let frame = groups();
    assert_gpu_eq(
        "distinct values of each group aggregated",
        frame.group_by_stable([col("g")]).agg([
            col("v").unique().first().alias("first v"),
            col("s").unique_stable().first().alias("first s"),
            col("v")
                .unique()
                .sort(Default::default())
                .first()
                .alias("least v"),
            col("s")
                .unique()
                .sort(SortOptions::default().with_order_descending(true))
                .last()
                .alias("least s"),
            col("v").unique().n_unique().alias("distinct v"),
            // The last value to come first (of the rows where a value
            // first comes, the last).
            col("v").unique().last().alias("last v"),
            col("s").unique_stable().last().alias("last s"),
            // Counted: the valid ones (`count`), nulls too (`len`).
            col("v").unique().count().alias("valid v"),
            col("s").unique_stable().count().alias("valid s"),
            col("s").unique().len().alias("s with null"),
        ]),
    );
    assert_gpu_eq(
        "distinct values of the frame counted, in a window",
        groups().select([
            col("s").unique().count().alias("valid s"),
            col("v").unique().len().alias("v with null"),
            col("s")
                .unique()
                .count()
                .over([col("h")])
                .unwrap()
                .alias("per h"),
        ]),
    );
    // Of floats they stay with Polars.
    assert_cpu_answer_with_reason(
        groups()
            .group_by_stable([col("g")])
            .agg([col("x").unique().first()]),
        "`unique` inside an aggregation",
    );
}

#[test]
fn explode_repeats_each_row_for_each_value() {
    let frame = list_frame();
    let options = |empty_as_null, keep_nulls| ExplodeOptions {
        empty_as_null,
        keep_nulls,
    };
    for list in ["li", "ls", "lf", "ld"] {
        for (empty_as_null, keep_nulls) in
            [(true, true), (false, true), (true, false), (false, false)]
        {
            let lf = frame.clone().explode(
                by_name([list], true, false),
                options(empty_as_null, keep_nulls),
            );
            let name =
                format!("{list} exploded, empty as null {empty_as_null}, nulls kept {keep_nulls}");
            assert_gpu_eq(&name, lf);
        }
    }
    // One exploded expression in a select: of a list column, of texts
    // split (words into rows), then grouped.
    let words = df!("t" => [Some("a b a"), None, Some(""), Some("c  d")])
        .unwrap()
        .lazy()
        .select([col("t")
            .str()
            .split(lit(" "))
            .explode(options(true, true))
            .alias("word")]);
    for (name, lf) in [
        (
            "a list column exploded in a select",
            frame
                .clone()
                .select([col("ls").explode(options(true, true))]),
        ),
        (
            "a list column exploded in a select, empty and null lists skipped",
            frame
                .clone()
                .select([col("li").explode(options(false, false)).alias("i")]),
        ),
        ("texts split into rows", words.clone()),
        (
            "words counted",
            words.group_by_stable([col("word")]).agg([len().alias("n")]),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
    // Several columns together: lists spanning as many values row by row.
    let numbers = groups();
    let pairs = numbers.clone().group_by_stable([col("g")]).agg([
        col("v"),
        col("s"),
        (col("x") * lit(2.0)).alias("twice x"),
    ]);
    for (empty_as_null, keep_nulls) in [(true, true), (false, false)] {
        assert_gpu_eq(
            "several columns exploded together",
            pairs.clone().explode(
                by_name(["s", "v", "twice x"], true, false),
                options(empty_as_null, keep_nulls),
            ),
        );
    }
    // Lists spanning different numbers of values: Polars raises, and so
    // does the engine.
    assert_cpu_error(
        frame
            .clone()
            .explode(by_name(["li", "ls"], true, false), polars_explode()),
    );
    assert_gpu_eq(
        "exploded, then aggregated",
        frame
            .clone()
            .explode(by_name(["li"], true, false), polars_explode())
            .group_by_stable([col("k")])
            .agg([col("li").max(), col("li").alias("again")]),
    );
}

#[test]
fn what_lists_meet_beyond_that_stays_with_polars() {
    let frame = list_frame();
    for (lf, reason) in [
        (
            // ([5, 5, null, i64::MAX]: Polars' answer depends on whether it
            // knows the values sorted.)
            frame.clone().select([col("li").list().arg_min()]),
            "holds its least value more than once in a group",
        ),
        (
            frame.clone().select([col("li")
                .list()
                .eval(element().filter(element().gt(lit(1i64))) + lit(1i64))]),
            "filter inside an expression is not supported on the GPU",
        ),
        (
            frame
                .clone()
                .select([col("ls").list().agg(element().get(lit(0), true))]),
            "list.agg is not supported on the GPU yet where it takes `item`",
        ),
        (
            frame.clone().select([col("k")
                .cum_sum(false)
                .over_with_options(
                    Some([col("b")]),
                    Some(([col("li")], SortOptions::default())),
                    WindowMapping::GroupsToRows,
                )
                .unwrap()]),
            "a window partitioned or ordered by `col(\"li\")` (of list[i64])",
        ),
        (
            frame
                .clone()
                .group_by_stable([col("k")])
                .agg([col("li")])
                .sort(["li"], SortMultipleOptions::default()),
            "a sort by `col(\"li\")` (list[list[i64]]) is not supported on the GPU yet",
        ),
        (
            frame
                .clone()
                .group_by_stable([col("k")])
                .agg([col("li")])
                .group_by_stable([col("li")])
                .agg([col("k").sum()]),
            "a group-by by `li` (list[list[i64]]) is not supported on the GPU yet",
        ),
        (
            frame
                .clone()
                .group_by_stable([col("k")])
                .agg([col("li")])
                .unique_stable(None, UniqueKeepStrategy::First),
            "a distinct by `li` (list[list[i64]]) is not supported on the GPU yet",
        ),
        (
            groups().select([col("v").unique().implode(true)]),
            "`unique` of a whole column (Polars sorts them)",
        ),
        (
            groups().group_by_stable([col("g")]).agg([concat_str(
                [col("s").shift(lit(1)), col("s")],
                "-",
                false,
            )]),
            "a list result of texts made within each group",
        ),
    ] {
        assert_cpu_answer_with_reason(lf, reason);
    }
}

#[test]
fn shifts_and_differences_of_lists_match_the_cpu() {
    // Of every list (empty, null, of nulls, of i64's extreme: differences
    // wrap), texts and dates shifted too, by counts beyond the lengths; of
    // u8 (made by Polars), differences in i16.
    let frame = list_frame()
        .with_columns([col("li")
            .cast(DataType::List(Box::new(DataType::UInt8)))
            .alias("lu")])
        .collect()
        .unwrap()
        .lazy();
    let shifted = |column: &str, n: i64| {
        col(column)
            .list()
            .shift(lit(n))
            .alias(format!("{column} shift {n}"))
    };
    let differences = |column: &str, n: i64| {
        col(column)
            .list()
            .diff(n, NullBehavior::Ignore)
            .alias(format!("{column} diff {n}"))
    };
    assert_gpu_eq(
        "shifts and differences of lists",
        frame.clone().select([
            shifted("li", 1),
            shifted("li", -2),
            shifted("li", 0),
            shifted("ls", 1),
            shifted("ld", -1),
            shifted("lf", 5),
            differences("li", 1),
            differences("li", -1),
            differences("li", 2),
            differences("lf", 1),
            differences("lu", 1),
        ]),
    );
    // Differences of dates (durations) and dropping the first values fall back.
    assert_cpu_answer_with_reason(
        frame.clone().select([differences("ld", 1)]),
        "list.diff of list[date]",
    );
    assert_cpu_answer_with_reason(
        // (By 0: Polars' debug build panics on a list shorter than the count.)
        frame.select([col("li").list().diff(0, NullBehavior::Drop)]),
        "with null_behavior=\"drop\"",
    );
}

#[test]
fn list_drop_nulls_and_count_matches_match_the_cpu() {
    let frame = list_frame();
    assert_gpu_eq(
        "each list's valid values, and how many equal a value",
        frame.clone().select([
            col("li").list().drop_nulls().alias("li valid"),
            col("ls").list().drop_nulls().alias("ls valid"),
            col("lf").list().drop_nulls().alias("lf valid (NaN kept)"),
            col("li").list().count_matches(lit(5i64)).alias("fives"),
            col("li").list().count_matches(lit(NULL)).alias("nulls"),
            col("lf").list().count_matches(lit(f64::NAN)).alias("NaN"),
            col("lf")
                .list()
                .count_matches(lit(0.0f64))
                .alias("zeros, -0.0 too"),
            col("ls").list().count_matches(lit("")).alias("empty texts"),
            col("ld")
                .list()
                .count_matches(lit(0i32).cast(DataType::Date))
                .alias("epochs"),
        ]),
    );
    assert_gpu_eq(
        "then measured, per group",
        frame.group_by_stable([col("k")]).agg([
            col("li")
                .list()
                .drop_nulls()
                .list()
                .len()
                .sum()
                .alias("valid"),
            col("ls").list().count_matches(lit("z")).max().alias("z"),
        ]),
    );
}

#[test]
fn membership_of_an_item_per_row_in_its_row_list_runs_on_the_device() {
    let frame = list_frame();
    let both = |e: fn(bool) -> Expr| [e(false).alias("nulls apart"), e(true).alias("nulls equal")];
    let cases = [
        (
            "is_in of a column in a list column",
            frame
                .clone()
                .select(both(|ne| col("k").is_in(col("li"), ne))),
        ),
        (
            "list.contains of a column",
            frame
                .clone()
                .select(both(|ne| col("li").list().contains(col("k"), ne))),
        ),
        (
            "is_in of a literal in a list column",
            frame
                .clone()
                .select(both(|ne| lit(5i64).is_in(col("li"), ne))),
        ),
        (
            "is_in of a null literal in a list column",
            frame.clone().select(both(|ne| {
                lit(NULL).cast(DataType::Int64).is_in(col("li"), ne)
            })),
        ),
        (
            "is_in of texts, each list's second, in lists sliced",
            frame.clone().select(both(|ne| {
                col("ls")
                    .list()
                    .get(lit(1), true)
                    .is_in(col("ls").list().tail(lit(2)), ne)
            })),
        ),
        (
            "is_in of NaN and of 0.0 in lists holding -0.0 and NaN",
            frame.clone().select([
                lit(f64::NAN).is_in(col("lf"), false).alias("NaN"),
                lit(0.0).is_in(col("lf"), true).alias("0.0"),
                col("lf")
                    .list()
                    .last()
                    .is_in(col("lf"), false)
                    .alias("last"),
            ]),
        ),
        (
            "dates and booleans",
            frame.clone().select([
                col("ld")
                    .list()
                    .last()
                    .is_in(col("ld").list().head(lit(1)), false)
                    .alias("dates"),
                lit(false)
                    .is_in(concat_list([col("b"), col("b")]).unwrap(), true)
                    .alias("booleans"),
            ]),
        ),
        (
            "list.contains of a column in one literal list",
            frame.clone().select(both(|ne| {
                lit(Series::new("".into(), [Some(1i64), None, Some(3)]))
                    .implode(false)
                    .list()
                    .contains(col("k"), ne)
            })),
        ),
        (
            "a filter by membership",
            frame
                .clone()
                .filter(col("k").is_in(col("li"), true).not())
                .select([col("k"), col("li")]),
        ),
    ];
    for (name, lf) in cases {
        assert_gpu_eq(name, lf);
    }
}

#[test]
fn int_ranges_make_a_list_per_row() {
    // Starts and ends of each row (nulls, starts past their ends, i32 cast
    // to i64 as Polars casts them), steps up and down, one of them a
    // single value; then measured, summed and exploded.
    let frame = df!(
        "a" => [Some(0i64), Some(3), None, Some(-5), Some(7), Some(2)],
        "b" => [Some(4i32), Some(3), Some(1), None, Some(-2), Some(12)],
    )
    .unwrap()
    .lazy();
    let ranges =
        |start: Expr, end: Expr, step: i64| int_ranges(start, end, lit(step), DataType::Int64);
    assert_gpu_eq(
        "int_ranges by steps",
        frame.clone().with_columns([
            ranges(col("a"), col("b"), 1).alias("up"),
            ranges(col("a"), col("b"), 3).alias("by 3"),
            ranges(col("b"), col("a"), -2).alias("down by 2"),
            ranges(lit(1), col("b"), 1).alias("from 1"),
            ranges(col("a"), col("a").max(), 4).alias("to the greatest"),
        ]),
    );
    assert_gpu_eq(
        "int_ranges measured, summed and exploded",
        frame
            .clone()
            .with_columns([
                ranges(col("a"), col("b"), 2).list().len().alias("n"),
                ranges(col("a"), col("b"), 2).list().sum().alias("sum"),
                ranges(col("b"), col("a"), -1).alias("r"),
            ])
            .explode(by_name(["r"], true, false), polars_explode()),
    );
    // A step of a column, and a range per row inside an aggregation: Polars'.
    assert_cpu_answer_with_reason(
        frame.clone().select([int_ranges(
            col("a"),
            col("b"),
            col("a") + lit(100),
            DataType::Int64,
        )]),
        "int_ranges by a step that is not a literal",
    );
    assert_cpu_answer_with_reason(
        frame
            .group_by_stable([col("b")])
            .agg([ranges(col("a"), lit(3), 1).list().len().sum()]),
        "int_ranges inside an aggregation",
    );
}
