//! Hash tables: a multimap for joins (build, count, pairs) and unique insertion for group-by.

use std::collections::{BTreeSet, HashMap};

use gpu_runtime::{KernelArgs, LaunchConfig};
use kernels::ids;

use super::{BLOCK, SIZES, bitmap, device};

const EMPTY_ROW: u32 = u32::MAX;

fn capacity(n: usize) -> usize {
    (2 * n).max(16).next_power_of_two()
}

#[test]
fn multimap_join_finds_every_matching_pair_and_no_null() {
    let device = device();
    let mut rng = fastrand::Rng::with_seed(12);
    for &n in SIZES {
        let build: Vec<u64> = (0..n)
            .map(|_| rng.u64(..(n as u64 / 3).max(1)) ^ (1 << 63))
            .collect();
        let build_valid: Vec<bool> = (0..n).map(|_| rng.u8(..6) != 0).collect();
        let probe: Vec<u64> = (0..n + 7)
            .map(|_| rng.u64(..(n as u64 / 2).max(1)) ^ (1 << 63))
            .collect();
        let probe_valid: Vec<bool> = (0..n + 7).map(|_| rng.u8(..6) != 0).collect();
        let cap = capacity(n);
        let slot_keys = device.poisoned(cap, 0u64);
        let slot_states = device.poisoned(cap, 0u32);
        let slot_counts = device.poisoned(cap, 0u32);
        let row_slots = device.poisoned(n, 12345u32);
        let (db, dbv) = (device.upload(&build), device.upload(&bitmap(&build_valid)));
        let (dp, dpv) = (device.upload(&probe), device.upload(&bitmap(&probe_valid)));
        let counts = device.poisoned(probe.len(), u32::MAX);
        let config = LaunchConfig::linear(n as u64, BLOCK, 16);
        let probe_config = LaunchConfig::linear(probe.len() as u64, BLOCK, 16);
        // SAFETY: hash_build_multimap_u64(keys, validity, n, slot_keys, slot_states,
        // slot_counts, capacity, row_slots) over zeroed states and counts.
        unsafe {
            device.launch(
                ids::hash_build_multimap_u64,
                config,
                KernelArgs::new()
                    .buffer(&db)
                    .buffer(&dbv)
                    .arg(n as u64)
                    .buffer(&slot_keys)
                    .buffer(&slot_states)
                    .buffer(&slot_counts)
                    .arg(cap as u64)
                    .buffer(&row_slots),
            );
        }
        // Each slot's run starts after the runs of the slots before it.
        let host_slot_counts = slot_counts.to_host().unwrap();
        let mut slot_starts = Vec::with_capacity(cap);
        let mut placed = 0u64;
        for c in &host_slot_counts {
            slot_starts.push(placed);
            placed += u64::from(*c);
        }
        let valid_rows = build_valid.iter().filter(|v| **v).count() as u64;
        assert_eq!(
            placed, valid_rows,
            "every valid build row counted once, n = {n}"
        );
        let slot_starts = device.upload(&slot_starts);
        let slot_fill = device.poisoned(cap, 0u32);
        let rows_by_slot = device.poisoned(placed as usize, EMPTY_ROW);
        // SAFETY: hash_place_multimap(row_slots, n, slot_starts, slot_fill,
        // rows_by_slot) with a run for every counted row; then
        // hash_probe_count_u64(keys, validity, n, slot_keys, slot_states,
        // slot_counts, capacity, keep_unmatched, counts).
        unsafe {
            device.launch(
                ids::hash_place_multimap,
                config,
                KernelArgs::new()
                    .buffer(&row_slots)
                    .arg(n as u64)
                    .buffer(&slot_starts)
                    .buffer(&slot_fill)
                    .buffer(&rows_by_slot),
            );
            device.launch(
                ids::hash_probe_count_u64,
                probe_config,
                KernelArgs::new()
                    .buffer(&dp)
                    .buffer(&dpv)
                    .arg(probe.len() as u64)
                    .buffer(&slot_keys)
                    .buffer(&slot_states)
                    .buffer(&slot_counts)
                    .arg(cap as u64)
                    .arg(0u32)
                    .buffer(&counts),
            );
        }
        let mut by_key: HashMap<u64, Vec<u32>> = HashMap::new();
        for (row, key) in build.iter().enumerate() {
            if build_valid[row] {
                by_key.entry(*key).or_default().push(row as u32);
            }
        }
        let expected_counts: Vec<u32> = probe
            .iter()
            .zip(&probe_valid)
            .map(|(k, v)| {
                if *v {
                    by_key.get(k).map_or(0, |r| r.len() as u32)
                } else {
                    0
                }
            })
            .collect();
        let host_counts = counts.to_host().unwrap();
        assert_eq!(host_counts, expected_counts, "counts n = {n}");

        let mut offsets = Vec::with_capacity(probe.len());
        let mut total = 0u64;
        for c in &host_counts {
            offsets.push(total);
            total += u64::from(*c);
        }
        let offsets = device.upload(&offsets);
        let build_rows = device.poisoned(total as usize, EMPTY_ROW);
        let probe_rows = device.poisoned(total as usize, EMPTY_ROW);
        // SAFETY: hash_probe_pairs_u64(keys, validity, n, slot_keys, slot_states,
        // slot_counts, slot_starts, rows_by_slot, capacity, keep_unmatched,
        // offsets, build_rows, probe_rows) with room for every pair.
        unsafe {
            device.launch(
                ids::hash_probe_pairs_u64,
                probe_config,
                KernelArgs::new()
                    .buffer(&dp)
                    .buffer(&dpv)
                    .arg(probe.len() as u64)
                    .buffer(&slot_keys)
                    .buffer(&slot_states)
                    .buffer(&slot_counts)
                    .buffer(&slot_starts)
                    .buffer(&rows_by_slot)
                    .arg(cap as u64)
                    .arg(0u32)
                    .buffer(&offsets)
                    .buffer(&build_rows)
                    .buffer(&probe_rows),
            );
        }
        let pairs: BTreeSet<(u32, u32)> = build_rows
            .to_host()
            .unwrap()
            .into_iter()
            .zip(probe_rows.to_host().unwrap())
            .collect();
        let expected: BTreeSet<(u32, u32)> = probe
            .iter()
            .enumerate()
            .filter(|(row, _)| probe_valid[*row])
            .flat_map(|(row, key)| {
                by_key
                    .get(key)
                    .into_iter()
                    .flatten()
                    .map(move |b| (*b, row as u32))
            })
            .collect();
        assert_eq!(pairs.len() as u64, total, "no duplicate pair, n = {n}");
        assert_eq!(pairs, expected, "pairs n = {n}");
    }
}

#[test]
fn unique_insertion_gives_equal_keys_one_slot() {
    let device = device();
    let mut rng = fastrand::Rng::with_seed(13);
    for &n in SIZES {
        let keys: Vec<u64> = (0..n)
            .map(|_| {
                rng.u64(..(n as u64 / 4).max(1))
                    .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            })
            .collect();
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..8) != 0).collect();
        let cap = capacity(n);
        let slot_keys = device.poisoned(cap, 0u64);
        let slot_states = device.poisoned(cap, 0u32);
        let row_slots = device.poisoned(n, 12345u32);
        let (dk, dv) = (device.upload(&keys), device.upload(&bitmap(&valid)));
        // SAFETY: hash_insert_unique_u64(keys, validity, n, slot_keys, slot_states,
        // capacity, row_slots).
        unsafe {
            device.launch(
                ids::hash_insert_unique_u64,
                LaunchConfig::linear(n as u64, BLOCK, 16),
                KernelArgs::new()
                    .buffer(&dk)
                    .buffer(&dv)
                    .arg(n as u64)
                    .buffer(&slot_keys)
                    .buffer(&slot_states)
                    .arg(cap as u64)
                    .buffer(&row_slots),
            );
        }
        let slots = row_slots.to_host().unwrap();
        let table = slot_keys.to_host().unwrap();
        let mut slot_of_key: HashMap<u64, u32> = HashMap::new();
        for row in 0..n {
            if !valid[row] {
                assert_eq!(slots[row], EMPTY_ROW, "null row {row}");
                continue;
            }
            let slot = slots[row];
            assert!((slot as usize) < cap, "row {row}: slot {slot}");
            assert_eq!(
                table[slot as usize], keys[row],
                "row {row}: the slot holds its key"
            );
            assert_eq!(
                *slot_of_key.entry(keys[row]).or_insert(slot),
                slot,
                "row {row}: one slot per key"
            );
        }
        let distinct: BTreeSet<u32> = slot_of_key.values().copied().collect();
        assert_eq!(
            distinct.len(),
            slot_of_key.len(),
            "different keys, different slots"
        );
    }
}

#[test]
fn hash_joins_through_the_safe_operations() {
    use gpu_runtime::ops::JoinKind;
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(19);
    // Few duplicates (about two right rows per key), and, where the pairs
    // stay few enough, a handful of keys each repeated on most rows (the
    // build side of a join on a foreign key of a small table).
    let cases = SIZES
        .iter()
        .map(|&n| (n, (n as i32 / 4).max(3)))
        .chain(SIZES.iter().filter(|&&n| n <= 2000).map(|&n| (n, 2)));
    for (n, span) in cases {
        let left: Vec<Option<i32>> = (0..n)
            .map(|_| (rng.u8(..6) != 0).then(|| rng.i32(-span..span)))
            .collect();
        let right: Vec<Option<i32>> = (0..n)
            .map(|_| (rng.u8(..6) != 0).then(|| rng.i32(-span..span)))
            .collect();
        let upload = |values: &[Option<i32>]| {
            (
                device.upload(&values.iter().map(|v| v.unwrap_or(0)).collect::<Vec<_>>()),
                device.upload(&bitmap(
                    &values.iter().map(Option::is_some).collect::<Vec<_>>(),
                )),
            )
        };
        let ((l, lv), (r, rv)) = (upload(&left), upload(&right));
        let mut by_key: std::collections::HashMap<i32, Vec<i64>> = Default::default();
        for (b, key) in right.iter().enumerate() {
            if let Some(key) = key {
                by_key.entry(*key).or_default().push(b as i64);
            }
        }
        let matches = |a: usize| -> Vec<i64> {
            left[a]
                .and_then(|k| by_key.get(&k).cloned())
                .unwrap_or_default()
        };
        for kind in [
            JoinKind::Inner,
            JoinKind::Left,
            JoinKind::Semi,
            JoinKind::Anti,
        ] {
            let joined = ops
                .hash_join((&l, Some(&lv)), (&r, Some(&rv)), kind)
                .unwrap();
            let (mut want_left, mut want_right) = (Vec::new(), Vec::new());
            for a in 0..n {
                let found = matches(a);
                match kind {
                    JoinKind::Semi if !found.is_empty() => want_left.push(a as i64),
                    JoinKind::Anti if found.is_empty() => want_left.push(a as i64),
                    JoinKind::Inner | JoinKind::Left => {
                        for b in &found {
                            want_left.push(a as i64);
                            want_right.push(*b);
                        }
                        if found.is_empty() && kind == JoinKind::Left {
                            want_left.push(a as i64);
                            want_right.push(i64::from(u32::MAX));
                        }
                    }
                    _ => {}
                }
            }
            assert_eq!(
                joined.left.to_host().unwrap(),
                want_left,
                "{kind:?} n = {n}"
            );
            match joined.right {
                Some(right_rows) => assert_eq!(
                    right_rows.to_host().unwrap(),
                    want_right,
                    "{kind:?} n = {n}"
                ),
                None => assert!(matches!(kind, JoinKind::Semi | JoinKind::Anti)),
            }
        }
    }
}

#[test]
fn cross_joins_pair_every_row_left_major() {
    let device = device();
    let ops = device.ops();
    for (n_left, n_right) in [(3, 2), (1, 5), (0, 4), (4, 0), (1000, 7)] {
        let pairs = ops.cross_join(n_left, n_right).unwrap();
        let (mut left, mut right) = (Vec::new(), Vec::new());
        for l in 0..n_left as i64 {
            for r in 0..n_right as i64 {
                left.push(l);
                right.push(r);
            }
        }
        assert_eq!(pairs.left.to_host().unwrap(), left);
        assert_eq!(pairs.right.unwrap().to_host().unwrap(), right);
    }
    assert!(ops.cross_join(usize::MAX / 2, 3).is_err());
}
