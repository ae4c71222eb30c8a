//! Collecting lazy frames on a chosen engine: the extension trait and the several-frames form.

use polars::prelude::{DataFrame, Engine as PolarsEngine, LazyFrame, PolarsError};
use polars_core::query_result::QueryResult;

use crate::engine::{Engine, GpuEngine, ResolvedGpu};
use crate::error::EngineError;
use crate::gpu;
use crate::report::{CollectReport, CpuEngine, ExecutedBy, FallbackKind, FallbackReason};

/// Collects a [`LazyFrame`] on a chosen [`Engine`].
pub trait LazyFrameExt {
    /// Runs the query on `engine` and returns the result.
    ///
    /// With the GPU engine, a query the GPU cannot run gives the CPU engine's
    /// result (see [`LazyFrameExt::collect_with_report`] for why), unless
    /// fallback is disabled, in which case it is an
    /// [`EngineError::GpuUnavailable`] listing every reason.
    fn collect_with(self, engine: &Engine) -> Result<DataFrame, EngineError>;

    /// Like [`LazyFrameExt::collect_with`], and also says which engine
    /// produced the result and, on a GPU fallback, every reason.
    fn collect_with_report(
        self,
        engine: &Engine,
    ) -> Result<(DataFrame, CollectReport), EngineError>;
}

impl LazyFrameExt for LazyFrame {
    fn collect_with(self, engine: &Engine) -> Result<DataFrame, EngineError> {
        self.collect_with_report(engine).map(|(df, _)| df)
    }

    fn collect_with_report(
        self,
        engine: &Engine,
    ) -> Result<(DataFrame, CollectReport), EngineError> {
        match engine {
            Engine::Auto => Ok((self.collect()?, CollectReport::cpu(CpuEngine::Auto))),
            Engine::InMemory => collect_cpu(self, CpuEngine::InMemory),
            Engine::Streaming => collect_cpu(self, CpuEngine::Streaming),
            Engine::Gpu(gpu) => collect_gpu(self, gpu),
        }
    }
}

/// Collects several frames on one engine, in order.
///
/// On a CPU engine they run as one Polars query, sharing common subplans, as
/// Polars' `collect_all` does, with the optimisations of the first frame. On
/// the GPU engine each frame is collected (and may fall back) on its own.
pub fn collect_all_with(
    frames: impl IntoIterator<Item = LazyFrame>,
    engine: &Engine,
) -> Result<Vec<DataFrame>, EngineError> {
    Ok(collect_all_with_report(frames, engine)?
        .into_iter()
        .map(|(df, _)| df)
        .collect())
}

/// Like [`collect_all_with`], with a report for each frame.
pub fn collect_all_with_report(
    frames: impl IntoIterator<Item = LazyFrame>,
    engine: &Engine,
) -> Result<Vec<(DataFrame, CollectReport)>, EngineError> {
    let frames: Vec<LazyFrame> = frames.into_iter().collect();
    let (polars_engine, cpu) = match engine {
        Engine::Gpu(_) => {
            return frames
                .into_iter()
                .map(|lf| lf.collect_with_report(engine))
                .collect();
        }
        Engine::Auto => (PolarsEngine::Auto, CpuEngine::Auto),
        Engine::InMemory => (PolarsEngine::InMemory, CpuEngine::InMemory),
        Engine::Streaming => (PolarsEngine::Streaming, CpuEngine::Streaming),
    };
    let Some(first) = frames.first() else {
        return Ok(Vec::new());
    };
    let flags = first.get_current_optimizations();
    let plans = frames.into_iter().map(|lf| lf.logical_plan).collect();
    let dfs = LazyFrame::collect_all_with_engine(plans, polars_engine, flags)?;
    Ok(dfs
        .into_iter()
        .map(|df| (df, CollectReport::cpu(cpu)))
        .collect())
}

fn collect_cpu(lf: LazyFrame, cpu: CpuEngine) -> Result<(DataFrame, CollectReport), EngineError> {
    let engine = match cpu {
        CpuEngine::Auto => PolarsEngine::Auto,
        CpuEngine::InMemory => PolarsEngine::InMemory,
        CpuEngine::Streaming => PolarsEngine::Streaming,
    };
    match lf.collect_with_engine(engine)? {
        QueryResult::Single(df) => Ok((df, CollectReport::cpu(cpu))),
        QueryResult::Multiple(dfs) => Err(EngineError::Internal(format!(
            "a single query gave {} results",
            dfs.len()
        ))),
    }
}

/// The GPU collect. Polars optimises the plan once; our hook then decides on
/// the optimised plan. On fallback the hook leaves the plan untouched and
/// Polars' in-memory engine runs it, so falling back costs no second
/// optimisation.
///
/// One exception: a plan the device cannot run whole that holds Polars'
/// common subexpressions (which keep, say, a filtered column at its own
/// length beside the others) is optimised again without them. If that plan
/// runs whole on the device, its result is the answer (the same values:
/// the subexpressions are computed where they are used instead of once);
/// else the first plan goes on as any other, and its reasons are reported.
fn collect_gpu(lf: LazyFrame, gpu: &GpuEngine) -> Result<(DataFrame, CollectReport), EngineError> {
    let resolved = gpu.resolve()?;
    match collect_hooked(lf.clone(), &resolved)? {
        Hooked::Collected(df, report) => Ok((df, report)),
        Hooked::WithoutCse => {
            let whole = ResolvedGpu {
                raise_on_fail: true,
                retry_without_cse: false,
                ..resolved
            };
            // A bug met on the second plan must not cost the user the
            // answer: the first plan goes on, and the report says so.
            let mut internal = None;
            match collect_hooked(lf.clone().with_comm_subexpr_elim(false), &whole) {
                Ok(Hooked::Collected(df, report)) => return Ok((df, report)),
                Ok(Hooked::WithoutCse) | Err(EngineError::GpuUnavailable { .. }) => {}
                Err(EngineError::Internal(message)) if !resolved.raise_on_fail => {
                    internal = Some(FallbackReason {
                        kind: FallbackKind::Internal,
                        subject: None,
                        message,
                    });
                }
                Err(e) => return Err(e),
            }
            let first = ResolvedGpu {
                retry_without_cse: false,
                ..resolved
            };
            match collect_hooked(lf, &first)? {
                Hooked::Collected(df, mut report) => {
                    if let Some(reason) = internal {
                        tracing::warn!("GPU engine bug, the CPU engine answered: {reason}");
                        report.fallback_reasons.push(reason);
                    }
                    Ok((df, report))
                }
                Hooked::WithoutCse => Err(EngineError::Internal(
                    "the GPU engine asked twice for a plan without common subexpressions".into(),
                )),
            }
        }
    }
}

/// The whole query run on the CPU after Polars failed on the rest of a
/// mixed plan (`message` says how), for `kind` of reason: a panic is a bug
/// of ours (internal, logged at warn level); an error Polars raises over
/// frames from the device where it answers its own plan is its own way of
/// taking such frames (its checks of scalar columns' lengths), reported as
/// unsupported. Polars' own error, where the CPU raises too, is the answer.
fn on_the_cpu_after_mixed(
    on_the_cpu: LazyFrame,
    mut reasons: Vec<FallbackReason>,
    (kind, message): (FallbackKind, String),
    resolved: &ResolvedGpu,
) -> Result<(DataFrame, CollectReport), EngineError> {
    if resolved.raise_on_fail {
        return Err(EngineError::Internal(message));
    }
    let df = on_the_cpu.collect()?;
    let reason = FallbackReason {
        kind,
        subject: None,
        message,
    };
    if kind == FallbackKind::Internal {
        tracing::warn!("GPU engine bug, the CPU engine answered: {reason}");
    }
    reasons.push(reason);
    let report = CollectReport {
        executed_by: ExecutedBy::Cpu(CpuEngine::InMemory),
        fallback_reasons: reasons,
        partitioned: None,
        spilled: Default::default(),
    };
    Ok((df, report))
}

/// What one optimised collect on the GPU engine came to.
enum Hooked {
    Collected(DataFrame, CollectReport),
    /// The hook stopped it: try the query without common subexpressions.
    WithoutCse,
}

fn collect_hooked(lf: LazyFrame, resolved: &ResolvedGpu) -> Result<Hooked, EngineError> {
    let resolved = *resolved;
    let mut decision: Option<Result<Option<ExecutedBy>, EngineError>> = None;
    let mut reasons = Vec::new();
    let mut without_cse = false;
    let mut ran = gpu_exec::ExecRun::default();
    let on_the_cpu = lf.clone();
    let run = std::panic::AssertUnwindSafe(|| {
        lf._collect_post_opt(|root, lp_arena, expr_arena, _| {
            // A panic in the GPU path (a bug) is never a crash of the caller:
            // the plan is left to the CPU (or, without fallback, an error).
            // Nothing has replaced any part of the plan yet when it happens.
            let attempt = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                gpu::attempt(root, lp_arena, expr_arena, &resolved)
            }))
            .unwrap_or_else(|panic| {
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic".into());
                Ok(gpu::Attempt::FellBack(vec![FallbackReason {
                    kind: FallbackKind::Internal,
                    subject: None,
                    message: format!("the GPU engine panicked: {message}"),
                }]))
            });
            let outcome = match attempt {
                Ok(gpu::Attempt::Ran(df, executed_by, run)) => {
                    // The GPU's result replaces the plan: Polars just hands it back.
                    gpu::put_frame(lp_arena, root, df);
                    ran = run;
                    Ok(Some(executed_by))
                }
                Ok(gpu::Attempt::Mixed(executed_by, why, run)) => {
                    // The plan now holds the device's results: Polars runs the rest.
                    reasons = why;
                    ran = run;
                    Ok(Some(executed_by))
                }
                Ok(gpu::Attempt::FellBack(why)) => {
                    reasons = why;
                    Ok(None)
                }
                Ok(gpu::Attempt::WithoutCse(why)) => {
                    reasons = why;
                    without_cse = true;
                    Ok(None)
                }
                Err(e) => Err(e),
            };
            let stop = match &outcome {
                Ok(Some(_)) => false,
                Ok(None) => without_cse || resolved.raise_on_fail || reasons.is_empty(),
                Err(_) => true,
            };
            decision = Some(outcome);
            if stop {
                // Polars' error is discarded below in favour of ours.
                Err(PolarsError::ComputeError(
                    "stopped by the GPU engine".into(),
                ))
            } else {
                Ok(())
            }
        })
    });
    let result = match std::panic::catch_unwind(run) {
        Ok(result) => result,
        // Polars panicked running the rest of a mixed plan, over frames
        // from the device: a bug of ours; the whole query runs on the CPU.
        Err(panic) if matches!(decision, Some(Ok(Some(ExecutedBy::Mixed { .. })))) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            let message = format!("Polars panicked on the rest of a mixed plan: {message}");
            let why = (FallbackKind::Internal, message);
            let (df, report) = on_the_cpu_after_mixed(on_the_cpu, reasons, why, &resolved)?;
            return Ok(Hooked::Collected(df, report));
        }
        // Polars' own panic, as on the CPU engine.
        Err(panic) => std::panic::resume_unwind(panic),
    };
    if without_cse {
        return Ok(Hooked::WithoutCse);
    }
    let collected = match decision {
        // Polars failed before our hook ran (e.g. a column that does not exist).
        None => Err(result.err().map_or_else(
            || EngineError::Internal("the GPU engine's hook did not run".into()),
            EngineError::Polars,
        )),
        Some(Err(e)) => Err(e),
        // Polars raised on the rest of a mixed plan, over frames from the
        // device: the whole query runs on the CPU. Where it answers there,
        // Polars took the device's frame otherwise than its own (its
        // length checks of scalar columns); where it raises there too,
        // that is Polars' own error.
        Some(Ok(Some(executed_by @ ExecutedBy::Mixed { .. }))) if let Err(error) = &result => {
            let message = format!(
                "Polars raised on the rest of a mixed plan ({executed_by}) where it answers the \
                 whole query: {error}"
            );
            let why = (FallbackKind::Unsupported, message);
            on_the_cpu_after_mixed(on_the_cpu, reasons, why, &resolved)
        }
        Some(Ok(Some(executed_by))) => Ok((
            result?,
            CollectReport {
                executed_by,
                fallback_reasons: reasons,
                partitioned: ran.partitioned,
                spilled: ran.spilled,
            },
        )),
        Some(Ok(None)) if reasons.is_empty() => Err(EngineError::Internal(
            "the GPU engine neither ran the query nor said why not".into(),
        )),
        Some(Ok(None)) if resolved.raise_on_fail => {
            match reasons.iter().find(|r| r.kind == FallbackKind::Internal) {
                Some(bug) => Err(EngineError::Internal(bug.message.clone())),
                None => Err(EngineError::GpuUnavailable { reasons }),
            }
        }
        Some(Ok(None)) => {
            let df = result?;
            let list = FallbackReason::list(&reasons);
            let bug = reasons.iter().any(|r| r.kind == FallbackKind::Internal);
            if bug {
                tracing::warn!("GPU engine bug, the CPU engine answered:{list}");
            } else if polars_core::config::verbose() {
                tracing::warn!("GPU engine fell back to the CPU:{list}");
            } else {
                tracing::debug!("GPU engine fell back to the CPU:{list}");
            }
            Ok((
                df,
                CollectReport {
                    executed_by: ExecutedBy::Cpu(CpuEngine::InMemory),
                    fallback_reasons: reasons,
                    partitioned: None,
                    spilled: Default::default(),
                },
            ))
        }
    };
    collected.map(|(df, report)| Hooked::Collected(df, report))
}
