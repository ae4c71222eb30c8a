//! The GPU path of a collect: start the device lazily, then decide whether the GPU can run the plan.

use gpu_runtime::RuntimeError;
use polars_plan::plans::{AExpr, IR};
use polars_utils::arena::{Arena, Node};

use crate::engine::ResolvedGpu;
use crate::error::EngineError;
use crate::report::{FallbackKind, FallbackReason};

/// What the GPU engine could not do for a plan, every reason at once.
///
/// The driver is probed here, on the first GPU collect of the process, and
/// never before. An internal error is returned as an error: a bug is never
/// hidden behind a fallback.
pub(crate) fn fallback_reasons(
    root: Node,
    lp_arena: &Arena<IR>,
    expr_arena: &Arena<AExpr>,
    gpu: &ResolvedGpu,
) -> Result<Vec<FallbackReason>, EngineError> {
    let mut reasons = Vec::new();
    let device = match gpu_runtime::driver() {
        Ok(driver) => driver.device(gpu.device).map(|_| ()).map_err(Into::into),
        Err(e) => Err(e),
    };
    match device {
        Ok(()) => {}
        Err(e @ (RuntimeError::Unavailable(_) | RuntimeError::Driver { .. })) => {
            reasons.push(FallbackReason {
                kind: FallbackKind::Unavailable,
                subject: None,
                message: e.to_string(),
            });
        }
        Err(e @ RuntimeError::OutOfMemory { .. }) => reasons.push(FallbackReason {
            kind: FallbackKind::OutOfMemory,
            subject: None,
            message: e.to_string(),
        }),
        // Our own mistakes in calling the runtime: never hidden by a fallback.
        Err(e @ RuntimeError::InvalidArgument(_)) => {
            return Err(EngineError::Internal(e.to_string()));
        }
        Err(RuntimeError::Internal(message)) => return Err(EngineError::Internal(message)),
    }
    match ir_lower::lower_plan(root, lp_arena, expr_arena) {
        Ok(plan) => {
            tracing::debug!("GPU plan:\n{plan}");
            reasons.push(FallbackReason {
                kind: FallbackKind::Unsupported,
                subject: Some(ir_lower::node_notation(root, lp_arena, expr_arena)),
                message: "the plan lowers to the GPU, but device execution (gpu-exec) has not \
                          landed yet"
                    .to_owned(),
            });
        }
        Err(refusals) => reasons.extend(refusals.into_iter().map(|refusal| FallbackReason {
            kind: FallbackKind::Unsupported,
            subject: Some(refusal.subject),
            message: refusal.reason,
        })),
    }
    Ok(reasons)
}

/// The GPU plan Polars' optimised plan lowers to, as an explain tree, or
/// every construct the GPU engine cannot run, one per line.
pub fn explain_gpu(lf: polars::prelude::LazyFrame) -> Result<String, EngineError> {
    let plan = lf.to_alp_optimized()?;
    Ok(
        match ir_lower::lower_plan(plan.lp_top, &plan.lp_arena, &plan.expr_arena) {
            Ok(gpu) => gpu.to_string(),
            Err(refusals) => refusals
                .iter()
                .map(|refusal| format!("cannot run on the GPU: {refusal}\n"))
                .collect(),
        },
    )
}
