//! String functions on the device: slices, case, padding, concatenation, strips, replacements, matches and regexes.

use super::*;

#[test]
fn string_slices_match_the_cpu() {
    let words = || {
        df!(
            "s" => [Some("+13-555"), Some(""), None, Some("ünïcode 中文 😀"), Some("ab"), Some("exactly"), Some("\n\n")],
            "n" => [1i64, 2, 3, 4, 5, 6, 7],
        )
        .unwrap()
        .lazy()
    };
    let slices: &[(i64, Option<u64>)] = &[
        (0, Some(2)),
        (1, Some(3)),
        (0, None),
        (4, None),
        (-3, None),
        (-3, Some(2)),
        (-9, Some(4)),
        (-100, Some(200)),
        (100, Some(1)),
        (2, Some(0)),
    ];
    for &(offset, length) in slices {
        let sliced = match length {
            Some(length) => col("s").str().slice(lit(offset), lit(length)),
            None => col("s").str().slice(lit(offset), lit(NULL)),
        };
        assert_gpu_eq(
            &format!("slice({offset}, {length:?})"),
            words().with_columns([sliced.clone().alias("part")]),
        );
    }
    let cases = [
        (
            "slice of a slice, then grouped by",
            words()
                .with_columns([col("s")
                    .str()
                    .slice(lit(1), lit(6u64))
                    .str()
                    .slice(lit(-2), lit(1u64))
                    .alias("part")])
                .group_by([col("part")])
                .agg([col("n").sum()])
                .sort(["part"], Default::default()),
        ),
        (
            "a slice matched by a pattern",
            words()
                .with_columns([col("s").str().slice(lit(0), lit(3u64)).alias("code")])
                .filter(col("code").str().contains(lit("13|ab|ün"), true)),
        ),
        (
            "a string column copied under a new name",
            words().with_columns([col("s").alias("t")]),
        ),
        (
            "lengths in bytes and characters",
            words().select([
                col("s").str().len_bytes().alias("bytes"),
                col("s").str().len_chars().alias("chars"),
                (col("s").str().len_bytes() - col("s").str().len_chars()).alias("extra bytes"),
            ]),
        ),
        (
            "a filter and a sum of lengths",
            words()
                .filter(col("s").str().len_chars().gt(lit(2u32)))
                .select([col("s").str().len_chars().sum().alias("chars")]),
        ),
    ];
    for (name, lf) in cases {
        assert_gpu_eq(name, lf);
    }
}

/// `str.slice`, `head` and `tail` by each row's bounds: offsets from
/// either end, past either end, counts of every sign, null bounds, bounds
/// of other integer types and of expressions, beside a literal bound.
#[test]
fn slices_by_each_rows_bounds_match_the_cpu() {
    let texts = [
        Some("+13-555"),
        Some(""),
        None,
        Some("ünïcode 中文 😀"),
        Some("ab"),
        Some("exactly"),
        Some("\n\n"),
        Some("xyz"),
    ];
    let frame = df!(
        "s" => texts,
        "o" => [Some(1i64), Some(-2), Some(0), Some(-100), None, Some(100), Some(-7), Some(-3)],
        "l" => [Some(2u32), None, Some(0), Some(200), Some(1), Some(3), Some(1), Some(u32::MAX)],
        "n" => [Some(2i16), Some(-1), None, Some(-3), Some(0), Some(-100), Some(100), Some(i16::MIN)],
        // Not i64::MIN, which Polars negates (a panic in its debug build).
        "m" => [i64::MIN + 1, i64::MAX, -1, 3, 0, -7, 7, i64::MIN + 1],
    )
    .unwrap()
    .lazy();
    let s = || col("s").str();
    assert_gpu_eq(
        "slices by each row's offsets and lengths",
        frame.clone().select([
            s().slice(col("o"), col("l")).alias("both"),
            s().slice(col("o"), lit(NULL)).alias("to the end"),
            s().slice(lit(1), col("l")).alias("a literal offset"),
            s().slice(col("n"), lit(2u64)).alias("an i16 offset"),
            s().slice(col("m"), col("l")).alias("extreme offsets"),
            s().slice(col("o") * lit(2), col("n").abs().cast(DataType::UInt8))
                .alias("computed"),
            s().head(col("n")).alias("head"),
            s().tail(col("n")).alias("tail"),
            s().head(col("m")).alias("head of extremes"),
            s().tail(col("m")).alias("tail of extremes"),
            s().to_uppercase()
                .str()
                .tail(col("o"))
                .str()
                .len_chars()
                .alias("length of the tail of a computed text"),
        ]),
    );
    assert_gpu_eq(
        "slices per group",
        frame
            .clone()
            .group_by_stable([col("l").is_null()])
            .agg([s().head(col("n")).alias("heads")]),
    );
    // Polars casts a length strictly: a negative one raises.
    assert_cpu_error(frame.clone().select([s().slice(col("o"), col("n"))]));
    assert_cpu_answer_with_reason(
        frame.select([s().slice(col("o").cast(DataType::Float64), lit(1u64))]),
        "str.slice by bounds of f64 is not supported",
    );
}

/// `pad_start`, `pad_end` and `zfill` to each row's length (null where
/// the length is; of any integer type, cast strictly: a negative one
/// leaves Polars to raise).
#[test]
fn paddings_to_each_rows_length_match_the_cpu() {
    let frame = df!(
        "s" => [Some("ab"), Some("-12"), None, Some("ünï"), Some(""), Some("+7"), Some("😀x")],
        "n" => [Some(5u32), Some(6), Some(3), None, Some(0), Some(4), Some(1)],
        "i" => [3i16, 7, 1, 2, 4, 9, -1],
    )
    .unwrap()
    .lazy();
    let s = || col("s").str();
    assert_gpu_eq(
        "paddings to each row's length",
        frame.clone().select([
            s().pad_start(col("n"), '*').alias("start"),
            s().pad_end(col("n"), 'é').alias("end"),
            s().zfill(col("n")).alias("zfill"),
            s().pad_start(col("n") * lit(2u32), '😀').alias("computed"),
            s().to_uppercase()
                .str()
                .zfill(col("n"))
                .str()
                .len_bytes()
                .alias("length of a computed zfill"),
        ]),
    );
    assert_cpu_error(frame.select([s().pad_end(col("i"), '-')]));
}

#[test]
fn case_changes_map_every_character_as_polars_does() {
    let texts = df!(
        "s" => [
            Some("hello, World 42"),
            Some("straße ﬁnal ŉ ΐ"),
            Some(""),
            None,
            Some("ǅ ǆ ǈ ß ᾳ ǰ İ ı"),
            Some("日本語 😀 ёжик"),
            Some("ÀÉÎÕÜ àéîõü"),
        ],
    )
    .unwrap()
    .lazy();
    assert_gpu_eq(
        "str.to_uppercase",
        texts.clone().select([
            col("s").str().to_uppercase().alias("upper"),
            col("s")
                .str()
                .slice(lit(1i64), lit(4u64))
                .str()
                .to_uppercase()
                .alias("slice then upper"),
            col("s")
                .str()
                .to_uppercase()
                .str()
                .slice(lit(-3i64), lit(2u64))
                .alias("upper then slice"),
        ]),
    );
    // No byte to write at all (a property test found this crash).
    assert_gpu_eq(
        "str.to_uppercase of empty and null texts",
        df!("s" => [Some(""), None, Some("")])
            .unwrap()
            .lazy()
            .select([col("s").str().to_uppercase()]),
    );
    // Lower case, with the final-sigma rule in its contexts (words, marks,
    // apostrophes, and past Polars' 16-byte ASCII blocks).
    let greek = df!(
        "s" => [
            Some("ΟΔΥΣΣΕΥΣ"),
            Some("ΣΑΣ ΣΑΣ. Σ"),
            Some("ΑΣ' Α'Σ ΑΣ\u{0301} Α\u{0301}Σ"),
            Some("ABCDEFGHIJKLMNOPΣ"),
            Some("ABCDEFGHIJKLMNOPQΣ"),
            Some("İSTANBUL ǅ ẞ"),
            None,
        ],
    )
    .unwrap()
    .lazy();
    assert_gpu_eq(
        "str.to_lowercase",
        texts
            .clone()
            .collect()
            .unwrap()
            .vstack(&greek.collect().unwrap())
            .unwrap()
            .lazy()
            .select([
                col("s").str().to_lowercase().alias("lower"),
                col("s")
                    .str()
                    .to_uppercase()
                    .str()
                    .to_lowercase()
                    .alias("upper, lower"),
            ]),
    );
}

#[test]
fn padding_text_literals_and_dates_as_text_match_the_cpu() {
    let frame = || {
        df!(
            "s" => [Some("7"), Some("-42"), Some("+3"), None, Some(""), Some("héllo"), Some("-"), Some("😀x"), Some("123456789")],
        )
        .unwrap()
        .lazy()
    };
    let s = || col("s").str();
    assert_gpu_eq(
        "pad_start, pad_end and zfill",
        frame().select([
            s().pad_start(lit(5), '*').alias("start 5"),
            s().pad_end(lit(7), 'é').alias("end 7"),
            s().pad_start(lit(0), ' ').alias("start 0"),
            s().zfill(lit(4)).alias("zfill 4"),
            s().zfill(lit(0)).alias("zfill 0"),
            s().to_uppercase()
                .str()
                .pad_start(lit(6), '😀')
                .alias("computed"),
            s().zfill(lit(NULL).cast(DataType::UInt64))
                .alias("null length"),
        ]),
    );
    let days = [
        Some(0i32),
        Some(-1),
        None,
        Some(19_723),
        Some(-719_529),
        Some(2_932_897),
        Some(-25_000),
    ];
    let dates = df!("days" => days).unwrap().lazy().with_columns([
        col("days").cast(DataType::Date).alias("d"),
        (col("days").cast(DataType::Int64) * lit(86_400_000i64) + lit(45_296_789i64))
            .cast(DataType::Datetime(TimeUnit::Milliseconds, None))
            .alias("ms"),
        (col("days").cast(DataType::Int64) * lit(86_400_000_000i64) - lit(1i64))
            .cast(DataType::Datetime(TimeUnit::Microseconds, None))
            .alias("us"),
        (col("days").cast(DataType::Int64) * lit(86_400_000_000_000i64) / lit(9i64))
            .cast(DataType::Datetime(TimeUnit::Nanoseconds, None))
            .alias("ns"),
    ]);
    assert_gpu_eq(
        "dates and timestamps as text",
        dates.select([
            col("d").cast(DataType::String),
            col("ms").cast(DataType::String),
            col("us").cast(DataType::String),
            col("ns").cast(DataType::String),
            (lit("on ") + col("d").cast(DataType::String)).alias("sentence"),
        ]),
    );
    assert_gpu_eq(
        "text literals repeated on every row",
        frame().with_columns([
            lit("x").alias("text"),
            lit(NULL).cast(DataType::String).alias("null text"),
        ]),
    );
    assert_gpu_eq(
        "zfill to a length of the text's own",
        frame().select([s().zfill(col("s").str().len_chars() * lit(2u32))]),
    );
}

#[test]
fn string_concatenation_matches_the_cpu() {
    let frame = || table().with_columns([col("s").str().to_uppercase().alias("t")]);
    assert_gpu_eq(
        "+ of strings",
        frame().select([
            (col("s") + col("t")).alias("s + t"),
            (lit("<") + col("s") + lit(">")).alias("bracketed"),
            (col("s") + lit(NULL).cast(DataType::String)).alias("plus null"),
            (col("s").str().slice(lit(0), lit(2)) + lit("|") + col("t").shift(lit(1)))
                .alias("computed"),
            (col("s") + lit("")).alias("plus nothing"),
        ]),
    );
    assert_gpu_eq(
        "concat_str",
        frame().select([
            concat_str([col("s"), col("t")], "", false).alias("plain"),
            concat_str([col("s"), lit("-"), col("t")], ", ", false).alias("separated"),
            concat_str([col("s"), col("t"), col("s")], "|", true).alias("ignoring nulls"),
            concat_str([col("s")], "|", true).alias("one, ignoring nulls"),
            concat_str([lit(NULL).cast(DataType::String), col("t")], "/", true)
                .alias("null literal"),
            concat_str(
                [col("s").str().slice(lit(1), lit(NULL)), col("t")],
                "€",
                false,
            )
            .alias("computed"),
        ]),
    );
    assert_gpu_eq(
        "integers and booleans as text",
        frame().select([
            col("i").cast(DataType::String).alias("i64"),
            col("u").cast(DataType::String).alias("u32"),
            col("b").cast(DataType::String).alias("bool"),
            (col("i") % lit(100i64))
                .cast(DataType::Int8)
                .cast(DataType::String)
                .alias("i8"),
            concat_str([col("s"), col("i"), col("b")], "-", true).alias("mixed"),
        ]),
    );
    assert_gpu_eq(
        "coalesce and fill_null of texts",
        frame().select([
            coalesce(&[col("s"), col("t").shift(lit(1))]).alias("two"),
            col("s").fill_null(lit("?")).alias("fill_null"),
            coalesce(&[
                col("s").shift(lit(2)),
                lit(NULL).cast(DataType::String),
                col("t").shift(lit(1)),
                lit("z"),
            ])
            .alias("four"),
        ]),
    );
    assert_gpu_eq(
        "when/then/otherwise of texts",
        frame().select([
            when(col("i").gt(lit(0i64)))
                .then(lit("positive"))
                .otherwise(lit("not positive"))
                .alias("literals"),
            when(col("b"))
                .then(col("s"))
                .otherwise(col("t"))
                .alias("columns"),
            when(col("s").eq(lit("x")))
                .then(lit(NULL).cast(DataType::String))
                .otherwise(col("s").str().to_uppercase())
                .alias("null branch"),
            when(col("f").is_nan())
                .then(lit("nan"))
                .when(col("f").gt(lit(0.0)))
                .then(col("i").cast(DataType::String))
                .otherwise(col("s"))
                .alias("chained"),
        ]),
    );
    assert_gpu_eq(
        "extreme 64-bit integers as text",
        df!(
            "u" => [Some(0u64), Some(u64::MAX), None, Some(10), Some(9)],
            "i" => [Some(i64::MIN), Some(i64::MAX), Some(-1), Some(0), None],
        )
        .unwrap()
        .lazy()
        .select([
            col("u").cast(DataType::String),
            col("i").cast(DataType::String),
        ]),
    );
    assert_gpu_eq(
        "floats in concat_str",
        frame().select([concat_str([col("s"), col("f")], "", false)]),
    );
}

#[test]
fn strips_heads_and_tails_of_strings_match_the_cpu() {
    let texts = [
        Some("  padded\t"),
        Some("\u{3000}\u{2003}ideographic\u{85}\n"),
        Some("xx--xyx"),
        Some(""),
        None,
        Some("   "),
        Some("€uro€"),
        Some("no change"),
        Some("😀 grin 😀"),
    ];
    let frame = df!("s" => texts).unwrap().lazy();
    let mut exprs = vec![
        col("s").str().strip_chars(lit(NULL)).alias("strip"),
        col("s")
            .str()
            .strip_chars_start(lit(NULL))
            .alias("strip start"),
        col("s").str().strip_chars_end(lit(NULL)).alias("strip end"),
        col("s").str().strip_chars(lit("x-")).alias("strip x-"),
        col("s")
            .str()
            .strip_chars_start(lit("€u"))
            .alias("strip start €u"),
        col("s")
            .str()
            .strip_chars_end(lit("😀 "))
            .alias("strip end emoji"),
        col("s").str().strip_chars(lit("")).alias("strip nothing"),
        col("s")
            .str()
            .to_uppercase()
            .str()
            .strip_chars(lit("X"))
            .alias("upper strip"),
    ];
    for n in [0i64, 1, 3, 20] {
        exprs.push(col("s").str().head(lit(n)).alias(format!("head {n}")));
        exprs.push(col("s").str().tail(lit(n)).alias(format!("tail {n}")));
        exprs.push(col("s").str().tail(lit(-n)).alias(format!("tail -{n}")));
        exprs.push(col("s").str().head(lit(-n)).alias(format!("head -{n}")));
    }
    for affix in ["", "a", "x", "€u", "😀", "x y"] {
        exprs.push(
            col("s")
                .str()
                .strip_prefix(lit(affix))
                .alias(format!("strip prefix {affix:?}")),
        );
        exprs.push(
            col("s")
                .str()
                .strip_suffix(lit(affix))
                .alias(format!("strip suffix {affix:?}")),
        );
    }
    assert_gpu_eq("strip, head and tail", frame.clone().select(exprs));
    // Affixes of each row's: the text itself, a part of it, other texts,
    // empty and null ones.
    let affixes = [
        Some("  pad"),
        Some("\n"),
        Some("xy"),
        Some(""),
        Some("x"),
        None,
        Some("€"),
        Some(""),
        Some("😀"),
    ];
    let s = || col("s").str();
    assert_gpu_eq(
        "strip_prefix and strip_suffix of each row's affix",
        frame
            .with_column(lit(Series::new("a".into(), affixes)).alias("a"))
            .select([
                s().strip_prefix(col("a")).alias("prefix"),
                s().strip_suffix(col("a")).alias("suffix"),
                s().strip_prefix(col("s")).alias("prefix itself"),
                s().strip_suffix(col("s")).alias("suffix itself"),
                s().strip_suffix(s().tail(lit(2)))
                    .alias("suffix of its tail"),
                s().strip_prefix(col("a").str().to_uppercase())
                    .str()
                    .len_chars()
                    .alias("length after a computed prefix"),
                s().strip_chars(col("a"))
                    .alias("strip the affix's characters"),
                s().strip_chars_start(col("a"))
                    .alias("strip them at the start"),
                s().strip_chars_end(col("a").str().head(lit(1)))
                    .alias("strip a computed set"),
            ]),
    );
}

#[test]
fn replacements_match_the_cpu() {
    let texts = [
        Some("aaaa"),
        Some("banana"),
        None,
        Some(""),
        Some("a€a€€b"),
        Some("no match here"),
        Some("ana ana anana"),
        Some("😀😀x😀"),
    ];
    let frame = df!("s" => texts).unwrap().lazy();
    let s = || col("s").str();
    assert_gpu_eq(
        "str.replace and replace_all of literal texts",
        frame.clone().select([
            s().replace(lit("a"), lit("o"), true).alias("first a"),
            s().replace_all(lit("a"), lit("o"), true).alias("every a"),
            s().replace_all(lit("ana"), lit(""), true)
                .alias("every ana, removed"),
            s().replace_n(lit("a"), lit("[$0]"), true, 2).alias("two a"),
            s().replace_n(lit("a"), lit("x"), true, 0).alias("no a"),
            s().replace_all(lit("€"), lit("EUR"), false)
                .alias("a pattern without punctuation"),
            s().replace_all(lit("😀"), lit("."), true).alias("emoji"),
            s().replace(lit("an"), lit(NULL).cast(DataType::String), true)
                .alias("null value"),
            s().to_uppercase()
                .str()
                .replace_all(lit("A"), lit("aa"), true)
                .alias("computed"),
        ]),
    );
    assert_gpu_eq(
        "replacements of regular expressions",
        frame.clone().select([
            s().replace_all(lit("a.a"), lit("x"), false)
                .alias("every a.a"),
            s().replace(lit("[aä]n"), lit("<>"), false)
                .alias("first [aä]n"),
            s().replace_n(lit("a+"), lit("_"), false, 0)
                .alias("n = 0: once"),
            s().replace_all(lit(r"(?i)^A|a$"), lit("|"), false)
                .alias("anchored"),
            s().replace_all(lit(r"\p{Emoji_Presentation}+"), lit(""), false)
                .alias("emoji"),
        ]),
    );
    assert_gpu_eq(
        "replacements of regular expressions that put capture groups in",
        frame.clone().select([
            s().replace(lit("(a)(n)"), lit("$2$1"), false)
                .alias("first an swapped"),
            s().replace_all(lit("(a)(n)"), lit("$2$1"), false)
                .alias("every an swapped"),
            s().replace_all(lit(r"(?<v>[aeiou€])(\w)"), lit("${v}_$2[$0]$$"), false)
                .alias("named, whole and a dollar"),
            s().replace(lit(r"(\w+) (\w+)"), lit("$2 $1"), false)
                .alias("two words swapped"),
            s().replace_n(lit("(a+)"), lit("<$1x${1}x>"), false, 0)
                .alias("n = 0, a name that is no group"),
            s().replace_all(lit("(x?)"), lit("<$1>"), false)
                .alias("empty matches"),
            s().replace_all(lit("a(€+)"), lit("$9$$"), false)
                .alias("a group the pattern lacks"),
            s().replace_all(lit("😀(.)"), lit("$0$1"), false)
                .alias("a character after an emoji"),
        ]),
    );
    assert_cpu_answer_with_reason(
        frame
            .clone()
            .select([s().replace_all(lit("(a)+n"), lit("$1"), false)]),
        "only a group of the pattern's sequence",
    );
    // `\w+` takes digits too: `ab12` parses as `ab1` and `2` (the crate's
    // greedy choice) or `ab` and `12`.
    let digits = df!("s" => ["ab12", "x9"]).unwrap().lazy();
    assert_cpu_answer_with_reason(
        digits.select([col("s")
            .str()
            .replace(lit(r"(\w+)(\d+)"), lit("$2-$1"), false)]),
        "parses more than one way",
    );
    assert_gpu_eq(
        "replacements of regular expressions that match empty text",
        frame.clone().select([
            s().replace_all(lit("x?"), lit("-"), false).alias("x?"),
            s().replace_all(lit("a*"), lit("<>"), false).alias("a*"),
            s().replace(lit("n*"), lit("_"), false).alias("first n*"),
            s().replace_all(lit("€*"), lit("."), false).alias("€*"),
        ]),
    );
    assert_cpu_error(
        frame
            .clone()
            .select([s().replace_n(lit("a+"), lit("_"), false, 2)]),
    );
    assert_cpu_error(frame.select([s().replace_all(
        lit("a"),
        lit(NULL).cast(DataType::String),
        true,
    )]));
}

#[test]
fn predicates_and_lengths_of_computed_texts_match_the_cpu() {
    let frame = || table().with_columns([col("s").str().to_uppercase().alias("t")]);
    assert_gpu_eq(
        "a filter on a computed text",
        frame().filter(
            col("s")
                .str()
                .to_uppercase()
                .str()
                .contains_literal(lit("A")),
        ),
    );
    assert_gpu_eq(
        "predicates and lengths of computed texts",
        frame().select([
            col("s")
                .str()
                .strip_chars(lit(NULL))
                .eq(lit("x"))
                .alias("eq"),
            lit("y").neq(col("t").str().to_lowercase()).alias("neq"),
            (col("s") + col("t")).str().len_chars().alias("chars"),
            col("s")
                .str()
                .slice(lit(1), lit(NULL))
                .str()
                .len_bytes()
                .alias("bytes"),
            col("t")
                .str()
                .replace_all(lit("NG"), lit(""), true)
                .str()
                .ends_with(lit("U"))
                .alias("ends"),
            col("s")
                .str()
                .head(lit(1))
                .is_in(
                    lit(Series::new("".into(), ["l", "x", ""])).implode(false),
                    false,
                )
                .alias("is_in"),
            (col("s")
                .str()
                .to_uppercase()
                .str()
                .starts_with(lit("L"))
                .and(col("b")))
            .alias("and"),
            col("s")
                .str()
                .to_uppercase()
                .eq(col("t"))
                .alias("computed == column"),
            col("s")
                .str()
                .to_uppercase()
                .lt(col("s").str().strip_chars(lit(NULL)))
                .alias("computed < computed"),
        ]),
    );
    assert_gpu_eq(
        "a case-insensitive filter",
        frame().filter(
            col("s")
                .str()
                .to_lowercase()
                .eq(col("t").str().to_lowercase()),
        ),
    );
}

#[test]
fn text_comparisons_between_columns_and_with_literals_match_the_cpu() {
    let frame = || {
        df!(
            "a" => [Some("abc"), Some("ab"), None, Some(""), Some("é"), Some("z"), Some("abd"), Some("ab")],
            "b" => [Some("abd"), Some("ab"), Some("x"), None, Some("e"), Some(""), Some("abc"), Some("abc")],
        )
        .unwrap()
        .lazy()
    };
    assert_gpu_eq(
        "text comparisons",
        frame().select([
            col("a").eq(col("b")).alias("a == b"),
            col("a").neq(col("b")).alias("a != b"),
            col("a").lt(col("b")).alias("a < b"),
            col("a").lt_eq(col("b")).alias("a <= b"),
            col("a").gt(col("b")).alias("a > b"),
            col("a").gt_eq(col("b")).alias("a >= b"),
            col("a").lt(lit("ab")).alias("a < 'ab'"),
            lit("ab").lt(col("a")).alias("'ab' < a"),
            col("b").gt_eq(lit("")).alias("b >= ''"),
            col("a")
                .gt(lit(NULL).cast(DataType::String))
                .alias("a > null"),
        ]),
    );
    assert_gpu_eq(
        "a filter comparing texts",
        frame().filter(col("a").lt(col("b")).or(col("b").gt(lit("x")))),
    );
}

#[test]
fn counts_offsets_and_extracts_of_matches_match_the_cpu() {
    let texts = [
        Some("banana"),
        Some(""),
        None,
        Some("aaaa"),
        Some("naïve ananas"),
        Some("ünïcödé a"),
        Some("no match"),
        Some("ana"),
    ];
    let frame = || df!("s" => texts).unwrap().lazy();
    let s = || col("s").str();
    assert_gpu_eq(
        "count_matches and find of literal texts",
        frame().select([
            s().count_matches(lit("an"), true).alias("an"),
            s().count_matches(lit("aa"), true).alias("aa"),
            s().count_matches(lit(""), true).alias("empty"),
            s().count_matches(lit("ï"), false)
                .alias("regex without punctuation"),
            s().find_literal(lit("an")).alias("find an"),
            s().find_literal(lit("a")).alias("find a"),
            s().find_literal(lit("")).alias("find empty"),
            s().find(lit("na"), true).alias("find regex"),
            s().head(lit(3))
                .str()
                .find_literal(lit("a"))
                .alias("of texts made"),
        ]),
    );
    assert_gpu_eq(
        "count_matches and find of regular expressions",
        frame().select([
            s().count_matches(lit("a+"), false).alias("a+"),
            s().count_matches(lit("(an)+"), false).alias("(an)+"),
            s().count_matches(lit(r"\w(?-u:\b)"), false)
                .alias("last letters"),
            s().find(lit("n[aä]"), true).alias("find n[aä]"),
            s().find(lit(r"(?-u:\b)a"), true).alias("find a word's a"),
        ]),
    );
    assert_gpu_eq(
        "count_matches and find of regular expressions that match empty text",
        frame().select([
            s().count_matches(lit("a*"), false).alias("a*"),
            s().count_matches(lit("n?"), false).alias("n?"),
            s().count_matches(lit("(?m)$"), false).alias("ends"),
            s().find(lit("x*"), true).alias("find x*"),
            s().find(lit("[aï]*$"), true).alias("find [aï]*$"),
        ]),
    );
    assert_gpu_eq(
        "extract of whole matches",
        frame().select([
            s().extract(lit(r"n[aä]+"), 0).alias("group 0"),
            s().extract(lit(r"^(\w+)"), 1).alias("first word"),
            s().extract(lit(r"(?<last>\w+)$"), 1).alias("last word"),
            s().extract(lit("an"), 0).alias("a literal"),
            s().extract(lit(""), 0).alias("empty"),
            s().to_uppercase()
                .str()
                .extract(lit("[AÏ]N"), 0)
                .alias("of texts made"),
        ]),
    );
}

#[test]
fn extracts_of_groups_inside_matches_match_the_cpu() {
    let texts = [
        Some("id=42, id=7"),
        Some("key-12 key-345"),
        None,
        Some(""),
        Some("naïve-1"),
        Some("ünï-cödé-99x"),
        Some("2024-06-30"),
        Some("no digits"),
        Some("a/b/c"),
        Some("ab12"),
    ];
    let frame = || df!("s" => texts).unwrap().lazy();
    let s = || col("s").str();
    assert_gpu_eq(
        "extract of groups in a pattern's sequence",
        frame().select([
            s().extract(lit(r"id=(\d+)"), 1).alias("after a literal"),
            s().extract(lit(r"(\w+)-(\d+)"), 1).alias("first of two"),
            s().extract(lit(r"(\w+)-(\d+)"), 2).alias("second of two"),
            s().extract(lit(r"(\d{4})-(\d{2})-(\d{2})"), 2)
                .alias("a date's month"),
            s().extract(lit(r"((\w)\w*)-"), 2).alias("nested"),
            s().extract(lit(r"(?i)(Ü|K)(\w+)"), 2)
                .alias("case-insensitive"),
            s().extract(lit(r"-(\d*)x?$"), 1)
                .alias("anchored at the end"),
            s().extract(lit(r"(?<name>[a-z]+)()"), 2)
                .alias("an empty group"),
            s().extract(lit(r"n(a)"), 1).alias("one letter"),
            s().to_uppercase()
                .str()
                .extract(lit(r"([A-Z]+)-\d"), 1)
                .alias("of texts made"),
        ]),
    );
    // `(\w+)(\d+)` parses "ab12" two ways (the `regex` crate's greedy
    // `\w+` takes "ab1"): Polars answers.
    assert_cpu_answer_with_reason(
        frame().select([s().extract(lit(r"(\w+)(\d+)"), 2)]),
        "parses more than one way",
    );
    assert_gpu_eq(
        "the same pattern where every match parses one way",
        df!("s" => [Some("ab1"), Some("x9 yz"), None, Some(""), Some("--7")])
            .unwrap()
            .lazy()
            .select([s().extract(lit(r"(\w+)(\d+)"), 2)]),
    );
    assert_cpu_answer_with_reason(
        frame().select([s().extract(lit(r"(\w)+"), 1)]),
        "only a group of the pattern's sequence",
    );
}

#[test]
fn texts_matched_against_patterns_of_their_rows_match_the_cpu() {
    let frame = || {
        df!(
            "s" => [Some("banana"), Some("apple"), None, Some(""), Some("naïve"), Some("x"), Some("abc")],
            "p" => [Some("ban"), Some("le"), Some("a"), Some(""), None, Some("xy"), Some("b")],
        )
        .unwrap()
        .lazy()
    };
    let s = || col("s").str();
    assert_gpu_eq(
        "starts_with, ends_with and contains of a pattern per row",
        frame().select([
            s().starts_with(col("p")).alias("starts"),
            s().ends_with(col("p")).alias("ends"),
            s().contains_literal(col("p")).alias("contains"),
            s().to_uppercase()
                .str()
                .starts_with(col("p").str().to_uppercase())
                .alias("made"),
        ]),
    );
    assert_gpu_eq(
        "a filter by a pattern per row",
        frame().filter(s().ends_with(col("p")).or(s().starts_with(col("p")))),
    );
    assert_gpu_eq(
        "the place of each row's pattern",
        frame().select([
            s().find_literal(col("p")).alias("find"),
            (s().find_literal(col("p")) + lit(1u32)).alias("find + 1"),
            s().to_uppercase()
                .str()
                .find_literal(col("p").str().to_uppercase())
                .alias("made"),
            s().find_literal(col("p")).max().alias("the greatest place"),
        ]),
    );
    assert_gpu_eq(
        "places of each row's pattern per group",
        frame().group_by_stable([col("s").is_null()]).agg([
            s().find_literal(col("p")).sum().alias("sum"),
            col("p").count(),
        ]),
    );
    // A regular expression per row: Polars compiles each one.
    assert_cpu_answer_with_reason(
        frame().select([s().contains(col("p"), false)]),
        "str.contains needs a literal pattern",
    );
}

#[test]
fn regular_expressions_match_through_their_dfa() {
    // Random comments in the manner of PDS-H's, with digits, spaces,
    // newlines and characters beyond ASCII; some null, one empty. (The
    // DFAs' answers for the rest of the syntax are checked against the
    // `regex` crate in ir-lower.)
    let words = [
        "special",
        "requests",
        "pending",
        "deposits",
        "Customer",
        "Complaints",
        " ",
        " ",
        "\n",
        "42",
        "7",
        "-",
        "ü",
        "日本",
        ".",
    ];
    let mut next = xorshift(0x5eed_0017);
    let texts: Vec<Option<String>> = (0..400)
        .map(|row| match next() % 13 {
            0 => None,
            _ if row == 7 => Some(String::new()),
            _ => Some(
                (0..next() % 8)
                    .map(|_| words[(next() % words.len() as u64) as usize])
                    .collect(),
            ),
        })
        .collect();
    let frame = || df!("s" => texts.clone()).unwrap().lazy();
    let patterns = [
        "^special",
        "requests$",
        "(?i)customer.*complaints",
        r"\d+",
        r"^\d",
        r"pend(ing)?\s",
        r"^\w+$",
        r"(?m)^deposits",
        "ü|日",
        r"[^\x00-\x7f]",
        r"\.\s*$",
        "(?s)s.r",
    ];
    for pattern in patterns {
        let contains = || col("s").str().contains(lit(pattern), true);
        // Each pattern tells some texts from others.
        let matched = frame().filter(contains()).collect().unwrap().height();
        assert!(0 < matched && matched < 300, "{pattern}: {matched} of 400");
        assert_gpu_eq(pattern, frame().select([contains().alias("m")]));
        assert_gpu_eq(pattern, frame().filter(contains().not()));
    }
    // A pattern beyond the DFA falls back, with the reason.
    assert_cpu_answer_with_reason(
        frame().filter(col("s").str().contains(lit(r"\bfoo"), true)),
        r#"the regular expression "\\bfoo" has no DFA the GPU runs"#,
    );
}

#[test]
fn extract_all_lists_every_match_as_the_cpu_does() {
    let texts = [
        Some("id=42, id=7"),
        Some(""),
        None,
        Some("naïve 1 2 333"),
        Some("no digits"),
        Some("aaa"),
    ];
    let frame = || df!("s" => texts).unwrap().lazy();
    let s = || col("s").str();
    assert_gpu_eq(
        "extract_all of patterns and literals",
        frame().select([
            s().extract_all(lit(r"\d+")).alias("numbers"),
            s().extract_all(lit(r"id=\d")).alias("ids"),
            s().extract_all(lit("a")).alias("a literal"),
            s().extract_all(lit("a*")).alias("empty matches too"),
            s().extract_all(lit(r"(?-u:\b)\w")).alias("first letters"),
            s().to_uppercase()
                .str()
                .extract_all(lit("[AÏ]"))
                .alias("of texts made"),
        ]),
    );
    assert_gpu_eq(
        "the lists' lengths, first matches and rows",
        frame().select([
            s().extract_all(lit(r"\d+")).list().len().alias("count"),
            s().extract_all(lit(r"\d+")).list().first().alias("first"),
        ]),
    );
    assert_gpu_eq(
        "matches into rows",
        frame().select([s().extract_all(lit(r"\w+")).explode(ExplodeOptions {
            empty_as_null: true,
            keep_nulls: true,
        })]),
    );
}

#[test]
fn splits_into_structs_match_the_cpu() {
    let texts = [
        Some("a-b-c"),
        Some(""),
        None,
        Some("-"),
        Some("naïve-x"),
        Some("no separator"),
        Some("a--b--"),
        Some("ü"),
    ];
    let frame = || df!("s" => texts).unwrap().lazy();
    let s = || col("s").str();
    assert_gpu_eq(
        "split_exact and splitn into structs",
        frame().select([
            s().split_exact(lit("-"), 1).alias("exact 1"),
            s().split_exact(lit("-"), 3).alias("exact 3"),
            s().split_exact_inclusive(lit("-"), 1).alias("inclusive"),
            s().split_exact(lit(""), 2).alias("characters"),
            s().splitn(lit("-"), 1).alias("n 1"),
            s().splitn(lit("-"), 2).alias("n 2"),
            s().splitn(lit("--"), 3).alias("n 3 of two bytes"),
            s().splitn(lit(""), 1).alias("n 1 of characters"),
            s().splitn(lit(""), 2).alias("n 2 of characters"),
        ]),
    );
    assert_gpu_eq(
        "a split's fields as columns",
        frame()
            .select([s().splitn(lit("-"), 2).alias("parts")])
            .unnest(by_name(["parts"], true, false), None),
    );
    assert_gpu_eq(
        "a split's field",
        frame().select([s()
            .split_exact(lit(" "), 1)
            .struct_()
            .field_by_name("field_1")]),
    );
}

#[test]
fn formats_of_values_match_the_cpu() {
    // Texts, integers, floats, booleans and dates put in literal text (a
    // null value makes the row null), placeholders in order or by index,
    // braces escaped, an aggregation among the values.
    let frame = df!(
        "s" => [Some("ab"), None, Some(""), Some("ΣΑΣ")],
        "i" => [Some(1i64), Some(-20), None, Some(300)],
        "f" => [Some(1.5f64), Some(-0.0), Some(f64::NAN), Some(1e21)],
        "b" => [Some(true), Some(false), Some(true), None],
        "d" => [Some(19000i32), Some(-1), Some(0), Some(20000)],
    )
    .unwrap()
    .lazy()
    .with_columns([col("d").cast(DataType::Date)]);
    let formats = [
        format_str("{} is {}", &[col("s"), col("i")])
            .unwrap()
            .alias("in order"),
        format_str("{{{1}}}-{0}: {1}", &[col("f"), col("d")])
            .unwrap()
            .alias("by index"),
        format_str("{}", &[col("b")]).unwrap().alias("alone"),
        format_str("{} of max {}", &[col("s"), col("i").max()])
            .unwrap()
            .alias("beside a maximum"),
    ];
    assert_gpu_eq("formats", frame.select(formats));
}

#[test]
fn contains_any_of_literal_patterns_matches_the_cpu() {
    let frame = df!(
        "g" => [1i64, 2, 1, 2, 1, 2],
        "s" => [Some("Hello World"), None, Some("foo.bar"), Some(""), Some("ÉCOLE école"), Some("KELVIN \u{212A} ſ")],
    )
    .unwrap()
    .lazy();
    let patterns =
        |texts: &[Option<&str>]| lit(Series::new("".into(), texts.to_vec())).implode(false);
    let any = |texts: &[Option<&str>], insensitive: bool| {
        col("s").str().contains_any(patterns(texts), insensitive)
    };
    for (name, lf) in [
        (
            "case sensitive",
            frame.clone().select([
                any(&[Some("World"), Some("oo")], false).alias("two"),
                any(&[Some(".")], false).alias("a dot, literally"),
                any(&[Some("world")], false).alias("case"),
                any(&[Some("école"), None], false).alias("a null pattern skipped"),
                any(&[Some("zzz"), Some("")], false).alias("an empty pattern"),
                any(&[], false).alias("no pattern"),
            ]),
        ),
        (
            "ASCII case insensitive",
            frame.clone().select([
                any(&[Some("WORLD"), Some("xyz")], true).alias("ascii"),
                any(&[Some("école")], true).alias("not beyond ASCII"),
                any(&[Some("k"), Some("S")], true).alias("no Unicode folds"),
                any(&[Some("o.B")], true).alias("punctuation"),
            ]),
        ),
        (
            "as a filter, per group",
            frame
                .clone()
                .filter(any(&[Some("o")], false))
                .group_by_stable([col("g")])
                .agg([any(&[Some("l")], true).sum().alias("n")]),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
}
