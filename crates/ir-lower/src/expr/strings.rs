//! What string expressions carry: their operations, patterns and the format programs of dates and times as text.

use super::*;

/// A part of a chrono format of dates and times (Polars' `dt.to_string`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatPart {
    /// A byte of literal text.
    Byte(u8),
    /// `%Y`: four digits, or a sign and at least four outside 0 to 9999.
    Year,
    /// `%m`, `%d`, `%H`, `%M`, `%S`: two digits.
    Month,
    Day,
    Hour,
    Minute,
    Second,
    /// The fraction of the second in this many digits (`%3f`; `%.3f` is a
    /// `.` before it).
    Fraction(u8),
    /// `%.f`: a `.` and the fraction of the second in 3, 6 or 9 digits, the
    /// fewest that hold it (chrono's); nothing where it is zero.
    FractionAuto,
    /// `%y`: the year's last two digits (euclidean).
    YearMod100,
    /// `%j`: the day of the year, three digits.
    Ordinal,
    /// `%e`: the day, padded with a space.
    DaySpaced,
    /// `%b`, `%B`: the month's English name, short or long.
    MonthShort,
    MonthLong,
    /// `%a`, `%A`: the weekday's English name, short or long.
    WeekdayShort,
    WeekdayLong,
    /// `%u`: the weekday from Monday 1; `%w`: from Sunday 0.
    WeekdayFromMonday,
    WeekdayFromSunday,
    /// `%I`: the hour on a 12-hour clock; `%p`: `AM` or `PM`.
    Hour12,
    AmPm,
    /// A space or a `T` between a date and its time of day, in a parse
    /// only: Polars' inference of a timestamp's format (from its patterns
    /// of Y-M-D dates and times) reads either.
    SpaceOrT,
}

impl FormatPart {
    /// The parts of a chrono format, for the specifiers listed above and
    /// `%F`, `%T`, `%D`, `%R`, `%%`, `%n`, `%t`, `%h`; `None` for any other
    /// (padding modifiers, time zones, ...).
    pub fn parse(format: &str) -> Option<Vec<FormatPart>> {
        use FormatPart as P;
        let mut parts = Vec::new();
        let mut rest = format;
        while let Some(at) = rest.find('%') {
            parts.extend(rest[..at].bytes().map(P::Byte));
            let spec = &rest[at + 1..];
            let (taken, expanded): (usize, &[FormatPart]) = match spec.as_bytes() {
                [b'.', digits @ (b'3' | b'6' | b'9'), b'f', ..] => {
                    parts.push(P::Byte(b'.'));
                    parts.push(P::Fraction(digits - b'0'));
                    (3, &[])
                }
                [b'.', b'f', ..] => {
                    parts.push(P::FractionAuto);
                    (2, &[])
                }
                [digits @ (b'3' | b'6' | b'9'), b'f', ..] => {
                    parts.push(P::Fraction(digits - b'0'));
                    (2, &[])
                }
                [letter, ..] => (
                    1,
                    match letter {
                        b'Y' => &[P::Year],
                        b'm' => &[P::Month],
                        b'd' => &[P::Day],
                        b'H' => &[P::Hour],
                        b'M' => &[P::Minute],
                        b'S' => &[P::Second],
                        b'y' => &[P::YearMod100],
                        b'j' => &[P::Ordinal],
                        b'e' => &[P::DaySpaced],
                        b'b' | b'h' => &[P::MonthShort],
                        b'B' => &[P::MonthLong],
                        b'a' => &[P::WeekdayShort],
                        b'A' => &[P::WeekdayLong],
                        b'u' => &[P::WeekdayFromMonday],
                        b'w' => &[P::WeekdayFromSunday],
                        b'I' => &[P::Hour12],
                        b'p' => &[P::AmPm],
                        b'F' => &[P::Year, P::Byte(b'-'), P::Month, P::Byte(b'-'), P::Day],
                        b'T' => &[P::Hour, P::Byte(b':'), P::Minute, P::Byte(b':'), P::Second],
                        b'D' => &[
                            P::Month,
                            P::Byte(b'/'),
                            P::Day,
                            P::Byte(b'/'),
                            P::YearMod100,
                        ],
                        b'R' => &[P::Hour, P::Byte(b':'), P::Minute],
                        b'%' => &[P::Byte(b'%')],
                        b'n' => &[P::Byte(b'\n')],
                        b't' => &[P::Byte(b'\t')],
                        _ => return None,
                    },
                ),
                [] => return None,
            };
            parts.extend_from_slice(expanded);
            rest = &spec[taken..];
        }
        parts.extend(rest.bytes().map(P::Byte));
        Some(parts)
    }

    /// The format of Polars' cast of a date or timestamp (of `dtype`) to
    /// text, which is also its `iso` format (`iso:strict`: `T` between the
    /// date and the time): `%F`, then for timestamps `%T` and the fraction
    /// of the second in the unit's digits (`%.3f`, `%.6f`, `%.9f`); the
    /// `iso` format of a time of day, `%T%.f` (its cast is `%T`).
    pub fn iso(dtype: GpuDtype, strict: bool) -> Option<Vec<FormatPart>> {
        let date = "%F".to_string();
        let separator = if strict { 'T' } else { ' ' };
        let format = match dtype {
            GpuDtype::Date => date,
            GpuDtype::Datetime(unit) => {
                let digits = (unit.per_day() / 86_400).ilog10();
                format!("{date}{separator}%T%.{digits}f")
            }
            GpuDtype::Time => "%T%.f".to_string(),
            _ => return None,
        };
        FormatPart::parse(&format)
    }

    /// The chrono format of `parts` (`%%` for a literal `%`).
    pub fn text(parts: &[FormatPart]) -> String {
        let mut text = Vec::new();
        for part in parts {
            match part {
                FormatPart::Byte(b'%') => text.extend_from_slice(b"%%"),
                FormatPart::Byte(byte) => text.push(*byte),
                FormatPart::Fraction(digits) => text.extend(format!("%{digits}f").bytes()),
                FormatPart::FractionAuto => text.extend_from_slice(b"%.f"),
                other => text.extend(other.specifier().bytes()),
            }
        }
        String::from_utf8_lossy(&text).into_owned()
    }

    /// The chrono specifier of a part that is not a byte or a fraction.
    pub fn specifier(self) -> &'static str {
        match self {
            FormatPart::Year => "%Y",
            FormatPart::Month => "%m",
            FormatPart::Day => "%d",
            FormatPart::Hour => "%H",
            FormatPart::Minute => "%M",
            FormatPart::Second => "%S",
            FormatPart::YearMod100 => "%y",
            FormatPart::Ordinal => "%j",
            FormatPart::DaySpaced => "%e",
            FormatPart::MonthShort => "%b",
            FormatPart::MonthLong => "%B",
            FormatPart::WeekdayShort => "%a",
            FormatPart::WeekdayLong => "%A",
            FormatPart::WeekdayFromMonday => "%u",
            FormatPart::WeekdayFromSunday => "%w",
            FormatPart::Hour12 => "%I",
            FormatPart::AmPm => "%p",
            // (No chrono specifier: the notation of inferred formats.)
            FormatPart::SpaceOrT => "[ T]",
            FormatPart::Byte(_) | FormatPart::Fraction(_) | FormatPart::FractionAuto => "",
        }
    }

    /// Whether this part reads the time of day (dates have none).
    pub fn of_time(self) -> bool {
        matches!(
            self,
            FormatPart::Hour
                | FormatPart::Minute
                | FormatPart::Second
                | FormatPart::Fraction(_)
                | FormatPart::FractionAuto
                | FormatPart::Hour12
                | FormatPart::AmPm
        )
    }
}

/// Which of Polars' text functions [`ExprKind::StringByRows`] takes by each
/// row's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByRows {
    /// `str.slice(offset, length)`: from the offset's character (negative:
    /// from the end), `length` of them.
    Slice,
    /// `str.head(n)`: the first n characters (negative: all but the last
    /// -n).
    Head,
    /// `str.tail(n)`: the last n characters (negative: all but the first
    /// -n).
    Tail,
    /// `str.pad_start`, `str.pad_end` or `str.zfill` to a length (see
    /// [`StringOp::Pad`]).
    Pad { fill: char, side: PadSide },
    /// `str.strip_chars` (`_start`, `_end`) of the characters of a text
    /// (white space where it is null; see [`StringOp::Strip`]).
    Strip { start: bool, end: bool },
}

impl ByRows {
    /// The function's name in Polars.
    pub fn name(self) -> &'static str {
        match self {
            ByRows::Slice => "str.slice",
            ByRows::Head => "str.head",
            ByRows::Tail => "str.tail",
            ByRows::Pad {
                side: PadSide::Start,
                ..
            } => "str.pad_start",
            ByRows::Pad {
                side: PadSide::End, ..
            } => "str.pad_end",
            ByRows::Pad {
                side: PadSide::Zeros,
                ..
            } => "str.zfill",
            ByRows::Strip {
                start: true,
                end: false,
            } => "str.strip_chars_start",
            ByRows::Strip {
                start: false,
                end: true,
            } => "str.strip_chars_end",
            ByRows::Strip { .. } => "str.strip_chars",
        }
    }
}

impl GpuExpr {
    /// Polars' `how` of the texts `input` by each row's `by` (and
    /// `length`, for a slice): see [`ExprKind::StringByRows`].
    pub fn by_rows(
        how: ByRows,
        input: Box<GpuExpr>,
        by: GpuExpr,
        length: Option<GpuExpr>,
    ) -> GpuExpr {
        GpuExpr {
            kind: ExprKind::StringByRows {
                how,
                input,
                by: Box::new(by),
                length: length.map(Box::new),
            },
            dtype: GpuDtype::String,
        }
    }
}

/// A piece of a replacement that puts capture groups in
/// ([`StringOp::ReplaceGroups`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplatePiece {
    /// This text as it is.
    Text(String),
    /// The whole match (`$0`).
    Match,
    /// Capture group `n`, one of the replacement's `groups`.
    Group(usize),
}

/// A string function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StringOp {
    /// Contains this literal text.
    Contains(String),
    /// A regular expression of the restricted form the GPU runs: a choice of
    /// alternatives, each literal texts joined by `.*`. A string matches when
    /// for some alternative its texts occur in order, with no newline
    /// between consecutive texts (`.` does not match a newline).
    ContainsPattern(Vec<Vec<String>>),
    /// Any other regular expression the GPU runs: a match anywhere, found by
    /// walking each text through the expression's DFA.
    ContainsRegex(Arc<RegexDfa>),
    StartsWith(String),
    EndsWith(String),
    LenBytes,
    LenChars,
    /// The number of leftmost, non-overlapping matches of this pattern (an
    /// empty literal matches at every character boundary), as u32.
    CountMatches(TextPattern),
    /// The byte offset of the first match of this pattern, null where there
    /// is none, as u32.
    Find(TextPattern),
    /// The first match of this pattern, null where there is none
    /// (`str.extract` of a group that spans the whole match).
    Extract(TextPattern),
    /// Capture group `group` of the first match of a regular expression,
    /// null where there is none (`str.extract` of a group in the pattern's
    /// top-level sequence; see [`GroupDfas`]): where a text's match parses
    /// more than one way, the query goes to Polars.
    ExtractGroup {
        group: usize,
        dfas: GroupDfas,
    },
    /// Every match of this pattern (leftmost, not overlapping, empty ones
    /// too), in a list of texts; a null text's list is null
    /// (`str.extract_all`).
    ExtractAll(TextPattern),
    /// Characters from `offset` (negative: from the end), `length` of them
    /// (`None`: to the end).
    Slice {
        offset: i64,
        length: Option<u64>,
    },
    /// All but the last characters, this many (`str.head(-n)`).
    DropLast(u64),
    ToUppercase,
    ToLowercase,
    /// The first `limit` (all when `None`) matches of `pattern` (a literal
    /// not empty), leftmost and not overlapping, replaced by `value` as it
    /// is.
    Replace {
        pattern: TextPattern,
        value: String,
        limit: Option<u64>,
    },
    /// Polars' `str.replace_many` of literal `patterns` (none empty), each
    /// match replaced by the value at its pattern's place in `values`:
    /// non-overlapping, as Aho-Corasick finds them (`leftmost`: the match
    /// starting first, of those there the first pattern; else the match
    /// ending first, of those there the longest pattern), ASCII letters in
    /// either case with `ascii_case_insensitive`.
    ReplaceMany {
        patterns: Vec<String>,
        values: Vec<String>,
        leftmost: bool,
        ascii_case_insensitive: bool,
    },
    /// The first `limit` (all when `None`) matches of a regular expression
    /// (`dfas.whole`), leftmost and not overlapping, each replaced by
    /// `template` with its capture groups put in (Polars' `str.replace` of
    /// a regex by a value with `$1`, `${name}`, `$0`, as the `regex` crate
    /// expands it). Each group lies in the pattern's top-level sequence
    /// (see [`GroupDfas`]); where a match parses more than one way, the
    /// query goes to Polars.
    ReplaceGroups {
        /// The DFAs of the groups `groups` names, in its order.
        dfas: GroupDfas,
        groups: Vec<usize>,
        template: Vec<TemplatePiece>,
        limit: Option<u64>,
    },
    /// The characters of `set` (white space, as Rust's `char::is_whitespace`,
    /// when `None`) removed from the start and/or the end.
    Strip {
        set: Option<Vec<char>>,
        start: bool,
        end: bool,
    },
    /// Polars' `pad_start` and `pad_end`: `fill` added before (after) a
    /// string of fewer than `length` characters until it has that many; or
    /// `zfill`: zeros after any leading sign until it has `length` bytes.
    Pad {
        length: u64,
        fill: char,
        side: PadSide,
    },
    /// Polars' `str.split` by a literal `separator` (`inclusive`:
    /// `str.split(.., inclusive=True)`, each piece with the separator ending
    /// it): a list of texts, the characters when `separator` is empty.
    Split {
        separator: String,
        inclusive: bool,
    },
}

impl StringOp {
    /// Whether the operation makes a list of texts of each text
    /// (`str.split`, `str.extract_all`).
    pub fn makes_lists(&self) -> bool {
        matches!(self, StringOp::Split { .. } | StringOp::ExtractAll(_))
    }
}

/// What [`StringOp::CountMatches`], [`StringOp::Find`], [`StringOp::Extract`]
/// and [`StringOp::Replace`] search for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextPattern {
    Literal(String),
    /// A regular expression, as its anchored DFA ([`RegexDfa::anchored`]).
    Regex(Arc<RegexDfa>),
}

/// Where [`StringOp::Pad`] pads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PadSide {
    Start = 0,
    End = 1,
    /// Zeros after a leading sign, counting bytes (`zfill`).
    Zeros = 2,
}
