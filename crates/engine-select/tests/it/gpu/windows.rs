//! Window expressions (`over`) on the device: mapped to the rows, by `join` (a list of the group's values on each row) and by `explode` (each partition's values in turn); windows inside windows; windows of constants among the rows.

use super::*;

#[test]
fn window_aggregations_over_partitions_match_the_cpu() {
    let frame = || {
        df!(
            "g" => [Some("a"), Some("b"), None, Some("a"), Some("c"), Some("b"), None, Some("a"), Some("b")],
            "h" => [Some(1i32), Some(1), Some(2), Some(2), Some(1), Some(1), Some(2), Some(1), None],
            "x" => [Some(1.5f64), None, Some(-2.0), Some(4.0), Some(f64::NAN), Some(3.0), Some(0.5), Some(-1.0), Some(2.0)],
            "i" => [Some(5i64), Some(-3), None, Some(7), Some(1), Some(2), Some(9), None, Some(4)],
            "b" => [Some(true), Some(false), None, Some(true), Some(true), Some(false), Some(false), None, Some(true)],
        )
        .unwrap()
        .lazy()
    };
    assert_gpu_eq(
        "windows in with_columns",
        frame().with_columns([
            col("i").sum().over([col("g")]).unwrap().alias("sum by g"),
            col("x")
                .mean()
                .over([col("g"), col("h")])
                .unwrap()
                .alias("mean by g, h"),
            (col("i") - col("i").min().over([col("h")]).unwrap()).alias("i minus min by h"),
            len().over([col("g")]).unwrap().alias("rows by g"),
            col("i")
                .count()
                .over([col("b")])
                .unwrap()
                .alias("count by b"),
            (col("x") / col("x").sum().over([col("g")]).unwrap() + col("x").mean()).alias("share"),
            col("i").over([col("g")]).unwrap().alias("elementwise"),
            (col("i") - col("i").mean())
                .abs()
                .max()
                .over([col("h")])
                .unwrap()
                .alias("spread"),
            col("x")
                .first()
                .over([col("x")])
                .unwrap()
                .alias("first by a float"),
        ]),
    );
    assert_gpu_eq(
        "a window in a filter and a select",
        frame()
            .filter(col("i").gt_eq(col("i").median().over([col("g")]).unwrap()))
            .select([
                col("g"),
                col("i"),
                col("i").n_unique().over([col("h")]).unwrap().alias("n"),
            ]),
    );
    assert_gpu_eq(
        "windows partitioned by expressions",
        frame().with_columns([
            col("i")
                .sum()
                .over([col("i") % lit(2i64)])
                .unwrap()
                .alias("by parity"),
            len()
                .over([col("g").str().to_uppercase(), col("h")])
                .unwrap()
                .alias("by upper case and h"),
        ]),
    );
    assert_gpu_eq(
        "the sum of a window",
        frame().select([col("i").sum().over([col("g")]).unwrap().sum()]),
    );
    assert_gpu_eq(
        "a whole-frame sum beside a window: repeated on every row",
        frame().select([
            col("i").sum(),
            col("i").sum().over([col("g")]).unwrap().alias("w"),
        ]),
    );
    assert_gpu_eq(
        "a whole-frame sum inside a window",
        frame().select([(col("i") + col("i").sum()).over([col("g")]).unwrap()]),
    );
    // What the device does not compute falls back with its reason, and the
    // CPU's answer.
    let cases = [
        (
            vec![
                col("i")
                    .sum()
                    .over([col("g")])
                    .unwrap()
                    .max()
                    .over_with_options(
                        Some([col("h")]),
                        Some(([col("x")], SortOptions::default())),
                        WindowMapping::GroupsToRows,
                    )
                    .unwrap(),
            ],
            "a window inside the window",
        ),
        (
            vec![col("i").sum().over([col("i").sum()]).unwrap()],
            "a window partitioned or ordered by",
        ),
    ];
    for (exprs, reason) in cases {
        assert_cpu_answer_with_reason(frame().select(exprs), reason);
    }
}

#[test]
fn windows_mapped_by_join_give_each_row_its_groups_list() {
    let frame = small_groups();
    let joined = |e: Expr, by: Vec<Expr>| {
        e.over_with_options(Some(by), None, WindowMapping::Join)
            .unwrap()
    };
    for (name, lf) in [
        (
            "a column's values per group (a null key's group too)",
            frame
                .clone()
                .select([joined(col("x"), vec![col("g")]).alias("w")]),
        ),
        (
            "values computed per group of two keys, beside the columns",
            frame
                .clone()
                .with_columns([joined(col("x") * lit(2), vec![col("g"), col("h")]).alias("w")]),
        ),
        (
            "texts per group",
            frame
                .clone()
                .select([joined(col("s"), vec![col("h")]).alias("w")]),
        ),
        (
            "shifted, summed, sorted and ranked within each group",
            frame.clone().select([
                joined(col("x").shift(lit(1)), vec![col("h")]).alias("shifted"),
                joined(col("x").cum_sum(false), vec![col("g")]).alias("running"),
                joined(col("x").sort(SortOptions::default()), vec![col("h")]).alias("sorted"),
                joined(col("x").rank(Default::default(), None), vec![col("h")]).alias("ranks"),
            ]),
        ),
        (
            "floats, and a group's aggregation inside",
            frame.clone().select([
                joined(col("x").cast(DataType::Float64) / lit(3.0), vec![col("h")]).alias("w"),
                joined(col("x") - col("x").mean(), vec![col("h")]).alias("centred"),
            ]),
        ),
        (
            "the values a filter keeps per group",
            frame
                .clone()
                .select([joined(col("x").filter(col("x").gt(lit(2))), vec![col("g")]).alias("w")]),
        ),
        (
            "an empty frame",
            frame
                .clone()
                .filter(col("x").gt(lit(100)))
                .select([joined(col("x"), vec![col("g")]).alias("w")]),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
    // One value per group (whose empty frame Polars gives lists) and an
    // order stay with Polars.
    for lf in [
        frame
            .clone()
            .select([joined(col("x").sum(), vec![col("g")]).alias("w")]),
        frame.clone().select([col("x")
            .over_with_options(
                Some([col("g")]),
                Some(([col("x")], Default::default())),
                WindowMapping::Join,
            )
            .unwrap()
            .alias("w")]),
    ] {
        assert_cpu_answer_with_reason(
            lf,
            "a window with mapping_strategy=\"join\" of one value per group, or ordered,",
        );
    }
}

#[test]
fn windows_mapped_by_explode_give_each_partitions_values_in_turn() {
    let frame = small_groups();
    let exploded = |e: Expr, by: Vec<Expr>| {
        e.over_with_options(Some(by), None, WindowMapping::Explode)
            .unwrap()
    };
    let descending = SortMultipleOptions::default()
        .with_order_descending(true)
        .with_maintain_order(true);
    for (name, lf) in [
        (
            "a column's values partition by partition (a null key's too)",
            frame
                .clone()
                .select([exploded(col("x"), vec![col("g")]).alias("w")]),
        ),
        (
            "each partition's three greatest (the user guide's top-k), first and last texts",
            frame.clone().select([
                exploded(
                    col("s")
                        .sort_by([col("x")], descending.clone())
                        .head(Some(3)),
                    vec![col("h")],
                ),
                exploded(
                    col("x")
                        .sort_by([col("x")], descending.clone())
                        .head(Some(3)),
                    vec![col("h")],
                ),
                exploded(col("s").head(Some(3)), vec![col("h")]).alias("first_s"),
                exploded(col("s").reverse().head(Some(3)), vec![col("h")]).alias("last_s"),
            ]),
        ),
        (
            "values computed within partitions of two keys, named as a key",
            frame.clone().select([
                exploded(col("x").cum_sum(false), vec![col("g"), col("h")]).alias("running"),
                exploded(col("x").shift(lit(1)) * lit(2), vec![col("g"), col("h")]).alias("g"),
            ]),
        ),
        (
            "one value per partition",
            frame.clone().select([
                exploded(col("x").sum(), vec![col("h")]).alias("total"),
                exploded(col("s").max(), vec![col("h")]).alias("last"),
            ]),
        ),
        (
            "the values a filter keeps (an empty result one null row)",
            frame.clone().select([
                exploded(col("x").filter(col("x").gt(lit(3))), vec![col("g")]).alias("w"),
            ]),
        ),
        (
            "a slice from the end, of floats",
            frame.clone().select([exploded(
                col("x").cast(DataType::Float64).slice(lit(-2), lit(2)),
                vec![col("g")],
            )
            .alias("w")]),
        ),
        (
            "an empty frame",
            frame
                .clone()
                .filter(col("x").gt(lit(100)))
                .select([exploded(col("x"), vec![col("g")]).alias("w")]),
        ),
        (
            "beside columns of the frame sorted by the partition (Polars' own test's query)",
            frame.clone().sort(["h"], Default::default()).select([
                col("h"),
                exploded(col("x").shift(lit(1)), vec![col("h")]).alias("shifted"),
                // (A fill of another type: f64, as Polars' engine gives.)
                exploded(
                    col("x").shift_and_fill(lit(1), lit(-1.5f32)),
                    vec![col("h")],
                )
                .alias("filled"),
                (col("x") * lit(2)).alias("twice"),
            ]),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
    // Windows whose values per partition may not line up, ordered ones,
    // explodes beside columns of other lengths or inside expressions stay
    // with Polars.
    for (lf, reason) in [
        (
            frame.clone().select([
                exploded(col("x").sum(), vec![col("g")]).alias("a"),
                exploded(col("x").head(Some(1)), vec![col("g")]).alias("b"),
            ]),
            "windows mapped by explode that may give different numbers of values",
        ),
        (
            frame.clone().select([
                exploded(col("x"), vec![col("g")]).alias("a"),
                exploded(col("x"), vec![col("h")]).alias("b"),
            ]),
            "windows mapped by explode over different partitions",
        ),
        (
            frame.clone().select([col("x")
                .over_with_options(
                    Some([col("g")]),
                    Some(([col("x")], Default::default())),
                    WindowMapping::Explode,
                )
                .unwrap()
                .alias("w")]),
            "a window mapped by explode with an order",
        ),
        (
            frame.clone().select([
                col("g").first(),
                exploded(col("x"), vec![col("g")]).alias("w"),
            ]),
            "a window with mapping_strategy=\"explode\" beside other expressions",
        ),
        (
            frame.clone().select([
                col("x").head(Some(3)),
                exploded(col("x").head(Some(1)), vec![col("g")]).alias("w"),
            ]),
            "a window with mapping_strategy=\"explode\" beside other expressions",
        ),
        (
            frame
                .clone()
                .with_columns([exploded(col("x"), vec![col("g")]).alias("w")]),
            "a window with mapping_strategy=\"explode\" inside an expression or in \
             with_columns",
        ),
    ] {
        assert_cpu_answer_with_reason(lf, reason);
    }
}

#[test]
fn row_wise_functions_over_windows_are_the_functions() {
    // A function of each row's own values gives each row the same over
    // any groups, texts too; a literal's window and one keyed by a
    // computed key are windows still.
    assert_gpu_eq(
        "row-wise windows",
        groups().with_columns([
            col("s").over([col("g")]).unwrap().alias("text over g"),
            (col("v") * lit(2i64))
                .over([col("g"), col("h")])
                .unwrap()
                .alias("double over g, h"),
            col("s")
                .str()
                .to_uppercase()
                .over_with_options(
                    Some([col("h")]),
                    Some(([col("x")], SortOptions::default())),
                    WindowMapping::GroupsToRows,
                )
                .unwrap()
                .alias("upper, ordered"),
            col("x")
                .over([col("v") % lit(3i64)])
                .unwrap()
                .alias("by a computed key"),
        ]),
    );
}

#[test]
fn casts_of_aggregations_chosen_in_windows_match_the_cpu() {
    // A part of a choice that aggregates or reads other rows is the
    // window's, through a cast of it (as text too: fuzz seed 5081, case
    // 102, `shift_and_fill` of texts by `len()` in an ordered window).
    let frame = groups();
    let ordered = |e: Expr| {
        e.over_with_options(
            Some([col("g")]),
            Some(([col("v")], SortOptions::default())),
            WindowMapping::GroupsToRows,
        )
        .unwrap()
    };
    assert_gpu_eq(
        "casts of aggregations in windows",
        frame.select([
            ordered(col("s").shift_and_fill(lit(1i64), len())).alias("filled by len"),
            col("s")
                .fill_null(col("v").count().cast(DataType::String))
                .over([col("h")])
                .unwrap()
                .alias("filled by count"),
            when(col("x").gt(lit(0.0)))
                .then(col("v").max().cast(DataType::String))
                .otherwise(col("s"))
                .over([col("g")])
                .unwrap()
                .alias("max as text"),
            when(col("x").gt(lit(0.0)))
                .then(col("v").sum().cast(DataType::Float64))
                .otherwise(col("x"))
                .over([col("g")])
                .unwrap()
                .alias("sum as f64"),
        ]),
    );
}

/// Windows inside a window's function, which Polars computes within each of
/// the outer window's partitions: partitioned by its keys too, computed
/// first. Ordered inner windows, keys of expressions and literals, several
/// inside one, in filters; a window inside one inside another, and inner
/// windows of an ordered outer one, stay with Polars.
#[test]
fn windows_inside_windows_match_the_cpu() {
    let frame = || {
        df!(
            "g" => [Some("a"), Some("b"), None, Some("a"), Some("c"), Some("b"), None, Some("a"), Some("b")],
            "k" => [Some(1i32), Some(1), Some(2), Some(2), Some(1), Some(1), Some(2), Some(1), None],
            "x" => [Some(1.5f64), None, Some(-2.0), Some(4.0), Some(f64::NAN), Some(3.0), Some(0.5), Some(-1.0), Some(2.0)],
            "i" => [Some(5i64), Some(-3), None, Some(7), Some(1), Some(2), Some(9), None, Some(4)],
        )
        .unwrap()
        .lazy()
    };
    let by = |e: Expr, key: &str| e.over([col(key)]).unwrap();
    let ordered = by_order(col("x"));
    assert_gpu_eq(
        "windows inside windows",
        frame().with_columns([
            by((col("i") - by(col("i").mean(), "g")).abs().max(), "k").alias("spread"),
            by(by(col("i").cum_sum(false), "g").sum(), "k").alias("running"),
            by(
                by(col("i").rank(RankOptions::default(), None), "g").max(),
                "k",
            )
            .alias("rank"),
            by(by(col("i").sum(), "g").first(), "g").alias("same keys"),
            by(
                (col("x") * by(col("i").mean(), "g") + by(col("x").min(), "k")).sum(),
                "k",
            )
            .alias("two inside"),
            by(ordered(col("i").cum_sum(false), "g").max(), "k").alias("ordered inside"),
            by(col("i").sum().over([lit(1)]).unwrap().max(), "g").alias("by a literal"),
            by(
                (col("x") * col("i").mean().over([col("i") % lit(2i64)]).unwrap()).sum(),
                "k",
            )
            .alias("keys of an expression"),
        ]),
    );
    assert_gpu_eq(
        "a filter by a window inside a window",
        frame().filter(by((col("i") - by(col("i").mean(), "g")).max(), "k").gt(lit(1.0))),
    );
    assert_cpu_answer_with_reason(
        frame().select([by(by(by(col("i").sum(), "g").max(), "k").min(), "g")]),
        "a window inside the window's function",
    );
}

/// Windows of a constant among operands of each row (`lit(0.0).over(g) -
/// x`, a choice, a filter's predicate, a text made of it): the constant,
/// which Polars holds as one value and takes by its scalar kernels (`0.0 -
/// x` is `-x`, -0.0 where `x` is 0.0), literals, their casts, arithmetic
/// and aggregations (`lit(1).sum()` is 1 in each partition as over the
/// frame), over keys of any type, frames of no rows and one. Alone (a
/// column of that value repeated), under an aggregation or a function of
/// the rows in order, and windows of functions of the rows in order of a
/// literal (which Polars holds as a column of their own) fall back.
#[test]
fn windows_of_constants_among_the_rows_are_the_constants() {
    let frame = groups().with_columns([col("x").cast(DataType::Float32).alias("f")]);
    let constants = [
        lit(0.0),
        lit(-0.0),
        lit(2i64),
        lit(0.0).sum(),
        lit(2.5).count(),
        lit(3i64).mean(),
        lit(3.0).std(1),
        lit(NULL).cast(DataType::Float64),
        when(lit(true)).then(lit(0.0)).otherwise(lit(1.0)),
        lit(0.0).abs().cast(DataType::Float32),
    ];
    for (i, constant) in constants.into_iter().enumerate() {
        let window = |keys: Vec<Expr>| constant.clone().over(keys).unwrap();
        let rows = |w: Expr| {
            vec![
                (w.clone() - col("x")).alias("less x"),
                (col("f") + w.clone()).alias("plus f"),
                when(col("v").gt(lit(0i64)))
                    .then(w.clone())
                    .otherwise(col("x"))
                    .alias("chosen"),
                (w * col("v")).alias("times v"),
            ]
        };
        for keys in [vec![col("g")], vec![col("h"), col("s")], vec![col("x")]] {
            let name = format!("constant {i} over {keys:?}");
            assert_gpu_eq(&name, frame.clone().select(rows(window(keys.clone()))));
            assert_gpu_eq(
                &name,
                frame.clone().with_columns(rows(window(keys.clone()))),
            );
            assert_gpu_eq(
                &format!("{name} in a filter"),
                frame.clone().filter(col("x").gt_eq(window(keys.clone()))),
            );
            for (what, sliced) in [("no rows", 0), ("one row", 1)] {
                assert_gpu_eq(
                    &format!("{name}, {what}"),
                    frame
                        .clone()
                        .slice(3, sliced)
                        .select(rows(window(keys.clone()))),
                );
            }
        }
    }
    // Over partitions too (a sum of a literal is the literal, not a sum
    // over the partitions).
    let lf = groups().with_columns([
        (lit(1i64).sum().over([col("g")]).unwrap() + col("v")).alias("sum"),
        (lit(2.5).count().over([col("g")]).unwrap() - col("x")).alias("count"),
    ]);
    super::partitioned::assert_partitioned_split("over partitions", lf, false, true);
    let text = lit("x").over([col("g")]).unwrap();
    assert_gpu_eq(
        "a text literal's window in a text",
        groups().select([concat_str(
            [text.cast(DataType::String), col("s")],
            "-",
            false,
        )]),
    );
    let w = || lit(1i64).over([col("g")]).unwrap();
    let reason = "a window of the constant `1`";
    assert_cpu_answer_with_reason(groups().with_columns([w().alias("w")]), reason);
    assert_cpu_answer_with_reason(groups().select([(w() - col("v")).sum()]), reason);
    assert_cpu_answer_with_reason(groups().select([w().cum_sum(false) + col("v")]), reason);
    let shifted = lit(1i64).shift(lit(0)).over([col("g")]).unwrap();
    assert_cpu_answer_with_reason(
        groups().select([shifted - col("v")]),
        "a window of the constant `1.shift(0)`",
    );
}

/// A window's expression `e` ordered by `order` within partitions by `key`.
fn by_order(order: Expr) -> impl Fn(Expr, &str) -> Expr {
    move |e: Expr, key: &str| {
        e.over_with_options(
            Some([col(key)]),
            Some(([order.clone()], SortOptions::default())),
            WindowMapping::GroupsToRows,
        )
        .unwrap()
    }
}
