//! Façade costs: collect through engine-select vs plain `collect()`, and the GPU engine's start-up.

use std::hint::black_box;

use benches::{orders, small_query};
use criterion::{Criterion, criterion_group, criterion_main};
use engine_select::{Engine, LazyFrameExt};

/// Plain `collect()` beside the same query through the façade on each
/// engine. On a machine without a GPU the `gpu` case is the whole fallback
/// path: configuration, the (cached) driver probe, the reasons, the CPU run.
fn facade_overhead(c: &mut Criterion) {
    let orders = orders(1_000).expect("bench data");
    let mut group = c.benchmark_group("facade_overhead");
    group.bench_function("polars_collect", |b| {
        b.iter(|| black_box(small_query(&orders).collect().unwrap()))
    });
    for engine in [Engine::Auto, Engine::InMemory, Engine::gpu()] {
        group.bench_function(format!("collect_with_{engine}"), |b| {
            b.iter(|| black_box(small_query(&orders).collect_with(&engine).unwrap()))
        });
    }
    group.finish();
}

/// The GPU engine's one-time start against what every later collect pays:
/// an uncached driver probe (load libcuda, cuInit, read the devices) vs the
/// cached answer.
fn gpu_start(c: &mut Criterion) {
    let mut group = c.benchmark_group("gpu_start");
    group.bench_function("first_collect_probe", |b| {
        b.iter(|| black_box(gpu_runtime::probe_driver().is_ok()))
    });
    group.bench_function("later_collect_probe", |b| {
        b.iter(|| black_box(gpu_runtime::driver().is_ok()))
    });
    group.finish();
}

criterion_group!(benches, facade_overhead, gpu_start);
criterion_main!(benches);
