//! The fuzzer's functions of a bounded number of rows around each row (shifts either way, diffs, changes in percent, rolling extremes and integer sums of rows, centred too, fills with a limit) and running functions (`cum_sum`, `cum_prod`, `cum_max`, `cum_min`, `cum_count`, forward fills without a limit, and all of them from the last row, backward fills), nested and beside row-wise ones and windows.

use super::*;

impl Grammar<'_> {
    /// Two or three expressions each reading a few rows around its own
    /// (`shift` by -2 to 3, `diff`, `pct_change`, rolling minima, maxima
    /// and integer sums of windows of rows, centred now and then, fills
    /// with a limit, one inside another now and then) or running from the
    /// first row (`cum_sum`, ...), of columns drawn, now and then in a
    /// row-wise expression: a node of only such expressions runs over
    /// partitions between the last rows of the partitions before and the
    /// first of those after, its running functions going on from the
    /// values those before ended with.
    /// Now and then a window by keys of its own beside them (the
    /// partitioned executor computes it first, in a step of its own).
    /// Now and then running functions from the last row alone
    /// (`reverse=True`, backward fills without a limit): the partitions
    /// then run from the last to the first.
    pub fn rows_around(&mut self) -> Vec<E> {
        let n = self.rng.random_range(2..4);
        let backward = self.chance(0.25);
        let mut exprs: Vec<E> = (0..n).map(|_| self.around_expr(backward)).collect();
        if self.chance(0.25) {
            let window = self.windows_by_own_keys(1).swap_remove(0);
            exprs.insert(1, window);
        }
        exprs
    }

    /// A filter's predicate of [`Grammar::rows_around`]: whether a first
    /// such expression is null, or a second one holds where it is a
    /// boolean, or is valid.
    pub fn predicate_around(&mut self) -> E {
        let mut exprs = self.rows_around().into_iter();
        let (first, second) = (exprs.next().unwrap(), exprs.next().unwrap());
        let first = E::new(Op::IsNull, vec![first]);
        let second = E::new(Op::IsNotNull, vec![second]);
        match self.rng.random_range(0..3) {
            0 => E::new(Op::Or, vec![first, second]),
            1 => E::new(Op::And, vec![E::new(Op::Not, vec![first]), second]),
            _ => second,
        }
    }

    /// One expression reading a bounded number of rows around its own (or,
    /// `backward`, a running function from the last row).
    fn around_expr(&mut self, backward: bool) -> E {
        let ty = *[
            Ty::Int,
            Ty::Int,
            Ty::Float,
            Ty::UInt,
            Ty::Bool,
            Ty::Date,
            Ty::Str,
        ]
        .choose(self.rng)
        .unwrap();
        let column = match self.column_named(ty) {
            Some(name) => E::col(&name),
            None => self.leaf(ty),
        };
        let size = self.rng.random_range(1..5);
        let min_periods = self.rng.random_range(0..=size);
        let e = match (ty, self.rng.random_range(0..7)) {
            (Ty::Int | Ty::UInt | Ty::Float | Ty::Bool, _) if backward && self.chance(0.7) => {
                let op = match (ty, self.rng.random_range(0..5)) {
                    (Ty::Int | Ty::Float, 1) => Op::CumProd(true),
                    (Ty::Int | Ty::UInt | Ty::Float, 2) => Op::CumMax(true),
                    (Ty::Int | Ty::UInt | Ty::Float, 3) => Op::CumMin(true),
                    (_, 4) => Op::CumCount(true),
                    _ => Op::CumSum(true),
                };
                E::new(op, vec![column])
            }
            _ if backward => E::new(Op::FillBackward(None), vec![column]),
            (Ty::Int | Ty::Float | Ty::Date, 1) => {
                E::new(Op::Diff(self.rng.random_range(-1..3)), vec![column])
            }
            (Ty::Int | Ty::Float, 2) => E::new(Op::PctChange(1), vec![column]),
            (Ty::Int | Ty::UInt | Ty::Float | Ty::Bool | Ty::Date, 3) => {
                let function = *["min", "max"].choose(self.rng).unwrap();
                E::new(
                    Op::Rolling(function, size, min_periods, false),
                    vec![column],
                )
            }
            (Ty::Int, 4) => E::new(Op::Rolling("sum", size, min_periods, false), vec![column]),
            (Ty::Int | Ty::UInt | Ty::Float | Ty::Bool, 4 | 6) if self.chance(0.6) => {
                let op = match (ty, self.rng.random_range(0..5)) {
                    (Ty::Int | Ty::Float, 1) => Op::CumProd(false),
                    (Ty::Int | Ty::UInt | Ty::Float, 2) => Op::CumMax(false),
                    (Ty::Int | Ty::UInt | Ty::Float, 3) => Op::CumMin(false),
                    (_, 4) => Op::CumCount(false),
                    _ => Op::CumSum(false),
                };
                E::new(op, vec![column])
            }
            (_, 5) => {
                let limit = self.rng.random_range(0..3);
                let shifted = E::new(Op::Shift(1), vec![column.clone()]);
                match self.rng.random_range(0..3) {
                    0 => E::new(Op::FillForward(Some(limit)), vec![shifted]),
                    1 => E::new(Op::FillBackward(Some(limit)), vec![shifted]),
                    // A running fill: the last valid value carried on.
                    _ => E::new(Op::FillForward(None), vec![column]),
                }
            }
            _ => E::new(Op::Shift(self.rng.random_range(-2..4)), vec![column]),
        };
        // Now and then shifted again (the look-backs add up), or beside
        // the column in a row-wise expression.
        match self.rng.random_range(0..6) {
            0 => E::new(Op::Shift(self.rng.random_range(1..3)), vec![e]),
            1 if ty == Ty::Int => {
                let other = self.value(Ty::Int, 1);
                E::new(Op::Add, vec![e, other])
            }
            _ => e,
        }
    }
}
