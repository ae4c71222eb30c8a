//! Unpivot (wide to long) on the device: each value column's block of rows in turn, the index columns repeated, values cast to their supertype; casts the device does not run stay with Polars, and what Polars rejects stays its error.

use super::*;

/// A wide frame: two index columns (nulls among them) and value columns of
/// several types.
fn wide() -> LazyFrame {
    df!(
        "id" => [Some(3i64), Some(1), None, Some(2)],
        "name" => [Some("c"), None, Some("a"), Some("b")],
        "q1" => [Some(10i32), None, Some(-3), Some(7)],
        "q2" => [Some(5i32), Some(6), None, Some(0)],
        "wide" => [Some(1i64 << 40), Some(-1), Some(0), None],
        "ratio" => [Some(0.5f64), Some(-0.0), None, Some(f64::NAN)],
        "flag" => [Some(true), Some(false), None, Some(true)],
        "s" => [Some("x"), Some("ünï"), Some(""), None],
    )
    .unwrap()
    .lazy()
}

fn args(on: Option<&[&str]>, index: &[&str]) -> UnpivotArgsDSL {
    UnpivotArgsDSL {
        on: on.map(|on| by_name(on.iter().copied(), true, false)),
        index: by_name(index.iter().copied(), true, false),
        variable_name: None,
        value_name: None,
    }
}

#[test]
fn unpivots_match_the_cpu() {
    let frame = wide();
    for (name, lf) in [
        (
            "one type, two index columns",
            frame
                .clone()
                .unpivot(args(Some(&["q1", "q2"]), &["id", "name"])),
        ),
        (
            "integers widened to i64",
            frame
                .clone()
                .unpivot(args(Some(&["q2", "wide", "q1"]), &["id"])),
        ),
        (
            "integers and floats as f64",
            frame
                .clone()
                .unpivot(args(Some(&["q1", "ratio"]), &["name"])),
        ),
        (
            "no value columns (no rows, values of the Null type)",
            frame.clone().unpivot(args(Some(&[]), &["id", "s"])),
        ),
        (
            "no value columns and no index",
            frame.clone().unpivot(args(Some(&[]), &[])),
        ),
        (
            "temporals and floats as f64 (days, ticks)",
            frame
                .clone()
                .with_columns([
                    col("q1").cast(DataType::Date).alias("day"),
                    col("wide")
                        .cast(DataType::Datetime(TimeUnit::Microseconds, None))
                        .alias("at"),
                ])
                .unpivot(args(Some(&["day", "ratio", "at"]), &["id"])),
        ),
        (
            "a column of the Null type beside integers (nulls of i64)",
            frame
                .clone()
                .with_columns([lit(NULL).alias("none")])
                .unpivot(args(Some(&["none", "wide"]), &["id"])),
        ),
        (
            "booleans with integers",
            frame.clone().unpivot(args(Some(&["flag", "q1"]), &["id"])),
        ),
        (
            "numbers with texts, as text",
            frame
                .clone()
                .unpivot(args(Some(&["q1", "s", "wide"]), &["id"])),
        ),
        (
            "no index columns",
            frame.clone().unpivot(args(Some(&["q1", "q2"]), &[])),
        ),
        (
            "texts",
            frame.clone().unpivot(args(Some(&["s", "name"]), &["id"])),
        ),
        (
            "a column unpivoted twice, and one both index and value",
            frame
                .clone()
                .unpivot(args(Some(&["q1", "q1", "id"]), &["id"])),
        ),
        (
            "every other column (on=None), named",
            frame
                .clone()
                .select([col("id"), col("q1"), col("q2"), col("wide")])
                .unpivot(UnpivotArgsDSL {
                    variable_name: Some("quarter".into()),
                    value_name: Some("amount".into()),
                    ..args(None, &["id"])
                }),
        ),
        (
            "filtered first, then aggregated per variable",
            frame
                .clone()
                .filter(col("id").is_not_null())
                .unpivot(args(Some(&["q1", "q2", "wide"]), &["id"]))
                .group_by_stable([col("variable")])
                .agg([col("value").sum().alias("sum"), len()]),
        ),
        (
            "times of day and text as text (times as chrono's `%T`)",
            frame
                .clone()
                .with_columns([col("q1").cast(DataType::Time).alias("time")])
                .unpivot(args(Some(&["time", "s"]), &["id"])),
        ),
        (
            "filtered and sorted after",
            frame
                .clone()
                .unpivot(args(Some(&["q1", "q2"]), &["name"]))
                .filter(col("value").gt(lit(0)))
                .sort(
                    ["value"],
                    SortMultipleOptions::default().with_maintain_order(true),
                ),
        ),
    ] {
        assert_gpu_eq(name, lf);
    }
}

#[test]
fn unpivots_the_device_cannot_cast_or_polars_rejects_stay_with_polars() {
    let frame = wide();
    // Durations as text: Polars raises.
    assert_cpu_error(
        frame
            .clone()
            .with_columns([col("q1")
                .cast(DataType::Duration(TimeUnit::Milliseconds))
                .alias("gap")])
            .unpivot(args(Some(&["gap", "s"]), &["id"])),
    );
    // The value column named as an index column: Polars raises.
    assert_cpu_error(frame.clone().unpivot(UnpivotArgsDSL {
        value_name: Some("id".into()),
        ..args(Some(&["q1"]), &["id"])
    }));
}
