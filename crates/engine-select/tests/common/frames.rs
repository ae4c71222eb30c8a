//! Frames compared as the engines' answers must agree, shared by the test crates: equal dtypes, nulls and values, floats within a relative 1e-9.

use polars::prelude::*;

/// Where `actual` differs from `expected` (`None`: it does not): dtypes,
/// nulls and values, floats within a relative 1e-9 (parallel sums add in
/// different orders from run to run).
pub fn frames_differ(expected: &DataFrame, actual: &DataFrame) -> Option<String> {
    frames_differ_within(expected, actual, 0.0)
}

/// As [`frames_differ`], floats also equal within `absolute` of each other
/// (a cent, for money rounded to cents from sums added in another order).
pub fn frames_differ_within(
    expected: &DataFrame,
    actual: &DataFrame,
    absolute: f64,
) -> Option<String> {
    if expected.schema() != actual.schema() {
        return Some(format!(
            "dtypes: {:?} vs {:?}",
            expected.schema(),
            actual.schema()
        ));
    }
    for (e, a) in expected.columns().iter().zip(actual.columns()) {
        let (e, a) = (e.as_materialized_series(), a.as_materialized_series());
        if !e.dtype().is_float() {
            if !e.equals_missing(a) {
                return Some(format!("column {:?}", e.name()));
            }
            continue;
        }
        let (e, a) = (
            e.cast(&DataType::Float64).ok()?,
            a.cast(&DataType::Float64).ok()?,
        );
        for (x, y) in e.f64().ok()?.iter().zip(a.f64().ok()?.iter()) {
            let close = match (x, y) {
                (Some(x), Some(y)) => {
                    x == y
                        || (x.is_nan() && y.is_nan())
                        || (x - y).abs() <= 1e-9 * x.abs().max(y.abs())
                        || (x - y).abs() <= absolute
                }
                (None, None) => true,
                _ => false,
            };
            if !close {
                return Some(format!("column {:?}: {x:?} vs {y:?}", e.name()));
            }
        }
    }
    None
}
