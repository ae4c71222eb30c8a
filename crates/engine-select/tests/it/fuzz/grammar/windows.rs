//! The fuzzer's windows: aggregations and order-reading functions within partitions, ordered ones, and selects of windows mapped by explode.

use super::*;

impl Grammar<'_> {
    /// A window: an aggregation or an order-reading function within partitions.
    pub(super) fn window(&mut self, ty: Ty, d: u32) -> E {
        let saved = self.context;
        self.context = Context::Groups;
        let f = self.window_body(ty, |g| g.window_function(ty, d));
        self.context = saved;
        let mut args = vec![f];
        args.extend(self.keys(2));
        E::new(Op::Over, args)
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
