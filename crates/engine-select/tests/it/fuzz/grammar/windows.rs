//! The fuzzer's windows: aggregations and order-reading functions within partitions, ordered ones, windows inside windows, and selects of windows mapped by explode.

use super::*;

impl Grammar<'_> {
    /// A window: an aggregation or an order-reading function within partitions.
    /// Now and then the first or the largest value of another window
    /// inside it, which Polars computes within each of its
    /// partitions.
    pub(super) fn window(&mut self, ty: Ty, d: u32) -> E {
        // (The first of another window's values only where the rows are in
        // an order the query defines: fuzz seed 6640 case 36, after a join
        // that keeps no order.)
        let numbers = matches!(ty, Ty::Int | Ty::Float);
        if self.chance(0.08) && (self.ordered || numbers) {
            let inner = self.window(ty, d.saturating_sub(1));
            let agg = match ty {
                _ if numbers && (!self.ordered || self.chance(0.5)) => Agg::Max,
                _ => Agg::First,
            };
            let mut args = vec![E::new(Op::Agg(agg), vec![inner])];
            args.extend(self.keys(2));
            return E::new(Op::Over, args);
        }
        let saved = self.context;
        self.context = Context::Groups;
        let f = self.window_body(ty, |g| g.window_function(ty, d));
        self.context = saved;
        let mut args = vec![f];
        args.extend(self.keys(2));
        E::new(Op::Over, args)
    }

    /// Two or three windows, each by one or two columns of its own (of
    /// types drawn): in one node they often share no key, which the
    /// partitioned executor runs in steps, each set of windows sharing a
    /// key in one; now and then one of them beside an aggregation over
    /// the whole frame, and a test of distinctness of a column (a window
    /// by its value) beside them; now and then one inside another window.
    pub fn windows_by_own_keys(&mut self, depth: u32) -> Vec<E> {
        let n = self.rng.random_range(2..4);
        let mut windows = Vec::with_capacity(n + 1);
        for _ in 0..n {
            let ty = self.any_ty();
            let saved = self.context;
            self.context = Context::Groups;
            let f = self.window_body(ty, |g| g.window_function(ty, depth));
            self.context = saved;
            let mut args = vec![f];
            for _ in 0..self.rng.random_range(1..3) {
                let ty = self.any_ty();
                args.push(match self.column_named(ty) {
                    Some(name) => E::col(&name),
                    None => self.leaf(ty),
                });
            }
            let window = E::new(Op::Over, args);
            // Now and then inside another window, by a column of its own.
            let outer_ty = self.any_ty();
            let window = match self.column_named(outer_ty) {
                Some(name) if self.ordered && self.chance(0.15) => {
                    let first = E::new(Op::Agg(Agg::First), vec![window]);
                    E::new(Op::Over, vec![first, E::col(&name)])
                }
                _ => window,
            };
            windows.push(window);
        }
        // Now and then beside an aggregation over the whole frame (the
        // partitioned executor runs the node over the windows' columns
        // beside the aggregation's value).
        if self.chance(0.3)
            && let Some((name, _)) = self.schema.choose(self.rng).cloned()
        {
            let count = E::new(Op::Agg(Agg::Count), vec![E::col(&name)]);
            let many = E::new(Op::Gt, vec![count, E::lit(Lit::Int(2))]);
            let valid = E::new(Op::IsNotNull, vec![windows.swap_remove(0)]);
            windows.insert(0, E::new(Op::And, vec![valid, many]));
        }
        if self.chance(0.3) {
            let ty = self.any_ty();
            if let Some(name) = self.column_named(ty) {
                // (Which row is a value's first or last is the rows' order,
                // which a plan of no defined order leaves to Polars: seed
                // 6439 case 159, after an unordered group-by.)
                let tests = match self.ordered {
                    true => &[
                        Op::IsUnique,
                        Op::IsDuplicated,
                        Op::IsFirstDistinct,
                        Op::IsLastDistinct,
                    ][..],
                    false => &[Op::IsUnique, Op::IsDuplicated][..],
                };
                let test = tests.choose(self.rng).unwrap().clone();
                windows.push(E::new(test, vec![E::col(&name)]));
            }
        }
        windows
    }

    /// A filter's predicate of [`Grammar::windows_by_own_keys`]: whether
    /// the first is valid and the second null, or the third (or a test of
    /// distinctness) holds where it is a boolean.
    pub fn predicate_of_own_windows(&mut self, depth: u32) -> E {
        let mut windows = self.windows_by_own_keys(depth).into_iter();
        let (first, second) = (windows.next().unwrap(), windows.next().unwrap());
        let both = E::new(
            Op::And,
            vec![
                E::new(Op::IsNotNull, vec![first]),
                E::new(Op::IsNull, vec![second]),
            ],
        );
        match windows.next() {
            Some(third) => E::new(Op::Or, vec![both, E::new(Op::IsNotNull, vec![third])]),
            None => both,
        }
    }

    /// The expressions of a select of windows mapped by `explode` (of rows
    /// in a defined order: their partitions come in order of first
    /// appearance), over the same keys and giving as many values per
    /// partition: aggregations, values of every row (now and then beside a
    /// column of the frame), or the same head of such values.
    pub fn exploded_windows(&mut self, depth: u32) -> Vec<E> {
        let keys = self.keys(2);
        let shape = self.rng.random_range(0..3);
        let head = self.rng.random_range(0..4);
        let n = self.rng.random_range(1..4);
        let saved = self.context;
        self.context = Context::Groups;
        let mut windows: Vec<E> = (0..n)
            .map(|_| {
                let ty = self.any_ty();
                let f = self.window_body(ty, |g| match shape {
                    0 => g.scalar(ty, depth),
                    _ => g.value(ty, depth),
                });
                let f = match shape {
                    2 => E::new(Op::Head(head), vec![f]),
                    _ => f,
                };
                let mut args = vec![f];
                args.extend(keys.iter().cloned());
                E::new(Op::OverExploded, args)
            })
            .collect();
        self.context = saved;
        // Windows of a value per row beside a column of the frame now and
        // then (Polars puts them side by side).
        if shape == 1 && self.chance(0.4) {
            let (name, _) = self.schema.choose(self.rng).unwrap().clone();
            let at = self.rng.random_range(0..=windows.len());
            windows.insert(at, E::col(&name));
        }
        windows
    }

    /// The function of a window, drawn by `draw`. Polars' window of a sort
    /// of an aggregation gathers out of bounds (its debug build asserts;
    /// in release the fuzzer's process crashed: seeds 20098 and 21012):
    /// such a function is drawn again, then replaced by a column.
    pub(super) fn window_body(&mut self, ty: Ty, draw: impl Fn(&mut Self) -> E) -> E {
        for _ in 0..4 {
            let f = draw(self);
            if !sorts_an_aggregation(&f) {
                return f;
            }
        }
        self.leaf(ty)
    }

    fn window_function(&mut self, ty: Ty, d: u32) -> E {
        if ty == Ty::Int && self.ordered && self.chance(0.1) {
            // Each row's place in its partition (of rows in a defined
            // order only: seed 925 drew it after an unordered distinct).
            return E::new(
                Op::IntRange(*[0i64, 1, -2].choose(self.rng).unwrap()),
                vec![],
            );
        }
        if self.chance(0.6) || !self.ordered {
            self.scalar(ty, d)
        } else {
            self.ordered_op(ty, d)
        }
    }

    pub(super) fn ordered_window(&mut self, ty: Ty, d: u32) -> E {
        let saved = self.context;
        self.context = Context::Groups;
        let f = self.window_body(ty, |g| g.ordered_op(ty, d));
        self.context = saved;
        let key_ty = self.any_ty();
        let mut args = vec![f, self.leaf(key_ty)];
        args.extend(self.keys(1));
        E::new(Op::OverOrdered(self.chance(0.5), self.chance(0.5)), args)
    }
}
