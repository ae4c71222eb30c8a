//! Rust source for the fuzzer's programs: each case is written once, run as Rust and printed from the same tokens.
//!
//! [`case!`] takes a body written against named inputs (`x`, `y`, ...,
//! `xs` for a list) and named parameters; it evaluates the body and also
//! returns its `stringify!`ed tokens with every name replaced by the
//! source of what it stands for. So a printed failure is, token for token,
//! the program that failed.

use polars::prelude::*;

use super::table::{float_source, unit_code};

/// Rust source of a parameter value.
pub trait Code {
    fn code(&self) -> String;
}

macro_rules! int_params {
    ($($t:ty),*) => {$(
        impl Code for $t {
            fn code(&self) -> String {
                format!("{self}{}", stringify!($t))
            }
        }
    )*};
}
int_params!(i8, i16, i32, i64, u8, u16, u32, u64, usize);

impl Code for f64 {
    fn code(&self) -> String {
        float_source(*self, "f64", *self == f64::MAX, *self == f64::MIN)
    }
}

impl Code for bool {
    fn code(&self) -> String {
        self.to_string()
    }
}

impl Code for char {
    fn code(&self) -> String {
        format!("{self:?}")
    }
}

impl Code for String {
    fn code(&self) -> String {
        format!("{self:?}")
    }
}

impl Code for &'static str {
    fn code(&self) -> String {
        format!("{self:?}")
    }
}

impl<T: Code> Code for Option<T> {
    fn code(&self) -> String {
        match self {
            Some(v) => format!("Some({})", v.code()),
            None => "None".into(),
        }
    }
}

impl<T: Code> Code for Vec<T> {
    fn code(&self) -> String {
        let items: Vec<String> = self.iter().map(Code::code).collect();
        format!("vec![{}]", items.join(", "))
    }
}

/// Enums whose source is `Type::Variant`.
macro_rules! enum_params {
    ($($t:ident),*) => {$(
        impl Code for $t {
            fn code(&self) -> String {
                format!("{}::{:?}", stringify!($t), self)
            }
        }
    )*};
}
enum_params!(
    RoundMode,
    InterpolationMethod,
    RankMethod,
    QuantileMethod,
    ClosedInterval,
    UniqueKeepStrategy,
    MaintainOrderJoin
);

/// (Polars' `Debug` of a join type is its upper-case name.)
impl Code for JoinType {
    fn code(&self) -> String {
        let variant = match self {
            JoinType::Inner => "Inner",
            JoinType::Left => "Left",
            JoinType::Right => "Right",
            JoinType::Full => "Full",
            JoinType::Semi => "Semi",
            JoinType::Anti => "Anti",
            JoinType::Cross => "Cross",
            JoinType::AsOf(options) => {
                let scalar = |t: &Scalar| match t.value().extract::<i64>() {
                    Some(t) => format!("Scalar::from({t}i64)"),
                    None => format!("/* {t:?} */"),
                };
                let names = |by: &Option<Vec<PlSmallStr>>| match by {
                    None => "None".to_string(),
                    Some(names) => format!("Some(vec![{}])", {
                        let names: Vec<String> =
                            names.iter().map(|n| format!("{n:?}.into()")).collect();
                        names.join(", ")
                    }),
                };
                return format!(
                    "JoinType::AsOf(Box::new(AsOfOptions {{ strategy: AsofStrategy::{:?}, \
                     tolerance: {}, tolerance_str: {}, left_by: {}, right_by: {}, \
                     allow_eq: {}, check_sortedness: {} }}))",
                    options.strategy,
                    options
                        .tolerance
                        .as_ref()
                        .map_or("None".into(), |t| format!("Some({})", scalar(t))),
                    options
                        .tolerance_str
                        .as_ref()
                        .map_or("None".into(), |t| format!("Some({t:?}.into())")),
                    names(&options.left_by),
                    names(&options.right_by),
                    options.allow_eq,
                    options.check_sortedness
                );
            }
        };
        format!("JoinType::{variant}")
    }
}

impl Code for RollingOptionsFixedWindow {
    fn code(&self) -> String {
        format!(
            "RollingOptionsFixedWindow {{ window_size: {}, min_periods: {}, center: {}, \
             ..Default::default() }}",
            self.window_size, self.min_periods, self.center
        )
    }
}

impl Code for RollingOptionsDynamicWindow {
    fn code(&self) -> String {
        format!(
            "RollingOptionsDynamicWindow {{ window_size: Duration::parse({:?}), min_periods: {}, \
             closed_window: ClosedWindow::{:?}, fn_params: None }}",
            duration_text(&self.window_size),
            self.min_periods,
            self.closed_window
        )
    }
}

/// Polars' duration text that parses back to `d` (its own display writes
/// integers as nanoseconds).
fn duration_text(d: &Duration) -> String {
    if d.parsed_int {
        return format!("{}i", d.nanoseconds());
    }
    let parts = [
        (d.months(), "mo"),
        (d.weeks(), "w"),
        (d.days(), "d"),
        (d.nanoseconds(), "ns"),
    ];
    let text: String = parts
        .iter()
        .filter(|(n, _)| *n != 0)
        .map(|(n, unit)| format!("{n}{unit}"))
        .collect();
    match (text.is_empty(), d.negative()) {
        (true, _) => "0ns".into(),
        (false, true) => format!("-{text}"),
        (false, false) => text,
    }
}

impl Code for EWMOptions {
    fn code(&self) -> String {
        format!(
            "EWMOptions {{ alpha: {:?}, adjust: {}, bias: {}, min_periods: {}, \
             ignore_nulls: {} }}",
            self.alpha, self.adjust, self.bias, self.min_periods, self.ignore_nulls
        )
    }
}

impl Code for TimeUnit {
    fn code(&self) -> String {
        unit_code(*self).into()
    }
}

impl Code for DataType {
    fn code(&self) -> String {
        match self {
            DataType::Datetime(unit, None) => {
                format!("DataType::Datetime({}, None)", unit_code(*unit))
            }
            DataType::Datetime(unit, Some(zone)) => format!(
                "DataType::Datetime({}, Some(crate::fuzz::table::time_zone({:?})))",
                unit_code(*unit),
                zone.as_str()
            ),
            DataType::Duration(unit) => format!("DataType::Duration({})", unit_code(*unit)),
            DataType::Categorical(..) => "crate::fuzz::table::categorical()".into(),
            DataType::Enum(..) => "crate::fuzz::table::enumeration()".into(),
            DataType::List(of) => format!("DataType::List(Box::new({}))", of.code()),
            other => format!("DataType::{other:?}"),
        }
    }
}

/// A literal value `index_of` looks for: null, or of the input's class.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Needle {
    Null,
    Int(i64),
    Float(f64),
    Str(&'static str),
    Bool(bool),
}

impl From<Needle> for Expr {
    fn from(needle: Needle) -> Expr {
        match needle {
            Needle::Null => lit(NULL),
            Needle::Int(v) => lit(v),
            Needle::Float(v) => lit(v),
            Needle::Str(v) => lit(v),
            Needle::Bool(v) => lit(v),
        }
    }
}

impl Code for Needle {
    fn code(&self) -> String {
        match self {
            Needle::Null => "lit(NULL)".into(),
            Needle::Int(v) => format!("lit({})", v.code()),
            Needle::Float(v) => format!("lit({})", v.code()),
            Needle::Str(v) => format!("lit({})", v.code()),
            Needle::Bool(v) => format!("lit({})", v.code()),
        }
    }
}

/// A literal list for `is_in`, of one type.
#[derive(Debug, Clone, PartialEq)]
pub enum List {
    Int(Vec<Option<i64>>),
    Float(Vec<Option<f64>>),
    Str(Vec<Option<String>>),
}

impl List {
    pub fn len(&self) -> usize {
        match self {
            List::Int(v) => v.len(),
            List::Float(v) => v.len(),
            List::Str(v) => v.len(),
        }
    }

    /// The list cut or lengthened (by copies of its values, or zeros and
    /// empty texts) to `n` values.
    pub fn resized(self, n: usize) -> List {
        fn resize<T: Clone>(mut v: Vec<Option<T>>, n: usize, fill: T) -> Vec<Option<T>> {
            let fill = v.first().cloned().unwrap_or(Some(fill));
            v.resize(n, fill);
            v
        }
        match self {
            List::Int(v) => List::Int(resize(v, n, 0)),
            List::Float(v) => List::Float(resize(v, n, 0.0)),
            List::Str(v) => List::Str(resize(v, n, String::new())),
        }
    }

    pub fn series(&self) -> Series {
        match self {
            List::Int(v) => Series::new("".into(), v),
            List::Float(v) => Series::new("".into(), v),
            List::Str(v) => {
                let v: Vec<Option<&str>> = v.iter().map(|s| s.as_deref()).collect();
                Series::new("".into(), v)
            }
        }
    }
}

impl Code for Series {
    fn code(&self) -> String {
        fn items<T>(
            v: impl Iterator<Item = Option<T>>,
            f: impl Fn(T) -> String,
            ty: &str,
        ) -> String {
            let items: Vec<String> = v
                .map(|x| match x {
                    Some(x) => format!("Some({})", f(x)),
                    None => format!("None::<{ty}>"),
                })
                .collect();
            format!("Series::new(\"\".into(), [{}])", items.join(", "))
        }
        match self.dtype() {
            DataType::Int64 => items(self.i64().unwrap().iter(), |x| format!("{x}i64"), "i64"),
            DataType::Float64 => items(self.f64().unwrap().iter(), |x| x.code(), "f64"),
            DataType::String => items(self.str().unwrap().iter(), |x| format!("{x:?}"), "&str"),
            other => panic!("no source for a series of {other}"),
        }
    }
}

/// Replaces each whole identifier of `tokens` that `names` binds (and that
/// is not a method or path segment) by its source.
pub fn substitute(tokens: &str, names: &[(&str, String)]) -> String {
    let bytes = tokens.as_bytes();
    let mut out = String::with_capacity(tokens.len() * 2);
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        let c = bytes[i] as char;
        if in_string {
            out.push(c);
            if c == '\\' && i + 1 < bytes.len() {
                out.push(bytes[i + 1] as char);
                i += 2;
                continue;
            }
            if c == '"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        if c == '"' {
            in_string = true;
            out.push(c);
            i += 1;
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let word = &tokens[start..i];
            let before = tokens[..start].trim_end();
            let member = before.ends_with('.') || before.ends_with("::");
            match names.iter().find(|(name, _)| *name == word) {
                Some((_, source)) if !member => out.push_str(source),
                _ => out.push_str(word),
            }
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Evaluates `$body` over expression inputs and parameters, and returns it
/// with its source: `case!(inputs, sources; [x, y]; n = *n; x.shift(lit(n)))`.
/// An input named in `[..; xs]` after a `;` takes all remaining inputs as a `Vec`.
macro_rules! case {
    ($inputs:expr, $sources:expr; [$($x:ident),*]; $($p:ident = $v:expr),*; $body:expr) => {
        case!($inputs, $sources; [$($x),* ; _rest]; $($p = $v),*; $body)
    };
    ($inputs:expr, $sources:expr; [$($x:ident),* ; $xs:ident]; $($p:ident = $v:expr),*; $body:expr) => {{
        #[allow(unused_mut)]
        let mut names: Vec<(&str, String)> = Vec::new();
        #[allow(unused_mut)]
        let mut sources = $sources.into_iter();
        $( names.push((stringify!($x), sources.next().expect("an input's source"))); )*
        let rest: Vec<String> = sources.collect();
        names.push((stringify!($xs), format!("vec![{}]", rest.join(", "))));
        $(
            #[allow(clippy::clone_on_copy)]
            let $p = $v.clone();
            names.push((stringify!($p), $crate::fuzz::code::Code::code(&$p)));
        )*
        let source = $crate::fuzz::code::substitute(stringify!($body), &names);
        #[allow(unused_mut)]
        let mut inputs = $inputs.into_iter();
        $( let $x = inputs.next().expect("an input"); )*
        #[allow(unused_variables)]
        let $xs: Vec<_> = inputs.collect();
        ($body, source)
    }};
}
pub(crate) use case;
