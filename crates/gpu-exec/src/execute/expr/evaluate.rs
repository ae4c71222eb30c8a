//! Evaluation of expressions: the fused evaluator over a frame, per group, and the parts other kernels compute.

use super::*;

/// Groups to compute in, where there are: the rows sorted by group and the
/// groups' first positions in that order (see [`Executor::groups`]).
pub(crate) type InGroups<'a> = Option<(&'a DeviceBuffer<i64>, &'a DeviceBuffer<i64>)>;

/// The least and the greatest value of an integer type.
pub(crate) fn integer_bounds(dtype: GpuDtype) -> Option<(i64, u64)> {
    Some(match dtype {
        GpuDtype::Int8 => (i8::MIN.into(), i8::MAX as u64),
        GpuDtype::Int16 => (i16::MIN.into(), i16::MAX as u64),
        GpuDtype::Int32 => (i32::MIN.into(), i32::MAX as u64),
        GpuDtype::Int64 => (i64::MIN, i64::MAX as u64),
        GpuDtype::UInt8 => (0, u8::MAX.into()),
        GpuDtype::UInt16 => (0, u16::MAX.into()),
        GpuDtype::UInt32 => (0, u32::MAX.into()),
        GpuDtype::UInt64 => (0, u64::MAX),
        _ => return None,
    })
}

/// A check of a `PolarsOwnWhere`: where `test` holds at a row (or, with
/// `no_rows`, the frame has none), the answer is Polars' own, for `why`.
pub(crate) struct PolarsOwnCheck {
    pub(crate) test: GpuExpr,
    pub(crate) no_rows: bool,
    pub(crate) why: String,
}

/// `expr` with each `PolarsOwnWhere` in it replaced by its input, and
/// their checks; `None` where it has none.
pub(crate) fn without_polars_own(expr: &GpuExpr) -> Option<(GpuExpr, Vec<PolarsOwnCheck>)> {
    fn strip(expr: &mut GpuExpr, checks: &mut Vec<PolarsOwnCheck>) {
        while let ExprKind::PolarsOwnWhere {
            input,
            polars_own,
            no_rows,
            why,
            ..
        } = &mut expr.kind
        {
            let nothing = |dtype| GpuExpr::literal(Scalar::Null, dtype);
            checks.push(PolarsOwnCheck {
                test: std::mem::replace(polars_own.as_mut(), nothing(GpuDtype::Boolean)),
                no_rows: *no_rows,
                why: std::mem::take(why),
            });
            let input = std::mem::replace(input.as_mut(), nothing(GpuDtype::Null));
            *expr = input;
        }
        for child in expr.children_mut() {
            strip(child, checks);
        }
    }
    if !expr.any(&|e| matches!(e.kind, ExprKind::PolarsOwnWhere { .. })) {
        return None;
    }
    let mut stripped = expr.clone();
    let mut checks = Vec::new();
    strip(&mut stripped, &mut checks);
    Some((stripped, checks))
}

/// Column `index` (of a frame made for the purpose), unnamed, of `dtype`.
pub(crate) fn column_ref(index: usize, dtype: GpuDtype) -> GpuExpr {
    GpuExpr::column(index, String::new(), dtype)
}

/// `expr` with each part the evaluator cannot run but other kernels can
/// (boolean parts the predicate kernels run, lengths of text, windows), reading
/// only the frame's `width` columns, replaced by a column, the i-th by
/// column `first + i`, and those parts.
pub(crate) fn hoist_parts(expr: &GpuExpr, first: usize, width: usize) -> (GpuExpr, Vec<GpuExpr>) {
    fn walk(expr: &mut GpuExpr, first: usize, width: usize, hoisted: &mut Vec<GpuExpr>) {
        let predicate = expr.dtype == GpuDtype::Boolean
            && compile(expr, None).is_err()
            && predicate_supported(expr);
        let window = window_supported(expr).is_ok();
        let row_order = expr.dtype != GpuDtype::String && row_order_part_supported(expr).is_ok();
        let text_predicate = computed_text_predicate(expr).is_some();
        if (predicate
            || window
            || row_order
            || text_predicate
            || is_text_measure(expr)
            || nested_part(expr)
            || text_parse_supported(expr)
            || zone_part_supported(expr)
            || host_part_supported(expr))
            && reads_only_below(expr, width)
        {
            hoist(expr, first, hoisted);
            return;
        }
        // A program deeper than the kernel's stack: its children that run
        // as programs of their own (not columns or literals, which take one
        // place of the stack as they are) become parts.
        let too_deep = compile(expr, None).is_err_and(|why| gpu_runtime::expr::too_deep(&why));
        for child in expr.children_mut() {
            if too_deep && deep_part(child, width) {
                hoist(child, first, hoisted);
            } else {
                walk(child, first, width, hoisted);
            }
        }
    }
    fn hoist(expr: &mut GpuExpr, first: usize, hoisted: &mut Vec<GpuExpr>) {
        let index = first + hoisted.len();
        let column = GpuExpr::column(index, format!("__part_{}", hoisted.len()), expr.dtype);
        hoisted.push(std::mem::replace(expr, column));
    }
    let mut outer = expr.clone();
    let mut hoisted = Vec::new();
    walk(&mut outer, first, width, &mut hoisted);
    (outer, hoisted)
}

/// Whether `expr`, a part of a program deeper than the kernel's stack,
/// runs as a program of its own (of the first `width` columns): not a
/// column or a literal, not text, not reading group lengths.
fn deep_part(expr: &GpuExpr, width: usize) -> bool {
    !matches!(expr.kind, ExprKind::Column { .. } | ExprKind::Literal(_))
        && expr.dtype != GpuDtype::String
        && !reads_group_lengths(expr)
        && reads_only_below(expr, width)
        && compile(expr, None).is_ok()
}

/// Whether every column `expr` reads is one of the first `width`.
pub(crate) fn reads_only_below(expr: &GpuExpr, width: usize) -> bool {
    let mut below = true;
    expr.visit(&mut |e| {
        if let ExprKind::Column { index, .. } = e.kind {
            below &= index < width;
        }
    });
    below
}

/// `expr` cast to `dtype` (Polars' non-strict cast); a decimal taken as a
/// word (`Int64`, the executor's keys and running bests) is its scaled
/// integer, unchanged (a physical cast), and back.
pub(crate) fn cast_to(expr: &GpuExpr, dtype: GpuDtype) -> GpuExpr {
    let decimal = |dtype| matches!(dtype, GpuDtype::Decimal(..));
    let physical = (decimal(expr.dtype) && dtype == GpuDtype::Int64)
        || (expr.dtype == GpuDtype::Int64 && decimal(dtype));
    GpuExpr {
        kind: ExprKind::Cast {
            input: Box::new(expr.clone()),
            mode: match physical {
                true => CastMode::Physical,
                false => CastMode::NonStrict,
            },
        },
        dtype,
    }
}

pub(crate) fn is_column(expr: &GpuExpr) -> bool {
    matches!(expr.kind, ExprKind::Column { .. })
}

pub(crate) fn is_literal(expr: &GpuExpr) -> bool {
    matches!(expr.kind, ExprKind::Literal(_))
}

impl Executor<'_> {
    /// Fails the run as Polars' own (for `check.why`) where `check.test`, a
    /// boolean of each row of `frame`, holds at a row, or where `frame`
    /// has no rows and the check says so.
    fn check_polars_own(
        &self,
        frame: &DeviceFrame,
        check: &PolarsOwnCheck,
    ) -> Result<(), ExecError> {
        let polars_own = || ExecError::DependsOnPolars(check.why.clone());
        if frame.height == 0 {
            return match check.no_rows {
                true => Err(polars_own()),
                false => Ok(()),
            };
        }
        // (A test that cannot hold, as of the no-rows checks alone, needs
        // no count and no read back.)
        if matches!(check.test.kind, ExprKind::Literal(Scalar::Boolean(false))) {
            return Ok(());
        }
        let count = check
            .test
            .clone()
            .cast(GpuDtype::Int64, CastMode::NonStrict)
            .aggregated(AggOp::Sum, GpuDtype::Int64);
        let column = self.evaluate(frame, &count, "")?;
        let Values::I64(counts) = column.values() else {
            return Err(ExecError::Unsupported(format!(
                "a count of `{}`",
                check.test
            )));
        };
        match counts.to_host_range(0, 1)?.first() {
            Some(&found) if found > 0 => Err(polars_own()),
            _ => Ok(()),
        }
    }

    /// Evaluates an elementwise expression over `frame` with the fused
    /// evaluator: one launch, one new column.
    pub(crate) fn evaluate(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        name: &str,
    ) -> Result<DeviceColumn, ExecError> {
        self.evaluate_in_groups(frame, expr, name, None)
    }

    /// As [`Executor::evaluate`], where the aggregations inside `expr` are
    /// taken per group of `groups` (sorted rows and group starts) and
    /// repeated on each group's rows; without groups, over the whole frame.
    pub(crate) fn evaluate_in_groups(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        name: &str,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let unsupported =
            |why: String| ExecError::Unsupported(not_yet(format_args!("`{expr}` ({why})")));
        if let Some((checked, checks)) = without_polars_own(expr) {
            // (Of the whole frame's rows, also where they are grouped for
            // an aggregation of the whole frame: ir-lower makes none per
            // group.)
            for check in &checks {
                self.check_polars_own(frame, check)?;
            }
            return self.evaluate_in_groups(frame, &checked, name, groups);
        }
        if expr.dtype.is_nested() {
            return self.nested_valued(frame, expr, name, groups);
        }
        if expr.dtype == GpuDtype::String {
            string_valued(expr).map_err(unsupported)?;
            if groups.is_some() && expr.has_aggregation() {
                return Err(unsupported("text aggregated inside an aggregation".into()));
            }
            return self.make_strings(frame, expr, name, groups);
        }
        let width = frame.columns.len();
        let mut hoisted = Vec::new();
        let mut shape = None;
        let mut row_wise = std::borrow::Cow::Borrowed(expr);
        if expr.has_aggregation() {
            // Aggregations (of the whole frame, or of each group), repeated
            // on their rows, become input columns.
            let (mut outer, leaves) = hoist_aggregations(expr, width, true).map_err(unsupported)?;
            // One row each in Polars: of the frame, or of each group.
            let held = match groups {
                None => Held::Once,
                Some(_) => Held::PerGroup,
            };
            mark_held(&mut outer, held, |index| index >= width);
            let ops = self.ops();
            let whole;
            let (rows, starts, group_of_row) = match groups {
                None => {
                    whole = self.one_group(frame.height)?;
                    (&whole.0, &whole.1, ops.repeat_first(frame.height)?)
                }
                Some((rows, starts)) => (rows, starts, self.group_of_rows(rows, starts)?),
            };
            for leaf in &leaves {
                let value = match groups {
                    None => self.aggregate_whole(frame, leaf, rows, starts)?,
                    Some(_) => self.aggregate(frame, leaf, rows, starts, false)?,
                };
                hoisted.push(self.gather_column(&value, &group_of_row)?);
            }
            if let Some((_, starts)) = groups {
                let mut lengths = None;
                if reads_group_lengths(&outer) {
                    // Each row's group length: Polars computes with a group's
                    // value row by row in a group of one row.
                    let len = GpuExpr {
                        kind: ExprKind::Len,
                        dtype: GpuDtype::UInt32,
                    };
                    let per_group = self.aggregate(frame, &len, rows, starts, false)?;
                    lengths = Some(width + hoisted.len());
                    hoisted.push(self.gather_column(&per_group, &group_of_row)?);
                }
                shape = Some(GroupShape {
                    lengths,
                    one_group: starts.len() == 1,
                });
            }
            row_wise = std::borrow::Cow::Owned(outer);
        }
        let compiled = match compile(&row_wise, shape) {
            Ok(compiled) => compiled,
            Err(why) => {
                // Parts other kernels run become input columns.
                let (outer, parts) = hoist_parts(&row_wise, width + hoisted.len(), width);
                if parts.is_empty() {
                    return Err(unsupported(why));
                }
                let compiled = compile(&outer, shape).map_err(unsupported)?;
                for part in &parts {
                    hoisted.push(self.part_column(frame, part, groups)?);
                }
                compiled
            }
        };
        let inputs = compiled
            .columns
            .iter()
            .map(|&index| {
                let column = match index.checked_sub(width) {
                    None => column_at(frame, index)?,
                    Some(part) => hoisted.get(part).ok_or_else(|| {
                        ExecError::Unsupported(format!("no predicate column {part}"))
                    })?,
                };
                let validity = column.validity();
                Ok(match column.values() {
                    Values::Bits(b) => ExprInput::bits(b, column.len(), validity),
                    Values::I8(b) => ExprInput::values(b, validity),
                    Values::I16(b) => ExprInput::values(b, validity),
                    Values::I32(b) => ExprInput::values(b, validity),
                    Values::I64(b) => ExprInput::values(b, validity),
                    Values::U8(b) => ExprInput::values(b, validity),
                    Values::U16(b) => ExprInput::values(b, validity),
                    Values::U32(b) => ExprInput::values(b, validity),
                    Values::U64(b) => ExprInput::values(b, validity),
                    Values::F32(b) => ExprInput::values(b, validity),
                    Values::F64(b) => ExprInput::values(b, validity),
                    Values::Str { .. } => {
                        return Err(ExecError::Unsupported(format!("`{expr}` reads text")));
                    }
                    Values::List { .. } | Values::Struct { .. } => {
                        return Err(ExecError::Unsupported(format!(
                            "`{expr}` reads lists or structs"
                        )));
                    }
                })
            })
            .collect::<Result<Vec<_>, ExecError>>()?;
        let failed = if compiled.program.checks_values() {
            let flag = DeviceBuffer::<u32>::zeroed(1, self.ctx.memory.clone(), &self.ctx.stream)?;
            Some(flag)
        } else {
            None
        };
        let (values, validity) =
            self.ops()
                .eval(&compiled.program, &inputs, frame.height, failed.as_ref())?;
        if let Some(flag) = failed {
            if compiled.program.checks_strictly() {
                let decimals = match compiled.program.checks_decimals() {
                    true => ", or decimals left 18 digits,",
                    false => "",
                };
                let what =
                    format!("a strict cast met values that do not fit{decimals} in `{expr}`");
                self.check_later(flag, what, ExecError::InvalidData);
            } else {
                let what = format!(
                    "decimals in `{expr}` left 18 digits (the GPU computes decimals in 64-bit \
                     integers; Polars in 128-bit ones)"
                );
                self.check_later(flag, what, ExecError::DependsOnPolars);
            }
        }
        Ok(DeviceColumn::from_parts(
            name.into(),
            expr.dtype,
            frame.height,
            values,
            Some(validity),
        ))
    }

    /// `exprs` evaluated over `frame` (texts made), as the columns of a frame
    /// of their own.
    pub(crate) fn computed_frame<'e>(
        &self,
        frame: &DeviceFrame,
        exprs: impl IntoIterator<Item = &'e GpuExpr>,
    ) -> Result<DeviceFrame, ExecError> {
        self.computed_in_groups(frame, exprs, None)
    }

    /// As [`Executor::computed_frame`], within each group of `groups` (the
    /// aggregations and the parts that read other rows in the expressions
    /// taken per group).
    pub(crate) fn computed_in_groups<'e>(
        &self,
        frame: &DeviceFrame,
        exprs: impl IntoIterator<Item = &'e GpuExpr>,
        groups: InGroups<'_>,
    ) -> Result<DeviceFrame, ExecError> {
        let columns = exprs
            .into_iter()
            .map(|expr| self.evaluate_in_groups(frame, expr, "", groups))
            .collect::<Result<_, _>>()?;
        Ok(DeviceFrame {
            columns,
            height: frame.height,
        })
    }

    /// `expr` over `frame` as a column: a column of the frame itself, else
    /// computed (evaluated, or made for text) into `owned`, within each
    /// group of `groups`.
    pub(crate) fn column_in_groups<'f>(
        &self,
        frame: &'f DeviceFrame,
        expr: &GpuExpr,
        name: &str,
        owned: &'f mut Option<DeviceColumn>,
        groups: InGroups<'_>,
    ) -> Result<&'f DeviceColumn, ExecError> {
        if is_column(expr) {
            return column_at(frame, column_index(expr)?);
        }
        Ok(owned.insert(self.evaluate_in_groups(frame, expr, name, groups)?))
    }

    /// `expr`, of i64, evaluated over `frame`: its values.
    pub(crate) fn evaluate_i64(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
    ) -> Result<DeviceBuffer<i64>, ExecError> {
        match self.evaluate(frame, expr, "")?.into_parts().0 {
            Values::I64(values) => Ok(values),
            _ => Err(ExecError::Unsupported(format!("`{expr}` as i64"))),
        }
    }

    /// A part hoisted out of an expression (see [`hoist_parts`]), computed:
    /// a window (its function evaluated with the aggregations taken per
    /// group of the partition keys), a text length, or a predicate the
    /// predicate kernels run.
    pub(crate) fn part_column(
        &self,
        frame: &DeviceFrame,
        part: &GpuExpr,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        if let ExprKind::Shift { .. }
        | ExprKind::Reverse(_)
        | ExprKind::Gather { .. }
        | ExprKind::Fill { .. }
        | ExprKind::SortedBy { .. } = part.kind
        {
            return self.moved(frame, part, "", groups);
        }
        if let ExprKind::SetSorted { .. } = part.kind {
            return self.claimed_sorted(frame, part, "", groups);
        }
        if let ExprKind::CumSum(input) = &part.kind {
            return self.cumulative_sum(frame, input, part.dtype, groups);
        }
        if let ExprKind::CumProd(input) = &part.kind {
            return self.cumulative_product(frame, input, groups);
        }
        if let ExprKind::CumExtreme {
            input,
            minimum,
            reverse,
        } = &part.kind
        {
            return self.cumulative_extreme(frame, input, (*minimum, *reverse), groups);
        }
        if let ExprKind::Rolling {
            input,
            function,
            window,
        } = &part.kind
        {
            return self.rolling(frame, (input, *function, window), part.dtype, groups);
        }
        if let ExprKind::Ewm {
            input,
            function,
            options,
        } = &part.kind
        {
            return self.ewm(frame, (input, *function, *options), groups);
        }
        if let ExprKind::Rank { .. } = part.kind {
            return self.ranked(frame, part, groups);
        }
        if let ExprKind::IsInColumn { .. } = part.kind {
            return self.membership(frame, part, groups);
        }
        if let ExprKind::InLists { .. } = part.kind {
            return self.in_lists(frame, part, groups);
        }
        if let ExprKind::ListsEqual { .. } = part.kind {
            return self.lists_equal(frame, part, groups);
        }
        if let ExprKind::OnHost {
            function,
            input,
            other,
        } = &part.kind
        {
            return self.on_host(frame, (*function, input, other.as_deref()), groups);
        }
        if let ExprKind::LocalTime { input, zone } = &part.kind {
            return self.local_times(frame, (input, *zone), groups);
        }
        if let ExprKind::Localized { .. } = &part.kind {
            return self.localized(frame, part, groups);
        }
        if let ExprKind::ParseTemporal {
            input,
            format,
            lenient,
            ..
        } = &part.kind
        {
            return self.parsed_temporals(frame, (input, format, *lenient), part, groups);
        }
        if text_parse_supported(part) && matches!(part.dtype, GpuDtype::Categorical(_)) {
            return self.cast_as_categories(frame, part, groups);
        }
        if text_parse_supported(part) {
            return self.parsed_numbers(frame, part, groups);
        }
        if let ExprKind::Distinct { input, test } = &part.kind {
            return self.distinctness(frame, input, *test, groups);
        }
        if let ExprKind::List { function, input } = &part.kind {
            return self.list_function(frame, function, input, part.dtype, groups);
        }
        if let ExprKind::StructField { field, input, .. } = &part.kind {
            return self.struct_field(frame, input, *field, part.dtype, groups);
        }
        if let ExprKind::IsNull(input) | ExprKind::IsNotNull(input) = &part.kind
            && let GpuDtype::Struct(_) = input.dtype
        {
            let is_null = matches!(part.kind, ExprKind::IsNull(_));
            return self.struct_nulls(frame, input, is_null, groups);
        }
        if let ExprKind::Window {
            function,
            partition_by,
            order_by,
        } = &part.kind
        {
            let groups = self.window_groups(frame, partition_by, order_by.as_ref())?;
            let groups = Some((&groups.sorted_rows, &groups.starts));
            return self.with_one_key_groups(partition_by.len() == 1, || {
                self.evaluate_in_groups(frame, function, "", groups)
            });
        }
        if let Some((texts, predicate)) = computed_text_predicate(part) {
            // The texts made, then the predicate over them alone.
            let made = self.computed_in_groups(frame, texts, groups)?;
            return self.part_column(&made, &predicate, None);
        }
        if is_text_measure(part) {
            let ops = self.ops();
            let (mut owned, mut owned_patterns) = (None, None);
            let (values, validity) = match &part.kind {
                // Where each row's pattern first occurs in its text.
                ExprKind::MatchesRow { input, pattern, .. } => {
                    let texts = self.strings_of(frame, input, &mut owned, groups)?;
                    let patterns = self.strings_of(frame, pattern, &mut owned_patterns, groups)?;
                    ops.string_find_rows(texts, patterns)?
                }
                ExprKind::String { op, input } => {
                    let strings = self.strings_of(frame, input, &mut owned, groups)?;
                    let (offsets, bytes, validity) = strings;
                    match op {
                        StringOp::CountMatches(pattern) => {
                            ops.string_matches(strings, device_pattern(pattern), false)?
                        }
                        StringOp::Find(pattern) => {
                            ops.string_matches(strings, device_pattern(pattern), true)?
                        }
                        _ => {
                            let chars = *op == StringOp::LenChars;
                            ops.string_lengths(offsets, bytes, validity, chars)?
                        }
                    }
                }
                _ => {
                    return Err(ExecError::Unsupported(format!(
                        "`{part}` as a text measure"
                    )));
                }
            };
            return Ok(DeviceColumn::from_parts(
                "".into(),
                GpuDtype::UInt32,
                frame.height,
                Values::U32(values),
                Some(validity),
            ));
        }
        if deep_part(part, frame.columns.len()) {
            // (A part of a program too deep for the kernel's stack.)
            return self.evaluate_in_groups(frame, part, "", groups);
        }
        let (bits, validity) = match self.predicate(frame, part)? {
            Mask::Owned(bits, validity) => (bits, validity),
            Mask::Borrowed(..) => {
                return Err(ExecError::Unsupported(format!(
                    "`{part}` is a column, not a predicate to compute"
                )));
            }
        };
        Ok(DeviceColumn::from_parts(
            "".into(),
            GpuDtype::Boolean,
            frame.height,
            Values::Bits(bits),
            validity,
        ))
    }
}
