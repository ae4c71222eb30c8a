//! The with_row_index operator: a column of row numbers put first.

use super::*;

impl Executor<'_> {
    /// A column of row numbers from `offset`, put first.
    pub(crate) fn row_index(
        &self,
        input: &PlanNode,
        name: &str,
        offset: &u32,
    ) -> Result<DeviceFrame, ExecError> {
        let mut frame = self.run(input)?;
        // Polars raises where the numbers would not fit in u32.
        let fits = u32::try_from(frame.height)
            .ok()
            .and_then(|height| offset.checked_add(height))
            .is_some();
        if !fits {
            return Err(ExecError::InvalidData(format!(
                "a row index from {offset} over {} rows overflows u32",
                frame.height
            )));
        }
        let numbers = self.ops().row_numbers(frame.height, *offset)?;
        let column = DeviceColumn::from_parts(
            name.into(),
            GpuDtype::UInt32,
            frame.height,
            Values::U32(numbers),
            None,
        );
        frame.columns.insert(0, column);
        Ok(frame)
    }
}
