//! The slice operator, and slices of rows other operators take.

use super::*;

/// The rows `[start, end)` a slice keeps, as Polars computes them: a
/// negative offset counts from the end, and the window is clamped to the
/// frame only after its end is placed (so `slice(-60, 4)` of 9 rows is empty).
pub(crate) fn slice_bounds(height: usize, offset: i64, len: usize) -> (usize, usize) {
    let height_i = i64::try_from(height).unwrap_or(i64::MAX);
    let start = if offset < 0 {
        offset.saturating_add(height_i)
    } else {
        offset
    };
    let stop = start.saturating_add(i64::try_from(len).unwrap_or(i64::MAX));
    let clamp = |at: i64| at.clamp(0, height_i) as usize;
    (clamp(start), clamp(stop))
}

impl Executor<'_> {
    /// The row numbers a slice `(offset, len)` of `height` rows keeps.
    pub(crate) fn slice_rows(
        &self,
        height: usize,
        (offset, len): (i64, usize),
    ) -> Result<DeviceBuffer<i64>, ExecError> {
        let (start, end) = slice_bounds(height, offset, len);
        Ok(self.ops().iota(end - start, start as i64)?)
    }

    pub(crate) fn slice_frame(
        &self,
        frame: &DeviceFrame,
        slice: (i64, usize),
    ) -> Result<DeviceFrame, ExecError> {
        self.gather_frame(frame, &self.slice_rows(frame.height, slice)?)
    }
}
