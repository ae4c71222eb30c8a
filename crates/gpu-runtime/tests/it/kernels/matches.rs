//! The matching kernels (`matches.cu`): matches of a literal or a DFA counted, found, listed, replaced and extracted, a capture group of them too, and replacements that put groups in, against Rust references.

use gpu_runtime::ops::{DfaTables, Pattern, ReplacementPiece};

use super::strings::{texts_of, where_valid};
use super::{SIZES, bitmap, classes_of_a_and_b, device, flags, texts_of_pieces};

const MATCHED: u8 = 1;
const DEAD: u8 = 2;
const MATCHED_AT_END: u8 = 4;

/// The anchored DFA of `ab+` (a match ends before the byte that follows it,
/// as the host's DFAs report): classes `a` 1, `b` 2, others 0; one start
/// state whatever precedes.
fn ab_plus() -> Tables {
    // 0 start, 1 after `a`, 2 in `b+`, 3 in `b+` past a match, 4 a match
    // ended (nothing more), 5 dead.
    let transitions = [
        [5, 1, 5],
        [5, 5, 2],
        [4, 4, 3],
        [4, 4, 3],
        [5, 5, 5],
        [5, 5, 5],
    ]
    .concat();
    let flags = vec![
        0,
        0,
        MATCHED_AT_END,
        MATCHED | MATCHED_AT_END,
        MATCHED | DEAD,
        DEAD,
    ];
    (classes_of_a_and_b(), transitions, flags, vec![0; 257])
}

/// A DFA's tables (classes, transitions, flags, start states), as the
/// kernels take them.
type Tables = (Vec<u8>, Vec<u32>, Vec<u8>, Vec<u32>);

fn tables((classes, transitions, flags, starts): &Tables) -> DfaTables<'_> {
    DfaTables {
        classes,
        transitions,
        flags,
        starts,
    }
}

/// The matches of `ab+` in `text`, leftmost and not overlapping.
fn ab_plus_matches(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let (mut found, mut k) = (Vec::new(), 0);
    while k + 1 < bytes.len() {
        if bytes[k] == b'a' && bytes[k + 1] == b'b' {
            let mut end = k + 2;
            while end < bytes.len() && bytes[end] == b'b' {
                end += 1;
            }
            found.push((k, end));
            k = end;
        } else {
            k += 1;
        }
    }
    found
}

#[test]
fn counts_finds_and_replacements_of_a_literal_or_a_dfa() {
    let device = device();
    let ops = device.ops();
    let ab_plus = ab_plus();
    let dfa = Pattern::Anchored(tables(&ab_plus));
    let pieces = ["a", "b", "ab", "abb", "ba", "é", "x", ""];
    let mut rng = fastrand::Rng::with_seed(31);
    for &n in &SIZES[..9] {
        let (rows, valid) = texts_of_pieces(&mut rng, n, &pieces, 7);
        let (doff, dbytes, dvalid) = device.upload_texts(&rows, &valid);
        let strings = (&doff, &dbytes, Some(&dvalid));
        // Each pattern with its matches, as a Rust reference.
        type Matches = fn(&str) -> Vec<(usize, usize)>;
        let literal: Matches = |text| {
            text.match_indices("ab")
                .map(|(at, _)| (at, at + 2))
                .collect()
        };
        for (pattern, matches) in [
            (dfa, ab_plus_matches as Matches),
            (Pattern::Literal("ab"), literal),
        ] {
            let (counts, counted) = ops.string_matches(strings, pattern, false).unwrap();
            let (firsts, found) = ops.string_matches(strings, pattern, true).unwrap();
            let (counts, firsts) = (counts.to_host().unwrap(), firsts.to_host().unwrap());
            let found = flags(&found.to_host().unwrap(), n);
            assert_eq!(counted.to_host().unwrap(), bitmap(&valid), "n = {n}");
            for (i, text) in rows.iter().enumerate().filter(|&(i, _)| valid[i]) {
                let expected = matches(text);
                assert_eq!(
                    counts[i] as usize,
                    expected.len(),
                    "{pattern:?} in {text:?}"
                );
                assert_eq!(found[i], !expected.is_empty(), "{pattern:?} in {text:?}");
                if let Some(&(start, _)) = expected.first() {
                    assert_eq!(firsts[i] as usize, start, "{pattern:?} in {text:?}");
                }
            }
            let (lists, lists_valid, matched) = ops.string_extract_all(strings, pattern).unwrap();
            let (lists, matched) = (lists.to_host().unwrap(), texts_of(&matched));
            assert_eq!(lists_valid.to_host().unwrap(), bitmap(&valid), "n = {n}");
            for (i, text) in rows.iter().enumerate() {
                let listed = &matched[lists[i] as usize..lists[i + 1] as usize];
                let expected: Vec<String> = matches(text)
                    .iter()
                    .filter(|_| valid[i])
                    .map(|&(start, end)| text[start..end].to_string())
                    .collect();
                assert_eq!(listed, expected, "{pattern:?} extract_all in {text:?}");
            }
            for limit in [None, Some(1)] {
                let out = ops
                    .string_replace(&doff, &dbytes, Some(&dvalid), (pattern, "<>"), limit)
                    .unwrap();
                let expected = where_valid(&rows, &valid, |text| {
                    let mut replaced = String::new();
                    let mut last = 0;
                    for &(start, end) in matches(text)
                        .iter()
                        .take(limit.map_or(usize::MAX, |l| l as usize))
                    {
                        replaced.push_str(&text[last..start]);
                        replaced.push_str("<>");
                        last = end;
                    }
                    replaced + &text[last..]
                });
                assert_eq!(texts_of(&out), expected, "{pattern:?} {limit:?}, n = {n}");
            }
        }
    }
    // An anchored DFA has a start state for each byte and the text's start.
    let short = Pattern::Anchored(DfaTables {
        starts: &ab_plus.3[..1],
        ..match dfa {
            Pattern::Anchored(tables) => tables,
            Pattern::Literal(_) => unreachable!(),
        }
    });
    let strings = (&device.upload(&[0i64, 1]), &device.upload(b"a"), None);
    let error = ops.string_matches(strings, short, false).unwrap_err();
    assert!(
        error.to_string().contains("257 start states, not 1"),
        "{error}"
    );
}

/// DFAs (classes of `a` 1, `b` 2, others 0) that flag every end of a match
/// from where they begin, as ir-lower's parts of a capture group: of `a`,
/// `b+` and the empty pattern (transitions, flags).
fn every_end_of_a() -> (Vec<u32>, Vec<u8>) {
    // 0 start, 1 after `a`, 2 a match ended, 3 dead.
    let transitions = [[3, 1, 3], [2, 2, 2], [3, 3, 3], [3, 3, 3]].concat();
    (transitions, vec![0, MATCHED_AT_END, MATCHED, DEAD])
}

fn every_end_of_b_plus() -> (Vec<u32>, Vec<u8>) {
    // 0 start, 1 after one `b`, 2 after more, 3 a match ended, 4 dead.
    let transitions = [[4, 4, 1], [3, 3, 2], [3, 3, 2], [4, 4, 4], [4, 4, 4]].concat();
    let flags = vec![0, MATCHED_AT_END, MATCHED | MATCHED_AT_END, MATCHED, DEAD];
    (transitions, flags)
}

fn every_end_of_nothing() -> (Vec<u32>, Vec<u8>) {
    let transitions = [[1, 1, 1], [2, 2, 2], [2, 2, 2]].concat();
    (transitions, vec![MATCHED_AT_END, MATCHED, DEAD])
}

/// DFAs of three classes (four per group) joined as ir-lower's
/// `RegexDfa::joined` joins them: classes and start states one part after
/// the other, states numbered on.
fn joined<const N: usize>(parts: [(Vec<u32>, Vec<u8>); N]) -> Tables {
    let (mut classes, mut transitions, mut state_flags, mut starts) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (part_transitions, part_flags) in parts {
        let first = state_flags.len() as u32;
        classes.extend(classes_of_a_and_b());
        starts.extend([first; 257]);
        transitions.extend(part_transitions.iter().map(|to| to + first));
        state_flags.extend(part_flags);
    }
    (classes, transitions, state_flags, starts)
}

#[test]
fn capture_groups_of_the_first_match() {
    let device = device();
    let ops = device.ops();
    let ab_plus = ab_plus();
    let whole = tables(&ab_plus);
    // `(a)(b+)`: group 1 splits it as (nothing, `a`, `b+`), group 2 as
    // (`a`, `b+`, nothing); the parts are P, G S, G, S.
    let ab_plus_every_end = (ab_plus.1.clone(), ab_plus.2.clone());
    let groups = [
        (
            1,
            joined([
                every_end_of_nothing(),
                ab_plus_every_end,
                every_end_of_a(),
                every_end_of_b_plus(),
            ]),
        ),
        (
            2,
            joined([
                every_end_of_a(),
                every_end_of_b_plus(),
                every_end_of_b_plus(),
                every_end_of_nothing(),
            ]),
        ),
    ];
    let pieces = ["a", "b", "ab", "abb", "ba", "é", "x", ""];
    let mut rng = fastrand::Rng::with_seed(37);
    for &n in &SIZES[..9] {
        let (rows, valid) = texts_of_pieces(&mut rng, n, &pieces, 7);
        let (doff, dbytes, dvalid) = device.upload_texts(&rows, &valid);
        for (group, parts) in &groups {
            let parts = tables(parts);
            let ambiguous = device.upload(&[0u32]);
            let strings = (&doff, &dbytes, Some(&dvalid));
            let out = ops
                .string_extract_group(strings, whole, parts, &ambiguous)
                .unwrap();
            assert_eq!(ambiguous.to_host().unwrap(), [0], "n = {n}");
            let expected: Vec<Option<String>> = rows
                .iter()
                .zip(&valid)
                .map(|(text, &valid)| {
                    let &(start, end) = ab_plus_matches(text).first().filter(|_| valid)?;
                    let (from, to) = if *group == 1 {
                        (start, start + 1)
                    } else {
                        (start + 1, end)
                    };
                    Some(text[from..to].to_string())
                })
                .collect();
            let found = flags(&out.validity.to_host().unwrap(), n);
            let texts = texts_of(&out);
            let actual: Vec<Option<String>> =
                (0..n).map(|i| found[i].then(|| texts[i].clone())).collect();
            assert_eq!(actual, expected, "group {group}, n = {n}");
        }
    }
    let wrong = DfaTables {
        starts: &ab_plus.3,
        ..whole
    };
    let strings = (&device.upload(&[0i64, 1]), &device.upload(b"a"), None);
    let error = ops
        .string_extract_group(strings, whole, wrong, &device.upload(&[0u32]))
        .unwrap_err();
    assert!(
        error.to_string().contains("1028 start states, not 257"),
        "{error}"
    );
}

/// `(a)(b+)`'s matches replaced by `<$2|$0|$1>`: the groups (given in the
/// order 2, 1) and the whole match put in, for the first match, for every
/// one and for none.
#[test]
fn replacements_put_capture_groups_in() {
    let device = device();
    let ops = device.ops();
    let ab_plus = ab_plus();
    let whole = tables(&ab_plus);
    let ab_plus_every_end = (ab_plus.1.clone(), ab_plus.2.clone());
    // Group 2's parts (P, G S, G, S), then group 1's.
    let groups = joined([
        every_end_of_a(),
        every_end_of_b_plus(),
        every_end_of_b_plus(),
        every_end_of_nothing(),
        every_end_of_nothing(),
        ab_plus_every_end,
        every_end_of_a(),
        every_end_of_b_plus(),
    ]);
    let groups = tables(&groups);
    let template = [
        ReplacementPiece::Text("<"),
        ReplacementPiece::Group(0),
        ReplacementPiece::Text("|"),
        ReplacementPiece::Match,
        ReplacementPiece::Text("|é"),
        ReplacementPiece::Group(1),
        ReplacementPiece::Text(">"),
    ];
    let pieces = ["a", "b", "ab", "abb", "ba", "é", "x", ""];
    let mut rng = fastrand::Rng::with_seed(41);
    for &n in &SIZES[..9] {
        let (rows, valid) = texts_of_pieces(&mut rng, n, &pieces, 7);
        let (doff, dbytes, dvalid) = device.upload_texts(&rows, &valid);
        for limit in [Some(1), None, Some(0)] {
            let ambiguous = device.upload(&[0u32]);
            let strings = (&doff, &dbytes, Some(&dvalid));
            let out = ops
                .string_replace_groups(strings, (whole, Some(groups)), &template, limit, &ambiguous)
                .unwrap();
            assert_eq!(ambiguous.to_host().unwrap(), [0], "n = {n}");
            let expected: Vec<Option<String>> = rows
                .iter()
                .zip(&valid)
                .map(|(text, &valid)| {
                    valid.then(|| {
                        let (mut replaced, mut kept) = (String::new(), 0);
                        let matches = ab_plus_matches(text);
                        for &(start, end) in matches
                            .iter()
                            .take(limit.unwrap_or(usize::MAX as u64) as usize)
                        {
                            replaced.push_str(&text[kept..start]);
                            let (a, b) = (&text[start..start + 1], &text[start + 1..end]);
                            replaced.push_str(&format!("<{b}|{}|é{a}>", &text[start..end]));
                            kept = end;
                        }
                        replaced + &text[kept..]
                    })
                })
                .collect();
            let found = flags(&out.validity.to_host().unwrap(), n);
            let texts = texts_of(&out);
            let actual: Vec<Option<String>> =
                (0..n).map(|i| found[i].then(|| texts[i].clone())).collect();
            assert_eq!(actual, expected, "limit {limit:?}, n = {n}");
        }
    }
    // Only the whole match, without groups; a group the tables lack.
    let strings = (&device.upload(&[0i64, 4]), &device.upload(b"xabb"), None);
    let flag = device.upload(&[0u32]);
    let out = ops
        .string_replace_groups(
            strings,
            (whole, None),
            &[ReplacementPiece::Match; 2],
            None,
            &flag,
        )
        .unwrap();
    assert_eq!(texts_of(&out), ["xabbabb"]);
    let error = ops
        .string_replace_groups(
            strings,
            (whole, None),
            &[ReplacementPiece::Group(0)],
            None,
            &flag,
        )
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("group 0 of a replacement that has 0 groups"),
        "{error}"
    );
}

/// `str.replace_many` of literal patterns, against the Aho-Corasick
/// automaton Polars runs, both match kinds, ASCII case folded or not:
/// patterns that overlap, share prefixes and suffixes, repeat, and texts of
/// characters of several bytes.
#[test]
fn replacing_many_patterns_matches_aho_corasick() {
    use aho_corasick::{AhoCorasick, MatchKind};
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(71);
    const PIECES: &[&str] = &["a", "b", "A", "B", "é", "ab", "ba"];
    let text = |rng: &mut fastrand::Rng, most: usize| -> String {
        (0..rng.usize(..=most))
            .map(|_| PIECES[rng.usize(..PIECES.len())])
            .collect()
    };
    for round in 0..40 {
        let n = SIZES[round % SIZES.len()];
        let rows: Vec<String> = (0..n).map(|_| text(&mut rng, 8)).collect();
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..8) != 0).collect();
        let (doff, dbytes, dvalid) = device.upload_texts(&rows, &valid);
        let count = rng.usize(1..5);
        let patterns: Vec<String> = (0..count)
            .map(|_| {
                loop {
                    let pattern = text(&mut rng, 3);
                    if !pattern.is_empty() {
                        break pattern;
                    }
                }
            })
            .collect();
        let values: Vec<String> = (0..count).map(|p| format!("<{p}>")).collect();
        let (patterns, values): (Vec<&str>, Vec<&str>) = (
            patterns.iter().map(String::as_str).collect(),
            values.iter().map(String::as_str).collect(),
        );
        for leftmost in [false, true] {
            for fold in [false, true] {
                let automaton = AhoCorasick::builder()
                    .match_kind(match leftmost {
                        true => MatchKind::LeftmostFirst,
                        false => MatchKind::Standard,
                    })
                    .ascii_case_insensitive(fold)
                    .build(&patterns)
                    .unwrap();
                let out = ops
                    .string_replace_many(
                        (&doff, &dbytes, Some(&dvalid)),
                        (&patterns, &values),
                        leftmost,
                        fold,
                    )
                    .unwrap();
                let expected =
                    where_valid(&rows, &valid, |text| automaton.replace_all(text, &values));
                assert_eq!(
                    texts_of(&out),
                    expected,
                    "{patterns:?} leftmost {leftmost} folded {fold}, n = {n}"
                );
            }
        }
    }
}
