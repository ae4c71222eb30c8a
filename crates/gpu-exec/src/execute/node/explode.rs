//! The explode operator: each row repeated for each value of its lists, the lists replaced by their values.

use super::*;

impl Executor<'_> {
    /// Polars' explode of the list columns at `columns` of `input`'s frame
    /// (see [`PlanNode::Explode`]): `(empty_as_null, keep_nulls)`. As
    /// Polars does, the rows repeat by the first column's lists, every
    /// column is exploded on its own and put beside them, and the lists of
    /// a row must span as many values in every column (where the columns
    /// explode to different lengths, Polars' error; where only a row's
    /// spans differ, the query is left to Polars, whose error or, for a
    /// select of exploded expressions, answer it is).
    pub(crate) fn explode(
        &self,
        input: &PlanNode,
        columns: &[usize],
        (empty_as_null, keep_nulls): (bool, bool),
    ) -> Result<DeviceFrame, ExecError> {
        let frame = self.run(input)?;
        let ops = self.ops();
        let mut parents = None;
        let mut exploded = Vec::with_capacity(columns.len());
        let mut spans = Vec::with_capacity(columns.len());
        for &index in columns {
            let lists = column_at(&frame, index)?;
            let (Values::List { offsets, child }, GpuDtype::List(of)) =
                (lists.values(), lists.dtype)
            else {
                return Err(ExecError::Unsupported(format!(
                    "an explode of {:?}, a {} column",
                    lists.name, lists.dtype
                )));
            };
            let rows = ops.explode_lists(offsets, lists.validity(), empty_as_null, keep_nulls)?;
            let height = parents.get_or_insert(rows.parents).len();
            if rows.values.len() != height {
                return Err(ExecError::InvalidData(format!(
                    "exploded column(s) {:?} doesn't have the same length as the others",
                    lists.name
                )));
            }
            let (values, validity) = self.gather_values(
                &child.values,
                child.validity.as_ref(),
                child.len,
                &rows.values,
            )?;
            exploded.push((
                index,
                DeviceColumn::from_parts(
                    lists.name.clone(),
                    of.values(),
                    height,
                    values,
                    Some(validity),
                ),
            ));
            // The values each list spans, null or not.
            let (span, _) = ops.list_lengths(offsets, None)?;
            let span = DeviceColumn::from_parts(
                "".into(),
                GpuDtype::UInt32,
                frame.height,
                Values::U32(span),
                None,
            );
            spans.push(span);
        }
        let Some(parents) = parents else {
            return Err(ExecError::Unsupported("an explode of no column".into()));
        };
        if spans.len() > 1 {
            let first = column_ref(0, GpuDtype::UInt32);
            let differ = (1..spans.len())
                .map(|i| {
                    column_ref(i, GpuDtype::UInt32).binary(
                        BinaryOp::NotEq,
                        first.clone(),
                        GpuDtype::Boolean,
                    )
                })
                .reduce(|a, b| a.binary(BinaryOp::Or, b, GpuDtype::Boolean));
            let spans = DeviceFrame {
                columns: spans,
                height: frame.height,
            };
            if let Some(differ) = differ {
                // (Polars raises exploding a frame's columns, and lines a
                // select's exploded expressions up by place.)
                let what = "the exploded columns' lists span different numbers of values in a \
                            row: Polars raises its error, or, exploding a select's expressions \
                            each on its own, lines them up by place"
                    .to_string();
                self.check_any_later(&spans, differ, what, ExecError::DependsOnPolars)?;
            }
        }
        let height = parents.len();
        let mut columns = Vec::with_capacity(frame.columns.len());
        for (index, column) in frame.columns.iter().enumerate() {
            match exploded.iter().position(|(at, _)| *at == index) {
                Some(at) => columns.push(exploded.swap_remove(at).1),
                None => columns.push(self.gather_column(column, &parents)?),
            }
        }
        Ok(DeviceFrame { columns, height })
    }
}
