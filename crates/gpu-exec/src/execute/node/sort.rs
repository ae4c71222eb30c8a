//! The sort operator: rows sorted by keys, one key at a time from the last.

use super::*;

impl Executor<'_> {
    /// A sort of the rows by `keys` (of the top rows only, with `slice`).
    pub(crate) fn sort(
        &self,
        input: &PlanNode,
        keys: &[SortKey],
        slice: &Option<(i64, usize)>,
    ) -> Result<DeviceFrame, ExecError> {
        let frame = self.run(input)?;
        let ops = self.ops();
        if let ([key], [column]) = (keys, frame.columns.as_slice())
            && is_column(&key.expr)
            && column.dtype.is_float()
        {
            // Polars sorts a frame of one float column by its values,
            // where -0.0 and 0.0, equal, land in an order of its own.
            let values = self.gather_column(column, &ops.iota(frame.height, 0)?)?;
            let (negative, positive) = self.signed_zeros(values, &ops.iota(1, 0)?)?;
            self.check_both_zeros(negative, positive, None, Self::SORTED_ZEROS)?;
        }
        // Keys that are expressions, computed into a frame of their own.
        let computed = self.computed_frame(
            &frame,
            keys.iter()
                .map(|key| &key.expr)
                .filter(|expr| !is_column(expr)),
        )?;
        let mut computed_index = computed.columns.len();
        let mut permutation = None;
        for key in keys.iter().rev() {
            let words = if is_column(&key.expr) {
                self.key_words(&frame, &key.expr, "sorting by")?
            } else {
                computed_index -= 1;
                let column = column_ref(computed_index, key.expr.dtype);
                self.key_words(&computed, &column, "sorting by")?
            };
            permutation =
                Some(self.sort_by_key(permutation, &words, key.descending, key.nulls_last)?);
        }
        let permutation = permutation.map_or_else(|| ops.rows(frame.height), Ok)?;
        let mut indices = ops.widen(&permutation)?;
        if let Some(slice) = slice {
            let range = self.slice_rows(frame.height, *slice)?;
            indices = ops.gather(&indices, None, &range)?.0;
        }
        self.gather_frame(&frame, &indices)
    }
}
