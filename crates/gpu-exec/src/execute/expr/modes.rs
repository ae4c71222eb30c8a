//! Polars' `mode` per group: each group's values of the most rows, listed in order of first appearance.

use super::*;

impl Executor<'_> {
    /// The modes of `input` in each group of `frame` (`sorted_rows` by
    /// group, from `starts`), lists of `dtype` ([`AggOp::Mode`]): the rows
    /// grouped by group and value (a null a value too), each pair counted;
    /// the pairs of each group's greatest count kept and listed by their
    /// first rows. Without `maintain_order`, a group of more than one mode
    /// leaves the query to Polars, which lists them in an order of its own.
    pub(crate) fn modes(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        (dtype, maintain_order): (GpuDtype, bool),
        (sorted_rows, starts): (&DeviceBuffer<i64>, &DeviceBuffer<i64>),
    ) -> Result<DeviceColumn, ExecError> {
        let ops = self.ops();
        let (n, groups) = (sorted_rows.len(), starts.len());
        let (int64, count) = (GpuDtype::Int64, GpuDtype::UInt32);
        let mut owned = None;
        let values =
            self.column_in_groups(frame, input, "", &mut owned, Some((sorted_rows, starts)))?;
        if n == 0 {
            // (No rows: every group's list empty.)
            let memory = self.ctx.memory.clone();
            let offsets = DeviceBuffer::zeroed(groups + 1, memory, &self.ctx.stream)?;
            let child = self.gather_column(values, &ops.iota(0, 0)?)?.into_child();
            return Ok(DeviceColumn::listed(dtype, offsets, child, None));
        }
        // Each pair of a group and a value: its rows (the first is its
        // first appearance) and their number.
        let group = self.group_column(sorted_rows, starts)?;
        let mut keyed = DeviceFrame {
            columns: vec![group, self.gather_column(values, &ops.iota(n, 0)?)?],
            height: n,
        };
        let mut value = GpuExpr::column(1, "", values.dtype);
        let widened = widened_key(&value);
        if widened.dtype != value.dtype {
            keyed.columns[1] = self.evaluate(&keyed, &widened, "")?;
            value = GpuExpr::column(1, "", widened.dtype);
        }
        let by_group = GpuExpr::column(0, "", int64);
        let pair_keys = [(&by_group, false, false), (&value, false, false)];
        let (pairs, _) = self.sorted_groups_checked(&keyed, &pair_keys, 2, false)?;
        let pair_count = ops.segment_count(None, &pairs.starts, n)?;
        let [group, _] = <[DeviceColumn; 2]>::try_from(keyed.columns)
            .map_err(|_| ExecError::Unsupported("the pairs of a mode".into()))?;
        let Values::I64(group_of_row) = group.values() else {
            return Err(ExecError::Unsupported("the groups of a mode".into()));
        };
        let (group_of_pair, _) = ops.gather(group_of_row, None, &pairs.first_rows)?;
        let npairs = pairs.starts.len();
        let counted =
            DeviceColumn::from_parts("".into(), count, npairs, Values::U32(pair_count), None);
        let mut pair_frame = DeviceFrame {
            columns: vec![
                DeviceColumn::of_i64(group_of_pair),
                counted,
                DeviceColumn::of_i64(pairs.first_rows),
            ],
            height: npairs,
        };
        // Each group's greatest count, on each of its pairs (the pairs come
        // in group order, every group holding some).
        let (outer, _) =
            self.sorted_groups_checked(&pair_frame, &[(&by_group, false, false)], 1, false)?;
        let greatest = GpuExpr::column(1, "", count).aggregated(
            AggOp::Max {
                propagate_nans: false,
            },
            count,
        );
        let most = self.aggregate(
            &pair_frame,
            &greatest,
            &outer.sorted_rows,
            &outer.starts,
            false,
        )?;
        let Values::I64(group_of_pair) = pair_frame.columns[0].values() else {
            return Err(ExecError::Unsupported(
                "the groups of a mode's pairs".into(),
            ));
        };
        pair_frame
            .columns
            .push(self.gather_column(&most, group_of_pair)?);
        let boolean = GpuDtype::Boolean;
        let kept = GpuExpr::column(1, "", count).binary(
            BinaryOp::Eq,
            GpuExpr::column(3, "", count),
            boolean,
        );
        // The pairs kept first in each group, by their first rows.
        let not_kept = GpuExpr {
            kind: ExprKind::Not(Box::new(kept.clone())),
            dtype: boolean,
        };
        pair_frame
            .columns
            .push(self.evaluate(&pair_frame, &not_kept, "")?);
        let (dropped, first) = (
            GpuExpr::column(4, "", boolean),
            GpuExpr::column(2, "", int64),
        );
        let order_keys = [
            (&by_group, false, false),
            (&dropped, false, false),
            (&first, false, false),
        ];
        let (order, _) = self.sorted_groups_checked(&pair_frame, &order_keys, 1, false)?;
        // Each group's number of modes, a list of them.
        let kept_count = cast_to(&kept, count).aggregated(AggOp::Sum, count);
        let modes = self.aggregate(
            &pair_frame,
            &kept_count,
            &outer.sorted_rows,
            &outer.starts,
            false,
        )?;
        let rows = DeviceFrame {
            columns: vec![modes],
            height: groups,
        };
        let number = GpuExpr::column(0, "", count);
        if !maintain_order {
            let several = number.clone().binary(
                BinaryOp::Gt,
                GpuExpr::literal(Scalar::UInt(1), count),
                boolean,
            );
            let why = format!(
                "`{input}.mode()` of a group with several modes, which Polars lists in an order \
                 of its own (`mode(maintain_order=True)` lists them as they first come)"
            );
            self.check_any_later(&rows, several, why, ExecError::DependsOnPolars)?;
        }
        let listed = self.counted_lists(&rows, cast_to(&number, int64))?;
        // Each mode: the pair at its place among its group's sorted pairs,
        // the value at that pair's first row.
        let len = listed.rows.len();
        let places = DeviceFrame {
            columns: vec![
                DeviceColumn::of_i64(ops.gather(&order.starts, None, &listed.rows)?.0),
                listed.places,
            ],
            height: len,
        };
        let at = GpuExpr::column(0, "", int64).binary(
            BinaryOp::Plus,
            GpuExpr::column(1, "", int64),
            int64,
        );
        let at = self.evaluate_i64(&places, &at)?;
        let (pair, _) = ops.gather(&order.sorted_rows, None, &at)?;
        let Values::I64(first_rows) = pair_frame.columns[2].values() else {
            return Err(ExecError::Unsupported(
                "the first rows of a mode's pairs".into(),
            ));
        };
        let (first_rows, _) = ops.gather(first_rows, None, &pair)?;
        let child = self.gather_column(values, &first_rows)?.into_child();
        Ok(DeviceColumn::listed(dtype, listed.offsets, child, None))
    }
}
