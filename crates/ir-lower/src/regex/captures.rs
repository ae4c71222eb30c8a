//! A capture group of a regular expression found with DFAs: the whole match first, then the one place each side of the group can be.
//!
//! Polars' `str.extract(pattern, group)` takes the group from the `regex`
//! crate's captures of the first match. A DFA finds that match (see
//! [`RegexDfa::anchored`]) but keeps no captures. Where the group is a part
//! of the pattern's top-level sequence (`id=(\d+)`, `(\w+)-(\d+)`, inside
//! other groups too: `((\d+)-)x`), the pattern is the sequence `P G S`:
//! what comes before the group, the group, what comes after. Inside a match
//! `[s, e)`, the group begins at a place `p` where `P` matches `[s, p)` and
//! `G S` matches `[p, e)`, and ends at a place `q` where `G` matches
//! `[p, q)` and `S` matches `[q, e)`. Where there is exactly one such `p`,
//! and then one such `q`, the match has one parse, and the captures the
//! `regex` crate reports are that parse's. Where there are more (`(\w+)(\d+)`
//! on `ab12`: the crate's greedy `\w+` takes `ab1`, but `ab` parses too),
//! the text is ambiguous, and the device says so: the query goes to Polars.
//! Each part is a DFA that flags every end of a match from where it begins
//! ([`Search::EveryEnd`]).

use std::sync::Arc;

use regex_syntax::hir::{Hir, HirKind};

use super::{RegexDfa, Search};
use crate::expr::TemplatePiece;

/// The DFAs that find capture groups of a pattern: the whole pattern's
/// ([`RegexDfa::anchored`]), and for each group the four parts `P`, `G S`,
/// `G` and `S` (see the module's documentation), all joined into one table
/// ([`RegexDfa::joined`]: group i's parts are 4i to 4i + 3, in that order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupDfas {
    pub whole: Arc<RegexDfa>,
    pub parts: Arc<RegexDfa>,
}

impl GroupDfas {
    /// The DFAs of capture group `group` of `pattern`, or why the GPU
    /// cannot find it: a group inside a repetition or a choice, or a part
    /// without a DFA the GPU runs.
    pub fn new(pattern: &str, group: usize) -> Result<GroupDfas, String> {
        GroupDfas::for_groups(pattern, &[group])
    }

    /// The DFAs of capture groups `groups` of `pattern` (each at least 1),
    /// their parts joined in that order, or why the GPU cannot find one.
    pub fn for_groups(pattern: &str, groups: &[usize]) -> Result<GroupDfas, String> {
        let hir = regex_automata::util::syntax::parse(pattern)
            .map_err(|e| format!("the regular expression {pattern:?}: {e}"))?;
        let part =
            |hirs: Vec<Hir>| RegexDfa::cached_for(&Hir::concat(hirs).to_string(), Search::EveryEnd);
        let mut parts = Vec::with_capacity(4 * groups.len());
        for &group in groups {
            let Some((before, inside, after)) = u32::try_from(group)
                .ok()
                .and_then(|group| split_at_group(&hir, group))
            else {
                let which = match groups.len() {
                    1 => String::new(),
                    _ => format!(", and group {group} is not one"),
                };
                return Err(format!(
                    "only a group of the pattern's sequence (not inside a repetition or a \
                     choice) runs on the GPU{which}"
                ));
            };
            let group_and_after = [vec![inside.clone()], after.clone()].concat();
            parts.extend([
                part(before)?,
                part(group_and_after)?,
                part(vec![inside])?,
                part(after)?,
            ]);
        }
        let parts: Vec<&RegexDfa> = parts.iter().map(AsRef::as_ref).collect();
        Ok(GroupDfas {
            whole: RegexDfa::cached(pattern, true)?,
            parts: Arc::new(RegexDfa::joined(&parts)),
        })
    }
}

/// `value` as the `regex` crate expands it where it replaces a match of
/// `pattern` (Polars' `str.replace` of a regular expression): its texts
/// (`$$` as `$`, a `$` naming nothing as itself), the whole match (`$0`)
/// and capture groups (`$1`, `${1}`, `$name`, `${name}`); a group the
/// pattern lacks, by number or by name, puts nothing in.
pub fn replacement_pieces(pattern: &str, value: &str) -> Result<Vec<TemplatePiece>, String> {
    let hir = regex_automata::util::syntax::parse(pattern)
        .map_err(|e| format!("the regular expression {pattern:?}: {e}"))?;
    let count = hir.properties().explicit_captures_len();
    let mut names = Vec::new();
    capture_names(&hir, &mut names);
    let (mut pieces, mut expanded, mut taken) = (Vec::new(), String::new(), 0);
    regex_automata::util::interpolate::string(
        value,
        |index, expanded| {
            if index > count {
                return;
            }
            if expanded.len() > taken {
                pieces.push(TemplatePiece::Text(expanded[taken..].to_string()));
                taken = expanded.len();
            }
            pieces.push(match index {
                0 => TemplatePiece::Match,
                n => TemplatePiece::Group(n),
            });
        },
        |name| {
            names
                .iter()
                .find(|(known, _)| known.as_str() == name)
                .map(|&(_, index)| index)
        },
        &mut expanded,
    );
    if expanded.len() > taken {
        pieces.push(TemplatePiece::Text(expanded[taken..].to_string()));
    }
    Ok(pieces)
}

/// The named capture groups of `hir`, with their numbers.
fn capture_names(hir: &Hir, names: &mut Vec<(String, usize)>) {
    match hir.kind() {
        HirKind::Capture(capture) => {
            if let Some(name) = &capture.name {
                names.push((name.to_string(), capture.index as usize));
            }
            capture_names(&capture.sub, names);
        }
        HirKind::Concat(parts) | HirKind::Alternation(parts) => {
            parts.iter().for_each(|part| capture_names(part, names));
        }
        HirKind::Repetition(repetition) => capture_names(&repetition.sub, names),
        HirKind::Empty | HirKind::Literal(_) | HirKind::Class(_) | HirKind::Look(_) => {}
    }
}

/// The walk the device does (`kernels/cuda/matches.cu`), on the host, for
/// the tests.
#[cfg(test)]
impl GroupDfas {
    /// The parts of [`GroupDfas::parts`], by their place in the joined
    /// table.
    const BEFORE: usize = 0;
    const GROUP_AND_AFTER: usize = 1;
    const GROUP: usize = 2;
    const AFTER: usize = 3;

    /// The group's byte range in `text` (`Ok(None)` where the pattern does
    /// not match), or `Err(())` where the match parses more than one way.
    fn group_in(&self, text: &[u8]) -> Result<Option<(usize, usize)>, ()> {
        let Some((start, end)) = (0..=text.len())
            .filter(|&at| at == text.len() || (text[at] & 0xC0) != 0x80)
            .find_map(|at| self.whole.match_at(text, at).map(|end| (at, end)))
        else {
            return Ok(None);
        };
        let begin = self.one_split((Self::BEFORE, Self::GROUP_AND_AFTER), text, start, end)?;
        let finish = self.one_split((Self::GROUP, Self::AFTER), text, begin, end)?;
        Ok(Some((begin, finish)))
    }

    /// The one place `j` in `[from, to]` where part `first` matches
    /// `[from, j)` and part `second` matches `[j, to)`; `Err` where there is
    /// none or more than one.
    fn one_split(
        &self,
        (first, second): (usize, usize),
        text: &[u8],
        from: usize,
        to: usize,
    ) -> Result<usize, ()> {
        let mut state = self.start(first, text, from);
        let mut found = None;
        for j in from..=to {
            let ends_here = if j < text.len() {
                state = self.next(first, state, text[j]);
                self.parts.flags[state] & RegexDfa::MATCHED != 0
            } else {
                self.parts.flags[state] & RegexDfa::MATCHED_AT_END != 0
            };
            if ends_here && self.matches_to(second, text, j, to) {
                if found.is_some() {
                    return Err(());
                }
                found = Some(j);
            }
            if j < text.len() && self.parts.flags[state] & RegexDfa::DEAD != 0 {
                break;
            }
        }
        found.ok_or(())
    }

    /// Whether part `part` matches `[from, to)` of `text` exactly.
    fn matches_to(&self, part: usize, text: &[u8], from: usize, to: usize) -> bool {
        let mut state = self.start(part, text, from);
        for (j, &byte) in text.iter().enumerate().skip(from) {
            state = self.next(part, state, byte);
            if j == to {
                return self.parts.flags[state] & RegexDfa::MATCHED != 0;
            }
            if self.parts.flags[state] & RegexDfa::DEAD != 0 {
                return false;
            }
        }
        to == text.len() && self.parts.flags[state] & RegexDfa::MATCHED_AT_END != 0
    }

    /// Part `part`'s start state at `at` in `text`.
    fn start(&self, part: usize, text: &[u8], at: usize) -> usize {
        let before = if at == 0 {
            256
        } else {
            usize::from(text[at - 1])
        };
        self.parts.starts[257 * part + before] as usize
    }

    /// Part `part`'s state after `state` on `byte`.
    fn next(&self, part: usize, state: usize, byte: u8) -> usize {
        let class = usize::from(self.parts.classes[256 * part + usize::from(byte)]);
        self.parts.transitions[state * self.parts.stride as usize + class] as usize
    }
}

/// `hir` as the parts before capture group `group`, the group's own
/// expression, and the parts after it, where the group lies in the
/// top-level sequence (or in groups that do); `None` where it lies in a
/// repetition or a choice, or is no group of `hir`.
fn split_at_group(hir: &Hir, group: u32) -> Option<(Vec<Hir>, Hir, Vec<Hir>)> {
    match hir.kind() {
        HirKind::Capture(capture) if capture.index == group => {
            Some((Vec::new(), capture.sub.as_ref().clone(), Vec::new()))
        }
        HirKind::Capture(capture) => split_at_group(&capture.sub, group),
        HirKind::Concat(parts) => parts.iter().enumerate().find_map(|(i, part)| {
            let (before, inside, after) = split_at_group(part, group)?;
            let before = [&parts[..i], &before[..]].concat();
            let after = [&after[..], &parts[i + 1..]].concat();
            Some((before, inside, after))
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::GroupDfas;
    use crate::expr::TemplatePiece;

    /// Patterns with groups in sequences, some of which parse a text more
    /// than one way, with look-arounds and Unicode classes.
    const PATTERNS: &[(&str, usize)] = &[
        (r"(\w+)-(\d+)", 1),
        (r"(\w+)-(\d+)", 2),
        (r"id=(\d+)", 1),
        (r"(a)(b)", 2),
        (r"(a)b", 1),
        (r"^(\w)", 1),
        (r"(\w+)(\d+)", 1),
        (r"(\w+)(\d+)", 2),
        (r"(.*)/(.*)", 2),
        (r"((\d+)-)x", 2),
        (r"((\d+)-)x", 1),
        (r"(a*)(a)", 1),
        (r"(?i)(K)(é+)", 2),
        (r"(?m)^(\d+)$", 1),
        (r"(\d{2})\.(\d*)", 2),
        (r"x(?:y|z)(\d)", 1),
        (r"(?-u:\b)(a)", 1),
        (r"(é|ß)(.)", 2),
        (r"()", 1),
        (r"a()b", 1),
        (r"(?<name>\d)(\s*)", 2),
    ];

    fn texts() -> Vec<String> {
        let pieces = [
            "", "a", "ab", "b", "1", "42", "-", "/", ".", " ", "\n", "é", "ß", "K", "id=", "x", "y",
        ];
        let mut texts = Vec::new();
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    texts.push(format!("{a}{b}{c}"));
                }
            }
        }
        texts
    }

    /// Where the walk finds one parse, its group is the `regex` crate's
    /// capture (what Polars' `str.extract` gives); most texts parse one
    /// way.
    #[test]
    fn groups_are_the_regex_crates_captures() {
        let texts = texts();
        for &(pattern, group) in PATTERNS {
            let dfas =
                GroupDfas::new(pattern, group).unwrap_or_else(|e| panic!("{pattern:?}: {e}"));
            let regex = regex::Regex::new(pattern).unwrap();
            let mut ambiguous = 0;
            for text in &texts {
                let expected = regex
                    .captures(text)
                    .map(|captures| captures.get(group).map(|m| (m.start(), m.end())).unwrap());
                match dfas.group_in(text.as_bytes()) {
                    Ok(found) => assert_eq!(found, expected, "{pattern:?} {group} on {text:?}"),
                    Err(()) => ambiguous += 1,
                }
            }
            assert!(
                ambiguous * 4 < texts.len(),
                "{pattern:?} {group}: {ambiguous} ambiguous"
            );
        }
    }

    /// The pieces of a replacement, each match's groups put in, give what
    /// the `regex` crate's `replace` gives (Polars' `str.replace`).
    #[test]
    fn replacement_pieces_expand_as_the_regex_crate() {
        let values = [
            "$1", "${1}x", "$1x", "$0$0", "$$1", "$", "a$", "$2-$1", "$name", "${name}!", "$9",
            "${nope}", "$ 1", "${1", "$_", "é$1é", "$01", "${0}",
        ];
        let texts = texts();
        for pattern in [r"(\w+)-(\d+)", r"(?<name>\d)(\s*)", r"(a)b", "x"] {
            let regex = regex::Regex::new(pattern).unwrap();
            for value in values {
                let pieces = super::replacement_pieces(pattern, value).unwrap();
                for text in texts.iter().take(600) {
                    let expected = regex.replace(text, value);
                    let actual = match regex.captures(text) {
                        None => text.clone(),
                        Some(captures) => {
                            let whole = captures.get(0).unwrap();
                            let mut out = text[..whole.start()].to_string();
                            for piece in &pieces {
                                match piece {
                                    TemplatePiece::Text(t) => out.push_str(t),
                                    TemplatePiece::Match => out.push_str(whole.as_str()),
                                    TemplatePiece::Group(n) => {
                                        out.push_str(captures.get(*n).map_or("", |m| m.as_str()))
                                    }
                                }
                            }
                            out + &text[whole.end()..]
                        }
                    };
                    assert_eq!(actual, expected, "{pattern:?} by {value:?} in {text:?}");
                }
            }
        }
    }

    #[test]
    fn texts_of_two_parses_are_ambiguous() {
        let dfas = GroupDfas::new(r"(\w+)(\d+)", 2).unwrap();
        assert_eq!(dfas.group_in(b"ab12"), Err(()));
        assert_eq!(dfas.group_in(b"ab1"), Ok(Some((2, 3))));
        assert_eq!(dfas.group_in(b"--"), Ok(None));
    }

    #[test]
    fn groups_in_repetitions_and_choices_are_refused() {
        for (pattern, group) in [
            (r"(a)+", 1),
            (r"(a)|b", 1),
            (r"(a)?", 1),
            (r"(a)", 2),
            ("(", 1),
        ] {
            assert!(
                GroupDfas::new(pattern, group).is_err(),
                "{pattern:?} {group}"
            );
        }
    }
}
