//! Lowering tests: snapshots of GPU plans for supported constructs, reasons for refused ones.
//!
//! Regenerate the snapshots with `UPDATE_EXPECT=1 cargo test -p ir-lower`.

mod pdsh_queries;
mod reasons;
mod refused;
mod supported;

use ir_lower::lower_plan;
use polars::prelude::*;

/// The GPU plan of a query as its explain tree, or its refusals, one per line.
pub fn explain(lf: LazyFrame) -> String {
    let plan = lf.to_alp_optimized().expect("the query optimises");
    match lower_plan(plan.lp_top, &plan.lp_arena, &plan.expr_arena) {
        Ok(gpu) => gpu.to_string(),
        Err(refusals) => refusals.iter().map(|r| format!("refused: {r}\n")).collect(),
    }
}

pub fn orders() -> LazyFrame {
    let mut df = df!(
        "id" => [1i64, 2, 3],
        "customer" => [Some(1i64), None, Some(2)],
        "amount" => [Some(1.5), Some(2.0), None],
        "qty" => [1i32, 2, 3],
        "status" => ["open", "shipped", "open"],
    )
    .unwrap();
    let days = Series::new("day".into(), [Some(19_724i32), None, Some(19_786)]);
    df.with_column(days.cast(&DataType::Date).unwrap().into())
        .unwrap();
    df.lazy()
}

pub fn customers() -> LazyFrame {
    df!(
        "customer" => [1i64, 2],
        "name" => ["ada", "bob"],
    )
    .unwrap()
    .lazy()
}
