//! The explode operator: each row repeated for each value of its list, the list replaced by its values.

use super::*;

impl Executor<'_> {
    /// Polars' explode of the list column at `columns` (one) of `input`'s
    /// frame (see [`PlanNode::Explode`]): `(empty_as_null, keep_nulls)`.
    pub(crate) fn explode(
        &self,
        input: &PlanNode,
        columns: &[usize],
        (empty_as_null, keep_nulls): (bool, bool),
    ) -> Result<DeviceFrame, ExecError> {
        let frame = self.run(input)?;
        let &[exploded] = columns else {
            return Err(ExecError::Unsupported(not_yet(format_args!(
                "an explode of {} columns together",
                columns.len()
            ))));
        };
        let lists = column_at(&frame, exploded)?;
        let (Values::List { offsets, child }, GpuDtype::List(of)) = (lists.values(), lists.dtype)
        else {
            return Err(ExecError::Unsupported(format!(
                "an explode of {:?}, a {} column",
                lists.name, lists.dtype
            )));
        };
        let ExplodedLists { parents, values } =
            self.ops()
                .explode_lists(offsets, lists.validity(), empty_as_null, keep_nulls)?;
        let height = parents.len();
        let columns = frame
            .columns
            .iter()
            .enumerate()
            .map(|(index, column)| {
                if index != exploded {
                    return self.gather_column(column, &parents);
                }
                let (values, validity) =
                    self.gather_values(&child.values, child.validity.as_ref(), child.len, &values)?;
                Ok(DeviceColumn::from_parts(
                    column.name.clone(),
                    of.values(),
                    height,
                    values,
                    Some(validity),
                ))
            })
            .collect::<Result<_, ExecError>>()?;
        Ok(DeviceFrame { columns, height })
    }
}
