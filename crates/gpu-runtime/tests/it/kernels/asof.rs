//! The as-of search against Polars' scans (backward, forward, nearest) written out in Rust, over sorted keys with nulls at either end, whole or within groups, integer and float keys (NaNs, infinities, signed zeros).

use std::cmp::Ordering;
use std::collections::HashMap;

use gpu_runtime::memory::DeviceCopy;
use gpu_runtime::ops::{AsofGroups, AsofKey, AsofMatch, AsofStrategy, AsofTolerance};

use super::{bitmap, device};

/// A key type as Polars' scans read it: `tot_cmp` (floats: NaN greatest,
/// -0.0 equal to 0.0) for backward and forward, `PartialOrd` (which no NaN
/// satisfies) and `abs_diff` for nearest and the tolerance.
trait Key: AsofKey + DeviceCopy + Copy + PartialOrd + std::fmt::Debug {
    type Distance: PartialOrd + Copy;
    fn tot_cmp(self, other: Self) -> Ordering;
    fn abs_diff(self, other: Self) -> Self::Distance;
    fn tolerance(t: AsofTolerance) -> Self::Distance;
    /// The value a null's slot holds.
    const FILLER: Self;
}

impl Key for i64 {
    type Distance = u64;
    fn tot_cmp(self, other: Self) -> Ordering {
        self.cmp(&other)
    }
    fn abs_diff(self, other: Self) -> u64 {
        i64::abs_diff(self, other)
    }
    fn tolerance(t: AsofTolerance) -> u64 {
        match t {
            AsofTolerance::Integer(t) => t,
            AsofTolerance::Float(_) => unreachable!("a float tolerance of integer keys"),
        }
    }
    const FILLER: Self = i64::MAX;
}

macro_rules! float_key {
    ($($t:ty),*) => {$(
        impl Key for $t {
            type Distance = $t;
            fn tot_cmp(self, other: Self) -> Ordering {
                match (self.is_nan(), other.is_nan()) {
                    (true, true) => Ordering::Equal,
                    (true, false) => Ordering::Greater,
                    (false, true) => Ordering::Less,
                    (false, false) => self.partial_cmp(&other).unwrap(),
                }
            }
            fn abs_diff(self, other: Self) -> $t {
                if self > other { self - other } else { other - self }
            }
            fn tolerance(t: AsofTolerance) -> $t {
                match t {
                    AsofTolerance::Float(t) => t as $t,
                    AsofTolerance::Integer(_) => unreachable!("an integer tolerance of float keys"),
                }
            }
            const FILLER: Self = <$t>::NAN;
        }
    )*};
}

float_key!(f32, f64);

/// Whether Polars' filter keeps a match of `key` with `right`.
fn within<K: Key>(how: AsofMatch, key: K, right: K) -> bool {
    how.tolerance
        .is_none_or(|t| key.abs_diff(right) <= K::tolerance(t))
}

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
    fn next<K: Key>(&mut self, key: K, right: &[Option<K>]) -> Option<usize> {
        let eq = self.how.allow_eq;
        let n = right.len();
        match self.how.strategy {
            AsofStrategy::Backward => {
                while self.offset < n {
                    if let Some(r) = right[self.offset] {
                        let order = r.tot_cmp(key);
                        if order.is_lt() || (eq && order.is_eq()) {
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
                        && (r.tot_cmp(key).is_gt() || (eq && r.tot_cmp(key).is_eq()))
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
                        if key.abs_diff(hi) <= key.abs_diff(lo) {
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
fn polars_by<K: Key>(
    (left, left_groups): (&[Option<K>], &[i64]),
    (right, right_groups): (&[Option<K>], &[i64]),
    how: AsofMatch,
) -> Vec<i64> {
    // Each group's scan, its right rows and their keys.
    type Group<K> = (Scan, Vec<usize>, Vec<Option<K>>);
    let mut scans: HashMap<i64, Group<K>> = HashMap::new();
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
                Some(r) if within(how, key, keys[r].unwrap()) => rows[r] as i64,
                _ => -1,
            }
        })
        .collect()
}

/// Polars' matches: -1 where none (or one past the tolerance).
fn polars<K: Key>(left: &[Option<K>], right: &[Option<K>], how: AsofMatch) -> Vec<i64> {
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
                Some(r) if within(how, key, right[r].unwrap()) => r as i64,
                _ => -1,
            }
        })
        .collect()
}

/// `values` in ascending (total) order, nulls as a run at the start or the
/// end (or, for a left side, anywhere).
fn keys<K: Key>(
    rng: &mut fastrand::Rng,
    mut values: Vec<K>,
    nulls_anywhere: bool,
) -> Vec<Option<K>> {
    let n = values.len();
    values.sort_by(|a, b| a.tot_cmp(*b));
    let mut keys: Vec<Option<K>> = values.into_iter().map(Some).collect();
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

/// `n` integers of few distinct values (many ties) for round `round`.
fn integers(rng: &mut fastrand::Rng, n: usize, round: usize) -> Vec<i64> {
    let spread = [3, 20, 1000, i64::MAX / 2][round % 4];
    (0..n).map(|_| rng.i64(-spread..spread)).collect()
}

/// `n` floats of few distinct values: ties, signed zeros, infinities, NaNs
/// (now and then none), values a rounding apart.
fn floats<F: Key + From<f32>>(rng: &mut fastrand::Rng, n: usize, round: usize) -> Vec<F> {
    let choices: Vec<F> = [
        f32::NEG_INFINITY,
        -2.5,
        -1.0,
        -0.0,
        0.0,
        0.5,
        1.0,
        1.0 + f32::EPSILON,
        1.5,
        3.0,
        f32::INFINITY,
        f32::NAN,
    ]
    .into_iter()
    .map(F::from)
    .collect();
    let few = if round.is_multiple_of(3) {
        choices.len() - 1
    } else {
        choices.len()
    };
    (0..n).map(|_| choices[rng.usize(..few)]).collect()
}

fn upload_keys<K: Key>(
    device: &super::Device,
    keys: &[Option<K>],
) -> (
    gpu_runtime::memory::DeviceBuffer<K>,
    gpu_runtime::memory::DeviceBuffer<u32>,
) {
    let values: Vec<K> = keys.iter().map(|k| k.unwrap_or(K::FILLER)).collect();
    let valid: Vec<bool> = keys.iter().map(Option::is_some).collect();
    (device.upload(&values), device.upload(&bitmap(&valid)))
}

/// Every strategy, with and without exact matches, with each tolerance, of
/// random sides (`draw`n values for each round) against Polars' scans.
fn search_matches_polars<K: Key>(
    seed: u64,
    draw: impl Fn(&mut fastrand::Rng, usize, usize) -> Vec<K>,
    tolerances: &[Option<AsofTolerance>],
) {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(seed);
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
        let left = draw(&mut rng, n_left, round);
        let left = keys(&mut rng, left, true);
        let right = draw(&mut rng, n_right, round);
        let right = keys(&mut rng, right, false);
        let (l, lv) = upload_keys(&device, &left);
        let (r, rv) = upload_keys(&device, &right);
        for strategy in strategies {
            for allow_eq in [true, false] {
                for &tolerance in tolerances {
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
fn asof_search_matches_polars_scans() {
    let tolerances = [None, Some(0), Some(2), Some(u64::MAX)];
    let tolerances = tolerances.map(|t| t.map(AsofTolerance::Integer));
    search_matches_polars(17, integers, &tolerances);
}

#[test]
fn asof_search_of_float_keys_matches_polars_scans_nans_and_all() {
    let tolerances = [
        None,
        Some(0.0),
        Some(0.5),
        Some(f64::INFINITY),
        Some(f64::NAN),
    ];
    let tolerances = tolerances.map(|t| t.map(AsofTolerance::Float));
    search_matches_polars(23, floats::<f64>, &tolerances);
    search_matches_polars(31, floats::<f32>, &tolerances);
}

#[test]
fn asof_search_of_unsigned_keys_measures_distances_without_overflow() {
    let device = device();
    let ops = device.ops();
    let left = device.upload(&[0u64, u64::MAX / 2, u64::MAX]);
    let right = device.upload(&[1u64, u64::MAX - 1]);
    let nearest = |tolerance: Option<u64>| AsofMatch {
        strategy: AsofStrategy::Nearest,
        allow_eq: true,
        tolerance: tolerance.map(AsofTolerance::Integer),
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

/// Every strategy of random sides by groups (`draw`n values, each group's
/// keys sorted) against Polars' scans of each group.
fn search_by_groups_matches_polars<K: Key>(
    seed: u64,
    draw: impl Fn(&mut fastrand::Rng, usize, usize) -> Vec<K>,
    tolerance: AsofTolerance,
) {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(seed);
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
        let sorted_within = |rng: &mut fastrand::Rng, groups: &[i64], anywhere| {
            let mut all = vec![None; groups.len()];
            for g in -1..n_groups {
                let rows: Vec<usize> = (0..groups.len()).filter(|&r| groups[r] == g).collect();
                let values = draw(rng, rows.len(), round);
                let of_group = keys(rng, values, anywhere);
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
        let right_in_order: Vec<Option<K>> = order.iter().map(|&r| right[r]).collect();
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
            for (allow_eq, tolerance) in [(true, None), (false, None), (true, Some(tolerance))] {
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

#[test]
fn asof_search_by_groups_matches_polars_scans_of_each_group() {
    let integers = |rng: &mut fastrand::Rng, n, round| integers(rng, n, round % 3);
    search_by_groups_matches_polars(29, integers, AsofTolerance::Integer(1));
    search_by_groups_matches_polars(37, floats::<f64>, AsofTolerance::Float(1.0));
}

#[test]
fn asof_search_refuses_a_tolerance_of_the_other_kind_of_keys() {
    let device = device();
    let ops = device.ops();
    let (ints, floats) = (device.upload(&[1i64, 2]), device.upload(&[1.0f64, 2.0]));
    let how = |tolerance| AsofMatch {
        strategy: AsofStrategy::Nearest,
        allow_eq: true,
        tolerance: Some(tolerance),
    };
    let wrong = ops.asof_search(
        (&ints, None),
        (&ints, None),
        None,
        how(AsofTolerance::Float(1.0)),
    );
    assert!(wrong.is_err(), "a float tolerance of integer keys");
    let wrong = ops.asof_search(
        (&floats, None),
        (&floats, None),
        None,
        how(AsofTolerance::Integer(1)),
    );
    assert!(wrong.is_err(), "an integer tolerance of float keys");
}
