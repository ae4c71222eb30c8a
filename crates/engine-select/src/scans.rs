//! File scans of a GPU collect: read on the host by Polars' reader before the plan runs, or — large scans the partitioned executor takes — left in the plan and read in partitions as Polars' streaming engine makes them.

use std::num::NonZeroUsize;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, sync_channel};
use std::thread::JoinHandle;

use gpu_exec::{ExecOptions, ScanReader, ScanStream};
use ir_lower::{HostScan, PlanNode};
use polars::prelude::{DataFrame, PolarsResult, SchemaRef, polars_err};
use polars_plan::plans::{AExpr, IR};
use polars_plan::prelude::PlanCallback;
use polars_plan::prelude::sink::{CallbackSinkType, SinkTypeIR};
use polars_utils::arena::{Arena, Node};

use crate::error::EngineError;
use crate::gpu::put_frame;

/// The scans (IR nodes) under `root`, each once.
fn scans(root: Node, lp_arena: &Arena<IR>) -> Vec<Node> {
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
    scans
}

/// The file scans under `root` that the plan leaves to the partitioned
/// executor to read in partitions: where the whole plan lowers and the
/// executor takes it, those it reads so, run with the options `options`
/// gives ([`ExecOptions::reads_in_partitions`]; asked only where Polars
/// counts or estimates some scan's rows, [`HostScan::estimated_rows`]).
/// Any other plan has its scans read whole, as before.
pub(crate) fn left_to_partitions(
    root: Node,
    lp_arena: &mut Arena<IR>,
    expr_arena: &Arena<AExpr>,
    options: impl FnOnce() -> Option<ExecOptions>,
) -> Vec<Node> {
    let scans = scans(root, lp_arena);
    if scans.is_empty() {
        return Vec::new();
    }
    for &scan in &scans {
        estimate_rows(scan, lp_arena);
    }
    let Ok(plan) = ir_lower::lower_plan(root, lp_arena, expr_arena) else {
        return Vec::new();
    };
    // Sums and means of lists of floats follow the nulls of each chunk
    // Polars reads (docs/operations.md): partitions of a scan would be
    // chunks of their own, so such a plan reads its scans whole.
    if !gpu_exec::unsupported(&plan).is_empty() || plan.root.reads_values_outside_lists() {
        return Vec::new();
    }
    let mut known = Vec::new();
    let mut pending = vec![&plan.root];
    while let Some(node) = pending.pop() {
        if let PlanNode::FileScan { scan, .. } = node
            && scan.estimated_rows().is_some()
        {
            known.push(node);
        }
        pending.extend(node.inputs());
    }
    if known.is_empty() {
        return Vec::new();
    }
    let Some(options) = options() else {
        return Vec::new();
    };
    let mut left = Vec::new();
    for node in known {
        if let PlanNode::FileScan { scan, .. } = node
            && options.reads_in_partitions(node)
            && !left.contains(&scan.node)
        {
            left.push(scan.node);
        }
    }
    left
}

/// Bytes a value takes in a file, about (a CSV field and its separator).
const FILE_BYTES_PER_VALUE: u64 = 8;

/// Gives the scan `node`, where Polars has no estimate of its rows (a scan
/// of a schema the user gave, such as a CSV scan's, of which Polars reads
/// nothing before running), one from the bytes of its files on disk: a row
/// of [`FILE_BYTES_PER_VALUE`] bytes a column, so that it is sized as
/// about the bytes of its files.
fn estimate_rows(node: Node, lp_arena: &mut Arena<IR>) {
    let IR::Scan {
        sources, file_info, ..
    } = lp_arena.get_mut(node)
    else {
        return;
    };
    if file_info.row_estimation != (None, usize::MAX) || sources.is_cloud_url() {
        return;
    }
    let Some(paths) = sources.as_paths() else {
        return;
    };
    let mut bytes = 0u64;
    for path in paths {
        match std::fs::metadata(path.as_std_path()) {
            Ok(metadata) => bytes += metadata.len(),
            Err(_) => return,
        }
    }
    let row_bytes = FILE_BYTES_PER_VALUE * file_info.schema.len().max(1) as u64;
    file_info.row_estimation = (
        None,
        usize::try_from(bytes / row_bytes).unwrap_or(usize::MAX),
    );
}

/// Reads every file scan of the plan but those `left` on the host with
/// Polars' own reader (its projection, predicate and slice pushdowns kept)
/// and puts the result in the plan as an in-memory frame, so the device
/// runs everything above it: the simplest mixed plan, the CPU below the
/// GPU. Should the device then not run the plan, Polars' engine goes on
/// from the frames read, so no file is read twice (but those left).
pub(crate) fn read_on_host(
    root: Node,
    lp_arena: &mut Arena<IR>,
    expr_arena: &mut Arena<AExpr>,
    left: &[Node],
) -> Result<(), EngineError> {
    for node in scans(root, lp_arena) {
        if left.contains(&node) {
            continue;
        }
        let started = std::time::Instant::now();
        let df = read_scan(node, lp_arena, expr_arena)?;
        tracing::debug!(rows = df.height(), elapsed = ?started.elapsed(), "read a scan on the host");
        put_frame(lp_arena, node, df);
    }
    Ok(())
}

/// The scan `node` of Polars' plan, read by Polars' reader.
fn read_scan(
    node: Node,
    lp_arena: &mut Arena<IR>,
    expr_arena: &mut Arena<AExpr>,
) -> PolarsResult<DataFrame> {
    let mut reader = polars_mem_engine::create_physical_plan(
        node,
        lp_arena,
        expr_arena,
        polars::lazy::frame::BUILD_STREAMING_EXECUTOR,
    )?;
    reader.execute(&mut polars_expr::state::ExecutionState::new())
}

/// Polars' reader over a copy of Polars' plan, which holds the scans the
/// GPU plan left to the partitioned executor.
pub(crate) struct PolarsScanReader {
    lp_arena: Arena<IR>,
    expr_arena: Arena<AExpr>,
}

impl PolarsScanReader {
    pub(crate) fn new(lp_arena: &Arena<IR>, expr_arena: &Arena<AExpr>) -> Arc<PolarsScanReader> {
        Arc::new(PolarsScanReader {
            lp_arena: lp_arena.clone(),
            expr_arena: expr_arena.clone(),
        })
    }
}

impl ScanReader for PolarsScanReader {
    fn read(&self, scan: &HostScan) -> PolarsResult<DataFrame> {
        // (A copy of the plan each read: building the reader changes it, and
        // reads run on several threads.)
        let (mut lp_arena, mut expr_arena) = (self.lp_arena.clone(), self.expr_arena.clone());
        read_scan(scan.node, &mut lp_arena, &mut expr_arena)
    }

    fn stream(&self, scan: &HostScan, rows: usize) -> PolarsResult<ScanStream> {
        let (mut lp_arena, mut expr_arena) = (self.lp_arena.clone(), self.expr_arena.clone());
        let schema = lp_arena.get(scan.node).schema(&lp_arena).into_owned();
        // One partition waits here while the reader makes the next.
        let (send, parts) = sync_channel(1);
        let failed = send.clone();
        let sink = lp_arena.add(IR::Sink {
            input: scan.node,
            payload: SinkTypeIR::Callback(CallbackSinkType {
                // Stops the reader once the partitions are no longer taken.
                function: PlanCallback::new(move |df| Ok(send.send(Ok(df)).is_err())),
                maintain_order: true,
                chunk_size: NonZeroUsize::new(rows),
            }),
        });
        // (Polars builds and runs the query recursively, deep for wide plans
        // and nested types, on the thread that executes it.)
        let reading = std::thread::Builder::new()
            .name("polars-gpu-scan".into())
            .stack_size(READER_STACK_BYTES);
        let reading = reading.spawn(move || {
            let build = polars::lazy::frame::BUILD_STREAMING_EXECUTOR.ok_or_else(
                || polars_err!(ComputeError: "Polars' streaming engine is not built in"),
            );
            let read = build.and_then(|build| {
                build(sink, &mut lp_arena, &mut expr_arena)?
                    .execute(&mut polars_expr::state::ExecutionState::new())
            });
            if let Err(e) = read {
                failed.send(Err(e)).ok();
            }
        })?;
        Ok(Box::new(ScanPartitions {
            parts: Some(parts),
            reading: Some(reading),
            schema,
            any: false,
        }))
    }
}

/// The stack of the thread that reads a scan in partitions.
const READER_STACK_BYTES: usize = 64 << 20;

/// A scan's partitions as Polars' streaming engine, running on a thread of
/// its own, hands them over ([`PolarsScanReader::stream`]).
struct ScanPartitions {
    parts: Option<Receiver<PolarsResult<DataFrame>>>,
    reading: Option<JoinHandle<()>>,
    /// The scan's columns, for a result of no rows.
    schema: SchemaRef,
    /// Whether a partition was handed over.
    any: bool,
}

impl Iterator for ScanPartitions {
    type Item = PolarsResult<DataFrame>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Ok(part) = self.parts.as_ref()?.recv() {
            self.any = true;
            return Some(part);
        }
        // Every sender is gone: the read has ended, or panicked.
        self.parts = None;
        let panicked = self
            .reading
            .take()
            .is_some_and(|reading| reading.join().is_err());
        if panicked {
            return Some(Err(
                polars_err!(ComputeError: "Polars' reader panicked reading a file scan"),
            ));
        }
        // At least one partition, maybe of no rows.
        (!self.any).then(|| {
            self.any = true;
            Ok(DataFrame::empty_with_schema(&self.schema))
        })
    }
}

impl Drop for ScanPartitions {
    fn drop(&mut self) {
        // Partitions no longer taken stop the reader, which is waited for.
        self.parts = None;
        if let Some(reading) = self.reading.take() {
            let _ = reading.join();
        }
    }
}
