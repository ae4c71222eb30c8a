//! `polars-gpu`: runs a few Polars queries on the chosen engine and says which engine ran each.

use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use engine_select::{Engine, LazyFrameExt};
use polars::prelude::*;

/// Runs sample Polars queries on the engine of your choice and reports, for
/// each, the engine that produced the result and why the GPU did not.
#[derive(Debug, Parser)]
#[command(name = "polars-gpu", version)]
struct Args {
    /// Engine: auto, cpu, in-memory, streaming or gpu.
    #[arg(long, default_value = "gpu", value_parser = parse_engine)]
    engine: Engine,
    /// GPU device ordinal (default: POLARS_GPU_DEVICE, else 0).
    #[arg(long)]
    device: Option<usize>,
    /// Fail instead of falling back to the CPU when the GPU cannot run a query.
    #[arg(long)]
    raise_on_fail: bool,
    /// Run only the queries whose name contains this text.
    #[arg(long)]
    query: Option<String>,
    /// Print each query's GPU plan (or why it has none) instead of running it.
    #[arg(long)]
    explain: bool,
    /// Rows of sample data.
    #[arg(long, default_value_t = 10_000)]
    rows: usize,
}

fn parse_engine(name: &str) -> Result<Engine, String> {
    name.parse()
        .map_err(|e: engine_select::EngineError| e.to_string())
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let args = Args::parse();
    let engine = match args.engine {
        Engine::Gpu(gpu) => {
            let gpu = match args.device {
                Some(device) => gpu.with_device(device),
                None => gpu,
            };
            Engine::Gpu(gpu.with_raise_on_fail(args.raise_on_fail))
        }
        _ if args.device.is_some() || args.raise_on_fail => {
            eprintln!("error: --device and --raise-on-fail apply to --engine gpu only");
            return ExitCode::from(2);
        }
        other => other,
    };
    let data = match sample_data(args.rows) {
        Ok(data) => data,
        Err(e) => {
            eprintln!("error: could not build the sample data: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut failed = 0;
    for (name, query) in sample_queries(&data) {
        if args
            .query
            .as_deref()
            .is_some_and(|part| !name.contains(part))
        {
            continue;
        }
        println!("== {name}");
        if args.explain {
            match engine_select::explain_gpu(query) {
                Ok(text) => println!("{text}"),
                Err(e) => {
                    failed += 1;
                    println!("error: {e}\n");
                }
            }
            continue;
        }
        let started = Instant::now();
        match query.collect_with_report(&engine) {
            Ok((df, report)) => {
                println!("{report}");
                println!("rows: {}, time: {:.1?}", df.height(), started.elapsed());
                println!("{df}\n");
            }
            Err(e) => {
                failed += 1;
                println!("error: {e}\n");
            }
        }
    }
    if failed > 0 {
        eprintln!("{failed} query(ies) failed");
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Orders and customers, with nulls, deterministic for a given size.
struct SampleData {
    orders: DataFrame,
    customers: DataFrame,
}

fn sample_data(rows: usize) -> PolarsResult<SampleData> {
    let n_customers = (rows / 10).max(1);
    let customer_ids: Vec<i64> = (0..rows)
        .map(|i| ((i * 7919) % n_customers) as i64)
        .collect();
    let amounts: Vec<Option<f64>> = (0..rows)
        .map(|i| (i % 13 != 0).then(|| ((i * 37) % 1000) as f64 / 10.0))
        .collect();
    let quantities: Vec<Option<i32>> = (0..rows)
        .map(|i| (i % 17 != 0).then_some(((i * 11) % 50) as i32))
        .collect();
    let statuses: Vec<&str> = (0..rows)
        .map(|i| ["open", "shipped", "returned"][i % 3])
        .collect();
    let orders = df!(
        "order_id" => (0..rows as i64).collect::<Vec<_>>(),
        "customer_id" => customer_ids,
        "amount" => amounts,
        "quantity" => quantities,
        "status" => statuses,
    )?;
    let segments: Vec<Option<&str>> = (0..n_customers)
        .map(|i| (i % 19 != 0).then_some(["retail", "wholesale", "online"][i % 3]))
        .collect();
    let customers = df!(
        "customer_id" => (0..n_customers as i64).collect::<Vec<_>>(),
        "segment" => segments,
    )?;
    Ok(SampleData { orders, customers })
}

fn sample_queries(data: &SampleData) -> Vec<(&'static str, LazyFrame)> {
    let orders = || data.orders.clone().lazy();
    let customers = || data.customers.clone().lazy();
    vec![
        (
            "filter",
            orders()
                .filter(
                    col("amount")
                        .gt(lit(50.0))
                        .and(col("status").eq(lit("open"))),
                )
                .select([col("order_id"), col("amount")]),
        ),
        (
            "group-by",
            orders()
                .group_by([col("status")])
                .agg([
                    col("amount").sum().alias("revenue"),
                    col("quantity").mean().alias("mean_quantity"),
                    len().alias("orders"),
                ])
                .sort(["status"], SortMultipleOptions::default()),
        ),
        (
            "join",
            orders()
                .join(
                    customers(),
                    [col("customer_id")],
                    [col("customer_id")],
                    JoinArgs::new(JoinType::Inner),
                )
                .group_by([col("segment")])
                .agg([(col("amount") * col("quantity").cast(DataType::Float64))
                    .sum()
                    .alias("value")])
                .sort(["segment"], SortMultipleOptions::default()),
        ),
        (
            "top-10",
            orders()
                .sort(
                    ["amount", "order_id"],
                    SortMultipleOptions::default()
                        .with_order_descending_multi([true, false])
                        .with_nulls_last(true),
                )
                .limit(10),
        ),
    ]
}
