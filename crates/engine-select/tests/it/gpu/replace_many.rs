//! `str.replace_many` of literal patterns on the device: both of Aho-Corasick's match kinds Polars offers, ASCII case folded or not, one value or one each, and what stays with Polars.

use super::*;

/// `patterns` as the literal list Polars' `str.replace_many` takes.
fn texts(patterns: &[Option<&str>]) -> Expr {
    lit(Series::new("".into(), patterns.to_vec())).implode(false)
}

#[test]
fn replacing_many_patterns_matches_the_cpu() {
    let frame = df!(
        "g" => [1i64, 2, 1, 2, 1, 2, 1],
        "s" => [Some("abcd abc"), None, Some("Hello hello HELLO"), Some(""), Some("école ÉCOLE"), Some("aaaa"), Some("she sells seashells")],
    )
    .unwrap()
    .lazy();
    let many = |patterns: &[Option<&str>], values: &[Option<&str>], ci: bool, leftmost: bool| {
        col("s")
            .str()
            .replace_many(texts(patterns), texts(values), ci, leftmost)
    };
    // (Standard: the match ending first; leftmost: the one starting first,
    // of those the first pattern.)
    let overlapping = [
        Some("abcd"),
        Some("bc"),
        Some("b"),
        Some("she"),
        Some("he"),
        Some("aa"),
    ];
    let values = [
        Some("1"),
        Some("2"),
        Some("3"),
        Some("4"),
        Some("5"),
        Some("6"),
    ];
    for (name, lf) in [
        (
            "both match kinds",
            frame.clone().select([
                many(&overlapping, &values, false, false).alias("standard"),
                many(&overlapping, &values, false, true).alias("leftmost"),
                many(&[Some("hello"), Some("l")], &[Some("_")], false, false).alias("one value"),
                many(
                    &[Some("é"), Some("co")],
                    &[Some("e"), Some("")],
                    false,
                    true,
                )
                .alias("utf-8"),
            ]),
        ),
        (
            "ASCII case insensitive",
            frame.clone().select([
                many(&[Some("hello")], &[Some("bye")], true, false).alias("standard"),
                many(
                    &[Some("HEL"), Some("hello")],
                    &[Some("x"), Some("y")],
                    true,
                    true,
                )
                .alias("leftmost"),
                many(&[Some("école")], &[Some("school")], true, false).alias("not beyond ASCII"),
            ]),
        ),
        (
            "in a filter, per group",
            frame
                .clone()
                .filter(
                    many(&[Some("l")], &[Some("")], false, false)
                        .str()
                        .len_chars()
                        .gt(lit(3)),
                )
                .group_by_stable([col("g")])
                .agg([many(&[Some("a"), Some("e")], &[Some("o")], false, false).first()]),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
    // An empty pattern stays with Polars; it refuses null patterns and
    // values of another number.
    assert_cpu_answer_with_reason(
        frame
            .clone()
            .select([many(&[Some("a"), Some("")], &[Some("x")], false, false)]),
        "an empty pattern",
    );
    let three = [Some("x"), Some("y"), Some("z")];
    for lf in [
        frame
            .clone()
            .select([many(&[Some("a"), None], &[Some("x")], false, false)]),
        frame.select([many(&[Some("a"), Some("b")], &three, false, false)]),
    ] {
        let answer = lf.collect_with_report(&Engine::Gpu(under_test()));
        assert!(answer.is_err(), "Polars raises, and so does the engine");
    }
}
