//! GPU expressions: typed trees over input column positions, as the executor evaluates them.

use std::fmt;
use std::sync::Arc;

use crate::dtype::GpuDtype;
use crate::regex::{GroupDfas, RegexDfa};

mod build;
mod display;
mod host_math;
mod lists;
mod moves;
mod rolling;
mod strings;
mod unary;

pub use host_math::HostFunction;
pub(crate) use host_math::PowerRule;
pub use lists::ListFunction;
pub use rolling::*;
pub use strings::*;
pub use unary::UnaryFunction;

/// A typed scalar value in a GPU expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar {
    /// A null of the expression's type.
    Null,
    Boolean(bool),
    /// Any signed integer type, widened.
    Int(i64),
    /// Any unsigned integer type, widened.
    UInt(u64),
    /// Any float type, widened.
    Float(f64),
    String(String),
    /// Days since the Unix epoch.
    Date(i32),
    /// Time since the Unix epoch, in the unit of the type.
    Datetime(i64),
    /// A time span, in the unit of the type.
    Duration(i64),
    /// A time of day, in nanoseconds since midnight.
    Time(i64),
}

/// A binary operator, with Polars' semantics (nulls propagate; `and`/`or`
/// follow Kleene logic; integer division floors like Polars).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    Eq,
    /// Equality where null equals null and never gives null.
    EqMissing,
    NotEq,
    /// Inequality where null equals null and never gives null.
    NotEqMissing,
    Lt,
    LtEq,
    Gt,
    GtEq,
    Plus,
    Minus,
    Multiply,
    /// Division in the operands' type (Rust `/` on a Polars expression).
    Divide,
    /// Division giving a float.
    TrueDivide,
    FloorDivide,
    Modulus,
    /// Kleene and (also bitwise and on integers).
    And,
    /// Kleene or (also bitwise or on integers).
    Or,
    Xor,
}

impl BinaryOp {
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Eq => "==",
            BinaryOp::EqMissing => "==(missing)",
            BinaryOp::NotEq => "!=",
            BinaryOp::NotEqMissing => "!=(missing)",
            BinaryOp::Lt => "<",
            BinaryOp::LtEq => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::GtEq => ">=",
            BinaryOp::Plus => "+",
            BinaryOp::Minus => "-",
            BinaryOp::Multiply => "*",
            BinaryOp::Divide => "/",
            BinaryOp::TrueDivide => "truediv",
            BinaryOp::FloorDivide => "floordiv",
            BinaryOp::Modulus => "%",
            BinaryOp::And => "&",
            BinaryOp::Or => "|",
            BinaryOp::Xor => "^",
        }
    }

    /// Whether this is a comparison of order or equality (null where a
    /// side is null): `==`, `!=`, `<`, `<=`, `>`, `>=`.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Eq
                | BinaryOp::NotEq
                | BinaryOp::Lt
                | BinaryOp::LtEq
                | BinaryOp::Gt
                | BinaryOp::GtEq
        )
    }
}

/// An aggregation, over a whole column (in a select) or per group.
#[derive(Debug, Clone, PartialEq)]
pub enum AggOp {
    Sum,
    /// Product of the valid values (1 for none): of integers as i64 (u64
    /// for u64), wrapping; of floats in their type, multiplied in the
    /// rows' order.
    Product,
    Mean,
    /// Minimum; NaN wins when `propagate_nans`, else NaN is ignored.
    Min {
        propagate_nans: bool,
    },
    /// Maximum; NaN wins when `propagate_nans`, else NaN is ignored.
    Max {
        propagate_nans: bool,
    },
    Median,
    /// Number of distinct values, null counted as one.
    NUnique,
    /// First value, null included.
    First,
    /// Last value, null included.
    Last,
    /// The one value (Polars' `item`): where there is not exactly one row
    /// (none is null with `allow_empty`), Polars raises an error.
    Item {
        allow_empty: bool,
    },
    /// The value at a place (from 0; from the end when negative), null
    /// included: Polars' `get` of a literal index. Where there is no such
    /// place it is null with `null_on_oob`; otherwise Polars raises.
    Get {
        index: i64,
        null_on_oob: bool,
    },
    /// Number of values; nulls too when `include_nulls`.
    Count {
        include_nulls: bool,
    },
    /// Standard deviation with `ddof` degrees of freedom; `in_chunks`:
    /// of groups Polars takes as slices of a key it holds sorted, each
    /// group's as it takes a column's (see `spreads_of_sorted_keys`).
    Std {
        ddof: u8,
        in_chunks: bool,
    },
    /// Variance with `ddof` degrees of freedom (`in_chunks` as `Std`'s).
    Var {
        ddof: u8,
        in_chunks: bool,
    },
    /// The place (from 0, as u32) of the first least (`ArgMin`) or
    /// greatest (`ArgMax`) valid value: NaN only where every valid value is
    /// NaN, both zeros alike; null where there is no valid value.
    ArgMin,
    ArgMax,
    /// Polars' `str.join`: the texts in order, `separator` between two;
    /// nulls skipped when `ignore_nulls`, else a null makes the result null.
    /// Of no texts, the empty text.
    Join {
        separator: String,
        ignore_nulls: bool,
    },
    /// The values as one list (of a group, or of the whole frame), in row
    /// order, nulls kept: Polars' `implode`, and a group-by's aggregation
    /// of values left unaggregated (`agg([col("x")])`).
    Implode,
    /// The values of the most rows of each group (a null a value too) as a
    /// list: Polars' `mode` in a group-by's aggregation, in order of first
    /// appearance (`maintain_order`; without, Polars lists several in an
    /// order of its own, and a group of more than one mode is left to it).
    Mode {
        maintain_order: bool,
    },
    /// Quantile with a literal probability and an interpolation method.
    Quantile {
        /// The probability, in [0, 1].
        quantile: f64,
        /// Polars' method name: nearest, lower, higher, midpoint, linear, equiprobable.
        method: &'static str,
    },
}

/// How `round` breaks ties.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounding {
    /// Ties to the even neighbour (Polars' default).
    HalfToEven,
    /// Ties away from zero.
    HalfAwayFromZero,
    /// Toward zero (truncation).
    ToZero,
    /// Down, to whole numbers (`floor`).
    Floor,
    /// Up, to whole numbers (`ceil`).
    Ceil,
}

/// How `dt.truncate` rounds a date or timestamp down, as Polars does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Truncation {
    /// To a multiple of this many units of the type (days for dates) since
    /// 1970-01-01.
    Fixed(i64),
    /// To the Monday starting a block of this many weeks (counted from the
    /// Monday before 1970-01-01).
    Weeks(i64),
    /// To the first day of a block of this many months (counted from
    /// January 1970).
    Months(i64),
}

/// What a cast does with a value that does not fit the target type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CastMode {
    /// The query fails.
    Strict,
    /// The value becomes null.
    NonStrict,
    /// Integers wrap around (Polars' `Overflowing`).
    Wrapping,
    /// A decimal's scaled integer taken as an `Int64`, or an `Int64` as a
    /// decimal's scaled integer, unchanged: no cast of Polars', only in
    /// ir-lower's rewrites of decimal aggregations.
    Physical,
}

/// How Polars' `rank` numbers tied values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RankMethod {
    /// The mean of the places the ties take (a float).
    Average,
    /// The first place the ties take.
    Min,
    /// The last place the ties take.
    Max,
    /// One more than the number of distinct smaller values.
    Dense,
    /// Each its own place, in the order of the rows.
    Ordinal,
}

/// Tests of a value against the other rows' values (null being one value).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DistinctTest {
    /// No other row has it (`is_unique`).
    Unique,
    /// Another row has it (`is_duplicated`).
    Duplicated,
    /// No earlier row has it (`is_first_distinct`).
    FirstDistinct,
    /// No later row has it (`is_last_distinct`).
    LastDistinct,
}

/// Tests of a float's class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatCheck {
    IsNan,
    IsNotNan,
    IsFinite,
    IsInfinite,
}

/// A part of a date or datetime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TemporalPart {
    Year,
    Quarter,
    Month,
    Day,
    /// ISO weekday, Monday = 1 to Sunday = 7.
    Weekday,
    /// Day of the year, 1 to 366.
    OrdinalDay,
    /// ISO week, 1 to 53.
    Week,
    // Parts of the time of day (datetimes only).
    Hour,
    Minute,
    Second,
    Millisecond,
    Microsecond,
    Nanosecond,
}

impl TemporalPart {
    /// Whether this is a part of the time of day (of datetimes only).
    pub fn of_time(self) -> bool {
        matches!(
            self,
            TemporalPart::Hour
                | TemporalPart::Minute
                | TemporalPart::Second
                | TemporalPart::Millisecond
                | TemporalPart::Microsecond
                | TemporalPart::Nanosecond
        )
    }
}

/// How many values Polars holds for a column an expression reads. Polars'
/// arithmetic takes a value held at one row (per frame, or per group) as a
/// scalar, with kernels of its own (a division by the reciprocal), so the
/// device, which repeats such a value on every row, must know it was one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Held {
    /// One value for the whole frame (a whole-frame aggregation, a common
    /// subexpression Polars keeps at one row).
    Once,
    /// One value per group (a group's aggregation in a window or in an
    /// aggregation of each group).
    PerGroup,
    /// One value per row: every column a plan reads.
    #[default]
    PerRow,
}

/// What a GPU expression computes.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// The input column at this position. Lowering gives every column
    /// [`Held::PerRow`]; the executor marks the values it repeats.
    Column {
        index: usize,
        name: String,
        held: Held,
    },
    /// A scalar, broadcast to the frame's height.
    Literal(Scalar),
    Binary {
        op: BinaryOp,
        left: Box<GpuExpr>,
        right: Box<GpuExpr>,
    },
    /// Kleene not (bitwise not on integers).
    Not(Box<GpuExpr>),
    Negate(Box<GpuExpr>),
    Abs(Box<GpuExpr>),
    /// A unary function of numbers, of the expression's type (see
    /// [`UnaryFunction`]).
    Unary {
        function: UnaryFunction,
        input: Box<GpuExpr>,
    },
    /// A function of floats whose last bit is libm's, of the expression's
    /// type (its input cast to it): computed on the host, between device
    /// steps, as Polars' engine computes it (see [`HostFunction`]).
    OnHost {
        function: HostFunction,
        input: Box<GpuExpr>,
        /// The second input of a [binary](HostFunction::binary) function,
        /// of the same type.
        other: Option<Box<GpuExpr>>,
    },
    /// Polars' forward (backward) fill: each null takes the last valid
    /// value before it (the first after it), at most `limit` rows away (no
    /// limit when `None`). Depends on the order of the rows.
    Fill {
        input: Box<GpuExpr>,
        forward: bool,
        limit: Option<u64>,
    },
    /// Polars' `cum_sum` of integers or booleans, front to back: nulls stay
    /// null and add nothing; integers wrap around. Depends on the order of
    /// the rows.
    CumSum(Box<GpuExpr>),
    /// Polars' `cum_prod` of i64, u64 or floats (smaller integers and
    /// booleans cast to i64 first), front to back: nulls stay null and
    /// multiply nothing; integers wrap around; each group's values in order.
    /// Depends on the order of the rows.
    CumProd(Box<GpuExpr>),
    /// Polars' `cum_max` (or `cum_min`) of integers or floats, front to
    /// back (`reverse`: back to front): nulls stay null and change nothing;
    /// NaN only until a number comes. Depends on the order of the rows.
    CumExtreme {
        input: Box<GpuExpr>,
        minimum: bool,
        reverse: bool,
    },
    /// Polars' `rolling_sum`, `rolling_mean`, `rolling_min`, `rolling_max`,
    /// `rolling_var` or `rolling_std` by a count of rows (no weights), or
    /// their `_by` forms by times: each row's window aggregated as Polars'
    /// windows do (float sums and moments to the bit), null where the
    /// window holds fewer than `min_periods` valid values (a mean: or
    /// none; a variance: or no more than `ddof`). The input comes cast to
    /// the result's type for sums (integers wrap in it), means and
    /// variances (a float); minima and maxima keep the input's type.
    /// Depends on the order of the rows.
    Rolling {
        input: Box<GpuExpr>,
        function: RollingFunction,
        window: RollingWindow,
    },
    /// Polars' `ewm_mean`, `ewm_var` or `ewm_std` of floats: each row's
    /// exponentially weighted mean (variance, deviation) of the values so
    /// far, by Polars' recurrence in the input's type; null at a null row,
    /// before `min_periods` values came, and (an unbiased spread) where the
    /// weights leave no freedom. Depends on the order of the rows.
    Ewm {
        input: Box<GpuExpr>,
        function: EwmFunction,
        options: EwmOptions,
    },
    /// `str.to_date`, `str.to_datetime` (exact, no time zone) or
    /// `str.to_time` with a format of fixed-width numeric fields and
    /// literal text (`%Y-%m-%d`, `%d/%m/%Y %H:%M`, `%H:%M`): the date,
    /// timestamp or time of day (of the expression's type) a text of that
    /// form names. The executor runs texts of exactly that form
    /// (four-digit years, two-digit other fields) and leaves a column with
    /// any other text to Polars.
    ParseTemporal {
        input: Box<GpuExpr>,
        /// Bytes and the fields `%Y %m %d %H %M %S` only.
        format: Vec<FormatPart>,
        /// Whether Polars infers the format from the texts (none was
        /// given): then its parse is no function of each row alone, and
        /// per group it takes the group's texts as a list.
        inferred: bool,
        /// Whether Polars gives null for a text it reads no value from (a
        /// parse or cast that is not strict, of a format given): the
        /// executor then makes null the texts it knows neither of Polars'
        /// parsers reads (see `Ops::string_parse_dates`).
        lenient: bool,
    },
    /// `dt.to_string` (and the cast to text) of a date or timestamp in a
    /// chrono format, as its parts.
    Strftime {
        input: Box<GpuExpr>,
        format: Vec<FormatPart>,
    },
    /// The local time in `zone` of an instant (`input`, a plain timestamp of
    /// the instant in UTC) as the plain timestamp of that wall-clock time:
    /// the instant plus the zone's UTC offset then (Polars' zone database),
    /// as Polars reads a zoned timestamp's parts, date and time of day.
    LocalTime {
        input: Box<GpuExpr>,
        zone: crate::dtype::Zone,
    },
    /// The instant (in `zone`) whose local time there is `input`, a plain
    /// timestamp of a wall-clock time (`dt.replace_time_zone` to a zone
    /// other than UTC): the one such instant; of two (a time the clocks
    /// pass twice) as `ambiguous` says; of none (a time the clocks skip)
    /// null, or Polars' error with `non_existent_raises`. With
    /// `resolved_by_polars` (a truncation's local time made an instant
    /// again), a time the clocks skip or pass twice is Polars' to resolve
    /// (by the original instant's offset), not an error: the query goes
    /// to it.
    Localized {
        input: Box<GpuExpr>,
        zone: crate::dtype::Zone,
        ambiguous: AmbiguousTime,
        non_existent_raises: bool,
        resolved_by_polars: bool,
    },
    /// `dt.truncate`: the date or timestamp rounded down.
    Truncate {
        input: Box<GpuExpr>,
        every: Truncation,
    },
    /// `dt.offset_by` of whole months, of a timestamp of no zone: the same
    /// time of day and day of the month `months` months later (earlier
    /// where negative), the day clamped to the last of the month it lands
    /// in, as Polars' `add_month` moves it.
    OffsetMonths {
        input: Box<GpuExpr>,
        months: i64,
    },
    /// The values `periods` rows earlier (later, for a negative count); null
    /// where there is no such row. Depends on the order of the rows.
    Shift {
        input: Box<GpuExpr>,
        periods: i64,
    },
    /// The values in the opposite order (Polars' `reverse`): row i takes
    /// the value of row n - 1 - i. Depends on the order of the rows.
    Reverse(Box<GpuExpr>),
    /// Polars' `rank` of numbers or temporals: each valid value's place
    /// (from 1) among the valid values, in descending order when asked
    /// (floats in total order, NaN last, -0.0 equal to 0.0), ties numbered
    /// by `method`; nulls stay null. Reads every row.
    Rank {
        input: Box<GpuExpr>,
        method: RankMethod,
        descending: bool,
    },
    /// The input's values at the rows `indices` name (Polars' `gather` by
    /// an expression as long as the frame; from the end when negative):
    /// null where an index is null, or, with `null_on_oob`, outside the
    /// frame (else Polars raises). Reads every row; never per group.
    Gather {
        input: Box<GpuExpr>,
        indices: Box<GpuExpr>,
        null_on_oob: bool,
        /// The gather as Polars writes it (for the error of an index
        /// outside the frame).
        shown: String,
    },
    /// The input, claimed sorted (Polars' `set_sorted`, which marks the
    /// values so, and whose engine then takes paths that hold only for
    /// values so ordered): `descending` or ascending, nulls all at one end
    /// (the claimed one, where `nulls_last` says). The executor checks the
    /// claim and leaves values that break it to Polars. Reads every row;
    /// never per group.
    SetSorted {
        input: Box<GpuExpr>,
        descending: bool,
        nulls_last: Option<bool>,
        /// The claim as Polars writes it (for the reason values that break
        /// it give).
        shown: String,
    },
    /// The input at the rows where `by` is true (Polars' `filter`), only as
    /// the input of an aggregation: `first` or `last` (the first, last, such
    /// row's value, null where there is none), `sum` or `mean` (of the
    /// values kept).
    Where {
        input: Box<GpuExpr>,
        by: Box<GpuExpr>,
    },
    /// The input with its rows sorted (stably) by the keys of `order` (the
    /// first key first): Polars' `sort` (the input its own key), `sort_by`,
    /// and `arg_sort` (the input the rows' places). Reads every row (per
    /// group: the group's, the i-th row of a group taking the group's i-th
    /// value in that order); as the input of a `first` or `last`
    /// aggregation, the value of the first (last) row in that order.
    SortedBy {
        input: Box<GpuExpr>,
        order: Vec<RowOrder>,
        /// `None` where Polars keeps rows equal on every key in row order
        /// (a stable sort: by one key, or with `maintain_order`). Else its
        /// unstable sort orders them its own way, and data with such rows
        /// is left to Polars, for a reason naming the sort as Polars writes
        /// it (this text).
        unstable: Option<String>,
    },
    /// A test of each row's value against the other rows' (never null).
    /// Reads every row.
    Distinct {
        input: Box<GpuExpr>,
        test: DistinctTest,
    },
    IsNull(Box<GpuExpr>),
    IsNotNull(Box<GpuExpr>),
    /// A test of a float's class (null stays null).
    FloatCheck {
        check: FloatCheck,
        input: Box<GpuExpr>,
    },
    /// A cast to the expression's dtype; what happens to values that do not
    /// fit is `mode`'s.
    Cast {
        input: Box<GpuExpr>,
        mode: CastMode,
    },
    /// `when(predicate).then(truthy).otherwise(falsy)`; a null predicate picks `falsy`.
    Ternary {
        predicate: Box<GpuExpr>,
        truthy: Box<GpuExpr>,
        falsy: Box<GpuExpr>,
    },
    FillNull {
        input: Box<GpuExpr>,
        value: Box<GpuExpr>,
    },
    /// Polars' `clip`: a value below `lower` becomes `lower`, else one above
    /// `upper` becomes `upper`; a null bound (or a missing one, a null
    /// literal) does not clip. Bounds have the input's type. Floats compare
    /// as IEEE numbers: NaN is never clipped and never clips.
    Clip {
        input: Box<GpuExpr>,
        lower: Box<GpuExpr>,
        upper: Box<GpuExpr>,
    },
    /// Membership in a literal list.
    IsIn {
        input: Box<GpuExpr>,
        values: Vec<Scalar>,
        nulls_equal: bool,
    },
    /// Membership in the values of `other` (Polars' `is_in(other.implode())`),
    /// of the same type: over the frame, or per group in the group's values.
    /// A null input gives null, and nulls of `other` are no members, unless
    /// `nulls_equal` (a null input is then a member where `other` holds a
    /// null). Floats compare as Polars' total order does: NaN equal to NaN,
    /// -0.0 to 0.0. Reads every row of `other`.
    IsInColumn {
        input: Box<GpuExpr>,
        other: Box<GpuExpr>,
        nulls_equal: bool,
    },
    /// Whether each row's `item` is among the values of its row's list in
    /// `lists` (Polars' `item.is_in(lists)` and `lists.list.contains(item)`
    /// of a list and an item per row; one item, a literal, is every row's),
    /// of the list's values' type: null where the list is null, and where
    /// the item is, unless `nulls_equal` (a null item is then in a list
    /// holding a null). Floats compare as in [`ExprKind::IsInColumn`].
    InLists {
        item: Box<GpuExpr>,
        lists: Box<GpuExpr>,
        nulls_equal: bool,
    },
    /// Whether each row's lists of `left` and `right` (of one type) are
    /// equal: as long, and equal value by value as Polars' total equality
    /// has them (a null equal to a null, NaN to NaN, -0.0 to 0.0). Null
    /// where either list is null, but with `missing` (Polars' `eq_missing`:
    /// two null lists equal, a null one unequal to a valid one).
    ListsEqual {
        left: Box<GpuExpr>,
        right: Box<GpuExpr>,
        missing: bool,
    },
    IsBetween {
        input: Box<GpuExpr>,
        lower: Box<GpuExpr>,
        upper: Box<GpuExpr>,
        closed: Closed,
    },
    /// Whether each text starts with, ends with or contains the text in the
    /// same row of `pattern` (Polars' `str.starts_with`, `str.ends_with` and
    /// `str.contains(literal=True)` of an expression), or where it first
    /// holds it (`str.find(literal=True)`, a u32): null where either is
    /// null.
    MatchesRow {
        how: RowMatch,
        input: Box<GpuExpr>,
        pattern: Box<GpuExpr>,
    },
    /// Rounding to `decimals` places.
    Round {
        input: Box<GpuExpr>,
        decimals: u32,
        mode: Rounding,
    },
    /// The distinct values of a column (a column of its own length); in the
    /// order of first appearance when `maintain_order`, else unspecified.
    Unique {
        input: Box<GpuExpr>,
        maintain_order: bool,
    },
    String {
        op: StringOp,
        input: Box<GpuExpr>,
    },
    /// Polars' `str.slice`, `str.head` or `str.tail` by expressions: each
    /// text's characters by its row's `by` (an i64 offset or count; null
    /// gives null) and, for a slice, `length` (u64; `u64::MAX`: to the end);
    /// or a padding to its row's `by` (u64, not null); or a strip of the
    /// characters of its row's `by` (a text).
    StringByRows {
        how: ByRows,
        input: Box<GpuExpr>,
        by: Box<GpuExpr>,
        length: Option<Box<GpuExpr>>,
    },
    /// A function of each list of `input`, a list column.
    List {
        function: ListFunction,
        input: Box<GpuExpr>,
    },
    /// Field `field` (named `name`) of each struct of `input`, a struct
    /// column: null where the struct is.
    StructField {
        field: usize,
        name: String,
        input: Box<GpuExpr>,
    },
    /// A struct of one field per input (Polars' `pl.struct`), never null.
    MakeStruct(Vec<GpuExpr>),
    /// A struct of one field per expression of `fields`, null where
    /// `input` (a struct column) is: Polars' `struct.with_fields` and
    /// `struct.drop` of `input` (its fields kept, replaced, added or
    /// dropped, as `fields` has them). Of a struct made, a `MakeStruct`.
    WithFields {
        input: Box<GpuExpr>,
        fields: Vec<GpuExpr>,
    },
    /// `input`, where `polars_own` (a boolean of each row) holds at no row
    /// (and, with `no_rows`, the frame has rows); where it holds at one,
    /// Polars' answer depends on what the GPU does not see (how Polars
    /// holds its input in chunks; how it answers no rows), and the query is
    /// Polars' own, for the reason `why`. Evaluated over a whole frame only
    /// (never per group, never a partition of one).
    PolarsOwnWhere {
        input: Box<GpuExpr>,
        polars_own: Box<GpuExpr>,
        no_rows: bool,
        why: String,
        /// The expression as Polars writes it (what its display shows).
        shown: String,
    },
    /// A list per row of the inputs in order (Polars' `concat_list`):
    /// inputs of the result's type are lists, appended (the row null where
    /// one of them is); the others are values of its values' type, each one
    /// value of the list (nulls kept).
    ConcatList(Vec<GpuExpr>),
    /// A list per row of the integers from `start` up to `end` (not
    /// included) by `step` (Polars' `int_ranges`, as i64): empty where
    /// `step` does not lead from `start` towards `end`; null where `start`
    /// or `end` is.
    IntRanges {
        start: Box<GpuExpr>,
        end: Box<GpuExpr>,
        step: i64,
    },
    Temporal {
        part: TemporalPart,
        input: Box<GpuExpr>,
    },
    /// An aggregation: one value per group, or one for the whole column.
    Agg {
        op: AggOp,
        input: Box<GpuExpr>,
    },
    /// The number of rows (per group in a group-by).
    Len,
    /// Strings concatenated row by row (Polars' `concat_str`, and `+` of
    /// strings), `separator` between two: null where an input is null,
    /// unless `ignore_nulls` (null inputs are then skipped).
    ConcatStr {
        inputs: Vec<GpuExpr>,
        separator: String,
        ignore_nulls: bool,
    },
    /// `function.over(partition_by)`: the aggregations inside `function`
    /// are taken per group of rows with equal `partition_by` values (nulls
    /// one group) and repeated on every row of their group; a function
    /// without aggregations is the function of each row. The aggregations
    /// of an expression stop at its windows.
    Window {
        function: Box<GpuExpr>,
        partition_by: Vec<GpuExpr>,
        /// The order of each partition's rows (`over(..., order_by=...)`):
        /// shifts, fills, cumulative sums and first/last follow it.
        order_by: Option<RowOrder>,
    },
}

/// How [`ExprKind::MatchesRow`] matches a text against its row's pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowMatch {
    StartsWith,
    EndsWith,
    Contains,
    /// The byte offset of the pattern's first occurrence (u32; null where
    /// there is none).
    Find,
}

/// An order of rows by a key: of a window's rows within each partition, or
/// of the rows a `first` or `last` aggregation picks from.
#[derive(Debug, Clone, PartialEq)]
pub struct RowOrder {
    pub key: Box<GpuExpr>,
    pub descending: bool,
    pub nulls_last: bool,
}

/// The sub-expressions of an `ExprKind` (borrowed or mutably borrowed, as
/// `$borrow` says: `&` or `&mut`), in order: one match serves `children`
/// and `children_mut`.
macro_rules! children {
    ($kind:expr, $($borrow:tt)+) => {
        match $kind {
            ExprKind::Window {
                function,
                partition_by,
                order_by,
            } => std::iter::once($($borrow)+ **function)
                .chain(partition_by)
                .chain(order_by.into_iter().map(|order| $($borrow)+ *order.key))
                .collect(),
            ExprKind::WithFields { input, fields } => std::iter::once($($borrow)+ **input)
                .chain(fields)
                .collect(),
            ExprKind::ConcatStr { inputs, .. }
            | ExprKind::MakeStruct(inputs)
            | ExprKind::ConcatList(inputs) => {
                inputs.into_iter().collect()
            }
            ExprKind::Column { .. } | ExprKind::Literal(_) | ExprKind::Len => vec![],
            ExprKind::Binary { left, right, .. } => vec![left, right],
            ExprKind::IntRanges { start, end, .. } => vec![start, end],
            ExprKind::PolarsOwnWhere { input, polars_own, .. } => vec![input, polars_own],
            ExprKind::Where { input, by }
            | ExprKind::Rolling {
                input,
                window: RollingWindow::Times { by, .. } | RollingWindow::Slices { place: by },
                ..
            } => vec![input, by],
            ExprKind::Gather { input, indices, .. }
            | ExprKind::List {
                input,
                function: ListFunction::GetAt { index: indices, .. },
            } => vec![input, indices],
            ExprKind::List {
                input,
                function: ListFunction::SliceAt { offset, length },
            } => vec![input, offset, length],
            ExprKind::StringByRows { input, by, length, .. } => [input, by]
                .into_iter()
                .chain(length)
                .map(|e| $($borrow)+ **e)
                .collect(),
            ExprKind::OnHost { input, other, .. } => std::iter::once(input)
                .chain(other)
                .map(|e| $($borrow)+ **e)
                .collect(),
            ExprKind::SortedBy { input, order, .. } => std::iter::once($($borrow)+ **input)
                .chain(order.into_iter().map(|order| $($borrow)+ *order.key))
                .collect(),
            ExprKind::Not(input)
            | ExprKind::Negate(input)
            | ExprKind::Abs(input)
            | ExprKind::Unary { input, .. }
            | ExprKind::CumSum(input)
            | ExprKind::CumProd(input)
            | ExprKind::CumExtreme { input, .. }
            | ExprKind::Rolling {
                input,
                window: RollingWindow::Rows { .. },
                ..
            }
            | ExprKind::Ewm { input, .. }
            | ExprKind::ParseTemporal { input, .. }
            | ExprKind::Strftime { input, .. }
            | ExprKind::Shift { input, .. }
            | ExprKind::Reverse(input)
            | ExprKind::SetSorted { input, .. }
            | ExprKind::Rank { input, .. }
            | ExprKind::Distinct { input, .. }
            | ExprKind::Truncate { input, .. }
            | ExprKind::OffsetMonths { input, .. }
            | ExprKind::LocalTime { input, .. }
            | ExprKind::Localized { input, .. }
            | ExprKind::Fill { input, .. }
            | ExprKind::IsNull(input)
            | ExprKind::IsNotNull(input)
            | ExprKind::FloatCheck { input, .. }
            | ExprKind::Cast { input, .. }
            | ExprKind::IsIn { input, .. }
            | ExprKind::Round { input, .. }
            | ExprKind::Unique { input, .. }
            | ExprKind::String { input, .. }
            | ExprKind::List { input, .. }
            | ExprKind::StructField { input, .. }
            | ExprKind::Temporal { input, .. }
            | ExprKind::Agg { input, .. } => vec![input],
            ExprKind::Ternary {
                predicate,
                truthy,
                falsy,
            } => vec![predicate, truthy, falsy],
            ExprKind::FillNull { input, value } => vec![input, value],
            ExprKind::IsInColumn { input, other, .. } => vec![input, other],
            ExprKind::InLists { item, lists, .. } => vec![item, lists],
            ExprKind::ListsEqual { left, right, .. } => vec![left, right],
            ExprKind::MatchesRow { input, pattern, .. } => vec![input, pattern],
            ExprKind::IsBetween {
                input,
                lower,
                upper,
                ..
            }
            | ExprKind::Clip {
                input,
                lower,
                upper,
            } => vec![input, lower, upper],
        }
    };
}

/// What a local time the clocks pass twice gives (Polars' `ambiguous`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AmbiguousTime {
    Raise,
    Earliest,
    Latest,
    Null,
}

impl AmbiguousTime {
    /// Polars' name of the strategy (`"raise"`, ...).
    pub fn from_name(name: &str) -> Option<AmbiguousTime> {
        Some(match name {
            "raise" => AmbiguousTime::Raise,
            "earliest" => AmbiguousTime::Earliest,
            "latest" => AmbiguousTime::Latest,
            "null" => AmbiguousTime::Null,
            _ => return None,
        })
    }

    /// The strategy's name in Polars.
    pub fn name(self) -> &'static str {
        match self {
            AmbiguousTime::Raise => "raise",
            AmbiguousTime::Earliest => "earliest",
            AmbiguousTime::Latest => "latest",
            AmbiguousTime::Null => "null",
        }
    }
}

/// Whether `e` is a mode ([`AggOp::Mode`]).
pub fn is_mode(e: &GpuExpr) -> bool {
    matches!(
        e.kind,
        ExprKind::Agg {
            op: AggOp::Mode { .. },
            ..
        }
    )
}

/// Whether `e` is a mode ([`is_mode`]) or one value picked of a mode's
/// list (`x.mode().first()`).
pub fn is_mode_or_picked(e: &GpuExpr) -> bool {
    match &e.kind {
        ExprKind::List {
            function: ListFunction::Get { .. },
            input,
        } => is_mode(input),
        _ => is_mode(e),
    }
}

/// A GPU expression with its resolved result type.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuExpr {
    pub kind: ExprKind,
    pub dtype: GpuDtype,
}

/// An expression with the name of the column it produces.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedExpr {
    pub name: String,
    pub expr: GpuExpr,
}

impl GpuExpr {
    /// Whether a part of this expression is computed by Polars by each
    /// chunk of its input, so that the GPU checks whether its answer is
    /// Polars' own over the whole frame ([`ExprKind::PolarsOwnWhere`]).
    pub fn by_chunks(&self) -> bool {
        self.any(&|e| matches!(e.kind, ExprKind::PolarsOwnWhere { .. }))
    }

    /// Whether this expression, or any part of it, aggregates.
    /// Windows aggregate within themselves: what is inside one does not count.
    pub fn has_aggregation(&self) -> bool {
        match self.kind {
            ExprKind::Agg { .. } | ExprKind::Len => true,
            ExprKind::Window { .. } => false,
            _ => self.children().iter().any(|child| child.has_aggregation()),
        }
    }

    /// Whether this is each row's place (a `cum_sum` of a literal, which
    /// the lowering makes only as places, Polars' `cum_sum` of one value
    /// being refused): of the frame's height, though it reads no column.
    pub fn is_places(&self) -> bool {
        matches!(&self.kind, ExprKind::CumSum(input) if matches!(input.kind, ExprKind::Literal(_)))
    }

    /// Whether this expression, or any part of it, is a window (`over`).
    pub fn has_window(&self) -> bool {
        self.any(&|e| matches!(e.kind, ExprKind::Window { .. }))
    }

    /// Whether this expression reads other rows than its own (`shift`,
    /// `reverse`, `set_sorted`'s check, forward and backward fills, `cum_sum`, `cum_prod`, `cum_max`, `cum_min`, `rolling_*`, `ewm_*`, `rank`,
    /// the distinctness tests, sorts, `gather`): per group it reads the
    /// group's rows, not the frame's.
    pub fn reads_other_rows(&self) -> bool {
        matches!(
            self.kind,
            ExprKind::Shift { .. }
                | ExprKind::Reverse(_)
                | ExprKind::Gather { .. }
                | ExprKind::SetSorted { .. }
                | ExprKind::Fill { .. }
                | ExprKind::CumSum(_)
                | ExprKind::CumProd(_)
                | ExprKind::CumExtreme { .. }
                | ExprKind::Rolling { .. }
                | ExprKind::Ewm { .. }
                | ExprKind::Rank { .. }
                | ExprKind::Distinct { .. }
                | ExprKind::SortedBy { .. }
                | ExprKind::IsInColumn { .. }
        )
    }

    /// Whether this expression, or any part of it, reads other rows than
    /// its own (see [`GpuExpr::reads_other_rows`]).
    pub fn has_part_reading_other_rows(&self) -> bool {
        self.any(&GpuExpr::reads_other_rows)
    }

    /// A sort inside this expression whose values or keys are reordered
    /// first (`reverse`, a sort, a filter, `unique`), but for a sort of
    /// values by themselves: per group (in a window, in a group-by's
    /// aggregation) Polars' `sort_by` pairs such values and keys by the
    /// rows they came from, or by their places, as its group bookkeeping
    /// goes, an answer of its own. The sort as written, if any.
    pub fn sort_of_reordered(&self) -> Option<String> {
        let reordered = |e: &GpuExpr| {
            e.any(&|part| {
                matches!(
                    part.kind,
                    ExprKind::Reverse(_)
                        | ExprKind::SortedBy { .. }
                        | ExprKind::Where { .. }
                        | ExprKind::Unique { .. }
                )
            })
        };
        let mut found = None;
        self.visit(&mut |e| {
            if let ExprKind::SortedBy { input, order, .. } = &e.kind
                && found.is_none()
                && !matches!(order.as_slice(), [only] if *only.key == **input)
                && (reordered(input) || order.iter().any(|o| reordered(&o.key)))
            {
                found = Some(e.to_string());
            }
        });
        found
    }

    /// Whether Polars computes this expression per group as a list of each
    /// group's values rather than row by row over the frame: it holds an
    /// aggregation, a function of the rows in order, or a parse of texts by
    /// a format Polars infers from them. Aggregations of such values take
    /// paths of their own in Polars (a group of one null: `arg_max` 0, a
    /// spread 0.0).
    pub fn taken_as_lists_per_group(&self) -> bool {
        self.has_aggregation()
            || self.has_part_reading_other_rows()
            || self.any(&|e| matches!(e.kind, ExprKind::ParseTemporal { inferred: true, .. }))
    }

    /// Whether this is a `list.sum` or `list.mean` of floats (or a mean of
    /// 64-bit integers), which Polars adds in one of two orders by whether
    /// the list column's child holds a null anywhere (polars-ops'
    /// `has_inner_nulls`): an answer of the whole column, not of each row
    /// alone.
    pub fn sums_lists_in_polars_order(&self) -> bool {
        let ExprKind::List {
            function: ListFunction::Aggregate(op),
            input,
        } = &self.kind
        else {
            return false;
        };
        let GpuDtype::List(of) = input.dtype else {
            return false;
        };
        matches!(
            (op, of.values()),
            (
                AggOp::Sum | AggOp::Mean,
                GpuDtype::Float32 | GpuDtype::Float64
            ) | (AggOp::Mean, GpuDtype::Int64 | GpuDtype::UInt64)
        )
    }

    /// Whether this is `list.slice` by each row's bounds, which Polars takes
    /// as single values over a frame of one row (a null length as the rest,
    /// a null offset as an error): an answer of the frame's height, not of
    /// each row alone.
    pub fn slices_lists_by_rows(&self) -> bool {
        matches!(
            &self.kind,
            ExprKind::List {
                function: ListFunction::SliceAt { .. },
                ..
            }
        )
    }

    /// Whether `f` holds for this expression or any expression inside it.
    pub fn any(&self, f: &impl Fn(&GpuExpr) -> bool) -> bool {
        self.find(f).is_some()
    }

    /// This expression or the first expression inside it (parents first)
    /// for which `f` holds.
    pub fn find(&self, f: &impl Fn(&GpuExpr) -> bool) -> Option<&GpuExpr> {
        if f(self) {
            return Some(self);
        }
        self.children().into_iter().find_map(|child| child.find(f))
    }

    /// Calls `f` on this expression and every expression inside it, parents
    /// first, to change them in place.
    pub fn visit_mut(&mut self, f: &mut impl FnMut(&mut GpuExpr)) {
        f(self);
        for child in self.children_mut() {
            child.visit_mut(f);
        }
    }

    /// Calls `f` on this expression and every expression inside it, parents first.
    pub fn visit(&self, f: &mut impl FnMut(&GpuExpr)) {
        f(self);
        for child in self.children() {
            child.visit(f);
        }
    }

    /// The expressions this one is computed from, in order, to change in place.
    pub fn children_mut(&mut self) -> Vec<&mut GpuExpr> {
        children!(&mut self.kind, &mut)
    }

    /// The expressions this one is computed from, in order.
    pub fn children(&self) -> Vec<&GpuExpr> {
        children!(&self.kind, &)
    }
}
