//! Lowering of Polars' optimized IR to a GPU plan, with every reason it cannot.
//!
//! The GPU engine sees the plan Polars' optimizer produced (the `IR` and
//! `AExpr` arenas). [`lower_plan`] turns it into a [`GpuPlan`], a typed tree
//! of physical operators whose expressions carry resolved types and input
//! column positions, or returns every [`Refusal`]: each construct the GPU
//! cannot run, named in Polars' notation, with the reason. Refusal happens
//! here, before any device work: a plan that lowers is one the executor runs.
//! [`lower_partial`] finds the largest subtrees that lower, for mixed
//! CPU/GPU execution.
//!
//! Matches over Polars' `IR`, `AExpr`, function and aggregation enums are
//! exhaustive with no catch-all arm, so a Polars upgrade that adds a variant
//! fails to compile here instead of mis-lowering. This crate knows nothing of
//! CUDA and has no `unsafe`.
#![forbid(unsafe_code)]

mod dtype;
mod expr;
mod lower_expr;
mod lower_plan;
mod plan;
mod refusal;
mod regex;

use polars_plan::plans::{AExpr, IR};
use polars_utils::arena::{Arena, Node};

pub use dtype::{GpuDtype, TimeUnit};
pub use expr::{
    AggOp, BinaryOp, CastMode, Closed, DistinctTest, ExprKind, FloatCheck, FormatPart, GpuExpr,
    Held, NamedExpr, PadSide, RankMethod, Rounding, RowMatch, RowOrder, Scalar, StringOp,
    TemporalPart, TextPattern, Truncation,
};
pub use lower_plan::node_notation;
pub use plan::{
    FileFormat, GpuPlan, HostScan, JoinKind, JoinOrder, Keep, OutputColumn, OutputSchema, PlanNode,
    SortKey,
};
pub use refusal::Refusal;
pub use regex::{RegexDfa, group_spans_match};

/// Lowers the plan under `root`, or lists every construct that prevents it,
/// in plan order (inputs before the nodes that use them).
pub fn lower_plan(
    root: Node,
    lp_arena: &Arena<IR>,
    expr_arena: &Arena<AExpr>,
) -> Result<GpuPlan, Vec<Refusal>> {
    let mut lowering = lower_plan::PlanLowering::new(lp_arena, expr_arena, false);
    lowering.root = Some(root);
    match lowering.node(root) {
        Some(root) if lowering.refusals.is_empty() => Ok(GpuPlan { root }),
        _ => Err(lowering.refusals),
    }
}

/// The result of [`lower_partial`].
#[derive(Debug, Clone)]
pub struct PartialLowering {
    /// The largest subtrees that lower, each with its root node in Polars'
    /// arena; the whole plan when it lowers.
    pub subtrees: Vec<(Node, GpuPlan)>,
    /// Every construct that could not be lowered.
    pub refusals: Vec<Refusal>,
}

/// Lowers what can be lowered: the largest subtrees of the plan under `root`
/// that run entirely on the GPU, each lowered on its own, and every refusal.
pub fn lower_partial(
    root: Node,
    lp_arena: &Arena<IR>,
    expr_arena: &Arena<AExpr>,
) -> PartialLowering {
    let mut lowering = lower_plan::PlanLowering::new(lp_arena, expr_arena, true);
    if let Some(plan) = lowering.node(root) {
        lowering.maximal.push((root, plan));
    }
    PartialLowering {
        subtrees: lowering
            .maximal
            .into_iter()
            .map(|(node, root)| (node, GpuPlan { root }))
            .collect(),
        refusals: lowering.refusals,
    }
}
