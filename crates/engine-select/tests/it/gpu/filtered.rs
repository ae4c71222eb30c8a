//! Values read through filters and slices inside expressions: slices Polars' optimiser moves onto the columns, filters under elementwise functions and under running functions that skip nulls, slices of a filter's rows, aggregated or in a select of the rows kept; other functions of the rows kept per group; functions that aggregate (`all`, `null_count`, `quantile`) of the rows kept; filters by a literal; the distinct values and slices of the rows kept.

use super::*;

/// Groups (`g`) of floats (`c`, zeros of both signs among them) and
/// integers (`i`), a null in each.
fn frame() -> LazyFrame {
    df!(
        "g" => ["a", "b", "a", "a", "b", "c", "a", "b", "c", "a"],
        "c" => [Some(2.0f64), Some(-1.5), None, Some(4.0), Some(0.5), Some(3.0), Some(-2.0), Some(8.0), Some(-0.0), Some(-0.0)],
        "i" => [Some(1i64), Some(2), Some(3), None, Some(5), Some(6), Some(7), Some(8), Some(0), None],
    )
    .unwrap()
    .lazy()
}

/// The `aggregations` of [`frame`] per group and over the whole frame, each
/// as on the CPU.
fn assert_per_group_and_over_the_frame<const N: usize>(
    what: &str,
    aggregations: impl Fn() -> [Expr; N],
) {
    assert_gpu_eq(
        &format!("{what} per group"),
        frame().group_by_stable([col("g")]).agg(aggregations()),
    );
    assert_gpu_eq(
        &format!("{what} over the frame"),
        frame().select(aggregations()),
    );
}

/// Aggregations of slices of elementwise expressions, which Polars'
/// optimiser moves onto the columns (`(1.5 % col("c")).head(3)` becomes
/// `1.5 % col("c").slice(0, 3)`): the rows kept by place, per group and
/// over the frame.
#[test]
fn aggregations_of_slices_moved_onto_columns_match_the_cpu() {
    let aggregations = || {
        [
            (lit(1.5) % col("c"))
                .head(Some(3))
                .max()
                .alias("mod head max"),
            (col("c") * lit(2.0) + col("i").cast(DataType::Float64))
                .tail(Some(2))
                .sum()
                .alias("tail sum"),
            (col("i") - lit(1i64))
                .slice(lit(1i64), lit(2u64))
                .min()
                .alias("slice min"),
            (col("i") * col("i")).head(Some(2)).len().alias("head len"),
            // (`.last()` moved onto one operand, the other an aggregation.)
            (col("i") - col("i").first())
                .last()
                .alias("last less first"),
            (col("c").tail(Some(2)) + col("c").max() + len().cast(DataType::Float64))
                .sum()
                .alias("tail plus max"),
        ]
    };
    assert_per_group_and_over_the_frame("aggregations of moved slices", aggregations);
}

/// Aggregations of an elementwise expression whose columns are read through
/// one filter (`(x.filter(p) * 2).mean()`): of the rows the filter keeps,
/// per group and over the frame (a group keeping no row: null, or 0 for a
/// count).
#[test]
fn aggregations_of_filters_inside_expressions_match_the_cpu() {
    let aggregations = || {
        [
            (col("i").filter(col("i").gt(lit(2))) * lit(2))
                .mean()
                .alias("mean"),
            (col("c").filter(col("i").lt_eq(lit(5))) + col("c").max())
                .sum()
                .alias("sum beside max"),
            (col("i").filter(col("c").gt(lit(0.0))) - lit(1i64))
                .min()
                .alias("min"),
            (col("i").filter(col("i").gt(lit(100))) * lit(3))
                .count()
                .alias("count of none"),
            (col("c").filter(col("i").is_not_null()).abs())
                .max()
                .alias("max"),
        ]
    };
    assert_per_group_and_over_the_frame("aggregations of filters inside expressions", aggregations);
}

/// Slices of the rows a filter keeps (`x.filter(p).head(2)`, `tail`, a
/// slice), alone and under elementwise functions: the kept rows whose
/// place among them lies in the slice (from the end, from their number),
/// aggregated and as lists, per group and over the frame (a group keeping
/// no row: null, 0 for a count).
#[test]
fn slices_of_filtered_rows_match_the_cpu() {
    let positive = || col("c").gt(lit(0.0));
    let aggregations = || {
        [
            col("i")
                .filter(positive())
                .head(Some(2))
                .sum()
                .alias("head sum"),
            col("c")
                .filter(col("i").gt(lit(1)))
                .slice(lit(1i64), lit(2u64))
                .mean()
                .alias("slice mean"),
            col("i")
                .filter(positive())
                .head(Some(2))
                .last()
                .alias("head last"),
            col("i")
                .filter(positive())
                .tail(Some(2))
                .sum()
                .alias("tail sum"),
            col("c")
                .filter(col("i").gt(lit(1)))
                .slice(lit(-3i64), lit(2u64))
                .first()
                .alias("slice from the end, first"),
            (col("c").filter(col("i").is_null()).head(Some(3)) * lit(2.0))
                .max()
                .alias("head of none max"),
            col("i")
                .filter(col("i").gt(lit(100)))
                .head(Some(2))
                .count()
                .alias("count of none"),
            (col("i").filter(positive()).head(Some(3)) - col("i").min())
                .sum()
                .alias("elementwise sum"),
        ]
    };
    assert_per_group_and_over_the_frame("slices of filtered rows", aggregations);
    assert_gpu_eq(
        "slices of filtered rows as lists per group",
        frame().group_by_stable([col("g")]).agg([
            col("i").filter(positive()).head(Some(1)).alias("head"),
            col("i")
                .filter(positive())
                .tail(Some(5))
                .alias("tail beyond"),
            col("c")
                .filter(positive())
                .slice(lit(1i64), lit(2u64))
                .alias("slice"),
        ]),
    );
}

/// Running functions that skip nulls (sums, products, extremes, counts,
/// fills without a limit) of the rows a filter, `drop_nulls` or a slice
/// keeps (`x.filter(p).cum_sum()`): each kept row's value as over the kept
/// rows alone, as lists per group and their aggregations, per group and
/// over the frame.
#[test]
fn running_functions_of_filtered_rows_match_the_cpu() {
    let kept = || col("i").gt(lit(2)).or(col("c").lt(lit(0.0)));
    let running = || {
        [
            col("i").filter(kept()).cum_sum(false).alias("sums"),
            col("c")
                .filter(kept())
                .cum_sum(true)
                .alias("float sums reversed"),
            col("c").drop_nulls().cum_max(false).alias("running max"),
            col("i")
                .head(Some(3))
                .cum_prod(false)
                .alias("products of a head"),
            col("i").filter(kept()).cum_count(false).alias("counts"),
            col("c")
                .filter(kept())
                .fill_null_with_strategy(FillNullStrategy::Forward(None))
                .alias("filled"),
            col("i")
                .filter(kept())
                .cum_min(true)
                .cum_sum(false)
                .alias("sums of minima"),
        ]
    };
    assert_gpu_eq(
        "running functions of filtered rows, in lists per group",
        frame().group_by_stable([col("g")]).agg(running()),
    );
    assert_gpu_eq(
        "running functions of filtered rows, in lists over the frame",
        frame().select(running().map(|e| e.implode(true))),
    );
    let aggregated = || {
        let [sums, floats, max, products, counts, filled, minima] = running();
        [
            sums.last(),
            floats.first(),
            max.max(),
            products.sum(),
            counts.last(),
            filled.last(),
            minima.sum(),
        ]
    };
    assert_per_group_and_over_the_frame("aggregations of running functions", aggregated);
}

/// Other functions of the rows a filter, slice or `drop_nulls` keeps per
/// group (`x.filter(p).shift(1)`, `x.drop_nulls().diff().sum()`): each
/// group's kept values listed, the functions computed within each list;
/// over the whole frame, aggregated, of its one list.
#[test]
fn functions_of_filtered_rows_per_group_match_the_cpu() {
    let kept = || col("i").gt(lit(2)).or(col("c").lt(lit(0.0)));
    let g = || frame().group_by_stable([col("g")]);
    assert_gpu_eq(
        "lists per group",
        g().agg([
            col("i").filter(kept()).shift(lit(1)).alias("shifted"),
            col("c")
                .filter(kept())
                .rank(Default::default(), None)
                .alias("ranks"),
            col("i")
                .drop_nulls()
                .diff(lit(1), Default::default())
                .alias("differences"),
            (col("i").head(Some(3)).shift(lit(-1)) * lit(2)).alias("shifted head, doubled"),
            col("i").filter(kept()).reverse().alias("reversed"),
            col("c")
                .filter(kept())
                .sort(SortOptions::default().with_order_descending(true))
                .alias("sorted"),
        ]),
    );
    assert_gpu_eq(
        "aggregated per group",
        g().agg([
            col("i")
                .filter(kept())
                .diff(lit(1), Default::default())
                .sum()
                .alias("sum of differences"),
            col("i")
                .filter(kept())
                .shift(lit(1))
                .max()
                .alias("greatest shifted"),
            col("c")
                .drop_nulls()
                .shift(lit(1))
                .count()
                .alias("valid after a shift"),
            col("i")
                .filter(kept())
                .shift(lit(1))
                .n_unique()
                .alias("distinct shifted"),
            col("c")
                .filter(kept())
                .sort(Default::default())
                .last()
                .alias("last sorted"),
        ]),
    );
    assert_gpu_eq(
        "no rows",
        frame()
            .filter(col("i").gt(lit(100)))
            .group_by([col("g")])
            .agg([col("i").filter(kept()).shift(lit(1))]),
    );
    assert_gpu_eq(
        "aggregated over the whole frame",
        frame().select([
            col("i")
                .filter(kept())
                .diff(lit(1), Default::default())
                .max()
                .alias("greatest difference"),
            col("i")
                .drop_nulls()
                .shift(lit(1))
                .sum()
                .alias("sum shifted"),
            col("c").max(),
        ]),
    );
    // Floats added, windows, and such a value beside each row's stay with
    // Polars.
    for (lf, reason) in [
        (
            g().agg([col("c")
                .filter(kept())
                .diff(lit(1), Default::default())
                .sum()]),
            "sums, means, spreads, medians or quantiles of floats",
        ),
        (
            frame().select([col("i")
                .filter(kept())
                .shift(lit(1))
                .sum()
                .over([col("g")])
                .unwrap()]),
            "a function of the rows a filter keeps",
        ),
        (
            frame().with_columns([col("i")
                .filter(kept())
                .shift(lit(1))
                .sum()
                .alias("sum shifted")]),
            "inside another aggregation or beside values of each row",
        ),
    ] {
        assert_cpu_answer_with_reason(lf, reason);
    }
}

/// The functions Polars plans as functions that aggregate (`any`, `all`,
/// `has_nulls`, `is_empty`, `null_count`, `quantile`, `arg_min`) of a
/// filter's or a slice's rows, directly, through elementwise functions and
/// through other functions of the rows kept (`x.filter(p).shift(1).all()`),
/// per group, over the whole frame and (but quantiles and places) in
/// windows. A quantile is taken of each group's kept values as a list:
/// Polars places it counting the values' nulls, which the rows dropped
/// must not add to; so is a place among the kept rows.
#[test]
fn functions_that_aggregate_take_the_rows_a_filter_keeps() {
    let kept = || col("i").gt(lit(2)).or(col("c").lt(lit(0.0)));
    let positive = || col("c").gt(lit(0.0));
    let nearest = QuantileMethod::Nearest;
    let direct = || {
        [
            positive().filter(kept()).all(false).alias("all"),
            positive().filter(kept()).any(true).alias("any"),
            col("c").filter(kept()).has_nulls().alias("has nulls"),
            col("i").filter(kept()).is_empty(true).alias("empty"),
            col("i").filter(kept()).null_count().alias("nulls"),
            col("i")
                .head(Some(2))
                .null_count()
                .alias("nulls of the head"),
            (col("i").filter(kept()) * lit(3))
                .quantile(lit(0.4), QuantileMethod::Linear)
                .alias("quantile of thrice"),
            col("i")
                .drop_nulls()
                .quantile(lit(0.5), QuantileMethod::Midpoint)
                .alias("midpoint"),
        ]
    };
    assert_per_group_and_over_the_frame("of the kept rows", direct);
    // (Quantiles, of lists of the kept values, stay with Polars in
    // windows.)
    assert_gpu_eq(
        "of the kept rows in windows",
        frame().select(
            direct()[..6]
                .iter()
                .map(|e| e.clone().over([col("g")]).unwrap())
                .collect::<Vec<_>>(),
        ),
    );
    assert_per_group_and_over_the_frame("of functions of the kept rows", || {
        [
            positive()
                .filter(kept())
                .shift(lit(1))
                .all(false)
                .alias("all shifted"),
            col("i")
                .drop_nulls()
                .diff(lit(1), Default::default())
                .gt(lit(0))
                .any(true)
                .alias("any rise"),
            col("i")
                .head(Some(3))
                .is_not_null()
                .shift(lit(2))
                .all(true)
                .alias("all of the head"),
            col("i")
                .filter(kept())
                .shift(lit(1))
                .null_count()
                .alias("nulls shifted"),
            col("i")
                .filter(kept())
                .diff(lit(1), Default::default())
                .quantile(lit(0.5), nearest)
                .alias("median rise"),
            col("i")
                .filter(kept())
                .arg_min()
                .alias("place of the least"),
            col("c")
                .drop_nulls()
                .arg_max()
                .alias("place of the greatest"),
            col("i")
                .head(Some(3))
                .shift(lit(1))
                .arg_max()
                .alias("place of the greatest shifted"),
        ]
    });
}

/// A select whose expressions keep the same rows, through a filter or a
/// slice under elementwise functions (`x.filter(p) * 2`, beside a whole
/// frame's aggregation and the frame's length, which Polars takes of every
/// row), under running functions that skip nulls or under any functions of
/// the rows kept (`x.filter(p).shift(1)`, run after the filter), and
/// aggregations repeated on each row kept.
#[test]
fn selects_of_filters_under_functions_keep_the_rows_of_their_predicate() {
    let kept = || col("c").gt(lit(0.0));
    let cases = [
        (
            "under elementwise functions",
            frame().select([
                (col("i").filter(kept()) * lit(2)).alias("twice"),
                (col("c").filter(kept()) - col("c").sum()).alias("less the sum"),
                (col("i").filter(kept()) + len().cast(DataType::Int64)).alias("plus rows"),
                col("g").filter(kept()),
            ]),
        ),
        (
            "under running functions",
            frame().select([
                col("c").filter(kept()).cum_sum(false).alias("sums"),
                col("i").filter(kept()).cum_max(true).alias("maxima"),
                col("i").max().alias("greatest"),
            ]),
        ),
        (
            "slices under functions",
            frame().select([
                (col("c").slice(lit(2i64), lit(5u64)) / lit(4.0)).alias("quarters"),
                col("i")
                    .slice(lit(2i64), lit(5u64))
                    .cum_count(false)
                    .alias("counts"),
            ]),
        ),
        (
            "under functions of the rows kept in their order",
            frame().select([
                col("i").filter(kept()).shift(lit(1)).alias("before"),
                col("c")
                    .filter(kept())
                    .diff(lit(1), Default::default())
                    .alias("change"),
                (col("i").filter(kept()).reverse() * lit(2)).alias("reversed"),
                col("g").filter(kept()),
                col("c").sum(),
            ]),
        ),
        (
            "ranks of the valid values, a slice shifted",
            frame().select([
                col("c")
                    .drop_nulls()
                    .rank(RankOptions::default(), None)
                    .alias("rank"),
                col("i").drop_nulls().sum(),
            ]),
        ),
        (
            "a slice shifted back",
            frame().select([(col("i").head(Some(4)).shift(lit(-1)) * lit(2)).alias("next")]),
        ),
        (
            // A window of an aggregation of a filter is as long as the
            // frame, not as the rows kept (fuzz seed 2321, before this
            // landed: no row).
            "a window of an aggregation of every other row",
            frame().select([col("i")
                .gather_every(2, 2)
                .min()
                .over(vec![lit(-2.0f64)])
                .unwrap()
                .alias("window")]),
        ),
        (
            "keeping no row",
            frame().select([
                (col("c").filter(col("i").gt(lit(100))) * lit(2.0)).alias("none"),
                col("i").min(),
            ]),
        ),
    ];
    for (name, query) in cases {
        assert_gpu_eq(name, query);
    }
}

/// An aggregation beside a filter or slice that an expression reads its
/// columns through takes its own rows: its own filter kept (on the
/// device), or a filter under a function that reads other rows
/// (`x.filter(q).shift(1).last()`) left to Polars, never read as the
/// unfiltered values.
#[test]
fn aggregations_beside_a_filter_take_their_own_rows() {
    let (p, q) = (|| col("i").gt(lit(2)), || col("i").lt(lit(7)));
    assert_per_group_and_over_the_frame("a filtered maximum beside a filter", || {
        [(col("i").filter(p()) + col("i").filter(q()).max())
            .sum()
            .alias("sum")]
    });
    assert_gpu_eq(
        "a filtered maximum beside a filter, in a select",
        frame().select([(col("i").filter(p()) - col("i").filter(q()).max()).alias("less")]),
    );
    let shifted = || col("i").filter(q()).shift(lit(1)).last();
    // (The shift of the filter's rows is a function of their list, one per
    // group or for the frame, here beside each row's value.)
    for query in [
        frame().select([(col("i").filter(p()) + shifted()).alias("plus")]),
        frame().select([(col("i").filter(p()) + shifted()).sum().alias("sum")]),
        frame()
            .group_by_stable([col("g")])
            .agg([(col("i").filter(p()) + shifted()).sum().alias("sum")]),
    ] {
        assert_cpu_answer_with_reason(query, "inside another aggregation or beside values");
    }
    assert_cpu_answer_with_reason(
        frame().select([(col("i").filter(p()).cum_sum(false) + shifted()).alias("sums")]),
        "filter inside an expression",
    );
}

/// `arg_unique`: the places (u32, in the frame or the group) of the rows
/// where each value first comes, null a value too, as the rows that
/// `is_first_distinct` keeps: in a select beside others kept alike, per
/// group as lists and inside aggregations, and under functions; of floats
/// it stays with Polars.
#[test]
fn places_of_first_values_match_the_cpu() {
    let frame = || {
        df!(
            "g" => ["a", "a", "b", "b", "b", "c", "a", "a"],
            "i" => [Some(10i64), Some(11), None, Some(13), None, Some(15), Some(10), None],
            "s" => ["p", "q", "r", "p", "q", "r", "s", "p"],
        )
        .unwrap()
        .lazy()
    };
    for (name, query) in [
        ("over the frame", frame().select([col("i").arg_unique()])),
        (
            "beside the rows kept alike and a sum",
            frame().select([
                col("s").arg_unique().alias("at"),
                col("g").filter(col("s").is_first_distinct()),
                col("i").sum(),
            ]),
        ),
        (
            "per group, as lists",
            frame()
                .group_by_stable([col("g")])
                .agg([col("i").arg_unique(), col("s").arg_unique().alias("s at")]),
        ),
        (
            "per group, aggregated",
            frame().group_by_stable([col("g")]).agg([
                col("i").arg_unique().len().alias("distinct"),
                col("s").arg_unique().last().alias("last first"),
            ]),
        ),
        (
            "shifted",
            frame().select([col("s").arg_unique().shift(lit(1))]),
        ),
    ] {
        assert_gpu_eq(name, query);
    }
    assert_cpu_answer_with_reason(
        frame().select([col("i").cast(DataType::Float64).arg_unique()]),
        "arg_unique of floats",
    );
}

/// `arg_where`: the places (u32, in the frame or the group) of the rows
/// where a condition is true (not null), as a filter keeps them: over the
/// frame, beside rows kept alike, per group as lists and inside
/// aggregations, and under functions.
#[test]
fn places_where_a_condition_holds_match_the_cpu() {
    let frame = || {
        df!(
            "g" => ["a", "a", "b", "b", "b", "c", "a", "a"],
            "i" => [Some(10i64), Some(11), None, Some(13), None, Some(15), Some(10), None],
        )
        .unwrap()
        .lazy()
    };
    let big = || col("i").gt(lit(10));
    for (name, query) in [
        ("over the frame", frame().select([arg_where(big())])),
        (
            "beside the rows kept alike and a sum",
            frame().select([
                arg_where(big()).alias("at"),
                col("g").filter(big()),
                col("i").sum(),
            ]),
        ),
        (
            "per group, as lists",
            frame()
                .group_by_stable([col("g")])
                .agg([arg_where(big()).alias("at")]),
        ),
        (
            "per group, aggregated",
            frame().group_by_stable([col("g")]).agg([
                arg_where(big()).len().alias("n"),
                arg_where(col("i").is_null()).first().alias("first null"),
            ]),
        ),
        (
            "shifted, of none",
            frame().select([arg_where(lit(false).and(big())).shift(lit(1)).alias("none")]),
        ),
    ] {
        assert_gpu_eq(name, query);
    }
}

/// A select of filters and slices that keep different rows (`select(
/// x.head(3), y.tail(3))`): each set of rows its own filter, side by side,
/// where they keep as many rows; where they keep different numbers of rows
/// Polars answers (here, its error).
#[test]
fn selects_of_filters_keeping_different_rows_match_the_cpu() {
    let cases = [
        (
            "a head and a tail",
            frame().select([col("i").head(Some(3)), col("g").tail(Some(3)).alias("tail")]),
        ),
        (
            "slices and filters of as many rows, a shift and a sum beside",
            frame().select([
                col("c").filter(col("i").gt(lit(6))).alias("high"),
                col("g").filter(col("i").lt(lit(2))).alias("low"),
                col("i")
                    .slice(lit(1i64), lit(2u64))
                    .shift(lit(1))
                    .alias("shifted"),
                col("c").sum(),
            ]),
        ),
        (
            "heads of no rows",
            frame()
                .filter(lit(false))
                .select([col("i").head(Some(3)), col("g").tail(Some(3)).alias("tail")]),
        ),
    ];
    for (name, query) in cases {
        assert_gpu_eq(name, query);
    }
    assert_cpu_error(
        frame().select([col("i").filter(col("i").gt(lit(6))), col("g").head(Some(3))]),
    );
}

/// Filters by a literal (Polars' mask of one value): every row kept, or
/// none, in a select, under functions, aggregated per group and over the
/// frame, listed per group.
#[test]
fn filters_by_a_literal_keep_every_row_or_none() {
    assert_per_group_and_over_the_frame("aggregations of literal filters", || {
        [
            col("i").filter(lit(true)).sum().alias("all"),
            col("c").filter(lit(false)).max().alias("none"),
            col("i").filter(lit(false)).count().alias("counted"),
        ]
    });
    for (name, lf) in [
        ("kept", frame().select([col("i").filter(lit(true))])),
        ("dropped", frame().select([col("c").filter(lit(false))])),
        (
            "under functions",
            frame().select([col("c").filter(lit(true)) * lit(2.0)]),
        ),
        (
            "listed per group",
            frame()
                .group_by_stable([col("g")])
                .agg([col("i").filter(lit(true)), col("c").filter(lit(false))]),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
}

/// The distinct values of the rows a filter keeps (`drop_nulls().unique()`,
/// `filter(p).unique()`), or a slice of them (`drop_nulls().head(3)`), or
/// the valid ones of distinct values (`unique().drop_nulls()`), sorted
/// after or not, or a slice of distinct values (`unique_stable().head(2)`): the select of the values kept, then their distinct rows,
/// in the order of their first rows where `unique` keeps it (the zeros of
/// floats one value, the first kept), or the slice, then the sort.
#[test]
fn distinct_values_and_slices_of_the_rows_kept_match_the_cpu() {
    for (name, lf) in [
        (
            "integers not null",
            frame().select([col("i").drop_nulls().unique_stable()]),
        ),
        (
            "floats not null",
            frame().select([col("c").drop_nulls().unique_stable()]),
        ),
        (
            "texts by a predicate",
            frame().select([col("g")
                .filter(col("i").gt(lit(2i64)))
                .unique_stable()
                .alias("kept")]),
        ),
        (
            "an expression's values sliced",
            frame().select([(col("i") % lit(3i64)).slice(2, 6).unique_stable()]),
        ),
        // (In an order of its own: sorted after, as Polars' is.)
        (
            "in no order, sorted",
            frame()
                .select([col("i").drop_nulls().unique()])
                .sort(["i"], Default::default()),
        ),
        // Slices of them, from the start or the end, to the end, empty.
        (
            "the first values not null",
            frame().select([col("c").drop_nulls().head(Some(3))]),
        ),
        (
            "the last values not null",
            frame().select([(col("i") * lit(2i64)).drop_nulls().tail(Some(2))]),
        ),
        (
            "a slice of the rows kept",
            frame().select([col("g").filter(col("c").gt(lit(0.0))).slice(1, 2)]),
        ),
        (
            "a slice from past the start",
            frame().select([col("i").filter(col("c").lt(lit(1.0))).slice(-20, 3)]),
        ),
        (
            "a slice to the end",
            frame().select([col("c").drop_nulls().slice(lit(2), lit(NULL)).alias("rest")]),
        ),
        (
            "none",
            frame().select([col("i").drop_nulls().head(Some(0))]),
        ),
        // The valid ones (not NaN) of distinct values: the distinct ones of
        // the valid values.
        (
            "distinct values, then the valid ones",
            frame().select([col("g").unique_stable().drop_nulls()]),
        ),
        (
            "distinct floats, then those not NaN",
            frame().select([col("c").unique_stable().drop_nans()]),
        ),
        (
            "distinct values of an expression, then the valid ones, of no rows",
            frame()
                .filter(col("i").gt(lit(1000i64)))
                .select([(col("i") % lit(3i64)).unique_stable().drop_nulls()]),
        ),
        // Sorted after, each way.
        (
            "distinct valid texts sorted",
            frame().select([col("g").drop_nulls().unique().sort(Default::default())]),
        ),
        (
            "valid distinct integers sorted down, nulls last",
            frame().select([col("i").unique().drop_nulls().sort(SortOptions {
                descending: true,
                nulls_last: true,
                ..Default::default()
            })]),
        ),
        // Slices of distinct values in the order they first come.
        (
            "the first distinct values",
            frame().select([col("g").unique_stable().head(Some(2))]),
        ),
        (
            "the last distinct values of an expression",
            frame().select([(col("i") % lit(3i64)).unique_stable().tail(Some(2))]),
        ),
        (
            "a slice of the distinct values kept",
            frame().select([col("c").drop_nulls().unique_stable().slice(1, 3)]),
        ),
        (
            "a slice of the rows kept, sorted",
            frame().select([col("i")
                .filter(col("c").gt(lit(0.0)))
                .head(Some(3))
                .sort(Default::default())]),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
    // Of floats, sorted, they stay with Polars (which of two equal zeros
    // it keeps is its own).
    assert_cpu_answer_with_reason(
        frame().select([col("c").drop_nulls().unique().sort(Default::default())]),
        "a sort of distinct floats kept by a filter",
    );
}
