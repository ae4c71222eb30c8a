//! The eight PDS-H tables as Polars DataFrames, generated with tpchgen.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};
use polars::prelude::*;
use rayon::prelude::*;
use tpchgen::generators::{
    CustomerGenerator, LineItemGenerator, NationGenerator, OrderGenerator, PartGenerator,
    PartSuppGenerator, RegionGenerator, SupplierGenerator,
};

/// The PDS-H tables.
#[derive(Debug, Clone)]
pub struct Tables {
    pub customer: DataFrame,
    pub lineitem: DataFrame,
    pub nation: DataFrame,
    pub orders: DataFrame,
    pub part: DataFrame,
    pub partsupp: DataFrame,
    pub region: DataFrame,
    pub supplier: DataFrame,
}

/// Column builders for one chunk of a table.
#[derive(Default)]
struct Columns {
    columns: Vec<Column>,
}

impl Columns {
    fn int(mut self, name: &str, values: Vec<i64>) -> Self {
        self.columns.push(Column::new(name.into(), values));
        self
    }

    fn int32(mut self, name: &str, values: Vec<i32>) -> Self {
        self.columns.push(Column::new(name.into(), values));
        self
    }

    fn float(mut self, name: &str, values: Vec<f64>) -> Self {
        self.columns.push(Column::new(name.into(), values));
        self
    }

    fn text(mut self, name: &str, values: Vec<String>) -> Self {
        self.columns.push(Column::new(name.into(), values));
        self
    }

    fn date(mut self, name: &str, days_since_epoch: Vec<i32>) -> PolarsResult<Self> {
        let column = Column::new(name.into(), days_since_epoch).cast(&DataType::Date)?;
        self.columns.push(column);
        Ok(self)
    }

    fn finish(self) -> PolarsResult<DataFrame> {
        DataFrame::new_infer_height(self.columns)
    }
}

fn shown(value: impl std::fmt::Display) -> String {
    let mut text = String::new();
    let _ = write!(text, "{value}");
    text
}

/// Chunks per large table: enough to keep every core busy.
fn chunk_count(scale: f64) -> i32 {
    let threads = rayon::current_num_threads() as i32;
    if scale < 0.05 { 1 } else { threads * 4 }
}

impl Tables {
    /// Generates every table at `scale` (1.0 is about 1 GB of CSV), in
    /// parallel. With `progress`, draws a progress bar on the terminal.
    pub fn generate(scale: f64, progress: bool) -> PolarsResult<Tables> {
        polars_ensure!(
            scale.is_finite() && scale > 0.0,
            InvalidOperation: "the scale factor must be a positive number, got {scale}"
        );
        let chunks = chunk_count(scale);
        let bar = if progress {
            let bar = ProgressBar::new(5 * chunks as u64 + 3);
            bar.set_style(
                ProgressStyle::with_template("generating PDS-H tables {bar:30} {pos}/{len} chunks")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        } else {
            ProgressBar::hidden()
        };
        let table = |generate: fn(f64, i32, i32) -> PolarsResult<DataFrame>| {
            let parts: Vec<DataFrame> = (1..=chunks)
                .into_par_iter()
                .map(|part| {
                    let df = generate(scale, part, chunks);
                    bar.inc(1);
                    df
                })
                .collect::<PolarsResult<_>>()?;
            concat_frames(parts)
        };
        let single = |generate: fn(f64, i32, i32) -> PolarsResult<DataFrame>| {
            let df = generate(scale, 1, 1);
            bar.inc(1);
            df
        };
        let tables = Tables {
            customer: table(customer)?,
            lineitem: table(lineitem)?,
            nation: single(nation)?,
            orders: table(orders)?,
            part: table(part)?,
            partsupp: table(partsupp)?,
            region: single(region)?,
            supplier: single(supplier)?,
        };
        bar.finish_and_clear();
        Ok(tables)
    }

    /// The same tables with every money, discount and tax column as TPC-H
    /// defines it, `Decimal(15, 2)`, instead of f64 (as PDS-H in Polars is
    /// often run): the generator's values have two places, so the cast is
    /// exact.
    pub fn with_decimals(&self) -> PolarsResult<Tables> {
        let decimal = |df: &DataFrame| -> PolarsResult<DataFrame> {
            let floats: Vec<PlSmallStr> = df
                .columns()
                .iter()
                .filter(|column| column.dtype() == &DataType::Float64)
                .map(|column| column.name().clone())
                .collect();
            let casts: Vec<Expr> = floats
                .iter()
                .map(|name| {
                    col(name.clone())
                        .round(2, RoundMode::HalfToEven)
                        .cast(DataType::Decimal(15, 2))
                })
                .collect();
            df.clone().lazy().with_columns(casts).collect()
        };
        Ok(Tables {
            customer: decimal(&self.customer)?,
            lineitem: decimal(&self.lineitem)?,
            nation: decimal(&self.nation)?,
            orders: decimal(&self.orders)?,
            part: decimal(&self.part)?,
            partsupp: decimal(&self.partsupp)?,
            region: decimal(&self.region)?,
            supplier: decimal(&self.supplier)?,
        })
    }

    /// The tables by their PDS-H names.
    pub fn named(&self) -> [(&'static str, &DataFrame); 8] {
        [
            ("customer", &self.customer),
            ("lineitem", &self.lineitem),
            ("nation", &self.nation),
            ("orders", &self.orders),
            ("part", &self.part),
            ("partsupp", &self.partsupp),
            ("region", &self.region),
            ("supplier", &self.supplier),
        ]
    }

    /// Writes each table to `<dir>/<name>.parquet` (creating `dir`), the
    /// layout Polars' PDS-H benchmark reads, for scan benchmarks. A table is
    /// written to a temporary name first and renamed when complete, so a
    /// failure never leaves a half-written file under a table's name.
    pub fn write_parquet(&self, dir: &Path) -> PolarsResult<Vec<PathBuf>> {
        self.write_each(dir, "parquet", |file, df| {
            ParquetWriter::new(file).finish(df).map(|_| ())
        })
    }

    /// Writes each table to `<dir>/<name>.csv` (with a header), as
    /// [`Tables::write_parquet`] writes Parquet files; [`crate::query_csv`]
    /// scans them by the tables' schemas.
    pub fn write_csv(&self, dir: &Path) -> PolarsResult<Vec<PathBuf>> {
        self.write_each(dir, "csv", |file, df| CsvWriter::new(file).finish(df))
    }

    fn write_each(
        &self,
        dir: &Path,
        extension: &str,
        write: impl Fn(std::fs::File, &mut DataFrame) -> PolarsResult<()>,
    ) -> PolarsResult<Vec<PathBuf>> {
        std::fs::create_dir_all(dir)?;
        self.named()
            .into_iter()
            .map(|(name, df)| {
                let path = dir.join(format!("{name}.{extension}"));
                let partial = dir.join(format!(".{name}.{extension}.partial"));
                let file = std::fs::File::create(&partial)?;
                if let Err(e) = write(file, &mut df.clone()) {
                    let _ = std::fs::remove_file(&partial);
                    return Err(e);
                }
                std::fs::rename(&partial, &path)?;
                Ok(path)
            })
            .collect()
    }

    /// The tables with their columns and types but no rows: enough to build
    /// and optimise the queries.
    pub fn empty() -> PolarsResult<Tables> {
        Ok(Tables {
            customer: customer(0.0, 1, 1)?,
            lineitem: lineitem(0.0, 1, 1)?,
            nation: nation(0.0, 1, 1)?.clear(),
            orders: orders(0.0, 1, 1)?,
            part: part(0.0, 1, 1)?,
            partsupp: partsupp(0.0, 1, 1)?,
            region: region(0.0, 1, 1)?.clear(),
            supplier: supplier(0.0, 1, 1)?,
        })
    }
}

fn concat_frames(parts: Vec<DataFrame>) -> PolarsResult<DataFrame> {
    let mut parts = parts.into_iter();
    let mut df = parts.next().unwrap_or_default();
    for part in parts {
        df.vstack_mut_owned(part)?;
    }
    df.rechunk_mut();
    Ok(df)
}

fn customer(scale: f64, part: i32, parts: i32) -> PolarsResult<DataFrame> {
    let rows: Vec<_> = CustomerGenerator::new(scale, part, parts).iter().collect();
    Columns::default()
        .int("c_custkey", rows.iter().map(|r| r.c_custkey).collect())
        .text("c_name", rows.iter().map(|r| shown(r.c_name)).collect())
        .text(
            "c_address",
            rows.iter().map(|r| shown(&r.c_address)).collect(),
        )
        .int("c_nationkey", rows.iter().map(|r| r.c_nationkey).collect())
        .text("c_phone", rows.iter().map(|r| shown(&r.c_phone)).collect())
        .float(
            "c_acctbal",
            rows.iter().map(|r| r.c_acctbal.as_f64()).collect(),
        )
        .text(
            "c_mktsegment",
            rows.iter().map(|r| r.c_mktsegment.to_owned()).collect(),
        )
        .text(
            "c_comment",
            rows.iter().map(|r| r.c_comment.to_owned()).collect(),
        )
        .finish()
}

fn lineitem(scale: f64, part: i32, parts: i32) -> PolarsResult<DataFrame> {
    let rows: Vec<_> = LineItemGenerator::new(scale, part, parts).iter().collect();
    Columns::default()
        .int("l_orderkey", rows.iter().map(|r| r.l_orderkey).collect())
        .int("l_partkey", rows.iter().map(|r| r.l_partkey).collect())
        .int("l_suppkey", rows.iter().map(|r| r.l_suppkey).collect())
        .int32(
            "l_linenumber",
            rows.iter().map(|r| r.l_linenumber).collect(),
        )
        .float(
            "l_quantity",
            rows.iter().map(|r| r.l_quantity as f64).collect(),
        )
        .float(
            "l_extendedprice",
            rows.iter().map(|r| r.l_extendedprice.as_f64()).collect(),
        )
        .float(
            "l_discount",
            rows.iter().map(|r| r.l_discount.as_f64()).collect(),
        )
        .float("l_tax", rows.iter().map(|r| r.l_tax.as_f64()).collect())
        .text(
            "l_returnflag",
            rows.iter().map(|r| r.l_returnflag.to_owned()).collect(),
        )
        .text(
            "l_linestatus",
            rows.iter().map(|r| r.l_linestatus.to_owned()).collect(),
        )
        .date(
            "l_shipdate",
            rows.iter().map(|r| r.l_shipdate.to_unix_epoch()).collect(),
        )?
        .date(
            "l_commitdate",
            rows.iter()
                .map(|r| r.l_commitdate.to_unix_epoch())
                .collect(),
        )?
        .date(
            "l_receiptdate",
            rows.iter()
                .map(|r| r.l_receiptdate.to_unix_epoch())
                .collect(),
        )?
        .text(
            "l_shipinstruct",
            rows.iter().map(|r| r.l_shipinstruct.to_owned()).collect(),
        )
        .text(
            "l_shipmode",
            rows.iter().map(|r| r.l_shipmode.to_owned()).collect(),
        )
        .text(
            "l_comment",
            rows.iter().map(|r| r.l_comment.to_owned()).collect(),
        )
        .finish()
}

fn nation(_scale: f64, _part: i32, _parts: i32) -> PolarsResult<DataFrame> {
    let rows: Vec<_> = NationGenerator::default().iter().collect();
    Columns::default()
        .int("n_nationkey", rows.iter().map(|r| r.n_nationkey).collect())
        .text("n_name", rows.iter().map(|r| r.n_name.to_owned()).collect())
        .int("n_regionkey", rows.iter().map(|r| r.n_regionkey).collect())
        .text(
            "n_comment",
            rows.iter().map(|r| r.n_comment.to_owned()).collect(),
        )
        .finish()
}

fn orders(scale: f64, part: i32, parts: i32) -> PolarsResult<DataFrame> {
    let rows: Vec<_> = OrderGenerator::new(scale, part, parts).iter().collect();
    Columns::default()
        .int("o_orderkey", rows.iter().map(|r| r.o_orderkey).collect())
        .int("o_custkey", rows.iter().map(|r| r.o_custkey).collect())
        .text(
            "o_orderstatus",
            rows.iter().map(|r| shown(r.o_orderstatus)).collect(),
        )
        .float(
            "o_totalprice",
            rows.iter().map(|r| r.o_totalprice.as_f64()).collect(),
        )
        .date(
            "o_orderdate",
            rows.iter().map(|r| r.o_orderdate.to_unix_epoch()).collect(),
        )?
        .text(
            "o_orderpriority",
            rows.iter().map(|r| r.o_orderpriority.to_owned()).collect(),
        )
        .text("o_clerk", rows.iter().map(|r| shown(r.o_clerk)).collect())
        .int32(
            "o_shippriority",
            rows.iter().map(|r| r.o_shippriority).collect(),
        )
        .text(
            "o_comment",
            rows.iter().map(|r| r.o_comment.to_owned()).collect(),
        )
        .finish()
}

fn part(scale: f64, part: i32, parts: i32) -> PolarsResult<DataFrame> {
    let rows: Vec<_> = PartGenerator::new(scale, part, parts).iter().collect();
    Columns::default()
        .int("p_partkey", rows.iter().map(|r| r.p_partkey).collect())
        .text("p_name", rows.iter().map(|r| shown(&r.p_name)).collect())
        .text("p_mfgr", rows.iter().map(|r| shown(r.p_mfgr)).collect())
        .text("p_brand", rows.iter().map(|r| shown(r.p_brand)).collect())
        .text("p_type", rows.iter().map(|r| r.p_type.to_owned()).collect())
        .int32("p_size", rows.iter().map(|r| r.p_size).collect())
        .text(
            "p_container",
            rows.iter().map(|r| r.p_container.to_owned()).collect(),
        )
        .float(
            "p_retailprice",
            rows.iter().map(|r| r.p_retailprice.as_f64()).collect(),
        )
        .text(
            "p_comment",
            rows.iter().map(|r| r.p_comment.to_owned()).collect(),
        )
        .finish()
}

fn partsupp(scale: f64, part: i32, parts: i32) -> PolarsResult<DataFrame> {
    let rows: Vec<_> = PartSuppGenerator::new(scale, part, parts).iter().collect();
    Columns::default()
        .int("ps_partkey", rows.iter().map(|r| r.ps_partkey).collect())
        .int("ps_suppkey", rows.iter().map(|r| r.ps_suppkey).collect())
        .int32("ps_availqty", rows.iter().map(|r| r.ps_availqty).collect())
        .float(
            "ps_supplycost",
            rows.iter().map(|r| r.ps_supplycost.as_f64()).collect(),
        )
        .text(
            "ps_comment",
            rows.iter().map(|r| r.ps_comment.to_owned()).collect(),
        )
        .finish()
}

fn region(_scale: f64, _part: i32, _parts: i32) -> PolarsResult<DataFrame> {
    let rows: Vec<_> = RegionGenerator::default().iter().collect();
    Columns::default()
        .int("r_regionkey", rows.iter().map(|r| r.r_regionkey).collect())
        .text("r_name", rows.iter().map(|r| r.r_name.to_owned()).collect())
        .text(
            "r_comment",
            rows.iter().map(|r| r.r_comment.to_owned()).collect(),
        )
        .finish()
}

fn supplier(scale: f64, part: i32, parts: i32) -> PolarsResult<DataFrame> {
    let rows: Vec<_> = SupplierGenerator::new(scale, part, parts).iter().collect();
    Columns::default()
        .int("s_suppkey", rows.iter().map(|r| r.s_suppkey).collect())
        .text("s_name", rows.iter().map(|r| shown(r.s_name)).collect())
        .text(
            "s_address",
            rows.iter().map(|r| shown(&r.s_address)).collect(),
        )
        .int("s_nationkey", rows.iter().map(|r| r.s_nationkey).collect())
        .text("s_phone", rows.iter().map(|r| shown(&r.s_phone)).collect())
        .float(
            "s_acctbal",
            rows.iter().map(|r| r.s_acctbal.as_f64()).collect(),
        )
        .text(
            "s_comment",
            rows.iter().map(|r| r.s_comment.clone()).collect(),
        )
        .finish()
}
