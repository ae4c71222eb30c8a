//! The horizontal concat operator.

use super::*;
use ir_lower::Heights;

impl Executor<'_> {
    /// A horizontal concatenation of `inputs`.
    pub(crate) fn hconcat(
        &self,
        inputs: &[PlanNode],
        heights: Heights,
        broadcast_unit_length: &bool,
        schema: &OutputSchema,
    ) -> Result<DeviceFrame, ExecError> {
        let frames = self.run_each(inputs)?;
        let height = frames.iter().map(|frame| frame.height).max().unwrap_or(0);
        let ops = self.ops();
        let mut columns = Vec::with_capacity(schema.len());
        for frame in frames {
            if frame.height == height {
                columns.extend(frame.columns);
                continue;
            }
            match heights {
                Heights::ToPolars => {
                    return Err(ExecError::DependsOnPolars(format!(
                        "columns of a select of {} and {height} rows (Polars compares the \
                         lengths)",
                        frame.height
                    )));
                }
                // Polars' own error for this query.
                Heights::Error => {
                    return Err(ExecError::Polars(
                        polars::prelude::PolarsError::ShapeMismatch(
                            format!(
                                "cannot concat horizontally frames of {} and {height} rows",
                                frame.height
                            )
                            .into(),
                        ),
                    ));
                }
                Heights::Padded => {}
            }
            // Gathers past the end give nulls; index 0 repeats the one row.
            let rows = if *broadcast_unit_length && frame.height == 1 {
                ops.repeat_first(height)?
            } else {
                ops.iota(height, 0)?
            };
            columns.extend(self.gather_frame(&frame, &rows)?.columns);
        }
        for (column, output) in columns.iter_mut().zip(schema) {
            column.name = output.name.as_str().into();
        }
        Ok(DeviceFrame { columns, height })
    }
}
