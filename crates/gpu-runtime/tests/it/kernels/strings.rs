//! String slicing (by literal bounds and by each row's), row-wise concatenation (concat_str), comparisons, lengths, padding, matches and replacements, concatenation of strings and bitmaps, device-to-device copies, and group numbers of sorted rows; texts as numbers and back in `numbers`.

use std::sync::Arc;

use gpu_runtime::memory::{DeviceBuffer, DeviceCopy, MemoryResource, PoolOptions, PoolResource};
use gpu_runtime::ops::{
    Comparison, ConcatPart, DeviceStrings, Ops, PadTo, Side, SliceRows, StripSet,
};
use gpu_runtime::{Device, Stream};

use super::{SIZES, bitmap, device, flags, offsets_of};

mod numbers;

/// Random strings of ASCII and 2-, 3- and 4-byte characters, some empty.
fn random_strings(rng: &mut fastrand::Rng, n: usize) -> Vec<String> {
    const CHARS: &[char] = &['a', 'Z', '0', ' ', '\n', 'é', 'ß', '€', '中', '😀'];
    (0..n)
        .map(|_| {
            let len = rng.usize(..12);
            (0..len).map(|_| CHARS[rng.usize(..CHARS.len())]).collect()
        })
        .collect()
}

/// The strings the device made, on the host.
pub(super) fn texts_of(strings: &DeviceStrings) -> Vec<String> {
    strings_of(
        &strings.offsets.to_host().unwrap(),
        &strings.bytes.to_host().unwrap(),
    )
}

fn strings_of(offsets: &[i64], bytes: &[u8]) -> Vec<String> {
    offsets
        .windows(2)
        .map(|w| String::from_utf8(bytes[w[0] as usize..w[1] as usize].to_vec()).unwrap())
        .collect()
}

/// `f` of each valid string, and the empty string for each null one (what
/// the kernels write for nulls).
pub(super) fn where_valid(
    strings: &[String],
    valid: &[bool],
    f: impl Fn(&str) -> String,
) -> Vec<String> {
    strings
        .iter()
        .zip(valid)
        .map(|(s, &ok)| if ok { f(s) } else { String::new() })
        .collect()
}

/// `str.slice` as Polars documents it, in characters, keeping nothing of
/// the last `drop_last` characters.
fn slice_reference(s: &str, (offset, length): (i64, Option<u64>), drop_last: u64) -> String {
    let chars: Vec<char> = s.chars().collect();
    let n = chars.len() as i128;
    let mut length = length.map_or(i128::MAX, i128::from);
    let start = if offset >= 0 {
        (offset as i128).min(n)
    } else if -(offset as i128) <= n {
        n + offset as i128
    } else {
        length = (length - (-(offset as i128) - n)).max(0);
        0
    };
    let end = (start.saturating_add(length)).min(n);
    // Nothing of the last `drop_last` characters.
    let end = end.min((n - i128::from(drop_last)).max(0));
    let start = start.min(end);
    chars[start as usize..end as usize].iter().collect()
}

#[test]
fn string_slice_matches_the_character_reference() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(41);
    let cases: &[(i64, Option<u64>)] = &[
        (0, Some(2)),
        (0, None),
        (3, Some(4)),
        (-3, None),
        (-3, Some(2)),
        (-20, Some(15)),
        (-20, None),
        (50, Some(1)),
        (2, Some(0)),
        (i64::MIN, Some(u64::MAX)),
        (i64::MAX, None),
        (-1, Some(u64::MAX)),
    ];
    for &n in SIZES {
        let strings = random_strings(&mut rng, n);
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..6) != 0).collect();
        let (offsets, bytes) = offsets_of(&strings);
        let (d_offsets, d_bytes, d_valid) = (
            device.upload(&offsets),
            device.upload(&bytes),
            device.upload(&bitmap(&valid)),
        );
        let drops = [0u64, 1, 3, 100];
        for (&(offset, length), &drop_last) in cases.iter().zip(drops.iter().cycle()) {
            let out = ops
                .string_slice(
                    &d_offsets,
                    &d_bytes,
                    Some(&d_valid),
                    (offset, length),
                    drop_last,
                )
                .unwrap();
            let got = texts_of(&out);
            let expected = where_valid(&strings, &valid, |s| {
                slice_reference(s, (offset, length), drop_last)
            });
            assert_eq!(
                got, expected,
                "n = {n}, slice({offset}, {length:?}) but the last {drop_last}"
            );
            assert_eq!(flags(&out.validity.to_host().unwrap(), n), valid, "n = {n}");
        }
    }
}

/// Polars' `str.head(n)` (`head`) or `str.tail(n)` of `s`, in characters.
fn head_tail_reference(s: &str, n: i64, head: bool) -> String {
    let chars: Vec<char> = s.chars().collect();
    let count = chars.len();
    let k = usize::try_from(n.unsigned_abs())
        .unwrap_or(usize::MAX)
        .min(count);
    let (start, end) = match (head, n >= 0) {
        (true, true) => (0, k),
        (true, false) => (0, count - k),
        (false, true) => (count - k, count),
        (false, false) => (k, count),
    };
    chars[start..end].iter().collect()
}

/// Slices, heads and tails by each row's bounds (a null bound gives
/// null) against the references.
#[test]
fn slices_by_each_rows_bounds_match_the_references() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(43);
    let bounds = [
        0i64,
        1,
        2,
        -1,
        -3,
        5,
        -20,
        40,
        i64::MAX,
        i64::MIN,
        i64::MIN + 1,
    ];
    let lengths = [0u64, 1, 3, 7, u64::MAX];
    for &n in SIZES {
        let strings = random_strings(&mut rng, n);
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..6) != 0).collect();
        let by: Vec<i64> = (0..n).map(|_| bounds[rng.usize(..bounds.len())]).collect();
        let by_valid: Vec<bool> = (0..n).map(|_| rng.u8(..5) != 0).collect();
        let length: Vec<u64> = (0..n)
            .map(|_| lengths[rng.usize(..lengths.len())])
            .collect();
        let (offsets, bytes) = offsets_of(&strings);
        let (d_offsets, d_bytes, d_valid) = (
            device.upload(&offsets),
            device.upload(&bytes),
            device.upload(&bitmap(&valid)),
        );
        let (d_by, d_by_valid, d_length) = (
            device.upload(&by),
            device.upload(&bitmap(&by_valid)),
            device.upload(&length),
        );
        for how in [SliceRows::Slice, SliceRows::Head, SliceRows::Tail] {
            let out = ops
                .string_slice_rows(
                    (&d_offsets, &d_bytes, Some(&d_valid)),
                    how,
                    (&d_by, Some(&d_by_valid)),
                    Some(&d_length),
                )
                .unwrap();
            let both: Vec<bool> = valid.iter().zip(&by_valid).map(|(a, b)| *a && *b).collect();
            assert_eq!(flags(&out.validity.to_host().unwrap(), n), both, "n = {n}");
            let expected: Vec<String> = (0..n)
                .map(|i| match (both[i], how) {
                    (false, _) => String::new(),
                    (true, SliceRows::Slice) => {
                        let length = Some(length[i]).filter(|&l| l != u64::MAX);
                        slice_reference(&strings[i], (by[i], length), 0)
                    }
                    (true, SliceRows::Head) => head_tail_reference(&strings[i], by[i], true),
                    (true, SliceRows::Tail) => head_tail_reference(&strings[i], by[i], false),
                })
                .collect();
            assert_eq!(texts_of(&out), expected, "n = {n}, {how:?}");
        }
    }
    let strings = (&device.upload(&[0i64, 1]), &device.upload(b"a"), None);
    let error = ops
        .string_slice_rows(
            strings,
            SliceRows::Slice,
            (&device.upload(&[1i64]), None),
            None,
        )
        .unwrap_err();
    assert!(
        error.to_string().contains("without as many lengths"),
        "{error}"
    );
}

/// Strips of literal sets, of white space and of each row's own set (white
/// space where it is null) against Rust's `trim_matches`, as Polars strips.
#[test]
fn strips_match_rusts_trims() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(47);
    let sets = ["", "a", "é😀", " x", "\u{3000}", "ab€"];
    for &n in SIZES {
        let mut strings = random_strings(&mut rng, n);
        for s in strings.iter_mut().step_by(2) {
            let around = sets[rng.usize(..sets.len())];
            *s = format!("{around} {s}{around}\t");
        }
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..6) != 0).collect();
        let row_sets: Vec<String> = (0..n)
            .map(|_| sets[rng.usize(..sets.len())].to_string())
            .collect();
        let set_valid: Vec<bool> = (0..n).map(|_| rng.u8(..4) != 0).collect();
        let (offsets, bytes) = offsets_of(&strings);
        let (set_offsets, set_bytes) = offsets_of(&row_sets);
        let (d_offsets, d_bytes, d_valid) = (
            device.upload(&offsets),
            device.upload(&bytes),
            device.upload(&bitmap(&valid)),
        );
        let (d_set_offsets, d_set_bytes, d_set_valid) = (
            device.upload(&set_offsets),
            device.upload(&set_bytes),
            device.upload(&bitmap(&set_valid)),
        );
        let literal: Vec<char> = "é x".chars().collect();
        for side in [Side::Both, Side::Start, Side::End] {
            let trim = |s: &str, strip: &dyn Fn(char) -> bool| -> String {
                match side {
                    Side::Both => s.trim_matches(strip),
                    Side::Start => s.trim_start_matches(strip),
                    Side::End => s.trim_end_matches(strip),
                }
                .to_string()
            };
            let strings_ref = (&d_offsets, &d_bytes, Some(&d_valid));
            let sets_ref = (&d_set_offsets, &d_set_bytes, Some(&d_set_valid));
            for (set, expected) in [
                (
                    StripSet::WhiteSpace,
                    where_valid(&strings, &valid, |s| trim(s, &char::is_whitespace)),
                ),
                (
                    StripSet::Chars(&literal),
                    where_valid(&strings, &valid, |s| trim(s, &|c| literal.contains(&c))),
                ),
                (
                    StripSet::Rows(sets_ref),
                    (0..n)
                        .map(|i| match (valid[i], set_valid[i]) {
                            (false, _) => String::new(),
                            (true, false) => trim(&strings[i], &char::is_whitespace),
                            (true, true) => trim(&strings[i], &|c| row_sets[i].contains(c)),
                        })
                        .collect(),
                ),
            ] {
                let out = ops.string_strip(strings_ref, set, side).unwrap();
                assert_eq!(texts_of(&out), expected, "n = {n}, {set:?} {side:?}");
                assert_eq!(flags(&out.validity.to_host().unwrap(), n), valid, "n = {n}");
            }
        }
    }
}

#[test]
fn row_wise_concatenation_matches_polars_rules() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(43);
    for &n in SIZES {
        // Two columns with nulls, and a repeated literal (valid or null).
        let columns: Vec<(Vec<String>, Vec<bool>)> = (0..2)
            .map(|_| {
                let strings = random_strings(&mut rng, n);
                let valid = (0..n).map(|_| rng.u8(..5) != 0).collect();
                (strings, valid)
            })
            .collect();
        let uploaded: Vec<_> = columns
            .iter()
            .map(|(strings, valid)| {
                let (offsets, bytes) = offsets_of(strings);
                (
                    device.upload(&offsets),
                    device.upload(&bytes),
                    device.upload(&bitmap(valid)),
                )
            })
            .collect();
        for (literal, literal_valid) in [("€-", true), ("", true), ("x", false)] {
            let (l_offsets, l_bytes) = offsets_of(&[literal.to_owned()]);
            let (l_offsets, l_bytes, l_valid) = (
                device.upload(&l_offsets),
                device.upload(&l_bytes),
                device.upload(&bitmap(&[literal_valid])),
            );
            let mut parts: Vec<ConcatPart<'_>> = uploaded
                .iter()
                .map(|(offsets, bytes, valid)| ConcatPart {
                    offsets,
                    bytes,
                    validity: Some(valid),
                    mask: None,
                    repeated: false,
                })
                .collect();
            parts.insert(
                1,
                ConcatPart {
                    offsets: &l_offsets,
                    bytes: &l_bytes,
                    validity: Some(&l_valid),
                    mask: None,
                    repeated: true,
                },
            );
            for (separator, ignore_nulls) in [("", false), (", ", false), ("|", true), ("", true)] {
                let out = ops
                    .string_concat(&parts, n, separator.as_bytes(), ignore_nulls)
                    .unwrap();
                let got = texts_of(&out);
                let got_valid = flags(&out.validity.to_host().unwrap(), n);
                for i in 0..n {
                    let values = [
                        columns[0].1[i].then(|| columns[0].0[i].as_str()),
                        literal_valid.then_some(literal),
                        columns[1].1[i].then(|| columns[1].0[i].as_str()),
                    ];
                    let (expected, valid) = if !ignore_nulls && values.contains(&None) {
                        (String::new(), false)
                    } else {
                        (
                            values
                                .into_iter()
                                .flatten()
                                .collect::<Vec<_>>()
                                .join(separator),
                            true,
                        )
                    };
                    let case =
                        format!("n = {n}, row {i}, {separator:?}, ignore_nulls {ignore_nulls}");
                    assert_eq!(got_valid[i], valid, "{case}");
                    assert_eq!(got[i], expected, "{case}");
                }
            }
        }
    }
    // Coalesced: each row its first valid part.
    let (offsets, bytes) = offsets_of(&["a".to_owned(), "bc".to_owned(), String::new()]);
    let (offsets, bytes) = (device.upload(&offsets), device.upload(&bytes));
    let (first_valid, second_valid) = (
        device.upload(&bitmap(&[true, false, false])),
        device.upload(&bitmap(&[true, true, false])),
    );
    let part = |validity| ConcatPart {
        offsets: &offsets,
        bytes: &bytes,
        validity: Some(validity),
        mask: None,
        repeated: false,
    };
    let out = ops
        .string_coalesce(&[part(&first_valid), part(&second_valid)], 3)
        .unwrap();
    assert_eq!(texts_of(&out), ["a", "bc", ""]);
    assert_eq!(
        flags(&out.validity.to_host().unwrap(), 3),
        [true, true, false]
    );
    // Masked: a literal where the mask says, else the column (a ternary).
    let (l_offsets, l_bytes) = (device.upload(&[0i64, 1]), device.upload(b"z".as_slice()));
    let (take_literal, take_column) = (
        device.upload(&bitmap(&[true, false, false])),
        device.upload(&bitmap(&[false, true, true])),
    );
    let literal = ConcatPart {
        offsets: &l_offsets,
        bytes: &l_bytes,
        validity: None,
        mask: Some(&take_literal),
        repeated: true,
    };
    let column = ConcatPart {
        mask: Some(&take_column),
        ..part(&second_valid)
    };
    let out = ops.string_coalesce(&[literal, column], 3).unwrap();
    assert_eq!(texts_of(&out), ["z", "bc", ""]);
    assert_eq!(
        flags(&out.validity.to_host().unwrap(), 3),
        [true, true, false]
    );
    // A part of the wrong height is refused.
    let (offsets, bytes) = (device.upload(&[0i64, 1]), device.upload(b"a".as_slice()));
    let part = ConcatPart {
        offsets: &offsets,
        bytes: &bytes,
        validity: None,
        mask: None,
        repeated: false,
    };
    assert!(ops.string_concat(&[part], 3, b"", false).is_err());
}

#[test]
fn string_comparisons_follow_rust_str_order() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(47);
    let cases = [
        (
            Comparison::Eq,
            std::cmp::Ordering::is_eq as fn(std::cmp::Ordering) -> bool,
        ),
        (Comparison::NotEq, std::cmp::Ordering::is_ne),
        (Comparison::Lt, std::cmp::Ordering::is_lt),
        (Comparison::LtEq, std::cmp::Ordering::is_le),
        (Comparison::Gt, std::cmp::Ordering::is_gt),
        (Comparison::GtEq, std::cmp::Ordering::is_ge),
    ];
    for &n in SIZES {
        // Short strings of few characters, so that equal ones and prefixes occur.
        let texts = |rng: &mut fastrand::Rng| -> Vec<String> {
            random_strings(rng, n)
                .into_iter()
                .map(|s| s.chars().take(2).collect())
                .collect()
        };
        let (a, b) = (texts(&mut rng), texts(&mut rng));
        let (a_valid, b_valid): (Vec<bool>, Vec<bool>) =
            (0..n).map(|_| (rng.u8(..6) != 0, rng.u8(..6) != 0)).unzip();
        let upload = |strings: &[String], valid: &[bool]| {
            let (offsets, bytes) = offsets_of(strings);
            (
                device.upload(&offsets),
                device.upload(&bytes),
                device.upload(&bitmap(valid)),
            )
        };
        let (a_o, a_b, a_v) = upload(&a, &a_valid);
        let (b_o, b_b, b_v) = upload(&b, &b_valid);
        let scalar = "a".to_owned();
        let (s_o, s_b, s_v) = upload(std::slice::from_ref(&scalar), &[true]);
        for (op, holds) in cases {
            for b_scalar in [false, true] {
                let other = if b_scalar {
                    (&s_o, &s_b, Some(&s_v))
                } else {
                    (&b_o, &b_b, Some(&b_v))
                };
                let (bits, valid) = ops
                    .string_compare((&a_o, &a_b, Some(&a_v)), other, b_scalar, op)
                    .unwrap();
                let (bits, valid) = (
                    flags(&bits.to_host().unwrap(), n),
                    flags(&valid.to_host().unwrap(), n),
                );
                for i in 0..n {
                    let (other, other_valid) = if b_scalar {
                        (&scalar, true)
                    } else {
                        (&b[i], b_valid[i])
                    };
                    let expected_valid = a_valid[i] && other_valid;
                    let case = format!("n = {n}, row {i}, {op:?}, scalar {b_scalar}");
                    assert_eq!(valid[i], expected_valid, "{case}");
                    assert_eq!(
                        bits[i],
                        expected_valid && holds(a[i].as_str().cmp(other.as_str())),
                        "{case}"
                    );
                }
            }
        }
    }
}

#[test]
fn concatenated_strings_and_bitmaps_equal_the_parts_in_order() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(42);
    for round in 0..20 {
        let sizes: Vec<usize> = (0..rng.usize(1..5))
            .map(|_| SIZES[rng.usize(..SIZES.len() - 1)])
            .collect();
        let parts: Vec<Vec<String>> = sizes.iter().map(|&n| random_strings(&mut rng, n)).collect();
        let valids: Vec<Option<Vec<bool>>> = sizes
            .iter()
            .map(|&n| rng.bool().then(|| (0..n).map(|_| rng.bool()).collect()))
            .collect();
        let uploaded: Vec<_> = parts
            .iter()
            .map(|p| {
                let (o, b) = offsets_of(p);
                (device.upload(&o), device.upload(&b))
            })
            .collect();
        let refs: Vec<_> = uploaded.iter().map(|(o, b)| (o, b)).collect();
        let (offsets, bytes) = ops.concat_strings(&refs).unwrap();
        let expected: Vec<String> = parts.concat();
        let got = strings_of(&offsets.to_host().unwrap(), &bytes.to_host().unwrap());
        assert_eq!(got, expected, "round {round}, sizes {sizes:?}");

        let total: usize = sizes.iter().sum();
        let validity = device.upload(&vec![0u32; total.div_ceil(32)]);
        let mut at = 0;
        let mut expected_valid = Vec::new();
        for (valid, &n) in valids.iter().zip(&sizes) {
            let uploaded = valid.as_ref().map(|v| device.upload(&bitmap(v)));
            ops.bitmap_append(uploaded.as_ref(), n, &validity, at)
                .unwrap();
            expected_valid.extend(valid.clone().unwrap_or_else(|| vec![true; n]));
            at += n;
        }
        assert_eq!(
            validity.to_host().unwrap(),
            bitmap(&expected_valid),
            "round {round}, sizes {sizes:?}"
        );
    }
}

#[test]
fn bitmap_append_refuses_to_write_past_the_end() {
    let device = device();
    let ops = device.ops();
    let dst = device.upload(&[0u32; 2]);
    let err = ops.bitmap_append(None, 40, &dst, 30).unwrap_err();
    assert!(err.to_string().contains("bits 30..70"), "{err}");
}

#[test]
fn device_copies_land_at_their_offset_and_check_bounds() {
    let (memory, first, second) = two_streams();
    // Written on one stream, copied on another: the copy waits for the write.
    let src = DeviceBuffer::from_host(&[1i64, 2, 3], memory.clone(), &second).unwrap();
    let dst = DeviceBuffer::from_host(&[0i64; 6], memory, &first).unwrap();
    dst.copy_from_device(2, &src).unwrap();
    assert_eq!(dst.to_host().unwrap(), [0, 0, 1, 2, 3, 0]);
    let err = dst.copy_from_device(4, &src).unwrap_err();
    assert!(err.to_string().contains("to value 4"), "{err}");
}

#[test]
fn segment_ids_number_every_sorted_row_by_its_group() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(43);
    for &n in SIZES {
        let mut starts = vec![0i64];
        for row in 1..n {
            if rng.u8(..4) == 0 {
                starts.push(row as i64);
            }
        }
        if n == 0 {
            starts.clear();
        }
        let ids = ops.segment_ids(&device.upload(&starts), n).unwrap();
        let expected: Vec<u32> = (0..n)
            .map(|row| starts.iter().filter(|&&s| s as usize <= row).count() as u32 - 1)
            .collect();
        assert_eq!(ids.to_host().unwrap(), expected, "n = {n}");
    }
}

#[test]
fn a_buffer_moved_to_another_stream_is_complete_there() {
    let (memory, first, second) = two_streams();
    for round in 0..20 {
        // Made by a kernel on the first stream, then read on the second.
        let ops = Ops {
            memory: &memory,
            stream: &first,
        };
        let mut made = ops.iota(100_003, round).unwrap();
        made.move_to_stream(&second).unwrap();
        assert_eq!(made.stream().id(), second.id());
        let copy = DeviceBuffer::zeroed(made.len(), memory.clone(), &second).unwrap();
        copy.copy_from_device(0, &made).unwrap();
        let expected: Vec<i64> = (round..round + 100_003).collect();
        assert_eq!(copy.to_host().unwrap(), expected, "round {round}");
    }
}

#[test]
fn string_lengths_count_bytes_and_characters() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(44);
    for &n in SIZES {
        let strings = random_strings(&mut rng, n);
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..6) != 0).collect();
        let (offsets, bytes) = offsets_of(&strings);
        let (d_offsets, d_bytes, d_valid) = (
            device.upload(&offsets),
            device.upload(&bytes),
            device.upload(&bitmap(&valid)),
        );
        for chars in [false, true] {
            let (lengths, validity) = ops
                .string_lengths(&d_offsets, &d_bytes, Some(&d_valid), chars)
                .unwrap();
            let expected: Vec<u32> = strings
                .iter()
                .zip(&valid)
                .map(|(s, &ok)| match (ok, chars) {
                    (false, _) => 0,
                    (true, false) => s.len() as u32,
                    (true, true) => s.chars().count() as u32,
                })
                .collect();
            assert_eq!(
                lengths.to_host().unwrap(),
                expected,
                "n = {n}, chars {chars}"
            );
            assert_eq!(flags(&validity.to_host().unwrap(), n), valid, "n = {n}");
        }
    }
}

/// A pool and two streams on one device under test.
fn two_streams() -> (Arc<dyn MemoryResource>, Stream, Stream) {
    let target = Arc::new(Device::under_test(1 << 30).unwrap());
    let memory: Arc<dyn MemoryResource> =
        Arc::new(PoolResource::new(target.clone(), PoolOptions::default()).unwrap());
    let (first, second) = (
        target.create_stream().unwrap(),
        target.create_stream().unwrap(),
    );
    (memory, first, second)
}

/// Polars' `pad_start`/`pad_end` (in characters) and `zfill` (in bytes,
/// zeros after a leading sign).
fn pad_reference(s: &str, length: usize, fill: char, side: u32) -> String {
    if side == 2 {
        if length <= s.len() {
            return s.to_string();
        }
        let zeros = "0".repeat(length - s.len());
        return match s.chars().next() {
            Some(sign @ ('-' | '+')) => format!("{sign}{zeros}{}", &s[1..]),
            _ => format!("{zeros}{s}"),
        };
    }
    let have = s.chars().count();
    let padding: String = std::iter::repeat_n(fill, length.saturating_sub(have)).collect();
    if side == 0 {
        format!("{padding}{s}")
    } else {
        format!("{s}{padding}")
    }
}

#[test]
fn padding_matches_polars_rules() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(46);
    for &n in SIZES {
        let mut strings = random_strings(&mut rng, n);
        for s in strings.iter_mut().step_by(3) {
            s.insert(0, ['-', '+', '1'][rng.usize(..3)]);
        }
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..6) != 0).collect();
        let (offsets, bytes) = offsets_of(&strings);
        let (d_offsets, d_bytes, d_valid) = (
            device.upload(&offsets),
            device.upload(&bytes),
            device.upload(&bitmap(&valid)),
        );
        for (length, fill, side) in [
            (0, ' ', 0),
            (5, '*', 0),
            (8, 'é', 1),
            (12, '😀', 0),
            (6, '0', 2),
            (0, '0', 2),
            (15, '0', 2),
        ] {
            let out = ops
                .string_pad(
                    (&d_offsets, &d_bytes, Some(&d_valid)),
                    PadTo::Length(length),
                    fill,
                    side,
                )
                .unwrap();
            let got = texts_of(&out);
            let expected = where_valid(&strings, &valid, |s| {
                pad_reference(s, length as usize, fill, side)
            });
            assert_eq!(got, expected, "n = {n}, {length} {fill:?} {side}");
            assert_eq!(flags(&out.validity.to_host().unwrap(), n), valid, "n = {n}");
        }
        // Each row's length.
        let lengths: Vec<u64> = (0..n).map(|_| rng.u64(..14)).collect();
        let d_lengths = device.upload(&lengths);
        for (fill, side) in [('é', 0), ('*', 1), ('0', 2)] {
            let strings_ref = (&d_offsets, &d_bytes, Some(&d_valid));
            let out = ops
                .string_pad(strings_ref, PadTo::Rows(&d_lengths), fill, side)
                .unwrap();
            let expected: Vec<String> = (0..n)
                .map(|i| match valid[i] {
                    true => pad_reference(&strings[i], lengths[i] as usize, fill, side),
                    false => String::new(),
                })
                .collect();
            assert_eq!(texts_of(&out), expected, "n = {n}, rows {fill:?} {side}");
        }
    }
}

#[test]
fn split_gives_rusts_pieces_in_lists() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(31);
    for &n in SIZES {
        let mut strings = random_strings(&mut rng, n);
        // Separators that meet: doubled, at the ends, inside characters' bytes.
        for s in strings.iter_mut().step_by(3) {
            s.insert_str(0, "a ");
            s.push_str("aa");
        }
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..6) != 0).collect();
        let (offsets, bytes, validity) = device.upload_texts(&strings, &valid);
        for separator in ["a", " ", "aa", "é", "😀", ""] {
            for inclusive in [false, true] {
                let (lists, list_validity, pieces) = ops
                    .string_split(
                        (&offsets, &bytes, Some(&validity)),
                        separator.as_bytes(),
                        inclusive,
                    )
                    .unwrap();
                let mut expected_offsets = vec![0i64];
                let mut expected = Vec::new();
                for (s, &ok) in strings.iter().zip(&valid) {
                    if ok {
                        let split: Vec<String> = match (separator, inclusive) {
                            ("", _) => s.chars().map(String::from).collect(),
                            (by, false) => s.split(by).map(String::from).collect(),
                            (by, true) => s.split_inclusive(by).map(String::from).collect(),
                        };
                        expected.extend(split);
                    }
                    expected_offsets.push(expected.len() as i64);
                }
                let context = format!("n={n}, separator={separator:?}, inclusive={inclusive}");
                assert_eq!(lists.to_host().unwrap(), expected_offsets, "{context}");
                assert_eq!(
                    list_validity.to_host().unwrap(),
                    bitmap(&valid),
                    "{context}"
                );
                assert_eq!(texts_of(&pieces), expected, "{context}");
            }
        }
    }
}
