//! Membership (`is_in`) of values in another column.

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
        let ops = self.ops();
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
        let scattered = DeviceBuffer::<i64>::zeroed(n, self.ctx.memory.clone(), &self.ctx.stream)?;
        let bits =
            DeviceBuffer::<u32>::zeroed(n.div_ceil(32), self.ctx.memory.clone(), &self.ctx.stream)?;
        ops.scatter(&kept.left, None, &kept.left, &scattered, &bits)?;
        let validity = match column_at(&sides, 0)?.validity() {
            Some(valid) if !nulls_equal => {
                let copy = DeviceBuffer::<u32>::zeroed(
                    n.div_ceil(32),
                    self.ctx.memory.clone(),
                    &self.ctx.stream,
                )?;
                ops.bitmap_append(Some(valid), n, &copy, 0)?;
                Some(copy)
            }
            _ => None,
        };
        Ok(DeviceColumn::from_parts(
            "".into(),
            GpuDtype::Boolean,
            n,
            Values::Bits(bits),
            validity,
        ))
    }
}
