//! Text-valued expressions: casts to text, concatenation, replacement, case mapping, slices, paddings and strips (by literals or each row's), joins of texts.

use super::*;
use gpu_runtime::ops::{PadTo, ReplacementPiece, SliceRows, StripSet};
use ir_lower::{ByRows, TemplatePiece};

/// A text column named `name` of `strings`.
pub(crate) fn strings_column(name: &str, strings: DeviceStrings) -> DeviceColumn {
    let DeviceStrings {
        offsets,
        bytes,
        validity,
    } = strings;
    let height = offsets.len().saturating_sub(1);
    DeviceColumn::from_parts(
        name.into(),
        GpuDtype::String,
        height,
        Values::Str { offsets, bytes },
        Some(validity),
    )
}

/// The u64 values of `column`, lengths of `expr`.
fn u64s<'c>(column: &'c DeviceColumn, expr: &GpuExpr) -> Result<&'c DeviceBuffer<u64>, ExecError> {
    match column.values() {
        Values::U64(values) => Ok(values),
        _ => Err(ExecError::Unsupported(format!("`{expr}`: lengths not u64"))),
    }
}

/// The ends a strip takes characters from.
fn strip_side(start: bool, end: bool) -> Side {
    match (start, end) {
        (true, false) => Side::Start,
        (false, true) => Side::End,
        _ => Side::Both,
    }
}

/// The tables of a regular expression's DFA, as the kernels take them.
pub(crate) fn dfa_tables(dfa: &RegexDfa) -> DfaTables<'_> {
    DfaTables {
        classes: dfa.classes(),
        transitions: dfa.transitions(),
        flags: dfa.flags(),
        starts: dfa.starts(),
    }
}

/// A pattern to count, find or replace, as the kernels take it.
pub(crate) fn device_pattern(pattern: &TextPattern) -> Pattern<'_> {
    match pattern {
        TextPattern::Literal(text) => Pattern::Literal(text),
        TextPattern::Regex(dfa) => Pattern::Anchored(dfa_tables(dfa)),
    }
}

/// Polars' `str.to_uppercase` of every character above ASCII, as Rust's
/// `char::to_uppercase` maps it (up to three characters; context-free):
/// the sorted code points that change, and three code points for each, 0
/// ending a shorter mapping. Built once per process.
pub(crate) fn uppercase_table() -> &'static (Vec<u32>, Vec<u32>) {
    static TABLE: std::sync::OnceLock<(Vec<u32>, Vec<u32>)> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| char_mapping(|c| c.to_uppercase().map(u32::from).collect()))
}

/// The characters above ASCII that `map` changes, sorted, and three code
/// points for each (0 ends a shorter mapping): a table for
/// `Ops::string_map_chars`.
pub(crate) fn char_mapping(map: impl Fn(char) -> Vec<u32>) -> (Vec<u32>, Vec<u32>) {
    let (mut from, mut to) = (Vec::new(), Vec::new());
    for c in (0x80..=0x10FFFFu32).filter_map(char::from_u32) {
        let mapped = map(c);
        if mapped != [u32::from(c)] {
            from.push(u32::from(c));
            to.extend((0..3).map(|i| mapped.get(i).copied().unwrap_or(0)));
        }
    }
    (from, to)
}

/// What the device needs for Polars' `str.to_lowercase`.
pub(crate) struct LowercaseTables {
    /// Characters above ASCII whose `char::to_lowercase` differs, sorted,
    /// and three code points for each (0 ends a shorter mapping).
    pub(crate) from: Vec<u32>,
    pub(crate) to: Vec<u32>,
    /// Case-ignorable characters, sorted: skipped when a capital sigma looks
    /// for its neighbours.
    pub(crate) ignorable: Vec<u32>,
    /// Cased characters that are not case-ignorable, sorted.
    pub(crate) cased: Vec<u32>,
}

/// The tables of Polars' `str.to_lowercase`, built once per process. The
/// mapping is Rust's `char::to_lowercase`, which Polars applies to every
/// character but the capital sigma. For that one Polars follows Unicode's
/// final-sigma rule, which needs the Case_Ignorable and Cased properties;
/// they are read off Polars' own lower case, by probing every character c
/// in three contexts: "AcΣ" gives a final sigma when c is case-ignorable or
/// cased, "cΣ" when c is cased and not case-ignorable, and "AΣc" when c is
/// case-ignorable or not cased.
pub(crate) fn lowercase_tables() -> &'static LowercaseTables {
    use polars::prelude::{NewChunkedArray, StringChunked, StringNameSpaceImpl};
    static TABLES: std::sync::OnceLock<LowercaseTables> = std::sync::OnceLock::new();
    TABLES.get_or_init(|| {
        let (from, to) = char_mapping(|c| c.to_lowercase().map(u32::from).collect());
        let chars: Vec<char> = (0..=0x10FFFFu32).filter_map(char::from_u32).collect();
        let final_sigma = |probe: &dyn Fn(char) -> String, at: &dyn Fn(&str) -> Option<char>| {
            let probes: Vec<String> = chars.iter().map(|&c| probe(c)).collect();
            let texts = StringChunked::from_slice("".into(), &probes);
            texts
                .to_lowercase()
                .iter()
                .map(|text| text.and_then(at) == Some('ς'))
                .collect::<Vec<bool>>()
        };
        let last = |text: &str| text.chars().last();
        let second = |text: &str| text.chars().nth(1);
        let after_cased_or_ignorable = final_sigma(&|c| format!("A{c}Σ"), &last);
        let after_cased = final_sigma(&|c| format!("{c}Σ"), &last);
        let before_uncased_or_ignorable = final_sigma(&|c| format!("AΣ{c}"), &second);
        let (mut ignorable, mut cased) = (Vec::new(), Vec::new());
        for (i, &c) in chars.iter().enumerate() {
            if after_cased_or_ignorable[i] && !after_cased[i] && before_uncased_or_ignorable[i] {
                ignorable.push(u32::from(c));
            } else if after_cased[i] {
                cased.push(u32::from(c));
            }
        }
        LowercaseTables {
            from,
            to,
            ignorable,
            cased,
        }
    })
}

/// The string column `expr` names, with its offsets and bytes.
pub(crate) fn text_column<'f>(
    frame: &'f DeviceFrame,
    expr: &GpuExpr,
) -> Result<
    (
        &'f DeviceColumn,
        &'f DeviceBuffer<i64>,
        &'f DeviceBuffer<u8>,
    ),
    ExecError,
> {
    let column = column_at(frame, column_index(expr)?)?;
    match column.values() {
        Values::Str { offsets, bytes } => Ok((column, offsets, bytes)),
        _ => Err(ExecError::Unsupported(format!(
            "matching a {} column as text",
            column.dtype
        ))),
    }
}

impl Executor<'_> {
    /// A new string column of `expr` (see [`string_valued`]).
    pub(crate) fn make_strings(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        name: &str,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let ops = self.ops();
        let mut made = match &expr.kind {
            ExprKind::Column { index, .. } => {
                let column = column_at(frame, *index)?;
                self.gather_column(column, &ops.iota(column.len(), 0)?)?
            }
            ExprKind::Shift { .. }
            | ExprKind::Reverse(_)
            | ExprKind::Gather { .. }
            | ExprKind::Fill { .. }
            | ExprKind::SortedBy { .. } => self.moved(frame, expr, name, groups)?,
            ExprKind::SetSorted { .. } => self.claimed_sorted(frame, expr, name, groups)?,
            ExprKind::List { function, input } => {
                self.list_function(frame, function, input, expr.dtype, groups)?
            }
            ExprKind::StructField { field, input, .. } => {
                self.struct_field(frame, input, *field, expr.dtype, groups)?
            }
            ExprKind::Window {
                function,
                partition_by,
                order_by,
            } => {
                let groups = self.window_groups(frame, partition_by, order_by.as_ref())?;
                let (rows, starts) = (&groups.sorted_rows, &groups.starts);
                match function.kind {
                    // Within each partition, as made per group above.
                    ExprKind::Shift { .. }
                    | ExprKind::Reverse(_)
                    | ExprKind::Fill { .. }
                    | ExprKind::SortedBy { .. } => {
                        self.make_strings(frame, function, name, Some((rows, starts)))?
                    }
                    _ => self.aggregate_on_rows(frame, function, (rows, starts))?,
                }
            }
            ExprKind::Agg { .. } => {
                let (rows, starts) = self.one_group(frame.height)?;
                let value = self.aggregate(frame, expr, &rows, &starts, true)?;
                self.gather_column(&value, &ops.repeat_first(frame.height)?)?
            }
            ExprKind::Cast { input, .. } => self.cast_as_text(frame, input, name, groups)?,
            ExprKind::Strftime { input, format } => {
                self.formatted(frame, input, format, name, groups)?
            }
            ExprKind::String {
                op:
                    op @ (StringOp::Slice { .. }
                    | StringOp::DropLast(_)
                    | StringOp::ToUppercase
                    | StringOp::ToLowercase
                    | StringOp::Strip { .. }
                    | StringOp::Replace { .. }
                    | StringOp::ReplaceMany { .. }
                    | StringOp::Extract(_)
                    | StringOp::ExtractGroup { .. }
                    | StringOp::ReplaceGroups { .. }
                    | StringOp::Pad { .. }),
                input,
            } => {
                let mut owned = None;
                let (offsets, bytes, validity) =
                    self.strings_of(frame, input, &mut owned, groups)?;
                let strings = match op {
                    StringOp::Slice { offset, length } => {
                        ops.string_slice(offsets, bytes, validity, (*offset, *length), 0)?
                    }
                    StringOp::DropLast(count) => {
                        ops.string_slice(offsets, bytes, validity, (0, None), *count)?
                    }
                    StringOp::Replace {
                        pattern,
                        value,
                        limit,
                    } => {
                        let pattern = device_pattern(pattern);
                        ops.string_replace(offsets, bytes, validity, (pattern, value), *limit)?
                    }
                    StringOp::ReplaceMany {
                        patterns,
                        values,
                        leftmost,
                        ascii_case_insensitive,
                    } => {
                        let patterns: Vec<&str> = patterns.iter().map(String::as_str).collect();
                        let values: Vec<&str> = values.iter().map(String::as_str).collect();
                        ops.string_replace_many(
                            (offsets, bytes, validity),
                            (&patterns, &values),
                            *leftmost,
                            *ascii_case_insensitive,
                        )?
                    }
                    StringOp::Extract(pattern) => {
                        ops.string_extract((offsets, bytes, validity), device_pattern(pattern))?
                    }
                    StringOp::ExtractGroup { group, dfas } => {
                        let ambiguous = DeviceBuffer::<u32>::zeroed(
                            1,
                            self.ctx.memory.clone(),
                            &self.ctx.stream,
                        )?;
                        let strings = ops.string_extract_group(
                            (offsets, bytes, validity),
                            dfa_tables(&dfas.whole),
                            dfa_tables(&dfas.parts),
                            &ambiguous,
                        )?;
                        let what = format!(
                            "texts whose match of {:?} parses more than one way, so that the \
                             GPU cannot tell which text group {group} captures, in `{expr}`",
                            dfas.whole.pattern()
                        );
                        self.check_later(ambiguous, what, ExecError::DependsOnPolars);
                        strings
                    }
                    StringOp::ReplaceGroups {
                        dfas,
                        groups,
                        template,
                        limit,
                    } => {
                        let ambiguous = DeviceBuffer::<u32>::zeroed(
                            1,
                            self.ctx.memory.clone(),
                            &self.ctx.stream,
                        )?;
                        let template: Vec<ReplacementPiece> = template
                            .iter()
                            .map(|piece| match piece {
                                TemplatePiece::Text(text) => ReplacementPiece::Text(text),
                                TemplatePiece::Match => ReplacementPiece::Match,
                                TemplatePiece::Group(n) => ReplacementPiece::Group(
                                    groups.iter().position(|g| g == n).unwrap_or(usize::MAX),
                                ),
                            })
                            .collect();
                        let group_tables = (!groups.is_empty()).then(|| dfa_tables(&dfas.parts));
                        let strings = ops.string_replace_groups(
                            (offsets, bytes, validity),
                            (dfa_tables(&dfas.whole), group_tables),
                            &template,
                            *limit,
                            &ambiguous,
                        )?;
                        let what = format!(
                            "texts whose match of {:?} parses more than one way, so that the \
                             GPU cannot tell which texts its groups capture, in `{expr}`",
                            dfas.whole.pattern()
                        );
                        self.check_later(ambiguous, what, ExecError::DependsOnPolars);
                        strings
                    }
                    StringOp::Strip { set, start, end } => {
                        let side = strip_side(*start, *end);
                        let set = match set {
                            Some(chars) => StripSet::Chars(chars),
                            None => StripSet::WhiteSpace,
                        };
                        ops.string_strip((offsets, bytes, validity), set, side)?
                    }
                    StringOp::Pad { length, fill, side } => {
                        let length = PadTo::Length(*length);
                        ops.string_pad((offsets, bytes, validity), length, *fill, *side as u32)?
                    }
                    _ => {
                        let upload = |values: &[u32]| {
                            DeviceBuffer::from_host(
                                values,
                                self.ctx.memory.clone(),
                                &self.ctx.stream,
                            )
                        };
                        let strings = (offsets, bytes, validity);
                        if matches!(op, StringOp::ToUppercase) {
                            let (from, to) = uppercase_table();
                            ops.string_map_chars(
                                strings,
                                AsciiCase::Upper,
                                (&upload(from)?, &upload(to)?),
                                None,
                            )?
                        } else {
                            let tables = lowercase_tables();
                            let (ignorable, cased) =
                                (upload(&tables.ignorable)?, upload(&tables.cased)?);
                            ops.string_map_chars(
                                strings,
                                AsciiCase::Lower,
                                (&upload(&tables.from)?, &upload(&tables.to)?),
                                Some((&ignorable, &cased)),
                            )?
                        }
                    }
                };
                strings_column(name, strings)
            }
            ExprKind::StringByRows {
                how,
                input,
                by,
                length,
            } => {
                let (mut owned, mut owned_by, mut owned_length) = (None, None, None);
                let strings = self.strings_of(frame, input, &mut owned, groups)?;
                let strings = match how {
                    ByRows::Strip { start, end } => {
                        let mut owned_set = None;
                        let sets = self.strings_of(frame, by, &mut owned_set, groups)?;
                        ops.string_strip(strings, StripSet::Rows(sets), strip_side(*start, *end))?
                    }
                    ByRows::Pad { fill, side } => {
                        let by = self.column_in_groups(frame, by, "", &mut owned_by, groups)?;
                        let lengths = PadTo::Rows(u64s(by, expr)?);
                        ops.string_pad(strings, lengths, *fill, *side as u32)?
                    }
                    ByRows::Slice | ByRows::Head | ByRows::Tail => {
                        let by = self.column_in_groups(frame, by, "", &mut owned_by, groups)?;
                        let Values::I64(by_values) = by.values() else {
                            let why = format!("`{expr}`: bounds not i64");
                            return Err(ExecError::Unsupported(why));
                        };
                        let length = match length {
                            Some(length) => Some(u64s(
                                self.column_in_groups(
                                    frame,
                                    length,
                                    "",
                                    &mut owned_length,
                                    groups,
                                )?,
                                expr,
                            )?),
                            None => None,
                        };
                        let how = match how {
                            ByRows::Slice => SliceRows::Slice,
                            ByRows::Head => SliceRows::Head,
                            _ => SliceRows::Tail,
                        };
                        let by = (by_values, by.validity());
                        ops.string_slice_rows(strings, how, by, length)?
                    }
                };
                strings_column(name, strings)
            }
            ExprKind::ConcatStr {
                inputs,
                separator,
                ignore_nulls,
            } => {
                let how = Joining::Concat {
                    separator,
                    ignore_nulls: *ignore_nulls,
                };
                self.concatenated(frame, inputs, &[], how, (name, groups))?
            }
            ExprKind::Literal(_) => {
                // The literal alone, repeated on every row.
                self.concatenated(
                    frame,
                    std::slice::from_ref(expr),
                    &[],
                    Joining::Coalesce,
                    (name, groups),
                )?
            }
            ExprKind::FillNull { input, value } => {
                let inputs = [(**input).clone(), (**value).clone()];
                self.concatenated(frame, &inputs, &[], Joining::Coalesce, (name, groups))?
            }
            ExprKind::Ternary {
                predicate,
                truthy,
                falsy,
            } => {
                // `truthy` where the predicate is true, `falsy` where it is
                // false or null: each masked by its rows, then coalesced.
                let when = GpuExpr {
                    kind: ExprKind::FillNull {
                        input: predicate.clone(),
                        value: Box::new(GpuExpr {
                            kind: ExprKind::Literal(Scalar::Boolean(false)),
                            dtype: GpuDtype::Boolean,
                        }),
                    },
                    dtype: GpuDtype::Boolean,
                };
                let otherwise = GpuExpr {
                    kind: ExprKind::Not(Box::new(when.clone())),
                    dtype: GpuDtype::Boolean,
                };
                let (when, otherwise) = (
                    self.evaluate_in_groups(frame, &when, "", groups)?,
                    self.evaluate_in_groups(frame, &otherwise, "", groups)?,
                );
                let (Values::Bits(when), Values::Bits(otherwise)) =
                    (when.values(), otherwise.values())
                else {
                    return Err(ExecError::Unsupported(format!(
                        "the predicate of `{expr}` is not boolean"
                    )));
                };
                let inputs = [(**truthy).clone(), (**falsy).clone()];
                let masks = [Some(when), Some(otherwise)];
                self.concatenated(frame, &inputs, &masks, Joining::Coalesce, (name, groups))?
            }
            _ => {
                return Err(ExecError::Unsupported(not_yet(format_args!(
                    "the strings of `{expr}`"
                ))));
            }
        };
        made.name = name.into();
        Ok(made)
    }

    /// A text literal (a null when not text) as one row of strings on the
    /// device: offsets, bytes, validity.
    pub(crate) fn text_literal(&self, value: &Scalar) -> Result<DeviceStrings, ExecError> {
        let (memory, stream) = (|| self.ctx.memory.clone(), &self.ctx.stream);
        let text = match value {
            Scalar::String(text) => Some(text.as_bytes()),
            _ => None,
        };
        let bytes = text.unwrap_or_default();
        Ok(DeviceStrings {
            offsets: DeviceBuffer::from_host(&[0, bytes.len() as i64], memory(), stream)?,
            bytes: DeviceBuffer::from_host(bytes, memory(), stream)?,
            validity: DeviceBuffer::from_host(&[u32::from(text.is_some())], memory(), stream)?,
        })
    }

    /// Integers, booleans, floats, dates or timestamps (`input`) as text, as
    /// Polars casts them: decimal digits (of integers and booleans evaluated
    /// as 64-bit words), `true` and `false`, floats as zmij writes them, or
    /// chrono's `%Y-%m-%d` (with ` %H:%M:%S` and the fraction of the second
    /// in the unit's digits for timestamps), `%T` for times of day.
    pub(crate) fn cast_as_text(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        name: &str,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let format = match input.dtype {
            GpuDtype::Time => FormatPart::parse("%T"),
            dtype => FormatPart::iso(dtype, false),
        };
        if let Some(format) = format {
            return self.formatted(frame, input, &format, name, groups);
        }
        if let GpuDtype::Categorical(dictionary) = input.dtype {
            // The dictionary's texts, gathered by code (a null's index -1
            // gathers null).
            let int64 = GpuDtype::Int64;
            let index = input.clone().is_null().then(
                GpuExpr::literal(Scalar::Int(-1), int64),
                cast_to(input, int64),
                int64,
            );
            let indices = self.evaluate_in_groups(frame, &index, name, groups)?;
            let Values::I64(indices) = indices.values() else {
                return Err(ExecError::Unsupported(format!("`{input}` as codes")));
            };
            let texts = DeviceColumn::from_series(&dictionary.texts(name), self.ctx)?;
            return self.gather_column(&texts, indices);
        }
        if input.dtype.is_float() {
            let column = self.evaluate_in_groups(frame, input, name, groups)?;
            let strings = match column.values() {
                Values::F64(values) => self.ops().string_from_floats(values, column.validity())?,
                Values::F32(values) => self.ops().string_from_floats(values, column.validity())?,
                _ => {
                    return Err(ExecError::Unsupported(format!("`{input}` as floats")));
                }
            };
            return Ok(strings_column(name, strings));
        }
        let (words, kind) = match input.dtype {
            GpuDtype::Boolean => (GpuDtype::Int64, IntegerText::Boolean),
            // The scaled integer (a physical cast), its point placed.
            GpuDtype::Decimal(_, scale) => (
                GpuDtype::Int64,
                IntegerText::Decimal {
                    scale: scale.into(),
                },
            ),
            dtype if dtype.is_unsigned() => (GpuDtype::UInt64, IntegerText::Unsigned),
            _ => (GpuDtype::Int64, IntegerText::Signed),
        };
        let column = self.evaluate_in_groups(frame, &cast_to(input, words), name, groups)?;
        let strings = match column.values() {
            Values::I64(values) => {
                self.ops()
                    .string_from_integers(values, column.validity(), kind)?
            }
            Values::U64(values) => {
                self.ops()
                    .string_from_integers(values, column.validity(), kind)?
            }
            _ => {
                return Err(ExecError::Unsupported(format!(
                    "`{input}` as 64-bit integers"
                )));
            }
        };
        Ok(strings_column(name, strings))
    }

    /// `inputs` (text columns or expressions, or text literals) joined row
    /// by row: concatenated as Polars' `concat_str`, or coalesced.
    pub(crate) fn concatenated(
        &self,
        frame: &DeviceFrame,
        inputs: &[GpuExpr],
        masks: &[Option<&DeviceBuffer<u32>>],
        how: Joining<'_>,
        (name, groups): (&str, InGroups<'_>),
    ) -> Result<DeviceColumn, ExecError> {
        // Literals become one-row columns, repeated on every row.
        let mut literals = Vec::new();
        let mut owned: Vec<Option<DeviceColumn>> = inputs.iter().map(|_| None).collect();
        for input in inputs {
            if let ExprKind::Literal(value) = &input.kind {
                literals.push(self.text_literal(value)?);
            }
        }
        let mut columns = Vec::with_capacity(inputs.len());
        for (input, slot) in inputs.iter().zip(owned.iter_mut()) {
            if matches!(input.kind, ExprKind::Literal(_)) {
                columns.push(None);
            } else {
                columns.push(Some(
                    self.column_in_groups(frame, input, name, slot, groups)?,
                ));
            }
        }
        let mut literal = literals.iter();
        let mut parts = Vec::with_capacity(inputs.len());
        for (j, column) in columns.iter().enumerate() {
            let mask = masks.get(j).copied().flatten();
            parts.push(match column {
                Some(column) => {
                    let Values::Str { offsets, bytes } = column.values() else {
                        return Err(ExecError::Unsupported(format!(
                            "`{}` is not text",
                            column.name
                        )));
                    };
                    ConcatPart {
                        offsets,
                        bytes,
                        validity: column.validity(),
                        mask,
                        repeated: false,
                    }
                }
                None => {
                    let text: &DeviceStrings = literal
                        .next()
                        .ok_or_else(|| ExecError::Unsupported("a literal went missing".into()))?;
                    ConcatPart {
                        offsets: &text.offsets,
                        bytes: &text.bytes,
                        validity: Some(&text.validity),
                        mask,
                        repeated: true,
                    }
                }
            });
        }
        let strings = match how {
            Joining::Concat {
                separator,
                ignore_nulls,
            } => self.ops().string_concat(
                &parts,
                frame.height,
                separator.as_bytes(),
                ignore_nulls,
            )?,
            Joining::Coalesce => self.ops().string_coalesce(&parts, frame.height)?,
        };
        Ok(strings_column(name, strings))
    }

    /// The texts of `expr` over `frame` (a column of the frame, else made
    /// into `owned`): offsets, bytes and validity, as the string kernels
    /// take them.
    pub(crate) fn strings_of<'f>(
        &self,
        frame: &'f DeviceFrame,
        expr: &GpuExpr,
        owned: &'f mut Option<DeviceColumn>,
        groups: InGroups<'_>,
    ) -> Result<StringsRef<'f>, ExecError> {
        let column = self.column_in_groups(frame, expr, "", owned, groups)?;
        let Values::Str { offsets, bytes } = column.values() else {
            return Err(ExecError::Unsupported(format!("`{expr}` is not text")));
        };
        Ok((offsets, bytes, column.validity()))
    }

    /// Polars' `str.join(separator)` of the texts `texts` per group of
    /// `sorted_rows`: every text but a group's first valid one takes the
    /// separator before it (nulls become empty), the pieces are put in group
    /// order, and a group's result is the bytes from its first piece to its
    /// last, so the pieces' bytes serve every group as they are. Unless
    /// `ignore_nulls`, a group with a null is null.
    pub(crate) fn joined_texts(
        &self,
        texts: &DeviceColumn,
        (separator, ignore_nulls): (&str, bool),
        sorted_rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceColumn, ExecError> {
        let ops = self.ops();
        let n = texts.len();
        let count = starts.len();
        let boolean = GpuDtype::Boolean;
        // Whether each row is valid, and how many valid rows come before it
        // in its group.
        let kept = match texts.validity() {
            Some(bits) => ops.gather_bits(bits, n, None, &ops.iota(n, 0)?)?.0,
            None => {
                let empty = DeviceFrame {
                    columns: vec![],
                    height: n,
                };
                let all = GpuExpr::literal(Scalar::Boolean(true), boolean);
                let Values::Bits(bits) = self.evaluate(&empty, &all, "")?.into_parts().0 else {
                    return Err(ExecError::Unsupported("booleans that are not bits".into()));
                };
                bits
            }
        };
        let kept = DeviceFrame {
            columns: vec![DeviceColumn::from_parts(
                "".into(),
                boolean,
                n,
                Values::Bits(kept),
                None,
            )],
            height: n,
        };
        let groups = Some((sorted_rows, starts));
        let through =
            self.cumulative_sum(&kept, &column_ref(0, boolean), GpuDtype::UInt32, groups)?;
        let mut counts = kept;
        counts.columns.push(through);
        let before = column_ref(1, GpuDtype::UInt32).binary(
            BinaryOp::Minus,
            cast_to(&column_ref(0, boolean), GpuDtype::UInt32),
            GpuDtype::UInt32,
        );
        let before = self.evaluate(&counts, &before, "")?;
        // The pieces, in group order.
        let rows = DeviceFrame {
            columns: vec![self.gather_column(texts, &ops.iota(n, 0)?)?, before],
            height: n,
        };
        let text = GpuDtype::String;
        let literal = |value: &str| GpuExpr::literal(Scalar::String(value.into()), text);
        let joined = GpuExpr {
            kind: ExprKind::ConcatStr {
                inputs: vec![literal(separator), column_ref(0, text)],
                separator: String::new(),
                ignore_nulls: false,
            },
            dtype: text,
        };
        let after_another = column_ref(1, GpuDtype::UInt32).binary(
            BinaryOp::Gt,
            GpuExpr::literal(Scalar::UInt(0), GpuDtype::UInt32),
            boolean,
        );
        let piece = after_another
            .then(joined, column_ref(0, text), text)
            .fill_null(literal(""));
        let pieces = self.make_strings(&rows, &piece, "", None)?;
        let sorted = self.gather_column(&pieces, sorted_rows)?;
        let Values::Str { offsets, bytes } = sorted.into_parts().0 else {
            return Err(ExecError::Unsupported("pieces that are not text".into()));
        };
        // Each group's result: from its first piece to its last.
        let bounds = self.group_bounds(starts, n)?;
        let (offsets, _) = ops.gather(&offsets, None, &bounds)?;
        let validity = match texts.validity() {
            Some(validity) if !ignore_nulls => {
                // Valid where every row of the group is.
                let (sorted_valid, _) = ops.gather_bits(validity, n, None, sorted_rows)?;
                let counts = DeviceFrame {
                    columns: [Some(&sorted_valid), None]
                        .into_iter()
                        .map(|valid| -> Result<_, ExecError> {
                            Ok(DeviceColumn::from_parts(
                                "".into(),
                                GpuDtype::UInt32,
                                count,
                                Values::U32(ops.segment_count(valid, starts, n)?),
                                None,
                            ))
                        })
                        .collect::<Result<_, _>>()?,
                    height: count,
                };
                let whole = column_ref(0, GpuDtype::UInt32).binary(
                    BinaryOp::Eq,
                    column_ref(1, GpuDtype::UInt32),
                    boolean,
                );
                let Values::Bits(bits) = self.evaluate(&counts, &whole, "")?.into_parts().0 else {
                    return Err(ExecError::Unsupported("booleans that are not bits".into()));
                };
                Some(bits)
            }
            _ => None,
        };
        Ok(DeviceColumn::from_parts(
            "".into(),
            text,
            count,
            Values::Str { offsets, bytes },
            validity,
        ))
    }
}
