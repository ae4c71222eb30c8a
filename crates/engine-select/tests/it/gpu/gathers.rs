//! Gathers on the device: by indices as long as the frame, and by another column's `arg_sort` (a stable sort by it), per group too, sliced; and the place of a value (`index_of`).

use super::*;

#[test]
fn gathers_by_indices_match_the_cpu_or_leave_polars_its_error() {
    let frame = df!(
        "i" => [Some(3i64), Some(-1), None, Some(0), Some(2)],
        "u" => [Some(1u32), Some(0), Some(4), None, Some(2)],
        "x" => [Some(1.5f64), None, Some(3.0), Some(4.0), Some(5.0)],
        "s" => [Some("p"), Some("q"), None, Some("r"), Some("s")],
    )
    .unwrap()
    .lazy();
    for (name, lf) in [
        (
            "by a column of indices, from either end, null indices null",
            frame.clone().select([
                col("x").gather(col("i"), false).alias("x"),
                col("s").gather(col("i"), false).alias("s"),
                col("i"),
            ]),
        ),
        (
            "by unsigned indices, texts made of the values",
            frame.clone().with_columns([
                col("x").gather(col("u"), false).alias("x at u"),
                (col("s").gather(col("u"), false) + lit("!")).alias("s at u!"),
            ]),
        ),
        (
            "by computed indices, outside the frame null with null_on_oob",
            frame.clone().select([
                (col("x").gather(col("u").cast(DataType::Int64) - lit(5i64), true) * lit(2.0))
                    .alias("x"),
                col("s").gather(col("i") * lit(3i64), true).alias("s"),
            ]),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
    // Outside the frame without null_on_oob: Polars raises, and so does the
    // engine.
    assert_cpu_error(
        frame
            .clone()
            .select([col("x").gather(col("i") * lit(3i64), false)]),
    );
    // With fallback disabled, the error names the gather as Polars writes it.
    let error = raised_error(
        frame
            .clone()
            .select([col("x").gather(col("i") * lit(3i64), false)]),
    );
    let written = r#"`col("x").gather(col("i") * 3)` has an index outside the frame"#;
    assert!(error.contains(written), "{error}");
    // Also where Polars computes the indices once, as a common
    // subexpression of two gathers: the reason writes it out.
    let error = raised_error(
        frame.clone().select([
            col("x").gather(col("i") * lit(3i64), false).alias("a"),
            (col("x") * lit(2i64))
                .gather(col("i") * lit(3i64), false)
                .alias("b"),
        ]),
    );
    assert!(error.contains(written), "{error}");
    assert!(!error.contains("__POLARS_CSER"), "{error}");
    // Per group Polars takes each group's indices: left to it.
    assert_cpu_answer_with_reason(
        frame
            .group_by_stable([col("s")])
            .agg([col("x").gather(col("u") * lit(0u32), true)]),
        "gather inside an expression",
    );
}

#[test]
fn gathers_by_arg_sort_sort_stably_per_group_and_whole_frame() {
    // Ties, nulls in the values and the keys, both directions and null
    // places; whole, sliced (`head`, `tail`, a slice) and aggregated.
    let frame = df!(
        "g" => [1i64, 2, 1, 1, 2, 2, 1, 3],
        "x" => [Some(10i64), Some(20), None, Some(40), Some(50), Some(60), Some(70), Some(80)],
        "y" => [Some(3i64), None, Some(1), Some(3), Some(2), Some(2), None, Some(0)],
        "s" => ["a", "b", "c", "d", "e", "f", "g", "h"],
    )
    .unwrap()
    .lazy();
    for (descending, nulls_last) in [(false, false), (true, false), (false, true), (true, true)] {
        let order = || col("y").arg_sort(descending, nulls_last);
        let name = format!("descending {descending}, nulls last {nulls_last}");
        assert_gpu_eq(
            &format!("per group, {name}"),
            frame.clone().group_by_stable([col("g")]).agg([
                col("x").gather(order(), false).alias("all"),
                col("x")
                    .gather(order().head(Some(2)), false)
                    .alias("first two"),
                col("x").gather(order().tail(Some(1)), false).alias("last"),
                col("s")
                    .gather(order().slice(lit(1), lit(2)), false)
                    .alias("texts"),
                col("x")
                    .gather(order().head(Some(2)), false)
                    .sum()
                    .alias("sum of two"),
            ]),
        );
        assert_gpu_eq(
            &format!("whole frame, {name}"),
            frame.clone().select([
                col("x").gather(order(), false),
                col("s").gather(order(), false),
            ]),
        );
    }
}

/// Found by the fuzzer (seeds 1804, 1827 and 1832, in this session's
/// builds before it landed).
#[test]
fn gathers_by_arg_sort_of_one_value_stay_with_polars() {
    // The arg_sort of a literal is one index (the group's first value);
    // a literal gathered by a column's arg_sort reads past its one value.
    let frame = df!("g" => [1i64, 1, 2], "x" => [3i64, 1, 2], "y" => [2i64, 1, 0])
        .unwrap()
        .lazy();
    let lf = frame
        .clone()
        .group_by_stable([col("g")])
        .agg([col("x").gather(lit("a").arg_sort(false, true), true).min()]);
    let expected = lf.clone().collect().unwrap();
    let (actual, _) = lf.collect_with_report(&Engine::Gpu(under_test())).unwrap();
    assert!(expected.equals_missing(&actual), "{expected}\n{actual}");
    let lf = frame.select([lit(5i64).gather(col("y").arg_sort(false, false), true)]);
    let expected = lf.clone().collect().unwrap();
    let (actual, _) = lf.collect_with_report(&Engine::Gpu(under_test())).unwrap();
    assert!(expected.equals_missing(&actual), "{expected}\n{actual}");
}

/// `gather` at literal places (`gather([2, 0, -1])`, or one: `gather(0)`,
/// a list of one place): the values at each
/// place, from the end where negative, repeated places too; per group each
/// group's list, over the frame the rows (aggregations beside repeated);
/// outside the values null with `null_on_oob` over the frame, else (per
/// group always) Polars' error.
#[test]
fn gathers_at_literal_places_match_the_cpu_or_leave_polars_its_error() {
    let frame = || {
        df!(
            "g" => ["a", "b", "a", "a", "b", "c", "a"],
            "x" => [Some(1.5f64), None, Some(-0.0), Some(4.0), Some(5.0), Some(6.5), None],
            "s" => [Some("p"), Some("q"), None, Some("r"), Some("s"), Some("t"), Some("u")],
            "i" => [1i32, 2, 3, 4, 5, 6, 7],
        )
        .unwrap()
        .lazy()
    };
    let places = |places: &[i64]| lit(Series::new("".into(), places));
    let g = || frame().group_by_stable([col("g")]);
    for (name, lf) in [
        (
            "per group, inside the smallest group",
            g().agg([
                col("x").gather(places(&[0, -1]), false),
                col("s").gather(places(&[-1, 0, 0]), false),
                col("i").sum(),
            ]),
        ),
        (
            "per group, unsigned places, null_on_oob",
            g().agg([
                col("x").gather(places(&[0]), true),
                (col("i") * lit(2)).gather(lit(Series::new("".into(), [0u32, 0])), true),
            ]),
        ),
        (
            "over the frame, aggregations beside",
            frame().select([
                col("s").gather(places(&[3, 0, -2, 3]), false),
                (col("x") + lit(1.0)).gather(places(&[3, 0, -2, 3]), false),
                col("i").sum().alias("sum"),
            ]),
        ),
        (
            "over the frame, outside null",
            frame().select([col("i").gather(places(&[9, -9, 1]), true)]),
        ),
        // One place, not a list: Polars takes it as a list of one.
        (
            "per group, one place",
            g().agg([
                col("x").gather(lit(0), false).alias("first"),
                col("s").gather(lit(-1i64), false).alias("last"),
                col("i").gather(lit(0u32), true).alias("first, unsigned"),
            ]),
        ),
        (
            "over the frame, one place",
            frame().select([
                col("s").gather(lit(-2), false),
                col("x").gather(lit(-2), false),
            ]),
        ),
        (
            "over no rows, one place outside, null",
            frame()
                .filter(col("i").gt(lit(9)))
                .select([col("i").gather(lit(0), true)]),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
    for null_on_oob in [false, true] {
        assert_cpu_error(
            frame()
                .group_by_stable([col("g")])
                .agg([col("x").gather(places(&[2]), null_on_oob)]),
        );
    }
    assert_cpu_error(frame().select([col("x").gather(places(&[7]), false)]));
    assert_cpu_error(frame().select([col("x").gather(lit(7), false)]));
    assert_cpu_error(
        frame()
            .group_by_stable([col("g")])
            .agg([col("x").gather(lit(2), true)]),
    );
    // Categoricals, as their codes (fuzz seed 2193 found them an internal
    // error before lists of them ran on the device: then refused).
    let categorical = DataType::from_categories(Categories::global());
    let categories = || col("s").cast(categorical.clone());
    assert_gpu_eq(
        "categoricals at literal places",
        frame().select([categories().gather(places(&[-1, 0]), true)]),
    );
    assert_gpu_eq(
        "categoricals at literal places per group",
        frame()
            .group_by_stable([col("g")])
            .agg([categories().gather(places(&[0, -1]), true)]),
    );
}

#[test]
fn index_of_a_literal_finds_the_first_place_as_the_cpu_does() {
    let frame = df!(
        "g" => [1i64, 2, 1, 2, 1, 2, 3],
        "i" => [Some(3i64), None, Some(-1), Some(3), None, Some(7), Some(3)],
        "u8" => [Some(1u8), Some(0), Some(4), None, Some(2), Some(4), Some(0)],
        "x" => [Some(1.5f64), Some(f64::NAN), Some(-0.0), Some(4.0), None, Some(0.0), Some(f64::NAN)],
        "f" => [Some(1.5f32), None, Some(0.0), Some(4.0), Some(f32::NAN), Some(0.0), Some(2.5)],
        "s" => [Some("p"), Some("q"), None, Some("r"), Some("q"), Some(""), Some("p")],
        "b" => [Some(true), Some(false), None, Some(true), Some(false), None, Some(true)],
    )
    .unwrap()
    .lazy()
    .with_columns([col("i").cast(DataType::Date).alias("d")]);
    let found = || {
        [
            col("i").index_of(lit(3i64)).alias("i 3"),
            col("i").index_of(lit(NULL)).alias("i null"),
            col("i").index_of(lit(42i64)).alias("i absent"),
            col("u8").index_of(lit(4u8)).alias("u8 4"),
            col("x").index_of(lit(f64::NAN)).alias("x NaN"),
            col("x").index_of(lit(0.0f64)).alias("x 0.0 finds -0.0"),
            col("x").index_of(lit(-0.0f64)).alias("x -0.0"),
            col("x").index_of(lit(NULL)).alias("x null"),
            col("f")
                .index_of(lit(2.5f32).cast(DataType::Float32))
                .alias("f 2.5"),
            col("f")
                .index_of(lit(f32::NAN).cast(DataType::Float32))
                .alias("f NaN"),
            col("s").index_of(lit("q")).alias("s q"),
            col("s").index_of(lit("")).alias("s empty"),
            col("s").index_of(lit(NULL)).alias("s null"),
            col("b").index_of(lit(false)).alias("b false"),
            col("d").index_of(lit(NULL)).alias("d null"),
            (col("i") * lit(2))
                .index_of(lit(6i64))
                .alias("of an expression"),
        ]
    };
    for (name, lf) in [
        ("over the frame", frame.clone().select(found())),
        (
            "per group",
            frame.clone().group_by_stable([col("g")]).agg(found()),
        ),
        (
            "over no rows",
            frame.clone().filter(col("g").gt(lit(9))).select(found()),
        ),
        (
            "after a filter, with other columns",
            frame
                .clone()
                .filter(col("g").neq(lit(2)))
                .select([col("s").index_of(lit("p")).alias("p"), col("x").sum()]),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
}

#[test]
fn index_of_a_value_not_a_literal_stays_with_polars() {
    let frame = df!("i" => [3i64, 1, 2]).unwrap().lazy();
    let lf = frame.select([col("i").index_of(col("i").max())]);
    let engine = Engine::Gpu(under_test());
    let (actual, report) = lf.clone().collect_with_report(&engine).unwrap();
    assert!(lf.collect().unwrap().equals_missing(&actual));
    assert!(
        report.fallback_reasons.iter().any(|r| r
            .message
            .contains("index_of of a value that is not a literal")),
        "{report}"
    );
}
