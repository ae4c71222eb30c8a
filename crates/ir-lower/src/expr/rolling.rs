//! The rolling functions (`rolling_*`, `ewm_*`) and their windows: of rows, or of times.

use super::GpuExpr;

/// The most rows a rolling quantile's window may hold on the device: one
/// thread ranks each value of a row's window against the others, a time
/// growing with the window's square, where Polars' sorted window takes a
/// logarithm. Windows of a count of rows are refused past it; windows by
/// times or of groups, found at run time, leave the query to Polars.
pub const MOST_RANKED: usize = 512;

/// What Polars' `rolling_*` functions (and its rolling group-bys' windows)
/// compute over each row's window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RollingFunction {
    Sum,
    Mean,
    Min,
    Max,
    /// The value of the window's first row (null included; null for an
    /// empty window): a rolling group-by's `first`.
    First,
    /// The value of the window's last row: a rolling group-by's `last`.
    Last,
    /// The variance with `ddof` degrees of freedom taken away.
    Var {
        ddof: u8,
    },
    /// The standard deviation: the variance's square root, in its type.
    Std {
        ddof: u8,
    },
    /// The quantile of the window's valid values (`rolling_quantile`;
    /// `rolling_median` is 0.5, linear), as Polars' rolling quantile places
    /// and interpolates it, in the values' type.
    Quantile {
        /// The probability, in [0, 1].
        quantile: f64,
        /// Polars' method name: nearest, lower, higher, midpoint, linear, equiprobable.
        method: &'static str,
    },
}

/// The windows of Polars' `rolling_*` functions.
#[derive(Debug, Clone, PartialEq)]
pub enum RollingWindow {
    /// By a count of rows (`rolling_*`): the `size` rows ending at each row
    /// (or, `center`, around it, more after than before when `size` is
    /// even), cut at the ends of the frame (or of the group); a result
    /// where the window holds at least `min_periods` valid values.
    Rows {
        size: u64,
        min_periods: u64,
        center: bool,
    },
    /// By times (`rolling_*_by`, rolling group-bys): the rows taken in
    /// order of their time (`by`, i64 ticks; stably), each row's window
    /// the rows whose time lies in `(t + offset, t + offset + period]` for
    /// its own time `t` (closed on the sides `closed` says; `rolling_*_by`
    /// look back: `offset` is `-period`); a result where the window holds
    /// at least `min_periods` rows, and as many valid values. A row of a
    /// null time is in no window, and null.
    Times {
        by: Box<GpuExpr>,
        period: i64,
        offset: i64,
        min_periods: u64,
        closed: Closed,
    },
    /// Polars' overlapping groups of a `group_by_dynamic` (its windows of a
    /// period longer than `every`), which it aggregates by its rolling
    /// kernels: each row's window is its group, and the groups are windows
    /// of the rows in one walk, group after group, as Polars walks them
    /// (a window's values leaving and entering, so float sums and moments
    /// are its to the bit). `place` numbers the rows the windows slice
    /// (the frame's rows repeat them, each a run of rows of one place, the
    /// places increasing down the frame); a group's rows are its window's.
    /// Of fewer than two groups Polars aggregates them as any group: the
    /// executor leaves one such group to Polars.
    Slices { place: Box<GpuExpr> },
}

/// What Polars' exponentially weighted functions compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EwmFunction {
    Mean,
    Var,
    Std,
}

/// Polars' `ewm_*` options: the smoothing factor, whether weights are
/// adjusted for the start, whether variances stay biased, the least count
/// of values for a result (at least 1), and whether nulls leave the
/// weights alone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EwmOptions {
    pub alpha: f64,
    pub adjust: bool,
    pub bias: bool,
    pub min_periods: u64,
    pub ignore_nulls: bool,
}

/// Which bounds of a range belong to it (`is_between`'s, a time window's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closed {
    Both,
    Left,
    Right,
    None,
}
