//! Aggregations of whole frames on the device: sums in Polars' order (of f32 in f32), extremes, empty frames, common subexpressions.

use super::*;

#[test]
fn common_subexpressions_of_whole_column_aggregations_match_the_cpu() {
    // Polars computes a repeated aggregation once, in a with_columns that
    // keeps it one row; a select of only such columns is one row.
    let cases = [
        (
            "a select of a repeated sum",
            groups().select([
                col("v").sum().alias("sum v"),
                (col("v").sum() * lit(2i64)).alias("twice"),
            ]),
        ),
        (
            "a select of a repeated median beside another aggregation",
            groups().select([
                col("v").median().alias("median v"),
                col("v").std(1).alias("std v"),
                (col("v").median() * lit(2.0)).alias("twice median"),
            ]),
        ),
        (
            "a repeated sum beside row-wise expressions",
            groups().select([
                (col("v") - col("v").sum()).alias("minus sum"),
                (col("v").sum() * lit(2i64)).alias("twice"),
                col("v").sum().alias("sum"),
            ]),
        ),
        (
            "aggregations beside row-wise expressions: repeated on every row",
            groups().select([
                col("v").max().alias("max"),
                (col("v") - col("v").min()).alias("above the min"),
                len().alias("rows"),
            ]),
        ),
        (
            "aggregations beside row-wise expressions of no rows",
            groups().filter(lit(false)).select([
                col("v").max().alias("max"),
                (col("v") - col("v").min()).alias("above the min"),
            ]),
        ),
        (
            "a repeated sum in with_columns",
            groups().with_columns([
                col("v").sum().alias("sum v"),
                (col("v").sum() * lit(2i64)).alias("twice"),
            ]),
        ),
    ];
    for (name, lf) in cases {
        assert_gpu_eq(name, lf);
    }
}

#[test]
fn whole_frame_float_sums_and_means_follow_polars_order_bit_for_bit() {
    // Values whose sums round at every step: any other order of additions
    // differs in the last bits (sizes about blocks of 128 and their tree).
    // (Unfiltered: Polars sums each chunk of a column, and a filter splits
    // its frame into chunks by its number of threads.)
    let mut next = xorshift(7);
    for n in [5usize, 127, 128, 129, 1000, 12_345, 40_000] {
        for nulls in [false, true] {
            let mut value = || {
                let x = next();
                let f = (x % 1_000_003) as f64 / 7.3 - 50_000.0;
                let i = (x >> 3) as i64 - (1 << 59);
                (!(nulls && x.is_multiple_of(7))).then_some((f, i))
            };
            let (f, i): (Vec<_>, Vec<_>) = (0..n).map(|_| value().unzip()).unzip();
            // The same values as f32, summed in f32 (and averaged in f64).
            let g: Vec<Option<f32>> = f.iter().map(|f| f.map(|f| f as f32)).collect();
            let lf = df!("f" => f, "i" => i, "g" => g).unwrap().lazy();
            assert_gpu_eq(
                &format!("sums and means of {n} rows, nulls {nulls}"),
                lf.clone().select([
                    col("f").sum().alias("f sum"),
                    col("f").mean().alias("f mean"),
                    col("i").mean().alias("i mean"),
                    (col("f").sum() / col("f").mean()).alias("ratio"),
                    col("g").sum().alias("g sum"),
                    col("g").mean().alias("g mean"),
                ]),
            );
            assert_gpu_eq(
                &format!("whole-frame sums in row-wise expressions of {n} rows, nulls {nulls}"),
                lf.clone().with_columns([
                    (col("f") - col("f").mean()).alias("centred"),
                    (col("g") - col("g").mean()).alias("g centred"),
                    (col("g") / col("g").sum()).alias("g share"),
                ]),
            );
            // Of a filter inside the aggregation: Polars sums the values kept.
            let kept = || col("f").gt(lit(-20_000.0));
            assert_gpu_eq(
                &format!("sums and means of filtered values of {n} rows, nulls {nulls}"),
                lf.select([
                    col("f").filter(kept()).sum().alias("f sum"),
                    col("f").filter(kept()).mean().alias("f mean"),
                    col("i").filter(kept()).mean().alias("i mean"),
                    col("g").filter(kept()).mean().alias("g mean"),
                    col("g").filter(kept()).max().alias("g max"),
                ]),
            );
        }
    }
}

#[test]
fn any_all_has_nulls_and_is_empty_match_the_cpu() {
    let frame = || {
        df!(
            "g" => ["a", "a", "b", "b", "c", "c", "d", "e", "e"],
            "b" => [Some(true), None, Some(false), None, Some(true), Some(false), None, Some(false), Some(false)],
            "x" => [Some(1i64), None, Some(2), Some(3), None, None, Some(4), Some(5), None],
        )
        .unwrap()
        .lazy()
    };
    let aggregations = || {
        vec![
            col("b").any(true).alias("any"),
            col("b").any(false).alias("any, Kleene"),
            col("b").all(true).alias("all"),
            col("b").all(false).alias("all, Kleene"),
            col("x").is_null().any(true).alias("has nulls"),
            col("x").has_nulls().alias("has_nulls"),
            col("x").is_empty(false).alias("is_empty"),
            col("x").is_empty(true).alias("is_empty, nulls aside"),
        ]
    };
    assert_gpu_eq(
        "any, all and has_nulls per group (true, false, null and mixed groups)",
        frame().group_by_stable([col("g")]).agg(aggregations()),
    );
    assert_gpu_eq(
        "any, all and has_nulls of a frame",
        frame().select(aggregations()),
    );
    assert_gpu_eq(
        "any, all and has_nulls of no rows",
        frame().filter(col("g").eq(lit("z"))).select(aggregations()),
    );
    assert_gpu_eq(
        "any in a window",
        frame().with_columns([col("b").any(false).over([col("g")]).unwrap().alias("w")]),
    );
}

#[test]
fn common_aggregations_of_no_rows_keep_their_values() {
    // Polars computes an aggregation used twice once, in a with_columns of
    // its own: over no rows it still has a value (0, false), not null.
    let none = || {
        df!("x" => [Some(1i64), None, Some(3)])
            .unwrap()
            .lazy()
            .filter(col("x").gt(lit(10i64)))
    };
    assert_gpu_eq(
        "aggregations used twice, of no rows",
        none().select([
            col("x").sum().alias("a"),
            col("x").sum().alias("b"),
            col("x").has_nulls().alias("c"),
            col("x").has_nulls().alias("d"),
        ]),
    );
    assert_gpu_eq(
        "expressions of an aggregation used twice, of no rows",
        none().select([
            (col("x").count() + lit(1u32)).alias("a"),
            (col("x").count() * lit(2u32)).alias("b"),
        ]),
    );
}

#[test]
fn whole_frame_sums_minima_and_maxima_match_the_cpu() {
    // The device-wide reductions, read in place: every integer type (32-bit
    // sums wrap in their own type, as Polars' do), booleans, temporal
    // types (durations summed too), floats with NaN, columns with nulls,
    // all null and empty, floats all NaN, over sizes of one block, several,
    // and many.
    let mut next = xorshift(11);
    for n in [0usize, 1, 255, 257, 5_000, 70_001] {
        let mut column = |every: u64| -> Vec<Option<u64>> {
            (0..n)
                .map(|_| {
                    let x = next();
                    (every == 0 || !x.is_multiple_of(every)).then_some(x)
                })
                .collect()
        };
        let (a, b, c) = (column(0), column(5), column(1));
        let df = df!(
            "i32" => a.iter().map(|x| x.map(|x| i32::MAX - (x % 1000) as i32)).collect::<Vec<_>>(),
            "u32" => b.iter().map(|x| x.map(|x| u32::MAX - (x % 7) as u32)).collect::<Vec<_>>(),
            "i64" => b.iter().map(|x| x.map(|x| x as i64)).collect::<Vec<_>>(),
            "u64" => a.iter().map(|x| x.map(|x| x >> 3)).collect::<Vec<_>>(),
            "i8" => b.iter().map(|x| x.map(|x| x as i8)).collect::<Vec<_>>(),
            "u16" => a.iter().map(|x| x.map(|x| x as u16)).collect::<Vec<_>>(),
            "days" => b.iter().map(|x| x.map(|x| (x % 40_000) as i32 - 20_000)).collect::<Vec<_>>(),
            "none" => c.iter().map(|x| x.map(|x| x as i64)).collect::<Vec<_>>(),
            "b" => b.iter().map(|x| x.map(|x| x % 3 == 0)).collect::<Vec<_>>(),
            "f" => b.iter().map(|x| x.map(|x| if x % 11 == 0 { f64::NAN } else { (x % 10_007) as f64 - 5_000.5 })).collect::<Vec<_>>(),
            // Only NaN among the values: NaN is the minimum and the maximum.
            "nan" => b.iter().map(|x| x.map(|_| f64::NAN)).collect::<Vec<_>>(),
        )
        .unwrap()
        .lazy()
        .with_columns([
            // Computed on the CPU below: the slots under the nulls of "i64"
            // hold the values of "u16".
            (col("i64") + col("u16").cast(DataType::Int64))
                .cast(DataType::Float64)
                .alias("g"),
            col("days").cast(DataType::Date).alias("date"),
            col("i64")
                .cast(DataType::Duration(TimeUnit::Microseconds))
                .alias("span"),
        ])
        .collect()
        .unwrap()
        .lazy();
        let numbers = ["i32", "u32", "i64", "u64", "i8", "u16", "none", "b"];
        let mut exprs = Vec::new();
        for name in numbers {
            exprs.push(col(name).sum().alias(format!("{name} sum")));
        }
        for name in numbers.into_iter().chain(["date", "span", "f", "nan"]) {
            exprs.push(col(name).min().alias(format!("{name} min")));
            exprs.push(col(name).max().alias(format!("{name} max")));
        }
        // A filter's values (nulls under it) and an aggregation of a sum.
        exprs.push(col("i64").filter(col("b")).max().alias("filtered max"));
        exprs.push(
            (col("i64") + col("u16").cast(DataType::Int64))
                .min()
                .alias("sum min"),
        );
        exprs.push(col("span").sum().alias("span sum"));
        // Float sums and means in Polars' order, of the column in place.
        exprs.push(col("g").sum().alias("g sum"));
        exprs.push(col("g").mean().alias("g mean"));
        exprs.push(col("g").max().alias("g max"));
        assert_gpu_eq(&format!("n = {n}"), df.clone().select(exprs));
        // Sums per group (segment kernels), of values that do not overflow
        // (Polars' own group sums check for overflow in a debug build).
        let small_span = col("u16")
            .cast(DataType::Int64)
            .cast(DataType::Duration(TimeUnit::Milliseconds))
            .alias("small span");
        let sums = [col("u16").sum(), col("i8").sum(), small_span.sum()];
        assert_gpu_eq(
            &format!("groups, n = {n}"),
            df.group_by([col("b")])
                .agg(sums)
                .sort(["b"], SortMultipleOptions::default()),
        );
    }
}

#[test]
fn aggregations_of_an_empty_frame_give_one_row_as_on_the_cpu() {
    // One row of nulls, zeros or counts, whatever the kernel behind the
    // aggregation (reductions, sorts that pick a row, distinct counts).
    let empty = table().filter(col("u").gt(lit(100u32)));
    let cases = [
        ("text min", col("s").min()),
        ("text max", col("s").max()),
        ("text first", col("s").first()),
        ("text last", col("s").last()),
        ("boolean first", col("b").first()),
        ("boolean min", col("b").min()),
        ("f32 min", col("f").cast(DataType::Float32).min()),
        ("i8 max", col("i").cast(DataType::Int8).max()),
        ("date min", col("d").min()),
        ("i64 sum", col("i").sum()),
        ("i64 mean", col("i").mean()),
        ("count", col("i").count()),
        ("len", len()),
        ("distinct texts", col("s").n_unique()),
        ("distinct integers", col("i").n_unique()),
        ("median", col("f").median()),
        (
            "quantile",
            col("f").quantile(lit(0.3), QuantileMethod::Linear),
        ),
        ("std", col("f").std(1)),
        ("arg_min", col("i").arg_min()),
        ("joined texts", col("s").str().join("-", true)),
        (
            "first by another column",
            col("i")
                .sort_by([col("k")], SortMultipleOptions::default())
                .first(),
        ),
        ("first kept", col("i").filter(col("b")).first()),
        ("sum kept", col("i").filter(col("b")).sum()),
    ];
    for (name, expr) in cases {
        assert_gpu_eq(name, empty.clone().select([expr]));
    }
}

#[test]
fn means_of_f32_are_taken_in_f64_per_group_too_and_sums_per_group_fall_back() {
    // Polars takes a mean of f32 in f64 and rounds it to f32: per group,
    // in windows and of a filter alike (a group of one row its value).
    let mut next = xorshift(11);
    let n = 2_000;
    let g: Vec<Option<f32>> = (0..n)
        .map(|_| {
            let x = next();
            (!x.is_multiple_of(9)).then(|| (x % 100_003) as f32 / 3.7 - 9_000.0)
        })
        .collect();
    let k: Vec<i64> = (0..n).map(|_| (next() % 37) as i64).collect();
    let lf = df!("g" => g, "k" => k).unwrap().lazy();
    assert_gpu_eq(
        "means of f32 per group",
        lf.clone().group_by_stable([col("k")]).agg([
            col("g").mean().alias("mean"),
            col("g")
                .filter(col("g").gt(lit(0.0)))
                .mean()
                .alias("mean of positives"),
        ]),
    );
    assert_gpu_eq(
        "means of f32 within windows",
        lf.clone()
            .select([col("g").mean().over([col("k")]).unwrap().alias("mean")]),
    );
    // (Polars' own sums of f32 per group vary from run to run: its threads
    // add partial sums in their own order.)
    for lf in [
        lf.clone().group_by_stable([col("k")]).agg([col("g").sum()]),
        lf.select([col("g").filter(col("g").gt(lit(0.0))).sum()]),
    ] {
        let (_, report) = lf.collect_with_report(&Engine::Gpu(under_test())).unwrap();
        assert!(
            report
                .fallback_reasons
                .iter()
                .any(|r| r.message.contains("a sum of f32 per group or of a filter")),
            "{report}"
        );
    }
}

/// `entropy` of a whole frame: Polars' `-sum(pk * log(pk, base))`, its sums
/// pairwise, its logarithms the host's; 0.0 of one row.
#[test]
fn entropies_of_whole_frames_match_the_cpu() {
    let frame = || {
        df!(
            "x" => [Some(1.5f64), Some(2.0), None, Some(0.25), Some(7.0), Some(1e-3)],
            "i" => [3i64, 1, 4, 1, 5, 9],
            "z" => [Some(1.0f64), Some(0.0), Some(2.0), None, Some(3.0), Some(0.5)],
            "g" => [1i32, 1, 2, 2, 2, 1],
        )
        .unwrap()
        .lazy()
    };
    let entropies = || {
        [
            col("x").entropy(2.0, true).alias("base 2"),
            col("x")
                .entropy(std::f64::consts::E, false)
                .alias("not normalized"),
            col("i").entropy(10.0, true).alias("integers"),
            col("z").entropy(2.0, true).alias("a zero: NaN"),
            (col("x") * lit(3.0))
                .entropy(2.0, true)
                .alias("of an expression"),
        ]
    };
    for (name, lf) in [
        ("a select", frame().select(entropies())),
        ("beside the rows", frame().with_columns(entropies())),
        ("one row", frame().slice(2, 1).select(entropies())),
        (
            "no rows",
            frame().filter(col("g").gt(lit(5))).select(entropies()),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
    // Per group Polars adds each group's values in an order of its own.
    assert_cpu_answer_with_reason(
        frame()
            .group_by_stable([col("g")])
            .agg([col("x").entropy(2.0, true)]),
        "entropy per group",
    );
}
