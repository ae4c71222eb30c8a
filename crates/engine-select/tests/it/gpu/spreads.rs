//! Spreads (`var`, `std`) as Polars takes them, to the bit: per group by Welford's steps, of a whole column and of each list in chunks, and where Polars' path is its own.

use super::*;

#[test]
fn spreads_and_quantiles_match_the_cpu() {
    let spreads = || {
        let mut aggs = vec![
            col("v").std(1).alias("std v"),
            col("x").var(1).alias("var x"),
            col("v").var(0).alias("var0 v"),
            col("x").std(2).alias("std2 x"),
            col("v").median().alias("median v"),
            col("x").median().alias("median x"),
            (col("v").median() * lit(2.0)).alias("twice median"),
        ];
        for (i, method) in crate::QUANTILE_METHODS.into_iter().enumerate() {
            for (j, q) in [0.0, 0.1, 0.5, 0.75, 1.0].into_iter().enumerate() {
                aggs.push(
                    col(if j % 2 == 0 { "v" } else { "x" })
                        .quantile(lit(q), method)
                        .alias(format!("q{i}_{j}")),
                );
            }
        }
        aggs
    };
    let cases = [
        (
            "per group",
            groups().group_by_stable([col("g")]).agg(spreads()),
        ),
        (
            "per group of two keys",
            groups()
                .group_by_stable([col("h"), col("s")])
                .agg(spreads()),
        ),
        ("whole columns", groups().select(spreads())),
        (
            "no rows",
            groups().filter(col("h").gt(lit(5u32))).select(spreads()),
        ),
        (
            "floats with NaN, infinities and -0.0",
            table().select([
                col("f").median().alias("median"),
                col("f").std(1).alias("std"),
                col("f")
                    .quantile(lit(0.3), QuantileMethod::Linear)
                    .alias("q"),
            ]),
        ),
    ];
    // (Spreads as Polars takes them, to the bit: Welford's steps per group,
    // a whole column's in chunks.)
    for (name, lf) in cases {
        assert_gpu_eq(name, lf);
    }
}

/// Values whose spread's last bits depend on the order Polars adds them in:
/// thirds of numbers far apart, some rows null.
fn thirds(n: usize) -> LazyFrame {
    let x: Vec<f64> = (0..n)
        .map(|i| ((i * 7919 % 1000) as f64) * 0.37 - 101.3)
        .collect();
    let nulled: Vec<Option<f64>> = (0..n).map(|i| (i % 5 != 1).then(|| x[i] * 1.7)).collect();
    let g: Vec<i32> = (0..n).map(|i| (i % 2) as i32).collect();
    df!("x" => x, "n" => nulled, "g" => g).unwrap().lazy()
}

#[test]
fn spreads_follow_polars_own_order_on_each_path() {
    for n in [4, 30, 300, 1_000] {
        let groups = || thirds(n).group_by_stable([col("g")]);
        let cases = [
            // Polars takes a column's spread in chunks of 128 valid values,
            // each chunk's mean first, the chunks merged in order.
            (
                "whole columns",
                thirds(n).select([
                    col("x").var(1),
                    col("n").std(1).alias("n std"),
                    col("x").cast(DataType::Float32).var(0).alias("f32"),
                    col("n").cast(DataType::Int64).std(1).alias("i64"),
                ]),
            ),
            (
                "each list",
                groups()
                    .agg([col("n")])
                    .select([col("n").list().var(1), col("n").list().std(0).alias("std")]),
            ),
            // A group-by's groups by Welford's steps in row order.
            (
                "per group",
                groups().agg([col("x").var(1), col("n").std(0).alias("n std")]),
            ),
            (
                "in a window",
                thirds(n).select([col("n").var(1).over([col("g")]).unwrap()]),
            ),
            // Values Polars takes per group as lists: each as a column.
            (
                "of values taken as lists per group",
                groups().agg([
                    col("x").cum_sum(false).var(1),
                    (col("x").shift(lit(1)).std(1) * lit(2.0)).alias("shifted"),
                ]),
            ),
        ];
        for (name, lf) in cases {
            assert_gpu_eq(&format!("{name} of {n} rows"), lf);
        }
    }
    // The groups of a key Polars holds sorted it takes as slices of rows,
    // each group's spread as a column's: after a sort by the key (its
    // first), through filters, slices and columns passed on, and of a frame
    // sorted before it was made lazy; a group-by not keeping the order, a
    // computed key and a window by another key take Welford's steps.
    let sorted = || thirds(300).sort(["g"], Default::default());
    let descending = SortMultipleOptions::default().with_order_descending(true);
    let spreads = || [col("x").var(1), col("n").std(0).alias("n std")];
    let eager = thirds(300)
        .collect()
        .unwrap()
        .sort(["g"], Default::default())
        .unwrap();
    for (name, lf) in [
        (
            "a group-by",
            sorted().group_by_stable([col("g")]).agg(spreads()),
        ),
        (
            "a window",
            sorted().select([col("x").std(1).over([col("g")]).unwrap()]),
        ),
        (
            "through a filter, a slice and a select",
            sorted()
                .filter(col("x").gt(lit(-50.0)))
                .slice(3, 200)
                .select([col("x"), col("n"), col("g")])
                .group_by_stable([col("g")])
                .agg(spreads()),
        ),
        (
            "sorted by several keys, descending",
            thirds(300)
                .sort_by_exprs([col("g"), col("x")], descending)
                .with_columns([(col("x") * lit(2.0)).alias("y")])
                .group_by_stable([col("g")])
                .agg([col("y").var(1)]),
        ),
        (
            "a frame sorted before",
            eager.lazy().group_by_stable([col("g")]).agg(spreads()),
        ),
        (
            "not keeping the groups' order",
            sorted()
                .group_by([col("g")])
                .agg(spreads())
                .sort(["g"], Default::default()),
        ),
        (
            "by a computed key",
            sorted().group_by_stable([col("g") + lit(1)]).agg(spreads()),
        ),
    ] {
        assert_gpu_eq(&format!("spreads of a sorted key: {name}"), lf);
    }
}
