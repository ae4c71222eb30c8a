//! The fuzzer's grammar of dates, timestamps (zoned too), durations and times of day: their productions and units.

use polars::prelude::*;
use rand::RngExt;
use rand::seq::IndexedRandom;

use super::expr::{E, Op, Part};
use super::grammar::{Grammar, Ty};

/// Durations of truncation and rounding.
const EVERY: &[&str] = &["1d", "2h", "1mo", "1y", "1w", "15m", "3d", "1q", "2w"];

impl Grammar<'_> {
    /// The zone of the schema's first zoned timestamps, in their unit (a
    /// random unit in UTC where there are none): the type of zoned values
    /// drawn, so that they compare.
    pub(super) fn zoned_type(&mut self) -> DataType {
        let zoned = self.schema.iter().find_map(|(_, dtype)| match dtype {
            DataType::Datetime(unit, Some(zone)) => Some((*unit, zone.clone())),
            _ => None,
        });
        match zoned {
            Some((unit, zone)) => DataType::Datetime(unit, Some(zone)),
            None => DataType::Datetime(self.unit(), Some(super::table::time_zone("UTC"))),
        }
    }

    /// The name of the zone of [`Self::zoned_type`].
    pub(super) fn zone(&mut self) -> String {
        match self.zoned_type() {
            DataType::Datetime(_, Some(zone)) => zone.to_string(),
            _ => "UTC".into(),
        }
    }

    pub(super) fn unit(&mut self) -> TimeUnit {
        *[
            TimeUnit::Milliseconds,
            TimeUnit::Microseconds,
            TimeUnit::Nanoseconds,
        ]
        .choose(self.rng)
        .unwrap()
    }

    /// A value of `ty` truncated (or rounded, two times in five) by one
    /// of [`EVERY`].
    fn truncated_or_rounded(&mut self, ty: Ty, d: u32) -> E {
        let every = (*EVERY.choose(self.rng).unwrap()).into();
        let op = if self.chance(0.6) {
            Op::Truncate(every)
        } else {
            Op::RoundTime(every)
        };
        E::new(op, vec![self.value(ty, d)])
    }

    pub(super) fn temporal(&mut self, ty: Ty, d: u32) -> E {
        match (ty, self.rng.random_range(0..10)) {
            (Ty::Date | Ty::Datetime, 0 | 1) => {
                let op = if self.chance(0.6) { Op::Add } else { Op::Sub };
                E::new(op, vec![self.value(ty, d), self.value(Ty::Duration, d)])
            }
            // The first or last day of the month (a timestamp's time kept),
            // an offset by a duration (of months now and then).
            (Ty::Date | Ty::Datetime, 2) if self.chance(0.3) => {
                let op = match self.rng.random_range(0..3) {
                    0 => Op::MonthStart,
                    1 => Op::MonthEnd,
                    _ => Op::OffsetBy(
                        (*[
                            "1d", "-2h", "3w", "90m", "-1d12h", "1mo", "1ns", "-7us", "-1mo",
                            "13mo", "1y", "-1q", "1mo2d", "-2y3mo1h",
                        ]
                        .choose(self.rng)
                        .unwrap())
                        .into(),
                    ),
                };
                E::new(op, vec![self.value(ty, d)])
            }
            (Ty::Date | Ty::Datetime, 2) => self.truncated_or_rounded(ty, d),
            (Ty::Date, 3) => {
                let f = self.chance(0.6).then(|| {
                    (*["%Y-%m-%d", "%d.%m.%Y", "%Y%m%d"].choose(self.rng).unwrap()).into()
                });
                E::new(Op::ToDate(f), vec![self.value(Ty::Str, d)])
            }
            (Ty::Date, 4) => E::new(Op::Part(Part::Date), vec![self.value(Ty::Datetime, d)]),
            (Ty::Datetime, 3) => {
                let formats = [
                    "%Y-%m-%d %H:%M:%S",
                    "%Y-%m-%dT%H:%M:%S",
                    "%Y-%m-%d %H:%M:%S%.f",
                    "%Y-%m-%d %H:%M",
                    "%Y-%m-%d",
                ];
                let f = self
                    .chance(0.7)
                    .then(|| (*formats.choose(self.rng).unwrap()).into());
                let unit = self.unit();
                E::new(Op::ToDatetime(f, unit), vec![self.value(Ty::Str, d)])
            }
            (Ty::Datetime | Ty::Duration, 4) => {
                let unit = self.unit();
                E::new(Op::CastTimeUnit(unit), vec![self.value(ty, d)])
            }
            (Ty::Duration, 0 | 1) => {
                let from = *[Ty::Date, Ty::Datetime].choose(self.rng).unwrap();
                E::new(Op::Sub, vec![self.value(from, d), self.value(from, d)])
            }
            (Ty::Duration, 2) => {
                let op = if self.chance(0.5) { Op::Add } else { Op::Sub };
                E::new(op, vec![self.value(ty, d), self.value(ty, d)])
            }
            (Ty::Duration, 3) if self.chance(0.5) => E::new(
                Op::Sub,
                vec![self.value(Ty::Time, d), self.value(Ty::Time, d)],
            ),
            // Made of one or two integer parts.
            (Ty::Duration, 3) => {
                let n = self.rng.random_range(1..=2);
                let mut at: Vec<usize> = (0..n).map(|_| self.rng.random_range(0..8)).collect();
                at.dedup();
                let parts = at.iter().map(|_| self.value(Ty::Int, d)).collect();
                E::new(Op::DurationOf(self.unit(), at), parts)
            }
            // Made of a year, a month and a day.
            (Ty::Datetime, 5) if self.chance(0.3) => {
                let parts = (0..3).map(|_| self.value(Ty::Int, d)).collect();
                E::new(Op::DatetimeOf(self.unit()), parts)
            }
            (Ty::Datetime, 5) => {
                let from = *[Ty::Date, Ty::Datetime].choose(self.rng).unwrap();
                let unit = self.unit();
                E::new(
                    Op::Combine(unit),
                    vec![self.value(from, d), self.value(Ty::Time, d)],
                )
            }
            (Ty::Time, 0..=2) => E::new(Op::Part(Part::Time), vec![self.value(Ty::Datetime, d)]),
            (Ty::Time, 3) if self.chance(0.5) => {
                E::new(Op::Part(Part::Time), vec![self.value(Ty::Zoned, d)])
            }
            // Integers as nanoseconds of the day (null outside it, for
            // Polars; a strict cast of a u64 past i64 raises).
            (Ty::Time, 3) => {
                let strict = self.chance(0.3);
                E::new(
                    Op::Cast(DataType::Time, strict),
                    vec![self.value(Ty::Int, d)],
                )
            }
            // Texts parsed as times of day, by a format or inferred.
            (Ty::Time, 4) => {
                let f = self
                    .chance(0.7)
                    .then(|| (*["%H:%M:%S", "%H:%M", "%T"].choose(self.rng).unwrap()).into());
                E::new(Op::ToTime(f), vec![self.value(Ty::Str, d)])
            }
            (Ty::Date, 5) => E::new(Op::Part(Part::Date), vec![self.value(Ty::Zoned, d)]),
            (Ty::Duration, 5) => E::new(
                Op::Sub,
                vec![self.value(Ty::Zoned, d), self.value(Ty::Zoned, d)],
            ),
            (Ty::Datetime, 6) => E::new(Op::ReplaceTimeZone(None), vec![self.value(Ty::Zoned, d)]),
            (Ty::Zoned, 0 | 1) => {
                let op = if self.chance(0.6) { Op::Add } else { Op::Sub };
                E::new(op, vec![self.value(ty, d), self.value(Ty::Duration, d)])
            }
            (Ty::Zoned, 2) => {
                let zone = self.zone();
                E::new(Op::ConvertTimeZone(zone), vec![self.value(ty, d)])
            }
            (Ty::Zoned, 3) if self.chance(0.5) => {
                let zone = self.zone();
                E::new(
                    Op::ReplaceTimeZone(Some(zone)),
                    vec![self.value(Ty::Datetime, d)],
                )
            }
            (Ty::Zoned, 3) => {
                // Wall-clock times (of no zone, or another's) made instants.
                let zone = self.zone();
                let ambiguous = ["raise", "earliest", "latest", "null"]
                    .choose(self.rng)
                    .unwrap();
                let from = if self.chance(0.7) {
                    Ty::Datetime
                } else {
                    Ty::Zoned
                };
                E::new(
                    Op::Localize(zone, ambiguous.to_string(), self.chance(0.7)),
                    vec![self.value(from, d)],
                )
            }
            (Ty::Zoned, 4) if self.chance(0.5) => {
                let unit = self.unit();
                E::new(Op::CastTimeUnit(unit), vec![self.value(ty, d)])
            }
            // Truncated (or rounded) as their local times, made instants
            // again.
            (Ty::Zoned, 4) => self.truncated_or_rounded(ty, d),
            _ => self.leaf(ty),
        }
    }
}
