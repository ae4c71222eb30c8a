//! Plan operators on the device: scans, filters, projections, slices, sorts, unions, distinct rows, hconcat, row indices, shared subplans, mixed plans.

use super::*;

#[test]
fn scans_filters_projections_slices_and_sorts_match_the_cpu() {
    let cases: Vec<(&str, LazyFrame)> = vec![
        ("scan", table()),
        ("project", table().select([col("s"), col("i")])),
        ("rename", table().select([col("f").alias("g"), col("b")])),
        ("int > literal", table().filter(col("i").gt(lit(0i64)))),
        ("int == literal", table().filter(col("i").eq(lit(5i64)))),
        ("literal < int", table().filter(lit(0i64).lt(col("i")))),
        ("u32 <= literal", table().filter(col("u").lt_eq(lit(4u32)))),
        ("float != literal", table().filter(col("f").neq(lit(1.5)))),
        ("float vs NaN", table().filter(col("f").eq(lit(f64::NAN)))),
        (
            "float > literal (NaN greatest)",
            table().filter(col("f").gt(lit(2.0))),
        ),
        ("-0.0 == 0.0", table().filter(col("f").eq(lit(0.0)))),
        ("column vs column", table().filter(col("i").gt_eq(col("k")))),
        (
            "date range",
            table().filter(col("d").gt(date_literal(18_999))),
        ),
        ("bool column", table().filter(col("b"))),
        ("not bool", table().filter(col("b").not())),
        (
            "kleene and",
            table().filter(col("b").and(col("i").gt(lit(0i64)))),
        ),
        (
            "kleene or",
            table().filter(col("b").or(col("f").lt(lit(0.0)))),
        ),
        ("is_null", table().filter(col("s").is_null())),
        ("is_not_null", table().filter(col("i").is_not_null())),
        ("nothing passes", table().filter(col("i").gt(lit(i64::MAX)))),
        ("slice", table().slice(2, 3)),
        ("negative slice", table().slice(-3, 2)),
        ("slice starting before the first row", table().slice(-10, 4)),
        ("slice ending before the first row", table().slice(-20, 4)),
        (
            "filter then slice",
            table().filter(col("u").gt(lit(1u32))).slice(1, 10),
        ),
        ("string ==", table().filter(col("s").eq(lit("x")))),
        ("string !=", table().filter(col("s").neq(lit("")))),
        ("literal == string", table().filter(lit("y").eq(col("s")))),
        (
            "starts_with",
            table().filter(col("s").str().starts_with(lit("lo"))),
        ),
        (
            "ends_with",
            table().filter(col("s").str().ends_with(lit("ode"))),
        ),
        (
            "contains literal",
            table().filter(col("s").str().contains_literal(lit("ü"))),
        ),
        (
            "contains empty",
            table().filter(col("s").str().contains_literal(lit(""))),
        ),
        (
            "is_between both",
            table().filter(col("i").is_between(lit(-3i64), lit(5i64), ClosedInterval::Both)),
        ),
        (
            "is_between left",
            table().filter(col("f").is_between(lit(0.0), lit(2.5), ClosedInterval::Left)),
        ),
        (
            "is_between dates none",
            table().filter(col("d").is_between(
                date_literal(18_999),
                date_literal(20_000),
                ClosedInterval::None,
            )),
        ),
        (
            "is_in ints",
            table().filter(col("i").is_in(
                lit(Series::new("".into(), [5i64, 0, 7])).implode(false),
                false,
            )),
        ),
        (
            "is_in strings",
            table().filter(col("s").is_in(
                lit(Series::new("".into(), ["a", "z", "nope"])).implode(false),
                false,
            )),
        ),
        (
            "mixed",
            table().filter(
                col("s")
                    .str()
                    .starts_with(lit("l"))
                    .or(col("i").is_between(lit(0i64), lit(10i64), ClosedInterval::Right))
                    .and(col("u").neq(lit(4u32)).or(col("b").is_null())),
            ),
        ),
        (
            "sort ints",
            table().sort(
                ["i"],
                SortMultipleOptions::default().with_maintain_order(true),
            ),
        ),
        (
            "sort desc nulls last",
            table().sort(
                ["f"],
                SortMultipleOptions::default()
                    .with_order_descending(true)
                    .with_nulls_last(true)
                    .with_maintain_order(true),
            ),
        ),
        (
            "sort floats asc",
            table().sort(
                ["f"],
                SortMultipleOptions::default().with_maintain_order(true),
            ),
        ),
        (
            // Polars' sum leaves i + k under the nulls (1, 5 and 0): they
            // still tie, in row order.
            "sort by a sum with nulls",
            table()
                .with_column((col("i") + col("k")).alias("w"))
                .collect()
                .unwrap()
                .lazy()
                .sort(
                    ["w"],
                    SortMultipleOptions::default().with_maintain_order(true),
                ),
        ),
        (
            "sort two keys",
            table().sort(
                ["u", "d"],
                SortMultipleOptions::default()
                    .with_order_descending_multi([true, false])
                    .with_nulls_last_multi([false, true])
                    .with_maintain_order(true),
            ),
        ),
        (
            "top-k",
            table()
                .sort(
                    ["k"],
                    SortMultipleOptions::default().with_maintain_order(true),
                )
                .limit(3),
        ),
        (
            "filter then sort",
            table().filter(col("s").is_not_null()).sort(
                ["d"],
                SortMultipleOptions::default()
                    .with_order_descending(true)
                    .with_maintain_order(true),
            ),
        ),
        (
            "sort strings",
            table().sort(
                ["s"],
                SortMultipleOptions::default().with_maintain_order(true),
            ),
        ),
        (
            "sort strings descending nulls last, then ints",
            table().sort(
                ["s", "i"],
                SortMultipleOptions::default()
                    .with_order_descending_multi([true, false])
                    .with_nulls_last_multi([true, false])
                    .with_maintain_order(true),
            ),
        ),
        (
            "regex sequences of texts",
            table().filter(
                col("s")
                    .str()
                    .contains(lit("lo.*ü.*de|y|z"), false)
                    .or(col("s").str().contains(lit("x.*nothing"), false)),
            ),
        ),
        (
            "not a regex sequence",
            table().filter(col("s").str().contains(lit("n.*n"), false).not()),
        ),
        (
            "filter strings",
            table().filter(col("s").is_not_null()).select([col("s")]),
        ),
    ];
    for (name, lf) in cases {
        assert_gpu_eq(name, lf);
    }
}

#[test]
fn unions_match_the_cpu() {
    let union = |parts: Vec<LazyFrame>| concat(parts, UnionArgs::default()).unwrap();
    let cases = [
        (
            "two inputs, lengths off the 32-bit words",
            union(vec![rows(45, 1, 7), rows(70, 2, 0)]),
        ),
        (
            "three inputs, one empty, one without nulls",
            union(vec![
                rows(3, 1, 2),
                rows(0, 2, 0),
                rows(33, 3, 0),
                rows(31, 4, 5),
            ]),
        ),
        (
            "filtered inputs, then a slice",
            union(vec![
                rows(50, 1, 3).filter(col("b")),
                rows(50, 2, 4).filter(col("i").gt(lit(2010i64))),
            ])
            .slice(5, 17),
        ),
        (
            "a union grouped afterwards",
            union(vec![rows(40, 1, 6), rows(40, 1, 9)])
                .group_by([col("s")])
                .agg([col("i").sum(), len()])
                .sort(["s"], Default::default()),
        ),
        (
            "a diagonal union: each part's missing columns null, in the first's order",
            concat_lf_diagonal(
                [
                    rows(5, 1, 7).select([col("i"), col("s")]),
                    rows(4, 2, 0).select([(col("i") * lit(2)).alias("j"), col("i")]),
                    rows(3, 1, 1).select([col("s").alias("t"), col("s")]),
                ],
                UnionArgs::default(),
            )
            .unwrap(),
        ),
        (
            "a diagonal union to supertypes",
            concat_lf_diagonal(
                [
                    rows(5, 1, 7).select([col("i").cast(DataType::Int32)]),
                    rows(4, 2, 0).select([col("i").cast(DataType::Float64), col("s")]),
                ],
                UnionArgs {
                    to_supertypes: true,
                    ..Default::default()
                },
            )
            .unwrap(),
        ),
    ];
    for (name, lf) in cases {
        assert_gpu_eq(name, lf);
    }
}

#[test]
fn distinct_rows_and_side_by_side_frames_match_the_cpu() {
    let unique = |subset: Option<Vec<&str>>, keep| {
        let subset = subset.map(|names: Vec<&str>| names.into_iter().map(col).collect());
        groups().unique_stable_generic(subset, keep)
    };
    let sorted = |lf: LazyFrame| {
        lf.sort(
            ["g", "h", "v"],
            SortMultipleOptions::default().with_nulls_last(true),
        )
    };
    let mut cases = vec![];
    for keep in [
        UniqueKeepStrategy::First,
        UniqueKeepStrategy::Last,
        UniqueKeepStrategy::None,
        UniqueKeepStrategy::Any,
    ] {
        cases.push((
            format!("distinct rows by g and s, keep {keep:?}, in order"),
            unique(Some(vec!["g", "s"]), keep),
        ));
        cases.push((
            format!("distinct rows by g, keep {keep:?}, in order"),
            unique(Some(vec!["g"]), keep),
        ));
        cases.push((
            format!("distinct rows by h, keep {keep:?}, sorted afterwards"),
            sorted(groups().unique_generic(Some(vec![col("h")]), keep)),
        ));
    }
    cases.push((
        "distinct whole rows, then a slice".into(),
        unique(None, UniqueKeepStrategy::First).slice(1, 4),
    ));
    let short = df!("w" => [Some(1i32), None, Some(3)], "t" => ["p", "q", "r"])
        .unwrap()
        .lazy();
    let one = df!("one" => [Some(7u8)]).unwrap().lazy();
    cases.push((
        "side by side, the shorter padded with nulls".into(),
        concat_lf_horizontal([groups(), short.clone()], HConcatOptions::default()).unwrap(),
    ));
    cases.push((
        "side by side, the longer second".into(),
        concat_lf_horizontal([short, one, groups()], HConcatOptions::default()).unwrap(),
    ));
    let one = df!("one" => [Some(7u8)]).unwrap().lazy();
    let broadcast = HConcatOptions {
        broadcast_unit_length: true,
        ..Default::default()
    };
    cases.push((
        "side by side, one row repeated".into(),
        concat_lf_horizontal([groups(), one], broadcast).unwrap(),
    ));
    for (name, lf) in cases {
        assert_gpu_eq(&name, lf);
    }
}

#[test]
fn strict_side_by_side_frames_of_different_heights_are_an_error_on_both_engines() {
    let strict = HConcatOptions {
        strict: true,
        ..Default::default()
    };
    let short = df!("w" => [1i32, 2]).unwrap().lazy();
    let lf = concat_lf_horizontal([groups(), short], strict).unwrap();
    assert!(lf.clone().collect().is_err());
    let engine = Engine::Gpu(under_test().with_raise_on_fail(true));
    let err = lf.collect_with(&engine).unwrap_err();
    // The device's own error: the same kind Polars raises.
    assert!(err.to_string().contains("frames of 2 and 10 rows"), "{err}");
}

#[test]
fn operators_not_executed_yet_fall_back_with_the_reason() {
    // A slice of groups in no particular order: which groups is Polars' choice.
    let lf = orders()
        .group_by([col("status")])
        .agg([col("amount").sum()])
        .slice(0, 2);
    let (_, report) = lf.collect_with_report(&Engine::Gpu(under_test())).unwrap();
    assert_eq!(
        report.executed_by,
        ExecutedBy::Cpu(engine_select::CpuEngine::InMemory)
    );
    let messages: Vec<String> = report
        .fallback_reasons
        .iter()
        .map(|r| r.message.clone())
        .collect();
    assert!(
        messages.iter().any(|m| m.starts_with(
            "a slice of the groups of a group-by in no order (`head`, `slice`): which groups \
             Polars keeps is its own"
        )),
        "{report}"
    );
    assert!(
        report
            .fallback_reasons
            .iter()
            .all(|r| r.kind == FallbackKind::Unsupported),
        "{report}"
    );
}

#[test]
fn a_subplan_used_three_times_runs_on_the_device_and_every_use_gets_its_rows() {
    let base = table()
        .filter(col("i").is_not_null())
        .with_columns([(col("k") * lit(2i64)).alias("k2")]);
    let lf = base
        .clone()
        .join(
            base.clone().select([col("i"), col("k2").alias("right_k2")]),
            [col("i")],
            [col("i")],
            JoinArgs::new(JoinType::Inner),
        )
        .join(
            base.select([col("i"), col("f").alias("third_f")]),
            [col("i")],
            [col("i")],
            JoinArgs::new(JoinType::Left),
        )
        .sort(["i", "k", "right_k2"], Default::default());
    let plan = engine_select::explain_gpu(lf.clone()).unwrap();
    assert!(plan.matches("Cache").count() >= 3, "{plan}");
    assert_gpu_eq("a subplan shared three times", lf);
}

#[test]
fn parquet_and_csv_scans_are_read_on_the_host_and_the_rest_runs_on_the_device() {
    let folder = std::env::temp_dir().join(format!("gpu-scan-test-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let mut df = orders().collect().unwrap();
    let parquet = folder.join("orders.parquet");
    ParquetWriter::new(std::fs::File::create(&parquet).unwrap())
        .finish(&mut df)
        .unwrap();
    let csv = folder.join("orders.csv");
    CsvWriter::new(std::fs::File::create(&csv).unwrap())
        .finish(&mut df)
        .unwrap();
    let query = |lf: LazyFrame| {
        lf.filter(col("amount").gt(lit(1.0)))
            .group_by([col("customer")])
            .agg([col("amount").sum(), col("qty").max()])
            .sort(["customer"], Default::default())
    };
    let from_parquet =
        LazyFrame::scan_parquet(parquet.to_str().unwrap().into(), Default::default()).unwrap();
    let from_csv = LazyCsvReader::new(csv.to_str().unwrap().into())
        .with_has_header(true)
        .finish()
        .unwrap();
    assert_gpu_eq("a parquet scan", query(from_parquet.clone()));
    assert_gpu_eq("a csv scan", query(from_csv));
    // A scan shared by two uses is read once and feeds both.
    assert_gpu_eq(
        "a parquet scan used twice",
        query(from_parquet.clone())
            .join(
                query(from_parquet).select([col("customer"), col("qty").alias("qty2")]),
                [col("customer")],
                [col("customer")],
                JoinArgs::new(JoinType::Inner),
            )
            .sort(["customer"], Default::default()),
    );
    std::fs::remove_dir_all(&folder).unwrap();
}

#[test]
fn a_plan_the_device_runs_in_part_is_a_mixed_plan_unless_all_or_nothing_is_asked() {
    let lf = table()
        .filter(col("i").is_not_null())
        .with_columns([(col("k") * lit(2i64)).alias("k2")])
        .select([
            col("i"),
            col("k2"),
            on_the_cpu_only(col("k2")).alias("ordering"),
        ]);
    let explained = engine_select::explain_gpu(lf.clone()).unwrap();
    assert!(
        explained.contains("cannot run on the GPU: ")
            && explained
                .matches("runs on the GPU, in a mixed plan:")
                .count()
                == 1,
        "{explained}"
    );
    let expected = lf.clone().collect().unwrap();
    let (df, report) = lf
        .clone()
        .collect_with_report(&Engine::Gpu(under_test()))
        .unwrap();
    assert!(df.equals_missing(&expected), "{df}\n{expected}");
    let ExecutedBy::Gpu { device, emulated } = under_test_executed_by() else {
        unreachable!()
    };
    assert_eq!(
        report.executed_by,
        ExecutedBy::Mixed {
            device,
            emulated,
            subplans: 1
        },
        "{report}"
    );
    assert!(
        report.to_string().contains("1 subplan(s)) and cpu"),
        "{report}"
    );
    assert!(
        report
            .fallback_reasons
            .iter()
            .any(|r| r.message.contains("user-defined functions")),
        "{report}"
    );
    // With raise_on_fail the user asked for the GPU or an error.
    let err = lf
        .collect_with(&Engine::Gpu(under_test().with_raise_on_fail(true)))
        .unwrap_err();
    assert!(err.to_string().contains("user-defined functions"), "{err}");
    // Nothing worth the device (a function of an in-memory frame's column
    // that only the CPU runs): the CPU.
    let (_, report) = table()
        .select([on_the_cpu_only(col("k"))])
        .collect_with_report(&Engine::Gpu(under_test()))
        .unwrap();
    assert_eq!(
        report.executed_by,
        ExecutedBy::Cpu(engine_select::CpuEngine::InMemory),
        "{report}"
    );
}

#[test]
fn shifts_of_a_frame_match_the_cpu() {
    let frame = || table().with_columns([(col("i") % lit(7i64)).alias("m")]);
    let mut exprs = vec![];
    // (Not i64::MIN: Polars' debug build panics negating it.)
    for periods in [
        0i64,
        1,
        -1,
        3,
        -3,
        7,
        8,
        9,
        -8,
        -100,
        i64::MIN + 1,
        i64::MAX,
    ] {
        exprs.push(col("i").shift(lit(periods)).alias(format!("i {periods}")));
    }
    exprs.extend([
        col("f").shift(lit(2)).alias("f"),
        col("b").shift(lit(-2)).alias("b"),
        col("d").shift(lit(1)).alias("d"),
        col("s").shift(lit(1)).alias("s"),
        col("s").str().to_uppercase().shift(lit(-3)).alias("S"),
        (col("m") * lit(2i64)).shift(lit(2)).alias("expression"),
        (col("m") - col("m").shift(lit(1))).alias("difference"),
    ]);
    assert_gpu_eq("shifts", frame().select(exprs));
    assert_gpu_eq(
        "a shift beside a whole-frame mean",
        frame().with_columns([(col("m").shift(lit(1)) - col("m").mean()).alias("minus the mean")]),
    );
    assert_gpu_eq(
        "a shift in a filter",
        frame().filter(col("m").gt(col("m").shift(lit(1)))),
    );
    // Shifts of aggregated values are Polars' to compute.
    let cases = [
        (
            frame()
                .group_by_stable([col("b")])
                .agg([col("m").sum().shift(lit(1))]),
            "in order over one value",
        ),
        (
            frame().select([col("m").sum().shift(lit(1))]),
            "in order over one value",
        ),
        (
            frame().select([col("m").shift(col("m").max())]),
            "shift by a count that is not a literal",
        ),
    ];
    for (lf, reason) in cases {
        assert_cpu_answer_with_reason(lf, reason);
    }
}

#[test]
fn sorts_by_computed_keys_match_the_cpu() {
    let options = |descending: bool| {
        SortMultipleOptions::default()
            .with_order_descending(descending)
            .with_nulls_last(true)
            .with_maintain_order(true)
    };
    assert_gpu_eq(
        "sort by an expression",
        table().sort_by_exprs([col("i") % lit(3i64)], options(false)),
    );
    assert_gpu_eq(
        "sort by a text expression, then a column",
        table().sort_by_exprs(
            [col("s").str().to_uppercase(), col("k")],
            SortMultipleOptions::default()
                .with_order_descending_multi([true, false])
                .with_maintain_order(true),
        ),
    );
    assert_gpu_eq(
        "sort by two expressions",
        table().sort_by_exprs(
            [col("i") % lit(3i64), col("s").str().len_bytes()],
            options(false),
        ),
    );
    assert_gpu_eq(
        "top rows by a computed key",
        table()
            .sort_by_exprs([(col("f") * lit(2.0)).abs(), col("u")], options(true))
            .slice(0, 3),
    );
}

#[test]
fn common_subexpressions_the_device_cannot_hold_are_computed_where_used() {
    // Polars' optimiser moves a filter used twice into a with_columns of
    // its own, at its own length: the device runs the query optimised
    // without common subexpressions instead, whole, with the same result.
    let frame = || {
        df!(
            "x" => [Some(1i64), Some(2), None, Some(4), Some(5), Some(6)],
            "y" => [Some(1.0f64), Some(2.0), Some(3.0), None, Some(5.0), Some(0.5)],
            "s" => ["a", "b", "a", "c", "b", "a"],
        )
        .unwrap()
        .lazy()
    };
    let kept = || col("x").filter(col("y").gt(lit(1.5)));
    let query = || {
        frame().select([
            kept().sum().alias("sum"),
            kept().mean().alias("mean"),
            kept().max().alias("max"),
        ])
    };
    assert!(
        query().explain(true).unwrap().contains("__POLARS_CSE"),
        "the query no longer has common subexpressions"
    );
    assert_gpu_eq("a filter used thrice", query());
    assert_gpu_eq(
        "a filter used twice per group",
        frame()
            .group_by_stable([col("s")])
            .agg([kept().sum().alias("sum"), kept().count().alias("count")]),
    );
    // Without the common subexpressions it still cannot run: the first
    // plan falls back, with its own reasons.
    let unsupported = || {
        frame().select([
            kept().sum().alias("sum"),
            kept().mean().alias("mean"),
            on_the_cpu_only(col("y")).alias("user-defined"),
        ])
    };
    assert_cpu_answer_with_reason(unsupported(), "filter inside an expression");
    let raised = unsupported()
        .collect_with_report(&Engine::Gpu(under_test().with_raise_on_fail(true)))
        .unwrap_err()
        .to_string();
    assert!(raised.contains("filter inside an expression"), "{raised}");
}

#[test]
fn row_indices_number_the_rows_on_the_device() {
    let frame = || {
        df!(
            "x" => [Some(3i64), None, Some(1), Some(4), Some(1), Some(5)],
            "s" => ["a", "b", "c", "d", "e", "f"],
        )
        .unwrap()
        .lazy()
    };
    assert_gpu_eq("with_row_index", frame().with_row_index("index", None));
    assert_gpu_eq(
        "with_row_index from an offset, after a filter, used in an expression",
        frame()
            .filter(col("x").is_not_null())
            .with_row_index("n", Some(10))
            .with_columns([(col("n") * lit(2u32)).alias("twice")]),
    );
    assert_gpu_eq(
        "with_row_index up to the last u32",
        frame().with_row_index("n", Some(u32::MAX - 6)),
    );
    assert_gpu_eq(
        "with_row_index of an empty frame",
        frame()
            .filter(col("x").gt(lit(100i64)))
            .with_row_index("n", Some(u32::MAX)),
    );
    // Numbers past u32: Polars' own error, word for word.
    assert_cpu_error(frame().with_row_index("n", Some(u32::MAX - 2)));
}

#[test]
fn filters_inside_a_select_keep_the_rows_of_their_predicate() {
    let qty_over_2 = || col("qty").gt(lit(2));
    let cases = [
        (
            "filter",
            orders().select([col("amount").filter(qty_over_2())]),
        ),
        ("drop_nulls", orders().select([col("amount").drop_nulls()])),
        ("drop_nans", orders().select([col("amount").drop_nans()])),
        (
            "drop_nans of integers",
            orders().select([col("qty").drop_nans()]),
        ),
        (
            "values that read other rows, filtered alike",
            orders().select([
                col("id")
                    .cum_sum(false)
                    .filter(qty_over_2())
                    .alias("running"),
                col("status").filter(qty_over_2()),
                col("amount")
                    .rank(RankOptions::default(), None)
                    .filter(qty_over_2())
                    .alias("rank"),
            ]),
        ),
        (
            "a predicate of other rows",
            orders().select([col("status").filter(col("id").shift(lit(1)).gt(lit(4)))]),
        ),
        (
            "no rows",
            orders()
                .filter(col("id").lt(lit(0)))
                .select([col("status").drop_nulls()]),
        ),
        (
            "slices alike",
            orders().select([
                col("id")
                    .cum_sum(false)
                    .slice(lit(-6), lit(4))
                    .alias("running"),
                col("status").slice(lit(-6), lit(4)),
            ]),
        ),
        (
            "heads alike",
            orders().select([
                col("id").reverse().head(Some(3)),
                col("amount").head(Some(3)),
            ]),
        ),
        (
            "gather_every",
            orders().select([
                col("status").gather_every(3, 1),
                col("id").shift(lit(1)).gather_every(3, 1).alias("before"),
            ]),
        ),
        (
            "gather_every past the end",
            orders().select([col("status").gather_every(2, 12)]),
        ),
        (
            "scalars beside a filter",
            orders().select([
                col("status").filter(qty_over_2()),
                col("amount").sum().alias("total"),
                lit(7i64).alias("seven"),
                col("qty").filter(qty_over_2()).alias("kept qty"),
            ]),
        ),
        (
            "a scalar beside a filter that keeps no row",
            orders().select([col("id").filter(col("id").lt(lit(0))), col("qty").max()]),
        ),
        (
            "aggregations of gather_every",
            orders().group_by_stable([col("customer")]).agg([
                col("id").gather_every(2, 0).sum().alias("sum"),
                col("status").gather_every(2, 1).first().alias("first"),
                col("qty").gather_every(3, 0).len().alias("len"),
            ]),
        ),
    ];
    for (name, lf) in cases {
        assert_gpu_eq(name, lf);
    }
    // Filters of their own that keep as many rows: side by side.
    assert_gpu_eq(
        "filters of their own",
        orders().select([
            col("qty").drop_nulls(),
            (col("qty") * lit(2)).drop_nulls().alias("twice"),
        ]),
    );
    assert_cpu_error(orders().select([col("qty").drop_nulls(), col("id").drop_nulls()]));
    assert_cpu_error(orders().select([col("qty").gather_every(0, 0)]));
}

#[test]
fn value_counts_and_unique_counts_match_the_cpu() {
    let frame = || {
        df!(
            "i" => [Some(3i32), None, Some(1), Some(3), None, Some(3), Some(2), Some(1)],
            "s" => [Some("b"), Some("a"), None, Some("b"), Some("ü"), Some("a"), Some("b"), None],
            "f" => [0.5f64, -0.0, 0.0, f64::NAN, 0.5, f64::NAN, 1.5, -1.0],
            "b" => [Some(true), None, Some(false), Some(true), Some(true), None, Some(false), Some(true)],
        )
        .unwrap()
        .lazy()
    };
    let sorted = |name: &str| col(name).value_counts(true, false, "count", false);
    for name in ["i", "s", "f", "b"] {
        assert_gpu_eq(
            &format!("value_counts of {name}, sorted"),
            frame().select([sorted(name)]),
        );
        assert_gpu_eq(
            &format!("value_counts of {name}, sorted, unnested"),
            frame()
                .select([sorted(name)])
                .unnest(by_name([name], true, false), None),
        );
    }
    for name in ["i", "s", "f", "b"] {
        assert_gpu_eq(
            &format!("unique_counts of {name}"),
            frame().select([col(name).unique_counts()]),
        );
    }
    assert_gpu_eq(
        "unique_counts of nulls only",
        frame()
            .filter(col("i").is_null())
            .select([col("i").unique_counts()]),
    );
    assert_gpu_eq(
        "unique_counts of no rows",
        frame()
            .filter(lit(false))
            .select([col("s").unique_counts()]),
    );
    assert_cpu_answer_with_reason(
        frame().select([col("i").filter(col("i").is_null()).unique_counts()]),
        "filter inside an expression",
    );
    assert_gpu_eq(
        "value_counts of an expression, its count renamed",
        frame().select([(col("i") * lit(2))
            .alias("twice")
            .value_counts(true, true, "n", false)]),
    );
    assert_gpu_eq(
        "value_counts of a filtered frame",
        frame().filter(col("i").gt(lit(1))).select([sorted("s")]),
    );
    assert_gpu_eq(
        "value_counts of no rows",
        frame().filter(lit(false)).select([sorted("i")]),
    );
    // Unsorted, Polars gives the values in its hash table's order, the
    // device in order of first appearance: the same rows.
    let unsorted = frame().select([col("s").value_counts(false, false, "count", false)]);
    let expected = unsorted.clone().collect().unwrap();
    let engine = Engine::Gpu(under_test().with_raise_on_fail(true));
    let (actual, _) = unsorted.collect_with_report(&engine).unwrap();
    let in_order = |frame: DataFrame| {
        frame
            .lazy()
            .unnest(by_name(["s"], true, false), None)
            .sort(["s"], SortMultipleOptions::default())
            .collect()
            .unwrap()
    };
    assert!(in_order(expected).equals_missing(&in_order(actual)));
    // Normalized: each count divided by the rows, as Polars divides it.
    let normalized = |name: &str| col(name).value_counts(true, false, "part", true);
    for name in ["i", "s", "f", "b"] {
        assert_gpu_eq(
            &format!("value_counts of {name}, normalized"),
            frame().select([normalized(name)]),
        );
        assert_gpu_eq(
            &format!("value_counts of {name} of seven rows, normalized"),
            frame().slice(1, 7).select([normalized(name)]),
        );
    }
    assert_gpu_eq(
        "value_counts of no rows, normalized",
        frame().filter(lit(false)).select([normalized("s")]),
    );
    // Counts named as the values: Polars raises its error.
    assert_cpu_error(frame().select([col("i").value_counts(true, false, "i", false)]));
}

#[test]
fn modes_match_the_cpu() {
    let frame = || {
        df!(
            "i" => [Some(3i32), None, Some(1), Some(3), None, Some(1), Some(2), None],
            "s" => [Some("b"), Some("a"), None, Some("b"), Some("ü"), Some("a"), Some("b"), None],
            "f" => [0.5f64, -0.0, 0.0, f64::NAN, 0.5, f64::NAN, 1.5, -1.0],
            "b" => [Some(true), None, Some(false), Some(true), Some(true), None, Some(false), Some(true)],
        )
        .unwrap()
        .lazy()
    };
    // Kept in order: the values of the most rows as they first come (null
    // a value; -0.0 and 0.0 one value, shown as it first comes).
    for name in ["i", "s", "f", "b"] {
        assert_gpu_eq(
            &format!("mode of {name}, in order"),
            frame().select([col(name).mode(true)]),
        );
        assert_gpu_eq(
            &format!("mode of {name} of five rows, in order"),
            frame().slice(2, 5).select([col(name).mode(true)]),
        );
    }
    assert_gpu_eq(
        "mode of an expression of a filtered frame",
        frame()
            .filter(col("b"))
            .select([(col("i") * lit(2)).alias("twice").mode(true)]),
    );
    assert_gpu_eq(
        "mode of no rows",
        frame().filter(lit(false)).select([col("s").mode(true)]),
    );
    // Not kept in order, Polars gives the values in its hash table's
    // order, the device in order of first appearance: the same rows.
    let engine = Engine::Gpu(under_test().with_raise_on_fail(true));
    for name in ["i", "s", "f"] {
        let unordered = frame().select([col(name).mode(false)]);
        let sorted = |frame: DataFrame| frame.lazy().sort([name], Default::default()).collect();
        let expected = sorted(unordered.clone().collect().unwrap()).unwrap();
        let (actual, _) = unordered.collect_with_report(&engine).unwrap();
        assert!(
            expected.equals_missing(&sorted(actual).unwrap()),
            "mode of {name}"
        );
    }
}

/// `rle`: each run of equal values in turn (a null equal to a null) as a
/// struct of its length and its value, of every type the device compares
/// but floats (which stay with Polars), of no rows too.
#[test]
fn runs_of_equal_values_match_the_cpu() {
    let frame = || {
        df!(
            "i" => [Some(3i32), Some(3), None, None, Some(1), Some(3), Some(3), Some(3)],
            "s" => [Some("b"), Some("b"), Some("b"), None, Some("ü"), None, Some("b"), Some("a")],
            "b" => [Some(true), None, None, Some(true), Some(true), Some(false), Some(false), Some(true)],
            "f" => [0.5f64, -0.0, 0.0, f64::NAN, f64::NAN, 0.5, 1.5, -1.0],
        )
        .unwrap()
        .lazy()
    };
    for name in ["i", "s", "b"] {
        assert_gpu_eq(
            &format!("runs of {name}"),
            frame().select([col(name).rle()]),
        );
        assert_gpu_eq(
            &format!("runs of {name}, unnested"),
            frame()
                .select([col(name).rle()])
                .unnest(by_name([name], true, false), None),
        );
    }
    assert_gpu_eq(
        "runs of an expression of a filtered frame",
        frame()
            .filter(col("b").is_not_null())
            .select([(col("i") * lit(2)).alias("twice").rle()]),
    );
    assert_gpu_eq(
        "runs of no rows",
        frame().filter(lit(false)).select([col("s").rle()]),
    );
    assert_cpu_answer_with_reason(frame().select([col("f").rle()]), "rle of f64");
}
