//! The 22 PDS-H queries as Polars lazy frames, following the Polars versions of the definitions.

use std::path::Path;

use chrono::NaiveDate;
use polars::prelude::*;

use crate::tables::Tables;

/// How many queries PDS-H has.
pub const QUERY_COUNT: usize = 22;

/// Query `number` (1 to 22) over `tables`.
pub fn query(number: usize, tables: &Tables) -> PolarsResult<LazyFrame> {
    let named = tables.named();
    let table = |name: &str| match named.iter().find(|(n, _)| *n == name) {
        Some((_, df)) => Ok((*df).clone().lazy()),
        None => polars_bail!(ComputeError: "PDS-H has no table {name}"),
    };
    over(number, &Lazy::of(table)?)
}

/// Query `number` (1 to 22) over scans of the tables' Parquet files in
/// `dir` (`<name>.parquet`, as [`Tables::write_parquet`] writes them).
pub fn query_parquet(number: usize, dir: &Path) -> PolarsResult<LazyFrame> {
    let scan = |name: &str| {
        let path = dir.join(format!("{name}.parquet"));
        LazyFrame::scan_parquet(path.to_string_lossy().as_ref().into(), Default::default())
    };
    over(number, &Lazy::of(scan)?)
}

/// Query `number` (1 to 22) over scans of the tables' CSV files in `dir`
/// (`<name>.csv`, as [`Tables::write_csv`] writes them), read by the
/// tables' schemas (money as f64).
pub fn query_csv(number: usize, dir: &Path) -> PolarsResult<LazyFrame> {
    let empty = Tables::empty()?;
    let named = empty.named();
    let scan = |name: &str| {
        let Some((_, df)) = named.iter().find(|(n, _)| *n == name) else {
            polars_bail!(ComputeError: "PDS-H has no table {name}");
        };
        let path = dir.join(format!("{name}.csv"));
        LazyCsvReader::new(path.to_string_lossy().as_ref().into())
            .with_schema(Some(df.schema().clone()))
            .finish()
    };
    over(number, &Lazy::of(scan)?)
}

fn over(number: usize, t: &Lazy) -> PolarsResult<LazyFrame> {
    Ok(match number {
        1 => q1(t),
        2 => q2(t),
        3 => q3(t),
        4 => q4(t),
        5 => q5(t),
        6 => q6(t),
        7 => q7(t)?,
        8 => q8(t),
        9 => q9(t),
        10 => q10(t),
        11 => q11(t),
        12 => q12(t),
        13 => q13(t),
        14 => q14(t),
        15 => q15(t),
        16 => q16(t),
        17 => q17(t),
        18 => q18(t),
        19 => q19(t),
        20 => q20(t),
        21 => q21(t),
        22 => q22(t),
        other => polars_bail!(
            InvalidOperation: "PDS-H has queries 1 to {QUERY_COUNT}, not {other}"
        ),
    })
}

/// The tables as lazy frames (in memory or scans of files).
struct Lazy {
    customer: LazyFrame,
    lineitem: LazyFrame,
    nation: LazyFrame,
    orders: LazyFrame,
    part: LazyFrame,
    partsupp: LazyFrame,
    region: LazyFrame,
    supplier: LazyFrame,
}

impl Lazy {
    /// Each table as `table` gives it by its name.
    fn of(table: impl Fn(&str) -> PolarsResult<LazyFrame>) -> PolarsResult<Lazy> {
        Ok(Lazy {
            customer: table("customer")?,
            lineitem: table("lineitem")?,
            nation: table("nation")?,
            orders: table("orders")?,
            part: table("part")?,
            partsupp: table("partsupp")?,
            region: table("region")?,
            supplier: table("supplier")?,
        })
    }

    fn customer(&self) -> LazyFrame {
        self.customer.clone()
    }
    fn lineitem(&self) -> LazyFrame {
        self.lineitem.clone()
    }
    fn nation(&self) -> LazyFrame {
        self.nation.clone()
    }
    fn orders(&self) -> LazyFrame {
        self.orders.clone()
    }
    fn part(&self) -> LazyFrame {
        self.part.clone()
    }
    fn partsupp(&self) -> LazyFrame {
        self.partsupp.clone()
    }
    fn region(&self) -> LazyFrame {
        self.region.clone()
    }
    fn supplier(&self) -> LazyFrame {
        self.supplier.clone()
    }
}

/// A `Date` literal, as Python's `datetime.date` gives in the PDS-H queries
/// (the Rust `NaiveDate` literal is a nanosecond datetime instead, which would
/// turn every date comparison into a cast).
fn date(year: i32, month: u32, day: u32) -> Expr {
    let date = NaiveDate::from_ymd_opt(year, month, day).unwrap_or_default();
    let days = date.signed_duration_since(NaiveDate::default()).num_days() as i32;
    lit(LiteralValue::Scalar(Scalar::new(
        DataType::Date,
        AnyValue::Date(days),
    )))
}

fn inner_join(left: LazyFrame, right: LazyFrame, left_on: &[&str], right_on: &[&str]) -> LazyFrame {
    join(left, right, left_on, right_on, JoinType::Inner)
}

fn join(
    left: LazyFrame,
    right: LazyFrame,
    left_on: &[&str],
    right_on: &[&str],
    how: JoinType,
) -> LazyFrame {
    let left_on: Vec<Expr> = left_on.iter().map(|c| col(*c)).collect();
    let right_on: Vec<Expr> = right_on.iter().map(|c| col(*c)).collect();
    left.join(right, left_on, right_on, JoinArgs::new(how))
}

fn sort(lf: LazyFrame, by: &[&str], descending: &[bool]) -> LazyFrame {
    lf.sort(
        by.iter().copied(),
        SortMultipleOptions::default().with_order_descending_multi(descending.iter().copied()),
    )
}

fn columns(names: &[&str]) -> Vec<Expr> {
    names.iter().map(|c| col(*c)).collect()
}

fn one_of(values: &[&str]) -> Expr {
    lit(Series::new("".into(), values)).implode(false)
}

fn one_of_ints(values: &[i32]) -> Expr {
    lit(Series::new("".into(), values)).implode(false)
}

fn disc_price() -> Expr {
    col("l_extendedprice") * (lit(1.0) - col("l_discount"))
}

fn round2(expr: Expr) -> Expr {
    expr.round(2, RoundMode::default())
}

fn q1(t: &Lazy) -> LazyFrame {
    let lf = t
        .lineitem()
        .filter(col("l_shipdate").lt_eq(date(1998, 9, 2)))
        .group_by([col("l_returnflag"), col("l_linestatus")])
        .agg([
            col("l_quantity").sum().alias("sum_qty"),
            col("l_extendedprice").sum().alias("sum_base_price"),
            disc_price().sum().alias("sum_disc_price"),
            (disc_price() * (lit(1.0) + col("l_tax")))
                .sum()
                .alias("sum_charge"),
            col("l_quantity").mean().alias("avg_qty"),
            col("l_extendedprice").mean().alias("avg_price"),
            col("l_discount").mean().alias("avg_disc"),
            len().alias("count_order"),
        ]);
    sort(lf, &["l_returnflag", "l_linestatus"], &[false, false])
}

fn q2(t: &Lazy) -> LazyFrame {
    let q1 = inner_join(t.part(), t.partsupp(), &["p_partkey"], &["ps_partkey"]);
    let q1 = inner_join(q1, t.supplier(), &["ps_suppkey"], &["s_suppkey"]);
    let q1 = inner_join(q1, t.nation(), &["s_nationkey"], &["n_nationkey"]);
    let q1 = inner_join(q1, t.region(), &["n_regionkey"], &["r_regionkey"])
        .filter(col("p_size").eq(lit(15)))
        .filter(col("p_type").str().ends_with(lit("BRASS")))
        .filter(col("r_name").eq(lit("EUROPE")));
    let cheapest = q1
        .clone()
        .group_by([col("p_partkey")])
        .agg([col("ps_supplycost").min()]);
    let keys = ["p_partkey", "ps_supplycost"];
    let lf = inner_join(cheapest, q1, &keys, &keys).select(columns(&[
        "s_acctbal",
        "s_name",
        "n_name",
        "p_partkey",
        "p_mfgr",
        "s_address",
        "s_phone",
        "s_comment",
    ]));
    sort(
        lf,
        &["s_acctbal", "n_name", "s_name", "p_partkey"],
        &[true, false, false, false],
    )
    .limit(100)
}

fn q3(t: &Lazy) -> LazyFrame {
    let lf = t.customer().filter(col("c_mktsegment").eq(lit("BUILDING")));
    let lf = inner_join(lf, t.orders(), &["c_custkey"], &["o_custkey"]);
    let lf = inner_join(lf, t.lineitem(), &["o_orderkey"], &["l_orderkey"])
        .filter(col("o_orderdate").lt(date(1995, 3, 15)))
        .filter(col("l_shipdate").gt(date(1995, 3, 15)))
        .with_columns([disc_price().alias("revenue")])
        .group_by([col("o_orderkey"), col("o_orderdate"), col("o_shippriority")])
        .agg([col("revenue").sum()])
        .select([
            col("o_orderkey").alias("l_orderkey"),
            col("revenue"),
            col("o_orderdate"),
            col("o_shippriority"),
        ]);
    sort(lf, &["revenue", "o_orderdate"], &[true, false]).limit(10)
}

fn q4(t: &Lazy) -> LazyFrame {
    let late = t
        .lineitem()
        .filter(col("l_commitdate").lt(col("l_receiptdate")));
    let lf = join(
        t.orders(),
        late,
        &["o_orderkey"],
        &["l_orderkey"],
        JoinType::Semi,
    )
    .filter(col("o_orderdate").is_between(
        date(1993, 7, 1),
        date(1993, 10, 1),
        ClosedInterval::Left,
    ))
    .group_by([col("o_orderpriority")])
    .agg([len().alias("order_count")]);
    sort(lf, &["o_orderpriority"], &[false])
}

fn q5(t: &Lazy) -> LazyFrame {
    let lf = inner_join(t.region(), t.nation(), &["r_regionkey"], &["n_regionkey"]);
    let lf = inner_join(lf, t.customer(), &["n_nationkey"], &["c_nationkey"]);
    let lf = inner_join(lf, t.orders(), &["c_custkey"], &["o_custkey"]);
    let lf = inner_join(lf, t.lineitem(), &["o_orderkey"], &["l_orderkey"]);
    let lf = inner_join(
        lf,
        t.supplier(),
        &["l_suppkey", "n_nationkey"],
        &["s_suppkey", "s_nationkey"],
    )
    .filter(col("r_name").eq(lit("ASIA")))
    .filter(col("o_orderdate").is_between(date(1994, 1, 1), date(1995, 1, 1), ClosedInterval::Left))
    .with_columns([disc_price().alias("revenue")])
    .group_by([col("n_name")])
    .agg([col("revenue").sum()]);
    sort(lf, &["revenue"], &[true])
}

fn q6(t: &Lazy) -> LazyFrame {
    t.lineitem()
        .filter(col("l_shipdate").is_between(
            date(1994, 1, 1),
            date(1995, 1, 1),
            ClosedInterval::Left,
        ))
        .filter(col("l_discount").is_between(lit(0.05), lit(0.07), ClosedInterval::Both))
        .filter(col("l_quantity").lt(lit(24)))
        .with_columns([(col("l_extendedprice") * col("l_discount")).alias("revenue")])
        .select([col("revenue").sum()])
}

fn q7(t: &Lazy) -> PolarsResult<LazyFrame> {
    let n1 = t.nation().filter(col("n_name").eq(lit("FRANCE")));
    let n2 = t.nation().filter(col("n_name").eq(lit("GERMANY")));
    let pairs = |customer_nation: LazyFrame, supplier_nation: LazyFrame| {
        let lf = inner_join(
            t.customer(),
            customer_nation,
            &["c_nationkey"],
            &["n_nationkey"],
        );
        let lf = inner_join(lf, t.orders(), &["c_custkey"], &["o_custkey"]).rename(
            ["n_name"],
            ["cust_nation"],
            true,
        );
        let lf = inner_join(lf, t.lineitem(), &["o_orderkey"], &["l_orderkey"]);
        let lf = inner_join(lf, t.supplier(), &["l_suppkey"], &["s_suppkey"]);
        inner_join(lf, supplier_nation, &["s_nationkey"], &["n_nationkey"]).rename(
            ["n_name"],
            ["supp_nation"],
            true,
        )
    };
    let both = [pairs(n1.clone(), n2.clone()), pairs(n2, n1)];
    let lf = concat(both, UnionArgs::default())?
        .filter(col("l_shipdate").is_between(
            date(1995, 1, 1),
            date(1996, 12, 31),
            ClosedInterval::Both,
        ))
        .with_columns([
            disc_price().alias("volume"),
            col("l_shipdate").dt().year().alias("l_year"),
        ])
        .group_by([col("supp_nation"), col("cust_nation"), col("l_year")])
        .agg([col("volume").sum().alias("revenue")]);
    Ok(sort(
        lf,
        &["supp_nation", "cust_nation", "l_year"],
        &[false, false, false],
    ))
}

fn q8(t: &Lazy) -> LazyFrame {
    let n1 = t.nation().select(columns(&["n_nationkey", "n_regionkey"]));
    let n2 = t.nation().select(columns(&["n_nationkey", "n_name"]));
    let lf = inner_join(t.part(), t.lineitem(), &["p_partkey"], &["l_partkey"]);
    let lf = inner_join(lf, t.supplier(), &["l_suppkey"], &["s_suppkey"]);
    let lf = inner_join(lf, t.orders(), &["l_orderkey"], &["o_orderkey"]);
    let lf = inner_join(lf, t.customer(), &["o_custkey"], &["c_custkey"]);
    let lf = inner_join(lf, n1, &["c_nationkey"], &["n_nationkey"]);
    let lf = inner_join(lf, t.region(), &["n_regionkey"], &["r_regionkey"])
        .filter(col("r_name").eq(lit("AMERICA")));
    let lf = inner_join(lf, n2, &["s_nationkey"], &["n_nationkey"])
        .filter(col("o_orderdate").is_between(
            date(1995, 1, 1),
            date(1996, 12, 31),
            ClosedInterval::Both,
        ))
        .filter(col("p_type").eq(lit("ECONOMY ANODIZED STEEL")))
        .select([
            col("o_orderdate").dt().year().alias("o_year"),
            disc_price().alias("volume"),
            col("n_name").alias("nation"),
        ])
        .with_columns([when(col("nation").eq(lit("BRAZIL")))
            .then(col("volume"))
            .otherwise(lit(0))
            .alias("_tmp")])
        .group_by([col("o_year")])
        .agg([round2(col("_tmp").sum() / col("volume").sum()).alias("mkt_share")]);
    sort(lf, &["o_year"], &[false])
}

fn q9(t: &Lazy) -> LazyFrame {
    let lf = inner_join(t.part(), t.partsupp(), &["p_partkey"], &["ps_partkey"]);
    let lf = inner_join(lf, t.supplier(), &["ps_suppkey"], &["s_suppkey"]);
    let lf = inner_join(
        lf,
        t.lineitem(),
        &["p_partkey", "ps_suppkey"],
        &["l_partkey", "l_suppkey"],
    );
    let lf = inner_join(lf, t.orders(), &["l_orderkey"], &["o_orderkey"]);
    let lf = inner_join(lf, t.nation(), &["s_nationkey"], &["n_nationkey"])
        .filter(col("p_name").str().contains(lit("green"), true))
        .select([
            col("n_name").alias("nation"),
            col("o_orderdate").dt().year().alias("o_year"),
            (disc_price() - col("ps_supplycost") * col("l_quantity")).alias("amount"),
        ])
        .group_by([col("nation"), col("o_year")])
        .agg([round2(col("amount").sum()).alias("sum_profit")]);
    sort(lf, &["nation", "o_year"], &[false, true])
}

fn q10(t: &Lazy) -> LazyFrame {
    let lf = inner_join(t.customer(), t.orders(), &["c_custkey"], &["o_custkey"]);
    let lf = inner_join(lf, t.lineitem(), &["o_orderkey"], &["l_orderkey"]);
    let lf = inner_join(lf, t.nation(), &["c_nationkey"], &["n_nationkey"])
        .filter(col("o_orderdate").is_between(
            date(1993, 10, 1),
            date(1994, 1, 1),
            ClosedInterval::Left,
        ))
        .filter(col("l_returnflag").eq(lit("R")))
        .group_by(columns(&[
            "c_custkey",
            "c_name",
            "c_acctbal",
            "c_phone",
            "n_name",
            "c_address",
            "c_comment",
        ]))
        .agg([round2(disc_price().sum()).alias("revenue")])
        .select(columns(&[
            "c_custkey",
            "c_name",
            "revenue",
            "c_acctbal",
            "n_name",
            "c_address",
            "c_phone",
            "c_comment",
        ]));
    sort(lf, &["revenue"], &[true]).limit(20)
}

fn q11(t: &Lazy) -> LazyFrame {
    let q1 = inner_join(t.partsupp(), t.supplier(), &["ps_suppkey"], &["s_suppkey"]);
    let q1 = inner_join(q1, t.nation(), &["s_nationkey"], &["n_nationkey"])
        .filter(col("n_name").eq(lit("GERMANY")));
    let stock_value = || col("ps_supplycost") * col("ps_availqty");
    let threshold = q1
        .clone()
        .select([round2(stock_value().sum()).alias("tmp") * lit(0.0001)]);
    let lf = q1
        .group_by([col("ps_partkey")])
        .agg([round2(stock_value().sum()).alias("value")])
        .cross_join(threshold, None)
        .filter(col("value").gt(col("tmp")))
        .select(columns(&["ps_partkey", "value"]));
    sort(lf, &["value"], &[true])
}

fn q12(t: &Lazy) -> LazyFrame {
    let urgent = || col("o_orderpriority").is_in(one_of(&["1-URGENT", "2-HIGH"]), false);
    let lf = inner_join(t.orders(), t.lineitem(), &["o_orderkey"], &["l_orderkey"])
        .filter(col("l_shipmode").is_in(one_of(&["MAIL", "SHIP"]), false))
        .filter(col("l_commitdate").lt(col("l_receiptdate")))
        .filter(col("l_shipdate").lt(col("l_commitdate")))
        .filter(col("l_receiptdate").is_between(
            date(1994, 1, 1),
            date(1995, 1, 1),
            ClosedInterval::Left,
        ))
        .with_columns([
            when(urgent())
                .then(lit(1))
                .otherwise(lit(0))
                .alias("high_line_count"),
            when(urgent().not())
                .then(lit(1))
                .otherwise(lit(0))
                .alias("low_line_count"),
        ])
        .group_by([col("l_shipmode")])
        .agg([col("high_line_count").sum(), col("low_line_count").sum()]);
    sort(lf, &["l_shipmode"], &[false])
}

fn q13(t: &Lazy) -> LazyFrame {
    let orders = t.orders().filter(
        col("o_comment")
            .str()
            .contains(lit("special.*requests"), true)
            .not(),
    );
    let lf = join(
        t.customer(),
        orders,
        &["c_custkey"],
        &["o_custkey"],
        JoinType::Left,
    )
    .group_by([col("c_custkey")])
    .agg([col("o_orderkey").count().alias("c_count")])
    .group_by([col("c_count")])
    .agg([len()])
    .select([col("c_count"), col("len").alias("custdist")]);
    sort(lf, &["custdist", "c_count"], &[true, true])
}

fn q14(t: &Lazy) -> LazyFrame {
    inner_join(t.lineitem(), t.part(), &["l_partkey"], &["p_partkey"])
        .filter(col("l_shipdate").is_between(
            date(1995, 9, 1),
            date(1995, 10, 1),
            ClosedInterval::Left,
        ))
        .select([round2(
            lit(100.0)
                * when(col("p_type").str().contains(lit("PROMO*"), true))
                    .then(disc_price())
                    .otherwise(lit(0))
                    .sum()
                / disc_price().sum(),
        )
        .alias("promo_revenue")])
}

fn q15(t: &Lazy) -> LazyFrame {
    let revenue = t
        .lineitem()
        .filter(col("l_shipdate").is_between(
            date(1996, 1, 1),
            date(1996, 4, 1),
            ClosedInterval::Left,
        ))
        .group_by([col("l_suppkey")])
        .agg([disc_price().sum().alias("total_revenue")])
        .select([col("l_suppkey").alias("supplier_no"), col("total_revenue")]);
    let lf = inner_join(t.supplier(), revenue, &["s_suppkey"], &["supplier_no"])
        .filter(col("total_revenue").eq(col("total_revenue").max()))
        .with_columns([round2(col("total_revenue"))])
        .select(columns(&[
            "s_suppkey",
            "s_name",
            "s_address",
            "s_phone",
            "total_revenue",
        ]));
    sort(lf, &["s_suppkey"], &[false])
}

fn q16(t: &Lazy) -> LazyFrame {
    let complaints = t
        .supplier()
        .filter(
            col("s_comment")
                .str()
                .contains(lit(".*Customer.*Complaints.*"), true),
        )
        .select([col("s_suppkey"), col("s_suppkey").alias("ps_suppkey")]);
    let lf = inner_join(t.part(), t.partsupp(), &["p_partkey"], &["ps_partkey"])
        .filter(col("p_brand").neq(lit("Brand#45")))
        .filter(
            col("p_type")
                .str()
                .contains(lit("MEDIUM POLISHED*"), true)
                .not(),
        )
        .filter(col("p_size").is_in(one_of_ints(&[49, 14, 23, 45, 19, 3, 36, 9]), false));
    let lf = join(
        lf,
        complaints,
        &["ps_suppkey"],
        &["s_suppkey"],
        JoinType::Left,
    )
    .filter(col("ps_suppkey_right").is_null())
    .group_by([col("p_brand"), col("p_type"), col("p_size")])
    .agg([col("ps_suppkey").n_unique().alias("supplier_cnt")]);
    sort(
        lf,
        &["supplier_cnt", "p_brand", "p_type", "p_size"],
        &[true, false, false, false],
    )
}

fn q17(t: &Lazy) -> LazyFrame {
    let parts = t
        .part()
        .filter(col("p_brand").eq(lit("Brand#23")))
        .filter(col("p_container").eq(lit("MED BOX")));
    let q1 = join(
        parts,
        t.lineitem(),
        &["p_partkey"],
        &["l_partkey"],
        JoinType::Left,
    );
    let averages = q1
        .clone()
        .group_by([col("p_partkey")])
        .agg([(lit(0.2) * col("l_quantity").mean()).alias("avg_quantity")])
        .select([col("p_partkey").alias("key"), col("avg_quantity")]);
    inner_join(averages, q1, &["key"], &["p_partkey"])
        .filter(col("l_quantity").lt(col("avg_quantity")))
        .select([round2(col("l_extendedprice").sum() / lit(7.0)).alias("avg_yearly")])
}

fn q18(t: &Lazy) -> LazyFrame {
    let big = t
        .lineitem()
        .group_by([col("l_orderkey")])
        .agg([col("l_quantity").sum().alias("sum_quantity")])
        .filter(col("sum_quantity").gt(lit(300)));
    let lf = join(
        t.orders(),
        big,
        &["o_orderkey"],
        &["l_orderkey"],
        JoinType::Semi,
    );
    let lf = inner_join(lf, t.lineitem(), &["o_orderkey"], &["l_orderkey"]);
    let lf = inner_join(lf, t.customer(), &["o_custkey"], &["c_custkey"])
        .group_by(columns(&[
            "c_name",
            "o_custkey",
            "o_orderkey",
            "o_orderdate",
            "o_totalprice",
        ]))
        .agg([col("l_quantity").sum().alias("col6")])
        .select([
            col("c_name"),
            col("o_custkey").alias("c_custkey"),
            col("o_orderkey"),
            col("o_orderdate").alias("o_orderdat"),
            col("o_totalprice"),
            col("col6"),
        ]);
    sort(lf, &["o_totalprice", "o_orderdat"], &[true, false]).limit(100)
}

fn q19(t: &Lazy) -> LazyFrame {
    let case = |brand: &str, containers: &[&str], quantity: (i32, i32), size: i32| {
        col("p_brand")
            .eq(lit(brand.to_owned()))
            .and(col("p_container").is_in(one_of(containers), false))
            .and(col("l_quantity").is_between(
                lit(quantity.0),
                lit(quantity.1),
                ClosedInterval::Both,
            ))
            .and(col("p_size").is_between(lit(1), lit(size), ClosedInterval::Both))
    };
    inner_join(t.part(), t.lineitem(), &["p_partkey"], &["l_partkey"])
        .filter(col("l_shipmode").is_in(one_of(&["AIR", "AIR REG"]), false))
        .filter(col("l_shipinstruct").eq(lit("DELIVER IN PERSON")))
        .filter(
            case(
                "Brand#12",
                &["SM CASE", "SM BOX", "SM PACK", "SM PKG"],
                (1, 11),
                5,
            )
            .or(case(
                "Brand#23",
                &["MED BAG", "MED BOX", "MED PKG", "MED PACK"],
                (10, 20),
                10,
            ))
            .or(case(
                "Brand#34",
                &["LG CASE", "LG BOX", "LG PACK", "LG PKG"],
                (20, 30),
                15,
            )),
        )
        .select([round2(disc_price().sum()).alias("revenue")])
}

fn q20(t: &Lazy) -> LazyFrame {
    let shipped = t
        .lineitem()
        .filter(col("l_shipdate").is_between(
            date(1994, 1, 1),
            date(1995, 1, 1),
            ClosedInterval::Left,
        ))
        .group_by([col("l_partkey"), col("l_suppkey")])
        .agg([(col("l_quantity").sum() * lit(0.5)).alias("sum_quantity")]);
    let canada = t.nation().filter(col("n_name").eq(lit("CANADA")));
    let suppliers = inner_join(t.supplier(), canada, &["s_nationkey"], &["n_nationkey"]);
    let forest = t
        .part()
        .filter(col("p_name").str().starts_with(lit("forest")))
        .select([col("p_partkey").unique()]);
    let lf = inner_join(forest, t.partsupp(), &["p_partkey"], &["ps_partkey"]);
    let lf = inner_join(
        lf,
        shipped,
        &["ps_suppkey", "p_partkey"],
        &["l_suppkey", "l_partkey"],
    )
    .filter(col("ps_availqty").gt(col("sum_quantity")))
    .select([col("ps_suppkey").unique()]);
    let lf = inner_join(lf, suppliers, &["ps_suppkey"], &["s_suppkey"])
        .select(columns(&["s_name", "s_address"]));
    sort(lf, &["s_name"], &[false])
}

fn q21(t: &Lazy) -> LazyFrame {
    let late = t
        .lineitem()
        .filter(col("l_receiptdate").gt(col("l_commitdate")));
    let q1 = t
        .lineitem()
        .group_by([col("l_orderkey")])
        .agg([col("l_suppkey").len().alias("n_supp_by_order")])
        .filter(col("n_supp_by_order").gt(lit(1)));
    let q1 = inner_join(q1, late, &["l_orderkey"], &["l_orderkey"]);
    let counts = q1
        .clone()
        .group_by([col("l_orderkey")])
        .agg([col("l_suppkey").len().alias("n_supp_by_order")]);
    let lf = inner_join(counts, q1, &["l_orderkey"], &["l_orderkey"]);
    let lf = inner_join(lf, t.supplier(), &["l_suppkey"], &["s_suppkey"]);
    let lf = inner_join(lf, t.nation(), &["s_nationkey"], &["n_nationkey"]);
    let lf = inner_join(lf, t.orders(), &["l_orderkey"], &["o_orderkey"])
        .filter(col("n_supp_by_order").eq(lit(1)))
        .filter(col("n_name").eq(lit("SAUDI ARABIA")))
        .filter(col("o_orderstatus").eq(lit("F")))
        .group_by([col("s_name")])
        .agg([len().alias("numwait")]);
    sort(lf, &["numwait", "s_name"], &[true, false]).limit(100)
}

fn q22(t: &Lazy) -> LazyFrame {
    let q1 = t
        .customer()
        .with_columns([col("c_phone")
            .str()
            .slice(lit(0), lit(2))
            .alias("cntrycode")])
        .filter(
            col("cntrycode")
                .str()
                .contains(lit("13|31|23|29|30|18|17"), true),
        )
        .select(columns(&["c_acctbal", "c_custkey", "cntrycode"]));
    let average = q1
        .clone()
        .filter(col("c_acctbal").gt(lit(0.0)))
        .select([col("c_acctbal").mean().alias("avg_acctbal")]);
    let with_orders = t
        .orders()
        .select([col("o_custkey").unique()])
        .with_columns([col("o_custkey").alias("c_custkey")]);
    let lf = join(
        q1,
        with_orders,
        &["c_custkey"],
        &["c_custkey"],
        JoinType::Left,
    )
    .filter(col("o_custkey").is_null())
    .cross_join(average, None)
    .filter(col("c_acctbal").gt(col("avg_acctbal")))
    .group_by([col("cntrycode")])
    .agg([
        col("c_acctbal").count().alias("numcust"),
        round2(col("c_acctbal").sum()).alias("totacctbal"),
    ]);
    sort(lf, &["cntrycode"], &[false])
}
