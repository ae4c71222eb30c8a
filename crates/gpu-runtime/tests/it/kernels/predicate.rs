//! Predicate kernels and the safe operations over them: comparisons, Kleene logic, filters, gathers of bits and strings, places of each row's text.

use gpu_runtime::memory::DeviceBuffer;
use gpu_runtime::ops::{Comparison, DfaTables, Logic};

use super::{SIZES, bitmap, classes_of_a_and_b, device, flags, texts_of_pieces};

const ALL: [Comparison; 6] = [
    Comparison::Eq,
    Comparison::NotEq,
    Comparison::Lt,
    Comparison::LtEq,
    Comparison::Gt,
    Comparison::GtEq,
];

fn holds(op: Comparison, order: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match op {
        Comparison::Eq => order == Equal,
        Comparison::NotEq => order != Equal,
        Comparison::Lt => order == Less,
        Comparison::LtEq => order != Greater,
        Comparison::Gt => order == Greater,
        Comparison::GtEq => order != Less,
    }
}

/// Polars' float order: NaN equals NaN and is greatest; -0.0 equals 0.0.
fn float_order(a: f64, b: f64) -> std::cmp::Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => std::cmp::Ordering::Equal,
        (true, false) => std::cmp::Ordering::Greater,
        (false, true) => std::cmp::Ordering::Less,
        _ => a.partial_cmp(&b).unwrap(),
    }
}

#[test]
fn comparisons_follow_polars_null_and_nan_rules() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(14);
    for &n in SIZES {
        let a: Vec<i64> = (0..n).map(|_| rng.i64(-3..3)).collect();
        let b: Vec<i64> = (0..n).map(|_| rng.i64(-3..3)).collect();
        let (av, bv): (Vec<bool>, Vec<bool>) =
            (0..n).map(|_| (rng.u8(..5) != 0, rng.u8(..5) != 0)).unzip();
        let (da, db) = (device.upload(&a), device.upload(&b));
        let (dav, dbv) = (device.upload(&bitmap(&av)), device.upload(&bitmap(&bv)));
        for op in ALL {
            let (bits, valid) = ops
                .compare(&da, Some(&dav), &db, Some(&dbv), false, n, op)
                .unwrap();
            let expected_valid: Vec<bool> = (0..n).map(|i| av[i] && bv[i]).collect();
            let expected: Vec<bool> = (0..n)
                .map(|i| expected_valid[i] && holds(op, a[i].cmp(&b[i])))
                .collect();
            assert_eq!(
                valid.to_host().unwrap(),
                bitmap(&expected_valid),
                "{op:?} n = {n}"
            );
            assert_eq!(bits.to_host().unwrap(), bitmap(&expected), "{op:?} n = {n}");
        }
        let specials = [f64::NAN, -0.0, 0.0, 1.0, f64::NEG_INFINITY, f64::INFINITY];
        let x: Vec<f64> = (0..n)
            .map(|_| specials[rng.usize(..specials.len())])
            .collect();
        let dx = device.upload(&x);
        for scalar in specials {
            let ds = device.upload(&[scalar]);
            for op in ALL {
                let (bits, valid) = ops.compare(&dx, None, &ds, None, true, n, op).unwrap();
                let expected: Vec<bool> = x
                    .iter()
                    .map(|v| holds(op, float_order(*v, scalar)))
                    .collect();
                assert_eq!(
                    bits.to_host().unwrap(),
                    bitmap(&expected),
                    "{op:?} {scalar} n = {n}"
                );
                assert_eq!(valid.to_host().unwrap(), bitmap(&vec![true; n]), "n = {n}");
            }
        }
    }
}

#[test]
fn kleene_logic_truth_tables() {
    let device = device();
    let ops = device.ops();
    type Pair = (Option<bool>, Option<bool>);
    // Every pair of (true, false, null), repeated past a word boundary.
    let values = [Some(true), Some(false), None];
    let pairs: Vec<Pair> = (0..40)
        .flat_map(|_| {
            values
                .iter()
                .flat_map(|a| values.iter().map(move |b| (*a, *b)))
        })
        .collect();
    let n = pairs.len();
    let upload = |side: &dyn Fn(&Pair) -> Option<bool>| {
        let bits: Vec<bool> = pairs.iter().map(|p| side(p) == Some(true)).collect();
        let valid: Vec<bool> = pairs.iter().map(|p| side(p).is_some()).collect();
        (
            device.upload(&bitmap(&bits)),
            device.upload(&bitmap(&valid)),
        )
    };
    let (a, av) = upload(&|p| p.0);
    let (b, bv) = upload(&|p| p.1);
    let kleene_and = |x: Option<bool>, y: Option<bool>| match (x, y) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    };
    let kleene_or = |x: Option<bool>, y: Option<bool>| match (x, y) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    };
    for (logic, rule) in [
        (Logic::And, &kleene_and as &dyn Fn(_, _) -> _),
        (Logic::Or, &kleene_or),
    ] {
        let (bits, valid) = ops
            .kleene((&a, Some(&av)), (&b, Some(&bv)), n, logic)
            .unwrap();
        let (bits, valid) = (bits.to_host().unwrap(), valid.to_host().unwrap());
        for (i, (x, y)) in pairs.iter().enumerate() {
            let got = flags(&valid, n)[i].then(|| flags(&bits, n)[i]);
            assert_eq!(got, rule(*x, *y), "{logic:?} {x:?} {y:?}");
        }
    }
    let negated = ops.bits_not(&a, n).unwrap().to_host().unwrap();
    let expected: Vec<bool> = pairs.iter().map(|p| p.0 != Some(true)).collect();
    assert_eq!(negated, bitmap(&expected), "not, with zero bits past n");
}

#[test]
fn filter_indices_keep_true_valid_rows_in_order() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(15);
    // Half the rows, one in 64, and every row; bits past `n` set, which
    // must not count.
    let cases = SIZES
        .iter()
        .flat_map(|&n| [(n, 2u32), (n, 64), (n, 1)].into_iter());
    for (n, one_in) in cases {
        let bits: Vec<bool> = (0..n).map(|_| rng.u32(..one_in) == 0).collect();
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..4) != 0).collect();
        let mut words = bitmap(&bits);
        if let Some(last) = words.last_mut().filter(|_| n % 32 != 0) {
            *last |= !((1u32 << (n % 32)) - 1);
        }
        let (db, dv) = (device.upload(&words), device.upload(&bitmap(&valid)));
        let indices = ops.filter_indices(&db, Some(&dv), n).unwrap();
        let expected: Vec<i64> = (0..n)
            .filter(|i| bits[*i] && valid[*i])
            .map(|i| i as i64)
            .collect();
        assert_eq!(indices.to_host().unwrap(), expected, "n = {n}");
        let all = ops.filter_indices(&db, None, n).unwrap();
        let expected: Vec<i64> = (0..n).filter(|i| bits[*i]).map(|i| i as i64).collect();
        assert_eq!(all.to_host().unwrap(), expected, "no validity, n = {n}");
    }
}

#[test]
fn gathers_of_bits_and_strings_match_rust() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(16);
    for &n in SIZES {
        let n_values = n.max(1) + 3;
        let values: Vec<bool> = (0..n_values).map(|_| rng.bool()).collect();
        let valid: Vec<bool> = (0..n_values).map(|_| rng.u8(..4) != 0).collect();
        let texts: Vec<String> = (0..n_values)
            .map(|i| "é".repeat(i % 4) + &"x".repeat(rng.usize(..20)))
            .collect();
        let indices: Vec<i64> = (0..n).map(|_| rng.i64(-2..n_values as i64 + 2)).collect();
        let di = device.upload(&indices);
        let dvalid = device.upload(&bitmap(&valid));
        let inside = |i: i64| i >= 0 && (i as usize) < n_values;
        let expected_valid: Vec<bool> = indices
            .iter()
            .map(|&i| inside(i) && valid[i as usize])
            .collect();

        let (bits, out_valid) = ops
            .gather_bits(
                &device.upload(&bitmap(&values)),
                n_values,
                Some(&dvalid),
                &di,
            )
            .unwrap();
        let expected: Vec<bool> = indices
            .iter()
            .zip(&expected_valid)
            .map(|(&i, &ok)| ok && values[i as usize])
            .collect();
        assert_eq!(bits.to_host().unwrap(), bitmap(&expected), "bits n = {n}");
        assert_eq!(
            out_valid.to_host().unwrap(),
            bitmap(&expected_valid),
            "bit validity n = {n}"
        );

        let mut offsets = vec![0i64];
        let mut bytes = Vec::new();
        for text in &texts {
            bytes.extend_from_slice(text.as_bytes());
            offsets.push(bytes.len() as i64);
        }
        let strings = ops
            .gather_strings(
                &device.upload(&offsets),
                &device.upload(&bytes),
                Some(&dvalid),
                &di,
            )
            .unwrap();
        let (out_offsets, out_bytes) = (
            strings.offsets.to_host().unwrap(),
            strings.bytes.to_host().unwrap(),
        );
        assert_eq!(out_offsets.len(), n + 1);
        for (row, (&i, &ok)) in indices.iter().zip(&expected_valid).enumerate() {
            let text = &out_bytes[out_offsets[row] as usize..out_offsets[row + 1] as usize];
            let expected: &[u8] = if ok {
                texts[i as usize].as_bytes()
            } else {
                b""
            };
            assert_eq!(text, expected, "row {row} n = {n}");
        }
        assert_eq!(
            strings.validity.to_host().unwrap(),
            bitmap(&expected_valid),
            "string validity n = {n}"
        );
        assert!(
            ops.gather_strings(
                &DeviceBuffer::zeroed(0, device.memory.clone(), &device.stream).unwrap(),
                &device.upload(&bytes),
                None,
                &di
            )
            .is_err()
        );
    }
}

#[test]
fn string_matching_against_literals() {
    use gpu_runtime::ops::StringMatch;
    let device = device();
    let ops = device.ops();
    let texts = ["", "a", "abc", "xabcx", "ab", "bc", "ünï", "abcabc", "zzz"];
    let mut rng = fastrand::Rng::with_seed(17);
    for &n in SIZES {
        let rows: Vec<&str> = (0..n).map(|_| texts[rng.usize(..texts.len())]).collect();
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..5) != 0).collect();
        let mut offsets = vec![0i64];
        let mut bytes = Vec::new();
        for text in &rows {
            bytes.extend_from_slice(text.as_bytes());
            offsets.push(bytes.len() as i64);
        }
        let (doff, dbytes, dvalid) = (
            device.upload(&offsets),
            device.upload(&bytes),
            device.upload(&bitmap(&valid)),
        );
        for pattern in ["", "abc", "bc", "ünï", "x"] {
            for (how, rule) in [
                (
                    StringMatch::Equals,
                    (|t: &str, p: &str| t == p) as fn(&str, &str) -> bool,
                ),
                (StringMatch::StartsWith, |t, p| t.starts_with(p)),
                (StringMatch::EndsWith, |t, p| t.ends_with(p)),
                (StringMatch::Contains, |t, p| t.contains(p)),
            ] {
                let (bits, out_valid) = ops
                    .string_match(&doff, &dbytes, Some(&dvalid), pattern.as_bytes(), how)
                    .unwrap();
                let expected: Vec<bool> = rows
                    .iter()
                    .zip(&valid)
                    .map(|(t, v)| *v && rule(t, pattern))
                    .collect();
                assert_eq!(
                    bits.to_host().unwrap(),
                    bitmap(&expected),
                    "{how:?} {pattern:?} n = {n}"
                );
                assert_eq!(out_valid.to_host().unwrap(), bitmap(&valid), "n = {n}");
            }
        }
    }
}

/// Whether `texts[k..]` occur in `text` from `pos` on, in order, with no
/// newline before each but the first: every choice of places tried.
fn sequence_at(text: &[u8], pos: usize, texts: &[&str], first: bool) -> bool {
    let Some((head, rest)) = texts.split_first() else {
        return true;
    };
    let head = head.as_bytes();
    (pos..=text.len().saturating_sub(head.len()))
        .filter(|&at| at + head.len() <= text.len() && &text[at..at + head.len()] == head)
        .any(|at| {
            (first || !text[pos..at].contains(&b'\n'))
                && sequence_at(text, at + head.len(), rest, false)
        })
}

#[test]
fn string_matching_against_text_sequences() {
    let device = device();
    let ops = device.ops();
    let pieces = ["a", "b", "ab", "\n", "x", "é", "special", "requests"];
    let patterns: Vec<Vec<Vec<String>>> = [
        &[&["a", "b"][..]][..],
        &[&["special", "requests"]],
        &[&["b", "a", "b"], &["x"]],
        &[&["ab", "ab"]],
        &[&["", "b"]],
        &[&[]],
        &[&["é", "\n"]],
    ]
    .iter()
    .map(|alternatives| {
        alternatives
            .iter()
            .map(|texts| texts.iter().map(|t| t.to_string()).collect())
            .collect()
    })
    .collect();
    let mut rng = fastrand::Rng::with_seed(23);
    for &n in &SIZES[..9] {
        let (rows, valid) = texts_of_pieces(&mut rng, n, &pieces, 7);
        let (doff, dbytes, dvalid) = device.upload_texts(&rows, &valid);
        for alternatives in &patterns {
            let (bits, out_valid) = ops
                .string_match_sequence(&doff, &dbytes, Some(&dvalid), alternatives)
                .unwrap();
            let expected: Vec<bool> = rows
                .iter()
                .zip(&valid)
                .map(|(t, v)| {
                    *v && alternatives.iter().any(|texts| {
                        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
                        sequence_at(t.as_bytes(), 0, &texts, true)
                    })
                })
                .collect();
            assert_eq!(
                bits.to_host().unwrap(),
                bitmap(&expected),
                "{alternatives:?} n = {n}"
            );
            assert_eq!(out_valid.to_host().unwrap(), bitmap(&valid), "n = {n}");
        }
    }
    assert!(
        ops.string_match_sequence(&device.upload(&[0i64]), &device.upload(&[0u8]), None, &[])
            .is_err()
    );
}

/// A DFA's tables, as `string_match_dfa` takes them (one start state).
struct Dfa {
    classes: Vec<u8>,
    transitions: Vec<u32>,
    flags: Vec<u8>,
    starts: Vec<u32>,
}

impl Dfa {
    /// Over [`classes_of_a_and_b`]; rows of three.
    fn over_a_and_b(start: u32, transitions: &[[u32; 3]], flags: &[u8]) -> Dfa {
        Dfa {
            classes: classes_of_a_and_b(),
            transitions: transitions.concat(),
            flags: flags.to_vec(),
            starts: vec![start],
        }
    }

    fn tables(&self) -> DfaTables<'_> {
        DfaTables {
            classes: &self.classes,
            transitions: &self.transitions,
            flags: &self.flags,
            starts: &self.starts,
        }
    }
}

const MATCHED: u8 = 1;
const DEAD: u8 = 2;
const MATCHED_AT_END: u8 = 4;

#[test]
fn string_matching_by_a_dfa() {
    let device = device();
    let ops = device.ops();
    // Each DFA (every flag used, the start state not the first) with what it
    // recognizes, as a Rust reference.
    type Reference = fn(&str) -> bool;
    let dfas: [(Dfa, Reference); 3] = [
        // "ab" anywhere: 1 after an `a`, 2 after "ab" (stays matched).
        (
            Dfa::over_a_and_b(0, &[[0, 1, 0], [0, 1, 2], [2, 2, 2]], &[0, 0, MATCHED]),
            |t| t.contains("ab"),
        ),
        // "^a": from 2, an `a` matches, anything else is dead.
        (
            Dfa::over_a_and_b(2, &[[0, 0, 0], [1, 1, 1], [0, 1, 0]], &[DEAD, MATCHED, 0]),
            |t| t.starts_with('a'),
        ),
        // "b$": 1 after a `b`, which matches only at the end.
        (
            Dfa::over_a_and_b(0, &[[0, 0, 1], [0, 0, 1]], &[0, MATCHED_AT_END]),
            |t| t.ends_with('b'),
        ),
    ];
    let pieces = ["a", "b", "ab", "ba", "x", "é", ""];
    let mut rng = fastrand::Rng::with_seed(29);
    for &n in &SIZES[..10] {
        let (rows, valid) = texts_of_pieces(&mut rng, n, &pieces, 6);
        let (doff, dbytes, dvalid) = device.upload_texts(&rows, &valid);
        for (i, (dfa, reference)) in dfas.iter().enumerate() {
            let (bits, out_valid) = ops
                .string_match_dfa((&doff, &dbytes, Some(&dvalid)), dfa.tables())
                .unwrap();
            let expected: Vec<bool> = rows
                .iter()
                .zip(&valid)
                .map(|(t, v)| *v && reference(t))
                .collect();
            assert_eq!(
                bits.to_host().unwrap(),
                bitmap(&expected),
                "dfa {i}, n = {n}"
            );
            assert_eq!(out_valid.to_host().unwrap(), bitmap(&valid), "n = {n}");
        }
    }
}

#[test]
fn string_matching_by_a_dfa_refuses_tables_that_lead_nowhere() {
    let device = device();
    let ops = device.ops();
    let strings = (&device.upload(&[0i64, 1]), &device.upload(b"a"), None);
    let good = Dfa::over_a_and_b(0, &[[0, 1, 0], [1, 1, 1]], &[0, MATCHED]);
    assert!(ops.string_match_dfa(strings, good.tables()).is_ok());
    let cases = [
        (
            Dfa::over_a_and_b(0, &[[0, 2, 0], [1, 1, 1]], &[0, MATCHED]),
            "past its 2 states",
        ),
        (
            Dfa::over_a_and_b(0, &[[0, 1, 0]], &[0, MATCHED]),
            "has 3 transitions",
        ),
        (
            Dfa::over_a_and_b(2, &[[0, 1, 0], [1, 1, 1]], &[0, MATCHED]),
            "start state 2",
        ),
        (
            Dfa {
                starts: vec![0, 0],
                ..Dfa::over_a_and_b(0, &[[0, 0, 0]], &[0])
            },
            "1 start state, not 2",
        ),
        (
            Dfa {
                classes: vec![0; 255],
                ..Dfa::over_a_and_b(0, &[[0, 0, 0]], &[0])
            },
            "256 byte classes",
        ),
    ];
    for (dfa, why) in cases {
        let error = ops.string_match_dfa(strings, dfa.tables()).unwrap_err();
        assert!(error.to_string().contains(why), "{why}: {error}");
    }
}

/// The place of each row's pattern in its text, against Rust's `str::find`
/// (an empty pattern at 0), null where either is null or there is none.
#[test]
fn places_of_each_rows_pattern_match_rusts_find() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(53);
    let pieces = ["a", "b", "ab", "é", "😀", "", "ba"];
    for &n in SIZES {
        let (texts, texts_valid) = texts_of_pieces(&mut rng, n, &pieces, 8);
        let (patterns, patterns_valid) = texts_of_pieces(&mut rng, n, &pieces, 3);
        let (t_offsets, t_bytes, t_valid) = device.upload_texts(&texts, &texts_valid);
        let (p_offsets, p_bytes, p_valid) = device.upload_texts(&patterns, &patterns_valid);
        let (values, valid) = ops
            .string_find_rows(
                (&t_offsets, &t_bytes, Some(&t_valid)),
                (&p_offsets, &p_bytes, Some(&p_valid)),
            )
            .unwrap();
        let expected: Vec<Option<u32>> = (0..n)
            .map(|i| {
                let both = texts_valid[i] && patterns_valid[i];
                both.then(|| texts[i].find(patterns[i].as_str()).map(|at| at as u32))
                    .flatten()
            })
            .collect();
        let (values, valid) = (
            values.to_host().unwrap(),
            flags(&valid.to_host().unwrap(), n),
        );
        let actual: Vec<Option<u32>> = (0..n).map(|i| valid[i].then_some(values[i])).collect();
        assert_eq!(actual, expected, "n = {n}");
    }
}
