//! File scans in a plan: read whole on the host before their node runs, or in ranges of rows, each read while the device runs the one before.
//!
//! engine-select reads most file scans with Polars' reader before a plan
//! runs, but leaves a large one (a Parquet scan of one file, whose rows
//! Polars knows: [`HostScan::rows`]) in the plan for the partitioned
//! executor. That reads it through a [`ScanReader`] — Polars' own reader,
//! with the scan's predicate, projection and row index, over one range of
//! the file's rows at a time (the scan's pre-slice), the next range read
//! on a host thread while the device runs the current one. Where a chain
//! of row-wise nodes, a partial aggregation or a top-k takes the scan, the
//! host never holds the whole file (`Stream` in the module above). A node
//! that takes the scan whole, or an in-memory run, reads it whole first.

use std::ops::Range;
use std::sync::Arc;
use std::thread::JoinHandle;

use ir_lower::{GpuDtype, HostScan, OutputSchema, PlanNode};
use polars::prelude::{DataFrame, PolarsResult};

use crate::error::ExecError;

/// Reads a file scan of a plan on the host (engine-select's: Polars' reader
/// over Polars' plan, which holds the scan at [`HostScan::node`]).
pub trait ScanReader: Send + Sync {
    /// The scan's result over `rows` of its files' rows (before its
    /// predicate; the scan's own pre-slice replaced by them), or over all
    /// it reads for `None`: the columns of the scan's schema, in order.
    fn read(&self, scan: &HostScan, rows: Option<Range<usize>>) -> PolarsResult<DataFrame>;
}

/// The reader of a plan's file scans, as the executor holds it.
pub(crate) type Reader = Option<Arc<dyn ScanReader>>;

/// Bytes a row of `schema` takes on the host, about: its fixed-width
/// values, texts and nested values counted at a guess. Sizes a file scan,
/// whose bytes are not known before it is read.
pub(crate) fn estimated_row_bytes(schema: &OutputSchema) -> u64 {
    schema.iter().map(|column| value_bytes(column.dtype)).sum()
}

fn value_bytes(dtype: GpuDtype) -> u64 {
    match dtype {
        GpuDtype::Boolean | GpuDtype::Int8 | GpuDtype::UInt8 | GpuDtype::Null => 1,
        GpuDtype::Int16 | GpuDtype::UInt16 => 2,
        GpuDtype::Int32 | GpuDtype::UInt32 | GpuDtype::Float32 | GpuDtype::Date => 4,
        GpuDtype::Categorical(_) => 4,
        GpuDtype::Decimal(..) => 16,
        // A view of 16 bytes, and its text where longer than 12.
        GpuDtype::String => 24,
        GpuDtype::List(of) => 8 + 4 * value_bytes(of.values()),
        GpuDtype::Struct(of) => of.fields().into_iter().map(|(_, d)| value_bytes(d)).sum(),
        _ => 8,
    }
}

/// Bytes of the file scan `scan` (of `schema`) read whole, about.
pub(crate) fn estimated_scan_bytes(scan: &HostScan, schema: &OutputSchema) -> u64 {
    scan.rows()
        .map_or(0, |rows| rows.len() as u64 * estimated_row_bytes(schema))
}

/// `node` with every file scan in it read whole on the host (an in-memory
/// frame in its place).
pub(crate) fn read_whole(mut node: PlanNode, reader: &Reader) -> Result<PlanNode, ExecError> {
    replace_scans(&mut node, reader)?;
    Ok(node)
}

fn replace_scans(node: &mut PlanNode, reader: &Reader) -> Result<(), ExecError> {
    if let PlanNode::FileScan { scan, schema } = node {
        let df = read(reader, scan, None)?;
        *node = super::scan(df, schema.clone());
        return Ok(());
    }
    for input in node.inputs_mut() {
        replace_scans(input, reader)?;
    }
    Ok(())
}

fn read(
    reader: &Reader,
    scan: &HostScan,
    rows: Option<Range<usize>>,
) -> Result<DataFrame, ExecError> {
    let reader = reader.as_ref().ok_or_else(|| {
        ExecError::Unsupported(
            "a file scan with no reader: read it on the host before the plan runs".into(),
        )
    })?;
    reader.read(scan, rows).map_err(read_failed)
}

/// A failed read of a file scan: Polars' engine, reading it, fails the same way.
fn read_failed(e: polars::prelude::PolarsError) -> ExecError {
    ExecError::InvalidData(format!("reading a file scan: {e}"))
}

/// A file scan's partitions, read in order: each range of `rows` rows of
/// the file read on a host thread while the one before it is used.
pub(crate) struct ScanParts {
    reader: Arc<dyn ScanReader>,
    scan: Arc<HostScan>,
    /// The ranges not yet asked for, last first.
    ranges: Vec<Range<usize>>,
    /// The read of the next range, under way.
    ahead: Option<JoinHandle<PolarsResult<DataFrame>>>,
}

impl ScanParts {
    /// The partitions of `scan`'s rows (at least one range, maybe of no
    /// rows), `rows` rows each; `None` where its rows are not known or
    /// there is no reader.
    pub(crate) fn new(reader: &Reader, scan: &HostScan, rows: usize) -> Option<ScanParts> {
        let (reader, all, rows) = (reader.clone()?, scan.rows()?, rows.max(1));
        let mut ranges: Vec<Range<usize>> = (all.start..all.end.max(all.start + 1))
            .step_by(rows)
            .map(|start| start..(start + rows).min(all.end))
            .collect();
        ranges.reverse();
        Some(ScanParts {
            reader,
            scan: Arc::new(scan.clone()),
            ranges,
            ahead: None,
        })
    }

    /// How many partitions are left to read.
    pub(crate) fn len(&self) -> usize {
        self.ranges.len() + usize::from(self.ahead.is_some())
    }

    fn start_read(&mut self) {
        if let Some(range) = self.ranges.pop() {
            let (reader, scan) = (self.reader.clone(), self.scan.clone());
            self.ahead = Some(std::thread::spawn(move || reader.read(&scan, Some(range))));
        }
    }
}

impl Iterator for ScanParts {
    type Item = Result<DataFrame, ExecError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.ahead.is_none() {
            self.start_read();
        }
        let current = self.ahead.take()?;
        self.start_read();
        Some(match current.join() {
            Ok(read) => read.map_err(read_failed),
            Err(_) => Err(ExecError::Unsupported(
                "Polars' reader panicked reading a range of a file scan".into(),
            )),
        })
    }
}
