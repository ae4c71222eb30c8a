//! Lowering Polars expressions (`AExpr`) to GPU expressions, refusing what the GPU cannot run.
//!
//! This module holds the walk ([`ExprLowering::expr`]), refusals and what
//! every family reads (types, one-value tests); one module per family:
//! `literals`, `aggregations`, `functions` (Polars' `FunctionExpr`, which
//! dispatches to the next ones), `boolean`, `strings`, `temporal`,
//! `row_order`.

use polars::prelude::DataType;
use polars::prelude::QuantileMethod;
use polars_core::chunked_array::cast::CastOptions;
use polars_core::prelude::{
    AnyValue, FillNullStrategy, PlSmallStr, Schema, Series, SortMultipleOptions,
};
use polars_core::series::ops::NullBehavior;
use polars_ops::series::{ClosedInterval, RankMethod as PolarsRankMethod, RoundMode};
use polars_plan::dsl::{Operator, WindowMapping};
use polars_plan::plans::expr_ir::ExprIR;
use polars_plan::plans::{
    AExpr, ArenaExprIter, IRAggExpr, IRBooleanFunction, IRFunctionExpr, IRListFunction,
    IRPowFunction, IRRangeFunction, IRStringFunction, IRStructFunction, IRTemporalFunction,
    LiteralValue, ToFieldContext,
};
use polars_utils::arena::{Arena, Node};

use crate::dtype::{Dictionary, GpuDtype, TimeUnit};
use crate::expr::{
    AggOp, BinaryOp, ByRows, CastMode, Closed, DistinctTest, EwmFunction, ExprKind, FloatCheck,
    FormatPart, GpuExpr, Held, HostFunction, ListFunction, NamedExpr, PadSide, RankMethod,
    Rounding, RowMatch, RowOrder, Scalar, StringOp, TemplatePiece, TemporalPart, TextPattern,
    Truncation, UnaryFunction,
};
use crate::refusal::Refusal;
use crate::regex::{GroupDfas, RegexDfa, group_spans_match, replacement_pieces};

mod aggregating_functions;
mod aggregations;
mod boolean;
mod categorical;
mod decimals;
mod functions;
mod horizontal;
mod kept_lists;
mod kept_rows;
mod list_eval;
mod lists;
mod literals;
mod made_lists;
mod nested;
mod one_value;
mod replace;
mod rolling;
mod row_order;
mod strings;
mod structs;
mod temporal;
mod temporal_parts;
mod wide_integers;
mod windows;

pub(crate) use aggregations::mean_of_f32;
use aggregations::*;
pub(crate) use boolean::integer_range;
use boolean::*;
use categorical::*;
pub(crate) use functions::cast_or_nulls_supported;
use functions::*;
use horizontal::*;
pub(crate) use kept_rows::{Inside, KeptRows, filter_below, filtered_parts, of_every_row};
use lists::LISTS_ON_THE_GPU;
pub use literals::any_value_to_scalar;
use literals::*;
pub(crate) use literals::{is_constant, reads_the_frame};
pub(crate) use made_lists::AtPlaces;
pub(crate) use rolling::{fixed_ticks, rolling_input, times_of, window_ticks};
pub(crate) use row_order::run_ids;
use row_order::*;
use structs::STRUCTS_ON_THE_GPU;
pub(crate) use temporal::truncation;
use temporal::*;

/// Where Polars raises on the data (`condition` true, not null): a strict
/// cast of -1 to u8 there, 0 elsewhere (u8), which the executor refuses
/// as data it cannot run, sending the query to Polars, which raises its
/// error.
pub(crate) fn raising_where(condition: GpuExpr) -> GpuExpr {
    let int64 = GpuDtype::Int64;
    condition
        .fill_null(GpuExpr::literal(Scalar::Boolean(false), GpuDtype::Boolean))
        .then(
            GpuExpr::literal(Scalar::Int(-1), int64),
            GpuExpr::literal(Scalar::Int(0), int64),
            int64,
        )
        .cast(GpuDtype::UInt8, CastMode::Strict)
}

/// `value`, where the executor first checks that no row holds `raises`
/// (true, not null): where one does, the query goes to Polars, which
/// raises its error there ([`raising_where`]).
pub(crate) fn raising_unless(value: GpuExpr, raises: GpuExpr) -> GpuExpr {
    let checked = raising_where(raises).binary(
        BinaryOp::Eq,
        GpuExpr::literal(Scalar::UInt(0), GpuDtype::UInt8),
        GpuDtype::Boolean,
    );
    let dtype = value.dtype;
    checked.then(value.clone(), value, dtype)
}

/// Why a sort of reordered values or keys (see
/// [`GpuExpr::sort_of_reordered`]) per group stays with Polars.
pub(crate) fn per_group_sort_of_reordered(sort: &str) -> String {
    format!(
        "`{sort}` per group sorts values or keys reordered first, which Polars pairs \
         by rows of its own: not supported on the GPU"
    )
}

/// The key and order of `idx` where it is `key.arg_sort(..)` (of one key):
/// the order of a stable `sort_by`, as gathering by it sorts.
pub(crate) fn arg_sort_of(arena: &Arena<AExpr>, idx: Node) -> Option<(Node, SortMultipleOptions)> {
    let AExpr::Function {
        input,
        function:
            IRFunctionExpr::ArgSort {
                descending,
                nulls_last,
            },
        ..
    } = arena.get(idx)
    else {
        return None;
    };
    let [key] = input.as_slice() else {
        return None;
    };
    let options = SortMultipleOptions {
        descending: vec![*descending],
        nulls_last: vec![*nulls_last],
        maintain_order: true,
        ..Default::default()
    };
    Some((key.node(), options))
}

/// Lowers the expressions of one plan node against that node's input schema.
pub(crate) struct ExprLowering<'a> {
    pub arena: &'a Arena<AExpr>,
    pub schema: &'a Schema,
    /// The columns of `schema` Polars holds at one row (see
    /// [`ExprLowering::one_value`]).
    pub one_row: Vec<PlSmallStr>,
    pub refusals: &'a mut Vec<Refusal>,
    /// Whether the expression is evaluated per group (an aggregation of a
    /// group-by, the function of a window), where some of Polars' functions
    /// take paths of their own.
    pub per_group: bool,
    /// While lowering an aggregation's input whose columns are all read
    /// through slices of these bounds (see `aggregation_of`): such slices
    /// lower to their input, the aggregation keeping the rows by place.
    pub unsliced: Option<(Node, Node)>,
    /// While lowering an aggregation's input whose columns are all read
    /// through one filter (see `aggregation_of`): the filter lowers to its
    /// input, the aggregation keeping the rows it keeps.
    pub unfiltered: bool,
    /// While lowering an expression whose filter (or slice) lies under
    /// functions of the rows in order that skip nulls (see
    /// `ExprLowering::through_filter`): the filter's node and its values
    /// with null where it does not keep the row, which it lowers to.
    pub nulled: Option<(Node, GpuExpr)>,
    /// A node that lowers to a column of the frame the expression runs
    /// over, wherever it stands (an `explode` a group-by exploded first:
    /// see `PlanLowering::group_by_of_explode`).
    pub substituted: Option<(Node, GpuExpr)>,
    /// While lowering the expressions of a `struct.with_fields`: the
    /// struct whose fields `pl.field(name)` reads.
    pub fields_of: Option<GpuExpr>,
    /// The columns of `schema` Polars holds as scalar columns (one value
    /// repeated), where known (`None`: not known here): its kernels of two
    /// columns take other paths for them (see `float_extreme_of_two`).
    pub scalar_columns: Option<Vec<PlSmallStr>>,
    /// While lowering an expression (`None` before): the windows of a
    /// constant in it that Polars' arithmetic takes as it takes the
    /// constant (see `constant_windows_among_rows`).
    pub constant_windows: Option<Vec<Node>>,
}

type Lowered = Option<GpuExpr>;

impl ExprLowering<'_> {
    /// Lowers a named expression of a plan node.
    pub fn named(&mut self, expr: &ExprIR) -> Option<NamedExpr> {
        let lowered = self.expr(expr.node())?;
        Some(NamedExpr {
            name: expr.output_name().to_string(),
            expr: lowered,
        })
    }

    /// Lowers every expression, refusing each that cannot be lowered.
    pub fn all_named(&mut self, exprs: &[ExprIR]) -> Option<Vec<NamedExpr>> {
        let lowered: Vec<Option<NamedExpr>> = exprs.iter().map(|e| self.named(e)).collect();
        lowered.into_iter().collect()
    }

    fn notation(&self, node: Node) -> String {
        crate::refusal::written(node, self.arena)
    }

    fn refuse(&mut self, node: Node, reason: impl Into<String>) -> Lowered {
        self.refused(node, reason.into(), false)
    }

    /// Refuses `node` for the whole plan (see [`Refusal::whole_plan`]):
    /// Polars' answer to it depends on how its own engine holds what comes
    /// below, so no part of the query runs on the device.
    fn refuse_whole(&mut self, node: Node, reason: impl Into<String>) -> Lowered {
        self.refused(node, reason.into(), true)
    }

    fn refused(&mut self, node: Node, reason: String, whole_plan: bool) -> Lowered {
        self.refusals.push(Refusal {
            subject: self.notation(node),
            reason,
            whole_plan,
        });
        None
    }

    /// Refuses `left op right` of operands of two types: the evaluator
    /// computes operands of one type.
    fn refuse_two_types(
        &mut self,
        node: Node,
        left: &GpuExpr,
        op: BinaryOp,
        right: &GpuExpr,
    ) -> Lowered {
        let why = format!(
            "{} {} {} (operands of two types) is not supported on the GPU",
            left.dtype,
            op.symbol(),
            right.dtype
        );
        self.refuse(node, why)
    }

    fn dtype(&mut self, node: Node) -> Option<GpuDtype> {
        let context = ToFieldContext::new(self.arena, self.schema);
        // Dynamic literals ("dyn int") take the type Polars gives them when
        // they are materialised (Int32, Float64, String).
        let resolved = self
            .arena
            .get(node)
            .to_dtype(&context)
            .and_then(|dtype| dtype.materialize_unknown(false));
        let dtype = match resolved {
            Ok(dtype) => dtype,
            Err(e) => {
                self.refuse(node, format!("its type cannot be resolved: {e}"));
                return None;
            }
        };
        match GpuDtype::from_polars(&dtype) {
            Ok(dtype) => Some(dtype),
            Err(reason) => {
                self.refuse(node, reason);
                None
            }
        }
    }

    fn boxed(&mut self, node: Node) -> Option<Box<GpuExpr>> {
        self.expr(node).map(Box::new)
    }

    /// Lowers every input (so that every refusal is found) and returns them
    /// only if all lowered.
    fn inputs(&mut self, inputs: &[ExprIR]) -> Option<Vec<GpuExpr>> {
        let lowered: Vec<Lowered> = inputs.iter().map(|e| self.expr(e.node())).collect();
        lowered.into_iter().collect()
    }

    /// Lowers one expression node. Children are lowered first; a node whose
    /// children failed adds no refusal of its own, so each reason is reported
    /// once, at the innermost construct.
    pub fn expr(&mut self, node: Node) -> Lowered {
        if self.constant_windows.is_none() {
            self.constant_windows = Some(windows::constant_windows_among_rows(node, self.arena));
            let lowered = self.expr(node);
            self.constant_windows = None;
            return lowered;
        }
        if let Some((at, nulled)) = self.nulled.as_ref().or(self.substituted.as_ref())
            && *at == node
        {
            return Some(nulled.clone());
        }
        // An aggregation beside a filter or slice being lowered through
        // (`x.filter(p) + x.filter(q).shift(1).last()`) takes its own
        // rows: the filters and slices inside it are its own.
        let through = self.unfiltered || self.unsliced.is_some() || self.nulled.is_some();
        if through && matches!(self.arena.get(node), AExpr::Agg(_)) {
            let outer = (
                std::mem::take(&mut self.unfiltered),
                self.unsliced.take(),
                self.nulled.take(),
            );
            let lowered = self.expr(node);
            (self.unfiltered, self.unsliced, self.nulled) = outer;
            return lowered;
        }
        let lowered = self.expr_of_any_values(node)?;
        let lowered = self.without_nested_values(node, lowered)?;
        let lowered = self.with_decimals_checked(node, lowered)?;
        let lowered = self.with_nulls_checked(node, lowered)?;
        self.without_unrun_nesting(node, lowered)
    }

    /// `lowered` where the device runs it for values of the Null type (held
    /// as booleans all null): made (a column, a null literal, a choice, a
    /// first or last value), tested for nulls, counted; cast to other types
    /// (see `AExpr::Cast`). Anything else of such values is refused.
    fn with_nulls_checked(&mut self, node: Node, lowered: GpuExpr) -> Lowered {
        let null = |e: &GpuExpr| e.dtype == GpuDtype::Null;
        // (A choice or a filter by nulls of the Null type, wherever the
        // lowering put it: Polars raises.)
        let by_nulls = |e: &GpuExpr| match &e.kind {
            ExprKind::Ternary { predicate, .. } => null(predicate),
            ExprKind::Where { by, .. } => null(by),
            _ => false,
        };
        let allowed = !lowered.any(&by_nulls)
            && match &lowered.kind {
                ExprKind::Column { .. } | ExprKind::Literal(_) | ExprKind::Ternary { .. } => true,
                ExprKind::Agg {
                    op: AggOp::First | AggOp::Last,
                    ..
                } => true,
                ExprKind::IsNull(_)
                | ExprKind::IsNotNull(_)
                | ExprKind::Agg {
                    op: AggOp::Count { .. },
                    ..
                } => !null(&lowered),
                _ => !null(&lowered) && !lowered.children().into_iter().any(null),
            };
        if !allowed {
            return self.refuse(
                node,
                "this function of values of the Null type is not supported on the GPU",
            );
        }
        Some(lowered)
    }

    /// [`ExprLowering::expr`], lists not yet checked.
    fn expr_of_any_values(&mut self, node: Node) -> Lowered {
        if let Some(folded) = self.folded(node) {
            return folded;
        }
        // (Per group, only of values computed per group: a column Polars
        // holds at one row is read row by row there.)
        if let AExpr::Agg(agg) = self.arena.get(node)
            && let input = agg.get_input().first()
            && (polars_plan::plans::is_scalar_ae(input, self.arena)
                || !self.per_group && self.one_value(input))
            && let Some(lowered) = self.aggregation_of_one_value(node, &agg.clone())
        {
            return lowered;
        }
        if let Some((reason, whole_plan)) = self.of_one_value(node) {
            return self.refused(node, reason, whole_plan);
        }
        let kind = match self.arena.get(node) {
            AExpr::Column(name) => match self.schema.get_full(name) {
                // An input column of a type the GPU cannot hold was refused
                // where it was produced: no second refusal here.
                Some((_, _, dtype)) if GpuDtype::from_polars(dtype).is_err() => return None,
                Some((index, _, _)) => ExprKind::Column {
                    index,
                    name: name.to_string(),
                    held: Held::PerRow,
                },
                None => return self.refuse(node, "the column is not in the input"),
            },
            AExpr::Literal(value) => {
                let value = value.clone();
                return self.literal(node, &value);
            }
            AExpr::BinaryExpr { left, op, right } => {
                let (left, right, op) = (*left, *right, *op);
                let op = binary_op(op);
                let compares = op.is_comparison()
                    || matches!(op, BinaryOp::EqMissing | BinaryOp::NotEqMissing);
                if compares
                    && let (Some(a), Some(b)) =
                        (self.cast_to_i128_of(left), self.cast_to_i128_of(right))
                {
                    return self.wide_comparison(node, op, (a, b));
                }
                let nodes = (left, right);
                let (left, right) = (self.boxed(left), self.boxed(right));
                let (left, right) = (left?, right?);
                if compares && matches!(left.dtype, GpuDtype::List(_)) {
                    return self.lists_compared(node, op, (*left, *right), nodes);
                }
                // A dynamic integer literal beyond the integer type Polars
                // plans for the result (`lit(i64::MAX) / col(i32)`): Polars'
                // plan says one type and its engine computes in another.
                let planned = self.dtype(node)?;
                let beyond = |side: &GpuExpr| match &side.kind {
                    ExprKind::Literal(value @ (Scalar::Int(_) | Scalar::UInt(_))) => {
                        planned.is_integer() && held_exactly(value, planned).is_none()
                    }
                    _ => false,
                };
                if beyond(&left) || beyond(&right) {
                    return self.refuse(
                        node,
                        format!("a literal beyond the {planned} Polars plans for the result"),
                    );
                }
                let (left, right) = match self.categorical_sides(node, op, *left, *right) {
                    Ok(sides) => sides,
                    Err(decided) => return decided,
                };
                if matches!(op, BinaryOp::EqMissing | BinaryOp::NotEqMissing) {
                    // Operands of two types (a key of one type compared with
                    // a literal of the other's, after Polars pushed a filter
                    // to the other side of a join): refused as below.
                    if left.dtype != right.dtype
                        && ![&left, &right].iter().any(|side| {
                            matches!(side.dtype, GpuDtype::Decimal(..) | GpuDtype::Null)
                        })
                    {
                        return self.refuse_two_types(node, &left, op, &right);
                    }
                    return Some(null_aware_equality(left, right, op == BinaryOp::EqMissing));
                }
                // Timestamps of two zones (or of a zone and none): Polars
                // raises.
                let zone_of = |dtype| match dtype {
                    GpuDtype::ZonedDatetime(_, zone) => Some(Some(zone)),
                    GpuDtype::Datetime(_) => Some(None),
                    _ => None,
                };
                if let (Some(a), Some(b)) = (zone_of(left.dtype), zone_of(right.dtype))
                    && a != b
                {
                    return self.refuse(
                        node,
                        format!(
                            "{} {} {}: timestamps of different time zones",
                            left.dtype,
                            op.symbol(),
                            right.dtype
                        ),
                    );
                }
                // Timestamps in a time zone add, subtract and compare as
                // their instants (UTC timestamps), the zone kept.
                let (left, right) = (Box::new(instant(left)), Box::new(instant(right)));
                if let Some(done) = temporal_arithmetic(op, &left, &right, instant_dtype(planned)) {
                    return Some(match planned {
                        GpuDtype::ZonedDatetime(..) => reinterpreted(done, planned),
                        _ => done,
                    });
                }
                let arithmetic = !op.is_comparison();
                // Times subtract (above); Polars adds, multiplies or divides
                // none.
                if arithmetic && (left.dtype == GpuDtype::Time || right.dtype == GpuDtype::Time) {
                    return self.refuse(
                        node,
                        format!(
                            "{} {} {} is not supported on the GPU",
                            left.dtype,
                            op.symbol(),
                            right.dtype
                        ),
                    );
                }
                if op == BinaryOp::Plus && left.dtype == GpuDtype::String {
                    // `+` of strings concatenates them.
                    ExprKind::ConcatStr {
                        inputs: vec![*left, *right],
                        separator: String::new(),
                        ignore_nulls: false,
                    }
                } else if arithmetic
                    && [&left, &right]
                        .iter()
                        .any(|side| side.dtype == GpuDtype::String)
                {
                    // (Polars raises where it computes it: fuzz seed 23127,
                    // case 94, `max(element()) - min(element())` of texts
                    // in a list.eval over no rows.)
                    return self.refuse(
                        node,
                        format!(
                            "{} {} {} is not supported on the GPU (Polars adds texts, and \
                             computes no other arithmetic of them)",
                            left.dtype,
                            op.symbol(),
                            right.dtype
                        ),
                    );
                } else if left.dtype == GpuDtype::Boolean
                    && right.dtype == GpuDtype::Boolean
                    && !matches!(op, BinaryOp::And | BinaryOp::Or | BinaryOp::Xor)
                    && arithmetic
                {
                    // Polars adds booleans as its plan types the sum (u32),
                    // and raises on other arithmetic of them where it
                    // computes it (a list.eval over no values does not).
                    if op != BinaryOp::Plus || !planned.is_integer() {
                        return self.refuse(
                            node,
                            format!(
                                "`{}` of booleans (typed {planned}) is not supported on the GPU \
                                 (Polars adds booleans, and computes no other arithmetic of them)",
                                op.symbol()
                            ),
                        );
                    }
                    ExprKind::Binary {
                        op,
                        left: Box::new(left.cast(planned, CastMode::NonStrict)),
                        right: Box::new(right.cast(planned, CastMode::NonStrict)),
                    }
                } else if op == BinaryOp::Minus
                    && left.dtype == GpuDtype::Date
                    && right.dtype == GpuDtype::Date
                {
                    // Polars subtracts dates as microsecond timestamps.
                    let micros = GpuDtype::Datetime(TimeUnit::Microseconds);
                    let (left, right) = (
                        left.cast(micros, CastMode::NonStrict),
                        right.cast(micros, CastMode::NonStrict),
                    );
                    ExprKind::Binary {
                        op,
                        left: Box::new(left),
                        right: Box::new(right),
                    }
                } else if left.dtype != right.dtype
                    && !matches!(left.dtype, GpuDtype::Decimal(..))
                    && !matches!(right.dtype, GpuDtype::Decimal(..))
                {
                    // The evaluator computes operands of one type (decimals
                    // of two scales aside).
                    return self.refuse_two_types(node, &left, op, &right);
                } else if matches!(op, BinaryOp::And | BinaryOp::Or | BinaryOp::Xor)
                    && planned != left.dtype
                {
                    // (`any_horizontal` of a boolean literal and `len()`:
                    // Polars' optimiser makes `1:u32 | len()`, typed bool,
                    // which its engine computes bitwise, as u32.)
                    return self.refuse(
                        node,
                        format!(
                            "{} {} {} typed {planned} in Polars' plan is not supported on the GPU",
                            left.dtype,
                            op.symbol(),
                            right.dtype
                        ),
                    );
                } else if matches!(op, BinaryOp::And | BinaryOp::Or | BinaryOp::Xor)
                    && left.dtype.is_float()
                {
                    // (The evaluator's `&`, `|` and `^` are of booleans
                    // and integers.)
                    return self.refuse(
                        node,
                        format!(
                            "`{}` of {} is not supported on the GPU",
                            op.symbol(),
                            left.dtype
                        ),
                    );
                } else {
                    ExprKind::Binary { op, left, right }
                }
            }
            AExpr::Cast {
                expr,
                dtype,
                options,
            } => {
                let (expr, target) = (*expr, dtype.clone());
                let mode = match options {
                    CastOptions::Strict => CastMode::Strict,
                    CastOptions::NonStrict => CastMode::NonStrict,
                    CastOptions::Overflowing => CastMode::Wrapping,
                };
                let null = self.is_null_literal(expr);
                let input = if null { None } else { Some(self.boxed(expr)?) };
                let to = match GpuDtype::from_polars(&target) {
                    Ok(to) => to,
                    Err(reason) => return self.refuse(node, reason),
                };
                // A null cast to a type is a null of that type.
                let Some(input) = input else {
                    return Some(GpuExpr {
                        kind: ExprKind::Literal(Scalar::Null),
                        dtype: to,
                    });
                };
                if input.dtype == GpuDtype::Null && to != GpuDtype::Null {
                    return Some(input.nulls_as(to));
                }
                // A list or text cast to its own type is itself (the
                // device makes no text by a cast: `lit("x").over(g)
                // .cast(pl.String)` is the literal).
                if matches!(to, GpuDtype::List(_) | GpuDtype::String) && input.dtype == to {
                    return Some(*input);
                }
                // Floats to dates, timestamps and durations as Polars casts
                // them: to their ticks' integer type (in the cast's mode),
                // then the ticks taken as the type's.
                let ticks = match to {
                    GpuDtype::Date => Some(GpuDtype::Int32),
                    GpuDtype::Datetime(_) | GpuDtype::Duration(_) => Some(GpuDtype::Int64),
                    _ => None,
                };
                if let Some(ticks) = ticks.filter(|_| input.dtype.is_float())
                    && cast_supported(input.dtype, ticks)
                    && cast_supported(ticks, to)
                {
                    let ticked = input.cast(ticks, mode);
                    return Some(ticked.cast(to, CastMode::NonStrict));
                }
                // Text to dates and timestamps as Polars casts it.
                if input.dtype == GpuDtype::String
                    && let Some(format) = cast_parse_format(to)
                {
                    // (A text cast to a timestamp may be read whatever
                    // follows its time: none is made null on the device.)
                    let lenient = to == GpuDtype::Date && mode != CastMode::Strict;
                    return Some(GpuExpr {
                        kind: ExprKind::ParseTemporal {
                            input,
                            format,
                            inferred: false,
                            lenient,
                        },
                        dtype: to,
                    });
                }
                // Lists (of values, not nested) to lists of values of another
                // type: each value cast, as `list.eval(element().cast(..))`.
                if let (GpuDtype::List(from), GpuDtype::List(into)) = (input.dtype, to)
                    && from != into
                    && !from.values().is_nested()
                    && !into.values().is_nested()
                    && cast_supported(from.values(), into.values())
                {
                    return Some(list_eval::lists_cast(*input, into.values(), mode));
                }
                if !cast_supported(input.dtype, to) {
                    return self.refuse(
                        node,
                        format!(
                            "casting {} to {to} is not supported on the GPU",
                            input.dtype
                        ),
                    );
                }
                if let (GpuDtype::Datetime(unit), GpuDtype::Time) = (input.dtype, to) {
                    return Some(time_of_day(*input, unit));
                }
                ExprKind::Cast { input, mode }
            }
            AExpr::Ternary {
                predicate,
                truthy,
                falsy,
            } => {
                let (p, t, f) = (*predicate, *truthy, *falsy);
                let (predicate, truthy, falsy) = (self.boxed(p), self.boxed(t), self.boxed(f));
                // A dynamic literal branch takes the result's type, as Polars
                // materialises it (`then(i64::MIN).otherwise(-2)`: -2 as i64).
                let dtype = self.dtype(node)?;
                let truthy = self.dynamic_literal_as(t, truthy?, dtype);
                let falsy = self.dynamic_literal_as(f, falsy?, dtype);
                // Dynamic literals of two number types the result's does not
                // hold both of (`then(-4).otherwise(2**40)` planned as i32):
                // Polars takes the wider at run time.
                if truthy.dtype != falsy.dtype
                    && truthy.dtype.is_numeric()
                    && falsy.dtype.is_numeric()
                {
                    return self.refuse(
                        node,
                        format!(
                            "when/then/otherwise of {} and {} as {dtype} is not supported on the \
                             GPU",
                            truthy.dtype, falsy.dtype
                        ),
                    );
                }
                // A categorical (or enum) branch beside texts: Polars' plan
                // types the choice as text, its engine gives the categorical
                // (what reads it then raises or orders by the categories).
                let categorical = |e: &GpuExpr| matches!(e.dtype, GpuDtype::Categorical(_));
                if dtype == GpuDtype::String && (categorical(&truthy) || categorical(&falsy)) {
                    return self.refuse(
                        node,
                        "when/then/otherwise of a categorical and texts (Polars' plan types it \
                         as texts, its engine gives the categorical) is not supported on the GPU",
                    );
                }
                ExprKind::Ternary {
                    predicate: predicate?,
                    truthy,
                    falsy,
                }
            }
            AExpr::Agg(agg) => {
                let agg = agg.clone();
                return self.aggregation(node, &agg);
            }
            AExpr::Function {
                input, function, ..
            } => {
                let (input, function) = (input.clone(), function.clone());
                return self.function(node, &input, &function);
            }
            AExpr::Len => ExprKind::Len,
            // Inside `list.eval`: the values, column 0 of a frame of their own.
            AExpr::Element => match self.schema.get_full(polars_plan::constants::POLARS_ELEMENT) {
                Some((index, name, _)) => ExprKind::Column {
                    index,
                    name: name.to_string(),
                    held: Held::PerRow,
                },
                None => return self.refuse(node, "element() outside list.eval"),
            },
            AExpr::Explode { .. } => {
                return self.refuse(
                    node,
                    "explode inside an expression or beside other columns is not supported on \
                     the GPU (a select of exploded expressions alone, of the same options, runs)",
                );
            }
            AExpr::StructField(name) => return self.field_of_with_fields(node, name),
            AExpr::Sort { expr, options } => {
                let (expr, options) = (*expr, *options);
                if options.limit.is_some() {
                    return self.refuse(node, "a sort with a limit inside an expression");
                }
                let order = SortMultipleOptions::from(&options);
                return self.sorted_by(node, expr, &[expr], &order);
            }
            AExpr::SortBy {
                expr,
                by,
                sort_options,
            } => {
                let (expr, by, options) = (*expr, by.clone(), sort_options.clone());
                return self.sorted_by(node, expr, &by, &options);
            }
            // `get` at a literal place: the value there (of the column, or
            // of each group), as an aggregation.
            AExpr::Gather {
                expr,
                idx,
                returns_scalar: true,
                null_on_oob,
            } if let Some(index) = self
                .constant(*idx)
                .filter(|value| value_dtype(value).is_some_and(|dtype| dtype.is_integer()))
                .and_then(|value| value.extract::<i64>()) =>
            {
                let (expr, null_on_oob) = (*expr, *null_on_oob);
                if self.one_value(expr) {
                    // Polars takes one value (a list of one) per group.
                    return self.refuse(
                        node,
                        "`get` of a literal or an aggregation is not supported on the GPU",
                    );
                }
                let dtype = self.dtype(node)?;
                let input = self.boxed(expr)?;
                let got = GpuExpr {
                    kind: ExprKind::Agg {
                        op: AggOp::Get { index, null_on_oob },
                        input,
                    },
                    dtype,
                };
                return Some(got);
            }
            // `x.gather(y.arg_sort(..))`: x in y's order, stably (Polars'
            // `arg_sort` is stable), as `x.sort_by(y)` keeps ties; x and y
            // of a value per row (of one value, Polars gathers its own way).
            AExpr::Gather {
                expr,
                idx,
                returns_scalar: false,
                ..
            } if let Some((key, options)) = arg_sort_of(self.arena, *idx)
                && !self.one_value(key)
                && !self.one_value(*expr) =>
            {
                let values = self.boxed(*expr);
                return self.sorted_by_nodes(node, values, &[key], &options);
            }
            // `gather` by indices as long as the frame (over the whole
            // frame: per group Polars takes each group's indices as a list).
            AExpr::Gather {
                expr,
                idx,
                returns_scalar: false,
                null_on_oob,
            } if !self.per_group
                && polars_plan::plans::is_length_preserving_ae(*idx, self.arena)
                && !self.one_value(*idx)
                && !self.one_value(*expr) =>
            {
                let (expr, idx, null_on_oob) = (*expr, *idx, *null_on_oob);
                let (input, indices) = (self.boxed(expr), self.boxed(idx));
                let (input, indices) = (input?, indices?);
                if !indices.dtype.is_integer() || indices.dtype == GpuDtype::UInt64 {
                    return self.refuse(
                        node,
                        format!(
                            "gather by indices of {} is not supported on the GPU",
                            indices.dtype
                        ),
                    );
                }
                ExprKind::Gather {
                    input,
                    indices,
                    null_on_oob,
                    shown: self.notation(node),
                }
            }
            // `x.get(k.arg_max())` (or `arg_min`): the value at the first
            // place of k's extreme, where k equals its extreme (k not a
            // float: Polars' arg_max and max take NaNs their own ways).
            AExpr::Gather {
                expr,
                idx,
                returns_scalar: true,
                ..
            } if let Some((by, maximum)) = self.arg_extreme_of(*idx) => {
                let expr = *expr;
                return self.value_at_extreme(node, expr, by, maximum);
            }
            AExpr::Gather { .. } => {
                return self.refuse(
                    node,
                    "gather inside an expression (but `get` at a literal place or at \
                     `arg_max`/`arg_min`, at literal places as a group's list or a select's \
                     rows, and over the whole frame by indices as long as it) is not supported \
                     on the GPU",
                );
            }
            AExpr::Filter { input, .. } if self.unfiltered => {
                let input = *input;
                return self.expr(input);
            }
            AExpr::Filter { .. } => {
                return self.refuse(
                    node,
                    "filter inside an expression is not supported on the GPU",
                );
            }
            AExpr::AnonymousAgg { .. } | AExpr::AnonymousFunction { .. } => {
                return self.refuse(node, "user-defined functions run on the CPU only");
            }
            AExpr::Eval {
                expr,
                evaluation,
                variant:
                    variant @ (polars_plan::dsl::EvalVariant::List
                    | polars_plan::dsl::EvalVariant::ListAgg),
            } => {
                let (expr, evaluation) = (*expr, *evaluation);
                let aggregated = matches!(variant, polars_plan::dsl::EvalVariant::ListAgg);
                return self.list_eval(node, expr, evaluation, aggregated);
            }
            AExpr::StructEval { expr, evaluation } => {
                let (expr, evaluation) = (*expr, evaluation.clone());
                return self.with_fields(node, expr, &evaluation);
            }
            AExpr::Eval { .. } => {
                return self.refuse(
                    node,
                    "array and struct evaluation are not supported on the GPU",
                );
            }
            AExpr::Over {
                function,
                partition_by,
                order_by,
                mapping,
            } => {
                let (function, partition_by) = (*function, partition_by.clone());
                let (order_by, mapping) = (*order_by, *mapping);
                return self.window(node, function, &partition_by, order_by, mapping);
            }
            AExpr::Slice { input, .. } if self.unsliced.is_some() => {
                // (Bounds checked by `common_slice`.)
                let input = *input;
                return self.expr(input);
            }
            AExpr::Slice { .. } => {
                return self.refuse(
                    node,
                    "slicing inside an expression is not supported on the GPU",
                );
            }
            // What Polars features this workspace does not enable add (a
            // crate depending on ours may enable them): refused the same way.
            #[allow(unreachable_patterns)]
            _ => return self.refuse(node, "this expression is not supported on the GPU"),
        };
        let dtype = self.dtype(node)?;
        Some(GpuExpr { kind, dtype })
    }

    /// Polars' type of `node` (dynamic literals materialised), if it resolves.
    pub(crate) fn polars_dtype(&self, node: Node) -> Option<DataType> {
        let context = ToFieldContext::new(self.arena, self.schema);
        self.arena
            .get(node)
            .to_dtype(&context)
            .and_then(|dtype| dtype.materialize_unknown(false))
            .ok()
    }

    /// The supertype Polars' arithmetic casts the columns of `a` and `b`
    /// (numbers of differing types, or booleans) to before adding them,
    /// where the GPU has it and casts both to it: of the types their values
    /// take once Polars' engine makes them columns (a dynamic literal as
    /// its own type, `1.0` as f64, not as the other side's), as a
    /// horizontal mean adds them. `None` for other types (decimals, which
    /// Polars rescales, nulls and anything not a number).
    pub(crate) fn materialized_supertype(&self, a: Node, b: Node) -> Option<GpuDtype> {
        let [a, b] = [a, b].map(|node| {
            self.polars_dtype(node)
                .and_then(|dtype| dtype.materialize_unknown(true).ok())
        });
        let (a, b) = (a?, b?);
        let number = |dtype: &DataType| dtype.is_primitive_numeric() || dtype.is_bool();
        if !(number(&a) && number(&b)) {
            return None;
        }
        let supertype = polars_core::utils::try_get_supertype(&a, &b).ok()?;
        let supertype = GpuDtype::from_polars(&supertype).ok()?;
        let [a, b] = [a, b].map(|dtype| GpuDtype::from_polars(&dtype));
        let (a, b) = (a.ok()?, b.ok()?);
        (cast_supported(a, supertype) && cast_supported(b, supertype)).then_some(supertype)
    }

    /// `lowered` unless it nests parts in a way the executor does not run:
    /// - a `gather` by indices or a `set_sorted` (whose claim the device
    ///   checks over the frame) inside an aggregation (one lowering built
    ///   too: `all`, `any`) or a sort's values or keys: Polars takes an
    ///   aggregation's input per group (of the whole frame too), and the
    ///   device sorts within groups (the frame one group), whose indices
    ///   it reads as the frame's only;
    /// - text made of aggregations or of other rows (a shift, a running
    ///   value, a sort, a slice or `gather_every`, which test places)
    ///   inside an aggregation: the device makes text over the whole frame,
    ///   not group by group;
    /// - a function of the rows in order (a shift, a fill, a running value,
    ///   a rank, a sort, `is_in` of a column) of aggregated values or of a
    ///   window's values: the executor computes such functions of the
    ///   frame's columns, before aggregations and windows.
    pub(crate) fn without_unrun_nesting(&mut self, node: Node, lowered: GpuExpr) -> Lowered {
        let gathers =
            |e: &GpuExpr| matches!(e.kind, ExprKind::Gather { .. } | ExprKind::SetSorted { .. });
        let gather_inside = |e: &GpuExpr| match &e.kind {
            ExprKind::Agg { input, .. } => input.any(&gathers),
            ExprKind::SortedBy { input, order, .. } => {
                input.any(&gathers) || order.iter().any(|order| order.key.any(&gathers))
            }
            _ => false,
        };
        if lowered.any(&gather_inside) {
            return self.refuse(
                node,
                "a gather by indices or `set_sorted` inside an aggregation or a sort is not \
                 supported on the GPU",
            );
        }
        // A function of a filter's rows as its group's list (see
        // `kept_lists`) is a value per group, not one per row.
        let kept_list_inside = |e: &GpuExpr| matches!(&e.kind, ExprKind::Agg { input, .. } if input.any(&crate::support::kept_list));
        if lowered.any(&kept_list_inside) {
            return self.refuse(node, crate::support::KEPT_LIST_BESIDE_ROWS);
        }
        if lowered.any(&crate::support::text_of_other_rows_inside) {
            return self.refuse(
                node,
                "text made of aggregations or of other rows (a shift, a running value, a sort, \
                 a slice, `gather_every`) inside an aggregation is not supported on the GPU",
            );
        }
        let of_aggregation = |e: &GpuExpr| {
            e.reads_other_rows() && e.children().into_iter().any(GpuExpr::has_aggregation)
        };
        if lowered.any(&of_aggregation) {
            return self.refuse(
                node,
                "a function of the rows in order (a shift, a fill, a running value, a rank, a \
                 sort, `is_in` of a column) of aggregated values is not supported on the GPU",
            );
        }
        let of_window =
            |e: &GpuExpr| e.reads_other_rows() && e.children().into_iter().any(GpuExpr::has_window);
        if lowered.any(&of_window) {
            return self.refuse(
                node,
                "a function of the rows in order (a shift, a fill, a running value, a rank, a \
                 sort, `is_in` of a column) of a window's values is not supported on the GPU",
            );
        }
        Some(lowered)
    }

    fn single(&mut self, inputs: &[ExprIR]) -> Lowered {
        self.expr(inputs.first()?.node())
    }

    fn exactly<const N: usize>(&mut self, node: Node, inputs: &[ExprIR]) -> Option<[GpuExpr; N]> {
        if inputs.len() != N {
            self.refuse(node, format!("expected {N} inputs, found {}", inputs.len()));
            return None;
        }
        self.inputs(inputs)?.try_into().ok()
    }
}
