//! The fuzzer's conversions between classes of values: casts in Polars' three modes, and `to_physical`.

use super::*;

impl Grammar<'_> {
    /// A value of class `ty` converted from another class, if one converts.
    pub(super) fn cast_to(&mut self, ty: Ty, depth: u32) -> Option<E> {
        // Now and then Polars' `to_physical`: temporals' ticks, codes.
        let physical_of = match ty {
            Ty::Int => [Ty::Date, Ty::Datetime, Ty::Duration, Ty::Time, Ty::Zoned].choose(self.rng),
            Ty::UInt => Some(&Ty::Cat),
            _ => None,
        };
        if let Some(&from) = physical_of
            && self.chance(0.1)
        {
            let input = self.cast_input(from, depth)?;
            return Some(E::new(Op::ToPhysical, vec![input]));
        }
        let (from, to): (Ty, DataType) = match ty {
            Ty::Int => (
                *[
                    Ty::Float,
                    Ty::Bool,
                    Ty::Str,
                    Ty::UInt,
                    Ty::Date,
                    Ty::Time,
                    Ty::Zoned,
                    Ty::Decimal,
                ]
                .choose(self.rng)
                .unwrap(),
                [
                    DataType::Int64,
                    DataType::Int32,
                    DataType::Int8,
                    DataType::Int16,
                ]
                .choose(self.rng)
                .unwrap()
                .clone(),
            ),
            Ty::UInt => (
                *[Ty::Int, Ty::Float, Ty::Bool, Ty::Str]
                    .choose(self.rng)
                    .unwrap(),
                [DataType::UInt32, DataType::UInt8, DataType::UInt64]
                    .choose(self.rng)
                    .unwrap()
                    .clone(),
            ),
            // (Temporals as their physical values: days, ticks, nanoseconds.)
            Ty::Float => (
                *[
                    Ty::Int,
                    Ty::UInt,
                    Ty::Str,
                    Ty::Bool,
                    Ty::Decimal,
                    Ty::Date,
                    Ty::Datetime,
                    Ty::Duration,
                    Ty::Time,
                ]
                .choose(self.rng)
                .unwrap(),
                if self.chance(0.8) {
                    DataType::Float64
                } else {
                    DataType::Float32
                },
            ),
            Ty::Str => (
                *[
                    Ty::Int,
                    Ty::Float,
                    Ty::Date,
                    Ty::Datetime,
                    Ty::Bool,
                    Ty::UInt,
                    Ty::Cat,
                    Ty::Decimal,
                ]
                .choose(self.rng)
                .unwrap(),
                DataType::String,
            ),
            Ty::Bool => (
                *[Ty::Int, Ty::Float].choose(self.rng).unwrap(),
                DataType::Boolean,
            ),
            // (Floats as ticks, now and then.)
            Ty::Datetime if self.chance(0.2) => (Ty::Float, DataType::Datetime(self.unit(), None)),
            // Texts of timestamps (`YYYY-MM-DDTHH:MM:SS`, or not) as Polars'
            // cast parses them.
            Ty::Datetime if self.chance(0.2) => (Ty::Str, DataType::Datetime(self.unit(), None)),
            Ty::Datetime => (Ty::Date, DataType::Datetime(self.unit(), None)),
            Ty::Date if self.chance(0.2) => (Ty::Float, DataType::Date),
            // Texts of dates (`YYYY-MM-DD`, or not) as Polars' cast parses them.
            Ty::Date if self.chance(0.2) => (Ty::Str, DataType::Date),
            Ty::Date => (Ty::Datetime, DataType::Date),
            Ty::Duration if self.chance(0.2) => (Ty::Time, DataType::Duration(self.unit())),
            Ty::Duration if self.chance(0.2) => (Ty::Float, DataType::Duration(self.unit())),
            Ty::Duration => (Ty::Int, DataType::Duration(self.unit())),
            // From datetimes only: an integer beyond a day is no time of day.
            Ty::Time => (Ty::Datetime, DataType::Time),
            // Texts made categories (Polars adds them to the categories)
            // or an enum's values (null, or Polars' error when strict,
            // where the enum lacks them).
            Ty::Cat if self.chance(0.2) => (Ty::Str, crate::fuzz::table::enumeration()),
            Ty::Cat => (Ty::Str, crate::fuzz::table::categorical()),
            Ty::Decimal => (
                *[Ty::Int, Ty::UInt, Ty::Float, Ty::Decimal, Ty::Str]
                    .choose(self.rng)
                    .unwrap(),
                self.decimal_type(),
            ),
            // Another unit (or zone), the instant kept.
            Ty::Zoned => {
                let DataType::Datetime(_, zone) = self.zoned_type() else {
                    unreachable!("a zoned type")
                };
                (Ty::Zoned, DataType::Datetime(self.unit(), zone))
            }
        };
        let input = self.cast_input(from, depth)?;
        if let (Ty::Str, DataType::Decimal(_, scale)) = (from, &to)
            && self.chance(0.3)
        {
            // `str.to_decimal`: to precision 38 at the scale.
            return Some(E::new(Op::ToDecimal(*scale), vec![input]));
        }
        let strict = self.chance(0.15);
        Some(E::new(Op::Cast(to, strict), vec![input]))
    }

    /// The input of a conversion from class `from`: a column at depth 0.
    fn cast_input(&mut self, from: Ty, depth: u32) -> Option<E> {
        Some(if depth == 0 {
            let columns = self.columns_of(from);
            E::col(columns.choose(self.rng)?)
        } else {
            self.value(from, depth - 1)
        })
    }
}
