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
//!
//! Where the matches themselves count (`count_matches`, `find`, `replace`),
//! [`RegexDfa::anchored`] builds the DFA of a search anchored where it
//! begins, with a start state for each byte that may precede that place
//! (what `^`, `$` in multi-line mode and word boundaries look at): a thread
//! tries each place from the left and takes the first that matches, to the
//! end of its leftmost-first match, as the `regex` crate's iterators do
//! (the next search from that end, skipping an empty match there).

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use regex_automata::dfa::{Automaton, StartKind, dense};
use regex_automata::util::primitives::StateID;
use regex_automata::util::start;
use regex_automata::{Anchored, MatchKind, nfa::thompson, util::syntax};
use regex_syntax::hir::HirKind;

/// The most patterns [`RegexDfa::cached`] keeps.
pub const CACHED: usize = 64;

/// The most transition entries (states times byte classes) a table may
/// hold: 1 MiB of 32-bit entries, which stays in the device's caches.
pub const MAX_ENTRIES: usize = 1 << 18;

mod captures;

pub use captures::{GroupDfas, replacement_pieces};

/// The search a [`RegexDfa`] is built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Search {
    /// A match anywhere ([`RegexDfa::new`]).
    Unanchored,
    /// The leftmost-first match that begins where the walk does
    /// ([`RegexDfa::anchored`]).
    Anchored,
    /// Every end of a match that begins where the walk does: a state after
    /// each such end is flagged [`RegexDfa::MATCHED`] (regex-automata's
    /// `MatchKind::All`), for the parts of [`captures`].
    EveryEnd,
}

/// A regular expression as the tables of a DFA that tells whether a text
/// holds a match anywhere. States are numbered from 0 in the order a
/// breadth-first walk from the start state meets them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegexDfa {
    pattern: String,
    classes: Vec<u8>,
    stride: u32,
    /// Unanchored: the start state. Anchored: the start state after each
    /// byte (at its index) and at the text's start (the last).
    starts: Vec<u32>,
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
        Self::build(pattern, MAX_ENTRIES, Search::Unanchored)
    }

    /// The DFA of `pattern` for searches anchored where they begin (see the
    /// module's documentation), or why the GPU cannot run it.
    pub fn anchored(pattern: &str) -> Result<RegexDfa, String> {
        Self::build(pattern, MAX_ENTRIES, Search::Anchored)
    }

    /// [`RegexDfa::new`] or, `anchored`, [`RegexDfa::anchored`], built once
    /// per process for each pattern (as Polars caches its compiled
    /// expressions): a query that repeats, or falls back and is reported,
    /// does not build it again. Refusals are kept too; the cache holds at
    /// most [`CACHED`] patterns and is emptied when full.
    pub fn cached(pattern: &str, anchored: bool) -> Result<Arc<RegexDfa>, String> {
        let search = if anchored {
            Search::Anchored
        } else {
            Search::Unanchored
        };
        Self::cached_for(pattern, search)
    }

    /// The DFA of `pattern` for `search`, built once per process as
    /// [`RegexDfa::cached`] says.
    pub(crate) fn cached_for(pattern: &str, search: Search) -> Result<Arc<RegexDfa>, String> {
        type Built = Result<Arc<RegexDfa>, String>;
        static BUILT: LazyLock<Mutex<HashMap<(String, Search), Built>>> =
            LazyLock::new(Mutex::default);
        let key = (pattern.to_owned(), search);
        if let Some(built) = BUILT.lock().ok().and_then(|built| built.get(&key).cloned()) {
            return built;
        }
        let dfa = Self::build(pattern, MAX_ENTRIES, search).map(Arc::new);
        // (A poisoned lock only loses the cache.)
        if let Ok(mut built) = BUILT.lock() {
            if built.len() >= CACHED {
                built.clear();
            }
            built.insert(key, dfa.clone());
        }
        dfa
    }

    /// The DFA of `pattern` for `search`, with at most `max_entries`
    /// transitions.
    fn build(pattern: &str, max_entries: usize, search: Search) -> Result<RegexDfa, String> {
        let anchored = search != Search::Unanchored;
        let match_kind = if search == Search::EveryEnd {
            MatchKind::All
        } else {
            MatchKind::LeftmostFirst
        };
        // The DFA's own size (a state's row is a power of two, so up to
        // twice the classes, with 32-bit entries; the rest is headroom), and what building it may
        // take, both bounded so that a large pattern is refused quickly.
        let limit = Some(max_entries * 4 * 8);
        let dfa = dense::Builder::new()
            .configure(
                dense::Config::new()
                    .match_kind(match_kind)
                    .start_kind(if anchored {
                        StartKind::Anchored
                    } else {
                        StartKind::Unanchored
                    })
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
        let start_after = |before: Option<u8>| {
            let how = if anchored {
                Anchored::Yes
            } else {
                Anchored::No
            };
            let config = start::Config::new().anchored(how).look_behind(before);
            dfa.start_state(&config)
                .map_err(|e| format!("the regular expression {pattern:?}: {e}"))
        };
        let mut start_ids = Vec::with_capacity(257);
        if anchored {
            for byte in 0..=255u8 {
                start_ids.push(start_after(Some(byte))?);
            }
        }
        start_ids.push(start_after(None)?);
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
        let (mut numbers, mut order) = (HashMap::new(), Vec::new());
        let starts = start_ids
            .into_iter()
            .map(|id| number_of(id, &mut numbers, &mut order).ok_or_else(too_large))
            .collect::<Result<Vec<u32>, String>>()?;
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
                transitions.push(number_of(to, &mut numbers, &mut order).ok_or_else(too_large)?);
            }
            if transitions.len() > max_entries {
                return Err(too_large());
            }
        }
        Ok(RegexDfa {
            pattern: pattern.to_owned(),
            classes,
            stride: stride as u32,
            starts,
            transitions,
            flags,
        })
    }

    /// The tables of several anchored DFAs as one, for a kernel that walks
    /// each: the parts' byte classes (256 each) and start states (257 each)
    /// one after the other, their states numbered after those of the parts
    /// before them, every state's row as wide as the widest part's (the
    /// entries past a part's own classes, never read, lead to its first
    /// state). Part `k`'s classes and start states are at `256 * k` and
    /// `257 * k`.
    pub(crate) fn joined(parts: &[&RegexDfa]) -> RegexDfa {
        let stride = parts.iter().map(|part| part.stride).max().unwrap_or(1);
        let mut joined = RegexDfa {
            pattern: parts
                .iter()
                .map(|part| part.pattern.as_str())
                .collect::<Vec<_>>()
                .join(" | "),
            classes: Vec::new(),
            stride,
            starts: Vec::new(),
            transitions: Vec::new(),
            flags: Vec::new(),
        };
        for part in parts {
            let first = joined.flags.len() as u32;
            joined.classes.extend_from_slice(&part.classes);
            joined
                .starts
                .extend(part.starts.iter().map(|start| start + first));
            for row in part.transitions.chunks(part.stride as usize) {
                joined.transitions.extend(row.iter().map(|to| to + first));
                joined
                    .transitions
                    .extend(std::iter::repeat_n(first, (stride - part.stride) as usize));
            }
            joined.flags.extend_from_slice(&part.flags);
        }
        joined
    }

    /// The regular expression, as written.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// Each byte's class (256 entries, the classes numbered from 0).
    pub fn classes(&self) -> &[u8] {
        &self.classes
    }

    /// The start state at the text's start.
    pub fn start(&self) -> u32 {
        self.starts[self.starts.len() - 1]
    }

    /// The start states of an anchored DFA: after each byte (at its index),
    /// then at the text's start; of another, the one start state.
    pub fn starts(&self) -> &[u32] {
        &self.starts
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

    /// The state after `state` on `byte`.
    fn next(&self, state: usize, byte: u8) -> usize {
        let class = usize::from(self.classes[usize::from(byte)]);
        self.transitions[state * self.stride as usize + class] as usize
    }

    /// Of an anchored DFA: the end of the leftmost-first match that begins
    /// at `at` in `text`, if one does: the walk the device does, on the host.
    pub fn match_at(&self, text: &[u8], at: usize) -> Option<usize> {
        let start = if at == 0 {
            256
        } else {
            usize::from(text[at - 1])
        };
        let mut state = self.starts[start] as usize;
        let mut end = None;
        for (place, &byte) in text.iter().enumerate().skip(at) {
            state = self.next(state, byte);
            let flags = self.flags[state];
            if flags & Self::MATCHED != 0 {
                end = Some(place);
            }
            if flags & Self::DEAD != 0 {
                return end;
            }
        }
        if self.flags[state] & Self::MATCHED_AT_END != 0 {
            end = Some(text.len());
        }
        end
    }

    /// Whether `text` holds a match: the walk the device does, on the host.
    pub fn is_match(&self, text: &[u8]) -> bool {
        let mut state = self.start() as usize;
        for &byte in text {
            state = self.next(state, byte);
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

/// The number of state `id`: given in the order states are first met, each
/// new one queued in `order` for the walk; `None` past u32.
fn number_of(
    id: StateID,
    numbers: &mut HashMap<StateID, u32>,
    order: &mut Vec<StateID>,
) -> Option<u32> {
    if let Some(&number) = numbers.get(&id) {
        return Some(number);
    }
    let number = u32::try_from(order.len()).ok()?;
    numbers.insert(id, number);
    order.push(id);
    Some(number)
}

/// Whether capture group `group` of `pattern` spans the whole match
/// wherever the pattern matches: group 0, or a group that holds the whole
/// pattern but for zero-width assertions around it (`^(\d+)$`).
pub fn group_spans_match(pattern: &str, group: usize) -> bool {
    if group == 0 {
        return true;
    }
    let Ok(hir) = syntax::parse(pattern) else {
        return false;
    };
    let parts = match hir.kind() {
        HirKind::Concat(parts) => parts.as_slice(),
        _ => std::slice::from_ref(&hir),
    };
    let mut wide = parts
        .iter()
        .filter(|part| !matches!(part.kind(), HirKind::Look(_)));
    match (wide.next(), wide.next()) {
        (Some(only), None) => {
            matches!(only.kind(), HirKind::Capture(capture) if capture.index as usize == group)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::{RegexDfa, Search};

    /// Patterns of every construct the DFAs take, some of which can match
    /// empty text.
    const PATTERNS: &[&str] = &[
        "a?",
        "(a|)",
        "a*?",
        "|a",
        "(?m)^",
        "(?m)$",
        r"(?-u:\b)",
        "x*",
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
        r"foo(bar)?",
        r"(ab|a)(c|bc)",
        "a|ab",
        "ab|a",
        r"\w+",
        r"(?m)^.",
        r"1\s*(?:4|2)",
    ];

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
        let patterns = PATTERNS;
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

    /// The matches the device finds with an anchored DFA: from the left,
    /// the first character boundary where a match begins, to its end; then
    /// on from there, an empty match where the last one ended skipped.
    fn matches(dfa: &RegexDfa, text: &str) -> Vec<(usize, usize)> {
        let bytes = text.as_bytes();
        let (mut found, mut at, mut last_end) = (Vec::new(), 0, None);
        while at <= bytes.len() {
            // Matches begin at character boundaries only.
            if at < bytes.len() && (bytes[at] & 0xC0) == 0x80 {
                at += 1;
                continue;
            }
            match dfa.match_at(bytes, at) {
                // An empty match where the last one ended is skipped.
                Some(end) if !(end == at && last_end == Some(at)) => {
                    found.push((at, end));
                    last_end = Some(end);
                    if end > at {
                        at = end;
                        continue;
                    }
                }
                _ => {}
            }
            at += 1;
        }
        found
    }

    /// Every match (start and end) equals the `regex` crate's `find_iter`,
    /// which Polars' `count_matches`, `find` and `replace` follow.
    #[test]
    fn anchored_matches_are_the_regex_crates() {
        let patterns = PATTERNS;
        let texts = texts();
        for pattern in patterns {
            let regex = regex::Regex::new(pattern).unwrap();
            let dfa = RegexDfa::anchored(pattern).unwrap_or_else(|e| panic!("{pattern:?}: {e}"));
            for text in &texts {
                let expected: Vec<(usize, usize)> = regex
                    .find_iter(text)
                    .map(|m| (m.start(), m.end()))
                    .collect();
                assert_eq!(matches(&dfa, text), expected, "{pattern:?} on {text:?}");
            }
        }
    }

    #[test]
    fn each_pattern_is_built_once() {
        let (first, again) = (
            RegexDfa::cached("x[0-9]+y", true),
            RegexDfa::cached("x[0-9]+y", true),
        );
        assert!(std::sync::Arc::ptr_eq(&first.unwrap(), &again.unwrap()));
        let unanchored = RegexDfa::cached("x[0-9]+y", false).unwrap();
        assert_eq!(unanchored.starts().len(), 1);
        assert_eq!(
            RegexDfa::cached("x*", true),
            RegexDfa::anchored("x*").map(Into::into)
        );
    }

    #[test]
    fn groups_that_span_the_whole_match() {
        for (pattern, group, spans) in [
            (r"\d+", 0, true),
            (r"(\d+)", 1, true),
            (r"^(\d+)$", 1, true),
            (r"(?m)^(a|b)", 1, true),
            (r"(\d+)", 2, false),
            (r"a(\d+)", 1, false),
            (r"(a)(b)", 1, false),
            (r"((a)b)", 2, false),
            (r"(?<name>x)", 1, true),
            ("(", 1, false),
        ] {
            assert_eq!(
                super::group_spans_match(pattern, group),
                spans,
                "{pattern:?} {group}"
            );
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
        let error = RegexDfa::build("[a-z]{10}", 30, Search::Unanchored).unwrap_err();
        assert!(error.contains("more than 30 transitions"), "{error}");
        assert!(RegexDfa::build("[a-z]{10}", 39, Search::Unanchored).is_ok());
    }
}
