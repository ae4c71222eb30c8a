//! A sort over partitions: rows to ranges of the sort's order by splitter rows sampled from the input, each range sorted whole.
//!
//! Rows sampled evenly from the whole input are sorted on the device, and
//! some of them, evenly spaced in that order, become the splitters. Each
//! partition is sorted on the device with the splitters before its own
//! rows: the executor's sort is stable, so a splitter lands before every
//! row of a key equal to its own, and the rows between two splitters are
//! one range of the order. A row's range is the number of splitters whose
//! keys are at most its own: a function of its keys alone, growing with
//! them. Each range, its rows from every partition in the order of the
//! partitions (each piece already sorted), is sorted on the device; the
//! ranges, one after the other, are the stable sort of the whole input:
//! rows of equal keys share a range and keep the order of the input.
//!
//! A stable sort also puts each splitter a second time after the
//! partition's rows: a row of keys equal to a splitter's lands between its
//! two copies, so the rows of each splitter's keys are a range of their
//! own, already in order (every piece sorted stably, the pieces in the
//! input's order), which no device run sorts again. A key too frequent
//! for one range (many splitters of it, nulls of a column mostly null)
//! so never has to fit the device at once.

use std::ops::ControlFlow;

use ir_lower::{GpuDtype, OutputColumn, OutputSchema, PlanNode};
use polars::prelude::{ChunkCompareEq, Column, DataFrame, IdxCa, IdxSize};

use super::{Data, Partitioned, over, scan, slice_data};
use crate::error::ExecError;

/// The column marking the splitter rows sorted with a partition.
const SPLITTER: &str = "__polars_gpu_partition_splitter";

/// Rows sampled from the input for each range.
const SAMPLES_PER_RANGE: usize = 32;

/// Most ranges a sort's rows go to.
const MAX_RANGES: usize = 1 << 12;

impl Partitioned<'_> {
    /// A sort (`Partitioning::Ranged`), range by range, then its slice.
    pub(super) fn ranged(&mut self, node: &PlanNode) -> Result<Data, ExecError> {
        let PlanNode::Sort { input, slice, .. } = node else {
            return self.on_whole_inputs(node);
        };
        let in_schema = input.schema();
        // A frame of one float column sorted by it is Polars' own where it
        // holds both zeros (the in-memory executor checks that frame).
        let one_float = matches!(in_schema.as_slice(), [column] if column.dtype.is_float());
        if one_float || in_schema.iter().any(|c| c.name == SPLITTER) {
            return self.on_whole_inputs(node);
        }
        let parts = match self.input_parts(node, input)? {
            ControlFlow::Continue(parts) => parts,
            ControlFlow::Break(done) => return Ok(done),
        };
        let mut unsliced = node.clone();
        if let PlanNode::Sort { slice, .. } = &mut unsliced {
            *slice = None;
        }
        let sorted = self.ranges_over(&unsliced, parts)?;
        match slice {
            Some((offset, len)) => slice_data(sorted, *offset, *len),
            None => Ok(sorted),
        }
    }

    /// The sort `unsliced` (without a slice) of `parts` of its input, by
    /// ranges: the sorted rows, a range a partition.
    pub(super) fn ranges_over(
        &mut self,
        unsliced: &PlanNode,
        parts: Vec<DataFrame>,
    ) -> Result<Data, ExecError> {
        let in_schema = unsliced.inputs()[0].schema();
        let total: usize = parts.iter().map(DataFrame::height).sum();
        // Ranges of half a partition on average, room for uneven ones; no
        // more than half a partition's rows, so that the splitters sorted
        // with each partition stay fewer than its own rows (else the sorts
        // of the partitions grow with the square of the input's rows, and
        // a range holds more than a partition only past that).
        let most = MAX_RANGES.min((self.rows / 2).max(2));
        let ranges = total.div_ceil(self.rows.div_ceil(2)).clamp(1, most);
        let sorted = if ranges == 1 {
            let whole = Data::Parts(parts).whole()?;
            Data::Whole(self.on_device(over(unsliced, vec![whole]))?)
        } else {
            let empty = parts[0].clear();
            let splitters = self.splitters(unsliced, &parts, total, ranges)?;
            let stable = matches!(unsliced, PlanNode::Sort { stable: true, .. });
            // Each partition's rows sorted, and the pieces of them that
            // fall in each range (those with rows only: a partition has
            // fewer rows than there are ranges where partitions are small).
            let mut sorted_parts = Vec::with_capacity(parts.len());
            let mut bounds = Vec::new();
            for part in parts {
                let (sorted, pieces, marks) =
                    self.sorted_in_ranges(unsliced, in_schema, &splitters, stable, part)?;
                sorted_parts.push((sorted, pieces.into_iter().peekable()));
                bounds = marks;
            }
            // A range from a splitter's first copy to a second copy holds
            // rows of that splitter's keys alone, already in order.
            let equal_keys = |range: usize| {
                range > 0
                    && bounds.get(range - 1) == Some(&Mark::Before)
                    && bounds.get(range) == Some(&Mark::After)
            };
            let mut out = Vec::new();
            for range in 0..bounds.len() + 1 {
                let mut rows: Option<DataFrame> = None;
                for (sorted, pieces) in sorted_parts.iter_mut() {
                    let Some(piece) = pieces.next_if(|piece| piece.range == range) else {
                        continue;
                    };
                    let piece = sorted.slice(piece.start as i64, piece.len);
                    match &mut rows {
                        Some(rows) => {
                            rows.vstack_mut_owned(piece)?;
                        }
                        None => rows = Some(piece),
                    }
                }
                if let Some(mut rows) = rows.filter(|rows| rows.height() > 0) {
                    rows.rechunk_mut_par();
                    match equal_keys(range) {
                        true => out.push(rows),
                        false => out.push(self.on_device(over(unsliced, vec![rows]))?),
                    }
                }
            }
            if out.is_empty() {
                out.push(self.on_device(over(unsliced, vec![empty]))?);
            }
            Data::Parts(out)
        };
        Ok(sorted)
    }

    /// `ranges - 1` rows of the input (`parts`, `total` rows), in the
    /// order of the sort `unsliced`, that cut it into ranges of about
    /// equal rows: a sample of the rows evenly spread over the input,
    /// sorted on the device, taken at even steps.
    fn splitters(
        &mut self,
        unsliced: &PlanNode,
        parts: &[DataFrame],
        total: usize,
        ranges: usize,
    ) -> Result<DataFrame, ExecError> {
        let samples = total.min(ranges * SAMPLES_PER_RANGE);
        let mut wanted = (0..samples)
            .map(|j| (j * total + total / 2) / samples)
            .peekable();
        let mut sample: Option<DataFrame> = None;
        let mut first = 0;
        for part in parts {
            let end = first + part.height();
            let mut local = Vec::new();
            while let Some(&row) = wanted.peek().filter(|&&row| row < end) {
                local.push(index(row - first)?);
                wanted.next();
            }
            first = end;
            if local.is_empty() {
                continue;
            }
            let taken = part.take(&IdxCa::from_vec("rows".into(), local))?;
            match &mut sample {
                Some(sample) => {
                    sample.vstack_mut_owned(taken)?;
                }
                None => sample = Some(taken),
            }
        }
        let Some(mut sample) = sample else {
            return Err(ExecError::Unsupported(
                "a sample of no rows of a sort's input".into(),
            ));
        };
        sample.rechunk_mut_par();
        let sorted = self.on_device(over(unsliced, vec![sample]))?;
        let at = (1..ranges)
            .map(|i| index(i * sorted.height() / ranges))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(sorted.take(&IdxCa::from_vec("rows".into(), at))?)
    }

    /// `part` (of `schema`) sorted by `unsliced` on the device with the
    /// `splitters` before its rows (and, for a `stable` sort, again after
    /// them): its rows in that order (the splitters' copies dropped), the
    /// pieces of them in each range that holds some (the rows before the
    /// first splitter, between each two, after the last), in order, and
    /// the splitters' copies that bound the ranges, in order (the same for
    /// every partition: they are ordered by their keys alone).
    fn sorted_in_ranges(
        &mut self,
        unsliced: &PlanNode,
        schema: &OutputSchema,
        splitters: &DataFrame,
        stable: bool,
        part: DataFrame,
    ) -> Result<(DataFrame, Vec<Piece>, Vec<Mark>), ExecError> {
        let marked = |df: &DataFrame, mark: Mark| {
            let mark = Column::new(SPLITTER.into(), vec![mark as u8; df.height()]);
            df.hstack(&[mark])
        };
        let mut rows = marked(splitters, Mark::Before)?;
        rows.vstack_mut_owned(marked(&part, Mark::Row)?)?;
        if stable {
            rows.vstack_mut_owned(marked(splitters, Mark::After)?)?;
        }
        rows.rechunk_mut_par();
        let mut marked_schema = schema.clone();
        marked_schema.push(OutputColumn {
            name: SPLITTER.into(),
            dtype: GpuDtype::UInt8,
        });
        let mut node = unsliced.clone();
        if let PlanNode::Sort { input, schema, .. } = &mut node {
            schema.push(marked_schema[marked_schema.len() - 1].clone());
            **input = scan(rows, marked_schema);
        }
        let mut sorted = self.on_device(node)?;
        let marks = sorted.drop_in_place(SPLITTER)?;
        let marks = marks.u8()?;
        let copies = splitters.height() * if stable { 2 } else { 1 };
        let mut pieces = Vec::new();
        let mut bounds = Vec::with_capacity(copies);
        // The partition's own rows seen so far, and the first of them in
        // the current range.
        let (mut seen, mut first) = (0, 0);
        for mark in marks.iter() {
            let bound = match mark {
                Some(m) if m == Mark::Before as u8 => Mark::Before,
                Some(m) if m == Mark::After as u8 => Mark::After,
                _ => {
                    seen += 1;
                    continue;
                }
            };
            pieces.extend(Piece::of(bounds.len(), first..seen));
            bounds.push(bound);
            first = seen;
        }
        pieces.extend(Piece::of(bounds.len(), first..seen));
        if bounds.len() != copies {
            return Err(ExecError::Unsupported(format!(
                "a sorted partition with {} of its {copies} splitters",
                bounds.len(),
            )));
        }
        let own_rows = marks.equal(Mark::Row as u8);
        Ok((sorted.filter(&own_rows)?, pieces, bounds))
    }
}

/// The rows of one partition that fall in one range: `len` rows from
/// `start` of the partition's rows sorted.
#[derive(Debug, Clone, Copy)]
struct Piece {
    range: usize,
    start: usize,
    len: usize,
}

impl Piece {
    /// The piece of `range` holding the sorted rows at `rows`; none where
    /// it holds no row.
    fn of(range: usize, rows: std::ops::Range<usize>) -> Option<Piece> {
        (!rows.is_empty()).then_some(Piece {
            range,
            start: rows.start,
            len: rows.len(),
        })
    }
}

/// What a row sorted with a partition is: one of the partition's, or a
/// splitter's copy put before or after them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    Row = 0,
    Before = 1,
    After = 2,
}

/// A row number as Polars indexes rows.
fn index(row: usize) -> Result<IdxSize, ExecError> {
    IdxSize::try_from(row).map_err(|_| ExecError::Unsupported(format!("row {row} as an index")))
}
