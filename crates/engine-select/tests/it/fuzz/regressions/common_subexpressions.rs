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
