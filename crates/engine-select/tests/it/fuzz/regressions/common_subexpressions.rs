//! Wrong answers over Polars' common subexpressions of one value (a with_columns that does not broadcast): each a test that failed before its fix.

use polars::prelude::*;

use super::ORDERED;
use crate::fuzz::assert_same_as_cpu;

/// Polars keeps a common subexpression of one value (`min(c)` met twice)
/// at one row: a function of the rows in order over it (`is_duplicated`, a
/// running sum, a shift) or an aggregation of it (a sum, a count of a
/// filter) reads that one value, where the device read it repeated on every
/// row (`is_duplicated` was true, the sum six times the value). Found by
/// the fuzzer (seed 2037, case 345), the rest of the family by hand.
#[test]
fn functions_of_common_subexpressions_of_one_value_see_one_value() {
    let df = df!("c" => [None::<i64>, Some(6), Some(2)]).unwrap();
    let least = || col("c").min();
    let beside = || (least() + col("c")).alias("t");
    let selects = [
        when(least().is_duplicated())
            .then(col("c"))
            .otherwise(least())
            .alias("s"),
        least().sum().alias("s"),
        least().cum_sum(false).alias("s"),
        least().filter(least().gt(lit(1i64))).count().alias("s"),
    ];
    for select in selects {
        assert_same_as_cpu(df.clone().lazy().select([select, beside()]), ORDERED);
    }
    let shifted = least().shift(lit(1i64)).alias("s");
    assert_same_as_cpu(df.lazy().with_columns([shifted, beside()]), ORDERED);
}

/// A filter's predicate reads a column a with_columns made of a whole
/// column's aggregation, which Polars holds at one row: its arithmetic
/// takes it as a scalar (a float modulo by the reciprocal: `f64::MAX %
/// f64::MAX` is `f64::MAX` there, 0 row by row), as in a select. The filter
/// computed it row by row and kept a row Polars drops. Found by the fuzzer
/// (run AW, seed 260, case 143).
#[test]
fn a_filter_takes_a_column_of_one_value_as_polars_scalar() {
    let df = df!(
        "a" => [Some(4u64), Some(5), Some(2), Some(0)],
        "c" => [Some(6.5f64), Some(-3.5), None, Some(f64::MAX)],
    )
    .unwrap();
    let lf = df
        .lazy()
        .with_columns([col("c").sum().alias("x1")])
        .filter((col("c") % col("x1")).eq_missing(col("a")));
    assert_same_as_cpu(lf, ORDERED);
}
