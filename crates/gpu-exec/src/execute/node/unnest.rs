//! The unnest operator: struct columns replaced by their fields.

use super::*;

impl Executor<'_> {
    /// The struct columns at `columns` of `input`'s frame replaced by their
    /// fields, every column named as `schema` says.
    pub(crate) fn unnest(
        &self,
        input: &PlanNode,
        columns: &[usize],
        schema: &OutputSchema,
    ) -> Result<DeviceFrame, ExecError> {
        let frame = self.run(input)?;
        let height = frame.height;
        let mut out = Vec::with_capacity(schema.len());
        for (index, column) in frame.columns.into_iter().enumerate() {
            if !columns.contains(&index) {
                out.push(column);
                continue;
            }
            let (name, dtype) = (column.name.clone(), column.dtype);
            let (GpuDtype::Struct(of), (Values::Struct { fields }, _)) =
                (dtype, column.into_parts())
            else {
                return Err(ExecError::Unsupported(format!(
                    "an unnest of {name:?}, a {dtype} column"
                )));
            };
            // (A field is null wherever its struct is.)
            for (field, (_, dtype)) in fields.into_iter().zip(of.fields()) {
                out.push(DeviceColumn::from_child("".into(), dtype, field));
            }
        }
        for (column, output) in out.iter_mut().zip(schema) {
            column.name = output.name.as_str().into();
        }
        Ok(DeviceFrame {
            columns: out,
            height,
        })
    }
}
