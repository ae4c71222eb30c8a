//! Medians and quantiles over partitions: each group's counts added up, its valid values sorted by ranges, its quantile read at its ranks.

use super::partitioned::{assert_partitioned_in, table};
use super::*;

/// `lf` in partitions of 2, 3, 7 and 1,000 rows: the in-memory
/// executor's answer (floats of sums and means within a relative 1e-9,
/// added in another order) and Polars'.
fn assert_quantiles(name: &str, lf: LazyFrame) {
    assert_partitioned_in(name, lf, true, &[2, 3, 7, 1000], |_, _| {});
}

/// Every method of Polars' quantiles of `x` at 0.0, 0.3, 0.5 and 1.0, named by `x`.
fn every_quantile(x: &str) -> Vec<Expr> {
    let methods = [
        ("nearest", QuantileMethod::Nearest),
        ("lower", QuantileMethod::Lower),
        ("higher", QuantileMethod::Higher),
        ("midpoint", QuantileMethod::Midpoint),
        ("linear", QuantileMethod::Linear),
        ("equiprobable", QuantileMethod::Equiprobable),
    ];
    let mut exprs = Vec::new();
    for q in [0.0, 0.3, 0.5, 1.0] {
        for (name, method) in methods {
            exprs.push(
                col(x)
                    .quantile(lit(q), method)
                    .alias(format!("{x} {name} {q}")),
            );
        }
    }
    exprs
}

#[test]
fn quantiles_over_partitions_read_each_groups_ranks() {
    let cases: Vec<(&str, LazyFrame)> = vec![
        (
            "every method by an integer with nulls, beside sums, means, lengths and firsts",
            table().group_by_stable([col("k")]).agg(
                [
                    col("v").median().alias("median"),
                    col("v").sum().alias("sum"),
                    col("c").mean().alias("mean"),
                    len().alias("len"),
                    col("t").first().alias("first"),
                ]
                .into_iter()
                .chain(every_quantile("v"))
                .chain(every_quantile("c"))
                .collect::<Vec<_>>(),
            ),
        ),
        (
            // (Of both zeros, a quantile that is a zero is Polars' own:
            // absolute values.)
            "medians of floats with NaN and nulls by a text, by two keys",
            table().group_by_stable([col("t"), col("s")]).agg([
                col("f").abs().median().alias("median"),
                col("f").abs().quantile(lit(0.8), QuantileMethod::Higher),
                col("s").max().alias("max"),
            ]),
        ),
        (
            "medians of small integers and of unsigned ones by a date, in no order",
            table()
                .group_by([col("d")])
                .agg([
                    col("c").median().alias("u32"),
                    col("s").median().alias("i16"),
                ])
                .sort(["d"], Default::default()),
        ),
        (
            "a slice of a group-by of quantiles by an expression",
            table()
                .group_by_stable([col("c") % lit(5u32)])
                .agg([col("v").quantile(lit(0.25), QuantileMethod::Linear)])
                .slice(1, 3),
        ),
        (
            "quantiles over the whole frame, beside a sum and a length",
            table().select([
                col("v").median().alias("median"),
                col("c")
                    .quantile(lit(0.9), QuantileMethod::Nearest)
                    .alias("nearest"),
                col("k")
                    .quantile(lit(0.5), QuantileMethod::Midpoint)
                    .alias("midpoint"),
                col("c").sum().alias("sum"),
                len().alias("len"),
            ]),
        ),
        (
            "a median after a filter that leaves groups without a valid value",
            table()
                .filter(col("c").gt(lit(4u32)))
                .group_by_stable([col("s")])
                .agg([
                    col("v").median(),
                    col("k").quantile(lit(0.7), QuantileMethod::Equiprobable),
                ]),
        ),
    ];
    for (name, lf) in cases {
        assert_quantiles(name, lf);
    }
}
