//! Texts parsed as integers, floats, dates and timestamps, and numbers and temporals written as text, against Rust's and Polars' own.

use super::*;

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
/// kernel's program (`%_`: a space or a `T`, as Polars' inferred formats
/// read them; `%.f`: chrono's fraction of the second).
fn parse_program(format: &str) -> Vec<u32> {
    let mut program = Vec::new();
    let mut bytes = format.bytes();
    while let Some(byte) = bytes.next() {
        if byte != b'%' {
            program.push(u32::from(byte));
            continue;
        }
        let specifier = bytes.next();
        if specifier == Some(b'.') {
            assert_eq!(bytes.next(), Some(b'f'));
            program.push(gpu_runtime::ops::PARSE_YEAR + 7);
            continue;
        }
        let field = b"YmdHMS_".iter().position(|&f| Some(f) == specifier);
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
                (&parse_program("%Y-%m-%d"), false),
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

/// A lenient parse (Polars' that is not strict) makes null only texts from
/// which chrono (Polars' parser behind its fixed-width one) reads no value,
/// raises the flag for the other texts not of the form, and makes null the
/// junk a column of dates holds (words, empty texts, impossible dates).
#[test]
fn lenient_parses_make_null_only_texts_no_parser_reads() {
    let device = device();
    let ops = device.ops();
    let mut rng = fastrand::Rng::with_seed(48);
    const ALPHABET: &[&str] = &[
        "0", "1", "2", "3", "6", "9", "-", "+", ":", "/", " ", "\t", "T", "a", "é", "\u{3000}", ".",
    ];
    let formats = [
        ("%Y-%m-%d", false),
        ("%d/%m/%Y", false),
        ("%Y-%m-%d %H:%M:%S", true),
        ("%Y-%m-%dT%H:%M", true),
        ("%Y-%m-%d %H:%M:%S%.f", true),
    ];
    // One text at a time: the flag is the launch's.
    let parse = |text: &str, program: &[u32], timestamp: bool| {
        let (offsets, bytes) = offsets_of(&[text.to_string()]);
        let (offsets, bytes) = (device.upload(&offsets), device.upload(&bytes));
        let failed = device.upload(&[0u32]);
        let validity = if timestamp {
            let parsed =
                ops.string_parse_timestamps((&offsets, &bytes, None), (program, true), 1, &failed);
            parsed.unwrap().1
        } else {
            ops.string_parse_dates((&offsets, &bytes, None), (program, true), &failed)
                .unwrap()
                .1
        };
        let valid = flags(&validity.to_host().unwrap(), 1)[0];
        (valid, failed.to_host().unwrap()[0] != 0)
    };
    for (format, timestamp) in formats {
        let program = parse_program(format);
        let reads = |text: &str| {
            if timestamp {
                chrono::NaiveDateTime::parse_from_str(text, format).is_ok()
            } else {
                chrono::NaiveDate::parse_from_str(text, format).is_ok()
            }
        };
        for _ in 0..200 {
            // Texts of the form with a character or two replaced, of the
            // form with fields out of range, and runs of the alphabet.
            let (y, mo, d) = (rng.u32(..10000), rng.u32(..14), rng.u32(..33));
            let (h, mi, s) = (rng.u32(..26), rng.u32(..62), rng.u32(..62));
            let of_form = chrono::NaiveDate::from_ymd_opt(2000, 1, 1)
                .unwrap()
                .and_hms_opt(0, 0, 0)
                .unwrap()
                .format(format)
                .to_string()
                .replace("2000", &format!("{y:04}"))
                .replacen("01", &format!("{mo:02}"), 1)
                .replacen("01", &format!("{d:02}"), 1)
                .replacen("00:00", &format!("{h:02}:{mi:02}"), 1)
                .replacen(":00", &format!(":{s:02}"), 1);
            let text = match rng.u8(..3) {
                0 => of_form,
                1 => {
                    let mut chars: Vec<String> = of_form.chars().map(String::from).collect();
                    for _ in 0..rng.usize(1..3) {
                        let at = rng.usize(..chars.len());
                        chars[at] = ALPHABET[rng.usize(..ALPHABET.len())].to_string();
                    }
                    chars.concat()
                }
                _ => (0..rng.usize(..12))
                    .map(|_| ALPHABET[rng.usize(..ALPHABET.len())])
                    .collect(),
            };
            let (valid, flagged) = parse(&text, &program, timestamp);
            assert!(
                valid || flagged || !reads(&text),
                "{text:?} in {format:?}: null, but chrono reads it"
            );
            assert!(!(valid && flagged), "{text:?} in {format:?}");
        }
    }
    for junk in [
        "",
        "n/a",
        "hello",
        "2024-01-05x",
        "2024-13-01",
        "2023-02-29",
        "0000-00-00",
    ] {
        let program = parse_program("%Y-%m-%d");
        assert_eq!(parse(junk, &program, false), (false, false), "{junk:?}");
    }
    // Texts chrono may read otherwise, and a leap second, raise the flag.
    for other in [
        "2024-1-5",
        " 2024-01-05",
        "+2024-01-05",
        "2024-01-05 23:59:60",
    ] {
        let (program, timestamp) = match other.len() {
            19 => (parse_program("%Y-%m-%d %H:%M:%S"), true),
            _ => (parse_program("%Y-%m-%d"), false),
        };
        assert_eq!(
            parse(other, &program, timestamp),
            (false, true),
            "{other:?}"
        );
    }
}

/// The timestamps (values, validity, failure flag) of a strict parse of
/// `strings` in the chrono `format` (see [`parse_program`]).
fn parse_timestamps(
    device: &super::super::Device,
    strings: gpu_runtime::ops::StringsRef<'_>,
    format: &str,
    per_second: u64,
) -> (DeviceBuffer<i64>, DeviceBuffer<u32>, DeviceBuffer<u32>) {
    let failed = device.upload(&[0u32]);
    let (values, validity) = device
        .ops()
        .string_parse_timestamps(
            strings,
            (&parse_program(format), false),
            per_second,
            &failed,
        )
        .unwrap();
    (values, validity, failed)
}

/// Timestamps with chrono's `%.f`: none, or a `.` and 1 to 9 digits, taken
/// in each unit as chrono's timestamps take them (truncated, before 1970
/// too); a `.` without digits, or more than 9, raises the flag.
#[test]
fn fractions_of_seconds_parse_as_chrono_reads_them() {
    let device = device();
    let mut rng = fastrand::Rng::with_seed(49);
    for &n in SIZES {
        let texts: Vec<String> = (0..n)
            .map(|_| {
                let (y, mo, d) = (rng.u32(1900..2100), rng.u32(1..13), rng.u32(1..29));
                let (h, mi, s) = (rng.u32(..24), rng.u32(..60), rng.u32(..60));
                let digits: String = (0..rng.usize(..12))
                    .map(|_| char::from(b'0' + rng.u8(..10)))
                    .collect();
                let fraction = match rng.u8(..4) {
                    0 => String::new(),
                    _ => format!(".{digits}"),
                };
                format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}{fraction}")
            })
            .collect();
        let (offsets, bytes) = offsets_of(&texts);
        let strings = (device.upload(&offsets), device.upload(&bytes));
        let format = "%Y-%m-%d %H:%M:%S%.f";
        for per_second in [1_000u64, 1_000_000, 1_000_000_000] {
            let parsed =
                parse_timestamps(&device, (&strings.0, &strings.1, None), format, per_second);
            let expected: Vec<Option<i64>> = texts
                .iter()
                .map(|t| {
                    let digits = t.split_once('.').map_or(1, |(_, f)| f.len());
                    let time = chrono::NaiveDateTime::parse_from_str(t, format).ok();
                    let utc = time.filter(|_| (1..=9).contains(&digits))?.and_utc();
                    match per_second {
                        1_000 => Some(utc.timestamp_millis()),
                        1_000_000 => Some(utc.timestamp_micros()),
                        _ => utc.timestamp_nanos_opt(),
                    }
                })
                .collect();
            let context = format!("n = {n}, {per_second} per second");
            assert_parsed(parsed, &expected, &vec![true; n], &context);
        }
    }
}

#[test]
fn texts_of_the_form_yyyy_mm_dd_hh_mm_ss_parse_as_timestamps() {
    let device = device();
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
        // With a space between the date and the time, and with a space or
        // a `T` (Polars' inferred formats).
        for (format, t_too) in [("%Y-%m-%d %H:%M:%S", false), ("%Y-%m-%d%_%H:%M:%S", true)] {
            let canonical = |t: &str| {
                t.len() == 19
                    && t.bytes().enumerate().all(|(i, b)| match i {
                        4 | 7 => b == b'-',
                        10 => b == b' ' || (t_too && b == b'T'),
                        13 | 16 => b == b':',
                        _ => b.is_ascii_digit(),
                    })
            };
            for per_second in [1_000u64, 1_000_000, 1_000_000_000] {
                let strings = (&strings.0, &strings.1, Some(&strings.2));
                let parsed = parse_timestamps(&device, strings, format, per_second);
                let expected: Vec<Option<i64>> = texts
                    .iter()
                    .zip(&valid)
                    .map(|(t, &ok)| {
                        let spaced = t.replacen('T', " ", 1);
                        let time =
                            chrono::NaiveDateTime::parse_from_str(&spaced, "%Y-%m-%d %H:%M:%S")
                                .ok();
                        let seconds = time
                            .filter(|_| ok && canonical(t) && &t[17..] != "60")
                            .map(|time| (time - epoch).num_seconds())?;
                        seconds.checked_mul(per_second as i64)
                    })
                    .collect();
                let context = format!("n = {n}, {per_second} per second, {format}");
                assert_parsed(parsed, &expected, &valid, &context);
            }
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
    // `%.f`: the fewest of 3, 6 or 9 digits, none for a whole second (of
    // seconds always, of milliseconds 3 digits or none, ...).
    let auto = [
        &text("%")[..],
        &[item(4, 0), item(19, 0)],
        &text("|"),
        &[item(6, 0), item(19, 0)],
    ]
    .concat();
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
        (86_400, "%%%H%.f|%S%.f".into(), auto.clone()),
        (86_400_000, "%%%H%.f|%S%.f".into(), auto.clone()),
        (86_400_000_000, "%%%H%.f|%S%.f".into(), auto.clone()),
        (86_400_000_000_000, "%%%H%.f|%S%.f".into(), auto),
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
                    // (Ticks of whole milliseconds and microseconds too.)
                    let tick = match rng.u8(..3) {
                        0 => (per_day / 86_400 / 1_000).max(1),
                        1 => (per_day / 86_400 / 1_000_000).max(1),
                        _ => 1,
                    };
                    let ticks = if per_day > 1 {
                        rng.i64(0..per_day / tick) * tick
                    } else {
                        0
                    };
                    d * per_day + ticks
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
    device: &super::super::Device,
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
    device: &super::super::Device,
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
