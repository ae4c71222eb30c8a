//! Local times in time zones: a zone's UTC offsets as a table of spans (from Polars' zone database, chrono-tz), added to instants on the device.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Offset, TimeZone};
use chrono_tz::Tz;
use gpu_runtime::ops::{Ambiguous, ZoneTable};
use ir_lower::{AmbiguousTime, TimeUnit, Zone};

use super::*;

/// The instants (seconds since the epoch) the tables hold for:
/// 1800-01-01 to 2200-01-01 UTC. An instant outside leaves the query to
/// Polars.
const COVERED: (i64, i64) = (-5_364_662_400, 7_258_118_400);

/// Seconds between the samples of a zone's offset; each change between two
/// samples is found to the second (offsets change on whole seconds).
const STEP: i64 = 6 * 3600;

/// The UTC offset (seconds) of `zone` at `second`.
fn offset_at(zone: &Tz, second: i64) -> i64 {
    let utc = DateTime::from_timestamp(second, 0)
        .map(|at| at.naive_utc())
        .unwrap_or_default();
    i64::from(zone.offset_from_utc_datetime(&utc).fix().local_minus_utc())
}

/// `zone`'s spans in seconds (start, offset), the first from the least
/// instant, sampled over [`COVERED`] every [`STEP`].
fn spans_in_seconds(zone: &Tz) -> Vec<(i64, i64)> {
    let mut offset = offset_at(zone, COVERED.0);
    let mut spans = vec![(i64::MIN, offset)];
    let mut at = COVERED.0;
    while at < COVERED.1 {
        let next = (at + STEP).min(COVERED.1);
        if offset_at(zone, next) == offset {
            at = next;
            continue;
        }
        // The first second after `at` of another offset.
        let (mut same, mut other) = (at, next);
        while other - same > 1 {
            let middle = same + (other - same) / 2;
            if offset_at(zone, middle) == offset {
                same = middle;
            } else {
                other = middle;
            }
        }
        offset = offset_at(zone, other);
        spans.push((other, offset));
        at = other;
    }
    spans
}

/// A zone's spans in seconds: (start, offset).
type Spans = Arc<Vec<(i64, i64)>>;

/// Spans of the zones met so far, by name: a zone is sampled once a process.
fn spans_of(zone: &Tz) -> Spans {
    static SPANS: Mutex<Option<HashMap<String, Spans>>> = Mutex::new(None);
    let mut known = SPANS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    known
        .get_or_insert_with(HashMap::new)
        .entry(zone.name().to_string())
        .or_insert_with(|| Arc::new(spans_in_seconds(zone)))
        .clone()
}

/// `zone`'s table of offsets in `unit`.
pub(crate) fn zone_table(zone: Zone, unit: TimeUnit) -> Result<ZoneTable, ExecError> {
    let tz = zone
        .to_polars()
        .to_chrono()
        .map_err(|e| ExecError::DependsOnPolars(format!("the time zone {zone}: {e}")))?;
    let per_second = match unit {
        TimeUnit::Milliseconds => 1_000,
        TimeUnit::Microseconds => 1_000_000,
        TimeUnit::Nanoseconds => 1_000_000_000,
    };
    let spans = spans_of(&tz);
    let in_unit = |second: i64| {
        if second == i64::MIN {
            i64::MIN
        } else {
            second * per_second
        }
    };
    Ok(ZoneTable {
        starts: spans.iter().map(|&(start, _)| in_unit(start)).collect(),
        offsets: spans
            .iter()
            .map(|&(_, offset)| offset * per_second)
            .collect(),
        low: COVERED.0 * per_second,
        high: COVERED.1 * per_second,
    })
}

/// Whether [`Executor::local_times`] or [`Executor::localized`] computes
/// `expr`: a local time of an instant, or the instant of a local time, of
/// a timestamp the executor evaluates.
pub(crate) fn zone_part_supported(expr: &GpuExpr) -> bool {
    matches!(&expr.kind,
        ExprKind::LocalTime { input, .. } | ExprKind::Localized { input, .. }
        if matches!(input.dtype, GpuDtype::Datetime(_)) && evaluable(input).is_ok())
}

impl Executor<'_> {
    /// The local times in `zone` of the instants `input` (plain timestamps
    /// in UTC) over `frame`: each plus the zone's offset then. An instant
    /// outside the years the table holds for leaves the query to Polars.
    pub(crate) fn local_times(
        &self,
        frame: &DeviceFrame,
        (input, zone): (&GpuExpr, Zone),
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let GpuDtype::Datetime(unit) = input.dtype else {
            return Err(ExecError::Unsupported(format!(
                "local times of `{input}` ({})",
                input.dtype
            )));
        };
        let table = zone_table(zone, unit)?;
        let (values, validity) = self
            .evaluate_in_groups(frame, input, "", groups)?
            .into_parts();
        let Values::I64(instants) = values else {
            return Err(ExecError::Unsupported(format!("`{input}` as i64")));
        };
        let (local, outside) = self
            .ops()
            .zone_local_times(&instants, validity.as_ref(), &table)?;
        self.check_later(
            outside,
            format!(
                "local times in {zone} of instants before 1800 or from 2200 on, where the GPU's \
                 table of the zone's offsets does not reach"
            ),
            ExecError::DependsOnPolars,
        );
        Ok(DeviceColumn::from_parts(
            "".into(),
            GpuDtype::Datetime(unit),
            frame.height,
            Values::I64(local),
            validity,
        ))
    }

    /// The instants in a zone whose local times there are the plain
    /// timestamps of `part`'s input ([`ExprKind::Localized`]) over `frame`.
    /// A local time the clocks skip or pass twice, where that raises,
    /// leaves the query to Polars, which raises its error (or, for a
    /// truncation's, resolves it its own way).
    pub(crate) fn localized(
        &self,
        frame: &DeviceFrame,
        part: &GpuExpr,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let (
            ExprKind::Localized {
                input,
                zone,
                ambiguous,
                non_existent_raises,
                resolved_by_polars,
            },
            GpuDtype::ZonedDatetime(unit, _),
        ) = (&part.kind, part.dtype)
        else {
            return Err(ExecError::Unsupported(format!("`{part}` as instants")));
        };
        let table = zone_table(*zone, unit)?;
        let (values, validity) = self
            .evaluate_in_groups(frame, input, "", groups)?
            .into_parts();
        let Values::I64(locals) = values else {
            return Err(ExecError::Unsupported(format!("`{input}` as i64")));
        };
        let ambiguous = match ambiguous {
            AmbiguousTime::Raise => Ambiguous::Raise,
            AmbiguousTime::Earliest => Ambiguous::Earliest,
            AmbiguousTime::Latest => Ambiguous::Latest,
            AmbiguousTime::Null => Ambiguous::Null,
        };
        let out = self.ops().zone_instants(
            &locals,
            validity.as_ref(),
            &table,
            ambiguous,
            *non_existent_raises,
        )?;
        self.check_later(
            out.outside,
            format!(
                "instants of local times in {zone} before 1800 or from 2200 on, where the \
                 GPU's table of the zone's offsets does not reach"
            ),
            ExecError::DependsOnPolars,
        );
        let failure: fn(String) -> ExecError = match resolved_by_polars {
            true => ExecError::DependsOnPolars,
            false => ExecError::InvalidData,
        };
        let resolved = match resolved_by_polars {
            true => {
                " (a truncation's, which Polars resolves by the original instant's offset, or \
                 raises on)"
            }
            false => "",
        };
        self.check_later(
            out.failed,
            format!(
                "a local time the clocks in {zone} skip or pass twice, made an instant \
                 there{resolved}"
            ),
            failure,
        );
        Ok(DeviceColumn::from_parts(
            "".into(),
            part.dtype,
            frame.height,
            Values::I64(out.instants),
            Some(out.validity),
        ))
    }
}
