//! Nodes reading a bounded number of rows around their own (`shift`, `diff`, rolling windows of rows, fills with a limit) or running from the first row (`cum_sum`, `cum_max`) over partitions: each partition between the last rows of the input before it and the first rows after it, running on from the values the partitions before ended with; nodes running from the last row, from the last partition to the first.

use std::collections::VecDeque;
use std::ops::ControlFlow;
use std::sync::Arc;

use ir_lower::{GpuDtype, GpuExpr, OutputColumn, PlanNode, ROWS_AROUND, RUNNING, Scalar};
use polars::prelude::{BooleanChunked, Column, DataFrame, IntoColumn, NewChunkedArray};

use super::aggregate::plan_runs;
use super::{Data, Partitioned, Stream, over, shared_scan};
use crate::error::ExecError;

impl Partitioned<'_> {
    /// A filter, select or with_columns whose expressions read, besides
    /// their own row, at most `behind` rows before it and `ahead` rows
    /// after it (`Partitioning::Around`, `PlanNode::rows_around`): each
    /// partition of its input run between the last `behind` rows of the
    /// input before it and the first `ahead` rows after it (of the
    /// partitions before and after, where one is shorter), so that each of
    /// its rows sees the rows it would see over the whole input; the rows
    /// put around it are dropped from the result (a select's and
    /// with_columns' first and last rows; a filter's by a column flagging
    /// them, which its predicate rejects). Its running functions
    /// (`cum_sum`, ...) go on from the values they had reached where each
    /// partition starts (`PlanNode::carried`: each run gives their values
    /// as columns of their own, whose last valid value before the next
    /// partition's start is carried to it). Whole where either bound is
    /// more than a partition's rows.
    pub(super) fn around(&mut self, node: &PlanNode) -> Result<Data, ExecError> {
        let inputs = node.inputs();
        if let (None, Some(turned), [input]) = (
            node.rows_around(),
            node.running_from_the_end(),
            inputs.as_slice(),
        ) {
            return self.backward(node, &turned, input);
        }
        let (Some(around), [input]) = (node.rows_around(), inputs.as_slice()) else {
            return self.on_whole_inputs(node);
        };
        let within = |rows: u64| usize::try_from(rows).ok().filter(|&rows| rows <= self.rows);
        let (Some(behind), Some(ahead)) = (within(around.behind), within(around.ahead)) else {
            return self.on_whole_inputs(node);
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
        // The partitions taken to put after the one running, not run yet.
        let mut waiting: VecDeque<DataFrame> = VecDeque::new();
        let mut carried: Option<DataFrame> = None;
        let mut carries: Vec<Option<Scalar>> = vec![None; running];
        let mut out = Vec::new();
        loop {
            let part = match waiting.pop_front() {
                Some(part) => part,
                None => match self.next_part(&mut stream) {
                    Some(part) => part?,
                    None => break,
                },
            };
            let after = self.rows_after(&mut stream, &mut waiting, ahead)?;
            let in_front = carried.as_ref().map_or(0, DataFrame::height);
            let own = part.height();
            let mut rows = match carried.take() {
                Some(mut rows) => {
                    rows.vstack_mut_owned(part)?;
                    rows
                }
                None => part,
            };
            // (The next partition starts `behind` rows before this one's
            // end, where there are so many.)
            let next_start = rows.height().saturating_sub(behind);
            carried = Some(rows.slice(next_start as i64, behind));
            let put_after = after.as_ref().map_or(0, DataFrame::height);
            if let Some(after) = after {
                rows.vstack_mut_owned(after)?;
            }
            rows.rechunk_mut_par();
            let result = match &each {
                PlanNode::Filter { .. } => {
                    let flags =
                        (0..rows.height()).map(|row| row < in_front || row >= in_front + own);
                    let flags = BooleanChunked::from_iter_values(ROWS_AROUND.into(), flags);
                    rows.with_column(flags.into_column())?;
                    let mut kept = self.on_device(over(&each, vec![rows]))?;
                    let _ = kept.drop_in_place(ROWS_AROUND)?;
                    kept
                }
                _ => {
                    let ran = self.run_carrying(node, &mut carries, rows, next_start)?;
                    if ran.height() != in_front + own + put_after {
                        return Err(ExecError::Unsupported(format!(
                            "a node of rows around its own giving {} rows of {}",
                            ran.height(),
                            in_front + own + put_after
                        )));
                    }
                    ran.slice(in_front as i64, own)
                }
            };
            out.push(result);
        }
        match out.is_empty() {
            true => Err(ExecError::Unsupported(
                "a node reading rows around its own over no partitions".into(),
            )),
            false => Ok(Data::Parts(out)),
        }
    }

    /// A select or with_columns running from the last row only
    /// (`PlanNode::running_from_the_end`, `turned`: each such function the
    /// reverse of its function from the first row over the reversed
    /// input): its input's partitions run from the last to the first, each
    /// function going on from the value the partitions after it reached
    /// (the last valid value of its reversed run, carried to the partition
    /// before), the results put back in order.
    fn backward(
        &mut self,
        node: &PlanNode,
        turned: &PlanNode,
        input: &PlanNode,
    ) -> Result<Data, ExecError> {
        let running = turned.running_functions();
        let first = turned.carried(&vec![None; running]);
        let later = carried_later(turned, running);
        let (Some(first), Some(later)) = (first, later) else {
            return self.on_whole_inputs(node);
        };
        if !plan_runs(&first) || !plan_runs(&later) {
            return self.on_whole_inputs(node);
        }
        let parts = match self.input_parts(node, input)? {
            ControlFlow::Continue(parts) => parts,
            ControlFlow::Break(done) => return Ok(done),
        };
        let mut carries: Vec<Option<Scalar>> = vec![None; running];
        let mut out = Vec::with_capacity(parts.len());
        for part in parts.into_iter().rev() {
            let own = part.height();
            out.push(self.run_carrying(turned, &mut carries, part, own)?);
        }
        out.reverse();
        match out.is_empty() {
            true => Err(ExecError::Unsupported(
                "a node running from the last row over no partitions".into(),
            )),
            false => Ok(Data::Parts(out)),
        }
    }

    /// The select or with_columns `node` over `rows`, its running functions
    /// going on from `carries` (the values reached before these rows, none
    /// for the first), each carry then the last valid value its function
    /// reached among the first `reached` rows (its own column, dropped).
    fn run_carrying(
        &mut self,
        node: &PlanNode,
        carries: &mut [Option<Scalar>],
        rows: DataFrame,
        reached: usize,
    ) -> Result<DataFrame, ExecError> {
        let plan = match carries.len() {
            0 => node.clone(),
            _ => node.carried(carries).ok_or_else(|| {
                ExecError::Unsupported("running functions of another node".into())
            })?,
        };
        let mut ran = self.on_device(over(&plan, vec![rows]))?;
        for (i, carry) in carries.iter_mut().enumerate() {
            let values = ran.drop_in_place(&format!("{RUNNING}{i}"))?;
            if let Some(value) = last_valid(&values, reached)? {
                *carry = Some(value);
            }
        }
        Ok(ran)
    }

    /// The first `ahead` rows after the partition running (`None`: none):
    /// of the partitions `waiting` already taken, then of those taken from
    /// `stream` now (which wait in turn).
    fn rows_after(
        &mut self,
        stream: &mut Stream,
        waiting: &mut VecDeque<DataFrame>,
        ahead: usize,
    ) -> Result<Option<DataFrame>, ExecError> {
        let mut after: Option<DataFrame> = None;
        let mut taken = 0;
        let mut next = 0;
        while taken < ahead {
            if next == waiting.len() {
                match self.next_part(stream) {
                    Some(part) => waiting.push_back(part?),
                    None => break,
                }
            }
            let rows = waiting[next].slice(0, ahead - taken);
            taken += rows.height();
            next += 1;
            match &mut after {
                Some(after) => {
                    after.vstack_mut_owned(rows)?;
                }
                None => after = Some(rows),
            }
        }
        Ok(after)
    }
}

/// The filter `node` over its input's columns and a flag of the rows put
/// around the partition last (a placeholder input of them), which its
/// predicate rejects and it keeps (to be dropped).
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
        name: ROWS_AROUND.into(),
        dtype: GpuDtype::Boolean,
    };
    let mut flagged_input = input.schema().clone();
    flagged_input.push(flag.clone());
    let mut flagged_output = schema.clone();
    flagged_output.push(flag);
    let around = GpuExpr::column(flagged_input.len() - 1, ROWS_AROUND, GpuDtype::Boolean);
    let rejected = GpuExpr::literal(Scalar::Boolean(false), GpuDtype::Boolean);
    PlanNode::Filter {
        input: Box::new(shared_scan(Arc::new(DataFrame::empty()), flagged_input)),
        predicate: around.then(rejected, predicate.clone(), GpuDtype::Boolean),
        schema: flagged_output,
    }
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
                GpuDtype::Boolean => Scalar::Boolean(false),
                GpuDtype::String => Scalar::String(String::new()),
                GpuDtype::Date => Scalar::Date(0),
                GpuDtype::Datetime(_) | GpuDtype::ZonedDatetime(..) => Scalar::Datetime(0),
                GpuDtype::Duration(_) => Scalar::Duration(0),
                GpuDtype::Time => Scalar::Time(0),
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
    ir_lower::any_value_to_scalar(&values.get(row)?)
        .map(Some)
        .map_err(|why| ExecError::Unsupported(format!("a running function's value: {why}")))
}
