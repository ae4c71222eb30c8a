//! Membership (`is_in`) of values in another column, and of each row's item in its row's list; equality of each row's two lists: by codes of the values.

use super::*;

impl Executor<'_> {
    /// Polars' `is_in(other.implode())` (`expr`, an `IsInColumn`) over
    /// `frame`, within each group of `groups`: a semi join of the input
    /// with `other` (on the group number too, in groups), the rows it keeps
    /// marked in a bitmap by a scatter's validity; null where the input is
    /// null, unless nulls are equal.
    pub(crate) fn membership(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let ExprKind::IsInColumn {
            input,
            other,
            nulls_equal,
        } = &expr.kind
        else {
            return Err(ExecError::Unsupported(format!("`{expr}` is not is_in")));
        };
        let n = frame.height;
        // Both sides evaluated as they are in groups (a shift of `other`
        // within each group, as Polars shifts it there), in one frame that
        // is both sides of the join: the input, `other`, and in groups the
        // group number, a key of both.
        // (Small integers and f32 widened, as the join hashes and compares
        // wider ones.)
        let widened = |e: &GpuExpr| match e.dtype {
            GpuDtype::Float32 => cast_to(e, GpuDtype::Float64),
            _ => widened_key(e),
        };
        let mut sides = DeviceFrame {
            columns: vec![
                self.evaluate_in_groups(frame, &widened(input), "", groups)?,
                self.evaluate_in_groups(frame, &widened(other), "", groups)?,
            ],
            height: n,
        };
        let mut key_pairs = vec![(0, 1)];
        let mut on = vec![column_ref(0, sides.columns[0].dtype)];
        if let Some((rows, starts)) = groups {
            sides.columns.push(self.group_column(rows, starts)?);
            key_pairs.push((2, 2));
            on.push(column_ref(2, GpuDtype::Int64));
        }
        let kept = self.key_join(
            &sides,
            &sides,
            &key_pairs,
            &on,
            JoinKind::Semi,
            *nulls_equal,
        )?;
        let bits = self.rows_marked(&kept.left, n)?;
        let validity = match column_at(&sides, 0)?.validity() {
            Some(valid) if !nulls_equal => Some(self.copied_bits(valid, n)?),
            _ => None,
        };
        Ok(booleans(n, bits, validity))
    }

    /// Polars' `item.is_in(lists)` (`lists.list.contains(item)`) of an
    /// item and a list per row (`expr`, an `InLists`) over `frame`, each
    /// computed as it is in `groups`: a semi join of the items with the
    /// lists' values on (row, value), the value as the codes both sides
    /// group into (so that floats and nulls compare as Polars' `is_in`
    /// does); null where the list is null, and where the item is unless
    /// nulls are equal.
    pub(crate) fn in_lists(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let ExprKind::InLists {
            item,
            lists,
            nulls_equal,
        } = &expr.kind
        else {
            return Err(ExecError::Unsupported(format!("`{expr}` is not is_in")));
        };
        let ops = self.ops();
        let n = frame.height;
        let items = self.evaluate_in_groups(frame, item, "", groups)?;
        let lists = self.evaluate_in_groups(frame, lists, "", groups)?;
        let dtype = lists.dtype;
        let (Values::List { offsets, child }, lists_validity) = lists.into_parts() else {
            return Err(ExecError::Unsupported(format!("`{expr}` of no lists")));
        };
        let GpuDtype::List(of) = dtype else {
            return Err(ExecError::Unsupported(format!("`{expr}` of {dtype}")));
        };
        let values = DeviceColumn::from_child("".into(), of.values(), *child);
        // Each value's list (the offsets start at 0 and end at the values'
        // number: an empty list is no value's).
        let list_of = ops.widen(&ops.segment_ids(&offsets, values.len())?)?;
        let (item_codes, value_codes) = self.key_codes(&items, &values, *nulls_equal)?;
        let left = DeviceFrame {
            columns: vec![DeviceColumn::of_i64(ops.iota(n, 0)?), item_codes],
            height: n,
        };
        let right_height = values.len();
        let right = DeviceFrame {
            columns: vec![DeviceColumn::of_i64(list_of), value_codes],
            height: right_height,
        };
        // (The row first: the join hashes it, and compares the codes of
        // each row's own values alone.)
        let on = [
            column_ref(0, GpuDtype::Int64),
            column_ref(1, GpuDtype::Int64),
        ];
        let kept = self.key_join(&left, &right, &[(0, 0), (1, 1)], &on, JoinKind::Semi, false)?;
        let bits = self.rows_marked(&kept.left, n)?;
        let (_, item_validity) = items.into_parts();
        let item_validity = item_validity.filter(|_| !nulls_equal);
        let validity = match (lists_validity, item_validity) {
            (Some(lists), Some(items)) => {
                Some(ops.kleene((&lists, None), (&items, None), n, Logic::And)?.0)
            }
            (lists, items) => lists.or(items),
        };
        Ok(booleans(n, bits, validity))
    }

    /// Whether each row's two lists are equal ([`ExprKind::ListsEqual`]):
    /// both valid, as long, and with no place where their values' codes
    /// (as grouping counts values equal, a null equal to a null) differ;
    /// with `missing`, two null lists equal too.
    pub(crate) fn lists_equal(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let ExprKind::ListsEqual {
            left,
            right,
            missing,
        } = &expr.kind
        else {
            return Err(ExecError::Unsupported(format!(
                "`{expr}` is no list equality"
            )));
        };
        let ops = self.ops();
        let n = frame.height;
        let (int64, boolean) = (GpuDtype::Int64, GpuDtype::Boolean);
        // Each side's lists' bounds and values, and whether it is valid.
        let (mut rows, mut children, mut valid) = (Vec::new(), Vec::new(), Vec::new());
        for side in [left, right] {
            let lists = self.evaluate_in_groups(frame, side, "", groups)?;
            let dtype = lists.dtype;
            let (Values::List { offsets, child }, validity) = lists.into_parts() else {
                return Err(ExecError::Unsupported(format!("`{expr}` of no lists")));
            };
            let GpuDtype::List(of) = dtype else {
                return Err(ExecError::Unsupported(format!("`{expr}` of {dtype}")));
            };
            rows.extend(self.list_bounds(&offsets, n)?);
            children.push(DeviceColumn::from_child("".into(), of.values(), *child));
            valid.push(validity);
        }
        let all = GpuExpr::literal(Scalar::Boolean(true), boolean);
        let mut valid_of = Vec::new();
        for validity in valid {
            valid_of.push(match validity {
                Some(validity) => {
                    rows.push(self.validity_as_booleans(&validity, n)?);
                    column_ref(rows.len() - 1, boolean)
                }
                None => all.clone(),
            });
        }
        let rows = DeviceFrame {
            columns: rows,
            height: n,
        };
        let [first, end, right_first, right_end] = [0, 1, 2, 3].map(|i| column_ref(i, int64));
        let (left_valid, right_valid) = (valid_of[0].clone(), valid_of[1].clone());
        let len = end.binary(BinaryOp::Minus, first.clone(), int64);
        let right_len = right_end.binary(BinaryOp::Minus, right_first.clone(), int64);
        let both = left_valid
            .clone()
            .binary(BinaryOp::And, right_valid.clone(), boolean);
        let as_long = both.clone().binary(
            BinaryOp::And,
            len.clone().binary(BinaryOp::Eq, right_len, boolean),
            boolean,
        );
        // The values of each pair of lists as long, side by side: their
        // codes, and whether they differ.
        let zero = GpuExpr::literal(Scalar::Int(0), int64);
        let compared = as_long.clone().then(len, zero, int64);
        let counted = self.counted_lists(&rows, compared)?;
        let pairs = counted.rows.len();
        let per_value = |per_row: GpuExpr| -> Result<DeviceColumn, ExecError> {
            let per_row = self.evaluate_i64(&rows, &per_row)?;
            Ok(DeviceColumn::of_i64(
                ops.gather(&per_row, None, &counted.rows)?.0,
            ))
        };
        let places = DeviceFrame {
            columns: vec![per_value(first)?, per_value(right_first)?, counted.places],
            height: pairs,
        };
        let at = |side: usize| -> Result<DeviceBuffer<i64>, ExecError> {
            let at = column_ref(side, int64).binary(BinaryOp::Plus, column_ref(2, int64), int64);
            self.evaluate_i64(&places, &at)
        };
        let left_values = self.gather_column(&children[0], &at(0)?)?;
        let right_values = self.gather_column(&children[1], &at(1)?)?;
        let (left_codes, right_codes) = self.key_codes(&left_values, &right_values, true)?;
        let codes = DeviceFrame {
            columns: vec![left_codes, right_codes],
            height: pairs,
        };
        let differ = column_ref(0, int64).binary(BinaryOp::NotEq, column_ref(1, int64), boolean);
        let differ = self.evaluate_i64(&codes, &cast_to(&differ, int64))?;
        // Each row's number of differing places: the running count at its
        // lists' end less that at their start.
        let running = self.offsets_of(&differ)?;
        let running_at = |from: i64| -> Result<DeviceColumn, ExecError> {
            let (bounds, _) = ops.gather(&counted.offsets, None, &ops.iota(n, from)?)?;
            Ok(DeviceColumn::of_i64(ops.gather(&running, None, &bounds)?.0))
        };
        let (before, after) = (running_at(0)?, running_at(1)?);
        let mut rows = rows;
        rows.columns.extend([before, after]);
        let at = |i: usize| column_ref(rows.columns.len() - 2 + i, int64);
        let same = at(1).binary(BinaryOp::Eq, at(0), boolean);
        let equal = as_long.binary(BinaryOp::And, same, boolean);
        let result = match missing {
            // Two null lists equal; a null one unequal to a valid one.
            true => {
                let not = |e: GpuExpr| GpuExpr {
                    kind: ExprKind::Not(Box::new(e)),
                    dtype: boolean,
                };
                let both_null = not(left_valid).binary(BinaryOp::And, not(right_valid), boolean);
                equal.binary(BinaryOp::Or, both_null, boolean)
            }
            false => both.then(equal, GpuExpr::literal(Scalar::Null, boolean), boolean),
        };
        self.evaluate(&rows, &result, "")
    }

    /// A bitmap of `n` rows, set at the rows of `kept` (a semi join's left
    /// rows), by a scatter's validity.
    fn rows_marked(
        &self,
        kept: &DeviceBuffer<i64>,
        n: usize,
    ) -> Result<DeviceBuffer<u32>, ExecError> {
        let (memory, stream) = (self.ctx.memory.clone(), &self.ctx.stream);
        let scattered = DeviceBuffer::<i64>::zeroed(n, memory.clone(), stream)?;
        let bits = DeviceBuffer::<u32>::zeroed(n.div_ceil(32), memory, stream)?;
        self.ops().scatter(kept, None, kept, &scattered, &bits)?;
        Ok(bits)
    }
}

/// A boolean column of `n` rows: `bits`, null where `validity` says.
fn booleans(
    n: usize,
    bits: DeviceBuffer<u32>,
    validity: Option<DeviceBuffer<u32>>,
) -> DeviceColumn {
    DeviceColumn::from_parts(
        "".into(),
        GpuDtype::Boolean,
        n,
        Values::Bits(bits),
        validity,
    )
}
