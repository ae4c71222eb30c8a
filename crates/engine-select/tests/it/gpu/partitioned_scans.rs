//! File scans the partitioned executor reads in partitions (not whole on the host first) — Parquet files, one or several, and CSV files — answers equal to Polars' reading the same files.

use engine_select::Executor;

use super::memory_limits::large;
use super::partitioned::{assert_partitioned_in, partitioned, table};
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
        write_parquet(&path, &mut lf.collect().unwrap(), row_group);
        LazyFrame::scan_parquet(path.to_str().unwrap().into(), Default::default()).unwrap()
    }

    /// `lf` written as `files` Parquet files here (its rows in turn, in
    /// row groups of 8 rows), and scanned together by a glob.
    fn parquet_files(&self, name: &str, lf: LazyFrame, files: usize) -> LazyFrame {
        let df = lf.collect().unwrap();
        let folder = self.0.join(name);
        std::fs::create_dir_all(&folder).unwrap();
        let rows = df.height().div_ceil(files);
        for file in 0..files {
            let mut part = df.slice((file * rows) as i64, rows);
            write_parquet(&folder.join(format!("{file}.parquet")), &mut part, 8);
        }
        let glob = folder.join("*.parquet");
        LazyFrame::scan_parquet(glob.to_str().unwrap().into(), Default::default()).unwrap()
    }

    /// `lf` written as a CSV file here, and scanned with its schema.
    fn csv(&self, name: &str, lf: LazyFrame) -> LazyFrame {
        let mut df = lf.collect().unwrap();
        let path = self.0.join(format!("{name}.csv"));
        CsvWriter::new(std::fs::File::create(&path).unwrap())
            .finish(&mut df)
            .unwrap();
        LazyCsvReader::new(path.to_str().unwrap().into())
            .with_schema(Some(df.schema().clone()))
            .finish()
            .unwrap()
    }
}

fn write_parquet(path: &std::path::Path, df: &mut DataFrame, row_group: usize) {
    ParquetWriter::new(std::fs::File::create(path).unwrap())
        .with_row_group_size(Some(row_group))
        .finish(df)
        .unwrap();
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `lf` (over a scan of files of 60 rows) partitioned in partitions of 2,
/// 7, 25 and 1,000 rows, as `assert_partitioned_in` checks it. Partitions
/// of fewer rows than the scan reads read the files in partitions (where
/// Polars `counted` the rows; an estimate may take a slice of few rows for
/// one of none); 1,000 reads them whole.
fn assert_scanned(name: &str, lf: LazyFrame, close: bool, counted: bool) {
    assert_partitioned_in(name, lf, close, &[2, 7, 25, 1000], |context, report| {
        let run = report.partitioned.expect("partitioned");
        match run.rows_per_partition {
            1 if counted => assert!(run.file_partitions > 1, "{context}: {report}"),
            1000 => assert_eq!(run.file_partitions, 0, "{context}: {report}"),
            _ => {}
        }
    });
}

/// Queries over `scan` (of `table()`) and `right` (of its first 6 rows),
/// each checked by `assert_scanned`.
fn assert_scans(scan: LazyFrame, right: LazyFrame, counted: bool) {
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
        ("a slice from the end", scan.clone().tail(17)),
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
                right.clone().select([col("k"), col("t").alias("name")]),
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
        assert_scanned(name, lf, false, counted);
    }
    assert_scanned(
        "a group-by of sums aggregated per partition",
        scan.clone().group_by_stable([col("s")]).agg([
            col("v").sum(),
            col("k").count(),
            col("d").max(),
        ]),
        true,
        counted,
    );
    assert_scanned(
        "a join's partitions aggregated as they come",
        scan.filter(col("k").is_not_null())
            .join(
                right.select([col("k"), col("v").alias("rv")]),
                [col("k")],
                [col("k")],
                JoinArgs {
                    maintain_order: MaintainOrderJoin::Left,
                    ..JoinArgs::new(JoinType::Inner)
                },
            )
            .group_by_stable([col("s")])
            .agg([col("rv").sum(), col("k").count()]),
        true,
        counted,
    );
}

#[test]
fn parquet_scans_read_in_partitions_match_the_cpu() {
    let folder = Folder::new("partitioned-scans");
    // Row groups of 16 rows: partitions start and end inside them.
    let scan = folder.parquet("table", table(), 16);
    let right = folder.parquet("right", table().slice(0, 6), 4);
    assert_scans(scan, right, true);
}

#[test]
fn scans_of_several_parquet_files_read_in_partitions_match_the_cpu() {
    let folder = Folder::new("partitioned-scans-of-files");
    let scan = folder.parquet_files("table", table(), 3);
    let right = folder.parquet_files("right", table().slice(0, 6), 2);
    // (Polars counts the rows of the first file, and estimates the others
    // as many.)
    assert_scans(scan, right, true);
    // Each row's file, and a row index over the files, read with the scan.
    let glob = folder.0.join("table").join("*.parquet");
    let args = ScanArgsParquet {
        include_file_paths: Some("file".into()),
        row_index: Some(RowIndex {
            name: "i".into(),
            offset: 3,
        }),
        ..Default::default()
    };
    let scan = LazyFrame::scan_parquet(glob.to_str().unwrap().into(), args).unwrap();
    let lf = scan.filter(col("k").gt(lit(0))).select([
        col("i"),
        col("k"),
        col("file").str().len_bytes(),
    ]);
    assert_scanned("file paths and a row index", lf, false, true);
}

#[test]
fn csv_scans_read_in_partitions_match_the_cpu() {
    let folder = Folder::new("partitioned-csv-scans");
    let scan = folder.csv("table", table());
    let right = folder.csv("right", table().slice(0, 6));
    // Polars knows nothing of a CSV file of a given schema before reading
    // it: its rows are estimated from its bytes, and all of them read two
    // rows at a time in partitions of two rows (the fewest a partition
    // holds, where one is asked for).
    let (_, report) = scan
        .clone()
        .collect_with_report(&super::partitioned::partitioned(1))
        .unwrap();
    assert_eq!(report.partitioned.unwrap().file_partitions, 30, "{report}");
    assert_scans(scan, right, false);
}

#[test]
fn a_file_larger_than_the_memory_limit_is_read_in_partitions() {
    // 200,000 rows of two i64 (3.2 MB) under a limit of 1 MiB: the
    // automatic choice leaves the scan to the partitioned executor, which
    // reads it a partition at a time.
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

#[test]
fn a_file_that_fails_to_read_half_way_gives_polars_error() {
    // A CSV file of 3,000 rows whose row 2,000 is not an integer: the
    // partitions before it are read and run, then the read fails, the
    // reader stops, and the query gives Polars' own error (Polars' engine
    // raises it where fallback is allowed; the GPU engine names it as
    // invalid data where it is not).
    let folder = Folder::new("failing-scan");
    let path = folder.0.join("bad.csv");
    let mut text = String::from("a,b\n");
    for i in 0..3000 {
        match i {
            2000 => text.push_str("x,1\n"),
            _ => text.push_str(&format!("{i},{}\n", i % 7)),
        }
    }
    std::fs::write(&path, text).unwrap();
    let schema = Schema::from_iter([
        Field::new("a".into(), DataType::Int64),
        Field::new("b".into(), DataType::Int64),
    ]);
    let lf = LazyCsvReader::new(path.to_str().unwrap().into())
        .with_schema(Some(Arc::new(schema)))
        .finish()
        .unwrap()
        .group_by_stable([col("b")])
        .agg([col("a").sum()]);
    let cpu = lf.clone().collect().unwrap_err().to_string();
    let strict = lf
        .clone()
        .collect_with(&super::partitioned::partitioned(100))
        .unwrap_err()
        .to_string();
    assert!(
        strict.contains("invalid data: reading a file scan"),
        "{strict}"
    );
    assert!(strict.contains(&cpu), "{strict}");
    let fallback = under_test()
        .with_executor(Executor::Partitioned)
        .with_partition_rows(100);
    let answer = lf.collect_with(&Engine::Gpu(fallback)).unwrap_err();
    assert_eq!(answer.to_string(), cpu);
}

#[test]
fn a_read_left_part_way_stops_the_reader() {
    // Partitions of 50,000 rows under a limit of 64 KiB: the first
    // partition runs out of device memory, the partitions are made
    // smaller twice, each time the read left part-way (the reader stops
    // and is waited for), and the query falls back with the reason.
    let folder = Folder::new("read-left-part-way");
    let scan = folder.parquet("large", large(200_000), 50_000);
    let lf = scan
        .with_columns([(col("a") * lit(3)).alias("c")])
        .group_by_stable([col("b")])
        .agg([col("c").sum()]);
    let expected = lf.clone().collect().unwrap();
    let engine = Engine::Gpu(
        under_test()
            .with_executor(Executor::Partitioned)
            .with_partition_rows(50_000)
            .with_device_memory_limit(64 << 10),
    );
    let (answer, report) = lf.collect_with_report(&engine).unwrap();
    assert!(expected.equals_missing(&answer), "{expected}\n{answer}");
    assert!(
        super::partitioned::fell_back_out_of_memory(&report),
        "{report}"
    );
}

#[test]
fn a_head_stops_reading_once_it_has_its_rows() {
    // 100,000 rows in partitions of 1,000: a filter then a head of 10 rows
    // (and one from an offset) takes the first partitions only; the
    // reader stops there.
    let folder = Folder::new("head-stops-reading");
    let scan = folder.parquet("large", large(100_000), 1_000);
    let engine = partitioned(1_000);
    for (offset, len) in [(0, 10), (2_500, 7)] {
        let lf = scan
            .clone()
            .filter(col("b").lt(lit(500)))
            .with_columns([(col("a") * lit(3)).alias("c")])
            .slice(offset, len);
        let expected = lf.clone().collect().unwrap();
        let (answer, report) = lf.collect_with_report(&engine).unwrap();
        assert!(expected.equals_missing(&answer), "{expected}\n{answer}");
        let run = report.partitioned.expect("partitioned");
        assert!(run.file_partitions >= 1, "{report}");
        assert!(run.file_partitions <= 8, "{report}");
    }
}

#[test]
fn list_float_sums_read_their_scans_whole() {
    // Sums of lists of floats follow the nulls of each chunk Polars reads;
    // partitions of the scan would be chunks of their own, so the scan is
    // read whole, and that frame holds its row groups' chunks, which
    // Polars sums one by one: the query stays with Polars.
    let folder = Folder::new("list-sums-read-whole");
    let lists: Vec<Option<Vec<Option<f64>>>> = (0..40)
        .map(|i| match i % 5 {
            0 => Some(vec![None]),
            1 => Some(vec![Some(-0.0)]),
            2 => None,
            k => Some(vec![Some(k as f64 * 0.5), Some(-0.0)]),
        })
        .collect();
    let column = Series::new(
        "a".into(),
        lists
            .into_iter()
            .map(|list| list.map(|values| Series::new("".into(), values)))
            .collect::<Vec<_>>(),
    );
    let df = DataFrame::new(40, vec![column.into_column()]).unwrap();
    let scan = folder.parquet("lists", df.lazy(), 8);
    let lf = scan.with_columns([col("a").list().sum().alias("s")]);
    match lf.clone().collect_with_report(&partitioned(7)) {
        Err(EngineError::GpuUnavailable { reasons }) => {
            let why = &reasons[0].message;
            assert!(why.contains("a frame of several chunks"), "{why}");
        }
        other => panic!("{:?}", other.map(|(_, report)| report)),
    }
    let expected = lf.clone().collect().unwrap();
    let falling_back = Engine::Gpu(
        under_test()
            .with_executor(Executor::Partitioned)
            .with_partition_rows(7),
    );
    let (answer, report) = lf.collect_with_report(&falling_back).unwrap();
    assert!(expected.equals_missing(&answer), "{expected}\n{answer}");
    assert!(report.partitioned.is_none(), "{report}");
}
