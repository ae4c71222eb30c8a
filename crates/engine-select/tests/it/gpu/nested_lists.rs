//! Lists of lists and of structs on the device: made per group and over the frame, moved with their rows, counted, picked, shifted, sorted (lists of lists and of structs), their nulls dropped, exploded, uploaded from and downloaded to Polars' list columns; their other list functions stay with Polars, with their reason.

use super::structs::struct_frame;
use super::*;

fn explode_options() -> ExplodeOptions {
    ExplodeOptions {
        empty_as_null: true,
        keep_nulls: true,
    }
}

/// Lists of structs: a group's structs listed (`agg(col("pair"))`,
/// `agg(pl.struct(..))`, of a filter's rows too), over the whole frame
/// (`implode`), moved with their rows, counted, picked (`list.get`,
/// `first`, `last`, `head`), exploded and unnested; as inputs, from
/// Polars' list columns (null lists, empty lists and null structs among
/// them) and back.
#[test]
fn lists_of_structs_are_made_moved_picked_and_exploded() {
    let frame = struct_frame();
    let built = || as_struct(vec![col("v"), col("s")]);
    let listed = frame.clone().group_by_stable([col("k")]).agg([
        col("pair"),
        built().alias("built"),
        built().filter(col("v").gt(lit(0))).alias("kept"),
        col("pair").head(Some(2)).alias("first two"),
    ]);
    assert_gpu_eq("structs listed per group", listed.clone());
    assert_gpu_eq(
        "structs listed over the frame",
        frame.clone().select([
            col("pair").implode(false),
            built().implode(false).alias("built"),
        ]),
    );
    assert_gpu_eq(
        "lists of structs shifted and their nulls dropped",
        listed.clone().select([
            col("k"),
            col("pair").list().shift(lit(1)).alias("shifted"),
            col("kept").list().drop_nulls().alias("valid"),
        ]),
    );
    assert_gpu_eq(
        "lists of structs picked and counted",
        listed.clone().select([
            col("k"),
            col("pair").list().len().alias("len"),
            col("pair").list().first().alias("first"),
            col("built").list().get(lit(1), true).alias("second"),
            col("built").list().last().struct_().field_by_name("s"),
            col("kept").list().head(lit(1)).alias("head"),
            col("pair").is_null().alias("null list"),
        ]),
    );
    assert_gpu_eq(
        "lists of structs moved with their rows",
        listed
            .clone()
            .filter(col("k").neq(lit(2)))
            .sort(
                ["k"],
                SortMultipleOptions::default().with_order_descending(true),
            )
            .join(
                frame.clone().select([col("k"), col("v")]),
                [col("k")],
                [col("k")],
                JoinArgs {
                    maintain_order: MaintainOrderJoin::Left,
                    ..JoinArgs::new(JoinType::Left)
                },
            ),
    );
    let explode = explode_options();
    assert_gpu_eq(
        "lists of structs exploded and unnested",
        listed
            .clone()
            .select([col("k"), col("built")])
            .explode(by_name(["built"], true, false), explode)
            .unnest(by_name(["built"], true, false), None),
    );
    // From Polars' list columns and back: null and empty lists, a null
    // struct and null fields, a list column sliced.
    let fields = df!(
        "p" => [Some(1i64), None, Some(3), Some(4), Some(5)],
        "q" => [Some("x"), Some("y"), None, Some(""), Some("zz")],
    )
    .unwrap()
    .lazy()
    .select([when(col("p").eq(lit(4)))
        .then(lit(Null {}))
        .otherwise(as_struct(vec![col("p"), col("q")]))
        .alias("pq")])
    .collect()
    .unwrap()
    .column("pq")
    .unwrap()
    .as_materialized_series()
    .clone();
    let lists = Series::new(
        "l".into(),
        [
            Some(fields.slice(0, 2)),
            None,
            Some(fields.slice(2, 3)),
            Some(fields.slice(0, 0)),
        ],
    );
    let mut input = df!("n" => [1i32, 2, 3, 4]).unwrap();
    input.with_column(lists.into()).unwrap();
    let input = || input.clone().lazy();
    assert_gpu_eq("lists of structs as inputs", input());
    assert_gpu_eq("lists of structs sliced", input().slice(1, 2));
    assert_gpu_eq(
        "lists of structs of inputs picked and exploded",
        input()
            .with_columns([
                col("l").list().len().alias("len"),
                col("l").list().first().struct_().field_by_name("q"),
            ])
            .explode(by_name(["l"], true, false), explode),
    );
}

/// Lists of lists: a group's lists listed (`agg(col("l"))` of a list
/// column, of texts split), over the whole frame (`implode`), moved with
/// their rows, counted, picked (`list.get`, `first`, `head`), exploded
/// once and twice; as inputs, from Polars' lists of lists (null and empty
/// lists at both levels, nulls inside) and back.
#[test]
fn lists_of_lists_are_made_moved_picked_and_exploded() {
    let inner = Series::new(
        "".into(),
        [Some(1i64), None, Some(3), Some(4), Some(5), Some(-6)],
    );
    let lists = Series::new(
        "".into(),
        [
            Some(inner.slice(0, 2)),
            None,
            Some(inner.slice(2, 3)),
            Some(inner.slice(0, 0)),
            Some(inner.slice(5, 1)),
        ],
    );
    let lists_of_lists = Series::new(
        "ll".into(),
        [
            Some(lists.slice(0, 2)),
            None,
            Some(lists.slice(2, 3)),
            Some(lists.slice(0, 0)),
            Some(lists.slice(4, 1)),
            Some(lists.slice(1, 4)),
        ],
    );
    let mut input = df!(
        "k" => [1i32, 2, 1, 3, 2, 1],
        "s" => [Some("a,b"), None, Some(""), Some("c"), Some("d,,e"), Some("f,g")],
    )
    .unwrap();
    let mut one_list = lists.clone();
    one_list.append(&lists.slice(0, 1)).unwrap();
    input
        .with_column(one_list.with_name("l".into()).into())
        .unwrap();
    input.with_column(lists_of_lists.into()).unwrap();
    let input = || input.clone().lazy();
    assert_gpu_eq("lists of lists as inputs", input());
    assert_gpu_eq("lists of lists sliced", input().slice(2, 3));
    let split = || col("s").str().split(lit(","));
    let listed = input().group_by_stable([col("k")]).agg([
        col("l"),
        split().alias("split"),
        col("ll").first().alias("first"),
    ]);
    assert_gpu_eq("lists listed per group", listed.clone());
    assert_gpu_eq(
        "lists listed over the frame",
        input().select([
            col("l").implode(false),
            split().implode(false).alias("split"),
        ]),
    );
    assert_gpu_eq(
        "lists of lists picked and counted",
        listed.clone().select([
            col("k"),
            col("l").list().len().alias("len"),
            col("l").list().first().alias("first"),
            col("split").list().get(lit(-1), true).alias("last"),
            col("split").list().head(lit(1)).alias("head"),
            col("first")
                .list()
                .get(lit(1), true)
                .alias("second of the first"),
        ]),
    );
    assert_gpu_eq(
        "lists of lists moved with their rows",
        listed.clone().filter(col("k").neq(lit(3))).sort(
            ["k"],
            SortMultipleOptions::default().with_order_descending(true),
        ),
    );
    assert_gpu_eq(
        "lists of lists exploded twice",
        input()
            .select([col("k"), col("ll")])
            .explode(by_name(["ll"], true, false), explode_options())
            .explode(by_name(["ll"], true, false), explode_options()),
    );
    // Each list's lists sorted (as Polars' row encoding orders them),
    // shifted and their nulls dropped, moved whole.
    assert_gpu_eq(
        "lists of lists sorted, shifted and their nulls dropped",
        listed.clone().select([
            col("k"),
            col("l").list().sort(Default::default()).alias("sorted"),
            col("l")
                .list()
                .sort(
                    SortOptions::default()
                        .with_order_descending(true)
                        .with_nulls_last(true),
                )
                .alias("descending"),
            col("l").list().shift(lit(1)).alias("shifted"),
            col("split").list().shift(lit(-2)).alias("shifted back"),
            col("l").list().drop_nulls().alias("valid"),
        ]),
    );
}

/// Each list's structs sorted, as Polars' row encoding orders them: field
/// by field, a null field first (last with `nulls_last`), a null struct
/// apart, every field descending with `descending`; structs of floats or
/// categoricals stay with Polars.
#[test]
fn lists_of_structs_are_sorted_within_each_list() {
    let n = [
        Some(3i64),
        None,
        Some(1),
        Some(3),
        Some(-2),
        None,
        Some(1),
        Some(7),
        Some(3),
        Some(0),
    ];
    let t = [
        Some("b"),
        Some("a"),
        None,
        Some("a"),
        Some("z"),
        None,
        Some(""),
        Some("b"),
        Some("b"),
        Some("a"),
    ];
    let valid = [true, false, true, true, true, true, false, true, true, true];
    let listed =
        df!("n" => n, "t" => t, "valid" => valid, "g" => [1i64, 1, 1, 2, 2, 2, 2, 3, 3, 4])
            .unwrap()
            .lazy()
            .with_columns([
                when(col("valid"))
                    .then(as_struct(vec![col("n"), col("t")]))
                    .otherwise(lit(Null {}))
                    .alias("s"),
                as_struct(vec![col("n").cast(DataType::Float64)]).alias("floats"),
            ])
            .group_by_stable([col("g")])
            .agg([col("s"), col("floats")]);
    let mut sorted = vec![col("g")];
    for (descending, nulls_last) in [(false, false), (true, false), (false, true), (true, true)] {
        let options = SortOptions::default()
            .with_order_descending(descending)
            .with_nulls_last(nulls_last);
        sorted.push(
            col("s")
                .list()
                .sort(options)
                .alias(format!("{descending} {nulls_last}")),
        );
    }
    assert_gpu_eq("lists of structs sorted", listed.clone().select(sorted));
    assert_cpu_answer_with_reason(
        listed.select([col("floats").list().sort(Default::default())]),
        "list.sort of list[struct[n: f64]]",
    );
}
