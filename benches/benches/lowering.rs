//! Lowering time of each PDS-H query: Polars' optimised IR to a GPU plan (target: under 100 µs).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use pdsh::{QUERY_COUNT, Tables, query};

fn lowering(c: &mut Criterion) {
    let tables = Tables::empty().expect("PDS-H schemas");
    let mut group = c.benchmark_group("lower_pdsh");
    for number in 1..=QUERY_COUNT {
        let lf = query(number, &tables).expect("a PDS-H query");
        let plan = lf.to_alp_optimized().expect("the query optimises");
        group.bench_function(format!("q{number}"), |b| {
            b.iter(|| {
                black_box(ir_lower::lower_plan(
                    plan.lp_top,
                    &plan.lp_arena,
                    &plan.expr_arena,
                ))
                .is_ok()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, lowering);
criterion_main!(benches);
