//! Per-group kernels (variance, quantiles, large groups, shifts, fills and scans within groups) against Rust references of Polars' formulas.

use gpu_runtime::ops::{QuantileMethod, VarianceOf};

use super::{SIZES, bitmap, device, flags};

/// Random groups over `n` rows: their starts, and values (some NaN) with
/// validity, each group sorted in total order with its nulls first (as
/// `segment_quantile` takes them).
fn sorted_groups(rng: &mut fastrand::Rng, n: usize) -> (Vec<i64>, Vec<f64>, Vec<bool>) {
    let mut starts = Vec::new();
    let mut values = Vec::new();
    let mut valid = Vec::new();
    while values.len() < n {
        starts.push(values.len() as i64);
        let size = rng.usize(1..9).min(n - values.len());
        let mut group: Vec<Option<f64>> = (0..size)
            .map(|_| match rng.u8(..10) {
                0 => None,
                1 => Some(f64::NAN),
                // Thirds: interpolations that round.
                2 => Some(f64::from(rng.i32(-50..50)) / 3.0),
                _ => Some(f64::from(rng.i32(-50..50)) / 4.0),
            })
            .collect();
        group.sort_by(|a, b| match (a, b) {
            (None, None) => std::cmp::Ordering::Equal,
            (None, _) => std::cmp::Ordering::Less,
            (_, None) => std::cmp::Ordering::Greater,
            (Some(a), Some(b)) => a.total_cmp(b),
        });
        for v in group {
            values.push(v.unwrap_or(0.0));
            valid.push(v.is_some());
        }
    }
    (starts, values, valid)
}

fn segments<'a>(starts: &'a [i64], n: usize) -> impl Iterator<Item = std::ops::Range<usize>> + 'a {
    (0..starts.len()).map(move |g| starts[g] as usize..starts.get(g + 1).map_or(n, |&s| s as usize))
}

/// Polars' `quantile_idx` and interpolation on a group's values sorted
/// with its `nulls` nulls first (`sorted`: the valid ones): the places count
/// the nulls, as Polars counts them, which rounds an interpolation's
/// proportion as Polars rounds it.
fn quantile_reference(sorted: &[f64], nulls: usize, q: f64, method: QuantileMethod) -> Option<f64> {
    let m = sorted.len();
    match m {
        0 => return None,
        1 => return Some(sorted[0]),
        _ => {}
    }
    let length = m + nulls;
    let float_idx = (m as f64 - 1.0) * q + nulls as f64;
    let (idx, top) = match method {
        QuantileMethod::Nearest => {
            let i = float_idx.round() as usize;
            (i, i)
        }
        QuantileMethod::Equiprobable => {
            let i = ((m as f64 * q).ceil() - 1.0).max(0.0) as usize + nulls;
            (i, i)
        }
        _ => {
            let base = if method == QuantileMethod::Higher {
                float_idx.ceil() as usize
            } else {
                float_idx as usize
            };
            (base.min(length - 1), float_idx.ceil() as usize)
        }
    };
    // Places of the whole group: the valid values begin after the nulls.
    let at = |i: usize| sorted[i - nulls];
    let lower = at(idx);
    if idx == top {
        return Some(lower);
    }
    Some(match method {
        QuantileMethod::Midpoint | QuantileMethod::Linear => {
            let upper = at(idx + 1);
            if lower == upper {
                lower
            } else if method == QuantileMethod::Midpoint {
                (lower + upper) / 2.0
            } else {
                (float_idx - idx as f64) * (upper - lower) + lower
            }
        }
        _ => lower,
    })
}

fn same(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

#[test]
fn segment_quantiles_follow_polars_formulas() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(51);
    for n in [1usize, 7, 33, 1000] {
        let (starts, values, valid) = sorted_groups(&mut rng, n);
        let (d_starts, d_values, d_valid) = (
            device.upload(&starts),
            device.upload(&values),
            device.upload(&bitmap(&valid)),
        );
        for method in super::QUANTILE_METHODS {
            for q in [0.0, 0.1, 0.25, 0.5, 0.9, 1.0] {
                let (out, out_valid) = ops
                    .segment_quantile(&d_values, Some(&d_valid), &d_starts, q, method)
                    .unwrap();
                let (out, out_valid) = (
                    out.to_host().unwrap(),
                    flags(&out_valid.to_host().unwrap(), starts.len()),
                );
                for (g, range) in segments(&starts, n).enumerate() {
                    let nulls = range.clone().filter(|&i| !valid[i]).count();
                    let sorted: Vec<f64> = range.filter(|&i| valid[i]).map(|i| values[i]).collect();
                    let expected = quantile_reference(&sorted, nulls, q, method);
                    assert_eq!(
                        out_valid[g],
                        expected.is_some(),
                        "n {n} {method:?} {q} g {g}"
                    );
                    if let Some(e) = expected {
                        assert!(
                            same(out[g], e),
                            "n {n} {method:?} q {q} group {g}: {} vs {e}",
                            out[g]
                        );
                    }
                }
            }
        }
    }
    let err = ops
        .segment_quantile(
            &device.upload(&[1.0]),
            None,
            &device.upload(&[0i64]),
            1.5,
            QuantileMethod::Linear,
        )
        .unwrap_err();
    assert!(err.to_string().contains("quantile 1.5"), "{err}");
}

#[test]
fn segment_variances_follow_polars_formulas() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(52);
    for n in [1usize, 7, 33, 1000] {
        let (starts, values, valid) = sorted_groups(&mut rng, n);
        let (d_starts, d_values, d_valid) = (
            device.upload(&starts),
            device.upload(&values),
            device.upload(&bitmap(&valid)),
        );
        for ddof in [0u8, 1, 2] {
            for std in [false, true] {
                let (out, out_valid) = ops
                    .segment_variance(
                        &d_values,
                        Some(&d_valid),
                        &d_starts,
                        (ddof, std),
                        VarianceOf::Groups,
                    )
                    .unwrap();
                let (out, out_valid) = (
                    out.to_host().unwrap(),
                    flags(&out_valid.to_host().unwrap(), starts.len()),
                );
                for (g, range) in segments(&starts, n).enumerate() {
                    let xs: Vec<f64> = range.filter(|&i| valid[i]).map(|i| values[i]).collect();
                    let count = xs.len();
                    assert_eq!(out_valid[g], count > usize::from(ddof), "n {n} g {g}");
                    if count <= usize::from(ddof) {
                        continue;
                    }
                    // Polars' per-group `online_variance`: Welford's steps.
                    let (mut mean, mut m2) = (0.0f64, 0.0f64);
                    for (k, &x) in xs.iter().enumerate() {
                        let delta_1 = x - mean;
                        let new_mean = delta_1 / (k + 1) as f64 + mean;
                        m2 += delta_1 * (x - new_mean);
                        mean = new_mean;
                    }
                    let var = m2 / (count as f64 - f64::from(ddof));
                    let expected = if std { var.sqrt() } else { var };
                    assert!(
                        same(out[g], expected),
                        "n {n} ddof {ddof} g {g}: {} vs {expected}",
                        out[g]
                    );
                }
            }
        }
    }
}

/// Polars' variance of a column or of each list (polars-compute's
/// `VarState`): the valid values in chunks of 128, each chunk's mean and
/// squared deviations summed in order from -0.0, the chunks merged in order.
fn column_variance(xs: &[f64], ddof: u8) -> Option<f64> {
    let (mut weight, mut mean, mut dp) = (0.0f64, 0.0f64, 0.0f64);
    for chunk in xs.chunks(128) {
        let w = chunk.len() as f64;
        let m = chunk.iter().fold(-0.0, |a, &x| a + x) / w;
        let d = chunk.iter().fold(-0.0, |a, &x| a + (x - m) * (x - m));
        let new_weight = weight + w;
        let delta_mean = m - mean;
        let new_mean = mean + delta_mean * (w / new_weight);
        dp += d + w * (m - new_mean) * delta_mean;
        (weight, mean) = (new_weight, new_mean);
    }
    // (A negative variance is 0.0; NaN stays.)
    (weight > f64::from(ddof)).then(|| match dp / (weight - f64::from(ddof)) {
        var if var < 0.0 => 0.0,
        var => var,
    })
}

#[test]
fn column_variances_follow_polars_chunks() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(53);
    // (200,000 values in one group: more chunks than one device thread
    // folds, folded on the host.)
    for n in [1usize, 7, 33, 1000, 5000, 200_000] {
        let (mut starts, mut values, valid) = sorted_groups(&mut rng, n);
        if n == 200_000 {
            starts = vec![0];
        } else if n >= 1000 {
            // Groups of many chunks too (the first group is most rows),
            // of finite values, whose last bits the order decides.
            starts = vec![0, n as i64 - 3, n as i64 - 1];
            for (i, value) in values.iter_mut().enumerate() {
                if value.is_nan() {
                    *value = (i % 97) as f64 / 3.0;
                }
            }
        }
        let (d_starts, d_values, d_valid) = (
            device.upload(&starts),
            device.upload(&values),
            device.upload(&bitmap(&valid)),
        );
        for ddof in [0u8, 1, 2] {
            for std in [false, true] {
                for validity in [Some(&d_valid), None] {
                    let (out, out_valid) = ops
                        .segment_variance(
                            &d_values,
                            validity,
                            &d_starts,
                            (ddof, std),
                            VarianceOf::Columns,
                        )
                        .unwrap();
                    let (out, out_valid) = (
                        out.to_host().unwrap(),
                        flags(&out_valid.to_host().unwrap(), starts.len()),
                    );
                    for (g, range) in segments(&starts, n).enumerate() {
                        let xs: Vec<f64> = range
                            .filter(|&i| validity.is_none() || valid[i])
                            .map(|i| values[i])
                            .collect();
                        let expected = column_variance(&xs, ddof).map(|v| match std {
                            true => v.sqrt(),
                            false => v,
                        });
                        assert_eq!(out_valid[g], expected.is_some(), "n {n} g {g}");
                        if let Some(expected) = expected {
                            assert!(
                                same(out[g], expected),
                                "n {n} ddof {ddof} g {g}: {} vs {expected}",
                                out[g]
                            );
                        }
                    }
                }
            }
        }
    }
}

/// A group of one row sums and averages to its value, -0.0 kept (Polars'
/// group-by takes it so); a sum of more rows starts from 0.0 (so -0.0 and
/// -0.0 sum to 0.0, as Polars' Kahan sum from zero gives), and a null's
/// sum is 0.0, its mean null.
#[test]
fn one_row_groups_keep_their_value_and_its_sign() {
    let device = device();
    let ops = device.ops();
    let values = [-0.0f64, -0.0, -0.0, 0.0, -0.0, 0.0, 2.5];
    let valid = [true, true, true, false, true, true, true];
    let starts = [0i64, 1, 3, 4, 6];
    let d_values = device.upload(&values);
    let d_valid = device.upload(&bitmap(&valid));
    let d_starts = device.upload(&starts);
    let sums = ops
        .segment_sum(&d_values, Some(&d_valid), &d_starts)
        .unwrap()
        .to_host()
        .unwrap();
    let (means, mean_valid) = ops
        .segment_mean(&d_values, Some(&d_valid), &d_starts)
        .unwrap();
    let means = means.to_host().unwrap();
    let mean_valid = flags(&mean_valid.to_host().unwrap(), starts.len());
    // Groups: [-0.0], [-0.0, -0.0], [null], [-0.0, 0.0], [2.5].
    let expected_sums = [-0.0f64, 0.0, 0.0, 0.0, 2.5];
    let expected_means = [Some(-0.0f64), Some(0.0), None, Some(0.0), Some(2.5)];
    for g in 0..starts.len() {
        assert_eq!(
            sums[g].to_bits(),
            expected_sums[g].to_bits(),
            "sum of group {g}"
        );
        let mean = mean_valid[g].then_some(means[g]);
        assert_eq!(
            mean.map(f64::to_bits),
            expected_means[g].map(f64::to_bits),
            "mean of group {g}"
        );
    }
}

/// Groups of every awkward size around a chunk (`CHUNK_ROWS`), and two of
/// tens of thousands of rows, so that the groups are reduced in chunks.
fn large_groups() -> Vec<usize> {
    vec![1, 300, 5, 100_000, 255, 256, 257, 70_000, 3, 512, 513]
}

#[test]
fn aggregations_of_large_groups_match_a_serial_reference() {
    use gpu_runtime::ops::{CHUNK_ROWS, SegmentPick};
    let device = device();
    let ops = device.ops();
    let sizes = large_groups();
    assert!(sizes.iter().any(|&s| s > 4 * CHUNK_ROWS));
    let mut rng = fastrand::Rng::with_seed(77);
    let n: usize = sizes.iter().sum();
    let mut starts = vec![0i64];
    for size in &sizes[..sizes.len() - 1] {
        starts.push(starts.last().unwrap() + *size as i64);
    }
    let ints: Vec<i64> = (0..n)
        .map(|i| match i % 97 {
            0 => i64::MAX,
            1 => i64::MIN,
            _ => rng.i64(-1_000_000..1_000_000),
        })
        .collect();
    let floats: Vec<f64> = (0..n)
        .map(|i| match i % 1009 {
            // One NaN in the second large group only.
            0 if i > 101_000 && i < 102_000 => f64::NAN,
            _ => rng.f64() * 1000.0 - 500.0,
        })
        .collect();
    // Without extremes: a mean of those cancels in any order differently.
    let small: Vec<i32> = (0..n).map(|_| rng.i32(-1000..1000)).collect();
    let d_small = device.upload(&small);
    let valid: Vec<bool> = (0..n).map(|i| i % 7 != 3).collect();
    let (d_ints, d_floats) = (device.upload(&ints), device.upload(&floats));
    let d_valid = device.upload(&bitmap(&valid));
    let d_starts = device.upload(&starts);

    let sums = ops
        .segment_sum(&d_ints, Some(&d_valid), &d_starts)
        .unwrap()
        .to_host()
        .unwrap();
    let float_sums = ops
        .segment_sum(&d_floats, Some(&d_valid), &d_starts)
        .unwrap()
        .to_host()
        .unwrap();
    let (means, mean_valid) = ops
        .segment_mean(&d_small, Some(&d_valid), &d_starts)
        .unwrap();
    let (means, mean_valid) = (
        means.to_host().unwrap(),
        flags(&mean_valid.to_host().unwrap(), sizes.len()),
    );
    let counts = ops
        .segment_count(Some(&d_valid), &d_starts, n)
        .unwrap()
        .to_host()
        .unwrap();
    let lens = ops
        .segment_count(None, &d_starts, n)
        .unwrap()
        .to_host()
        .unwrap();
    let (mins, _) = ops
        .segment_pick(SegmentPick::Min, &d_floats, Some(&d_valid), &d_starts)
        .unwrap();
    let (maxs, max_valid) = ops
        .segment_pick(SegmentPick::Max, &d_ints, Some(&d_valid), &d_starts)
        .unwrap();
    let (mins, maxs) = (mins.to_host().unwrap(), maxs.to_host().unwrap());
    let max_valid = flags(&max_valid.to_host().unwrap(), sizes.len());
    // Odd factors, so that a product never wraps to 0 and each chunk
    // counts; as i64 and as u64.
    let odd: Vec<i64> = ints.iter().map(|x| x | 1).collect();
    let odd_unsigned: Vec<u64> = odd.iter().map(|x| *x as u64).collect();
    let products = ops
        .segment_product(&device.upload(&odd), Some(&d_valid), &d_starts)
        .unwrap()
        .to_host()
        .unwrap();
    let unsigned_products = ops
        .segment_product(&device.upload(&odd_unsigned), Some(&d_valid), &d_starts)
        .unwrap()
        .to_host()
        .unwrap();
    // Floats near one (the products of large groups neither overflow nor
    // vanish), multiplied in order: bit for bit the sequential loop's.
    let factors: Vec<f64> = floats.iter().map(|x| 1.0 + x * 1e-6).collect();
    let narrow: Vec<f32> = factors.iter().map(|&x| x as f32).collect();
    let float_products = ops
        .segment_product(&device.upload(&factors), Some(&d_valid), &d_starts)
        .unwrap()
        .to_host()
        .unwrap();
    let f32_products = ops
        .segment_product(&device.upload(&narrow), Some(&d_valid), &d_starts)
        .unwrap()
        .to_host()
        .unwrap();

    for (g, rows) in segments(&starts, n).enumerate() {
        let rows: Vec<usize> = rows.filter(|&i| valid[i]).collect();
        let float_product = rows.iter().fold(1.0f64, |p, &i| p * factors[i]);
        assert_eq!(
            float_products[g].to_bits(),
            float_product.to_bits(),
            "f64 product of group {g}"
        );
        let f32_product = rows.iter().fold(1.0f32, |p, &i| p * narrow[i]);
        assert_eq!(
            f32_products[g].to_bits(),
            f32_product.to_bits(),
            "f32 product of group {g}"
        );
        let sum = rows.iter().fold(0i64, |s, &i| s.wrapping_add(ints[i]));
        assert_eq!(sums[g], sum, "sum of group {g}");
        let product = rows.iter().fold(1i64, |p, &i| p.wrapping_mul(odd[i]));
        assert_eq!(products[g], product, "product of group {g}");
        assert_eq!(
            unsigned_products[g], product as u64,
            "u64 product of group {g}"
        );
        let float_sum: f64 = rows.iter().map(|&i| floats[i]).sum();
        assert!(
            close(float_sums[g], float_sum),
            "group {g}: {} vs {float_sum}",
            float_sums[g]
        );
        let mean = rows.iter().map(|&i| f64::from(small[i])).sum::<f64>() / rows.len() as f64;
        assert!(
            mean_valid[g] && close(means[g], mean),
            "mean of group {g}: {} vs {mean}",
            means[g]
        );
        assert_eq!(counts[g] as usize, rows.len(), "count of group {g}");
        assert_eq!(lens[g] as usize, sizes[g], "len of group {g}");
        let non_nan: Vec<f64> = rows
            .iter()
            .map(|&i| floats[i])
            .filter(|v| !v.is_nan())
            .collect();
        let min = non_nan.iter().copied().fold(f64::INFINITY, f64::min);
        assert_eq!(mins[g], min, "min of group {g}");
        let max = rows.iter().map(|&i| ints[i]).max().unwrap();
        assert!(max_valid[g]);
        assert_eq!(maxs[g], max, "max of group {g}");
    }
}

/// Equal within a relative 1e-9 (sums in another order), NaN equal to NaN.
fn close(a: f64, b: f64) -> bool {
    same(a, b) || (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// `n` rows in random groups (up to `groups` of them, by a key per row):
/// the rows sorted stably by key, the groups' starts in that order, and
/// each row's key.
fn random_groups(rng: &mut fastrand::Rng, n: usize, groups: u32) -> (Vec<i64>, Vec<i64>, Vec<u32>) {
    let keys: Vec<u32> = (0..n).map(|_| rng.u32(..groups)).collect();
    let mut rows: Vec<i64> = (0..n as i64).collect();
    rows.sort_by_key(|&r| keys[r as usize]);
    let starts = (0..n)
        .filter(|&i| i == 0 || keys[rows[i] as usize] != keys[rows[i - 1] as usize])
        .map(|i| i as i64)
        .collect();
    (rows, starts, keys)
}

/// Each row's earlier (`true`) and later rows of its own group, nearest first.
fn group_neighbours(keys: &[u32], row: usize, earlier: bool) -> Vec<usize> {
    let same = |&j: &usize| keys[j] == keys[row];
    if earlier {
        (0..row).rev().filter(same).collect()
    } else {
        (row + 1..keys.len()).filter(same).collect()
    }
}

#[test]
fn shifts_and_fills_stay_within_their_groups() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(61);
    for &n in SIZES.iter().filter(|&&n| n <= 4099) {
        for groups in [1, 3, 40] {
            let (rows, starts, keys) = random_groups(&mut rng, n, groups);
            let (d_rows, d_starts) = (device.upload(&rows), device.upload(&starts));
            let group_of = ops.segment_ids(&d_starts, n).unwrap();
            // Shifts, with counts beyond the height and at the extremes.
            for shift in [
                0i64,
                1,
                2,
                -1,
                -3,
                n as i64,
                -(n as i64) - 5,
                i64::MIN,
                i64::MAX,
            ] {
                let got = ops
                    .segment_sources(&d_rows, &d_starts, &group_of, None, shift)
                    .unwrap()
                    .to_host()
                    .unwrap();
                let expected: Vec<i64> = (0..n)
                    .map(|row| {
                        let steps = shift.unsigned_abs();
                        if steps == 0 {
                            return row as i64;
                        }
                        let neighbours = group_neighbours(&keys, row, shift > 0);
                        usize::try_from(steps - 1)
                            .ok()
                            .and_then(|k| neighbours.get(k))
                            .map_or(-1, |&j| j as i64)
                    })
                    .collect();
                assert_eq!(got, expected, "n = {n}, {groups} groups, shift {shift}");
            }
            // Fills: the nearest valid row of the group, within the limit.
            let valid: Vec<bool> = (0..n).map(|_| rng.u8(..3) == 0).collect();
            let sorted_valid: Vec<bool> = rows.iter().map(|&r| valid[r as usize]).collect();
            let d_sorted_valid = device.upload(&bitmap(&sorted_valid));
            for forward in [true, false] {
                for limit in [None, Some(0u64), Some(2)] {
                    let positions = ops
                        .fill_sources(&d_sorted_valid, n, forward, limit)
                        .unwrap();
                    let got = ops
                        .segment_sources(&d_rows, &d_starts, &group_of, Some(&positions), 0)
                        .unwrap()
                        .to_host()
                        .unwrap();
                    let expected: Vec<i64> = (0..n)
                        .map(|row| {
                            let mut candidates = vec![row];
                            candidates.extend(group_neighbours(&keys, row, forward));
                            candidates
                                .iter()
                                .enumerate()
                                .find(|&(_, &j)| valid[j])
                                .filter(|&(distance, _)| limit.is_none_or(|l| distance as u64 <= l))
                                .map_or(-1, |(_, &j)| j as i64)
                        })
                        .collect();
                    assert_eq!(
                        got, expected,
                        "n = {n}, {groups} groups, forward {forward}, limit {limit:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn rebased_scans_restart_in_every_group() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(62);
    for &n in SIZES {
        for groups in [1, 7, 1000] {
            let (rows, starts, keys) = random_groups(&mut rng, n, groups);
            let (d_rows, d_starts) = (device.upload(&rows), device.upload(&starts));
            let group_of = ops.segment_ids(&d_starts, n).unwrap();
            let values: Vec<i64> = (0..n)
                .map(|_| match rng.u8(..20) {
                    0 => i64::MAX,
                    1 => i64::MIN,
                    _ => rng.i64(-1000..1000),
                })
                .collect();
            let sorted: Vec<i64> = rows.iter().map(|&r| values[r as usize]).collect();
            let scan = ops.inclusive_scan(&device.upload(&sorted), true).unwrap();
            let got = ops
                .segment_rebase(&scan, &d_rows, &d_starts, &group_of)
                .unwrap()
                .to_host()
                .unwrap();
            let mut running = std::collections::HashMap::new();
            let expected: Vec<i64> = (0..n)
                .map(|row| {
                    let sum = running.entry(keys[row]).or_insert(0i64);
                    *sum = sum.wrapping_add(values[row]);
                    *sum
                })
                .collect();
            assert_eq!(got, expected, "n = {n}, {groups} groups");
        }
    }
}

/// Whether `v` replaces `best` as Polars' running `f64::max` (`min`) keeps
/// it: a number over NaN, never NaN over anything, the first of equals
/// (both zeros alike).
fn float_better(v: f64, best: f64, minimum: bool) -> bool {
    if v.is_nan() {
        return false;
    }
    best.is_nan() || if minimum { v < best } else { v > best }
}

/// The reference of `running_best`: each row's best row so far in its
/// group (in `rows`' order), or itself where null.
fn running_best_reference<T: Copy>(
    values: &[T],
    valid: &[bool],
    rows: &[i64],
    keys: &[u32],
    better: impl Fn(T, T) -> bool,
) -> Vec<i64> {
    let mut best: std::collections::HashMap<u32, usize> = Default::default();
    let mut out = vec![0i64; values.len()];
    for &row in rows {
        let row = row as usize;
        if !valid[row] {
            out[row] = row as i64;
            continue;
        }
        let kept = best.entry(keys[row]).or_insert(row);
        if better(values[row], values[*kept]) {
            *kept = row;
        }
        out[row] = *kept as i64;
    }
    out
}

#[test]
fn running_extremes_keep_the_first_best_row_in_every_group() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(63);
    // 1,100,000 rows make more tiles than one block of carries takes.
    for &n in SIZES.iter().chain(&[1_100_000]) {
        for groups in [0, 1, 7, 1000] {
            if n > 200_000 && groups == 1000 {
                continue;
            }
            // Without groups: every row in order, one group.
            let (rows, keys, on_device) = if groups == 0 {
                ((0..n as i64).collect(), vec![0; n], None)
            } else {
                let (rows, starts, keys) = random_groups(&mut rng, n, groups);
                let group_of = ops.segment_ids(&device.upload(&starts), n).unwrap();
                let d_rows = device.upload(&rows);
                (rows, keys, Some((d_rows, group_of)))
            };
            let groups_arg = on_device.as_ref().map(|(r, g)| (r, g));
            let valid: Vec<bool> = (0..n).map(|_| rng.u8(..8) != 0).collect();
            let d_valid = device.upload(&bitmap(&valid));
            let ints: Vec<i64> = (0..n)
                .map(|_| match rng.u8(..20) {
                    0 => i64::MAX,
                    1 => i64::MIN,
                    _ => rng.i64(-50..50),
                })
                .collect();
            let words: Vec<u64> = (0..n)
                .map(|_| match rng.u8(..10) {
                    0 => u64::MAX,
                    1 => 0,
                    _ => rng.u64(..100),
                })
                .collect();
            let floats: Vec<f64> = (0..n)
                .map(|_| match rng.u8(..12) {
                    0 => f64::NAN,
                    1 => 0.0,
                    2 => -0.0,
                    3 => f64::INFINITY,
                    4 => f64::NEG_INFINITY,
                    _ => rng.i32(-20..20) as f64 / 4.0,
                })
                .collect();
            for minimum in [false, true] {
                let context = format!("n = {n}, {groups} groups, minimum {minimum}");
                let run = |got: gpu_runtime::memory::DeviceBuffer<i64>| got.to_host().unwrap();
                let got = run(ops
                    .running_best(&device.upload(&ints), Some(&d_valid), minimum, groups_arg)
                    .unwrap());
                let expected = running_best_reference(&ints, &valid, &rows, &keys, |v, b| {
                    if minimum { v < b } else { v > b }
                });
                assert_eq!(got, expected, "i64, {context}");
                let got = run(ops
                    .running_best(&device.upload(&words), None, minimum, groups_arg)
                    .unwrap());
                let all = vec![true; n];
                let expected = running_best_reference(&words, &all, &rows, &keys, |v, b| {
                    if minimum { v < b } else { v > b }
                });
                assert_eq!(got, expected, "u64, {context}");
                let got = run(ops
                    .running_best(&device.upload(&floats), Some(&d_valid), minimum, groups_arg)
                    .unwrap());
                let expected = running_best_reference(&floats, &valid, &rows, &keys, |v, b| {
                    float_better(v, b, minimum)
                });
                assert_eq!(got, expected, "f64, {context}");
            }
        }
    }
}

#[test]
fn sorted_groups_that_disagree_are_refused() {
    let device = device();
    let ops = device.ops();
    let rows = device.upload(&[0i64, 1, 2]);
    let starts = device.upload(&[0i64]);
    let short = device.upload(&[0u32, 0]);
    let error = ops
        .segment_sources(&rows, &starts, &short, None, 1)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("groups of 2 positions for 3 rows"),
        "{error}"
    );
    let group_of = ops.segment_ids(&starts, 3).unwrap();
    let scan = device.upload(&[1i64, 2]);
    let error = ops
        .segment_rebase(&scan, &rows, &starts, &group_of)
        .unwrap_err()
        .to_string();
    assert!(error.contains("a scan of 2 values for 3 rows"), "{error}");
}

#[test]
fn ranks_count_places_within_partitions() {
    use gpu_runtime::ops::RankPlace;
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(63);
    for &n in SIZES.iter().filter(|&&n| n <= 4099) {
        for (partitions, descending) in [(1, false), (1, true), (5, false), (30, true)] {
            let part: Vec<u32> = (0..n).map(|_| rng.u32(..partitions)).collect();
            let value: Vec<Option<i32>> = (0..n)
                .map(|_| (rng.u8(..8) != 0).then(|| rng.i32(-6..6)))
                .collect();
            // Sorted by partition, then value (descending when asked), nulls
            // last, stably; runs of equal values (nulls one run).
            let mut rows: Vec<i64> = (0..n as i64).collect();
            let order = |a: &Option<i32>, b: &Option<i32>| match (a, b) {
                (Some(a), Some(b)) if descending => b.cmp(a),
                (Some(a), Some(b)) => a.cmp(b),
                _ => a.is_none().cmp(&b.is_none()),
            };
            rows.sort_by(|&a, &b| {
                let (a, b) = (a as usize, b as usize);
                part[a].cmp(&part[b]).then(order(&value[a], &value[b]))
            });
            let key = |i: usize| (part[rows[i] as usize], value[rows[i] as usize]);
            let starts_where = |changed: &dyn Fn(usize) -> bool| -> Vec<i64> {
                (0..n)
                    .filter(|&i| i == 0 || changed(i))
                    .map(|i| i as i64)
                    .collect()
            };
            let ties = starts_where(&|i| key(i) != key(i - 1));
            let parts = starts_where(&|i| key(i).0 != key(i - 1).0);
            let d_rows = device.upload(&rows);
            let (d_ties, d_parts) = (device.upload(&ties), device.upload(&parts));
            let tie_of = ops.segment_ids(&d_ties, n).unwrap();
            let part_of = ops.segment_ids(&d_parts, n).unwrap();
            // Polars' places, counted directly.
            let before = |r: usize, j: usize| {
                let (a, b) = (value[j].unwrap(), value[r].unwrap());
                if descending { a > b } else { a < b }
            };
            let places = |r: usize| -> [u32; 4] {
                let peers: Vec<usize> = (0..n)
                    .filter(|&j| part[j] == part[r] && value[j].is_some())
                    .collect();
                let count = |f: &dyn Fn(usize) -> bool| peers.iter().filter(|&&j| f(j)).count();
                let smaller = count(&|j| before(r, j)) as u32;
                let equal = count(&|j| value[j] == value[r]) as u32;
                let mut distinct: Vec<i32> = peers
                    .iter()
                    .filter(|&&j| before(r, j))
                    .map(|&j| value[j].unwrap())
                    .collect();
                distinct.sort();
                distinct.dedup();
                let earlier_equal = count(&|j| j < r && value[j] == value[r]);
                [
                    smaller + 1,
                    smaller + equal,
                    distinct.len() as u32 + 1,
                    smaller + earlier_equal as u32 + 1,
                ]
            };
            let valid: Vec<usize> = (0..n).filter(|&r| value[r].is_some()).collect();
            let expected: Vec<[u32; 4]> = valid.iter().map(|&r| places(r)).collect();
            for (k, place) in [
                RankPlace::Min,
                RankPlace::Max,
                RankPlace::Dense,
                RankPlace::Ordinal,
            ]
            .into_iter()
            .enumerate()
            {
                let got = ops
                    .rank_places(&d_rows, (&d_ties, &tie_of), (&d_parts, &part_of), place)
                    .unwrap()
                    .to_host()
                    .unwrap();
                let got: Vec<u32> = valid.iter().map(|&r| got[r]).collect();
                let want: Vec<u32> = expected.iter().map(|p| p[k]).collect();
                assert_eq!(got, want, "n = {n}, {partitions} partitions, {place:?}");
            }
            let got = ops
                .rank_averages(&d_rows, (&d_ties, &tie_of), (&d_parts, &part_of))
                .unwrap()
                .to_host()
                .unwrap();
            let got: Vec<f64> = valid.iter().map(|&r| got[r]).collect();
            let want: Vec<f64> = expected
                .iter()
                .map(|p| 0.5 * (f64::from(p[0]) + f64::from(p[1])))
                .collect();
            assert_eq!(got, want, "n = {n}, {partitions} partitions, average");
        }
    }
}
