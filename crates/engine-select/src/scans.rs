//! File scans of a GPU collect: read on the host by Polars' reader before the plan runs, or — large Parquet scans the partitioned executor takes — left in the plan and read a range of rows at a time.

use std::ops::Range;
use std::sync::Arc;

use gpu_exec::{ExecOptions, ScanReader};
use ir_lower::{HostScan, PlanNode};
use polars::prelude::{DataFrame, PolarsResult};
use polars_plan::plans::{AExpr, IR};
use polars_utils::arena::{Arena, Node};
use polars_utils::slice_enum::Slice;

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
/// executor to read in ranges of their rows: where the whole plan lowers
/// and the executor takes it, those it reads so, run with the options
/// `options` gives ([`ExecOptions::reads_in_partitions`]; asked only where
/// some scan's rows are known, [`HostScan::rows`]). Any other plan has its
/// scans read whole, as before.
pub(crate) fn left_to_partitions(
    root: Node,
    lp_arena: &Arena<IR>,
    expr_arena: &Arena<AExpr>,
    options: impl FnOnce() -> Option<ExecOptions>,
) -> Vec<Node> {
    if scans(root, lp_arena).is_empty() {
        return Vec::new();
    }
    let Ok(plan) = ir_lower::lower_plan(root, lp_arena, expr_arena) else {
        return Vec::new();
    };
    if !gpu_exec::unsupported(&plan).is_empty() {
        return Vec::new();
    }
    let mut known = Vec::new();
    let mut pending = vec![&plan.root];
    while let Some(node) = pending.pop() {
        if let PlanNode::FileScan { scan, .. } = node
            && scan.rows().is_some()
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
    fn read(&self, scan: &HostScan, rows: Option<Range<usize>>) -> PolarsResult<DataFrame> {
        // (A copy of the plan each read: building the reader changes it, and
        // reads run on several threads.)
        let (mut lp_arena, mut expr_arena) = (self.lp_arena.clone(), self.expr_arena.clone());
        if let Some(rows) = rows {
            let mut ir = lp_arena.get(scan.node).clone();
            if let IR::Scan {
                unified_scan_args, ..
            } = &mut ir
            {
                unified_scan_args.pre_slice = Some(Slice::Positive {
                    offset: rows.start,
                    len: rows.len(),
                });
            }
            lp_arena.replace(scan.node, ir);
        }
        read_scan(scan.node, &mut lp_arena, &mut expr_arena)
    }
}
