//! Parquet scans the partitioned executor reads in ranges of rows (not whole on the host first): answers equal to Polars' reading the same file.

use engine_select::Executor;

use super::partitioned::{assert_partitioned_in, large, table};
use super::*;

/// A folder of this test's own, removed when dropped.
struct Folder(std::path::PathBuf);

impl Folder {
    fn new(name: &str) -> Folder {
        let path = std::env::temp_dir().join(format!("gpu-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&path).unwrap();
        Folder(path)
    }

    /// `lf` written as a Parquet file here, in row groups of
    /// `row_group` rows, and scanned.
    fn parquet(&self, name: &str, lf: LazyFrame, row_group: usize) -> LazyFrame {
        let path = self.0.join(format!("{name}.parquet"));
        ParquetWriter::new(std::fs::File::create(&path).unwrap())
            .with_row_group_size(Some(row_group))
            .finish(&mut lf.collect().unwrap())
            .unwrap();
        LazyFrame::scan_parquet(path.to_str().unwrap().into(), Default::default()).unwrap()
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `lf` (over a scan of a file of 60 rows) partitioned in partitions of 1,
/// 7, 25 and 1,000 rows, as `assert_partitioned_in` checks it. Partitions
/// of fewer rows than the scan reads read the file in ranges, a partition
/// each; 1,000 reads it whole.
fn assert_scanned(name: &str, lf: LazyFrame, close: bool) {
    assert_partitioned_in(name, lf, close, &[1, 7, 25, 1000], |context, report| {
        let run = report.partitioned.expect("partitioned");
        match run.rows_per_partition {
            1 => assert!(run.file_partitions > 1, "{context}: {report}"),
            1000 => assert_eq!(run.file_partitions, 0, "{context}: {report}"),
            _ => {}
        }
    });
}

#[test]
fn parquet_scans_read_in_ranges_of_rows_match_the_cpu() {
    let folder = Folder::new("partitioned-scans");
    // Row groups of 16 rows: ranges start and end inside them.
    let scan = folder.parquet("table", table(), 16);
    let right = folder.parquet("right", super::partitioned::table().slice(0, 6), 4);
    let stably = SortMultipleOptions::default().with_maintain_order(true);
    let exact: Vec<(&str, LazyFrame)> = vec![
        ("the whole file", scan.clone()),
        (
            "a predicate and a projection read with the scan, then row-wise nodes",
            scan.clone()
                .filter(col("k").gt(lit(-2)).or(col("t").eq(lit("a"))))
                .with_columns([(col("v") * col("f")).alias("vf")])
                .select([col("k"), col("vf"), col("t").str().to_uppercase(), col("d")]),
        ),
        (
            "a row index read with the scan, then a filter",
            scan.clone()
                .with_row_index("i", Some(5))
                .filter(col("c").lt(lit(9u32))),
        ),
        (
            "a filter, then a row index",
            scan.clone()
                .filter(col("v").gt(lit(0.0)))
                .with_row_index("i", None),
        ),
        (
            "a slice read with the scan",
            scan.clone().slice(13, 31).select([col("k"), col("t")]),
        ),
        ("a slice past the file's end", scan.clone().slice(50, 20)),
        (
            "a head after a filter",
            scan.clone().filter(col("k").is_not_null()).slice(0, 9),
        ),
        (
            "a group-by by buckets",
            scan.clone()
                .group_by_stable([col("t")])
                .agg([col("k").n_unique(), col("v").median()]),
        ),
        (
            "a stable sort by ranges",
            scan.clone().sort(["s", "k"], stably.clone()),
        ),
        (
            "a top-k",
            scan.clone()
                .sort(["c"], stably.with_order_descending(true))
                .slice(0, 5),
        ),
        (
            "a join of two scans, in the left's order",
            scan.clone().join(
                right.select([col("k"), col("t").alias("name")]),
                [col("k")],
                [col("k")],
                JoinArgs {
                    maintain_order: MaintainOrderJoin::Left,
                    ..JoinArgs::new(JoinType::Left)
                },
            ),
        ),
        (
            "one scan used twice (a shared subplan)",
            concat(
                [
                    scan.clone().filter(col("s").eq(lit(1i16))),
                    scan.clone().filter(col("s").eq(lit(-1i16))),
                ],
                UnionArgs::default(),
            )
            .unwrap(),
        ),
    ];
    for (name, lf) in exact {
        assert_scanned(name, lf, false);
    }
    assert_scanned(
        "a group-by of sums aggregated per partition",
        scan.group_by_stable([col("s")])
            .agg([col("v").sum(), col("k").count(), col("d").max()]),
        true,
    );
}

#[test]
fn a_file_larger_than_the_memory_limit_is_read_in_partitions() {
    // 200,000 rows of two i64 (3.2 MB) under a limit of 1 MiB: the
    // automatic choice leaves the scan to the partitioned executor, which
    // reads it a range of rows at a time.
    let folder = Folder::new("large-scan");
    let scan = folder.parquet("large", large(200_000), 50_000);
    let lf = scan
        .filter(col("b").lt(lit(900)))
        .with_columns([(col("a") * lit(2)).alias("c")])
        .group_by_stable([col("b")])
        .agg([col("c").sum(), col("a").min().alias("first")]);
    let expected = lf.clone().collect().unwrap();
    let engine = Engine::Gpu(
        under_test()
            .with_device_memory_limit(1 << 20)
            .with_raise_on_fail(true),
    );
    let (answer, report) = lf.collect_with_report(&engine).unwrap();
    assert_eq!(report.executed_by, under_test_executed_by());
    let run = report.partitioned.expect("partitioned");
    assert!(run.file_partitions > 20, "{report}");
    assert!(report.to_string().contains("read from files"), "{report}");
    assert!(expected.equals_missing(&answer), "{expected}\n{answer}");
}

#[test]
fn an_in_memory_run_reads_its_scans_whole() {
    // A small file: read whole before the plan runs, in memory, whatever
    // the executor.
    let folder = Folder::new("small-scan");
    let lf = folder
        .parquet("table", table(), 16)
        .filter(col("k").is_not_null())
        .select([col("k").sum(), col("t").n_unique()]);
    let expected = lf.clone().collect().unwrap();
    for executor in [Executor::InMemory, Executor::Auto] {
        let engine = Engine::Gpu(
            under_test()
                .with_executor(executor)
                .with_raise_on_fail(true),
        );
        let (answer, report) = lf.clone().collect_with_report(&engine).unwrap();
        assert!(report.partitioned.is_none(), "{report}");
        assert!(expected.equals_missing(&answer), "{expected}\n{answer}");
    }
}
