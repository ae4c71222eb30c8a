//! Nodes reading a bounded number of rows before their own (`shift`, `diff`, rolling windows of rows) or running from the first row (`cum_sum`, `cum_max`) over partitions: each partition behind the last rows of the input before it, running on from the values the partitions before ended with.

use std::ops::ControlFlow;
use std::sync::Arc;

use ir_lower::{GpuDtype, GpuExpr, OutputColumn, PlanNode, ROWS_IN_FRONT, RUNNING, Scalar};
use polars::prelude::{AnyValue, BooleanChunked, Column, DataFrame, IntoColumn, NewChunkedArray};

use super::aggregate::plan_runs;
use super::{Data, Partitioned, shared_scan};
use crate::error::ExecError;

impl Partitioned<'_> {
    /// A filter, select or with_columns whose expressions read, besides
    /// their own row, at most `h` rows before it (`Partitioning::Behind`,
    /// `PlanNode::rows_behind`): each partition of its input run behind
    /// the last `h` rows of the input before it (of the partitions before,
    /// where one is shorter), so that each of its rows sees the rows it
    /// would see over the whole input; the rows put in front are dropped
    /// from the result (a select's and with_columns' first rows; a
    /// filter's by a column flagging them, which its predicate rejects).
    /// Its running functions (`cum_sum`, ...) go on from the values they
    /// had reached where each partition starts (`PlanNode::carried`: each
    /// run gives their values as columns of their own, whose last valid
    /// value before the next partition's start is carried to it). Whole
    /// where `h` is more than a partition's rows.
    pub(super) fn behind(&mut self, node: &PlanNode) -> Result<Data, ExecError> {
        let inputs = node.inputs();
        let (Some(behind), [input]) = (node.rows_behind(), inputs.as_slice()) else {
            return self.on_whole_inputs(node);
        };
        let behind = match usize::try_from(behind) {
            Ok(behind) if behind <= self.rows => behind,
            _ => return self.on_whole_inputs(node),
        };
        let running = node.running_functions();
        let each = match node {
            PlanNode::Filter { .. } => Some(flagged_filter(node)),
            _ if running > 0 => node.carried(&vec![None; running]),
            _ => Some(node.clone()),
        };
        // (Each partition's plan carries literals of the functions' types:
        // checked as the first partition's, and as a later one's.)
        let later = match running {
            0 => each.clone(),
            _ => carried_later(node, running),
        };
        let (Some(each), Some(later)) = (each, later) else {
            return self.on_whole_inputs(node);
        };
        if !plan_runs(&each) || !plan_runs(&later) {
            return self.on_whole_inputs(node);
        }
        let mut stream = match self.input_stream(node, input)? {
            ControlFlow::Continue(stream) => stream,
            ControlFlow::Break(done) => return Ok(done),
        };
        let mut carried: Option<DataFrame> = None;
        let mut carries: Vec<Option<Scalar>> = vec![None; running];
        let mut out = Vec::new();
        while let Some(part) = self.next_part(&mut stream) {
            let part = part?;
            let in_front = carried.as_ref().map_or(0, DataFrame::height);
            let mut rows = match carried.take() {
                Some(mut rows) => {
                    rows.vstack_mut_owned(part)?;
                    rows.rechunk_mut_par();
                    rows
                }
                None => part,
            };
            let height = rows.height();
            carried = Some(rows.slice(height.saturating_sub(behind) as i64, behind));
            let result = match &each {
                PlanNode::Filter { .. } => {
                    let flags = (0..height).map(|row| row < in_front);
                    let flags = BooleanChunked::from_iter_values(ROWS_IN_FRONT.into(), flags);
                    rows.with_column(flags.into_column())?;
                    let mut kept = self.on_device(with_input(&each, rows))?;
                    let _ = kept.drop_in_place(ROWS_IN_FRONT)?;
                    kept
                }
                _ => {
                    let plan = match running {
                        0 => each.clone(),
                        _ => node.carried(&carries).ok_or_else(|| {
                            ExecError::Unsupported("running functions of another node".into())
                        })?,
                    };
                    let mut ran = self.on_device(with_input(&plan, rows))?;
                    // (The next partition starts `behind` rows before this
                    // one's end, where there are so many.)
                    let next_start = height.saturating_sub(behind);
                    for (i, carry) in carries.iter_mut().enumerate() {
                        let values = ran.drop_in_place(&format!("{RUNNING}{i}"))?;
                        if let Some(value) = last_valid(&values, next_start)? {
                            *carry = Some(value);
                        }
                    }
                    ran.slice(in_front as i64, ran.height().saturating_sub(in_front))
                }
            };
            out.push(result);
        }
        match out.is_empty() {
            true => Err(ExecError::Unsupported(
                "a node reading rows behind its own over no partitions".into(),
            )),
            false => Ok(Data::Parts(out)),
        }
    }
}

/// The filter `node` over its input's columns and a flag of the rows put
/// in front last (a placeholder input of them), which its predicate
/// rejects and it keeps (to be dropped).
fn flagged_filter(node: &PlanNode) -> PlanNode {
    let PlanNode::Filter {
        input,
        predicate,
        schema,
    } = node
    else {
        return node.clone();
    };
    let flag = OutputColumn {
        name: ROWS_IN_FRONT.into(),
        dtype: GpuDtype::Boolean,
    };
    let mut flagged_input = input.schema().clone();
    flagged_input.push(flag.clone());
    let mut flagged_output = schema.clone();
    flagged_output.push(flag);
    let in_front = GpuExpr::column(flagged_input.len() - 1, ROWS_IN_FRONT, GpuDtype::Boolean);
    let rejected = GpuExpr::literal(Scalar::Boolean(false), GpuDtype::Boolean);
    PlanNode::Filter {
        input: Box::new(shared_scan(Arc::new(DataFrame::empty()), flagged_input)),
        predicate: in_front.then(rejected, predicate.clone(), GpuDtype::Boolean),
        schema: flagged_output,
    }
}

/// `node` (of one input) over `rows` in place of its input.
fn with_input(node: &PlanNode, rows: DataFrame) -> PlanNode {
    let mut plan = node.clone();
    if let Some(input) = plan.inputs_mut().into_iter().next() {
        let schema = input.schema().clone();
        *input = shared_scan(Arc::new(rows), schema);
    }
    plan
}

/// The select or with_columns `node` of `running` running functions as a
/// partition after the first runs it: each carrying a value (a zero of its
/// type).
fn carried_later(node: &PlanNode, running: usize) -> Option<PlanNode> {
    let zeros = node.carried(&vec![None; running])?;
    let dtypes: Vec<GpuDtype> = zeros.schema()[zeros.schema().len() - running..]
        .iter()
        .map(|column| column.dtype)
        .collect();
    let carries: Vec<Option<Scalar>> = dtypes
        .into_iter()
        .map(|dtype| {
            Some(match dtype {
                d if d.is_float() => Scalar::Float(0.0),
                d if d.is_unsigned() => Scalar::UInt(0),
                _ => Scalar::Int(0),
            })
        })
        .collect();
    node.carried(&carries)
}

/// The last valid value of `values` among its first `rows` rows (a
/// running function's reached before the next partition), as a literal of
/// its type.
fn last_valid(values: &Column, rows: usize) -> Result<Option<Scalar>, ExecError> {
    let values = values
        .as_materialized_series()
        .slice(0, rows.min(values.len()));
    let Some(row) = values
        .is_not_null()
        .iter()
        .rposition(|valid| valid == Some(true))
    else {
        return Ok(None);
    };
    Ok(match values.get(row)? {
        AnyValue::Float32(v) => Some(Scalar::Float(f64::from(v))),
        AnyValue::Float64(v) => Some(Scalar::Float(v)),
        AnyValue::UInt8(v) => Some(Scalar::UInt(u64::from(v))),
        AnyValue::UInt16(v) => Some(Scalar::UInt(u64::from(v))),
        AnyValue::UInt32(v) => Some(Scalar::UInt(u64::from(v))),
        AnyValue::UInt64(v) => Some(Scalar::UInt(v)),
        AnyValue::Int8(v) => Some(Scalar::Int(i64::from(v))),
        AnyValue::Int16(v) => Some(Scalar::Int(i64::from(v))),
        AnyValue::Int32(v) => Some(Scalar::Int(i64::from(v))),
        AnyValue::Int64(v) => Some(Scalar::Int(v)),
        other => {
            return Err(ExecError::Unsupported(format!(
                "a running function's value {other}"
            )));
        }
    })
}
