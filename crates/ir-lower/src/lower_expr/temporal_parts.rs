//! Durations and datetimes made of parts (`duration(days = ..)`, `datetime(year, month, day, ..)`): the ticks of each part added as Polars adds them, in the node's unit.

use super::*;
use crate::dtype::TimeUnit;

impl ExprLowering<'_> {
    /// Polars' `duration(weeks, days, hours, minutes, seconds,
    /// milliseconds, microseconds, nanoseconds)` in `unit`, of integer
    /// parts (Polars' plan casts them to i64): the ticks of each part
    /// added, wrapping, as Polars adds them (the parts finer than `unit`
    /// divided toward zero, the coarser multiplied), as a duration; a null
    /// part makes the duration null. Parts of floats fall back.
    pub(super) fn duration(&mut self, node: Node, inputs: &[ExprIR], unit: TimeUnit) -> Lowered {
        let parts = self.inputs(inputs)?;
        if parts.len() != 8 || parts.iter().any(|part| part.dtype != GpuDtype::Int64) {
            return self.refuse(node, "duration of parts that are not integers");
        }
        let dtype = self.dtype(node)?;
        let int = |v: i64| GpuExpr::literal(Scalar::Int(v), GpuDtype::Int64);
        let per_second = unit.per_day() / 86_400;
        // Each part's ticks of `unit` (weeks to nanoseconds).
        let ticks = [
            per_second * 604_800,
            per_second * 86_400,
            per_second * 3_600,
            per_second * 60,
            per_second,
        ];
        let fine = [1_000i64, 1_000_000, 1_000_000_000];
        let mut sum: Option<GpuExpr> = None;
        for (i, part) in parts.into_iter().enumerate() {
            let part = match i {
                0..5 => part.binary(BinaryOp::Multiply, int(ticks[i]), GpuDtype::Int64),
                // Milliseconds to nanoseconds: a multiple of the unit's
                // ticks, or so many ticks of a finer part in one.
                _ if per_second >= fine[i - 5] => part.binary(
                    BinaryOp::Multiply,
                    int(per_second / fine[i - 5]),
                    GpuDtype::Int64,
                ),
                _ => super::row_order::toward_zero(part, int(fine[i - 5] / per_second)),
            };
            sum = Some(match sum {
                None => part,
                Some(sum) => sum.binary(BinaryOp::Plus, part, GpuDtype::Int64),
            });
        }
        Some(reinterpreted(sum?, dtype))
    }

    /// Polars' `datetime(year, month, day, hour, minute, second,
    /// microsecond)` without a time zone, of numbers: each part cast as
    /// Polars casts it (the year and the microseconds to i32, the others to
    /// i8, not strictly: a part that does not fit is null, and so is the
    /// datetime), then the days of the civil date (proleptic Gregorian, as
    /// chrono counts them) and the time of day in `unit`. A row whose
    /// parts make no date or time (a 13th month, the 30th of February, an
    /// hour of 24, a second's worth of microseconds; a year beyond chrono's,
    /// or, in nanoseconds, beyond an i64's) sends the query to Polars,
    /// which raises (or reads a leap second).
    pub(super) fn datetime_of_parts(
        &mut self,
        node: Node,
        inputs: &[ExprIR],
        unit: TimeUnit,
    ) -> Lowered {
        let parts = self.inputs(inputs.get(..7)?)?;
        if parts
            .iter()
            .any(|p| !(p.dtype.is_integer() || p.dtype.is_float()))
        {
            return self.refuse(node, "datetime made of parts that are not numbers");
        }
        let dtype = self.dtype(node)?;
        let (int64, boolean) = (GpuDtype::Int64, GpuDtype::Boolean);
        let int = |v: i64| GpuExpr::literal(Scalar::Int(v), int64);
        let mut parts = parts.into_iter().enumerate().map(|(i, part)| {
            let narrow = match i {
                0 | 6 => GpuDtype::Int32,
                _ => GpuDtype::Int8,
            };
            part.cast(narrow, CastMode::NonStrict)
                .cast(int64, CastMode::NonStrict)
        });
        let mut next = || parts.next().expect("seven parts");
        let (year, month, day) = (next(), next(), next());
        let (hour, minute, second, micros) = (next(), next(), next(), next());
        let op = |a: GpuExpr, op: BinaryOp, b: GpuExpr| {
            let dtype = if matches!(
                op,
                BinaryOp::Eq
                    | BinaryOp::NotEq
                    | BinaryOp::LtEq
                    | BinaryOp::GtEq
                    | BinaryOp::And
                    | BinaryOp::Or
            ) {
                boolean
            } else {
                int64
            };
            a.binary(op, b, dtype)
        };
        let within = |x: &GpuExpr, low: GpuExpr, high: GpuExpr| {
            op(
                op(x.clone(), BinaryOp::GtEq, low),
                BinaryOp::And,
                op(x.clone(), BinaryOp::LtEq, high),
            )
        };
        let divisible = |by: i64| {
            op(
                op(year.clone(), BinaryOp::Modulus, int(by)),
                BinaryOp::Eq,
                int(0),
            )
        };
        let leap = op(
            op(
                divisible(4),
                BinaryOp::And,
                op(
                    op(year.clone(), BinaryOp::Modulus, int(100)),
                    BinaryOp::NotEq,
                    int(0),
                ),
            ),
            BinaryOp::Or,
            divisible(400),
        );
        let is = |m: i64| op(month.clone(), BinaryOp::Eq, int(m));
        let short = op(
            op(is(4), BinaryOp::Or, is(6)),
            BinaryOp::Or,
            op(is(9), BinaryOp::Or, is(11)),
        );
        let last_day = is(2).then(
            leap.then(int(29), int(28), int64),
            short.then(int(30), int(31), int64),
            int64,
        );
        let years = match unit {
            TimeUnit::Nanoseconds => (1678, 2261),
            _ => (-262_143, 262_142),
        };
        let valid = [
            within(&year, int(years.0), int(years.1)),
            within(&month, int(1), int(12)),
            within(&day, int(1), last_day),
            within(&hour, int(0), int(23)),
            within(&minute, int(0), int(59)),
            within(&second, int(0), int(59)),
            within(&micros, int(0), int(999_999)),
        ]
        .into_iter()
        .reduce(|all, next| op(all, BinaryOp::And, next))
        .expect("seven checks");
        // Days from 1970-01-01 (Howard Hinnant's days_from_civil).
        let early = op(month.clone(), BinaryOp::LtEq, int(2)).cast(int64, CastMode::NonStrict);
        let y = op(year, BinaryOp::Minus, early);
        let era = op(y.clone(), BinaryOp::FloorDivide, int(400));
        let of_era = op(
            y,
            BinaryOp::Minus,
            op(era.clone(), BinaryOp::Multiply, int(400)),
        );
        let shifted = op(
            op(month, BinaryOp::Plus, int(9)),
            BinaryOp::Modulus,
            int(12),
        );
        let of_year = op(
            op(
                op(
                    op(shifted, BinaryOp::Multiply, int(153)),
                    BinaryOp::Plus,
                    int(2),
                ),
                BinaryOp::FloorDivide,
                int(5),
            ),
            BinaryOp::Plus,
            op(day, BinaryOp::Minus, int(1)),
        );
        let of_era_days = [
            op(of_era.clone(), BinaryOp::Multiply, int(365)),
            op(of_era.clone(), BinaryOp::FloorDivide, int(4)),
            op(
                int(0),
                BinaryOp::Minus,
                op(of_era, BinaryOp::FloorDivide, int(100)),
            ),
            of_year,
        ]
        .into_iter()
        .reduce(|sum, next| op(sum, BinaryOp::Plus, next))
        .expect("four terms");
        let days = op(
            op(
                op(era, BinaryOp::Multiply, int(146_097)),
                BinaryOp::Plus,
                of_era_days,
            ),
            BinaryOp::Minus,
            int(719_468),
        );
        let per_second = unit.per_day() / 86_400;
        let seconds = op(
            op(
                op(hour, BinaryOp::Multiply, int(60)),
                BinaryOp::Plus,
                minute,
            ),
            BinaryOp::Multiply,
            int(60),
        );
        let seconds = op(seconds, BinaryOp::Plus, second);
        let fraction = match unit {
            TimeUnit::Milliseconds => op(micros, BinaryOp::FloorDivide, int(1_000)),
            TimeUnit::Microseconds => micros,
            TimeUnit::Nanoseconds => op(micros, BinaryOp::Multiply, int(1_000)),
        };
        let ticks = [
            op(days, BinaryOp::Multiply, int(unit.per_day())),
            op(seconds, BinaryOp::Multiply, int(per_second)),
            fraction,
        ]
        .into_iter()
        .reduce(|sum, next| op(sum, BinaryOp::Plus, next))
        .expect("three terms");
        let raises = GpuExpr {
            kind: ExprKind::Not(Box::new(valid)),
            dtype: boolean,
        };
        Some(raising_unless(reinterpreted(ticks, dtype), raises))
    }
}
