//! String functions (`str.*`): slices, strips, replacements, matches, and patterns as the kernels take them.

use super::*;

/// `pattern` as [`TextPattern`]: literal when Polars takes it so (asked
/// to, or without ASCII punctuation), else the anchored DFA of the regular
/// expression, or why it has none.
pub(crate) fn text_pattern(pattern: String, literal: bool) -> Result<TextPattern, String> {
    if taken_literally(&pattern, literal) {
        return Ok(TextPattern::Literal(pattern));
    }
    Ok(TextPattern::Regex(RegexDfa::cached(&pattern, true)?))
}

/// The replacement of the first `limit` matches of the regular expression
/// `pattern` by `value` with its capture groups expanded, as the `regex`
/// crate expands them: a plain replacement where `value` names no group
/// the pattern has (`$$`), else one that puts groups in; or why the GPU
/// cannot find a group it names.
fn replace_groups(pattern: &str, value: &str, limit: Option<u64>) -> Result<StringOp, String> {
    let template = replacement_pieces(pattern, value)?;
    let mut groups = Vec::new();
    for piece in &template {
        if let TemplatePiece::Group(n) = piece
            && !groups.contains(n)
        {
            groups.push(*n);
        }
    }
    let plain = match &template[..] {
        [] => Some(String::new()),
        [TemplatePiece::Text(text)] => Some(text.clone()),
        _ => None,
    };
    if let Some(value) = plain {
        return Ok(StringOp::Replace {
            pattern: TextPattern::Regex(RegexDfa::cached(pattern, true)?),
            value,
            limit,
        });
    }
    Ok(StringOp::ReplaceGroups {
        dfas: GroupDfas::for_groups(pattern, &groups)?,
        groups,
        template,
        limit,
    })
}

/// Whether Polars matches `pattern` as literal text: when asked to, or when
/// it has no ASCII punctuation (so no metacharacter: a regular expression
/// that matches exactly its own text).
pub(crate) fn taken_literally(pattern: &str, literal: bool) -> bool {
    literal || pattern.chars().all(|c| !c.is_ascii_punctuation())
}

/// A regular expression of the restricted form [`StringOp::ContainsPattern`]
/// runs, as its alternatives, each a list of literal texts; `None` for any
/// other. Within an alternative, `.*` separates texts (at either end it is
/// dropped: a search is not anchored), and a character followed by `*` at the
/// end of a text is dropped (it may occur zero times, and nothing in that text
/// follows it). So `PROMO*` is `["PROM"]`, `.*Customer.*Complaints.*` is
/// `["Customer", "Complaints"]` and `13|31` is `["13"], ["31"]`.
pub(crate) fn regex_as_pattern(pattern: &str) -> Option<Vec<Vec<String>>> {
    const META: &[char] = &[
        '\\', '.', '+', '*', '?', '(', ')', '|', '[', ']', '{', '}', '^', '$',
    ];
    let alternative = |alternative: &str| -> Option<Vec<String>> {
        let mut texts = Vec::new();
        for piece in alternative.split(".*") {
            let mut text = piece.to_owned();
            if let Some(stem) = text.strip_suffix('*') {
                // `c*` at the end: drop `c` too, unless it was escaped or special.
                let mut chars = stem.chars();
                let repeated = chars.next_back()?;
                if META.contains(&repeated) {
                    return None;
                }
                text = chars.as_str().to_owned();
            }
            if text.contains(META) {
                return None;
            }
            if !text.is_empty() {
                texts.push(text);
            }
        }
        // An alternative with no text matches every string: not worth a kernel.
        (!texts.is_empty()).then_some(texts)
    };
    pattern.split('|').map(alternative).collect()
}

impl ExprLowering<'_> {
    pub(crate) fn string(
        &mut self,
        node: Node,
        inputs: &[ExprIR],
        function: &IRStringFunction,
    ) -> Lowered {
        use IRStringFunction as S;
        match function {
            S::SplitExact { n, inclusive } => {
                return self.split_to_struct(node, inputs, (*n + 1, *inclusive, false));
            }
            S::SplitN(n) => return self.split_to_struct(node, inputs, (*n, false, true)),
            _ => {}
        }
        if let S::Strptime(dtype, options) = function
            && options.exact
            && let Some(format) = match (dtype, options.format.as_deref()) {
                (DataType::Date, Some(format)) => parse_format(format, false),
                (DataType::Datetime(_, None), Some(format)) => parse_format(format, true),
                // Polars infers a format from the first text it can: for a
                // text of the form YYYY-MM-DD that is `%Y-%m-%d` (its other
                // patterns of dates fail on it), so that a column of such
                // texts only parses as that; the device flags any other.
                // From a text of the form YYYY-MM-DD HH:MM:SS or
                // YYYY-MM-DDTHH:MM:SS (with a fraction of the second or
                // not) it infers its patterns of Y-M-D dates and times,
                // which read the same instant from each such form (each
                // tried in turn on each text; the fraction as chrono's `%.f`).
                (DataType::Date, None) => parse_format("%Y-%m-%d", false),
                (DataType::Datetime(_, None), None) => parse_format("%Y-%m-%d %H:%M:%S%.f", true)
                    .map(|parts| {
                        let space_or_t = |part| match part {
                            FormatPart::Byte(b' ') => FormatPart::SpaceOrT,
                            other => other,
                        };
                        parts.into_iter().map(space_or_t).collect()
                    }),
                // (A time of day: of HH:MM:SS, Polars' inferred formats
                // read the same time.)
                (DataType::Time, Some(format)) => parse_time_format(format),
                (DataType::Time, None) => parse_time_format("%H:%M:%S"),
                _ => None,
            }
        {
            let input = self.boxed(inputs.first()?.node())?;
            let dtype = self.dtype(node)?;
            let inferred = options.format.is_none();
            return Some(GpuExpr {
                kind: ExprKind::ParseTemporal {
                    input,
                    format,
                    inferred,
                    lenient: !options.strict && !inferred,
                },
                dtype,
            });
        }
        if let S::ConcatVertical {
            delimiter,
            ignore_nulls,
        } = function
        {
            let input = self.single(inputs)?;
            if input.dtype != GpuDtype::String {
                return self.refuse(node, format!("str.join of {}", input.dtype));
            }
            return Some(GpuExpr {
                kind: ExprKind::Agg {
                    op: AggOp::Join {
                        separator: delimiter.to_string(),
                        ignore_nulls: *ignore_nulls,
                    },
                    input: Box::new(input),
                },
                dtype: GpuDtype::String,
            });
        }
        if let S::ToDecimal { scale } = function {
            // Polars' non-strict cast to `Decimal(38, scale)`.
            let input = self.boxed(inputs.first()?.node())?;
            let to = match u8::try_from(*scale) {
                Ok(scale) if scale <= 38 => GpuDtype::Decimal(38, scale),
                _ => return self.refuse(node, format!("str.to_decimal to scale {scale}")),
            };
            if !cast_supported(input.dtype, to) {
                let why = format!(
                    "str.to_decimal of {} is not supported on the GPU",
                    input.dtype
                );
                return self.refuse(node, why);
            }
            return Some(input.cast(to, CastMode::NonStrict));
        }
        let row_match = match function {
            S::StartsWith => Some(RowMatch::StartsWith),
            S::EndsWith => Some(RowMatch::EndsWith),
            S::Contains { literal: true, .. } => Some(RowMatch::Contains),
            S::Find { literal: true, .. } => Some(RowMatch::Find),
            _ => None,
        };
        if let (Some(how), [input, pattern]) = (row_match, inputs)
            && self.literal_str(pattern.node()).is_none()
            && !self.is_null_literal(pattern.node())
        {
            // A pattern per row: an expression of text.
            let (input, pattern) = (self.boxed(input.node()), self.boxed(pattern.node()));
            let (input, pattern) = (input?, pattern?);
            if pattern.dtype != GpuDtype::String {
                return self.refuse(node, format!("{function} of a {} pattern", pattern.dtype));
            }
            let dtype = match how {
                RowMatch::Find => GpuDtype::UInt32,
                _ => GpuDtype::Boolean,
            };
            return Some(GpuExpr {
                kind: ExprKind::MatchesRow {
                    how,
                    input,
                    pattern,
                },
                dtype,
            });
        }
        let input = self.boxed(inputs[0].node());
        let op = match function {
            S::Contains { literal, .. } => {
                let literal = *literal;
                let Some(pattern) = self.literal_str(inputs[1].node()) else {
                    return self.refuse(node, "str.contains needs a literal pattern on the GPU");
                };
                if literal {
                    StringOp::Contains(pattern)
                } else {
                    match regex_as_pattern(&pattern) {
                        Some(alternatives) => match alternatives.as_slice() {
                            [texts] if texts.len() == 1 => StringOp::Contains(texts[0].clone()),
                            _ => StringOp::ContainsPattern(alternatives),
                        },
                        None => match RegexDfa::cached(&pattern, false) {
                            Ok(dfa) => StringOp::ContainsRegex(dfa),
                            Err(why) => return self.refuse(node, why),
                        },
                    }
                }
            }
            S::Split(inclusive) => {
                let Some(separator) = self.literal_str(inputs[1].node()) else {
                    return self.refuse(node, format!("{function} needs a literal on the GPU"));
                };
                StringOp::Split {
                    separator,
                    inclusive: *inclusive,
                }
            }
            S::StartsWith | S::EndsWith => {
                let Some(text) = self.literal_str(inputs[1].node()) else {
                    return self.refuse(node, format!("{function} needs a literal on the GPU"));
                };
                if matches!(function, S::StartsWith) {
                    StringOp::StartsWith(text)
                } else {
                    StringOp::EndsWith(text)
                }
            }
            S::CountMatches(literal) | S::Find { literal, .. } => {
                let literal = *literal;
                let Some(pattern) = self.literal_str(inputs[1].node()) else {
                    return self.refuse(
                        node,
                        format!("{function} needs a literal pattern on the GPU"),
                    );
                };
                let pattern = match text_pattern(pattern, literal) {
                    Ok(pattern) => pattern,
                    Err(why) => return self.refuse(node, why),
                };
                if matches!(function, S::CountMatches(_)) {
                    StringOp::CountMatches(pattern)
                } else {
                    StringOp::Find(pattern)
                }
            }
            S::LenBytes => StringOp::LenBytes,
            S::LenChars => StringOp::LenChars,
            S::Uppercase => StringOp::ToUppercase,
            S::Lowercase => StringOp::ToLowercase,
            S::Slice => {
                let offset = self.literal_i64(inputs[1].node());
                let length = self.literal_optional_u64(inputs[2].node());
                match (offset, length) {
                    (Some(offset), Some(length)) => StringOp::Slice { offset, length },
                    _ => return self.slice_rows(node, ByRows::Slice, input, &inputs[1..3]),
                }
            }
            S::ConcatHorizontal {
                delimiter,
                ignore_nulls,
            } => {
                let (separator, ignore_nulls) = (delimiter.to_string(), *ignore_nulls);
                // The first input is lowered above already.
                let rest = self.inputs(&inputs[1..]);
                let inputs: Vec<GpuExpr> = std::iter::once(*input?).chain(rest?).collect();
                if let Some(other) = inputs.iter().find(|i| i.dtype != GpuDtype::String) {
                    return self.refuse(
                        node,
                        format!(
                            "concat_str of {} (not text) is not supported on the GPU",
                            other.dtype
                        ),
                    );
                }
                let kind = ExprKind::ConcatStr {
                    inputs,
                    separator,
                    ignore_nulls,
                };
                return Some(GpuExpr {
                    kind,
                    dtype: GpuDtype::String,
                });
            }
            S::Replace { n, literal } => {
                let (n, literal) = (*n, *literal);
                let pattern = self.literal_str(inputs[1].node());
                let value_node = inputs[2].node();
                let value_null = self.is_null_literal(value_node);
                let value = self.literal_str(value_node);
                let Some(pattern) = pattern else {
                    return self.refuse(node, "str.replace needs a literal pattern on the GPU");
                };
                if taken_literally(&pattern, literal) && pattern.is_empty() {
                    return self.refuse(node, "str.replace of an empty pattern");
                }
                if value_null && n >= 0 {
                    // Polars leaves the strings as they are.
                    return input.map(|input| *input);
                }
                let Some(value) = value else {
                    return self.refuse(node, "str.replace needs a literal value on the GPU");
                };
                let pattern = match text_pattern(pattern, literal) {
                    Ok(pattern) => pattern,
                    Err(why) => return self.refuse(node, why),
                };
                let limit = match (&pattern, n) {
                    (_, n) if n < 0 => None,
                    (TextPattern::Literal(_), _) => Some(n as u64),
                    // Polars replaces the first match of a regular
                    // expression for n = 0 too, and refuses n > 1.
                    (TextPattern::Regex(_), 0 | 1) => Some(1),
                    (TextPattern::Regex(_), _) => {
                        return self.refuse(node, "str.replace of a regex with n > 1");
                    }
                };
                match &pattern {
                    // The regex crate expands `$1`, `${name}` and `$$` in it.
                    TextPattern::Regex(dfa) if value.contains('$') => {
                        match replace_groups(dfa.pattern(), &value, limit) {
                            Ok(op) => op,
                            Err(why) => {
                                let subject = format!(
                                    "str.replace of {:?} by {value:?} (capture groups)",
                                    dfa.pattern()
                                );
                                return self.refuse(node, format!("{subject}: {why}"));
                            }
                        }
                    }
                    _ => StringOp::Replace {
                        pattern,
                        value,
                        limit,
                    },
                }
            }
            S::PadStart { .. } | S::PadEnd { .. } | S::ZFill => {
                let (side, fill) = match function {
                    S::PadStart { fill_char } => (PadSide::Start, *fill_char),
                    S::PadEnd { fill_char } => (PadSide::End, *fill_char),
                    _ => (PadSide::Zeros, '0'),
                };
                let length_node = inputs.get(1)?.node();
                if self.is_null_literal(length_node) {
                    // Polars gives null for a null length.
                    return Some(GpuExpr::literal(Scalar::Null, GpuDtype::String));
                }
                let length = self
                    .literal_i64(length_node)
                    .and_then(|l| u64::try_from(l).ok());
                let Some(length) = length else {
                    return self.pad_rows(node, ByRows::Pad { fill, side }, input, &inputs[1]);
                };
                StringOp::Pad { length, fill, side }
            }
            S::StripChars | S::StripCharsStart | S::StripCharsEnd => {
                let (start, end) = (
                    !matches!(function, S::StripCharsEnd),
                    !matches!(function, S::StripCharsStart),
                );
                // A null pattern (of any type) strips white space.
                let set = match self.is_null_literal(inputs[1].node()) {
                    true => None,
                    false => match self.literal_str(inputs[1].node()) {
                        Some(text) => Some(text.chars().collect()),
                        None => {
                            let how = ByRows::Strip { start, end };
                            return self.strip_rows(node, how, input, &inputs[1]);
                        }
                    },
                };
                StringOp::Strip { set, start, end }
            }
            S::Head | S::Tail => {
                // As slices: the first n characters, or the last n; a
                // negative count: all but the last (first) -n.
                let Some(count) = self.literal_i64(inputs[1].node()) else {
                    let how = match function {
                        S::Head => ByRows::Head,
                        _ => ByRows::Tail,
                    };
                    return self.slice_rows(node, how, input, &inputs[1..2]);
                };
                match (function, count) {
                    (S::Head, count) if count >= 0 => StringOp::Slice {
                        offset: 0,
                        length: Some(count as u64),
                    },
                    (S::Head, count) => StringOp::DropLast(count.unsigned_abs()),
                    (S::Tail, 0) => StringOp::Slice {
                        offset: 0,
                        length: Some(0),
                    },
                    (S::Tail, count) if count != i64::MIN => StringOp::Slice {
                        offset: -count,
                        length: None,
                    },
                    _ => {
                        return self.refuse(
                            node,
                            format!("{function} by {count} is not supported on the GPU"),
                        );
                    }
                }
            }
            S::StripPrefix | S::StripSuffix => {
                return self.strip_affix(node, inputs, matches!(function, S::StripPrefix));
            }
            S::Extract(group) => {
                let Some(pattern) = self.literal_str(inputs[1].node()) else {
                    return self.refuse(node, "str.extract needs a literal pattern on the GPU");
                };
                if !group_spans_match(&pattern, *group) {
                    match GroupDfas::new(&pattern, *group) {
                        Ok(dfas) => StringOp::ExtractGroup {
                            group: *group,
                            dfas,
                        },
                        Err(why) => {
                            let subject = format!("str.extract of group {group} of {pattern:?}");
                            return self.refuse(node, format!("{subject}: {why}"));
                        }
                    }
                } else {
                    match text_pattern(pattern, false) {
                        Ok(pattern) => StringOp::Extract(pattern),
                        Err(why) => return self.refuse(node, why),
                    }
                }
            }
            S::ExtractAll => {
                let Some(pattern) = self.literal_str(inputs[1].node()) else {
                    return self.refuse(node, "str.extract_all needs a literal pattern on the GPU");
                };
                match text_pattern(pattern, false) {
                    Ok(pattern) => StringOp::ExtractAll(pattern),
                    Err(why) => return self.refuse(node, why),
                }
            }
            S::Format { format, insertions } => {
                // Polars' `format`: the literal pieces and the values (cast
                // to text) one after another, null where any value is.
                let (format, insertions) = (format.to_string(), insertions.clone());
                let rest = self.inputs(&inputs[1..]);
                let values: Vec<GpuExpr> = std::iter::once(*input?).chain(rest?).collect();
                let text = |piece: &str| {
                    GpuExpr::literal(Scalar::String(piece.to_string()), GpuDtype::String)
                };
                let mut pieces = Vec::with_capacity(2 * values.len() + 1);
                let mut from = 0;
                for (value, &at) in values.into_iter().zip(insertions.iter()) {
                    pieces.push(text(format.get(from..at)?));
                    pieces.push(match value.dtype {
                        GpuDtype::String => value,
                        dtype if crate::lower_expr::cast_supported(dtype, GpuDtype::String) => {
                            value.cast(GpuDtype::String, CastMode::NonStrict)
                        }
                        dtype => {
                            return self.refuse(
                                node,
                                format!("format of {dtype} is not supported on the GPU"),
                            );
                        }
                    });
                    from = at;
                }
                pieces.push(text(format.get(from..)?));
                return Some(GpuExpr {
                    kind: ExprKind::ConcatStr {
                        inputs: pieces,
                        separator: String::new(),
                        ignore_nulls: false,
                    },
                    dtype: GpuDtype::String,
                });
            }
            S::ReplaceMany {
                ascii_case_insensitive,
                leftmost,
            } => {
                let input = *input?;
                let (patterns, values) = (inputs.get(1)?.node(), inputs.get(2)?.node());
                let how = (*leftmost, *ascii_case_insensitive);
                return self.replace_many(node, input, (patterns, values), how);
            }
            S::ContainsAny {
                ascii_case_insensitive,
            } => {
                let input = *input?;
                return self.contains_any(
                    node,
                    input,
                    inputs.get(1)?.node(),
                    *ascii_case_insensitive,
                );
            }
            S::Strptime(dtype, options) => {
                let format = match &options.format {
                    Some(format) => format!("the format {:?}", format.as_str()),
                    None => "an inferred format".to_string(),
                };
                let exact = if options.exact { "" } else { ", not exact," };
                return self.refuse(
                    node,
                    format!(
                        "parsing text as {dtype} in {format}{exact} is not supported on the GPU \
                         (it parses dates, timestamps without a zone and times of day, exactly, \
                         in formats of `%Y %m %d %H %M %S`, `%F %T`, `%.f` after the seconds \
                         and literal text, or inferred from texts of the form YYYY-MM-DD, \
                         YYYY-MM-DD HH:MM:SS or HH:MM:SS)"
                    ),
                );
            }
            S::SplitExact { .. }
            | S::SplitN(_)
            | S::SplitRegex { .. }
            | S::EscapeRegex
            | S::ToDecimal { .. } => {
                return self.refuse(
                    node,
                    format!("function {function} is not supported on the GPU"),
                );
            }
            // What Polars features this workspace does not enable add (a
            // crate depending on ours may enable them): refused the same way.
            #[allow(unreachable_patterns)]
            _ => {
                return self.refuse(
                    node,
                    format!("function {function} is not supported on the GPU"),
                );
            }
        };
        let kind = ExprKind::String { op, input: input? };
        let dtype = self.dtype(node)?;
        Some(GpuExpr { kind, dtype })
    }

    /// Polars' `str.contains_any(patterns)` of a literal list of texts:
    /// whether any pattern occurs in the text (null patterns skipped; an
    /// empty one occurs in every text, an empty list in none), as a choice
    /// of literal texts, or, with `ascii_case_insensitive`, a regular
    /// expression matching each ASCII letter in either case and every other
    /// character as itself (Polars' Aho-Corasick search folds ASCII only).
    fn contains_any(
        &mut self,
        node: Node,
        input: GpuExpr,
        patterns: Node,
        ascii_case_insensitive: bool,
    ) -> Lowered {
        let Some((patterns, GpuDtype::String)) = self.literal_list(patterns) else {
            return self.refuse(
                node,
                "str.contains_any needs a literal list of texts on the GPU",
            );
        };
        if input.dtype != GpuDtype::String {
            return self.refuse(node, format!("str.contains_any of {}", input.dtype));
        }
        let patterns: Vec<String> = patterns
            .into_iter()
            .filter_map(|pattern| match pattern {
                Scalar::String(text) => Some(text),
                _ => None,
            })
            .collect();
        let boolean = GpuDtype::Boolean;
        let op = if patterns.is_empty() {
            let never = GpuExpr::literal(Scalar::Boolean(false), boolean);
            let null = GpuExpr::literal(Scalar::Null, boolean);
            return Some(input.is_null().then(null, never, boolean));
        } else if patterns.iter().any(String::is_empty) {
            StringOp::Contains(String::new())
        } else if !ascii_case_insensitive {
            StringOp::ContainsPattern(patterns.into_iter().map(|text| vec![text]).collect())
        } else {
            let either_case = |text: &str| -> String {
                text.chars()
                    .map(|c| match c {
                        c if c.is_ascii_alphabetic() => {
                            format!("[{}{}]", c.to_ascii_lowercase(), c.to_ascii_uppercase())
                        }
                        c => regex_syntax::escape(c.encode_utf8(&mut [0; 4])),
                    })
                    .collect()
            };
            let alternatives: Vec<String> = patterns.iter().map(|text| either_case(text)).collect();
            match RegexDfa::cached(&alternatives.join("|"), false) {
                Ok(dfa) => StringOp::ContainsRegex(dfa),
                Err(why) => return self.refuse(node, why),
            }
        };
        Some(GpuExpr {
            kind: ExprKind::String {
                op,
                input: Box::new(input),
            },
            dtype: boolean,
        })
    }

    /// Polars' `str.replace_many(patterns, replace_with)` of literal lists
    /// of texts (one value for every pattern, or one each), as
    /// [`StringOp::ReplaceMany`]; empty or null patterns and values, and
    /// lists of other lengths (which Polars refuses), stay with Polars.
    fn replace_many(
        &mut self,
        node: Node,
        input: GpuExpr,
        (patterns, values): (Node, Node),
        (leftmost, ascii_case_insensitive): (bool, bool),
    ) -> Lowered {
        let texts = |list: Option<(Vec<Scalar>, GpuDtype)>| -> Option<Vec<String>> {
            let (list, GpuDtype::String) = list? else {
                return None;
            };
            list.into_iter()
                .map(|text| match text {
                    Scalar::String(text) => Some(text),
                    _ => None,
                })
                .collect()
        };
        let (Some(patterns), Some(mut values)) = (
            texts(self.literal_list(patterns)),
            texts(self.literal_list(values)),
        ) else {
            return self.refuse(
                node,
                "str.replace_many needs literal lists of texts (none null) on the GPU",
            );
        };
        if input.dtype != GpuDtype::String {
            return self.refuse(
                node,
                format!(
                    "str.replace_many of {} is not supported on the GPU",
                    input.dtype
                ),
            );
        }
        if values.len() == 1 && patterns.len() > 1 {
            values = vec![values[0].clone(); patterns.len()];
        }
        if patterns.is_empty() || patterns.len() != values.len() {
            return self.refuse(
                node,
                "str.replace_many of no patterns, or of more or fewer values than patterns, is \
                 not supported on the GPU",
            );
        }
        if patterns.iter().any(String::is_empty) {
            return self.refuse(
                node,
                "str.replace_many of an empty pattern is not supported on the GPU",
            );
        }
        Some(GpuExpr {
            kind: ExprKind::String {
                op: StringOp::ReplaceMany {
                    patterns,
                    values,
                    leftmost,
                    ascii_case_insensitive,
                },
                input: Box::new(input),
            },
            dtype: GpuDtype::String,
        })
    }

    /// `str.split_exact(by, n)` (`fields` = n + 1 of the pieces by place,
    /// `inclusive`: each piece with its separator) or `str.splitn(by, n)`
    /// (`fields` = n, the `rest` of the text in the last) of a literal
    /// separator, as Polars makes them: a struct (never null) of the split's
    /// pieces by place (`list.get`, null past the last piece); `splitn`'s
    /// last field the pieces from its place on joined by the separator
    /// again, null where the text has fewer pieces (an empty separator
    /// splits into characters, as `str.split` does). A null text's fields
    /// are all null.
    fn split_to_struct(
        &mut self,
        node: Node,
        inputs: &[ExprIR],
        (fields, inclusive, rest): (usize, bool, bool),
    ) -> Lowered {
        let input = self.expr(inputs.first()?.node());
        let separator = self.literal_str(inputs.get(1)?.node());
        let input = input?;
        let Some(separator) = separator else {
            return self.refuse(
                node,
                "a split into a struct needs a literal separator on the GPU",
            );
        };
        let dtype = self.dtype(node)?;
        let Some(last) = i64::try_from(fields)
            .ok()
            .and_then(|fields| fields.checked_sub(1))
        else {
            return self.refuse(node, format!("a split into {fields} fields"));
        };
        let (text, places) = (GpuDtype::String, GpuDtype::Int64);
        if rest && last == 0 {
            // The whole text (but null for an empty one, which has no
            // characters, where the separator is empty).
            let whole = if separator.is_empty() {
                let bytes = GpuExpr {
                    kind: ExprKind::String {
                        op: StringOp::LenBytes,
                        input: Box::new(input.clone()),
                    },
                    dtype: GpuDtype::UInt32,
                };
                let zero = GpuExpr::literal(Scalar::UInt(0), GpuDtype::UInt32);
                let null = GpuExpr::literal(Scalar::Null, text);
                bytes
                    .binary(BinaryOp::Gt, zero, GpuDtype::Boolean)
                    .then(input, null, text)
            } else {
                input
            };
            return Some(GpuExpr {
                kind: ExprKind::MakeStruct(vec![whole]),
                dtype,
            });
        }
        let pieces = GpuExpr {
            kind: ExprKind::String {
                op: StringOp::Split {
                    separator: separator.clone(),
                    inclusive,
                },
                input: Box::new(input),
            },
            dtype: GpuDtype::list_of(text),
        };
        let of_pieces = |function, dtype| GpuExpr {
            kind: ExprKind::List {
                function,
                input: Box::new(pieces.clone()),
            },
            dtype,
        };
        let piece = |index| {
            let null_on_oob = true;
            of_pieces(ListFunction::Get { index, null_on_oob }, text)
        };
        let mut made: Vec<GpuExpr> = (0..last).map(piece).collect();
        made.push(if rest && last > 0 {
            let from_last = place_from_zero().binary(
                BinaryOp::GtEq,
                GpuExpr::literal(Scalar::Int(last), places),
                GpuDtype::Boolean,
            );
            let kept = ListFunction::Keep {
                what: "slice",
                by: Box::new(from_last),
            };
            let joined = GpuExpr {
                kind: ExprKind::List {
                    function: ListFunction::Aggregate(AggOp::Join {
                        separator,
                        ignore_nulls: false,
                    }),
                    input: Box::new(of_pieces(kept, pieces.dtype)),
                },
                dtype: text,
            };
            let enough = of_pieces(ListFunction::Len, GpuDtype::UInt32).binary(
                BinaryOp::Gt,
                GpuExpr::literal(Scalar::UInt(last as u64), GpuDtype::UInt32),
                GpuDtype::Boolean,
            );
            enough.then(joined, GpuExpr::literal(Scalar::Null, text), text)
        } else {
            piece(last)
        });
        Some(GpuExpr {
            kind: ExprKind::MakeStruct(made),
            dtype,
        })
    }

    /// `str.strip_prefix` (`prefix`) or `str.strip_suffix` of a literal
    /// text: where the text starts (ends) with it, the text without its
    /// characters; else the text (null stays null).
    pub(crate) fn strip_affix(&mut self, node: Node, inputs: &[ExprIR], prefix: bool) -> Lowered {
        let input = self.expr(inputs.first()?.node());
        let affix = self.literal_str(inputs.get(1)?.node());
        let input = input?;
        let Some(affix) = affix else {
            return self.strip_affix_of_rows(node, input, &inputs[1], prefix);
        };
        let chars = affix.chars().count() as u64;
        let text = GpuDtype::String;
        let string = |op, input: GpuExpr, dtype| GpuExpr {
            kind: ExprKind::String {
                op,
                input: Box::new(input),
            },
            dtype,
        };
        let (test, stripped) = if prefix {
            let from = i64::try_from(chars).unwrap_or(i64::MAX);
            (
                StringOp::StartsWith(affix),
                StringOp::Slice {
                    offset: from,
                    length: None,
                },
            )
        } else {
            (StringOp::EndsWith(affix), StringOp::DropLast(chars))
        };
        let has = string(test, input.clone(), GpuDtype::Boolean);
        Some(has.then(string(stripped, input.clone(), text), input, text))
    }

    /// `str.strip_prefix` (`prefix`) or `str.strip_suffix` of each row's
    /// text `affix`: where the text starts (ends) with it, its characters
    /// after (before) it, a slice by its length in characters; else the
    /// text; null where either is.
    fn strip_affix_of_rows(
        &mut self,
        node: Node,
        input: GpuExpr,
        affix: &ExprIR,
        prefix: bool,
    ) -> Lowered {
        let affix = self.expr(affix.node())?;
        let name = if prefix {
            "strip_prefix"
        } else {
            "strip_suffix"
        };
        if affix.dtype != GpuDtype::String {
            let why = format!(
                "str.{name} of a {} affix is not supported on the GPU",
                affix.dtype
            );
            return self.refuse(node, why);
        }
        let (text, int) = (GpuDtype::String, GpuDtype::Int64);
        let chars = |of: &GpuExpr| {
            let length = GpuExpr {
                kind: ExprKind::String {
                    op: StringOp::LenChars,
                    input: Box::new(of.clone()),
                },
                dtype: GpuDtype::UInt32,
            };
            length.cast(int, CastMode::NonStrict)
        };
        let to_end = || GpuExpr::literal(Scalar::UInt(u64::MAX), GpuDtype::UInt64);
        // Where the affix is null, the test holds and the slice is null.
        let (how, by, length) = if prefix {
            (RowMatch::StartsWith, chars(&affix), to_end())
        } else {
            // (Negative where the text does not end with the affix: not read.)
            let kept = chars(&input).binary(BinaryOp::Minus, chars(&affix), int);
            let length = kept
                .cast(GpuDtype::UInt64, CastMode::NonStrict)
                .fill_null(to_end());
            let null = GpuExpr::literal(Scalar::Null, int);
            let zero = GpuExpr::literal(Scalar::Int(0), int);
            (
                RowMatch::EndsWith,
                affix.clone().is_null().then(null, zero, int),
                length,
            )
        };
        let has = GpuExpr {
            kind: ExprKind::MatchesRow {
                how,
                input: Box::new(input.clone()),
                pattern: Box::new(affix),
            },
            dtype: GpuDtype::Boolean,
        };
        let stripped = GpuExpr::by_rows(ByRows::Slice, Box::new(input.clone()), by, Some(length));
        let yes = GpuExpr::literal(Scalar::Boolean(true), GpuDtype::Boolean);
        Some(has.fill_null(yes).then(stripped, input, text))
    }

    /// A strip (`how`) of `input` by the characters of each row's text
    /// `set` (white space where it is null, as Polars strips).
    fn strip_rows(
        &mut self,
        node: Node,
        how: ByRows,
        input: Option<Box<GpuExpr>>,
        set: &ExprIR,
    ) -> Lowered {
        let set = self.expr(set.node());
        let (input, set) = (input?, set?);
        if set.dtype != GpuDtype::String {
            let why = format!(
                "{} of the characters of a {} is not supported on the GPU",
                how.name(),
                set.dtype
            );
            return self.refuse(node, why);
        }
        Some(GpuExpr::by_rows(how, input, set, None))
    }

    /// A padding (`how`) of `input` to each row's `length` (Polars' plan
    /// casts it to u64 strictly): null where the length is.
    fn pad_rows(
        &mut self,
        node: Node,
        how: ByRows,
        input: Option<Box<GpuExpr>>,
        length: &ExprIR,
    ) -> Lowered {
        let length = self.expr(length.node());
        let (input, length) = (input?, length?);
        let (text, u64) = (GpuDtype::String, GpuDtype::UInt64);
        let length = match length.dtype {
            dtype if dtype == u64 => length,
            dtype if dtype.is_integer() => length.cast(u64, CastMode::Strict),
            dtype => {
                let why = format!(
                    "{} to a length of {dtype} is not supported on the GPU",
                    how.name()
                );
                return self.refuse(node, why);
            }
        };
        let zero = GpuExpr::literal(Scalar::UInt(0), u64);
        let padded = GpuExpr::by_rows(how, input, length.clone().fill_null(zero), None);
        let null = GpuExpr::literal(Scalar::Null, text);
        Some(length.is_null().then(null, padded, text))
    }

    /// `str.slice` (by an offset and a length), `str.head` or `str.tail`
    /// (by a count) of `input` where a bound is not a literal: by each
    /// row's. As Polars takes them, an offset is cast to i64 (null where it
    /// does not fit, which gives null), a count to i64 and a length to u64
    /// strictly (where one does not fit, or a length is negative, Polars
    /// raises), a null length is to the end; bounds of integers only.
    fn slice_rows(
        &mut self,
        node: Node,
        how: ByRows,
        input: Option<Box<GpuExpr>>,
        bounds: &[ExprIR],
    ) -> Lowered {
        // A count or a length of one value Polars casts strictly once,
        // whatever the rows (none too): a literal's cast is checked here;
        // another's stays with Polars.
        for (i, bound) in bounds.iter().enumerate() {
            let strict = (how == ByRows::Slice) == (i == 1);
            if !strict || !polars_plan::plans::is_scalar_ae(bound.node(), self.arena) {
                continue;
            }
            let fits = match self.literal_value(bound.node()) {
                Some(AnyValue::Null) => true,
                Some(value) if i == 1 => value.extract::<u64>().is_some(),
                Some(value) => value.extract::<i64>().is_some(),
                None => false,
            };
            if !fits {
                let why = format!(
                    "{} by a count or length of one value that Polars' strict cast fails on, or \
                     that is not a literal (Polars casts it once, whatever the rows)",
                    how.name()
                );
                return self.refuse(node, why);
            }
        }
        let bounds = self.inputs(bounds);
        let (input, bounds) = (input?, bounds?);
        if let Some(other) = bounds
            .iter()
            .find(|b| !b.dtype.is_integer() && b.dtype != GpuDtype::Null)
        {
            let why = format!(
                "{} by bounds of {} is not supported on the GPU (only integers)",
                how.name(),
                other.dtype
            );
            return self.refuse(node, why);
        }
        let as_type = |bound: GpuExpr, dtype: GpuDtype, mode: CastMode| match bound.dtype {
            GpuDtype::Null => bound.nulls_as(dtype),
            held if held == dtype => bound,
            _ => bound.cast(dtype, mode),
        };
        let mut bounds = bounds.into_iter();
        let by = bounds.next()?;
        let by = match how {
            ByRows::Slice => as_type(by, GpuDtype::Int64, CastMode::NonStrict),
            _ => as_type(by, GpuDtype::Int64, CastMode::Strict),
        };
        let length = bounds.next().map(|length| {
            let to_end = GpuExpr::literal(Scalar::UInt(u64::MAX), GpuDtype::UInt64);
            as_type(length, GpuDtype::UInt64, CastMode::Strict).fill_null(to_end)
        });
        Some(GpuExpr::by_rows(how, input, by, length))
    }
}

#[cfg(test)]
mod tests {
    use super::regex_as_pattern;

    fn texts(alternatives: &[&[&str]]) -> Option<Vec<Vec<String>>> {
        Some(
            alternatives
                .iter()
                .map(|a| a.iter().map(|t| t.to_string()).collect())
                .collect(),
        )
    }

    #[test]
    fn restricted_patterns_become_texts() {
        assert_eq!(regex_as_pattern("green"), texts(&[&["green"]]));
        assert_eq!(regex_as_pattern("PROMO*"), texts(&[&["PROM"]]));
        assert_eq!(
            regex_as_pattern(".*Customer.*Complaints.*"),
            texts(&[&["Customer", "Complaints"]])
        );
        assert_eq!(regex_as_pattern("ab*.*c"), texts(&[&["a", "c"]]));
        assert_eq!(regex_as_pattern("13|31"), texts(&[&["13"], &["31"]]));
    }

    #[test]
    fn anything_else_is_refused() {
        for pattern in [
            "", "a*", ".*", "^abc", "abc$", "a.b", "a+b", "ab*c", "a\\.b", "[ab]", "(a)", "a|",
            "a?", "a{2}", "\\*",
        ] {
            assert_eq!(regex_as_pattern(pattern), None, "{pattern:?}");
        }
    }
}
