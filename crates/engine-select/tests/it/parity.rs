//! Every engine through the façade gives exactly what `LazyFrame::collect` gives.

use std::thread;

use engine_select::{Engine, GpuEngine, LazyFrameExt, collect_all_with};
use polars::prelude::*;

use crate::{customers, orders};

fn queries() -> Vec<(&'static str, LazyFrame)> {
    // Join output order is unspecified in Polars unless asked for.
    let ordered = |how| JoinArgs {
        maintain_order: MaintainOrderJoin::Left,
        ..JoinArgs::new(how)
    };
    let inner = ordered(JoinType::Inner);
    vec![
        ("filter", orders().filter(col("amount").gt(lit(2.0)))),
        (
            "filter-null-aware",
            orders().filter(col("status").is_null().or(col("qty").lt_eq(lit(3)))),
        ),
        (
            "project",
            orders().select([
                col("id"),
                (col("amount") * col("qty").cast(DataType::Float64)).alias("value"),
                col("status").fill_null(lit("unknown")),
            ]),
        ),
        (
            "with-columns",
            orders().with_columns([(col("qty") % lit(3)).alias("qty_mod")]),
        ),
        (
            "group-by-sum-mean",
            orders()
                .group_by_stable([col("status")])
                .agg([col("amount").sum(), col("qty").mean().alias("mean_qty")]),
        ),
        (
            "group-by-count-len",
            orders().group_by_stable([col("customer")]).agg([
                col("qty").count().alias("n_qty"),
                len().alias("n"),
                col("amount").min().alias("min"),
                col("amount").max().alias("max"),
            ]),
        ),
        (
            "inner-join",
            orders().join(
                customers(),
                [col("customer")],
                [col("customer")],
                inner.clone(),
            ),
        ),
        (
            "left-join",
            orders().join(
                customers(),
                [col("customer")],
                [col("customer")],
                ordered(JoinType::Left),
            ),
        ),
        (
            "sort-nulls-last",
            orders().sort(
                ["amount"],
                SortMultipleOptions::default()
                    .with_order_descending(true)
                    .with_nulls_last(true)
                    .with_maintain_order(true),
            ),
        ),
        (
            "sort-multi",
            orders().sort(
                ["status", "id"],
                SortMultipleOptions::default().with_order_descending_multi([false, true]),
            ),
        ),
        (
            "top-3",
            orders()
                .sort(
                    ["qty"],
                    SortMultipleOptions::default().with_maintain_order(true),
                )
                .limit(3),
        ),
        (
            "join-group-sort",
            orders()
                .join(customers(), [col("customer")], [col("customer")], inner)
                .group_by([col("name")])
                .agg([col("amount").sum().alias("total")])
                .sort(["name"], Default::default()),
        ),
        ("empty-result", orders().filter(col("id").gt(lit(100)))),
    ]
}

/// The ordinal of a device no test machine has.
const ABSENT_DEVICE: usize = 7;

fn engines() -> Vec<Engine> {
    vec![
        Engine::Auto,
        Engine::InMemory,
        Engine::Streaming,
        Engine::gpu(),
        Engine::Gpu(GpuEngine::new().with_device(ABSENT_DEVICE)),
    ]
}

/// Whether `engine` must fall back for want of a device: a GPU engine
/// without a driver, or on an ordinal the driver does not have. (Every
/// query here runs on a device that exists.)
fn must_fall_back(engine: &Engine) -> bool {
    let Engine::Gpu(gpu) = engine else {
        return false;
    };
    match gpu_runtime::driver() {
        Ok(driver) => driver.device(gpu.device().unwrap_or(0)).is_err(),
        Err(_) => true,
    }
}

fn assert_same(name: &str, engine: &Engine, expected: &DataFrame, actual: &DataFrame) {
    assert_eq!(
        expected.schema(),
        actual.schema(),
        "{name} on {engine}: dtypes differ"
    );
    assert!(
        expected.equals_missing(actual),
        "{name} on {engine}: values differ\nexpected {expected}\nactual {actual}"
    );
}

#[test]
fn every_engine_matches_collect() {
    for (name, query) in queries() {
        let expected = query.clone().collect().unwrap();
        for engine in engines() {
            let (actual, report) = query.clone().collect_with_report(&engine).unwrap();
            assert_same(name, &engine, &expected, &actual);
            assert_eq!(
                report.fell_back(),
                must_fall_back(&engine),
                "{name} on {engine}: {report}"
            );
        }
    }
}

#[test]
fn collect_all_matches_collect_in_order() {
    for engine in engines() {
        let (names, frames): (Vec<_>, Vec<_>) = queries().into_iter().unzip();
        let expected: Vec<DataFrame> = frames
            .iter()
            .map(|q| q.clone().collect().unwrap())
            .collect();
        let actual = collect_all_with(frames, &engine).unwrap();
        assert_eq!(actual.len(), expected.len());
        for ((name, expected), actual) in names.iter().zip(&expected).zip(&actual) {
            assert_same(name, &engine, expected, actual);
        }
    }
    assert!(
        collect_all_with(Vec::new(), &Engine::Auto)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn eight_threads_collect_at_once() {
    let expected: Vec<DataFrame> = queries()
        .into_iter()
        .map(|(_, q)| q.collect().unwrap())
        .collect();
    thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|t| {
                let expected = &expected;
                scope.spawn(move || {
                    let engine = if t % 2 == 0 {
                        Engine::gpu()
                    } else {
                        Engine::InMemory
                    };
                    for _ in 0..3 {
                        for ((name, query), expected) in queries().into_iter().zip(expected) {
                            let actual = query.collect_with(&engine).unwrap();
                            assert_same(name, &engine, expected, &actual);
                        }
                    }
                })
            })
            .collect();
        for handle in handles {
            handle.join().expect("a collecting thread panicked");
        }
    });
}
