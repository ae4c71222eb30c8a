//! The GPU path of a collect: start the device lazily, lower the plan, and run it or say why not.

use gpu_exec::{ExecError, ExecRun};
use gpu_runtime::RuntimeError;
use polars::prelude::DataFrame;
use polars_plan::plans::{AExpr, ArenaLpIter, IR};
use polars_utils::arena::{Arena, Node};

use crate::devices::{self, EMULATED_DEVICES, context};
use crate::engine::{DeviceKind, Executor, ResolvedGpu};
use crate::error::EngineError;
use crate::report::{ExecutedBy, FallbackKind, FallbackReason};
use crate::scans;
use gpu_runtime::memory::LimitResource;

/// What the GPU engine did with a plan.
pub(crate) enum Attempt {
    /// It ran the plan: the result, where, and what the partitioned
    /// executor did, if it ran.
    Ran(DataFrame, ExecutedBy, ExecRun),
    /// It ran the parts it can and put their results in the plan in their
    /// place; Polars' engine runs the rest, for these reasons.
    Mixed(ExecutedBy, Vec<FallbackReason>, ExecRun),
    /// It could not: every reason.
    FellBack(Vec<FallbackReason>),
    /// It cannot run the plan whole, which holds Polars' common
    /// subexpressions (a `with_columns` that keeps each column at its own
    /// length): the same query optimised without them may run whole.
    /// Nothing ran.
    WithoutCse(Vec<FallbackReason>),
}

/// Whether the plan under `root` holds Polars' common subexpressions: a
/// `with_columns` that does not broadcast, made by its optimiser.
fn has_common_subexpressions(root: Node, lp_arena: &Arena<IR>) -> bool {
    lp_arena
        .iter(root)
        .any(|(_, ir)| matches!(ir, IR::HStack { options, .. } if !options.should_broadcast))
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

/// A runtime error as a fallback reason; an invalid argument or an
/// internal runtime error is a bug of ours, reported as such.
fn runtime_reason(e: RuntimeError) -> FallbackReason {
    match e {
        _ if e.is_sticky() => reason(
            FallbackKind::DeviceFault,
            None,
            format!(
                "{e}; the device is unusable until it is reset (GpuEngine::reset_device), and \
                 queries on it fall back"
            ),
        ),
        RuntimeError::Unavailable(_)
        | RuntimeError::Driver { .. }
        | RuntimeError::Kernel { .. } => reason(FallbackKind::Unavailable, None, e.to_string()),
        RuntimeError::OutOfMemory { .. } => reason(FallbackKind::OutOfMemory, None, e.to_string()),
        RuntimeError::InvalidArgument(_) | RuntimeError::Internal(_) => {
            reason(FallbackKind::Internal, None, e.to_string())
        }
    }
}

/// A runtime error of the device as a fallback reason; a sticky one marks
/// the device failed first.
fn device_failure(e: RuntimeError, gpu: &ResolvedGpu) -> FallbackReason {
    if e.is_sticky() {
        devices::mark_faulted(gpu.device_kind, gpu.device, &e);
    }
    runtime_reason(e)
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
    // Reasons raised at run time or by a mixed plan name the user's
    // constructs as ir-lower's refusals do (Polars' common subexpressions
    // written out).
    let notation = ir_lower::Notation::of_plan(root, lp_arena, expr_arena);
    let written = |reasons: Vec<FallbackReason>| -> Vec<FallbackReason> {
        let write = |text: &str| notation.written(text);
        (reasons.into_iter())
            .map(|r| FallbackReason {
                subject: r.subject.as_deref().map(write),
                message: write(&r.message),
                ..r
            })
            .collect()
    };
    Ok(match attempted(root, lp_arena, expr_arena, gpu)? {
        Attempt::Mixed(by, reasons, run) => Attempt::Mixed(by, written(reasons), run),
        Attempt::FellBack(reasons) => Attempt::FellBack(written(reasons)),
        Attempt::WithoutCse(reasons) => Attempt::WithoutCse(written(reasons)),
        ran @ Attempt::Ran(..) => ran,
    })
}

/// [`attempt`], its reasons as the constructs' Polars display gives them.
fn attempted(
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
                reasons.push(runtime_reason(e));
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
    // A device a sticky error left unusable is not touched until reset.
    if let Some(fault) = devices::fault(gpu.device_kind, gpu.device) {
        reasons.push(runtime_reason(fault));
    }
    // File scans are read on the host now, but large ones the partitioned
    // executor reads in partitions as it goes.
    let mut scan_reader = None;
    if reasons.is_empty() {
        let left = match gpu.executor {
            Executor::InMemory => Vec::new(),
            _ => scans::left_to_partitions(root, lp_arena, expr_arena, || {
                let budget = devices::budget(gpu.device_kind, gpu.device, gpu.memory_resource);
                budget.ok().map(|budget| exec_options(gpu, budget, None))
            }),
        };
        scans::read_on_host(root, lp_arena, expr_arena, &left)?;
        if !left.is_empty() {
            scan_reader = Some(scans::PolarsScanReader::new(lp_arena, expr_arena) as _);
        }
    }
    // Whether a refusal keeps every part of the plan on the CPU.
    let mut whole_plan_refused = false;
    let plan = match ir_lower::lower_plan(root, lp_arena, expr_arena) {
        Ok(plan) => {
            tracing::debug!("GPU plan:\n{plan}");
            Some(plan)
        }
        Err(refusals) => {
            whole_plan_refused = refusals.iter().any(|refusal| refusal.whole_plan);
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
    // Whether the plan may still run in parts (the executor's refusals of a
    // lowered plan are bugs, but its other parts may run).
    let only_unsupported = reasons.iter().all(|r| r.kind == FallbackKind::Unsupported);
    // Support is decided in ir-lower: a plan that lowers is one the
    // executor runs. Its last check finding more is a bug of ours.
    if let Some(plan) = &plan {
        reasons.extend(gpu_exec::unsupported(plan).into_iter().map(|refusal| {
            reason(
                FallbackKind::Internal,
                Some(refusal.subject),
                format!(
                    "gpu-exec refused a plan it had accepted: {}",
                    refusal.reason
                ),
            )
        }));
    }
    if gpu.retry_without_cse
        && !reasons.is_empty()
        && only_unsupported
        && has_common_subexpressions(root, lp_arena)
    {
        return Ok(Attempt::WithoutCse(reasons));
    }
    let (device, emulated) = (gpu.device, gpu.device_kind == DeviceKind::Emulated);
    // The whole plan, or else (a mixed plan, when there is a device and the
    // user did not ask for all or nothing) the parts that can run.
    let (whole, subplans) = match plan {
        Some(plan) if reasons.is_empty() => (true, vec![(root, plan)]),
        _ => {
            if !only_unsupported || gpu.raise_on_fail || whole_plan_refused {
                return Ok(Attempt::FellBack(reasons));
            }
            let subtrees = gpu_subtrees(root, lp_arena, expr_arena);
            if subtrees.is_empty() {
                return Ok(Attempt::FellBack(reasons));
            }
            if let Some((place, why)) = cpu_part_refusal(root, &subtrees, lp_arena, expr_arena) {
                reasons.push(reason(FallbackKind::Unsupported, Some(place), why));
                return Ok(Attempt::FellBack(reasons));
            }
            (false, subtrees)
        }
    };
    let (mut context, budget) = match context(gpu.device_kind, gpu.device, gpu.memory_resource) {
        Ok(started) => started,
        Err(e) => return Ok(Attempt::FellBack(vec![device_failure(e, gpu)])),
    };
    if let Some(limit) = gpu.device_memory_limit {
        context.memory = std::sync::Arc::new(LimitResource::new(context.memory, limit));
    }
    context.spill_kept = gpu.spill_kept_results;
    let options = exec_options(gpu, budget, scan_reader);
    // All subplans run before any replaces its part of the plan: a failure
    // leaves the plan whole for the CPU.
    let mut frames = Vec::with_capacity(subplans.len());
    let mut ran_so_far = ExecRun::default();
    for (node, plan) in &subplans {
        let ran = run(plan, &context, &options, gpu).map(|(df, run)| {
            ran_so_far = ran_so_far.combined(run);
            df
        });
        match ran {
            // Polars holds a column of one row, or of none, as a scalar
            // column where it computed it, as a series where it read it,
            // and its group-bys answer by which (`arg_max` of an empty
            // slice: null or 0; the aggregations of a rolling group-by of
            // no rows typed null or as their values, fuzz seed 2948): a
            // frame of one row or none cannot stand in for its own.
            Ok(df) if !whole && df.height() <= 1 => {
                let rows = if df.height() == 0 {
                    "no rows"
                } else {
                    "one row"
                };
                let why = format!(
                    "a part of a mixed plan gave {rows}, whose columns Polars holds as scalars \
                     or not by how it made them, and answers by it"
                );
                let why = reason(FallbackKind::Unsupported, None, why);
                return Ok(Attempt::FellBack(vec![why]));
            }
            Ok(df) => frames.push((*node, df)),
            Err(why) => return Ok(Attempt::FellBack(vec![why])),
        }
    }
    if whole && let Some((_, df)) = frames.pop() {
        let executed_by = ExecutedBy::Gpu { device, emulated };
        return Ok(Attempt::Ran(df, executed_by, ran_so_far));
    }
    for (node, df) in frames {
        put_frame(lp_arena, node, df);
    }
    let executed_by = ExecutedBy::Mixed {
        device,
        emulated,
        subplans: subplans.len(),
    };
    Ok(Attempt::Mixed(executed_by, reasons, ran_so_far))
}

/// How the executor runs plans for `gpu`, on a device whose budget is
/// `budget` bytes (unless the user set a limit).
fn exec_options(
    gpu: &ResolvedGpu,
    budget: u64,
    scan_reader: Option<std::sync::Arc<dyn gpu_exec::ScanReader>>,
) -> gpu_exec::ExecOptions {
    gpu_exec::ExecOptions {
        executor: match gpu.executor {
            Executor::InMemory => gpu_exec::ExecutorChoice::InMemory,
            Executor::Partitioned => gpu_exec::ExecutorChoice::Partitioned,
            Executor::Auto => gpu_exec::ExecutorChoice::Auto,
        },
        memory_budget: gpu.device_memory_limit.unwrap_or(budget),
        partition_rows: gpu.partition_rows,
        scan_reader,
    }
}

/// Runs `plan` on the device: its result, or the reason to fall back (out
/// of memory, a driver failure, data the query rejects: Polars then raises
/// its own error; data whose answer depends on what only Polars knows; or a
/// bug of ours: a plan the executor refuses after lowering accepted it, a
/// frame Polars does not take).
fn run(
    plan: &ir_lower::GpuPlan,
    context: &gpu_exec::ExecContext,
    options: &gpu_exec::ExecOptions,
    gpu: &ResolvedGpu,
) -> Result<(DataFrame, ExecRun), FallbackReason> {
    gpu_exec::execute_with(plan, context, options).map_err(|e| match e {
        ExecError::Runtime(e) => device_failure(e, gpu),
        ExecError::InvalidData(message) => reason(
            FallbackKind::InvalidData,
            None,
            format!("{message} (Polars' engine raises the error)"),
        ),
        ExecError::DependsOnPolars(message) => reason(FallbackKind::Unsupported, None, message),
        ExecError::Polars(e) => reason(
            FallbackKind::Internal,
            None,
            format!("Polars refused a frame the device made: {e}"),
        ),
        ExecError::Unsupported(message) => reason(
            FallbackKind::Internal,
            None,
            format!("gpu-exec refused a plan it had accepted: {message}"),
        ),
    })
}

/// The largest subplans below `root` (which does not run whole: callers
/// know) that the device runs whole and that are worth running there (more
/// than moving a frame to the device and back), each with its IR node: a
/// node itself when it lowers and the executor takes it, else those of its
/// inputs.
fn gpu_subtrees(
    root: Node,
    lp_arena: &Arena<IR>,
    expr_arena: &Arena<AExpr>,
) -> Vec<(Node, ir_lower::GpuPlan)> {
    let (mut pending, mut seen, mut out) = (Vec::new(), std::collections::HashSet::new(), vec![]);
    lp_arena.get(root).copy_inputs(&mut pending);
    while let Some(node) = pending.pop() {
        if !seen.insert(node) {
            continue;
        }
        // A with_columns that does not broadcast (Polars' common
        // subexpressions) holds columns at one row, which the operators
        // above it read as such: a frame from the device, every column at
        // every row, cannot stand in its place.
        let one_row_columns =
            matches!(lp_arena.get(node), IR::HStack { options, .. } if !options.should_broadcast);
        // Nor do the device's columns of one value repeated on every row
        // stand in for the scalar columns Polars would hold there (its
        // group-bys take those otherwise).
        if !one_row_columns
            && let Ok(plan) = ir_lower::lower_plan(node, lp_arena, expr_arena)
            && gpu_exec::unsupported(&plan).is_empty()
            && !holds_one_value_columns(&plan.root)
        {
            if computes(&plan.root) {
                out.push((node, plan));
            }
            continue;
        }
        lp_arena.get(node).copy_inputs(&mut pending);
    }
    out
}

/// What in the part of the plan above `subtrees` (the part Polars runs of
/// a mixed plan) Polars answers by how its input came, so that a frame
/// from the device cannot stand in for its own: the construct as Polars
/// writes it, and why.
/// - an `arg_min` or `arg_max`: Polars takes the last of tied extremes
///   where it knows the values sorted (a sorted column, one of one row),
///   and the device's frames carry no such knowledge;
/// - a `min_horizontal` or `max_horizontal` (of floats, as the device runs
///   the others): with NaN, Polars' answer depends on how its input is
///   held in chunks, which a frame from the device changes;
/// - a function of one value (a literal) with arguments of every row
///   (which ir-lower refuses, but an outer refusal may hide): Polars
///   answers by how its input is held in chunks (it clips a literal by
///   the first bound of each chunk);
/// - a cast to an enum: of values outside it, Polars raises or gives nulls
///   by how its input is held in chunks;
/// - a select or with_columns making a column of one value (a literal, an
///   aggregation): Polars holds it as a scalar column or repeats it, by its
///   input, and the functions of the rows in order over it answer by which
///   (`is_duplicated` of a literal beside a column);
/// - a `list.slice` by each row's bounds, or a sum or mean of lists, over a
///   frame from the device that a union, a scan of several files or a
///   frame of several chunks made: Polars takes their parts one by one
///   there (see ir-lower's `PlanNode::of_parts`), a frame from the device
///   as one.
fn cpu_part_refusal(
    root: Node,
    subtrees: &[(Node, ir_lower::GpuPlan)],
    lp_arena: &Arena<IR>,
    expr_arena: &Arena<AExpr>,
) -> Option<(String, &'static str)> {
    use polars_plan::plans::{ArenaExprIter, IRFunctionExpr, IRStringFunction, is_scalar_ae};
    let notation = |node: Node| ir_lower::written(node, expr_arena);
    let of_parts = subtrees.iter().any(|(_, plan)| holds_parts(&plan.root));
    let mut pending = vec![root];
    while let Some(node) = pending.pop() {
        if subtrees.iter().any(|(subtree, _)| *subtree == node) {
            continue;
        }
        let ir = lp_arena.get(node);
        for expr in ir.exprs() {
            let found = expr_arena.iter(expr.node()).find_map(|(place, e)| {
                let (function, input) = match e {
                    AExpr::Function {
                        function: IRFunctionExpr::ListExpr(list),
                        input,
                        ..
                    } if of_parts && by_input_frame(list, input, expr_arena) => {
                        let why = "a list.slice by each row's bounds, or a sum or mean of lists, \
                                   over a frame from the device made by a union, a scan of \
                                   several files or a frame of several chunks, which Polars \
                                   takes part by part";
                        return Some((notation(place), why));
                    }
                    AExpr::Cast {
                        dtype: polars::prelude::DataType::Enum(..),
                        ..
                    } => {
                        let why = "a cast to an enum over a frame from the device, which \
                                   Polars answers for values outside the enum by how its \
                                   input is held in chunks (an error, or nulls)";
                        return Some((notation(place), why));
                    }
                    AExpr::Function {
                        function, input, ..
                    } => (function, input),
                    _ => return None,
                };
                let why = match function {
                    IRFunctionExpr::ArgMin | IRFunctionExpr::ArgMax => {
                        "the place of an extreme over a frame from the device, which carries \
                         no sortedness Polars would take ties by"
                    }
                    IRFunctionExpr::MinHorizontal | IRFunctionExpr::MaxHorizontal => {
                        "a horizontal extreme over a frame from the device, which Polars \
                         answers with NaN by how its input is held in chunks"
                    }
                    IRFunctionExpr::Coalesce
                    | IRFunctionExpr::StringExpr(IRStringFunction::ConcatHorizontal { .. }) => {
                        return None;
                    }
                    _ if input
                        .first()
                        .is_some_and(|v| is_scalar_ae(v.node(), expr_arena))
                        && input[1..]
                            .iter()
                            .any(|b| !is_scalar_ae(b.node(), expr_arena)) =>
                    {
                        "a function of one value with arguments of every row over a frame \
                         from the device, which Polars answers by how its input is held in \
                         chunks (a clip of a literal by each chunk's first bound)"
                    }
                    _ => return None,
                };
                Some((notation(place), why))
            });
            if found.is_some() {
                return found;
            }
        }
        if let IR::Select { expr, .. } | IR::HStack { exprs: expr, .. } = ir
            && let Some(one) = expr.iter().find(|e| is_scalar_ae(e.node(), expr_arena))
        {
            let why = "a column of one value over a frame from the device, which Polars holds \
                       as a scalar or repeats by how its input came";
            return Some((notation(one.node()), why));
        }
        ir.copy_inputs(&mut pending);
    }
    None
}

/// Whether the subplan under `node` holds a union, a scan of several files
/// or a frame of several chunks, whose parts Polars evaluates one by one
/// ([`ir_lower::PlanNode::of_parts`]).
fn holds_parts(node: &ir_lower::PlanNode) -> bool {
    node.of_parts() || node.inputs().into_iter().any(holds_parts)
}

/// Whether Polars answers the list function `list` of `input` by the frame
/// it takes it of (each input of a union its own): a slice by bounds that
/// are not literals, or a sum or mean.
fn by_input_frame(
    list: &polars_plan::plans::IRListFunction,
    input: &[polars_plan::plans::expr_ir::ExprIR],
    expr_arena: &Arena<AExpr>,
) -> bool {
    use polars_plan::plans::IRListFunction;
    match list {
        IRListFunction::Slice => input
            .iter()
            .skip(1)
            .any(|bound| !matches!(expr_arena.get(bound.node()), AExpr::Literal(_))),
        IRListFunction::Sum | IRListFunction::Mean => true,
        _ => false,
    }
}

/// Whether a select or with_columns anywhere in the subplan under `node`
/// makes columns of one value, which Polars would hold as scalar columns
/// (and which of the nodes above keep them so is Polars' own).
fn holds_one_value_columns(node: &ir_lower::PlanNode) -> bool {
    gpu_exec::one_value_columns(node).next().is_some()
        || node.inputs().into_iter().any(holds_one_value_columns)
}

/// Whether a subplan does any work beyond reading frames and picking columns.
fn computes(node: &ir_lower::PlanNode) -> bool {
    use ir_lower::PlanNode;
    match node {
        PlanNode::DataFrameScan { .. } | PlanNode::FileScan { .. } => false,
        PlanNode::SimpleProjection { input, .. } | PlanNode::Cache { input, .. } => computes(input),
        _ => true,
    }
}

/// Puts `df` in Polars' plan in place of `node` (and of all below it).
pub(crate) fn put_frame(lp_arena: &mut Arena<IR>, node: Node, df: DataFrame) {
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

/// The GPU plan Polars' optimised plan lowers to, as an explain tree; or
/// every construct the GPU engine cannot run, one per line, followed by the
/// subplans a mixed plan would run on the device (each an explain tree).
/// Nothing is read or run.
pub fn explain_gpu(lf: polars::prelude::LazyFrame) -> Result<String, EngineError> {
    let plan = lf.to_alp_optimized()?;
    let (root, lp_arena, expr_arena) = (plan.lp_top, &plan.lp_arena, &plan.expr_arena);
    let mut text = String::new();
    match ir_lower::lower_plan(root, lp_arena, expr_arena) {
        Ok(gpu) => {
            let missing = gpu_exec::unsupported(&gpu);
            if missing.is_empty() {
                return Ok(gpu.to_string());
            }
            for message in missing {
                text.push_str(&format!(
                    "cannot run on the GPU (a bug: the executor refused a plan that lowered): \
                     {message}\n"
                ));
            }
        }
        Err(refusals) => {
            for refusal in refusals {
                text.push_str(&format!("cannot run on the GPU: {refusal}\n"));
            }
        }
    }
    for (_, subplan) in gpu_subtrees(root, lp_arena, expr_arena) {
        text.push_str(&format!("runs on the GPU, in a mixed plan:\n{subplan}"));
    }
    Ok(text)
}
