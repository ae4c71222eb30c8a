//! The classes of values the fuzzer's grammar draws expressions by.

use polars::prelude::*;

/// The class of a value, as the grammar draws expressions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    Bool,
    Int,
    UInt,
    Float,
    Str,
    Date,
    Datetime,
    Duration,
    Time,
    /// Timestamps in a time zone.
    Zoned,
    /// Categoricals and enums.
    Cat,
    /// Decimals of any precision and scale.
    Decimal,
}

impl Ty {
    pub fn of(dtype: &DataType) -> Option<Ty> {
        Some(match dtype {
            DataType::Boolean => Ty::Bool,
            DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64 => Ty::Int,
            DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64 => Ty::UInt,
            DataType::Float32 | DataType::Float64 => Ty::Float,
            DataType::String => Ty::Str,
            DataType::Date => Ty::Date,
            DataType::Datetime(_, Some(_)) => Ty::Zoned,
            DataType::Datetime(_, None) => Ty::Datetime,
            DataType::Duration(_) => Ty::Duration,
            DataType::Time => Ty::Time,
            DataType::Categorical(..) | DataType::Enum(..) => Ty::Cat,
            DataType::Decimal(..) => Ty::Decimal,
            _ => return None,
        })
    }

    pub(super) fn numeric(self) -> bool {
        matches!(self, Ty::Int | Ty::UInt | Ty::Float)
    }

    pub(super) fn temporal(self) -> bool {
        matches!(
            self,
            Ty::Date | Ty::Datetime | Ty::Duration | Ty::Time | Ty::Zoned
        )
    }
}

pub const ALL: [Ty; 12] = [
    Ty::Bool,
    Ty::Int,
    Ty::UInt,
    Ty::Float,
    Ty::Str,
    Ty::Date,
    Ty::Datetime,
    Ty::Duration,
    Ty::Time,
    Ty::Zoned,
    Ty::Cat,
    Ty::Decimal,
];
