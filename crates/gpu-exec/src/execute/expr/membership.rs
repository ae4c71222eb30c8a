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
    /// both valid and of one code (see [`Executor::list_codes`]: as long,
    /// values equal as grouping counts them, a null equal to a null),
    /// null where either is null; with `missing`, two null lists equal
    /// and a null one unequal to a valid one.
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
        let left = self.evaluate_in_groups(frame, left, "", groups)?;
        let right = self.evaluate_in_groups(frame, right, "", groups)?;
        // Both sides' lists coded together, null where a list is.
        let (left, right) = self.key_codes(&left, &right, false)?;
        let (int64, boolean) = (GpuDtype::Int64, GpuDtype::Boolean);
        let (a, b) = (column_ref(0, int64), column_ref(1, int64));
        let equal = a.clone().binary(BinaryOp::Eq, b.clone(), boolean);
        let result = match missing {
            true => {
                let both_null = a.is_null().binary(BinaryOp::And, b.is_null(), boolean);
                equal.fill_null(both_null)
            }
            false => equal,
        };
        let codes = DeviceFrame {
            columns: vec![left, right],
            height: frame.height,
        };
        self.evaluate(&codes, &result, "")
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
