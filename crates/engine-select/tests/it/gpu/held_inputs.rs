//! Inputs as Polars holds them: arrays sliced at any offset (bitmaps at any bit, lists' and texts' offsets not from 0) and frames stacked in chunks, of every type the device holds.

use super::*;

/// 40 rows of every type the device holds, nulls at rows no stride of 8
/// or 32 lines up with (booleans, small and wide integers, floats with
/// NaN and -0.0, long and short texts, dates, datetimes, categoricals,
/// decimals, lists, structs).
fn every_type() -> DataFrame {
    let n = 40usize;
    let valid = |i: usize| i % 3 != 1 && !i.is_multiple_of(7);
    df!(
        "b" => (0..n).map(|i| valid(i).then_some(i % 2 == 0)).collect::<Vec<_>>(),
        "i8" => (0..n).map(|i| valid(i).then_some((i as i8).wrapping_mul(37))).collect::<Vec<_>>(),
        "u16" => (0..n).map(|i| valid(i).then_some((i * 1000) as u16)).collect::<Vec<_>>(),
        "i32" => (0..n).map(|i| valid(i).then_some(i as i32 - 20)).collect::<Vec<_>>(),
        "i64" => (0..n).map(|i| valid(i).then_some(i as i64 * 1_000_000_007)).collect::<Vec<_>>(),
        "f32" => (0..n).map(|i| valid(i).then_some(i as f32 / 3.0)).collect::<Vec<_>>(),
        "f64" => (0..n)
            .map(|i| valid(i).then_some(match i { 5 => f64::NAN, 8 => -0.0, _ => i as f64 * -0.5 }))
            .collect::<Vec<_>>(),
        "s" => (0..n)
            .map(|i| valid(i).then(|| format!("a text longer than a view's inline bytes {}", i % 5)))
            .collect::<Vec<_>>(),
        "short" => (0..n).map(|i| valid(i).then(|| format!("k{}", i % 4))).collect::<Vec<_>>(),
        "g" => (0..n).map(|i| (i % 3) as i32).collect::<Vec<_>>(),
    )
    .unwrap()
    .lazy()
    .with_columns([
        col("i32").cast(DataType::Date).alias("d"),
        col("i64")
            .cast(DataType::Datetime(TimeUnit::Microseconds, None))
            .alias("t"),
        col("short")
            .cast(DataType::from_categories(Categories::global()))
            .alias("cat"),
        col("i32").cast(DataType::Decimal(10, 2)).alias("dec"),
        concat_list([col("i32"), col("g")]).unwrap().alias("l"),
        as_struct(vec![col("i32"), col("s")]).alias("st"),
    ])
    .collect()
    .unwrap()
}

/// Frames sliced from a larger one (Polars keeps the arrays and moves an
/// offset into them) and stacked from two such slices (two chunks), each
/// read whole, filtered, sorted, grouped, joined, exploded, unnested and
/// computed on: the device's answer is the CPU's. (Whole-frame float sums
/// are left out: Polars sums each chunk apart, see docs/operations.md.)
#[test]
fn sliced_and_stacked_inputs_match_the_cpu() {
    let base = every_type();
    for (offset, rows) in [(1i64, 30usize), (3, 20), (5, 33), (9, 9), (13, 27), (39, 1)] {
        let sliced = base.slice(offset, rows);
        let mut stacked = base.slice(offset, rows / 2);
        stacked
            .vstack_mut(&base.slice(offset + 17, rows - rows / 2))
            .unwrap();
        for (held, df) in [("sliced", sliced), ("stacked", stacked)] {
            let f = || df.clone().lazy();
            let left_unique = f()
                .select([col("short"), col("i32").alias("r")])
                .unique_stable(Some(cols(["short"])), UniqueKeepStrategy::First);
            let cases = [
                ("every column", f().select([all().as_expr()])),
                ("nulls", f().select([all().as_expr().is_null()])),
                ("filtered by a column", f().filter(col("b"))),
                ("filtered", f().filter(col("i32").gt(lit(-5)))),
                (
                    "sorted",
                    f().sort(
                        ["s", "f64"],
                        SortMultipleOptions::default().with_maintain_order(true),
                    ),
                ),
                (
                    "grouped",
                    f().group_by_stable([col("g")]).agg([
                        col("i32").sum(),
                        col("f64").mean(),
                        col("s").n_unique(),
                        col("b").sum(),
                        col("i8").max(),
                        col("u16").min(),
                        col("dec").sum(),
                        col("l"),
                        col("cat").first(),
                        col("st").last(),
                    ]),
                ),
                (
                    "grouped by text",
                    f().group_by_stable([col("short")])
                        .agg([col("i64").sum(), len().alias("n")]),
                ),
                (
                    "whole-frame aggregations",
                    f().select([
                        col("i32").sum(),
                        col("f64").null_count(),
                        col("s").str().len_bytes().sum(),
                        col("t").max(),
                    ]),
                ),
                (
                    "computed",
                    f().select([
                        (col("i32") + col("i64")).alias("sum"),
                        (col("f64") * col("f32")).alias("product"),
                        col("b").not(),
                        col("s").str().to_uppercase(),
                        col("d").dt().year(),
                        col("t").dt().hour(),
                        col("l").list().sum().alias("list sum"),
                        col("st").struct_().field_by_name("s").alias("field"),
                    ]),
                ),
                (
                    "joined",
                    f().join(
                        left_unique,
                        [col("short")],
                        [col("short")],
                        JoinArgs::new(JoinType::Left),
                    ),
                ),
                (
                    "exploded",
                    f().select([col("l")]).explode(
                        cols(["l"]),
                        ExplodeOptions {
                            empty_as_null: true,
                            keep_nulls: true,
                        },
                    ),
                ),
                (
                    "unnested",
                    f().select([col("st")]).unnest(cols(["st"]), None),
                ),
                (
                    "running",
                    f().select([
                        col("i32").cum_sum(false),
                        col("f64").shift(lit(1)),
                        col("s").fill_null_with_strategy(FillNullStrategy::Forward(None)),
                    ]),
                ),
            ];
            for (name, query) in cases {
                assert_gpu_eq(&format!("{held} at {offset}, {rows} rows: {name}"), query);
            }
        }
    }
}
