//! File scans in a plan: read whole on the host before their node runs, or in partitions as Polars' reader makes them, read on while the device runs the ones before.
//!
//! engine-select reads most file scans with Polars' reader before a plan
//! runs, but leaves a large one (larger than a partition, by the rows
//! Polars counts or estimates: [`HostScan::estimated_rows`]) in the plan
//! for the partitioned executor. That reads it through a [`ScanReader`] —
//! Polars' own reader (its streaming engine) with the scan's predicate,
//! projection, row index and slice, of any format and any number of
//! files, its result handed on in partitions of a set number of rows, the
//! reader going on with the next ones on host threads while the device
//! runs the current one. Where a chain of row-wise nodes, a partial
//! aggregation, a top-k or a join of each partition with the whole other
//! input takes the scan, the host never holds the whole result (`Stream`
//! in the module above). A node that takes the scan
//! whole, or an in-memory run, reads it whole first.

use std::sync::Arc;

use ir_lower::{GpuDtype, HostScan, OutputSchema, PlanNode};
use polars::prelude::{DataFrame, PolarsResult};

use crate::error::ExecError;

/// Reads a file scan of a plan on the host (engine-select's: Polars' reader
/// over Polars' plan, which holds the scan at [`HostScan::node`]).
pub trait ScanReader: Send + Sync {
    /// The scan's whole result: the columns of the scan's schema, in order.
    fn read(&self, scan: &HostScan) -> PolarsResult<DataFrame>;

    /// The scan's result in partitions of `rows` rows (the last may hold
    /// fewer; at least one, maybe of no rows), in order, read on host
    /// threads ahead of the caller by a partition or so.
    fn stream(&self, scan: &HostScan, rows: usize) -> PolarsResult<ScanStream>;
}

/// A file scan's result, a partition at a time ([`ScanReader::stream`]).
pub type ScanStream = Box<dyn Iterator<Item = PolarsResult<DataFrame>> + Send>;

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

/// Bytes of the file scan `scan` (of `schema`) read whole, about (0
/// where Polars has no estimate of its rows).
pub(crate) fn estimated_scan_bytes(scan: &HostScan, schema: &OutputSchema) -> u64 {
    scan.estimated_rows()
        .map_or(0, |rows| rows as u64 * estimated_row_bytes(schema))
}

/// `node` with every file scan in it read whole on the host (an in-memory
/// frame in its place).
pub(crate) fn read_whole(mut node: PlanNode, reader: &Reader) -> Result<PlanNode, ExecError> {
    replace_scans(&mut node, reader)?;
    Ok(node)
}

fn replace_scans(node: &mut PlanNode, reader: &Reader) -> Result<(), ExecError> {
    if let PlanNode::FileScan { scan, schema } = node {
        let df = reader_of(reader)?.read(scan).map_err(read_failed)?;
        *node = super::scan(df, schema.clone());
        return Ok(());
    }
    for input in node.inputs_mut() {
        replace_scans(input, reader)?;
    }
    Ok(())
}

fn reader_of(reader: &Reader) -> Result<&Arc<dyn ScanReader>, ExecError> {
    reader.as_ref().ok_or_else(|| {
        ExecError::Unsupported(
            "a file scan with no reader: read it on the host before the plan runs".into(),
        )
    })
}

/// A failed read of a file scan: Polars' engine, reading it, fails the same way.
fn read_failed(e: polars::prelude::PolarsError) -> ExecError {
    ExecError::InvalidData(format!("reading a file scan: {e}"))
}

/// A file scan's partitions, read in order by the reader; a partition of
/// one row is joined to its neighbour (see [`super::FEWEST_PARTITION_ROWS`]).
pub(crate) struct ScanParts {
    stream: ScanStream,
    /// The partition read after the last one handed out, to hand out next.
    ahead: Option<DataFrame>,
}

impl ScanParts {
    /// The partitions of `scan`'s result, `rows` rows each.
    pub(crate) fn new(
        reader: &Reader,
        scan: &HostScan,
        rows: usize,
    ) -> Result<ScanParts, ExecError> {
        let stream = reader_of(reader)?
            .stream(scan, rows.max(1))
            .map_err(read_failed)?;
        Ok(ScanParts {
            stream,
            ahead: None,
        })
    }

    fn read(&mut self) -> Option<Result<DataFrame, ExecError>> {
        Some(self.stream.next()?.map_err(read_failed))
    }
}

impl Iterator for ScanParts {
    type Item = Result<DataFrame, ExecError>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut part = match self.ahead.take() {
            Some(part) => part,
            None => match self.read()? {
                Ok(part) => part,
                Err(e) => return Some(Err(e)),
            },
        };
        loop {
            let next = match self.read() {
                None => return Some(Ok(part)),
                Some(Err(e)) => return Some(Err(e)),
                Some(Ok(next)) => next,
            };
            if part.height() > 1 && next.height() != 1 {
                self.ahead = Some(next);
                return Some(Ok(part));
            }
            if let Err(e) = part.vstack_mut_owned(next) {
                return Some(Err(read_failed(e)));
            }
        }
    }
}
