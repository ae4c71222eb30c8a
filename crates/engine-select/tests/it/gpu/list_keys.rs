//! Lists as keys on the device: group-bys, distinct rows, joins, distinct counts and repeats by list columns (each list a code, equal where the lists are value by value: nulls alike, NaN with NaN, -0.0 with 0.0, a null list apart from an empty one); sorts by lists stay with Polars.

use super::*;

/// Lists of floats that differ only where grouping notices: empty, null,
/// a zero of either sign, NaNs, nulls inside, prefixes of one another, one
/// long enough for many halvings and one differing from it at its end.
fn float_lists() -> Vec<Option<Vec<Option<f64>>>> {
    let long: Vec<Option<f64>> = (0..300).map(|i| Some(f64::from(i % 17) - 8.0)).collect();
    let mut long_other = long.clone();
    long_other[299] = None;
    let mut lists = vec![
        Some(vec![]),
        None,
        Some(vec![Some(0.0)]),
        Some(vec![Some(-0.0)]),
        Some(vec![Some(f64::NAN)]),
        Some(vec![Some(-f64::NAN), Some(1.0)]),
        Some(vec![Some(f64::NAN), Some(1.0)]),
        Some(vec![None]),
        Some(vec![None, None]),
        Some(vec![Some(1.0), None]),
        Some(vec![Some(1.0), None, Some(2.0)]),
        Some(long),
        Some(long_other),
    ];
    // Prefixes of one list, of every length to 9.
    let full: Vec<Option<f64>> = (0..9).map(|i| Some(f64::from(i) * 1.5)).collect();
    lists.extend((1..=9).map(|len| Some(full[..len].to_vec())));
    lists
}

/// `n` rows drawing their lists from `float_lists` (so that each comes
/// several times), beside lists of texts, booleans and u8 drawn alike, a
/// group `g` and values `v`.
fn keyed(n: usize, seed: u64) -> LazyFrame {
    let pool = float_lists();
    let mut next = xorshift(seed);
    let mut pick = |k: usize| (next() % k as u64) as usize;
    let (mut floats, mut texts, mut flags, mut small) = (vec![], vec![], vec![], vec![]);
    for _ in 0..n {
        let list = pool[pick(pool.len())].clone();
        floats.push(list.map(|l| Series::new("".into(), l)));
        let words = ["", "a", "b", "ünï"];
        let text: Vec<Option<&str>> = (0..pick(3))
            .map(|_| (pick(5) > 0).then(|| words[pick(4)]))
            .collect();
        texts.push((pick(9) > 0).then(|| Series::new("".into(), text)));
        let flag: Vec<Option<bool>> = (0..pick(3)).map(|_| Some(pick(2) == 0)).collect();
        flags.push(Some(Series::new("".into(), flag)));
        let bytes: Vec<u8> = (0..pick(4)).map(|_| pick(3) as u8).collect();
        small.push(Some(Series::new("".into(), bytes)));
    }
    let columns = [
        Series::new("k".into(), floats),
        Series::new("s".into(), texts),
        Series::new("b".into(), flags),
        Series::new("u".into(), small),
    ];
    let mut df = DataFrame::new(n, columns.into_iter().map(Into::into).collect()).unwrap();
    let g: Vec<i64> = (0..n).map(|_| pick(3) as i64).collect();
    let v: Vec<Option<i64>> = (0..n).map(|i| (i % 7 != 3).then_some(i as i64)).collect();
    df.with_column(Column::new("g".into(), g)).unwrap();
    df.with_column(Column::new("v".into(), v)).unwrap();
    df.lazy()
}

#[test]
fn group_bys_by_lists_match_the_cpu() {
    // (-0.0 made 0.0: a group of lists holding -0.0 shows the list of a
    // row Polars' hash path picks, below.)
    let zero = when(element().eq(lit(0.0)))
        .then(lit(0.0))
        .otherwise(element());
    let frame = keyed(400, 7).with_columns([col("k").list().eval(zero).alias("k")]);
    for key in ["k", "s", "b", "u"] {
        assert_gpu_eq(
            &format!("groups of {key}"),
            frame.clone().group_by_stable([col(key)]).agg([
                len().alias("rows"),
                col("v").sum().alias("sum"),
                col("g").first().alias("first g"),
            ]),
        );
        assert_gpu_eq(
            &format!("groups of {key} and g"),
            frame
                .clone()
                .group_by_stable([col(key), col("g")])
                .agg([col("v").max().alias("max")]),
        );
    }
    // Unordered groups, put in order by their first row.
    assert_gpu_eq(
        "groups in no order",
        frame
            .clone()
            .with_row_index("r", None)
            .group_by([col("k")])
            .agg([col("r").min().alias("r"), col("v").count().alias("n")])
            .sort(["r"], Default::default()),
    );
    assert_cpu_answer_with_reason(
        keyed(50, 7).group_by_stable([col("k")]).agg([len()]),
        "a list key holding -0.0",
    );
}

#[test]
fn distinct_rows_and_counts_by_lists_match_the_cpu() {
    let frame = keyed(300, 11);
    for keep in [
        UniqueKeepStrategy::First,
        UniqueKeepStrategy::Last,
        UniqueKeepStrategy::None,
    ] {
        assert_gpu_eq(
            &format!("distinct by k, keeping {keep:?}"),
            frame.clone().unique_stable(Some(cols(["k"])), keep),
        );
    }
    assert_gpu_eq(
        "distinct rows",
        frame
            .clone()
            .select([col("s"), col("b"), col("g")])
            .unique_stable(None, UniqueKeepStrategy::First),
    );
    assert_gpu_eq(
        "the distinct lists of a column, in order",
        frame.clone().select([col("s").unique_stable()]),
    );
    assert_gpu_eq(
        "the distinct lists of floats of a column, in order",
        frame.clone().select([col("k").unique_stable()]),
    );
    assert_gpu_eq(
        "distinct counts",
        frame
            .clone()
            .select([col("k").n_unique(), col("s").n_unique().alias("s")]),
    );
    assert_gpu_eq(
        "distinct counts per group",
        frame
            .clone()
            .group_by_stable([col("g")])
            .agg([col("k").n_unique(), col("u").n_unique().alias("u")]),
    );
    assert_gpu_eq(
        "repeats",
        frame.clone().select([
            col("k").is_duplicated().alias("dup"),
            col("s").is_unique().alias("unique"),
            col("k").is_first_distinct().alias("first"),
            col("u").is_last_distinct().alias("last"),
            col("b")
                .is_unique()
                .over([col("g")])
                .unwrap()
                .alias("unique in g"),
        ]),
    );
}

#[test]
fn joins_on_lists_match_the_cpu() {
    let left = keyed(120, 3).with_row_index("l", None);
    let right = keyed(80, 5)
        .with_row_index("r", None)
        .select([col("k"), col("s"), col("r")]);
    let ordered = |how: JoinType| JoinArgs {
        maintain_order: MaintainOrderJoin::LeftRight,
        ..JoinArgs::new(how)
    };
    for how in [
        JoinType::Inner,
        JoinType::Left,
        JoinType::Semi,
        JoinType::Anti,
    ] {
        assert_gpu_eq(
            &format!("{how:?} join on k"),
            left.clone()
                .join(right.clone(), [col("k")], [col("k")], ordered(how.clone())),
        );
    }
    assert_gpu_eq(
        "full join on k and s, coalesced",
        left.clone().join(
            right.clone(),
            [col("k"), col("s")],
            [col("k"), col("s")],
            ordered(JoinType::Full).with_coalesce(JoinCoalesce::CoalesceColumns),
        ),
    );
    assert_gpu_eq(
        "inner join on k, nulls equal",
        left.clone().join(
            right.clone(),
            [col("k")],
            [col("k")],
            JoinArgs {
                nulls_equal: true,
                ..ordered(JoinType::Inner)
            },
        ),
    );
}

#[test]
fn windows_and_sorts_by_lists_inside_expressions_match_the_cpu() {
    let frame = keyed(200, 23).with_row_index("r", None);
    assert_gpu_eq(
        "windows partitioned by lists",
        frame.clone().select([
            col("v").sum().over([col("s")]).unwrap().alias("sum in s"),
            col("r")
                .first()
                .over([col("u"), col("g")])
                .unwrap()
                .alias("first in u, g"),
            col("v")
                .rank(Default::default(), None)
                .over([col("b")])
                .unwrap()
                .alias("rank in b"),
            col("v")
                .cum_sum(false)
                .over([col("k")])
                .unwrap()
                .alias("running in k"),
        ]),
    );
    assert_gpu_eq(
        "values sorted by lists",
        frame.clone().select([
            col("r").sort_by(
                [col("s")],
                SortMultipleOptions::default().with_maintain_order(true),
            ),
            col("v")
                .sort_by(
                    [col("u")],
                    SortMultipleOptions::default()
                        .with_order_descending(true)
                        .with_maintain_order(true),
                )
                .alias("v by u"),
        ]),
    );
    // By several keys, of which a list, Polars' `sort_by` raises.
    assert_cpu_error(
        frame.select([col("v").sort_by([col("u"), col("r")], SortMultipleOptions::default())]),
    );
}

#[test]
fn partitioned_group_bys_distincts_and_joins_by_lists_match_the_cpu() {
    // (Group-bys, distincts and full joins by lists run whole: lists are
    // coded per run, and hashed into no partition's bucket; fuzz seed
    // 5062, case 131.)
    let frame = || keyed(60, 13);
    let ordered = |how: JoinType| JoinArgs {
        maintain_order: MaintainOrderJoin::LeftRight,
        ..JoinArgs::new(how)
    };
    let cases = [
        (
            "groups of s",
            frame()
                .group_by_stable([col("s")])
                .agg([len(), col("v").sum()]),
        ),
        (
            "distinct by u",
            frame().unique_stable(Some(cols(["u"])), UniqueKeepStrategy::First),
        ),
        (
            "full join on s",
            frame().select([col("s"), col("g")]).join(
                frame().select([col("s"), col("v")]),
                [col("s")],
                [col("s")],
                ordered(JoinType::Full).with_coalesce(JoinCoalesce::CoalesceColumns),
            ),
        ),
        (
            "left join on k",
            frame().join(
                frame().select([col("k"), col("v").alias("w")]),
                [col("k")],
                [col("k")],
                ordered(JoinType::Left),
            ),
        ),
    ];
    for (name, lf) in cases {
        super::partitioned::assert_partitioned_in(name, lf, false, &[2, 7], |_, _| {});
    }
}

#[test]
fn sorts_by_lists_match_the_cpu() {
    // Polars orders lists by its row encoding: value by value (nulls
    // first within, NaN last, -0.0 as 0.0), a list before the longer ones
    // it begins, an empty list first; descending the reverse, null lists
    // where `nulls_last` puts them.
    let frame = keyed(300, 17).with_row_index("r", None);
    for (descending, nulls_last) in [(false, false), (true, false), (false, true), (true, true)] {
        let options = SortMultipleOptions::default()
            .with_order_descending(descending)
            .with_nulls_last(nulls_last)
            .with_maintain_order(true);
        for key in ["k", "s", "b", "u"] {
            assert_gpu_eq(
                &format!("sorted by {key}, descending {descending}, nulls last {nulls_last}"),
                frame.clone().sort([key], options.clone()),
            );
        }
        assert_gpu_eq(
            &format!("sorted by g then s, descending {descending}"),
            frame.clone().sort(
                ["g", "s"],
                SortMultipleOptions::default()
                    .with_order_descending_multi([false, descending])
                    .with_nulls_last(nulls_last)
                    .with_maintain_order(true),
            ),
        );
    }
    assert_gpu_eq(
        "the first rows by k",
        frame
            .clone()
            .sort(
                ["k"],
                SortMultipleOptions::default().with_maintain_order(true),
            )
            .limit(20),
    );
    super::partitioned::assert_partitioned_in(
        "sorted by s, partitioned",
        frame.sort(
            ["s"],
            SortMultipleOptions::default().with_maintain_order(true),
        ),
        false,
        &[2, 7],
        |_, _| {},
    );
}
