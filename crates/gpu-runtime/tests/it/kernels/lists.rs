//! Gathers and explodes of lists (the child rows they read), and sums and means of lists of floats, against Rust references, at awkward sizes.

use super::reduce::polars_float_sum;
use super::{SIZES, bitmap, device, flags};
use gpu_runtime::ops::ListSumPath;

/// Random lists: `n` lengths (some 0, a few long), their offsets from 0,
/// and validity.
fn random_lists(rng: &mut fastrand::Rng, n: usize) -> (Vec<i64>, Vec<bool>) {
    let mut offsets = vec![0i64];
    for _ in 0..n {
        let length = match rng.u8(..10) {
            0..=2 => 0,
            9 => rng.i64(30..70),
            _ => rng.i64(1..5),
        };
        offsets.push(offsets.last().unwrap() + length);
    }
    let valid = (0..n).map(|_| rng.u8(..6) != 0).collect();
    (offsets, valid)
}

#[test]
fn gathered_lists_read_their_rows_and_are_null_outside() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(17);
    for &n in SIZES {
        let n_lists = n.max(1);
        let (offsets, valid) = random_lists(&mut rng, n_lists);
        let indices: Vec<i64> = (0..n).map(|_| rng.i64(-2..n_lists as i64 + 2)).collect();
        let (doffsets, dvalid, dindices) = (
            device.upload(&offsets),
            device.upload(&bitmap(&valid)),
            device.upload(&indices),
        );
        let gathered = ops
            .gather_lists(&doffsets, Some(&dvalid), &dindices)
            .unwrap();
        let (mut expected_offsets, mut expected_rows) = (vec![0i64], Vec::new());
        let mut expected_valid = Vec::new();
        for &index in &indices {
            let list = usize::try_from(index)
                .ok()
                .filter(|&i| i < n_lists && valid[i]);
            expected_valid.push(list.is_some());
            if let Some(i) = list {
                expected_rows.extend(offsets[i]..offsets[i + 1]);
            }
            expected_offsets.push(expected_rows.len() as i64);
        }
        assert_eq!(
            gathered.offsets.to_host().unwrap(),
            expected_offsets,
            "n={n}"
        );
        assert_eq!(gathered.rows.to_host().unwrap(), expected_rows, "n={n}");
        assert_eq!(
            gathered.validity.to_host().unwrap(),
            bitmap(&expected_valid),
            "n={n}"
        );
    }
}

#[test]
fn exploded_lists_give_each_value_a_row_and_nulls_by_the_options() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(23);
    for &n in SIZES {
        let (offsets, valid) = random_lists(&mut rng, n);
        let (doffsets, dvalid) = (device.upload(&offsets), device.upload(&bitmap(&valid)));
        for (empty_as_null, keep_nulls) in
            [(true, true), (false, true), (true, false), (false, false)]
        {
            let exploded = ops
                .explode_lists(&doffsets, Some(&dvalid), empty_as_null, keep_nulls)
                .unwrap();
            let (mut parents, mut values) = (Vec::new(), Vec::new());
            for i in 0..n {
                let (start, end) = (offsets[i], offsets[i + 1]);
                if !valid[i] {
                    if keep_nulls {
                        parents.push(i as i64);
                        values.push(-1);
                    }
                } else if start == end {
                    if empty_as_null {
                        parents.push(i as i64);
                        values.push(-1);
                    }
                } else {
                    for row in start..end {
                        parents.push(i as i64);
                        values.push(row);
                    }
                }
            }
            let context = format!("n={n}, empty_as_null={empty_as_null}, keep_nulls={keep_nulls}");
            assert_eq!(exploded.parents.to_host().unwrap(), parents, "{context}");
            assert_eq!(exploded.values.to_host().unwrap(), values, "{context}");
        }
        let (lengths, validity) = ops.list_lengths(&doffsets, Some(&dvalid)).unwrap();
        let expected: Vec<u32> = (0..n)
            .map(|i| {
                if valid[i] {
                    (offsets[i + 1] - offsets[i]) as u32
                } else {
                    0
                }
            })
            .collect();
        assert_eq!(lengths.to_host().unwrap(), expected, "lengths, n={n}");
        assert_eq!(validity.to_host().unwrap(), bitmap(&valid), "n={n}");
    }
}

#[test]
fn a_list_get_reads_its_place_from_either_end() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(29);
    for &n in SIZES {
        let (offsets, valid) = random_lists(&mut rng, n);
        let (doffsets, dvalid) = (device.upload(&offsets), device.upload(&bitmap(&valid)));
        for index in [0i64, 1, 3, -1, -2, 40, -80] {
            let (rows, outside) = ops.list_get_rows(&doffsets, Some(&dvalid), index).unwrap();
            let mut expected_outside = 0u32;
            let expected: Vec<i64> = (0..n)
                .map(|i| {
                    let (start, length) = (offsets[i], offsets[i + 1] - offsets[i]);
                    let place = if index < 0 { length + index } else { index };
                    let inside = (0..length).contains(&place);
                    if valid[i] && !inside {
                        expected_outside = 1;
                    }
                    if valid[i] && inside {
                        start + place
                    } else {
                        -1
                    }
                })
                .collect();
            assert_eq!(rows.to_host().unwrap(), expected, "n={n}, index={index}");
            assert_eq!(
                outside.to_host().unwrap(),
                [expected_outside],
                "n={n}, index={index}"
            );
        }
    }
}

/// Lists of f64 summed and averaged in Polars' two orders: without nulls in
/// the child, each list in order from -0.0; with them (or where asked),
/// each list's float sum (blocks of 128 pairwise), bit for bit.
#[test]
fn float_sums_and_means_of_lists_follow_polars_order() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(41);
    let lengths = [
        0usize,
        1,
        5,
        127,
        128,
        129,
        300,
        1000,
        3,
        0,
        257,
        128 * 9 + 5,
    ];
    let mut offsets = vec![0i64];
    for length in lengths {
        offsets.push(offsets.last().unwrap() + length as i64);
    }
    let n = *offsets.last().unwrap() as usize;
    let values: Vec<f64> = (0..n)
        .map(|i| match i % 89 {
            3 => -0.0,
            7 => 1e300,
            8 => -1e300,
            _ => (rng.f64() - 0.5) * 10f64.powi(rng.i32(-3..9)),
        })
        .collect();
    let spans: Vec<(usize, usize)> = offsets
        .windows(2)
        .map(|w| (w[0] as usize, w[1] as usize))
        .collect();
    for nulls in [false, true] {
        let valid: Vec<bool> = (0..n).map(|_| !nulls || rng.u8(..4) != 0).collect();
        let bits = nulls.then(|| device.upload(&bitmap(&valid)));
        let d_offsets = device.upload(&offsets);
        let d_values = device.upload(&values);
        let paths = [ListSumPath::ByNulls, ListSumPath::AsColumns];
        for (mean, path) in [false, true]
            .into_iter()
            .flat_map(|m| paths.map(|p| (m, p)))
        {
            let (out, out_valid) = ops
                .list_float_sums(&d_offsets, (&d_values, bits.as_ref()), (mean, path))
                .unwrap();
            // (Each list as a column of its own where asked, whatever the
            // child holds.)
            let as_columns = nulls || path == ListSumPath::AsColumns;
            let (out, out_valid) = (
                out.to_host().unwrap(),
                flags(&out_valid.to_host().unwrap(), lengths.len()),
            );
            for (i, &(begin, end)) in spans.iter().enumerate() {
                let count = valid[begin..end].iter().filter(|&&v| v).count();
                let expected = match (as_columns, mean) {
                    (false, false) => Some(values[begin..end].iter().fold(-0.0, |s, v| s + v)),
                    (false, true) => (end > begin).then(|| {
                        values[begin..end].iter().fold(-0.0, |s, v| s + v) / (end - begin) as f64
                    }),
                    (true, false) => Some(if count == 0 {
                        0.0
                    } else {
                        0.0 + polars_float_sum(&values[begin..end], &valid[begin..end])
                    }),
                    (true, true) => (count > 0).then(|| {
                        (-0.0 + polars_float_sum(&values[begin..end], &valid[begin..end]))
                            / count as f64
                    }),
                };
                let actual = out_valid[i].then_some(out[i]);
                assert_eq!(
                    actual.map(f64::to_bits),
                    expected.map(f64::to_bits),
                    "list {i} of {} values, nulls {nulls}, mean {mean}, {path:?}: {actual:?} vs \
                     {expected:?}",
                    end - begin
                );
            }
        }
    }
}
