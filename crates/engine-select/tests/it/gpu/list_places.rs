//! `list.get` at each row's own place and `list.slice` (`head`, `tail`) by each row's bounds (integer expressions of the row): from the end where negative, null where the place, a bound or the list is null; `get` outside a list null or Polars' error without `null_on_oob`, a slice clamped to the list; over the frame, within window groups and per group.

use super::lists::list_frame;
use super::*;

/// The list frame (null and empty lists, nulls inside, texts, a sliced
/// column) with places per row: within, from the end, outside, null.
fn with_places() -> LazyFrame {
    list_frame().with_columns([
        lit(Series::new(
            "at".into(),
            [Some(1i64), Some(0), None, Some(-1), Some(3), Some(-2)],
        )),
        lit(Series::new(
            "small".into(),
            [Some(0i8), Some(9), Some(1), Some(-5), Some(-4), None],
        )),
        lit(Series::new("unsigned".into(), [2u32, 0, 1, 0, 1, 0])),
    ])
}

#[test]
fn list_get_at_each_rows_place_matches_the_cpu() {
    let frame = with_places();
    for name in ["li", "ls", "lf", "ld"] {
        let c = || col(name);
        assert_gpu_eq(
            name,
            frame.clone().select([
                c().list().get(col("at"), true).alias("at"),
                c().list().get(col("small"), true).alias("small"),
                c().list().get(col("unsigned"), true).alias("unsigned"),
                c().list()
                    .get(col("at") - lit(1i64), true)
                    .alias("computed"),
                c().list()
                    .get(c().list().len().cast(DataType::Int64) - lit(1i64), true)
                    .alias("last"),
            ]),
        );
    }
    // Where every valid list has its row's place, without null_on_oob.
    assert_gpu_eq(
        "within every list",
        frame
            .clone()
            .filter(col("li").list().len().gt(lit(3u32)))
            .select([col("li").list().get(col("at"), false)]),
    );
    // Lists of structs at places; a filter by a value at a place.
    assert_gpu_eq(
        "lists of structs",
        frame
            .clone()
            .group_by_stable([col("b")])
            .agg([
                as_struct(vec![col("k"), col("at")]).alias("pairs"),
                col("small").first(),
            ])
            .select([col("pairs").list().get(col("small"), true).alias("pair")]),
    );
    assert_gpu_eq(
        "filtered by a value at a place",
        frame
            .clone()
            .filter(col("li").list().get(col("at"), true).gt(lit(2i64))),
    );
}

#[test]
fn list_get_at_places_within_groups_and_outside_lists() {
    let frame = with_places();
    let at = || col("li").list().get(col("at"), true);
    assert_gpu_eq(
        "within window groups and per group",
        frame
            .clone()
            .with_column(at().sum().over([col("b")]).unwrap().alias("w")),
    );
    assert_gpu_eq(
        "per group",
        frame
            .clone()
            .group_by([col("b")])
            .agg([at().sum().alias("sum"), at().alias("values")])
            .sort(["b"], Default::default()),
    );
    // A valid list without its row's place: Polars' error.
    assert_cpu_error(
        frame
            .clone()
            .select([col("li").list().get(col("at"), false)]),
    );
    let error = raised_error(
        frame
            .clone()
            .select([col("li").list().get(col("at"), false)]),
    );
    let written = r#"list.get of `col("li")`: a list without its row's place"#;
    assert!(error.contains(written), "{error}");
    // A place that is an aggregation stays with Polars, with its reason.
    assert_cpu_answer_with_reason(
        frame.select([col("li").list().get(col("at").max(), true)]),
        "list.get at a place that is an aggregation, a window or not an integer",
    );
}

#[test]
fn list_slices_by_each_rows_bounds_match_the_cpu() {
    let frame = with_places().with_columns([lit(Series::new(
        "length".into(),
        [Some(2i32), None, Some(1), Some(-1), Some(0), Some(3)],
    ))]);
    for name in ["li", "ls", "lf", "ld"] {
        let c = || col(name);
        assert_gpu_eq(
            name,
            frame.clone().select([
                c().list().slice(col("at"), col("length")).alias("both"),
                c().list().slice(col("small"), lit(2i64)).alias("offset"),
                c().list()
                    .slice(lit(-2i64), col("unsigned"))
                    .alias("length"),
                // A literal length of null or below zero: the rest.
                c().list()
                    .slice(col("at"), lit(NULL).cast(DataType::Int64))
                    .alias("null length"),
                c().list().slice(lit(1i64), lit(-1i64)).alias("negative"),
                c().list().head(col("unsigned")).alias("head"),
                c().list().tail(col("unsigned")).alias("tail"),
                c().list().tail(col("length")).alias("tail of signed"),
            ]),
        );
    }
    assert_gpu_eq(
        "read after, in a filter, per group, of structs",
        frame
            .clone()
            .with_columns([
                col("li")
                    .list()
                    .head(col("unsigned"))
                    .list()
                    .sum()
                    .alias("sum"),
                col("ls").list().tail(col("length")).list().len().alias("n"),
            ])
            .filter(
                col("li")
                    .list()
                    .slice(col("at"), col("length"))
                    .list()
                    .len()
                    .gt(lit(0u32)),
            )
            .group_by_stable([col("b")])
            .agg([
                col("li").list().head(col("unsigned")).alias("heads"),
                as_struct(vec![col("k"), col("at")]).alias("pairs"),
                col("sum").sum(),
            ])
            .select([
                col("heads"),
                col("sum"),
                col("pairs")
                    .list()
                    .head(col("heads").list().len())
                    .alias("pairs"),
            ]),
    );
    // A bound that is an aggregation stays with Polars, with its reason.
    assert_cpu_answer_with_reason(
        frame.select([col("li").list().slice(col("at").max(), col("length"))]),
        "list.slice from an offset that is an aggregation",
    );
}

#[test]
fn list_slices_of_one_row_and_from_far_before_the_lists_match_the_cpu() {
    // Of a frame of one row, Polars takes the bounds as single values: a
    // null length takes the rest, a null offset is its error.
    let one = || {
        df!("k" => [2i64], "n" => [None::<i64>])
            .unwrap()
            .lazy()
            .with_columns([concat_list([col("k"), col("k") * lit(3i64)])
                .unwrap()
                .alias("l")])
    };
    assert_gpu_eq(
        "one row, a null length",
        one().select([col("l").list().slice(col("k") - lit(3i64), col("n"))]),
    );
    assert_cpu_error(one().select([col("l").list().slice(col("n"), col("k"))]));
    assert_cpu_error(one().select([col("l").list().tail(col("n"))]));
    // A union's inputs Polars slices one by one, one of one row by its
    // bounds as single values: the whole query stays with Polars (stress
    // seed 23257, case 29: its error where the device took two rows).
    let two = one().with_columns([lit(1i64).cast(DataType::Int64).alias("n")]);
    let union = || concat([one(), two.clone()], UnionArgs::default()).unwrap();
    for lf in [
        union().select([col("l").list().slice(col("k") - lit(3i64), col("n"))]),
        union().select([col("l").list().slice(col("n"), col("k"))]),
    ] {
        let reason = raised_error(lf.clone());
        assert!(
            reason.contains("list.slice by each row's bounds of lists from a union"),
            "{reason}"
        );
        let expected = lf.clone().collect();
        match lf.collect_with_report(&Engine::Gpu(under_test())) {
            Ok((answer, report)) => {
                assert_eq!(
                    report.executed_by,
                    ExecutedBy::Cpu(engine_select::CpuEngine::InMemory),
                    "{report}"
                );
                assert!(answer.equals_missing(&expected.unwrap()));
            }
            Err(e) => assert_eq!(e.to_string(), expected.unwrap_err().to_string()),
        }
    }
    // Of more rows, none of them a list, or of no rows: Polars types the
    // values Null.
    let reason = "giving no list (Polars then types their values Null)";
    let nulls = with_places().filter(col("li").is_null());
    assert_cpu_answer_with_reason(
        nulls.select([col("li").list().head(col("unsigned"))]),
        reason,
    );
    let none = with_places().filter(col("k").gt(lit(10)));
    assert_cpu_answer_with_reason(none.select([col("li").list().tail(col("k"))]), reason);
    // From far before each list, the rest (Polars' length then
    // usize::MAX) or a length that does not reach it.
    let far = with_places().with_columns([lit(Series::new("far".into(), [i64::MIN + 1; 6]))]);
    assert_gpu_eq(
        "from far before",
        far.select([
            col("li").list().slice(col("far"), lit(-1i64)).alias("rest"),
            col("li")
                .list()
                .slice(col("far"), lit(NULL).cast(DataType::Int64))
                .alias("null length"),
            col("li")
                .list()
                .slice(col("far"), lit(i64::MAX))
                .alias("short of it"),
        ]),
    );
}
