//! Gathers and explodes of lists: the child rows they read, against a Rust reference, at awkward sizes.

use super::{SIZES, bitmap, device};

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
