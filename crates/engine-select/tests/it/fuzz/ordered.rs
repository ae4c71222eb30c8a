//! The fuzzer's productions of functions that read the rows in order: shifts, fills, gathers, cumulative functions, rolling windows, exponentially weighted functions, diffs, changes in percent, interpolations, places in groups, ranks, runs of equal values, distinctness tests, sorts, `set_sorted`.

use polars::prelude::*;
use rand::RngExt;
use rand::seq::IndexedRandom;

use super::expr::{E, Op};
use super::grammar::{Context, Grammar, Ty};

impl Grammar<'_> {
    /// A function that reads the rows in order (or within each group, in a group-by).
    pub(super) fn ordered_op(&mut self, ty: Ty, d: u32) -> E {
        let n = *[1i64, -1, 2, 0, -3].choose(self.rng).unwrap();
        let reverse = self.chance(0.3);
        match (ty, self.rng.random_range(0..9)) {
            (_, 0) => E::new(Op::Shift(n), vec![self.value(ty, d)]),
            // A literal on every row of its group or frame (`repeat(v, len())`).
            (_, 6) if self.chance(0.15) => {
                let value = self.literal(ty);
                E::new(Op::RepeatLen, vec![value])
            }
            // Each row's place in its group or frame (`int_range(s, len() + s)`).
            (Ty::Int, 6) if self.context == Context::Groups || self.chance(0.5) => E::new(
                Op::IntRange(*[0i64, 1, -2].choose(self.rng).unwrap()),
                vec![],
            ),
            // Rolling windows of rows: sums keep signed integers and floats
            // (booleans summed as u32), means, variances, deviations and
            // quantiles make floats of numbers,
            // minima and maxima keep every type they take.
            (
                Ty::Int
                | Ty::UInt
                | Ty::Float
                | Ty::Bool
                | Ty::Date
                | Ty::Datetime
                | Ty::Duration
                | Ty::Time,
                8,
            ) => {
                let size = *[1usize, 2, 3, 4, 7].choose(self.rng).unwrap();
                let min_periods = self.rng.random_range(0..=size);
                let center = self.chance(0.3);
                let (function, from) = match (ty, self.rng.random_range(0..4)) {
                    (Ty::Int | Ty::Float, 0) => ("sum", ty),
                    // (u8 and u16 sum as i64.)
                    (Ty::UInt, 0) => ("sum", Ty::Bool),
                    // Exponentially weighted means and spreads (of integers as
                    // floats).
                    (Ty::Float, 1) if self.chance(0.25) => {
                        let options = EWMOptions {
                            alpha: *[0.5, 0.1, 0.9, 1.0].choose(self.rng).unwrap(),
                            adjust: self.chance(0.5),
                            bias: self.chance(0.5),
                            min_periods: self.rng.random_range(0..3),
                            ignore_nulls: self.chance(0.5),
                        };
                        let from = *[Ty::Float, Ty::Float, Ty::Int].choose(self.rng).unwrap();
                        let function = *["mean", "var", "std"].choose(self.rng).unwrap();
                        return E::new(Op::Ewm(function, options), vec![self.value(from, d)]);
                    }
                    // Rolling quantiles (of integers as floats).
                    (Ty::Float, 1) if self.chance(0.2) => {
                        let method = *crate::QUANTILE_METHODS.choose(self.rng).unwrap();
                        let q = *[0.0, 0.1, 0.25, 0.5, 0.75, 1.0].choose(self.rng).unwrap();
                        let from = *[Ty::Int, Ty::UInt, Ty::Float, Ty::Float]
                            .choose(self.rng)
                            .unwrap();
                        if self.chance(0.3) {
                            // By times (min_periods 0 now and then).
                            let (by, size, closed) = self.by_times();
                            let op = Op::RollingQuantileBy(method, q, size, min_periods, closed);
                            return E::new(op, vec![self.value(from, d), self.leaf(by)]);
                        }
                        let op = Op::RollingQuantile(method, q, size, min_periods, center);
                        return E::new(op, vec![self.value(from, d)]);
                    }
                    (Ty::Float, 1) => {
                        let from = [Ty::Int, Ty::UInt, Ty::Float, Ty::Bool];
                        let function = ["mean", "var", "std"].choose(self.rng).unwrap();
                        (*function, *from.choose(self.rng).unwrap())
                    }
                    (_, 2) => ("min", ty),
                    _ => ("max", ty),
                };
                if self.chance(0.3) {
                    let (by, size, closed) = self.by_times();
                    return E::new(
                        Op::RollingBy(function, size, min_periods, closed),
                        vec![self.value(from, d), self.leaf(by)],
                    );
                }
                E::new(
                    Op::Rolling(function, size, min_periods, center),
                    vec![self.value(from, d)],
                )
            }
            (_, 1) => {
                // Polars takes one value only: a literal or an aggregation
                // (any other expression now and then, which it rejects).
                let fill = match self.rng.random_range(0..10) {
                    0 => self.value(ty, d),
                    1..=4 => self.scalar(ty, d.saturating_sub(1)),
                    _ => self.literal(ty),
                };
                E::new(Op::ShiftAndFill(n), vec![self.value(ty, d), fill])
            }
            // Filled forward, then backward (the gaps at the start too):
            // running both ways in one node.
            (_, 2) if self.chance(0.15) => {
                let forward = E::new(Op::FillForward(None), vec![self.value(ty, d)]);
                E::new(Op::FillBackward(None), vec![forward])
            }
            (_, 2) => {
                let limit = self.chance(0.3).then(|| self.rng.random_range(0..3));
                let op = if self.chance(0.5) {
                    Op::FillForward(limit)
                } else {
                    Op::FillBackward(limit)
                };
                E::new(op, vec![self.value(ty, d)])
            }
            (_, 3) if self.chance(0.7) => E::new(Op::Reverse, vec![self.value(ty, d)]),
            // Values gathered by indices (of other rows, beyond the frame
            // too: null with null_on_oob, else Polars raises).
            (_, 3) => {
                let index_ty = *[Ty::Int, Ty::UInt].choose(self.rng).unwrap();
                let indices = self.value(index_ty, 1);
                let null_on_oob = self.chance(0.8);
                E::new(Op::Gather(null_on_oob), vec![self.value(ty, d), indices])
            }
            (Ty::Int | Ty::Float | Ty::Decimal, 4) => {
                let op = match self.rng.random_range(0..4) {
                    0 => Op::CumSum(reverse),
                    1 => Op::CumMax(reverse),
                    2 => Op::CumMin(reverse),
                    _ => Op::CumProd(reverse),
                };
                E::new(op, vec![self.value(ty, d)])
            }
            // Nulls interpolated between valid values: linearly (floats of
            // any numbers; temporal values in their integers), or from the
            // nearest (of the input's type).
            (
                Ty::Float | Ty::Int | Ty::UInt | Ty::Date | Ty::Datetime | Ty::Duration | Ty::Time,
                5,
            ) if self.chance(0.2) => {
                let linear = !matches!(ty, Ty::Int | Ty::UInt) && self.chance(0.6);
                let from = match (ty, linear) {
                    (Ty::Float, true) => *[Ty::Int, Ty::UInt, Ty::Float, Ty::Float]
                        .choose(self.rng)
                        .unwrap(),
                    _ => ty,
                };
                let method = match linear {
                    true => InterpolationMethod::Linear,
                    false => InterpolationMethod::Nearest,
                };
                E::new(Op::Interpolate(method), vec![self.value(from, d)])
            }
            // Changes in percent: floats of any numbers.
            (Ty::Float, 5) if self.chance(0.3) => {
                let from = *[Ty::Int, Ty::UInt, Ty::Float].choose(self.rng).unwrap();
                E::new(Op::PctChange(n), vec![self.value(from, d)])
            }
            (Ty::Int | Ty::Float, 5) => E::new(Op::Diff(n), vec![self.value(ty, d)]),
            (Ty::UInt | Ty::Float, 6) => {
                let method = *[
                    RankMethod::Average,
                    RankMethod::Min,
                    RankMethod::Max,
                    RankMethod::Dense,
                    RankMethod::Ordinal,
                ]
                .choose(self.rng)
                .unwrap();
                let from = self.any_ty();
                E::new(
                    Op::Rank(method, self.chance(0.5)),
                    vec![self.value(from, d)],
                )
            }
            (Ty::UInt, 7) => {
                let from = self.any_ty();
                let x = self.value(from, d);
                if self.chance(0.3) {
                    E::new(Op::RleId, vec![x])
                } else if self.chance(0.5) {
                    E::new(Op::CumCount(reverse), vec![x])
                } else {
                    E::new(Op::ArgSort(self.chance(0.5), self.chance(0.5)), vec![x])
                }
            }
            (Ty::Bool, 7) => {
                let op = [Op::IsFirstDistinct, Op::IsLastDistinct]
                    .choose(self.rng)
                    .unwrap()
                    .clone();
                let from = self.any_ty();
                E::new(op, vec![self.value(from, d)])
            }
            // Values claimed sorted: mostly sorted as claimed (the device
            // runs them), now and then not (Polars answers).
            (_, 7) if self.context != Context::Groups && self.chance(0.35) => {
                let (desc, nulls_last) = (self.chance(0.5), self.chance(0.5));
                let mut x = self.value(ty, d);
                if self.chance(0.7) {
                    x = E::new(Op::Sort(desc, nulls_last), vec![x]);
                }
                let claim = match self.rng.random_range(0..4) {
                    0 => Some(!nulls_last),
                    1 | 2 => None,
                    _ => Some(nulls_last),
                };
                let desc = desc != self.chance(0.1);
                E::new(Op::SetSorted(desc, claim), vec![x])
            }
            (_, 7) => {
                let (desc, nulls_last) = (self.chance(0.5), self.chance(0.5));
                if self.chance(0.5) {
                    E::new(Op::Sort(desc, nulls_last), vec![self.value(ty, d)])
                } else {
                    let key_ty = self.any_ty();
                    let key = self.value(key_ty, d);
                    E::new(Op::SortBy(desc, nulls_last), vec![self.value(ty, d), key])
                }
            }
            _ => E::new(Op::Shift(n), vec![self.value(ty, d)]),
        }
    }

    /// Windows by times for the `_by` rolling functions: of timestamps,
    /// dates or integers, in windows of their kind (now and then of
    /// another, which Polars rejects), closed on either side, both or
    /// neither.
    fn by_times(&mut self) -> (Ty, &'static str, ClosedWindow) {
        let by = *[Ty::Datetime, Ty::Date, Ty::Int].choose(self.rng).unwrap();
        let sizes: &[&'static str] = match (by, self.chance(0.05)) {
            (Ty::Int, false) | (_, true) => &["1i", "2i", "5i"],
            (Ty::Date, false) => &["1d", "3d", "1w"],
            _ => &["1h", "3h", "1d", "2d12h", "90m"],
        };
        let size = *sizes.choose(self.rng).unwrap();
        let closed = *[
            ClosedWindow::Right,
            ClosedWindow::Left,
            ClosedWindow::Both,
            ClosedWindow::None,
        ]
        .choose(self.rng)
        .unwrap();
        (by, size, closed)
    }

    /// `x` (of class `ty`) under a function of the rows in order that skips
    /// nulls, of the same class: a running sum, product, extreme or count,
    /// or a fill forward or backward without a limit.
    pub(super) fn running_skipping_nulls(&mut self, ty: Ty, x: E) -> E {
        let reverse = self.chance(0.3);
        let op = match (ty, self.rng.random_range(0..6)) {
            (Ty::Int | Ty::Float | Ty::Decimal, 0) => Op::CumSum(reverse),
            (Ty::Int | Ty::Float | Ty::Decimal, 1) => Op::CumProd(reverse),
            (Ty::Int | Ty::Float | Ty::Decimal, 2) => Op::CumMax(reverse),
            (Ty::Int | Ty::Float | Ty::Decimal, 3) => Op::CumMin(reverse),
            (Ty::UInt, 4) => Op::CumCount(reverse),
            (_, 4) => Op::FillBackward(None),
            _ => Op::FillForward(None),
        };
        E::new(op, vec![x])
    }
}
