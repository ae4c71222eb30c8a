//! Nodes that read a bounded number of rows around each of their own (`shift`, `diff`, rolling windows of rows, fills with a limit) or run from the first row (`cum_sum`, `cum_max`) or the last: each partition between the last rows of the input before it and the first rows after it, running on from the values the partitions before (or after) ended with.
//!
//! `x.shift(2)`, `x.diff()`, `x.pct_change()`, `x.rolling_max(5)` and
//! `x.fill_null(strategy="forward", limit=3)` give each row a value of
//! that row and of a fixed number of rows before it, `behind`, alone;
//! `x.shift(-1)`, a backward fill with a limit and a centred rolling window
//! read a fixed number of rows after it, `ahead`. A filter, select or
//! with_columns of such expressions (and row-wise ones) then runs over
//! each partition with the last `behind` rows of the input before it put
//! in front and the first `ahead` rows after it put behind: every row of
//! the partition sees the rows it would see over the whole input, and the
//! rows put around it are dropped from the result (a filter's by a column
//! flagging them, a select's and with_columns' by their count). Functions
//! whose value is not one of the window's rows alone, where Polars' walk
//! carries state from the frame's start (a float rolling sum's
//! compensation, a mean's and a variance's moments), or that read every
//! row (`rank`), read more than a bounded number of rows.
//!
//! Running functions (`cum_sum`, `cum_prod`, `cum_max`, `cum_min`, from
//! the first row; `cum_count`, a `cum_sum` of validity; a forward fill
//! without a limit) carry one value from partition to partition: the one
//! they had reached where the partition starts (with the rows put in
//! front, where it starts there). Each partition's run folds it into the
//! first valid value of the function's input (`carry + x`, `carry * x`,
//! the larger of both; a fill's carry fills its first row where null), so
//! that the function goes on from it in the order Polars' walk takes (a
//! float sum bit for bit), and gives the function's values as a column of
//! their own, whose last valid value before the next partition's start is
//! the next carry ([`PlanNode::carried`]). In a select or a with_columns
//! (a filter drops the rows whose values the next carry needs: it runs
//! its predicate first, as a with_columns, in steps), of an
//! input that reads no row before its own (`x.shift(1).cum_sum()` would
//! run over the rows put in front without the rows before them; a running
//! function inside a function of rows before, `x.cum_sum().shift(1)`,
//! runs, as the carry is its value where the rows put in front start).
//!
//! Running functions from the last row (`cum_sum`, `cum_prod`, `cum_max`
//! and `cum_min` with `reverse`, a backward fill without a limit) are each
//! the reverse of its function from the first row over the reversed rows:
//! a select or with_columns reading other rows only through such, written
//! so ([`PlanNode::running_from_the_end`]), runs its partitions from the
//! last to the first, each carrying on from the partitions after it.

use crate::dtype::GpuDtype;
use crate::expr::{
    BinaryOp, CastMode, ExprKind, FloatCheck, GpuExpr, NamedExpr, RollingFunction, RollingWindow,
    Scalar,
};
use crate::plan::PlanNode;

use super::reads_other_rows_itself;

/// The name of the column flagging, in a filter's partition, the rows put
/// around it (true), which the filter drops.
pub const ROWS_AROUND: &str = "__polars_gpu_rows_around";

/// The start of the names of the columns of running functions' values
/// ([`PlanNode::carried`]; the function's place among the node's follows).
pub const RUNNING: &str = "__polars_gpu_running_";

/// How many rows before and after each of its own an expression or a node
/// reads, at most (see the module's comment).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RowsAround {
    pub behind: u64,
    pub ahead: u64,
}

impl RowsAround {
    /// Both bounds at least as far as `other`'s.
    fn widest(self, other: RowsAround) -> RowsAround {
        RowsAround {
            behind: self.behind.max(other.behind),
            ahead: self.ahead.max(other.ahead),
        }
    }

    /// Both bounds added up (a function of rows around others' values),
    /// `None` past the largest u64.
    fn plus(self, other: RowsAround) -> Option<RowsAround> {
        Some(RowsAround {
            behind: self.behind.checked_add(other.behind)?,
            ahead: self.ahead.checked_add(other.ahead)?,
        })
    }
}

impl PlanNode {
    /// How many rows around each of its own a filter, a select of a value
    /// per row or a with_columns that fills every row reads, at most,
    /// where that is bounded and more than none, or it holds running
    /// functions (then it may be none; a filter holds none): see the
    /// module's comment. `None` for other nodes.
    pub fn rows_around(&self) -> Option<RowsAround> {
        let exprs = self.expressions_per_row()?;
        let mut most = RowsAround::default();
        for expr in &exprs {
            most = most.widest(expr.rows_around()?);
        }
        let running = self.running_functions();
        let filter = matches!(self, PlanNode::Filter { .. });
        let reads_around = most != RowsAround::default();
        match (reads_around || running > 0) && !(filter && running > 0) {
            true => Some(most),
            false => None,
        }
    }

    /// How many running functions this node's expressions hold (see the
    /// module's comment).
    pub fn running_functions(&self) -> usize {
        self.expressions_per_row()
            .map_or(0, |exprs| exprs.into_iter().map(running_count).sum())
    }

    /// This select or with_columns with each running function (in the
    /// order [`PlanNode::running_functions`] counts them) going on from its
    /// carried value (`carries`, `None` from the start: the first
    /// partition, or no valid value yet), and a column of each one's
    /// values after its own, named [`RUNNING`] and its place; `None` for
    /// other nodes.
    pub fn carried(&self, carries: &[Option<Scalar>]) -> Option<PlanNode> {
        let mut node = self.clone();
        let (exprs, schema) = match &mut node {
            PlanNode::Select { exprs, schema, .. }
            | PlanNode::WithColumns { exprs, schema, .. } => (exprs, schema),
            _ => return None,
        };
        let mut values = Vec::with_capacity(carries.len());
        for named in exprs.iter_mut() {
            each_running(&mut named.expr, &mut |running| {
                if let Some(Some(carry)) = carries.get(values.len()) {
                    carry_into(running, carry.clone());
                }
                values.push(running.clone());
            });
        }
        for (i, expr) in values.into_iter().enumerate() {
            let named = NamedExpr {
                name: format!("{RUNNING}{i}"),
                expr,
            };
            schema.push(named.output_column());
            exprs.push(named);
        }
        Some(node)
    }
}

impl PlanNode {
    /// This select or with_columns (filling every row) whose expressions
    /// read other rows only through running functions from the last row
    /// (`cum_sum`, `cum_prod`, `cum_max` or `cum_min` with `reverse`, a
    /// backward fill without a limit) of row-wise inputs reading a column,
    /// with each written as the reverse of its function from the first row
    /// over the reversed input, which [`PlanNode::carried`] carries: the
    /// partitions then run from the last to the first, each running on from
    /// the value the partitions after it reached (see the module's
    /// comment). `None` for other nodes.
    pub fn running_from_the_end(&self) -> Option<PlanNode> {
        if !matches!(self, PlanNode::Select { .. } | PlanNode::WithColumns { .. }) {
            return None;
        }
        self.expressions_per_row()?;
        let mut node = self.clone();
        let exprs = match &mut node {
            PlanNode::Select { exprs, .. } | PlanNode::WithColumns { exprs, .. } => exprs,
            _ => return None,
        };
        let mut from_the_end = 0;
        for named in exprs.iter_mut() {
            if !turned_around(&mut named.expr, &mut from_the_end) {
                return None;
            }
        }
        // (Each of them, and no other, a running function the partitions
        // carry: of the types those take.)
        (from_the_end > 0 && node.running_functions() == from_the_end).then_some(node)
    }
}

/// Whether `expr` reads other rows only through running functions from the
/// last row of row-wise inputs reading a column; each such function
/// written as the reverse of its function from the first row over the
/// reversed input (counted in `count`).
fn turned_around(expr: &mut GpuExpr, count: &mut usize) -> bool {
    let dtype = expr.dtype;
    let reversed = |e: GpuExpr| GpuExpr {
        dtype: e.dtype,
        kind: ExprKind::Reverse(Box::new(e)),
    };
    let per_row = |input: &GpuExpr| input.is_row_wise() && input.reads_a_column();
    // (Floats' sums and products, and products of integers, are lowered
    // as such reverses already: of Polars' own order.)
    if let ExprKind::Reverse(outer) = &expr.kind
        && let ExprKind::CumSum(running) | ExprKind::CumProd(running) = &outer.kind
        && let ExprKind::Reverse(input) = &running.kind
    {
        *count += 1;
        return per_row(input);
    }
    let forward = match &expr.kind {
        ExprKind::CumExtreme {
            input,
            minimum,
            reverse: true,
        } if per_row(input) => ExprKind::CumExtreme {
            input: Box::new(reversed(input.as_ref().clone())),
            minimum: *minimum,
            reverse: false,
        },
        ExprKind::Fill {
            input,
            forward: false,
            limit: None,
        } if per_row(input) => ExprKind::Fill {
            input: Box::new(reversed(input.as_ref().clone())),
            forward: true,
            limit: None,
        },
        _ if reads_other_rows_itself(expr) => return false,
        _ => {
            return expr
                .children_mut()
                .into_iter()
                .all(|child| turned_around(child, count));
        }
    };
    *count += 1;
    *expr = reversed(GpuExpr {
        kind: forward,
        dtype,
    });
    true
}

impl GpuExpr {
    /// How many rows before and after its own each row's value reads, at
    /// most: none for a row-wise expression, `None` where that is not
    /// bounded (see the module's comment).
    pub fn rows_around(&self) -> Option<RowsAround> {
        let own = match self.own_rows_around() {
            Some(own) => own,
            None if reads_other_rows_itself(self) => return None,
            None => RowsAround::default(),
        };
        let mut most = RowsAround::default();
        for child in self.children() {
            most = most.widest(child.rows_around()?);
        }
        // (A running function's values on the rows put in front must be
        // right for the functions of rows before above it: its input may
        // read no row before its own, which those rows lack.)
        if self.is_running() && most.behind > 0 {
            return None;
        }
        own.plus(most)
    }

    /// How many rows around its own this expression itself (not its parts)
    /// reads, where it is a function of a bounded number of rows around
    /// each row or a running function (then none; see the module's
    /// comment); `None` for other expressions.
    pub(super) fn own_rows_around(&self) -> Option<RowsAround> {
        let (behind, ahead) = match &self.kind {
            ExprKind::Shift { input, periods } if input.reads_a_column() => match *periods >= 0 {
                true => (periods.unsigned_abs(), 0),
                false => (0, periods.unsigned_abs()),
            },
            ExprKind::Fill {
                input,
                forward,
                limit: Some(limit),
            } if input.reads_a_column() => match forward {
                true => (*limit, 0),
                false => (0, *limit),
            },
            ExprKind::Rolling {
                input,
                function,
                window: RollingWindow::Rows { size, center, .. },
            } if input.reads_a_column() && walks_no_state(function, &self.dtype) => {
                match center {
                    // (Centred: more rows after than before where the
                    // size is even; half of it either way bounds both.)
                    true => (size / 2, size / 2),
                    false => (size.saturating_sub(1), 0),
                }
            }
            _ if self.is_running() => (0, 0),
            _ => return None,
        };
        Some(RowsAround { behind, ahead })
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

impl GpuExpr {
    /// Whether this is a running function that partitions carry a value
    /// of (see the module's comment): a `cum_sum` of numbers (or booleans,
    /// counted) or a `cum_prod` of i64, u64 or floats, from the first row,
    /// a `cum_max` or `cum_min` of integers or floats from the first row,
    /// or a forward fill without a limit (of numbers, booleans, texts or
    /// temporal values), of an input reading a column.
    pub(super) fn is_running(&self) -> bool {
        let numbers = (self.dtype.is_integer() || self.dtype.is_float())
            && self.dtype.decimal_scale().is_none();
        match &self.kind {
            ExprKind::CumSum(input) | ExprKind::CumProd(input) => numbers && input.reads_a_column(),
            ExprKind::CumExtreme {
                input,
                reverse: false,
                ..
            } => numbers && input.reads_a_column(),
            ExprKind::Fill {
                input,
                forward: true,
                limit: None,
            } => {
                let plain = self.dtype.is_temporal()
                    || matches!(self.dtype, GpuDtype::Boolean | GpuDtype::String);
                (numbers || plain) && input.reads_a_column()
            }
            _ => false,
        }
    }
}

/// The running functions in `expr` (see [`GpuExpr::is_running`]).
fn running_count(expr: &GpuExpr) -> usize {
    let mut count = 0;
    expr.visit(&mut |e| count += usize::from(e.is_running()));
    count
}

/// `f` of each running function in `expr`, the ones inside it first.
fn each_running(expr: &mut GpuExpr, f: &mut impl FnMut(&mut GpuExpr)) {
    for child in expr.children_mut() {
        each_running(child, f);
    }
    if expr.is_running() {
        f(expr);
    }
}

/// The running function `running` going on from `carry`: `carry` folded
/// into the first valid value of its input, as its walk would have folded
/// it there after the rows before (the sum's or product's first step, the
/// larger or smaller of both, the earlier on a tie, a NaN never over a
/// number; a carried NaN of a float extreme is as none: the first number
/// replaces it).
fn carry_into(running: &mut GpuExpr, carry: Scalar) {
    let dtype = running.dtype;
    if let ExprKind::Fill { input, .. } = &mut running.kind {
        // A forward fill: the carry in the first row where it is null.
        let value = std::mem::replace(input.as_mut(), GpuExpr::literal(Scalar::Null, dtype));
        let every_row = value.clone().is_null().binary(
            BinaryOp::Or,
            value.clone().is_not_null(),
            GpuDtype::Boolean,
        );
        let null_first =
            first_of(every_row).binary(BinaryOp::And, value.clone().is_null(), GpuDtype::Boolean);
        **input = null_first.then(GpuExpr::literal(carry, dtype), value, dtype);
        return;
    }
    let (input, op) = match &mut running.kind {
        ExprKind::CumSum(input) => (input, BinaryOp::Plus),
        ExprKind::CumProd(input) => (input, BinaryOp::Multiply),
        ExprKind::CumExtreme { input, minimum, .. } => {
            (input, if *minimum { BinaryOp::Lt } else { BinaryOp::Gt })
        }
        _ => return,
    };
    if matches!(carry, Scalar::Float(f) if f.is_nan()) && matches!(op, BinaryOp::Lt | BinaryOp::Gt)
    {
        return;
    }
    let value = std::mem::replace(input.as_mut(), GpuExpr::literal(Scalar::Null, dtype))
        .cast(dtype, CastMode::NonStrict);
    let carry = GpuExpr::literal(carry, dtype);
    let folded = match op {
        BinaryOp::Lt | BinaryOp::Gt => {
            let mut beats = value.clone().binary(op, carry.clone(), GpuDtype::Boolean);
            if dtype.is_float() {
                // (NaN, the largest in Polars' order, never replaces a
                // number reached.)
                let number = GpuExpr {
                    kind: ExprKind::FloatCheck {
                        check: FloatCheck::IsNotNan,
                        input: Box::new(value.clone()),
                    },
                    dtype: GpuDtype::Boolean,
                };
                beats = beats.binary(BinaryOp::And, number, GpuDtype::Boolean);
            }
            beats.then(value.clone(), carry, dtype)
        }
        _ => carry.binary(op, value.clone(), dtype),
    };
    // The first valid value.
    let first = first_of(value.clone().is_not_null());
    **input = first.then(folded, value, dtype);
}

/// Whether each row is the first where `test` (a boolean reading a
/// column) holds: it holds, and counted from the first row it holds once.
fn first_of(test: GpuExpr) -> GpuExpr {
    let counted = GpuExpr {
        kind: ExprKind::CumSum(Box::new(
            test.clone().cast(GpuDtype::UInt32, CastMode::NonStrict),
        )),
        dtype: GpuDtype::UInt32,
    };
    test.binary(
        BinaryOp::And,
        counted.binary(
            BinaryOp::Eq,
            GpuExpr::literal(Scalar::UInt(1), GpuDtype::UInt32),
            GpuDtype::Boolean,
        ),
        GpuDtype::Boolean,
    )
}
