//! Snapshots of the GPU plan of each supported construct.

use expect_test::{Expect, expect};
use polars::prelude::*;

use crate::{customers, explain, orders};

fn check(lf: LazyFrame, expected: Expect) {
    expected.assert_eq(&explain(lf));
}

#[test]
fn scan_with_projection() {
    check(
        orders().select([col("amount"), col("id")]),
        expect![[r#"
        DataFrameScan rows=3 columns=[2, 0] of 6  -> [amount: f64, id: i64]
    "#]],
    );
}

#[test]
fn filter_with_kleene_logic_and_null_checks() {
    check(
        orders().filter(
            col("amount")
                .gt(lit(1.0))
                .and(col("status").eq(lit("open")).or(col("customer").is_null()))
                .and(col("qty").is_not_null().not().not()),
        ),
        expect![[r#"
            Filter (((col("amount") > 1.0:f64) & is_not_null(col("qty"))) & ((col("status") == "open":str) | is_null(col("customer"))))  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
              DataFrameScan rows=3 columns=[0, 1, 2, 3, 4, 5] of 6  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
        "#]],
    );
}

#[test]
fn select_arithmetic_casts_and_literals() {
    check(
        orders().select([
            (col("amount") * (lit(1.0) - col("qty").cast(DataType::Float64))).alias("value"),
            (col("qty") / lit(2)).alias("div"),
            (col("qty") % lit(2)).alias("rem"),
            col("id").cast(DataType::Int32).alias("id32"),
            (-col("amount")).alias("neg"),
            col("amount").abs().alias("abs"),
            col("amount")
                .round(2, RoundMode::HalfAwayFromZero)
                .alias("round"),
        ]),
        expect![[r#"
            Select [(col("amount") * (1.0:f64 - cast(col("qty") -> f64))) as "value", (col("qty") / 2:i32) as "div", (col("qty") % 2:i32) as "rem", cast(col("id") -> i32) as "id32", neg(col("amount")) as "neg", abs(col("amount")) as "abs", round(col("amount"), 2, HalfAwayFromZero) as "round"]  -> [value: f64, div: i32, rem: i32, id32: i32, neg: f64, abs: f64, round: f64]
              DataFrameScan rows=3 columns=[2, 3, 0] of 6  -> [amount: f64, qty: i32, id: i64]
        "#]],
    );
}

#[test]
fn with_columns_when_fill_null_is_in_is_between() {
    check(
        orders().with_columns([
            when(col("qty").gt(lit(1)))
                .then(col("amount"))
                .otherwise(lit(0.0))
                .alias("cond"),
            col("amount").fill_null(lit(0.0)).alias("filled"),
            col("status")
                .is_in(
                    lit(Series::new("".into(), ["open", "closed"])).implode(false),
                    false,
                )
                .alias("in"),
            col("qty")
                .is_between(lit(1), lit(2), ClosedInterval::Both)
                .alias("between"),
        ]),
        expect![[r#"
            WithColumns [when((col("qty") > 1:i32), col("amount"), 0.0:f64) as "cond", fill_null(col("amount"), 0.0:f64) as "filled", ((col("status") == "open":str) | (col("status") == "closed":str)) as "in", is_between(col("qty"), 1:i32, 2:i32, Both) as "between"]  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date, cond: f64, filled: f64, in: bool, between: bool]
              DataFrameScan rows=3 columns=[0, 1, 2, 3, 4, 5] of 6  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
        "#]],
    );
}

#[test]
fn strings() {
    check(
        orders().select([
            col("status")
                .str()
                .contains_literal(lit("pen"))
                .alias("contains"),
            col("status")
                .str()
                .contains(lit("o.*n"), true)
                .alias("regex"),
            col("status").str().starts_with(lit("sh")).alias("starts"),
            col("status").str().ends_with(lit("ed")).alias("ends"),
            col("status").str().len_bytes().alias("bytes"),
            col("status").str().len_chars().alias("chars"),
            col("status").str().slice(lit(0), lit(2)).alias("slice"),
            col("status").str().to_uppercase().alias("upper"),
            col("status").str().to_lowercase().alias("lower"),
        ]),
        expect![[r#"
            Select [str.contains("pen")(col("status")) as "contains", str.contains_pattern(["o", "n"])(col("status")) as "regex", str.starts_with("sh")(col("status")) as "starts", str.ends_with("ed")(col("status")) as "ends", str.len_bytes(col("status")) as "bytes", str.len_chars(col("status")) as "chars", str.slice(0, 2)(col("status")) as "slice", str.to_uppercase(col("status")) as "upper", str.to_lowercase(col("status")) as "lower"]  -> [contains: bool, regex: bool, starts: bool, ends: bool, bytes: u32, chars: u32, slice: str, upper: str, lower: str]
              DataFrameScan rows=3 columns=[4] of 6  -> [status: str]
        "#]],
    );
}

#[test]
fn temporal_parts_and_date_arithmetic() {
    check(
        orders().select([
            col("day").dt().year().alias("year"),
            col("day").dt().quarter().alias("quarter"),
            col("day").dt().month().alias("month"),
            col("day").dt().day().alias("day_of_month"),
            col("day").dt().weekday().alias("weekday"),
            (col("day") + lit(Duration::parse("3d"))).alias("later"),
            col("day").cast(DataType::Int32).alias("days"),
        ]),
        expect![[r#"
            Select [when(((cast(col("day") -> i32) >= -96465293:i32) & (cast(col("day") -> i32) <= 95026236:i32)), dt.year(col("day")), null:i32) as "year", when(((cast(col("day") -> i32) >= -96465293:i32) & (cast(col("day") -> i32) <= 95026236:i32)), dt.quarter(col("day")), null:i8) as "quarter", when(((cast(col("day") -> i32) >= -96465293:i32) & (cast(col("day") -> i32) <= 95026236:i32)), dt.month(col("day")), null:i8) as "month", when(((cast(col("day") -> i32) >= -96465293:i32) & (cast(col("day") -> i32) <= 95026236:i32)), dt.day(col("day")), null:i8) as "day_of_month", dt.weekday(col("day")) as "weekday", cast(cast((cast(cast(col("day") -> datetime[us]) -> i64) + cast(cast(259200000000000:duration[ns] -> duration[us]) -> i64)) -> datetime[us]) -> date) as "later", cast(col("day") -> i32) as "days"]  -> [year: i32, quarter: i8, month: i8, day_of_month: i8, weekday: i8, later: date, days: i32]
              DataFrameScan rows=3 columns=[5] of 6  -> [day: date]
        "#]],
    );
}

#[test]
fn group_by_every_aggregation() {
    check(
        orders().group_by_stable([col("status")]).agg([
            col("amount").sum().alias("sum"),
            col("amount").mean().alias("mean"),
            col("amount").min().alias("min"),
            col("amount").max().alias("max"),
            col("amount").count().alias("count"),
            len().alias("len"),
            col("customer").n_unique().alias("n_unique"),
            col("amount").first().alias("first"),
            col("amount").last().alias("last"),
            col("amount").std(1).alias("std"),
            col("amount").var(1).alias("var"),
            col("amount").median().alias("median"),
            col("amount")
                .quantile(lit(0.25), QuantileMethod::Linear)
                .alias("q25"),
            (col("amount") * (lit(1.0) - col("qty").cast(DataType::Float64)))
                .sum()
                .alias("expr_sum"),
            (col("amount").sum() / len().cast(DataType::Float64)).alias("agg_expr"),
        ]),
        expect![[r#"
            GroupBy keys=[col("status")] aggs=[sum(col("amount")) as "sum", mean(col("amount")) as "mean", min(col("amount")) as "min", max(col("amount")) as "max", count(col("amount")) as "count", len() as "len", n_unique(col("customer")) as "n_unique", first(col("amount")) as "first", last(col("amount")) as "last", std[ddof=1](col("amount")) as "std", var[ddof=1](col("amount")) as "var", median(col("amount")) as "median", quantile[0.25, linear](col("amount")) as "q25", sum((col("amount") * (1.0:f64 - cast(col("qty") -> f64)))) as "expr_sum", (sum(col("amount")) / cast(len() -> f64)) as "agg_expr"] maintain_order  -> [status: str, sum: f64, mean: f64, min: f64, max: f64, count: u32, len: u32, n_unique: u32, first: f64, last: f64, std: f64, var: f64, median: f64, q25: f64, expr_sum: f64, agg_expr: f64]
              DataFrameScan rows=3 columns=[4, 2, 1, 3] of 6  -> [status: str, amount: f64, customer: i64, qty: i32]
        "#]],
    );
}

#[test]
fn whole_column_aggregations_in_a_select() {
    check(
        orders().select([
            col("amount").sum(),
            col("qty").max().alias("max_qty"),
            len(),
        ]),
        expect![[r#"
            Select [sum(col("amount")) as "amount", max(col("qty")) as "max_qty", len() as "len"]  -> [amount: f64, max_qty: i32, len: u32]
              DataFrameScan rows=3 columns=[2, 3] of 6  -> [amount: f64, qty: i32]
        "#]],
    );
}

#[test]
fn joins_of_every_kind() {
    let mut out = String::new();
    for how in [
        JoinType::Inner,
        JoinType::Left,
        JoinType::Right,
        JoinType::Full,
        JoinType::Semi,
        JoinType::Anti,
    ] {
        let lf = orders().join(
            customers(),
            [col("customer")],
            [col("customer")],
            JoinArgs::new(how),
        );
        out.push_str(&explain(lf));
    }
    out.push_str(&explain(orders().cross_join(customers(), None)));
    expect![[r#"
        Join Inner left_on=[col("customer")] right_on=[col("customer")] coalesce suffix="_right" order=None  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date, name: str]
          DataFrameScan rows=3 columns=[0, 1, 2, 3, 4, 5] of 6  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
          DataFrameScan rows=2 columns=[0, 1] of 2  -> [customer: i64, name: str]
        Join Left left_on=[col("customer")] right_on=[col("customer")] coalesce suffix="_right" order=None  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date, name: str]
          DataFrameScan rows=3 columns=[0, 1, 2, 3, 4, 5] of 6  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
          DataFrameScan rows=2 columns=[0, 1] of 2  -> [customer: i64, name: str]
        Join Right left_on=[col("customer")] right_on=[col("customer")] coalesce suffix="_right" order=None  -> [id: i64, amount: f64, qty: i32, status: str, day: date, customer: i64, name: str]
          DataFrameScan rows=3 columns=[0, 1, 2, 3, 4, 5] of 6  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
          DataFrameScan rows=2 columns=[0, 1] of 2  -> [customer: i64, name: str]
        Join Full left_on=[col("customer")] right_on=[col("customer")] suffix="_right" order=None  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date, customer_right: i64, name: str]
          DataFrameScan rows=3 columns=[0, 1, 2, 3, 4, 5] of 6  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
          DataFrameScan rows=2 columns=[0, 1] of 2  -> [customer: i64, name: str]
        Join Semi left_on=[col("customer")] right_on=[col("customer")] suffix="_right" order=None  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
          DataFrameScan rows=3 columns=[0, 1, 2, 3, 4, 5] of 6  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
          DataFrameScan rows=2 columns=[0] of 2  -> [customer: i64]
        Join Anti left_on=[col("customer")] right_on=[col("customer")] suffix="_right" order=None  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
          DataFrameScan rows=3 columns=[0, 1, 2, 3, 4, 5] of 6  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
          DataFrameScan rows=2 columns=[0] of 2  -> [customer: i64]
        Join Cross left_on=[] right_on=[] suffix="_right" order=None  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date, customer_right: i64, name: str]
          DataFrameScan rows=3 columns=[0, 1, 2, 3, 4, 5] of 6  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
          DataFrameScan rows=2 columns=[0, 1] of 2  -> [customer: i64, name: str]
    "#]].assert_eq(&out);
}

#[test]
fn join_on_several_keys_with_suffix_and_coalescing() {
    let left = orders().select([col("id"), col("customer"), col("status")]);
    let right = orders().select([col("id"), col("customer"), col("amount")]);
    check(
        left.join(
            right,
            [col("id"), col("customer")],
            [col("id"), col("customer")],
            JoinArgs::new(JoinType::Full)
                .with_suffix(Some("_r".into()))
                .with_coalesce(JoinCoalesce::CoalesceColumns),
        ),
        expect![[r#"
            Join Full left_on=[col("id"), col("customer")] right_on=[col("id"), col("customer")] coalesce suffix="_r" order=None  -> [id: i64, customer: i64, status: str, amount: f64]
              DataFrameScan rows=3 columns=[0, 1, 4] of 6  -> [id: i64, customer: i64, status: str]
              DataFrameScan rows=3 columns=[0, 1, 2] of 6  -> [id: i64, customer: i64, amount: f64]
        "#]],
    );
}

#[test]
fn sort_several_keys_and_top_k() {
    check(
        orders().sort_by_exprs(
            [col("status"), col("amount")],
            SortMultipleOptions::default()
                .with_order_descending_multi([false, true])
                .with_nulls_last(true)
                .with_maintain_order(true),
        ),
        expect![[r#"
            Sort [col("status") asc nulls_last, col("amount") desc nulls_last] stable  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
              DataFrameScan rows=3 columns=[0, 1, 2, 3, 4, 5] of 6  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
        "#]],
    );
    check(
        orders()
            .sort(
                ["amount"],
                SortMultipleOptions::default().with_order_descending(true),
            )
            .limit(2),
        expect![[r#"
            TopK [col("amount") desc] slice=(0, 2)  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
              DataFrameScan rows=3 columns=[0, 1, 2, 3, 4, 5] of 6  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
        "#]],
    );
}

#[test]
fn slice_distinct_union_hconcat() {
    check(
        orders().slice(1, 2),
        expect![[r#"
        DataFrameScan rows=2 columns=[0, 1, 2, 3, 4, 5] of 6  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
    "#]],
    );
    check(
        orders().unique_stable(Some(cols(["status"])), UniqueKeepStrategy::Last),
        expect![[r#"
            Distinct keep=Last subset=[4] maintain_order  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
              DataFrameScan rows=3 columns=[0, 1, 2, 3, 4, 5] of 6  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
        "#]],
    );
    check(
        concat([orders(), orders()], UnionArgs::default()).unwrap(),
        expect![[r#"
            Union inputs=2  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
              DataFrameScan rows=3 columns=[0, 1, 2, 3, 4, 5] of 6  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
              DataFrameScan rows=3 columns=[0, 1, 2, 3, 4, 5] of 6  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
        "#]],
    );
    check(
        concat_lf_horizontal(
            [orders().select([col("id")]), customers()],
            HConcatOptions::default(),
        )
        .unwrap(),
        expect![[r#"
            HConcat inputs=2  -> [id: i64, customer: i64, name: str]
              DataFrameScan rows=3 columns=[0] of 6  -> [id: i64]
              DataFrameScan rows=2 columns=[0, 1] of 2  -> [customer: i64, name: str]
        "#]],
    );
}

#[test]
fn rename_drop_and_cache() {
    check(
        orders()
            .rename(["amount"], ["price"], true)
            .drop(cols(["day", "status"])),
        expect![[r#"
            Select [col("id"), col("customer"), col("amount") as "price", col("qty")]  -> [id: i64, customer: i64, price: f64, qty: i32]
              DataFrameScan rows=3 columns=[0, 1, 2, 3] of 6  -> [id: i64, customer: i64, amount: f64, qty: i32]
        "#]],
    );
    let shared = orders().filter(col("qty").gt(lit(1))).cache();
    check(
        concat([shared.clone(), shared], UnionArgs::default()).unwrap(),
        expect![[r#"
            Union inputs=2  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
              Cache  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
                Filter (col("qty") > 1:i32)  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
                  DataFrameScan rows=3 columns=[0, 1, 2, 3, 4, 5] of 6  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
              Cache  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
                Filter (col("qty") > 1:i32)  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
                  DataFrameScan rows=3 columns=[0, 1, 2, 3, 4, 5] of 6  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
        "#]],
    );
}

#[test]
fn rounding_modes_and_dynamic_literals() {
    check(
        orders().select([
            col("amount").round(1, RoundMode::HalfToEven).alias("even"),
            col("amount").round(0, RoundMode::ToZero).alias("trunc"),
            when(col("qty").gt(lit(1)))
                .then(lit(1))
                .otherwise(lit(0))
                .alias("flag"),
        ]),
        expect![[r#"
            Select [round(col("amount"), 1, HalfToEven) as "even", round(col("amount"), 0, ToZero) as "trunc", when((col("qty") > 1:i32), 1:i32, 0:i32) as "flag"]  -> [even: f64, trunc: f64, flag: i32]
              DataFrameScan rows=3 columns=[2, 3] of 6  -> [amount: f64, qty: i32]
        "#]],
    );
}

#[test]
fn regular_expressions_as_literals_sequences_or_dfas() {
    check(
        orders().select([
            col("status")
                .str()
                .contains(lit("PROMO*"), true)
                .alias("trailing_star"),
            col("status")
                .str()
                .contains(lit(".*Customer.*Complaints.*"), true)
                .alias("in_order"),
            col("status")
                .str()
                .contains(lit("13|31|2.*9"), true)
                .alias("alternatives"),
            col("status")
                .str()
                .contains(lit(r"^o[a-z]+\d?$"), true)
                .alias("dfa"),
        ]),
        expect![[r#"
            Select [str.contains("PROM")(col("status")) as "trailing_star", str.contains_pattern(["Customer", "Complaints"])(col("status")) as "in_order", str.contains_pattern(["13"] | ["31"] | ["2", "9"])(col("status")) as "alternatives", str.contains_regex("^o[a-z]+\\d?$")(col("status")) as "dfa"]  -> [trailing_star: bool, in_order: bool, alternatives: bool, dfa: bool]
              DataFrameScan rows=3 columns=[4] of 6  -> [status: str]
        "#]],
    );
}

#[test]
fn unique_values_and_a_cross_join_with_a_predicate() {
    check(
        orders().select([col("customer").unique()]),
        expect![[r#"
            Select [unique(col("customer")) as "customer"]  -> [customer: i64]
              DataFrameScan rows=3 columns=[1] of 6  -> [customer: i64]
        "#]],
    );
    let average = orders().select([col("amount").mean().alias("avg")]);
    check(
        orders()
            .select([col("id"), col("amount")])
            .cross_join(average, None)
            .filter(col("amount").gt(col("avg"))),
        expect![[r#"
            Join Cross left_on=[] right_on=[] predicate=(col("amount") > col("avg")) suffix="_right" order=None  -> [id: i64, amount: f64, avg: f64]
              DataFrameScan rows=3 columns=[0, 2] of 6  -> [id: i64, amount: f64]
              Select [mean(col("amount")) as "avg"]  -> [avg: f64]
                DataFrameScan rows=3 columns=[2] of 6  -> [amount: f64]
        "#]],
    );
}

#[test]
fn parquet_and_csv_scans_become_host_reads_with_pushdown_kept() {
    let dir = std::env::temp_dir().join(format!("ir-lower-scans-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut df = orders().collect().unwrap();
    let parquet = dir.join("orders.parquet");
    ParquetWriter::new(std::fs::File::create(&parquet).unwrap())
        .finish(&mut df)
        .unwrap();
    let csv = dir.join("orders.csv");
    CsvWriter::new(std::fs::File::create(&csv).unwrap())
        .finish(&mut df)
        .unwrap();
    let path = |p: &std::path::Path| PlRefPath::new(p.to_string_lossy().into_owned());

    let scanned = LazyFrame::scan_parquet(path(&parquet), Default::default())
        .unwrap()
        .filter(col("qty").gt(lit(1)))
        .select([col("id"), col("amount")]);
    check(
        scanned,
        expect![[r#"
        SimpleProjection columns=[0, 1]  -> [id: i64, amount: f64]
          FileScan Parquet files=1 columns=["id", "amount", "qty"] predicate=[(col("qty")) > (1)]  -> [id: i64, amount: f64, qty: i32]
    "#]],
    );
    let scanned = LazyCsvReader::new(path(&csv))
        .finish()
        .unwrap()
        .select([col("status"), col("qty")])
        .slice(1, 1);
    check(
        scanned,
        expect![[r#"
        SimpleProjection columns=[1, 0]  -> [status: str, qty: i64]
          FileScan Csv files=1 columns=["qty", "status"] pre_slice=Positive { offset: 1, len: 1 }  -> [qty: i64, status: str]
    "#]],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn expression_keys_distinct_strategies_and_negative_slices() {
    check(
        orders()
            .group_by([col("day").dt().year().alias("year"), col("status")])
            .agg([col("qty").sum()]),
        expect![[r#"
            GroupBy keys=[when(((cast(col("day") -> i32) >= -96465293:i32) & (cast(col("day") -> i32) <= 95026236:i32)), dt.year(col("day")), null:i32) as "year", col("status")] aggs=[sum(col("qty")) as "qty"]  -> [year: i32, status: str, qty: i32]
              DataFrameScan rows=3 columns=[5, 4, 3] of 6  -> [day: date, status: str, qty: i32]
        "#]],
    );
    let mut out = String::new();
    for keep in [
        UniqueKeepStrategy::First,
        UniqueKeepStrategy::Any,
        UniqueKeepStrategy::None,
    ] {
        out.push_str(&explain(orders().unique(None, keep)));
    }
    expect![[r#"
        Distinct keep=First subset=all  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
          DataFrameScan rows=3 columns=[0, 1, 2, 3, 4, 5] of 6  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
        Distinct keep=Any subset=all  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
          DataFrameScan rows=3 columns=[0, 1, 2, 3, 4, 5] of 6  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
        Distinct keep=None subset=all  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
          DataFrameScan rows=3 columns=[0, 1, 2, 3, 4, 5] of 6  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
    "#]].assert_eq(&out);
    check(
        orders().filter(col("qty").gt(lit(0))).slice(-2, 1),
        expect![[r#"
            Slice offset=-2 len=1  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
              Filter (col("qty") > 0:i32)  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
                DataFrameScan rows=3 columns=[0, 1, 2, 3, 4, 5] of 6  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
        "#]],
    );
}

#[test]
fn windows_clips_and_time_parts_lower() {
    check(
        orders().select([
            (col("amount") - col("amount").mean().over([col("status")]).unwrap()).alias("w"),
            col("qty").clip(lit(0), lit(NULL)).alias("clipped"),
            col("amount").floor().alias("floor"),
            col("day")
                .cast(DataType::Datetime(TimeUnit::Milliseconds, None))
                .dt()
                .hour()
                .alias("hour"),
            coalesce(&[col("id"), col("customer")]).alias("first"),
        ]),
        expect![[r#"
            Select [(col("amount") - mean(col("amount")).over([col("status")])) as "w", clip(col("qty"), 0:i32, null:i32) as "clipped", floor(col("amount")) as "floor", when(((cast(cast(col("day") -> datetime[ms]) -> i64) >= -8334601315200000:i64) & (cast(cast(col("day") -> datetime[ms]) -> i64) <= 8210266876799999:i64)), dt.hour(cast(col("day") -> datetime[ms])), null:i8) as "hour", fill_null(col("id"), col("customer")) as "first"]  -> [w: f64, clipped: i32, floor: f64, hour: i8, first: i64]
              DataFrameScan rows=3 columns=[0, 1, 2, 3, 4, 5] of 6  -> [id: i64, customer: i64, amount: f64, qty: i32, status: str, day: date]
        "#]],
    );
}

#[test]
fn horizontal_aggregations_become_row_wise_folds() {
    check(
        orders().select([
            polars::lazy::dsl::sum_horizontal([col("id"), col("customer")], true)
                .unwrap()
                .alias("sum"),
            polars::lazy::dsl::mean_horizontal([col("id"), col("customer")], false)
                .unwrap()
                .alias("mean"),
            polars::lazy::dsl::min_horizontal([col("id"), col("customer"), col("qty")])
                .unwrap()
                .alias("min"),
        ]),
        expect![[r#"
            Select [(fill_null(col("id"), 0:i64) + fill_null(col("customer"), 0:i64)) as "sum", (cast((col("id") + col("customer")) -> f64) truediv when(((when(is_not_null(col("id")), 1.0:f64, 0.0:f64) + when(is_not_null(col("customer")), 1.0:f64, 0.0:f64)) == 0.0:f64), null:f64, (when(is_not_null(col("id")), 1.0:f64, 0.0:f64) + when(is_not_null(col("customer")), 1.0:f64, 0.0:f64)))) as "mean", fill_null(clip(fill_null(clip(col("id"), null:i64, col("customer")), col("customer")), null:i64, wrapping_cast(col("qty") -> i64)), wrapping_cast(col("qty") -> i64)) as "min"]  -> [sum: i64, mean: f64, min: i64]
              DataFrameScan rows=3 columns=[0, 1, 3] of 6  -> [id: i64, customer: i64, qty: i32]
        "#]],
    );
}

#[test]
fn ranks_distinctness_tests_and_differences_lower() {
    check(
        orders().select([
            col("amount")
                .rank(
                    RankOptions {
                        method: RankMethod::Average,
                        descending: true,
                    },
                    None,
                )
                .alias("rank"),
            col("customer").is_first_distinct().alias("first"),
            col("qty").diff(lit(1), Default::default()).alias("diff"),
        ]),
        expect![[r#"
            Select [rank(col("amount"), Average, descending) as "rank", is_first_distinct(col("customer")) as "first", (col("qty") - col("qty").shift(1)) as "diff"]  -> [rank: f64, first: bool, diff: i32]
              DataFrameScan rows=3 columns=[2, 1, 3] of 6  -> [amount: f64, customer: i64, qty: i32]
        "#]],
    );
}

#[test]
fn filters_inside_a_select_become_a_filter_of_the_computed_columns() {
    check(
        orders().select([col("qty")
            .cum_sum(false)
            .filter(col("qty").gt(lit(2)))
            .alias("running")]),
        expect![[r#"
            SimpleProjection columns=[0]  -> [running: i32]
              Filter col("__gpu_kept")  -> [running: i32, __gpu_kept: bool]
                Select [cum_sum(col("qty")) as "running", (col("qty") > 2:i32) as "__gpu_kept"]  -> [running: i32, __gpu_kept: bool]
                  DataFrameScan rows=3 columns=[3] of 6  -> [qty: i32]
        "#]],
    );
}

#[test]
fn lists_made_exploded_and_measured() {
    let lists = orders()
        .group_by_stable([col("status")])
        .agg([col("amount"), (col("qty") * lit(2)).alias("twice")]);
    expect![[r#"
        Explode columns=[1] empty_as_null=true keep_nulls=false  -> [status: str, amount: f64, twice: list[i32], n: u32, first: i32, sum: i32]
          WithColumns [list.len(col("twice")) as "n", list.get[0, null_on_oob=true](col("twice")) as "first", list.sum(col("twice")) as "sum"]  -> [status: str, amount: list[f64], twice: list[i32], n: u32, first: i32, sum: i32]
            GroupBy keys=[col("status")] aggs=[implode(col("amount")) as "amount", implode((col("qty") * 2:i32)) as "twice"] maintain_order  -> [status: str, amount: list[f64], twice: list[i32]]
              DataFrameScan rows=3 columns=[4, 2, 3] of 6  -> [status: str, amount: f64, qty: i32]
    "#]]
    .assert_eq(&explain(
        lists
            .with_columns([
                col("twice").list().len().alias("n"),
                col("twice").list().first().alias("first"),
                col("twice").list().sum().alias("sum"),
            ])
            .explode(
                by_name(["amount"], true, false),
                ExplodeOptions {
                    empty_as_null: true,
                    keep_nulls: false,
                },
            ),
    ));
}
