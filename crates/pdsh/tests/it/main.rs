//! PDS-H queries on Polars' CPU engine: at scale factor 1 they give tpchgen's reference answers.

use pdsh::{QUERY_COUNT, Tables, answers, query};
use polars::prelude::{LazyFrame, PlRefPath};

#[test]
fn every_query_matches_the_reference_answer_at_scale_factor_1() {
    let tables = Tables::generate(1.0, false).expect("tables generate");
    assert_eq!(tables.lineitem.height(), 6_001_215);
    let mut failures = Vec::new();
    for number in 1..=QUERY_COUNT {
        let result = query(number, &tables)
            .and_then(|lf| lf.collect())
            .map_err(|e| format!("q{number}: {e}"))
            .and_then(|df| answers::check_sf1(number, &df));
        if let Err(failure) = result {
            failures.push(failure);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn query_numbers_outside_the_suite_are_errors() {
    let tables = Tables::empty().unwrap();
    for number in [0, 23, 100] {
        let err = query(number, &tables)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("PDS-H has queries 1 to 22"), "{err}");
    }
    assert!(Tables::generate(0.0, false).is_err());
    assert!(Tables::generate(f64::NAN, false).is_err());
}

#[test]
fn empty_tables_have_the_pds_h_types() {
    let tables = Tables::empty().unwrap();
    assert_eq!(tables.lineitem.height(), 0);
    let schema = tables.lineitem.schema();
    assert_eq!(
        schema.get("l_shipdate"),
        Some(&polars::prelude::DataType::Date)
    );
    assert_eq!(
        schema.get("l_quantity"),
        Some(&polars::prelude::DataType::Float64)
    );
    assert_eq!(
        schema.get("l_orderkey"),
        Some(&polars::prelude::DataType::Int64)
    );
    for number in 1..=QUERY_COUNT {
        let df = query(number, &tables).unwrap().collect().unwrap();
        // Queries that aggregate without grouping give one row, even of nothing.
        let expected_rows = usize::from([6, 14, 17, 19].contains(&number));
        assert_eq!(df.height(), expected_rows, "q{number}");
    }
}

#[test]
fn tables_written_to_parquet_read_back_equal() {
    let tables = Tables::generate(0.001, false).unwrap();
    let dir = std::env::temp_dir().join(format!("pdsh-parquet-{}", std::process::id()));
    let paths = tables.write_parquet(&dir).unwrap();
    assert_eq!(paths.len(), 8);
    for ((name, df), path) in tables.named().into_iter().zip(&paths) {
        assert_eq!(path, &dir.join(format!("{name}.parquet")));
        let back = LazyFrame::scan_parquet(
            PlRefPath::new(path.to_string_lossy().into_owned()),
            Default::default(),
        )
        .unwrap()
        .collect()
        .unwrap();
        assert!(back.equals_missing(df), "{name}");
    }
    // Nothing but the eight tables: no partial file is left behind.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 8);
    std::fs::remove_dir_all(&dir).unwrap();
}
