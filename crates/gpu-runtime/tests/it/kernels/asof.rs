//! The as-of search against Polars' scans (backward, forward, nearest) written out in Rust, over sorted keys with nulls at either end, whole or within groups.

use std::collections::HashMap;

use gpu_runtime::ops::{AsofGroups, AsofMatch, AsofStrategy};

use super::{bitmap, device};

/// Polars' `join_asof` of one left key after the others (its scan states,
/// polars-ops' `AsofJoin*State`, over `right` in order): the right row
/// matched, the scan's place kept between calls.
struct Scan {
    how: AsofMatch,
    offset: usize,
    best: Option<usize>,
    smaller: Option<usize>,
}

impl Scan {
    fn next(&mut self, key: i64, right: &[Option<i64>]) -> Option<usize> {
        let eq = self.how.allow_eq;
        let n = right.len();
        match self.how.strategy {
            AsofStrategy::Backward => {
                while self.offset < n {
                    if let Some(r) = right[self.offset] {
                        if r < key || (eq && r == key) {
                            self.best = Some(self.offset);
                        } else {
                            break;
                        }
                    }
                    self.offset += 1;
                }
                self.best
            }
            AsofStrategy::Forward => {
                while self.offset < n {
                    if let Some(r) = right[self.offset]
                        && (r > key || (eq && r == key))
                    {
                        return Some(self.offset);
                    }
                    self.offset += 1;
                }
                None
            }
            AsofStrategy::Nearest => {
                while self.offset < n {
                    match right[self.offset] {
                        Some(r) if r > key => break,
                        _ => self.offset += 1,
                    }
                }
                if eq && self.offset > 0 && right[self.offset - 1] == Some(key) {
                    return Some(self.offset - 1);
                }
                while self.offset + 1 < n && right[self.offset + 1] == right[self.offset] {
                    self.offset += 1;
                }
                let mut cursor = self.smaller.unwrap_or(0);
                while cursor < self.offset {
                    match right[cursor] {
                        Some(r) if r >= key => break,
                        Some(_) => self.smaller = Some(cursor),
                        None => {}
                    }
                    cursor += 1;
                }
                let get = |i: usize| right.get(i).copied().flatten();
                let lower = self.smaller.and_then(get);
                match (lower, get(self.offset)) {
                    (None, None) => None,
                    (Some(_), None) => self.smaller,
                    (None, Some(_)) => Some(self.offset),
                    (Some(lo), Some(hi)) => {
                        if hi.abs_diff(key) <= key.abs_diff(lo) {
                            Some(self.offset)
                        } else {
                            self.smaller
                        }
                    }
                }
            }
        }
    }
}

/// Polars' matches by groups (`by`): each left row's within the right rows
/// of its group (-1 none), in order, each group's scan its own.
fn polars_by(
    (left, left_groups): (&[Option<i64>], &[i64]),
    (right, right_groups): (&[Option<i64>], &[i64]),
    how: AsofMatch,
) -> Vec<i64> {
    // Each group's scan, its right rows and their keys.
    type Group = (Scan, Vec<usize>, Vec<Option<i64>>);
    let mut scans: HashMap<i64, Group> = HashMap::new();
    (left.iter().zip(left_groups))
        .map(|(key, &group)| {
            let Some(key) = *key else { return -1 };
            if group < 0 {
                return -1;
            }
            let (scan, rows, keys) = scans.entry(group).or_insert_with(|| {
                let rows: Vec<usize> = (0..right.len())
                    .filter(|&r| right_groups[r] == group)
                    .collect();
                let keys = rows.iter().map(|&r| right[r]).collect();
                let scan = Scan {
                    how,
                    offset: 0,
                    best: None,
                    smaller: None,
                };
                (scan, rows, keys)
            });
            match scan.next(key, keys) {
                Some(r)
                    if how
                        .tolerance
                        .is_none_or(|t| key.abs_diff(keys[r].unwrap()) <= t) =>
                {
                    rows[r] as i64
                }
                _ => -1,
            }
        })
        .collect()
}

/// Polars' matches: -1 where none (or one past the tolerance).
fn polars(left: &[Option<i64>], right: &[Option<i64>], how: AsofMatch) -> Vec<i64> {
    if left.iter().all(Option::is_none) || right.iter().all(Option::is_none) {
        return vec![-1; left.len()];
    }
    let mut scan = Scan {
        how,
        offset: 0,
        best: None,
        smaller: None,
    };
    left.iter()
        .map(|key| {
            let Some(key) = *key else { return -1 };
            match scan.next(key, right) {
                Some(r)
                    if how
                        .tolerance
                        .is_none_or(|t| key.abs_diff(right[r].unwrap()) <= t) =>
                {
                    r as i64
                }
                _ => -1,
            }
        })
        .collect()
}

/// `n` ascending keys of few distinct values (many ties), nulls as a run at
/// the start or the end (or, for a left side, anywhere).
fn keys(rng: &mut fastrand::Rng, n: usize, spread: i64, nulls_anywhere: bool) -> Vec<Option<i64>> {
    let mut values: Vec<i64> = (0..n).map(|_| rng.i64(-spread..spread)).collect();
    values.sort();
    let mut keys: Vec<Option<i64>> = values.into_iter().map(Some).collect();
    let nulls = if n > 0 { rng.usize(..=n / 4) } else { 0 };
    if nulls_anywhere {
        for _ in 0..nulls {
            let at = rng.usize(..n);
            keys[at] = None;
        }
    } else if rng.bool() {
        keys[..nulls].fill(None);
    } else {
        keys[n - nulls..].fill(None);
    }
    keys
}

fn upload_keys(
    device: &super::Device,
    keys: &[Option<i64>],
) -> (
    gpu_runtime::memory::DeviceBuffer<i64>,
    gpu_runtime::memory::DeviceBuffer<u32>,
) {
    let values: Vec<i64> = keys.iter().map(|k| k.unwrap_or(i64::MAX)).collect();
    let valid: Vec<bool> = keys.iter().map(Option::is_some).collect();
    (device.upload(&values), device.upload(&bitmap(&valid)))
}

#[test]
fn asof_search_matches_polars_scans() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(17);
    let strategies = [
        AsofStrategy::Backward,
        AsofStrategy::Forward,
        AsofStrategy::Nearest,
    ];
    for round in 0..300 {
        let (n_left, n_right) = match round {
            0 => (0, 5),
            1 => (5, 0),
            _ if round % 50 == 0 => (rng.usize(..5000), rng.usize(..5000)),
            _ => (rng.usize(..40), rng.usize(..40)),
        };
        let spread = [3, 20, 1000, i64::MAX / 2][round % 4];
        let left = keys(&mut rng, n_left, spread, true);
        let right = keys(&mut rng, n_right, spread, false);
        let (l, lv) = upload_keys(&device, &left);
        let (r, rv) = upload_keys(&device, &right);
        for strategy in strategies {
            for allow_eq in [true, false] {
                for tolerance in [None, Some(0), Some(2), Some(u64::MAX)] {
                    let how = AsofMatch {
                        strategy,
                        allow_eq,
                        tolerance,
                    };
                    let found = ops
                        .asof_search((&l, Some(&lv)), (&r, Some(&rv)), None, how)
                        .unwrap();
                    assert_eq!(
                        found.to_host().unwrap(),
                        polars(&left, &right, how),
                        "{how:?} of {left:?} in {right:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn asof_search_of_unsigned_keys_measures_distances_without_overflow() {
    let device = device();
    let ops = device.ops();
    let left = device.upload(&[0u64, u64::MAX / 2, u64::MAX]);
    let right = device.upload(&[1u64, u64::MAX - 1]);
    let nearest = |tolerance| AsofMatch {
        strategy: AsofStrategy::Nearest,
        allow_eq: true,
        tolerance,
    };
    let found = ops
        .asof_search((&left, None), (&right, None), None, nearest(None))
        .unwrap();
    assert_eq!(found.to_host().unwrap(), vec![0, 0, 1]);
    let found = ops
        .asof_search((&left, None), (&right, None), None, nearest(Some(1)))
        .unwrap();
    assert_eq!(found.to_host().unwrap(), vec![0, -1, 1]);
}

#[test]
fn asof_search_by_groups_matches_polars_scans_of_each_group() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(29);
    for round in 0..200 {
        let (n_left, n_right) = match round {
            _ if round % 50 == 0 => (rng.usize(..3000), rng.usize(..3000)),
            _ => (rng.usize(..40), rng.usize(..40)),
        };
        let n_groups = rng.i64(1..5);
        // Each group's keys sorted on each side, the groups interleaved
        // (-1: a null group, left only).
        let group = |rng: &mut fastrand::Rng, nulls| match rng.u8(..8) {
            0 if nulls => -1,
            _ => rng.i64(0..n_groups),
        };
        let left_groups: Vec<i64> = (0..n_left).map(|_| group(&mut rng, true)).collect();
        let right_groups: Vec<i64> = (0..n_right).map(|_| group(&mut rng, false)).collect();
        let spread = [3, 20, 1000][round % 3];
        let sorted_within = |rng: &mut fastrand::Rng, groups: &[i64], anywhere| {
            let mut all = vec![None; groups.len()];
            for g in -1..n_groups {
                let rows: Vec<usize> = (0..groups.len()).filter(|&r| groups[r] == g).collect();
                let of_group = keys(rng, rows.len(), spread, anywhere);
                for (&r, key) in rows.iter().zip(of_group) {
                    all[r] = key;
                }
            }
            all
        };
        let left = sorted_within(&mut rng, &left_groups, true);
        let right = sorted_within(&mut rng, &right_groups, false);
        // The right side in the order of its groups, stably.
        let mut order: Vec<usize> = (0..n_right).collect();
        order.sort_by_key(|&r| right_groups[r]);
        let right_in_order: Vec<Option<i64>> = order.iter().map(|&r| right[r]).collect();
        let groups_in_order: Vec<i64> = order.iter().map(|&r| right_groups[r]).collect();
        let rows_in_order: Vec<i64> = order.iter().map(|&r| r as i64).collect();
        let (l, lv) = upload_keys(&device, &left);
        let (r, rv) = upload_keys(&device, &right_in_order);
        let (lg, rg, rr) = (
            device.upload(&left_groups),
            device.upload(&groups_in_order),
            device.upload(&rows_in_order),
        );
        let groups = AsofGroups {
            left: &lg,
            right: &rg,
            right_rows: &rr,
        };
        for strategy in [
            AsofStrategy::Backward,
            AsofStrategy::Forward,
            AsofStrategy::Nearest,
        ] {
            for (allow_eq, tolerance) in [(true, None), (false, None), (true, Some(1))] {
                let how = AsofMatch {
                    strategy,
                    allow_eq,
                    tolerance,
                };
                let found = ops
                    .asof_search((&l, Some(&lv)), (&r, Some(&rv)), Some(groups), how)
                    .unwrap();
                assert_eq!(
                    found.to_host().unwrap(),
                    polars_by((&left, &left_groups), (&right, &right_groups), how),
                    "{how:?} of {left:?} in {left_groups:?}, {right:?} in {right_groups:?}"
                );
            }
        }
    }
}
