//! Rolling windows by a count of rows or by times (sums, means, variances, minima, maxima, quantiles) and exponentially weighted means, restarted in each group: against Rust references of Polars' windows, to the bit.

use gpu_runtime::ops::{Ewm, QuantileMethod, RowWindow, TimeWindow, Windows};

use super::scan::shuffled_groups;
use super::{SIZES, bitmap, device};

/// The window of position `i` of a group of `len` rows, as Polars' fixed
/// windows find it.
fn window_of(i: usize, len: usize, window: RowWindow) -> (usize, usize) {
    let size = window.size as usize;
    if !window.center {
        return (i.saturating_sub(size - 1), i + 1);
    }
    let after = size.div_ceil(2);
    (i.saturating_sub(size - after), len.min(i + after))
}

/// Polars' float window sum (its `SumWindow` of f64): Kahan's sums, one
/// compensation each way, non-finite values counted aside; the sums of a
/// group's windows in order, with the valid counts.
fn float_sums(values: &[f64], valid: &[bool], group: &[i64], window: RowWindow) -> Vec<(f64, u64)> {
    let window = |i| Some(window_of(i, group.len(), window));
    float_sums_in(values, valid, group, group.len(), &window)
        .into_iter()
        .map(Option::unwrap)
        .collect()
}

/// [`float_sums`] in the `count` windows `window_at` gives (one per
/// position, or listed; None where the walk skips one, as Polars' windows
/// by times do).
fn float_sums_in(
    values: &[f64],
    valid: &[bool],
    group: &[i64],
    count: usize,
    window_at: &dyn Fn(usize) -> Option<(usize, usize)>,
) -> Vec<Option<(f64, u64)>> {
    let (mut sum, mut err_add, mut err_sub) = (0f64, 0f64, 0f64);
    let (mut non_finite, mut pos, mut neg) = (0i64, 0i64, 0i64);
    let (mut start, mut end, mut nulls) = (0, 0, 0u64);
    let mut out = Vec::new();
    for i in 0..count {
        let Some((next_start, next_end)) = window_at(i) else {
            out.push(None);
            continue;
        };
        if next_start >= end {
            (sum, err_add, err_sub, non_finite, pos, neg, nulls) = (0.0, 0.0, 0.0, 0, 0, 0, 0);
            (start, end) = (next_start, next_start);
        }
        for (p, sign) in (start..next_start)
            .map(|p| (p, -1.0))
            .chain((end..next_end).map(|p| (p, 1.0)))
        {
            let row = group[p] as usize;
            if !valid[row] {
                nulls = nulls.wrapping_add_signed(sign as i64);
                continue;
            }
            let v = values[row];
            if v.is_finite() {
                let err = if sign > 0.0 {
                    &mut err_add
                } else {
                    &mut err_sub
                };
                let y = (if sign > 0.0 { v } else { 0.0 - v }) - *err;
                let next = sum + y;
                *err = (next - sum) - y;
                sum = next;
            } else {
                let step = sign as i64;
                non_finite += step;
                pos += step * i64::from(v > 0.0);
                neg += step * i64::from(v < 0.0);
            }
        }
        (start, end) = (next_start, next_end);
        let value = match non_finite {
            0 => sum,
            n if n == pos => f64::INFINITY,
            n if n == neg => f64::NEG_INFINITY,
            _ => f64::NAN,
        };
        out.push(Some((value, (end - start) as u64 - nulls)));
    }
    out
}

fn windows(rng: &mut fastrand::Rng) -> RowWindow {
    let size = [1, 2, 3, 4, 7, 40][rng.usize(..6)];
    RowWindow {
        size,
        min_periods: rng.u64(0..=size),
        center: rng.bool(),
    }
}

#[test]
fn window_sums_and_means_are_polars_to_the_bit() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(83);
    for &n in SIZES {
        // Mixed magnitudes (the order of the additions shows in the last
        // bits), infinities and NaN now and then, some nulls.
        let values: Vec<f64> = (0..n)
            .map(|_| match rng.u8(..40) {
                0 => f64::INFINITY,
                1 => f64::NEG_INFINITY,
                2 => f64::NAN,
                _ => (rng.f64() - 0.5) * 10f64.powi(rng.i32(-3..17)),
            })
            .collect();
        let ints: Vec<u64> = (0..n).map(|_| rng.u64(..)).collect();
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..5) != 0).collect();
        let (rows, starts, ends) = shuffled_groups(&mut rng, n);
        let window = windows(&mut rng);
        let (d_valid, d_rows, d_starts) = (
            device.upload(&bitmap(&valid)),
            device.upload(&rows),
            device.upload(&starts),
        );
        let groups = (&d_rows, &d_starts);
        let d_values = device.upload(&values);
        let (sums, sums_valid) = ops
            .window_sums(&d_values, Some(&d_valid), groups, window)
            .unwrap();
        let (means, means_valid) = ops
            .window_means(&d_values, Some(&d_valid), groups, window)
            .unwrap();
        let (int_sums, ints_valid) = ops
            .window_sums(&device.upload(&ints), Some(&d_valid), groups, window)
            .unwrap();
        let (sums, means, int_sums) = (
            sums.to_host().unwrap(),
            means.to_host().unwrap(),
            int_sums.to_host().unwrap(),
        );
        let is = |bits: &[u32], row: usize| bits[row / 32] >> (row % 32) & 1 == 1;
        let (sums_valid, means_valid, ints_valid) = (
            sums_valid.to_host().unwrap(),
            means_valid.to_host().unwrap(),
            ints_valid.to_host().unwrap(),
        );
        for (g, &start) in starts.iter().enumerate() {
            let group = &rows[start as usize..ends[g]];
            for (i, (sum, count)) in float_sums(&values, &valid, group, window)
                .into_iter()
                .enumerate()
            {
                let row = group[i] as usize;
                let what = format!("n={n} {window:?} group {g} position {i}");
                assert_eq!(is(&sums_valid, row), count >= window.min_periods, "{what}");
                if count >= window.min_periods {
                    assert_eq!(sums[row].to_bits(), sum.to_bits(), "{what}");
                }
                let mean_valid = count >= window.min_periods && count > 0;
                assert_eq!(is(&means_valid, row), mean_valid, "{what}");
                if mean_valid {
                    assert_eq!(
                        means[row].to_bits(),
                        (sum / count as f64).to_bits(),
                        "{what}"
                    );
                }
                // Integers: the wrapping sum of the window's valid values.
                let (first, last) = window_of(i, group.len(), window);
                let int_sum = group[first..last]
                    .iter()
                    .filter(|&&r| valid[r as usize])
                    .fold(0u64, |s, &r| s.wrapping_add(ints[r as usize]));
                assert_eq!(is(&ints_valid, row), count >= window.min_periods, "{what}");
                if count >= window.min_periods {
                    assert_eq!(int_sums[row], int_sum, "{what}");
                }
            }
        }
    }
}

#[test]
fn f32_means_sum_in_f64_and_f32_sums_in_f32() {
    let device = device();
    let ops = device.ops();
    let values: Vec<f32> = vec![1e8, 1.0, -1e8, 3.5, 0.1, 0.2, 0.3];
    let window = RowWindow {
        size: 3,
        min_periods: 1,
        center: false,
    };
    let (rows, starts) = (
        device.upload(&[0i64, 1, 2, 3, 4, 5, 6]),
        device.upload(&[0i64]),
    );
    let d_values = device.upload(&values);
    let (sums, _) = ops
        .window_sums(&d_values, None, (&rows, &starts), window)
        .unwrap();
    let (means, _) = ops
        .window_means(&d_values, None, (&rows, &starts), window)
        .unwrap();
    // The reference in each width: f32 Kahan sums, and f64 ones rounded.
    let wide: Vec<f64> = values.iter().map(|&v| f64::from(v)).collect();
    let all = vec![true; values.len()];
    let group: Vec<i64> = (0..values.len() as i64).collect();
    let in_f64 = float_sums(&wide, &all, &group, window);
    for (i, (sum, count)) in in_f64.into_iter().enumerate() {
        let expected = (sum as f32) / count as f32;
        assert_eq!(
            means.to_host().unwrap()[i].to_bits(),
            expected.to_bits(),
            "row {i}"
        );
    }
    // f32 sums lose 1.0 beside 1e8 where an f64 sum would keep it.
    assert_eq!(sums.to_host().unwrap()[2], 0.0);
}

#[test]
fn window_extremes_are_the_earliest_best_valid_rows() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(89);
    for &n in SIZES {
        // Few distinct values (ties), both zeros and NaN among the floats.
        let floats: Vec<f64> = (0..n)
            .map(|_| [0.0, -0.0, 1.5, -2.0, f64::NAN, 7.0][rng.usize(..6)])
            .collect();
        let ints: Vec<i64> = (0..n).map(|_| rng.i64(-3..3)).collect();
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..4) != 0).collect();
        let (rows, starts, ends) = shuffled_groups(&mut rng, n);
        let window = windows(&mut rng);
        let (d_valid, d_rows, d_starts) = (
            device.upload(&bitmap(&valid)),
            device.upload(&rows),
            device.upload(&starts),
        );
        let groups = (&d_rows, &d_starts);
        for minimum in [true, false] {
            let got_floats = ops
                .window_extremes(
                    &device.upload(&floats),
                    Some(&d_valid),
                    groups,
                    window,
                    minimum,
                )
                .unwrap()
                .to_host()
                .unwrap();
            let got_ints = ops
                .window_extremes(
                    &device.upload(&ints),
                    Some(&d_valid),
                    groups,
                    window,
                    minimum,
                )
                .unwrap()
                .to_host()
                .unwrap();
            let float_better = |a: f64, b: f64| match (a.is_nan(), b.is_nan()) {
                (true, nan) => !nan,
                (false, true) => false,
                _ if minimum => a < b,
                _ => a > b,
            };
            let int_better = |a: i64, b: i64| if minimum { a < b } else { a > b };
            for (g, &start) in starts.iter().enumerate() {
                let group = &rows[start as usize..ends[g]];
                for i in 0..group.len() {
                    let (first, last) = window_of(i, group.len(), window);
                    let in_window: Vec<usize> = group[first..last]
                        .iter()
                        .map(|&r| r as usize)
                        .filter(|&r| valid[r])
                        .collect();
                    let enough = in_window.len() as u64 >= window.min_periods;
                    let best = |better: &dyn Fn(usize, usize) -> bool| {
                        in_window
                            .iter()
                            .copied()
                            .reduce(|best, r| if better(r, best) { r } else { best })
                            .filter(|_| enough)
                            .map_or(-1, |r| r as i64)
                    };
                    let row = group[i] as usize;
                    let what = format!("n={n} {window:?} minimum {minimum} group {g} position {i}");
                    assert_eq!(
                        got_floats[row],
                        best(&|a, b| float_better(floats[a], floats[b])),
                        "{what}"
                    );
                    assert_eq!(
                        got_ints[row],
                        best(&|a, b| int_better(ints[a], ints[b])),
                        "{what}"
                    );
                }
            }
        }
    }
}

/// Polars' window moments (its `VarState`): Welford's step, Chan's merge.
#[derive(Clone, Copy, Default)]
struct Moments {
    weight: f64,
    mean: f64,
    dp: f64,
}

impl Moments {
    fn insert(&mut self, x: f64) {
        let weight = self.weight + 1.0;
        let delta = x - self.mean;
        let mean = self.mean + delta / weight;
        self.dp += (x - mean) * delta;
        (self.weight, self.mean) = (weight, mean);
    }

    fn combine(&mut self, o: &Moments) {
        if o.weight == 0.0 {
            return;
        }
        let weight = self.weight + o.weight;
        let fraction = o.weight / weight;
        let delta = o.mean - self.mean;
        let mean = self.mean + delta * fraction;
        self.dp += o.dp + o.weight * (o.mean - mean) * delta;
        (self.weight, self.mean) = (weight, mean);
    }
}

/// Polars' moment window over a group: a queue of two stacks; each
/// window's variance with `ddof` (None where its weight is no more than
/// `ddof`) and its count of valid values.
fn variances(
    values: &[f64],
    valid: &[bool],
    group: &[i64],
    window: RowWindow,
    ddof: u8,
) -> Vec<(Option<f64>, u64)> {
    let window = |i| window_of(i, group.len(), window);
    variances_in(values, valid, group, (group.len(), &window), ddof)
}

/// [`variances`] in the `count` windows `window_at` gives (one per
/// position, or listed).
fn variances_in(
    values: &[f64],
    valid: &[bool],
    group: &[i64],
    (count, window_at): (usize, &dyn Fn(usize) -> (usize, usize)),
    ddof: u8,
) -> Vec<(Option<f64>, u64)> {
    let (mut front, mut back): (Vec<Moments>, Vec<f64>) = (Vec::new(), Vec::new());
    let (mut agg_back, mut non_finite) = (Moments::default(), 0);
    let (mut start, mut end, mut nulls) = (0, 0, 0u64);
    let mut out = Vec::new();
    for i in 0..count {
        let (next_start, next_end) = window_at(i);
        if next_start >= end {
            (front, back, agg_back, non_finite, nulls) = (vec![], vec![], Moments::default(), 0, 0);
            (start, end) = (next_start, next_start);
        }
        for &row in &group[start..next_start] {
            let row = row as usize;
            if !valid[row] {
                nulls -= 1;
                continue;
            }
            if front.is_empty() {
                let mut agg = Moments::default();
                while let Some(x) = back.pop() {
                    agg.insert(x);
                    front.push(agg);
                }
                agg_back = Moments::default();
            }
            front.pop();
            non_finite -= i32::from(!values[row].is_finite());
        }
        for &row in &group[end..next_end] {
            let row = row as usize;
            if !valid[row] {
                nulls += 1;
                continue;
            }
            let x = if values[row].is_finite() {
                values[row]
            } else {
                0.0
            };
            non_finite += i32::from(!values[row].is_finite());
            back.push(x);
            agg_back.insert(x);
        }
        (start, end) = (next_start, next_end);
        let mut state = agg_back;
        if let Some(top) = front.last() {
            state.combine(top);
        }
        let variance = (state.weight > f64::from(ddof)).then(|| {
            let v = state.dp / (state.weight - f64::from(ddof));
            let v = if v < 0.0 { 0.0 } else { v };
            if non_finite > 0 { f64::NAN } else { v }
        });
        out.push((variance, (end - start) as u64 - nulls));
    }
    out
}

#[test]
fn window_variances_are_polars_to_the_bit() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(97);
    for &n in SIZES {
        let values: Vec<f64> = (0..n)
            .map(|_| match rng.u8(..50) {
                0 => f64::INFINITY,
                1 => f64::NAN,
                _ => 1e6 + (rng.f64() - 0.5) * 10f64.powi(rng.i32(-3..8)),
            })
            .collect();
        let singles: Vec<f32> = values.iter().map(|&v| v as f32).collect();
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..5) != 0).collect();
        let (rows, starts, ends) = shuffled_groups(&mut rng, n);
        let window = windows(&mut rng);
        let ddof = rng.u8(0..3);
        let (d_valid, d_rows, d_starts) = (
            device.upload(&bitmap(&valid)),
            device.upload(&rows),
            device.upload(&starts),
        );
        let groups = (&d_rows, &d_starts);
        let is = |bits: &[u32], row: usize| bits[row / 32] >> (row % 32) & 1 == 1;
        let (var, var_valid) = ops
            .window_variances(
                &device.upload(&values),
                Some(&d_valid),
                groups,
                window,
                (ddof, false),
            )
            .unwrap();
        let (std32, std32_valid) = ops
            .window_variances(
                &device.upload(&singles),
                Some(&d_valid),
                groups,
                window,
                (ddof, true),
            )
            .unwrap();
        let (var, var_valid) = (var.to_host().unwrap(), var_valid.to_host().unwrap());
        let (std32, std32_valid) = (std32.to_host().unwrap(), std32_valid.to_host().unwrap());
        let wide: Vec<f64> = singles.iter().map(|&v| f64::from(v)).collect();
        for (g, &start) in starts.iter().enumerate() {
            let group = &rows[start as usize..ends[g]];
            let expected = variances(&values, &valid, group, window, ddof);
            let expected32 = variances(&wide, &valid, group, window, ddof);
            for (i, ((v, count), (v32, _))) in expected.into_iter().zip(expected32).enumerate() {
                let row = group[i] as usize;
                let what = format!("n={n} {window:?} ddof {ddof} group {g} position {i}");
                let v = v.filter(|_| count >= window.min_periods);
                assert_eq!(is(&var_valid, row), v.is_some(), "{what}");
                if let Some(v) = v {
                    assert_eq!(var[row].to_bits(), v.to_bits(), "{what}");
                }
                let s = v32
                    .filter(|_| count >= window.min_periods)
                    .map(|v| (v as f32).sqrt());
                assert_eq!(is(&std32_valid, row), s.is_some(), "{what}");
                if let Some(s) = s {
                    assert_eq!(std32[row].to_bits(), s.to_bits(), "{what}");
                }
            }
        }
    }
}

/// Polars' `ewm_mean` recurrence over a group's values, in f64.
fn ewm_reference(values: &[f64], valid: &[bool], group: &[i64], ewm: Ewm) -> Vec<Option<f64>> {
    let nvw = if ewm.adjust { 1.0 } else { ewm.alpha };
    let (mut mean, mut weight, mut count) = (0.0f64, 0.0f64, 0u64);
    group
        .iter()
        .map(|&row| {
            let row = row as usize;
            if count == 0 && valid[row] {
                (count, mean, weight) = (1, values[row], 1.0);
            } else {
                if valid[row] || !ewm.ignore_nulls {
                    weight *= 1.0 - ewm.alpha;
                }
                if valid[row] {
                    let new_weight = weight + nvw;
                    mean = mean + (values[row] - mean) * (nvw / new_weight);
                    weight = if ewm.adjust { weight + 1.0 } else { 1.0 };
                    count += 1;
                }
            }
            (valid[row] && count >= ewm.min_periods.max(1)).then_some(mean)
        })
        .collect()
}

#[test]
fn ewm_means_are_polars_to_the_bit() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(101);
    for &n in SIZES {
        let values: Vec<f64> = (0..n)
            .map(|_| (rng.f64() - 0.5) * 10f64.powi(rng.i32(-3..9)))
            .collect();
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..4) != 0).collect();
        let (rows, starts, ends) = shuffled_groups(&mut rng, n);
        let ewm = Ewm {
            alpha: [0.5, 0.1, 1.0 / 3.0, 0.97][rng.usize(..4)],
            adjust: rng.bool(),
            bias: rng.bool(),
            min_periods: rng.u64(0..4),
            ignore_nulls: rng.bool(),
        };
        let (d_valid, d_rows, d_starts) = (
            device.upload(&bitmap(&valid)),
            device.upload(&rows),
            device.upload(&starts),
        );
        let (means, means_valid) = ops
            .ewm_means(
                &device.upload(&values),
                Some(&d_valid),
                (&d_rows, &d_starts),
                ewm,
            )
            .unwrap();
        let (means, means_valid) = (means.to_host().unwrap(), means_valid.to_host().unwrap());
        for (g, &start) in starts.iter().enumerate() {
            let group = &rows[start as usize..ends[g]];
            for (i, expected) in ewm_reference(&values, &valid, group, ewm)
                .into_iter()
                .enumerate()
            {
                let row = group[i] as usize;
                let what = format!("n={n} {ewm:?} group {g} position {i}");
                assert_eq!(
                    means_valid[row / 32] >> (row % 32) & 1 == 1,
                    expected.is_some(),
                    "{what}"
                );
                if let Some(expected) = expected {
                    assert_eq!(means[row].to_bits(), expected.to_bits(), "{what}");
                }
            }
        }
    }
}

/// Polars' `ewm_var` recurrence (its covariance of the values with
/// themselves) over a group's values, in f64.
fn ewm_var_reference(values: &[f64], valid: &[bool], group: &[i64], ewm: Ewm) -> Vec<Option<f64>> {
    let ow = if ewm.adjust { 1.0 } else { ewm.alpha };
    let (mut weight, mut mean_x, mut mean_y, mut cov) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let (mut sum, mut squares, mut count) = (0.0f64, 0.0f64, 0u64);
    group
        .iter()
        .map(|&row| {
            let row = row as usize;
            if count == 0 && valid[row] {
                (count, mean_x, mean_y, weight, sum, squares) =
                    (1, values[row], values[row], 1.0, 1.0, 1.0);
            } else {
                if valid[row] || !ewm.ignore_nulls {
                    sum *= 1.0 - ewm.alpha;
                    squares *= (1.0 - ewm.alpha) * (1.0 - ewm.alpha);
                    weight *= 1.0 - ewm.alpha;
                }
                if valid[row] {
                    count += 1;
                    let (x, y) = (values[row], values[row]);
                    let new_weight = weight + ow;
                    let fraction = ow / new_weight;
                    let (nx, ny) = (
                        mean_x + (x - mean_x) * fraction,
                        mean_y + (y - mean_y) * fraction,
                    );
                    cov = ((weight * (cov + (mean_x - nx) * (mean_y - ny)))
                        + ow * (x - nx) * (y - ny))
                        / new_weight;
                    (weight, mean_x, mean_y) = (new_weight, nx, ny);
                    sum += ow;
                    squares += ow * ow;
                    if !ewm.adjust {
                        sum /= new_weight;
                        squares /= new_weight * new_weight;
                        weight = 1.0;
                    }
                }
            }
            (valid[row] && count >= ewm.min_periods.max(1))
                .then_some(cov)
                .and_then(|cov| {
                    if ewm.bias {
                        return Some(cov);
                    }
                    let numerator = sum * sum;
                    let denominator = numerator - squares;
                    (denominator > 0.0).then(|| (numerator / denominator) * cov)
                })
        })
        .collect()
}

#[test]
fn ewm_variances_are_polars_to_the_bit() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(103);
    for &n in SIZES {
        let values: Vec<f64> = (0..n)
            .map(|_| 100.0 + (rng.f64() - 0.5) * 10f64.powi(rng.i32(-3..5)))
            .collect();
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..4) != 0).collect();
        let (rows, starts, ends) = shuffled_groups(&mut rng, n);
        let ewm = Ewm {
            alpha: [0.5, 0.1, 1.0 / 3.0, 0.97][rng.usize(..4)],
            adjust: rng.bool(),
            bias: rng.bool(),
            min_periods: rng.u64(0..4),
            ignore_nulls: rng.bool(),
        };
        let (d_valid, d_rows, d_starts) = (
            device.upload(&bitmap(&valid)),
            device.upload(&rows),
            device.upload(&starts),
        );
        let d_values = device.upload(&values);
        let groups = (&d_rows, &d_starts);
        let (var, var_valid) = ops
            .ewm_spreads(&d_values, Some(&d_valid), groups, ewm, false)
            .unwrap();
        let (std, std_valid) = ops
            .ewm_spreads(&d_values, Some(&d_valid), groups, ewm, true)
            .unwrap();
        let (var, var_valid) = (var.to_host().unwrap(), var_valid.to_host().unwrap());
        let (std, std_valid) = (std.to_host().unwrap(), std_valid.to_host().unwrap());
        let is = |bits: &[u32], row: usize| bits[row / 32] >> (row % 32) & 1 == 1;
        for (g, &start) in starts.iter().enumerate() {
            let group = &rows[start as usize..ends[g]];
            for (i, expected) in ewm_var_reference(&values, &valid, group, ewm)
                .into_iter()
                .enumerate()
            {
                let row = group[i] as usize;
                let what = format!("n={n} {ewm:?} group {g} position {i}");
                assert_eq!(is(&var_valid, row), expected.is_some(), "{what}");
                assert_eq!(is(&std_valid, row), expected.is_some(), "{what}");
                if let Some(expected) = expected {
                    assert_eq!(var[row].to_bits(), expected.to_bits(), "{what}");
                    assert_eq!(std[row].to_bits(), expected.sqrt().to_bits(), "{what}");
                }
            }
        }
    }
}

#[test]
fn windows_by_times_are_polars_windows_and_sums_walk_them_to_the_bit() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(59);
    for &n in SIZES {
        let values: Vec<f64> = (0..n)
            .map(|_| match rng.u8(..40) {
                0 => f64::NAN,
                1 => f64::INFINITY,
                _ => (rng.f64() - 0.5) * 10f64.powi(rng.i32(-3..17)),
            })
            .collect();
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..5) != 0).collect();
        // Times with many equals, a few null; each group's rows sorted by
        // time, nulls last, stably.
        let times: Vec<i64> = (0..n).map(|_| rng.i64(-20..60)).collect();
        let timed: Vec<bool> = (0..n).map(|_| rng.u8(..9) != 0).collect();
        let (mut rows, starts, ends) = shuffled_groups(&mut rng, n);
        for (g, &start) in starts.iter().enumerate() {
            rows[start as usize..ends[g]].sort_by_key(|&r| (!timed[r as usize], times[r as usize]));
        }
        let period = rng.i64(1..25);
        let window = TimeWindow {
            period,
            // The period before each row's time, or moved either way.
            offset: if rng.bool() {
                -period
            } else {
                rng.i64(-40..20)
            },
            closed_left: rng.bool(),
            closed_right: rng.bool(),
        };
        let min_periods = rng.u64(0..4);
        let (d_rows, d_starts) = (device.upload(&rows), device.upload(&starts));
        let groups = (&d_rows, &d_starts);
        let bounds = ops
            .time_windows(
                &device.upload(&times),
                Some(&device.upload(&bitmap(&timed))),
                groups,
                window,
            )
            .unwrap();
        let given = Windows::Given {
            bounds: &bounds,
            min_periods,
        };
        let (firsts, lasts) = (
            ops.window_ends(groups, given, false)
                .unwrap()
                .to_host()
                .unwrap(),
            ops.window_ends(groups, given, true)
                .unwrap()
                .to_host()
                .unwrap(),
        );
        let (sums, sums_valid) = ops
            .window_sums(
                &device.upload(&values),
                Some(&device.upload(&bitmap(&valid))),
                groups,
                given,
            )
            .unwrap();
        let (bounds, sums, sums_valid) = (
            bounds.to_host().unwrap(),
            sums.to_host().unwrap(),
            sums_valid.to_host().unwrap(),
        );
        let is = |bits: &[u32], row: usize| bits[row / 32] >> (row % 32) & 1 == 1;
        for (g, &start) in starts.iter().enumerate() {
            let group = &rows[start as usize..ends[g]];
            // Each position's window by counting the group's times: those
            // before the window, and those up to the row's own time.
            let window_of = |i: usize| {
                let row = group[i] as usize;
                if !timed[row] {
                    return (1, 0);
                }
                let lower = times[row] + window.offset;
                let upper = lower + window.period;
                let count = |f: &dyn Fn(i64) -> bool| {
                    group
                        .iter()
                        .filter(|&&r| timed[r as usize] && f(times[r as usize]))
                        .count()
                };
                let before = count(&|time| match window.closed_left {
                    true => time < lower,
                    false => time <= lower,
                });
                let upto = count(&|time| match window.closed_right {
                    true => time <= upper,
                    false => time < upper,
                });
                (before, upto)
            };
            let walked = |i: usize| {
                let (start, end) = window_of(i);
                (start <= end && (end - start) as u64 >= min_periods).then_some((start, end))
            };
            let reference = float_sums_in(&values, &valid, group, group.len(), &walked);
            for (i, expected) in reference.into_iter().enumerate() {
                let p = start as usize + i;
                let what = format!("n={n} {window:?} {min_periods} group {g} position {i}");
                let (from, to) = window_of(i);
                assert_eq!(
                    (bounds[2 * p], bounds[2 * p + 1]),
                    (from as i64, to as i64),
                    "{what}"
                );
                let row = group[i] as usize;
                // The window's first and last rows, where it is walked and
                // holds some.
                let ends = walked(i)
                    .filter(|(start, end)| end > start)
                    .map_or((-1, -1), |(start, end)| (group[start], group[end - 1]));
                assert_eq!((firsts[row], lasts[row]), ends, "{what}");
                let expected = expected.filter(|&(_, count)| count >= min_periods);
                assert_eq!(is(&sums_valid, row), expected.is_some(), "{what}");
                if let Some((sum, _)) = expected {
                    assert_eq!(sums[row].to_bits(), sum.to_bits(), "{what}");
                }
            }
        }
    }
}

/// Polars' rolling quantile (its quantile filter) of the valid values of
/// one window, sorted (NaN last, equal values by place), in f64 or f32 as
/// `T`: the place `method` finds for `q`, and Linear and Midpoint
/// combining the values around it in `T`.
fn rolling_quantile_reference<T>(sorted: &[T], q: f64, method: QuantileMethod) -> T
where
    T: Copy
        + std::ops::Add<Output = T>
        + std::ops::Sub<Output = T>
        + std::ops::Mul<Output = T>
        + std::ops::Div<Output = T>
        + From<u8>,
    f64: Narrowed<T>,
{
    let count = sorted.len();
    let at = (count as f64 - 1.0) * q;
    let last = count - 1;
    match method {
        QuantileMethod::Nearest => sorted[(at.round() as usize).min(last)],
        QuantileMethod::Lower => sorted[(at.floor() as usize).min(last)],
        QuantileMethod::Higher => sorted[(at.ceil() as usize).min(last)],
        QuantileMethod::Equiprobable => sorted[((count as f64 * q).ceil() - 1.0).max(0.0) as usize],
        QuantileMethod::Midpoint | QuantileMethod::Linear => {
            let (idx, top) = ((at.floor() as usize).min(last), at.ceil() as usize);
            let (lower, upper) = (sorted[idx], sorted[top]);
            if idx == top {
                lower
            } else if method == QuantileMethod::Midpoint {
                (lower + upper) / T::from(2)
            } else {
                (at - idx as f64).narrowed() * (upper - lower) + lower
            }
        }
    }
}

/// An f64 as `T` (Polars' `NumCast` of a proportion).
trait Narrowed<T> {
    fn narrowed(self) -> T;
}

impl Narrowed<f64> for f64 {
    fn narrowed(self) -> f64 {
        self
    }
}

impl Narrowed<f32> for f64 {
    fn narrowed(self) -> f32 {
        self as f32
    }
}

#[test]
fn window_quantiles_are_polars_to_the_bit() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(61);
    let methods = super::QUANTILE_METHODS;
    for &n in SIZES {
        // Ties, both zeros, NaN and infinities among the values.
        let picks = [
            0.0,
            -0.0,
            1.5,
            -2.0,
            f64::NAN,
            7.25,
            f64::INFINITY,
            1e-3,
            -1e300,
        ];
        let values: Vec<f64> = (0..n).map(|_| picks[rng.usize(..picks.len())]).collect();
        let narrow: Vec<f32> = values.iter().map(|&v| v as f32).collect();
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..4) != 0).collect();
        let (rows, starts, ends) = shuffled_groups(&mut rng, n);
        let mut window = windows(&mut rng);
        window.min_periods = window.min_periods.max(1);
        let method = methods[rng.usize(..methods.len())];
        let q = [0.0, 0.1, 0.25, 0.5, 0.7, 1.0][rng.usize(..6)];
        let (d_valid, d_rows, d_starts) = (
            device.upload(&bitmap(&valid)),
            device.upload(&rows),
            device.upload(&starts),
        );
        let groups = (&d_rows, &d_starts);
        let (wide, wide_valid) = ops
            .window_quantiles(
                &device.upload(&values),
                Some(&d_valid),
                groups,
                window,
                (q, method),
            )
            .unwrap();
        let (slim, slim_valid) = ops
            .window_quantiles(
                &device.upload(&narrow),
                Some(&d_valid),
                groups,
                window,
                (q, method),
            )
            .unwrap();
        let (wide, wide_valid) = (wide.to_host().unwrap(), wide_valid.to_host().unwrap());
        let (slim, slim_valid) = (slim.to_host().unwrap(), slim_valid.to_host().unwrap());
        let is_set = |bits: &[u32], i: usize| bits[i / 32] >> (i % 32) & 1 == 1;
        for (g, &start) in starts.iter().enumerate() {
            let group = &rows[start as usize..ends[g]];
            for i in 0..group.len() {
                let (first, last) = window_of(i, group.len(), window);
                let mut in_window: Vec<usize> = group[first..last]
                    .iter()
                    .map(|&r| r as usize)
                    .filter(|&r| valid[r])
                    .collect();
                // (Stable: equal values keep their places.)
                in_window.sort_by(|&a, &b| total_order(values[a], values[b]));
                let row = group[i] as usize;
                let what = format!("n={n} {window:?} {method:?} {q} group {g} position {i}");
                let enough = !in_window.is_empty() && in_window.len() as u64 >= window.min_periods;
                assert_eq!(is_set(&wide_valid, row), enough, "{what}");
                assert_eq!(is_set(&slim_valid, row), enough, "{what}");
                if !enough {
                    continue;
                }
                let sorted: Vec<f64> = in_window.iter().map(|&r| values[r]).collect();
                let expected = rolling_quantile_reference(&sorted, q, method);
                assert_eq!(wide[row].to_bits(), expected.to_bits(), "{what}");
                let sorted: Vec<f32> = in_window.iter().map(|&r| narrow[r]).collect();
                let expected = rolling_quantile_reference(&sorted, q, method);
                assert_eq!(slim[row].to_bits(), expected.to_bits(), "{what} (f32)");
            }
        }
    }
}

/// Polars' total order of a rolling quantile's floats: NaN after every
/// number, both zeros alike.
fn total_order(a: f64, b: f64) -> std::cmp::Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => std::cmp::Ordering::Equal,
        (true, false) => std::cmp::Ordering::Greater,
        (false, true) => std::cmp::Ordering::Less,
        _ => a.partial_cmp(&b).unwrap(),
    }
}

/// Windows of their own (a `group_by_dynamic`'s overlapping groups, which
/// Polars aggregates by its rolling kernels): monotone windows of rows in
/// some order, in runs apart, each run walked by one thread; the sums,
/// means and variances those of one walk over them all, as Polars' is, to
/// the bit; the extremes the earliest best rows; the ends the windows'.
#[test]
fn listed_windows_are_walked_as_polars_walks_overlapping_groups() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(101);
    for &n in SIZES {
        let values: Vec<f64> = (0..n)
            .map(|_| match rng.u8(..60) {
                0 => f64::INFINITY,
                1 => f64::NAN,
                _ => 1e6 + (rng.f64() - 0.5) * 10f64.powi(rng.i32(-3..8)),
            })
            .collect();
        let ints: Vec<i64> = (0..n).map(|_| rng.i64(-3..3)).collect();
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..5) != 0).collect();
        let mut rows: Vec<i64> = (0..n as i64).collect();
        rng.shuffle(&mut rows);
        // Windows moving forward, overlapping, now and then past a gap.
        let (mut windows, mut runs) = (Vec::new(), Vec::new());
        let (mut lo, mut hi) = (0, 0);
        loop {
            lo += rng.usize(0..3);
            if rng.u8(..8) == 0 {
                lo = hi + rng.usize(0..3);
            }
            if lo >= n {
                break;
            }
            hi = n.min(hi.max(lo + 1) + rng.usize(0..4));
            if windows.last().is_none_or(|&(_, end)| lo >= end) {
                runs.push(windows.len() as i64);
            }
            windows.push((lo, hi));
        }
        let bounds: Vec<i64> = windows
            .iter()
            .flat_map(|&(lo, hi)| [lo as i64, hi as i64])
            .collect();
        let d_bounds = device.upload(&bounds);
        let listed = Windows::Listed { bounds: &d_bounds };
        let (d_rows, d_runs) = (device.upload(&rows), device.upload(&runs));
        let groups = (&d_rows, &d_runs);
        let d_valid = device.upload(&bitmap(&valid));
        let d_values = device.upload(&values);
        let host = |(v, bits): (
            gpu_runtime::memory::DeviceBuffer<f64>,
            gpu_runtime::memory::DeviceBuffer<u32>,
        )| { (v.to_host().unwrap(), bits.to_host().unwrap()) };
        let (sums, sums_valid) = host(
            ops.window_sums(&d_values, Some(&d_valid), groups, listed)
                .unwrap(),
        );
        let (means, means_valid) = host(
            ops.window_means(&d_values, Some(&d_valid), groups, listed)
                .unwrap(),
        );
        let ddof = rng.u8(0..3);
        let (vars, vars_valid) = host(
            ops.window_variances(&d_values, Some(&d_valid), groups, listed, (ddof, false))
                .unwrap(),
        );
        let d_ints = device.upload(&ints);
        let minima = ops
            .window_extremes(&d_ints, Some(&d_valid), groups, listed, true)
            .unwrap();
        let firsts = ops.window_ends(groups, listed, false).unwrap();
        let lasts = ops.window_ends(groups, listed, true).unwrap();
        let (minima, firsts, lasts) = (
            minima.to_host().unwrap(),
            firsts.to_host().unwrap(),
            lasts.to_host().unwrap(),
        );
        let count = windows.len();
        assert_eq!(
            (sums.len(), minima.len(), firsts.len()),
            (count, count, count),
            "n={n}"
        );
        let sums_expected = float_sums_in(&values, &valid, &rows, count, &|w| Some(windows[w]));
        let vars_expected = variances_in(&values, &valid, &rows, (count, &|w| windows[w]), ddof);
        let is = |bits: &[u32], at: usize| bits[at / 32] >> (at % 32) & 1 == 1;
        for (w, &(lo, hi)) in windows.iter().enumerate() {
            let what = format!("n={n} window {w} of {count}: {lo}..{hi}");
            let (sum, valid_count) = sums_expected[w].unwrap();
            assert!(is(&sums_valid, w), "{what}");
            assert_eq!(sums[w].to_bits(), sum.to_bits(), "{what}");
            assert_eq!(is(&means_valid, w), valid_count > 0, "{what}");
            if valid_count > 0 {
                let mean = sum / valid_count as f64;
                assert_eq!(means[w].to_bits(), mean.to_bits(), "{what}");
            }
            let (var, _) = vars_expected[w];
            assert_eq!(is(&vars_valid, w), var.is_some(), "{what}");
            if let Some(var) = var {
                assert_eq!(vars[w].to_bits(), var.to_bits(), "{what}");
            }
            let least = rows[lo..hi]
                .iter()
                .filter(|&&r| valid[r as usize])
                .min_by_key(|&&r| ints[r as usize])
                .map_or(-1, |&r| r);
            assert_eq!(minima[w], least, "{what}");
            assert_eq!((firsts[w], lasts[w]), (rows[lo], rows[hi - 1]), "{what}");
        }
    }
}
