//! Round trips of every supported dtype, with nulls, slices, chunks, NaN, empty and long strings.

use gpu_exec::{DeviceColumn, DeviceFrame};
use polars::prelude::*;
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;

use crate::context;

/// `series` sliced at `offset` and split into `chunks` chunks, to exercise
/// offsets and chunking on the way in.
fn reshape(series: Series, offset: usize, chunks: usize) -> Series {
    let offset = offset.min(series.len());
    let sliced = series.slice(offset as i64, series.len() - offset);
    let step = sliced.len().div_ceil(chunks.max(1)).max(1);
    let mut parts = (0..sliced.len())
        .step_by(step)
        .map(|start| sliced.slice(start as i64, step));
    let Some(mut out) = parts.next() else {
        return sliced;
    };
    for part in parts {
        out.append(&part).unwrap();
    }
    out
}

/// Asserts the round trip keeps the dtype, the nulls and the exact values
/// (floats compared bit for bit, so NaN payloads and -0.0 count).
fn assert_round_trip(series: &Series) {
    let ctx = context();
    let column = DeviceColumn::from_series(series, &ctx).unwrap();
    assert_eq!(column.len(), series.len());
    let back = column.to_series().unwrap();
    assert_eq!(back.dtype(), series.dtype());
    assert_eq!(back.name(), series.name());
    assert_eq!(back.null_count(), series.null_count());
    match series.dtype() {
        DataType::Float64 => {
            let bits = |s: &Series| {
                s.f64()
                    .unwrap()
                    .iter()
                    .map(|v| v.map(f64::to_bits))
                    .collect::<Vec<_>>()
            };
            assert_eq!(bits(&back), bits(series));
        }
        DataType::Float32 => {
            let bits = |s: &Series| {
                s.f32()
                    .unwrap()
                    .iter()
                    .map(|v| v.map(f32::to_bits))
                    .collect::<Vec<_>>()
            };
            assert_eq!(bits(&back), bits(series));
        }
        _ => assert!(back.equals_missing(series), "{back:?}\n{series:?}"),
    }
}

fn float() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>(),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(-0.0),
        Just(f64::MIN_POSITIVE),
    ]
}

proptest! {
    // The same cases on every run, unless PROPTEST_RNG_SEED says otherwise.
    #![proptest_config(ProptestConfig {
        rng_seed: match std::env::var_os("PROPTEST_RNG_SEED") {
            None => proptest::test_runner::RngSeed::Fixed(0x5eed),
            Some(_) => ProptestConfig::default().rng_seed,
        },
        ..ProptestConfig::with_cases(48)
    })]

    #[test]
    fn integers_round_trip(values in vec(option::of(any::<i64>()), 0..200), offset in 0usize..8, chunks in 1usize..4) {
        let s = Series::new("i64".into(), values.clone());
        assert_round_trip(&reshape(s.clone(), offset, chunks));
        for dtype in [DataType::Int8, DataType::Int16, DataType::Int32, DataType::UInt8, DataType::UInt16, DataType::UInt32, DataType::UInt64] {
            // Wrapping casts keep every value representable.
            let narrow = s.strict_cast(&DataType::Int64).unwrap().cast_with_options(&dtype, polars::chunked_array::cast::CastOptions::Overflowing).unwrap();
            assert_round_trip(&reshape(narrow, offset, chunks));
        }
    }

    #[test]
    fn floats_round_trip(values in vec(option::of(float()), 0..200), offset in 0usize..8, chunks in 1usize..4) {
        let s = Series::new("f64".into(), values);
        assert_round_trip(&reshape(s.clone(), offset, chunks));
        assert_round_trip(&reshape(s.cast(&DataType::Float32).unwrap(), offset, chunks));
    }

    #[test]
    fn booleans_round_trip(values in vec(option::of(any::<bool>()), 0..300), offset in 0usize..40, chunks in 1usize..4) {
        assert_round_trip(&reshape(Series::new("flag".into(), values), offset, chunks));
    }

    #[test]
    fn strings_round_trip(values in vec(option::of(prop_oneof![Just(String::new()), ".{0,12}", ".{200,400}"]), 0..60), offset in 0usize..8, chunks in 1usize..4) {
        assert_round_trip(&reshape(Series::new("text".into(), values), offset, chunks));
    }

    #[test]
    fn lists_round_trip(
        lists in vec(option::of(vec(option::of(any::<i32>()), 0..5)), 0..60),
        offset in 0usize..8,
        chunks in 1usize..4,
    ) {
        // Lists of numbers, and of texts (the numbers written): null
        // lists, empty lists, nulls inside; sliced and in chunks (offsets
        // not from 0).
        let numbers: Vec<Option<Series>> = lists
            .iter()
            .map(|list| list.as_ref().map(|values| Series::new("".into(), values)))
            .collect();
        let texts: Vec<Option<Series>> = lists
            .iter()
            .map(|list| {
                let texts = list.as_ref()?.iter().map(|v| v.map(|v| v.to_string()));
                Some(Series::new("".into(), texts.collect::<Vec<_>>()))
            })
            .collect();
        for (name, lists) in [("numbers", numbers), ("texts", texts)] {
            let series = Series::new(name.into(), lists);
            let inner = if name == "texts" { DataType::String } else { DataType::Int32 };
            let series = series.cast(&DataType::List(Box::new(inner))).unwrap();
            assert_round_trip(&reshape(series, offset, chunks));
        }
    }

    #[test]
    fn structs_round_trip(
        rows in vec((option::of(any::<i64>()), option::of(".{0,6}"), any::<bool>()), 0..60),
        offset in 0usize..8,
        chunks in 1usize..4,
    ) {
        // Structs of a number and a text (nulls inside), null where the
        // flag says; sliced and in chunks.
        let numbers: Vec<Option<i64>> = rows.iter().map(|row| row.0).collect();
        let texts: Vec<Option<String>> = rows.iter().map(|row| row.1.clone()).collect();
        let fields = [Series::new("n".into(), numbers), Series::new("t".into(), texts)];
        let outer: Vec<bool> = rows.iter().map(|row| !row.2).collect();
        let structs = StructChunked::from_series("s".into(), rows.len(), fields.iter())
            .unwrap()
            .into_series();
        let nulls = BooleanChunked::new("".into(), outer);
        let none = Series::full_null("s".into(), rows.len(), structs.dtype());
        let structs = structs.zip_with(&nulls, &none).unwrap();
        assert_round_trip(&reshape(structs, offset, chunks));
    }

    #[test]
    fn temporal_values_round_trip(values in vec(option::of(-1_000_000_000_000i64..1_000_000_000_000), 0..100)) {
        let s = Series::new("t".into(), values);
        for dtype in [
            DataType::Datetime(TimeUnit::Milliseconds, None),
            DataType::Datetime(TimeUnit::Microseconds, None),
            DataType::Datetime(TimeUnit::Nanoseconds, None),
            DataType::Duration(TimeUnit::Nanoseconds),
            DataType::Duration(TimeUnit::Milliseconds),
        ] {
            assert_round_trip(&s.cast(&dtype).unwrap());
        }
        let days = (&s / 86_400_000).cast(&DataType::Int32).unwrap().cast(&DataType::Date).unwrap();
        assert_round_trip(&days);
    }
}

#[test]
fn all_null_and_empty_columns_round_trip() {
    for dtype in [
        DataType::Int32,
        DataType::Float64,
        DataType::Boolean,
        DataType::String,
        DataType::Date,
    ] {
        assert_round_trip(&Series::full_null("nothing".into(), 70, &dtype));
        assert_round_trip(&Series::new_empty("empty".into(), &dtype));
    }
}

#[test]
fn string_columns_of_many_pieces_round_trip() {
    // The host converts strings in pieces of 2^16 rows in parallel: rows on
    // both sides of several piece boundaries, inline (up to 12 bytes) and
    // buffered values, multi-byte characters, empty values and nulls.
    let rows = 3 * (1 << 16) + 777;
    let values: Vec<Option<String>> = (0..rows)
        .map(|i| match i % 7 {
            0 => None,
            1 => Some(String::new()),
            2 => Some(format!("{i}")),
            3 => Some(format!("ünïcödé {i} ✓")),
            4 => Some("x".repeat(i % 40)),
            _ => Some(format!("a longer value, number {i}")),
        })
        .collect();
    let series = Series::new("pieces".into(), values);
    assert_round_trip(&series);
    assert_round_trip(&reshape(series, 5, 3));
}

#[test]
fn frames_round_trip_with_projection() {
    let df = df!(
        "a" => [Some(1i64), None, Some(3)],
        "b" => [Some("x"), Some(""), None],
        "c" => [true, false, true],
    )
    .unwrap();
    let ctx = context();
    let frame = DeviceFrame::from_dataframe(&df, Some(&[2, 0]), &ctx).unwrap();
    let back = frame.to_dataframe().unwrap();
    assert!(
        back.equals_missing(&df.select(["c", "a"]).unwrap()),
        "{back}"
    );
    let all = DeviceFrame::from_dataframe(&df, None, &ctx)
        .unwrap()
        .to_dataframe()
        .unwrap();
    assert!(all.equals_missing(&df));
}

#[test]
fn wide_frames_of_many_staging_blocks_round_trip() {
    // Columns are copied in parallel, each over several staging blocks:
    // every value must land in its own column, in order.
    let n = 700_000;
    let mut columns = Vec::new();
    for c in 0..10u64 {
        let name = format!("c{c}");
        let column = match c % 5 {
            0 => Column::new(
                name.into(),
                (0..n).map(|i| i * 31 + c).collect::<Vec<u64>>(),
            ),
            1 => Column::new(
                name.into(),
                (0..n)
                    .map(|i| (i % 7 != c).then_some(i as f64 / (c + 1) as f64))
                    .collect::<Vec<_>>(),
            ),
            2 => Column::new(
                name.into(),
                (0..n).map(|i| (i + c) % 3 == 0).collect::<Vec<bool>>(),
            ),
            3 => Column::new(
                name.into(),
                (0..n)
                    .map(|i| (i % 11 != 0).then(|| format!("{c}:{i}")))
                    .collect::<Vec<_>>(),
            ),
            _ => Column::new(
                name.into(),
                (0..n)
                    .map(|i| (i as i32).wrapping_mul(-7))
                    .collect::<Vec<i32>>(),
            ),
        };
        columns.push(column);
    }
    let df = DataFrame::new(n as usize, columns).unwrap();
    let back = DeviceFrame::from_dataframe(&df, None, &context())
        .unwrap()
        .to_dataframe()
        .unwrap();
    assert_eq!(back.schema(), df.schema());
    assert!(back.equals_missing(&df));
}

#[test]
fn unsupported_types_are_refused_by_name() {
    let ctx = context();
    let inner = Series::new("".into(), [Series::new("".into(), [1i32, 2])]);
    let lists_of_lists = Series::new("".into(), [inner]);
    let three_deep = Series::new("l".into(), [lists_of_lists]);
    let err = DeviceColumn::from_series(&three_deep, &ctx)
        .unwrap_err()
        .to_string();
    assert!(err.contains("lists nested more than two deep"), "{err}");
}
