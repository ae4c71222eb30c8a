//! The fuzzer's functions of list columns: lengths, places, aggregations, sorts, slices (by literals and by each row's bounds), concatenations, evaluations, shifts, searches.

use polars::prelude::*;
use rand::RngExt;
use rand::seq::IndexedRandom;

use super::Rng;
use super::expr::{E, Op};
use super::grammar::Grammar;
use super::ty::Ty;

/// A function of `list`, a list of `values`: mostly one the device runs
/// for them, sometimes any (of other types: the reasons Polars keeps them);
/// one reading other rows only where the rows are `ordered`.
pub(super) fn list_function(rng: &mut Rng, values: &DataType, list: E, ordered: bool) -> E {
    use super::expr::Lit;
    let any = rng.random_bool(0.2);
    let reduced = values.is_integer() || values.is_bool() || values.is_temporal();
    // (Decimals evaluated, aggregated and summed as numbers are.)
    let numbers = values.is_integer() || values.is_float() || values.is_decimal();
    let item = match values {
        DataType::String => Some(Lit::Str((*["a", "", "é"].choose(rng).unwrap()).into())),
        DataType::Boolean => Some(Lit::Bool(rng.random_bool(0.5))),
        values if values.is_integer() => Some(Lit::Int(rng.random_range(-2..5))),
        _ => None,
    };
    if rng.random_bool(0.05) {
        // How many of each list's values equal a literal (null, NaN and
        // zeros of either sign among them).
        let item = match values {
            _ if rng.random_bool(0.2) => Some(E::lit(Lit::Null)),
            DataType::Float64 => Some(E::lit(Lit::Float(
                *[f64::NAN, 0.0, -0.0, 1.5].choose(rng).unwrap(),
            ))),
            // (A decimal of the values' type; an integer Polars casts.)
            DataType::Decimal(..) => {
                let integer = E::lit(Lit::Int(rng.random_range(-2..5)));
                Some(match rng.random_bool(0.8) {
                    true => E::new(Op::Cast(values.clone(), false), vec![integer]),
                    false => integer,
                })
            }
            _ => item.clone().map(E::lit),
        };
        if let Some(item) = item {
            return E::new(Op::ListCountMatches, vec![list, item]);
        }
    }
    if let Some(item) = item.clone()
        && rng.random_bool(0.15)
    {
        let nulls_equal = rng.random_bool(0.3);
        return match rng.random_bool(0.7) {
            true => E::new(Op::ListContains(nulls_equal), vec![list, E::lit(item)]),
            // One item in every row's list.
            false => E::new(Op::IsInLists(nulls_equal), vec![E::lit(item), list]),
        };
    }
    if rng.random_bool(0.1) {
        // An item per row (a value of the list, or null where it has no
        // such place) in the list, or in its last values.
        let index = *[0i64, 1, -1, 5].choose(rng).unwrap();
        let item = E::new(Op::ListGet(index, true), vec![list.clone()]);
        let searched = match rng.random_bool(0.5) {
            true => E::new(Op::ListTail(rng.random_range(0..3)), vec![list]),
            false => list,
        };
        let nulls_equal = rng.random_bool(0.3);
        return match rng.random_bool(0.5) {
            true => E::new(Op::ListContains(nulls_equal), vec![searched, item]),
            false => E::new(Op::IsInLists(nulls_equal), vec![item, searched]),
        };
    }
    // Lists sorted (of floats too: holding both zeros, Polars' own) or
    // sliced, as they are or measured.
    let mut list = list;
    if rng.random_bool(0.15) {
        let sort = Op::ListSort(rng.random_bool(0.5), rng.random_bool(0.5));
        list = E::new(sort, vec![list]);
        if rng.random_bool(0.5) {
            return list;
        }
    }
    if rng.random_bool(0.1) {
        // Evaluated within each list: any values shifted, tested, sorted,
        // their nulls dropped, their distinct values, their greatest and
        // first (as lists of one); numbers ranked, summed, doubled,
        // centred, kept above the least, their spread and sum.
        let kind = if numbers || any {
            rng.random_range(0..16)
        } else {
            *[0, 1, 2, 7, 9, 10, 11, 12, 14].choose(rng).unwrap()
        };
        list = E::new(Op::ListEval(kind), vec![list]);
        if rng.random_bool(0.5) {
            return list;
        }
    }
    // Each list's values shifted (any), or their differences (numbers).
    if rng.random_bool(0.1) {
        let n = rng.random_range(-3..4);
        let numbers = values.is_integer() || values.is_float();
        let op = if (any || numbers) && rng.random_bool(0.5) {
            Op::ListDiff(n)
        } else {
            Op::ListShift(n)
        };
        list = E::new(op, vec![list]);
        if rng.random_bool(0.5) {
            return list;
        }
    }
    if rng.random_bool(0.08) {
        list = E::new(Op::ListDropNulls, vec![list]);
        if rng.random_bool(0.5) {
            return list;
        }
    }
    if rng.random_bool(0.15) {
        let slice = match rng.random_range(0..3) {
            0 => Op::ListHead(rng.random_range(0..4)),
            1 => Op::ListTail(rng.random_range(0..4)),
            _ => Op::ListSlice(rng.random_range(-3..3), rng.random_range(0..4)),
        };
        list = E::new(slice, vec![list]);
        if rng.random_bool(0.5) {
            return list;
        }
    }
    if rng.random_bool(0.05) {
        // Compared with itself shifted (where the rows are in an order
        // the query defines: fuzz seed 6637 case 81, after a sort that
        // keeps no order of ties), sorted or sliced (`==`, `!=` and their
        // `_missing` forms).
        let other = match rng.random_range(0..3) {
            0 if ordered => E::new(Op::Shift(rng.random_range(-2..3)), vec![list.clone()]),
            0 => E::new(Op::ListSort(true, false), vec![list.clone()]),
            1 => E::new(Op::ListSort(false, false), vec![list.clone()]),
            _ => E::new(Op::ListHead(rng.random_range(0..3)), vec![list.clone()]),
        };
        let op = [Op::Eq, Op::NotEq, Op::EqMissing, Op::NotEqMissing]
            .choose(rng)
            .unwrap()
            .clone();
        return E::new(op, vec![list, other]);
    }
    if rng.random_bool(0.08) {
        // Concatenated with itself (sorted now and then, or its values
        // cast to another number type: Polars casts the parts to their
        // supertype), its first value or a literal item, in any order.
        let mut parts = vec![list.clone()];
        for _ in 0..rng.random_range(1..3) {
            parts.push(match rng.random_range(0..4) {
                0 => E::new(Op::ListGet(0, true), vec![list.clone()]),
                3 if values.is_integer() || values.is_float() => {
                    let to = [
                        DataType::UInt8,
                        DataType::Int16,
                        DataType::Int64,
                        DataType::Float32,
                    ]
                    .choose(rng)
                    .unwrap()
                    .clone();
                    let to = DataType::List(Box::new(to));
                    E::new(Op::Cast(to, false), vec![list.clone()])
                }
                1 if let Some(item) = &item => E::lit(item.clone()),
                _ if values.is_integer() && rng.random_bool(0.5) => {
                    E::new(Op::ListSort(false, false), vec![list.clone()])
                }
                _ => list.clone(),
            });
        }
        let first = rng.random_range(0..parts.len());
        parts.rotate_left(first);
        list = E::new(Op::ConcatList, parts);
        if rng.random_bool(0.5) {
            return list;
        }
    }
    if rng.random_bool(0.1) {
        // Sliced by bounds of each row: the list's length less 0 to 3
        // (below zero at short lists), its first value (of integers: null,
        // negative, past the list), or a literal.
        let bound = |rng: &mut Rng| match rng.random_range(0..4) {
            0 if values.is_integer() => {
                let first = E::new(Op::ListGet(0, true), vec![list.clone()]);
                E::new(Op::Cast(DataType::Int64, false), vec![first])
            }
            1 => E::leaf(Op::Lit(Lit::Int(rng.random_range(-3..4)))),
            _ => {
                let len = E::new(Op::ListLen, vec![list.clone()]);
                let len = E::new(Op::Cast(DataType::Int64, false), vec![len]);
                let less = E::leaf(Op::Lit(Lit::Int(rng.random_range(0..4))));
                E::new(Op::Sub, vec![len, less])
            }
        };
        let sliced = match rng.random_range(0..3) {
            0 => E::new(Op::ListSliceBy, vec![list.clone(), bound(rng), bound(rng)]),
            1 => E::new(Op::ListHeadBy, vec![list.clone(), bound(rng)]),
            _ => E::new(Op::ListTailBy, vec![list.clone(), bound(rng)]),
        };
        list = sliced;
        if rng.random_bool(0.5) {
            return list;
        }
    }
    let function = match rng.random_range(0..7) {
        // (Sums of integers and decimals.)
        6 if any || values.is_integer() || values.is_decimal() => {
            Op::ListAgg(rng.random_range(0..6))
        }
        6 => Op::ListAgg(rng.random_range(0..if reduced { 5 } else { 4 })),
        0 => Op::ListLen,
        1 => {
            let index = *[0i64, 1, 2, -1, -2, 5].choose(rng).unwrap();
            Op::ListGet(index, rng.random_bool(0.9))
        }
        // At each row's own place: the list's length less 1 to 3 (its
        // last, or places before; from the end where negative).
        2 => {
            let len = E::new(Op::ListLen, vec![list.clone()]);
            let len = E::new(Op::Cast(DataType::Int64, false), vec![len]);
            let less = E::leaf(Op::Lit(Lit::Int(rng.random_range(1..4))));
            let at = E::new(Op::Sub, vec![len, less]);
            return E::new(Op::ListGetBy(rng.random_bool(0.9)), vec![list, at]);
        }
        3 if any || numbers || values.is_bool() => {
            let ddof = rng.random_range(0..3);
            [
                Op::ListSum,
                Op::ListMean,
                Op::ListMedian,
                Op::ListStd(ddof),
                Op::ListVar(ddof),
            ]
            .choose(rng)
            .unwrap()
            .clone()
        }
        // (Extremes of floats, booleans and texts too, and their places.)
        4 if any || reduced || values.is_float() || values.is_bool() || values.is_string() => {
            [Op::ListMin, Op::ListMax, Op::ListArgMin, Op::ListArgMax]
                .choose(rng)
                .unwrap()
                .clone()
        }
        5 if any || values.is_string() => {
            let separator = *["", ", ", "-"].choose(rng).unwrap();
            Op::ListJoin(separator, rng.random_bool(0.5))
        }
        _ => Op::ListLen,
    };
    E::new(function, vec![list])
}

impl Grammar<'_> {
    /// `concat_list` of one to three values of class `ty`, at most `depth`
    /// operations deep: a list per row. Among texts, categoricals now and
    /// then, which Polars casts to text.
    pub(super) fn concat_list(&mut self, ty: Ty, depth: u32) -> E {
        let n = self.rng.random_range(1..4);
        let values = (0..n)
            .map(|_| {
                let category =
                    ty == Ty::Str && !self.columns_of(Ty::Cat).is_empty() && self.chance(0.3);
                self.value(if category { Ty::Cat } else { ty }, depth)
            })
            .collect();
        E::new(Op::ConcatList, values)
    }
}
