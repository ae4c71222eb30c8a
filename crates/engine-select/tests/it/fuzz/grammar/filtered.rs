//! The fuzzer's expressions that keep or pick rows: values through a filter, a slice or a gather inside an aggregation, and selects of expressions that keep the same rows.

use super::*;

impl Grammar<'_> {
    /// Values of class `ty`, sometimes through a filter or a slice (as an
    /// aggregation or a list per group reads them).
    pub(super) fn maybe_filtered(&mut self, ty: Ty, d: u32) -> E {
        let x = self.value(ty, d);
        // A filter, or a slice, inside the aggregation.
        match self.rng.random_range(0..12) {
            0 => {
                let p = self.value(Ty::Bool, d.saturating_sub(1));
                let filtered = E::new(Op::Filter, vec![x, p]);
                // Now and then under an elementwise function of numbers,
                // beside a literal (`(x.filter(p) * 2)`) or an aggregation
                // of rows of its own (`x.filter(p) - x.filter(q).max()`).
                if ty.numeric() && self.chance(0.3) {
                    let op = self.arithmetic();
                    let other = match self.chance(0.7) {
                        true => self.literal(ty),
                        false => self.scalar(ty, d.saturating_sub(1)),
                    };
                    return E::new(op, vec![filtered, other]);
                }
                filtered
            }
            1 if self.ordered => {
                let n = self.rng.random_range(0..4);
                let op = match self.rng.random_range(0..3) {
                    0 => Op::Head(n),
                    1 => Op::Tail(n),
                    _ => Op::Slice(self.rng.random_range(-2..3), n),
                };
                E::new(op, vec![x])
            }
            2 if self.ordered && self.chance(0.3) => {
                // A running function that skips nulls, or another function
                // of the rows in order, over the rows kept.
                let p = self.value(Ty::Bool, d.saturating_sub(1));
                let filtered = match self.rng.random_range(0..3) {
                    0 => E::new(Op::DropNulls, vec![x]),
                    1 => E::new(Op::Head(self.rng.random_range(0..4)), vec![x]),
                    _ => E::new(Op::Filter, vec![x, p]),
                };
                match self.chance(0.5) {
                    true => self.running_skipping_nulls(ty, filtered),
                    false => self.in_order_of_kept(ty, filtered),
                }
            }
            2 => E::new(Op::DropNulls, vec![x]),
            // The places where each value of another first comes.
            3 if ty == Ty::UInt && self.ordered && self.chance(0.3) => {
                let of = *[Ty::Int, Ty::Str, Ty::Bool, Ty::Date, Ty::Cat]
                    .choose(self.rng)
                    .unwrap();
                E::new(Op::ArgUnique, vec![self.value(of, d)])
            }
            // The places where a condition holds.
            3 if ty == Ty::UInt && self.chance(0.3) => {
                E::new(Op::ArgWhere, vec![self.value(Ty::Bool, d)])
            }
            3 if ty == Ty::Float => E::new(Op::DropNans, vec![x]),
            4 if self.ordered => {
                let (n, offset) = (self.rng.random_range(1..4), self.rng.random_range(0..3));
                E::new(Op::GatherEvery(n, offset), vec![x])
            }
            // Gathered by another value's `arg_sort` (a stable sort by it),
            // now and then sliced.
            5 if self.ordered => {
                let key_ty = self.any_ty();
                let key = self.value(key_ty, d.saturating_sub(1));
                let arg_sort = Op::ArgSort(self.chance(0.5), self.chance(0.5));
                let mut order = E::new(arg_sort, vec![key]);
                if self.chance(0.6) {
                    order = E::new(Op::Head(self.rng.random_range(0..4)), vec![order]);
                }
                E::new(Op::Gather(true), vec![x, order])
            }
            _ => x,
        }
    }

    /// Expressions of a select that keep the same rows (now and then rows of
    /// their own: heads, tails, a filter): one filter or slice
    /// at their root, under an elementwise function beside a literal, or
    /// under a running function that skips nulls or another function of
    /// the rows in order (`shift`, `diff`, `reverse`), or gathers at the same
    /// literal places; now and then an aggregation, repeated on each row
    /// kept.
    pub fn filtered_alike(&mut self, depth: u32) -> Vec<E> {
        let p = self.value(Ty::Bool, depth.saturating_sub(1));
        let (n, offset) = (self.rng.random_range(0..5), self.rng.random_range(-3..3));
        let sliced = self.ordered && self.chance(0.3);
        let mixed = self.ordered && self.chance(0.2);
        let places = (self.ordered && self.chance(0.3)).then(|| self.places());
        let count = self.rng.random_range(1..4);
        let mut es: Vec<E> = (0..count)
            .map(|_| {
                let ty = self.any_ty();
                let x = self.value(ty, depth);
                if let Some(places) = &places {
                    // Gathers at the same literal places.
                    let null_on_oob = self.chance(0.5);
                    return E::new(self.gather_at(places.clone(), null_on_oob), vec![x]);
                }
                // Now and then each its own rows: a head or a tail of as
                // many, or the filter (lengths Polars compares).
                let own = match mixed {
                    true => self.rng.random_range(0..4),
                    false => 3,
                };
                let kept = match (own, sliced) {
                    (0, _) => E::new(Op::Head(n), vec![x]),
                    (1, _) => E::new(Op::Tail(n), vec![x]),
                    (2, _) | (_, false) => E::new(Op::Filter, vec![x, p.clone()]),
                    (_, true) => E::new(Op::Slice(offset, n), vec![x]),
                };
                match self.rng.random_range(0..5) {
                    0 if ty.numeric() => {
                        let op = self.arithmetic();
                        let other = match self.chance(0.7) {
                            true => self.literal(ty),
                            false => self.scalar(ty, depth.saturating_sub(1)),
                        };
                        E::new(op, vec![kept, other])
                    }
                    1 if self.ordered => self.running_skipping_nulls(ty, kept),
                    2 if self.ordered => self.in_order_of_kept(ty, kept),
                    _ => kept,
                }
            })
            .collect();
        if self.chance(0.3) {
            let ty = self.any_ty();
            es.push(self.scalar(ty, depth));
        }
        es
    }

    /// A function of the rows `kept` (of `ty`) in their order: a shift, a
    /// difference (of numbers), a reversal.
    fn in_order_of_kept(&mut self, ty: Ty, kept: E) -> E {
        let n = *[1i64, -1, 2].choose(self.rng).unwrap();
        let op = match (ty, self.rng.random_range(0..3)) {
            (Ty::Int | Ty::Float, 0) => Op::Diff(n),
            (_, 1) => Op::Reverse,
            _ => Op::Shift(n),
        };
        E::new(op, vec![kept])
    }

    /// Literal places for `gather`: one to four, from either end, some
    /// past the small frames' ends.
    pub(super) fn places(&mut self) -> Vec<i64> {
        let n = self.rng.random_range(1..5);
        (0..n).map(|_| self.rng.random_range(-4..6)).collect()
    }

    /// A gather at `places`: of one place, now and then that place alone
    /// (`gather(0)`, which Polars takes as a list of one).
    pub(super) fn gather_at(&mut self, places: Vec<i64>, null_on_oob: bool) -> Op {
        match places[..] {
            [place] if self.chance(0.5) => Op::GatherOne(place, null_on_oob),
            _ => Op::GatherAt(places, null_on_oob),
        }
    }
}
