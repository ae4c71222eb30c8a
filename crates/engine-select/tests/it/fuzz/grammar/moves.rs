//! The fuzzer's moves of lists and structs whole to other rows: shifts, reverses, gathers, sorts by keys and fills, within window groups now and then, sometimes read after the move.

use super::*;

/// `nested` (a list or struct column of `dtype`) moved whole to other
/// rows: shifted, reversed, sorted by one of the `plain` columns, filled
/// forward or backward after a shift, gathered by the order of a plain
/// column; now and then within the window groups of a plain column; now
/// and then read after the move (a field, a list's length or first value).
pub fn moved_nested(rng: &mut Rng, nested: &str, dtype: &DataType, plain: &[String]) -> E {
    let c = E::col(nested);
    let key = |rng: &mut Rng| E::col(plain.choose(rng).map_or(nested, |k| k.as_str()));
    let mut moved = match rng.random_range(0..8) {
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
            // (A gather moves rows over the whole frame only.)
            return E::new(Op::Gather(false), vec![c, E::new(order, vec![k])]);
        }
        _ => E::new(Op::Reverse, vec![E::new(Op::Shift(1), vec![c])]),
    };
    if !plain.is_empty() && rng.random_bool(0.3) {
        let k = key(rng);
        moved = E::new(Op::Over, vec![moved, k]);
    }
    if rng.random_bool(0.3) {
        moved = match dtype {
            DataType::Struct(fields) if let Some(field) = fields.choose(&mut *rng) => {
                E::new(Op::StructField(field.name().to_string()), vec![moved])
            }
            DataType::List(_) if rng.random_bool(0.5) => E::new(Op::ListLen, vec![moved]),
            DataType::List(_) => E::new(Op::ListGet(0, true), vec![moved]),
            _ => moved,
        };
    }
    moved
}
