//! Window expressions (`over`): their parts and the groups of their partition keys.

use super::*;

/// The function, partition keys and order of the window `expr`.
pub(crate) fn window_parts(expr: &GpuExpr) -> Option<(&GpuExpr, &[GpuExpr], Option<&RowOrder>)> {
    match &expr.kind {
        ExprKind::Window {
            function,
            partition_by,
            order_by,
        } => Some((function, partition_by, order_by.as_ref())),
        _ => None,
    }
}

impl Executor<'_> {
    /// The groups of a window's keys `partition_by` over `frame` (keys that
    /// are expressions computed first, into a frame of their own), each
    /// group's rows in the order of `order_by` (stable), else in row order.
    pub(crate) fn window_groups(
        &self,
        frame: &DeviceFrame,
        partition_by: &[GpuExpr],
        order_by: Option<&RowOrder>,
    ) -> Result<Groups, ExecError> {
        let what = "a float partition key of -0.0 in a window (Polars counts it apart from \
                    0.0, or with it where the window is ordered)";
        self.check_negative_zero_keys(frame, partition_by, what)?;
        let Some(order) = order_by else {
            if partition_by.iter().all(is_column) {
                return self.groups(frame, &partition_by.iter().collect::<Vec<_>>());
            }
            let keys = self.computed_frame(frame, partition_by)?;
            let columns = column_refs(partition_by);
            return self.groups(&keys, &columns.iter().collect::<Vec<_>>());
        };
        let order_key = std::slice::from_ref(order.key.as_ref());
        let keys = self.computed_frame(frame, partition_by.iter().chain(order_key))?;
        let all: Vec<GpuExpr> = partition_by.iter().chain(order_key).cloned().collect();
        let columns = column_refs(&all);
        // Sorted by the partition keys, then by the order key; only the
        // partition keys make groups.
        let mut sorting: Vec<(&GpuExpr, bool, bool)> =
            columns.iter().map(|key| (key, false, false)).collect();
        if let Some(last) = sorting.last_mut() {
            *last = (last.0, order.descending, order.nulls_last);
        }
        self.sorted_groups_marked(&keys, &sorting, partition_by.len())
    }

    /// `function`, an aggregation, of each group of `groups` (rows in
    /// group order, group starts), repeated on every row of its group:
    /// a window's aggregation.
    pub(crate) fn aggregate_on_rows(
        &self,
        frame: &DeviceFrame,
        function: &GpuExpr,
        (rows, starts): (&DeviceBuffer<i64>, &DeviceBuffer<i64>),
    ) -> Result<DeviceColumn, ExecError> {
        let value = self.aggregate(frame, function, rows, starts, false)?;
        self.gather_column(&value, &self.group_of_rows(rows, starts)?)
    }
}
