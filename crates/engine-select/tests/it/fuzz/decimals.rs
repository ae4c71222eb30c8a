//! The fuzzer's productions of decimals: literals, arithmetic, rounding, negation, abs, clips, horizontal extremes and sums, and the decimal types drawn.

use polars::prelude::*;
use rand::RngExt;
use rand::seq::IndexedRandom;

use super::expr::{E, Lit, Op};
use super::grammar::{Grammar, Ty};

impl Grammar<'_> {
    /// A decimal type: precisions an i64 holds and 38 (Polars' results), scales up to 6.
    pub(super) fn decimal_type(&mut self) -> DataType {
        let precision = *[3usize, 10, 18, 38].choose(self.rng).unwrap();
        let scale = self.rng.random_range(0..=precision.min(6));
        DataType::Decimal(precision, scale)
    }

    /// A decimal literal: an integer cast to a decimal type.
    pub(super) fn decimal_literal(&mut self) -> E {
        let value = *[0i64, 1, -1, 7, 250, -12_345, 999]
            .choose(self.rng)
            .unwrap();
        let dtype = self.decimal_type();
        E::new(Op::Cast(dtype, false), vec![E::lit(Lit::Int(value))])
    }

    /// A decimal computed: Polars' decimal arithmetic of two decimals.
    pub(super) fn decimal(&mut self, d: u32) -> E {
        let op = match self.rng.random_range(0..8) {
            0 | 1 => Op::Add,
            2 => Op::Sub,
            3 => Op::Mul,
            4 => Op::Div,
            5 => {
                let decimals = self.rng.random_range(0..4);
                let mode = self.round_mode();
                return E::new(Op::Round(decimals, mode), vec![self.value(Ty::Decimal, d)]);
            }
            6 => {
                let x = self.value(Ty::Decimal, d);
                return match self.rng.random_range(0..4) {
                    0 => E::new(Op::Neg, vec![x]),
                    1 => E::new(Op::Abs, vec![x]),
                    2 => {
                        let sum = Op::SumHorizontal(self.chance(0.5));
                        let ops = [Op::MinHorizontal, Op::MaxHorizontal, sum];
                        self.horizontal(&ops, Ty::Decimal, d)
                    }
                    _ => {
                        let (lower, upper) = (self.decimal_literal(), self.decimal_literal());
                        E::new(Op::Clip, vec![x, lower, upper])
                    }
                };
            }
            _ => return self.leaf(Ty::Decimal),
        };
        E::new(
            op,
            vec![self.value(Ty::Decimal, d), self.value(Ty::Decimal, d)],
        )
    }
}
