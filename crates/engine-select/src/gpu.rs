//! The GPU path of a collect: start the device lazily, then decide whether the GPU can run the plan.

use gpu_runtime::RuntimeError;
use polars_plan::plans::{AExpr, IR, IRPlanRef};
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
        Err(RuntimeError::Internal(message)) => return Err(EngineError::Internal(message)),
    }
    reasons.push(FallbackReason {
        kind: FallbackKind::Unsupported,
        subject: Some(root_node_notation(root, lp_arena, expr_arena)),
        message: "the GPU engine cannot execute plans yet: lowering (ir-lower) and device \
                  execution (gpu-exec) have not landed"
            .to_owned(),
    });
    Ok(reasons)
}

/// The root node of a plan as `LazyFrame::explain` writes it: its first line.
fn root_node_notation(root: Node, lp_arena: &Arena<IR>, expr_arena: &Arena<AExpr>) -> String {
    let plan = IRPlanRef {
        lp_top: root,
        lp_arena,
        expr_arena,
    };
    let text = plan.display().to_string();
    text.lines().next().unwrap_or_default().trim().to_owned()
}
