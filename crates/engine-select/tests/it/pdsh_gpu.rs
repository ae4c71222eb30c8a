//! The 22 PDS-H queries through the GPU engine on the device under test (emulated unless `GPU_TEST_DEVICE` names a GPU): CPU answers, and which still fall back.

use engine_select::{Engine, FallbackKind, LazyFrameExt};
use pdsh::{QUERY_COUNT, Tables, query};
use polars::prelude::{LazyFrame, PolarsResult};

use crate::assert_frames_close;

/// Queries the GPU path cannot run yet, each with the start of the first
/// reason it gives (what the executor lacks first). This table only shrinks:
/// a query that starts running on the device fails this test until it is
/// taken out; one whose first missing piece changes needs its entry updated.
const EXPECTED_FALLBACKS: &[(usize, &str)] = &[];

#[test]
fn pdsh_on_the_device_under_test_matches_the_cpu_and_falls_back_only_as_listed() {
    let tables = Tables::generate(0.005, false).unwrap();
    let engine = Engine::Gpu(crate::under_test());
    let mut report_lines = Vec::new();
    let mut problems: Vec<String> = Vec::new();
    for number in 1..=QUERY_COUNT {
        let lf = query(number, &tables).unwrap();
        let expected = lf.clone().collect().unwrap();
        let (actual, report) = lf.collect_with_report(&engine).unwrap();
        assert_frames_close(&expected, &actual, &format!("q{number}: {report}"));
        let first = report.fallback_reasons.first().map(|r| r.message.clone());
        report_lines.push(format!(
            "    ({number}, {:?}),",
            first.clone().unwrap_or_default()
        ));
        let listed = EXPECTED_FALLBACKS.iter().find(|(n, _)| *n == number);
        match (listed, first) {
            (None, None) => assert!(
                report.executed_by == crate::under_test_executed_by(),
                "q{number}: {report}"
            ),
            (Some((_, reason)), Some(first)) if first.starts_with(reason) => {}
            (Some((_, reason)), Some(first)) => problems.push(format!(
                "q{number} falls back with {first:?}, listed with {reason:?}"
            )),
            (None, Some(first)) => {
                problems.push(format!("q{number} falls back ({first}) but is not listed"))
            }
            (Some(_), None) => problems.push(format!(
                "q{number} now runs on the device: take it out of EXPECTED_FALLBACKS"
            )),
        }
    }
    assert!(
        problems.is_empty(),
        "{}\nthe table as it stands:\n{}",
        problems.join("\n"),
        report_lines.join("\n")
    );
}

/// Queries that still fall back for lack of memory with the device's
/// memory limited to an eighth of the tables' bytes (docs/partitioned.md
/// says what comes next). This list only shrinks.
const OUT_OF_MEMORY_AT_AN_EIGHTH: &[usize] = &[];

/// The 22 queries with the device's memory limited to an eighth of the
/// tables' bytes: the CPU's answer, on the device (partitioned where the
/// inputs do not fit) but for the queries listed.
#[test]
fn pdsh_with_an_eighth_of_the_tables_bytes_runs_partitioned() {
    let tables = Tables::generate(0.005, false).unwrap();
    let bytes: usize = tables
        .named()
        .iter()
        .map(|(_, df)| df.estimated_size())
        .sum();
    let limited = crate::under_test().with_device_memory_limit(bytes as u64 / 8);
    let mut out_of_memory = Vec::new();
    for number in 1..=QUERY_COUNT {
        let lf = query(number, &tables).unwrap();
        let expected = lf.clone().collect().unwrap();
        let (actual, report) = lf
            .collect_with_report(&Engine::Gpu(limited.clone()))
            .unwrap();
        // Sums of money added per partition and then merged round to
        // cents otherwise now and then (q9): within a cent, as the PDS-H
        // answers are checked.
        let within = crate::frames::frames_differ_within(&expected, &actual, 0.010_000_1);
        assert_eq!(within, None, "q{number}: {report}");
        if report.fell_back() {
            let kinds: Vec<_> = report.fallback_reasons.iter().map(|r| r.kind).collect();
            assert_eq!(kinds, [FallbackKind::OutOfMemory], "q{number}: {report}");
            out_of_memory.push(number);
        } else {
            assert_eq!(
                report.executed_by,
                crate::under_test_executed_by(),
                "q{number}"
            );
        }
    }
    assert_eq!(out_of_memory, OUT_OF_MEMORY_AT_AN_EIGHTH);
}

/// The 22 queries over scans of the tables' Parquet files, with the
/// device's memory limited to an eighth of the tables' bytes: the
/// automatic executor leaves the large scans in the plan, and the
/// partitioned executor reads them in partitions. Every query on the
/// device (fallback disabled), every answer the CPU's reading the same
/// files.
#[test]
fn pdsh_from_parquet_files_reads_the_large_scans_in_partitions() {
    let reading = from_files("parquet", Tables::write_parquet, pdsh::query_parquet);
    // The queries that read a scan in partitions (the others read theirs
    // whole: small tables, or a scan a node takes whole). This list only
    // grows.
    assert_eq!(
        reading,
        [1, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 15, 17, 18, 19, 20, 21]
    );
}

/// As [`pdsh_from_parquet_files_reads_the_large_scans_in_partitions`],
/// over the tables' CSV files (read by the tables' schemas, which Polars
/// reads nothing of before running: engine-select sizes them by their
/// bytes).
#[test]
fn pdsh_from_csv_files_reads_the_large_scans_in_partitions() {
    let reading = from_files("csv", Tables::write_csv, pdsh::query_csv);
    // (Sized by their bytes, more of the smaller tables' files read in
    // partitions than of Parquet files.) This list only grows.
    assert_eq!(reading, (1..=21).collect::<Vec<_>>());
}

/// The 22 queries over the tables written by `write` (at scale factor
/// 0.005) and scanned by `query`, under an eighth of the tables' bytes, as
/// the tests above check them: the queries that read a scan in partitions.
fn from_files(
    format: &str,
    write: fn(&Tables, &std::path::Path) -> PolarsResult<Vec<std::path::PathBuf>>,
    query: fn(usize, &std::path::Path) -> PolarsResult<LazyFrame>,
) -> Vec<usize> {
    let tables = Tables::generate(0.005, false).unwrap();
    let dir = std::env::temp_dir().join(format!("pdsh-{format}-{}", std::process::id()));
    write(&tables, &dir).unwrap();
    let bytes: usize = tables
        .named()
        .iter()
        .map(|(_, df)| df.estimated_size())
        .sum();
    let limited = crate::under_test()
        .with_device_memory_limit(bytes as u64 / 8)
        .with_raise_on_fail(true);
    let mut reading_partitions = Vec::new();
    for number in 1..=QUERY_COUNT {
        let lf = query(number, &dir).unwrap();
        let expected = lf.clone().collect().unwrap();
        let (actual, report) = lf
            .collect_with_report(&Engine::Gpu(limited.clone()))
            .unwrap_or_else(|e| panic!("q{number} from {format}: {e}"));
        let within = crate::frames::frames_differ_within(&expected, &actual, 0.010_000_1);
        assert_eq!(within, None, "q{number} from {format}: {report}");
        assert_eq!(
            report.executed_by,
            crate::under_test_executed_by(),
            "q{number} from {format}"
        );
        if report
            .partitioned
            .is_some_and(|run| run.file_partitions > 0)
        {
            reading_partitions.push(number);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    reading_partitions
}

/// The 22 queries over the tables with money as `Decimal(15, 2)` (TPC-H's
/// types): every query on the device, every answer the CPU's (decimal sums
/// exact; means, and money cast to floats, as Polars computes them); and
/// partitioned, with the device's memory limited to an eighth of the
/// tables' bytes, every query on the device, within a cent (float sums
/// merged from partitions).
#[test]
fn pdsh_with_decimal_money_runs_on_the_device_and_matches_the_cpu() {
    let tables = Tables::generate(0.005, false)
        .unwrap()
        .with_decimals()
        .unwrap();
    let bytes: usize = tables
        .named()
        .iter()
        .map(|(_, df)| df.estimated_size())
        .sum();
    let whole = crate::under_test();
    let partitioned = crate::under_test().with_device_memory_limit(bytes as u64 / 8);
    let mut fell_back = Vec::new();
    for number in 1..=QUERY_COUNT {
        let lf = query(number, &tables).unwrap();
        let expected = lf.clone().collect().unwrap();
        for (engine, exact) in [(&whole, true), (&partitioned, false)] {
            let (actual, report) = lf
                .clone()
                .collect_with_report(&Engine::Gpu(engine.clone()))
                .unwrap();
            let context = format!("q{number}: {report}");
            match exact {
                true => assert_frames_close(&expected, &actual, &context),
                false => {
                    let within =
                        crate::frames::frames_differ_within(&expected, &actual, 0.010_000_1);
                    assert_eq!(within, None, "{context}");
                }
            }
            if report.executed_by != crate::under_test_executed_by() {
                fell_back.push(context);
            }
        }
    }
    assert!(fell_back.is_empty(), "{}", fell_back.join("\n"));
}
