//! Operations of the predicate kernels (`kernels/cuda/predicate.cu`): comparisons, Kleene logic and text matches as bitmaps, and the places of each row's text.

use super::*;

/// A comparison operator (the kernels' numbering).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparison {
    Eq = 0,
    NotEq = 1,
    Lt = 2,
    LtEq = 3,
    Gt = 4,
    GtEq = 5,
}

/// How a string is matched against a literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StringMatch {
    Equals = 0,
    StartsWith = 1,
    EndsWith = 2,
    Contains = 3,
}

/// Kleene logic's binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Logic {
    And = 0,
    Or = 1,
}

/// Element types with a comparison kernel.
pub trait Compare: DeviceCopy {
    const KERNEL: Kernel;
}

kernel_for!(Compare: i32 => compare_i32, u32 => compare_u32, i64 => compare_i64,
    u64 => compare_u64, f64 => compare_f64);

impl Ops<'_> {
    /// `a op b` for `n` rows (`b` one value when `b_scalar`): bits and validity.
    #[allow(clippy::too_many_arguments)]
    pub fn compare<T: Compare>(
        &self,
        a: &DeviceBuffer<T>,
        a_validity: Option<&DeviceBuffer<u32>>,
        b: &DeviceBuffer<T>,
        b_validity: Option<&DeviceBuffer<u32>>,
        b_scalar: bool,
        n: usize,
        op: Comparison,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), RuntimeError> {
        check(a.len() >= n, || {
            format!("left operand has {} of {n} rows", a.len())
        })?;
        check(b.len() >= if b_scalar { 1 } else { n }, || {
            "right operand too short".into()
        })?;
        check_bitmap(a_validity, n, "left validity")?;
        check_bitmap(b_validity, if b_scalar { 1 } else { n }, "right validity")?;
        let bits = self.zeroed::<u32>(words(n))?;
        let valid = self.zeroed::<u32>(words(n))?;
        let args = KernelArgs::new()
            .buffer(a)
            .arg(ptr(a_validity))
            .buffer(b)
            .arg(ptr(b_validity))
            .arg(u32::from(b_scalar))
            .arg(n as u64)
            .arg(op as u32)
            .buffer(&bits)
            .buffer(&valid);
        self.launch(T::KERNEL, Self::linear(n), args)?;
        Ok((bits, valid))
    }

    /// Kleene and/or of two boolean columns of `n` rows.
    pub fn kleene(
        &self,
        a: (&DeviceBuffer<u32>, Option<&DeviceBuffer<u32>>),
        b: (&DeviceBuffer<u32>, Option<&DeviceBuffer<u32>>),
        n: usize,
        op: Logic,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), RuntimeError> {
        for (bits, validity) in [a, b] {
            check_bitmap(Some(bits), n, "value")?;
            check_bitmap(validity, n, "validity")?;
        }
        let out = self.zeroed::<u32>(words(n))?;
        let valid = self.zeroed::<u32>(words(n))?;
        let args = KernelArgs::new()
            .buffer(a.0)
            .arg(ptr(a.1))
            .buffer(b.0)
            .arg(ptr(b.1))
            .arg(n as u64)
            .arg(op as u32)
            .buffer(&out)
            .buffer(&valid);
        self.launch(ids::kleene, Self::linear(words(n)), args)?;
        Ok((out, valid))
    }

    /// Each of the `offsets.len() - 1` strings matched against `pattern`:
    /// bits and validity (a null string gives null).
    pub fn string_match(
        &self,
        offsets: &DeviceBuffer<i64>,
        bytes: &DeviceBuffer<u8>,
        validity: Option<&DeviceBuffer<u32>>,
        pattern: &[u8],
        how: StringMatch,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), RuntimeError> {
        let d_pattern = self.upload_pattern(pattern)?;
        self.test_strings(ids::string_match, (offsets, bytes, validity), |args| {
            args.buffer(&d_pattern)
                .arg(pattern.len() as u64)
                .arg(how as u32)
        })
    }

    /// Each string of `a` matched (`how`) against the string in the same row
    /// of `b`: bits and validity (null where either is null).
    pub fn string_match_rows(
        &self,
        a: StringsRef<'_>,
        b: StringsRef<'_>,
        how: StringMatch,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), RuntimeError> {
        self.string_pairs(ids::string_match_rows, a, b, (false, how as u32), false)
    }

    /// Polars' `str.find(literal=True)` of the string in the same row of
    /// `b` in each string of `a`: the byte offset of its first occurrence
    /// (0 of an empty pattern), and validity (null where either is null or
    /// there is none).
    pub fn string_find_rows(
        &self,
        a: StringsRef<'_>,
        b: StringsRef<'_>,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), RuntimeError> {
        self.string_pairs(ids::string_find_rows, a, b, (false, 0), true)
    }

    /// Two string columns compared row by row in Rust's `str` order (bytes,
    /// then length), `b` a single string for every row when `b_scalar`:
    /// bits and validity (a null operand gives null).
    pub fn string_compare(
        &self,
        (a_offsets, a_bytes, a_valid): StringsRef<'_>,
        (b_offsets, b_bytes, b_valid): StringsRef<'_>,
        b_scalar: bool,
        op: Comparison,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), RuntimeError> {
        self.string_pairs(
            ids::string_compare,
            (a_offsets, a_bytes, a_valid),
            (b_offsets, b_bytes, b_valid),
            (b_scalar, op as u32),
            false,
        )
    }

    /// Launches `kernel` over the rows of `a` with those of `b` (its only row
    /// when `b_scalar`), as the kernels of pairs of strings take them: both,
    /// `b_scalar`, the count, `mode`, then bits (a u32 per row where
    /// `per_row`) and validity out.
    pub(super) fn string_pairs(
        &self,
        kernel: Kernel,
        (a_offsets, a_bytes, a_valid): StringsRef<'_>,
        (b_offsets, b_bytes, b_valid): StringsRef<'_>,
        (b_scalar, mode): (bool, u32),
        per_row: bool,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), RuntimeError> {
        check(!a_offsets.is_empty() && !b_offsets.is_empty(), || {
            "string offsets are empty".into()
        })?;
        let n = a_offsets.len() - 1;
        let b_rows = if b_scalar { 1 } else { n };
        check(b_offsets.len() == b_rows + 1, || {
            format!("{} strings to compare with {n}", b_offsets.len() - 1)
        })?;
        check_bitmap(a_valid, n, "validity")?;
        check_bitmap(b_valid, b_rows, "validity")?;
        let bits = self.zeroed::<u32>(if per_row { n } else { words(n) })?;
        let valid = self.zeroed::<u32>(words(n))?;
        let args = KernelArgs::new()
            .buffer(a_offsets)
            .buffer(a_bytes)
            .arg(ptr(a_valid))
            .buffer(b_offsets)
            .buffer(b_bytes)
            .arg(ptr(b_valid))
            .arg(u32::from(b_scalar))
            .arg(n as u64)
            .arg(mode)
            .buffer(&bits)
            .buffer(&valid);
        self.launch(kernel, Self::linear(n), args)?;
        Ok((bits, valid))
    }

    /// Each string against a choice of `alternatives`, each literal texts
    /// that must occur in order with no newline between consecutive ones
    /// (the regex `a.*b|c`): bits and validity (a null string gives null).
    pub fn string_match_sequence(
        &self,
        offsets: &DeviceBuffer<i64>,
        bytes: &DeviceBuffer<u8>,
        validity: Option<&DeviceBuffer<u32>>,
        alternatives: &[Vec<String>],
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), RuntimeError> {
        check(!alternatives.is_empty(), || {
            "no alternatives to match".into()
        })?;
        let mut texts = Vec::new();
        let mut text_offsets = vec![0u64];
        let mut ends = Vec::with_capacity(alternatives.len());
        for alternative in alternatives {
            for text in alternative {
                texts.extend_from_slice(text.as_bytes());
                text_offsets.push(texts.len() as u64);
            }
            ends.push(u32::try_from(text_offsets.len() - 1).map_err(|_| {
                RuntimeError::InvalidArgument("too many texts in a pattern".into())
            })?);
        }
        // A trailing byte keeps the upload non-empty when every text is empty.
        texts.push(0);
        let texts = DeviceBuffer::from_host(&texts, self.memory.clone(), self.stream)?;
        let text_offsets =
            DeviceBuffer::from_host(&text_offsets, self.memory.clone(), self.stream)?;
        let ends = DeviceBuffer::from_host(&ends, self.memory.clone(), self.stream)?;
        let strings = (offsets, bytes, validity);
        self.test_strings(ids::string_match_sequence, strings, |args| {
            args.buffer(&texts)
                .buffer(&text_offsets)
                .buffer(&ends)
                .arg(ends.len() as u32)
        })
    }

    /// Launches `kernel`, a test of each of the strings, as those kernels
    /// take their arguments: the strings and their number, then what `more`
    /// adds, then the bits and validity returned.
    pub(super) fn test_strings(
        &self,
        kernel: Kernel,
        (offsets, bytes, validity): StringsRef<'_>,
        more: impl FnOnce(KernelArgs) -> KernelArgs,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), RuntimeError> {
        check(!offsets.is_empty(), || "string offsets are empty".into())?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        let bits = self.zeroed::<u32>(words(n))?;
        let valid = self.zeroed::<u32>(words(n))?;
        let args = more(string_args((offsets, bytes, validity), n));
        let args = args.buffer(&bits).buffer(&valid);
        self.launch(kernel, Self::linear(n), args)?;
        Ok((bits, valid))
    }

    /// Whether each string holds a match of a regular expression, given as
    /// the tables of its unanchored DFA (one start state): true once the
    /// walk enters a state flagged matched, or ends in one flagged matched
    /// at the end; a dead state ends it false. Bits and validity (null
    /// strings give null). Tables that name a state or class that does not
    /// exist are refused before any launch.
    pub fn string_match_dfa(
        &self,
        strings: StringsRef<'_>,
        tables: DfaTables<'_>,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), RuntimeError> {
        check(tables.starts.len() == 1, || {
            format!(
                "an unanchored DFA has 1 start state, not {}",
                tables.starts.len()
            )
        })?;
        let dfa = self.dfa_buffers(tables, 1)?;
        let start = tables.starts[0];
        self.test_strings(ids::string_match_dfa, strings, |args| {
            args.buffer(&dfa.classes)
                .buffer(&dfa.transitions)
                .buffer(&dfa.flags)
                .arg(dfa.stride)
                .arg(start)
        })
    }

    /// The negation of `n` bits (bits past `n` are 0).
    pub fn bits_not(
        &self,
        bits: &DeviceBuffer<u32>,
        n: usize,
    ) -> Result<DeviceBuffer<u32>, RuntimeError> {
        check_bitmap(Some(bits), n, "value")?;
        let out = self.zeroed::<u32>(words(n))?;
        self.launch(
            ids::bits_not,
            Self::linear(words(n)),
            KernelArgs::new().buffer(bits).arg(n as u64).buffer(&out),
        )?;
        Ok(out)
    }
}
