//! The fuzzer's expressions: a tree of operations that builds a Polars `Expr` and prints as Rust.

use ir_lower::{HostFunction, UnaryFunction};
use polars::prelude::*;

use super::code::{List, Needle, case};

/// An expression: an operation over input expressions.
#[derive(Debug, Clone, PartialEq)]
pub struct E {
    pub op: Op,
    pub args: Vec<E>,
}

/// A typed literal.
#[derive(Debug, Clone, PartialEq)]
pub enum Lit {
    Null,
    Bool(bool),
    /// A dynamic integer literal (`lit(3)`), which takes the other side's type.
    Int(i64),
    /// An integer literal of a given type (`typed_lit(3i32)`, `lit(3u8)`...).
    I32(i32),
    U8(u8),
    U32(u32),
    Float(f64),
    Str(String),
    /// Days since the epoch, as a date.
    Date(i32),
    /// Ticks of a duration.
    Duration(i64, TimeUnit),
    /// Nanoseconds since midnight, as a time.
    Time(i64),
}

/// The aggregations the grammar draws from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Agg {
    Sum,
    Mean,
    Min,
    Max,
    Median,
    NUnique,
    First,
    Last,
    Count,
    NullCount,
    Std(u8),
    Var(u8),
    Product,
    Any(bool),
    All(bool),
    /// Whether any value is null.
    HasNulls,
    /// Whether there is no value (no valid value, ignoring nulls).
    IsEmpty(bool),
    ArgMin,
    ArgMax,
    Quantile(f64, QuantileMethod),
    /// `str.join` of texts.
    Join(&'static str, bool),
    /// The one value (`item`), allowing an empty input or not.
    Item(bool),
    /// The value at a place (`get`), null beyond the end or not.
    Get(i64, bool),
    /// A list of the values: `implode`.
    Implode,
    /// The values of the most rows, as a list: `mode(maintain_order)`.
    Mode(bool),
    /// The place of the first row holding a value (`index_of`).
    IndexOf(Needle),
    /// `entropy` by a base, normalized or not.
    Entropy(f64, bool),
}

/// Date and time parts and measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Year,
    Month,
    Day,
    Quarter,
    Weekday,
    OrdinalDay,
    Week,
    Hour,
    Minute,
    Second,
    Millisecond,
    Nanosecond,
    IsLeapYear,
    TotalDays,
    TotalHours,
    TotalSeconds,
    TotalMilliseconds,
    Date,
    /// A datetime's time of day.
    Time,
}

/// Every operation of the grammar. Parameters live here; inputs are [`E::args`].
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Col(String),
    Lit(Lit),
    /// `len()`: the number of rows.
    Len,
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Rem,
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
    EqMissing,
    NotEqMissing,
    And,
    Or,
    Xor,
    Not,
    Neg,
    IsNull,
    IsNotNull,
    IsNan,
    IsNotNan,
    IsFinite,
    IsInfinite,
    Abs,
    Floor,
    Ceil,
    Round(u32, RoundMode),
    /// One of ir-lower's unary functions of numbers (`sqrt`, ...).
    Unary(UnaryFunction),
    /// One of ir-lower's functions whose last bit is libm's (`exp`, ...),
    /// which the host computes.
    OnHost(HostFunction),
    /// `list.len()` of a list column.
    ListLen,
    /// `int_ranges(start, end, lit(step))` of two integers (as i64).
    IntRanges(i64),
    /// `list.get(lit(index), null_on_oob)` of a list column.
    ListGet(i64, bool),
    /// `list.get(index, null_on_oob)` at each row's place: the second
    /// input, an integer expression.
    ListGetBy(bool),
    /// `list.sum()`, `list.min()`, `list.max()` of a list column.
    ListSum,
    ListMin,
    ListMax,
    /// `list.mean()`.
    ListMean,
    /// `list.median()`.
    ListMedian,
    /// `list.std(ddof)`, `list.var(ddof)`.
    ListStd(u8),
    ListVar(u8),
    /// `list.shift(lit(n))`, `list.diff(n, ignore)`.
    ListShift(i64),
    ListDiff(i64),
    /// `list.arg_min()`, `list.arg_max()`.
    ListArgMin,
    ListArgMax,
    /// `list.join(lit(separator), ignore_nulls)` of a list of texts.
    ListJoin(&'static str, bool),
    /// `list.contains(item, nulls_equal)`: the item its second input.
    ListContains(bool),
    /// `list.count_matches(item)`: the item its second input.
    ListCountMatches,
    /// `list.drop_nulls()`.
    ListDropNulls,
    /// `item.is_in(list, nulls_equal)`: the item its first input, a list
    /// per row its second.
    IsInLists(bool),
    /// `concat_list` of the inputs (values of one type).
    ConcatList,
    /// `list.agg` of one of a few aggregations of `element()`: 0 distinct
    /// count, 1 valid count, 2 null count, 3 length, 4 maximum.
    ListAgg(u8),
    /// `list.eval` of one of a few expressions of `element()`: 0 shifted,
    /// 1 null tests, 2 sorted descending, 3 ranked, 4 running sums,
    /// 5 doubled, 6 less the list's mean, 7 nulls dropped, 8 kept above
    /// the least, 9 distinct (`unique`), 10 distinct in order
    /// (`unique_stable`), 11 distinct valid values; aggregations, each a
    /// list of one: 12 greatest, 13 greatest less least, 14 first, 15 sum.
    ListEval(u8),
    /// `list.sort(descending, nulls_last)`.
    ListSort(bool, bool),
    /// `list.slice(lit(offset), lit(length))`, `list.head(lit(n))`,
    /// `list.tail(lit(n))`.
    ListSlice(i64, i64),
    ListHead(i64),
    ListTail(i64),
    /// `list.slice(offset, length)` by the second and third inputs,
    /// `list.head(n)` and `list.tail(n)` by the second: integer expressions
    /// (of each row, or literals).
    ListSliceBy,
    ListHeadBy,
    ListTailBy,
    /// `pow` by a literal exponent.
    Pow(f64),
    /// Two bounds: `clip(lo, hi)`.
    Clip,
    /// Value to fill with: the second input.
    FillNull,
    FillForward(Option<u32>),
    FillBackward(Option<u32>),
    FillNan,
    Cast(DataType, bool),
    /// `to_physical()`: ticks of temporals, codes of categoricals.
    ToPhysical,
    /// `when(x).then(y).otherwise(z)`.
    When,
    Coalesce,
    /// The horizontal functions: row by row over their inputs.
    SumHorizontal(bool),
    MeanHorizontal(bool),
    MinHorizontal,
    MaxHorizontal,
    AllHorizontal,
    AnyHorizontal,
    IsIn(List, bool),
    /// A list literal (`lit([1, 2])`): one list, repeated on every row.
    ListLit(List),
    /// A Series literal (`lit(series)`): a column of its own values.
    SeriesLit(List),
    /// `int_range(start, end)` of literals: a column of its own length.
    RangeLit(i64, i64),
    /// `replace` of the old values by the new ones.
    ReplaceValues(List, List),
    /// `replace_strict` of the old values by the new ones, the default the
    /// second input.
    ReplaceStrict(List, List),
    /// `is_in` the second input imploded.
    IsInColumn(bool),
    IsBetween(ClosedInterval),
    LenBytes,
    LenChars,
    Contains(String, bool),
    StartsWith(String),
    EndsWith(String),
    StrSlice(i64, Option<u64>),
    StrHead(i64),
    StrTail(i64),
    /// `str.slice` by each row's offset (the second argument) and length
    /// (the third, or none: to the end).
    StrSliceBy,
    /// `str.head` and `str.tail` by each row's count (the second argument).
    StrHeadBy,
    StrTailBy,
    Upper,
    Lower,
    Replace(String, String, bool, bool),
    StripChars(Option<String>),
    StripPrefix(String),
    /// `str.strip_prefix` and `str.strip_suffix` of the second argument.
    StripPrefixBy,
    StripSuffixBy,
    PadStart(u32, char),
    PadEnd(u32, char),
    Zfill(u32),
    /// `str.strip_chars` (0), `_start` (1) or `_end` (2) of the second
    /// argument's characters.
    StripCharsBy(u32),
    /// `str.to_decimal` at this scale.
    ToDecimal(usize),
    /// `pad_start` (0), `pad_end` (1) or `zfill` (2) to each row's length:
    /// the second argument's remainder by 7, made non-negative.
    PadBy(u32, char),
    ConcatStr(String, bool),
    /// `str.contains_any` of a literal list of texts, ASCII case
    /// insensitive or not.
    ContainsAny(List, bool),
    /// `str.replace_many` of a literal list of texts by another (one value,
    /// or one each), `leftmost` and ASCII case insensitive or not.
    ReplaceMany(List, List, bool, bool),
    /// Polars' `format` of the inputs by a format string of as many
    /// placeholders.
    Format(String),
    CountMatches(String, bool),
    Find(String, bool),
    /// `str.find_literal` of the second argument's text.
    FindBy,
    Extract(String, usize),
    ToDate(Option<String>),
    /// `str.to_time` (not strict), by a format or inferred.
    ToTime(Option<String>),
    /// `str.to_datetime` (not strict), by a format or inferred.
    ToDatetime(Option<String>, TimeUnit),
    /// `unique_stable()` (`unique()` when `false`).
    Unique(bool),
    /// `struct.field(name)` of a struct.
    StructField(String),
    /// `pl.struct` of the inputs.
    AsStruct,
    /// `struct.rename_fields` to these names.
    RenameFields(Vec<String>),
    /// `struct.with_fields` of the first input by the others (named).
    WithFields,
    /// `struct.drop` of these fields (strictly).
    DropFields(Vec<String>),
    /// `pl.field(name)`: a field of the struct `struct.with_fields`
    /// evaluates over.
    Field(String),
    /// `str.split` (`str.split_inclusive` when `true`): a list of texts.
    Split(String, bool),
    /// `str.extract_all` of a pattern: a list of texts.
    ExtractAll(String),
    /// `str.split_exact(p, n)` (`str.split_exact_inclusive` when `true`): a
    /// struct of texts.
    SplitExact(String, usize, bool),
    /// `str.splitn(p, n)`: a struct of texts.
    SplitN(String, usize),
    /// `value_counts(sort, .., normalize)` (counts named "count"): a struct
    /// per distinct value, as the only expression of a select.
    ValueCounts(bool, bool),
    /// `peak_max()`, `peak_min()`.
    PeakMax,
    PeakMin,
    /// `unique_counts()`: each distinct value's number of rows, in order of
    /// first appearance, as the only expression of a select.
    UniqueCounts,
    /// `rle`: each run of equal values' length and value, as a struct.
    Rle,
    /// `mode(maintain_order)`: the values of the most rows, as the only
    /// expression of a select.
    Mode(bool),
    Part(Part),
    ToString(String),
    Truncate(String),
    MonthStart,
    MonthEnd,
    OffsetBy(String),
    RoundTime(String),
    CastTimeUnit(TimeUnit),
    /// `datetime(year, month, day)` in a unit, of three integers brought
    /// near valid dates (now and then past a month's last day).
    DatetimeOf(TimeUnit),
    /// `duration(..)` in a unit, of the inputs as the parts at these
    /// places (0 weeks to 7 nanoseconds), the others zero.
    DurationOf(TimeUnit, Vec<usize>),
    /// `dt.combine`: a date or datetime's date with a time (the second input).
    Combine(TimeUnit),
    /// `dt.convert_time_zone` to the zone named.
    ConvertTimeZone(String),
    /// `dt.replace_time_zone` by the zone named, or none.
    ReplaceTimeZone(Option<String>),
    /// `dt.replace_time_zone` by the zone named, with the `ambiguous`
    /// strategy named and non-existent times null (else raising).
    Localize(String, String, bool),
    Agg(Agg),
    Shift(i64),
    /// Fill value: the second input.
    ShiftAndFill(i64),
    Diff(i64),
    PctChange(i64),
    Interpolate(InterpolationMethod),
    /// `int_range(s, len() + s)`: each row's place in its group from `s`.
    IntRange(i64),
    /// `repeat(value, len())`: the value on every row of its group.
    RepeatLen,
    Reverse,
    CumSum(bool),
    CumMax(bool),
    CumMin(bool),
    CumCount(bool),
    CumProd(bool),
    /// `rolling_sum`, `rolling_mean`, `rolling_min`, `rolling_max`,
    /// `rolling_var` or `rolling_std` (by the name's suffix) by a window of
    /// rows: size, min_periods, center.
    Rolling(&'static str, usize, usize, bool),
    /// `rolling_quantile(method, quantile, ..)` by a window of rows: size,
    /// min_periods, center.
    RollingQuantile(QuantileMethod, f64, usize, usize, bool),
    /// Their `_by` forms by the times of the second input, in windows of a
    /// duration (Polars' text): size, min_periods, closed.
    RollingBy(&'static str, &'static str, usize, ClosedWindow),
    /// `rolling_quantile_by(by, method, quantile, ..)` by the times of the
    /// second input: size, min_periods, closed.
    RollingQuantileBy(QuantileMethod, f64, &'static str, usize, ClosedWindow),
    /// `ewm_mean`, `ewm_var` or `ewm_std` (by the name's suffix).
    Ewm(&'static str, EWMOptions),
    Rank(RankMethod, bool),
    IsUnique,
    IsDuplicated,
    IsFirstDistinct,
    IsLastDistinct,
    Sort(bool, bool),
    /// Sorted by the second input.
    SortBy(bool, bool),
    ArgSort(bool, bool),
    /// `set_sorted`, descending or not, nulls last, first or unknown.
    SetSorted(bool, Option<bool>),
    /// `rle_id()`: each row's run of equal values.
    RleId,
    /// A window over the other inputs (the partitions).
    Over,
    /// A window ordered by the second input, over the partitions after it.
    OverOrdered(bool, bool),
    /// A window mapped by `join`: each row its partition's values as a list.
    OverJoined,
    /// A window mapped by `explode`: each partition's values in turn (a
    /// select of such windows alone).
    OverExploded,
    /// The first input at the indices of the second (`gather`), null
    /// outside the frame or not.
    Gather(bool),
    /// The input at literal places (from the end where negative), null
    /// outside the values or not: `gather([2, 0, -1])`.
    GatherAt(Vec<i64>, bool),
    /// The input at one literal place, as a list of one: `gather(2)`.
    GatherOne(i64, bool),
    /// The first input at the place of the second's greatest value (its
    /// least, with `false`): `x.get(k.arg_max())`.
    GetAtExtreme(bool),
    /// Kept where the second input is true.
    Filter,
    Head(usize),
    Tail(usize),
    Slice(i64, usize),
    DropNulls,
    DropNans,
    GatherEvery(usize, usize),
    /// The places where each value first comes (`arg_unique`).
    ArgUnique,
    /// `arg_where(x)`: the places where `x` is true.
    ArgWhere,
    Explode,
    Alias(String),
}

impl E {
    pub fn new(op: Op, args: Vec<E>) -> E {
        E { op, args }
    }

    pub fn leaf(op: Op) -> E {
        E { op, args: vec![] }
    }

    pub fn col(name: &str) -> E {
        E::leaf(Op::Col(name.into()))
    }

    pub fn lit(lit: Lit) -> E {
        E::leaf(Op::Lit(lit))
    }

    pub fn alias(self, name: &str) -> E {
        E::new(Op::Alias(name.into()), vec![self])
    }

    /// The Polars expression.
    pub fn build(&self) -> Expr {
        self.render().0
    }

    /// Its Rust source.
    pub fn code(&self) -> String {
        self.render().1
    }

    /// Every node of the tree, depth first.
    pub fn nodes(&self) -> Vec<&E> {
        let mut out = vec![self];
        for arg in &self.args {
            out.extend(arg.nodes());
        }
        out
    }

    /// Whether Polars holds this expression as one value (a literal, an
    /// aggregation, `len()`, or elementwise functions of those).
    pub fn one_value(&self) -> bool {
        match &self.op {
            Op::Lit(_) | Op::Len | Op::Agg(_) | Op::GetAtExtreme(_) => true,
            Op::Col(_) | Op::Over | Op::OverOrdered(..) | Op::OverJoined | Op::OverExploded => {
                false
            }
            _ => !self.args.is_empty() && self.args.iter().all(E::one_value),
        }
    }

    fn render(&self) -> (Expr, String) {
        let (exprs, sources): (Vec<Expr>, Vec<String>) = self.args.iter().map(E::render).unzip();
        let (i, s) = (exprs, sources);
        match &self.op {
            Op::Col(name) => case!(i, s; []; name = name; col(name)),
            Op::Lit(l) => lit_expr(l),
            Op::Len => case!(i, s; []; ; len()),
            Op::Add => case!(i, s; [x, y]; ; (x + y)),
            Op::Sub => case!(i, s; [x, y]; ; (x - y)),
            Op::Mul => case!(i, s; [x, y]; ; (x * y)),
            Op::Div => case!(i, s; [x, y]; ; (x / y)),
            Op::FloorDiv => case!(i, s; [x, y]; ; x.floor_div(y)),
            Op::Rem => case!(i, s; [x, y]; ; (x % y)),
            Op::Eq => case!(i, s; [x, y]; ; x.eq(y)),
            Op::NotEq => case!(i, s; [x, y]; ; x.neq(y)),
            Op::Lt => case!(i, s; [x, y]; ; x.lt(y)),
            Op::LtEq => case!(i, s; [x, y]; ; x.lt_eq(y)),
            Op::Gt => case!(i, s; [x, y]; ; x.gt(y)),
            Op::GtEq => case!(i, s; [x, y]; ; x.gt_eq(y)),
            Op::EqMissing => case!(i, s; [x, y]; ; x.eq_missing(y)),
            Op::NotEqMissing => case!(i, s; [x, y]; ; x.neq_missing(y)),
            Op::And => case!(i, s; [x, y]; ; x.and(y)),
            Op::Or => case!(i, s; [x, y]; ; x.or(y)),
            Op::Xor => case!(i, s; [x, y]; ; x.xor(y)),
            Op::Not => case!(i, s; [x]; ; x.not()),
            Op::Neg => case!(i, s; [x]; ; (-x)),
            Op::IsNull => case!(i, s; [x]; ; x.is_null()),
            Op::IsNotNull => case!(i, s; [x]; ; x.is_not_null()),
            Op::IsNan => case!(i, s; [x]; ; x.is_nan()),
            Op::IsNotNan => case!(i, s; [x]; ; x.is_not_nan()),
            Op::IsFinite => case!(i, s; [x]; ; x.is_finite()),
            Op::IsInfinite => case!(i, s; [x]; ; x.is_infinite()),
            Op::Abs => case!(i, s; [x]; ; x.abs()),
            Op::Floor => case!(i, s; [x]; ; x.floor()),
            Op::Ceil => case!(i, s; [x]; ; x.ceil()),
            Op::Round(d, m) => case!(i, s; [x]; d = d, m = m; x.round(d, m)),
            // Polars' method of the function's name.
            Op::Unary(function) => {
                let (x, source) = (i.into_iter().next(), s.into_iter().next());
                let (x, source) = (x.expect("an input"), source.expect("its source"));
                (function.of(x), format!("{source}.{}()", function.name()))
            }
            // A binary one of a first input drawn apart (`lit(2.0).pow(x)`).
            Op::OnHost(function) if i.len() == 2 => {
                let name = match function {
                    HostFunction::Arctan2 => "arctan2",
                    HostFunction::LogBy => "log",
                    _ => "pow",
                };
                case!(i, s; [x, y]; name = name; match name {
                    "arctan2" => x.arctan2(y),
                    "log" => x.log(y),
                    _ => x.pow(y),
                })
            }
            Op::OnHost(function) => {
                let (x, source) = (i.into_iter().next(), s.into_iter().next());
                let (x, source) = (x.expect("an input"), source.expect("its source"));
                let call = match function {
                    HostFunction::Log { base } => format!("{source}.log(lit({base:?}))"),
                    HostFunction::Pow { exponent } => format!("{source}.pow(lit({exponent:?}))"),
                    HostFunction::Arctan2 => {
                        format!("{source}.clone().arctan2({source} - lit(1))")
                    }
                    HostFunction::LogBy => format!("{source}.clone().log({source} + lit(1))"),
                    HostFunction::PowBy => format!("{source}.clone().pow({source} - lit(0.5))"),
                    HostFunction::RoundSigFigs { digits } => {
                        format!("{source}.round_sig_figs({digits})")
                    }
                    other => format!("{source}.{}()", other.name()),
                };
                (function.of(x), call)
            }
            Op::ListLen => case!(i, s; [x]; ; x.list().len()),
            Op::IntRanges(step) => {
                case!(i, s; [a, b]; step = step; int_ranges(a, b, lit(step), DataType::Int64))
            }
            Op::ListGet(index, null_on_oob) => {
                case!(i, s; [x]; index = index, null_on_oob = null_on_oob;
                    x.list().get(lit(index), null_on_oob))
            }
            Op::ListGetBy(null_on_oob) => {
                case!(i, s; [x, at]; null_on_oob = null_on_oob; x.list().get(at, null_on_oob))
            }
            Op::ListSum => case!(i, s; [x]; ; x.list().sum()),
            Op::ListMean => case!(i, s; [x]; ; x.list().mean()),
            Op::ListMedian => case!(i, s; [x]; ; x.list().median()),
            Op::ListStd(ddof) => case!(i, s; [x]; ddof = ddof; x.list().std(ddof)),
            Op::ListVar(ddof) => case!(i, s; [x]; ddof = ddof; x.list().var(ddof)),
            Op::ListShift(n) => case!(i, s; [x]; n = n; x.list().shift(lit(n))),
            Op::ListDiff(n) => {
                case!(i, s; [x]; n = n; x.list().diff(n, polars::series::ops::NullBehavior::Ignore))
            }
            Op::ListArgMin => case!(i, s; [x]; ; x.list().arg_min()),
            Op::ListArgMax => case!(i, s; [x]; ; x.list().arg_max()),
            Op::ListSlice(o, n) => case!(i, s; [x]; o = o, n = n; x.list().slice(lit(o), lit(n))),
            Op::ListHead(n) => case!(i, s; [x]; n = n; x.list().head(lit(n))),
            Op::ListSliceBy => case!(i, s; [x, o, n]; ; x.list().slice(o, n)),
            Op::ListHeadBy => case!(i, s; [x, n]; ; x.list().head(n)),
            Op::ListTailBy => case!(i, s; [x, n]; ; x.list().tail(n)),
            Op::ListTail(n) => case!(i, s; [x]; n = n; x.list().tail(lit(n))),
            Op::ListAgg(0) => case!(i, s; [x]; ; x.list().agg(element().n_unique())),
            Op::ListAgg(1) => case!(i, s; [x]; ; x.list().agg(element().count())),
            Op::ListAgg(2) => case!(i, s; [x]; ; x.list().agg(element().null_count())),
            Op::ListAgg(3) => case!(i, s; [x]; ; x.list().agg(len())),
            Op::ListAgg(5) => case!(i, s; [x]; ; x.list().agg(element().sum())),
            Op::ListAgg(_) => case!(i, s; [x]; ; x.list().agg(element().max())),
            Op::ListEval(0) => case!(i, s; [x]; ; x.list().eval(element().shift(lit(1)))),
            Op::ListEval(1) => case!(i, s; [x]; ; x.list().eval(element().is_null())),
            Op::ListEval(2) => case!(i, s; [x]; ;
                x.list().eval(element().sort(SortOptions::default().with_order_descending(true)))),
            Op::ListEval(3) => {
                case!(i, s; [x]; ; x.list().eval(element().rank(Default::default(), None)))
            }
            Op::ListEval(4) => case!(i, s; [x]; ; x.list().eval(element().cum_sum(false))),
            Op::ListEval(5) => case!(i, s; [x]; ; x.list().eval(element() * lit(2))),
            Op::ListEval(6) => case!(i, s; [x]; ; x.list().eval(element() - element().mean())),
            Op::ListEval(7) => case!(i, s; [x]; ; x.list().eval(element().drop_nulls())),
            Op::ListEval(8) => {
                case!(i, s; [x]; ; x.list().eval(element().filter(element().gt(element().min()))))
            }
            Op::ListEval(9) => case!(i, s; [x]; ; x.list().eval(element().unique())),
            Op::ListEval(10) => case!(i, s; [x]; ; x.list().eval(element().unique_stable())),
            Op::ListEval(11) => {
                case!(i, s; [x]; ; x.list().eval(element().drop_nulls().unique()))
            }
            Op::ListEval(12) => case!(i, s; [x]; ; x.list().eval(element().max())),
            Op::ListEval(13) => {
                case!(i, s; [x]; ; x.list().eval(element().max() - element().min()))
            }
            Op::ListEval(14) => case!(i, s; [x]; ; x.list().eval(element().first())),
            Op::ListEval(_) => case!(i, s; [x]; ; x.list().eval(element().sum())),
            Op::ListSort(d, nl) => case!(i, s; [x]; d = d, nl = nl;
                x.list().sort(SortOptions::default().with_order_descending(d).with_nulls_last(nl))),
            Op::Unique(true) => case!(i, s; [x]; ; x.unique_stable()),
            Op::Unique(false) => case!(i, s; [x]; ; x.unique()),
            Op::ListContains(nulls_equal) => {
                case!(i, s; [x, item]; nulls_equal = nulls_equal;
                    x.list().contains(item, nulls_equal))
            }
            Op::ListCountMatches => case!(i, s; [x, item]; ; x.list().count_matches(item)),
            Op::ListDropNulls => case!(i, s; [x]; ; x.list().drop_nulls()),
            Op::IsInLists(nulls_equal) => {
                case!(i, s; [item, x]; nulls_equal = nulls_equal;
                    item.is_in(x, nulls_equal))
            }
            Op::StructField(name) => {
                case!(i, s; [x]; name = name; x.struct_().field_by_name(&name))
            }
            Op::RenameFields(names) => {
                case!(i, s; [x]; names = names; x.struct_().rename_fields(names))
            }
            Op::AsStruct => {
                let code = format!("as_struct(vec![{}])", s.join(", "));
                (as_struct(i), code)
            }
            Op::WithFields => {
                let code = format!(
                    "{}.struct_().with_fields(vec![{}])",
                    s[0],
                    s[1..].join(", ")
                );
                let mut i = i.into_iter();
                let x = i.next().expect("a struct");
                (x.struct_().with_fields(i.collect()), code)
            }
            Op::DropFields(names) => {
                case!(i, s; [x]; names = names; x.struct_().drop(names, true))
            }
            Op::Field(name) => {
                case!(i, s; []; name = name; Expr::Field([PlSmallStr::from(&*name)].into()))
            }
            Op::ConcatList => {
                let code = format!("concat_list(vec![{}]).unwrap()", s.join(", "));
                (concat_list(i).unwrap(), code)
            }

            Op::ListMin => case!(i, s; [x]; ; x.list().min()),
            Op::ListMax => case!(i, s; [x]; ; x.list().max()),
            Op::ListJoin(separator, ignore_nulls) => {
                case!(i, s; [x]; separator = separator, ignore_nulls = ignore_nulls;
                    x.list().join(lit(separator), ignore_nulls))
            }
            Op::Pow(p) => case!(i, s; [x]; p = p; x.pow(p)),
            Op::Clip => case!(i, s; [x, lo, hi]; ; x.clip(lo, hi)),
            Op::FillNull => case!(i, s; [x, v]; ; x.fill_null(v)),
            Op::FillForward(n) => case!(i, s; [x]; n = n;
                x.fill_null_with_strategy(FillNullStrategy::Forward(n))),
            Op::FillBackward(n) => case!(i, s; [x]; n = n;
                x.fill_null_with_strategy(FillNullStrategy::Backward(n))),
            Op::FillNan => case!(i, s; [x, v]; ; x.fill_nan(v)),
            Op::Cast(t, true) => case!(i, s; [x]; t = t; x.strict_cast(t)),
            Op::Cast(t, false) => case!(i, s; [x]; t = t; x.cast(t)),
            Op::ToPhysical => case!(i, s; [x]; ; x.to_physical()),
            Op::When => case!(i, s; [c, t, o]; ; when(c).then(t).otherwise(o)),
            Op::Coalesce => case!(i, s; [; xs]; ; coalesce(&xs)),
            Op::SumHorizontal(n) => {
                case!(i, s; [; xs]; n = n; polars::lazy::dsl::sum_horizontal(&xs, n).unwrap())
            }
            Op::MeanHorizontal(n) => {
                case!(i, s; [; xs]; n = n; polars::lazy::dsl::mean_horizontal(&xs, n).unwrap())
            }
            Op::MinHorizontal => {
                case!(i, s; [; xs]; ; polars::lazy::dsl::min_horizontal(&xs).unwrap())
            }
            Op::MaxHorizontal => {
                case!(i, s; [; xs]; ; polars::lazy::dsl::max_horizontal(&xs).unwrap())
            }
            Op::AllHorizontal => case!(i, s; [; xs]; ; all_horizontal(&xs).unwrap()),
            Op::AnyHorizontal => case!(i, s; [; xs]; ; any_horizontal(&xs).unwrap()),
            Op::IsIn(list, ne) => case!(i, s; [x]; values = list.series(), ne = ne;
                x.is_in(lit(values).implode(false), ne)),
            Op::ListLit(list) => case!(i, s; []; values = list.series();
                lit(Scalar::new(DataType::List(Box::new(values.dtype().clone())), AnyValue::List(values)))),
            Op::SeriesLit(list) => case!(i, s; []; values = list.series(); lit(values)),
            Op::RangeLit(a, b) => case!(i, s; []; a = a, b = b;
                int_range(lit(a), lit(b), 1, DataType::Int64)),
            Op::ReplaceValues(old, new) => case!(i, s; [x]; o = old.series(), n = new.series();
                x.replace(lit(o), lit(n))),
            Op::ReplaceStrict(old, new) if self.args.len() == 1 => {
                case!(i, s; [x]; o = old.series(), n = new.series();
                    x.replace_strict(lit(o), lit(n), None::<Expr>, None::<DataType>))
            }
            Op::ReplaceStrict(old, new) => case!(i, s; [x, v]; o = old.series(), n = new.series();
                x.replace_strict(lit(o), lit(n), Some(v), None::<DataType>)),
            Op::IsInColumn(ne) => case!(i, s; [x, y]; ne = ne; x.is_in(y.implode(false), ne)),
            Op::IsBetween(c) => case!(i, s; [x, lo, hi]; c = c; x.is_between(lo, hi, c)),
            Op::LenBytes => case!(i, s; [x]; ; x.str().len_bytes()),
            Op::LenChars => case!(i, s; [x]; ; x.str().len_chars()),
            Op::Contains(p, true) => case!(i, s; [x]; p = p; x.str().contains_literal(lit(p))),
            Op::Contains(p, false) => case!(i, s; [x]; p = p; x.str().contains(lit(p), false)),
            Op::StartsWith(p) => case!(i, s; [x]; p = p; x.str().starts_with(lit(p))),
            Op::EndsWith(p) => case!(i, s; [x]; p = p; x.str().ends_with(lit(p))),
            Op::StrSlice(o, n) => case!(i, s; [x]; o = o, n = n;
                x.str().slice(lit(o), n.map_or(lit(NULL), lit))),
            Op::StrSliceBy if self.args.len() == 2 => case!(i, s; [x, o]; ;
                x.str().slice(o, lit(NULL))),
            Op::StrSliceBy => case!(i, s; [x, o, n]; ; x.str().slice(o, n)),
            Op::StrHeadBy => case!(i, s; [x, n]; ; x.str().head(n)),
            Op::StrTailBy => case!(i, s; [x, n]; ; x.str().tail(n)),
            Op::StrHead(n) => case!(i, s; [x]; n = n; x.str().head(lit(n))),
            Op::StrTail(n) => case!(i, s; [x]; n = n; x.str().tail(lit(n))),
            Op::Upper => case!(i, s; [x]; ; x.str().to_uppercase()),
            Op::Lower => case!(i, s; [x]; ; x.str().to_lowercase()),
            Op::Replace(p, v, literal, false) => case!(i, s; [x]; p = p, v = v, literal = literal;
                x.str().replace(lit(p), lit(v), literal)),
            Op::Replace(p, v, literal, true) => case!(i, s; [x]; p = p, v = v, literal = literal;
                x.str().replace_all(lit(p), lit(v), literal)),
            Op::StripCharsBy(0) => case!(i, s; [x, c]; ; x.str().strip_chars(c)),
            Op::StripCharsBy(1) => case!(i, s; [x, c]; ; x.str().strip_chars_start(c)),
            Op::StripCharsBy(_) => case!(i, s; [x, c]; ; x.str().strip_chars_end(c)),
            Op::StripChars(None) => case!(i, s; [x]; ; x.str().strip_chars(lit(NULL))),
            Op::StripChars(Some(c)) => case!(i, s; [x]; c = c; x.str().strip_chars(lit(c))),
            Op::StripPrefix(p) => case!(i, s; [x]; p = p; x.str().strip_prefix(lit(p))),
            Op::StripPrefixBy => case!(i, s; [x, a]; ; x.str().strip_prefix(a)),
            Op::StripSuffixBy => case!(i, s; [x, a]; ; x.str().strip_suffix(a)),
            Op::PadStart(n, c) => case!(i, s; [x]; n = n, c = c; x.str().pad_start(lit(n), c)),
            Op::PadEnd(n, c) => case!(i, s; [x]; n = n, c = c; x.str().pad_end(lit(n), c)),
            Op::Zfill(n) => case!(i, s; [x]; n = n; x.str().zfill(lit(n))),
            Op::ToDecimal(scale) => case!(i, s; [x]; scale = scale; x.str().to_decimal(scale)),
            Op::PadBy(0, c) => case!(i, s; [x, n]; c = c;
                x.str().pad_start((n % lit(7)).abs(), c)),
            Op::PadBy(1, c) => case!(i, s; [x, n]; c = c;
                x.str().pad_end((n % lit(7)).abs(), c)),
            Op::PadBy(_, _) => case!(i, s; [x, n]; ; x.str().zfill((n % lit(7)).abs())),
            Op::ConcatStr(sep, ignore) => case!(i, s; [; xs]; sep = sep, ignore = ignore;
                concat_str(xs, &sep, ignore)),
            Op::Format(f) => case!(i, s; [; xs]; f = f; format_str(&f, &xs).unwrap()),
            Op::ContainsAny(list, ci) => case!(i, s; [x]; v = list.series(), ci = ci;
                x.str().contains_any(lit(v).implode(false), ci)),
            Op::ReplaceMany(patterns, values, leftmost, ci) => case!(i, s; [x];
                p = patterns.series(), v = values.series(), leftmost = leftmost, ci = ci;
                x.str().replace_many(lit(p).implode(false), lit(v).implode(false), ci, leftmost)),
            Op::CountMatches(p, literal) => case!(i, s; [x]; p = p, literal = literal;
                x.str().count_matches(lit(p), literal)),
            Op::Find(p, true) => case!(i, s; [x]; p = p; x.str().find_literal(lit(p))),
            Op::FindBy => case!(i, s; [x, p]; ; x.str().find_literal(p)),
            Op::Find(p, false) => case!(i, s; [x]; p = p; x.str().find(lit(p), false)),
            Op::Extract(p, g) => case!(i, s; [x]; p = p, g = g; x.str().extract(lit(p), g)),
            Op::ToDate(f) => case!(i, s; [x]; f = f;
                x.str().to_date(StrptimeOptions { format: f.map(Into::into), strict: false, ..Default::default() })),
            Op::ToTime(f) => case!(i, s; [x]; f = f;
                x.str().to_time(StrptimeOptions { format: f.map(Into::into), strict: false, ..Default::default() })),
            Op::ToDatetime(f, u) => case!(i, s; [x]; f = f, u = u;
                x.str().to_datetime(Some(u), None,
                    StrptimeOptions { format: f.map(Into::into), strict: false, ..Default::default() },
                    lit("raise"))),
            Op::Split(p, false) => case!(i, s; [x]; p = p; x.str().split(lit(p))),
            Op::Split(p, true) => case!(i, s; [x]; p = p; x.str().split_inclusive(lit(p))),
            Op::ExtractAll(p) => case!(i, s; [x]; p = p; x.str().extract_all(lit(p))),
            Op::SplitExact(p, n, false) => {
                case!(i, s; [x]; p = p, n = n; x.str().split_exact(lit(p), n))
            }
            Op::SplitExact(p, n, true) => {
                case!(i, s; [x]; p = p, n = n; x.str().split_exact_inclusive(lit(p), n))
            }
            Op::SplitN(p, n) => case!(i, s; [x]; p = p, n = n; x.str().splitn(lit(p), n)),
            Op::UniqueCounts => case!(i, s; [x]; ; x.unique_counts()),
            Op::Rle => case!(i, s; [x]; ; x.rle()),
            Op::Mode(in_order) => case!(i, s; [x]; in_order = in_order; x.mode(in_order)),
            Op::PeakMax => case!(i, s; [x]; ; x.peak_max()),
            Op::PeakMin => case!(i, s; [x]; ; x.peak_min()),
            Op::ValueCounts(sort, normalize) => {
                case!(i, s; [x]; sort = sort, normalize = normalize;
                x.value_counts(sort, false, "count", normalize))
            }
            Op::Part(p) => part(*p, i, s),
            Op::ToString(f) => case!(i, s; [x]; f = f; x.dt().to_string(&f)),
            Op::Truncate(every) => case!(i, s; [x]; every = every; x.dt().truncate(lit(every))),
            Op::MonthStart => case!(i, s; [x]; ; x.dt().month_start()),
            Op::MonthEnd => case!(i, s; [x]; ; x.dt().month_end()),
            Op::OffsetBy(by) => case!(i, s; [x]; by = by; x.dt().offset_by(lit(by))),
            Op::RoundTime(every) => case!(i, s; [x]; every = every; x.dt().round(lit(every))),
            Op::CastTimeUnit(u) => case!(i, s; [x]; u = u; x.dt().cast_time_unit(u)),
            Op::DatetimeOf(u) => case!(i, s; [y, m, d]; u = u;
                datetime(DatetimeArgs::new(y % lit(200) + lit(1900), (m % lit(12)).abs() + lit(1),
                    (d % lit(31)).abs() + lit(1)).with_time_unit(u))),
            Op::DurationOf(u, at) => case!(i, s; [; xs]; u = u, at = at;
                crate::fuzz::expr::duration_of(u, &at, xs)),
            Op::Combine(u) => case!(i, s; [x, t]; u = u; x.dt().combine(t, u)),
            Op::ConvertTimeZone(z) => case!(i, s; [x]; z = z;
                x.dt().convert_time_zone(crate::fuzz::table::time_zone(&z))),
            Op::ReplaceTimeZone(Some(z)) => case!(i, s; [x]; z = z;
                x.dt().replace_time_zone(
                    Some(crate::fuzz::table::time_zone(&z)), lit("raise"), NonExistent::Raise)),
            Op::Localize(z, a, null) => case!(i, s; [x]; z = z, a = a, null = null;
                x.dt().replace_time_zone(
                    Some(crate::fuzz::table::time_zone(&z)),
                    lit(a),
                    if null { NonExistent::Null } else { NonExistent::Raise })),
            Op::ReplaceTimeZone(None) => case!(i, s; [x]; ;
                x.dt().replace_time_zone(None, lit("raise"), NonExistent::Raise)),
            Op::Agg(a) => aggregation(*a, i, s),
            Op::Shift(n) => case!(i, s; [x]; n = n; x.shift(lit(n))),
            Op::ShiftAndFill(n) => case!(i, s; [x, v]; n = n; x.shift_and_fill(lit(n), v)),
            Op::Diff(n) => {
                case!(i, s; [x]; n = n; x.diff(lit(n), polars::series::ops::NullBehavior::Ignore))
            }
            Op::PctChange(n) => case!(i, s; [x]; n = n; x.pct_change(lit(n))),
            Op::Interpolate(m) => case!(i, s; [x]; m = m; x.interpolate(m)),
            Op::RepeatLen => case!(i, s; [x]; ; repeat(x, len())),
            Op::IntRange(n) => case!(i, s; []; n = n;
                int_range(lit(n), len() + lit(n), 1, DataType::Int64)),
            Op::Reverse => case!(i, s; [x]; ; x.reverse()),
            Op::CumSum(r) => case!(i, s; [x]; r = r; x.cum_sum(r)),
            Op::CumMax(r) => case!(i, s; [x]; r = r; x.cum_max(r)),
            Op::CumMin(r) => case!(i, s; [x]; r = r; x.cum_min(r)),
            Op::CumCount(r) => case!(i, s; [x]; r = r; x.cum_count(r)),
            Op::CumProd(r) => case!(i, s; [x]; r = r; x.cum_prod(r)),
            Op::Ewm(f, options) => match *f {
                "mean" => case!(i, s; [x]; o = options; x.ewm_mean(o)),
                "var" => case!(i, s; [x]; o = options; x.ewm_var(o)),
                _ => case!(i, s; [x]; o = options; x.ewm_std(o)),
            },
            Op::Rolling(f, w, m, c) => {
                let options = RollingOptionsFixedWindow {
                    window_size: *w,
                    min_periods: *m,
                    center: *c,
                    ..Default::default()
                };
                let (e, source) = match *f {
                    "sum" => case!(i, s; [x]; o = options; x.rolling_sum(o)),
                    "mean" => case!(i, s; [x]; o = options; x.rolling_mean(o)),
                    "min" => case!(i, s; [x]; o = options; x.rolling_min(o)),
                    "var" => case!(i, s; [x]; o = options; x.rolling_var(o)),
                    "std" => case!(i, s; [x]; o = options; x.rolling_std(o)),
                    _ => case!(i, s; [x]; o = options; x.rolling_max(o)),
                };
                (e, source)
            }
            Op::RollingQuantile(method, q, w, m, c) => {
                let options = RollingOptionsFixedWindow {
                    window_size: *w,
                    min_periods: *m,
                    center: *c,
                    ..Default::default()
                };
                case!(i, s; [x]; m = method, q = q, o = options; x.rolling_quantile(m, q, o))
            }
            Op::RollingQuantileBy(method, q, size, m, closed) => {
                let options = RollingOptionsDynamicWindow {
                    window_size: Duration::parse(size),
                    min_periods: *m,
                    closed_window: *closed,
                    fn_params: None,
                };
                case!(i, s; [x, t]; m = method, q = q, o = options;
                    x.rolling_quantile_by(t, m, q, o))
            }
            Op::RollingBy(f, size, m, closed) => {
                let options = RollingOptionsDynamicWindow {
                    window_size: Duration::parse(size),
                    min_periods: *m,
                    closed_window: *closed,
                    fn_params: None,
                };
                match *f {
                    "sum" => case!(i, s; [x, t]; o = options; x.rolling_sum_by(t, o)),
                    "mean" => case!(i, s; [x, t]; o = options; x.rolling_mean_by(t, o)),
                    "min" => case!(i, s; [x, t]; o = options; x.rolling_min_by(t, o)),
                    "var" => case!(i, s; [x, t]; o = options; x.rolling_var_by(t, o)),
                    "std" => case!(i, s; [x, t]; o = options; x.rolling_std_by(t, o)),
                    _ => case!(i, s; [x, t]; o = options; x.rolling_max_by(t, o)),
                }
            }
            Op::Rank(m, d) => case!(i, s; [x]; m = m, d = d;
                x.rank(RankOptions { method: m, descending: d }, None)),
            Op::IsUnique => case!(i, s; [x]; ; x.is_unique()),
            Op::IsDuplicated => case!(i, s; [x]; ; x.is_duplicated()),
            Op::IsFirstDistinct => case!(i, s; [x]; ; x.is_first_distinct()),
            Op::IsLastDistinct => case!(i, s; [x]; ; x.is_last_distinct()),
            Op::Sort(d, nl) => case!(i, s; [x]; d = d, nl = nl;
                x.sort(SortOptions::default().with_order_descending(d).with_nulls_last(nl))),
            Op::SortBy(d, nl) => case!(i, s; [x, k]; d = d, nl = nl;
                x.sort_by([k], SortMultipleOptions::default()
                    .with_order_descending(d).with_nulls_last(nl).with_maintain_order(true))),
            Op::ArgSort(d, nl) => case!(i, s; [x]; d = d, nl = nl; x.arg_sort(d, nl)),
            Op::RleId => case!(i, s; [x]; ; x.rle_id()),
            Op::SetSorted(d, nl) => case!(i, s; [x]; d = d, nl = nl;
                x.set_sorted_flag(polars_plan::plans::AExprSorted {
                    descending: Some(d), nulls_last: nl })),
            Op::Over => case!(i, s; [x; xs]; ; x.over(xs).unwrap()),
            Op::OverJoined => case!(i, s; [x; xs]; ;
                x.over_with_options(Some(xs), None, WindowMapping::Join).unwrap()),
            Op::OverExploded => case!(i, s; [x; xs]; ;
                x.over_with_options(Some(xs), None, WindowMapping::Explode).unwrap()),
            Op::OverOrdered(d, nl) => case!(i, s; [x, k; xs]; d = d, nl = nl;
                x.over_with_options(Some(xs), Some((vec![k],
                    SortOptions::default().with_order_descending(d).with_nulls_last(nl))),
                    WindowMapping::GroupsToRows).unwrap()),
            Op::Filter => case!(i, s; [x, p]; ; x.filter(p)),
            Op::Gather(null) => case!(i, s; [x, idx]; null = null; x.gather(idx, null)),
            Op::GatherAt(places, null) => case!(i, s; [x]; places = places, null = null;
                x.gather(lit(Series::new("".into(), places)), null)),
            Op::GatherOne(place, null) => case!(i, s; [x]; place = place, null = null;
                x.gather(lit(place), null)),
            Op::GetAtExtreme(true) => case!(i, s; [x, k]; ; x.get(k.arg_max(), false)),
            Op::GetAtExtreme(false) => case!(i, s; [x, k]; ; x.get(k.arg_min(), false)),
            Op::Head(n) => case!(i, s; [x]; n = n; x.head(Some(n))),
            Op::Tail(n) => case!(i, s; [x]; n = n; x.tail(Some(n))),
            Op::Slice(o, n) => case!(i, s; [x]; o = o, n = n; x.slice(lit(o), lit(n as u64))),
            Op::DropNulls => case!(i, s; [x]; ; x.drop_nulls()),
            Op::DropNans => case!(i, s; [x]; ; x.drop_nans()),
            Op::GatherEvery(n, o) => case!(i, s; [x]; n = n, o = o; x.gather_every(n, o)),
            Op::ArgUnique => case!(i, s; [x]; ; x.arg_unique()),
            Op::ArgWhere => case!(i, s; [x]; ; arg_where(x)),
            Op::Explode => {
                case!(i, s; [x]; ; x.explode(ExplodeOptions { empty_as_null: true, keep_nulls: true }))
            }
            Op::Alias(name) => case!(i, s; [x]; name = name; x.alias(name)),
        }
    }
}

fn lit_expr(l: &Lit) -> (Expr, String) {
    let (i, s): (Vec<Expr>, Vec<String>) = (vec![], vec![]);
    match l {
        Lit::Null => case!(i, s; []; ; lit(NULL)),
        Lit::Bool(b) => case!(i, s; []; b = b; lit(b)),
        Lit::Int(v) => case!(i, s; []; v = v; lit(v)),
        Lit::I32(v) => case!(i, s; []; v = v; lit(Scalar::from(v))),
        Lit::U8(v) => case!(i, s; []; v = v; lit(Scalar::from(v))),
        Lit::U32(v) => case!(i, s; []; v = v; lit(Scalar::from(v))),
        Lit::Float(v) => case!(i, s; []; v = v; lit(v)),
        Lit::Str(v) => case!(i, s; []; v = v; lit(v)),
        Lit::Date(d) => case!(i, s; []; d = d; lit(Scalar::from(d)).cast(DataType::Date)),
        Lit::Duration(v, u) => case!(i, s; []; v = v, u = u;
            lit(Scalar::from(v)).cast(DataType::Duration(u))),
        Lit::Time(v) => case!(i, s; []; v = v; lit(Scalar::from(v)).cast(DataType::Time)),
    }
}

fn aggregation(a: Agg, i: Vec<Expr>, s: Vec<String>) -> (Expr, String) {
    match a {
        Agg::Sum => case!(i, s; [x]; ; x.sum()),
        Agg::Mean => case!(i, s; [x]; ; x.mean()),
        Agg::Min => case!(i, s; [x]; ; x.min()),
        Agg::Max => case!(i, s; [x]; ; x.max()),
        Agg::Median => case!(i, s; [x]; ; x.median()),
        Agg::NUnique => case!(i, s; [x]; ; x.n_unique()),
        Agg::First => case!(i, s; [x]; ; x.first()),
        Agg::Last => case!(i, s; [x]; ; x.last()),
        Agg::Count => case!(i, s; [x]; ; x.count()),
        Agg::NullCount => case!(i, s; [x]; ; x.null_count()),
        Agg::Std(d) => case!(i, s; [x]; d = d; x.std(d)),
        Agg::Var(d) => case!(i, s; [x]; d = d; x.var(d)),
        Agg::Product => case!(i, s; [x]; ; x.product()),
        Agg::Any(n) => case!(i, s; [x]; n = n; x.any(n)),
        Agg::All(n) => case!(i, s; [x]; n = n; x.all(n)),
        Agg::HasNulls => case!(i, s; [x]; ; x.has_nulls()),
        Agg::IsEmpty(n) => case!(i, s; [x]; n = n; x.is_empty(n)),
        Agg::ArgMin => case!(i, s; [x]; ; x.arg_min()),
        Agg::ArgMax => case!(i, s; [x]; ; x.arg_max()),
        Agg::Quantile(q, m) => case!(i, s; [x]; q = q, m = m; x.quantile(lit(q), m)),
        Agg::Join(sep, n) => case!(i, s; [x]; sep = sep, n = n; x.str().join(sep, n)),
        Agg::Item(empty) => case!(i, s; [x]; empty = empty; x.item(empty)),
        Agg::Get(at, null) => case!(i, s; [x]; at = at, null = null; x.get(lit(at), null)),
        Agg::IndexOf(needle) => case!(i, s; [x]; needle = needle; x.index_of(needle)),
        Agg::Implode => case!(i, s; [x]; ; x.implode(true)),
        Agg::Mode(stable) => case!(i, s; [x]; stable = stable; x.mode(stable)),
        Agg::Entropy(base, normalize) => case!(i, s; [x]; base = base, normalize = normalize;
            x.entropy(base, normalize)),
    }
}

fn part(p: Part, i: Vec<Expr>, s: Vec<String>) -> (Expr, String) {
    match p {
        Part::Year => case!(i, s; [x]; ; x.dt().year()),
        Part::Month => case!(i, s; [x]; ; x.dt().month()),
        Part::Day => case!(i, s; [x]; ; x.dt().day()),
        Part::Quarter => case!(i, s; [x]; ; x.dt().quarter()),
        Part::Weekday => case!(i, s; [x]; ; x.dt().weekday()),
        Part::OrdinalDay => case!(i, s; [x]; ; x.dt().ordinal_day()),
        Part::Week => case!(i, s; [x]; ; x.dt().week()),
        Part::Hour => case!(i, s; [x]; ; x.dt().hour()),
        Part::Minute => case!(i, s; [x]; ; x.dt().minute()),
        Part::Second => case!(i, s; [x]; ; x.dt().second()),
        Part::Millisecond => case!(i, s; [x]; ; x.dt().millisecond()),
        Part::Nanosecond => case!(i, s; [x]; ; x.dt().nanosecond()),
        Part::IsLeapYear => case!(i, s; [x]; ; x.dt().is_leap_year()),
        Part::TotalDays => case!(i, s; [x]; ; x.dt().total_days(false)),
        Part::TotalHours => case!(i, s; [x]; ; x.dt().total_hours(true)),
        Part::TotalSeconds => case!(i, s; [x]; ; x.dt().total_seconds(false)),
        Part::TotalMilliseconds => case!(i, s; [x]; ; x.dt().total_milliseconds(true)),
        Part::Date => case!(i, s; [x]; ; x.dt().date()),
        Part::Time => case!(i, s; [x]; ; x.dt().time()),
    }
}

/// `duration(..)` in `unit` of `parts` at the places `at` (0 weeks to 7
/// nanoseconds), the other parts zero.
pub fn duration_of(unit: TimeUnit, at: &[usize], parts: Vec<Expr>) -> Expr {
    let mut args = DurationArgs {
        time_unit: unit,
        ..Default::default()
    };
    for (&at, part) in at.iter().zip(parts) {
        let slot = match at {
            0 => &mut args.weeks,
            1 => &mut args.days,
            2 => &mut args.hours,
            3 => &mut args.minutes,
            4 => &mut args.seconds,
            5 => &mut args.milliseconds,
            6 => &mut args.microseconds,
            _ => &mut args.nanoseconds,
        };
        *slot = part;
    }
    duration(args)
}
