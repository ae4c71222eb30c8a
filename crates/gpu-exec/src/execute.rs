//! Running a GPU plan: the executor's core (the plan walk, dispatch to the
//! operators, shared subplans, inputs uploaded ahead, the profile).
//!
//! One module per operator (`node/`: select, with_columns, filter, slice,
//! row_index, sort, join, group_by, distinct, union, hconcat) and one per
//! expression family (`expr/`: evaluation, strings, parsing and formatting,
//! row order, windows, aggregations, membership, predicates, and the checks
//! of values whose answer is Polars' own), over shared pieces: `keys` (keys
//! as the words the sort and hash kernels compare), `groups` and `frames`
//! (gathers). [`unsupported`] (`support`) says, before anything runs, which
//! parts of a plan the executor cannot run; [`execute`] runs a plan that
//! has none. docs/operations.md lists what each operator covers.

use gpu_runtime::memory::DeviceBuffer;
use gpu_runtime::ops::{
    Comparison, DeviceStrings, DfaTables, GatheredLists, JoinIndices, JoinKind as DeviceJoin,
    Logic, Multipliable, Ops, PARSE_YEAR, Pattern, StringMatch,
};
use gpu_runtime::{Event, RuntimeError, WorkCounts};
use ir_lower::{
    AggOp, BinaryOp, CastMode, Closed, DistinctTest, ExprKind, FormatPart, GpuDtype, GpuExpr,
    GpuPlan, Held, JoinKind, JoinOrder, Keep, ListFunction, NamedExpr, OutputSchema, PlanNode,
    RankMethod, Refusal, RegexDfa, RowMatch, RowOrder, Scalar, SortKey, StringOp, TextPattern,
};
use polars::prelude::DataFrame;
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::column::{Child, DeviceColumn, DeviceFrame, ExecContext, Values};
use crate::compile::{GroupShape, compile, reads_group_lengths};
use crate::error::ExecError;
use crate::prefetch::Prefetch;
pub(crate) use crate::prefetch::Resident;
use gpu_runtime::ops::{
    AsciiCase, ConcatPart, ExprInput, Gather, IntegerText, QuantileMethod, RankPlace, SegmentPick,
    Side, StringsRef, VarianceOf, Word64,
};

mod expr;
mod frames;
mod groups;
mod keys;
mod node;
mod spill;
mod support;

pub(crate) use expr::cast_to;
use expr::*;
use frames::*;
use groups::*;
pub(crate) use keys::struct_fields;
use keys::*;
pub(crate) use node::typed_null_over_no_groups;
use node::*;
pub use spill::Spilled;
use spill::{Kept, SpillStore};
pub use support::unsupported;
use support::*;

/// Runs `plan` on the device and brings the result back. Its file scans
/// must have been read into in-memory frames (engine-select reads them on
/// the host with Polars' reader).
pub fn execute(plan: &GpuPlan, ctx: &ExecContext) -> Result<DataFrame, ExecError> {
    lists_read_whole(plan)?;
    execute_counting(plan, ctx, &[]).map(|(df, _)| df)
}

/// Where `plan` sums lists in Polars' order (see
/// `PlanNode::reads_values_outside_lists`), that no in-memory input holds a
/// list column whose nulls Polars finds only outside the lists its rows
/// keep (a sliced frame): its answer then follows them, and the device,
/// which holds only the values the lists span, goes to Polars; nor one in
/// chunks of which some hold nulls in their lists and some none (read
/// from several files), which Polars may sum chunk by chunk.
pub(crate) fn lists_read_whole(plan: &GpuPlan) -> Result<(), ExecError> {
    if !plan.root.reads_values_outside_lists() {
        return Ok(());
    }
    for (_, df, projection) in scans_in_order(&plan.root) {
        for &i in projection {
            let Some(column) = df.columns().get(i) else {
                continue;
            };
            let Ok(lists) = column.list() else {
                continue;
            };
            if crate::column::lists::hides_nulls(lists) {
                return Err(ExecError::DependsOnPolars(format!(
                    "list column {:?} is a slice of lists whose nulls lie outside the rows it \
                     keeps, which Polars' sums and means of lists of floats read",
                    column.name()
                )));
            }
            if crate::column::lists::chunks_differ_in_nulls(lists) {
                return Err(ExecError::DependsOnPolars(format!(
                    "list column {:?} comes in chunks (from several files, say) of which some \
                     hold nulls in their lists and some none: Polars may sum and average the \
                     lists of floats of each chunk by its own",
                    column.name()
                )));
            }
        }
    }
    Ok(())
}

/// [`execute`], also giving what else the run did; the scans of the
/// `resident` frames read them on the device.
pub(crate) fn execute_counting(
    plan: &GpuPlan,
    ctx: &ExecContext,
    resident: &[&Resident],
) -> Result<(DataFrame, RunCounts), ExecError> {
    let (df, (), counts) = run_plan(plan, ctx, resident, |_, frame| {
        Ok((held_as_polars_holds(frame.to_dataframe()?, &plan.root)?, ()))
    })?;
    Ok((df, counts))
}

/// What a run of a plan did besides its result.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RunCounts {
    /// In-memory inputs uploaded ahead of their use (see
    /// `ExecContext::copy_stream`; the profile prints it, tests read it).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) uploaded_ahead: usize,
    /// What the spill manager moved to host memory.
    pub(crate) spilled: Spilled,
}

/// Runs `plan` on the device and hands its result to `finish` (with an
/// executor over the same context), which brings it back: the frame
/// `finish` makes, what else it gives, and what else the run did. The
/// checks the operators left for the end fail the run once `finish` has
/// its frame on the host. Everything the run allocates goes through its
/// spill manager (`spill`).
pub(crate) fn run_plan<T>(
    plan: &GpuPlan,
    ctx: &ExecContext,
    resident: &[&Resident],
    finish: impl FnOnce(&Executor<'_>, DeviceFrame) -> Result<(DataFrame, T), ExecError>,
) -> Result<(DataFrame, T, RunCounts), ExecError> {
    let reasons = unsupported(plan);
    if !reasons.is_empty() {
        let reasons: Vec<String> = reasons.iter().map(ToString::to_string).collect();
        return Err(ExecError::Unsupported(reasons.join("; ")));
    }
    let (store, ctx) = SpillStore::over(ctx);
    let ctx = &ctx;
    let mut uses = HashMap::new();
    count_cache_uses(&plan.root, &mut uses);
    let profiling = profiling();
    let fresh = || {
        RefCell::new(Shared {
            uses: uses.clone(),
            frames: HashMap::new(),
            spill: store.clone(),
            checks: Vec::new(),
            profile: profiling.then(Profile::default),
        })
    };
    let run = |shared: &RefCell<Shared>, uploads: Option<&Uploads>| {
        Executor::new(ctx, shared, uploads, resident).run(&plan.root)
    };
    // (A resident input is on the device already.)
    let scans: Vec<_> = scans_in_order(&plan.root)
        .into_iter()
        .filter(|(_, df, projection)| !resident.iter().any(|r| r.is(df, projection)))
        .collect();
    let copy_stream = ctx.copy_stream.as_ref().filter(|_| scans.len() > 1);
    let mut shared = fresh();
    let (frame, uploaded_ahead) = match copy_stream {
        Some(copy_stream) if prefetching() => {
            let uploads = Prefetch::new(scans.iter().map(|(key, ..)| *key).collect(), 1);
            let copy_ctx = ExecContext {
                memory: ctx.memory.clone(),
                stream: copy_stream.clone(),
                side_stream: None,
                copy_stream: None,
                spill_kept: ctx.spill_kept,
            };
            let ahead = std::thread::scope(|s| {
                s.spawn(|| {
                    uploads.work(|key| {
                        let (_, df, projection) = scans.iter().find(|(k, ..)| *k == key)?;
                        let frame = DeviceFrame::from_dataframe(df, Some(projection), &copy_ctx);
                        let made = Event::new();
                        // An input the worker cannot make (out of memory,
                        // say) is the executor's to make, or fail on.
                        made.record(copy_stream).ok()?;
                        Some((frame.ok()?, made))
                    })
                });
                let frame = run(&shared, Some(&uploads));
                uploads.stop();
                frame.map(|frame| (frame, uploads.taken()))
            });
            drop(uploads);
            match ahead {
                // An input uploaded ahead holds device memory before the
                // plan needs it: a plan that runs out of memory so runs
                // again, from the start, with each input uploaded when the
                // executor reaches it (what it held of the first try is
                // freed first).
                Err(ExecError::Runtime(RuntimeError::OutOfMemory { .. })) => {
                    store.clear();
                    shared = fresh();
                    run(&shared, None).map(|frame| (frame, 0))
                }
                other => other,
            }
        }
        _ => run(&shared, None).map(|frame| (frame, 0)),
    }?;
    let started = std::time::Instant::now();
    let (df, extra) = finish(&Executor::new(ctx, &shared, None, &[]), frame)?;
    let spilled = store.spilled();
    if let Some(profile) = &shared.borrow().profile {
        eprintln!("{}", profile.render(started.elapsed(), df.height()));
        eprintln!(
            "{uploaded_ahead} of {} in-memory inputs uploaded ahead of their use",
            scans.len()
        );
        if spilled.frames > 0 {
            eprintln!(
                "{} kept results ({} bytes) spilled to host memory, {} bytes brought back",
                spilled.frames, spilled.bytes, spilled.restored_bytes
            );
        }
    }
    // The result is on the host, so every launch has finished.
    for (flag, what, failure) in &shared.borrow().checks {
        if flag.to_host()?.first().is_some_and(|&failed| failed != 0) {
            return Err(failure(what.clone()));
        }
    }
    let counts = RunCounts {
        uploaded_ahead,
        spilled,
    };
    Ok((df, extra, counts))
}

/// Whether Polars holds a column of `node`'s output as one value (a
/// scalar column, or one kept at one row): the operators above read such
/// columns through the plan below them, so a frame of that output cannot
/// stand in for the node.
pub(crate) fn holds_one_value(node: &PlanNode) -> bool {
    !scalar_columns(node).is_empty()
}

/// The columns of `node`'s output that Polars flags sorted, and whether
/// descending: the first key column of a sort, a row index, a select's or
/// with_columns' `set_sorted` (the device checked the claim), also under
/// projections that pass them on as they are (Polars hands on the same
/// column, flag and all), filters and slices (which keep the flag).
fn sorted_columns(node: &PlanNode) -> Vec<(String, bool)> {
    let claimed = |exprs: &[NamedExpr]| -> Vec<(String, bool)> {
        exprs
            .iter()
            .filter_map(|named| match &named.expr.kind {
                ExprKind::SetSorted { descending, .. } => Some((named.name.clone(), *descending)),
                _ => None,
            })
            .collect()
    };
    match node {
        PlanNode::RowIndex { name, .. } => vec![(name.clone(), false)],
        PlanNode::Sort { keys, .. } => {
            let Some(first) = keys.first() else {
                return vec![];
            };
            let ExprKind::Column { index, .. } = first.expr.kind else {
                return vec![];
            };
            let Some(column) = node.schema().get(index) else {
                return vec![];
            };
            vec![(column.name.clone(), first.descending)]
        }
        // Polars' filters and slices keep a column's sorted flag.
        PlanNode::Filter { input, .. } | PlanNode::Slice { input, .. } => sorted_columns(input),
        PlanNode::SimpleProjection { input, schema, .. } => sorted_columns(input)
            .into_iter()
            .filter(|(name, _)| schema.iter().any(|c| c.name == *name))
            .collect(),
        PlanNode::Select { input, exprs, .. } => {
            let below = sorted_columns(input);
            let mut sorted: Vec<_> = exprs
                .iter()
                .filter_map(|named| match &named.expr.kind {
                    ExprKind::Column { name: read, .. } => below
                        .iter()
                        .find(|(name, _)| name == read)
                        .map(|&(_, descending)| (named.name.clone(), descending)),
                    _ => None,
                })
                .collect();
            sorted.extend(claimed(exprs));
            sorted
        }
        PlanNode::WithColumns { input, exprs, .. } => {
            let mut sorted: Vec<_> = sorted_columns(input)
                .into_iter()
                .filter(|(name, _)| !exprs.iter().any(|named| named.name == *name))
                .collect();
            sorted.extend(claimed(exprs));
            sorted
        }
        _ => vec![],
    }
}

/// `df`, the result of `root`, held as Polars' engine holds its own result
/// of that node: the columns of one value repeated on every row as
/// `Column::Scalar` (a select's or with_columns' expressions of one value
/// beside per-row ones), the columns [`sorted_columns`] names (a sort's
/// first key, a row index, `set_sorted`, also through projections) marked
/// sorted.
/// Polars' engine, running the rest of a mixed plan, treats such columns
/// apart (so mixed plans take no subplan that makes columns of one value
/// at all).
pub(crate) fn held_as_polars_holds(
    mut df: DataFrame,
    root: &PlanNode,
) -> Result<DataFrame, ExecError> {
    // Polars marks the first key column of a sort as sorted (and a
    // column it was told is), and its engine then takes paths of its own
    // (groups as slices) over it.
    for (name, descending) in sorted_columns(root) {
        if df.column(&name).is_err() {
            continue;
        }
        let flag = if descending {
            polars::series::IsSorted::Descending
        } else {
            polars::series::IsSorted::Ascending
        };
        df.apply(name.as_str(), |column| {
            let mut column = column.clone();
            column.set_sorted_flag(flag);
            column
        })?;
    }
    let height = df.height();
    if height == 0 {
        return Ok(df);
    }
    for named in one_value_columns(root) {
        let Ok(column) = df.column(&named.name) else {
            continue;
        };
        let value = column.get(0)?.into_static();
        let scalar = polars::prelude::Scalar::new(column.dtype().clone(), value);
        let held = polars::prelude::Column::new_scalar(named.name.as_str().into(), scalar, height);
        df.with_column(held)?;
    }
    Ok(df)
}

/// The expressions of `root` whose one value Polars' engine would hold
/// as a `Column::Scalar` repeated on every row: those of a select or a
/// with_columns that read no row, beside per-row ones, and a group-by's
/// aggregations of literals alone (no column, no length). Polars takes
/// such columns apart (its scalar kernels, its group-bys over them, a
/// select of them alone as one row), so a mixed plan does not hand them
/// over from the device.
pub fn one_value_columns(root: &PlanNode) -> impl Iterator<Item = &NamedExpr> {
    let (exprs, of_literals): (&[NamedExpr], bool) = match root {
        PlanNode::Select { exprs, .. } if !aggregating_select(exprs) => (exprs, false),
        PlanNode::WithColumns {
            exprs,
            broadcast: true,
            ..
        } => (exprs, false),
        PlanNode::GroupBy { aggs, .. } => (aggs, true),
        _ => (&[], false),
    };
    exprs.iter().filter(move |named| {
        if of_literals {
            of_literals_only(&named.expr)
        } else {
            !reads_rows(&named.expr)
        }
    })
}

/// Whether `expr` reads no column, no length and aggregates nothing:
/// literals and what elementwise functions make of them (an aggregation
/// per group is of the group's rows, as the lowering makes `len()` of a
/// filter a sum of its predicate).
fn of_literals_only(expr: &GpuExpr) -> bool {
    let mut literals = true;
    expr.visit(&mut |e| {
        literals &= !matches!(
            e.kind,
            ExprKind::Column { .. } | ExprKind::Len | ExprKind::Agg { .. }
        );
    });
    literals
}

/// Set to `0`, a plan's in-memory inputs are uploaded when the executor
/// reaches them, instead of ahead of their use on a copy stream while the
/// executor computes (the default, where the context has a copy stream).
pub const PREFETCH_VAR: &str = "POLARS_GPU_PREFETCH";

/// Whether `POLARS_GPU_PROFILE` asks for profiles.
pub(crate) fn profiling() -> bool {
    std::env::var(PROFILE_VAR).is_ok_and(|v| !matches!(v.trim(), "" | "0"))
}

pub(crate) fn prefetching() -> bool {
    std::env::var(PREFETCH_VAR).map_or(true, |v| v.trim() != "0")
}

/// Inputs uploaded ahead on the copy stream, each with the event that
/// marks its copies' end there.
type Uploads = Prefetch<(DeviceFrame, Event)>;

/// The plan's in-memory scans in the order the executor reaches them
/// (inputs depth first, left to right; a shared subplan once), each keyed
/// by its node's address.
fn scans_in_order(root: &PlanNode) -> Vec<(usize, &DataFrame, &[usize])> {
    fn walk<'p>(
        node: &'p PlanNode,
        seen: &mut HashSet<&'p str>,
        out: &mut Vec<(usize, &'p DataFrame, &'p [usize])>,
    ) {
        match node {
            PlanNode::DataFrameScan { df, projection, .. } => {
                out.push((scan_key(node), df, projection));
            }
            PlanNode::Cache { id, .. } if !seen.insert(id) => {}
            _ => {
                for input in node.inputs() {
                    walk(input, seen, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(root, &mut HashSet::new(), &mut out);
    out
}

/// The key of an in-memory scan among the uploads made ahead: its node's
/// address, the same for the plan's walk and the executor's.
fn scan_key(node: &PlanNode) -> usize {
    std::ptr::from_ref(node) as usize
}

/// How many times each shared subplan (`PlanNode::Cache`, by id) is used.
fn count_cache_uses(node: &PlanNode, uses: &mut HashMap<String, usize>) {
    if let PlanNode::Cache { id, .. } = node {
        *uses.entry(id.clone()).or_default() += 1;
        if uses[id] > 1 {
            // Its subplan is counted once: it runs once.
            return;
        }
    }
    for input in node.inputs() {
        count_cache_uses(input, uses);
    }
}

/// The results of shared subplans, kept on the device between their uses.
/// What the executors of one plan share, whichever stream they run on.
struct Shared {
    /// Uses of each shared subplan (cache) not served yet.
    uses: HashMap<String, usize>,
    /// Results of shared subplans, kept in the spill manager until their
    /// last use.
    frames: HashMap<String, Kept>,
    /// The spill manager: frames kept for later, spilled to host memory
    /// when device memory runs short.
    spill: Arc<SpillStore>,
    /// The failure flag of every launch that checks values (strict casts),
    /// with what it checks and the error a raised flag gives (invalid data,
    /// or values the device cannot answer for as Polars would); read once
    /// the result is on the host.
    checks: Vec<Check>,
    /// Per-node times, when `POLARS_GPU_PROFILE` asks for them.
    profile: Option<Profile>,
}

/// A failure flag, what it checks, and the error it gives when raised.
type Check = (DeviceBuffer<u32>, String, fn(String) -> ExecError);

/// Set (to anything but `0`), every plan node's time, kernel launches and
/// host waits are written to stderr after each GPU query: the stream is
/// synchronized after each node, so the times add up to more than an
/// unprofiled run and say where it goes (the waits shown leave out those
/// synchronizations).
pub const PROFILE_VAR: &str = "POLARS_GPU_PROFILE";

/// Each plan node's time and work, in the order the nodes started
/// (`POLARS_GPU_PROFILE`).
#[derive(Default)]
struct Profile {
    depth: usize,
    nodes: Vec<ProfiledNode>,
}

struct ProfiledNode {
    depth: usize,
    /// The node's line.
    line: String,
    /// With its inputs'.
    time: std::time::Duration,
    rows: usize,
    /// Launches and host waits with its inputs', the profile's
    /// synchronization after each node of the subtree included.
    work: WorkCounts,
}

impl Profile {
    /// The nodes as an indented tree, each with its time, its own time
    /// (without its inputs'), its rows, and its own launches and host waits
    /// (without the profile's synchronizations), then the download.
    fn render(&self, download: std::time::Duration, rows: usize) -> String {
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        let mut out = String::from(
            "GPU profile (total ms, own ms, rows, own launches, own host waits, node):\n",
        );
        for (i, node) in self.nodes.iter().enumerate() {
            let inputs: Vec<&ProfiledNode> = self.nodes[i + 1..]
                .iter()
                .take_while(|input| input.depth > node.depth)
                .filter(|input| input.depth == node.depth + 1)
                .collect();
            let time: std::time::Duration = inputs.iter().map(|input| input.time).sum();
            let launches: u64 = inputs.iter().map(|input| input.work.launches).sum();
            let waits: u64 = inputs.iter().map(|input| input.work.host_waits).sum();
            let line: String = node.line.chars().take(110).collect();
            out += &format!(
                "{:>9.2} {:>9.2} {:>10} {:>8} {:>6}  {}{line}\n",
                ms(node.time),
                ms(node.time.saturating_sub(time)),
                node.rows,
                node.work.launches.saturating_sub(launches),
                // Less the profile's own synchronization after this node.
                node.work.host_waits.saturating_sub(waits + 1),
                "  ".repeat(node.depth)
            );
        }
        out + &format!(
            "{:>9.2} {:>9} {rows:>10} {:>8} {:>6}  download of the result",
            ms(download),
            "",
            "",
            ""
        )
    }
}

pub(crate) struct Executor<'a> {
    ctx: &'a ExecContext,
    shared: &'a RefCell<Shared>,
    /// The plan's in-memory inputs, uploaded ahead, when they are.
    uploads: Option<&'a Uploads>,
    /// Inputs already on the device.
    resident: &'a [&'a Resident],
    /// Whether the groups being aggregated are those of one key (a
    /// group-by's or a window's): Polars takes the groups of a key it holds
    /// marked sorted as slices of rows, on paths of their own (see
    /// [`Executor::check_no_valid_value_in_runs`]).
    one_key_groups: Cell<bool>,
}

impl<'a> Executor<'a> {
    fn new(
        ctx: &'a ExecContext,
        shared: &'a RefCell<Shared>,
        uploads: Option<&'a Uploads>,
        resident: &'a [&'a Resident],
    ) -> Self {
        Executor {
            ctx,
            shared,
            uploads,
            resident,
            one_key_groups: Cell::new(false),
        }
    }
}

impl Executor<'_> {
    pub(crate) fn ops(&self) -> Ops<'_> {
        Ops {
            memory: &self.ctx.memory,
            stream: &self.ctx.stream,
        }
    }

    /// `f`, run with the groups it aggregates known to be of one key, or not.
    fn with_one_key_groups<T>(&self, one_key: bool, f: impl FnOnce() -> T) -> T {
        let before = self.one_key_groups.replace(one_key);
        let out = f();
        self.one_key_groups.set(before);
        out
    }

    /// Runs `node` (timed, when profiling).
    fn run(&self, node: &PlanNode) -> Result<DeviceFrame, ExecError> {
        let slot = {
            let mut shared = self.shared.borrow_mut();
            let Some(profile) = &mut shared.profile else {
                drop(shared);
                return self.run_node(node);
            };
            profile.nodes.push(ProfiledNode {
                depth: profile.depth,
                line: node.header(),
                time: std::time::Duration::ZERO,
                rows: 0,
                work: WorkCounts::default(),
            });
            profile.depth += 1;
            profile.nodes.len() - 1
        };
        let (started, counted) = (std::time::Instant::now(), WorkCounts::now());
        let frame = self.run_node(node);
        let synchronized = self.ctx.stream.synchronize();
        let mut shared = self.shared.borrow_mut();
        if let Some(profile) = &mut shared.profile {
            profile.depth -= 1;
            let entry = &mut profile.nodes[slot];
            entry.time = started.elapsed();
            entry.rows = frame.as_ref().map_or(0, |f| f.height);
            entry.work = WorkCounts::now().since(counted);
        }
        synchronized?;
        frame
    }

    fn run_node(&self, node: &PlanNode) -> Result<DeviceFrame, ExecError> {
        // (Named for faults injected into one operator's work.)
        let _operator = gpu_runtime::faults::operator(|| node.header());
        match node {
            PlanNode::DataFrameScan { df, projection, .. } => self.scan(node, df, projection),
            PlanNode::SimpleProjection { input, columns, .. } => {
                let frame = self.run(input)?;
                Ok(take_columns(frame, columns.iter().map(|i| (*i, None)))?)
            }
            PlanNode::Select { input, exprs, .. }
                if aggregating_select(exprs)
                    || matches!(select_exprs(exprs, input), Ok(Cow::Owned(_))) =>
            {
                self.aggregated_select(input, exprs)
            }
            PlanNode::Select { input, exprs, .. } if unique_of_column(exprs).is_some() => {
                self.unique_select(input, exprs)
            }
            PlanNode::Select { input, exprs, .. } => self.projected_select(input, exprs),
            PlanNode::WithColumns {
                input,
                exprs,
                schema,
                ..
            } => self.with_columns(input, exprs, schema),
            PlanNode::Filter {
                input, predicate, ..
            } => {
                let frame = self.run(input)?;
                // Polars' arithmetic takes a column it holds at one row
                // as a scalar, in a predicate too.
                self.filter(&frame, &marking_one_row_reads(predicate, input))
            }
            PlanNode::Slice {
                input, offset, len, ..
            } => {
                let frame = self.run(input)?;
                self.slice_frame(&frame, (*offset, *len))
            }
            PlanNode::RowIndex {
                input,
                name,
                offset,
                ..
            } => self.row_index(input, name, offset),
            PlanNode::Explode {
                input,
                columns,
                empty_as_null,
                keep_nulls,
                ..
            } => self.explode(input, columns, (*empty_as_null, *keep_nulls)),
            PlanNode::Unnest {
                input,
                columns,
                schema,
            } => self.unnest(input, columns, schema),
            PlanNode::Sort {
                input, keys, slice, ..
            } => self.sort(input, keys, slice),
            PlanNode::Join { .. } => self.join(node),
            PlanNode::AsofJoin { .. } => self.asof_join(node),
            PlanNode::GroupBy { .. } => self.group_by(node),
            PlanNode::Union {
                inputs,
                slice,
                schema,
            } => self.union(inputs, slice, schema),
            PlanNode::Distinct { .. } => self.distinct(node),
            PlanNode::HConcat {
                inputs,
                heights,
                broadcast_unit_length,
                schema,
            } => self.hconcat(inputs, *heights, broadcast_unit_length, schema),
            PlanNode::Cache { input, id, .. } => self.cached(input, id),
            PlanNode::FileScan { .. } => Err(ExecError::Unsupported(
                "a file scan: read it on the host into an in-memory frame before the plan \
                 runs (`execute_with` does, through its `ScanReader`)"
                    .into(),
            )),
        }
    }

    /// An in-memory frame `df` (the scan `node`), uploaded ahead or now,
    /// or copied on the device where it is resident.
    fn scan(
        &self,
        node: &PlanNode,
        df: &DataFrame,
        projection: &[usize],
    ) -> Result<DeviceFrame, ExecError> {
        if let Some(resident) = self.resident.iter().find(|r| r.is(df, projection))
            && let Some(frame) = resident.read(&self.ctx.stream, |frame| self.copy_frame(frame))
        {
            return frame;
        }
        match self
            .uploads
            .and_then(|uploads| uploads.take(scan_key(node)))
        {
            Some((mut frame, made)) => {
                frame.move_to_stream(&self.ctx.stream, Some(&made))?;
                Ok(frame)
            }
            None => DeviceFrame::from_dataframe(df, Some(projection), self.ctx),
        }
    }

    /// Reads `flag` once the result is on the host: raised (not 0), the
    /// collect fails with `failure(what)`.
    pub(crate) fn check_later(
        &self,
        flag: DeviceBuffer<u32>,
        what: String,
        failure: fn(String) -> ExecError,
    ) {
        self.shared.borrow_mut().checks.push((flag, what, failure));
    }

    /// The frames of independent inputs (of a union or an hconcat), in
    /// order: the first on this stream, the others on the side stream;
    /// each kept in the spill manager while the next ones run.
    fn run_each(&self, inputs: &[PlanNode]) -> Result<Vec<DeviceFrame>, ExecError> {
        let mut kept = Vec::with_capacity(inputs.len());
        for (i, input) in inputs.iter().enumerate() {
            let frame = if i == 0 {
                self.run(input)?
            } else {
                self.run_beside(input)?
            };
            kept.push(self.keep(frame));
        }
        kept.into_iter().map(|kept| self.take_kept(kept)).collect()
    }

    /// A shared subplan's result: run on its first use and kept (in the
    /// spill manager); each later use gets a copy, the last one the kept
    /// frame.
    fn cached(&self, input: &PlanNode, id: &str) -> Result<DeviceFrame, ExecError> {
        let (left, kept) = {
            let mut shared = self.shared.borrow_mut();
            let left = shared.uses.get_mut(id).map_or(0, |uses| {
                *uses = uses.saturating_sub(1);
                *uses
            });
            (left, shared.frames.remove(id))
        };
        let frame = match kept {
            None => self.run(input)?,
            Some(kept) => self.take_kept(kept)?,
        };
        if left == 0 {
            return Ok(frame);
        }
        let copy = self.copy_frame(&frame)?;
        let kept = self.keep(frame);
        self.shared.borrow_mut().frames.insert(id.to_owned(), kept);
        Ok(copy)
    }

    /// Keeps `frame` for later in the spill manager.
    pub(crate) fn keep(&self, frame: DeviceFrame) -> Kept {
        self.shared.borrow().spill.keep(frame)
    }

    /// A frame kept for later, on this executor's stream (uploaded again
    /// there where it was spilled).
    pub(crate) fn take_kept(&self, kept: Kept) -> Result<DeviceFrame, ExecError> {
        let store = self.shared.borrow().spill.clone();
        let mut frame = store.take(kept, self.ctx)?;
        frame.move_to_stream(&self.ctx.stream, None)?;
        Ok(frame)
    }

    /// A copy of `frame` on this executor's stream.
    fn copy_frame(&self, frame: &DeviceFrame) -> Result<DeviceFrame, ExecError> {
        let rows = self.ops().iota(frame.height, 0)?;
        self.gather_frame(frame, &rows)
    }

    /// Runs `node` on the side stream, if there is one, while work already
    /// enqueued on this executor's stream goes on, then hands its result to
    /// this stream (which waits for it there).
    fn run_beside(&self, node: &PlanNode) -> Result<DeviceFrame, ExecError> {
        let Some(side) = self.ctx.swapped() else {
            return self.run(node);
        };
        let mut frame = Executor {
            ctx: &side,
            shared: self.shared,
            uploads: self.uploads,
            resident: self.resident,
            one_key_groups: Cell::new(false),
        }
        .run(node)?;
        frame.move_to_stream(&self.ctx.stream, None)?;
        Ok(frame)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use gpu_runtime::memory::{
        LimitResource, MemoryResource, PoolOptions, PoolResource, StatisticsResource,
    };
    use gpu_runtime::{Device, WorkCounts};
    use ir_lower::{
        BinaryOp, GpuDtype, GpuExpr, GpuPlan, OutputColumn, OutputSchema, PlanNode, Scalar,
    };
    use polars::prelude::{DataFrame, df};

    use super::{ExecContext, Profile, ProfiledNode, execute_counting};

    /// A context on `device` with `memory`, a side stream, and a copy
    /// stream when asked.
    pub(super) fn context(
        device: &Device,
        memory: Arc<dyn MemoryResource>,
        copy_stream: bool,
    ) -> ExecContext {
        ExecContext {
            memory,
            stream: device.create_stream().unwrap(),
            side_stream: Some(device.create_stream().unwrap()),
            copy_stream: copy_stream.then(|| device.create_stream().unwrap()),
            spill_kept: false,
        }
    }

    pub(super) fn pool(device: &Arc<Device>) -> Arc<dyn MemoryResource> {
        Arc::new(PoolResource::new(device.clone(), PoolOptions::default()).unwrap())
    }

    /// The output of a frame of two columns, an Int64 `k` and `second`.
    pub(super) fn k_and(second: (&str, GpuDtype)) -> OutputSchema {
        [("k", GpuDtype::Int64), second]
            .into_iter()
            .map(|(name, dtype)| OutputColumn {
                name: name.into(),
                dtype,
            })
            .collect()
    }

    /// A scan of both columns of `df`.
    pub(super) fn scan(df: &DataFrame, schema: &OutputSchema) -> PlanNode {
        PlanNode::DataFrameScan {
            df: Arc::new(df.clone()),
            projection: vec![0, 1],
            schema: schema.clone(),
        }
    }

    #[test]
    fn a_plans_inputs_upload_ahead_on_the_copy_stream() {
        let device = Arc::new(Device::under_test(1 << 30).expect("the device under test"));
        let n = 50_000;
        let frame = |step: i64| {
            df!(
                "k" => (0..n).map(|i| i * step % 9_973).collect::<Vec<i64>>(),
                "s" => (0..n).map(|i| format!("s{}", i * step % 313)).collect::<Vec<String>>(),
            )
            .unwrap()
        };
        let frames = [frame(7), frame(11), frame(13)];
        let schema = k_and(("s", GpuDtype::String));
        // A union of three in-memory frames: the first input on the
        // executor's stream, the others on its side stream.
        let plan = GpuPlan {
            root: PlanNode::Union {
                inputs: frames.iter().map(|df| scan(df, &schema)).collect(),
                slice: None,
                schema: schema.clone(),
            },
        };
        let mut expected = frames[0].clone();
        expected.vstack_mut(&frames[1]).unwrap();
        expected.vstack_mut(&frames[2]).unwrap();
        // Three scans, each made by the copy stream's worker and waited for
        // there; without a copy stream, by the executor.
        for (copy_stream, ahead) in [(true, 3), (false, 0)] {
            let context = context(&device, pool(&device), copy_stream);
            let (df, counts) = execute_counting(&plan, &context, &[]).unwrap();
            let uploaded_ahead = counts.uploaded_ahead;
            assert!(df.equals_missing(&expected), "{df}\n{expected}");
            assert_eq!(uploaded_ahead, ahead, "copy stream: {copy_stream}");
        }
    }

    #[test]
    fn a_resident_input_is_copied_on_the_device_by_every_run_that_scans_it() {
        // Two partitions, each joined (as the partitioned executor joins
        // them) with one small input kept on the device: the join's right
        // side runs on the side stream, so its copy waits for the upload
        // made on the executor's stream.
        use super::Resident;
        use ir_lower::{JoinKind, JoinOrder};
        use polars::prelude::SortMultipleOptions;
        let device = Arc::new(Device::under_test(1 << 30).expect("the device under test"));
        let context = context(&device, pool(&device), true);
        let other = Arc::new(df!("k" => [1i64, 3, 5, 7], "w" => [10i64, 30, 50, 70]).unwrap());
        let resident = Resident::upload(other.clone(), &context, true).unwrap();
        let schema = k_and(("v", GpuDtype::Int64));
        let other_schema = k_and(("w", GpuDtype::Int64));
        let mut joined = schema.clone();
        joined.push(OutputColumn {
            name: "w".into(),
            dtype: GpuDtype::Int64,
        });
        let parts = [
            df!("k" => [1i64, 2, 3], "v" => [4i64, 5, 6]).unwrap(),
            df!("k" => [5i64, 6, 7, 7], "v" => [7i64, 8, 9, 10]).unwrap(),
        ];
        let answers = [
            df!("k" => [1i64, 3], "v" => [4i64, 6], "w" => [10i64, 30]).unwrap(),
            df!("k" => [5i64, 7, 7], "v" => [7i64, 9, 10], "w" => [50i64, 70, 70]).unwrap(),
        ];
        for (part, expected) in parts.into_iter().zip(answers) {
            let plan = GpuPlan {
                root: PlanNode::Join {
                    left: Box::new(scan(&part, &schema)),
                    right: Box::new(PlanNode::DataFrameScan {
                        df: other.clone(),
                        projection: vec![0, 1],
                        schema: other_schema.clone(),
                    }),
                    left_on: vec![GpuExpr::column(0, "k", GpuDtype::Int64)],
                    right_on: vec![GpuExpr::column(0, "k", GpuDtype::Int64)],
                    kind: JoinKind::Inner,
                    nulls_equal: false,
                    coalesce: true,
                    suffix: "_right".into(),
                    predicate: None,
                    order: JoinOrder::None,
                    slice: None,
                    unique: (false, false),
                    schema: joined.clone(),
                },
            };
            let (df, _) = execute_counting(&plan, &context, &[&resident]).unwrap();
            let sorted = |df: DataFrame| df.sort(["k", "v"], SortMultipleOptions::default());
            assert!(
                sorted(df.clone())
                    .unwrap()
                    .equals_missing(&sorted(expected).unwrap()),
                "{df}"
            );
        }
        assert_eq!(resident.uses(), 2);
    }

    #[test]
    fn a_plan_that_fits_only_without_uploads_ahead_still_runs() {
        // A filter that keeps every row of a large input (its work holds
        // about as much again), in a union with a small input: uploaded
        // when reached, the small input comes after the filter's work is
        // freed; uploaded ahead, it is there during that work, which the
        // limit (the most the plan holds the first way) does not allow.
        // Whichever allocation fails (the worker's, or the executor's, and
        // then the plan runs again without uploads ahead), the result is
        // the CPU's.
        let device = Arc::new(Device::under_test(1 << 30).expect("the device under test"));
        let frame = |n: usize, step: i64| {
            df!(
                "k" => (0..n as i64).map(|i| i * step % 1_000_003).collect::<Vec<i64>>(),
                "v" => (0..n as i64).map(|i| i * 3).collect::<Vec<i64>>(),
            )
            .unwrap()
        };
        let (a, b) = (frame(400_000, 7), frame(50_000, 11));
        let schema = k_and(("v", GpuDtype::Int64));
        let kept = GpuExpr::column(0, "k", GpuDtype::Int64).binary(
            BinaryOp::GtEq,
            GpuExpr::literal(Scalar::Int(0), GpuDtype::Int64),
            GpuDtype::Boolean,
        );
        let plan = GpuPlan {
            root: PlanNode::Union {
                inputs: vec![
                    PlanNode::Filter {
                        input: Box::new(scan(&a, &schema)),
                        predicate: kept,
                        schema: schema.clone(),
                    },
                    scan(&b, &schema),
                ],
                slice: None,
                schema: schema.clone(),
            },
        };
        let mut expected = a.clone();
        expected.vstack_mut(&b).unwrap();
        // The most the plan holds with each input uploaded when reached:
        // the limit.
        let counted = Arc::new(StatisticsResource::new(pool(&device)));
        let (df, _) =
            execute_counting(&plan, &context(&device, counted.clone(), false), &[]).unwrap();
        assert!(df.equals_missing(&expected), "{df}\n{expected}");
        let limit = counted.statistics().peak_bytes;
        for _ in 0..3 {
            let limited = Arc::new(LimitResource::new(pool(&device), limit));
            let (df, _) = execute_counting(&plan, &context(&device, limited, true), &[]).unwrap();
            assert!(df.equals_missing(&expected), "{df}\n{expected}");
        }
    }

    #[test]
    fn a_profile_gives_each_node_its_time_and_work_without_its_inputs() {
        let ms = Duration::from_millis;
        let node = |depth, line: &str, time, rows, launches, host_waits| ProfiledNode {
            depth,
            line: line.into(),
            time,
            rows,
            work: WorkCounts {
                launches,
                host_waits,
            },
        };
        let profile = Profile {
            depth: 0,
            nodes: vec![
                node(0, "Sort", ms(10), 1, 30, 9),
                node(1, "Join", ms(6), 5, 20, 6),
                node(2, "Scan left", ms(2), 5, 2, 2),
                node(1, "Scan right", ms(3), 7, 3, 1),
            ],
        };
        let text = profile.render(ms(4), 1);
        let lines: Vec<Vec<&str>> = text
            .lines()
            .skip(1)
            .map(|line| line.split_whitespace().collect())
            .collect();
        // Total, own (total minus the direct inputs' totals), rows, own
        // launches, own host waits (less the profile's one per node), node.
        assert_eq!(lines[0][..6], ["10.00", "1.00", "1", "7", "1", "Sort"]);
        assert_eq!(lines[1][..6], ["6.00", "4.00", "5", "18", "3", "Join"]);
        assert_eq!(lines[2][..6], ["2.00", "2.00", "5", "2", "1", "Scan"]);
        assert_eq!(lines[3][..6], ["3.00", "3.00", "7", "3", "0", "Scan"]);
        assert_eq!(lines[4], ["4.00", "1", "download", "of", "the", "result"]);
        // Inputs are indented under their node, two spaces a level.
        let raw: Vec<&str> = text.lines().collect();
        assert!(raw[1].ends_with(" 1  Sort"), "{text}");
        assert!(raw[2].ends_with(" 3    Join"), "{text}");
        assert!(raw[3].ends_with(" 1      Scan left"), "{text}");
        assert!(raw[4].ends_with(" 0    Scan right"), "{text}");
    }
}
