//! Structs on the device: struct columns held and moved with their rows, built by `pl.struct`, their fields read, replaced, added and dropped (`struct.with_fields`, `struct.drop`), unnested, structs built per group picked first or last, structs of keys tested for repeats and counted, rows grouped, made distinct, sorted and joined by structs of keys; what else structs meet stays with Polars, with its reason.

use super::*;

/// A frame with a struct column (null structs among them, null fields
/// inside) and the columns to build more.
pub(super) fn struct_frame() -> LazyFrame {
    let df = df!(
        "k" => [Some(2i64), Some(1), Some(2), None, Some(1), Some(3)],
        "v" => [Some(10i32), None, Some(-3), Some(7), Some(0), Some(1)],
        "s" => [Some("p"), Some("q"), None, Some("r"), Some("s"), Some("t")],
        "a" => [Some(1i64), None, Some(3), Some(4), Some(5), None],
        "b" => [Some("x"), Some("ünï"), None, Some(""), Some("y"), Some("z")],
        "c" => [1.5f64, -0.0, f64::NAN, 2.0, 0.0, -1.0],
        "null" => [false, false, true, false, false, true],
    )
    .unwrap();
    // Built by Polars (the CPU engine), then the input of each query.
    let pair = when(col("null"))
        .then(lit(Null {}))
        .otherwise(as_struct(vec![col("a"), col("b"), col("c")]))
        .alias("pair");
    df.lazy()
        .with_column(pair)
        .drop(by_name(["a", "b", "c", "null"], true, false))
        .collect()
        .unwrap()
        .lazy()
}

#[test]
fn structs_move_with_their_rows_and_are_read_and_built() {
    let frame = struct_frame();
    let other = df!("k" => [1i64, 2, 9]).unwrap().lazy();
    for (name, lf) in [
        ("as they are", frame.clone()),
        ("filtered", frame.clone().filter(col("v").gt(lit(0)))),
        (
            "sorted by another column",
            frame.clone().sort(
                ["k"],
                SortMultipleOptions::default().with_maintain_order(true),
            ),
        ),
        ("sliced", frame.clone().slice(2, 3)),
        (
            "stacked",
            concat([frame.clone(), frame.clone().tail(2)], UnionArgs::default()).unwrap(),
        ),
        (
            "joined on the right (null structs where no row matches)",
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
            "fields read",
            frame.clone().select([
                col("pair").struct_().field_by_name("a").alias("a"),
                col("pair").struct_().field_by_name("b").alias("b"),
                (col("pair").struct_().field_by_name("c") * lit(2.0)).alias("twice c"),
                col("pair")
                    .struct_()
                    .field_by_name("b")
                    .str()
                    .to_uppercase()
                    .alias("B"),
            ]),
        ),
        (
            "unnested",
            frame.clone().unnest(by_name(["pair"], true, false), None),
        ),
        (
            "built, then unnested with a separator",
            frame
                .clone()
                .select([
                    col("k"),
                    as_struct(vec![col("v"), col("s"), (col("v") * lit(2)).alias("w")])
                        .alias("made"),
                ])
                .unnest(by_name(["made"], true, false), Some("_".into())),
        ),
        (
            "built and picked per group",
            frame.clone().group_by_stable([col("k")]).agg([
                col("pair").first().alias("first"),
                col("pair").last().alias("last"),
                col("pair").count().alias("count"),
            ]),
        ),
        (
            "their fields renamed, then read",
            frame.clone().select([
                col("pair").struct_().rename_fields(["x", "y", "z"]),
                as_struct(vec![col("k"), col("s")])
                    .struct_()
                    .rename_fields(["p", "q"])
                    .struct_()
                    .field_by_name("q"),
            ]),
        ),
        (
            "tested for nulls, made ones too",
            frame.clone().select([
                col("pair").is_null().alias("null"),
                col("pair").is_not_null().alias("not null"),
                as_struct(vec![col("k")]).is_null().alias("made"),
            ]),
        ),
        (
            "filtered by their nulls, in groups",
            frame
                .clone()
                .filter(col("pair").is_not_null())
                .group_by_stable([col("k")])
                .agg([col("pair").is_null().sum().alias("nulls"), len()]),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
}

#[test]
fn structs_of_keys_are_tested_for_repeats_and_counted() {
    // Keys of several types: nulls, both zeros and NaN among the floats.
    let frame = df!(
        "g" => [Some(1i64), Some(2), None, Some(1), Some(2), Some(1), None, Some(1)],
        "h" => [Some("a"), Some("b"), Some("a"), Some("a"), None, Some("b"), Some("a"), Some("a")],
        "f" => [Some(0.0), Some(-0.0), Some(f64::NAN), Some(-0.0), Some(f64::NAN), None,
            Some(f64::NAN), Some(0.0)],
        "d" => [Some(true), None, Some(false), Some(true), None, Some(true), Some(false), Some(true)],
    )
    .unwrap()
    .lazy()
    .with_columns([col("g").cast(DataType::Int16).alias("small")]);
    let keys = || as_struct(vec![col("g"), col("h")]);
    let floats = || as_struct(vec![col("f"), col("h"), col("d")]);
    let small = || as_struct(vec![col("small"), col("f").cast(DataType::Float32)]);
    for (name, lf) in [
        (
            "repeats of structs",
            frame.clone().select([
                keys().is_duplicated().alias("duplicated"),
                keys().is_unique().alias("unique"),
                floats().is_first_distinct().alias("first"),
                floats().is_last_distinct().alias("last"),
                small().is_duplicated().alias("small"),
            ]),
        ),
        (
            "distinct structs counted",
            frame.clone().select([
                keys().n_unique().alias("keys"),
                floats().n_unique().alias("floats"),
                small().n_unique().alias("small"),
            ]),
        ),
        (
            "per group and in windows",
            frame.clone().group_by_stable([col("d")]).agg([
                keys().n_unique(),
                floats().is_duplicated().sum().alias("repeats"),
            ]),
        ),
        (
            "in a window and a filter",
            frame
                .clone()
                .with_columns([floats()
                    .is_first_distinct()
                    .over([col("g")])
                    .unwrap()
                    .alias("w")])
                .filter(keys().is_unique()),
        ),
        (
            "of no rows",
            frame
                .clone()
                .filter(col("g").gt(lit(9)))
                .select([keys().n_unique(), floats().is_duplicated().alias("x")]),
        ),
        (
            "the distinct structs of a column, in order",
            frame
                .clone()
                .with_columns([keys().alias("s")])
                .select([col("s").unique_stable()]),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
}

#[test]
fn rows_are_grouped_made_distinct_sorted_and_joined_by_structs_of_keys() {
    // The struct column without its -0.0 (see below); null structs apart
    // from structs of null fields. (Made by Polars, as the input.)
    let frame = struct_frame()
        .with_columns([when(col("k").eq(lit(1)).and(col("v").is_null()))
            .then(lit(Null {}))
            .otherwise(col("pair"))
            .alias("pair")])
        .with_columns([as_struct(vec![col("k"), col("s")]).alias("made")])
        .collect()
        .unwrap()
        .lazy();
    for (name, lf) in [
        (
            "grouped by a struct column",
            frame
                .clone()
                .group_by_stable([col("pair")])
                .agg([len(), col("v").sum()]),
        ),
        (
            "grouped by a struct made, and another key",
            frame
                .clone()
                .group_by_stable([as_struct(vec![col("s"), col("k")]).alias("key"), col("k")])
                .agg([col("v").max()]),
        ),
        (
            "grouped in no order, then sorted by the sums",
            frame
                .clone()
                .group_by([col("made")])
                .agg([col("v").sum(), col("k").first(), col("s").first()])
                .sort(["v", "k", "s"], Default::default()),
        ),
        (
            "distinct by a struct column, first, last and alone",
            frame
                .clone()
                .unique_stable(Some(cols(["pair"])), UniqueKeepStrategy::First)
                .with_row_index("i", None)
                .join(
                    frame
                        .clone()
                        .unique_stable(Some(cols(["made"])), UniqueKeepStrategy::Last)
                        .with_row_index("i", None),
                    [col("i")],
                    [col("i")],
                    JoinArgs::new(JoinType::Full),
                ),
        ),
        (
            "sorted by a struct column and a struct made, every direction",
            frame
                .clone()
                .sort(
                    ["pair", "made"],
                    SortMultipleOptions::default()
                        .with_order_descending_multi([false, true])
                        .with_nulls_last_multi([true, false])
                        .with_maintain_order(true),
                )
                .with_row_index("i", None)
                .join(
                    frame
                        .clone()
                        .sort(
                            ["pair"],
                            SortMultipleOptions::default()
                                .with_order_descending(true)
                                .with_nulls_last(true)
                                .with_maintain_order(true),
                        )
                        .with_row_index("i", None),
                    [col("i")],
                    [col("i")],
                    JoinArgs::new(JoinType::Inner),
                ),
        ),
        (
            "joined on a struct column and on a struct made, nulls apart and equal",
            frame
                .clone()
                .join(
                    frame.clone().select([col("pair"), col("v").alias("w")]),
                    [col("pair")],
                    [col("pair")],
                    JoinArgs::new(JoinType::Left),
                )
                .join(
                    frame
                        .clone()
                        .select([col("k"), col("s"), col("v").alias("u")]),
                    [as_struct(vec![col("k"), col("s")])],
                    [as_struct(vec![col("k"), col("s")])],
                    JoinArgs {
                        nulls_equal: true,
                        ..JoinArgs::new(JoinType::Inner)
                    },
                )
                .sort(["v", "w", "u"], Default::default()),
        ),
        (
            "joined in full on a struct, its keys merged, and on the right",
            frame
                .clone()
                .join(
                    frame
                        .clone()
                        .select([col("made"), col("v").alias("w")])
                        .slice(2, 10),
                    [col("made")],
                    [col("made")],
                    JoinArgs::new(JoinType::Full).with_coalesce(JoinCoalesce::CoalesceColumns),
                )
                .join(
                    frame.clone().select([col("pair"), col("k").alias("u")]),
                    [col("pair")],
                    [col("pair")],
                    JoinArgs::new(JoinType::Right),
                )
                .sort(["v", "w", "u"], Default::default()),
        ),
        (
            "rows with a match on a struct, and without",
            frame
                .clone()
                .join(
                    frame
                        .clone()
                        .filter(col("v").gt(lit(0)))
                        .select([col("made")]),
                    [col("made")],
                    [col("made")],
                    JoinArgs::new(JoinType::Semi),
                )
                .sort(["v"], Default::default()),
        ),
        (
            "distinct rows holding structs",
            frame.clone().unique_stable(None, UniqueKeepStrategy::None),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
}

/// The first or last of structs built per group (`pl.struct(a, b).last()`,
/// which Polars' plan writes as the struct of each field's last row): the
/// struct of the picked row's fields, per group; over the whole frame
/// (whose rows may be none: a null struct) they stay with Polars.
#[test]
fn structs_built_per_group_are_picked_first_and_last() {
    let frame = struct_frame();
    let built = || as_struct(vec![col("v"), col("s"), (col("v") * lit(2)).alias("twice")]);
    assert_gpu_eq(
        "first and last per group",
        frame.clone().group_by_stable([col("k")]).agg([
            built().first().alias("first"),
            built().last().alias("last"),
            built().last().struct_().field_by_name("s").alias("last s"),
        ]),
    );
    assert_gpu_eq(
        "per group, groups in key order",
        frame
            .clone()
            .group_by([col("k")])
            .agg([built().last()])
            .sort(["k"], SortMultipleOptions::default().with_nulls_last(true)),
    );
    super::partitioned::assert_partitioned_in(
        "first and last per group, in partitions",
        frame
            .clone()
            .group_by_stable([col("k")])
            .agg([built().first().alias("first"), built().last().alias("last")]),
        false,
        &[2, 3, 5],
        |_, _| {},
    );
    assert_cpu_answer_with_reason(
        frame.clone().select([built().last()]),
        "this operation on structs",
    );
}

#[test]
fn what_structs_meet_beyond_that_stays_with_polars() {
    let frame = struct_frame();
    for (lf, reason) in [
        (
            frame.clone().select([col("pair").eq(col("pair"))]),
            "this operation on structs is not supported on the GPU yet",
        ),
        (
            frame
                .clone()
                .with_columns([as_struct(vec![col("k"), col("v").implode(false)]).alias("nested")])
                .group_by_stable([col("nested")])
                .agg([len()]),
            "a group-by by `nested`",
        ),
        (
            frame
                .clone()
                .with_columns([as_struct(vec![col("k"), col("v").implode(false)]).alias("nested")])
                .unique_stable(Some(cols(["nested"])), UniqueKeepStrategy::First),
            "a distinct by `nested`",
        ),
        (
            // Which row's struct shows a group of -0.0 and 0.0 is Polars'.
            frame.clone().group_by_stable([col("pair")]).agg([len()]),
            "a struct key holding -0.0 in a float field",
        ),
        (
            frame.clone().group_by_stable([col("k")]).agg([col("pair")
                .struct_()
                .with_fields(vec![col("v").alias("v")])
                .first()]),
            // (Polars takes the first struct by a slice of each group.)
            "slicing inside an expression",
        ),
        (
            frame.clone().select([col("pair")
                .struct_()
                .with_fields(vec![col("v").max().alias("most")])]),
            "as the field \"most\"",
        ),
        (
            // A field of lists kept: the executor copies flat fields.
            frame
                .clone()
                .select([as_struct(vec![col("k"), col("s").str().split(lit(""))])
                    .struct_()
                    .with_fields(vec![col("v").alias("v")])]),
            "as the field \"s\"",
        ),
        (
            // Lists of structs sorted, or their structs compared.
            frame
                .clone()
                .group_by_stable([col("k")])
                .agg([col("pair")])
                .select([col("pair").list().sort(Default::default())]),
            "list.sort of list[struct[a: i64, b: str, c: f64]]",
        ),
    ] {
        assert_cpu_answer_with_reason(lf, reason);
    }
}

/// Python's `pl.field(name)`: a field of the struct `struct.with_fields` evaluates over.
fn pl_field(name: &str) -> Expr {
    Expr::Field([PlSmallStr::from(name)].into())
}

#[test]
fn with_fields_and_drop_replace_add_and_drop_fields_as_the_cpu_does() {
    let frame = struct_frame();
    let pair = || col("pair").struct_();
    for (name, lf) in [
        (
            "a field replaced, one added from a column, null structs kept",
            frame.clone().select([pair()
                .with_fields(vec![
                    (pl_field("a") * lit(2)).alias("a"),
                    col("v").alias("v"),
                ])
                .alias("pair")]),
        ),
        (
            "fields of fields, then read and unnested",
            frame
                .clone()
                .with_columns([pair()
                    .with_fields(vec![
                        (pl_field("c") + pl_field("a").cast(DataType::Float64)).alias("sum"),
                        pl_field("b").str().to_uppercase().alias("b"),
                    ])
                    .alias("more")])
                .with_columns([col("more").struct_().field_by_name("sum").alias("sum")])
                .unnest(by_name(["more"], true, false), Some("more.".into())),
        ),
        (
            "of a struct made, filtered",
            frame
                .clone()
                .filter(col("k").is_not_null())
                .select([as_struct(vec![col("k"), col("s")])
                    .struct_()
                    .with_fields(vec![pl_field("k").cum_sum(false).alias("k")])
                    .alias("made")]),
        ),
        (
            "fields dropped, null structs kept",
            frame.clone().select([
                pair().drop(["a"], true).alias("bc"),
                pair().drop(["c", "b"], false).alias("a"),
            ]),
        ),
        (
            "a field replaced, read back and summed per group",
            frame.clone().group_by_stable([col("k")]).agg([pair()
                .with_fields(vec![pl_field("a").fill_null(lit(0)).alias("a")])
                .struct_()
                .field_by_name("a")
                .sum()
                .alias("a")]),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
}
