//! Operations of the matching kernels (`kernels/cuda/matches.cu`): the matches of a literal or a DFA in strings, counted, found, extracted, a capture group of them, and replacements that put groups in.

use super::*;

/// The tables of a DFA that matches a regular expression (built on the
/// host: ir-lower's `RegexDfa`): each byte's class (256 entries); the next
/// state from state s on a byte of class c at `transitions[s * classes + c]`,
/// `classes` being the largest class plus one; each state's flags (1: a
/// match ended before the last byte, 2: dead, 4: a match if the text ends
/// here); the start states (one for an unanchored search; for an anchored
/// one, the start after each byte, at its index, and at the text's start,
/// at 256).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DfaTables<'a> {
    pub classes: &'a [u8],
    pub transitions: &'a [u32],
    pub flags: &'a [u8],
    pub starts: &'a [u32],
}

/// What `str.count_matches`, `str.find` and `str.replace` search for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern<'a> {
    /// A literal text.
    Literal(&'a str),
    /// A regular expression, as its anchored DFA: each character boundary
    /// is tried from the left, to the end of its leftmost-first match (an
    /// empty match where the last one ended is skipped).
    Anchored(DfaTables<'a>),
}

/// A piece of a replacement that puts each match's capture groups in
/// ([`Ops::string_replace_groups`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplacementPiece<'a> {
    /// This text as it is.
    Text(&'a str),
    /// The whole match.
    Match,
    /// The group whose DFAs are the `i`th four of the groups' tables.
    Group(usize),
}

/// A DFA's tables on the device.
pub(super) struct DfaBuffers {
    pub(super) classes: DeviceBuffer<u8>,
    pub(super) transitions: DeviceBuffer<u32>,
    pub(super) flags: DeviceBuffer<u8>,
    pub(super) starts: DeviceBuffer<u32>,
    pub(super) stride: u32,
}

/// A [`Pattern`] on the device.
pub(super) struct PatternBuffers {
    pub(super) text: DeviceBuffer<u8>,
    pub(super) text_len: u64,
    pub(super) dfa: Option<DfaBuffers>,
}

impl PatternBuffers {
    /// The pattern's arguments, as the matching kernels take them after
    /// the strings: the literal and its length, then the DFA's tables (null
    /// for a literal) and its number of classes.
    pub(super) fn args(&self, args: KernelArgs) -> KernelArgs {
        dfa_args(
            self.dfa.as_ref(),
            args.buffer(&self.text).arg(self.text_len),
        )
    }
}

/// A DFA's arguments, as the matching kernels take them: its tables and
/// its number of classes, or nulls and 0 where there is none.
fn dfa_args(dfa: Option<&DfaBuffers>, args: KernelArgs) -> KernelArgs {
    match dfa {
        Some(dfa) => args
            .buffer(&dfa.classes)
            .buffer(&dfa.transitions)
            .buffer(&dfa.flags)
            .buffer(&dfa.starts)
            .arg(dfa.stride),
        None => args
            .arg(DevicePtr::NULL)
            .arg(DevicePtr::NULL)
            .arg(DevicePtr::NULL)
            .arg(DevicePtr::NULL)
            .arg(0u32),
    }
}

impl Ops<'_> {
    /// Polars' `str.count_matches` (`find` false) or `str.find` (`find`) of
    /// `pattern` in each of `n` strings: the number of leftmost,
    /// non-overlapping matches (an empty literal matches at every character
    /// boundary), or the byte offset of the first, null where there is none.
    /// Null strings give null.
    pub fn string_matches(
        &self,
        (offsets, bytes, validity): StringsRef<'_>,
        pattern: Pattern<'_>,
        find: bool,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), RuntimeError> {
        check(!offsets.is_empty(), || "string offsets are empty".into())?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        let pattern = self.pattern_buffers(pattern)?;
        let out = self.zeroed::<u32>(n)?;
        let out_validity = self.zeroed::<u32>(words(n))?;
        let args = pattern
            .args(string_args((offsets, bytes, validity), n))
            .arg(u32::from(find))
            .buffer(&out)
            .buffer(&out_validity);
        self.launch(ids::string_matches, Self::linear(n), args)?;
        Ok((out, out_validity))
    }

    /// Polars' `str.extract_all` of `pattern`: each string's matches (as
    /// [`Ops::string_matches`] counts them, empty ones too) in a list: the
    /// lists' offsets (one more than the strings) and validity (a null
    /// string's list is null), and the matches, each list's in turn.
    pub fn string_extract_all(
        &self,
        (offsets, bytes, validity): StringsRef<'_>,
        pattern: Pattern<'_>,
    ) -> Result<(DeviceBuffer<i64>, DeviceBuffer<u32>, DeviceStrings), RuntimeError> {
        check(!offsets.is_empty(), || "string offsets are empty".into())?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        let pattern = self.pattern_buffers(pattern)?;
        let args = || pattern.args(string_args((offsets, bytes, validity), n));
        // One extra zero count, so the exclusive scan ends with the total.
        let counts = self.zeroed::<i64>(n + 1)?;
        let counting = args()
            .arg(DevicePtr::NULL)
            .buffer(&counts)
            .arg(DevicePtr::NULL)
            .arg(DevicePtr::NULL);
        self.launch(ids::string_match_pieces, Self::linear(n), counting)?;
        let firsts = self.exclusive_scan_i64(&counts)?;
        let matches = usize::try_from(firsts.to_host_range(n, 1)?[0]).unwrap_or(0);
        let starts = self.zeroed::<i64>(matches)?;
        // One extra zero length, for the matches' layout.
        let lengths = self.zeroed::<i64>(matches + 1)?;
        let ranges = args()
            .buffer(&firsts)
            .arg(DevicePtr::NULL)
            .buffer(&starts)
            .buffer(&lengths);
        self.launch(ids::string_match_pieces, Self::linear(n), ranges)?;
        let matched = self.copy_ranges(bytes, None, &starts, &lengths)?;
        Ok((firsts, self.copy_validity(validity, n)?, matched))
    }

    /// Polars' `str.extract` of a whole match: the first match of `pattern`
    /// in each string, null where there is none (or the string is null).
    pub fn string_extract(
        &self,
        (offsets, bytes, validity): StringsRef<'_>,
        pattern: Pattern<'_>,
    ) -> Result<DeviceStrings, RuntimeError> {
        check(!offsets.is_empty(), || "string offsets are empty".into())?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        let pattern = self.pattern_buffers(pattern)?;
        let starts = self.zeroed::<i64>(n)?;
        // One extra zero length, as `copy_ranges` takes them.
        let lengths = self.zeroed::<i64>(n + 1)?;
        let found = self.zeroed::<u32>(words(n))?;
        let args = pattern
            .args(string_args((offsets, bytes, validity), n))
            .buffer(&starts)
            .buffer(&lengths)
            .buffer(&found);
        self.launch(ids::string_match_ranges, Self::linear(n), args)?;
        self.copy_ranges(bytes, Some(&found), &starts, &lengths)
    }

    /// Polars' `str.extract` of a capture group that lies in the pattern's
    /// top-level sequence `P G S`: in the first match of `pattern` (an
    /// anchored DFA), the group from the one place where `P` ends and `G S`
    /// matches to the match's end, to the one place where `G` ends and `S`
    /// matches to it. `parts` holds the DFAs of `P`, `G S`, `G` and `S`,
    /// each flagging every end of a match, joined (ir-lower's `GroupDfas`).
    /// Null where there is no match or the string is null. Where a match
    /// parses more than one way, `ambiguous` is set to 1 and that row's
    /// value is not given.
    pub fn string_extract_group(
        &self,
        (offsets, bytes, validity): StringsRef<'_>,
        pattern: DfaTables<'_>,
        parts: DfaTables<'_>,
        ambiguous: &DeviceBuffer<u32>,
    ) -> Result<DeviceStrings, RuntimeError> {
        let (n, pattern) = self.group_search((offsets, bytes, validity), pattern, ambiguous)?;
        check(parts.starts.len() == 4 * 257, || {
            format!(
                "four anchored DFAs have {} start states, not {}",
                4 * 257,
                parts.starts.len()
            )
        })?;
        let parts = self.dfa_buffers(parts, 4)?;
        let starts = self.zeroed::<i64>(n)?;
        // One extra zero length, as `copy_ranges` takes them.
        let lengths = self.zeroed::<i64>(n + 1)?;
        let found = self.zeroed::<u32>(words(n))?;
        let args = pattern.args(string_args((offsets, bytes, validity), n));
        let args = dfa_args(Some(&parts), args)
            .buffer(&starts)
            .buffer(&lengths)
            .buffer(&found)
            .buffer(ambiguous);
        self.launch(ids::string_group_ranges, Self::linear(n), args)?;
        self.copy_ranges(bytes, Some(&found), &starts, &lengths)
    }

    /// Polars' `str.replace` of a regular expression by a value that puts
    /// capture groups in: in each valid row, the first `limit` matches of
    /// `pattern` (all when `None`; leftmost, not overlapping, as
    /// [`Ops::string_replace`] takes them) each replaced by `template`'s
    /// pieces, a group's found in the match as
    /// [`Ops::string_extract_group`] finds it. `groups` holds four DFAs per
    /// group (what comes before it, it and what follows, it, what follows
    /// it), joined (ir-lower's `GroupDfas`); `None` where the template names
    /// no group. Null rows stay null. Where a match
    /// parses more than one way, `ambiguous` is set to 1 and that row's
    /// value is not given.
    pub fn string_replace_groups(
        &self,
        (offsets, bytes, validity): StringsRef<'_>,
        (pattern, groups): (DfaTables<'_>, Option<DfaTables<'_>>),
        template: &[ReplacementPiece<'_>],
        limit: Option<u64>,
        ambiguous: &DeviceBuffer<u32>,
    ) -> Result<DeviceStrings, RuntimeError> {
        let (n, pattern) = self.group_search((offsets, bytes, validity), pattern, ambiguous)?;
        let count = groups.map_or(0, |groups| groups.starts.len() / (4 * 257));
        let groups = match groups {
            Some(tables) => {
                check(tables.starts.len() == 4 * 257 * count && count > 0, || {
                    format!(
                        "the groups' DFAs have {} start states, not four groups' of 257",
                        tables.starts.len()
                    )
                })?;
                Some(self.dfa_buffers(tables, 4 * count)?)
            }
            None => None,
        };
        // The template's texts one after another, and each piece as a pair:
        // a text's bytes [a, b); -1 for the whole match; -2 - i for group i.
        let (mut texts, mut pieces) = (Vec::new(), Vec::with_capacity(2 * template.len()));
        for piece in template {
            match *piece {
                ReplacementPiece::Text(text) => {
                    pieces.extend([texts.len() as i64, (texts.len() + text.len()) as i64]);
                    texts.extend_from_slice(text.as_bytes());
                }
                ReplacementPiece::Match => pieces.extend([-1, 0]),
                ReplacementPiece::Group(i) => {
                    check(i < count, || {
                        format!("group {i} of a replacement that has {count} groups")
                    })?;
                    pieces.extend([-2 - i as i64, 0]);
                }
            }
        }
        // Neither buffer may be empty.
        texts.push(0);
        pieces.extend([0, 0]);
        let upload_texts = DeviceBuffer::from_host(&texts, self.memory.clone(), self.stream)?;
        let upload_pieces = DeviceBuffer::from_host(&pieces, self.memory.clone(), self.stream)?;
        self.two_pass_strings(ids::string_replace_groups, n, validity, || {
            let args = pattern.args(string_args((offsets, bytes, validity), n));
            dfa_args(groups.as_ref(), args)
                .buffer(&upload_texts)
                .buffer(&upload_pieces)
                .arg(template.len() as u64)
                .arg(limit.unwrap_or(u64::MAX))
                .buffer(ambiguous)
        })
    }

    /// What the searches for capture groups check and share: the number
    /// of strings, and the anchored DFA of the whole pattern on the device.
    fn group_search(
        &self,
        (offsets, _, validity): StringsRef<'_>,
        pattern: DfaTables<'_>,
        ambiguous: &DeviceBuffer<u32>,
    ) -> Result<(usize, PatternBuffers), RuntimeError> {
        check(!offsets.is_empty(), || "string offsets are empty".into())?;
        check(!ambiguous.is_empty(), || {
            "the ambiguity flag is empty".into()
        })?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        Ok((n, self.pattern_buffers(Pattern::Anchored(pattern))?))
    }

    /// `pattern` on the device, checked (a DFA's tables must name only
    /// states and classes they have).
    pub(super) fn pattern_buffers(
        &self,
        pattern: Pattern<'_>,
    ) -> Result<PatternBuffers, RuntimeError> {
        let text = match pattern {
            Pattern::Literal(text) => text.as_bytes(),
            Pattern::Anchored(_) => &[],
        };
        let dfa = match pattern {
            Pattern::Literal(_) => None,
            Pattern::Anchored(tables) => {
                check(tables.starts.len() == 257, || {
                    format!(
                        "an anchored DFA has 257 start states, not {}",
                        tables.starts.len()
                    )
                })?;
                Some(self.dfa_buffers(tables, 1)?)
            }
        };
        Ok(PatternBuffers {
            text: self.upload_pattern(text)?,
            text_len: text.len() as u64,
            dfa,
        })
    }

    /// A literal pattern's bytes on the device, one byte more (so that an
    /// empty pattern, which the kernels never read, still has a buffer).
    pub(super) fn upload_pattern(&self, text: &[u8]) -> Result<DeviceBuffer<u8>, RuntimeError> {
        let held: Vec<u8> = text.iter().copied().chain([0]).collect();
        DeviceBuffer::from_host(&held, self.memory.clone(), self.stream)
    }

    /// The tables of `parts` DFAs joined (one for most kernels) on the
    /// device, checked: 256 byte classes per part, a row of transitions per
    /// state (one entry per class), and transitions and start states that
    /// each name a state.
    pub(super) fn dfa_buffers(
        &self,
        tables: DfaTables<'_>,
        parts: usize,
    ) -> Result<DfaBuffers, RuntimeError> {
        let DfaTables {
            classes,
            transitions,
            flags,
            starts,
        } = tables;
        check(classes.len() == 256 * parts, || {
            format!(
                "{parts} DFAs have {} byte classes, not {}",
                256 * parts,
                classes.len()
            )
        })?;
        let stride = usize::from(classes.iter().copied().max().unwrap_or(0)) + 1;
        let states = flags.len();
        check(transitions.len() == states * stride, || {
            format!(
                "a DFA of {states} states and {stride} classes has {} transitions",
                transitions.len()
            )
        })?;
        check(!starts.is_empty(), || "a DFA without a start state".into())?;
        if let Some(start) = starts.iter().find(|&&start| start as usize >= states) {
            return Err(RuntimeError::InvalidArgument(format!(
                "the DFA's start state {start} is not one of its {states}"
            )));
        }
        check(transitions.iter().all(|&to| (to as usize) < states), || {
            format!("a DFA transition leads past its {states} states")
        })?;
        let upload =
            |bytes: &[u8]| DeviceBuffer::from_host(bytes, self.memory.clone(), self.stream);
        let upload_u32 =
            |words: &[u32]| DeviceBuffer::from_host(words, self.memory.clone(), self.stream);
        Ok(DfaBuffers {
            classes: upload(classes)?,
            transitions: upload_u32(transitions)?,
            flags: upload(flags)?,
            starts: upload_u32(starts)?,
            stride: stride as u32,
        })
    }
}
