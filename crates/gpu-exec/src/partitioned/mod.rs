//! The partitioned executor: a plan whose inputs do not fit the device's memory budget, run in partitions.
//!
//! Large in-memory inputs are cut into partitions of a number of rows;
//! each node runs as its [`Partitioning`] (decided in ir-lower) says, one
//! module each: a chain of row-wise nodes runs over each partition in one
//! device run (`rows`); a group-by of aggregations that add up aggregates
//! each partition and merges the partial results (`aggregate`); another
//! group-by or a distinct sends each partition's rows to buckets by a hash
//! of their keys (on the device) and runs each bucket whole (`buckets`); a
//! join runs each partition of the input whose order it keeps against the
//! whole other input, or both inputs bucket by bucket (`join`); a top-k of a stable sort keeps the
//! first rows of each partition, then of those (`top_k`); another sort
//! puts rows in ranges of its order by sampled splitters and sorts each
//! range (`sort`). Results between
//! device runs wait on the host (the partitions of a node are brought back
//! as they are made), so the device holds one partition's work at a time.
//! A node that needs its whole input gets it put together on the host, and
//! runs in memory as before. A large file scan left in the plan is read in
//! partitions by Polars' reader, which reads on ahead of the device (`scans`).
//!
//! Every result equals the in-memory executor's, order included, but for
//! sums and means of floats merged from partial sums (added in another
//! order) and joins in no order (rows in another order): each device run
//! is the in-memory executor over a plan whose inputs are partitions, and
//! a plan is only cut where the frame of a node can stand for the node
//! ([`cut_allowed`]). docs/partitioned.md has the whole story.
//!
//! [`execute_with`] is the entry: in memory, partitioned, or automatic
//! (in memory when the plan's inputs fit well within the budget, else
//! partitioned; partitioned again after running out of memory in memory,
//! and in smaller partitions after running out of memory partitioned).

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::Arc;

use ir_lower::{GpuPlan, OutputSchema, Partitioning, PlanNode};
use polars::prelude::DataFrame;

use crate::column::ExecContext;
use crate::error::ExecError;
use crate::execute::{Resident, Spilled, execute_counting, held_as_polars_holds, holds_one_value};
use gpu_runtime::RuntimeError;

mod aggregate;
mod around;
mod asof_join;
mod beside_aggregations;
mod buckets;
mod join;
mod profile;
mod quantiles;
mod rows;
mod scans;
mod sort;
mod steps;
mod top_k;

use join::JoinSide;
use profile::PartitionProfile;
use scans::{Reader, ScanParts};
pub use scans::{ScanReader, ScanStream};

/// Which executor runs a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExecutorChoice {
    /// The whole plan at once, in device memory.
    InMemory,
    /// Large inputs in partitions (see the module's documentation).
    Partitioned,
    /// In memory when the plan's inputs take at most half the memory
    /// budget, else partitioned; partitioned after running out of memory
    /// in memory.
    #[default]
    Auto,
}

/// How to run a plan.
#[derive(Clone)]
pub struct ExecOptions {
    pub executor: ExecutorChoice,
    /// Bytes of device memory the plan may use, which sizes the partitions.
    pub memory_budget: u64,
    /// Rows per partition of large inputs; `None`: from the budget (an
    /// eighth of it for the widest input's rows).
    pub partition_rows: Option<usize>,
    /// Reads the plan's file scans on the host (none: the plan holds none).
    pub scan_reader: Option<Arc<dyn ScanReader>>,
}

impl std::fmt::Debug for ExecOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExecOptions")
            .field("executor", &self.executor)
            .field("memory_budget", &self.memory_budget)
            .field("partition_rows", &self.partition_rows)
            .field("scan_reader", &self.scan_reader.is_some())
            .finish()
    }
}

impl ExecOptions {
    /// Whether the partitioned executor, run with these options, reads the
    /// file scan `node` in partitions rather than whole (where it may be
    /// cut there): a scan larger than a partition, by the rows Polars
    /// counts or estimates. engine-select leaves such scans in the plan
    /// for it.
    pub fn reads_in_partitions(&self, node: &PlanNode) -> bool {
        let PlanNode::FileScan { scan, schema } = node else {
            return false;
        };
        if self.executor == ExecutorChoice::InMemory {
            return false;
        }
        let Some(rows) = scan.estimated_rows() else {
            return false;
        };
        match self.partition_rows {
            Some(partition) => rows > partition,
            None => {
                scans::estimated_scan_bytes(scan, schema) > self.memory_budget / PARTITION_SHARE
            }
        }
    }
}

/// What a partitioned run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionedRun {
    /// Device runs it took (each over one partition, one bucket, or a node's whole input).
    pub device_runs: usize,
    /// Rows per partition of the large inputs.
    pub rows_per_partition: usize,
    /// Times the partitions were made smaller after the device ran out of memory.
    pub smaller_after_out_of_memory: usize,
    /// Partitions read from files (each read on the host while the device
    /// ran the ones before).
    pub file_partitions: usize,
    /// Partitions uploaded on the copy stream while the device ran the
    /// partition before them.
    pub uploaded_ahead: usize,
}

/// What a run of a plan did besides its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExecRun {
    /// What the partitioned executor did, where it ran (`None`: in memory).
    pub partitioned: Option<PartitionedRun>,
    /// What the spill manager moved to host memory, over every device run.
    pub spilled: Spilled,
}

impl ExecRun {
    /// Two runs (of two subplans) put together: the device runs and
    /// partitions of both, the smallest partitions, the spills of both.
    pub fn combined(self, other: ExecRun) -> ExecRun {
        let partitioned = match (self.partitioned, other.partitioned) {
            (Some(a), Some(b)) => Some(PartitionedRun {
                device_runs: a.device_runs + b.device_runs,
                rows_per_partition: a.rows_per_partition.min(b.rows_per_partition),
                smaller_after_out_of_memory: a
                    .smaller_after_out_of_memory
                    .max(b.smaller_after_out_of_memory),
                file_partitions: a.file_partitions + b.file_partitions,
                uploaded_ahead: a.uploaded_ahead + b.uploaded_ahead,
            }),
            (a, b) => a.or(b),
        };
        ExecRun {
            partitioned,
            spilled: self.spilled.plus(other.spilled),
        }
    }
}

/// Share of the memory budget one partition of an input may take.
const PARTITION_SHARE: u64 = 8;
/// Times a partitioned run that runs out of memory tries partitions four times smaller.
const SMALLER_TRIES: usize = 2;

/// Runs `plan` with the executor `options` choose: the result, and what
/// the run did (the partitioned executor, where it ran; the spill manager).
pub fn execute_with(
    plan: &GpuPlan,
    ctx: &ExecContext,
    options: &ExecOptions,
) -> Result<(DataFrame, ExecRun), ExecError> {
    let reader = &options.scan_reader;
    let partitioned = |plan: &GpuPlan| {
        crate::execute::lists_read_whole(plan)?;
        let rows = options
            .partition_rows
            .unwrap_or_else(|| rows_for_budget(&plan.root, options.memory_budget));
        execute_partitioned(plan, ctx, reader, rows, 0)
    };
    let in_memory = |plan: &GpuPlan| {
        execute_counting(plan, ctx, &[]).map(|(df, counts)| {
            let run = ExecRun {
                partitioned: None,
                spilled: counts.spilled,
            };
            (df, run)
        })
    };
    // In memory, file scans are read whole first.
    let whole = |plan: &GpuPlan| -> Result<GpuPlan, ExecError> {
        let root = scans::read_whole(plan.root.clone(), reader)?;
        let plan = GpuPlan { root };
        crate::execute::lists_read_whole(&plan)?;
        Ok(plan)
    };
    match options.executor {
        ExecutorChoice::InMemory => in_memory(&whole(plan)?),
        ExecutorChoice::Partitioned => partitioned(plan),
        ExecutorChoice::Auto if input_bytes(&plan.root) > options.memory_budget / 2 => {
            partitioned(plan)
        }
        ExecutorChoice::Auto => {
            let plan = whole(plan)?;
            match in_memory(&plan) {
                Err(ExecError::Runtime(RuntimeError::OutOfMemory { .. })) => partitioned(&plan),
                other => other,
            }
        }
    }
}

/// Runs `plan` partitioned, in partitions of `rows` rows, four times
/// smaller after running out of device memory (up to [`SMALLER_TRIES`]
/// times; `smaller` counts those already made).
fn execute_partitioned(
    plan: &GpuPlan,
    ctx: &ExecContext,
    reader: &Reader,
    rows: usize,
    smaller: usize,
) -> Result<(DataFrame, ExecRun), ExecError> {
    let rows = rows.max(FEWEST_PARTITION_ROWS);
    let mut executor = Partitioned {
        ctx,
        reader,
        rows,
        device_runs: 0,
        file_partitions: 0,
        uploaded_ahead: 0,
        spilled: Spilled::default(),
        caches: HashMap::new(),
        profile: crate::execute::profiling().then(PartitionProfile::default),
    };
    let result = executor
        .run(&plan.root)
        .and_then(|data| held_as_polars_holds(data.whole()?, &plan.root));
    if let Some(profile) = &executor.profile {
        eprintln!("{}", profile.render());
    }
    match result {
        Ok(df) => Ok((
            df,
            ExecRun {
                partitioned: Some(PartitionedRun {
                    device_runs: executor.device_runs,
                    rows_per_partition: rows,
                    smaller_after_out_of_memory: smaller,
                    file_partitions: executor.file_partitions,
                    uploaded_ahead: executor.uploaded_ahead,
                }),
                spilled: executor.spilled,
            },
        )),
        Err(ExecError::Runtime(RuntimeError::OutOfMemory { .. }))
            if smaller < SMALLER_TRIES && rows > 1 =>
        {
            drop(executor);
            execute_partitioned(plan, ctx, reader, rows / 4, smaller + 1)
        }
        Err(e) => Err(e),
    }
}

/// Bytes of the inputs of the plan under `node` (the columns it reads; of
/// a file scan, about).
fn input_bytes(node: &PlanNode) -> u64 {
    let own = match node {
        PlanNode::DataFrameScan { df, projection, .. } => projected_bytes(df, projection),
        PlanNode::FileScan { scan, schema } => scans::estimated_scan_bytes(scan, schema),
        _ => 0,
    };
    own + node.inputs().into_iter().map(input_bytes).sum::<u64>()
}

fn projected_bytes(df: &DataFrame, projection: &[usize]) -> u64 {
    projection
        .iter()
        .filter_map(|&i| df.columns().get(i))
        .map(|column| column.as_materialized_series().estimated_size() as u64)
        .sum()
}

/// Rows per partition for `budget` bytes: a partition of the widest input
/// (by bytes per row) takes at most a [`PARTITION_SHARE`]th of the budget.
fn rows_for_budget(root: &PlanNode, budget: u64) -> usize {
    let mut widest = 1u64;
    let mut pending = vec![root];
    while let Some(node) = pending.pop() {
        match node {
            PlanNode::DataFrameScan { df, projection, .. } if df.height() > 0 => {
                widest = widest.max(projected_bytes(df, projection).div_ceil(df.height() as u64));
            }
            PlanNode::FileScan { schema, .. } => {
                widest = widest.max(scans::estimated_row_bytes(schema));
            }
            _ => {}
        }
        pending.extend(node.inputs());
    }
    usize::try_from(budget / PARTITION_SHARE / widest)
        .unwrap_or(usize::MAX)
        .max(1)
}

/// A node's partitions, made as they are taken (at least one, maybe of
/// no rows): the host holds one at a time where they are read from a file
/// and run through chains of row-wise nodes and joins with a whole input.
pub(crate) enum Stream {
    /// Partitions already made.
    Parts(std::vec::IntoIter<DataFrame>),
    /// A file scan's partitions, read one ahead.
    Scan(ScanParts),
    /// A chain of row-wise nodes (`top` and `depth` nodes below it) over
    /// each partition of `source`, a row index in it numbering on from
    /// `rows_before`; the next partition taken `ahead`.
    Chain {
        top: Box<PlanNode>,
        depth: usize,
        source: Box<Stream>,
        rows_before: u64,
        ahead: Option<Result<Ahead, ExecError>>,
    },
    /// The partitions of `source` put together where one holds fewer
    /// than [`FEWEST_PARTITION_ROWS`] rows (see [`coalesce`]); `pending`
    /// is the last one taken, held until the next shows whether to join
    /// them. For sources whose partitions may be small: chains with a
    /// filter, joins of each partition with a whole input.
    Coalesced {
        source: Box<Stream>,
        pending: Option<DataFrame>,
    },
    /// The join `join` (without a slice) of each partition of `source`
    /// with the whole `other` input, on the side `side` says; `other`
    /// stays on the device from one partition's run to the next
    /// (`resident`; `None` where it could not be uploaded, and each run
    /// uploads it).
    Join {
        join: Box<PlanNode>,
        other: Arc<DataFrame>,
        resident: Option<Resident>,
        side: JoinSide,
        source: Box<Stream>,
        ahead: Option<Result<Ahead, ExecError>>,
    },
}

impl Stream {
    /// `node` (of one input) over each partition of this stream: in the
    /// same device run as the chain of row-wise nodes that makes it, where
    /// one does (its result goes on to `node` on the device, not to the
    /// host and back).
    /// (Not where `node` computes otherwise over a frame of one row and
    /// the chain has a filter: its partitions are put together first.)
    pub(crate) fn then_each(mut self, node: &PlanNode) -> Stream {
        let chain = match &mut self {
            Stream::Coalesced { source, .. } => source.as_mut(),
            stream => stream,
        };
        if let Stream::Chain { top, depth, .. } = chain
            && !(rows::reads_one_row_scalars(node) && rows::filters(top, *depth))
        {
            // `node` becomes the chain's top, over the old one.
            let below = std::mem::replace(top.as_mut(), node.clone());
            if let Some(slot) = top.inputs_mut().into_iter().next() {
                *slot = below;
            }
            *depth += 1;
            return self;
        }
        Stream::chain(node.clone(), 0, self)
    }

    /// A chain of row-wise nodes (`top` and `depth` nodes below it) over
    /// each partition of `source`, its partitions put together where a
    /// filter may leave them small.
    pub(crate) fn chain(top: PlanNode, depth: usize, source: Stream) -> Stream {
        let filters = rows::filters(&top, depth);
        let chain = Stream::Chain {
            top: Box::new(top),
            depth,
            source: Box::new(source),
            rows_before: 0,
            ahead: None,
        };
        match filters {
            true => chain.coalesced(),
            false => chain,
        }
    }

    /// This stream's partitions put together where one is small.
    pub(crate) fn coalesced(self) -> Stream {
        Stream::Coalesced {
            source: Box::new(self),
            pending: None,
        }
    }
}

/// A partition of a stream's source taken before its turn, and uploaded
/// on the copy stream while the device ran the partition before it
/// (`frame`; `None` where it was not).
pub(crate) struct Ahead {
    part: Arc<DataFrame>,
    frame: Option<Resident>,
}

/// A node's result on the host: whole, or in partitions (in order; at
/// least one, maybe of no rows).
#[derive(Clone)]
pub(crate) enum Data {
    Whole(DataFrame),
    Parts(Vec<DataFrame>),
}

impl Data {
    /// How many rows it holds.
    pub(crate) fn height(&self) -> usize {
        match self {
            Data::Whole(df) => df.height(),
            Data::Parts(parts) => parts.iter().map(DataFrame::height).sum(),
        }
    }

    /// Its partitions (a whole frame as one).
    pub(crate) fn into_parts(self) -> Vec<DataFrame> {
        match self {
            Data::Whole(df) => vec![df],
            Data::Parts(parts) => parts,
        }
    }

    /// Its partitions put together where one holds fewer than
    /// [`FEWEST_PARTITION_ROWS`] rows (see [`coalesce`]).
    pub(crate) fn coalesced(self) -> Result<Data, ExecError> {
        let parts = match self {
            Data::Parts(parts) if parts.iter().any(|p| p.height() < FEWEST_PARTITION_ROWS) => parts,
            data => return Ok(data),
        };
        let mut pending = None;
        let mut out = Vec::with_capacity(parts.len());
        for part in parts {
            out.extend(coalesce(&mut pending, part)?);
        }
        out.extend(pending.map(one_chunk));
        Ok(Data::Parts(out))
    }

    /// The rows of every partition, one after another, in one frame of one chunk.
    pub(crate) fn whole(self) -> Result<DataFrame, ExecError> {
        match self {
            Data::Whole(df) => Ok(df),
            Data::Parts(parts) => {
                let mut parts = parts.into_iter();
                let mut whole = parts.next().ok_or_else(|| {
                    ExecError::Unsupported("a partitioned result of no partitions".into())
                })?;
                for part in parts {
                    whole.vstack_mut_owned(part)?;
                }
                whole.rechunk_mut_par();
                Ok(whole)
            }
        }
    }
}

/// The partitioned executor's state over one plan.
pub(crate) struct Partitioned<'a> {
    ctx: &'a ExecContext,
    /// Reads the plan's file scans.
    reader: &'a Reader,
    /// Rows per partition of large inputs.
    rows: usize,
    device_runs: usize,
    file_partitions: usize,
    uploaded_ahead: usize,
    /// What the device runs' spill managers moved to host memory.
    spilled: Spilled,
    /// Results of shared subplans, by id.
    caches: HashMap<String, Data>,
    /// Each node's partitions, when `POLARS_GPU_PROFILE` asks for them.
    profile: Option<PartitionProfile>,
}

impl Partitioned<'_> {
    /// `node`'s result, in partitions where it has a large input below it.
    /// Its partitions hold [`FEWEST_PARTITION_ROWS`] rows each at least,
    /// but where one holds all the rows ([`Data::coalesced`]).
    fn run(&mut self, node: &PlanNode) -> Result<Data, ExecError> {
        let Some(profile) = &mut self.profile else {
            return self.run_node(node)?.coalesced();
        };
        let started = profile.start(node, self.device_runs);
        let data = self.run_node(node).and_then(Data::coalesced);
        if let Some(profile) = &mut self.profile {
            profile.end(started, data.as_ref().ok(), self.device_runs);
        }
        data
    }

    /// [`Partitioned::run`] without the profile.
    fn run_node(&mut self, node: &PlanNode) -> Result<Data, ExecError> {
        if !self.splits(node) {
            return self.on_device(node.clone()).map(Data::Whole);
        }
        match (node, node.partitioning()) {
            (PlanNode::DataFrameScan { df, projection, .. }, _) => {
                Ok(Data::Parts(self.cut(df, projection)?))
            }
            // (Where a chain of row-wise nodes, a partial aggregation, a
            // top-k or a join of each partition takes the scan,
            // `Partitioned::stream` hands its partitions out one by one
            // instead.)
            (PlanNode::FileScan { scan, .. }, _) => {
                let parts = ScanParts::new(self.reader, scan, self.rows)?;
                Ok(Data::Parts(self.all_parts(Stream::Scan(parts))?))
            }
            (PlanNode::Cache { input, id, .. }, _) => {
                if let Some(data) = self.caches.get(id) {
                    return Ok(data.clone());
                }
                let data = self.run(input)?;
                self.caches.insert(id.clone(), data.clone());
                Ok(data)
            }
            (_, Partitioning::RowWise | Partitioning::Numbered) => self.chain(node),
            (_, Partitioning::Stacked) => self.stacked(node),
            (_, Partitioning::Sliced) => self.sliced(node),
            (_, Partitioning::SideBySide) => self.side_by_side(node),
            (_, Partitioning::Aggregated) => self.aggregated(node),
            (_, Partitioning::Counted) => self.counted(node),
            (_, Partitioning::Ranked) => self.ranked(node),
            (_, Partitioning::Around) => self.around(node),
            (_, Partitioning::BesideAggregations) => self.beside_aggregations(node),
            (_, Partitioning::Bucketed) => self.bucketed(node),
            (_, Partitioning::Stepped) => self.stepped(node),
            (
                PlanNode::AsofJoin { .. },
                Partitioning::LeftPartitioned | Partitioning::BothBucketed,
            ) => self.asof_join(node),
            (_, Partitioning::LeftPartitioned) => self.join(node, JoinSide::Left),
            (_, Partitioning::RightPartitioned) => self.join(node, JoinSide::Right),
            (_, Partitioning::BothBucketed) => self.join(node, JoinSide::Both),
            (_, Partitioning::TopK) => self.top_k(node),
            (_, Partitioning::Ranged) => self.ranged(node),
            (_, Partitioning::Whole(_)) => self.on_whole_inputs(node),
        }
    }

    /// `df`, a node's result, in partitions where it is larger than one,
    /// so that the nodes above take it partition by partition too (a last
    /// partition of one row joined to the one before: see
    /// [`FEWEST_PARTITION_ROWS`]).
    fn parted(&self, df: DataFrame) -> Data {
        if df.height() <= self.rows {
            return Data::Whole(df);
        }
        let mut starts: Vec<usize> = (0..df.height()).step_by(self.rows).collect();
        if df.height() - starts[starts.len() - 1] == 1 {
            starts.pop();
        }
        let ends = starts.iter().skip(1).copied().chain([df.height()]);
        Data::Parts(
            starts
                .iter()
                .zip(ends)
                .map(|(&start, end)| df.slice(start as i64, end - start))
                .collect(),
        )
    }

    /// Whether a large input (more rows than a partition) is below `node`.
    fn splits(&self, node: &PlanNode) -> bool {
        match node {
            PlanNode::DataFrameScan { df, .. } => df.height() > self.rows,
            PlanNode::FileScan { scan, .. } => {
                self.reader.is_some() && scan.estimated_rows().is_some_and(|rows| rows > self.rows)
            }
            _ => node.inputs().into_iter().any(|input| self.splits(input)),
        }
    }

    /// The projected columns of `df` in partitions of [`Partitioned::rows`] rows.
    fn cut(&self, df: &DataFrame, projection: &[usize]) -> Result<Vec<DataFrame>, ExecError> {
        let columns = projection
            .iter()
            .map(|&i| {
                df.columns().get(i).cloned().ok_or_else(|| {
                    ExecError::Unsupported(format!("a scan of column {i} of {}", df.width()))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(self
            .parted(DataFrame::new(df.height(), columns)?)
            .into_parts())
    }

    /// `node` run whole on the device, by the in-memory executor (its file
    /// scans read whole first).
    fn on_device(&mut self, node: PlanNode) -> Result<DataFrame, ExecError> {
        self.on_device_with(node, &[])
    }

    /// [`Partitioned::on_device`], the scans of the `resident` frames
    /// reading them on the device.
    fn on_device_with(
        &mut self,
        node: PlanNode,
        resident: &[&Resident],
    ) -> Result<DataFrame, ExecError> {
        self.device_runs += 1;
        let plan = GpuPlan {
            root: scans::read_whole(node, self.reader)?,
        };
        crate::execute::lists_read_whole(&plan)?;
        let (df, counts) = execute_counting(&plan, self.ctx, resident)?;
        self.spilled = self.spilled.plus(counts.spilled);
        Ok(df)
    }

    /// The partitions of `input`, `node`'s one input, to run `node` over;
    /// or (`Break`) `node`'s result already, run whole on the device where
    /// the plan may not be cut between them or the input came whole.
    fn input_parts(
        &mut self,
        node: &PlanNode,
        input: &PlanNode,
    ) -> Result<ControlFlow<Data, Vec<DataFrame>>, ExecError> {
        Ok(match self.input_stream(node, input)? {
            ControlFlow::Continue(stream) => ControlFlow::Continue(self.all_parts(stream)?),
            ControlFlow::Break(done) => ControlFlow::Break(done),
        })
    }

    /// As [`Partitioned::input_parts`], the partitions made as they are
    /// taken (a file scan's read, a chain of row-wise nodes run over each).
    fn input_stream(
        &mut self,
        node: &PlanNode,
        input: &PlanNode,
    ) -> Result<ControlFlow<Data, Stream>, ExecError> {
        if !cut_allowed(node, input) {
            return Ok(ControlFlow::Break(Data::Whole(
                self.on_device(node.clone())?,
            )));
        }
        Ok(match self.stream(input)? {
            ControlFlow::Break(df) => {
                ControlFlow::Break(Data::Whole(self.on_device(over(node, vec![df]))?))
            }
            ControlFlow::Continue(stream) => ControlFlow::Continue(stream),
        })
    }

    /// `node`'s result as partitions made as they are taken, or (`Break`)
    /// whole where it came whole.
    fn stream(&mut self, node: &PlanNode) -> Result<ControlFlow<DataFrame, Stream>, ExecError> {
        if self.splits(node) {
            if let PlanNode::FileScan { scan, .. } = node {
                let parts = ScanParts::new(self.reader, scan, self.rows)?;
                return Ok(ControlFlow::Continue(Stream::Scan(parts)));
            }
            match (node, node.partitioning()) {
                (_, Partitioning::RowWise | Partitioning::Numbered) => {
                    return self.chain_stream(node);
                }
                // (A join's slice needs all its rows.)
                (PlanNode::Join { slice: None, .. }, Partitioning::LeftPartitioned) => {
                    return self.join_stream(node, JoinSide::Left);
                }
                (PlanNode::Join { slice: None, .. }, Partitioning::RightPartitioned) => {
                    return self.join_stream(node, JoinSide::Right);
                }
                _ => {}
            }
        }
        Ok(match self.run(node)? {
            Data::Whole(df) => ControlFlow::Break(df),
            Data::Parts(parts) => ControlFlow::Continue(Stream::Parts(parts.into_iter())),
        })
    }

    /// The next partition of `stream` (`None`: no more).
    fn next_part(&mut self, stream: &mut Stream) -> Option<Result<DataFrame, ExecError>> {
        match stream {
            Stream::Parts(parts) => parts.next().map(Ok),
            Stream::Scan(parts) => {
                let part = parts.next()?;
                self.file_partitions += 1;
                Some(part)
            }
            Stream::Coalesced { source, pending } => loop {
                match self.next_part(source) {
                    None => return pending.take().map(one_chunk).map(Ok),
                    Some(Err(e)) => return Some(Err(e)),
                    Some(Ok(part)) => match coalesce(pending, part) {
                        Ok(Some(done)) => return Some(Ok(done)),
                        Ok(None) => {}
                        Err(e) => return Some(Err(e)),
                    },
                }
            },
            Stream::Chain {
                top,
                depth,
                source,
                rows_before,
                ahead,
            } => {
                let current = match self.take_next(source, ahead)? {
                    Ok(current) => current,
                    Err(e) => return Some(Err(e)),
                };
                let height = current.part.height() as u64;
                let plan = match rows::chain_over(top, *depth, current.part.clone(), *rows_before) {
                    Ok(plan) => plan,
                    Err(e) => return Some(Err(e)),
                };
                *rows_before += height;
                let (ran, next) = self.run_ahead(plan, &current, None, source);
                *ahead = next;
                Some(ran)
            }
            Stream::Join {
                join,
                other,
                resident,
                side,
                source,
                ahead,
            } => {
                let current = match self.take_next(source, ahead)? {
                    Ok(current) => current,
                    Err(e) => return Some(Err(e)),
                };
                let inputs = match side {
                    JoinSide::Right => vec![other.clone(), current.part.clone()],
                    _ => vec![current.part.clone(), other.clone()],
                };
                let plan = over_shared(join, inputs);
                let (ran, next) = self.run_ahead(plan, &current, resident.as_ref(), source);
                *ahead = next;
                Some(ran)
            }
        }
    }

    /// The partition of `source` after those taken: the one taken
    /// `ahead`, or the source's next.
    fn take_next(
        &mut self,
        source: &mut Stream,
        ahead: &mut Option<Result<Ahead, ExecError>>,
    ) -> Option<Result<Ahead, ExecError>> {
        match ahead.take() {
            Some(next) => Some(next),
            None => self.next_part(source).map(|part| {
                part.map(|df| Ahead {
                    part: Arc::new(df),
                    frame: None,
                })
            }),
        }
    }

    /// `plan` run on the device over `current` (its frame uploaded ahead,
    /// where it was) and `also` (an input kept on the device), while the
    /// next partition of `source` is taken now and uploaded on the copy
    /// stream (where there is one and `POLARS_GPU_PREFETCH` allows): the
    /// result, and that partition (`None`: no more). A run that runs out
    /// of memory beside the upload runs again without it.
    fn run_ahead(
        &mut self,
        plan: PlanNode,
        current: &Ahead,
        also: Option<&Resident>,
        source: &mut Stream,
    ) -> (
        Result<DataFrame, ExecError>,
        Option<Result<Ahead, ExecError>>,
    ) {
        let next = self.next_part(source).map(|part| part.map(Arc::new));
        let ctx = self.ctx;
        let copy = ctx
            .copy_stream
            .as_ref()
            .filter(|_| crate::execute::prefetching());
        let resident: Vec<&Resident> = current.frame.iter().chain(also).collect();
        let (mut ran, frame) = std::thread::scope(|s| {
            let upload = match (&next, copy) {
                (Some(Ok(df)), Some(copy)) => {
                    let df = df.clone();
                    Some(s.spawn(move || {
                        let copy_ctx = ExecContext {
                            memory: ctx.memory.clone(),
                            stream: copy.clone(),
                            side_stream: None,
                            copy_stream: None,
                            spill_kept: ctx.spill_kept,
                        };
                        Resident::upload(df, &copy_ctx, false).ok()
                    }))
                }
                _ => None,
            };
            let ran = self.on_device_with(plan.clone(), &resident);
            (ran, upload.and_then(|upload| upload.join().ok().flatten()))
        });
        if current.frame.as_ref().is_some_and(|frame| frame.uses() > 0) {
            self.uploaded_ahead += 1;
        }
        let out_of_memory = matches!(
            ran,
            Err(ExecError::Runtime(RuntimeError::OutOfMemory { .. }))
        );
        let frame = match frame {
            Some(frame) if out_of_memory => {
                drop(frame);
                ran = self.on_device_with(plan, &resident);
                None
            }
            frame => frame,
        };
        (ran, next.map(|n| n.map(|part| Ahead { part, frame })))
    }

    /// Every partition of `stream`, in order (at least one).
    fn all_parts(&mut self, mut stream: Stream) -> Result<Vec<DataFrame>, ExecError> {
        let mut parts = Vec::new();
        while let Some(part) = self.next_part(&mut stream) {
            parts.push(part?);
        }
        match parts.is_empty() {
            true => Err(ExecError::Unsupported(
                "a node's result of no partitions".into(),
            )),
            false => Ok(parts),
        }
    }

    /// `node` over its inputs put together whole (where the plan may be
    /// cut there; else the whole subplan in memory).
    fn on_whole_inputs(&mut self, node: &PlanNode) -> Result<Data, ExecError> {
        let mut inputs = Vec::new();
        for input in node.inputs() {
            if !cut_allowed(node, input) {
                return self.on_device(node.clone()).map(Data::Whole);
            }
            inputs.push(self.run(input)?.whole()?);
        }
        self.on_device(over(node, inputs)).map(Data::Whole)
    }
}

/// The fewest rows of a partition of a larger input (and so of a
/// partition at all): two. Polars' arithmetic of floats with one value (a
/// literal, an aggregation) goes by its scalar kernel (a division by the
/// reciprocal, an addition of zero that keeps -0.0) over a frame of more
/// than one row, and row by row over a frame of one; a partition of one
/// row of a larger frame must not take the second path. Partitions that
/// nodes make join their neighbours where smaller ([`coalesce`]), and a
/// chain is cut above a filter where a node above computes so
/// (`rows::reads_one_row_scalars`).
pub(crate) const FEWEST_PARTITION_ROWS: usize = 2;

/// Takes `part`, the partition after `pending` (the one before, held):
/// gives back `pending` where both hold [`FEWEST_PARTITION_ROWS`] rows at
/// least (`part` is held in turn), else joins `part` to it. So a partition
/// of fewer rows joins its neighbour, and one is only left alone where it
/// holds all the rows (see [`FEWEST_PARTITION_ROWS`]: filters and joins
/// may leave partitions of one row).
pub(crate) fn coalesce(
    pending: &mut Option<DataFrame>,
    part: DataFrame,
) -> Result<Option<DataFrame>, ExecError> {
    let Some(mut held) = pending.take() else {
        *pending = Some(part);
        return Ok(None);
    };
    if held.height() < FEWEST_PARTITION_ROWS || part.height() < FEWEST_PARTITION_ROWS {
        held.vstack_mut_owned(part)?;
        *pending = Some(held);
        return Ok(None);
    }
    *pending = Some(part);
    Ok(Some(one_chunk(held)))
}

/// `df` in one chunk (as a partition is uploaded).
fn one_chunk(mut df: DataFrame) -> DataFrame {
    df.rechunk_mut_par();
    df
}

/// Whether the plan may be cut between `parent` and its `input`: a frame
/// of the input's result stands for the input there. Not where Polars
/// holds some column of it as one value (the operators above read such
/// columns through the plan below them), nor below a group-by by one float
/// key over rows in an order Polars leaves its own (the group of -0.0 and
/// 0.0 shows its first row's zero, which the executor leaves to Polars
/// there).
fn cut_allowed(parent: &PlanNode, input: &PlanNode) -> bool {
    let float_key_of_unordered_rows = match parent {
        PlanNode::GroupBy { keys, .. } => {
            matches!(keys.as_slice(), [key] if key.expr.dtype.is_float())
                && !input.rows_in_defined_order()
        }
        _ => false,
    };
    !holds_one_value(input) && !float_key_of_unordered_rows
}

/// `node` with its inputs replaced by in-memory frames of their results.
fn over(node: &PlanNode, inputs: Vec<DataFrame>) -> PlanNode {
    over_shared(node, inputs.into_iter().map(Arc::new).collect())
}

/// [`over`] of frames shared with others.
fn over_shared(node: &PlanNode, inputs: Vec<Arc<DataFrame>>) -> PlanNode {
    let mut node = node.clone();
    for (slot, df) in node.inputs_mut().into_iter().zip(inputs) {
        *slot = shared_scan(df, slot.schema().clone());
    }
    node
}

/// An in-memory frame (all its columns) as a plan's input of `schema`.
fn scan(df: DataFrame, schema: OutputSchema) -> PlanNode {
    shared_scan(Arc::new(df), schema)
}

/// [`scan`] of a frame shared with others.
fn shared_scan(df: Arc<DataFrame>, schema: OutputSchema) -> PlanNode {
    PlanNode::DataFrameScan {
        projection: (0..df.width()).collect(),
        df,
        schema,
    }
}

/// The rows `offset..offset + len` of `data` (from the end for a negative
/// offset, as Polars slices).
fn slice_data(data: Data, offset: i64, len: usize) -> Result<Data, ExecError> {
    let (parts, skip) = match (data, usize::try_from(offset)) {
        (Data::Parts(parts), Ok(skip)) => (parts, skip),
        (data, _) => return Ok(Data::Whole(data.whole()?.slice(offset, len))),
    };
    let mut slicer = Slicer::new(skip, len);
    for part in parts {
        if !slicer.wants_more() {
            break;
        }
        slicer.take(part);
    }
    slicer.finish()
}

/// A slice of a positive offset over partitions taken in order.
pub(crate) struct Slicer {
    /// Rows still to pass over, then to keep.
    skip: usize,
    left: usize,
    out: Vec<DataFrame>,
    /// The first partition, cleared: the columns of a slice of no rows.
    empty: Option<DataFrame>,
}

impl Slicer {
    pub(crate) fn new(skip: usize, len: usize) -> Slicer {
        Slicer {
            skip,
            left: len,
            out: Vec::new(),
            empty: None,
        }
    }

    /// Whether another partition may hold rows of the slice (or none was
    /// taken yet).
    pub(crate) fn wants_more(&self) -> bool {
        self.left > 0 || self.empty.is_none()
    }

    /// The slice's rows of the next partition.
    pub(crate) fn take(&mut self, part: DataFrame) {
        self.empty.get_or_insert_with(|| part.clear());
        if self.skip >= part.height() {
            self.skip -= part.height();
            return;
        }
        let taken = part.slice(self.skip as i64, self.left);
        self.left -= taken.height();
        self.skip = 0;
        self.out.push(taken);
    }

    /// The slice, in partitions (at least one).
    pub(crate) fn finish(self) -> Result<Data, ExecError> {
        match (self.out.is_empty(), self.empty) {
            (false, _) => Ok(Data::Parts(self.out)),
            (true, Some(empty)) => Ok(Data::Parts(vec![empty])),
            (true, None) => Err(ExecError::Unsupported("a slice of no partitions".into())),
        }
    }
}

/// A group-by's or distinct's result (`df`, its groups in order) cut to
/// its `slice`. A group-by's slice that keeps no group of some is Polars'
/// own: it evaluates the aggregations over no groups by paths of its own
/// (as the in-memory executor leaves it).
fn sliced_result(
    df: DataFrame,
    slice: Option<(i64, usize)>,
    group_by: bool,
) -> Result<DataFrame, ExecError> {
    let Some((offset, len)) = slice else {
        return Ok(df);
    };
    let sliced = df.slice(offset, len);
    if group_by && sliced.height() == 0 && df.height() > 0 {
        return Err(ExecError::DependsOnPolars(
            "a sliced group-by keeping no group: Polars evaluates its aggregations over no \
             groups by paths of its own"
                .into(),
        ));
    }
    Ok(sliced)
}
