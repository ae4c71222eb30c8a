//! Group-bys of medians and quantiles over partitions: counts added up, each quantile's valid values sorted by ranges, and each group's quantile read at its ranks.
//!
//! `PlanNode::ranked_quantiles` gives the plans: the other aggregations
//! with each group's counts (its rows, its valid values, its zeros of
//! each sign) as a group-by that adds up over partitions, its groups in
//! the order of their first rows; and per quantile the keys and valid
//! values of the input, sorted by keys then value by ranges (a key of
//! many rows spread over many ranges). In that order each group's values
//! are one run, the runs in the order of the keys: the groups sorted by
//! their keys on the host, a group's run starts where the counts of the
//! groups before it end, and its quantile is read there as the in-memory
//! executor's kernel computes it (Polars' `quantile_idx` and
//! interpolations).

use ir_lower::{PlanNode, QUANTILE_VALUE, RankedQuantile};
use polars::prelude::{
    DataFrame, DataType, Float64Chunked, IdxSize, IntoColumn, NamedFrom, Series,
    SortMultipleOptions,
};

use std::ops::ControlFlow;

use super::aggregate::{plan_runs, runs};
use super::{Data, Partitioned, Stream, over, sliced_result};
use crate::error::ExecError;
use crate::execute::Executor;
use gpu_runtime::ops::QuantileMethod;

/// The column numbering the groups in the order of their first rows.
const GROUP: &str = "__polars_gpu_quantile_group";

impl Partitioned<'_> {
    /// A group-by (or a select over the whole frame) of medians and
    /// quantiles beside aggregations that add up
    /// (`Partitioning::Ranked`), sliced.
    pub(super) fn ranked(&mut self, node: &PlanNode) -> Result<Data, ExecError> {
        let (input, slice) = match node {
            PlanNode::GroupBy { input, slice, .. } => (input, *slice),
            PlanNode::Select { input, .. } => (input, None),
            _ => return self.bucketed(node),
        };
        let Some(ranked) = node.ranked_quantiles() else {
            return self.bucketed(node);
        };
        let Some(plans) = ranked.counts.partial_aggregation() else {
            return self.bucketed(node);
        };
        if !(runs(&plans)
            && (ranked.sorted.iter()).all(|v| plan_runs(&v.values) && plan_runs(&v.sort)))
        {
            return self.bucketed(node);
        }
        let parts = match self.input_parts(node, input)? {
            ControlFlow::Continue(parts) => parts,
            ControlFlow::Break(done) => return Ok(done),
        };
        if parts.iter().all(|part| part.height() == 0) {
            return self
                .on_device(over(node, vec![parts[0].clone()]))
                .map(Data::Whole);
        }
        let source = || Stream::Parts(parts.clone().into_iter());
        let counts = self.aggregated_over(&ranked.counts, &plans, source(), None)?;
        let counts = counts.whole()?;
        // The groups in the order of their keys, as the sorts put them.
        let keys: Vec<_> = counts.get_column_names_owned()[..ranked.keys].to_vec();
        let order: Vec<usize> = match keys.is_empty() {
            true => (0..counts.height()).collect(),
            false => {
                let stable = SortMultipleOptions::default().with_maintain_order(true);
                let by_keys = (counts.select(keys.clone())?)
                    .with_row_index(GROUP.into(), None)?
                    .sort(keys, stable)?;
                let groups = by_keys.column(GROUP)?.idx()?.into_no_null_iter();
                groups.map(|group: IdxSize| group as usize).collect()
            }
        };
        let lengths = u32_column(&counts, &ranked.length)?;
        let mut picked = Vec::with_capacity(ranked.quantiles.len());
        for (i, of) in ranked.sorted.iter().enumerate() {
            let values = Stream::chain(of.values.clone(), 1, source());
            let values = self.all_parts(values)?;
            let sorted = self.ranges_over(&of.sort, values)?;
            let runs = SortedValues::new(sorted.into_parts())?;
            let zeros = match &of.zeros {
                Some((negative, positive)) => Some((
                    u32_column(&counts, negative)?,
                    u32_column(&counts, positive)?,
                )),
                None => None,
            };
            let groups = Groups {
                rows: counts.height(),
                lengths: &lengths,
                order: &order,
                valid: &u32_column(&counts, &of.count)?,
                zeros: zeros.as_ref(),
            };
            for quantile in ranked.quantiles.iter().filter(|q| q.of == i) {
                picked.push(picks(quantile, &groups, &runs)?);
            }
        }
        // The node's columns: the keys and other aggregations, and the
        // quantiles in their places.
        let mut columns = Vec::with_capacity(node.schema().len());
        for column in node.schema() {
            match picked
                .iter()
                .find(|series| series.name() == column.name.as_str())
            {
                Some(series) => columns.push(series.clone().into_column()),
                None => columns.push(counts.column(&column.name)?.clone()),
            }
        }
        let result = DataFrame::new_infer_height(columns)?;
        let group_by = matches!(node, PlanNode::GroupBy { .. });
        Ok(self.parted(sliced_result(result, slice, group_by)?))
    }
}

/// The groups of a [`RankedQuantiles`]' counts, `rows` of them (in the
/// order of their first rows): their `lengths` (rows), `order` (the groups
/// in the order of their keys), and of the values one sort read, each
/// group's `valid` ones and `zeros` of each sign (of floats).
struct Groups<'a> {
    rows: usize,
    lengths: &'a [u32],
    order: &'a [usize],
    valid: &'a [u32],
    zeros: Option<&'a (Vec<u32>, Vec<u32>)>,
}

/// `quantile` of each group of `groups`, read in `runs` (the valid values
/// it reads, sorted), as a series named as the node's column.
fn picks(
    quantile: &RankedQuantile,
    groups: &Groups,
    runs: &SortedValues,
) -> Result<Series, ExecError> {
    let method = QuantileMethod::from_name(quantile.method).ok_or_else(|| {
        ExecError::Unsupported(format!("the quantile method {}", quantile.method))
    })?;
    let Groups {
        rows,
        lengths,
        order,
        valid,
        zeros,
    } = *groups;
    let mut out = vec![None; rows];
    let mut start = 0usize;
    for &group in order {
        let count = valid[group] as usize;
        let nulls = (lengths[group] as usize)
            .checked_sub(count)
            .ok_or_else(|| {
                ExecError::Unsupported("a group of more valid values than rows".into())
            })?;
        let value = pick(runs, start, count, nulls, quantile.quantile, method)?;
        if let (Some(value), Some((negative, positive))) = (value, zeros)
            && value == 0.0
            && negative[group] > 0
            && positive[group] > 0
        {
            return Err(ExecError::DependsOnPolars(Executor::ZERO_PICKS.into()));
        }
        out[group] = value;
        start += count;
    }
    if start != runs.len() {
        return Err(ExecError::Unsupported(format!(
            "{start} valid values counted of {} sorted",
            runs.len()
        )));
    }
    Ok(Series::new(quantile.name.as_str().into(), out))
}

/// The quantile `q` (by `method`) of a group's `count` valid values at
/// `start` of `runs` (sorted), beside `nulls` nulls, as the in-memory
/// executor's `segment_quantile_f64` computes it (Polars' `quantile_idx`:
/// the place counts the nulls, sorted first, so an interpolation's
/// proportion is rounded as Polars rounds it). Null of no valid value.
fn pick(
    runs: &SortedValues,
    start: usize,
    count: usize,
    nulls: usize,
    q: f64,
    method: QuantileMethod,
) -> Result<Option<f64>, ExecError> {
    let at = |rank: usize| runs.get(start + rank - nulls);
    match count {
        0 => return Ok(None),
        1 => return at(nulls).map(Some),
        _ => {}
    }
    let length = count + nulls;
    let float_idx = (count - 1) as f64 * q + nulls as f64;
    let (idx, top) = match method {
        QuantileMethod::Nearest => {
            let idx = float_idx.round() as usize;
            (idx, idx)
        }
        QuantileMethod::Equiprobable => {
            let at = (count as f64 * q).ceil() - 1.0;
            let idx = at.max(0.0) as usize + nulls;
            (idx, idx)
        }
        _ => {
            let idx = match method {
                QuantileMethod::Higher => float_idx.ceil(),
                _ => float_idx,
            } as usize;
            (idx.min(length - 1), float_idx.ceil() as usize)
        }
    };
    let lower = at(idx)?;
    if idx == top || !matches!(method, QuantileMethod::Midpoint | QuantileMethod::Linear) {
        return Ok(Some(lower));
    }
    let upper = at(idx + 1)?;
    Ok(Some(if lower == upper {
        lower
    } else if method == QuantileMethod::Midpoint {
        (lower + upper) / 2.0
    } else {
        (float_idx - idx as f64) * (upper - lower) + lower
    }))
}

/// The sorted valid values of a quantile's sort, in its partitions.
struct SortedValues {
    /// Where each partition starts, and its values.
    starts: Vec<usize>,
    values: Vec<Float64Chunked>,
    len: usize,
}

impl SortedValues {
    fn new(parts: Vec<DataFrame>) -> Result<SortedValues, ExecError> {
        let (mut starts, mut values, mut len) = (Vec::new(), Vec::new(), 0);
        for part in parts {
            if part.height() == 0 {
                continue;
            }
            starts.push(len);
            len += part.height();
            values.push(part.column(QUANTILE_VALUE)?.f64()?.rechunk().into_owned());
        }
        Ok(SortedValues {
            starts,
            values,
            len,
        })
    }

    fn len(&self) -> usize {
        self.len
    }

    /// The value at `place` of the whole.
    fn get(&self, place: usize) -> Result<f64, ExecError> {
        let part = self.starts.partition_point(|&start| start <= place);
        part.checked_sub(1)
            .and_then(|part| self.values[part].get(place - self.starts[part]))
            .ok_or_else(|| {
                ExecError::Unsupported(format!("no sorted value at {place} of {}", self.len))
            })
    }
}

/// The u32 column `name` of `df`, nulls as 0.
fn u32_column(df: &DataFrame, name: &str) -> Result<Vec<u32>, ExecError> {
    let column = df.column(name)?.cast(&DataType::UInt32)?;
    Ok(column.u32()?.iter().map(|v| v.unwrap_or(0)).collect())
}
