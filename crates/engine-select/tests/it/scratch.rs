use crate::gpu::assert_gpu_eq;
use engine_select::LazyFrameExt;
use polars::prelude::*;
#[test]
fn scratch_probe() {
    let a = df!("k" => [1i8, 2, 3, 2], "v" => [1i64, 2, 3, 4], "u" => [1u32, 2, 3, 2], "w" => [1u16, 2, 3, 2]).unwrap().lazy();
    let b =
        df!("k" => [2i8, 3, 5], "x" => [10i64, 20, 30], "u" => [2u32, 3, 5], "w" => [2u16, 3, 5])
            .unwrap()
            .lazy();
    for (name, lf) in [
        (
            "join i8",
            a.clone().join(
                b.clone(),
                [col("k")],
                [col("k")],
                JoinArgs::new(JoinType::Inner),
            ),
        ),
        (
            "join u32",
            a.clone().join(
                b.clone(),
                [col("u")],
                [col("u")],
                JoinArgs::new(JoinType::Left),
            ),
        ),
        (
            "join u16 two keys",
            a.clone().join(
                b.clone(),
                [col("w"), col("k")],
                [col("w"), col("k")],
                JoinArgs::new(JoinType::Inner),
            ),
        ),
        (
            "bitwise",
            a.clone().select([
                col("v").and(lit(3i64)).alias("and"),
                col("v").or(col("v")).alias("or"),
                (col("v").xor(lit(5i64))).alias("x"),
                col("v").not().alias("not"),
            ]),
        ),
        (
            "gather col",
            a.clone().select([col("v").gather(col("u"), false)]),
        ),
        (
            "str extract group",
            df!("s" => ["a1", "b22"])
                .unwrap()
                .lazy()
                .select([col("s").str().extract(lit(r"([a-z])(\d+)"), 2)]),
        ),
        (
            "shift fill expr",
            a.clone()
                .select([col("v").shift_and_fill(lit(1), col("v").first())]),
        ),
        (
            "list mean",
            a.clone()
                .group_by_stable([col("k")])
                .agg([col("v")])
                .select([col("v").list().mean()]),
        ),
        (
            "list sort",
            a.clone()
                .group_by_stable([col("k")])
                .agg([col("v")])
                .select([col("v").list().sort(Default::default())]),
        ),
    ] {
        let engine = engine_select::Engine::Gpu(crate::under_test());
        match lf.clone().collect_with_report(&engine) {
            Ok((_, report)) => println!(
                "{name}: {} {:?}",
                report.executed_by,
                report
                    .fallback_reasons
                    .iter()
                    .map(|r| r.message.clone())
                    .collect::<Vec<_>>()
            ),
            Err(e) => println!("{name}: error {e}"),
        }
        let _ = assert_gpu_eq;
    }
}
