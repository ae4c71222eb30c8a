//! Lowering of Polars' optimized IR to a GPU plan, with every reason it cannot.
//!
//! The GPU engine sees the plan Polars' optimizer produced (the `IR` and
//! `AExpr` arenas). [`lower_plan`] turns it into a [`GpuPlan`], a typed tree
//! of physical operators whose expressions carry resolved types and input
//! column positions, or returns every [`Refusal`]: each construct the GPU
//! cannot run, named in Polars' notation, with the reason, before any device
//! work. [`support`] checks each lowered node against what the executor's
//! kernels take (key and aggregation types); gpu-exec's `unsupported` still
//! adds the expressions its executor cannot compute yet (to move here, so
//! that support is decided here alone).
//!
//! Matches over Polars' `IR`, `AExpr`, function and aggregation enums list
//! every variant of the workspace's Polars features, so a Polars upgrade
//! that adds one fails to compile here instead of mis-lowering; each ends
//! with a catch-all arm that refuses what a depending crate's extra Polars
//! features add (see ARCHITECTURE.md's invariants). This crate knows
//! nothing of CUDA and has no `unsafe`.
#![forbid(unsafe_code)]

mod dtype;
mod expr;
mod lower_expr;
mod lower_plan;
mod partition;
mod plan;
mod refusal;
mod regex;
pub mod support;

use polars_plan::plans::{AExpr, IR};
use polars_utils::arena::{Arena, Node};

pub use dtype::{Dictionary, GpuDtype, ListOf, StructOf, TimeUnit, Zone};
pub use expr::{
    AggOp, AmbiguousTime, BinaryOp, ByRows, CastMode, Closed, DistinctTest, EwmFunction,
    EwmOptions, ExprKind, FloatCheck, FormatPart, GpuExpr, Held, HostFunction, ListFunction,
    MOST_RANKED, NamedExpr, PadSide, RankMethod, RollingFunction, RollingWindow, Rounding,
    RowMatch, RowOrder, Scalar, StringOp, TemplatePiece, TemporalPart, TextPattern, Truncation,
    UnaryFunction,
};
pub use lower_expr::any_value_to_scalar;
pub use lower_plan::node_notation;
pub use partition::{
    DistinctCounts, FRAME_AGGREGATION, FrameAggregations, PartialAggregation, Partitioning,
    QUANTILE_VALUE, ROWS_AROUND, RUNNING, RankedQuantile, RankedQuantiles, RankedValues,
    RowsAround,
};
pub use plan::{
    AsofStrategy, AsofTolerance, FileFormat, GpuPlan, Heights, HostScan, JoinKind, JoinOrder, Keep,
    OutputColumn, OutputSchema, POLARS_PARTITIONED_ROWS, PlanNode, SortKey,
};
pub use refusal::{Notation, Refusal, written};
pub use regex::{GroupDfas, RegexDfa, group_spans_match};

/// Lowers the plan under `root`, or lists every construct that prevents it,
/// in plan order (inputs before the nodes that use them).
pub fn lower_plan(
    root: Node,
    lp_arena: &Arena<IR>,
    expr_arena: &Arena<AExpr>,
) -> Result<GpuPlan, Vec<Refusal>> {
    let mut lowering = lower_plan::PlanLowering::new(lp_arena, expr_arena);
    lowering.root = Some(root);
    let root = match lowering.node(root) {
        Some(root) if lowering.refusals.is_empty() => root,
        _ => {
            let refusals = refusal::written_out(lowering.refusals, root, lp_arena, expr_arena);
            return Err(refusal::distinct(refusals));
        }
    };
    let sum = root.find_expr(&GpuExpr::sums_lists_in_polars_order);
    if let Some(sum) = sum.filter(|_| root.slices_rows()) {
        return Err(vec![Refusal {
            subject: sum.to_string(),
            reason: "a sum or mean of lists of floats after a slice of rows is not supported on \
                     the GPU (Polars adds each list's floats in one of two orders, by whether \
                     the list column holds a null anywhere, also outside the rows a slice keeps, \
                     which the GPU does not hold)"
                .into(),
            whole_plan: false,
        }]);
    }
    if let Some(sum) = root.sums_lists_of_a_union() {
        return Err(vec![Refusal {
            subject: sum.to_string(),
            reason: "a sum or mean of lists of floats from a union (`concat`), a scan of \
                     several files or a frame of several chunks is not supported on the GPU \
                     (Polars adds the lists of each part by themselves, in one of two orders, \
                     by whether that part's lists hold a null)"
                .into(),
            // (Whole: a union run on the device gives Polars' part above
            // one frame of one chunk, which it sums as one; fuzz seed
            // 23191, case 196.)
            whole_plan: true,
        }]);
    }
    if let Some(slice) = root.slices_lists_of_a_union() {
        return Err(vec![Refusal {
            subject: slice.to_string(),
            reason: "a list.slice by each row's bounds of lists from a union (`concat`), a scan \
                     of several files or a frame of several chunks is not supported on the GPU \
                     (Polars slices the lists of each part by themselves, and those of a part of \
                     one row by its bounds as single values: a null length as the rest, a null \
                     offset as an error)"
                .into(),
            // (Whole, as above: stress seed 23257, case 29.)
            whole_plan: true,
        }]);
    }
    Ok(GpuPlan { root })
}
