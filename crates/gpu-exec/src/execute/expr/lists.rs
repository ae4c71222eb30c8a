//! Lists in expressions: `implode` (a group's values as one list) and the functions of each list.

use super::*;

impl Executor<'_> {
    /// `input`'s values as one list per group (`sorted_rows` by group,
    /// each group's rows in row order, from `starts`): the values gathered
    /// in that order, the groups' bounds the lists' offsets.
    pub(crate) fn imploded(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        dtype: GpuDtype,
        sorted_rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceColumn, ExecError> {
        let mut owned = None;
        let values = self.column_in_groups(frame, input, "", &mut owned, None)?;
        let (values, validity) = self.gather_values(
            values.values(),
            values.validity(),
            values.len(),
            sorted_rows,
        )?;
        let child = ListChild {
            len: sorted_rows.len(),
            values,
            validity: Some(validity),
        };
        let lists = Values::List {
            offsets: self.group_bounds(starts, sorted_rows.len())?,
            child: Box::new(child),
        };
        Ok(DeviceColumn::from_parts(
            "".into(),
            dtype,
            starts.len(),
            lists,
            None,
        ))
    }

    /// A function of each list of `input`, a list column of `frame`.
    pub(crate) fn list_function(
        &self,
        frame: &DeviceFrame,
        function: ListFunction,
        input: &GpuExpr,
    ) -> Result<DeviceColumn, ExecError> {
        let lists = column_at(frame, column_index(input)?)?;
        let Values::List { offsets, .. } = lists.values() else {
            return Err(ExecError::Unsupported(format!(
                "{function} of `{input}`, a {} column",
                lists.dtype
            )));
        };
        match function {
            ListFunction::Len => {
                let (lengths, validity) = self.ops().list_lengths(offsets, lists.validity())?;
                Ok(DeviceColumn::from_parts(
                    "".into(),
                    GpuDtype::UInt32,
                    frame.height,
                    Values::U32(lengths),
                    Some(validity),
                ))
            }
        }
    }
}
