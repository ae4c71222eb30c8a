//! Aggregations per group and of the whole frame.

use super::*;

/// `expr` with each aggregation in it replaced by a column of a frame of
/// their results (the i-th aggregation by column i), and the aggregations.
/// Columns outside an aggregation are an error: per group they are lists.
pub(crate) fn split_aggregations(expr: &GpuExpr) -> Result<(GpuExpr, Vec<GpuExpr>), String> {
    hoist_aggregations(expr, 0, false)
}

/// `expr` with each aggregation in it replaced by a column, the i-th by
/// column `first + i`, and the aggregations; with `keep_columns`, columns
/// outside aggregations stay (the row-wise context: aggregations broadcast),
/// and so do functions of lists and structs (with the aggregations inside
/// them: parts computed whole).
pub(crate) fn hoist_aggregations(
    expr: &GpuExpr,
    first: usize,
    keep_columns: bool,
) -> Result<(GpuExpr, Vec<GpuExpr>), String> {
    fn walk(
        expr: &mut GpuExpr,
        first: usize,
        keep_columns: bool,
        leaves: &mut Vec<GpuExpr>,
        in_parts: &mut bool,
    ) -> Result<(), String> {
        match expr.kind {
            // A function of a list or struct (or a struct's field), or one
            // the host applies, is a part computed first, with the
            // aggregations inside it (see `hoist_parts`):
            // `list.len(first(col("l")))`, `exp(max(col("x")))`.
            _ if keep_columns && (nested_part(expr) || host_part_supported(expr)) => {
                *in_parts |= expr.has_aggregation();
                Ok(())
            }
            ExprKind::Agg { .. } | ExprKind::Len => {
                let index = leaves.len();
                let result =
                    GpuExpr::column(first + index, format!("__aggregation_{index}"), expr.dtype);
                leaves.push(std::mem::replace(expr, result));
                Ok(())
            }
            ExprKind::Column { .. } if !keep_columns => {
                Err(format!("`{expr}` outside an aggregation"))
            }
            // A window aggregates within itself: in a row-wise expression it
            // is a part computed first (see `hoist_parts`).
            ExprKind::Window { .. } if keep_columns => Ok(()),
            ExprKind::Window { .. } => Err(format!("a window (`{expr}`) among aggregations")),
            _ => expr
                .children_mut()
                .into_iter()
                .try_for_each(|child| walk(child, first, keep_columns, leaves, in_parts)),
        }
    }
    let mut outer = expr.clone();
    let mut leaves = Vec::new();
    let mut in_parts = false;
    walk(&mut outer, first, keep_columns, &mut leaves, &mut in_parts)?;
    if leaves.is_empty() && keep_columns && !in_parts {
        return Err("no aggregation".into());
    }
    // Without columns, no leaf is a constant: one value per group (or for
    // the frame), as Polars holds a literal.
    Ok((outer, leaves))
}

/// An aggregation other than `first` or `last` of a filter's kept rows
/// (`ExprKind::Where`) as the same aggregation of the input with null where
/// the filter does not keep the row: per group the two agree (the
/// aggregations skip nulls). `None` for any other expression.
pub(crate) fn filter_as_nulls(expr: &GpuExpr) -> Option<GpuExpr> {
    let ExprKind::Agg { op, input } = &expr.kind else {
        return None;
    };
    let ExprKind::Where { input: kept, by } = &input.kind else {
        return None;
    };
    if matches!(op, AggOp::First | AggOp::Last) {
        return None;
    }
    let null = GpuExpr::literal(Scalar::Null, kept.dtype);
    let nulled = by
        .as_ref()
        .clone()
        .then(kept.as_ref().clone(), null, kept.dtype);
    Some(nulled.aggregated(op.clone(), expr.dtype))
}

/// The column of `frame` that `input` names, as it is, where aggregating
/// it by `op` may read it in place instead of a copy made by the expression
/// kernel: a reference to a column of every row, of its type, of numbers
/// the reductions take (whose kernels skip null rows whatever value they
/// hold).
pub(crate) fn column_as_is<'f>(
    frame: &'f DeviceFrame,
    input: &GpuExpr,
    op: &AggOp,
) -> Option<&'f DeviceColumn> {
    let ExprKind::Column {
        index,
        held: Held::PerRow,
        ..
    } = &input.kind
    else {
        return None;
    };
    let reads_in_place = matches!(
        op,
        AggOp::Sum
            | AggOp::Product
            | AggOp::Mean
            | AggOp::Min { .. }
            | AggOp::Max { .. }
            | AggOp::First
            | AggOp::Last
            | AggOp::Count { .. }
    );
    let column = frame.columns.get(*index)?;
    let numbers = matches!(
        column.values(),
        Values::I32(_) | Values::I64(_) | Values::U32(_) | Values::U64(_) | Values::F64(_)
    );
    (reads_in_place && numbers && column.dtype == input.dtype && column.len() == frame.height)
        .then_some(column)
}

/// Each group's product of the valid `values` (1 for none), the rows
/// taken in group order (`sorted_rows`; `None`: the values are in that
/// order already, as a whole frame's one group is).
pub(crate) fn group_products<T: Multipliable + Gather>(
    ops: &Ops<'_>,
    values: &DeviceBuffer<T>,
    validity: Option<&DeviceBuffer<u32>>,
    sorted_rows: Option<&DeviceBuffer<i64>>,
    starts: &DeviceBuffer<i64>,
) -> Result<DeviceBuffer<T>, RuntimeError> {
    let Some(sorted_rows) = sorted_rows else {
        return ops.segment_product(values, validity, starts);
    };
    let (sorted, valid) = ops.gather(values, validity, sorted_rows)?;
    ops.segment_product(&sorted, Some(&valid), starts)
}

/// Whether `count`, a u64 number of valid values, is above zero.
pub(crate) fn some_valid(count: GpuExpr) -> GpuExpr {
    let zero = GpuExpr::literal(Scalar::UInt(0), GpuDtype::UInt64);
    count.binary(BinaryOp::Gt, zero, GpuDtype::Boolean)
}

pub(crate) use ir_lower::support::widened_aggregation;

impl Executor<'_> {
    /// An aggregation, or an elementwise expression of aggregations, per
    /// group (`whole`: of the whole frame, one group of every row in row
    /// order): the aggregations first, then the expression over their results.
    pub(crate) fn aggregate_expr(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        (sorted_rows, starts): (&DeviceBuffer<i64>, &DeviceBuffer<i64>),
        whole: bool,
    ) -> Result<DeviceColumn, ExecError> {
        let aggregate = |leaf: &GpuExpr| {
            if whole {
                self.aggregate_whole(frame, leaf, sorted_rows, starts)
            } else {
                self.aggregate(frame, leaf, sorted_rows, starts, false)
            }
        };
        if matches!(expr.kind, ExprKind::Agg { .. } | ExprKind::Len) {
            return aggregate(expr);
        }
        let (outer, leaves) = split_aggregations(expr).map_err(|why| {
            ExecError::Unsupported(not_yet(format_args!("aggregation `{expr}` ({why})")))
        })?;
        let columns = leaves.iter().map(aggregate).collect::<Result<_, _>>()?;
        let results = DeviceFrame {
            columns,
            height: starts.len(),
        };
        self.evaluate(&results, &outer, "")
    }

    /// One aggregation of the whole frame (`rows` and `starts`: one group
    /// of every row, in row order). Polars sums a float column (of one
    /// chunk) pairwise and takes a mean of numbers as that sum of the
    /// values as f64 divided by their number, so `sum` of f64 and `mean` of
    /// integers and f64 follow its order bit for bit ([`Ops::pairwise_sum`]);
    /// the others are [`Executor::aggregate`]'s.
    pub(crate) fn aggregate_whole(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceColumn, ExecError> {
        let (float, single) = (GpuDtype::Float64, GpuDtype::Float32);
        // Sums of f64, and of f32 in f32; means of f64 and integers in f64
        // (ir-lower widens f32 for its means, as Polars takes them).
        let pairwise = match &expr.kind {
            ExprKind::Agg {
                op: AggOp::Sum,
                input,
            } => [float, single].contains(&input.dtype) && expr.dtype == input.dtype,
            ExprKind::Agg {
                op: AggOp::Mean,
                input,
            } => (input.dtype == float || input.dtype.is_integer()) && expr.dtype == float,
            _ => false,
        };
        let ExprKind::Agg { op, input } = &expr.kind else {
            return self.aggregate(frame, expr, rows, starts, true);
        };
        if !pairwise {
            return self.aggregate(frame, expr, rows, starts, true);
        }
        let ops = self.ops();
        let whole = Some((rows, starts));
        // A column of floats is summed in place; other values are evaluated
        // (of a filter: only the values it keeps, as Polars sums the
        // filtered column) and made f64 first.
        let (evaluated, made);
        let as_they_are = input.dtype.is_float();
        let (values, validity, n) = match column_as_is(frame, input, op) {
            Some(column) if as_they_are => (column.values(), column.validity(), column.len()),
            _ => {
                evaluated = self.evaluated_for_whole(frame, input, whole)?;
                let column = if as_they_are {
                    &evaluated.columns[0]
                } else {
                    made = self.evaluate(
                        &evaluated,
                        &cast_to(&column_ref(0, input.dtype), float),
                        "",
                    )?;
                    &made
                };
                (column.values(), column.validity(), evaluated.height)
            }
        };
        let (sum, dtype) = match values {
            Values::F64(values) => (Values::F64(ops.pairwise_sum(values, validity)?), float),
            Values::F32(values) => (Values::F32(ops.pairwise_sum(values, validity)?), single),
            _ => return Err(ExecError::Unsupported(format!("`{input}` as floats"))),
        };
        let sum = DeviceColumn::from_parts("".into(), dtype, 1, sum, None);
        if *op == AggOp::Sum {
            return Ok(sum);
        }
        // The mean: null without a valid value.
        let results = DeviceFrame {
            columns: vec![sum, self.valid_count(validity, n)?],
            height: 1,
        };
        let count = column_ref(1, GpuDtype::UInt64);
        let mean = column_ref(0, float).binary(BinaryOp::TrueDivide, cast_to(&count, float), float);
        let none = GpuExpr::literal(Scalar::Null, float);
        self.evaluate(&results, &some_valid(count).then(mean, none, float), "")
    }

    /// The values a whole frame's pairwise sum adds, as a frame of one
    /// column: `input` evaluated, or of a filter, the values it keeps
    /// (Polars sums the filtered column).
    pub(crate) fn evaluated_for_whole(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        whole: InGroups<'_>,
    ) -> Result<DeviceFrame, ExecError> {
        Ok(match &input.kind {
            ExprKind::Where { input: kept, by } => {
                let both = DeviceFrame {
                    columns: vec![
                        self.evaluate_in_groups(frame, kept, "", whole)?,
                        self.evaluate_in_groups(frame, by, "", whole)?,
                    ],
                    height: frame.height,
                };
                let mut kept = self.filter(&both, &column_ref(1, GpuDtype::Boolean))?;
                kept.columns.truncate(1);
                kept
            }
            _ => DeviceFrame {
                columns: vec![self.evaluate_in_groups(frame, input, "", whole)?],
                height: frame.height,
            },
        })
    }

    /// How many of a whole frame's `n` values are valid, as one u64: the
    /// device-wide count of the validity's set bits (`n` without one).
    pub(crate) fn valid_count(
        &self,
        validity: Option<&DeviceBuffer<u32>>,
        n: usize,
    ) -> Result<DeviceColumn, ExecError> {
        let count = match validity {
            Some(bits) => self.ops().count_set(bits, n)?,
            None => {
                DeviceBuffer::from_host(&[n as u64], self.ctx.memory.clone(), &self.ctx.stream)?
            }
        };
        let count = Values::U64(count);
        Ok(DeviceColumn::from_parts(
            "".into(),
            GpuDtype::UInt64,
            1,
            count,
            None,
        ))
    }

    /// `value`, a whole frame's aggregation of its `n` values (`validity`:
    /// theirs), null where none of them is valid.
    pub(crate) fn null_without_values(
        &self,
        value: DeviceColumn,
        validity: Option<&DeviceBuffer<u32>>,
        n: usize,
    ) -> Result<DeviceColumn, ExecError> {
        if validity.is_none() && n > 0 {
            return Ok(value);
        }
        let count = DeviceFrame {
            columns: vec![self.valid_count(validity, n)?],
            height: 1,
        };
        let some = some_valid(column_ref(0, GpuDtype::UInt64));
        let Values::Bits(some) = self.evaluate(&count, &some, "")?.into_parts().0 else {
            return Err(ExecError::Unsupported("a comparison not as bits".into()));
        };
        let (name, dtype) = (value.name.clone(), value.dtype);
        let (values, _) = value.into_parts();
        Ok(DeviceColumn::from_parts(name, dtype, 1, values, Some(some)))
    }

    /// Polars' `item` per group: the group's first value, and a check read
    /// once the result is on the host that every group has one row (or
    /// none, with `allow_empty`; its value is then null): Polars raises
    /// otherwise, so the collect falls back for Polars to raise its error.
    pub(crate) fn item(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        allow_empty: bool,
        sorted_rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceColumn, ExecError> {
        let ExprKind::Agg { input, .. } = &expr.kind else {
            return Err(ExecError::Unsupported(format!("`{expr}` is not item")));
        };
        let first = input.as_ref().clone().aggregated(AggOp::First, expr.dtype);
        let value = self.aggregate(frame, &first, sorted_rows, starts, false)?;
        let ops = self.ops();
        let count = starts.len();
        let lengths = DeviceFrame {
            columns: vec![DeviceColumn::from_parts(
                "".into(),
                GpuDtype::UInt32,
                count,
                Values::U32(ops.segment_count(None, starts, sorted_rows.len())?),
                None,
            )],
            height: count,
        };
        let length = column_ref(0, GpuDtype::UInt32);
        let number = |n| GpuExpr::literal(Scalar::UInt(n), GpuDtype::UInt32);
        let boolean = GpuDtype::Boolean;
        let wrong = if allow_empty {
            length.binary(BinaryOp::Gt, number(1), boolean)
        } else {
            length.binary(BinaryOp::NotEq, number(1), boolean)
        };
        let what = format!("`{expr}` of a group without exactly one row");
        self.check_any_later(&lengths, wrong, what, ExecError::InvalidData)?;
        Ok(value)
    }

    /// Polars' `get` per group (`input` at `index`, from the end when
    /// negative), as `list.get` of each group's values: null where a group
    /// has no such place with `null_on_oob`, else a check read once the
    /// result is on the host (Polars raises, so the collect falls back for
    /// Polars to raise its error).
    pub(crate) fn got(
        &self,
        frame: &DeviceFrame,
        (input, index, null_on_oob): (&GpuExpr, i64, bool),
        sorted_rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceColumn, ExecError> {
        let groups = Some((sorted_rows, starts));
        let mut owned = None;
        let values = self.column_in_groups(frame, input, "", &mut owned, groups)?;
        let (rows, outside) = self.rows_at_place(sorted_rows, starts, index)?;
        if !null_on_oob {
            let what = format!("`{input}` has no place {index} in a group");
            self.check_later(outside, what, ExecError::InvalidData);
        }
        self.gather_column(values, &rows)
    }

    /// The row at `index` of each group (`sorted_rows` by group, from
    /// `starts`; from the group's end when negative), as `list.get` takes
    /// a list's place: -1 (a null, gathered) where the group has no such
    /// place, and a flag set to 1 where one had none.
    pub(crate) fn rows_at_place(
        &self,
        sorted_rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
        index: i64,
    ) -> Result<(DeviceBuffer<i64>, DeviceBuffer<u32>), ExecError> {
        let ops = self.ops();
        let groups = starts.len();
        let bounds = self.group_bounds(starts, sorted_rows.len())?;
        let (places, outside) = ops.list_get_rows(&bounds, None, index)?;
        let (rows, some) = ops.gather(sorted_rows, None, &places)?;
        let picked = DeviceFrame {
            columns: vec![DeviceColumn::from_parts(
                "".into(),
                GpuDtype::Int64,
                groups,
                Values::I64(rows),
                Some(some),
            )],
            height: groups,
        };
        let none = GpuExpr::literal(Scalar::Int(-1), GpuDtype::Int64);
        let rows = self.evaluate_i64(&picked, &column_ref(0, GpuDtype::Int64).fill_null(none))?;
        Ok((rows, outside))
    }

    /// One aggregation per group: the input evaluated, put in the sorted
    /// order, and reduced segment by segment. `whole`: the groups are one
    /// group of every row in row order (a whole frame's), whose sums,
    /// minima and maxima of numbers are the device-wide reductions of the
    /// values as they are, and whose spreads are Polars' of a column (as
    /// of each list's values, which `list.var` and `list.std` pass so).
    pub(crate) fn aggregate(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        sorted_rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
        whole: bool,
    ) -> Result<DeviceColumn, ExecError> {
        let ops = self.ops();
        let groups = starts.len();
        let column = |values, validity| {
            DeviceColumn::from_parts("".into(), expr.dtype, groups, values, validity)
        };
        let ExprKind::Agg { op, input } = &expr.kind else {
            let lengths = ops.segment_count(None, starts, sorted_rows.len())?;
            return Ok(column(Values::U32(lengths), None));
        };
        if let AggOp::Implode = op {
            return self.imploded(frame, input, expr.dtype, sorted_rows, starts);
        }
        if let AggOp::Mode { maintain_order } = op {
            let how = (expr.dtype, *maintain_order);
            return self.modes(frame, input, how, (sorted_rows, starts));
        }
        if let Some(rewritten) = filter_as_nulls(expr) {
            let result = self.aggregate(frame, &rewritten, sorted_rows, starts, whole)?;
            if let (AggOp::Std { .. } | AggOp::Var { .. }, ExprKind::Agg { input: kept, .. }) =
                (op, &rewritten.kind)
            {
                // Polars takes a filter's kept values per group as lists,
                // whose spread of no valid value or of one not finite is
                // its own (0.0 of one null, or of one infinite value);
                // the rewritten input, a ternary, does not show it.
                self.check_kept_values(frame, kept, sorted_rows, starts, whole)?;
            }
            return Ok(result);
        }
        // An aggregation the order does not change (ir-lower leaves no
        // other but picks) of values in another's order: of the values as
        // they come.
        if let ExprKind::SortedBy { input: values, .. } = &input.kind
            && ir_lower::support::order_free(op, values.dtype)
        {
            let unsorted = values.as_ref().clone().aggregated(op.clone(), expr.dtype);
            return self.aggregate(frame, &unsorted, sorted_rows, starts, whole);
        }
        if let AggOp::Item { allow_empty } = op {
            return self.item(frame, expr, *allow_empty, sorted_rows, starts);
        }
        if let AggOp::Get { index, null_on_oob } = op {
            return self.got(frame, (input, *index, *null_on_oob), sorted_rows, starts);
        }
        // A first or last row in an order of its own (other aggregations
        // of such inputs are widened or evaluated per group below).
        let picks = matches!(op, AggOp::First | AggOp::Last);
        if picks && let ExprKind::Where { input: kept, by } = &input.kind {
            let last = matches!(op, AggOp::Last);
            return self.first_kept(frame, (kept, by), last, sorted_rows, starts);
        }
        if picks
            && let ExprKind::SortedBy {
                input: values,
                order,
                unstable,
            } = &input.kind
        {
            let last = matches!(op, AggOp::Last);
            let groups = Some((sorted_rows, starts));
            let values = self.evaluate_in_groups(frame, values, "", groups)?;
            let keys: Vec<_> = order
                .iter()
                .map(|order| (order.key.as_ref(), order.descending, order.nulls_last))
                .collect();
            let order = PickOrder::Keys(&keys, unstable.as_deref());
            return self.pick_in_order(frame, values, order, last, sorted_rows, starts);
        }
        if let Some((wide, back)) = widened_aggregation(expr) {
            let value = self.aggregate(frame, &wide, sorted_rows, starts, whole)?;
            let Some(back) = back else {
                return Ok(value);
            };
            let dtype = value.dtype;
            let values = DeviceFrame {
                columns: vec![value],
                height: groups,
            };
            return self.evaluate(&values, &cast_to(&column_ref(0, dtype), back), "");
        }

        if let AggOp::ArgMin | AggOp::ArgMax = op {
            // Of a group of no valid value: null of a column, 0 of an input
            // Polars takes per group as lists or of groups it takes as slices.
            let what = "the place of an extreme of a group with no valid value (Polars \
                        gives 0 or null, by its path)";
            // (A computed input's column may be one Polars made whole of
            // nulls, which it marks sorted: of groups it takes as slices, a
            // group-by's with a slice among them, it then gives 0.)
            let computed = !matches!(input.kind, ExprKind::Column { .. });
            if !whole && (input.taken_as_lists_per_group() || computed) {
                self.check_no_valid_value(frame, input, sorted_rows, starts, whole, what)?;
            } else if !whole && self.one_key_groups.get() {
                let groups = (sorted_rows, starts);
                self.check_no_valid_value_in_runs(frame, input, groups, false, what)?;
            }
            let minimum = matches!(op, AggOp::ArgMin);
            return self.arg_extreme(frame, input, minimum, sorted_rows, starts);
        }
        if matches!(op, AggOp::Std { .. } | AggOp::Var { .. }) && !whole {
            // A group of no valid value: Polars' spread is null of a column
            // (Welford's over the group's rows), 0.0 of an input it takes
            // per group as lists (see `taken_as_lists_per_group`) or of
            // groups it takes as slices.
            if input.taken_as_lists_per_group() {
                self.check_kept_values(frame, input, sorted_rows, starts, whole)?;
            } else if self.one_key_groups.get() {
                let what = "a spread of a group with no valid value or one not finite \
                            (Polars gives 0.0, null or NaN, by its path)";
                let groups = (sorted_rows, starts);
                self.check_no_valid_value_in_runs(frame, input, groups, true, what)?;
            }
        }
        // Spreads and quantiles read floats: the cast runs in the input's launch.
        let reads_floats = matches!(
            op,
            AggOp::Std { .. } | AggOp::Var { .. } | AggOp::Median | AggOp::Quantile { .. }
        );
        let cast;
        let input = if reads_floats && input.dtype != GpuDtype::Float64 {
            cast = cast_to(input, GpuDtype::Float64);
            &cast
        } else if input.dtype == GpuDtype::Boolean && matches!(op, AggOp::Sum) {
            // A sum of booleans counts the true values.
            cast = cast_to(input, GpuDtype::UInt32);
            &cast
        } else {
            input.as_ref()
        };
        if let (AggOp::NUnique, Some(fields)) = (op, ir_lower::support::struct_of_keys(input)) {
            // Distinct structs: distinct codes of their fields together.
            let codes = self.struct_codes(frame, fields, Some((sorted_rows, starts)))?;
            let code = column_ref(0, GpuDtype::Int64);
            let counts = self.count_distinct(&codes, &code, sorted_rows, starts)?;
            return Ok(column(Values::U32(counts), None));
        }
        if let (AggOp::NUnique, GpuDtype::List(_)) = (op, input.dtype) {
            // Distinct lists: distinct codes of lists (a null list one
            // more value).
            let groups = Some((sorted_rows, starts));
            let lists = self.evaluate_in_groups(frame, input, "", groups)?;
            let codes = self.list_codes(&lists)?;
            let code = column_ref(0, GpuDtype::Int64);
            let counts = self.count_distinct(&codes, &code, sorted_rows, starts)?;
            return Ok(column(Values::U32(counts), None));
        }
        // Aggregations inside the input are this aggregation's groups'.
        let as_is = column_as_is(frame, input, op);
        let mut owned = None;
        if as_is.is_none() {
            owned = Some(self.evaluate_in_groups(frame, input, "", Some((sorted_rows, starts)))?);
        }
        let Some(evaluated) = as_is.or(owned.as_ref()) else {
            return Err(ExecError::Unsupported(format!("`{input}` not evaluated")));
        };
        match op {
            AggOp::NUnique => {
                let counts = self.count_distinct(evaluated, input, sorted_rows, starts)?;
                return Ok(column(Values::U32(counts), None));
            }
            AggOp::Std { ddof, in_chunks } | AggOp::Var { ddof, in_chunks } => {
                let Values::F64(v) = evaluated.values() else {
                    return Err(ExecError::Unsupported(format!("`{input}` as f64")));
                };
                let (sorted, valid) = ops.gather(v, evaluated.validity(), sorted_rows)?;
                let std = matches!(op, AggOp::Std { .. });
                // Polars takes a whole frame's spread as a column's (in
                // chunks), so too each group's values it takes as a list
                // and the groups of a key it holds sorted (as slices); a
                // group-by's groups otherwise by Welford's steps.
                let of = match whole || *in_chunks || input.taken_as_lists_per_group() {
                    true => VarianceOf::Columns,
                    false => VarianceOf::Groups,
                };
                let (out, out_valid) =
                    ops.segment_variance(&sorted, Some(&valid), starts, (*ddof, std), of)?;
                return Ok(column(Values::F64(out), Some(out_valid)));
            }
            AggOp::Median | AggOp::Quantile { .. } => {
                let (q, method) = match op {
                    AggOp::Quantile { quantile, method } => (*quantile, *method),
                    _ => (0.5, "linear"),
                };
                let method = QuantileMethod::from_name(method).ok_or_else(|| {
                    ExecError::Unsupported(not_yet(format_args!("quantile method {method}")))
                })?;
                let (out, out_valid) = self.quantiles(evaluated, sorted_rows, starts, q, method)?;
                return Ok(column(Values::F64(out), Some(out_valid)));
            }
            _ => {}
        }
        if let AggOp::Join {
            separator,
            ignore_nulls,
        } = op
        {
            return self.joined_texts(evaluated, (separator, *ignore_nulls), sorted_rows, starts);
        }
        let validity = evaluated.validity();
        if let AggOp::Product = op {
            // (Smaller integers and booleans were widened to i64 above.) A
            // whole frame's rows are in row order: multiplied where they are
            // (floats in that order, each group's in its rows' order).
            let rows = (!whole).then_some(sorted_rows);
            let products = match evaluated.values() {
                Values::I64(v) => Values::I64(group_products(&ops, v, validity, rows, starts)?),
                Values::U64(v) => Values::U64(group_products(&ops, v, validity, rows, starts)?),
                Values::F64(v) => Values::F64(group_products(&ops, v, validity, rows, starts)?),
                Values::F32(v) => Values::F32(group_products(&ops, v, validity, rows, starts)?),
                _ => {
                    return Err(ExecError::Unsupported(not_yet(format_args!(
                        "the product of `{input}`"
                    ))));
                }
            };
            return Ok(column(products, None));
        }
        if let AggOp::Count { include_nulls } = op {
            // Counting needs only the validity, so any dtype can be counted.
            let counted = match (include_nulls, validity) {
                (false, Some(bits)) => {
                    let (sorted_bits, _) =
                        ops.gather_bits(bits, evaluated.len(), None, sorted_rows)?;
                    Some(sorted_bits)
                }
                _ => None,
            };
            let counts = ops.segment_count(counted.as_ref(), starts, sorted_rows.len())?;
            return Ok(column(Values::U32(counts), None));
        }
        // (A categorical's extremes are its texts': picked in their order,
        // not reduced as codes.)
        let by_texts = matches!(input.dtype, GpuDtype::Categorical(d) if !d.is_enum());
        let reduced = !by_texts
            && matches!(
                evaluated.values(),
                Values::I32(_) | Values::I64(_) | Values::U32(_) | Values::U64(_) | Values::F64(_)
            );
        match op {
            // Of other types: each group's first or last row, gathered.
            // (An empty group, a list's as a group, has no row: -1, a null.)
            AggOp::First | AggOp::Last if !reduced => {
                let index = if matches!(op, AggOp::First) { 0 } else { -1 };
                let (rows, _) = self.rows_at_place(sorted_rows, starts, index)?;
                return self.gather_column(evaluated, &rows);
            }
            AggOp::Min { .. } | AggOp::Max { .. } if !reduced => {
                let max = matches!(op, AggOp::Max { .. });
                // The first valid value in the value's order, nulls last.
                let order = PickOrder::Values {
                    descending: max,
                    nulls_last: true,
                };
                let values = match owned.take() {
                    Some(values) => values,
                    None => {
                        self.evaluate_in_groups(frame, input, "", Some((sorted_rows, starts)))?
                    }
                };
                return self.pick_in_order(frame, values, order, false, sorted_rows, starts);
            }
            _ => {}
        }
        let n = evaluated.len();
        macro_rules! reduce {
            // 64-bit integers: a whole frame's sum is the device-wide one.
            ($variant:ident, $values:expr, sum) => {{
                if whole && matches!(op, AggOp::Sum) {
                    let sum = ops.reduce_sum($values, validity)?;
                    return Ok(column(Values::$variant(sum), None));
                }
                reduce!($variant, $values)
            }};
            // 32-bit integers: summed in 64 bits, then wrapped back (Polars
            // sums them in their own type).
            ($variant:ident, $values:expr, sum in $wide:ident $wide_dtype:ident) => {{
                if whole && matches!(op, AggOp::Sum) {
                    let sum = Values::$wide(ops.reduce_sum($values, validity)?);
                    let wide = GpuDtype::$wide_dtype;
                    let sums = DeviceFrame {
                        columns: vec![DeviceColumn::from_parts("".into(), wide, 1, sum, None)],
                        height: 1,
                    };
                    let wrapped = column_ref(0, wide).cast(expr.dtype, CastMode::Wrapping);
                    return self.evaluate(&sums, &wrapped, "");
                }
                reduce!($variant, $values)
            }};
            // Minima and maxima of a whole frame are the device-wide ones.
            ($variant:ident, $values:expr) => {{
                if whole && matches!(op, AggOp::Min { .. } | AggOp::Max { .. }) {
                    let max = matches!(op, AggOp::Max { .. });
                    let extreme = ops.reduce_extreme($values, validity, max)?;
                    let extreme = column(Values::$variant(extreme), None);
                    let extreme = self.null_without_values(extreme, validity, n)?;
                    if !evaluated.dtype.is_float() {
                        return Ok(extreme);
                    }
                    // Which zero Polars' kernel gives of -0.0 and 0.0 is its
                    // own (its lanes' order).
                    let (picked, valid) = match extreme.into_parts() {
                        (Values::F64(picked), Some(valid)) => (picked, valid),
                        (Values::F64(picked), None) => {
                            let (memory, stream) = (self.ctx.memory.clone(), &self.ctx.stream);
                            (picked, DeviceBuffer::from_host(&[1u32], memory, stream)?)
                        }
                        _ => return Err(ExecError::Unsupported("a float extreme".into())),
                    };
                    let values = self.gather_column(evaluated, &ops.iota(n, 0)?)?;
                    let (picked, valid) =
                        self.check_zero_picks(values, &ops.iota(1, 0)?, (picked, valid))?;
                    return Ok(column(Values::F64(picked), Some(valid)));
                }
                let (sorted, valid) = ops.gather($values, validity, sorted_rows)?;
                let valid = Some(&valid);
                match op {
                    AggOp::Sum => column(
                        Values::$variant(ops.segment_sum(&sorted, valid, starts)?),
                        None,
                    ),
                    AggOp::Mean => {
                        let (means, mean_valid) = ops.segment_mean(&sorted, valid, starts)?;
                        column(Values::F64(means), Some(mean_valid))
                    }
                    AggOp::Min { .. } | AggOp::Max { .. } | AggOp::First | AggOp::Last => {
                        let pick = match op {
                            AggOp::Min { .. } => SegmentPick::Min,
                            AggOp::Max { .. } => SegmentPick::Max,
                            AggOp::First => SegmentPick::First,
                            _ => SegmentPick::Last,
                        };
                        let (picked, picked_valid) =
                            ops.segment_pick(pick, &sorted, valid, starts)?;
                        column(Values::$variant(picked), Some(picked_valid))
                    }
                    other => {
                        return Err(ExecError::Unsupported(not_yet(format_args!(
                            "aggregation {other}"
                        ))));
                    }
                }
            }};
        }
        Ok(match evaluated.values() {
            Values::I32(v) => reduce!(I32, v, sum in I64 Int64),
            Values::I64(v) => reduce!(I64, v, sum),
            Values::U32(v) => reduce!(U32, v, sum in U64 UInt64),
            Values::U64(v) => reduce!(U64, v, sum),
            // Float sums of a whole frame are Polars' pairwise ones
            // (`aggregate_whole`).
            Values::F64(v) => reduce!(F64, v),
            _ => {
                return Err(ExecError::Unsupported(not_yet(format_args!(
                    "aggregating `{input}`"
                ))));
            }
        })
    }

    /// The quantile `q` of each group's valid values (`values` by row):
    /// each group's rows sorted by value (nulls first), then reduced.
    pub(crate) fn quantiles(
        &self,
        values: &DeviceColumn,
        sorted_rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
        q: f64,
        method: QuantileMethod,
    ) -> Result<(DeviceBuffer<f64>, DeviceBuffer<u32>), ExecError> {
        let in_groups = self.gather_column(values, sorted_rows)?;
        let (order, _) = self.order_in_groups(&KeyWords::Column(&in_groups), starts)?;
        let ordered = self.gather_column(&in_groups, &order)?;
        let Values::F64(v) = ordered.values() else {
            return Err(ExecError::Unsupported("quantiles of non-f64 values".into()));
        };
        let ops = self.ops();
        let picked = ops.segment_quantile(v, ordered.validity(), starts, q, method)?;
        self.check_zero_picks(in_groups, starts, picked)
    }

    /// The distinct values of `column` (the values of `expr`; null is one
    /// value) in each group: the group's rows sorted by (group, value), and
    /// the places where either changes counted per group.
    pub(crate) fn count_distinct(
        &self,
        column: &DeviceColumn,
        expr: &GpuExpr,
        sorted_rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceBuffer<u32>, ExecError> {
        let ops = self.ops();
        let n = sorted_rows.len();
        if n == 0 {
            return Ok(ops.segment_count(None, starts, 0)?);
        }
        // Position p holds row sorted_rows[p]; groups are runs of positions.
        let in_groups = self.gather_column(column, sorted_rows)?;
        let key = self.group_key_words(&in_groups, expr)?;
        let (order, group_ids) = self.order_in_groups(&key, starts)?;
        let flags = ops.group_flags(n)?;
        let (ordered_ids, _) = ops.gather(&group_ids, None, &order)?;
        ops.mark_group_starts(&ordered_ids, None, &flags)?;
        self.mark_key_changes(&key, &order, &flags)?;
        let changes = ops.flags_bitmap(&flags, n)?;
        Ok(ops.segment_count(Some(&changes), starts, n)?)
    }
}
