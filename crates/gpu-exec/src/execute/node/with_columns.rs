//! The with_columns operator: computed columns put in the places of the output schema.

use super::*;

impl Executor<'_> {
    /// A with_columns: the computed columns in the places of the output schema.
    pub(crate) fn with_columns(
        &self,
        input: &PlanNode,
        exprs: &[NamedExpr],
        schema: &OutputSchema,
    ) -> Result<DeviceFrame, ExecError> {
        let frame = self.run(input)?;
        let mut computed: Vec<DeviceColumn> = exprs
            .iter()
            .map(|named| {
                let expr = marking_one_row_reads(&named.expr, input);
                self.evaluate(&frame, &expr, &named.name)
            })
            .collect::<Result<_, _>>()?;
        let height = frame.height;
        let mut inputs: Vec<Option<DeviceColumn>> = frame.columns.into_iter().map(Some).collect();
        let mut columns = Vec::with_capacity(schema.len());
        for output in schema {
            let name = output.name.as_str();
            let column = match computed.iter().position(|c| c.name.as_str() == name) {
                Some(i) => computed.swap_remove(i),
                None => inputs
                    .iter_mut()
                    .find(|c| c.as_ref().is_some_and(|c| c.name.as_str() == name))
                    .and_then(Option::take)
                    .ok_or_else(|| {
                        ExecError::Unsupported(format!("with_columns lost column {name:?}"))
                    })?,
            };
            columns.push(column);
        }
        Ok(DeviceFrame { columns, height })
    }
}
