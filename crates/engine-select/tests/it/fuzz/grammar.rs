//! The fuzzer's grammar: random, typed expressions and chains of lazy operations over a schema.
//!
//! Expressions are drawn by the class of value wanted ([`Ty`]): each class
//! has its productions (columns, literals, functions whose result is of the
//! class, over inputs drawn the same way), so that most drawn queries are
//! valid; Polars' own schema resolution rejects the rest, which are drawn
//! again. Operations that read other rows (shifts, running sums, `first`)
//! are drawn only where the rows have a defined order.

use ir_lower::{GpuDtype, HostFunction, UnaryFunction};
use polars::prelude::*;
use rand::RngExt;
use rand::seq::IndexedRandom;

use super::Rng;
use super::code::{List, Needle};
use super::expr::{Agg, E, Lit, Op, Part};

mod around;
mod casts;
mod filtered;
mod nested;
mod windows;
pub use super::ty::{ALL, Ty};
pub use nested::nested_moved_or_chosen;

/// Where an expression is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// A select, with_columns or filter: one value per row, aggregations
    /// broadcast.
    Rows,
    /// Inside a group-by's aggregation: per group.
    Groups,
}

/// Draws expressions over one schema.
pub struct Grammar<'r> {
    pub rng: &'r mut Rng,
    pub schema: Vec<(String, DataType)>,
    /// Whether the rows have a defined order (order-reading functions are drawn only then).
    pub ordered: bool,
    pub context: Context,
}

/// Patterns for string matching: literals, and regular expressions of every kind the engine runs.
const PATTERNS: &[&str] = &[
    "a", "b", "", "é", "日", " ", "ab", "A", "^a", "a$", "a.*b", "[ab]", "\\d", "\\d+", "^\\s",
    "(a|b)c", ".", "a+", "(?i)a", "Σ", "[^a]",
];

const FORMATS: &[&str] = &[
    "%Y-%m-%d",
    "%Y/%m/%d %H:%M",
    "%d.%m.%Y",
    "%Y",
    "%j %a",
    "%F %T",
    "%Y-%m-%d %H:%M %z",
    "%F %T%.f",
    "iso",
];

/// Formats of times of day (a date specifier there makes Polars panic).
const TIME_FORMATS: &[&str] = &["%H:%M", "%T%.f", "%I:%M:%S %p", "%R|%3f", "iso"];

impl Grammar<'_> {
    pub(super) fn chance(&mut self, p: f64) -> bool {
        self.rng.random_bool(p)
    }

    pub(super) fn columns_of(&self, ty: Ty) -> Vec<String> {
        self.schema
            .iter()
            .filter(|(_, dtype)| Ty::of(dtype) == Some(ty))
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// A class of value, weighted by the columns there are.
    pub fn any_ty(&mut self) -> Ty {
        let present: Vec<Ty> = self
            .schema
            .iter()
            .filter_map(|(_, dtype)| Ty::of(dtype))
            .collect();
        if !present.is_empty() && self.chance(0.8) {
            *present.choose(self.rng).unwrap()
        } else {
            *ALL.choose(self.rng).unwrap()
        }
    }

    pub fn literal(&mut self, ty: Ty) -> E {
        if self.chance(0.04) {
            return E::lit(Lit::Null);
        }
        let lit = match ty {
            Ty::Bool => Lit::Bool(self.chance(0.5)),
            Ty::Int => match self.rng.random_range(0..10) {
                0 => Lit::I32(self.rng.random_range(-3..4)),
                1 => Lit::Int(
                    *[i64::MIN, i64::MAX, -1000, 1 << 40]
                        .choose(self.rng)
                        .unwrap(),
                ),
                _ => Lit::Int(self.rng.random_range(-4..6)),
            },
            Ty::UInt => match self.rng.random_range(0..4) {
                0 => Lit::U8(self.rng.random_range(0..6)),
                1 => Lit::U32(self.rng.random_range(0..6)),
                _ => Lit::Int(self.rng.random_range(0..6)),
            },
            Ty::Float => Lit::Float(
                *[
                    0.0,
                    -0.0,
                    1.5,
                    -2.0,
                    0.1,
                    3.0,
                    f64::NAN,
                    f64::INFINITY,
                    1e300,
                    0.5,
                    -1.0,
                ]
                .choose(self.rng)
                .unwrap(),
            ),
            Ty::Str => Lit::Str(
                (*[
                    "",
                    "a",
                    "b",
                    "É",
                    "日本",
                    "x y",
                    "1",
                    "2024-01-15",
                    "ab",
                    "aaa",
                ]
                .choose(self.rng)
                .unwrap())
                .into(),
            ),
            Ty::Date => Lit::Date(*[0, 19_000, -1, 11_016, 20_000].choose(self.rng).unwrap()),
            Ty::Datetime => {
                let unit = self.unit();
                let date = E::lit(Lit::Date(self.rng.random_range(-100..20_000)));
                return E::new(Op::Cast(DataType::Datetime(unit, None), false), vec![date]);
            }
            Ty::Duration => {
                let unit = self.unit();
                Lit::Duration(self.rng.random_range(-3..1_000_000), unit)
            }
            Ty::Time => {
                const HOUR: i64 = 3_600_000_000_000;
                Lit::Time(self.rng.random_range(0..24) * HOUR + self.rng.random_range(0..3))
            }
            // A text, which Polars compares with a categorical as its
            // category (elsewhere casts it, adding it to the categories).
            Ty::Cat => Lit::Str((*super::table::ENUM_TEXTS.choose(self.rng).unwrap()).into()),
            Ty::Decimal => return self.decimal_literal(),
            Ty::Zoned => {
                let dtype = self.zoned_type();
                let DataType::Datetime(unit, _) = dtype else {
                    unreachable!("a zoned type")
                };
                let day = super::table::per_day(unit);
                let ticks = self.rng.random_range(-100..20_000) * day
                    + self.rng.random_range(0..24) * (day / 24);
                return E::new(Op::Cast(dtype, false), vec![E::lit(Lit::Int(ticks))]);
            }
        };
        E::lit(lit)
    }

    /// A column of class `ty`, or an expression standing for one.
    pub(super) fn leaf(&mut self, ty: Ty) -> E {
        let columns = self.columns_of(ty);
        if !columns.is_empty() && self.chance(0.85) {
            return E::col(columns.choose(self.rng).unwrap());
        }
        if self.chance(0.5)
            && let Some(e) = self.cast_to(ty, 0)
        {
            return e;
        }
        self.literal(ty)
    }

    /// A row-wise value of class `ty`, at most `depth` operations deep.
    pub fn value(&mut self, ty: Ty, depth: u32) -> E {
        if depth == 0 || self.chance(0.3) {
            return self.leaf(ty);
        }
        let d = depth - 1;
        // Productions every class has.
        match self.rng.random_range(0..40) {
            0 => {
                let c = self.value(Ty::Bool, d);
                let (t, o) = (self.value(ty, d), self.value(ty, d));
                return E::new(Op::When, vec![c, t, o]);
            }
            1 => return E::new(Op::FillNull, vec![self.value(ty, d), self.value(ty, d)]),
            2 => {
                let n = self.rng.random_range(2..4);
                return E::new(Op::Coalesce, (0..n).map(|_| self.value(ty, d)).collect());
            }
            3 if self.chance(0.5) => {
                if let Some(e) = self.cast_to(ty, d) {
                    return e;
                }
            }
            4 => return self.scalar(ty, d),
            5 | 6 if self.ordered => {
                return self.ordered_op(ty, d);
            }
            7 if self.context == Context::Rows => return self.window(ty, d),
            8 if self.context == Context::Rows && self.ordered && self.chance(0.5) => {
                return self.ordered_window(ty, d);
            }
            9 if matches!(ty, Ty::Int | Ty::Str) => return self.replaced(ty, d),
            _ => {}
        }
        match ty {
            Ty::Int | Ty::UInt => self.integer(ty, d),
            Ty::Float => self.float(d),
            Ty::Bool => self.boolean(d),
            Ty::Str => self.text(d),
            Ty::Date | Ty::Datetime | Ty::Duration | Ty::Time | Ty::Zoned => self.temporal(ty, d),
            Ty::Cat => self.leaf(ty),
            Ty::Decimal => self.decimal(d),
        }
    }

    /// A value of class `ty` that is not one value (see [`E::one_value`]):
    /// the first input of a function whose other inputs may be per row.
    /// Polars gives such a function the length of its first input, so of
    /// one value with per-row bounds (`lit(0).clip(col("a"), ..)`) its
    /// answer depends on how Polars holds its columns (scalar or not),
    /// which no other engine can follow: the grammar leaves it out.
    fn per_row(&mut self, ty: Ty, d: u32) -> E {
        let x = self.value(ty, d);
        if !x.one_value() {
            return x;
        }
        match self.column_named(ty) {
            Some(name) => E::col(&name),
            None => E::new(Op::FillNull, vec![self.leaf(ty), x]),
        }
    }

    /// A rounding mode of Polars' `round`.
    pub(super) fn round_mode(&mut self) -> RoundMode {
        *[
            RoundMode::HalfToEven,
            RoundMode::HalfAwayFromZero,
            RoundMode::ToZero,
        ]
        .choose(self.rng)
        .unwrap()
    }

    fn arithmetic(&mut self) -> Op {
        match self.rng.random_range(0..9) {
            0..=2 => Op::Add,
            3 | 4 => Op::Sub,
            5 => Op::Mul,
            6 => Op::Div,
            7 => Op::FloorDiv,
            _ => Op::Rem,
        }
    }

    fn integer(&mut self, ty: Ty, d: u32) -> E {
        match self.rng.random_range(0..16) {
            4 if self.chance(0.15) => self.integer_power(ty, d),
            0..=3 => {
                let op = self.arithmetic();
                let other = if self.chance(0.7) { ty } else { Ty::Int };
                E::new(op, vec![self.value(ty, d), self.value(other, d)])
            }
            4 => {
                let op = std::iter::once(Op::Abs)
                    .chain(unary_functions(GpuDtype::Int64))
                    .collect::<Vec<_>>()
                    .choose(self.rng)
                    .unwrap()
                    .clone();
                E::new(op, vec![self.value(ty, d)])
            }
            5 if self.chance(0.5) => E::new(Op::Neg, vec![self.value(ty, d)]),
            // Bitwise: `&`, `|`, `^` of two integers, `!` of one.
            5 if self.chance(0.25) => E::new(Op::Not, vec![self.value(ty, d)]),
            5 => {
                let op = [Op::And, Op::Or, Op::Xor].choose(self.rng).unwrap().clone();
                E::new(op, vec![self.value(ty, d), self.value(ty, d)])
            }
            6 => {
                let op = [Op::LenBytes, Op::LenChars]
                    .choose(self.rng)
                    .unwrap()
                    .clone();
                E::new(op, vec![self.value(Ty::Str, d)])
            }
            7 if self.chance(0.2) => {
                // Each row's text found in another.
                let (x, p) = (self.value(Ty::Str, d), self.value(Ty::Str, d));
                E::new(Op::FindBy, vec![x, p])
            }
            7 => {
                let p = self.pattern();
                let literal = self.chance(0.5);
                let op = if self.chance(0.5) {
                    Op::CountMatches(p, literal)
                } else {
                    Op::Find(p, literal)
                };
                E::new(op, vec![self.value(Ty::Str, d)])
            }
            8 => {
                let (from, parts): (Ty, &[Part]) = match self.rng.random_range(0..5) {
                    0 => (
                        Ty::Date,
                        &[
                            Part::Year,
                            Part::Month,
                            Part::Day,
                            Part::Quarter,
                            Part::Weekday,
                            Part::OrdinalDay,
                            Part::Week,
                        ],
                    ),
                    1 => (
                        Ty::Datetime,
                        &[
                            Part::Year,
                            Part::Hour,
                            Part::Minute,
                            Part::Second,
                            Part::Millisecond,
                            Part::Day,
                        ],
                    ),
                    3 => (
                        Ty::Zoned,
                        &[
                            Part::Year,
                            Part::Month,
                            Part::Day,
                            Part::Weekday,
                            Part::OrdinalDay,
                            Part::Hour,
                            Part::Minute,
                            Part::Second,
                        ],
                    ),
                    2 => (
                        Ty::Time,
                        &[
                            Part::Hour,
                            Part::Minute,
                            Part::Second,
                            Part::Millisecond,
                            Part::Nanosecond,
                        ],
                    ),
                    _ => (Ty::Duration, &[Part::TotalDays, Part::TotalSeconds]),
                };
                let part = *parts.choose(self.rng).unwrap();
                E::new(Op::Part(part), vec![self.value(from, d)])
            }
            9 => {
                let x = self.per_row(ty, d);
                let (lo, hi) = (self.value(ty, d), self.value(ty, d));
                E::new(Op::Clip, vec![x, lo, hi])
            }
            10 => E::leaf(Op::Len),
            11 => {
                let ops = [
                    Op::SumHorizontal(true),
                    Op::SumHorizontal(false),
                    Op::MinHorizontal,
                    Op::MaxHorizontal,
                ];
                self.horizontal(&ops, ty, d)
            }
            _ => self.leaf(ty),
        }
    }

    /// One of the horizontal functions `ops` over two or three values of
    /// class `ty`.
    pub(super) fn horizontal(&mut self, ops: &[Op], ty: Ty, d: u32) -> E {
        let op = ops.choose(self.rng).unwrap().clone();
        let n = self.rng.random_range(2..4);
        E::new(op, (0..n).map(|_| self.value(ty, d)).collect())
    }

    fn float(&mut self, d: u32) -> E {
        match self.rng.random_range(0..18) {
            0..=3 => {
                let op = self.arithmetic();
                let other = *[Ty::Float, Ty::Float, Ty::Int].choose(self.rng).unwrap();
                E::new(op, vec![self.value(Ty::Float, d), self.value(other, d)])
            }
            4 => {
                let mut op = [Op::Abs, Op::Neg, Op::Floor, Op::Ceil]
                    .into_iter()
                    .chain(unary_functions(GpuDtype::Float64))
                    .chain(HostFunction::ALL.map(Op::OnHost))
                    .collect::<Vec<_>>()
                    .choose(self.rng)
                    .unwrap()
                    .clone();
                // (Polars takes libm's functions of integers as of f64,
                // and of decimals where it takes them; significant digits
                // from 1 to past f64's.)
                let input = match op {
                    Op::OnHost(f) if f.of_decimals() && self.chance(0.15) => Ty::Decimal,
                    Op::OnHost(f) if f.of_numbers() && self.chance(0.3) => Ty::Int,
                    _ => Ty::Float,
                };
                if let Op::OnHost(HostFunction::RoundSigFigs { digits }) = &mut op {
                    *digits = *[1, 1, 2, 3, 6, 15, 17, 30].choose(self.rng).unwrap();
                }
                let mut inputs = vec![self.value(input, d)];
                // (A binary one's first input a literal at times, which
                // Polars broadcasts: `lit(2.0).pow(x)`.)
                if matches!(op, Op::OnHost(f) if f.binary()) && self.chance(0.4) {
                    let ty = *[Ty::Float, Ty::Int].choose(self.rng).unwrap();
                    inputs.insert(0, self.literal(ty));
                }
                E::new(op, inputs)
            }
            5 => {
                let mode = self.round_mode();
                let decimals = self.rng.random_range(0..4);
                E::new(Op::Round(decimals, mode), vec![self.value(Ty::Float, d)])
            }
            6 => {
                let v = self.value(Ty::Float, d);
                E::new(Op::FillNan, vec![self.value(Ty::Float, d), v])
            }
            7 => {
                let p = *[2.0, 0.5, 3.0, -1.0].choose(self.rng).unwrap();
                E::new(Op::Pow(p), vec![self.value(Ty::Float, d)])
            }
            9 => {
                let x = self.per_row(Ty::Float, d);
                let (lo, hi) = (self.value(Ty::Float, d), self.value(Ty::Float, d));
                E::new(Op::Clip, vec![x, lo, hi])
            }
            10 => {
                let from = *[Ty::Int, Ty::UInt].choose(self.rng).unwrap();
                let op = if self.chance(0.5) {
                    Op::Div
                } else {
                    self.arithmetic()
                };
                E::new(op, vec![self.value(from, d), self.value(from, d)])
            }
            11 => {
                let part = *[Part::TotalHours, Part::TotalMilliseconds]
                    .choose(self.rng)
                    .unwrap();
                E::new(Op::Part(part), vec![self.value(Ty::Duration, d)])
            }
            12 => {
                let ops = [
                    Op::SumHorizontal(true),
                    Op::SumHorizontal(false),
                    Op::MeanHorizontal(true),
                    Op::MeanHorizontal(false),
                    Op::MinHorizontal,
                    Op::MaxHorizontal,
                ];
                self.horizontal(&ops, Ty::Float, d)
            }
            13 if self.chance(0.5) => {
                let mean = [Op::MeanHorizontal(true), Op::MeanHorizontal(false)];
                let from = *[Ty::Int, Ty::UInt].choose(self.rng).unwrap();
                self.horizontal(&mean, from, d)
            }
            13 => {
                // Of two numbers of any classes (added in their supertype).
                let op = Op::MeanHorizontal(self.chance(0.5));
                let classes = [Ty::Int, Ty::UInt, Ty::Float, Ty::Bool];
                let [a, b] = [0, 1].map(|_| *classes.choose(self.rng).unwrap());
                E::new(op, vec![self.value(a, d), self.value(b, d)])
            }
            _ => self.leaf(Ty::Float),
        }
    }

    fn comparable_pair(&mut self, d: u32) -> (E, E) {
        let ty = self.any_ty();
        let other = match ty {
            Ty::Int | Ty::UInt | Ty::Float => {
                *[ty, ty, Ty::Int, Ty::Float].choose(self.rng).unwrap()
            }
            // A categorical with texts, made or not (Polars compares its
            // texts).
            Ty::Cat if self.chance(0.3) => Ty::Str,
            t => t,
        };
        (self.value(ty, d), self.value(other, d))
    }

    fn boolean(&mut self, d: u32) -> E {
        match self.rng.random_range(0..22) {
            0..=4 => {
                let op = [
                    Op::Eq,
                    Op::NotEq,
                    Op::Lt,
                    Op::LtEq,
                    Op::Gt,
                    Op::GtEq,
                    Op::EqMissing,
                    Op::NotEqMissing,
                ]
                .choose(self.rng)
                .unwrap()
                .clone();
                let (x, y) = self.comparable_pair(d);
                E::new(op, vec![x, y])
            }
            5 | 6 => {
                let op = [Op::And, Op::Or, Op::Xor].choose(self.rng).unwrap().clone();
                E::new(op, vec![self.value(Ty::Bool, d), self.value(Ty::Bool, d)])
            }
            7 => E::new(Op::Not, vec![self.value(Ty::Bool, d)]),
            8 => {
                let op = [Op::IsNull, Op::IsNotNull]
                    .choose(self.rng)
                    .unwrap()
                    .clone();
                let ty = self.any_ty();
                E::new(op, vec![self.value(ty, d)])
            }
            // Peaks read the rows beside: where the order is defined.
            9 if self.ordered && self.chance(0.2) => {
                let op = [Op::PeakMax, Op::PeakMin].choose(self.rng).unwrap().clone();
                let ty = *[Ty::Int, Ty::UInt, Ty::Float, Ty::Bool]
                    .choose(self.rng)
                    .unwrap();
                E::new(op, vec![self.value(ty, d)])
            }
            9 => {
                let op = [Op::IsNan, Op::IsNotNan, Op::IsFinite, Op::IsInfinite]
                    .choose(self.rng)
                    .unwrap()
                    .clone();
                E::new(op, vec![self.value(Ty::Float, d)])
            }
            10 | 11 => {
                let ty = *[Ty::Int, Ty::UInt, Ty::Str, Ty::Float, Ty::Int, Ty::Cat]
                    .choose(self.rng)
                    .unwrap();
                let nulls_equal = self.chance(0.3);
                let x = self.value(ty, d);
                // (Polars' type coercion of an untyped null `is_in` a
                // computed column runs without end, filling its arena until
                // memory runs out: such a draw takes a literal list.)
                let null = E::lit(Lit::Null);
                let x = if x == null { self.leaf(ty) } else { x };
                if self.chance(0.3) && x != null {
                    let y = self.value(ty, d);
                    E::new(Op::IsInColumn(nulls_equal), vec![x, y])
                } else {
                    let list = self.list(ty);
                    E::new(Op::IsIn(list, nulls_equal), vec![x])
                }
            }
            12 => {
                let ty = *[Ty::Int, Ty::Float, Ty::Str, Ty::Date, Ty::Cat]
                    .choose(self.rng)
                    .unwrap();
                let closed = *[
                    ClosedInterval::Both,
                    ClosedInterval::Left,
                    ClosedInterval::Right,
                    ClosedInterval::None,
                ]
                .choose(self.rng)
                .unwrap();
                // A categorical's bounds are texts.
                let bound = if ty == Ty::Cat { Ty::Str } else { ty };
                let args = vec![self.value(ty, d), self.leaf(bound), self.leaf(bound)];
                E::new(Op::IsBetween(closed), args)
            }
            13 | 14 => {
                let p = self.pattern();
                let op = match self.rng.random_range(0..5) {
                    0 => Op::Contains(p, true),
                    1 => Op::Contains(p, false),
                    2 => Op::StartsWith(p),
                    3 => Op::ContainsAny(self.list(Ty::Str), self.chance(0.3)),
                    _ => Op::EndsWith(p),
                };
                E::new(op, vec![self.value(Ty::Str, d)])
            }
            15 => E::new(Op::Part(Part::IsLeapYear), vec![self.value(Ty::Date, d)]),
            16 => {
                let op = [Op::IsUnique, Op::IsDuplicated]
                    .choose(self.rng)
                    .unwrap()
                    .clone();
                let ty = self.any_ty();
                E::new(op, vec![self.value(ty, d)])
            }
            17 => self.horizontal(&[Op::AllHorizontal, Op::AnyHorizontal], Ty::Bool, d),
            _ => self.leaf(Ty::Bool),
        }
    }

    fn pattern(&mut self) -> String {
        (*PATTERNS.choose(self.rng).unwrap()).into()
    }

    fn list(&mut self, ty: Ty) -> List {
        let n = self.rng.random_range(0..5);
        let null = |rng: &mut Rng| rng.random_bool(0.15);
        match ty {
            Ty::Str | Ty::Cat => List::Str(
                (0..n)
                    .map(|_| {
                        (!null(self.rng)).then(|| {
                            (*["a", "", "b", "É", "1", "ab"].choose(self.rng).unwrap()).into()
                        })
                    })
                    .collect(),
            ),
            Ty::Float => List::Float(
                (0..n)
                    .map(|_| {
                        (!null(self.rng)).then(|| {
                            *[0.0, -0.0, 1.0, f64::NAN, 0.5, -2.0]
                                .choose(self.rng)
                                .unwrap()
                        })
                    })
                    .collect(),
            ),
            _ => List::Int(
                (0..n)
                    .map(|_| (!null(self.rng)).then(|| self.rng.random_range(-3..6)))
                    .collect(),
            ),
        }
    }

    /// `replace` of a value by literal old and new values (one new value,
    /// or as many as the old), or `replace_strict` with a default (a
    /// value of the class) or without; repeated old values and counts that
    /// differ now and then, which Polars rejects.
    fn replaced(&mut self, ty: Ty, d: u32) -> E {
        let x = self.value(ty, d);
        let old = self.list(ty);
        let n = match (old.len(), self.rng.random_range(0..10)) {
            (_, 0) => 1,
            (_, 1) => self.rng.random_range(0..5),
            (n, _) => n,
        };
        let new = self.list(ty).resized(n);
        if self.chance(0.7) {
            E::new(Op::ReplaceValues(old, new), vec![x])
        } else if self.chance(0.3) {
            // Without a default: Polars raises where a value has no new one.
            E::new(Op::ReplaceStrict(old, new), vec![x])
        } else {
            let default = self.value(ty, d);
            E::new(Op::ReplaceStrict(old, new), vec![x, default])
        }
    }

    fn text(&mut self, d: u32) -> E {
        let x = |g: &mut Self| g.value(Ty::Str, d);
        match self.rng.random_range(0..20) {
            0 | 1 if self.chance(0.3) => {
                // Bounds of each row's.
                let (text, by) = (x(self), self.value(Ty::Int, d));
                let (op, length) = match self.rng.random_range(0..4) {
                    0 => (Op::StrHeadBy, None),
                    1 => (Op::StrTailBy, None),
                    2 => (Op::StrSliceBy, None),
                    _ => (Op::StrSliceBy, Some(self.value(Ty::Int, d))),
                };
                E::new(op, [text, by].into_iter().chain(length).collect())
            }
            0 => {
                let (o, n) = (
                    self.rng.random_range(-3..4),
                    self.chance(0.7).then(|| self.rng.random_range(0..4)),
                );
                E::new(Op::StrSlice(o, n), vec![x(self)])
            }
            1 => {
                let n = self.rng.random_range(-3..4);
                let op = if self.chance(0.5) {
                    Op::StrHead(n)
                } else {
                    Op::StrTail(n)
                };
                E::new(op, vec![x(self)])
            }
            2 => {
                let op = [Op::Upper, Op::Lower].choose(self.rng).unwrap().clone();
                E::new(op, vec![x(self)])
            }
            3 if self.chance(0.2) => {
                // Many literal patterns (some empty or null, which Polars
                // refuses or answers by nulls), by one value or one each.
                let patterns = self.list(Ty::Str);
                let count = if self.chance(0.5) { 1 } else { patterns.len() };
                let values = ["<", "", "é", "ab"];
                let values = List::Str(
                    (0..count)
                        .map(|v| Some(values[(v + self.rng.random_range(0..4)) % 4].into()))
                        .collect(),
                );
                let (leftmost, ci) = (self.chance(0.5), self.chance(0.3));
                E::new(
                    Op::ReplaceMany(patterns, values, leftmost, ci),
                    vec![x(self)],
                )
            }
            3 if self.chance(0.3) => {
                // Capture groups put in (taken literally, `$` stays).
                let p = *[
                    "(a)(b)",
                    "(\\w)(\\w*)",
                    "(a+)",
                    "(?<x>\\d)",
                    "(\\w+)(\\d+)",
                    "(a)+",
                    "a(.)",
                ]
                .choose(self.rng)
                .unwrap();
                let v = *["$1", "$2$1", "<$0>", "${x}-$1", "$$", "$1x", "$9"]
                    .choose(self.rng)
                    .unwrap();
                let (literal, all) = (self.chance(0.2), self.chance(0.5));
                E::new(Op::Replace(p.into(), v.into(), literal, all), vec![x(self)])
            }
            3 => {
                let (p, literal) = (self.pattern(), self.chance(0.5));
                let v = (*["", "-", "xy", "é"].choose(self.rng).unwrap()).into();
                let all = self.chance(0.5);
                E::new(Op::Replace(p, v, literal, all), vec![x(self)])
            }
            4 if self.chance(0.3) => {
                // The characters of each row's text (of both ends, the
                // start or the end).
                let side = self.rng.random_range(0..3);
                E::new(Op::StripCharsBy(side), vec![x(self), x(self)])
            }
            4 => {
                let chars = self
                    .chance(0.5)
                    .then(|| (*["a", " ", "ab", "é"].choose(self.rng).unwrap()).into());
                E::new(Op::StripChars(chars), vec![x(self)])
            }
            5 if self.chance(0.3) => {
                // Each row's length (an integer's remainder by 7, made
                // non-negative).
                let c = *['*', ' ', 'é'].choose(self.rng).unwrap();
                let side = self.rng.random_range(0..3);
                E::new(Op::PadBy(side, c), vec![x(self), self.value(Ty::Int, d)])
            }
            5 => {
                let n = self.rng.random_range(0..6);
                let c = *['*', ' ', 'é'].choose(self.rng).unwrap();
                let op = match self.rng.random_range(0..3) {
                    0 => Op::PadStart(n, c),
                    1 => Op::PadEnd(n, c),
                    _ => Op::Zfill(n),
                };
                E::new(op, vec![x(self)])
            }
            6 | 7 => {
                let sep = (*["", "-", ", "].choose(self.rng).unwrap()).into();
                let ignore = self.chance(0.3);
                let n = self.rng.random_range(1..4);
                let parts: Vec<E> = (0..n)
                    .map(|_| {
                        let ty = if self.chance(0.7) {
                            Ty::Str
                        } else {
                            self.any_ty()
                        };
                        self.value(ty, d)
                    })
                    .collect();
                if self.chance(0.3) {
                    // Polars' `format` of the same parts, with literal text
                    // (braces escaped too) around each.
                    let mut f = String::new();
                    for _ in 0..parts.len() {
                        f.push_str(["", "<", ": ", "{{x}}"].choose(self.rng).unwrap());
                        f.push_str("{}");
                    }
                    f.push_str(["", ">", " ok"].choose(self.rng).unwrap());
                    return E::new(Op::Format(f), parts);
                }
                E::new(Op::ConcatStr(sep, ignore), parts)
            }
            8 => E::new(Op::Add, vec![x(self), x(self)]),
            9 if self.chance(0.3) => {
                // Each row's affix, a text of its own.
                let op = match self.chance(0.5) {
                    true => Op::StripPrefixBy,
                    false => Op::StripSuffixBy,
                };
                E::new(op, vec![x(self), x(self)])
            }
            9 => {
                let p = (*["a", "é", "ab"].choose(self.rng).unwrap()).into();
                E::new(Op::StripPrefix(p), vec![x(self)])
            }
            10 => {
                let (p, group) = *[
                    ("a+", 0),
                    ("(a)(b)", 2),
                    ("\\d+", 0),
                    ("^(\\w)", 1),
                    ("(a)b", 1),
                    ("(\\w+)-(\\d+)", 2),
                    ("(a+)(a)", 1),
                    ("(\\w)(\\w*)", 2),
                    ("(\\w+)(\\d+)", 1),
                    ("((a)b)c?", 2),
                    ("(a)+", 1),
                ]
                .choose(self.rng)
                .unwrap();
                E::new(Op::Extract(p.into(), group), vec![x(self)])
            }
            11 => {
                let from = *[Ty::Date, Ty::Datetime, Ty::Zoned, Ty::Time]
                    .choose(self.rng)
                    .unwrap();
                let formats = if from == Ty::Time {
                    TIME_FORMATS
                } else {
                    FORMATS
                };
                let f = (*formats.choose(self.rng).unwrap()).into();
                E::new(Op::ToString(f), vec![self.value(from, d)])
            }
            _ => self.leaf(Ty::Str),
        }
    }

    /// An aggregation of class `ty`: one value for the frame (broadcast
    /// where rows are wanted) or per group.
    pub fn scalar(&mut self, ty: Ty, d: u32) -> E {
        let inner = |g: &mut Self, ty: Ty| -> E { g.maybe_filtered(ty, d) };
        // Within groups too, the rows are in the input's order: defined or not.
        let ordered = self.ordered;
        let (agg, from): (Agg, Ty) = match ty {
            Ty::Float => match self.rng.random_range(0..10) {
                0 => (
                    Agg::Mean,
                    *[Ty::Float, Ty::Int, Ty::Bool, Ty::Decimal]
                        .choose(self.rng)
                        .unwrap(),
                ),
                1 if self.chance(0.2) => {
                    let base = *[2.0, std::f64::consts::E, 10.0].choose(self.rng).unwrap();
                    let from = *[Ty::Float, Ty::Int].choose(self.rng).unwrap();
                    (Agg::Entropy(base, self.chance(0.7)), from)
                }
                1 => (
                    Agg::Std(self.rng.random_range(0..2)),
                    *[Ty::Float, Ty::Decimal].choose(self.rng).unwrap(),
                ),
                2 => (
                    Agg::Var(self.rng.random_range(0..2)),
                    *[Ty::Float, Ty::Int, Ty::Decimal].choose(self.rng).unwrap(),
                ),
                3 => (
                    Agg::Median,
                    *[Ty::Float, Ty::Int, Ty::Decimal].choose(self.rng).unwrap(),
                ),
                4 => {
                    let method = *crate::QUANTILE_METHODS.choose(self.rng).unwrap();
                    let q = *[0.0, 0.25, 0.5, 0.9, 1.0].choose(self.rng).unwrap();
                    let from = *[Ty::Float, Ty::Decimal, Ty::Int].choose(self.rng).unwrap();
                    (Agg::Quantile(q, method), from)
                }
                5 => (Agg::Sum, Ty::Float),
                6 | 7 => (*[Agg::Min, Agg::Max].choose(self.rng).unwrap(), Ty::Float),
                8 if ordered => (
                    *[Agg::First, Agg::Last].choose(self.rng).unwrap(),
                    Ty::Float,
                ),
                // Multiplied in the rows' order.
                9 if ordered && self.chance(0.5) => (Agg::Product, Ty::Float),
                _ => (Agg::Mean, Ty::Float),
            },
            Ty::Int | Ty::UInt => match self.rng.random_range(0..10) {
                0 | 1 => (Agg::Sum, *[ty, Ty::Bool, Ty::Int].choose(self.rng).unwrap()),
                2 => (Agg::Count, self.any_ty()),
                3 => (Agg::NUnique, self.any_ty()),
                4 => (Agg::NullCount, self.any_ty()),
                5 => (Agg::Product, *[Ty::Int, Ty::Bool].choose(self.rng).unwrap()),
                6 if ordered => (
                    *[Agg::ArgMin, Agg::ArgMax].choose(self.rng).unwrap(),
                    *[Ty::Int, Ty::Float, Ty::Date, Ty::Decimal]
                        .choose(self.rng)
                        .unwrap(),
                ),
                7 if ordered => (*[Agg::First, Agg::Last].choose(self.rng).unwrap(), ty),
                // A place (u32) of a literal of the input's class.
                8 if ordered && ty == Ty::UInt => {
                    let from = *[Ty::Int, Ty::Float, Ty::Str, Ty::Bool]
                        .choose(self.rng)
                        .unwrap();
                    let needle = match from {
                        _ if self.chance(0.15) => Needle::Null,
                        Ty::Int => Needle::Int(self.rng.random_range(-2..4)),
                        Ty::Float => Needle::Float(
                            *[0.0, -0.0, f64::NAN, 1.0, 0.5].choose(self.rng).unwrap(),
                        ),
                        Ty::Str => Needle::Str(["a", "", "É", "ab"].choose(self.rng).unwrap()),
                        _ => Needle::Bool(self.chance(0.5)),
                    };
                    (Agg::IndexOf(needle), from)
                }
                _ => (*[Agg::Min, Agg::Max].choose(self.rng).unwrap(), ty),
            },
            Ty::Bool => match self.rng.random_range(0..5) {
                0 => (Agg::Any(self.chance(0.5)), Ty::Bool),
                1 => (Agg::All(self.chance(0.5)), Ty::Bool),
                3 if self.chance(0.5) => (Agg::HasNulls, self.any_ty()),
                3 => (Agg::IsEmpty(self.chance(0.5)), self.any_ty()),
                2 if ordered => (*[Agg::First, Agg::Last].choose(self.rng).unwrap(), Ty::Bool),
                _ => (*[Agg::Min, Agg::Max].choose(self.rng).unwrap(), Ty::Bool),
            },
            Ty::Str => match self.rng.random_range(0..4) {
                0 if ordered && self.context == Context::Groups => (
                    Agg::Join(["", ", "].choose(self.rng).unwrap(), self.chance(0.5)),
                    Ty::Str,
                ),
                1 if ordered => (*[Agg::First, Agg::Last].choose(self.rng).unwrap(), Ty::Str),
                // A mean, median or spread of texts: null per group (Polars
                // raises over the frame).
                2 if self.chance(0.2) => (
                    *[Agg::Mean, Agg::Median, Agg::Std(1)]
                        .choose(self.rng)
                        .unwrap(),
                    Ty::Str,
                ),
                _ => (*[Agg::Min, Agg::Max].choose(self.rng).unwrap(), Ty::Str),
            },
            // Of their ticks, cast back toward zero (timestamps of dates
            // too: their days in microseconds).
            Ty::Duration | Ty::Datetime if self.chance(0.25) => {
                let from = match ty {
                    Ty::Datetime if self.chance(0.4) => Ty::Date,
                    _ => ty,
                };
                (*[Agg::Mean, Agg::Median].choose(self.rng).unwrap(), from)
            }
            Ty::Duration | Ty::Decimal if self.chance(0.3) => (Agg::Sum, ty),
            _ => match self.rng.random_range(0..3) {
                0 if ordered => (*[Agg::First, Agg::Last].choose(self.rng).unwrap(), ty),
                _ => (*[Agg::Min, Agg::Max].choose(self.rng).unwrap(), ty),
            },
        };
        if self.chance(0.03) {
            return E::leaf(Op::Len);
        }
        let x = inner(self, from);
        E::new(Op::Agg(agg), vec![x])
    }

    /// Partition keys for a window or a group-by: columns, sometimes expressions.
    pub fn keys(&mut self, max: usize) -> Vec<E> {
        let n = self.rng.random_range(1..=max);
        (0..n)
            .map(|_| {
                let ty = self.any_ty();
                if self.chance(0.8) {
                    self.leaf(ty)
                } else {
                    self.value(ty, 1)
                }
            })
            .collect()
    }

    /// One expression of a group-by's aggregation list.
    pub fn aggregation(&mut self, depth: u32) -> E {
        let ty = self.any_ty();
        match self.rng.random_range(0..20) {
            // The value at the place of another's extreme.
            7 if self.chance(0.2) => {
                let x = self.value(ty, depth);
                let key_ty = *[Ty::Int, Ty::UInt, Ty::Str, Ty::Date, Ty::Float]
                    .choose(self.rng)
                    .unwrap();
                let k = self.value(key_ty, depth);
                E::new(Op::GetAtExtreme(self.chance(0.5)), vec![x, k])
            }
            // A group's distinct values aggregated: the first, the last,
            // their count (of all, of the valid ones), the first or last
            // of them sorted.
            6 if self.chance(0.2) => {
                let x = self.value(ty, depth);
                let distinct = E::new(Op::Unique(self.chance(0.5)), vec![x]);
                let sorted =
                    |g: &mut Self, x: E| E::new(Op::Sort(g.chance(0.5), g.chance(0.5)), vec![x]);
                match self.rng.random_range(0..4) {
                    0 => E::new(Op::Agg(Agg::First), vec![distinct]),
                    1 => E::new(Op::Agg(Agg::Last), vec![distinct]),
                    2 => {
                        let count = *[Agg::NUnique, Agg::Count].choose(self.rng).unwrap();
                        E::new(Op::Agg(count), vec![distinct])
                    }
                    _ => {
                        let agg = if self.chance(0.5) {
                            Agg::First
                        } else {
                            Agg::Last
                        };
                        E::new(Op::Agg(agg), vec![sorted(self, distinct)])
                    }
                }
            }
            0 => E::leaf(Op::Len),
            1 if ty.numeric() => {
                let op = self.arithmetic();
                E::new(op, vec![self.scalar(ty, depth), self.scalar(ty, depth)])
            }
            2 if ty == Ty::Float => {
                let decimals = self.rng.random_range(0..3);
                E::new(
                    Op::Round(decimals, RoundMode::HalfToEven),
                    vec![self.scalar(ty, depth)],
                )
            }
            // A list per group, in the rows' order (of values a filter
            // keeps, or the distinct ones, too), or of its modes.
            3 if self.ordered && self.chance(0.3) => {
                let mut x = self.maybe_filtered(ty, depth);
                if self.chance(0.1) {
                    // The values at literal places.
                    let null_on_oob = self.chance(0.5);
                    let places = self.places();
                    let at = self.gather_at(places, null_on_oob);
                    x = E::new(at, vec![self.value(ty, depth)]);
                } else if self.chance(0.15) {
                    x = E::new(Op::Unique(self.chance(0.8)), vec![x]);
                    if self.chance(0.3) {
                        // Sorted.
                        x = E::new(Op::Sort(self.chance(0.5), self.chance(0.5)), vec![x]);
                    }
                }
                if self.chance(0.15) {
                    // The values of the most rows (kept in order, or not),
                    // or the first or last of them.
                    let x = self.value(ty, depth);
                    let modes = E::new(Op::Agg(Agg::Mode(self.chance(0.6))), vec![x]);
                    match self.chance(0.4) {
                        true => {
                            let pick = *[Agg::First, Agg::Last].choose(self.rng).unwrap();
                            E::new(Op::Agg(pick), vec![modes])
                        }
                        false => modes,
                    }
                } else if self.chance(0.5) {
                    x
                } else {
                    E::new(Op::Agg(Agg::Implode), vec![x])
                }
            }
            4 if self.chance(0.3) => {
                let x = self.value(ty, depth);
                E::new(Op::Agg(Agg::Item(self.chance(0.5))), vec![x])
            }
            // The value at a place, from either end (in the rows' order).
            4 if self.ordered => {
                let x = self.value(ty, depth);
                let at = self.rng.random_range(-3..3);
                E::new(Op::Agg(Agg::Get(at, self.chance(0.7))), vec![x])
            }
            5 if ty.temporal() || ty == Ty::Str => {
                let x = self.value(ty, depth);
                E::new(Op::Agg(Agg::NUnique), vec![x])
            }
            _ => self.scalar(ty, depth),
        }
    }

    /// An expression of `ty` for a select or with_columns.
    pub fn projection(&mut self, depth: u32) -> E {
        let ty = self.any_ty();
        if self.chance(0.1) {
            return self.scalar(ty, depth);
        }
        if self.context == Context::Rows && self.ordered && self.chance(0.02) {
            // Each row its window partition's values (in row order,
            // computed within it) as a list: a window mapped by `join`.
            let saved = self.context;
            self.context = Context::Groups;
            let f = self.window_body(ty, |g| g.value(ty, depth));
            self.context = saved;
            let mut args = vec![f];
            args.extend(self.keys(2));
            return E::new(Op::OverJoined, args);
        }
        if self.chance(0.02) {
            // A list per row of values of one type, or a list literal.
            if matches!(ty, Ty::Int | Ty::Float | Ty::Str) && self.chance(0.3) {
                let list = self.list(ty);
                return E::leaf(Op::ListLit(list));
            }
            if matches!(ty, Ty::Int) && self.chance(0.3) {
                // The integers between two of each row's (kept small: the
                // remainders of a division), by a step either way;
                // sometimes exploded back into rows (in the expression,
                // which stays with Polars).
                let small = |g: &mut Self| {
                    let x = g.value(Ty::Int, depth);
                    let by = E::lit(Lit::Int(g.rng.random_range(3..12)));
                    E::new(Op::Rem, vec![x, by])
                };
                let step = *[1, 1, 2, -1, -3].choose(self.rng).unwrap();
                let ranges = E::new(Op::IntRanges(step), vec![small(self), small(self)]);
                return match self.chance(0.2) {
                    true => E::new(Op::ListLen, vec![ranges]),
                    false => ranges,
                };
            }
            return self.concat_list(ty, depth);
        }
        if self.chance(0.02) {
            // Lists of texts, sometimes exploded back into rows (in the
            // expression, which stays with Polars).
            let x = self.value(Ty::Str, depth);
            let split = self.texts_listed(x);
            return if self.chance(0.5) {
                E::new(Op::Explode, vec![split])
            } else {
                split
            };
        }
        self.value(ty, depth)
    }

    /// Lists of texts made of `texts`: split by a separator, or every match
    /// of a pattern.
    pub fn texts_listed(&mut self, texts: E) -> E {
        if self.chance(0.3) {
            let p = (*["a+", "\\d", "", "(?-u:\\b)\\w", "é|b"]
                .choose(self.rng)
                .unwrap())
            .into();
            return E::new(Op::ExtractAll(p), vec![texts]);
        }
        let p = (*[" ", "a", ""].choose(self.rng).unwrap()).into();
        E::new(Op::Split(p, self.chance(0.3)), vec![texts])
    }

    /// A name in the schema of this class, if any.
    pub fn column_named(&mut self, ty: Ty) -> Option<String> {
        let columns = self.columns_of(ty);
        columns.choose(self.rng).cloned()
    }
}

/// ir-lower's unary functions of numbers that give `dtype` of `dtype`.
fn unary_functions(dtype: GpuDtype) -> impl Iterator<Item = Op> {
    UnaryFunction::ALL
        .into_iter()
        .filter(move |function| function.takes(dtype))
        .map(Op::Unary)
}

/// Whether `e` holds a sort of an expression holding an aggregation.
fn sorts_an_aggregation(e: &E) -> bool {
    e.nodes().iter().any(|n| {
        matches!(n.op, Op::Sort(..))
            && n.args.iter().any(|a| {
                a.nodes()
                    .iter()
                    .any(|m| matches!(m.op, Op::Agg(_) | Op::GetAtExtreme(_)))
            })
    })
}
