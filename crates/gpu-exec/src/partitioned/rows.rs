//! Partitions row by row: chains of row-wise nodes (a row index numbering on), unions, slices, frames side by side.

use std::ops::ControlFlow;

use ir_lower::{Partitioning, PlanNode};
use polars::prelude::{Column, DataFrame};

use super::{Data, Partitioned, Slicer, Stream, cut_allowed, over, over_shared, slice_data};
use crate::error::ExecError;

impl Partitioned<'_> {
    /// A chain of row-wise nodes from `top` down (a row index ends it):
    /// the chain over each partition of the input below it, in one device
    /// run each.
    pub(super) fn chain(&mut self, top: &PlanNode) -> Result<Data, ExecError> {
        match self.chain_stream(top)? {
            ControlFlow::Break(df) => Ok(Data::Whole(df)),
            ControlFlow::Continue(stream) => self.all_parts(stream).map(Data::Parts),
        }
    }

    /// The chain from `top` down as partitions run as they are taken (its
    /// input's too: a file scan's read), or (`Break`) its result whole
    /// where it runs whole.
    pub(super) fn chain_stream(
        &mut self,
        top: &PlanNode,
    ) -> Result<ControlFlow<polars::prelude::DataFrame, Stream>, ExecError> {
        let mut depth = 0;
        let mut bottom = top;
        let mut reads_scalars = reads_one_row_scalars(top);
        while bottom.partitioning() == Partitioning::RowWise {
            let input = bottom.inputs()[0];
            let chained = matches!(
                input.partitioning(),
                Partitioning::RowWise | Partitioning::Numbered
            );
            // (Nodes of one chain run in one plan: no cut between them.
            // Nor a filter below a node computing otherwise over a frame
            // of one row, which a filter may leave of a partition: the
            // filter's partitions are put together first.)
            let filter = matches!(input, PlanNode::Filter { .. });
            if !chained || !self.splits(input) || (filter && reads_scalars) {
                break;
            }
            bottom = input;
            depth += 1;
            reads_scalars |= reads_one_row_scalars(bottom);
        }
        let source = bottom.inputs()[0];
        if !cut_allowed(bottom, source) {
            return self.on_device(top.clone()).map(ControlFlow::Break);
        }
        let source = match self.stream(source)? {
            ControlFlow::Break(df) => {
                return self
                    .on_device(chain_over(top, depth, std::sync::Arc::new(df), 0)?)
                    .map(ControlFlow::Break);
            }
            ControlFlow::Continue(stream) => stream,
        };
        Ok(ControlFlow::Continue(Stream::chain(
            top.clone(),
            depth,
            source,
        )))
    }

    /// A union: each input's partitions in turn, named as the union names
    /// its columns, then its slice (from the start or the end), if any.
    pub(super) fn stacked(&mut self, node: &PlanNode) -> Result<Data, ExecError> {
        let names: Vec<&str> = node.schema().iter().map(|c| c.name.as_str()).collect();
        let mut out = Vec::new();
        for input in node.inputs() {
            if !cut_allowed(node, input) {
                return self.on_device(node.clone()).map(Data::Whole);
            }
        }
        for input in node.inputs() {
            let parts = self.run(input)?.into_parts();
            for mut part in parts {
                part.set_column_names(&names)?;
                out.push(part);
            }
        }
        match node {
            PlanNode::Union {
                slice: Some((offset, len)),
                ..
            } => slice_data(Data::Parts(out), *offset, *len),
            _ => Ok(Data::Parts(out)),
        }
    }

    /// Frames side by side (`hconcat`): each input over partitions, then,
    /// where their heights match, their columns side by side on the host
    /// (named as the node names them), in partitions for the nodes above;
    /// else the node over their results in memory (which pads the shorter
    /// ones, or repeats one of one row, or leaves the query to Polars).
    pub(super) fn side_by_side(&mut self, node: &PlanNode) -> Result<Data, ExecError> {
        let inputs = node.inputs();
        if inputs.iter().any(|input| !cut_allowed(node, input)) {
            return self.on_device(node.clone()).map(Data::Whole);
        }
        let mut frames = Vec::with_capacity(inputs.len());
        for input in inputs {
            frames.push(self.run(input)?.whole()?);
        }
        let height = frames.first().map_or(0, DataFrame::height);
        if frames.iter().any(|df| df.height() != height) {
            return self.on_device(over(node, frames)).map(Data::Whole);
        }
        let mut columns: Vec<Column> = frames
            .into_iter()
            .flat_map(DataFrame::into_columns)
            .collect();
        for (column, output) in columns.iter_mut().zip(node.schema()) {
            column.rename(output.name.as_str().into());
        }
        Ok(self.parted(DataFrame::new(height, columns)?))
    }

    /// A slice of the rows in order: of a positive offset, the input's
    /// partitions taken as they come until the slice's last row (no more
    /// are made: a file scan stops reading); from the end, of all of them.
    pub(super) fn sliced(&mut self, node: &PlanNode) -> Result<Data, ExecError> {
        let PlanNode::Slice {
            input, offset, len, ..
        } = node
        else {
            return self.on_whole_inputs(node);
        };
        if !cut_allowed(node, input) {
            return self.on_device(node.clone()).map(Data::Whole);
        }
        let Ok(skip) = usize::try_from(*offset) else {
            let data = self.run(input)?;
            return slice_data(data, *offset, *len);
        };
        let mut stream = match self.stream(input)? {
            ControlFlow::Break(df) => return Ok(Data::Whole(df.slice(*offset, *len))),
            ControlFlow::Continue(stream) => stream,
        };
        let mut slicer = Slicer::new(skip, *len);
        while slicer.wants_more() {
            let Some(part) = self.next_part(&mut stream) else {
                break;
            };
            slicer.take(part?);
        }
        slicer.finish()
    }
}

/// The chain of `depth` nodes below `top` (and `top`) over `part` in place
/// of the input of its last node; a row index there numbers on from
/// `rows_before`.
pub(super) fn chain_over(
    top: &PlanNode,
    depth: usize,
    part: std::sync::Arc<polars::prelude::DataFrame>,
    rows_before: u64,
) -> Result<PlanNode, ExecError> {
    let mut chain = top.clone();
    let mut bottom = &mut chain;
    for _ in 0..depth {
        bottom = bottom
            .inputs_mut()
            .into_iter()
            .next()
            .ok_or_else(|| ExecError::Unsupported("a row-wise node without an input".into()))?;
    }
    if let PlanNode::RowIndex { offset, .. } = bottom {
        *offset = u32::try_from(u64::from(*offset) + rows_before).map_err(|_| {
            ExecError::InvalidData("a row index past the largest u32 (2^32 - 1)".into())
        })?;
    }
    *bottom = over_shared(bottom, vec![part]);
    Ok(chain)
}

/// Whether a node of the chain of `depth` nodes below `top` (or `top`) is a
/// filter.
pub(super) fn filters(top: &PlanNode, depth: usize) -> bool {
    let mut node = top;
    for _ in 0..=depth {
        if matches!(node, PlanNode::Filter { .. }) {
            return true;
        }
        match node.inputs().first() {
            Some(input) => node = input,
            None => break,
        }
    }
    false
}

/// Whether `node` evaluates an expression that computes otherwise over a
/// frame of one row than over a part of a larger frame (Polars' scalar
/// kernels: `compile::reads_one_row_scalars`).
pub(super) fn reads_one_row_scalars(node: &PlanNode) -> bool {
    node.exprs()
        .into_iter()
        .any(crate::compile::reads_one_row_scalars)
}
