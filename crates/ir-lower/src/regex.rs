//! Regular expressions compiled to the tables of a DFA, which the GPU runs over each text.
//!
//! Polars matches `str.contains(pattern)` with the `regex` crate's
//! `Regex::is_match`. That crate's engines live in `regex-automata`, whose
//! dense DFA builder takes the same syntax with the same defaults (Unicode
//! on, UTF-8 texts). [`RegexDfa::new`] builds that DFA for an unanchored
//! search and copies it into flat tables: each byte's equivalence class, and
//! for each state the next state per class. A device thread then walks one
//! text a byte at a time: one table read per byte, no backtracking, the same
//! answer as `is_match`. What the DFA cannot express (Unicode word
//! boundaries), or a table over [`MAX_ENTRIES`], is refused here.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use regex_automata::dfa::{Automaton, StartKind, dense};
use regex_automata::util::primitives::StateID;
use regex_automata::util::start;
use regex_automata::{Anchored, nfa::thompson, util::syntax};

/// The most transition entries (states times byte classes) a table may
/// hold: 1 MiB of 32-bit entries, which stays in the device's caches.
pub const MAX_ENTRIES: usize = 1 << 18;

/// A regular expression as the tables of a DFA that tells whether a text
/// holds a match anywhere. States are numbered from 0 in the order a
/// breadth-first walk from the start state meets them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegexDfa {
    pattern: String,
    classes: Vec<u8>,
    stride: u32,
    start: u32,
    transitions: Vec<u32>,
    flags: Vec<u8>,
}

impl RegexDfa {
    /// In [`RegexDfa::flags`]: the state follows a match (regex-automata
    /// reports a match one byte late), so the text matches.
    pub const MATCHED: u8 = 1;
    /// In [`RegexDfa::flags`]: no match can follow.
    pub const DEAD: u8 = 2;
    /// In [`RegexDfa::flags`]: the text matches if it ends in this state.
    pub const MATCHED_AT_END: u8 = 4;

    /// The DFA of `pattern`, or why the GPU cannot run it (a pattern the
    /// `regex` crate rejects among them: Polars reports that itself).
    pub fn new(pattern: &str) -> Result<RegexDfa, String> {
        Self::with_limit(pattern, MAX_ENTRIES)
    }

    /// [`RegexDfa::new`], with at most `max_entries` transitions.
    fn with_limit(pattern: &str, max_entries: usize) -> Result<RegexDfa, String> {
        // The DFA's own size (a state's row is a power of two, so up to
        // twice the classes, with 32-bit entries; the rest is headroom), and what building it may
        // take, both bounded so that a large pattern is refused quickly.
        let limit = Some(max_entries * 4 * 8);
        let dfa = dense::Builder::new()
            .configure(
                dense::Config::new()
                    .start_kind(StartKind::Unanchored)
                    .minimize(true)
                    .dfa_size_limit(limit)
                    .determinize_size_limit(limit.map(|bytes| bytes * 8)),
            )
            .syntax(syntax::Config::new())
            .thompson(thompson::Config::new())
            .build(pattern)
            .map_err(|e| {
                format!("the regular expression {pattern:?} has no DFA the GPU runs: {e}")
            })?;
        let start = dfa
            .start_state(&start::Config::new().anchored(Anchored::No))
            .map_err(|e| format!("the regular expression {pattern:?}: {e}"))?;
        let byte_classes = dfa.byte_classes();
        let classes: Vec<u8> = (0..=255u8).map(|b| byte_classes.get(b)).collect();
        // One byte of each class.
        let mut representatives = Vec::new();
        for byte in 0..=255u8 {
            if usize::from(byte_classes.get(byte)) == representatives.len() {
                representatives.push(byte);
            }
        }
        let stride = representatives.len();
        let too_large = || {
            format!(
                "the regular expression {pattern:?} needs a DFA of more than {max_entries} \
                 transitions"
            )
        };
        let mut numbers: HashMap<StateID, u32> = HashMap::from([(start, 0)]);
        let mut order = vec![start];
        let (mut transitions, mut flags) = (Vec::new(), Vec::new());
        let mut next = 0;
        while let Some(&state) = order.get(next) {
            next += 1;
            if dfa.is_quit_state(state) {
                return Err(format!(
                    "the regular expression {pattern:?} needs a search the GPU's DFA cannot do"
                ));
            }
            let mut flag = 0;
            if dfa.is_match_state(state) {
                flag |= Self::MATCHED;
            }
            if dfa.is_dead_state(state) {
                flag |= Self::DEAD;
            }
            if dfa.is_match_state(dfa.next_eoi_state(state)) {
                flag |= Self::MATCHED_AT_END;
            }
            flags.push(flag);
            for &byte in &representatives {
                let to = dfa.next_state(state, byte);
                let number = match numbers.entry(to) {
                    Entry::Occupied(entry) => *entry.get(),
                    Entry::Vacant(entry) => {
                        order.push(to);
                        *entry.insert(u32::try_from(order.len() - 1).map_err(|_| too_large())?)
                    }
                };
                transitions.push(number);
            }
            if transitions.len() > max_entries {
                return Err(too_large());
            }
        }
        Ok(RegexDfa {
            pattern: pattern.to_owned(),
            classes,
            stride: stride as u32,
            start: 0,
            transitions,
            flags,
        })
    }

    /// The regular expression, as written.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// Each byte's class (256 entries, the classes numbered from 0).
    pub fn classes(&self) -> &[u8] {
        &self.classes
    }

    /// The start state.
    pub fn start(&self) -> u32 {
        self.start
    }

    /// The next state from state `s` on a byte of class `c`:
    /// `transitions()[s * classes + c]`, where `classes` is the number of
    /// classes (the largest class plus one).
    pub fn transitions(&self) -> &[u32] {
        &self.transitions
    }

    /// Each state's flags: [`RegexDfa::MATCHED`], [`RegexDfa::DEAD`],
    /// [`RegexDfa::MATCHED_AT_END`].
    pub fn flags(&self) -> &[u8] {
        &self.flags
    }

    /// Whether `text` holds a match: the walk the device does, on the host.
    pub fn is_match(&self, text: &[u8]) -> bool {
        let stride = self.stride as usize;
        let mut state = self.start as usize;
        for &byte in text {
            let class = usize::from(self.classes[usize::from(byte)]);
            state = self.transitions[state * stride + class] as usize;
            let flags = self.flags[state];
            if flags & Self::MATCHED != 0 {
                return true;
            }
            if flags & Self::DEAD != 0 {
                return false;
            }
        }
        self.flags[state] & Self::MATCHED_AT_END != 0
    }
}

#[cfg(test)]
mod tests {
    use super::RegexDfa;

    /// Texts of the bytes that matter to `patterns` below, ASCII and not,
    /// with newlines; every combination up to three pieces.
    fn texts() -> Vec<String> {
        let pieces = [
            "",
            "a",
            "b",
            "ab",
            "abc",
            "A",
            "1",
            "42",
            " ",
            "\n",
            "é",
            "ß",
            "日本",
            "x_y",
            "foo",
            "bar",
            "Customer",
            "Complaints",
            ".",
            "-",
            "ſ",
            "K",
        ];
        let mut texts = vec![String::new()];
        for a in pieces {
            for b in pieces {
                texts.push(format!("{a}{b}"));
                for c in ["", "a", "\n", "é", "42"] {
                    texts.push(format!("{a}{c}{b}"));
                }
            }
        }
        texts
    }

    /// Every text's answer equals the `regex` crate's (the matcher Polars
    /// calls) for patterns of every construct the DFA takes.
    #[test]
    fn matches_as_the_regex_crate_does() {
        let patterns = [
            "a",
            "ab|b",
            "^a",
            "a$",
            "^$",
            "^",
            "",
            "a*",
            "a+b",
            "[a-c]+",
            "[^a]",
            ".",
            "^.$",
            r"\d+",
            r"\d{2}",
            r"^\w+$",
            r"\s",
            r"(?i)customer",
            r"(?i)k",
            r"(?m)^b",
            r"(?m)a$",
            r"(?s)a.b",
            "a.b",
            "[é]",
            "é|ß",
            r"\p{Han}",
            r"[[:alpha:]]+",
            r"foo(bar)?$",
            r"^(ab|a)(c|bc)$",
            r"x_y|^\.",
            r"\.",
            r"-?\d",
            "Customer.*Complaints",
            r"(?-u:\w)",
            r"(?-u:\b)a",
            r"a{2,3}",
            r"^(?:a|b)*$",
            r"[a-z&&[^b]]",
        ];
        let texts = texts();
        for pattern in patterns {
            let dfa = RegexDfa::new(pattern).unwrap_or_else(|e| panic!("{pattern:?}: {e}"));
            let regex = regex::Regex::new(pattern).unwrap();
            for text in &texts {
                assert_eq!(
                    dfa.is_match(text.as_bytes()),
                    regex.is_match(text),
                    "{pattern:?} on {text:?}"
                );
            }
        }
    }

    #[test]
    fn refuses_what_the_dfa_cannot_do() {
        for (pattern, why) in [
            (r"\b", "no DFA"),
            ("(", "no DFA"),
            (r"\w{50}[0-9]{50}\w{50}", "exceeded size limit"),
        ] {
            let error = RegexDfa::new(pattern).unwrap_err();
            assert!(error.contains(why), "{pattern:?}: {error}");
        }
        // Within the builder's limits, over the table's.
        let error = RegexDfa::with_limit("[a-z]{10}", 30).unwrap_err();
        assert!(error.contains("more than 30 transitions"), "{error}");
        assert!(RegexDfa::with_limit("[a-z]{10}", 39).is_ok());
    }
}
