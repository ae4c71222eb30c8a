//! The fuzzer's lists and structs moved whole to other rows (shifts, reverses, gathers, sorts by keys, fills) or chosen row by row (`when/then/otherwise`, `fill_null`, `coalesce`), within window groups now and then, sometimes read after or tested for repeats.

use super::*;

/// `nested` (a list or struct column of `dtype`) moved whole to other
/// rows or chosen row by row against a null, itself moved, or its first
/// or last value (by a boolean column of `plain` or a null test of one);
/// now and then within the window groups of a `plain` column; now and
/// then read after (a field, a list's length or first value, a null test,
/// a test for repeats, a count of distinct values).
pub fn nested_moved_or_chosen(
    rng: &mut Rng,
    nested: &str,
    dtype: &DataType,
    plain: &[(String, DataType)],
) -> E {
    let mut value = match rng.random_bool(0.6) {
        true => moved(rng, E::col(nested), plain),
        false => chosen(rng, nested, plain),
    };
    // (A gather moves rows over the whole frame only.)
    if !matches!(value.op, Op::Gather(_)) && !plain.is_empty() && rng.random_bool(0.3) {
        let key = E::col(&plain.choose(rng).unwrap().0);
        value = E::new(Op::Over, vec![value, key]);
    }
    if rng.random_bool(0.3) {
        value = match dtype {
            _ if rng.random_bool(0.2) => E::new(Op::IsNull, vec![value]),
            // Tested for repeats or counted distinct (lists by codes).
            _ if rng.random_bool(0.25) => match rng.random_range(0..4) {
                0 => E::new(Op::IsDuplicated, vec![value]),
                1 => E::new(Op::IsUnique, vec![value]),
                2 => E::new(Op::IsFirstDistinct, vec![value]),
                _ => E::new(Op::Agg(super::super::expr::Agg::NUnique), vec![value]),
            },
            DataType::Struct(fields) if let Some(field) = fields.choose(&mut *rng) => {
                E::new(Op::StructField(field.name().to_string()), vec![value])
            }
            DataType::List(_) if rng.random_bool(0.5) => E::new(Op::ListLen, vec![value]),
            DataType::List(_) => E::new(Op::ListGet(0, true), vec![value]),
            _ => value,
        };
    }
    value
}

/// `c` moved: shifted, reversed, sorted by a `plain` column, filled
/// forward or backward after a shift, gathered by a plain column's order.
fn moved(rng: &mut Rng, c: E, plain: &[(String, DataType)]) -> E {
    let key = |rng: &mut Rng| E::col(&plain.choose(rng).unwrap().0);
    match rng.random_range(0..8) {
        0 | 1 => E::new(Op::Shift(rng.random_range(-3..=3)), vec![c]),
        2 => E::new(Op::Reverse, vec![c]),
        3 | 4 if !plain.is_empty() => {
            let order = Op::SortBy(rng.random_bool(0.3), rng.random_bool(0.3));
            let k = key(rng);
            E::new(order, vec![c, k])
        }
        5 => {
            let limit = rng.random_bool(0.3).then(|| rng.random_range(1..3));
            let shifted = E::new(Op::Shift(rng.random_range(-2..=2)), vec![c]);
            match rng.random_bool(0.5) {
                true => E::new(Op::FillForward(limit), vec![shifted]),
                false => E::new(Op::FillBackward(limit), vec![shifted]),
            }
        }
        6 if !plain.is_empty() => {
            let order = Op::ArgSort(rng.random_bool(0.3), rng.random_bool(0.3));
            let k = key(rng);
            E::new(Op::Gather(false), vec![c, E::new(order, vec![k])])
        }
        _ => E::new(Op::Reverse, vec![E::new(Op::Shift(1), vec![c])]),
    }
}

/// Column `nested` chosen row by row: against a null (either way), its
/// values shifted, or its first or last value; filled from those;
/// coalesced with shifts of itself.
fn chosen(rng: &mut Rng, nested: &str, plain: &[(String, DataType)]) -> E {
    let c = || E::col(nested);
    let shifted = |rng: &mut Rng| E::new(Op::Shift(rng.random_range(-2..=2)), vec![c()]);
    let null = || E::leaf(Op::Lit(Lit::Null));
    let bools: Vec<&String> = plain
        .iter()
        .filter(|(_, dtype)| dtype == &DataType::Boolean)
        .map(|(name, _)| name)
        .collect();
    let predicate = match (bools.choose(rng), plain.choose(rng)) {
        (Some(b), _) if rng.random_bool(0.6) => E::col(b),
        (_, Some((name, _))) => E::new(Op::IsNotNull, vec![E::col(name)]),
        _ => E::leaf(Op::Lit(Lit::Bool(rng.random_bool(0.5)))),
    };
    match rng.random_range(0..7) {
        0 => E::new(Op::When, vec![predicate, c(), null()]),
        1 => E::new(Op::When, vec![predicate, null(), c()]),
        2 => E::new(Op::When, vec![predicate, c(), shifted(rng)]),
        3 => E::new(Op::FillNull, vec![shifted(rng), c()]),
        4 => {
            let agg = match rng.random_bool(0.5) {
                true => Agg::First,
                false => Agg::Last,
            };
            E::new(
                Op::FillNull,
                vec![shifted(rng), E::new(Op::Agg(agg), vec![c()])],
            )
        }
        _ => {
            let first = shifted(rng);
            E::new(Op::Coalesce, vec![first, shifted(rng), c()])
        }
    }
}
