//! The column types the GPU engine handles, and Polars' types mapped onto them.

use std::fmt;
use std::sync::{Mutex, PoisonError};

use polars_core::prelude::{DataType, NamedFrom, Series, TimeUnit as PolarsTimeUnit, TimeZone};

/// The unit of a `Datetime` or `Duration`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimeUnit {
    /// Milliseconds.
    Milliseconds,
    /// Microseconds.
    Microseconds,
    /// Nanoseconds.
    Nanoseconds,
}

impl TimeUnit {
    /// Ticks of this unit in one day.
    pub fn per_day(self) -> i64 {
        match self {
            TimeUnit::Milliseconds => 86_400_000,
            TimeUnit::Microseconds => 86_400_000_000,
            TimeUnit::Nanoseconds => 86_400_000_000_000,
        }
    }
}

impl From<PolarsTimeUnit> for TimeUnit {
    fn from(unit: PolarsTimeUnit) -> Self {
        match unit {
            PolarsTimeUnit::Milliseconds => TimeUnit::Milliseconds,
            PolarsTimeUnit::Microseconds => TimeUnit::Microseconds,
            PolarsTimeUnit::Nanoseconds => TimeUnit::Nanoseconds,
        }
    }
}

impl fmt::Display for TimeUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TimeUnit::Milliseconds => "ms",
            TimeUnit::Microseconds => "us",
            TimeUnit::Nanoseconds => "ns",
        })
    }
}

/// Values kept for the process's life, each named by its place: how a
/// [`GpuDtype`] holds what is not `Copy` (a time zone, a categorical type;
/// a process meets a few).
struct Interned<T>(Mutex<Vec<T>>);

impl<T: Clone + PartialEq> Interned<T> {
    const fn new() -> Self {
        Interned(Mutex::new(Vec::new()))
    }

    /// The place of `value`, kept there if it is new.
    fn place(&self, value: &T) -> u32 {
        let mut values = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let index = match values.iter().position(|known| known == value) {
            Some(index) => index,
            None => {
                values.push(value.clone());
                values.len() - 1
            }
        };
        u32::try_from(index).expect("fewer than 2^32 interned values")
    }

    /// The value at `place`.
    fn get(&self, place: u32) -> T {
        let values = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        values[place as usize].clone()
    }
}

/// A time zone (`UTC`, `Europe/Amsterdam`, `+01:00`), interned so that
/// [`GpuDtype`] stays `Copy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Zone(u32);

static ZONES: Interned<TimeZone> = Interned::new();

impl Zone {
    /// Polars' time zone `zone`.
    pub fn of(zone: &TimeZone) -> Zone {
        Zone(ZONES.place(zone))
    }

    /// Whether this is UTC, where local time is the time since the epoch.
    pub fn is_utc(self) -> bool {
        self.to_polars() == TimeZone::UTC
    }

    /// Polars' time zone.
    pub fn to_polars(self) -> TimeZone {
        ZONES.get(self.0)
    }
}

impl fmt::Display for Zone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.to_polars().as_str())
    }
}

/// A categorical or enum type: Polars' dtype (its categories and their
/// mapping to codes), interned so that [`GpuDtype`] stays `Copy`. The device
/// holds the codes; equal codes of one dictionary are equal texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dictionary(u32);

static DICTIONARIES: Interned<DataType> = Interned::new();

impl Dictionary {
    /// The dictionary of `dtype`, a categorical or enum type.
    fn of(dtype: &DataType) -> Dictionary {
        Dictionary(DICTIONARIES.place(dtype))
    }

    /// Polars' categorical or enum type.
    pub fn dtype(self) -> DataType {
        DICTIONARIES.get(self.0)
    }

    /// Whether this is an enum (a fixed set of categories) rather than a
    /// categorical.
    pub fn is_enum(self) -> bool {
        matches!(self.dtype(), DataType::Enum(..))
    }

    /// A column named `name` of the dictionary's texts, in code order (null
    /// for a code that names none).
    pub fn texts(self, name: &str) -> Series {
        match self.dtype() {
            DataType::Categorical(_, mapping) | DataType::Enum(_, mapping) => {
                let codes = 0..mapping.num_cats_upper_bound();
                let texts: Vec<Option<&str>> = codes
                    .map(|code| {
                        u32::try_from(code)
                            .ok()
                            .and_then(|code| mapping.cat_to_str(code))
                    })
                    .collect();
                Series::new(name.into(), texts)
            }
            _ => Series::new_empty(name.into(), &DataType::String),
        }
    }

    /// The code of `text`, if the dictionary holds it (nothing is added).
    pub fn code(self, text: &str) -> Option<u32> {
        match self.dtype() {
            DataType::Categorical(_, mapping) | DataType::Enum(_, mapping) => mapping.get_cat(text),
            _ => None,
        }
    }
}

/// The type of a list's values, interned so that [`GpuDtype`] stays `Copy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ListOf(u32);

static LIST_VALUES: Interned<GpuDtype> = Interned::new();

impl ListOf {
    /// Lists of `values`.
    pub fn of(values: GpuDtype) -> ListOf {
        ListOf(LIST_VALUES.place(&values))
    }

    /// The type of the values.
    pub fn values(self) -> GpuDtype {
        LIST_VALUES.get(self.0)
    }
}

/// The fields of a struct type (names and types, in order), interned so
/// that [`GpuDtype`] stays `Copy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StructOf(u32);

static STRUCT_FIELDS: Interned<Vec<(String, GpuDtype)>> = Interned::new();

impl StructOf {
    /// Structs of `fields`.
    pub fn of(fields: Vec<(String, GpuDtype)>) -> StructOf {
        StructOf(STRUCT_FIELDS.place(&fields))
    }

    /// The fields' names and types, in order.
    pub fn fields(self) -> Vec<(String, GpuDtype)> {
        STRUCT_FIELDS.get(self.0)
    }
}

/// A column type the GPU engine can hold on the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GpuDtype {
    Boolean,
    Int8,
    Int16,
    Int32,
    Int64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Float32,
    Float64,
    /// UTF-8 strings.
    String,
    /// Days since the Unix epoch, 32-bit.
    Date,
    /// Time since the Unix epoch, 64-bit, without a time zone.
    Datetime(TimeUnit),
    /// A signed time span, 64-bit.
    Duration(TimeUnit),
    /// A time of day: nanoseconds since midnight, 64-bit.
    Time,
    /// Time since the Unix epoch (UTC), 64-bit, shown in a time zone: the
    /// functions of local time run only where the zone is UTC.
    ZonedDatetime(TimeUnit, Zone),
    /// A categorical or enum: codes into a dictionary of texts, as u32 on the
    /// device whatever Polars' width (compared for equality, grouped and
    /// joined by code; never ordered on the GPU).
    Categorical(Dictionary),
    /// Lists of values of one type (not lists): the lists' ends into a
    /// column of every list's values in turn. Held, gathered, made by
    /// aggregations and exploded; never a key, never compared.
    List(ListOf),
    /// A decimal number of `precision` digits, `scale` of them after the
    /// point (Polars' `Decimal(precision, scale)`): the value times
    /// 10^scale, held as an i64 on the device (Polars holds an i128; a
    /// column with a value beyond i64 is not uploaded, and arithmetic that
    /// leaves i64 goes to Polars). Casts follow Polars' rules (rounding
    /// to integers); only [`crate::CastMode::Physical`] takes the scaled
    /// integers as they are.
    Decimal(u8, u8),
    /// Structs of named fields (not structs): a column per field, null
    /// where the struct is. Held, gathered, unnested, built by
    /// `pl.struct`, their fields read; never a key, never compared.
    Struct(StructOf),
    /// Polars' `Null` type (`lit(None)`): every value null. Held as
    /// booleans that are all null.
    Null,
}

impl GpuDtype {
    /// Lists of `values`.
    pub fn list_of(values: GpuDtype) -> GpuDtype {
        GpuDtype::List(ListOf::of(values))
    }

    /// The GPU type for a Polars type, or why there is none.
    pub fn from_polars(dtype: &DataType) -> Result<GpuDtype, String> {
        Ok(match dtype {
            DataType::Boolean => GpuDtype::Boolean,
            DataType::Int8 => GpuDtype::Int8,
            DataType::Int16 => GpuDtype::Int16,
            DataType::Int32 => GpuDtype::Int32,
            DataType::Int64 => GpuDtype::Int64,
            DataType::UInt8 => GpuDtype::UInt8,
            DataType::UInt16 => GpuDtype::UInt16,
            DataType::UInt32 => GpuDtype::UInt32,
            DataType::UInt64 => GpuDtype::UInt64,
            DataType::Float32 => GpuDtype::Float32,
            DataType::Float64 => GpuDtype::Float64,
            DataType::String => GpuDtype::String,
            DataType::Date => GpuDtype::Date,
            DataType::Datetime(unit, None) => GpuDtype::Datetime((*unit).into()),
            DataType::Datetime(unit, Some(zone)) => {
                GpuDtype::ZonedDatetime((*unit).into(), Zone::of(zone))
            }
            DataType::Duration(unit) => GpuDtype::Duration((*unit).into()),
            DataType::Time => GpuDtype::Time,
            DataType::Null => GpuDtype::Null,
            DataType::Categorical(..) | DataType::Enum(..) => {
                GpuDtype::Categorical(Dictionary::of(dtype))
            }
            // Polars' precision is at most 38, its scale at most the precision.
            DataType::Decimal(precision, scale) => {
                GpuDtype::Decimal(*precision as u8, *scale as u8)
            }
            DataType::List(values) => match GpuDtype::from_polars(values)? {
                values if values.listable() => GpuDtype::list_of(values),
                _ => {
                    return Err(format!(
                        "dtype {dtype} (lists nested more than two deep, lists of structs of \
                         lists or structs) is not supported on the GPU yet"
                    ));
                }
            },
            DataType::Struct(fields) => {
                let mut typed = Vec::with_capacity(fields.len());
                for field in fields {
                    match GpuDtype::from_polars(field.dtype())? {
                        GpuDtype::Struct(_) => {
                            return Err(format!(
                                "dtype {dtype} (structs of structs) is not supported on the GPU \
                                 yet"
                            ));
                        }
                        field_dtype => typed.push((field.name().to_string(), field_dtype)),
                    }
                }
                GpuDtype::Struct(StructOf::of(typed))
            }
            other => return Err(format!("dtype {other} is not supported on the GPU")),
        })
    }

    /// Whether this is an integer type, signed or not.
    pub fn is_unsigned(self) -> bool {
        matches!(
            self,
            GpuDtype::UInt8 | GpuDtype::UInt16 | GpuDtype::UInt32 | GpuDtype::UInt64
        )
    }

    pub fn is_integer(self) -> bool {
        matches!(
            self,
            GpuDtype::Int8
                | GpuDtype::Int16
                | GpuDtype::Int32
                | GpuDtype::Int64
                | GpuDtype::UInt8
                | GpuDtype::UInt16
                | GpuDtype::UInt32
                | GpuDtype::UInt64
        )
    }

    /// The scale of a decimal type, or of a list's decimals; `None` for
    /// other types. (Decimals compare by their scaled integers where their
    /// scales agree.)
    pub fn decimal_scale(self) -> Option<u8> {
        match self {
            GpuDtype::Decimal(_, scale) => Some(scale),
            GpuDtype::List(of) => match of.values() {
                GpuDtype::Decimal(_, scale) => Some(scale),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether the GPU holds lists of values of this type: of lists of
    /// values it would list that are not nested, of structs of fields
    /// likewise, of any other (categoricals as their codes).
    pub fn listable(self) -> bool {
        match self {
            GpuDtype::List(of) => !of.values().is_nested() && of.values().listable(),
            GpuDtype::Struct(of) => of
                .fields()
                .iter()
                .all(|(_, field)| !field.is_nested() && field.listable()),
            _ => true,
        }
    }

    /// Whether this is a floating-point type.
    pub fn is_float(self) -> bool {
        matches!(self, GpuDtype::Float32 | GpuDtype::Float64)
    }

    /// Whether this is a numeric type (integers, floats).
    pub fn is_numeric(self) -> bool {
        self.is_integer() || self.is_float()
    }

    /// Whether this is a list or a struct (held, moved with its rows, never
    /// a key).
    pub fn is_nested(self) -> bool {
        matches!(self, GpuDtype::List(_) | GpuDtype::Struct(_))
    }

    /// Whether this is Date, Datetime (with a time zone or not), Duration or Time.
    pub fn is_temporal(self) -> bool {
        matches!(
            self,
            GpuDtype::Date
                | GpuDtype::Datetime(_)
                | GpuDtype::Duration(_)
                | GpuDtype::Time
                | GpuDtype::ZonedDatetime(..)
        )
    }
}

impl fmt::Display for GpuDtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuDtype::Boolean => f.write_str("bool"),
            GpuDtype::Int8 => f.write_str("i8"),
            GpuDtype::Int16 => f.write_str("i16"),
            GpuDtype::Int32 => f.write_str("i32"),
            GpuDtype::Int64 => f.write_str("i64"),
            GpuDtype::UInt8 => f.write_str("u8"),
            GpuDtype::UInt16 => f.write_str("u16"),
            GpuDtype::UInt32 => f.write_str("u32"),
            GpuDtype::UInt64 => f.write_str("u64"),
            GpuDtype::Float32 => f.write_str("f32"),
            GpuDtype::Float64 => f.write_str("f64"),
            GpuDtype::String => f.write_str("str"),
            GpuDtype::Date => f.write_str("date"),
            GpuDtype::Datetime(unit) => write!(f, "datetime[{unit}]"),
            GpuDtype::Duration(unit) => write!(f, "duration[{unit}]"),
            GpuDtype::Time => f.write_str("time"),
            GpuDtype::Null => f.write_str("null"),
            GpuDtype::ZonedDatetime(unit, zone) => write!(f, "datetime[{unit}, {zone}]"),
            GpuDtype::Categorical(dictionary) if dictionary.is_enum() => f.write_str("enum"),
            GpuDtype::Categorical(_) => f.write_str("cat"),
            GpuDtype::Decimal(precision, scale) => write!(f, "decimal[{precision},{scale}]"),
            GpuDtype::List(of) => write!(f, "list[{}]", of.values()),
            GpuDtype::Struct(of) => {
                let fields: Vec<String> = of
                    .fields()
                    .iter()
                    .map(|(name, dtype)| format!("{name}: {dtype}"))
                    .collect();
                write!(f, "struct[{}]", fields.join(", "))
            }
        }
    }
}
