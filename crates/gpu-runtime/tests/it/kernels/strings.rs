//! String slicing, row-wise concatenation (concat_str), comparisons, lengths, parsing as integers, floats, dates and timestamps, padding, dates and timestamps as text, concatenation of strings and bitmaps, device-to-device copies, and group numbers of sorted rows.

use std::sync::Arc;

use gpu_runtime::memory::{DeviceBuffer, DeviceCopy, MemoryResource, PoolOptions, PoolResource};
use gpu_runtime::ops::{Comparison, ConcatPart, DeviceStrings, DfaTables, Ops, Pattern};
use gpu_runtime::{Device, Stream};

use super::{SIZES, bitmap, classes_of_a_and_b, device, flags, offsets_of, texts_of_pieces};

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
fn texts_of(strings: &DeviceStrings) -> Vec<String> {
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
fn where_valid(strings: &[String], valid: &[bool], f: impl Fn(&str) -> String) -> Vec<String> {
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

/// Texts that integers parse from or not: signs, leading zeros, limits,
/// white space, other digits, and random digit runs.
fn integer_texts(rng: &mut fastrand::Rng, n: usize) -> Vec<String> {
    const FIXED: &[&str] = &[
        "",
        "+",
        "-",
        "+5",
        "-5",
        "007",
        "-007",
        "1e3",
        " 1",
        "1 ",
        "0x10",
        "1_000",
        "-0",
        "+0",
        "+-1",
        "٣",
        "127",
        "128",
        "-128",
        "-129",
        "255",
        "256",
        "32767",
        "65535",
        "65536",
        "2147483647",
        "-2147483648",
        "4294967295",
        "4294967296",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "18446744073709551615",
        "18446744073709551616",
        "99999999999999999999999",
        "00000000000000000000000000000000042",
        "-00000000000000000000000000009223372036854775808",
    ];
    (0..n)
        .map(|_| match rng.u8(..3) {
            0 => FIXED[rng.usize(..FIXED.len())].to_string(),
            _ => {
                let sign = ["", "-", "+"][rng.usize(..3)];
                let digits: String = (0..rng.usize(1..22)).map(|_| rng.digit(10)).collect();
                format!("{sign}{digits}")
            }
        })
        .collect()
}

#[test]
fn texts_parse_as_integers_as_rust_parses_them() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(45);
    // Rust's `from_str` of the integer types takes what Polars' parser takes.
    fn reference<T: std::str::FromStr + Into<i128>>(s: &str) -> Option<i128> {
        s.parse::<T>().ok().map(Into::into)
    }
    type Parser = fn(&str) -> Option<i128>;
    let types: [(&str, (i64, u64), Parser); 8] = [
        ("i8", (i8::MIN.into(), i8::MAX as u64), reference::<i8>),
        ("i16", (i16::MIN.into(), i16::MAX as u64), reference::<i16>),
        ("i32", (i32::MIN.into(), i32::MAX as u64), reference::<i32>),
        ("i64", (i64::MIN, i64::MAX as u64), reference::<i64>),
        ("u8", (0, u8::MAX.into()), reference::<u8>),
        ("u16", (0, u16::MAX.into()), reference::<u16>),
        ("u32", (0, u32::MAX.into()), reference::<u32>),
        ("u64", (0, u64::MAX), reference::<u64>),
    ];
    for &n in SIZES {
        let texts = integer_texts(&mut rng, n);
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..8) != 0).collect();
        let (offsets, bytes) = offsets_of(&texts);
        let (d_offsets, d_bytes, d_valid) = (
            device.upload(&offsets),
            device.upload(&bytes),
            device.upload(&bitmap(&valid)),
        );
        for (name, bounds, parse) in types {
            let failed = device.upload(&[0u32]);
            let (values, validity) = ops
                .string_parse_integers(
                    (&d_offsets, &d_bytes, Some(&d_valid)),
                    bounds,
                    Some(&failed),
                )
                .unwrap();
            let expected: Vec<Option<i128>> = texts
                .iter()
                .zip(&valid)
                .map(|(s, &ok)| if ok { parse(s) } else { None })
                .collect();
            let (values, validity) = (values.to_host().unwrap(), validity.to_host().unwrap());
            let got: Vec<Option<i128>> = flags(&validity, n)
                .into_iter()
                .zip(&values)
                .map(|(ok, &v)| {
                    ok.then(|| {
                        if bounds.0 < 0 {
                            i128::from(v as i64)
                        } else {
                            i128::from(v)
                        }
                    })
                })
                .collect();
            assert_eq!(got, expected, "n = {n}, {name}");
            let should_fail = expected
                .iter()
                .zip(&valid)
                .any(|(e, &ok)| ok && e.is_none());
            assert_eq!(
                failed.to_host().unwrap()[0] != 0,
                should_fail,
                "n = {n}, {name}"
            );
        }
    }
}

/// A parse's values where valid equal `expected`, and its failure flag is
/// raised exactly when a valid text (`valid`) did not parse.
fn assert_parsed<T: DeviceCopy + PartialEq + std::fmt::Debug>(
    (values, validity, failed): (DeviceBuffer<T>, DeviceBuffer<u32>, DeviceBuffer<u32>),
    expected: &[Option<T>],
    valid: &[bool],
    context: &str,
) {
    let (values, validity) = (values.to_host().unwrap(), validity.to_host().unwrap());
    let got: Vec<Option<T>> = flags(&validity, expected.len())
        .into_iter()
        .zip(values)
        .map(|(ok, v)| ok.then_some(v))
        .collect();
    assert_eq!(got, expected, "{context}");
    let should_fail = expected.iter().zip(valid).any(|(e, &ok)| ok && e.is_none());
    assert_eq!(failed.to_host().unwrap()[0] != 0, should_fail, "{context}");
}

/// A chrono format of `%Y %m %d %H %M %S` and literal ASCII as the parse
/// kernel's program.
fn parse_program(format: &str) -> Vec<u32> {
    let mut program = Vec::new();
    let mut bytes = format.bytes();
    while let Some(byte) = bytes.next() {
        if byte != b'%' {
            program.push(u32::from(byte));
            continue;
        }
        let specifier = bytes.next();
        let field = b"YmdHMS".iter().position(|&f| Some(f) == specifier);
        program.push(gpu_runtime::ops::PARSE_YEAR + field.unwrap() as u32);
    }
    program
}

#[test]
fn texts_of_the_form_yyyy_mm_dd_parse_as_dates_and_others_set_the_flag() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(46);
    let epoch = chrono::NaiveDate::from_ymd_opt(1970, 1, 1).unwrap();
    for &n in SIZES {
        // Mostly canonical dates, some impossible (month 13, day 0, Feb 29
        // of common years), some of other forms chrono may still take.
        let texts: Vec<String> = (0..n)
            .map(|_| {
                let (y, m, d) = (rng.u32(..10000), rng.u32(1..13), rng.u32(1..32));
                match rng.u8(..20) {
                    0 => format!("{y:04}-13-{d:02}"),
                    1 => format!("{y:04}-{m:02}-00"),
                    2 => format!("{y:04}-02-29"),
                    3 => format!("{y}-{m}-{d}"),
                    4 => format!(" {y:04}-{m:02}-{d:02}"),
                    5 => format!("{y:04}/{m:02}/{d:02}"),
                    6 => String::new(),
                    _ => format!("{y:04}-{m:02}-{d:02}"),
                }
            })
            .collect();
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..8) != 0).collect();
        let (offsets, bytes) = offsets_of(&texts);
        let failed = device.upload(&[0u32]);
        let (values, validity) = ops
            .string_parse_dates(
                (
                    &device.upload(&offsets),
                    &device.upload(&bytes),
                    Some(&device.upload(&bitmap(&valid))),
                ),
                &parse_program("%Y-%m-%d"),
                &failed,
            )
            .unwrap();
        let canonical = |t: &str| {
            t.len() == 10
                && t.bytes().enumerate().all(|(i, b)| {
                    if i == 4 || i == 7 {
                        b == b'-'
                    } else {
                        b.is_ascii_digit()
                    }
                })
        };
        let expected: Vec<Option<i32>> = texts
            .iter()
            .zip(&valid)
            .map(|(t, &ok)| {
                let date = chrono::NaiveDate::parse_from_str(t, "%Y-%m-%d").ok();
                date.filter(|_| ok && canonical(t))
                    .map(|d| (d - epoch).num_days() as i32)
            })
            .collect();
        assert_parsed(
            (values, validity, failed),
            &expected,
            &valid,
            &format!("n = {n}"),
        );
    }
}

#[test]
fn texts_of_the_form_yyyy_mm_dd_hh_mm_ss_parse_as_timestamps() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(47);
    let epoch = chrono::NaiveDate::from_ymd_opt(1970, 1, 1)
        .unwrap()
        .and_hms_opt(0, 0, 0)
        .unwrap();
    for &n in SIZES {
        let texts: Vec<String> = (0..n)
            .map(|_| {
                let (y, mo, d) = (rng.u32(..10000), rng.u32(1..13), rng.u32(1..29));
                let (h, mi, s) = (rng.u32(..24), rng.u32(..60), rng.u32(..60));
                match rng.u8(..16) {
                    0 => format!("{y:04}-{mo:02}-{d:02} 24:{mi:02}:{s:02}"),
                    1 => format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:60"),
                    2 => format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}"),
                    3 => format!("{y:04}-{mo:02}-{d:02}"),
                    4 => format!("{y:04}-{mo:02}-{d:02} {h}:{mi:02}:{s:02}"),
                    _ => format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}"),
                }
            })
            .collect();
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..8) != 0).collect();
        let (offsets, bytes) = offsets_of(&texts);
        let strings = (
            device.upload(&offsets),
            device.upload(&bytes),
            device.upload(&bitmap(&valid)),
        );
        let canonical = |t: &str| {
            t.len() == 19
                && t.bytes().enumerate().all(|(i, b)| match i {
                    4 | 7 => b == b'-',
                    10 => b == b' ',
                    13 | 16 => b == b':',
                    _ => b.is_ascii_digit(),
                })
        };
        for per_second in [1_000u64, 1_000_000, 1_000_000_000] {
            let failed = device.upload(&[0u32]);
            let (values, validity) = ops
                .string_parse_timestamps(
                    (&strings.0, &strings.1, Some(&strings.2)),
                    &parse_program("%Y-%m-%d %H:%M:%S"),
                    per_second,
                    &failed,
                )
                .unwrap();
            let expected: Vec<Option<i64>> = texts
                .iter()
                .zip(&valid)
                .map(|(t, &ok)| {
                    let time = chrono::NaiveDateTime::parse_from_str(t, "%Y-%m-%d %H:%M:%S").ok();
                    let seconds = time
                        .filter(|_| ok && canonical(t) && &t[17..] != "60")
                        .map(|time| (time - epoch).num_seconds())?;
                    seconds.checked_mul(per_second as i64)
                })
                .collect();
            let context = format!("n = {n}, {per_second} per second");
            assert_parsed((values, validity, failed), &expected, &valid, &context);
        }
    }
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
                .string_pad((&d_offsets, &d_bytes, Some(&d_valid)), length, fill, side)
                .unwrap();
            let got = texts_of(&out);
            let expected = where_valid(&strings, &valid, |s| {
                pad_reference(s, length as usize, fill, side)
            });
            assert_eq!(got, expected, "n = {n}, {length} {fill:?} {side}");
            assert_eq!(flags(&out.validity.to_host().unwrap(), n), valid, "n = {n}");
        }
    }
}

#[test]
fn dates_and_timestamps_format_as_chrono_formats_them() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(47);
    let epoch = chrono::NaiveDate::from_ymd_opt(1970, 1, 1).unwrap();
    // A program (the kernel's items: code << 8 | argument; text as bytes)
    // and chrono's format for it.
    let item = |code: u32, argument: u8| (code << 8) | u32::from(argument);
    let text = |text: &str| text.bytes().map(|b| item(0, b)).collect::<Vec<_>>();
    let date = [
        item(1, 0),
        item(0, b'-'),
        item(2, 0),
        item(0, b'-'),
        item(3, 0),
    ];
    let time = |digits: u8| {
        let mut time = vec![item(0, b' '), item(4, 0), item(0, b':'), item(5, 0)];
        time.extend([item(0, b':'), item(6, 0), item(0, b'.'), item(7, digits)]);
        time
    };
    let default = |digits: u8| [&date[..], &time(digits)].concat();
    // Every other item, between texts (multi-byte too).
    let others = |digits: u8| -> Vec<u32> {
        [
            text("«"),
            vec![item(8, 0)],
            text("|"),
            vec![item(9, 0), item(10, 0), item(11, 0), item(12, 0)],
            text(" "),
            vec![item(13, 0), item(14, 0), item(15, 0), item(16, 0)],
            vec![item(17, 0), item(18, 0), item(7, digits)],
            text("%»"),
        ]
        .concat()
    };
    let others_format = |digits: u8| format!("«%y|%j%e%b%B %a%A%u%w%I%p%{digits}f%%»");
    // (ticks a day, chrono's format, the program)
    let units: Vec<(i64, String, Vec<u32>)> = vec![
        (1, "%Y-%m-%d".into(), date.to_vec()),
        (1, "«%y|%j%e%b%B %a%A%u%w%%»".into(), {
            let mut program = others(3);
            program.retain(|&p| p >> 8 != 7 && p >> 8 != 17 && p >> 8 != 18);
            program
        }),
        (86_400_000, "%Y-%m-%d %H:%M:%S%.3f".into(), default(3)),
        (86_400_000_000, "%Y-%m-%d %H:%M:%S%.6f".into(), default(6)),
        (
            86_400_000_000_000,
            "%Y-%m-%d %H:%M:%S%.9f".into(),
            default(9),
        ),
        (86_400_000_000_000, others_format(3), others(3)),
        (86_400_000, others_format(9), others(9)),
    ];
    for &n in SIZES {
        for (per_day, format, program) in &units {
            let (per_day, format) = (*per_day, format.as_str());
            // Days within chrono's range (years -262143 to 262142), some
            // around year 0 and 10000, and the time of day.
            let days: Vec<i64> = (0..n)
                .map(|_| match rng.u8(..4) {
                    0 => rng.i64(-95_000_000..95_000_000),
                    1 => rng.i64(-720_000..-718_000),
                    2 => rng.i64(2_932_000..2_933_500),
                    _ => rng.i64(-30_000..30_000),
                })
                .collect();
            let values: Vec<i64> = days
                .iter()
                .map(|&d| {
                    let d = if per_day > 1 {
                        d.clamp(-106_000, 106_000)
                    } else {
                        d
                    };
                    d * per_day + if per_day > 1 { rng.i64(0..per_day) } else { 0 }
                })
                .collect();
            let valid: Vec<bool> = (0..n).map(|_| rng.u8(..6) != 0).collect();
            let out = ops
                .string_format_temporal(
                    &device.upload(&values),
                    Some(&device.upload(&bitmap(&valid))),
                    per_day,
                    program,
                )
                .unwrap();
            let got = texts_of(&out);
            let expected: Vec<String> = values
                .iter()
                .zip(&valid)
                .map(|(&v, &ok)| {
                    if !ok {
                        return String::new();
                    }
                    let (days, ticks) = (v.div_euclid(per_day), v.rem_euclid(per_day));
                    let date = epoch + chrono::Duration::days(days);
                    let nanos = ticks * (86_400_000_000_000 / per_day);
                    let time = chrono::NaiveTime::from_num_seconds_from_midnight_opt(
                        (nanos / 1_000_000_000) as u32,
                        (nanos % 1_000_000_000) as u32,
                    )
                    .unwrap();
                    date.and_time(time).format(format).to_string()
                })
                .collect();
            assert_eq!(got, expected, "n = {n}, {per_day} ticks a day");
        }
    }
}

/// Texts for the float parser: forms it takes and forms it refuses, edge
/// values of both float types, numbers of many digits, and random numbers
/// (written by Rust, or random digits with a point and an exponent).
fn float_texts(rng: &mut fastrand::Rng, n: usize) -> Vec<String> {
    const FIXED: &[&str] = &[
        "",
        "+",
        "-",
        ".",
        "+.",
        "e5",
        "1e",
        "1e+",
        "1E-",
        "1.5e-3",
        ".5",
        "5.",
        "+.5e2",
        "-5.E1",
        "1.2.3",
        "1e5e5",
        "inf",
        "-Infinity",
        "+INF",
        "NaN",
        "+nan",
        "-nan",
        "nAn",
        "infinit",
        "infinityy",
        "nanx",
        " 1",
        "1 ",
        "0x10",
        "1_000",
        "1,5",
        "-0",
        "-0.0",
        "0e999",
        "-0e-999",
        "1e400",
        "-1e400",
        "1e-400",
        "1e99999999999",
        "4.9406564584124654e-324",
        "5e-324",
        "2.4703282292062327e-324",
        "2.4703282292062328e-324",
        "2.2250738585072011e-308",
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "1.7976931348623159e308",
        "9007199254740993",
        "9007199254740992.5",
        "3.4028235e38",
        "3.4028236e38",
        "1.17549435e-38",
        "1e-45",
        "7e-46",
        "0.1",
        "0.3",
        "1e22",
        "1e23",
        "123456e17",
        "123456789e20",
        "123456789012345678901234567890",
        "0.000000000000000000000000000001",
        "0000000000000000000000000001.5",
        "00000000000000000000000000000000000000.1",
        "1.00000000000000000000000000000000000001",
        "9999999999999999999",
        "99999999999999999999",
        "18446744073709551616",
        "٣",
        "1e-",
        "-.e1",
    ];
    (0..n)
        .map(|_| match rng.u8(..5) {
            0 => FIXED[rng.usize(..FIXED.len())].to_string(),
            1 => format!("{:e}", f64::from_bits(rng.u64(..))),
            2 => format!("{}", f32::from_bits(rng.u32(..))),
            _ => {
                let sign = ["", "-", "+"][rng.usize(..3)];
                let mut digits: String = (0..rng.usize(1..26)).map(|_| rng.digit(10)).collect();
                if rng.bool() {
                    digits.insert(rng.usize(..=digits.len()), '.');
                }
                let exponent = match rng.u8(..3) {
                    0 => String::new(),
                    _ => format!(
                        "{}{}{}",
                        ["e", "E"][rng.usize(..2)],
                        ["", "-", "+"][rng.usize(..3)],
                        rng.u32(..400)
                    ),
                };
                format!("{sign}{digits}{exponent}")
            }
        })
        .collect()
}

/// Parses `texts` (all valid but where `valid` says) to `T` on the device:
/// values, validity, the failure flag and the undecided flag.
fn parse_floats_on<T: gpu_runtime::ops::ParsedFloat>(
    device: &super::Device,
    texts: &[String],
    valid: &[bool],
) -> (Vec<Option<T>>, bool, bool) {
    let ops = device.ops();
    let (offsets, bytes) = offsets_of(texts);
    let (failed, undecided) = (device.upload(&[0u32]), device.upload(&[0u32]));
    let (values, validity) = ops
        .string_parse_floats::<T>(
            (
                &device.upload(&offsets),
                &device.upload(&bytes),
                Some(&device.upload(&bitmap(valid))),
            ),
            Some(&failed),
            &undecided,
        )
        .unwrap();
    let got = flags(&validity.to_host().unwrap(), texts.len())
        .into_iter()
        .zip(values.to_host().unwrap())
        .map(|(ok, v)| ok.then_some(v))
        .collect();
    let flag = |b: DeviceBuffer<u32>| b.to_host().unwrap()[0] != 0;
    (got, flag(failed), flag(undecided))
}

/// Checks a parse to `T` against fast_float2 (Polars' parser), bit for
/// bit: a number the device leaves undecided must be one it raises the
/// undecided flag for when parsed alone.
fn check_float_parse<T>(
    device: &super::Device,
    texts: &[String],
    valid: &[bool],
    context: &str,
) -> usize
where
    T: gpu_runtime::ops::ParsedFloat + fast_float2::FastFloat + Into<f64>,
{
    let bits = |v: Option<T>| v.map(|v| Into::<f64>::into(v).to_bits());
    let (got, failed, undecided) = parse_floats_on::<T>(device, texts, valid);
    let expected: Vec<Option<T>> = texts
        .iter()
        .zip(valid)
        .map(|(s, &ok)| ok.then(|| fast_float2::parse::<T, _>(s).ok()).flatten())
        .collect();
    let mut left = 0;
    for (i, (&g, &e)) in got.iter().zip(&expected).enumerate() {
        if g.is_none() && e.is_some() {
            let alone = parse_floats_on::<T>(device, &texts[i..=i], &[true]);
            assert!(
                alone.2,
                "{context}: {:?} parsed to null, not {e:?}",
                texts[i]
            );
            left += 1;
        } else {
            assert_eq!(bits(g), bits(e), "{context}: {:?}", texts[i]);
        }
    }
    assert_eq!(undecided, left > 0, "{context}: the undecided flag");
    let should_fail = expected.iter().zip(valid).any(|(e, &ok)| ok && e.is_none());
    assert_eq!(failed, should_fail, "{context}: the failure flag");
    left
}

#[test]
fn texts_parse_as_floats_as_polars_parses_them() {
    let device = device();
    let mut rng = fastrand::Rng::with_seed(46);
    let mut undecided = 0;
    for &n in SIZES {
        let texts = float_texts(&mut rng, n);
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..8) != 0).collect();
        undecided += check_float_parse::<f64>(&device, &texts, &valid, &format!("f64, n = {n}"));
        undecided += check_float_parse::<f32>(&device, &texts, &valid, &format!("f32, n = {n}"));
    }
    // Undecided numbers are rare: the device decides nearly all.
    assert!(undecided < 50, "{undecided} texts left undecided");
    // Every power of ten the table holds, with 17 significant digits (too
    // many for the fast path), and just past both ends.
    let texts: Vec<String> = (-360i64..=330)
        .flat_map(|e| {
            let mut rng = fastrand::Rng::with_seed(e as u64);
            (0..4).map(move |_| {
                format!(
                    "{}e{e}",
                    rng.u64(10_000_000_000_000_000..100_000_000_000_000_000)
                )
            })
        })
        .collect();
    let valid = vec![true; texts.len()];
    check_float_parse::<f64>(&device, &texts, &valid, "every power, f64");
    check_float_parse::<f32>(&device, &texts, &valid, "every power, f32");
}

/// Floats of every kind as bits: zeros, subnormals, powers of two, the
/// ends of both float types, values about the powers of ten where zmij
/// turns from plain to exponent notation, NaNs, infinities, and random bits.
fn float_bits(rng: &mut fastrand::Rng, n: usize, width: u32) -> Vec<u64> {
    let mut special: Vec<f64> = vec![0.0, -0.0, f64::MIN_POSITIVE, f64::MAX, f64::EPSILON, 1.0];
    special.extend([f64::NAN, -f64::NAN, f64::INFINITY, f64::NEG_INFINITY]);
    special.extend((-330..=310).map(|e| 10f64.powi(e)));
    special.extend((-1074..=1023).map(|e| 2f64.powi(e)));
    special.extend([
        0.1,
        0.2,
        0.3,
        1.5,
        123.456,
        9007199254740993.0,
        5e-324,
        1e23,
    ]);
    let mask = if width == 64 {
        u64::MAX
    } else {
        u64::from(u32::MAX)
    };
    (0..n)
        .map(|_| match rng.u8(..4) {
            0 => {
                let v = special[rng.usize(..special.len())];
                let v = if rng.bool() { -v } else { v };
                if width == 64 {
                    v.to_bits()
                } else {
                    u64::from((v as f32).to_bits())
                }
            }
            // Subnormals and small exponents.
            1 => rng.u64(..) & (mask >> (width / 4)),
            _ => rng.u64(..) & mask,
        })
        .collect()
}

#[test]
fn floats_are_written_as_polars_writes_them() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(47);
    for &n in SIZES {
        let valid: Vec<bool> = (0..n).map(|_| rng.u8(..8) != 0).collect();
        let d_valid = device.upload(&bitmap(&valid));
        for width in [64, 32] {
            let bits = float_bits(&mut rng, n, width);
            let mut buffer = zmij::Buffer::new();
            let expected: Vec<String> = bits
                .iter()
                .zip(&valid)
                .map(|(&b, &ok)| match (ok, width) {
                    (false, _) => String::new(),
                    (true, 64) => buffer.format(f64::from_bits(b)).to_string(),
                    (true, _) => buffer.format(f32::from_bits(b as u32)).to_string(),
                })
                .collect();
            let strings = if width == 64 {
                let values: Vec<f64> = bits.iter().map(|&b| f64::from_bits(b)).collect();
                ops.string_from_floats(&device.upload(&values), Some(&d_valid))
            } else {
                let values: Vec<f32> = bits.iter().map(|&b| f32::from_bits(b as u32)).collect();
                ops.string_from_floats(&device.upload(&values), Some(&d_valid))
            }
            .unwrap();
            let got = texts_of(&strings);
            for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
                assert_eq!(g, e, "f{width}, n = {n}: bits {:#x}", bits[i]);
            }
            assert_eq!(strings.validity.to_host().unwrap(), bitmap(&valid));
        }
    }
}

/// The anchored DFA of `ab+` (a match ends before the byte that follows it,
/// as the host's DFAs report): classes `a` 1, `b` 2, others 0; one start
/// state whatever precedes.
fn ab_plus() -> (Vec<u8>, Vec<u32>, Vec<u8>, Vec<u32>) {
    const MATCHED: u8 = 1;
    const DEAD: u8 = 2;
    const MATCHED_AT_END: u8 = 4;
    // 0 start, 1 after `a`, 2 in `b+`, 3 in `b+` past a match, 4 a match
    // ended (nothing more), 5 dead.
    let transitions = [
        [5, 1, 5],
        [5, 5, 2],
        [4, 4, 3],
        [4, 4, 3],
        [5, 5, 5],
        [5, 5, 5],
    ]
    .concat();
    let flags = vec![
        0,
        0,
        MATCHED_AT_END,
        MATCHED | MATCHED_AT_END,
        MATCHED | DEAD,
        DEAD,
    ];
    (classes_of_a_and_b(), transitions, flags, vec![0; 257])
}

/// The matches of `ab+` in `text`, leftmost and not overlapping.
fn ab_plus_matches(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let (mut found, mut k) = (Vec::new(), 0);
    while k + 1 < bytes.len() {
        if bytes[k] == b'a' && bytes[k + 1] == b'b' {
            let mut end = k + 2;
            while end < bytes.len() && bytes[end] == b'b' {
                end += 1;
            }
            found.push((k, end));
            k = end;
        } else {
            k += 1;
        }
    }
    found
}

#[test]
fn counts_finds_and_replacements_of_a_literal_or_a_dfa() {
    let device = device();
    let ops = device.ops();
    let (classes, transitions, state_flags, starts) = ab_plus();
    let dfa = Pattern::Anchored(DfaTables {
        classes: &classes,
        transitions: &transitions,
        flags: &state_flags,
        starts: &starts,
    });
    let pieces = ["a", "b", "ab", "abb", "ba", "é", "x", ""];
    let mut rng = fastrand::Rng::with_seed(31);
    for &n in &SIZES[..9] {
        let (rows, valid) = texts_of_pieces(&mut rng, n, &pieces, 7);
        let (doff, dbytes, dvalid) = device.upload_texts(&rows, &valid);
        let strings = (&doff, &dbytes, Some(&dvalid));
        // Each pattern with its matches, as a Rust reference.
        type Matches = fn(&str) -> Vec<(usize, usize)>;
        let literal: Matches = |text| {
            text.match_indices("ab")
                .map(|(at, _)| (at, at + 2))
                .collect()
        };
        for (pattern, matches) in [
            (dfa, ab_plus_matches as Matches),
            (Pattern::Literal("ab"), literal),
        ] {
            let (counts, counted) = ops.string_matches(strings, pattern, false).unwrap();
            let (firsts, found) = ops.string_matches(strings, pattern, true).unwrap();
            let (counts, firsts) = (counts.to_host().unwrap(), firsts.to_host().unwrap());
            let found = flags(&found.to_host().unwrap(), n);
            assert_eq!(counted.to_host().unwrap(), bitmap(&valid), "n = {n}");
            for (i, text) in rows.iter().enumerate().filter(|&(i, _)| valid[i]) {
                let expected = matches(text);
                assert_eq!(
                    counts[i] as usize,
                    expected.len(),
                    "{pattern:?} in {text:?}"
                );
                assert_eq!(found[i], !expected.is_empty(), "{pattern:?} in {text:?}");
                if let Some(&(start, _)) = expected.first() {
                    assert_eq!(firsts[i] as usize, start, "{pattern:?} in {text:?}");
                }
            }
            for limit in [None, Some(1)] {
                let out = ops
                    .string_replace(&doff, &dbytes, Some(&dvalid), (pattern, "<>"), limit)
                    .unwrap();
                let expected = where_valid(&rows, &valid, |text| {
                    let mut replaced = String::new();
                    let mut last = 0;
                    for &(start, end) in matches(text)
                        .iter()
                        .take(limit.map_or(usize::MAX, |l| l as usize))
                    {
                        replaced.push_str(&text[last..start]);
                        replaced.push_str("<>");
                        last = end;
                    }
                    replaced + &text[last..]
                });
                assert_eq!(texts_of(&out), expected, "{pattern:?} {limit:?}, n = {n}");
            }
        }
    }
    // An anchored DFA has a start state for each byte and the text's start.
    let short = Pattern::Anchored(DfaTables {
        starts: &starts[..1],
        ..match dfa {
            Pattern::Anchored(tables) => tables,
            Pattern::Literal(_) => unreachable!(),
        }
    });
    let strings = (&device.upload(&[0i64, 1]), &device.upload(b"a"), None);
    let error = ops.string_matches(strings, short, false).unwrap_err();
    assert!(
        error.to_string().contains("257 start states, not 1"),
        "{error}"
    );
}
