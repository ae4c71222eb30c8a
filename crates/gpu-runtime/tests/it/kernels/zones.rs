//! Local times of instants by a zone's table of UTC offsets: against a Rust reference, with instants on and around the spans' starts.

use gpu_runtime::ops::{Ambiguous, ZoneTable};

use super::{SIZES, bitmap, device};

/// The reference: the offset of the last span starting at or before the instant.
fn local(table: &ZoneTable, instant: i64) -> i64 {
    let span = table.starts.partition_point(|&start| start <= instant) - 1;
    instant.wrapping_add(table.offsets[span])
}

#[test]
fn local_times_add_the_offset_of_each_instants_span() {
    let device = device();
    let ops = device.ops();
    let table = ZoneTable {
        starts: vec![i64::MIN, -5_000, 0, 0, 7_200, 1_000_000],
        offsets: vec![1_172, 3_600, -1_800, 7_200, 3_600, 0],
        low: -1_000_000,
        high: 2_000_000,
    };
    let mut rng = fastrand::Rng::with_seed(7);
    for &n in SIZES {
        let instants: Vec<i64> = (0..n)
            .map(|i| match i % 5 {
                0 => table.starts[rng.usize(1..table.starts.len())] + rng.i64(-1..=1),
                _ => rng.i64(-1_200_000..2_100_000),
            })
            .collect();
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..6) != 0).collect();
        let (d, v) = (device.upload(&instants), device.upload(&bitmap(&valid)));
        let (out, outside) = ops.zone_local_times(&d, Some(&v), &table).unwrap();
        let out = out.to_host().unwrap();
        for i in 0..n {
            let expected = if valid[i] {
                local(&table, instants[i])
            } else {
                instants[i]
            };
            assert_eq!(out[i], expected, "n={n} row {i} instant {}", instants[i]);
        }
        let beyond = (0..n).any(|i| valid[i] && !(table.low..table.high).contains(&instants[i]));
        assert_eq!(outside.to_host().unwrap(), [u32::from(beyond)], "n={n}");
        // Without a validity bitmap every row is valid.
        let (all, _) = ops.zone_local_times(&d, None, &table).unwrap();
        let expected: Vec<i64> = instants.iter().map(|&t| local(&table, t)).collect();
        assert_eq!(all.to_host().unwrap(), expected, "n={n}");
    }
}

#[test]
fn a_table_not_from_the_least_instant_is_refused() {
    let device = device();
    let table = ZoneTable {
        starts: vec![0, 10],
        offsets: vec![0, 1],
        low: 0,
        high: 100,
    };
    let d = device.upload(&[5i64]);
    assert!(device.ops().zone_local_times(&d, None, &table).is_err());
}

/// The reference: every instant whose local time is `local` (one per span
/// whose offset takes it there), earliest first.
fn instants_of(table: &ZoneTable, local: i64) -> Vec<i64> {
    (0..table.starts.len())
        .filter_map(|k| {
            let at = local.wrapping_sub(table.offsets[k]);
            let end = table.starts.get(k + 1).copied().unwrap_or(i64::MAX);
            (table.starts[k] <= at && (at < end || k + 1 == table.starts.len())).then_some(at)
        })
        .collect()
}

#[test]
fn instants_of_local_times_take_the_one_or_the_chosen_of_two_or_none() {
    let device = device();
    let ops = device.ops();
    // Clocks forward by 100 at 1,000 (locals 1,000..1,100 never shown),
    // back by 100 at 5,000 (locals 5,000..5,100 shown twice), and a
    // half-span forward at -7,000.
    let table = ZoneTable {
        starts: vec![i64::MIN, -7_000, 1_000, 5_000],
        offsets: vec![-50, 0, 100, 0],
        low: -100_000,
        high: 100_000,
    };
    let mut rng = fastrand::Rng::with_seed(11);
    for &n in SIZES {
        let locals: Vec<i64> = (0..n)
            .map(|i| match i % 4 {
                0 => rng.i64(900..1_200),
                1 => rng.i64(4_900..5_200),
                2 => rng.i64(-7_100..-6_900),
                _ => rng.i64(-110_000..110_000),
            })
            .collect();
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..6) != 0).collect();
        let (d, v) = (device.upload(&locals), device.upload(&bitmap(&valid)));
        for ambiguous in [
            Ambiguous::Raise,
            Ambiguous::Earliest,
            Ambiguous::Latest,
            Ambiguous::Null,
        ] {
            for non_existent_raises in [false, true] {
                let out = ops
                    .zone_instants(&d, Some(&v), &table, ambiguous, non_existent_raises)
                    .unwrap();
                let (instants, validity) = (
                    out.instants.to_host().unwrap(),
                    out.validity.to_host().unwrap(),
                );
                let mut failed = false;
                for i in 0..n {
                    let found = instants_of(&table, locals[i]);
                    let expected = match (valid[i], found.as_slice(), ambiguous) {
                        (false, _, _) => None,
                        (true, [one], _) => Some(*one),
                        (true, [first, ..], Ambiguous::Earliest) => Some(*first),
                        (true, [.., last], Ambiguous::Latest) => Some(*last),
                        (true, [], _) => {
                            failed |= non_existent_raises;
                            None
                        }
                        (true, _, Ambiguous::Raise) => {
                            failed = true;
                            None
                        }
                        (true, _, _) => None,
                    };
                    let got = (validity[i / 32] >> (i % 32) & 1 == 1).then_some(instants[i]);
                    assert_eq!(
                        got, expected,
                        "n={n} row {i} local {} {ambiguous:?}",
                        locals[i]
                    );
                }
                assert_eq!(out.failed.to_host().unwrap(), [u32::from(failed)], "n={n}");
                let beyond =
                    (0..n).any(|i| valid[i] && !(table.low..table.high).contains(&locals[i]));
                assert_eq!(out.outside.to_host().unwrap(), [u32::from(beyond)], "n={n}");
            }
        }
    }
}
