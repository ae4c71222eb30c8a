//! Plans the executor refused at its last check after ir-lower had lowered them (internal errors since support is decided in ir-lower), each a test that failed before its fix.
//!
//! Each was found by the debug fuzzer once such a refusal counted as an
//! internal error (a fallback of kind `Internal`, which `assert_same_as_cpu`
//! fails on); each is now refused in ir-lower with its reason, or run.

use polars::prelude::*;

use super::{CLOSE, ORDERED, UNORDERED};
use crate::fuzz::assert_same_as_cpu;

/// A window of a text literal (`lit("ab").over(..)`): the executor makes
/// the text of windows from the rows' values. Seeds 394 (case 57) and 398
/// (case 75).
#[test]
fn windows_of_text_literals_are_refused_in_ir_lower() {
    let df = df!("a" => [Some(2i64), None, Some(2)], "s" => ["x", "ab", "b"]).unwrap();
    let lf = df
        .clone()
        .lazy()
        .select([lit("2024-01-15").over([col("a")]).unwrap().alias("x")]);
    assert_same_as_cpu(lf, ORDERED);
    let lf = df
        .lazy()
        .filter(lit("ab").over([col("s")]).unwrap().gt_eq(col("s")));
    assert_same_as_cpu(lf, ORDERED);
}

/// A window partitioned by a literal alone in a select: a value on every
/// row (one partition of all rows), which the executor took for a select
/// of one values, one row. Seed 396, case 198.
#[test]
fn a_window_by_a_literal_is_a_value_per_row() {
    let df = df!("a" => [Some(" 9"), Some("10"), None]).unwrap();
    let lf = df.lazy().select([col("a")
        .max()
        .over([lit(Scalar::from(3007i32)).cast(DataType::Date)])
        .unwrap()
        .alias("x")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// A function other kernels compute from text (a parse, a comparison) of
/// text aggregated over the whole frame, outside an aggregation: the
/// executor computes such parts from the frame's columns, before the
/// aggregations. Seed 408, case 102.
#[test]
fn functions_of_aggregated_text_beside_rows_are_refused_in_ir_lower() {
    let df = df!("c" => [Some("20240101"), Some("\nb"), None]).unwrap();
    let to_date = StrptimeOptions {
        format: Some("%Y%m%d".into()),
        strict: false,
        ..Default::default()
    };
    let lf = df
        .clone()
        .lazy()
        .with_columns([col("c").min().str().to_date(to_date).alias("a")]);
    assert_same_as_cpu(lf, ORDERED);
    let lf = df
        .lazy()
        .with_columns([col("c").max().eq(lit("20240101")).alias("a")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// A membership test of a column in aggregated values
/// (`is_in(col("c"), implode(mean(col("c"))))`), and of one value in a
/// column (`is_in(0, implode(col("a")))`, one value in Polars). Seed 397,
/// case 28, and the older regression of one-value memberships.
#[test]
fn memberships_in_aggregations_or_of_one_value_are_refused_in_ir_lower() {
    let df =
        df!("c" => [Some(1.0f64), Some(2.0), None], "a" => [Some(0i64), None, Some(3)]).unwrap();
    let lf = df.clone().lazy().select([col("c")
        .is_in(col("c").mean().implode(false), false)
        .alias("x")]);
    assert_same_as_cpu(lf, ORDERED);
    let lf = df
        .lazy()
        .select([lit(0i64).is_in(col("a").implode(false), true).alias("x")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// A variance of every other f32 value (`gather_every`): the widening of
/// f32 to f64 hid the rows kept from the executor, which keeps them in
/// sight to leave groups of no valid value to Polars. Now widened inside
/// the filter, it runs. Seed 398, case 28.
#[test]
fn spreads_of_every_nth_f32_are_widened_inside_the_filter() {
    let df = df!(
        "k" => [1i64, 1, 2, 2, 2],
        "c" => [Some(1.5f32), Some(-2.0), None, Some(4.0), Some(0.25)],
    )
    .unwrap();
    let lf = df.lazy().group_by_stable([col("k")]).agg([
        col("c").gather_every(2, 0).var(0).alias("v"),
        col("c").gather_every(2, 1).std(1).alias("s"),
    ]);
    assert_same_as_cpu(lf, CLOSE);
}

/// Aggregations of types the kernels do not take, refused in ir-lower:
/// `arg_max` of text (found as a late refusal by an older regression), a
/// cast of dates to durations (Polars raises), and an aggregation other
/// than a first or last row of a sort's rows.
#[test]
fn aggregations_and_casts_of_types_the_kernels_do_not_take_are_refused_in_ir_lower() {
    let df = df!(
        "g" => [1i64, 1, 2],
        "s" => [Some("b"), Some("a"), None],
        "a" => [Some(3i64), None, Some(1)],
        "f" => [0.5f64, -1.0, 2.0],
    )
    .unwrap();
    let lf = df
        .clone()
        .lazy()
        .group_by_stable([col("g")])
        .agg([col("s").arg_max().alias("x")]);
    assert_same_as_cpu(lf, ORDERED);
    let lf = df
        .clone()
        .lazy()
        .with_columns([(col("a").cum_count(false) - lit(1u32))
            .sort_by(
                [col("f")],
                SortMultipleOptions::default().with_nulls_last(true),
            )
            .max()
            .alias("x")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// `replace_strict` by one new value, of old values with a null among
/// others, without a default: Polars finds the rows by a membership test,
/// which leaves null rows unmatched, and raises on them (the device
/// replaced them). Seed 409, case 176.
#[test]
fn replace_strict_by_one_value_raises_on_null_rows_where_polars_does() {
    let df = df!("x" => [Some(0i64), None]).unwrap();
    let old = || lit(Series::new("".into(), [None::<i64>, Some(0i64)]));
    let new = || lit(Series::new("".into(), [Some(1i64)]));
    let lf = df.clone().lazy().with_columns([col("x")
        .replace_strict(old(), new(), None::<Expr>, None::<DataType>)
        .alias("y")]);
    assert_same_as_cpu(lf, ORDERED);
    let lf = df.lazy().with_columns([col("x")
        .fill_null(lit(0i64))
        .replace_strict(old(), new(), None::<Expr>, None::<DataType>)
        .alias("y")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// A window partitioned by a key with a window inside
/// (`col("a").over([col("a").rolling_max(2).over([3])])`): the executor
/// computes keys row by row. Seed 402, case 279.
#[test]
fn windows_keyed_by_windows_are_refused_in_ir_lower() {
    let df = df!("a" => [Some(1u16), None, Some(1)], "g" => [1i64, 2, 1]).unwrap();
    let rolling = RollingOptionsFixedWindow {
        window_size: 2,
        min_periods: 0,
        ..Default::default()
    };
    let key = col("a")
        .rolling_max(rolling)
        .over([lit(Scalar::from(3u8))])
        .unwrap();
    let lf = df
        .clone()
        .lazy()
        .with_columns([col("a").over([key]).unwrap().alias("x")]);
    assert_same_as_cpu(lf, ORDERED);
    let lf = df
        .lazy()
        .with_columns([col("a").over([col("g").sum()]).unwrap().alias("x")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// `is_between` of a text column by literal bounds (the predicate kernels
/// compare numbers between literals): the two comparisons. Seed 436, case
/// 195.
#[test]
fn text_between_literals_is_two_comparisons() {
    let df = df!("a" => [Some("20"), Some("b"), None, Some("x y"), Some("a")]).unwrap();
    for closed in [
        ClosedInterval::None,
        ClosedInterval::Both,
        ClosedInterval::Left,
        ClosedInterval::Right,
    ] {
        let lf = df
            .clone()
            .lazy()
            .with_columns([col("a").is_between(lit("a"), lit("x y"), closed).alias("x")]);
        assert_same_as_cpu(lf, ORDERED);
    }
}

/// A function of the rows in order of values with an aggregation inside
/// (`is_first_distinct` of a `shift_and_fill` by `sum(b)`, a running sum
/// of values less their mean): the executor computes such functions of the
/// frame's columns, before the aggregations. Seed 437, case 291.
#[test]
fn row_order_functions_of_aggregated_values_are_refused_in_ir_lower() {
    let df = df!("b" => [None, Some(1.5f64), Some(1.5)], "g" => [1i64, 1, 2]).unwrap();
    let lf = df.clone().lazy().filter(
        col("b")
            .shift_and_fill(lit(-3i64), col("b").sum())
            .is_first_distinct(),
    );
    assert_same_as_cpu(lf, CLOSE);
    let lf = df.lazy().with_columns([(col("b") - col("b").mean())
        .cum_sum(false)
        .over([col("g")])
        .unwrap()
        .alias("x")]);
    assert_same_as_cpu(lf, CLOSE);
}

/// A struct's field that is a list (`struct.field` of a struct of a list):
/// the executor copies fields of flat types. Seed 458, case 25.
#[test]
fn struct_fields_of_lists_are_refused_in_ir_lower() {
    let df = df!("f" => [Some(17i64), Some(3), None]).unwrap();
    let lf = df
        .lazy()
        .select([concat_list([col("f")]).unwrap().alias("l")])
        .with_columns([as_struct(vec![col("l")]).alias("s")])
        .with_columns([col("s").struct_().field_by_name("l").alias("x")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// A group-by key with an aggregation inside (a `shift_and_fill` by
/// `min(x1)`): the executor computes keys row by row, before any
/// aggregation. Seed 559, case 210.
#[test]
fn keys_with_aggregations_inside_are_refused_in_ir_lower() {
    let df = df!("b" => [None::<i16>, Some(3), Some(3)]).unwrap();
    let lf = df
        .clone()
        .lazy()
        .with_columns([len().alias("x1")])
        .group_by_stable([col("x1")
            .shift_and_fill(lit(1i64), col("x1").min())
            .alias("k")])
        .agg([]);
    assert_same_as_cpu(lf, ORDERED);
    let lf = df.lazy().sort_by_exprs(
        [col("b").fill_null(col("b").max())],
        SortMultipleOptions::default().with_maintain_order(true),
    );
    assert_same_as_cpu(lf, ORDERED);
}

/// A list's filter by a comparison of its texts with their least
/// (`list.eval(element().filter(element().gt(element().min())))`): the
/// executor compares texts with aggregated text row by row in no list
/// either. Seed 696, case 32 (an empty frame).
#[test]
fn list_filters_by_aggregated_text_are_refused_in_ir_lower() {
    let texts = Series::new(
        "c".into(),
        [
            Some(Series::new("".into(), ["b", "a", "c"])),
            None,
            Some(Series::new("".into(), Vec::<&str>::new())),
        ],
    );
    let df = DataFrame::new(3, vec![texts.into_column()]).unwrap();
    for df in [df.clone(), df.head(Some(0))] {
        let lf = df.lazy().with_columns([col("c")
            .list()
            .eval(element().filter(element().gt(element().min())))
            .alias("x2")]);
        assert_same_as_cpu(lf, ORDERED);
    }
}

/// `any_horizontal` of a boolean literal and `len()`, which Polars'
/// optimiser makes `1:u32 | len()` typed bool: the executor found the
/// bitwise `|` of u32 giving no boolean. Seed 785, case 94.
#[test]
fn logical_operators_of_integers_typed_bool_are_refused_in_ir_lower() {
    let df = df!("f" => [None::<u16>, Some(3)]).unwrap();
    let lf = df.lazy().with_columns([any_horizontal([
        lit(9160i32).cast(DataType::Date).is_not_null(),
        len(),
    ])
    .unwrap()
    .alias("x0")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// `fill_null` of a `shift_and_fill` of u8 by its sum (i64, so the shift
/// is i64) with the u8 column itself: Polars' plan leaves the fill value
/// u8, which the executor's program found beside an i64. Seed 913, case
/// 208: both sides are cast to the result's type now, as Polars casts them.
#[test]
fn fill_null_by_a_value_of_another_type_is_cast_to_the_result() {
    let df = df!("b" => [Some(8u8), None, Some(3)], "c" => [None::<i64>, Some(1), None]).unwrap();
    let lf = df.lazy().group_by_stable([col("c")]).agg([col("b")
        .shift_and_fill(lit(-3i64), col("b").sum())
        .fill_null(col("b"))
        .sum()
        .alias("x0")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// A text function of an aggregation under an exploded select (seed 960
/// case 51): the select the explode takes was not checked as other selects
/// are (every node a lowering makes is now).
#[test]
fn text_of_an_aggregation_in_an_exploded_select() {
    let t0 = DataFrame::new(1, vec![Column::new("b".into(), [None::<&str>])]).unwrap();
    let lf = t0
        .lazy()
        .select([(col("b") + col("b").max().str().strip_prefix(lit("a")))
            .str()
            .extract_all(lit("\\d"))
            .explode(ExplodeOptions {
                empty_as_null: true,
                keep_nulls: true,
            })
            .alias("x0")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// Two `replace`s of four values each, nested (seed 1143, case 263: an
/// internal error): a program of the fused evaluator deeper than its
/// kernel's stack, which the executor's last check refused. The parts of
/// such a program that run as programs of their own now run first, each
/// a column of the rest. Also over a frame of rows, in a select and per
/// group.
#[test]
fn fuzz_seed_1143_case_263() {
    let list = |values: [Option<i64>; 4]| lit(Series::new("".into(), values));
    let replaced = |e: Expr| {
        e.replace(
            list([Some(4), Some(-3), None, Some(-2)]),
            list([None, Some(3), Some(0), None]),
        )
        .replace(
            list([Some(-1), Some(1), Some(-2), Some(0)]),
            list([Some(0), Some(0), Some(0), Some(5)]),
        )
    };
    let t0 = df!("b" => [None::<i16>]).unwrap();
    let lf = t0
        .lazy()
        .group_by([lit(1i64).alias("k0")])
        .agg([replaced(col("b")).alias("x2")]);
    assert_same_as_cpu(lf, UNORDERED);
    let values: Vec<Option<i16>> = (-5..6).map(|v| (v != 2).then_some(v)).collect();
    let t1 = df!("b" => values, "g" => (0..11).map(|i| i % 3).collect::<Vec<i64>>()).unwrap();
    let deeper = |e: Expr| replaced(e) * lit(2i16) - lit(1i16);
    let strict = engine_select::Engine::Gpu(crate::under_test().with_raise_on_fail(true));
    for lf in [
        t1.clone().lazy().select([deeper(col("b")).alias("x")]),
        t1.clone()
            .lazy()
            .group_by_stable([col("g")])
            .agg([deeper(col("b")).sum().alias("x")]),
    ] {
        let answer = engine_select::LazyFrameExt::collect_with(lf.clone(), &strict).unwrap();
        assert!(answer.equals_missing(&lf.collect().unwrap()), "{answer}");
    }
}

/// A null-aware inequality Polars pushes through a coalescing join to the
/// other side, where the key has another type than the literal
/// (`col("s"):i32 != -1:i16`): the evaluator computes operands of one
/// type, so it is refused as other comparisons of two types are. Seed 1264
/// (case 34).
#[test]
fn null_aware_comparisons_of_two_types_are_refused_in_ir_lower() {
    let t0 = df!("d" => [Some(i16::MAX), None::<i16>]).unwrap();
    let t1 = df!("s" => [Some(i32::MAX)]).unwrap();
    let args = JoinArgs {
        nulls_equal: true,
        maintain_order: MaintainOrderJoin::None,
        ..JoinArgs::new(JoinType::Inner)
    };
    let lf = t0
        .lazy()
        .join(t1.lazy(), [col("d")], [col("s")], args)
        .filter(lit(-1i64).neq_missing(col("d")));
    assert_same_as_cpu(lf, UNORDERED);
}

/// A rolling group-by with keys of a literal text: the rolled aggregations
/// are taken within each key's rows (a window), and the literal went into
/// such a window too, which the executor does not make of text (an internal
/// error). A value of no other row than its own is the same in any window.
/// Found by the fuzzer (seed 1630, case 146).
#[test]
fn literals_of_rolling_group_bys_with_keys_are_no_windows() {
    let frame = df!("t" => [-1i64, 5, 7], "k" => [1i64, 2, 1])
        .unwrap()
        .lazy();
    let options = RollingGroupOptions {
        index_column: "t".into(),
        period: Duration::parse("50i"),
        offset: Duration::parse("-50i"),
        closed_window: ClosedWindow::Left,
    };
    let lf = frame.rolling(col("t"), [col("k")], options).agg([
        lit("x y").alias("text"),
        lit(3i64).alias("three"),
        len(),
    ]);
    assert_same_as_cpu(lf, ORDERED);
}

/// `when/then/otherwise` of two dynamic literals of different widths
/// (`then(i64::MIN).otherwise(-2)`): Polars materialises both as the
/// result's type (i64); ir-lower took -2 as an i32, which the evaluator
/// does not mix with an i64 (an internal error, as a select's value, a
/// group key and a sort key). Found by the fuzzer (seed 1743, case 190).
#[test]
fn dynamic_literal_branches_take_the_result_type() {
    let frame = df!("d" => [Some(true), Some(false), None]).unwrap().lazy();
    let key = || {
        when(col("d"))
            .then(lit(i64::MIN))
            .otherwise(lit(-2i64))
            .alias("k0")
    };
    assert_same_as_cpu(frame.clone().select([key()]), ORDERED);
    assert_same_as_cpu(frame.clone().group_by([key()]).agg([len()]), UNORDERED);
    assert_same_as_cpu(
        frame.sort_by_exprs(
            [key()],
            SortMultipleOptions::default().with_maintain_order(true),
        ),
        ORDERED,
    );
}

/// `is_between` of a u32 column with bounds Polars plans as i64 (a filter
/// pushed through a join onto the other side's key): Polars compares in
/// the supertype; ir-lower passed the bounds of another type to the
/// predicate kernels, which take one type (an internal error). The input
/// is now widened where the bounds' type holds its values, else refused.
/// Found by the fuzzer (seed 1790, case 67).
#[test]
fn is_between_of_narrower_integers_widens_the_input() {
    let frame = df!("q" => [Some(4u32), None, Some(200_000), Some(0)])
        .unwrap()
        .lazy();
    let between = |lower: Expr, upper: Expr| {
        frame
            .clone()
            .filter(col("q").is_between(lower, upper, ClosedInterval::Both))
    };
    assert_same_as_cpu(between(lit(-100_000i64), lit(100_000i64)), ORDERED);
    assert_same_as_cpu(between(lit(-1i64), lit(4i64)), ORDERED);
    let t0 = df!("a" => [0i64, 1, 4]).unwrap().lazy();
    let joined = t0
        .join(
            frame,
            [col("a")],
            [col("q")],
            JoinArgs::new(JoinType::Inner),
        )
        .filter(col("a").is_between(lit(-100_000), lit(100_000), ClosedInterval::Both));
    assert_same_as_cpu(joined, UNORDERED);
}

/// `when/then/otherwise` of dynamic integer literals that Polars plans as
/// i32 although one needs i64 (`then(-4).otherwise(2**40)`): Polars takes
/// the wider at run time; the lowering kept both types, which the
/// evaluator does not mix (an internal error). Refused now. Found by the
/// fuzzer (seed 1883, case 85).
#[test]
fn dynamic_literal_branches_of_two_widths_the_plan_does_not_hold() {
    let frame = df!("b" => [Some(0.0f32), Some(2.0), None]).unwrap().lazy();
    let branches = || {
        when(col("b").cast(DataType::Boolean))
            .then(lit(-4i64))
            .otherwise(lit(1_099_511_627_776i64))
    };
    assert_same_as_cpu(
        frame
            .clone()
            .group_by([col("b")])
            .agg([(col("b") / branches()).alias("x1")]),
        UNORDERED,
    );
    assert_same_as_cpu(frame.select([branches().alias("x")]), ORDERED);
}

/// The last value of a filter per group whose predicate is a function of
/// text aggregated in the group (`x.filter(t.str.join(", ").str.starts_with(
/// "[ab]")).last()`): ir-lower let it through, the executor's last check
/// refused it (an internal error). Refused in ir-lower now. Found by the
/// fuzzer (seed 2427, case 271).
#[test]
fn filters_by_functions_of_aggregated_text_per_group_are_refused_in_ir_lower() {
    let frame = df!(
        "a" => [Some(0.0f64), Some(1.0)],
        "d" => [None::<&str>, Some("b")],
    )
    .unwrap()
    .lazy();
    let lf = frame
        .with_columns([lit(328i32).cast(DataType::Date).alias("x1")])
        .group_by_stable([col("x1")])
        .agg([col("a")
            .filter(
                col("d")
                    .str()
                    .join(", ", true)
                    .str()
                    .starts_with(lit("[ab]")),
            )
            .last()
            .alias("x6")]);
    assert_same_as_cpu(lf, ORDERED);
}

/// An unpivot of a struct (or list) column and a column of the Null type:
/// the nulls cast to the struct type, which the evaluator does not make
/// (an internal error from the executor's last check). Refused in ir-lower
/// now. Found by the fuzzer (seed 2567, case 211).
#[test]
fn unpivots_of_nulls_into_nested_values_are_refused_in_ir_lower() {
    let frame = df!("x" => [Some(10i64), None]).unwrap().lazy();
    let unpivoted = |made: Expr| {
        frame
            .clone()
            .with_columns([made.alias("nested"), lit(NULL).alias("nothing")])
            .unpivot(UnpivotArgsDSL {
                on: Some(by_name(["nested", "nothing"], true, false)),
                index: by_name([] as [&str; 0], true, false),
                variable_name: Some("variable".into()),
                value_name: Some("value".into()),
            })
    };
    assert_same_as_cpu(unpivoted(as_struct(vec![col("x")])), ORDERED);
    assert_same_as_cpu(
        unpivoted(concat_list([col("x"), col("x")]).unwrap()),
        ORDERED,
    );
}

/// A window of a constant (`lit(0.0).over(c)`), which Polars holds as one
/// value and subtracts from by its scalar kernel (`0.0 - a` is `-a`, -0.0
/// where `a` is 0.0), and the hour of a whole column's minimum converted to
/// a time zone beside a column (a part the executor computes from columns
/// before aggregations): a wrong answer and an internal error. Refused in
/// ir-lower then; the window now lowers to the constant, which the
/// executor subtracts from by the same scalar kernel. Found by the fuzzer
/// (seeds 2677, 2686 and 2746).
#[test]
fn windows_of_constants_and_zones_of_aggregations_are_refused_in_ir_lower() {
    let frame = df!(
        "a" => [Some(0.0f64), Some(1e300), None],
        "c" => [Some("19"), Some("3."), Some("aB")],
        "b" => [Some(473_061_578_627i64), Some(5), None],
    )
    .unwrap()
    .lazy();
    assert_same_as_cpu(
        frame
            .clone()
            .with_columns([(lit(0.0f64).over(vec![col("c")]).unwrap() - col("a")).alias("x0")]),
        ORDERED,
    );
    let zone = crate::fuzz::table::time_zone("Australia/Lord_Howe");
    assert_same_as_cpu(
        frame.clone().select([
            col("b")
                .min()
                .cast(DataType::Datetime(TimeUnit::Nanoseconds, None))
                .dt()
                .convert_time_zone(zone)
                .dt()
                .hour()
                .alias("x0"),
            col("c"),
        ]),
        ORDERED,
    );
    // And gathers at literal places of a gather by indices, or of text
    // shifted (internal errors, seeds 2686 and 2746 in this session's
    // builds).
    assert_same_as_cpu(
        frame.clone().select([col("c")
            .shift(lit(0i64))
            .gather(lit(Series::new("".into(), [5i64, 5])), true)
            .alias("x2")]),
        ORDERED,
    );
    let timestamps =
        frame.select([col("b").cast(DataType::Datetime(TimeUnit::Milliseconds, None))]);
    assert_same_as_cpu(
        timestamps.select([col("b")
            .gather(col("b").dt().minute(), true)
            .gather(lit(Series::new("".into(), [5i64, 1])), true)
            .alias("x1")]),
        ORDERED,
    );
}

/// A filter by `all_horizontal` of a count and a float (`&` of floats,
/// which Polars' optimiser makes of it): ir-lower took the predicate's
/// `&` as of booleans. Seed 3690 (case 45).
#[test]
fn filters_by_bitwise_ands_of_floats_are_refused_in_ir_lower() {
    let df = df!("e" => [None::<f64>, Some(1.5), Some(0.0)]).unwrap();
    let lf = df
        .clone()
        .lazy()
        .filter(all_horizontal([len(), col("e")]).unwrap());
    assert_same_as_cpu(lf, ORDERED);
}

/// A sum of values gathered by another column's `arg_sort` (which Polars'
/// optimiser leaves, unlike a `sort_by` under a sum): ir-lower made it a
/// sum of a sort, which the executor does not run. Floats add in the
/// sorted order, so it stays with Polars; an aggregation the order does
/// not change (a sum of integers, a count) runs of the values as they
/// come. Seed 4345 (case 172).
#[test]
fn aggregations_of_values_in_a_sorted_order_are_decided_in_ir_lower() {
    let t0 = DataFrame::new(
        1,
        vec![
            Column::new("b".into(), [None::<f32>]),
            Column::new("c".into(), [Some(2932896i32)])
                .cast(&DataType::Date)
                .unwrap(),
        ],
    )
    .unwrap();
    let by_c = || col("c").arg_sort(false, false);
    assert_same_as_cpu(
        t0.lazy()
            .select([col("b").gather(by_c(), true).sum().alias("x1")]),
        ORDERED,
    );
    let df = df!(
        "b" => [Some(3i64), None, Some(5), Some(1), Some(2)],
        "f" => [Some(3.5f64), None, Some(-0.0), Some(0.0), Some(2.0)],
        "c" => [5i32, 4, 3, 2, 1],
    )
    .unwrap()
    .lazy();
    for (name, agg) in [
        ("sum", col("b").gather(by_c(), true).sum()),
        ("n_unique", col("f").gather(by_c(), true).n_unique()),
        ("median", col("b").gather(by_c(), true).median()),
        ("first", col("f").gather(by_c(), true).first()),
    ] {
        let lf = df.clone().select([agg.clone()]);
        assert_same_as_cpu(lf.clone(), ORDERED);
        crate::gpu::assert_gpu_eq(name, lf);
        let per_group = df
            .clone()
            .group_by_stable([(col("c") % lit(2)).alias("k")])
            .agg([agg.clone()]);
        crate::gpu::assert_gpu_eq(&format!("{name} per group"), per_group);
        let window = df.clone().select([agg.over([col("c") % lit(2)]).unwrap()]);
        crate::gpu::assert_gpu_eq(&format!("{name} in a window"), window);
    }
}

/// The runs (`rle`) of values made of other rows: the group-by of the runs
/// took each run's first value of text shifted within the group, which the
/// executor does not make (text made of other rows inside an aggregation);
/// the values are now made first, as a column. Seed 5163 (case 241).
#[test]
fn runs_of_values_made_of_other_rows_are_made_first() {
    let t0 = DataFrame::new(2, vec![Column::new("b".into(), [Some("ab"), Some("  ")])]).unwrap();
    let lf = t0
        .lazy()
        .select([col("b").alias("x4")])
        .select([col("x4").shift(lit(2i64)).rle().alias("x5")]);
    assert_same_as_cpu(lf, ORDERED);
    let df = df!(
        "s" => [Some("a"), Some("a"), None, None, Some("b"), Some("a"), Some("a")],
        "i" => [Some(1i64), Some(1), None, Some(2), Some(2), Some(2), Some(1)],
    )
    .unwrap()
    .lazy();
    let reversed = col("i").arg_sort(true, false);
    for (name, values) in [
        ("text shifted", col("s").shift(lit(1))),
        (
            "text filled back",
            col("s").fill_null_with_strategy(FillNullStrategy::Backward(None)),
        ),
        ("text gathered", col("s").gather(reversed.clone(), false)),
        ("integers gathered", col("i").gather(reversed, false)),
        ("integers running", col("i").cum_sum(false)),
    ] {
        let lf = df.clone().select([values.rle().alias("runs")]);
        assert_same_as_cpu(lf.clone(), ORDERED);
        crate::gpu::assert_gpu_eq(name, lf);
    }
}

/// Arithmetic of booleans: Polars adds them as u32 (its plan's type), and
/// raises on the rest where it computes them, but a `list.eval` over no
/// values computes nothing; ir-lower took both, the executor computes no
/// arithmetic of booleans. Stress seed 23252 (case 81).
#[test]
fn arithmetic_of_booleans_is_added_as_integers_or_refused() {
    let t0 = DataFrame::new(
        1,
        vec![
            Series::new("c".into(), Vec::<Option<Series>>::from([None]))
                .cast(&DataType::List(Box::new(DataType::Boolean)))
                .unwrap()
                .into_column(),
        ],
    )
    .unwrap();
    let lf = t0.lazy().with_columns([col("c")
        .list()
        .eval(element().max() - element().min())
        .alias("x4")]);
    assert_same_as_cpu(lf, ORDERED);
    let df = df!("b" => [Some(true), None, Some(false)], "k" => [1i64, 1, 2])
        .unwrap()
        .lazy();
    let lists = df.clone().group_by_stable([col("k")]).agg([col("b")]);
    for (name, lf) in [
        (
            "booleans added",
            df.clone().select([
                (col("b") + col("b")).alias("p"),
                (col("b") + lit(true)).alias("q"),
            ]),
        ),
        (
            "booleans added per list",
            lists.select([col("b").list().eval(element() + element())]),
        ),
    ] {
        assert_same_as_cpu(lf.clone(), ORDERED);
        crate::gpu::assert_gpu_eq(name, lf);
    }
    for lf in [
        df.clone().select([col("b") - col("b")]),
        df.select([col("b") * lit(true)]),
    ] {
        assert_same_as_cpu(lf, ORDERED);
    }
}

/// A function the host applies of an aggregation broadcast to the rows
/// (`cot(max(col("d")))` in a filter, of no rows): the executor hoisted the
/// aggregation first and could not hoist the host's part reading it. Seeds
/// 6093 (case 145) and 6097 (case 127, `first(col("b")).pow(-1.0)`). Now the
/// part is computed first, its aggregation inside.
#[test]
fn host_functions_of_broadcast_aggregations_run() {
    let empty = DataFrame::new(
        0,
        vec![
            Column::new("b".into(), Vec::<Option<i8>>::new()),
            Column::new("d".into(), Vec::<Option<i32>>::new()),
        ],
    )
    .unwrap()
    .lazy();
    let lf = empty.filter(col("b").neq_missing(col("d").max().cot()));
    assert_same_as_cpu(lf, ORDERED);
    let one = df!("b" => [Some(0.0f64)]).unwrap().lazy();
    let lf = one.with_columns([col("b").first().pow(-1.0f64).alias("x1")]);
    assert_same_as_cpu(lf, ORDERED);
    let df = df!(
        "g" => [1i64, 1, 2, 2, 2],
        "x" => [Some(0.5f64), None, Some(-2.0), Some(3.25), Some(1.0)],
    )
    .unwrap()
    .lazy();
    let centred = || (col("x") - col("x").mean()).exp();
    for (name, lf) in [
        (
            "with_columns",
            df.clone()
                .with_columns([centred().alias("c"), col("x").max().sin().alias("m")]),
        ),
        (
            "filter",
            df.clone().filter(centred().gt(col("x").min().exp())),
        ),
        (
            "per group",
            df.clone()
                .group_by_stable([col("g")])
                .agg([centred().sum().alias("c"), col("x").max().cos().alias("m")]),
        ),
        (
            "in a window",
            df.select([centred().over([col("g")]).unwrap().alias("w")]),
        ),
    ] {
        crate::gpu::assert_gpu_eq(name, lf);
    }
}

/// Distinct values over the whole frame where the executor does not take
/// them (two selects of them side by side, a membership in them, inside a
/// rank, a reverse, of a sort; sorted, of floats): the executor refused
/// them after ir-lower had accepted them (internal errors, fallen back),
/// found by probing the kinds of queries users write. Now refused in
/// ir-lower; `select(x.unique().sort())` runs (distinct rows sorted).
#[test]
fn distinct_values_elsewhere_over_the_frame_are_refused_in_ir_lower() {
    let df = df!(
        "g" => [Some("x"), Some("y"), None, Some("y"), Some("z"), Some("x")],
        "a" => [Some(1i64), Some(2), None, Some(4), Some(5), Some(2)],
        "f" => [Some(1.5f64), Some(-0.0), Some(0.0), None, Some(f64::NAN), Some(1.5)],
    )
    .unwrap()
    .lazy();
    for lf in [
        df.clone().select([
            col("g").unique_stable().alias("g"),
            col("g").unique_stable().alias("h"),
        ]),
        df.clone()
            .filter(col("a").is_in(col("a").unique_stable().implode(false), false)),
        df.clone()
            .select([col("a").unique_stable().rank(RankOptions::default(), None)]),
        df.clone()
            .select([col("a").sort(Default::default()).unique_stable()]),
        df.clone().select([col("a").unique_stable().reverse()]),
        df.clone()
            .select([col("f").unique_stable().sort(Default::default())]),
    ] {
        assert_same_as_cpu(lf, ORDERED);
    }
    for lf in [
        df.clone()
            .select([col("g").unique().sort(Default::default())]),
        df.select([(col("a") % lit(2)).unique().sort(
            SortOptions::default()
                .with_order_descending(true)
                .with_nulls_last(true),
        )]),
    ] {
        assert_same_as_cpu(lf.clone(), ORDERED);
        crate::gpu::assert_gpu_eq("distinct values sorted", lf);
    }
}

/// A window inside a window's function as a group-by or sort key: the
/// plan computes inner windows first only for selects, with_columns and
/// filters, so ir-lower refuses them elsewhere. Seeds 6555 (case 59), 6561
/// (case 29) and 6562 (case 100).
#[test]
fn windows_inside_windows_as_keys_are_refused_in_ir_lower() {
    let df = df!(
        "a" => [Some(3.0f64), Some(-1.0), None, Some(3.0)],
        "c" => [Some(0i32), None, Some(0), Some(2)],
        "d" => [None, Some(1i8), Some(1), None],
    )
    .unwrap()
    .lazy();
    let nested = || {
        col("a")
            .max()
            .over(vec![col("c")])
            .unwrap()
            .over(vec![col("d")])
            .unwrap()
    };
    let grouped = df.clone().group_by([nested().alias("k")]).agg([]);
    assert_same_as_cpu(grouped, UNORDERED);
    let sorted = df.sort_by_exprs(
        [nested(), col("a")],
        SortMultipleOptions::default().with_maintain_order(true),
    );
    assert_same_as_cpu(sorted, ORDERED);
}
