//! The distinct operator (`unique`): the rows kept of each set of equal keys.

use super::*;

/// The columns (of a frame of `schema`) whose values make rows duplicates:
/// `subset`, or all.
fn distinct_keys(schema: &ir_lower::OutputSchema, subset: Option<&[usize]>) -> Vec<GpuExpr> {
    let column =
        |index: usize| GpuExpr::column(index, schema[index].name.to_string(), schema[index].dtype);
    match subset {
        Some(subset) => subset
            .iter()
            .copied()
            .filter(|&i| i < schema.len())
            .map(column)
            .collect(),
        None => (0..schema.len()).map(column).collect(),
    }
}

impl Executor<'_> {
    /// A distinct (`node`): the rows kept of each set of equal keys.
    pub(crate) fn distinct(&self, node: &PlanNode) -> Result<DeviceFrame, ExecError> {
        let PlanNode::Distinct {
            input,
            subset,
            keep,
            maintain_order,
            slice,
            ..
        } = node
        else {
            return Err(ExecError::Unsupported(format!(
                "`{}` is not a distinct",
                node.header()
            )));
        };
        let frame = self.run(input)?;
        let keys = distinct_keys(input.schema(), subset.as_deref());
        let mut rows = self.distinct_rows(&frame, &keys, *keep, *maintain_order)?;
        if let Some(slice) = slice {
            let range = self.slice_rows(rows.len(), *slice)?;
            rows = self.ops().gather(&rows, None, &range)?.0;
        }
        self.gather_frame(&frame, &rows)
    }

    /// The rows `Distinct` keeps of `frame`: one per group of equal `keys`
    /// (the first, the last, or only groups of one row), ordered by row
    /// when `maintain_order`, else by key.
    pub(crate) fn distinct_rows(
        &self,
        frame: &DeviceFrame,
        keys: &[GpuExpr],
        keep: Keep,
        maintain_order: bool,
    ) -> Result<DeviceBuffer<i64>, ExecError> {
        let ops = self.ops();
        let keys: Vec<&GpuExpr> = keys.iter().collect();
        let Groups {
            sorted_rows,
            starts,
            first_rows,
        } = self.groups(frame, &keys)?;
        let rows = match keep {
            Keep::First | Keep::Any => first_rows,
            Keep::Last => {
                ops.segment_pick(SegmentPick::Last, &sorted_rows, None, &starts)?
                    .0
            }
            Keep::None => {
                let sizes = ops.segment_count(None, &starts, sorted_rows.len())?;
                let one =
                    DeviceBuffer::from_host(&[1u32], self.ctx.memory.clone(), &self.ctx.stream)?;
                let (alone, _) =
                    ops.compare(&sizes, None, &one, None, true, sizes.len(), Comparison::Eq)?;
                let groups = ops.filter_indices(&alone, None, sizes.len())?;
                ops.gather(&first_rows, None, &groups)?.0
            }
        };
        if !maintain_order {
            return Ok(rows);
        }
        let order = ops.sorted_rows(&rows, None, false, false)?;
        Ok(ops.gather(&rows, None, &ops.widen(&order)?)?.0)
    }
}
