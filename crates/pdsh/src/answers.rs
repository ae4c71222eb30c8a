//! The reference answers tpchgen ships for scale factor 1, and a comparison of a result with them.

use chrono::{Days, NaiveDate};
use polars::prelude::*;
use tpchgen::q_and_a::answers_sf1;

/// The answer of query `number` at scale factor 1: the header and the rows,
/// each cell trimmed. `None` for a query number outside 1 to 22.
pub fn answer_sf1(number: usize) -> Option<(Vec<String>, Vec<Vec<String>>)> {
    let text = answers_sf1::answer(i32::try_from(number).ok()?)?;
    let mut lines = text.lines().filter(|line| !line.trim().is_empty());
    let split = |line: &str| -> Vec<String> {
        line.split('|').map(|cell| cell.trim().to_owned()).collect()
    };
    let header = split(lines.next()?);
    Some((header, lines.map(split).collect()))
}

/// A known flaw of a reference answer file, and the check that replaces the plain one.
#[derive(Debug, Clone, Copy)]
pub struct ReferenceFlaw {
    pub query: usize,
    pub column: &'static str,
    pub fix: FlawFix,
    pub why: &'static str,
}

/// How a flawed column is compared instead.
#[derive(Debug, Clone, Copy)]
pub enum FlawFix {
    /// The file keeps only the first digits of each value: ours must start with them.
    TruncatedDigits,
    /// The file's value is wrong; this is the right one.
    Corrected(&'static str),
}

/// The flaws of tpchgen's scale factor 1 answers (copied from TPC's `dbgen`
/// answer set), each checked in the way its `fix` says.
pub const REFERENCE_FLAWS: &[ReferenceFlaw] = &[
    ReferenceFlaw {
        query: 11,
        column: "ps_partkey",
        fix: FlawFix::TruncatedDigits,
        why: "the file keeps the first four characters of each key (1297 for 129760)",
    },
    ReferenceFlaw {
        query: 17,
        column: "avg_yearly",
        fix: FlawFix::Corrected("348406.05"),
        why: "the file says 348406.02; the exact value is 348406.0542857..., which other \
              TPC-H suites check as 348406.05",
    },
];

/// Compares `result` of query `number` at scale factor 1 with the reference
/// answer: column names (the file cuts names at 10 characters), row count and
/// order, and every cell. Numbers match within the answers' rounding to
/// cents; text (trimmed, as the file pads it) and dates exactly; the columns
/// of [`REFERENCE_FLAWS`] as their fix says. The error names the first
/// difference.
pub fn check_sf1(number: usize, result: &DataFrame) -> Result<(), String> {
    let (header, rows) =
        answer_sf1(number).ok_or_else(|| format!("no reference answer for query {number}"))?;
    let names: Vec<String> = result
        .get_column_names()
        .iter()
        .map(|n| n.to_string())
        .collect();
    let same_name = |name: &String, expected: &String| {
        name == expected || (expected.len() == 10 && name.starts_with(expected.as_str()))
    };
    if names.len() != header.len() || !names.iter().zip(&header).all(|(n, e)| same_name(n, e)) {
        return Err(format!("q{number}: columns {names:?}, expected {header:?}"));
    }
    if result.height() != rows.len() {
        return Err(format!(
            "q{number}: {} rows, expected {}",
            result.height(),
            rows.len()
        ));
    }
    for (column_idx, column) in result.columns().iter().enumerate() {
        let flaw = REFERENCE_FLAWS
            .iter()
            .find(|f| f.query == number && f.column == column.name().as_str());
        for (row_idx, row) in rows.iter().enumerate() {
            let expected = row.get(column_idx).map(String::as_str).unwrap_or_default();
            let actual = column
                .get(row_idx)
                .map_err(|e| format!("q{number}: cannot read row {row_idx}: {e}"))?;
            let matches = match flaw.map(|f| f.fix) {
                None => cell_matches(&actual, expected),
                Some(FlawFix::Corrected(right)) => cell_matches(&actual, right),
                Some(FlawFix::TruncatedDigits) => actual
                    .extract::<i64>()
                    .is_some_and(|value| value.to_string().starts_with(expected)),
            };
            if !matches {
                return Err(format!(
                    "q{number}: row {row_idx}, column {:?}: {actual} where the answer has {expected}",
                    column.name()
                ));
            }
        }
    }
    Ok(())
}

fn cell_matches(actual: &AnyValue<'_>, expected: &str) -> bool {
    match actual {
        AnyValue::String(text) => text.trim() == expected,
        AnyValue::StringOwned(text) => text.as_str().trim() == expected,
        AnyValue::Date(days) => {
            let date = u64::try_from(*days)
                .ok()
                .and_then(|days| NaiveDate::default().checked_add_days(Days::new(days)));
            date.is_some_and(|date| date.format("%Y-%m-%d").to_string() == expected)
        }
        AnyValue::Null => expected.is_empty() || expected == "NULL",
        number => match (number.extract::<f64>(), expected.parse::<f64>()) {
            // The answers are rounded to cents; sums of millions of doubles
            // carry a little rounding error of their own.
            (Some(a), Ok(e)) => (a - e).abs() <= 0.005 + 1e-9 * e.abs(),
            _ => false,
        },
    }
}
