//! The fuzzer's productions of powers of integers by integers: by an exponent of each row, and by literal exponents Polars takes by its own loop.

use ir_lower::HostFunction;
use rand::RngExt;
use rand::seq::IndexedRandom;

use super::expr::{E, Lit, Op};
use super::grammar::{Grammar, Ty};

impl Grammar<'_> {
    /// `x.pow(y)` of integers of `ty`: mostly of bases and exponents kept
    /// small (`(x % 3).pow(y % 7)`, `(x % 2).pow(lit(200))`), whose powers
    /// stay in range of every width (the oracle's Polars, built with
    /// overflow checks, panics where its release build wraps); at times of
    /// any values, negative exponents included (Polars raises).
    pub(super) fn integer_power(&mut self, ty: Ty, d: u32) -> E {
        // (The host's function: the fuzzer's expression names `pow` alone.)
        let pow = Op::OnHost(HostFunction::IntPow {
            bits: 64,
            signed: true,
            exponent: None,
        });
        let rem = |x: E, n: i64| E::new(Op::Rem, vec![x, E::lit(Lit::Int(n))]);
        let inputs = match self.rng.random_range(0..5) {
            0 => vec![self.value(ty, d), self.value(Ty::Int, d)],
            1 | 2 => {
                let exponent = *[Ty::Int, Ty::UInt].choose(self.rng).unwrap();
                let (x, y) = (self.value(ty, d), self.value(exponent, d));
                vec![rem(x, 3), rem(y, 7)]
            }
            _ => {
                let exponent = *[11i64, 13, 31, 64, 200].choose(self.rng).unwrap();
                vec![rem(self.value(ty, d), 2), E::lit(Lit::Int(exponent))]
            }
        };
        E::new(pow, inputs)
    }
}
