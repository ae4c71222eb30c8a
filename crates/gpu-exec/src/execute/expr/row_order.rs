//! Row-order functions: shifts, `set_sorted`'s check, cumulative functions, fills, sorts, ranks, first and last picks, distinctness.

use super::*;

/// The order [`Executor::pick_in_order`] picks in: of the values
/// themselves, or of keys (each with its direction and nulls' place), with
/// the sort (`SortedBy`) as Polars writes it, if its unstable order leaves
/// rows equal on every key to Polars.
#[derive(Debug, Clone, Copy)]
pub(crate) enum PickOrder<'a> {
    Values { descending: bool, nulls_last: bool },
    Keys(&'a [(&'a GpuExpr, bool, bool)], Option<&'a str>),
}

/// True at a row where the values of `value` break an order, ascending
/// (or `descending`): a value out of that order after the one before it,
/// nulls in more than one run (so not all at one end), or at the other end
/// than `nulls_last` says (at either, where `None`).
pub(crate) fn order_broken(value: &GpuExpr, descending: bool, nulls_last: Option<bool>) -> GpuExpr {
    let boolean = GpuDtype::Boolean;
    let null = value.clone().is_null();
    // A run of nulls begins or ends at a row (null at the first row).
    let turns = null
        .clone()
        .binary(BinaryOp::NotEq, null.shifted(1), boolean);
    let no = GpuExpr::literal(Scalar::Boolean(false), boolean);
    let turns_so_far = GpuExpr {
        kind: ExprKind::CumSum(Box::new(turns.fill_null(no))),
        dtype: GpuDtype::UInt32,
    };
    let two = GpuExpr::literal(Scalar::UInt(2), GpuDtype::UInt32);
    let mut broken = out_of_order(value, descending).binary(
        BinaryOp::Or,
        turns_so_far.binary(BinaryOp::GtEq, two, boolean),
        boolean,
    );
    if let Some(nulls_last) = nulls_last {
        broken = broken.binary(BinaryOp::Or, null_at_wrong_end(value, nulls_last), boolean);
    }
    broken
}

/// True at a row whose value is out of order (ascending, or `descending`)
/// after the one before it.
pub(crate) fn out_of_order(value: &GpuExpr, descending: bool) -> GpuExpr {
    let against = if descending {
        BinaryOp::Gt
    } else {
        BinaryOp::Lt
    };
    (value.clone()).binary(against, value.clone().shifted(1), GpuDtype::Boolean)
}

/// True at a valid row whose value is below the last valid value before
/// it (values ascending apart from nulls, which may lie anywhere); where
/// `group` is given (rows in the order of their groups), only of a valid
/// value before it in the row's own group.
pub(crate) fn valid_out_of_order(value: &GpuExpr, group: Option<&GpuExpr>) -> GpuExpr {
    let boolean = GpuDtype::Boolean;
    let last_valid = |of: &GpuExpr| {
        let filled = GpuExpr {
            dtype: of.dtype,
            kind: ExprKind::Fill {
                input: Box::new(of.clone()),
                forward: true,
                limit: None,
            },
        };
        filled.shifted(1)
    };
    let below = value
        .clone()
        .binary(BinaryOp::Lt, last_valid(value), boolean);
    match group {
        None => below,
        Some(group) => {
            let same = group.clone().binary(
                BinaryOp::Eq,
                last_valid(&group_of_valid(value, group)),
                boolean,
            );
            below.binary(BinaryOp::And, same, boolean)
        }
    }
}

/// True at a valid row that follows a null of its group (rows in the order
/// of their groups) after a valid row of that group: nulls inside a group's
/// values, not in one run at one of its ends.
pub(crate) fn null_inside_group(value: &GpuExpr, group: &GpuExpr) -> GpuExpr {
    let boolean = GpuDtype::Boolean;
    let same_as_before = |of: GpuExpr| group.clone().binary(BinaryOp::Eq, of, boolean);
    let after_null = value.clone().shifted(1).is_null().binary(
        BinaryOp::And,
        same_as_before(group.clone().shifted(1)),
        boolean,
    );
    let filled = GpuExpr {
        dtype: group.dtype,
        kind: ExprKind::Fill {
            input: Box::new(group_of_valid(value, group)),
            forward: true,
            limit: None,
        },
    };
    let valid_before = same_as_before(filled.shifted(1));
    (value.clone().is_not_null())
        .binary(BinaryOp::And, after_null, boolean)
        .binary(BinaryOp::And, valid_before, boolean)
}

/// `group` where `value` is valid, else null.
fn group_of_valid(value: &GpuExpr, group: &GpuExpr) -> GpuExpr {
    GpuExpr {
        dtype: group.dtype,
        kind: ExprKind::Ternary {
            predicate: Box::new(value.clone().is_not_null()),
            truthy: Box::new(group.clone()),
            falsy: Box::new(GpuExpr::literal(Scalar::Null, group.dtype)),
        },
    }
}

/// True at a row that shows nulls at the other end than `nulls_last` says:
/// a value after a null (nulls last), a null after a value (nulls first).
pub(crate) fn null_at_wrong_end(value: &GpuExpr, nulls_last: bool) -> GpuExpr {
    let (null, valid) = (value.clone().is_null(), value.clone().is_not_null());
    let (from, to) = match nulls_last {
        true => (null.shifted(1), valid),
        false => (valid.shifted(1), null),
    };
    from.binary(BinaryOp::And, to, GpuDtype::Boolean)
}

impl Executor<'_> {
    /// `expr`, a shift, a reverse, a gather, a fill or a sort by keys (of
    /// values of any type: numbers, texts, lists, structs), over `frame`,
    /// within each group of `groups` when given: its input's values moved
    /// whole to other rows.
    pub(crate) fn moved(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        name: &str,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        match expr.kind {
            ExprKind::Shift { .. } | ExprKind::Reverse(_) => {
                self.shifted(frame, expr, name, groups)
            }
            ExprKind::Gather { .. } => self.gathered(frame, expr, name, groups),
            ExprKind::Fill { .. } => self.filled(frame, expr, name, groups),
            ExprKind::SortedBy { .. } => self.sorted_part(frame, expr, name, groups),
            _ => Err(ExecError::Unsupported(format!(
                "`{expr}` does not move rows"
            ))),
        }
    }

    /// `shift(input, periods)` over `frame`: the input (a column, else
    /// evaluated or made) gathered from `periods` rows earlier, null where
    /// that row does not exist; or `reverse(input)`: gathered from the rows
    /// in the opposite order. Within each group of `groups`, when given.
    pub(crate) fn shifted(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        name: &str,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let (input, periods) = match &expr.kind {
            ExprKind::Shift { input, periods } => (input, Some(*periods)),
            ExprKind::Reverse(input) => (input, None),
            _ => return Err(ExecError::Unsupported(format!("`{expr}` is not a shift"))),
        };
        let mut owned = None;
        let column = self.column_in_groups(frame, input, name, &mut owned, groups)?;
        let ops = self.ops();
        let rows = match (groups, periods) {
            // Within each group: the group's row `periods` before.
            (Some((sorted_rows, starts)), Some(periods)) => {
                let group_of = ops.segment_ids(starts, sorted_rows.len())?;
                ops.segment_sources(sorted_rows, starts, &group_of, None, periods)?
            }
            // Within each group: the group's rows from its last.
            (Some((sorted_rows, starts)), None) => {
                let group_of = ops.segment_ids(starts, sorted_rows.len())?;
                let mirrored = self.mirrored_positions(starts, &group_of)?;
                ops.segment_sources(sorted_rows, starts, &group_of, Some(&mirrored), 0)?
            }
            (None, Some(periods)) => {
                // Row i takes row i - periods; beyond either end is null (a
                // shift by the height or more: every row, from past the end).
                let height = frame.height as i64;
                let start = if periods.unsigned_abs() >= frame.height as u64 {
                    height
                } else {
                    -periods
                };
                ops.iota(frame.height, start)?
            }
            (None, None) => {
                self.check_reversed_lists(column, &format!("`{expr}`"))?;
                self.last_to_first(frame.height)?
            }
        };
        self.gather_column(column, &rows)
    }

    /// Polars' `reverse` of a list column whose every list is null (of a
    /// struct's list field too) gives lists of the Null type, which later
    /// functions of lists reject: where `column` (reversed over the whole
    /// frame, `what`) holds such lists, a check read once the result is on
    /// the host sends the query to Polars.
    fn check_reversed_lists(&self, column: &DeviceColumn, what: &str) -> Result<(), ExecError> {
        let n = column.len();
        let mut lists = Vec::new();
        let mut levels = vec![(column.dtype, column.values(), column.validity())];
        while let Some((dtype, values, validity)) = levels.pop() {
            match (dtype, values) {
                (GpuDtype::List(_), _) => lists.push(validity),
                (GpuDtype::Struct(of), Values::Struct { fields }) => {
                    for ((_, dtype), field) in of.fields().into_iter().zip(fields) {
                        levels.push((dtype, &field.values, field.validity.as_ref()));
                    }
                }
                _ => {}
            }
        }
        // (Lists without a validity are all valid.)
        for validity in lists.into_iter().flatten() {
            let why = format!(
                "{what} of lists all null (Polars' reverse gives their values the Null type)"
            );
            self.check_some_valid(validity, n, why)?;
        }
        Ok(())
    }

    /// A check, read once the result is on the host, that sends the query
    /// to Polars, for the reason `why`, where no row of `validity` (of `n`
    /// rows, at least one) is valid.
    pub(crate) fn check_some_valid(
        &self,
        validity: &DeviceBuffer<u32>,
        n: usize,
        why: String,
    ) -> Result<(), ExecError> {
        let valid = DeviceFrame {
            columns: vec![self.validity_as_booleans(validity, n)?],
            height: n,
        };
        let none_valid = column_ref(0, GpuDtype::Boolean)
            .cast(GpuDtype::UInt32, CastMode::NonStrict)
            .aggregated(AggOp::Sum, GpuDtype::UInt32)
            .binary(
                BinaryOp::Eq,
                GpuExpr::literal(Scalar::UInt(0), GpuDtype::UInt32),
                GpuDtype::Boolean,
            );
        self.check_any_later(&valid, none_valid, why, ExecError::DependsOnPolars)
    }

    /// Polars' `gather(indices)` of `input` over the whole frame: each
    /// row the input's value at its index (from the end when negative;
    /// null where the index is null, or outside the frame with
    /// `null_on_oob`, else a check read once the result is on the host
    /// sends the query to Polars, which raises).
    pub(crate) fn gathered(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        name: &str,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let ExprKind::Gather {
            input,
            indices,
            null_on_oob,
            shown,
        } = &expr.kind
        else {
            return Err(ExecError::Unsupported(format!("`{expr}` is not a gather")));
        };
        if groups.is_some() {
            return Err(ExecError::Unsupported(format!("`{expr}` per group")));
        }
        let mut owned = None;
        let column = self.column_in_groups(frame, input, name, &mut owned, None)?;
        let int64 = GpuDtype::Int64;
        let boolean = GpuDtype::Boolean;
        let index = cast_to(indices, int64);
        let height = GpuExpr::literal(Scalar::Int(frame.height as i64), int64);
        let zero = GpuExpr::literal(Scalar::Int(0), int64);
        let place = index
            .clone()
            .binary(BinaryOp::Lt, zero.clone(), boolean)
            .then(
                index.clone().binary(BinaryOp::Plus, height.clone(), int64),
                index,
                int64,
            );
        let outside = place.clone().binary(BinaryOp::Lt, zero, boolean).binary(
            BinaryOp::Or,
            place.clone().binary(BinaryOp::GtEq, height, boolean),
            boolean,
        );
        if !null_on_oob {
            let what = format!("`{shown}` has an index outside the frame");
            self.check_any_later(frame, outside.clone(), what, ExecError::InvalidData)?;
        }
        // Null (gathered from -1) where the index is null or outside.
        let none = GpuExpr::literal(Scalar::Int(-1), int64);
        let no = GpuExpr::literal(Scalar::Boolean(false), boolean);
        let rows = outside
            .fill_null(no)
            .then(none.clone(), place, int64)
            .fill_null(none);
        let rows = self.evaluate_i64(frame, &rows)?;
        self.gather_column(column, &rows)
    }

    /// Polars' `set_sorted(input)` over the whole frame: the input's values
    /// as they are (evaluated, or made for text), and a check read once the
    /// result is on the host that sends the query to Polars where they
    /// break the claim: a value out of the claimed order after the one
    /// before it, nulls in more than one run (so not all at one end), or
    /// at the other end than claimed. (Polars' engine trusts the claim and
    /// takes paths that hold only for values so ordered.)
    pub(crate) fn claimed_sorted(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        name: &str,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let ExprKind::SetSorted {
            input,
            descending,
            nulls_last,
            shown,
        } = &expr.kind
        else {
            return Err(ExecError::Unsupported(format!(
                "`{expr}` is not set_sorted"
            )));
        };
        if groups.is_some() {
            return Err(ExecError::Unsupported(format!("`{expr}` per group")));
        }
        let values = match input.dtype {
            GpuDtype::String => self.make_strings(frame, input, name, None)?,
            _ => self.evaluate(frame, input, name)?,
        };
        let broken = order_broken(input, *descending, *nulls_last);
        let what = format!("`{shown}`: the values are not sorted as claimed");
        self.check_any_later(frame, broken, what, ExecError::DependsOnPolars)?;
        Ok(values)
    }

    /// For every sorted position p, in a group from `start` to `end`
    /// (exclusive; `group_of` numbers each position's group), the position
    /// `start + end - 1 - p`: the group's positions from its last.
    pub(crate) fn mirrored_positions(
        &self,
        starts: &DeviceBuffer<i64>,
        group_of: &DeviceBuffer<u32>,
    ) -> Result<DeviceBuffer<i64>, ExecError> {
        let ops = self.ops();
        let (n, count) = (group_of.len(), starts.len());
        let group = ops.widen(group_of)?;
        let bounds = self.group_bounds(starts, n)?;
        let (ends, _) = ops.gather(&bounds, None, &ops.iota(count, 1)?)?;
        let positions = DeviceFrame {
            columns: vec![
                DeviceColumn::of_i64(ops.gather(starts, None, &group)?.0),
                DeviceColumn::of_i64(ops.gather(&ends, None, &group)?.0),
                DeviceColumn::of_i64(ops.iota(n, 0)?),
            ],
            height: n,
        };
        let [start, end, p] = [0, 1, 2].map(|i| column_ref(i, GpuDtype::Int64));
        let one = GpuExpr::literal(Scalar::Int(1), GpuDtype::Int64);
        let mirrored = start
            .binary(BinaryOp::Plus, end, GpuDtype::Int64)
            .binary(BinaryOp::Minus, one, GpuDtype::Int64)
            .binary(BinaryOp::Minus, p, GpuDtype::Int64);
        self.evaluate_i64(&positions, &mirrored)
    }

    /// Raises a check read once the result is on the host (see
    /// [`Executor::check_later`]) where `condition` holds for a row of
    /// `frame` (a null does not hold).
    pub(crate) fn check_any_later(
        &self,
        frame: &DeviceFrame,
        condition: GpuExpr,
        what: String,
        failure: fn(String) -> ExecError,
    ) -> Result<(), ExecError> {
        let flags = condition
            .fill_null(GpuExpr::literal(Scalar::Boolean(false), GpuDtype::Boolean))
            .cast(GpuDtype::UInt32, CastMode::NonStrict);
        let Values::U32(flags) = self.evaluate(frame, &flags, "")?.into_parts().0 else {
            return Err(ExecError::Unsupported("flags as u32".into()));
        };
        let ops = self.ops();
        let flag = ops.segment_sum(&flags, None, &ops.iota(1, 0)?)?;
        self.check_later(flag, what, failure);
        Ok(())
    }

    /// Polars' `cum_sum` of `input` (integers or booleans) over `frame`, as
    /// `dtype`: the input as 64-bit words (nulls as zeros, and kept null),
    /// their inclusive scan (restarted in each group of `groups`), wrapped
    /// to `dtype`.
    pub(crate) fn cumulative_sum(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        dtype: GpuDtype,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        if input.dtype.is_float() {
            return self.float_sums(frame, input, groups);
        }
        let words = word_dtype(input.dtype);
        // The evaluator writes 0 for a null row.
        let (values, validity) = self
            .evaluate_in_groups(frame, &cast_to(input, words), "", groups)?
            .into_parts();
        let values = match values {
            Values::I64(v) => Values::I64(self.running_sums(&v, true, groups)?),
            Values::U64(v) => Values::U64(self.running_sums(&v, false, groups)?),
            _ => return Err(ExecError::Unsupported(format!("cum_sum of `{input}`"))),
        };
        let sums = DeviceFrame {
            columns: vec![DeviceColumn::from_parts(
                "".into(),
                words,
                frame.height,
                values,
                validity,
            )],
            height: frame.height,
        };
        let wrapped = GpuExpr {
            kind: ExprKind::Cast {
                input: Box::new(column_ref(0, words)),
                mode: CastMode::Wrapping,
            },
            dtype,
        };
        self.evaluate(&sums, &wrapped, "")
    }

    /// Polars' `cum_sum` of floats (`input`) over `frame`, restarted in
    /// each group of `groups`, in its order: each group's values added row
    /// after row, as Polars' loop adds them (see [`Ops::sequential_sums`]);
    /// a null row stays null.
    fn float_sums(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let ops = self.ops();
        self.running_in_order(
            frame,
            (input, "cum_sum"),
            groups,
            |values, valid, (rows, starts)| {
                Ok(match values {
                    Values::F64(v) => {
                        Some(Values::F64(ops.sequential_sums(v, valid, rows, starts)?))
                    }
                    Values::F32(v) => {
                        Some(Values::F32(ops.sequential_sums(v, valid, rows, starts)?))
                    }
                    _ => None,
                })
            },
        )
    }

    /// Polars' `cum_prod` of `input` (i64, u64 or floats) over `frame`,
    /// restarted in each group of `groups`, in its order: each group's
    /// values multiplied row after row (see [`Ops::sequential_products`]);
    /// a null row stays null.
    pub(crate) fn cumulative_product(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let ops = self.ops();
        self.running_in_order(
            frame,
            (input, "cum_prod"),
            groups,
            |values, valid, (rows, starts)| {
                Ok(match values {
                    Values::I64(v) => Some(Values::I64(
                        ops.sequential_products(v, valid, rows, starts)?,
                    )),
                    Values::U64(v) => Some(Values::U64(
                        ops.sequential_products(v, valid, rows, starts)?,
                    )),
                    Values::F64(v) => Some(Values::F64(
                        ops.sequential_products(v, valid, rows, starts)?,
                    )),
                    Values::F32(v) => Some(Values::F32(
                        ops.sequential_products(v, valid, rows, starts)?,
                    )),
                    _ => None,
                })
            },
        )
    }

    /// A running function (`what`, by `running`: of the values, their
    /// validity and the groups, or `None` for values it does not take) of
    /// `input` over `frame`, restarted in each group of `groups` (the whole
    /// frame one group without), its results of `input`'s type with its
    /// nulls.
    fn running_in_order(
        &self,
        frame: &DeviceFrame,
        (input, what): (&GpuExpr, &str),
        groups: InGroups<'_>,
        running: impl FnOnce(
            &Values,
            Option<&DeviceBuffer<u32>>,
            (&DeviceBuffer<i64>, &DeviceBuffer<i64>),
        ) -> Result<Option<Values>, ExecError>,
    ) -> Result<DeviceColumn, ExecError> {
        let (values, validity) = self
            .evaluate_in_groups(frame, input, "", groups)?
            .into_parts();
        let results = self.in_group_order(frame.height, groups, |order| {
            running(&values, validity.as_ref(), order)
        })?;
        let Some(results) = results else {
            return Err(ExecError::Unsupported(format!("{what} of `{input}`")));
        };
        Ok(DeviceColumn::from_parts(
            "".into(),
            input.dtype,
            frame.height,
            results,
            validity,
        ))
    }

    /// Polars' `cum_max` (`cum_min`, `minimum`) of `input` (integers or
    /// floats) over `frame` (restarted in each group of `groups`, in its
    /// order; from the last row to the first, `reverse`): each row's best
    /// value so far gathered from its row, so the values come back as they
    /// were (the sign of a zero, NaN).
    pub(crate) fn cumulative_extreme(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        (minimum, reverse): (bool, bool),
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        // The input, computed once where it is not a column of the frame.
        let computed;
        let (source, input) = if is_column(input) {
            (frame, input.clone())
        } else {
            computed = self.computed_in_groups(frame, [input], groups)?;
            (&computed, column_ref(0, input.dtype))
        };
        let column = column_at(source, column_index(&input)?)?;
        let rows = self.running_best_rows(source, &input, (minimum, reverse), groups)?;
        self.gather_column(column, &rows)
    }

    /// For every row of `frame`, the row of the best value of `input` at or
    /// before it (`reverse`: at or after it), within its group of `groups`
    /// (see [`Ops::running_best`]).
    pub(crate) fn running_best_rows(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        (minimum, reverse): (bool, bool),
        groups: InGroups<'_>,
    ) -> Result<DeviceBuffer<i64>, ExecError> {
        let (values, validity) = self
            .evaluate(frame, &cast_to(input, word_dtype(input.dtype)), "")?
            .into_parts();
        let ops = self.ops();
        let n = frame.height;
        // The rows in the scan's order, and each position's group.
        let (rows, group_of);
        let order = match (groups, reverse) {
            (None, false) => None,
            (None, true) => {
                rows = self.last_to_first(n)?;
                group_of = DeviceBuffer::zeroed(n, self.ctx.memory.clone(), &self.ctx.stream)?;
                Some((&rows, &group_of))
            }
            (Some((sorted_rows, starts)), false) => {
                group_of = ops.segment_ids(starts, sorted_rows.len())?;
                Some((sorted_rows, &group_of))
            }
            (Some((sorted_rows, starts)), true) => {
                let back = self.last_to_first(n)?;
                rows = ops.gather(sorted_rows, None, &back)?.0;
                group_of = ops
                    .gather(&ops.segment_ids(starts, sorted_rows.len())?, None, &back)?
                    .0;
                Some((&rows, &group_of))
            }
        };
        let validity = validity.as_ref();
        Ok(match values {
            Values::I64(v) => ops.running_best(&v, validity, minimum, order)?,
            Values::U64(v) => ops.running_best(&v, validity, minimum, order)?,
            Values::F64(v) => ops.running_best(&v, validity, minimum, order)?,
            _ => return Err(ExecError::Unsupported(format!("cum_max of `{input}`"))),
        })
    }

    /// Polars' `arg_min` (`minimum`) or `arg_max` of `input` per group of
    /// `sorted_rows`: the place in its group of the group's first best
    /// valid value, null where the group has none. A running best gives
    /// each row the place of the best value up to it; those places only
    /// grow along the group, so the greatest at a valid row is the group's.
    /// Polars takes the last of equal best values instead where it knows
    /// the values sorted, which the device cannot know: where a group holds
    /// its best value twice or more (booleans aside, which Polars never
    /// takes by sortedness), a check makes the collect fall back.
    pub(crate) fn arg_extreme(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        minimum: bool,
        sorted_rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceColumn, ExecError> {
        let ops = self.ops();
        let groups = Some((sorted_rows, starts));
        // Computed once, with the aggregations inside per group.
        let computed = DeviceFrame {
            columns: vec![self.evaluate_in_groups(frame, input, "", groups)?],
            height: frame.height,
        };
        let values = column_ref(0, input.dtype);
        let validity = computed.columns[0].validity();
        // Each row's place in the sorted order.
        let n = frame.height;
        let (memory, stream) = (self.ctx.memory.clone(), &self.ctx.stream);
        let places = DeviceBuffer::<i64>::zeroed(n, memory.clone(), stream)?;
        let places_valid = DeviceBuffer::<u32>::zeroed(n.div_ceil(32), memory, stream)?;
        ops.scatter(&ops.iota(n, 0)?, None, sorted_rows, &places, &places_valid)?;
        // Each group's first best place (the greatest of the running best's
        // at valid rows) and, scanning from the end, its last (the least).
        let best_place = |reverse: bool| -> Result<_, ExecError> {
            let rows = self.running_best_rows(&computed, &values, (minimum, reverse), groups)?;
            let (best, _) = ops.gather(&places, None, &rows)?;
            let (sorted, sorted_valid) = ops.gather(&best, validity, sorted_rows)?;
            let pick = if reverse {
                SegmentPick::Min
            } else {
                SegmentPick::Max
            };
            Ok(ops.segment_pick(pick, &sorted, Some(&sorted_valid), starts)?)
        };
        let (first, first_valid) = best_place(false)?;
        let count = starts.len();
        let i64_column = |values, validity| {
            DeviceColumn::from_parts(
                "".into(),
                GpuDtype::Int64,
                count,
                Values::I64(values),
                validity,
            )
        };
        let mut columns = vec![
            i64_column(first, Some(first_valid)),
            i64_column(ops.gather(starts, None, &ops.iota(count, 0)?)?.0, None),
        ];
        if input.dtype != GpuDtype::Boolean {
            let (last, last_valid) = best_place(true)?;
            columns.push(i64_column(last, Some(last_valid)));
        }
        let results = DeviceFrame {
            columns,
            height: count,
        };
        let [first, start, last] = [0, 1, 2].map(|i| column_ref(i, GpuDtype::Int64));
        if input.dtype != GpuDtype::Boolean {
            // Groups whose first and last best places differ.
            let tied = first
                .clone()
                .binary(BinaryOp::NotEq, last, GpuDtype::Boolean);
            let what = format!(
                "`{input}` holds its {} value more than once in a group: Polars \
                 answers by whether it knows the values sorted",
                if minimum { "least" } else { "greatest" }
            );
            self.check_any_later(&results, tied, what, ExecError::DependsOnPolars)?;
        }
        let within = first.binary(BinaryOp::Minus, start, GpuDtype::Int64);
        self.evaluate(&results, &cast_to(&within, GpuDtype::UInt32), "")
    }

    /// The positions `n - 1` down to 0.
    pub(crate) fn last_to_first(&self, n: usize) -> Result<DeviceBuffer<i64>, ExecError> {
        let positions = DeviceFrame {
            columns: vec![DeviceColumn::from_parts(
                "".into(),
                GpuDtype::Int64,
                n,
                Values::I64(self.ops().iota(n, 0)?),
                None,
            )],
            height: n,
        };
        let last = GpuExpr::literal(Scalar::Int(n as i64 - 1), GpuDtype::Int64);
        let back = last.binary(
            BinaryOp::Minus,
            column_ref(0, GpuDtype::Int64),
            GpuDtype::Int64,
        );
        self.evaluate_i64(&positions, &back)
    }

    /// Wrapping inclusive prefix sums of 64-bit `values`, by row: of the
    /// whole column, or restarted in each group of `groups`.
    pub(crate) fn running_sums<T: Word64 + Gather>(
        &self,
        values: &DeviceBuffer<T>,
        signed: bool,
        groups: InGroups<'_>,
    ) -> Result<DeviceBuffer<T>, ExecError> {
        let ops = self.ops();
        let Some((sorted_rows, starts)) = groups else {
            return Ok(ops.inclusive_scan(values, signed)?);
        };
        let (sorted, _) = ops.gather(values, None, sorted_rows)?;
        let scan = ops.inclusive_scan(&sorted, signed)?;
        let group_of = ops.segment_ids(starts, sorted_rows.len())?;
        Ok(ops.segment_rebase(&scan, sorted_rows, starts, &group_of)?)
    }

    /// A forward or backward fill of the nulls of its input over `frame`
    /// (within each group of `groups`): the input (a column, else evaluated
    /// or made) gathered from each row's source row.
    pub(crate) fn filled(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        name: &str,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let ExprKind::Fill {
            input,
            forward,
            limit,
        } = &expr.kind
        else {
            return Err(ExecError::Unsupported(format!("`{expr}` is not a fill")));
        };
        let mut owned = None;
        let column = self.column_in_groups(frame, input, name, &mut owned, groups)?;
        let ops = self.ops();
        let rows = match (column.validity(), groups) {
            (Some(validity), None) => ops.fill_sources(validity, frame.height, *forward, *limit)?,
            (Some(validity), Some((sorted_rows, starts))) => {
                // The nearest valid positions in the sorted order, kept
                // within each group.
                let (sorted_validity, _) =
                    ops.gather_bits(validity, frame.height, None, sorted_rows)?;
                let positions =
                    ops.fill_sources(&sorted_validity, frame.height, *forward, *limit)?;
                let group_of = ops.segment_ids(starts, sorted_rows.len())?;
                ops.segment_sources(sorted_rows, starts, &group_of, Some(&positions), 0)?
            }
            (None, _) => ops.iota(frame.height, 0)?,
        };
        self.gather_column(column, &rows)
    }

    /// For values in group order (`key`, position p of group `g` where
    /// `starts` says), the positions ordered by (group, value; nulls first),
    /// and each position's group number. Every group keeps its positions.
    pub(crate) fn order_in_groups(
        &self,
        key: &KeyWords<'_>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<(DeviceBuffer<i64>, DeviceBuffer<u32>), ExecError> {
        let ops = self.ops();
        let n = match key {
            KeyWords::Column(column) => column.len(),
            KeyWords::Words(words, _) => words.first().map_or(0, DeviceBuffer::len),
        };
        let group_ids = ops.segment_ids(starts, n)?;
        let by_value = self.sort_by_key(None, key, false, false)?;
        // Stable: each group keeps its positions, now in value order.
        let order = ops.widen(&ops.sort_by(by_value, &group_ids, None, false, false)?)?;
        Ok((order, group_ids))
    }

    /// Per group (rows `sorted_rows` from `starts`), the value of `input` at
    /// the first (`last`: the last) row where `by` is true, null where there
    /// is none: the smallest (greatest) sorted position whose row `by`
    /// keeps, its row, and a gather that gives null for none.
    pub(crate) fn first_kept(
        &self,
        frame: &DeviceFrame,
        (input, by): (&GpuExpr, &GpuExpr),
        last: bool,
        sorted_rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceColumn, ExecError> {
        let ops = self.ops();
        let n = sorted_rows.len();
        let groups = Some((sorted_rows, starts));
        let no = GpuExpr::literal(Scalar::Boolean(false), GpuDtype::Boolean);
        let kept = self.evaluate_in_groups(frame, &by.clone().fill_null(no), "", groups)?;
        let Values::Bits(bits) = kept.values() else {
            return Err(ExecError::Unsupported(format!("`{by}` is not a filter")));
        };
        // The positions whose rows are kept, as the valid ones.
        let (kept_in_order, _) = ops.gather_bits(bits, n, None, sorted_rows)?;
        let pick = if last {
            SegmentPick::Max
        } else {
            SegmentPick::Min
        };
        let (position, found) =
            ops.segment_pick(pick, &ops.iota(n, 0)?, Some(&kept_in_order), starts)?;
        let (row, _) = ops.gather(sorted_rows, None, &position)?;
        let picked = DeviceFrame {
            columns: vec![DeviceColumn::from_parts(
                "".into(),
                GpuDtype::Int64,
                starts.len(),
                Values::I64(row),
                Some(found),
            )],
            height: starts.len(),
        };
        // No row kept: past the end, which gathers a null.
        let none = GpuExpr::literal(Scalar::Int(-1), GpuDtype::Int64);
        let rows = self.evaluate(&picked, &column_ref(0, GpuDtype::Int64).fill_null(none), "")?;
        let Values::I64(rows) = rows.values() else {
            return Err(ExecError::Unsupported("rows as i64".into()));
        };
        // Within the groups: aggregations and functions of the rows in
        // order inside the input are the group's.
        let mut owned = None;
        let values = self.column_in_groups(frame, input, "", &mut owned, groups)?;
        self.gather_column(values, rows)
    }

    /// Per group (rows `sorted_rows` from `starts`), the value of `values`
    /// (by row) at the first (`last`: the last) row in `order`: of keys
    /// computed over `frame`, or of the values themselves, each in its
    /// direction and with its nulls placed as `(descending, nulls_last)` say
    /// (stable: ties in row order). The rows are sorted by group number,
    /// then by the keys (small integers widened), and each group's first or
    /// last row gathered. `first`/`last` of `sort_by`, and `min`/`max` of the
    /// types the per-group kernels do not reduce (the first valid value in
    /// the value's order, nulls last).
    pub(crate) fn pick_in_order(
        &self,
        frame: &DeviceFrame,
        values: DeviceColumn,
        order: PickOrder<'_>,
        last: bool,
        sorted_rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceColumn, ExecError> {
        if values.is_empty() {
            // No rows (an empty frame's one group): null, as every row
            // gathered from nothing is.
            return self.gather_column(&values, &self.ops().repeat_first(starts.len())?);
        }
        let (values, sorted) = self.in_order(frame, values, order, sorted_rows, starts)?;
        let groups = starts.len();
        let rows = if last {
            let (rows, _) = self.ops().segment_pick(
                SegmentPick::Last,
                &sorted.sorted_rows,
                None,
                &sorted.starts,
            )?;
            rows
        } else {
            sorted.first_rows
        };
        if sorted.starts.len() == groups {
            return self.gather_column(&values, &rows);
        }
        // Groups of no row (a list's, empty) are found no more: each picked
        // row goes to its group's place, and the others read past the
        // values, a null.
        let ops = self.ops();
        let group_of_row = self.group_of_rows(sorted_rows, starts)?;
        let (places, _) = ops.gather(&group_of_row, None, &rows)?;
        let picked = ops.iota(groups, values.len() as i64)?;
        let ignored = DeviceBuffer::<u32>::zeroed(
            groups.div_ceil(32),
            self.ctx.memory.clone(),
            &self.ctx.stream,
        )?;
        ops.scatter(&rows, None, &places, &picked, &ignored)?;
        self.gather_column(&values, &picked)
    }

    /// The rows of each group (rows `sorted_rows` from `starts`) in `order`
    /// (see [`Executor::pick_in_order`]): `values` back, and the groups
    /// found again over the rows sorted by group number, then by the keys,
    /// stably; sorted by group number first, each group keeps its place.
    pub(crate) fn in_order(
        &self,
        frame: &DeviceFrame,
        values: DeviceColumn,
        order: PickOrder<'_>,
        sorted_rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<(DeviceColumn, Groups), ExecError> {
        let n = values.len();
        let group = self.group_column(sorted_rows, starts)?;
        let value_dtype = values.dtype;
        let mut keyed = DeviceFrame {
            columns: vec![group, values],
            height: n,
        };
        let mut keys: Vec<(GpuExpr, bool, bool)> = Vec::new();
        match order {
            PickOrder::Values {
                descending,
                nulls_last,
            } => keys.push((column_ref(1, value_dtype), descending, nulls_last)),
            PickOrder::Keys(by, _) => {
                for &(expr, descending, nulls_last) in by {
                    let groups = Some((sorted_rows, starts));
                    keyed
                        .columns
                        .push(self.evaluate_in_groups(frame, expr, "", groups)?);
                    let key = column_ref(keyed.columns.len() - 1, expr.dtype);
                    keys.push((key, descending, nulls_last));
                }
            }
        }
        for (key, _, _) in &mut keys {
            let widened = widened_key(key);
            if widened.dtype != key.dtype {
                keyed.columns.push(self.evaluate(&keyed, &widened, "")?);
                *key = column_ref(keyed.columns.len() - 1, widened.dtype);
            }
        }
        let by_group = column_ref(0, GpuDtype::Int64);
        let sorting: Vec<(&GpuExpr, bool, bool)> = std::iter::once((&by_group, false, false))
            .chain(keys.iter().map(|(key, d, l)| (key, *d, *l)))
            .collect();
        let unstable = match order {
            PickOrder::Keys(_, unstable) => unstable,
            PickOrder::Values { .. } => None,
        };
        let (sorted, distinct) =
            self.sorted_groups_checked(&keyed, &sorting, 1, unstable.is_some())?;
        if let Some(unstable) = unstable
            && !distinct
        {
            return Err(ExecError::DependsOnPolars(format!(
                "rows equal on every key of `{unstable}`: without maintain_order, Polars' \
                 unstable sort orders them its own way"
            )));
        }
        Ok((keyed.columns.swap_remove(1), sorted))
    }

    /// Polars' `sort`, `sort_by` or `arg_sort` (`expr`, a `SortedBy`) over
    /// `frame`, within each group of `groups` (one group of every row when
    /// none): the input's rows sorted stably by the keys, the i-th row of a
    /// group taking the i-th value of the group in that order.
    pub(crate) fn sorted_part(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        name: &str,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let ExprKind::SortedBy {
            input,
            order,
            unstable,
        } = &expr.kind
        else {
            return Err(ExecError::Unsupported(format!("`{expr}` is not a sort")));
        };
        let whole;
        let (rows, starts) = match groups {
            Some(groups) => groups,
            None => {
                whole = self.one_group(frame.height)?;
                (&whole.0, &whole.1)
            }
        };
        let values = self.evaluate_in_groups(frame, input, name, Some((rows, starts)))?;
        if let [only] = order.as_slice()
            && *only.key == **input
            && values.dtype.is_float()
        {
            // Polars' `sort` sorts the values themselves, unstably: -0.0
            // and 0.0, equal, land in an order of its own.
            let in_group_order = self.gather_column(&values, rows)?;
            let (negative, positive) = self.signed_zeros(in_group_order, starts)?;
            self.check_both_zeros(negative, positive, None, Self::SORTED_ZEROS)?;
        }
        let keys: Vec<_> = order
            .iter()
            .map(|order| (order.key.as_ref(), order.descending, order.nulls_last))
            .collect();
        let order = PickOrder::Keys(&keys, unstable.as_deref());
        let (values, sorted) = self.in_order(frame, values, order, rows, starts)?;
        // Both orders list the groups in the same places: position p is
        // the row rows[p] of the group, and takes the row sorted[p].
        let n = frame.height;
        let sources = DeviceBuffer::zeroed(n, self.ctx.memory.clone(), &self.ctx.stream)?;
        let scratch =
            DeviceBuffer::zeroed(n.div_ceil(32), self.ctx.memory.clone(), &self.ctx.stream)?;
        self.ops()
            .scatter(&sorted.sorted_rows, None, rows, &sources, &scratch)?;
        let mut column = self.gather_column(&values, &sources)?;
        column.name = name.into();
        Ok(column)
    }

    /// Polars' `rank` (`expr`) over `frame`, within each group of `groups`:
    /// the rows sorted by group, then value (nulls last), the runs of equal
    /// values found as a group-by finds groups, and each row's place counted
    /// from its group's start; nulls stay null.
    pub(crate) fn ranked(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let ExprKind::Rank {
            input,
            method,
            descending,
        } = &expr.kind
        else {
            return Err(ExecError::Unsupported(format!("`{expr}` is not a rank")));
        };
        let ops = self.ops();
        let n = frame.height;
        let (mut keyed, keys) = self.keyed_by_group(frame, input, groups)?;
        let mut order: Vec<(&GpuExpr, bool, bool)> =
            keys.iter().map(|key| (key, false, false)).collect();
        if let Some(value) = order.last_mut() {
            *value = (value.0, *descending, true);
        }
        let sorted = self.sorted_groups(&keyed, &order)?;
        let tie_of = ops.segment_ids(&sorted.starts, n)?;
        // Sorted by group first, the groups keep their places.
        let whole;
        let parts = match groups {
            Some((_, starts)) => starts,
            None => {
                whole = ops.iota(1, 0)?;
                &whole
            }
        };
        let part_of = ops.segment_ids(parts, n)?;
        let (rows, ties, parts) = (
            &sorted.sorted_rows,
            (&sorted.starts, &tie_of),
            (parts, &part_of),
        );
        let values = match (method, expr.dtype) {
            (RankMethod::Average, GpuDtype::Float64) => {
                Values::F64(ops.rank_averages(rows, ties, parts)?)
            }
            (_, GpuDtype::UInt32) => {
                let place = match method {
                    RankMethod::Min => RankPlace::Min,
                    RankMethod::Max => RankPlace::Max,
                    RankMethod::Dense => RankPlace::Dense,
                    _ => RankPlace::Ordinal,
                };
                Values::U32(ops.rank_places(rows, ties, parts, place)?)
            }
            _ => {
                return Err(ExecError::Unsupported(format!(
                    "`{expr}` as {}",
                    expr.dtype
                )));
            }
        };
        // Nulls stay null.
        let validity = keyed.columns.pop().and_then(|value| value.into_parts().1);
        Ok(DeviceColumn::from_parts(
            "".into(),
            expr.dtype,
            n,
            values,
            validity,
        ))
    }

    /// Polars' `is_unique`, `is_duplicated`, `is_first_distinct` or
    /// `is_last_distinct` of `input` over `frame` (within each group of
    /// `groups`): rows grouped by (group and) value, null being one value,
    /// each row's group's size, first or last row compared with the row.
    pub(crate) fn distinctness(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        test: DistinctTest,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let ops = self.ops();
        let n = frame.height;
        let (keyed, keys) = self.keyed_by_group(frame, input, groups)?;
        let equal = self.groups(&keyed, &keys.iter().collect::<Vec<_>>())?;
        let group_of_row = self.group_of_rows(&equal.sorted_rows, &equal.starts)?;
        let column = |values, dtype| DeviceColumn::from_parts("".into(), dtype, n, values, None);
        let (per_group, dtype) = match test {
            DistinctTest::Unique | DistinctTest::Duplicated => (
                Values::U32(ops.segment_count(None, &equal.starts, n)?),
                GpuDtype::UInt32,
            ),
            DistinctTest::FirstDistinct => (Values::I64(equal.first_rows), GpuDtype::Int64),
            DistinctTest::LastDistinct => {
                let (last, _) =
                    ops.segment_pick(SegmentPick::Last, &equal.sorted_rows, None, &equal.starts)?;
                (Values::I64(last), GpuDtype::Int64)
            }
        };
        // Each row's group's count (or first or last row), beside the row.
        let per_row = self.gather_column(&column(per_group, dtype), &group_of_row)?;
        let tested = DeviceFrame {
            columns: vec![
                per_row,
                column(Values::I64(ops.iota(n, 0)?), GpuDtype::Int64),
            ],
            height: n,
        };
        let (value, row) = (column_ref(0, dtype), column_ref(1, GpuDtype::Int64));
        let one = GpuExpr::literal(Scalar::UInt(1), dtype);
        let test = match test {
            DistinctTest::Unique => value.binary(BinaryOp::Eq, one, GpuDtype::Boolean),
            DistinctTest::Duplicated => value.binary(BinaryOp::Gt, one, GpuDtype::Boolean),
            _ => value.binary(BinaryOp::Eq, row, GpuDtype::Boolean),
        };
        self.evaluate(&tested, &test, "")
    }
}
