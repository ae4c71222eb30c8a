//! Structs on the device: struct columns held and moved with their rows, built by `pl.struct`, their fields read, unnested; what else structs meet stays with Polars, with its reason.

use super::*;

/// A frame with a struct column (null structs among them, null fields
/// inside) and the columns to build more.
fn struct_frame() -> LazyFrame {
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
    ] {
        assert_gpu_eq(name, lf);
    }
}

#[test]
fn what_structs_meet_beyond_that_stays_with_polars() {
    let frame = struct_frame();
    for (lf, reason) in [
        (
            frame.clone().select([col("pair").is_null()]),
            "this operation on structs is not supported on the GPU yet",
        ),
        (
            frame.clone().sort(["pair"], SortMultipleOptions::default()),
            "a sort by `col(\"pair\")`",
        ),
        (
            frame.clone().group_by_stable([col("pair")]).agg([len()]),
            "a group-by by `pair`",
        ),
        (
            frame
                .clone()
                .select([col("pair").struct_().rename_fields(["x", "y", "z"])]),
            "function struct.rename_fields([\"x\", \"y\", \"z\"]) is not supported on the GPU yet",
        ),
    ] {
        assert_cpu_answer_with_reason(lf, reason);
    }
}
