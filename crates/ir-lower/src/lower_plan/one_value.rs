//! Columns Polars holds as one value (scalar columns, or columns at one row), which its engine treats apart, and the refusals they cause.

use polars_core::prelude::{Column, DataType, PlSmallStr};
use polars_plan::plans::expr_ir::ExprIR;
use polars_plan::plans::{AExpr, IR, IRAggExpr, is_scalar_ae};
use polars_utils::arena::{Arena, Node};

use super::PlanLowering;
use crate::lower_expr::is_constant;
use crate::refusal::Refusal;

impl PlanLowering<'_> {
    /// The columns of `input` that Polars holds at one row (and repeats
    /// where a frame's length is needed): those a with_columns without
    /// broadcasting (Polars' common subexpressions) computes as one value.
    /// A function of the rows in order over one (a running sum, a shift,
    /// `is_duplicated`, an aggregation) reads that one value in Polars.
    pub(super) fn one_row_columns(&self, input: Node) -> Vec<PlSmallStr> {
        match self.lp_arena.get(input) {
            IR::HStack { exprs, options, .. } if !options.should_broadcast => {
                self.one_value_outputs(exprs).into_iter().cloned().collect()
            }
            _ => Vec::new(),
        }
    }

    /// The names of the columns that `exprs` (a select's, a with_columns')
    /// make of one value (a literal, an aggregation).
    pub(super) fn one_value_outputs<'e>(&self, exprs: &'e [ExprIR]) -> Vec<&'e PlSmallStr> {
        exprs
            .iter()
            .filter(|e| is_scalar_ae(e.node(), self.expr_arena))
            .map(|e| e.output_name())
            .collect()
    }

    /// The columns of the plan node `node` that Polars holds as scalar
    /// columns (one value repeated): those a select or a broadcasting
    /// with_columns makes of one value (a literal, an aggregation) or copies
    /// from such a column, those a with_columns keeps as they are, through
    /// projections; and a group-by's aggregations of literals alone.
    pub(super) fn scalar_columns(&self, node: Node) -> Vec<PlSmallStr> {
        self.scalar_columns_in(node, false)
    }

    /// [`Self::scalar_columns`], and with `frames` those of in-memory
    /// frames too (Polars holds the columns of a frame of one row it
    /// sliced or read as scalars), through filters, slices and sorts.
    pub(super) fn scalar_columns_in(&self, node: Node, frames: bool) -> Vec<PlSmallStr> {
        // A copy of a scalar column (`col(x).alias(y)`) is one too; with
        // `frames`, so is any elementwise function of such columns (Polars'
        // kernels keep a scalar column's one value).
        let of_one_value = |e: &ExprIR, below: &[PlSmallStr]| {
            if is_scalar_ae(e.node(), self.expr_arena) {
                return true;
            }
            if !frames {
                return matches!(self.expr_arena.get(e.node()), AExpr::Column(name) if below.contains(name));
            }
            reads_only(e.node(), below, self.expr_arena)
                && polars_plan::plans::is_elementwise_rec(e.node(), self.expr_arena)
        };
        match self.lp_arena.get(node) {
            IR::SimpleProjection { input, columns } => {
                let below = self.scalar_columns_in(*input, frames);
                columns
                    .iter_names()
                    .filter(|name| below.contains(name))
                    .cloned()
                    .collect()
            }
            IR::Select { expr, input, .. } => {
                let below = self.scalar_columns_in(*input, frames);
                expr.iter()
                    .filter(|e| of_one_value(e, &below))
                    .map(|e| e.output_name().clone())
                    .collect()
            }
            IR::HStack {
                exprs,
                input,
                options,
                ..
            } if options.should_broadcast => {
                let below = self.scalar_columns_in(*input, frames);
                let mut scalar: Vec<PlSmallStr> = below
                    .iter()
                    .filter(|name| !exprs.iter().any(|e| e.output_name() == *name))
                    .cloned()
                    .collect();
                scalar.extend(
                    exprs
                        .iter()
                        .filter(|e| of_one_value(e, &below))
                        .map(|e| e.output_name().clone()),
                );
                scalar
            }
            IR::GroupBy { aggs, .. } => aggs
                .iter()
                .filter(|e| is_constant(e.node(), self.expr_arena))
                .map(|e| e.output_name().clone())
                .collect(),
            IR::DataFrameScan {
                df, output_schema, ..
            } if frames => df
                .columns()
                .iter()
                .filter(|c| matches!(c, Column::Scalar(_)))
                .filter(|c| output_schema.as_ref().is_none_or(|s| s.contains(c.name())))
                .map(|c| c.name().clone())
                .collect(),
            IR::Filter { input, .. } | IR::Slice { input, .. } | IR::Sort { input, .. }
                if frames =>
            {
                self.scalar_columns_in(*input, frames)
            }
            _ => Vec::new(),
        }
    }

    /// Whether every column `exprs` read is one Polars holds as a scalar
    /// column in `input` ([`Self::scalar_columns`]): `lit(5) != col(x)` over
    /// it is one row in Polars, `col(x) + 1` every row. (A with_columns of
    /// common subexpressions, which does not broadcast, the executor takes
    /// as Polars does.)
    pub(super) fn reads_only_repeated_values(&self, exprs: &[ExprIR], input: Node) -> bool {
        let made = self.scalar_columns(input);
        let mut reads = false;
        for e in exprs {
            match reads_within(e.node(), &made, self.expr_arena) {
                None => return false,
                Some(any) => reads |= any,
            }
        }
        reads
    }

    /// Refuses each key of `keys` that Polars holds as one value (a
    /// literal, an aggregation): Polars raises for a sort key of another
    /// length than the frame's, and broadcasts such group or join keys in
    /// ways of its own. Whether any was refused.
    pub(super) fn keys_of_one_value(&mut self, keys: &[ExprIR], what: &str) -> bool {
        let mut refused = false;
        for key in keys {
            if is_scalar_ae(key.node(), self.expr_arena) {
                refused = true;
                let subject = crate::refusal::written(key.node(), self.expr_arena);
                self.refusals.push(Refusal {
                    subject,
                    reason: format!("a {what} key of one value is not supported on the GPU"),
                    whole_plan: false,
                });
            }
        }
        refused
    }

    /// Refuses a group-by's mean or median (of `aggs`, over `input`) of a
    /// datetime or duration that Polars holds as one value (a column of a
    /// frame of one row it sliced or read, an aggregation): Polars gives
    /// that value itself there, the device computes it through f64, which
    /// rounds nanoseconds past 2^53. Whether any was refused.
    pub(super) fn temporal_means_of_one_value(&mut self, aggs: &[ExprIR], input: Node) -> bool {
        use polars_plan::plans::{ArenaExprIter, ToFieldContext};
        let held = self.scalar_columns_in(input, true);
        if held.is_empty() {
            return false;
        }
        let schema = self.lp_arena.get(input).schema(self.lp_arena).into_owned();
        let context = ToFieldContext::new(self.expr_arena, &schema);
        let mut refusals = Vec::new();
        for agg in aggs {
            for (_, part) in self.expr_arena.iter(agg.node()) {
                let (what, of) = match part {
                    AExpr::Agg(IRAggExpr::Mean(of)) => ("mean", *of),
                    AExpr::Agg(IRAggExpr::Median(of)) => ("median", *of),
                    _ => continue,
                };
                if !reads_only(of, &held, self.expr_arena) {
                    continue;
                }
                let dtype = self.expr_arena.get(of).to_dtype(&context);
                if let Ok(dtype @ (DataType::Datetime(..) | DataType::Duration(_))) = dtype {
                    let subject = crate::refusal::written(of, self.expr_arena);
                    refusals.push(Refusal {
                        reason: format!(
                            "the {what} of `{subject}`, a {dtype} Polars holds as one value (of a \
                             frame of one row, or an aggregation): Polars gives the value itself, \
                             the GPU computes it through f64, which rounds it"
                        ),
                        subject,
                        whole_plan: false,
                    });
                }
            }
        }
        let refused = !refusals.is_empty();
        self.refusals.extend(refusals);
        refused
    }
}

/// Whether the expression `node` reads columns, and only those of `held`.
fn reads_only(node: Node, held: &[PlSmallStr], arena: &Arena<AExpr>) -> bool {
    reads_within(node, held, arena) == Some(true)
}

/// Whether the expression `node` reads any column, where it reads only
/// those of `held` (`None` where it reads another).
fn reads_within(node: Node, held: &[PlSmallStr], arena: &Arena<AExpr>) -> Option<bool> {
    let mut reads = false;
    for name in polars_plan::utils::aexpr_to_leaf_names_iter(node, arena) {
        if !held.contains(name) {
            return None;
        }
        reads = true;
    }
    Some(reads)
}
