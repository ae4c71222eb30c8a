//! Predicates: the boolean masks the predicate kernels make (comparisons, text matches, memberships of text).

use super::*;

/// Whether `expr` is the byte or character length of a text column, the
/// number or first offset of matches of a literal text in it, or the first
/// offset of each row's text in it (a part the string kernels compute for
/// the evaluator).
pub(crate) fn is_text_measure(expr: &GpuExpr) -> bool {
    if let ExprKind::MatchesRow {
        how: RowMatch::Find,
        input,
        pattern,
    } = &expr.kind
    {
        // Where each row's pattern first occurs in its text.
        return [input, pattern]
            .iter()
            .all(|text| text.dtype == GpuDtype::String && string_valued(text).is_ok());
    }
    matches!(
        &expr.kind,
        ExprKind::String {
            op: StringOp::LenBytes
                | StringOp::LenChars
                | StringOp::CountMatches(_)
                | StringOp::Find(_),
            input,
        } if input.dtype == GpuDtype::String && string_valued(input).is_ok()
    ) && expr.dtype == GpuDtype::UInt32
}

/// A predicate the predicate kernels run once its text operands, of which
/// at least one is text the device makes (not a column), are made: those
/// operands, and the predicate reading them as the columns of a frame of
/// their own (in order).
pub(crate) fn computed_text_predicate(expr: &GpuExpr) -> Option<(Vec<&GpuExpr>, GpuExpr)> {
    let text = |e: &GpuExpr| e.dtype == GpuDtype::String && !is_literal(e);
    let texts: Vec<&GpuExpr> = match &expr.kind {
        ExprKind::String { input, .. }
        | ExprKind::IsIn { input, .. }
        | ExprKind::IsNull(input)
        | ExprKind::IsNotNull(input) => vec![input],
        ExprKind::Binary { left, right, .. } => [&**left, &**right]
            .into_iter()
            .filter(|e| text(e))
            .collect(),
        ExprKind::MatchesRow { input, pattern, .. } => vec![input, pattern],
        _ => return None,
    };
    let computed = |e: &GpuExpr| !is_column(e);
    if texts.is_empty()
        || !texts.iter().any(|e| computed(e))
        || texts.iter().any(|e| string_valued(e).is_err())
    {
        return None;
    }
    let column = |index| column_ref(index, GpuDtype::String);
    let mut rewritten = expr.clone();
    match &mut rewritten.kind {
        ExprKind::String { input, .. }
        | ExprKind::IsIn { input, .. }
        | ExprKind::IsNull(input)
        | ExprKind::IsNotNull(input) => **input = column(0),
        ExprKind::MatchesRow { input, pattern, .. } => {
            **input = column(0);
            **pattern = column(1);
        }
        ExprKind::Binary { left, right, .. } => {
            let mut next = 0;
            for side in [left, right] {
                if text(side) {
                    **side = column(next);
                    next += 1;
                }
            }
        }
        _ => return None,
    }
    predicate_supported(&rewritten).then_some((texts, rewritten))
}

pub(crate) fn comparison(op: BinaryOp) -> Option<Comparison> {
    Some(match op {
        BinaryOp::Eq => Comparison::Eq,
        BinaryOp::NotEq => Comparison::NotEq,
        BinaryOp::Lt => Comparison::Lt,
        BinaryOp::LtEq => Comparison::LtEq,
        BinaryOp::Gt => Comparison::Gt,
        BinaryOp::GtEq => Comparison::GtEq,
        _ => return None,
    })
}

/// `b op a` as `a op' b`.
pub(crate) fn mirrored(op: Comparison) -> Comparison {
    match op {
        Comparison::Lt => Comparison::Gt,
        Comparison::LtEq => Comparison::GtEq,
        Comparison::Gt => Comparison::Lt,
        Comparison::GtEq => Comparison::LtEq,
        other => other,
    }
}

/// A boolean column: bits and validity, owned or borrowed from a frame.
pub(crate) enum Mask<'a> {
    Borrowed(&'a DeviceBuffer<u32>, Option<&'a DeviceBuffer<u32>>),
    Owned(DeviceBuffer<u32>, Option<DeviceBuffer<u32>>),
}

impl Mask<'_> {
    pub(crate) fn parts(&self) -> (&DeviceBuffer<u32>, Option<&DeviceBuffer<u32>>) {
        match self {
            Mask::Borrowed(bits, validity) => (bits, *validity),
            Mask::Owned(bits, validity) => (bits, validity.as_ref()),
        }
    }
}

impl Executor<'_> {
    /// Evaluates a boolean expression over `frame` (see `predicate_supported`).
    pub(crate) fn predicate<'f>(
        &self,
        frame: &'f DeviceFrame,
        expr: &GpuExpr,
    ) -> Result<Mask<'f>, ExecError> {
        let n = frame.height;
        let ops = self.ops();
        match &expr.kind {
            ExprKind::Column { index, .. } => {
                let column = column_at(frame, *index)?;
                match column.values() {
                    Values::Bits(bits) => Ok(Mask::Borrowed(bits, column.validity())),
                    _ => Err(ExecError::Unsupported(format!("`{expr}` is not boolean"))),
                }
            }
            ExprKind::Binary {
                op: op @ (BinaryOp::And | BinaryOp::Or),
                left,
                right,
            } => {
                let (left, right) = (self.predicate(frame, left)?, self.predicate(frame, right)?);
                let logic = if *op == BinaryOp::And {
                    Logic::And
                } else {
                    Logic::Or
                };
                let (bits, valid) = ops.kleene(left.parts(), right.parts(), n, logic)?;
                Ok(Mask::Owned(bits, Some(valid)))
            }
            ExprKind::Binary {
                op: op @ (BinaryOp::Eq | BinaryOp::NotEq),
                left,
                right,
            } if left.dtype == GpuDtype::String && (is_literal(left) || is_literal(right)) => {
                let (column, literal) = if is_column(left) {
                    (left, right)
                } else {
                    (right, left)
                };
                let ExprKind::Literal(value) = &literal.kind else {
                    return Err(ExecError::Unsupported(not_yet(format_args!("`{expr}`"))));
                };
                let (bits, valid) = self.string_match(frame, column, value, StringMatch::Equals)?;
                let bits = if *op == BinaryOp::NotEq {
                    ops.bits_not(&bits, n)?
                } else {
                    bits
                };
                Ok(Mask::Owned(bits, Some(valid)))
            }
            ExprKind::Binary { op, left, right } if left.dtype == GpuDtype::String => {
                // Column against column, or against a literal (on either
                // side: the comparison mirrored), in Rust's `str` order.
                let op = comparison(*op)
                    .ok_or_else(|| ExecError::Unsupported(not_yet(format_args!("`{expr}`"))))?;
                let (a, b, op) = if is_column(left) {
                    (left, right, op)
                } else {
                    (right, left, mirrored(op))
                };
                let (a_column, a_offsets, a_bytes) = text_column(frame, a)?;
                let a = (a_offsets, a_bytes, a_column.validity());
                let (bits, valid) = match &b.kind {
                    ExprKind::Literal(value) => {
                        let text = self.text_literal(value)?;
                        let b = (&text.offsets, &text.bytes, Some(&text.validity));
                        ops.string_compare(a, b, true, op)?
                    }
                    _ => {
                        let (b_column, b_offsets, b_bytes) = text_column(frame, b)?;
                        ops.string_compare(a, (b_offsets, b_bytes, b_column.validity()), false, op)?
                    }
                };
                Ok(Mask::Owned(bits, Some(valid)))
            }
            ExprKind::String {
                op: StringOp::ContainsPattern(alternatives),
                input,
            } => {
                let (column, offsets, bytes) = text_column(frame, input)?;
                let (bits, valid) =
                    ops.string_match_sequence(offsets, bytes, column.validity(), alternatives)?;
                Ok(Mask::Owned(bits, Some(valid)))
            }
            ExprKind::String {
                op: StringOp::ContainsRegex(dfa),
                input,
            } => {
                let (column, offsets, bytes) = text_column(frame, input)?;
                let strings = (offsets, bytes, column.validity());
                let (bits, valid) = ops.string_match_dfa(strings, dfa_tables(dfa))?;
                Ok(Mask::Owned(bits, Some(valid)))
            }
            ExprKind::String { op, input } => {
                let (text, how) = match op {
                    StringOp::StartsWith(text) => (text, StringMatch::StartsWith),
                    StringOp::EndsWith(text) => (text, StringMatch::EndsWith),
                    StringOp::Contains(text) => (text, StringMatch::Contains),
                    _ => return Err(ExecError::Unsupported(not_yet(format_args!("`{expr}`")))),
                };
                let (bits, valid) =
                    self.string_match(frame, input, &Scalar::String(text.clone()), how)?;
                Ok(Mask::Owned(bits, Some(valid)))
            }
            ExprKind::IsBetween {
                input,
                lower,
                upper,
                closed,
            } => {
                let column = column_at(frame, column_index(input)?)?;
                let (low_op, high_op) = match closed {
                    Closed::Both => (Comparison::GtEq, Comparison::LtEq),
                    Closed::Left => (Comparison::GtEq, Comparison::Lt),
                    Closed::Right => (Comparison::Gt, Comparison::LtEq),
                    Closed::None => (Comparison::Gt, Comparison::Lt),
                };
                let (ExprKind::Literal(low), ExprKind::Literal(high)) = (&lower.kind, &upper.kind)
                else {
                    return Err(ExecError::Unsupported(not_yet(format_args!("`{expr}`"))));
                };
                let above = self.compare_scalar(column, low, n, low_op)?;
                let below = self.compare_scalar(column, high, n, high_op)?;
                let (bits, valid) = ops.kleene(
                    (&above.0, Some(&above.1)),
                    (&below.0, Some(&below.1)),
                    n,
                    Logic::And,
                )?;
                Ok(Mask::Owned(bits, Some(valid)))
            }
            ExprKind::MatchesRow {
                how,
                input,
                pattern,
            } => {
                let how = match how {
                    RowMatch::StartsWith => StringMatch::StartsWith,
                    RowMatch::EndsWith => StringMatch::EndsWith,
                    RowMatch::Contains => StringMatch::Contains,
                    RowMatch::Find => {
                        let why = format!("`{expr}` is a place, not a predicate");
                        return Err(ExecError::Unsupported(why));
                    }
                };
                let (mut a, mut b) = (None, None);
                let texts = self.strings_of(frame, input, &mut a, None)?;
                let patterns = self.strings_of(frame, pattern, &mut b, None)?;
                let (bits, valid) = ops.string_match_rows(texts, patterns, how)?;
                Ok(Mask::Owned(bits, Some(valid)))
            }
            ExprKind::IsIn { input, values, .. } => {
                let column = column_at(frame, column_index(input)?)?;
                let mut result: Option<(DeviceBuffer<u32>, DeviceBuffer<u32>)> = None;
                for value in values {
                    let equal = if input.dtype == GpuDtype::String {
                        self.string_match(frame, input, value, StringMatch::Equals)?
                    } else {
                        self.compare_scalar(column, value, n, Comparison::Eq)?
                    };
                    result = Some(match result {
                        None => equal,
                        Some(acc) => ops.kleene(
                            (&acc.0, Some(&acc.1)),
                            (&equal.0, Some(&equal.1)),
                            n,
                            Logic::Or,
                        )?,
                    });
                }
                let (bits, valid) = result
                    .ok_or_else(|| ExecError::Unsupported(not_yet("is_in with an empty list")))?;
                Ok(Mask::Owned(bits, Some(valid)))
            }
            ExprKind::Binary { op, left, right } => {
                let op = comparison(*op)
                    .ok_or_else(|| ExecError::Unsupported(not_yet(format_args!("`{expr}`"))))?;
                let (column, other, op) = match (&left.kind, &right.kind) {
                    (ExprKind::Column { .. }, _) => (left, right, op),
                    _ => (right, left, mirrored(op)),
                };
                let ExprKind::Column { index, .. } = column.kind else {
                    return Err(ExecError::Unsupported(not_yet(format_args!("`{expr}`"))));
                };
                let column = column_at(frame, index)?;
                let (bits, valid) = match &other.kind {
                    ExprKind::Column { index, .. } => {
                        self.compare_columns(column, column_at(frame, *index)?, n, op)?
                    }
                    ExprKind::Literal(value) => self.compare_scalar(column, value, n, op)?,
                    _ => return Err(ExecError::Unsupported(not_yet(format_args!("`{expr}`")))),
                };
                Ok(Mask::Owned(bits, Some(valid)))
            }
            ExprKind::Not(input) => {
                let inner = self.predicate(frame, input)?;
                let (bits, validity) = inner.parts();
                let negated = ops.bits_not(bits, n)?;
                let validity = match validity {
                    Some(v) => Some(ops.bits_not(&ops.bits_not(v, n)?, n)?),
                    None => None,
                };
                Ok(Mask::Owned(negated, validity))
            }
            ExprKind::IsNull(input) | ExprKind::IsNotNull(input) => {
                let ExprKind::Column { index, .. } = input.kind else {
                    return Err(ExecError::Unsupported(not_yet(format_args!("`{expr}`"))));
                };
                let column = column_at(frame, index)?;
                let valid = match column.validity() {
                    Some(v) => ops.bits_not(&ops.bits_not(v, n)?, n)?,
                    None => ops.bits_not(
                        &DeviceBuffer::zeroed(
                            n.div_ceil(32),
                            self.ctx.memory.clone(),
                            &self.ctx.stream,
                        )?,
                        n,
                    )?,
                };
                let bits = if matches!(expr.kind, ExprKind::IsNull(_)) {
                    ops.bits_not(&valid, n)?
                } else {
                    valid
                };
                Ok(Mask::Owned(bits, None))
            }
            _ => Err(ExecError::Unsupported(not_yet(format_args!("`{expr}`")))),
        }
    }

    /// A string column (`column` must be a column reference) against a literal.
    pub(crate) fn string_match(
        &self,
        frame: &DeviceFrame,
        column: &GpuExpr,
        value: &Scalar,
        how: StringMatch,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), ExecError> {
        let (column, offsets, bytes) = text_column(frame, column)?;
        match value {
            Scalar::String(text) => Ok(self.ops().string_match(
                offsets,
                bytes,
                column.validity(),
                text.as_bytes(),
                how,
            )?),
            // A null literal: every row is null (and false).
            Scalar::Null => {
                let words = column.len().div_ceil(32);
                let zeros =
                    || DeviceBuffer::zeroed(words, self.ctx.memory.clone(), &self.ctx.stream);
                Ok((zeros()?, zeros()?))
            }
            other => Err(ExecError::Unsupported(format!(
                "matching text with the literal {other}"
            ))),
        }
    }

    pub(crate) fn compare_columns(
        &self,
        a: &DeviceColumn,
        b: &DeviceColumn,
        n: usize,
        op: Comparison,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), ExecError> {
        let ops = self.ops();
        let (av, bv) = (a.validity(), b.validity());
        Ok(match (a.values(), b.values()) {
            (Values::I32(x), Values::I32(y)) => ops.compare(x, av, y, bv, false, n, op)?,
            (Values::I64(x), Values::I64(y)) => ops.compare(x, av, y, bv, false, n, op)?,
            (Values::U32(x), Values::U32(y)) => ops.compare(x, av, y, bv, false, n, op)?,
            (Values::U64(x), Values::U64(y)) => ops.compare(x, av, y, bv, false, n, op)?,
            (Values::F64(x), Values::F64(y)) => ops.compare(x, av, y, bv, false, n, op)?,
            (
                Values::Str { offsets, bytes },
                Values::Str {
                    offsets: b_offsets,
                    bytes: b_bytes,
                },
            ) => ops.string_compare((offsets, bytes, av), (b_offsets, b_bytes, bv), false, op)?,
            _ => {
                return Err(ExecError::Unsupported(format!(
                    "comparing {} with {}",
                    a.dtype, b.dtype
                )));
            }
        })
    }

    pub(crate) fn compare_scalar(
        &self,
        a: &DeviceColumn,
        value: &Scalar,
        n: usize,
        op: Comparison,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), ExecError> {
        let ops = self.ops();
        let (memory, stream) = (self.ctx.memory.clone(), &self.ctx.stream);
        // A null literal: every comparison is null.
        let null = matches!(value, Scalar::Null);
        let validity = DeviceBuffer::from_host(&[u32::from(!null)], memory.clone(), stream)?;
        let av = a.validity();
        let bv = Some(&validity);
        let int = |v: &Scalar| -> Option<i128> {
            match v {
                Scalar::Int(x) | Scalar::Datetime(x) | Scalar::Duration(x) | Scalar::Time(x) => {
                    Some(i128::from(*x))
                }
                Scalar::UInt(x) => Some(i128::from(*x)),
                Scalar::Date(x) => Some(i128::from(*x)),
                Scalar::Null => Some(0),
                _ => None,
            }
        };
        let mismatch =
            || ExecError::Unsupported(format!("comparing {} with the literal {value}", a.dtype));
        macro_rules! scalar {
            ($t:ty, $x:expr) => {{
                let literal: $t = int(value)
                    .and_then(|v| <$t>::try_from(v).ok())
                    .ok_or_else(mismatch)?;
                let b = DeviceBuffer::from_host(&[literal], memory.clone(), stream)?;
                ops.compare($x, av, &b, bv, true, n, op)?
            }};
        }
        Ok(match a.values() {
            Values::I32(x) => scalar!(i32, x),
            Values::I64(x) => scalar!(i64, x),
            Values::U32(x) => scalar!(u32, x),
            Values::U64(x) => scalar!(u64, x),
            Values::F64(x) => {
                let literal = match value {
                    Scalar::Float(f) => *f,
                    Scalar::Null => 0.0,
                    other => int(other).map(|v| v as f64).ok_or_else(mismatch)?,
                };
                let b = DeviceBuffer::from_host(&[literal], memory.clone(), stream)?;
                ops.compare(x, av, &b, bv, true, n, op)?
            }
            _ => return Err(mismatch()),
        })
    }
}
