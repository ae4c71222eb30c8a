//! Operations of the string kernels (`kernels/cuda/strings.cu`): text made, transformed and parsed.

use super::*;

/// The first field of a parse format ([`Ops::string_parse_dates`]): the
/// year, 4 digits; then the month, day, hour, minute and second (2 digits
/// each) in that order, numbered on from it, then a space or a `T`
/// (between a date and its time: Polars' inferred formats read either)
/// and last chrono's `%.f` (nothing, or a `.` and 1 to 9 digits of the
/// second, which the timestamp takes truncated to its unit; more digits,
/// which chrono skips, leave the text undecided).
pub const PARSE_YEAR: u32 = 256;

/// What `string_map_chars` does to ASCII letters (the kernel's numbering).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AsciiCase {
    Keep = 0,
    Upper = 1,
    Lower = 2,
}

/// Float types texts parse to and are written as ([`Ops::string_parse_floats`],
/// [`Ops::string_from_floats`]).
pub trait ParsedFloat: DeviceCopy {
    const PARSE: Kernel;
}

impl ParsedFloat for f64 {
    const PARSE: Kernel = ids::string_parse_f64;
}

impl ParsedFloat for f32 {
    const PARSE: Kernel = ids::string_parse_f32;
}

/// The first arguments of the kernels over `n` strings: offsets, bytes,
/// validity (null: all valid), and `n`.
pub(super) fn string_args((offsets, bytes, validity): StringsRef<'_>, n: usize) -> KernelArgs {
    KernelArgs::new()
        .buffer(offsets)
        .buffer(bytes)
        .arg(ptr(validity))
        .arg(n as u64)
}

/// Which text slice [`Ops::string_slice_rows`] takes of each row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SliceRows {
    Slice = 0,
    Head = 1,
    Tail = 2,
}

/// What [`Ops::string_strip`] strips: white space, these characters, or
/// each row's own (the characters of each row's text here).
#[derive(Debug, Clone, Copy)]
pub enum StripSet<'a> {
    WhiteSpace,
    Chars(&'a [char]),
    Rows(StringsRef<'a>),
}

/// The length [`Ops::string_pad`] pads to: one for all rows, or each row's.
#[derive(Debug, Clone, Copy)]
pub enum PadTo<'a> {
    Length(u64),
    Rows(&'a DeviceBuffer<u64>),
}

/// Strings on the device: `offsets` (one more than the strings), UTF-8 `bytes`, validity.
#[derive(Debug)]
pub struct DeviceStrings {
    pub offsets: DeviceBuffer<i64>,
    pub bytes: DeviceBuffer<u8>,
    pub validity: DeviceBuffer<u32>,
}

/// How [`Ops::string_from_integers`] reads its 64-bit words (the kernel's numbering).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntegerText {
    Signed,
    Unsigned,
    /// 0 is `false`, anything else `true`.
    Boolean,
    /// A decimal's scaled integer (signed), its point before the last
    /// `scale` digits, every place written ("0.05", "-10.50").
    Decimal {
        scale: u32,
    },
}

impl IntegerText {
    /// The kernel's `kind` and `scale`.
    fn words(self) -> (u32, u32) {
        match self {
            IntegerText::Signed => (0, 0),
            IntegerText::Unsigned => (1, 0),
            IntegerText::Boolean => (2, 0),
            IntegerText::Decimal { scale } => (3, scale),
        }
    }
}

/// Which ends [`Ops::string_strip`] strips (the kernel's bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Start = 1,
    End = 2,
    Both = 3,
}

/// Strings on the device, borrowed: offsets, bytes, validity.
pub type StringsRef<'a> = (
    &'a DeviceBuffer<i64>,
    &'a DeviceBuffer<u8>,
    Option<&'a DeviceBuffer<u32>>,
);

/// One input of [`Ops::string_concat`]: a column of strings (offsets,
/// bytes, validity), or with `repeated` a single string (or null) repeated
/// on every row; a `mask` (one bit per output row) makes the input null
/// where its bit is 0.
#[derive(Debug, Clone, Copy)]
pub struct ConcatPart<'a> {
    pub offsets: &'a DeviceBuffer<i64>,
    pub bytes: &'a DeviceBuffer<u8>,
    pub validity: Option<&'a DeviceBuffer<u32>>,
    pub mask: Option<&'a DeviceBuffer<u32>>,
    pub repeated: bool,
}

impl Ops<'_> {
    /// Polars' `str.slice(offset, length)` of each string, in characters (a
    /// negative offset counts from the end; `None`: to the end), keeping
    /// nothing of the last `drop_last` characters (`str.head(-k)`). Nulls
    /// stay null.
    pub fn string_slice(
        &self,
        offsets: &DeviceBuffer<i64>,
        bytes: &DeviceBuffer<u8>,
        validity: Option<&DeviceBuffer<u32>>,
        (offset, length): (i64, Option<u64>),
        drop_last: u64,
    ) -> Result<DeviceStrings, RuntimeError> {
        check(!offsets.is_empty(), || "string offsets are empty".into())?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        let starts = self.zeroed::<i64>(n)?;
        // One extra zero length, so the exclusive scan ends with the total.
        let lengths = self.zeroed::<i64>(n + 1)?;
        let args = string_args((offsets, bytes, validity), n)
            .arg(offset)
            .arg(length.unwrap_or(u64::MAX))
            .arg(drop_last)
            .buffer(&starts)
            .buffer(&lengths);
        self.launch(ids::string_slice_ranges, Self::linear(n), args)?;
        self.copy_ranges(bytes, validity, &starts, &lengths)
    }

    /// Polars' `str.slice`, `str.head` and `str.tail` by each row's `by`
    /// (the offset, or the count n; a null gives null) and, for a slice,
    /// `length` (`u64::MAX`: to the end; required for a slice, not read
    /// otherwise), in characters as [`Ops::string_slice`] counts them.
    pub fn string_slice_rows(
        &self,
        (offsets, bytes, validity): StringsRef<'_>,
        how: SliceRows,
        (by, by_validity): (&DeviceBuffer<i64>, Option<&DeviceBuffer<u32>>),
        length: Option<&DeviceBuffer<u64>>,
    ) -> Result<DeviceStrings, RuntimeError> {
        check(!offsets.is_empty(), || "string offsets are empty".into())?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        check_bitmap(by_validity, n, "the slices' validity")?;
        check(by.len() == n, || {
            format!("{} slice bounds for {n} strings", by.len())
        })?;
        check(
            length.is_none_or(|length| length.len() == n)
                && (length.is_some() || how != SliceRows::Slice),
            || format!("a slice of {n} strings without as many lengths"),
        )?;
        let starts = self.zeroed::<i64>(n)?;
        // One extra zero length, as `copy_ranges` takes them.
        let lengths = self.zeroed::<i64>(n + 1)?;
        let valid = self.zeroed::<u32>(words(n))?;
        let args = string_args((offsets, bytes, validity), n)
            .arg(how as u32)
            .buffer(by)
            .arg(ptr(by_validity))
            .arg(ptr(length))
            .buffer(&starts)
            .buffer(&lengths)
            .buffer(&valid);
        self.launch(ids::string_slice_rows, Self::linear(n), args)?;
        self.copy_ranges(bytes, Some(&valid), &starts, &lengths)
    }

    /// Polars' `str.strip_chars` (`Side::Both`), `strip_chars_start` and
    /// `strip_chars_end` of valid rows: the characters of `set` removed
    /// from the ends, or white space (Rust's `char::is_whitespace`) when
    /// `set` is `None`; with `StripSet::Rows`, each row's own characters
    /// (white space where that text is null).
    pub fn string_strip(
        &self,
        (offsets, bytes, validity): StringsRef<'_>,
        set: StripSet<'_>,
        sides: Side,
    ) -> Result<DeviceStrings, RuntimeError> {
        check(!offsets.is_empty(), || "string offsets are empty".into())?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        let (chars, rows) = match set {
            StripSet::WhiteSpace => (None, None),
            StripSet::Chars(chars) => (Some(chars), None),
            StripSet::Rows(rows) => {
                check(rows.0.len() == offsets.len(), || {
                    format!("{} sets to strip {n} strings by", rows.0.len() - 1)
                })?;
                check_bitmap(rows.2, n, "the sets' validity")?;
                (None, Some(rows))
            }
        };
        let code_points: Vec<u32> = chars
            .unwrap_or_default()
            .iter()
            .map(|&c| u32::from(c))
            .collect();
        let code_points = DeviceBuffer::from_host(&code_points, self.memory.clone(), self.stream)?;
        let starts = self.zeroed::<i64>(n)?;
        // One extra zero length, so the exclusive scan ends with the total.
        let lengths = self.zeroed::<i64>(n + 1)?;
        let args = string_args((offsets, bytes, validity), n)
            .buffer(&code_points)
            .arg(code_points.len() as u32)
            .arg(u32::from(matches!(set, StripSet::WhiteSpace)))
            .arg(sides as u32)
            .arg(ptr(rows.map(|rows| rows.0)))
            .arg(ptr(rows.map(|rows| rows.1)))
            .arg(ptr(rows.and_then(|rows| rows.2)))
            .buffer(&starts)
            .buffer(&lengths);
        self.launch(ids::string_strip_ranges, Self::linear(n), args)?;
        self.copy_ranges(bytes, validity, &starts, &lengths)
    }

    /// Polars' `str.replace`: in each valid row, the first `limit` matches
    /// of `pattern` (all when `None`), leftmost and not overlapping,
    /// replaced by `value` as it is. A literal pattern must not be empty.
    pub fn string_replace(
        &self,
        offsets: &DeviceBuffer<i64>,
        bytes: &DeviceBuffer<u8>,
        validity: Option<&DeviceBuffer<u32>>,
        (pattern, value): (Pattern<'_>, &str),
        limit: Option<u64>,
    ) -> Result<DeviceStrings, RuntimeError> {
        check(!offsets.is_empty(), || "string offsets are empty".into())?;
        check(pattern != Pattern::Literal(""), || {
            "an empty pattern to replace".into()
        })?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        let pattern = self.pattern_buffers(pattern)?;
        let d_value = DeviceBuffer::from_host(value.as_bytes(), self.memory.clone(), self.stream)?;
        self.two_pass_strings(ids::string_replace, n, validity, || {
            pattern
                .args(string_args((offsets, bytes, validity), n))
                .buffer(&d_value)
                .arg(value.len() as u64)
                .arg(limit.unwrap_or(u64::MAX))
        })
    }

    /// Polars' `str.replace_many` of literal `patterns` (none empty), each
    /// replaced by the value at its place in `values`: non-overlapping, as
    /// Aho-Corasick finds them (`leftmost`: the match starting first, of
    /// those there the first pattern; else the match ending first, of those
    /// there the longest, then the first), ASCII letters in either case with
    /// `ascii_case_insensitive`.
    pub fn string_replace_many(
        &self,
        strings: StringsRef<'_>,
        (patterns, values): (&[&str], &[&str]),
        leftmost: bool,
        ascii_case_insensitive: bool,
    ) -> Result<DeviceStrings, RuntimeError> {
        let (offsets, _, validity) = strings;
        check(!offsets.is_empty(), || "string offsets are empty".into())?;
        check(patterns.len() == values.len(), || {
            format!("{} patterns for {} values", patterns.len(), values.len())
        })?;
        check(patterns.iter().all(|p| !p.is_empty()), || {
            "an empty pattern to replace".into()
        })?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        // The order the kernel tries them in at each place.
        let mut order: Vec<usize> = (0..patterns.len()).collect();
        if !leftmost {
            order.sort_by_key(|&p| std::cmp::Reverse(patterns[p].len()));
        }
        let packed = |texts: &[&str]| -> Result<_, RuntimeError> {
            let mut bytes = Vec::new();
            let mut offsets = vec![0i64];
            for &p in &order {
                bytes.extend_from_slice(texts[p].as_bytes());
                offsets.push(bytes.len() as i64);
            }
            // (At least one byte: a buffer of none has no address.)
            bytes.push(0);
            Ok((
                DeviceBuffer::from_host(&bytes, self.memory.clone(), self.stream)?,
                DeviceBuffer::from_host(&offsets, self.memory.clone(), self.stream)?,
            ))
        };
        let (pattern_bytes, pattern_offsets) = packed(patterns)?;
        let (value_bytes, value_offsets) = packed(values)?;
        self.two_pass_strings(ids::string_replace_many, n, validity, || {
            string_args(strings, n)
                .buffer(&pattern_bytes)
                .buffer(&pattern_offsets)
                .arg(patterns.len() as u64)
                .buffer(&value_bytes)
                .buffer(&value_offsets)
                .arg(u32::from(leftmost))
                .arg(u32::from(ascii_case_insensitive))
        })
    }

    /// Polars' `pad_start` and `pad_end` (`side` 0 and 1) to `length`
    /// characters with `fill`, and `zfill` (`side` 2) to `length` bytes with
    /// zeros after a leading sign; `length` one for all rows or each row's
    /// (a length past 2^32 counts as 2^32).
    pub fn string_pad(
        &self,
        (offsets, bytes, validity): StringsRef<'_>,
        length: PadTo<'_>,
        fill: char,
        side: u32,
    ) -> Result<DeviceStrings, RuntimeError> {
        check(!offsets.is_empty(), || "string offsets are empty".into())?;
        check(side <= 2, || format!("no padding side {side}"))?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        let (length, row_lengths) = match length {
            PadTo::Length(length) => (length, None),
            PadTo::Rows(lengths) => {
                check(lengths.len() == n, || {
                    format!("{} lengths to pad {n} strings to", lengths.len())
                })?;
                (0, Some(lengths))
            }
        };
        let mut encoded = [0u8; 4];
        let fill = fill.encode_utf8(&mut encoded).as_bytes();
        let d_fill = DeviceBuffer::from_host(fill, self.memory.clone(), self.stream)?;
        self.two_pass_strings(ids::string_pad, n, validity, || {
            string_args((offsets, bytes, validity), n)
                .arg(length)
                .arg(ptr(row_lengths))
                .buffer(&d_fill)
                .arg(fill.len() as u64)
                .arg(side)
        })
    }

    /// Dates, timestamps (no time zone) or times of day (ticks of day 0) as
    /// text in a chrono format, as Polars writes them: `values` are days
    /// (`per_day` 1) or ticks of `per_day` to the day (a unit of whole
    /// seconds' fractions); `program` is the format, one item a word as
    /// `string_format_temporal` in
    /// `kernels/cuda/strings.cu` reads them (the code in the high 24 bits,
    /// up to 19, its argument in the low 8).
    pub fn string_format_temporal(
        &self,
        values: &DeviceBuffer<i64>,
        validity: Option<&DeviceBuffer<u32>>,
        per_day: i64,
        program: &[u32],
    ) -> Result<DeviceStrings, RuntimeError> {
        let n = values.len();
        check_bitmap(validity, n, "validity")?;
        check(
            per_day == 1 || (per_day % 86_400 == 0 && 1_000_000_000 % (per_day / 86_400) == 0),
            || format!("{per_day} ticks a day"),
        )?;
        check(program.iter().all(|&item| item >> 8 <= 19), || {
            "an unknown item in a format program".into()
        })?;
        // (An empty format still uploads one word, never read.)
        let length = program.len() as u64;
        let words = if program.is_empty() {
            &[0][..]
        } else {
            program
        };
        let program = DeviceBuffer::from_host(words, self.memory.clone(), self.stream)?;
        self.two_pass_strings(ids::string_format_temporal, n, validity, || {
            KernelArgs::new()
                .buffer(values)
                .arg(ptr(validity))
                .arg(n as u64)
                .arg(per_day)
                .buffer(&program)
                .arg(length)
        })
    }

    /// Polars' cast to strings of 64-bit integers (`kind`: how to read the
    /// words), of booleans (0 or 1 words) and of decimals: decimal digits
    /// with a minus sign (and a decimal's point), or `true` and `false`.
    pub fn string_from_integers<T: Word64>(
        &self,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        kind: IntegerText,
    ) -> Result<DeviceStrings, RuntimeError> {
        let n = values.len();
        check_bitmap(validity, n, "validity")?;
        let (kind, scale) = kind.words();
        check(scale <= 38, || format!("decimal text of scale {scale}"))?;
        self.two_pass_strings(ids::string_from_integers, n, validity, || {
            KernelArgs::new()
                .buffer(values)
                .arg(ptr(validity))
                .arg(n as u64)
                .arg(kind)
                .arg(scale)
        })
    }

    /// Polars' cast of floats (f64 or f32) to strings, as zmij writes them:
    /// the shortest digits that read back as the same float (the nearest to
    /// it where several are), in plain notation where the first digit is at
    /// 10^-5 to 10^15 (f32: 10^-6 to 10^12; "1234.0", "0.001234"), else as
    /// "1.234e+33"; "NaN", "inf", "-inf", "0.0", "-0.0". Nulls give empty
    /// strings; the validity is a copy of `validity`.
    pub fn string_from_floats<T: ParsedFloat>(
        &self,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
    ) -> Result<DeviceStrings, RuntimeError> {
        let n = values.len();
        check_bitmap(validity, n, "validity")?;
        let width = 8 * std::mem::size_of::<T>() as u32;
        self.two_pass_strings(ids::string_from_floats, n, validity, || {
            KernelArgs::new()
                .buffer(values)
                .arg(ptr(validity))
                .arg(n as u64)
                .arg(width)
        })
    }

    /// New strings made by two launches of `kernel`, whose last parameters
    /// are `u32 write, i64* lengths, const i64* out_offsets, unsigned char*
    /// out_bytes` after those `leading` gives: the first writes each row's
    /// length in bytes, the second (`write`) the bytes from the scanned
    /// offsets. The validity is a copy of `validity`.
    pub(super) fn two_pass_strings(
        &self,
        kernel: Kernel,
        n: usize,
        validity: Option<&DeviceBuffer<u32>>,
        leading: impl Fn() -> KernelArgs,
    ) -> Result<DeviceStrings, RuntimeError> {
        // One extra zero length, so the exclusive scan ends with the total.
        let lengths = self.zeroed::<i64>(n + 1)?;
        let measure = leading()
            .arg(0u32)
            .buffer(&lengths)
            .arg(DevicePtr::NULL)
            .arg(DevicePtr::NULL);
        self.launch(kernel, Self::linear(n), measure)?;
        let (offsets, bytes) = self.string_layout(&lengths, n)?;
        let write = leading()
            .arg(1u32)
            .arg(DevicePtr::NULL)
            .buffer(&offsets)
            .buffer(&bytes);
        self.launch(kernel, Self::linear(n), write)?;
        Ok(DeviceStrings {
            offsets,
            bytes,
            validity: self.copy_validity(validity, n)?,
        })
    }

    /// New strings from byte ranges of `bytes` (`starts`, and `lengths` with
    /// one extra zero), with a copy of `validity`.
    pub(super) fn copy_ranges(
        &self,
        bytes: &DeviceBuffer<u8>,
        validity: Option<&DeviceBuffer<u32>>,
        starts: &DeviceBuffer<i64>,
        lengths: &DeviceBuffer<i64>,
    ) -> Result<DeviceStrings, RuntimeError> {
        let n = starts.len();
        let (out_offsets, out_bytes) = self.string_layout(lengths, n)?;
        let args = KernelArgs::new()
            .buffer(bytes)
            .buffer(starts)
            .arg(n as u64)
            .buffer(&out_offsets)
            .buffer(&out_bytes);
        self.launch(ids::string_copy_ranges, Self::linear(n), args)?;
        Ok(DeviceStrings {
            offsets: out_offsets,
            bytes: out_bytes,
            validity: self.copy_validity(validity, n)?,
        })
    }

    /// The `n` rows of `parts` concatenated row by row, `separator` between
    /// two parts, as Polars' `concat_str`: a row with a null part is null,
    /// unless `ignore_nulls`, which skips the null parts (an all-null row is
    /// then empty).
    pub fn string_concat(
        &self,
        parts: &[ConcatPart<'_>],
        n: usize,
        separator: &[u8],
        ignore_nulls: bool,
    ) -> Result<DeviceStrings, RuntimeError> {
        self.concat_or_coalesce(parts, n, separator, ignore_nulls, false)
    }

    /// The `n` rows of `parts`, each row its first part that is not null
    /// (null when all are): Polars' `coalesce` (and `fill_null`) of strings.
    pub fn string_coalesce(
        &self,
        parts: &[ConcatPart<'_>],
        n: usize,
    ) -> Result<DeviceStrings, RuntimeError> {
        self.concat_or_coalesce(parts, n, b"", true, true)
    }

    pub(super) fn concat_or_coalesce(
        &self,
        parts: &[ConcatPart<'_>],
        n: usize,
        separator: &[u8],
        ignore_nulls: bool,
        first_only: bool,
    ) -> Result<DeviceStrings, RuntimeError> {
        check(!parts.is_empty(), || "nothing to concatenate".into())?;
        let mut table = Vec::with_capacity(5 * parts.len());
        for (j, part) in parts.iter().enumerate() {
            let rows = if part.repeated { 1 } else { n };
            check(part.offsets.len() == rows + 1, || {
                format!(
                    "part {j} has {} offsets for {rows} rows",
                    part.offsets.len()
                )
            })?;
            check_bitmap(part.validity, rows, "part validity")?;
            check_bitmap(part.mask, n, "part mask")?;
            table.extend([
                part.offsets.device_ptr().address(),
                part.bytes.device_ptr().address(),
                ptr(part.validity).address(),
                ptr(part.mask).address(),
                u64::from(part.repeated),
            ]);
        }
        let table = DeviceBuffer::from_host(&table, self.memory.clone(), self.stream)?;
        // One extra zero length, so the exclusive scan ends with the total.
        let lengths = self.zeroed::<i64>(n + 1)?;
        let validity = self.zeroed::<u32>(words(n))?;
        let args = KernelArgs::new()
            .buffer(&table)
            .arg(parts.len() as u32)
            .arg(n as u64)
            .arg(separator.len() as u64)
            .arg(u32::from(ignore_nulls))
            .arg(u32::from(first_only))
            .buffer(&lengths)
            .buffer(&validity);
        self.launch(ids::string_concat_lengths, Self::linear(n), args)?;
        let (offsets, bytes) = self.string_layout(&lengths, n)?;
        let separator = DeviceBuffer::from_host(separator, self.memory.clone(), self.stream)?;
        let args = KernelArgs::new()
            .buffer(&table)
            .arg(parts.len() as u32)
            .arg(n as u64)
            .buffer(&separator)
            .arg(separator.len() as u64)
            .arg(u32::from(first_only))
            .buffer(&offsets)
            .buffer(&validity)
            .buffer(&bytes);
        self.launch(ids::string_concat_write, Self::linear(n), args)?;
        Ok(DeviceStrings {
            offsets,
            bytes,
            validity,
        })
    }

    /// The offsets of `n` strings of `lengths` (n + 1 entries, the last 0,
    /// so that the exclusive scan ends with the total) and room for their bytes.
    pub(super) fn string_layout(
        &self,
        lengths: &DeviceBuffer<i64>,
        n: usize,
    ) -> Result<(DeviceBuffer<i64>, DeviceBuffer<u8>), RuntimeError> {
        let offsets = self.exclusive_scan_i64(lengths)?;
        let total = offsets.to_host_range(n, 1)?[0];
        let bytes = self.zeroed::<u8>(usize::try_from(total).unwrap_or(0))?;
        Ok((offsets, bytes))
    }

    /// A copy of the validity of `n` values (all valid when `None`).
    pub(super) fn copy_validity(
        &self,
        validity: Option<&DeviceBuffer<u32>>,
        n: usize,
    ) -> Result<DeviceBuffer<u32>, RuntimeError> {
        let out = self.zeroed::<u32>(words(n))?;
        self.bitmap_append(validity, n, &out, 0)?;
        Ok(out)
    }

    /// Every character of each string mapped: ASCII letters by `ascii`, the
    /// others through a table (`from`: sorted code points above ASCII; `to`:
    /// three code points for each, 0 ending a shorter mapping; a character
    /// not in `from` stays). Nulls stay null. With `sigma` (sorted
    /// case-ignorable code points, and sorted cased ones that are not), a
    /// capital sigma becomes final or medial sigma by its context, as
    /// Polars' lower case decides (see `strings.cu`).
    pub fn string_map_chars(
        &self,
        (offsets, bytes, validity): (
            &DeviceBuffer<i64>,
            &DeviceBuffer<u8>,
            Option<&DeviceBuffer<u32>>,
        ),
        ascii: AsciiCase,
        (from, to): (&DeviceBuffer<u32>, &DeviceBuffer<u32>),
        sigma: Option<(&DeviceBuffer<u32>, &DeviceBuffer<u32>)>,
    ) -> Result<DeviceStrings, RuntimeError> {
        check(!offsets.is_empty(), || "string offsets are empty".into())?;
        check(to.len() == 3 * from.len(), || {
            format!(
                "{} mapped code points for {} characters",
                to.len(),
                from.len()
            )
        })?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        self.two_pass_strings(ids::string_map_chars, n, validity, || {
            string_args((offsets, bytes, validity), n)
                .arg(ascii as u32)
                .buffer(from)
                .buffer(to)
                .arg(from.len() as u64)
                .arg(sigma.map_or(DevicePtr::NULL, |(i, _)| i.device_ptr()))
                .arg(sigma.map_or(0, |(i, _)| i.len() as u64))
                .arg(sigma.map_or(DevicePtr::NULL, |(_, c)| c.device_ptr()))
                .arg(sigma.map_or(0, |(_, c)| c.len() as u64))
        })
    }

    /// Polars' `str.split` of each string by the literal `separator` (Rust's
    /// `str::split`; with `inclusive`, `str::split_inclusive`; into
    /// characters when `separator` is empty): the lists' offsets (one more
    /// than the strings) and validity (a null string's list is null), and
    /// the pieces, each list's in turn.
    pub fn string_split(
        &self,
        (offsets, bytes, validity): StringsRef<'_>,
        separator: &[u8],
        inclusive: bool,
    ) -> Result<(DeviceBuffer<i64>, DeviceBuffer<u32>, DeviceStrings), RuntimeError> {
        check(!offsets.is_empty(), || "string offsets are empty".into())?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        let pattern = DeviceBuffer::from_host(separator, self.memory.clone(), self.stream)?;
        let args = || {
            string_args((offsets, bytes, validity), n)
                .buffer(&pattern)
                .arg(separator.len() as u64)
                .arg(u32::from(inclusive))
        };
        // One extra zero count, so the exclusive scan ends with the total.
        let counts = self.zeroed::<i64>(n + 1)?;
        self.launch(
            ids::string_split_counts,
            Self::linear(n),
            args().buffer(&counts),
        )?;
        let firsts = self.exclusive_scan_i64(&counts)?;
        let pieces = usize::try_from(firsts.to_host_range(n, 1)?[0]).unwrap_or(0);
        let starts = self.zeroed::<i64>(pieces)?;
        // One extra zero length, for the pieces' layout.
        let lengths = self.zeroed::<i64>(pieces + 1)?;
        let ranges = args().buffer(&firsts).buffer(&starts).buffer(&lengths);
        self.launch(ids::string_split_ranges, Self::linear(n), ranges)?;
        let pieces = self.copy_ranges(bytes, None, &starts, &lengths)?;
        Ok((firsts, self.copy_validity(validity, n)?, pieces))
    }

    /// Each string's length in bytes, or in characters (UTF-8) when
    /// `chars`: lengths (0 for null) and validity.
    pub fn string_lengths(
        &self,
        offsets: &DeviceBuffer<i64>,
        bytes: &DeviceBuffer<u8>,
        validity: Option<&DeviceBuffer<u32>>,
        chars: bool,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), RuntimeError> {
        check(!offsets.is_empty(), || "string offsets are empty".into())?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        let lengths = self.zeroed::<u32>(n)?;
        let args = string_args((offsets, bytes, validity), n)
            .arg(u32::from(chars))
            .buffer(&lengths);
        self.launch(ids::string_lengths, Self::linear(n), args)?;
        let out_validity = self.zeroed::<u32>(words(n))?;
        self.bitmap_append(validity, n, &out_validity, 0)?;
        Ok((lengths, out_validity))
    }

    /// Polars' cast of `n` texts to an integer type whose values run from
    /// `min` to `max`: an optional '+' (or '-', for signed types), then
    /// ASCII digits (leading zeros without limit), nothing else. The values
    /// as 64-bit two's complement words and their validity: null where the
    /// text is null, does not parse or does not fit. With `failed`, a valid
    /// text that gives null sets it to 1 (a strict cast's error).
    pub fn string_parse_integers(
        &self,
        (offsets, bytes, validity): StringsRef<'_>,
        (min, max): (i64, u64),
        failed: Option<&DeviceBuffer<u32>>,
    ) -> Result<(DeviceBuffer<u64>, DeviceBuffer<u32>), RuntimeError> {
        self.parse_texts(
            ids::string_parse_integers,
            (offsets, bytes, validity),
            |args| {
                args.arg(u32::from(min < 0))
                    .arg(max)
                    .arg(min.unsigned_abs())
            },
            failed,
        )
    }

    /// Polars' cast of texts to `Decimal(precision, scale)` (polars-compute's
    /// `str_to_dec128`: digits with an optional sign, one '.' and an
    /// exponent, rounded to the scale ties to even), their scaled integers
    /// as i64 and their validity: null where a text is null, does not parse
    /// or leaves the precision. With `failed`, a valid text that gives null
    /// sets it (a strict cast's error). A text whose value Polars' i128
    /// holds and an i64 does not (or an exponent past 2^30) sets
    /// `undecided`; its value is then not given.
    pub fn string_parse_decimals(
        &self,
        (offsets, bytes, validity): StringsRef<'_>,
        (precision, scale): (u32, u32),
        failed: Option<&DeviceBuffer<u32>>,
        undecided: &DeviceBuffer<u32>,
    ) -> Result<(DeviceBuffer<i64>, DeviceBuffer<u32>), RuntimeError> {
        check(!undecided.is_empty(), || {
            "the undecided flag is empty".into()
        })?;
        check((1..=38).contains(&precision) && scale <= precision, || {
            format!("decimal precision {precision} and scale {scale}")
        })?;
        self.parse_texts(
            ids::string_parse_decimals,
            (offsets, bytes, validity),
            |args| args.arg(precision).arg(scale).buffer(undecided),
            failed,
        )
    }

    /// Polars' cast of `n` texts to `T` (f64 or f32; fast_float2's
    /// grammar: an optional sign, digits with at most one '.', an optional
    /// exponent; or `nan`, `inf`, `infinity` in any case), correctly
    /// rounded. The values and their validity: null where the text is null
    /// or no number. With `failed`, a valid text that is no number sets it
    /// to 1 (a strict cast's error). A number that only big-number
    /// arithmetic rounds (rare: more than 19 significant digits, or a value
    /// halfway between two floats to 128 bits) sets `undecided` to 1; its
    /// value is then not given.
    pub fn string_parse_floats<T: ParsedFloat>(
        &self,
        (offsets, bytes, validity): StringsRef<'_>,
        failed: Option<&DeviceBuffer<u32>>,
        undecided: &DeviceBuffer<u32>,
    ) -> Result<(DeviceBuffer<T>, DeviceBuffer<u32>), RuntimeError> {
        check(!undecided.is_empty(), || {
            "the undecided flag is empty".into()
        })?;
        self.parse_texts(
            T::PARSE,
            (offsets, bytes, validity),
            |args| args.buffer(undecided),
            failed,
        )
    }

    /// Texts of exactly the form `format` gives (bytes below 256 as
    /// themselves, [`PARSE_YEAR`] for 4 digits and the other fields for 2)
    /// naming a date, as days since 1970-01-01, and the validity of those;
    /// any other valid text sets `failed` (the caller leaves the column to
    /// Polars' parser), but with `lenient` (Polars' parse is not strict) a
    /// text from which neither of Polars' parsers reads a value is null:
    /// one that is empty, holds a byte that is no digit, sign, whitespace
    /// (or byte past ASCII) or literal byte of the format, or is of the
    /// form with a field out of range (but a second of 60, which chrono
    /// takes as a leap second).
    pub fn string_parse_dates(
        &self,
        strings: StringsRef<'_>,
        (format, lenient): (&[u32], bool),
        failed: &DeviceBuffer<u32>,
    ) -> Result<(DeviceBuffer<i32>, DeviceBuffer<u32>), RuntimeError> {
        self.parse_formatted(strings, (format, lenient), 0, failed)
    }

    /// Texts of exactly the form `format` gives naming a date and a time of
    /// day (missing time fields 0), as timestamps in units of
    /// `1 / per_second` s, and the validity of those; any other valid text,
    /// or a timestamp past i64, sets `failed` (with `lenient`, the texts
    /// [`Ops::string_parse_dates`] makes null are null).
    pub fn string_parse_timestamps(
        &self,
        strings: StringsRef<'_>,
        (format, lenient): (&[u32], bool),
        per_second: u64,
        failed: &DeviceBuffer<u32>,
    ) -> Result<(DeviceBuffer<i64>, DeviceBuffer<u32>), RuntimeError> {
        check(per_second > 0, || "timestamps of no unit".into())?;
        self.parse_formatted(strings, (format, lenient), per_second, failed)
    }

    /// The launch of `string_parse_dates` with its `format` program (bytes
    /// below 256 as themselves, then [`PARSE_YEAR`] and the other fields).
    pub(super) fn parse_formatted<T: DeviceCopy>(
        &self,
        strings: StringsRef<'_>,
        (format, lenient): (&[u32], bool),
        per_second: u64,
        failed: &DeviceBuffer<u32>,
    ) -> Result<(DeviceBuffer<T>, DeviceBuffer<u32>), RuntimeError> {
        check(!format.is_empty(), || "an empty parse format".into())?;
        check(format.iter().all(|&item| item <= PARSE_YEAR + 7), || {
            "a parse format item out of range".into()
        })?;
        let program = DeviceBuffer::from_host(format, self.memory.clone(), self.stream)?;
        self.parse_texts(
            ids::string_parse_dates,
            strings,
            |args| {
                args.arg(per_second)
                    .buffer(&program)
                    .arg(format.len() as u32)
                    .arg(u32::from(lenient))
            },
            Some(failed),
        )
    }

    /// Launches a parse of texts, one thread per text: `kernel` takes the
    /// texts, their count, its own arguments (`own`), the values and their
    /// validity it writes, and the failure flag (null for none).
    pub(super) fn parse_texts<T: DeviceCopy>(
        &self,
        kernel: Kernel,
        (offsets, bytes, validity): StringsRef<'_>,
        own: impl FnOnce(KernelArgs) -> KernelArgs,
        failed: Option<&DeviceBuffer<u32>>,
    ) -> Result<(DeviceBuffer<T>, DeviceBuffer<u32>), RuntimeError> {
        check(!offsets.is_empty(), || "string offsets are empty".into())?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        check(failed.is_none_or(|f| !f.is_empty()), || {
            "the failure flag is empty".into()
        })?;
        let out = self.zeroed::<T>(n)?;
        let out_validity = self.zeroed::<u32>(words(n))?;
        let args = own(string_args((offsets, bytes, validity), n))
            .buffer(&out)
            .buffer(&out_validity)
            .arg(ptr(failed));
        self.launch(kernel, Self::linear(n), args)?;
        Ok((out, out_validity))
    }

    /// Concatenates string columns (offsets and bytes; validity is a bitmap
    /// for [`Ops::bitmap_append`]).
    pub fn concat_strings(
        &self,
        parts: &[(&DeviceBuffer<i64>, &DeviceBuffer<u8>)],
    ) -> Result<(DeviceBuffer<i64>, DeviceBuffer<u8>), RuntimeError> {
        for (offsets, _) in parts {
            check(!offsets.is_empty(), || "string offsets are empty".into())?;
        }
        let rows: usize = parts.iter().map(|(o, _)| o.len() - 1).sum();
        let total: usize = parts.iter().map(|(_, b)| b.len()).sum();
        let offsets = self.zeroed::<i64>(rows + 1)?;
        let bytes = self.zeroed::<u8>(total)?;
        let (mut row, mut byte) = (0, 0);
        for (part_offsets, part_bytes) in parts {
            let n = part_offsets.len() - 1;
            // The part's bytes may start after a sliced-off prefix.
            let bounds = part_offsets.to_host_range(0, 1)?[0]..part_offsets.to_host_range(n, 1)?[0];
            check(
                bounds.start >= 0
                    && bounds.start <= bounds.end
                    && bounds.end as usize <= part_bytes.len(),
                || "string offsets outside their bytes".into(),
            )?;
            let used = (bounds.end - bounds.start) as usize;
            let args = KernelArgs::new()
                .buffer(*part_offsets)
                .arg(n as u64)
                .buffer(&offsets)
                .arg(row as u64)
                .arg(byte as i64);
            self.launch(ids::string_offsets_append, Self::linear(n + 1), args)?;
            if used == part_bytes.len() {
                bytes.copy_from_device(byte, part_bytes)?;
            } else {
                let indices = self.iota(used, bounds.start)?;
                let (copied, _) = self.gather(*part_bytes, None, &indices)?;
                bytes.copy_from_device(byte, &copied)?;
            }
            row += n;
            byte += used;
        }
        Ok((offsets, bytes))
    }
}
