//! Categoricals and enums on the device: equality with texts and values by code, membership, keys of group-bys, distinct rows and joins, an enum's order (its codes'), their texts, texts made categories, lists of them; a categorical's comparisons of order stay with Polars.

use super::*;

/// The global categorical type.
fn categorical_type() -> DataType {
    DataType::from_categories(Categories::global())
}

/// A frame with a categorical (the global categories), an enum of the
/// same texts and a second categorical column, nulls in each.
fn categorical_frame() -> LazyFrame {
    let categorical = categorical_type();
    let enumeration =
        DataType::from_frozen_categories(FrozenCategories::new(["c", "b", "a", "d"]).unwrap());
    let mut frame = df!(
        "k" => [3i64, 1, 2, 1, 3, 5, 2, 4],
        "s" => [Some("a"), Some("b"), None, Some("a"), Some("c"), Some("b"), Some("d"), None],
        "e" => [Some("b"), Some("a"), Some("a"), None, Some("c"), Some("b"), Some("d"), Some("a")],
        "t" => [Some("b"), None, Some("c"), Some("a"), Some("c"), Some("b"), Some("a"), Some("d")],
    )
    .unwrap();
    for (name, dtype) in [
        ("s", &categorical),
        ("e", &enumeration),
        ("t", &categorical),
    ] {
        let cast = frame.column(name).unwrap().cast(dtype).unwrap();
        frame.with_column(cast).unwrap();
    }
    frame.lazy()
}

#[test]
fn categoricals_and_enums_compare_group_and_join_by_code() {
    let frame = categorical_frame();
    let texts = |values: &[Option<&str>]| lit(Series::new("texts".into(), values)).implode(false);
    for (name, lf) in [
        ("categoricals and enums, as they are", frame.clone()),
        (
            "filtered by a text",
            frame.clone().filter(col("s").eq(lit("a"))),
        ),
        (
            "filtered by an enum's text",
            frame.clone().filter(col("e").neq(lit("b"))),
        ),
        (
            "compared with texts, present or not, and with each other",
            frame.clone().select([
                col("s").eq(lit("b")).alias("s == b"),
                col("s").neq(lit("zzz")).alias("s != zzz"),
                col("s").eq(lit("zzz")).alias("s == zzz"),
                col("s").eq_missing(lit("zzz")).alias("s eq_missing zzz"),
                col("s").neq_missing(lit("zzz")).alias("s ne_missing zzz"),
                col("s").eq_missing(lit("a")).alias("s eq_missing a"),
                lit("c").eq(col("t")).alias("c == t"),
                col("s").eq(col("t")).alias("s == t"),
                col("s").neq_missing(col("t")).alias("s ne_missing t"),
                col("e").eq(lit("d")).alias("e == d"),
            ]),
        ),
        (
            "members of lists of texts",
            frame.clone().select([
                col("s")
                    .is_in(texts(&[Some("a"), Some("zzz")]), false)
                    .alias("s in [a, zzz]"),
                col("s")
                    .is_in(texts(&[Some("c"), None]), true)
                    .alias("s in [c, null], nulls equal"),
                col("e").is_in(texts(&[Some("b")]), false).alias("e in [b]"),
                col("s")
                    .is_in(col("t").implode(false), false)
                    .alias("s in t"),
            ]),
        ),
        (
            "chosen, filled and tested for nulls",
            frame.clone().select([
                when(col("k").gt(lit(2)))
                    .then(col("s"))
                    .otherwise(col("t"))
                    .alias("when"),
                col("s").fill_null(col("t")).alias("filled"),
                coalesce(&[col("s"), col("t")]).alias("coalesced"),
                col("s").is_null().alias("null"),
                col("s").shift(lit(1)).alias("shifted"),
                col("s").is_first_distinct().alias("first distinct"),
            ]),
        ),
        (
            "grouped by a categorical",
            frame.clone().group_by_stable([col("s")]).agg([
                col("k").sum().alias("sum"),
                col("e").first().alias("first e"),
                col("t").last().alias("last t"),
                col("t").n_unique().alias("distinct t"),
                col("e").count().alias("count e"),
            ]),
        ),
        (
            "grouped by an enum and a categorical",
            frame
                .clone()
                .group_by_stable([col("e"), col("t")])
                .agg([col("k").max()]),
        ),
        (
            "distinct categoricals",
            frame
                .clone()
                .unique_stable(Some(cols(["s", "e"])), UniqueKeepStrategy::First),
        ),
        (
            "joined on categoricals of one dictionary",
            frame.clone().join(
                frame.clone().select([col("t"), col("k").alias("k2")]),
                [col("s")],
                [col("t")],
                JoinArgs {
                    maintain_order: MaintainOrderJoin::Left,
                    ..JoinArgs::new(JoinType::Left)
                },
            ),
        ),
        (
            "sorted by an enum (its categories' order), descending, nulls last",
            frame.clone().sort(
                ["e", "k"],
                SortMultipleOptions::default()
                    .with_order_descending_multi([true, false])
                    .with_nulls_last(true),
            ),
        ),
        (
            "an enum's order: comparisons, extremes",
            frame.clone().select([
                col("e").lt(lit("a")).alias("e < a"),
                col("e").gt_eq(lit("b")).alias("e >= b"),
                lit("d").gt(col("e")).alias("d > e"),
                col("e").min().alias("min e"),
                col("e").max().alias("max e"),
            ]),
        ),
        (
            "an enum's extremes per group",
            frame
                .clone()
                .group_by_stable([col("s")])
                .agg([col("e").min().alias("min"), col("e").max().alias("max")]),
        ),
        (
            "categoricals and enums as text, per row and per group",
            frame.clone().select([
                col("s").cast(DataType::String).alias("s as text"),
                col("e").cast(DataType::String).alias("e as text"),
                (col("t").cast(DataType::String) + lit("!")).alias("t as text!"),
                col("s")
                    .cast(DataType::String)
                    .str()
                    .len_bytes()
                    .alias("length"),
                col("e")
                    .cast(DataType::String)
                    .first()
                    .over([col("t")])
                    .unwrap()
                    .alias("first e per t"),
            ]),
        ),
        (
            "first and last over groups",
            frame.clone().select([
                col("s")
                    .first()
                    .over([col("e")])
                    .unwrap()
                    .alias("first s per e"),
                col("s").last().alias("last s"),
                col("e").n_unique().alias("distinct e"),
            ]),
        ),
        (
            "sorted by a categorical (its texts' order), nulls first and last",
            frame.clone().sort_by_exprs(
                [col("s"), col("k")],
                SortMultipleOptions::default()
                    .with_order_descending_multi([false, true])
                    .with_nulls_last_multi([true, false])
                    .with_maintain_order(true),
            ),
        ),
        (
            "sorted descending by a categorical, then by another",
            frame.clone().sort_by_exprs(
                [col("t"), col("s")],
                SortMultipleOptions::default()
                    .with_order_descending(true)
                    .with_maintain_order(true),
            ),
        ),
        (
            "categoricals sorted inside expressions and ordering windows",
            frame.clone().select([
                col("s").sort(SortOptions::default()).alias("sorted s"),
                col("k")
                    .sort_by(
                        [col("t")],
                        SortMultipleOptions::default().with_maintain_order(true),
                    )
                    .alias("k by t"),
                col("t").arg_sort(true, false).alias("t descending places"),
                col("k")
                    .cum_sum(false)
                    .over_with_options(
                        None::<Vec<Expr>>,
                        Some((vec![col("s")], Default::default())),
                        Default::default(),
                    )
                    .unwrap()
                    .alias("running k by s"),
            ]),
        ),
        (
            "a categorical's extremes (its texts')",
            frame.clone().select([
                col("s").min().alias("least s"),
                col("t").max().alias("greatest t"),
            ]),
        ),
        (
            "a categorical's extremes per group",
            frame.clone().group_by_stable([col("e")]).agg([
                col("s").min().alias("least s"),
                col("s").max().alias("greatest s"),
                col("t").max().alias("greatest t"),
            ]),
        ),
        (
            "the first rows by a categorical's order (top-k)",
            frame.clone().top_k(
                3,
                [col("s"), col("k")],
                SortMultipleOptions::default().with_maintain_order(true),
            ),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
    // Categories made out of their texts' order (codes 0, 1, 2 for z, a,
    // m): sorts and extremes follow the texts, not the codes.
    let unordered = df!(
        "c" => [Some("zz order"), Some("aa order"), Some("mm order"), None, Some("aa order"), Some("zz order")],
        "g" => [1i64, 2, 1, 2, 1, 2],
    )
    .unwrap()
    .lazy()
    .with_columns([col("c").cast(categorical_type())])
    .collect()
    .unwrap()
    .lazy();
    for (name, lf) in [
        (
            "sorted by texts whose codes run otherwise",
            unordered.clone().sort(
                ["c"],
                SortMultipleOptions::default().with_maintain_order(true),
            ),
        ),
        (
            "extremes of texts whose codes run otherwise",
            unordered.clone().select([
                col("c").min().alias("least"),
                col("c").max().alias("greatest"),
                col("c")
                    .sort(SortOptions::default().with_order_descending(true))
                    .first()
                    .alias("first descending"),
            ]),
        ),
        (
            "extremes per group of texts whose codes run otherwise",
            unordered.clone().group_by_stable([col("g")]).agg([
                col("c").min().alias("least"),
                col("c").max().alias("greatest"),
            ]),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
    for (name, lf) in [
        (
            "a categorical's order (its texts') with texts, nulls and itself",
            frame.clone().select([
                col("s").lt(lit("b")).alias("s < b"),
                col("s").gt_eq(lit("bz")).alias("s >= bz"),
                lit("b").lt_eq(col("t")).alias("b <= t"),
                col("s").gt(col("t")).alias("s > t"),
                col("s")
                    .lt(lit(NULL).cast(DataType::String))
                    .alias("s < null"),
                col("s")
                    .is_between(lit("a"), lit("c"), ClosedInterval::Left)
                    .alias("s in [a, c)"),
            ]),
        ),
        (
            "a categorical compared with computed texts",
            frame.clone().select([
                col("s")
                    .eq(col("t").cast(DataType::String))
                    .alias("s == t as text"),
                col("s")
                    .lt(col("t").cast(DataType::String) + lit("a"))
                    .alias("s < t as text + a"),
            ]),
        ),
        (
            "filtered by a categorical's order",
            frame.clone().filter(col("s").lt(lit("b"))),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
    // A text no enum value has: Polars raises, and so does the engine.
    assert_cpu_error(frame.filter(col("e").lt(lit("zzz"))));
}

#[test]
fn texts_made_categories_match_the_cpu() {
    let enumeration =
        DataType::from_frozen_categories(FrozenCategories::new(["c", "b", "a", "d"]).unwrap());
    let frame = df!(
        "k" => [3i64, 1, 2, 1, 3, 5, 2, 4],
        "s" => [Some("b"), Some("new x"), None, Some("a"), Some("new y"), Some("b"), Some("new x"), Some("d")],
        "e" => [Some("b"), Some("a"), None, Some("c"), Some("d"), Some("a"), Some("a"), Some("b")],
    )
    .unwrap()
    .lazy();
    // Texts no categorical held yet, made categories on the device first:
    // Polars' dictionary takes them in the order they first come, and the
    // codes the CPU's cast gives later are the same; texts the plan
    // compares with, absent as it is lowered, compare as texts.
    let fresh = df!(
        "t" => [Some("fresh c"), Some("fresh a"), None, Some("fresh c"), Some("fresh b")],
    )
    .unwrap()
    .lazy()
    .select([col("t").cast(categorical_type())]);
    let engine = Engine::Gpu(under_test().with_raise_on_fail(true));
    let (made, report) = fresh.clone().collect_with_report(&engine).unwrap();
    assert_eq!(report.executed_by, under_test_executed_by());
    let codes = made
        .column("t")
        .unwrap()
        .to_physical_repr()
        .cast(&DataType::UInt32)
        .unwrap();
    let codes: Vec<Option<u32>> = codes.u32().unwrap().iter().collect();
    let first = codes[0].unwrap();
    assert_eq!(
        codes,
        [
            Some(first),
            Some(first + 1),
            None,
            Some(first),
            Some(first + 2)
        ]
    );
    assert!(fresh.collect().unwrap().equals_missing(&made));
    let compared = df!("t" => ["later a", "later b", "later a"])
        .unwrap()
        .lazy()
        .with_columns([col("t").cast(categorical_type())])
        .select([
            col("t").eq(lit("later a")).alias("t == later a"),
            col("t")
                .neq_missing(lit("later b"))
                .alias("t ne_missing later b"),
            col("t")
                .is_in(
                    lit(Series::new("".into(), ["later b"])).implode(false),
                    false,
                )
                .alias("t in [later b]"),
        ]);
    let (gpu, report) = compared.clone().collect_with_report(&engine).unwrap();
    assert_eq!(report.executed_by, under_test_executed_by());
    let cpu = compared.collect().unwrap();
    assert!(cpu.equals_missing(&gpu), "expected {cpu}\nactual {gpu}");
    for (name, lf) in [
        (
            "texts made categories, new ones among them",
            frame.clone().select([
                col("s").cast(categorical_type()).alias("s"),
                col("e").cast(enumeration.clone()).alias("e"),
            ]),
        ),
        (
            "texts made categories, then compared, grouped and sorted",
            frame
                .clone()
                .with_columns([col("s").cast(categorical_type())])
                .filter(col("s").neq(lit("b")))
                .group_by([col("s")])
                .agg([col("k").sum()])
                .sort(["s"], Default::default()),
        ),
        (
            "texts made inside an expression made categories, per group",
            frame.clone().group_by_stable([col("e")]).agg([
                (col("s") + lit("!"))
                    .cast(categorical_type())
                    .first()
                    .alias("first"),
                col("s").cast(categorical_type()).max().alias("greatest"),
            ]),
        ),
        (
            "texts an enum lacks made null by a cast that is not strict",
            frame
                .clone()
                .select([col("s").cast(enumeration.clone()).alias("s as enum")]),
        ),
        (
            "no texts made categories",
            frame
                .clone()
                .filter(col("k").gt(lit(10)))
                .select([col("s").cast(categorical_type())]),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
    // A strict cast of a text the enum lacks: Polars raises, and so does
    // the engine.
    assert_cpu_error(frame.select([col("s").strict_cast(enumeration)]));
}

/// Lists of categoricals and enums, as their codes: made per group and by
/// `implode`, carried, exploded, measured and picked from, sliced, sorted
/// within each list (a categorical by its texts: categories here made in
/// another order than their texts'; an enum in its order), evaluated,
/// searched for a literal or an item per row and a literal's matches
/// counted (by code), their extremes taken (by code,
/// as Polars takes a list's), keys of a group-by; comparisons stay with
/// Polars.
#[test]
fn lists_of_categoricals_and_enums_match_the_cpu() {
    let enumeration = DataType::from_frozen_categories(
        FrozenCategories::new(["lc-z", "lc-m", "lc-a", "lc-b"]).unwrap(),
    );
    let frame = df!(
        "g" => [Some("lc-z"), Some("lc-m"), Some("lc-a"), None, Some("lc-m"), Some("lc-a"), Some("lc-z"), Some("lc-b")],
        "k" => [1i64, 2, 1, 2, 3, 3, 1, 4],
        "x" => [Some(1.5f64), None, Some(-0.5), Some(0.25), Some(3.0), Some(2.5), Some(0.0), Some(-3.25)],
    )
    .unwrap()
    .lazy()
    .with_columns([
        col("g").cast(categorical_type()).alias("c"),
        col("g").cast(enumeration).alias("e"),
    ]);
    let lists = || {
        frame
            .clone()
            .group_by_stable([col("k")])
            .agg([col("c"), col("e")])
    };
    let explode = ExplodeOptions {
        empty_as_null: true,
        keep_nulls: true,
    };
    let sorted = |descending, nulls_last| SortOptions {
        descending,
        nulls_last,
        ..Default::default()
    };
    for (name, lf) in [
        ("listed per group", lists()),
        (
            "distinct, valid, sorted and filtered per group",
            frame.clone().group_by_stable([col("k")]).agg([
                col("c").unique_stable().alias("u"),
                col("e").drop_nulls().alias("d"),
                col("c").sort(Default::default()).alias("s"),
                col("e").filter(col("x").gt(lit(0.0))).alias("f"),
                col("c").head(Some(2)).alias("h"),
            ]),
        ),
        (
            "imploded",
            frame
                .clone()
                .select([col("c").implode(false), col("e").implode(false)]),
        ),
        (
            "exploded",
            lists().explode(by_name(["c", "e"], true, false), explode),
        ),
        (
            "measured, picked and sliced",
            lists().select([
                col("c").list().len().alias("n"),
                col("c").list().get(lit(0), true).alias("g"),
                col("e").list().last().alias("l"),
                col("c").list().get(col("k") - lit(2), true).alias("at"),
                col("e").list().slice(lit(1), lit(2)).alias("s"),
                col("c").list().drop_nulls().alias("d"),
                col("e").list().shift(lit(1)).alias("sh"),
            ]),
        ),
        (
            "each list's extremes, by code (as Polars takes them of lists)",
            lists().select([
                col("c").list().min().alias("c min"),
                col("c").list().max().alias("c max"),
                col("e").list().min().alias("e min"),
                col("e").list().max().alias("e max"),
            ]),
        ),
        (
            "sorted within each list",
            lists().select([
                col("c").list().sort(sorted(false, false)).alias("c"),
                col("c").list().sort(sorted(true, true)).alias("c desc"),
                col("e").list().sort(sorted(false, true)).alias("e"),
                col("e").list().sort(sorted(true, false)).alias("e desc"),
            ]),
        ),
        (
            "evaluated",
            lists().select([
                col("c")
                    .list()
                    .eval(col("").sort(Default::default()).first())
                    .alias("least"),
                col("c").list().eval(col("").eq(lit("lc-a"))).alias("is a"),
                col("c")
                    .list()
                    .eval(col("").cast(DataType::String))
                    .alias("texts"),
                col("e")
                    .list()
                    .eval(col("").fill_null(lit("lc-b")))
                    .alias("filled"),
                col("c").list().agg(col("").n_unique()).alias("distinct"),
            ]),
        ),
        (
            "carried by a filter and a sort, and as keys",
            lists().filter(col("k").gt(lit(1))).sort(
                ["k"],
                SortMultipleOptions::default().with_order_descending(true),
            ),
        ),
        (
            "an item per row in its list, by code",
            lists()
                .with_columns([col("c").list().last().alias("last")])
                .select([
                    col("last").is_in(col("c"), false).alias("in"),
                    col("c")
                        .list()
                        .contains(col("c").list().first(), true)
                        .alias("contains"),
                    col("e")
                        .list()
                        .get(lit(1), true)
                        .is_in(col("e"), true)
                        .alias("enum in"),
                    col("c").list().contains(lit("lc-a"), true).alias("holds a"),
                    col("e").list().contains(lit("lc-m"), true).alias("holds m"),
                    col("c").list().count_matches(lit("lc-z")).alias("z count"),
                    col("e").list().count_matches(lit("lc-a")).alias("a count"),
                ]),
        ),
        (
            "keys of a group-by",
            lists().group_by_stable([col("c")]).agg([col("k").sum()]),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
    // (Polars compares no categorical with a null: stress seed 23291.)
    assert_cpu_error(lists().select([col("c").list().count_matches(lit(NULL))]));
    assert_cpu_answer_with_reason(
        lists().select([col("c").eq(col("c").shift(lit(1)))]),
        "comparisons of list[cat]",
    );
}

/// `list.arg_min` and `list.arg_max` of lists of texts and categoricals
/// (by their texts, the first least and the last greatest, as Polars takes
/// them) and of enums (by their order, the first of either): ties, nulls,
/// lists of no valid value and empty lists, in lists made per group and
/// in a column of lists.
#[test]
fn places_of_extremes_of_lists_of_texts_and_categoricals_match_the_cpu() {
    let enumeration = DataType::from_frozen_categories(
        FrozenCategories::new(["pe-z", "pe-m", "pe-a", "pe-b"]).unwrap(),
    );
    let frame = df!(
        "g" => [Some("pe-z"), Some("pe-m"), Some("pe-a"), None, Some("pe-m"), Some("pe-a"), Some("pe-z"), Some("pe-b"), Some("pe-z"), None, Some("pe-a")],
        "k" => [1i64, 2, 1, 2, 3, 3, 1, 5, 1, 6, 3],
    )
    .unwrap()
    .lazy()
    .with_columns([
        col("g").cast(categorical_type()).alias("c"),
        col("g").cast(enumeration).alias("e"),
    ]);
    let lists = frame
        .group_by_stable([col("k")])
        .agg([col("g"), col("c"), col("e")]);
    let places = |name: &str| {
        [
            col(name).list().arg_min().alias(format!("{name} arg_min")),
            col(name).list().arg_max().alias(format!("{name} arg_max")),
        ]
    };
    assert_gpu_eq(
        "lists made per group",
        lists
            .clone()
            .select([places("g"), places("c"), places("e")].concat()),
    );
    assert_gpu_eq(
        "lists of nulls only",
        lists.select([col("c")
            .list()
            .eval(element().filter(element().is_null()))
            .list()
            .arg_max()]),
    );
    let texts = Series::new(
        "l".into(),
        [
            Some(Series::new("".into(), ["b", "a", "b", "a"])),
            None,
            Some(Series::new("".into(), Vec::<&str>::new())),
            Some(Series::new("".into(), [None, Some("x"), Some("x")])),
            Some(Series::new("".into(), [None::<&str>, None])),
            Some(Series::new("".into(), ["é", "e", "z"])),
        ],
    );
    assert_gpu_eq(
        "a column of lists of texts",
        DataFrame::new(6, vec![texts.into()])
            .unwrap()
            .lazy()
            .select(places("l")),
    );
}
