//! The GPU path of a collect: start the device lazily, lower the plan, and run it or say why not.

use gpu_exec::ExecError;
use gpu_runtime::RuntimeError;
use polars::prelude::DataFrame;
use polars_plan::plans::{AExpr, IR};
use polars_utils::arena::{Arena, Node};

use crate::devices::{EMULATED_DEVICES, context};
use crate::engine::{DeviceKind, ResolvedGpu};
use crate::error::EngineError;
use crate::report::{ExecutedBy, FallbackKind, FallbackReason};

/// What the GPU engine did with a plan.
pub(crate) enum Attempt {
    /// It ran the plan: the result, and where.
    Ran(DataFrame, ExecutedBy),
    /// It could not: every reason.
    FellBack(Vec<FallbackReason>),
}

fn reason(
    kind: FallbackKind,
    subject: Option<String>,
    message: impl Into<String>,
) -> FallbackReason {
    FallbackReason {
        kind,
        subject,
        message: message.into(),
    }
}

/// A runtime error as a fallback reason, or as an error when it is a bug
/// (never hidden by a fallback).
fn runtime_reason(e: RuntimeError) -> Result<FallbackReason, EngineError> {
    match e {
        RuntimeError::Unavailable(_)
        | RuntimeError::Driver { .. }
        | RuntimeError::Kernel { .. } => Ok(reason(FallbackKind::Unavailable, None, e.to_string())),
        RuntimeError::OutOfMemory { .. } => {
            Ok(reason(FallbackKind::OutOfMemory, None, e.to_string()))
        }
        RuntimeError::InvalidArgument(_) | RuntimeError::Internal(_) => {
            Err(EngineError::Internal(e.to_string()))
        }
    }
}

/// Decides, then runs the plan on the device if nothing stands in the way.
///
/// The CUDA driver is probed here, on the first GPU collect of the process,
/// and never before. Every reason is collected before anything runs, so a
/// query never falls back halfway.
pub(crate) fn attempt(
    root: Node,
    lp_arena: &mut Arena<IR>,
    expr_arena: &mut Arena<AExpr>,
    gpu: &ResolvedGpu,
) -> Result<Attempt, EngineError> {
    let mut reasons = Vec::new();
    match gpu.device_kind {
        DeviceKind::Cuda => {
            let device = gpu_runtime::driver()
                .and_then(|driver| driver.device(gpu.device).map(|_| ()).map_err(Into::into));
            if let Err(e) = device {
                reasons.push(runtime_reason(e)?);
            }
        }
        DeviceKind::Emulated if gpu.device >= EMULATED_DEVICES => {
            reasons.push(reason(
                FallbackKind::Unavailable,
                None,
                format!(
                    "emulated device {} does not exist: there are {EMULATED_DEVICES}, numbered 0 \
                     to {}",
                    gpu.device,
                    EMULATED_DEVICES - 1
                ),
            ));
        }
        DeviceKind::Emulated => {}
    }
    if reasons.is_empty() {
        read_scans_on_host(root, lp_arena, expr_arena)?;
    }
    let plan = match ir_lower::lower_plan(root, lp_arena, expr_arena) {
        Ok(plan) => {
            tracing::debug!("GPU plan:\n{plan}");
            Some(plan)
        }
        Err(refusals) => {
            reasons.extend(refusals.into_iter().map(|refusal| {
                reason(
                    FallbackKind::Unsupported,
                    Some(refusal.subject),
                    refusal.reason,
                )
            }));
            None
        }
    };
    let Some(plan) = plan else {
        return Ok(Attempt::FellBack(reasons));
    };
    reasons.extend(
        gpu_exec::unsupported(&plan)
            .into_iter()
            .map(|message| reason(FallbackKind::Unsupported, None, message)),
    );
    if !reasons.is_empty() {
        return Ok(Attempt::FellBack(reasons));
    }
    let context = match context(gpu.device_kind, gpu.device, gpu.memory_resource) {
        Ok(context) => context,
        Err(e) => return Ok(Attempt::FellBack(vec![runtime_reason(e)?])),
    };
    match gpu_exec::execute(&plan, &context) {
        Ok(df) => Ok(Attempt::Ran(
            df,
            ExecutedBy::Gpu {
                device: gpu.device,
                emulated: gpu.device_kind == DeviceKind::Emulated,
            },
        )),
        Err(ExecError::Runtime(e)) => Ok(Attempt::FellBack(vec![runtime_reason(e)?])),
        Err(ExecError::Polars(e)) => Err(EngineError::Polars(e)),
        Err(ExecError::Unsupported(message)) => Err(EngineError::Internal(format!(
            "gpu-exec refused a plan it had accepted: {message}"
        ))),
    }
}

/// Reads every file scan of the plan on the host with Polars' own reader
/// (its projection, predicate and slice pushdowns kept) and puts the result
/// in the plan as an in-memory frame, so the device runs everything above
/// it: the simplest mixed plan, the CPU below the GPU. Should the device
/// then not run the plan, Polars' engine goes on from the frames read, so no
/// file is read twice. Returns the number of scans read.
fn read_scans_on_host(
    root: Node,
    lp_arena: &mut Arena<IR>,
    expr_arena: &mut Arena<AExpr>,
) -> Result<usize, EngineError> {
    let mut pending = vec![root];
    let mut seen = std::collections::HashSet::new();
    let mut scans = Vec::new();
    while let Some(node) = pending.pop() {
        if !seen.insert(node) {
            continue;
        }
        let ir = lp_arena.get(node);
        if matches!(ir, IR::Scan { .. }) {
            scans.push(node);
        } else {
            ir.copy_inputs(&mut pending);
        }
    }
    for &node in &scans {
        let started = std::time::Instant::now();
        let mut reader = polars_mem_engine::create_physical_plan(
            node,
            lp_arena,
            expr_arena,
            polars::lazy::frame::BUILD_STREAMING_EXECUTOR,
        )?;
        let df = reader.execute(&mut polars_expr::state::ExecutionState::new())?;
        tracing::debug!(rows = df.height(), elapsed = ?started.elapsed(), "read a scan on the host");
        let schema = df.schema().clone();
        lp_arena.replace(
            node,
            IR::DataFrameScan {
                df: std::sync::Arc::new(df),
                schema,
                output_schema: None,
            },
        );
    }
    Ok(scans.len())
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
