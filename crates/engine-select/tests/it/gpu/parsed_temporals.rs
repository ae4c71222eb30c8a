//! Texts parsed as temporals on the device (`str.to_date`, `str.to_datetime`, `str.to_time`, casts of text to dates): fixed-width forms, inferred formats, texts no parser of Polars' reads made null where the parse is not strict, the rest left to Polars' parser.

use super::*;

/// `str.to_time` of a format of hours, minutes and seconds (two digits
/// each) and literal text: the times of day texts of exactly that form
/// name; not strict, the texts no parser of Polars' reads (24:00, a
/// fraction the format has not, words) null; the others (one digit, a leap
/// second) left to Polars' parser.
#[test]
fn texts_of_times_of_day_parse_as_times_on_the_device() {
    let frame = |texts: &[Option<&str>]| df!("s" => texts.to_vec()).unwrap().lazy();
    let to_time = |format: Option<&str>, strict| {
        col("s").str().to_time(StrptimeOptions {
            format: format.map(Into::into),
            strict,
            ..Default::default()
        })
    };
    let seconds = [Some("00:00:00"), None, Some("23:59:59"), Some("12:05:09")];
    assert_gpu_eq(
        "times with seconds",
        frame(&seconds).select([
            to_time(Some("%H:%M:%S"), true).alias("strict"),
            to_time(Some("%T"), false).alias("lenient"),
            to_time(None, true).alias("inferred"),
            to_time(Some("%H:%M:%S"), true)
                .dt()
                .minute()
                .alias("minute"),
        ]),
    );
    assert_gpu_eq(
        "times of hours and minutes",
        frame(&[Some("07h30"), Some("23h00")]).select([to_time(Some("%Hh%M"), true)]),
    );
    // Not strict, a time no parser of Polars' reads (a field out of range,
    // a word, nothing) is null.
    assert_gpu_eq(
        "times no parser reads",
        frame(&[
            Some("24:00"),
            Some("12:60"),
            Some("noon"),
            Some(""),
            None,
            Some("12:30"),
        ])
        .select([to_time(Some("%H:%M"), false)]),
    );
    assert_gpu_eq(
        "a fraction no format reads",
        frame(&[Some("12:00:00.5"), Some("12:00:00")]).select([to_time(Some("%H:%M:%S"), false)]),
    );
    for (texts, format) in [
        (&[Some("7:30"), Some("07:30")][..], "%H:%M"),
        (&[Some("23:59:60")], "%H:%M:%S"),
    ] {
        assert_cpu_answer_with_reason(
            frame(texts).select([to_time(Some(format), false)]),
            "not of the form",
        );
    }
    assert_cpu_answer_with_reason(
        frame(&seconds).select([to_time(Some("%H:%M:%S%.3f"), true)]),
        "parsing text as",
    );
}

#[test]
fn texts_of_the_form_yyyy_mm_dd_parse_as_dates_and_timestamps_on_the_device() {
    let dates = |texts: &[Option<&str>]| {
        df!("s" => texts.to_vec(), "x" => (0..texts.len() as i64).collect::<Vec<_>>())
            .unwrap()
            .lazy()
    };
    let format = |format: &str, strict: bool| StrptimeOptions {
        format: Some(format.into()),
        strict,
        ..Default::default()
    };
    let canonical = [
        Some("2024-02-29"),
        None,
        Some("1970-01-01"),
        Some("0001-01-01"),
        Some("9999-12-31"),
        Some("1969-12-31"),
        Some("2000-03-01"),
    ];
    let to_date = |strict| col("s").str().to_date(format("%Y-%m-%d", strict));
    assert_gpu_eq(
        "texts cast to dates",
        dates(&canonical).select([
            col("s").cast(DataType::Date).alias("cast"),
            col("s").strict_cast(DataType::Date).alias("strict"),
        ]),
    );
    for texts in [&[Some("2024-1-5")][..], &[Some(" 2024-01-05")]] {
        assert_cpu_answer_with_reason(
            dates(texts).select([col("s").cast(DataType::Date)]),
            "not of the form",
        );
    }
    assert_gpu_eq(
        "dates parsed on the device",
        dates(&canonical).select([
            to_date(true).alias("date"),
            to_date(false).alias("lenient"),
            to_date(true).dt().year().alias("year"),
            (to_date(true) - lit(10_957i32).cast(DataType::Date))
                .dt()
                .total_days(false)
                .alias("days since 2000"),
        ]),
    );
    assert_gpu_eq(
        "a filter by a parsed date",
        dates(&canonical).filter(to_date(true).gt(lit(3_652i32).cast(DataType::Date))),
    );
    // Texts of other forms: Polars' parser decides.
    assert_cpu_answer_with_reason(
        dates(&[Some("2021-1-5"), Some("2021-01-05")]).select([to_date(true)]),
        "not of the form YYYY-MM-DD",
    );
    assert_cpu_answer_with_reason(
        dates(&[Some("2021-1-5"), Some("x")]).select([to_date(false)]),
        "not of the form YYYY-MM-DD in `col(\"s\").str.to_date(\"%Y-%m-%d\")`, which Polars' \
         parser may read in another form",
    );
    // Texts from which no parser of Polars' reads a value (words, empty
    // texts, impossible dates, characters the format has not) are null
    // where the parse or cast is not strict, on the device; where it is
    // strict, Polars raises.
    let junk = [
        Some("2021-02-30"),
        Some("x"),
        Some(""),
        Some("2021-13-01"),
        None,
        Some("2021-01-05"),
        Some("2021-01-05x"),
        Some("n/a"),
        Some("2024-02-29"),
    ];
    assert_gpu_eq(
        "texts no parser reads are null",
        dates(&junk).select([
            to_date(false).alias("parsed"),
            col("s").cast(DataType::Date).alias("cast"),
        ]),
    );
    assert_cpu_error(dates(&junk).select([to_date(true)]));
    assert_cpu_error(dates(&junk).select([col("s").strict_cast(DataType::Date)]));
    // Other formats of fixed-width fields and literal text run too; a text
    // of another width leaves the column to Polars, and so does a format
    // with other specifiers.
    let to_date_as = |f: &str, strict| col("s").str().to_date(format(f, strict));
    assert_gpu_eq(
        "dates in other formats",
        dates(&[
            Some("29/02/2024"),
            None,
            Some("01/01/1970"),
            Some("31/12/1969"),
        ])
        .select([
            to_date_as("%d/%m/%Y", true).alias("d/m/Y"),
            to_date_as("%d/%m/%Y", false).alias("lenient"),
        ]),
    );
    assert_gpu_eq(
        "dates without separators",
        dates(&[Some("20240229"), Some("19691231")]).select([to_date_as("%Y%m%d", true)]),
    );
    assert_cpu_answer_with_reason(
        dates(&[Some("5/1/2021"), Some("05/01/2021")]).select([to_date_as("%d/%m/%Y", false)]),
        "not of the form DD/MM/YYYY",
    );
    assert_cpu_answer_with_reason(
        dates(&[Some("05 Jan 2021")]).select([to_date_as("%d %b %Y", true)]),
        "parsing text as",
    );
    // Without a format Polars infers one from the first text: `%Y-%m-%d`
    // for texts of that form, which the device parses; any other text
    // leaves the column to Polars' inference.
    let inferred = || col("s").str().to_date(StrptimeOptions::default());
    assert_gpu_eq(
        "dates of an inferred format",
        dates(&canonical).select([inferred()]),
    );
    assert_gpu_eq(
        "no dates to infer a format from",
        dates(&[None, None]).select([inferred()]),
    );
    for texts in [
        &[Some("2021-01-05"), Some("2021/01/06")][..],
        &[Some("05.01.2021"), Some("06.01.2021")],
    ] {
        assert_cpu_answer_with_reason(
            dates(texts).select([inferred()]),
            "not of the form YYYY-MM-DD",
        );
    }
    // Timestamps of the form YYYY-MM-DD HH:MM:SS, in each unit.
    let to_datetime = |unit: Option<TimeUnit>, strict| {
        col("s").str().to_datetime(
            unit,
            None,
            format("%Y-%m-%d %H:%M:%S", strict),
            lit("raise"),
        )
    };
    let stamps = [
        Some("2024-02-29 23:59:59"),
        None,
        Some("1970-01-01 00:00:00"),
        Some("1969-12-31 23:59:59"),
        Some("2262-04-11 23:47:16"),
        Some("0001-01-01 00:00:01"),
    ];
    assert_gpu_eq(
        "timestamps parsed on the device",
        dates(&stamps).select([
            to_datetime(None, true).alias("us"),
            to_datetime(Some(TimeUnit::Milliseconds), true).alias("ms"),
            to_datetime(Some(TimeUnit::Milliseconds), false).alias("lenient ms"),
            to_datetime(None, true).dt().hour().alias("hour"),
        ]),
    );
    let to_datetime_as = |f: &str| {
        col("s")
            .str()
            .to_datetime(None, None, format(f, true), lit("raise"))
    };
    assert_gpu_eq(
        "timestamps in other formats",
        dates(&[
            Some("2024-02-29T23:59:59"),
            None,
            Some("1969-12-31T00:00:01"),
        ])
        .select([
            to_datetime_as("%FT%T").alias("F T"),
            col("s")
                .str()
                .slice(lit(0), lit(16))
                .str()
                .to_datetime(None, None, format("%Y-%m-%dT%H:%M", true), lit("raise"))
                .alias("no seconds"),
            // A date alone: midnight, as Polars' parser gives it.
            col("s")
                .str()
                .slice(lit(0), lit(10))
                .str()
                .to_datetime(None, None, format("%Y-%m-%d", true), lit("raise"))
                .alias("no time"),
        ]),
    );
    let inferred_stamps = |unit| {
        col("s")
            .str()
            .to_datetime(unit, None, StrptimeOptions::default(), lit("raise"))
    };
    assert_gpu_eq(
        "timestamps of an inferred format",
        dates(&stamps).select([
            inferred_stamps(None).alias("us"),
            inferred_stamps(Some(TimeUnit::Milliseconds)).alias("ms"),
        ]),
    );
    // Of the form YYYY-MM-DDTHH:MM:SS too, even beside the other form, and
    // with fractions of the second (truncated to the unit): Polars infers
    // its patterns of Y-M-D dates and times, which read each such form.
    assert_gpu_eq(
        "timestamps of an inferred format with a T",
        dates(&[
            Some("2021-01-05T01:02:03"),
            None,
            Some("2021-01-05 01:02:03"),
            Some("1969-12-31T23:59:59.999999999"),
            Some("1969-12-31 23:59:59.5"),
            Some("2021-01-05T01:02:03.123456789"),
            Some("2021-01-05 01:02:03.000001"),
        ])
        .select([
            inferred_stamps(None).alias("us"),
            inferred_stamps(Some(TimeUnit::Nanoseconds)).alias("ns"),
        ]),
    );
    for texts in [
        &[Some("2021-01-05T01:02")][..],
        &[Some("2021-01-05 1:02:03")],
        &[Some("05/01/2021 01:02:03")],
    ] {
        assert_cpu_answer_with_reason(
            dates(texts).select([inferred_stamps(None)]),
            "not of the form YYYY-MM-DD[ T]HH:MM:SS",
        );
    }
    // (More than nine digits of a fraction: after a text of the other form,
    // Polars' pattern of that form fails and its regular expression does
    // not take the text, a null, and so its error here.)
    assert_cpu_error(
        dates(&[
            Some("2021-01-05T01:02:03"),
            Some("2021-01-05 01:02:03.1234567891"),
        ])
        .select([inferred_stamps(None)]),
    );
    assert_gpu_eq(
        "nanosecond timestamps parsed on the device",
        dates(&stamps[..4]).select([to_datetime(Some(TimeUnit::Nanoseconds), true)]),
    );
    for texts in [
        &[Some("2021-01-05 1:02:03")][..],
        &[Some("2021-01-05 23:59:60")],
    ] {
        assert_cpu_answer_with_reason(
            dates(texts).select([to_datetime(None, false)]),
            "not of the form YYYY-MM-DD HH:MM:SS",
        );
    }
    assert_gpu_eq(
        "timestamps no parser reads are null",
        dates(&[
            Some("2021-01-05T01:02:03"),
            Some("2021-01-05 24:00:00"),
            Some("2021-01-05 23:60:00"),
            Some("2021-01-05 23:59:61"),
            Some("2021-01-05 23:59:59"),
            Some("tomorrow"),
        ])
        .select([to_datetime(None, false)]),
    );
    // (Past i64 nanoseconds the device leaves the texts to Polars too, as
    // the kernel tests check; Polars' debug build panics on them.)
}

/// Texts cast to timestamps as Polars casts them (chrono's parse in RFC
/// 3339's format, keeping the date and time however the rest parses):
/// texts of the form YYYY-MM-DDTHH:MM:SS, with a fraction of the second or
/// not, on the device, in each unit and mode; any other text (a space
/// before the time, an offset, more after it) left to Polars, which may
/// still read it.
#[test]
fn texts_cast_to_timestamps_parse_on_the_device() {
    let frame = |texts: &[Option<&str>]| df!("s" => texts.to_vec()).unwrap().lazy();
    let iso = [
        Some("2024-02-29T23:59:59"),
        None,
        Some("1969-12-31T00:00:01"),
        Some("1900-01-01T00:00:00"),
        Some("2024-02-29T23:59:59.5"),
        Some("1969-12-31T23:59:59.000000001"),
    ];
    let cast = |unit| col("s").cast(DataType::Datetime(unit, None));
    assert_gpu_eq(
        "texts cast to timestamps",
        frame(&iso).select([
            cast(TimeUnit::Milliseconds).alias("ms"),
            cast(TimeUnit::Microseconds).alias("us"),
            col("s")
                .strict_cast(DataType::Datetime(TimeUnit::Nanoseconds, None))
                .alias("ns"),
        ]),
    );
    for text in [
        "2024-02-29 23:59:59",
        "2024-02-29T23:59:59Z",
        "2024-02-29T23:59:59.",
        "2024-02-29T23:59:59 and more",
        "2024-02-30T00:00:00",
        "noon",
    ] {
        assert_cpu_answer_with_reason(
            frame(&[Some(text)]).select([cast(TimeUnit::Microseconds)]),
            "not of the form YYYY-MM-DDTHH:MM:SS",
        );
    }
}

/// Formats with chrono's `%.f` after the seconds (none, or a `.` and 1 to
/// 9 digits, truncated to the unit): timestamps and times of day on the
/// device, strict and not; a `.` without digits left to Polars; other
/// fractions (`%.3f`) fall back.
#[test]
fn fractions_of_seconds_parse_on_the_device() {
    let frame = |texts: &[Option<&str>]| df!("s" => texts.to_vec()).unwrap().lazy();
    let options = |format: &str, strict| StrptimeOptions {
        format: Some(format.into()),
        strict,
        ..Default::default()
    };
    let stamps = |unit, strict| {
        col("s").str().to_datetime(
            Some(unit),
            None,
            options("%Y-%m-%d %H:%M:%S%.f", strict),
            lit("raise"),
        )
    };
    let texts = [
        Some("2024-01-05 10:00:00.123"),
        Some("2024-01-05 10:00:00"),
        None,
        Some("1969-12-31 23:59:59.9999999"),
        Some("2024-01-05 10:00:00.000001"),
    ];
    assert_gpu_eq(
        "timestamps with fractions",
        frame(&texts).select([
            stamps(TimeUnit::Milliseconds, true).alias("ms"),
            stamps(TimeUnit::Microseconds, false).alias("us"),
            stamps(TimeUnit::Nanoseconds, true).alias("ns"),
        ]),
    );
    assert_gpu_eq(
        "times of day with fractions",
        frame(&[Some("10:00:00.5"), Some("23:59:59"), Some("noon")])
            .select([col("s").str().to_time(options("%H:%M:%S%.f", false))]),
    );
    assert_cpu_answer_with_reason(
        frame(&[Some("2024-01-05 10:00:00.")]).select([stamps(TimeUnit::Microseconds, false)]),
        "not of the form YYYY-MM-DD HH:MM:SS[.f]",
    );
    assert_cpu_answer_with_reason(
        frame(&texts[..1]).select([col("s").str().to_datetime(
            None,
            None,
            options("%Y-%m-%d %H:%M:%S%.3f", false),
            lit("raise"),
        )]),
        "parsing text as",
    );
}
