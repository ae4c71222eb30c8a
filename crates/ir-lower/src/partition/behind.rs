//! Nodes that read a bounded number of rows before each of their own (`shift`, `diff`, rolling windows of rows): each partition behind the last rows of the input before it.
//!
//! `x.shift(2)`, `x.diff()`, `x.pct_change()`, `x.rolling_max(5)` and
//! `x.fill_null(strategy="forward", limit=3)` give each row a value of
//! that row and of a fixed number of rows before it, `h`, alone. A filter,
//! select or with_columns of such expressions (and row-wise ones) then runs
//! over each partition with the last `h` rows of the input before it put
//! in front: every row of the partition sees the rows it would see over the
//! whole input, and the rows put in front are dropped from the result (a
//! filter's by a column flagging them, a select's and with_columns' by
//! their count). Functions whose value is not one of the window's rows
//! alone, where Polars' walk carries state from the frame's start (a float
//! rolling sum's compensation, a mean's and a variance's moments), or that
//! read rows after their own, or all rows before them (`cum_sum`, a fill
//! without a limit), read more than a bounded number of rows.

use crate::dtype::GpuDtype;
use crate::expr::{ExprKind, GpuExpr, RollingFunction, RollingWindow};
use crate::plan::PlanNode;

use super::reads_other_rows_itself;

/// The name of the column flagging, in a filter's partition, the rows put
/// in front of it (true), which the filter drops.
pub const ROWS_IN_FRONT: &str = "__polars_gpu_rows_in_front";

impl PlanNode {
    /// How many rows before each of its own a filter, a select of a value
    /// per row or a with_columns that fills every row reads, at most,
    /// where that is bounded and more than none (see the module's
    /// comment); `None` for other nodes.
    pub fn rows_behind(&self) -> Option<u64> {
        let mut most = 0;
        for expr in self.expressions_per_row()? {
            most = most.max(expr.rows_behind()?);
        }
        (most > 0).then_some(most)
    }
}

impl GpuExpr {
    /// How many rows before its own each row's value reads, at most: 0 for
    /// a row-wise expression, `None` where that is not bounded (see the
    /// module's comment).
    pub fn rows_behind(&self) -> Option<u64> {
        let own = match &self.kind {
            ExprKind::Shift { input, periods } if *periods >= 0 && input.reads_a_column() => {
                periods.unsigned_abs()
            }
            ExprKind::Fill {
                input,
                forward: true,
                limit: Some(limit),
            } if input.reads_a_column() => *limit,
            ExprKind::Rolling {
                input,
                function,
                window:
                    RollingWindow::Rows {
                        size,
                        center: false,
                        ..
                    },
            } if input.reads_a_column() && walks_no_state(function, &self.dtype) => {
                size.saturating_sub(1)
            }
            _ if reads_other_rows_itself(self) => return None,
            _ => 0,
        };
        let mut most = 0u64;
        for child in self.children() {
            most = most.max(child.rows_behind()?);
        }
        own.checked_add(most)
    }
}

/// Whether a rolling `function` of a result of `dtype` gives each window's
/// value from the window's rows alone: minima, maxima, quantiles, its
/// first and last rows, and sums of integers (wrapping, so exact in any
/// order); not float sums, means and spreads, which Polars' walk from
/// window to window computes with state carried from the frame's start.
fn walks_no_state(function: &RollingFunction, dtype: &GpuDtype) -> bool {
    match function {
        RollingFunction::Min
        | RollingFunction::Max
        | RollingFunction::First
        | RollingFunction::Last
        | RollingFunction::Quantile { .. } => true,
        RollingFunction::Sum => dtype.is_integer(),
        RollingFunction::Mean | RollingFunction::Var { .. } | RollingFunction::Std { .. } => false,
    }
}
