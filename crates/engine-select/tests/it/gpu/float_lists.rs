//! Lists of floats on the device: sums and means in Polars' orders of addition, spreads, medians, extremes (lists long enough to pass Polars' blocks, with -0.0, NaN, infinities and nulls).

use super::*;

/// A frame of float and 64-bit values in groups of 1 to 300 rows (so that
/// some lists pass Polars' blocks of 128), with -0.0, NaN, infinities and
/// magnitudes far apart; `nulls` makes some values null.
fn float_groups(nulls: bool) -> LazyFrame {
    let n = 1000usize;
    let group = |i: usize| match i {
        0..300 => 0,
        300..429 => 1,
        429..557 => 2,
        557..560 => 3,
        560..561 => 4,
        _ => 5 + (i % 7) as i32,
    };
    let value = |i: usize| match i {
        13 => f64::NAN,
        329 | 661 => 1e300,
        330 | 662 => -1e300,
        _ if i.is_multiple_of(97) || i == 560 => -0.0,
        _ => ((i * 7919) % 1000) as f64 / 7.0 - 70.0,
    };
    let valid = |i: usize| !nulls || i % 11 != 3;
    let f: Vec<Option<f64>> = (0..n).map(|i| valid(i).then(|| value(i))).collect();
    let big: Vec<Option<i64>> = (0..n)
        .map(|i| valid(i).then(|| (i as i64 - 500) * 9_007_199_254_740_993))
        .collect();
    df!(
        "g" => (0..n).map(group).collect::<Vec<_>>(),
        "f" => f,
        "i" => big,
    )
    .unwrap()
    .lazy()
    .with_columns([
        col("f").cast(DataType::Float32).alias("f32"),
        col("i").cast(DataType::UInt64).alias("u"),
    ])
}

#[test]
fn sums_and_means_of_lists_of_floats_follow_polars_order() {
    for nulls in [false, true] {
        let lists = float_groups(nulls).group_by_stable([col("g")]).agg([
            col("f"),
            col("f32"),
            col("i"),
            col("u"),
            col("f").filter(col("f").gt(lit(1e9))).alias("few"),
        ]);
        assert_gpu_eq(
            &format!("sums and means of each group's list, nulls {nulls}"),
            lists.clone().select([
                col("g"),
                col("f").list().sum().alias("f sum"),
                col("f").list().mean().alias("f mean"),
                col("f32").list().sum().alias("f32 sum"),
                col("f32").list().mean().alias("f32 mean"),
                col("i").list().mean().alias("i64 mean"),
                col("u").list().mean().alias("u64 mean"),
                col("few").list().sum().alias("sum of few, some empty"),
                col("few").list().mean().alias("mean of few"),
            ]),
        );
        assert_gpu_eq(
            &format!("of one list of every value, nulls {nulls}"),
            float_groups(nulls)
                .group_by_stable([col("g").gt_eq(lit(0)).alias("all")])
                .agg([col("f"), col("f32")])
                .select([
                    col("f").list().sum().alias("sum"),
                    col("f32").list().mean().alias("mean"),
                ]),
        );
    }
    assert_gpu_eq(
        "of a sliced list column, its nulls inside the lists kept",
        super::lists::list_frame().select([col("lf").list().sum(), col("li").list().mean()]),
    );
    // A slice of a list column whose nulls Polars finds outside the rows
    // kept: Polars adds as it would with nulls.
    let hidden = df!("k" => [1, 2, 3])
        .unwrap()
        .lazy()
        .with_columns([concat_list([when(col("k").eq(lit(1)))
            .then(lit(NULL).cast(DataType::Float64))
            .otherwise(lit(-0.0))])
        .unwrap()
        .alias("l")]);
    let sliced = hidden.collect().unwrap().slice(1, 2).lazy();
    assert_cpu_answer_with_reason(
        sliced.select([col("l").list().sum()]),
        "whose nulls lie outside the rows it keeps",
    );
    // Slices in the query keep list columns whole in Polars.
    let lists = || {
        float_groups(true)
            .group_by_stable([col("g")])
            .agg([col("f")])
    };
    assert_cpu_answer_with_reason(
        concat([lists(), lists()], UnionArgs::default())
            .unwrap()
            .slice(1, 3)
            .select([col("f").list().sum()]),
        "outside the rows a slice keeps",
    );
    // Polars adds the lists of each input of a union by themselves: here
    // [-0.0] from -0.0 (its frame holds no null), where the whole column,
    // which holds one, would add it from 0.0 (fuzz seed 23117, case 199).
    let one = |values: Vec<Option<f64>>| {
        let lists = Series::new("l".into(), [Some(Series::new("".into(), values))]);
        DataFrame::new(1, vec![lists.into()]).unwrap().lazy()
    };
    let union = || {
        concat(
            [one(vec![Some(-0.0)]), one(vec![None, None])],
            UnionArgs::default(),
        )
        .unwrap()
        .with_columns([col("l").list().mean().alias("mean")])
    };
    assert_cpu_answer_with_reason(union(), "lists of floats from a union");
    // The whole query: a union run on the device would give Polars' part
    // above one frame of one chunk (fuzz seed 23191, case 196).
    let (answer, report) = union()
        .collect_with_report(&Engine::Gpu(under_test()))
        .unwrap();
    assert_eq!(
        report.executed_by,
        ExecutedBy::Cpu(engine_select::CpuEngine::InMemory),
        "{report}"
    );
    let mean = answer
        .column("mean")
        .unwrap()
        .f64()
        .unwrap()
        .get(0)
        .unwrap();
    assert!(mean == 0.0 && mean.is_sign_negative(), "{answer}");
}

#[test]
fn spreads_of_lists_match_the_cpu() {
    for nulls in [false, true] {
        let lists = float_groups(nulls)
            .with_columns([
                (col("i") / lit(1_000_000_007i64)).alias("small"),
                (col("i") % lit(100i64)).cast(DataType::Int8).alias("i8"),
            ])
            .group_by_stable([col("g")])
            .agg([
                col("f"),
                col("f32"),
                col("small"),
                col("i8"),
                col("u"),
                col("f").filter(col("f").gt(lit(1e9))).alias("few"),
            ]);
        // (Each list's in Polars' chunks, to the bit.)
        assert_gpu_eq(
            &format!("standard deviations and variances of each group's list, nulls {nulls}"),
            lists.select([
                col("g"),
                col("f").list().std(1).alias("f"),
                col("f32").list().std(0).alias("f32"),
                col("f32").list().var(1).alias("f32 var"),
                col("small").list().var(1).alias("i64"),
                col("i8").list().std(2).alias("i8"),
                col("u").list().var(0).alias("u64"),
                col("few").list().std(1).alias("of few, some empty"),
            ]),
        );
    }
    // Finite values whose sum overflows: Polars' mean of the list is
    // infinite, its spread NaN (fuzz seed 23122, case 185), and so is the
    // device's, summing as it does; so too beside a value not finite.
    let lists = |values: Vec<f64>| {
        let lists = Series::new("l".into(), [Some(Series::new("".into(), values))]);
        DataFrame::new(1, vec![lists.into()]).unwrap().lazy()
    };
    assert_gpu_eq(
        "a spread of a list whose sum overflows",
        lists(vec![f64::MAX, f64::MAX]).select([col("l").list().var(0)]),
    );
    assert_gpu_eq(
        "a spread of a list holding infinity",
        lists(vec![f64::MAX, f64::MAX, f64::INFINITY]).select([col("l").list().std(1)]),
    );
}

#[test]
fn medians_of_lists_match_the_cpu() {
    for nulls in [false, true] {
        let lists = float_groups(nulls)
            .with_columns([(col("i") / lit(1_000_000_007i64)).alias("small")])
            .group_by_stable([col("g")])
            .agg([
                col("f"),
                col("f32"),
                col("small"),
                col("u"),
                col("f").filter(col("f").gt(lit(1e9))).alias("few"),
            ]);
        assert_gpu_eq(
            &format!("medians of each group's list, nulls {nulls}"),
            lists.select([
                col("g"),
                col("f").list().median().alias("f"),
                col("f32").list().median().alias("f32"),
                col("small").list().median().alias("i64"),
                col("u").list().median().alias("u64"),
                col("few").list().median().alias("of few, some empty"),
            ]),
        );
    }
    let lists = |lists: Vec<Series>| df!("l" => lists).unwrap().lazy();
    assert_gpu_eq(
        "medians of NaN, nulls and nothing",
        lists(vec![
            Series::new("".into(), [Some(-0.0f64), Some(-0.0), None]),
            Series::new("".into(), [Some(f64::NAN), Some(1.0)]),
            Series::new("".into(), [Some(f64::NAN), Some(1.0), Some(f64::NAN)]),
            Series::new_empty("".into(), &DataType::Float64),
            Series::new("".into(), [None::<f64>, None]),
        ])
        .select([col("l").list().median()]),
    );
    // Which zero is the median of -0.0 and 0.0 is Polars' own.
    assert_cpu_answer_with_reason(
        lists(vec![Series::new(
            "".into(),
            [Some(0.0f64), Some(-0.0), Some(-0.0)],
        )])
        .select([col("l").list().median()]),
        "holding -0.0 and 0.0",
    );
}

#[test]
fn medians_of_lists_of_f32_near_their_largest_match_the_cpu() {
    let frame = df!("g" => [1, 1, 2, 2, 3], "v" => [3e38f32, 3.2e38, 1.0, 2.0000002, -0.5])
        .unwrap()
        .lazy();
    assert_gpu_eq(
        "medians of f32 whose sum overflows f32",
        frame
            .group_by_stable([col("g")])
            .agg([col("v")])
            .select([col("v").list().median()]),
    );
}

/// Each list's least and greatest value of floats (f64 and f32): NaN
/// ignored unless the list holds nothing else, nulls skipped, null for an
/// empty or null list, and where -0.0 and 0.0 tie, the zero Polars gives.
#[test]
fn extremes_of_lists_of_floats_match_the_cpu() {
    for nulls in [false, true] {
        let lists = float_groups(nulls)
            .group_by_stable([col("g")])
            .agg([col("f"), col("f32")]);
        assert_gpu_eq(
            &format!("extremes, nulls {nulls}"),
            lists.select([
                col("f").list().min().alias("f min"),
                col("f").list().max().alias("f max"),
                col("f32").list().min().alias("f32 min"),
                col("f32").list().max().alias("f32 max"),
            ]),
        );
    }
    // Zeros of both signs, NaN and nulls alone, in lists long and short.
    let value = |i: u32| match i % 7 {
        0 | 3 => Some(-0.0f64),
        1 | 5 => Some(0.0),
        2 => Some(f64::NAN),
        4 if i.is_multiple_of(3) => None,
        _ => Some(-0.0),
    };
    let zeros = df!(
        "g" => (0..700u32).map(|i| i % 5 + i / 300).collect::<Vec<_>>(),
        "v" => (0..700u32).map(value).collect::<Vec<_>>(),
    )
    .unwrap()
    .lazy()
    .group_by_stable([col("g")])
    .agg([col("v"), col("v").filter(col("v").is_nan()).alias("nan")]);
    assert_gpu_eq(
        "zeros and NaN",
        zeros.select([
            col("v").list().min().alias("min"),
            col("v").list().max().alias("max"),
            col("nan").list().min().alias("nan min"),
            col("nan").list().max().alias("nan max"),
        ]),
    );
}

/// `list.sort` of floats, as Polars sorts each list (NaN the greatest,
/// nulls first or last, descending too), f64 and f32, empty and null
/// lists; a list holding both -0.0 and 0.0 (whose order is Polars' own)
/// leaves the query to Polars.
#[test]
fn sorts_of_lists_of_floats_match_the_cpu() {
    let value = |i: usize| match i % 9 {
        0 => Some(f64::NAN),
        1 => Some(-0.0),
        2 => None,
        3 => Some(f64::INFINITY),
        4 => Some(f64::NEG_INFINITY),
        _ => Some(((i * 37) % 23) as f64 - 11.5),
    };
    let n = 400;
    let lists = df!(
        "g" => (0..n).map(|i| (i % 13) as i32 + i32::from(i > 300)).collect::<Vec<_>>(),
        "v" => (0..n).map(value).collect::<Vec<_>>(),
    )
    .unwrap()
    .lazy()
    .with_columns([col("v").cast(DataType::Float32).alias("v32")])
    .group_by_stable([col("g")])
    .agg([
        col("v"),
        col("v32"),
        col("v").filter(col("g").gt(lit(12))).alias("few"),
    ]);
    let sorted = |c: &str, descending: bool, nulls_last: bool| {
        let options = SortOptions::default()
            .with_order_descending(descending)
            .with_nulls_last(nulls_last);
        col(c)
            .list()
            .sort(options)
            .alias(format!("{c} {descending} {nulls_last}"))
    };
    let mut exprs = vec![];
    for c in ["v", "v32", "few"] {
        for (descending, nulls_last) in [(false, false), (true, false), (false, true), (true, true)]
        {
            exprs.push(sorted(c, descending, nulls_last));
        }
    }
    assert_gpu_eq("sorts of lists of floats", lists.clone().select(exprs));
    let both_zeros = df!("g" => [1, 1, 1, 2], "v" => [0.0f64, 1.0, -0.0, 0.0])
        .unwrap()
        .lazy()
        .group_by_stable([col("g")])
        .agg([col("v")])
        .select([col("v").list().sort(SortOptions::default())]);
    assert_cpu_answer_with_reason(both_zeros, "holding -0.0 and 0.0");
}

/// `list.arg_min` and `list.arg_max` of floats: NaN only where every
/// valid value is; a list holding its extreme twice (-0.0 and 0.0 too)
/// leaves the query to Polars.
#[test]
fn places_of_extremes_of_lists_of_floats_match_the_cpu() {
    let lists = df!(
        "g" => [1, 1, 1, 2, 3, 4, 4, 5, 6, 6, 6, 7, 7],
        "v" => [Some(1.5f64), Some(f64::NAN), Some(-2.0), Some(f64::NAN), None, Some(f64::INFINITY),
                None, Some(-0.0), Some(3.0), Some(f64::NEG_INFINITY), Some(7.25), Some(f64::NAN),
                Some(4.0)],
    )
    .unwrap()
    .lazy()
    .with_columns([col("v").cast(DataType::Float32).alias("v32")])
    .group_by_stable([col("g")])
    .agg([
        col("v"),
        col("v32"),
        col("v").filter(col("g").gt(lit(9))).alias("empty"),
    ]);
    assert_gpu_eq(
        "places of extremes",
        lists.select([
            col("v").list().arg_min().alias("min"),
            col("v").list().arg_max().alias("max"),
            col("v32").list().arg_min().alias("min32"),
            col("v32").list().arg_max().alias("max32"),
            col("empty").list().arg_max().alias("empty"),
        ]),
    );
    let twice = df!("g" => [1, 1, 1], "v" => [0.0f64, 1.0, -0.0])
        .unwrap()
        .lazy()
        .group_by_stable([col("g")])
        .agg([col("v")])
        .select([col("v").list().arg_min()]);
    assert_cpu_answer_with_reason(twice, "holds its least value more than once");
}
