//! How the partitioned executor may run each plan node over partitions of its input, and why not.
//!
//! The partitioned executor (gpu-exec's `partitioned`) runs a plan whose
//! inputs do not fit the device's memory budget in pieces. What it may do
//! at each node is a property of the plan, decided here once: a node
//! either takes its input partition by partition and gives the same rows,
//! in the same order, as it would over the whole input, or it needs its
//! whole input (then the reason).

use crate::expr::{ExprKind, GpuExpr, NamedExpr};
use crate::plan::{JoinKind, JoinOrder, PlanNode};

/// How a plan node runs over partitions of its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partitioning {
    /// Partition by partition, in order: the node over each input
    /// partition, the results one after the other, are the node over the
    /// whole (a filter, a select or with_columns of row-wise expressions,
    /// a projection).
    RowWise,
    /// As [`Partitioning::RowWise`], with each partition's rows numbered
    /// on from where the partitions before it ended (a row index).
    Numbered,
    /// Each input's partitions in turn (a union without a slice).
    Stacked,
    /// The rows in order, cut to the slice (a slice of a positive offset).
    Sliced,
    /// Rows put in buckets by a hash of the keys (row-wise expressions), each bucket run whole:
    /// every row of a key is in one bucket, in the order of the input, so
    /// each group (each set of duplicates) sees the rows it would see over
    /// the whole (a group-by, a distinct). The results are put back in the
    /// order of their first rows.
    Bucketed,
    /// The left input in partitions, the right one whole (a join whose
    /// rows follow the left's, in an order the query leaves open or by the
    /// left rows first).
    LeftPartitioned,
    /// A top-k of a stable sort: the k first of each partition, then the k
    /// first of those (ties stay in the order of the input).
    TopK,
    /// On its whole input, for this reason.
    Whole(&'static str),
}

impl PlanNode {
    /// How this node runs over partitions of its input (see [`Partitioning`]).
    pub fn partitioning(&self) -> Partitioning {
        use Partitioning::*;
        match self {
            PlanNode::DataFrameScan { .. } | PlanNode::FileScan { .. } => {
                Whole("an input, cut into partitions where it is large")
            }
            PlanNode::SimpleProjection { .. } => RowWise,
            PlanNode::Filter { predicate, .. } if predicate.is_row_wise() => RowWise,
            PlanNode::Filter { .. } => Whole("a filter reading other rows than its own"),
            PlanNode::Select { exprs, .. }
                if all_row_wise(exprs) && exprs.iter().any(|e| e.expr.reads_a_column()) =>
            {
                RowWise
            }
            PlanNode::Select { .. } => {
                Whole("a select reading other rows than its own, or giving one row")
            }
            PlanNode::WithColumns {
                exprs,
                broadcast: true,
                ..
            } if all_row_wise(exprs) => RowWise,
            PlanNode::WithColumns { .. } => Whole("a with_columns reading other rows than its own"),
            PlanNode::RowIndex { .. } => Numbered,
            PlanNode::Union { slice: None, .. } => Stacked,
            PlanNode::Union { .. } => Whole("a union with a slice"),
            PlanNode::Slice { offset, .. } if *offset >= 0 => Sliced,
            PlanNode::Slice { .. } => Whole("a slice from the end"),
            PlanNode::GroupBy { keys, .. } if all_row_wise(keys) => Bucketed,
            PlanNode::GroupBy { .. } => {
                Whole("a group-by by keys reading other rows than their own")
            }
            PlanNode::Distinct { .. } => Bucketed,
            PlanNode::Join {
                kind,
                order,
                unique: (left_unique, _),
                left_on,
                right_on,
                predicate,
                ..
            } => {
                let row_wise = left_on
                    .iter()
                    .chain(right_on)
                    .chain(predicate)
                    .all(GpuExpr::is_row_wise);
                let kind_ok = matches!(
                    kind,
                    JoinKind::Inner
                        | JoinKind::Left
                        | JoinKind::Semi
                        | JoinKind::Anti
                        | JoinKind::Cross
                );
                let order_ok = matches!(
                    order,
                    JoinOrder::None | JoinOrder::Left | JoinOrder::LeftRight
                );
                if !row_wise {
                    Whole("a join by keys reading other rows than their own")
                } else if !kind_ok {
                    Whole("a right or full join")
                } else if !order_ok {
                    Whole("a join keeping the right's order first")
                } else if *left_unique {
                    Whole("a join validating that the left keys are unique")
                } else {
                    LeftPartitioned
                }
            }
            PlanNode::Sort {
                keys,
                stable: true,
                slice: Some((offset, _)),
                ..
            } if *offset >= 0 && keys.iter().all(|key| key.expr.is_row_wise()) => TopK,
            PlanNode::Sort { .. } => Whole("a sort (but a top-k of a stable sort)"),
            PlanNode::HConcat { .. } => Whole("frames side by side"),
            PlanNode::Cache { .. } => Whole("a shared subplan"),
        }
    }
}

fn all_row_wise(exprs: &[NamedExpr]) -> bool {
    exprs.iter().all(|named| named.expr.is_row_wise())
}

impl GpuExpr {
    /// Whether each row's value is a function of that row alone: no
    /// aggregation, window, function of the rows in order, change of
    /// length, or parse of texts by a format Polars infers from them.
    pub fn is_row_wise(&self) -> bool {
        !self.any(&|e| {
            e.reads_other_rows()
                || matches!(
                    e.kind,
                    ExprKind::Agg { .. }
                        | ExprKind::Len
                        | ExprKind::Window { .. }
                        | ExprKind::Where { .. }
                        | ExprKind::Unique { .. }
                        | ExprKind::ParseTemporal { inferred: true, .. }
                )
        })
    }

    /// Whether this expression reads an input column anywhere.
    pub fn reads_a_column(&self) -> bool {
        self.any(&|e| matches!(e.kind, ExprKind::Column { .. }))
    }
}
