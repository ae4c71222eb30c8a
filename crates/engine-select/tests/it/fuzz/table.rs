//! Random tables for the differential fuzzer: every dtype the engine claims, nulls at several densities, the values that break engines.

use polars::prelude::*;
use rand::RngExt;
use rand::seq::IndexedRandom;

use super::Rng;

/// One column's values, by type.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    Bool(Vec<Option<bool>>),
    I8(Vec<Option<i8>>),
    I16(Vec<Option<i16>>),
    I32(Vec<Option<i32>>),
    I64(Vec<Option<i64>>),
    U8(Vec<Option<u8>>),
    U16(Vec<Option<u16>>),
    U32(Vec<Option<u32>>),
    U64(Vec<Option<u64>>),
    F32(Vec<Option<f32>>),
    F64(Vec<Option<f64>>),
    Str(Vec<Option<String>>),
    /// Days since the epoch.
    Date(Vec<Option<i32>>),
    Datetime(TimeUnit, Vec<Option<i64>>),
    Duration(TimeUnit, Vec<Option<i64>>),
    /// Nanoseconds since midnight.
    Time(Vec<Option<i64>>),
    /// Timestamps (UTC) shown in the time zone named.
    Zoned(TimeUnit, String, Vec<Option<i64>>),
    /// Texts as a categorical of the global categories.
    Categorical(Vec<Option<String>>),
    /// Texts (of [`ENUM_TEXTS`]) as an enum.
    Enum(Vec<Option<String>>),
    /// Lists: each row's span of the values (`None`: a null list).
    List(Box<Values>, Vec<Option<(usize, usize)>>),
    /// Structs: the named fields, and each row's row of them (never null).
    Struct(Vec<(String, Values)>, Vec<Option<u32>>),
    /// Decimals of a precision and scale: their scaled integers.
    Decimal(usize, usize, Vec<Option<i128>>),
}

/// Applies `$body` to the vector inside any [`Values`], rebuilding the same variant.
macro_rules! map_values {
    ($values:expr, $v:ident => $body:expr) => {
        match $values {
            Values::Bool($v) => Values::Bool($body),
            Values::I8($v) => Values::I8($body),
            Values::I16($v) => Values::I16($body),
            Values::I32($v) => Values::I32($body),
            Values::I64($v) => Values::I64($body),
            Values::U8($v) => Values::U8($body),
            Values::U16($v) => Values::U16($body),
            Values::U32($v) => Values::U32($body),
            Values::U64($v) => Values::U64($body),
            Values::F32($v) => Values::F32($body),
            Values::F64($v) => Values::F64($body),
            Values::Str($v) => Values::Str($body),
            Values::Date($v) => Values::Date($body),
            Values::Datetime(unit, $v) => Values::Datetime(*unit, $body),
            Values::Duration(unit, $v) => Values::Duration(*unit, $body),
            Values::Time($v) => Values::Time($body),
            Values::Zoned(unit, zone, $v) => Values::Zoned(*unit, zone.clone(), $body),
            Values::Categorical($v) => Values::Categorical($body),
            Values::Enum($v) => Values::Enum($body),
            Values::List(values, $v) => Values::List(values.clone(), $body),
            Values::Struct(fields, $v) => Values::Struct(fields.clone(), $body),
            Values::Decimal(p, s, $v) => Values::Decimal(*p, *s, $body),
        }
    };
}

/// Applies `$body` to the vector inside any [`Values`].
macro_rules! with_values {
    ($values:expr, $v:ident => $body:expr) => {
        match $values {
            Values::Bool($v) => $body,
            Values::I8($v) => $body,
            Values::I16($v) => $body,
            Values::I32($v) => $body,
            Values::I64($v) => $body,
            Values::U8($v) => $body,
            Values::U16($v) => $body,
            Values::U32($v) => $body,
            Values::U64($v) => $body,
            Values::F32($v) => $body,
            Values::F64($v) => $body,
            Values::Str($v) => $body,
            Values::Date($v) => $body,
            Values::Datetime(_, $v) => $body,
            Values::Duration(_, $v) => $body,
            Values::Time($v) => $body,
            Values::Zoned(_, _, $v) => $body,
            Values::Categorical($v) => $body,
            Values::Enum($v) => $body,
            Values::Decimal(_, _, $v) => $body,
            Values::List(_, $v) => $body,
            Values::Struct(_, $v) => $body,
        }
    };
}

/// Rust source of one value, typed so that a vector of them needs no annotation.
trait ValueCode {
    fn code(&self) -> String;
    fn type_name() -> &'static str;
}

macro_rules! int_code {
    ($($t:ty),*) => {$(
        impl ValueCode for $t {
            fn code(&self) -> String {
                if *self == <$t>::MIN && <$t>::MIN != 0 {
                    format!("{}::MIN", stringify!($t))
                } else if *self == <$t>::MAX {
                    format!("{}::MAX", stringify!($t))
                } else {
                    format!("{self}{}", stringify!($t))
                }
            }
            fn type_name() -> &'static str {
                stringify!($t)
            }
        }
    )*};
}
int_code!(i8, i16, i32, i64, i128, u8, u16, u32, u64);

impl ValueCode for bool {
    fn code(&self) -> String {
        self.to_string()
    }
    fn type_name() -> &'static str {
        "bool"
    }
}

macro_rules! float_code {
    ($($t:ident),*) => {$(
        impl ValueCode for $t {
            fn code(&self) -> String {
                float_source(f64::from(*self), stringify!($t), *self == $t::MAX, *self == $t::MIN)
            }
            fn type_name() -> &'static str {
                stringify!($t)
            }
        }
    )*};
}
float_code!(f32, f64);

/// Rust source of a float of type `ty` (`f32` or `f64`).
pub fn float_source(x: f64, ty: &str, is_max: bool, is_min: bool) -> String {
    if x.is_nan() {
        format!("{ty}::NAN")
    } else if x == f64::INFINITY {
        format!("{ty}::INFINITY")
    } else if x == f64::NEG_INFINITY {
        format!("{ty}::NEG_INFINITY")
    } else if is_max {
        format!("{ty}::MAX")
    } else if is_min {
        format!("{ty}::MIN")
    } else if ty == "f32" {
        format!("{:?}f32", x as f32)
    } else {
        format!("{x:?}f64")
    }
}

impl ValueCode for String {
    fn code(&self) -> String {
        format!("{self:?}")
    }
    fn type_name() -> &'static str {
        "&str"
    }
}

/// A list's span of its column's values.
impl ValueCode for (usize, usize) {
    fn code(&self) -> String {
        format!("{self:?}")
    }
    fn type_name() -> &'static str {
        "(usize, usize)"
    }
}

fn vec_code<T: ValueCode>(values: &[Option<T>]) -> String {
    if values.is_empty() {
        return format!("Vec::<Option<{}>>::new()", T::type_name());
    }
    let items: Vec<String> = values
        .iter()
        .map(|v| match v {
            Some(v) => format!("Some({})", v.code()),
            None => format!("None::<{}>", T::type_name()),
        })
        .collect();
    format!("[{}]", items.join(", "))
}

/// Rust source of a time unit.
pub fn unit_code(unit: TimeUnit) -> &'static str {
    match unit {
        TimeUnit::Milliseconds => "TimeUnit::Milliseconds",
        TimeUnit::Microseconds => "TimeUnit::Microseconds",
        TimeUnit::Nanoseconds => "TimeUnit::Nanoseconds",
    }
}

impl Values {
    pub fn len(&self) -> usize {
        with_values!(self, v => v.len())
    }

    /// The rows at `rows`, in that order.
    #[allow(clippy::clone_on_copy)]
    pub fn take(&self, rows: &[usize]) -> Values {
        map_values!(self, v => rows.iter().map(|&r| v[r].clone()).collect())
    }

    pub fn dtype(&self) -> DataType {
        match self {
            Values::Bool(_) => DataType::Boolean,
            Values::I8(_) => DataType::Int8,
            Values::I16(_) => DataType::Int16,
            Values::I32(_) => DataType::Int32,
            Values::I64(_) => DataType::Int64,
            Values::U8(_) => DataType::UInt8,
            Values::U16(_) => DataType::UInt16,
            Values::U32(_) => DataType::UInt32,
            Values::U64(_) => DataType::UInt64,
            Values::F32(_) => DataType::Float32,
            Values::F64(_) => DataType::Float64,
            Values::Str(_) => DataType::String,
            Values::Date(_) => DataType::Date,
            Values::Datetime(unit, _) => DataType::Datetime(*unit, None),
            Values::Duration(unit, _) => DataType::Duration(*unit),
            Values::Time(_) => DataType::Time,
            Values::Zoned(unit, zone, _) => DataType::Datetime(*unit, Some(time_zone(zone))),
            Values::Categorical(_) => categorical(),
            Values::Enum(_) => enumeration(),
            Values::Decimal(p, s, _) => DataType::Decimal(*p, *s),
            Values::List(values, _) => DataType::List(Box::new(values.dtype())),
            Values::Struct(fields, _) => DataType::Struct(
                fields
                    .iter()
                    .map(|(name, values)| Field::new(name.into(), values.dtype()))
                    .collect(),
            ),
        }
    }

    /// The values as a Polars column named `name`.
    pub fn column(&self, name: &str) -> Column {
        let name: PlSmallStr = name.into();
        let physical = |column: Column| column.cast(&self.dtype()).unwrap();
        match self {
            Values::Bool(v) => Column::new(name, v),
            Values::I8(v) => Column::new(name, v),
            Values::I16(v) => Column::new(name, v),
            Values::I32(v) => Column::new(name, v),
            Values::I64(v) => Column::new(name, v),
            Values::U8(v) => Column::new(name, v),
            Values::U16(v) => Column::new(name, v),
            Values::U32(v) => Column::new(name, v),
            Values::U64(v) => Column::new(name, v),
            Values::F32(v) => Column::new(name, v),
            Values::F64(v) => Column::new(name, v),
            Values::Str(v) => {
                let v: Vec<Option<&str>> = v.iter().map(|s| s.as_deref()).collect();
                Column::new(name, v)
            }
            Values::Categorical(v) | Values::Enum(v) => {
                let v: Vec<Option<&str>> = v.iter().map(|s| s.as_deref()).collect();
                physical(Column::new(name, v))
            }
            Values::Date(v) => physical(Column::new(name, v)),
            Values::Decimal(p, s, v) => Int128Chunked::from_iter_options(name, v.iter().copied())
                .into_decimal(*p, *s)
                .unwrap()
                .into_series()
                .into_column(),
            Values::List(values, spans) => {
                let values = values.column("").take_materialized_series();
                let lists: Vec<Option<Series>> = spans
                    .iter()
                    .map(|span| span.map(|(start, end)| values.slice(start as i64, end - start)))
                    .collect();
                physical(Series::new(name, lists).into_column())
            }
            Values::Struct(fields, rows) => {
                let rows: Vec<IdxSize> = rows.iter().map(|row| row.unwrap_or(0)).collect();
                let fields: Vec<Series> = fields
                    .iter()
                    .map(|(field, values)| {
                        let values = values.column(field).take_materialized_series();
                        values.take_slice(&rows).unwrap()
                    })
                    .collect();
                StructChunked::from_series(name, rows.len(), fields.iter())
                    .unwrap()
                    .into_series()
                    .into_column()
            }
            Values::Datetime(_, v)
            | Values::Duration(_, v)
            | Values::Time(v)
            | Values::Zoned(_, _, v) => physical(Column::new(name, v)),
        }
    }

    /// Rust source that makes [`Values::column`].
    pub fn column_code(&self, name: &str) -> String {
        let plain = |values: String| format!("Column::new({name:?}.into(), {values})");
        let cast = |values: String, dtype: String| {
            format!("Column::new({name:?}.into(), {values}).cast(&{dtype}).unwrap()")
        };
        match self {
            Values::Date(v) => cast(vec_code(v), "DataType::Date".into()),
            Values::Datetime(unit, v) => cast(
                vec_code(v),
                format!("DataType::Datetime({}, None)", unit_code(*unit)),
            ),
            Values::Duration(unit, v) => cast(
                vec_code(v),
                format!("DataType::Duration({})", unit_code(*unit)),
            ),
            Values::Time(v) => cast(vec_code(v), "DataType::Time".into()),
            Values::Decimal(p, s, v) => format!(
                "Int128Chunked::from_iter_options({name:?}.into(), {}.into_iter())\n                \
                 .into_decimal({p}, {s})\n                .unwrap()\n                .into_series()\n                \
                 .into_column()",
                vec_code(v)
            ),
            Values::Categorical(v) => cast(vec_code(v), "crate::fuzz::table::categorical()".into()),
            Values::Enum(v) => cast(vec_code(v), "crate::fuzz::table::enumeration()".into()),
            Values::Zoned(unit, zone, v) => cast(
                vec_code(v),
                format!(
                    "DataType::Datetime({}, Some(crate::fuzz::table::time_zone({zone:?})))",
                    unit_code(*unit)
                ),
            ),
            Values::List(values, spans) => {
                let lists: Vec<String> = spans
                    .iter()
                    .map(|span| match span {
                        Some((start, end)) => format!("Some(v.slice({start}, {}))", end - start),
                        None => "None".into(),
                    })
                    .collect();
                format!(
                    "{{\n            let v = {}.take_materialized_series();\n            \
                     Series::new({name:?}.into(), Vec::<Option<Series>>::from([{}]))\n                \
                     .cast(&DataType::List(Box::new(v.dtype().clone())))\n                \
                     .unwrap()\n                .into_column()\n        }}",
                    values.column_code(""),
                    lists.join(", ")
                )
            }
            Values::Struct(fields, rows) => {
                let rows: Vec<String> = rows
                    .iter()
                    .map(|row| row.unwrap_or(0).to_string())
                    .collect();
                let fields: Vec<String> = fields
                    .iter()
                    .map(|(field, values)| {
                        format!(
                            "{}.take_materialized_series().take_slice(&[{}]).unwrap()",
                            values.column_code(field),
                            rows.join(", ")
                        )
                    })
                    .collect();
                format!(
                    "StructChunked::from_series({name:?}.into(), {}, [{}].iter())\n                \
                     .unwrap()\n                .into_series()\n                .into_column()",
                    rows.len(),
                    fields.join(", ")
                )
            }
            other => with_values!(other, v => plain(vec_code(v))),
        }
    }

    /// The same values with every value but nulls simplified toward a plain one
    /// (for shrinking): `None` when nothing changes.
    pub fn simplified(&self) -> Option<Values> {
        let simple = match self {
            Values::Str(v) => Values::Str(
                v.iter()
                    .map(|s| s.as_ref().map(|s| s.chars().take(2).collect()))
                    .collect(),
            ),
            Values::F64(v) => Values::F64(
                v.iter()
                    .map(|x| x.map(|x| if x.is_finite() { x.trunc() } else { x }))
                    .collect(),
            ),
            _ => return None,
        };
        (simple != *self).then_some(simple)
    }
}

/// A random table: named columns of equal length, optionally held by
/// Polars in two chunks (split at `split`).
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub columns: Vec<(String, Values)>,
    pub split: Option<usize>,
}

impl Table {
    pub fn height(&self) -> usize {
        self.columns.first().map_or(0, |(_, v)| v.len())
    }

    /// The rows at `rows`, in that order (a split kept where it still falls inside).
    pub fn take(&self, rows: &[usize]) -> Table {
        Table {
            columns: self
                .columns
                .iter()
                .map(|(name, v)| (name.clone(), v.take(rows)))
                .collect(),
            split: self.split.filter(|&s| s > 0 && s < rows.len()),
        }
    }

    fn part(&self, rows: std::ops::Range<usize>) -> DataFrame {
        let rows: Vec<usize> = rows.collect();
        let columns = self
            .columns
            .iter()
            .map(|(name, v)| v.take(&rows).column(name))
            .collect();
        DataFrame::new(rows.len(), columns).unwrap()
    }

    pub fn frame(&self) -> DataFrame {
        match self.split {
            Some(split) if split > 0 && split < self.height() => {
                let mut df = self.part(0..split);
                df.vstack_mut(&self.part(split..self.height())).unwrap();
                df
            }
            _ => self.part(0..self.height()),
        }
    }

    fn part_code(&self, rows: std::ops::Range<usize>) -> String {
        let rows: Vec<usize> = rows.collect();
        let columns: Vec<String> = self
            .columns
            .iter()
            .map(|(name, v)| format!("        {},", v.take(&rows).column_code(name)))
            .collect();
        format!(
            "DataFrame::new({}, vec![\n{}\n    ])\n    .unwrap()",
            rows.len(),
            columns.join("\n")
        )
    }

    /// Rust statements that bind `var` to [`Table::frame`].
    pub fn code(&self, var: &str) -> String {
        match self.split {
            Some(split) if split > 0 && split < self.height() => format!(
                "let mut {var} = {};\n    // Two chunks, as Polars holds a stacked frame.\n    {var}.vstack_mut(&{}).unwrap();",
                self.part_code(0..split),
                self.part_code(split..self.height())
            ),
            _ => format!("let {var} = {};", self.part_code(0..self.height())),
        }
    }
}

/// Small texts that meet every string path: empty, multi-byte, numbers and
/// dates as text, case pairs, padding.
const TEXTS: &[&str] = &[
    "",
    "a",
    "b",
    "ab",
    "A",
    "aB",
    "É",
    "é",
    "日本",
    "😀",
    " 91",
    "x y ",
    "abc",
    "aaa",
    "\n",
    "1",
    "-2",
    "3.5",
    "1e3",
    "nan",
    "2024-01-15",
    "2024-02-30",
    "1999-12-31 23:59:59",
    "2000-02-29T12:00:00",
    "2001-09-09 01:46:40.25",
    "12:30:05",
    "23:59",
    "24:00",
    "true",
    "ΣΑΣ",
    "0",
];

/// Days since the epoch of note: the epoch, the day before, leap days, far years.
const DAYS: &[i32] = &[
    0, -1, 1, 59, 11_016, 11_017, -25_508, 19_000, 19_358, -719_162, 2_932_896,
];

/// How often a column is null.
const NULL_DENSITIES: &[f64] = &[0.0, 0.0, 0.0, 0.1, 0.3, 0.5, 1.0];

/// The time zones of the fuzzer's zoned timestamps: UTC (whose local time
/// the device computes) and two others (which keep their instants only).
pub const ZONES: &[&str] = &[
    "UTC",
    "UTC",
    "Europe/Amsterdam",
    "Asia/Kathmandu",
    "America/New_York",
    "Australia/Lord_Howe",
];

/// Polars' time zone named `name` (one of [`ZONES`]).
pub fn time_zone(name: &str) -> TimeZone {
    TimeZone::opt_try_new(Some(name)).unwrap().unwrap()
}

/// The texts of the fuzzer's enum, in the enum's order (not the texts').
pub const ENUM_TEXTS: &[&str] = &["b", "a", "É", "", "x y"];

/// The global categorical type.
pub fn categorical() -> DataType {
    DataType::from_categories(Categories::global())
}

/// The fuzzer's enum ([`ENUM_TEXTS`]).
pub fn enumeration() -> DataType {
    DataType::from_frozen_categories(FrozenCategories::new(ENUM_TEXTS.iter().copied()).unwrap())
}

/// The types a random column takes, weighted toward the common ones.
fn random_dtype(rng: &mut Rng) -> DataType {
    let units = [
        TimeUnit::Milliseconds,
        TimeUnit::Microseconds,
        TimeUnit::Nanoseconds,
    ];
    let unit = *units.choose(rng).unwrap();
    match rng.random_range(0..24) {
        0..=2 => DataType::Int64,
        3 => DataType::Int32,
        4 => DataType::Int16,
        5 => DataType::Int8,
        6 => DataType::UInt8,
        7 => DataType::UInt16,
        8 => DataType::UInt32,
        9 => DataType::UInt64,
        10..=12 => DataType::Float64,
        13 => DataType::Float32,
        17 if rng.random_bool(0.5) => categorical(),
        17 if rng.random_bool(0.5) => enumeration(),
        14..=17 => DataType::String,
        18..=19 => DataType::Boolean,
        20 => DataType::Date,
        21 if rng.random_bool(0.3) => {
            DataType::Datetime(unit, Some(time_zone(ZONES.choose(rng).unwrap())))
        }
        21 => DataType::Datetime(unit, None),
        22 if rng.random_bool(0.3) => {
            let fields = (0..rng.random_range(1..=3))
                .map(|i| {
                    let dtype = match rng.random_range(0..4) {
                        0 => DataType::Int64,
                        1 => DataType::String,
                        2 => DataType::Float64,
                        _ => DataType::Boolean,
                    };
                    Field::new(format!("f{i}").into(), dtype)
                })
                .collect();
            DataType::Struct(fields)
        }
        22 => DataType::Duration(unit),
        23 if rng.random_bool(0.5) => {
            let values = [
                DataType::Int64,
                DataType::Int32,
                DataType::UInt8,
                DataType::Float64,
                DataType::String,
                DataType::Boolean,
                DataType::Date,
                DataType::Duration(unit),
                DataType::Decimal(10, 2),
                DataType::Struct(vec![
                    Field::new("n".into(), DataType::Int64),
                    Field::new("t".into(), DataType::String),
                ]),
                DataType::List(Box::new(DataType::Int32)),
                categorical(),
                enumeration(),
            ];
            DataType::List(Box::new(values.choose(rng).unwrap().clone()))
        }
        _ if rng.random_bool(0.5) => {
            let precision = *[3usize, 10, 18, 38].choose(rng).unwrap();
            DataType::Decimal(precision, rng.random_range(0..=precision.min(6)))
        }
        _ => DataType::Time,
    }
}

/// A random integer: mostly small (so that keys repeat), sometimes the extremes of `lo..=hi`.
fn int_value(rng: &mut Rng, lo: i128, hi: i128) -> i128 {
    match rng.random_range(0..20) {
        0 => lo,
        1 => hi,
        2 => rng.random_range(-1000i128..1000).clamp(lo, hi),
        _ if lo == 0 => rng.random_range(0i128..9),
        _ => rng.random_range(-4i128..6).clamp(lo, hi),
    }
}

fn float_value(rng: &mut Rng) -> f64 {
    match rng.random_range(0..30) {
        0 => f64::NAN,
        1 => -0.0,
        2 => 0.0,
        3 => f64::INFINITY,
        4 => f64::NEG_INFINITY,
        5 => 0.1,
        6 => 1.0 / 3.0,
        7 => 1e300,
        8 => -2.5e-300,
        9 => f64::MAX,
        10 => 5e-324,
        11..=15 => f64::from(rng.random_range(-8i32..8)) + 0.5,
        _ => f64::from(rng.random_range(-5i32..6)),
    }
}

fn text_value(rng: &mut Rng) -> String {
    match rng.random_range(0..12) {
        0 => {
            let n = rng.random_range(20..50);
            (0..n)
                .map(|_| *[b'a', b'b', b' ', b'c'].choose(rng).unwrap() as char)
                .collect()
        }
        1 => format!(
            "{}{}",
            TEXTS.choose(rng).unwrap(),
            TEXTS.choose(rng).unwrap()
        ),
        _ => TEXTS.choose(rng).unwrap().to_string(),
    }
}

fn day_value(rng: &mut Rng) -> i32 {
    if rng.random_bool(0.3) {
        *DAYS.choose(rng).unwrap()
    } else {
        rng.random_range(-3_000..21_000)
    }
}

pub fn per_day(unit: TimeUnit) -> i64 {
    match unit {
        TimeUnit::Milliseconds => 86_400_000,
        TimeUnit::Microseconds => 86_400_000_000,
        TimeUnit::Nanoseconds => 86_400_000_000_000,
    }
}

/// A random column of `dtype` and `len` rows.
pub fn random_values(rng: &mut Rng, dtype: &DataType, len: usize) -> Values {
    let null_density = *NULL_DENSITIES.choose(rng).unwrap();
    let draw = |rng: &mut Rng, f: &mut dyn FnMut(&mut Rng) -> i128| -> Vec<Option<i128>> {
        (0..len)
            .map(|_| (!rng.random_bool(null_density)).then(|| f(rng)))
            .collect()
    };
    macro_rules! ints {
        ($variant:ident, $t:ty) => {{
            let v = draw(rng, &mut |rng| {
                int_value(rng, <$t>::MIN as i128, <$t>::MAX as i128)
            });
            Values::$variant(v.into_iter().map(|x| x.map(|x| x as $t)).collect())
        }};
    }
    let nullable = |rng: &mut Rng, len: usize| -> Vec<bool> {
        (0..len).map(|_| rng.random_bool(null_density)).collect()
    };
    match dtype {
        DataType::Int8 => ints!(I8, i8),
        DataType::Int16 => ints!(I16, i16),
        DataType::Int32 => ints!(I32, i32),
        DataType::Int64 => ints!(I64, i64),
        DataType::UInt8 => ints!(U8, u8),
        DataType::UInt16 => ints!(U16, u16),
        DataType::UInt32 => ints!(U32, u32),
        DataType::UInt64 => ints!(U64, u64),
        DataType::Boolean => {
            let nulls = nullable(rng, len);
            Values::Bool(
                nulls
                    .into_iter()
                    .map(|null| (!null).then(|| rng.random_bool(0.5)))
                    .collect(),
            )
        }
        DataType::Float64 | DataType::Float32 => {
            let nulls = nullable(rng, len);
            let v: Vec<Option<f64>> = nulls
                .into_iter()
                .map(|null| (!null).then(|| float_value(rng)))
                .collect();
            if *dtype == DataType::Float32 {
                Values::F32(v.into_iter().map(|x| x.map(|x| x as f32)).collect())
            } else {
                Values::F64(v)
            }
        }
        DataType::String => {
            let nulls = nullable(rng, len);
            Values::Str(
                nulls
                    .into_iter()
                    .map(|null| (!null).then(|| text_value(rng)))
                    .collect(),
            )
        }
        DataType::Date => {
            let nulls = nullable(rng, len);
            Values::Date(
                nulls
                    .into_iter()
                    .map(|null| (!null).then(|| day_value(rng)))
                    .collect(),
            )
        }
        DataType::Datetime(unit, zone) => {
            let nulls = nullable(rng, len);
            let day = per_day(*unit);
            let values = nulls
                .into_iter()
                .map(|null| {
                    (!null).then(|| {
                        let days = i64::from(day_value(rng)).clamp(-30_000, 60_000);
                        let within = match rng.random_range(0..3) {
                            0 => 0,
                            1 => rng.random_range(0..day),
                            _ => rng.random_range(0..24) * (day / 24),
                        };
                        days * day + within
                    })
                })
                .collect();
            match zone {
                Some(zone) => Values::Zoned(*unit, zone.to_string(), values),
                None => Values::Datetime(*unit, values),
            }
        }
        DataType::Duration(unit) => {
            let nulls = nullable(rng, len);
            let day = per_day(*unit);
            Values::Duration(
                *unit,
                nulls
                    .into_iter()
                    .map(|null| {
                        (!null).then(|| match rng.random_range(0..4) {
                            0 => rng.random_range(-3i64..4) * day,
                            1 => rng.random_range(-100i64..100) * (day / 86_400),
                            _ => rng.random_range(-5i64..6),
                        })
                    })
                    .collect(),
            )
        }
        DataType::Time => {
            let nulls = nullable(rng, len);
            const DAY: i64 = 86_400_000_000_000;
            Values::Time(
                nulls
                    .into_iter()
                    .map(|null| {
                        (!null).then(|| match rng.random_range(0..4) {
                            0 => *[0, DAY - 1, DAY / 2].choose(rng).unwrap(),
                            1 => rng.random_range(0..DAY),
                            _ => rng.random_range(0..24) * (DAY / 24),
                        })
                    })
                    .collect(),
            )
        }
        DataType::Categorical(..) | DataType::Enum(..) => {
            let nulls = nullable(rng, len);
            let enumeration = matches!(dtype, DataType::Enum(..));
            let values = nulls
                .into_iter()
                .map(|null| {
                    (!null).then(|| match rng.random_range(0..4) {
                        0 if !enumeration => text_value(rng),
                        _ => (*ENUM_TEXTS.choose(rng).unwrap()).into(),
                    })
                })
                .collect();
            match enumeration {
                true => Values::Enum(values),
                false => Values::Categorical(values),
            }
        }
        DataType::List(values) => {
            // Lengths of 0 to 4, nulls among them.
            let mut spans = Vec::with_capacity(len);
            let mut end = 0;
            for null in nullable(rng, len) {
                let length = *[0, 1, 1, 2, 3, 4].choose(rng).unwrap();
                spans.push((!null).then(|| (end, end + length)));
                end += if null { 0 } else { length };
            }
            Values::List(Box::new(random_values(rng, values, end)), spans)
        }
        DataType::Struct(fields) => {
            let fields = fields
                .iter()
                .map(|field| {
                    (
                        field.name().to_string(),
                        random_values(rng, field.dtype(), len),
                    )
                })
                .collect();
            Values::Struct(fields, (0..len as u32).map(Some).collect())
        }
        DataType::Decimal(precision, scale) => {
            // Within the precision and i64 (rarely beyond i64: Polars answers).
            let digits = (*precision).min(18) as u32;
            let most = 10i128.pow(digits) - 1;
            let tie = 5 * 10i128.pow((*scale as u32).saturating_sub(1));
            let wide = i128::from(i64::MAX) + 1;
            let values = draw(rng, &mut |rng| {
                let value = match rng.random_range(0..12) {
                    0 => most,
                    1 => -most,
                    2 => tie,
                    3 => -3 * tie,
                    4 if *precision > 19 && rng.random_bool(0.1) => return wide,
                    5 => int_value(rng, -most, most) * 10i128.pow(*scale as u32),
                    _ => int_value(rng, -most, most),
                };
                value.clamp(-most, most)
            });
            Values::Decimal(*precision, *scale, values)
        }
        other => panic!("no random values of {other}"),
    }
}

/// A random number of rows: empty and one-row frames often, a few past 256
/// (where per-group work splits into chunks).
pub fn random_height(rng: &mut Rng) -> usize {
    match rng.random_range(0..100) {
        0..=4 => 0,
        5..=14 => 1,
        15..=49 => rng.random_range(2..9),
        50..=89 => rng.random_range(9..41),
        90..=96 => rng.random_range(41..200),
        _ => rng.random_range(250..600),
    }
}

/// A random table of `len` rows with the given column types.
pub fn random_table(rng: &mut Rng, schema: &[(String, DataType)], len: usize) -> Table {
    let columns = schema
        .iter()
        .map(|(name, dtype)| (name.clone(), random_values(rng, dtype, len)))
        .collect();
    let split = (len > 2 && rng.random_bool(0.15)).then(|| rng.random_range(1..len));
    Table { columns, split }
}

/// A random schema of 2 to 6 columns named from `first` on (`a`, `b`, ...).
pub fn random_schema(rng: &mut Rng, first: char) -> Vec<(String, DataType)> {
    let n = rng.random_range(2..7);
    (0..n)
        .map(|i| {
            let name = char::from(first as u8 + i as u8).to_string();
            (name, random_dtype(rng))
        })
        .collect()
}
