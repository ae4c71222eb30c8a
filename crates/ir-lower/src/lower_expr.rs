//! Lowering Polars expressions (`AExpr`) to GPU expressions, refusing what the GPU cannot run.

use polars::prelude::DataType;
use polars::prelude::QuantileMethod;
use polars_core::chunked_array::cast::CastOptions;
use polars_core::prelude::{AnyValue, FillNullStrategy, Schema, Series, SortMultipleOptions};
use polars_core::series::ops::NullBehavior;
use polars_ops::series::{ClosedInterval, RankMethod as PolarsRankMethod, RoundMode};
use polars_plan::dsl::{Operator, WindowMapping};
use polars_plan::plans::expr_ir::ExprIR;
use polars_plan::plans::{
    AExpr, ExprIRDisplay, IRAggExpr, IRBooleanFunction, IRFunctionExpr, IRPowFunction,
    IRStringFunction, IRTemporalFunction, LiteralValue, ToFieldContext,
};
use polars_utils::arena::{Arena, Node};

use crate::dtype::{GpuDtype, TimeUnit};
use crate::expr::{
    AggOp, BinaryOp, CastMode, Closed, DistinctTest, ExprKind, FloatCheck, FormatPart, GpuExpr,
    Held, NamedExpr, PadSide, RankMethod, Rounding, RowMatch, RowOrder, Scalar, StringOp,
    TemporalPart, TextPattern, Truncation,
};
use crate::refusal::Refusal;
use crate::regex::{RegexDfa, group_spans_match};

/// Which rows of an expression a filter inside an expression keeps.
#[derive(Debug, Clone, Copy)]
pub(crate) enum KeptRows {
    /// Where this boolean expression is true (`filter`).
    By(Node),
    /// The valid ones (`drop_nulls`).
    NotNull,
    /// Those not NaN (`drop_nans`).
    NotNan,
    /// Those whose place lies in the slice (`slice`, `head`, `tail`).
    Slice { offset: Node, length: Node },
    /// Every `n`-th from `offset` (`gather_every`).
    Every { n: usize, offset: usize },
}

/// Lowers the expressions of one plan node against that node's input schema.
pub(crate) struct ExprLowering<'a> {
    pub arena: &'a Arena<AExpr>,
    pub schema: &'a Schema,
    pub refusals: &'a mut Vec<Refusal>,
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
        ExprIRDisplay::display_node(node, self.arena).to_string()
    }

    fn refuse(&mut self, node: Node, reason: impl Into<String>) -> Lowered {
        self.refusals.push(Refusal {
            subject: self.notation(node),
            reason: reason.into(),
            whole_plan: false,
        });
        None
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
        if let Some(folded) = self.folded(node) {
            return folded;
        }
        if let Some((reason, whole_plan)) = self.of_one_value(node) {
            self.refusals.push(Refusal {
                subject: self.notation(node),
                reason,
                whole_plan,
            });
            return None;
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
                let (left, right) = (self.boxed(left), self.boxed(right));
                let op = binary_op(op);
                let (left, right) = (left?, right?);
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
                if matches!(op, BinaryOp::EqMissing | BinaryOp::NotEqMissing) {
                    return Some(null_aware_equality(
                        *left,
                        *right,
                        op == BinaryOp::EqMissing,
                    ));
                }
                if op == BinaryOp::Plus && left.dtype == GpuDtype::String {
                    // `+` of strings concatenates them.
                    ExprKind::ConcatStr {
                        inputs: vec![*left, *right],
                        separator: String::new(),
                        ignore_nulls: false,
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
                if !cast_supported(input.dtype, to) {
                    return self.refuse(
                        node,
                        format!(
                            "casting {} to {to} is not supported on the GPU",
                            input.dtype
                        ),
                    );
                }
                ExprKind::Cast { input, mode }
            }
            AExpr::Ternary {
                predicate,
                truthy,
                falsy,
            } => {
                let (p, t, f) = (*predicate, *truthy, *falsy);
                let (p, t, f) = (self.boxed(p), self.boxed(t), self.boxed(f));
                ExprKind::Ternary {
                    predicate: p?,
                    truthy: t?,
                    falsy: f?,
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
            AExpr::Element => return self.refuse(node, "element() is not supported on the GPU"),
            AExpr::Explode { .. } => {
                return self.refuse(node, "explode is not supported on the GPU");
            }
            AExpr::StructField(_) => {
                return self.refuse(node, "struct fields are not supported on the GPU");
            }
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
            AExpr::Gather { .. } => {
                return self.refuse(
                    node,
                    "gather inside an expression is not supported on the GPU",
                );
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
            AExpr::Eval { .. } | AExpr::StructEval { .. } => {
                return self.refuse(
                    node,
                    "list and struct evaluation is not supported on the GPU",
                );
            }
            AExpr::Over {
                function,
                partition_by,
                order_by,
                mapping,
            } => {
                let (function, partition_by, order_by) =
                    (*function, partition_by.clone(), *order_by);
                if *mapping != WindowMapping::GroupsToRows {
                    return self.refuse(
                        node,
                        format!("windows mapped by {mapping:?} are not supported on the GPU"),
                    );
                }
                // A literal partition is one partition of every row (Polars
                // makes `over(order_by=...)` so); other single values as keys
                // Polars broadcasts, or (as an order) rejects.
                let one_value = |key: &Node| polars_plan::plans::is_scalar_ae(*key, self.arena);
                let literal = |key: &Node| matches!(self.arena.get(*key), AExpr::Literal(_));
                if let Some(key) = partition_by
                    .iter()
                    .filter(|key| !literal(key))
                    .chain(order_by.as_ref().map(|(key, _)| key))
                    .find(|key| one_value(key))
                {
                    let key = self.notation(*key);
                    return self.refuse(
                        node,
                        format!(
                            "a window partitioned or ordered by one value (`{key}`) is not \
                             supported on the GPU"
                        ),
                    );
                }
                let function = self.boxed(function);
                let keys: Vec<Lowered> = partition_by.iter().map(|&key| self.expr(key)).collect();
                let order_by = order_by.map(|(key, options)| {
                    Some(RowOrder {
                        key: self.boxed(key)?,
                        descending: options.descending,
                        nulls_last: options.nulls_last,
                    })
                });
                let partition_by = keys.into_iter().collect::<Option<Vec<_>>>()?;
                let order_by = match order_by {
                    Some(order) => Some(order?),
                    None => None,
                };
                ExprKind::Window {
                    function: function?,
                    partition_by,
                    order_by,
                }
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

    /// A constant expression (no column, no `len()`: literals and what
    /// functions make of them) that Polars holds as one value, computed by
    /// Polars itself into a literal: Polars takes a literal as one value,
    /// not as a column, so `lit(-2).shift(1)` is null and `lit("z").count()`
    /// is 1 (also per group). `None` when `node` is no such expression (a
    /// literal itself included); `Some(None)` when Polars raises on it (it
    /// is refused, so that Polars raises its error).
    fn folded(&mut self, node: Node) -> Option<Lowered> {
        if matches!(self.arena.get(node), AExpr::Literal(_)) || !is_constant(node, self.arena) {
            return None;
        }
        if !polars_plan::plans::is_scalar_ae(node, self.arena) {
            return None;
        }
        // Over a frame of one row, as Polars meets it in a query (its
        // literal arithmetic panics on some values of no frame at all).
        let expr = polars_plan::plans::node_to_expr(node, self.arena);
        let computed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let one_row = polars::prelude::DataFrame::new(
                1,
                vec![polars::prelude::Column::new("".into(), [0i32])],
            )?;
            // (Without simplification, whose literal arithmetic panics on
            // an integer division by zero where the engine gives null.)
            polars::prelude::IntoLazy::lazy(one_row)
                .with_simplify_expr(false)
                .select([expr.alias("constant")])
                .collect()
        }));
        let column = match computed {
            Ok(Ok(df)) if df.height() == 1 => df.columns()[0].as_materialized_series().clone(),
            // Polars panics on it, or it is no one value: lowered as it is.
            Err(_) | Ok(Ok(_)) => return None,
            Ok(Err(e)) => return Some(self.refuse(node, format!("Polars raises on it: {e}"))),
        };
        let dtype = self.dtype(node);
        let (Some(dtype), Some(polars_dtype)) = (dtype, self.polars_dtype(node)) else {
            return Some(None);
        };
        let value = column
            .cast(&polars_dtype)
            .map_err(|e| e.to_string())
            .and_then(|column| {
                column
                    .get(0)
                    .map(|v| v.into_static())
                    .map_err(|e| e.to_string())
            });
        Some(match value.and_then(|value| any_value_to_scalar(&value)) {
            Ok(scalar) => Some(GpuExpr {
                kind: ExprKind::Literal(scalar),
                dtype,
            }),
            Err(reason) => self.refuse(node, reason),
        })
    }

    /// Polars' type of `node` (dynamic literals materialised), if it resolves.
    fn polars_dtype(&self, node: Node) -> Option<DataType> {
        let context = ToFieldContext::new(self.arena, self.schema);
        self.arena
            .get(node)
            .to_dtype(&context)
            .and_then(|dtype| dtype.materialize_unknown(false))
            .ok()
    }

    /// Why `node` cannot run where it takes one value that is not a
    /// constant (an aggregation, `len()`): Polars applies an aggregation or
    /// a function that reads other rows (a shift, a running sum, a sort) to
    /// that one value, where the executor would apply it to the value
    /// repeated on every row. `None` for anything else.
    /// With the reason, whether the whole plan must stay on the CPU (see
    /// [`Refusal::whole_plan`]).
    fn of_one_value(&self, node: Node) -> Option<(String, bool)> {
        let one_value = |input: Node| polars_plan::plans::is_scalar_ae(input, self.arena);
        let refused = |what: &str, input: Node| {
            Some((
                format!(
                    "{what} (`{}`) is not supported on the GPU",
                    self.notation(input)
                ),
                false,
            ))
        };
        match self.arena.get(node) {
            AExpr::Agg(agg) => {
                // Of a filter of one value (`len().drop_nulls().sum()`) too.
                let input = agg.get_input().first();
                let values = filtered_parts(self.arena, input).map_or(input, |(values, _)| values);
                if one_value(values) {
                    return refused("an aggregation over one value", values);
                }
            }
            AExpr::Function {
                input,
                options,
                function,
            } => {
                let first = input.first()?.node();
                // Of a filter of one value too (`min(x).drop_nulls().product()`).
                let values = filtered_parts(self.arena, first).map_or(first, |(values, _)| values);
                if !options.is_elementwise() && one_value(values) {
                    return refused("a function of the rows in order over one value", values);
                }
                // Polars gives such a function the length of its first
                // input, where the executor repeats that value on every row
                // (`lit(0).clip(col("a"), ...)` is one value in Polars).
                let horizontal = matches!(
                    function,
                    IRFunctionExpr::Coalesce
                        | IRFunctionExpr::StringExpr(IRStringFunction::ConcatHorizontal { .. })
                );
                let per_row = input[1..].iter().any(|i| !one_value(i.node()));
                if !horizontal && one_value(first) && per_row {
                    // Polars' answer depends on whether its engine holds
                    // the columns below as one value: no mixed plan either.
                    let (reason, _) =
                        refused("a function of one value with arguments of every row", first)?;
                    return Some((reason, true));
                }
            }
            AExpr::Sort { expr, .. } if one_value(*expr) => {
                return refused("a sort over one value", *expr);
            }
            AExpr::SortBy { expr, by, .. } => {
                if one_value(*expr) {
                    return refused("a sort over one value", *expr);
                }
                if let Some(key) = by.iter().find(|key| one_value(**key)) {
                    return refused("a sort by one value", *key);
                }
            }
            _ => {}
        }
        None
    }

    fn literal(&mut self, node: Node, value: &LiteralValue) -> Lowered {
        let scalar = match value {
            LiteralValue::Scalar(scalar) => match any_value_to_scalar(scalar.value()) {
                Ok(scalar) => scalar,
                Err(reason) => return self.refuse(node, reason),
            },
            LiteralValue::Dyn(_) => {
                // Polars materialises dynamic literals during optimisation; one
                // left over is taken at its resolved type.
                let dtype = self.dtype(node)?;
                match value.to_any_value() {
                    Some(value) => match any_value_to_scalar(&value) {
                        Ok(scalar) => {
                            return Some(GpuExpr {
                                kind: ExprKind::Literal(scalar),
                                dtype,
                            });
                        }
                        Err(reason) => return self.refuse(node, reason),
                    },
                    None => return self.refuse(node, "the literal has no value"),
                }
            }
            LiteralValue::Series(_) => {
                return self.refuse(
                    node,
                    "a list literal is supported only as the list of is_in",
                );
            }
            LiteralValue::Range(_) => {
                return self.refuse(node, "range literals are not supported on the GPU");
            }
        };
        let dtype = self.dtype(node)?;
        Some(GpuExpr {
            kind: ExprKind::Literal(scalar),
            dtype,
        })
    }

    fn aggregation(&mut self, node: Node, agg: &IRAggExpr) -> Lowered {
        let (op, input) = match *agg {
            IRAggExpr::Min {
                input,
                propagate_nans,
            } => (AggOp::Min { propagate_nans }, input),
            IRAggExpr::Max {
                input,
                propagate_nans,
            } => (AggOp::Max { propagate_nans }, input),
            IRAggExpr::Median(input) => (AggOp::Median, input),
            IRAggExpr::NUnique(input) => (AggOp::NUnique, input),
            IRAggExpr::First(input) => (AggOp::First, input),
            IRAggExpr::Last(input) => (AggOp::Last, input),
            IRAggExpr::Mean(input) => (AggOp::Mean, input),
            IRAggExpr::Sum(input) => (AggOp::Sum, input),
            IRAggExpr::Count {
                input,
                include_nulls,
            } => (AggOp::Count { include_nulls }, input),
            IRAggExpr::Std(input, ddof) => (AggOp::Std { ddof }, input),
            IRAggExpr::Var(input, ddof) => (AggOp::Var { ddof }, input),
            // The first (last) of the values that are not null.
            IRAggExpr::FirstNonNull(input) | IRAggExpr::LastNonNull(input) => {
                let op = if matches!(agg, IRAggExpr::FirstNonNull(_)) {
                    AggOp::First
                } else {
                    AggOp::Last
                };
                let dtype = self.dtype(node)?;
                let values = self.expr(input)?;
                let kept = values.clone().is_not_null();
                return self.aggregation_of_filter(node, op, (values, kept), dtype);
            }
            IRAggExpr::Item { input, allow_empty } => (AggOp::Item { allow_empty }, input),
            IRAggExpr::Implode { .. } | IRAggExpr::AggGroups(_) => {
                return self.refuse(
                    node,
                    format!("aggregation {} is not supported on the GPU", agg_name(agg)),
                );
            }
        };
        let dtype = self.dtype(node)?;
        if let AggOp::Item { .. } = op {
            // Of the input as it is (a filter, sort or slice of it is
            // refused as an expression).
            let input = self.boxed(input)?;
            return Some(GpuExpr {
                kind: ExprKind::Agg { op, input },
                dtype,
            });
        }
        self.aggregation_of(node, op, input, dtype)
    }

    /// `op` of the expression at `input`, of `dtype`: of a filter
    /// ([`filtered_parts`]), the rows it keeps.
    fn aggregation_of(&mut self, node: Node, op: AggOp, input: Node, dtype: GpuDtype) -> Lowered {
        if let Some(parts) = filtered_parts(self.arena, input) {
            // A variance of every n-th value, or of a filter by a literal:
            // where a group keeps no valid value Polars gives 0.0 on this
            // path (null on the others), so the executor, seeing the rows
            // kept (`Where`), leaves such a group to Polars.
            let by_literal = |by: Node| matches!(self.arena.get(by), AExpr::Literal(_));
            let polars_own = matches!(op, AggOp::Std { .. } | AggOp::Var { .. })
                && match parts.1 {
                    KeptRows::Every { .. } => true,
                    KeptRows::By(by) => by_literal(by),
                    _ => false,
                };
            let (values, kept) = self.filtered(input, parts)?;
            if polars_own {
                let input = GpuExpr {
                    dtype: values.dtype,
                    kind: ExprKind::Where {
                        input: Box::new(values),
                        by: Box::new(kept),
                    },
                };
                return Some(GpuExpr {
                    kind: ExprKind::Agg {
                        op,
                        input: Box::new(input),
                    },
                    dtype,
                });
            }
            return self.aggregation_of_filter(node, op, (values, kept), dtype);
        }
        let input = self.boxed(input)?;
        Some(GpuExpr {
            kind: ExprKind::Agg { op, input },
            dtype,
        })
    }

    /// The values of [`filtered_parts`] and a boolean per row
    /// of them, true where the row is kept, both lowered (so that the
    /// reasons of both are reported).
    pub fn filtered(
        &mut self,
        node: Node,
        (values, rows): (Node, KeptRows),
    ) -> Option<(GpuExpr, GpuExpr)> {
        let lowered = self.expr(values);
        let kept = match rows {
            KeptRows::By(by) => self.expr(by),
            KeptRows::Slice { offset, length } => self.kept_by_place(node, (offset, length)),
            KeptRows::Every { n: 0, .. } => self.refuse(node, "gather_every(0)"),
            KeptRows::Every { n, offset } => {
                // Rows offset, offset + n, ... of the frame or group.
                let int64 = GpuDtype::Int64;
                let int = |v: usize| GpuExpr::literal(Scalar::Int(v as i64), int64);
                let from_offset = place_from_zero().binary(BinaryOp::Minus, int(offset), int64);
                Some(
                    from_offset
                        .clone()
                        .binary(BinaryOp::GtEq, int(0), GpuDtype::Boolean)
                        .binary(
                            BinaryOp::And,
                            from_offset.binary(BinaryOp::Modulus, int(n), int64).binary(
                                BinaryOp::Eq,
                                int(0),
                                GpuDtype::Boolean,
                            ),
                            GpuDtype::Boolean,
                        ),
                )
            }
            KeptRows::NotNull => lowered.clone().map(GpuExpr::is_not_null),
            // Those not NaN (nulls are kept; only floats hold NaN).
            KeptRows::NotNan => lowered.as_ref().map(|values| {
                let every = GpuExpr::literal(Scalar::Boolean(true), GpuDtype::Boolean);
                if !values.dtype.is_float() {
                    return every;
                }
                GpuExpr {
                    kind: ExprKind::FloatCheck {
                        check: FloatCheck::IsNotNan,
                        input: Box::new(values.clone()),
                    },
                    dtype: GpuDtype::Boolean,
                }
                .fill_null(every)
            }),
        };
        Some((lowered?, kept?))
    }

    /// Whether each row's place p (from 0, in the frame or in its group)
    /// lies in Polars' slice of literal bounds: from `offset` (counted from
    /// the end when negative), `length` rows (all, when null).
    fn kept_by_place(&mut self, node: Node, (offset, length): (Node, Node)) -> Lowered {
        let (offset, length) = (self.literal_i64(offset), self.constant(length));
        let length = match length {
            Some(AnyValue::Null) => Some(i64::MAX),
            Some(value) => value
                .extract::<u64>()
                .map(|v| v.min(i64::MAX as u64) as i64),
            None => None,
        };
        let (Some(offset), Some(length)) = (offset, length) else {
            return self.refuse(node, "a slice with bounds that are not literals");
        };
        let int64 = GpuDtype::Int64;
        let int = |v| GpuExpr::literal(Scalar::Int(v), int64);
        let start = if offset < 0 {
            let rows = GpuExpr {
                kind: ExprKind::Len,
                dtype: GpuDtype::UInt32,
            };
            rows.cast(int64, CastMode::NonStrict)
                .binary(BinaryOp::Plus, int(offset), int64)
        } else {
            int(offset)
        };
        let from_start = place_from_zero().binary(BinaryOp::Minus, start.clone(), int64);
        Some(
            place_from_zero()
                .binary(BinaryOp::GtEq, start, GpuDtype::Boolean)
                .binary(
                    BinaryOp::And,
                    from_start.binary(BinaryOp::Lt, int(length), GpuDtype::Boolean),
                    GpuDtype::Boolean,
                ),
        )
    }

    /// An aggregation of `input.filter(by)`: of the input with null where
    /// `by` is not true, for the aggregations that skip nulls (the number of
    /// rows kept, for `len`); `first` and `last` of the rows kept; n_unique,
    /// which counts null, is refused.
    fn aggregation_of_filter(
        &mut self,
        node: Node,
        op: AggOp,
        (input, by): (GpuExpr, GpuExpr),
        dtype: GpuDtype,
    ) -> Lowered {
        let (op, input) = match op {
            AggOp::NUnique => {
                return self.refuse(node, format!("{op} of a filtered expression"));
            }
            // The rows kept themselves: first and last pick among them, and
            // Polars sums (and so averages) the kept values of floats (and of
            // integers, for means) in its own order.
            AggOp::First | AggOp::Last | AggOp::Sum | AggOp::Mean
                if matches!(op, AggOp::First | AggOp::Last)
                    || input.dtype == GpuDtype::Float64
                    || (op == AggOp::Mean
                        && matches!(
                            input.dtype,
                            GpuDtype::Int32 | GpuDtype::Int64 | GpuDtype::UInt32 | GpuDtype::UInt64
                        )) =>
            {
                let kept = GpuExpr {
                    dtype: input.dtype,
                    kind: ExprKind::Where {
                        input: Box::new(input),
                        by: Box::new(by),
                    },
                };
                (op, kept)
            }
            AggOp::Count {
                include_nulls: true,
            } if dtype == GpuDtype::UInt32 => {
                // The rows the filter keeps.
                let kept = by
                    .fill_null(GpuExpr::literal(Scalar::Boolean(false), GpuDtype::Boolean))
                    .cast(GpuDtype::UInt32, CastMode::NonStrict);
                (AggOp::Sum, kept)
            }
            AggOp::Count {
                include_nulls: true,
            } => {
                return self.refuse(node, format!("the number of filtered rows as {dtype}"));
            }
            op => {
                let null = GpuExpr::literal(Scalar::Null, input.dtype);
                let dtype = input.dtype;
                (op, by.then(input, null, dtype))
            }
        };
        Some(GpuExpr {
            kind: ExprKind::Agg {
                op,
                input: Box::new(input),
            },
            dtype,
        })
    }

    fn function(&mut self, node: Node, inputs: &[ExprIR], function: &IRFunctionExpr) -> Lowered {
        use IRFunctionExpr as F;
        let unsupported = |function: &dyn std::fmt::Display| {
            format!("function {function} is not supported on the GPU")
        };
        let kind = match function {
            F::Boolean(boolean) => return self.boolean(node, inputs, boolean),
            F::StringExpr(string) => return self.string(node, inputs, string),
            F::TemporalExpr(temporal) => return self.temporal(node, inputs, temporal),
            F::Abs => ExprKind::Abs(Box::new(self.single(inputs)?)),
            F::Negate => {
                let input = self.single(inputs)?;
                if input.dtype.is_unsigned() {
                    // Polars raises "`neg` operation not supported": let it.
                    return self.refuse(
                        node,
                        format!("Polars does not negate unsigned integers ({})", input.dtype),
                    );
                }
                ExprKind::Negate(Box::new(input))
            }
            F::FillNull => {
                let [input, value] = self.exactly::<2>(node, inputs)?;
                ExprKind::FillNull {
                    input: Box::new(input),
                    value: Box::new(value),
                }
            }
            F::Round { decimals, mode } => {
                let mode = match mode {
                    RoundMode::HalfToEven => Rounding::HalfToEven,
                    RoundMode::HalfAwayFromZero => Rounding::HalfAwayFromZero,
                    RoundMode::ToZero => Rounding::ToZero,
                };
                let decimals = *decimals;
                ExprKind::Round {
                    input: Box::new(self.single(inputs)?),
                    decimals,
                    mode,
                }
            }
            // Polars' `truncate` is its rounding toward zero.
            F::Truncate { decimals } => ExprKind::Round {
                input: Box::new(self.single(inputs)?),
                decimals: *decimals,
                mode: Rounding::ToZero,
            },
            F::Pow(IRPowFunction::Sqrt) => {
                let input = self.single(inputs)?;
                let dtype = self.dtype(node)?;
                // (Polars casts integers to f64 first.)
                ExprKind::Sqrt(Box::new(input.cast(dtype, CastMode::NonStrict)))
            }
            F::Pow(IRPowFunction::Generic) => {
                let [base, exponent] = [inputs.first()?.node(), inputs.get(1)?.node()];
                let base = self.expr(base)?;
                let dtype = self.dtype(node)?;
                // A literal, or a null cast to a type.
                let exponent = match self.literal_value(exponent) {
                    Some(value) => value,
                    None => match self.expr(exponent)?.kind {
                        ExprKind::Literal(Scalar::Null) => AnyValue::Null,
                        _ => {
                            return self.refuse(node, "pow with an exponent that is not a literal");
                        }
                    },
                };
                return match pow_exactly(base, exponent, dtype) {
                    Ok(expr) => Some(expr),
                    Err(why) => self.refuse(node, why),
                };
            }
            F::CumSum { reverse } => {
                let input = self.single(inputs)?;
                // Floats would sum in another order than Polars' loop.
                if !(input.dtype.is_integer() || input.dtype == GpuDtype::Boolean) {
                    return self.refuse(
                        node,
                        format!("cum_sum of {} is not supported on the GPU", input.dtype),
                    );
                }
                if !*reverse {
                    ExprKind::CumSum(Box::new(input))
                } else {
                    // At or after each row: the whole sum, less the sum
                    // before the row. Exact where the whole sum wraps as the
                    // running sums do: in 64-bit types, and for booleans
                    // (counted as u32, which a count never passes).
                    let dtype = self.dtype(node)?;
                    let wraps_alike = matches!(dtype, GpuDtype::Int64 | GpuDtype::UInt64)
                        || input.dtype == GpuDtype::Boolean;
                    if !wraps_alike {
                        return self.refuse(node, format!("reversed cum_sum as {dtype}"));
                    }
                    let this = input.clone().cast(dtype, CastMode::NonStrict);
                    let before = GpuExpr {
                        kind: ExprKind::CumSum(Box::new(input)),
                        dtype,
                    };
                    return Some(from_the_end(before, this));
                }
            }
            F::CumMax { reverse } | F::CumMin { reverse } => {
                let reverse = *reverse;
                let input = self.single(inputs)?;
                let minimum = matches!(function, F::CumMin { .. });
                if !(input.dtype.is_integer() || input.dtype.is_float()) {
                    let name = if minimum { "cum_min" } else { "cum_max" };
                    return self.refuse(
                        node,
                        format!("{name} of {} is not supported on the GPU", input.dtype),
                    );
                }
                ExprKind::CumExtreme {
                    input: Box::new(input),
                    minimum,
                    reverse,
                }
            }
            F::ArgSort {
                descending,
                nulls_last,
            } => {
                // The rows' places (in the group, per group), sorted stably
                // by the input, as Polars' stable `arg_sort` orders them.
                let dtype = self.dtype(node)?;
                let [input] = inputs else {
                    return self.refuse(node, "arg_sort of several inputs");
                };
                if dtype != GpuDtype::UInt32 {
                    return self.refuse(node, format!("arg_sort as {dtype}"));
                }
                let (input, options) = (
                    input.node(),
                    SortMultipleOptions {
                        descending: vec![*descending],
                        nulls_last: vec![*nulls_last],
                        ..Default::default()
                    },
                );
                let one = GpuExpr::literal(Scalar::UInt(1), dtype);
                let places = places_from_one().binary(BinaryOp::Minus, one, dtype);
                return self.sorted_by_nodes(node, Some(Box::new(places)), &[input], &options);
            }
            F::CumCount { reverse } => {
                // The valid rows at or before each row (at or after it,
                // reversed: all of them less those before it).
                let input = self.single(inputs)?;
                let dtype = self.dtype(node)?;
                if dtype != GpuDtype::UInt32 {
                    return self.refuse(node, format!("cum_count as {dtype}"));
                }
                let valid = input.is_not_null();
                let counted = GpuExpr {
                    kind: ExprKind::CumSum(Box::new(valid.clone())),
                    dtype,
                };
                if !*reverse {
                    return Some(counted);
                }
                return Some(from_the_end(
                    counted,
                    valid.cast(dtype, CastMode::NonStrict),
                ));
            }
            F::FillNullWithStrategy(strategy) => {
                let (forward, limit) = match strategy {
                    FillNullStrategy::Forward(limit) => (true, *limit),
                    FillNullStrategy::Backward(limit) => (false, *limit),
                    other => return self.fill_null_by_value(node, inputs, *other),
                };
                ExprKind::Fill {
                    input: Box::new(self.single(inputs)?),
                    forward,
                    limit: limit.map(u64::from),
                }
            }
            F::ArgMin | F::ArgMax => {
                let op = if matches!(function, F::ArgMin) {
                    AggOp::ArgMin
                } else {
                    AggOp::ArgMax
                };
                ExprKind::Agg {
                    op,
                    input: Box::new(self.single(inputs)?),
                }
            }
            F::Shift => {
                let [input, periods] = [inputs.first()?.node(), inputs.get(1)?.node()];
                let input = self.boxed(input);
                let Some(periods) = self.literal_periods(periods) else {
                    return self.refuse(node, "shift by a count that is not a literal integer");
                };
                ExprKind::Shift {
                    input: input?,
                    periods,
                }
            }
            F::ShiftAndFill => return self.shift_and_fill(node, inputs),
            F::Reverse => ExprKind::Reverse(Box::new(self.single(inputs)?)),
            F::Diff(NullBehavior::Ignore) => {
                let [input, n] = [inputs.first()?.node(), inputs.get(1)?.node()];
                let input = self.expr(input)?;
                let Some(n) = self.literal_i64(n) else {
                    return self.refuse(node, "diff by a count that is not a literal integer");
                };
                // Polars widens unsigned integers to signed ones first, then
                // subtracts the shifted values (wrapping).
                let dtype = self.dtype(node)?;
                if !input.dtype.is_numeric() || !dtype.is_numeric() {
                    return self.refuse(node, format!("diff of {}", input.dtype));
                }
                let input = input.cast(dtype, CastMode::NonStrict);
                let shifted = GpuExpr {
                    kind: ExprKind::Shift {
                        input: Box::new(input.clone()),
                        periods: n,
                    },
                    dtype,
                };
                return Some(input.binary(BinaryOp::Minus, shifted, dtype));
            }
            F::Rank { options, seed: _ } => {
                let method = match options.method {
                    PolarsRankMethod::Average => RankMethod::Average,
                    PolarsRankMethod::Min => RankMethod::Min,
                    PolarsRankMethod::Max => RankMethod::Max,
                    PolarsRankMethod::Dense => RankMethod::Dense,
                    PolarsRankMethod::Ordinal => RankMethod::Ordinal,
                    #[allow(unreachable_patterns)]
                    other => {
                        return self.refuse(node, format!("rank by the method {other:?}"));
                    }
                };
                let input = self.single(inputs)?;
                if !(input.dtype.is_numeric()
                    || input.dtype.is_temporal()
                    || matches!(input.dtype, GpuDtype::String | GpuDtype::Boolean))
                {
                    return self.refuse(node, format!("rank of {}", input.dtype));
                }
                ExprKind::Rank {
                    input: Box::new(input),
                    method,
                    descending: options.descending,
                }
            }
            F::NullCount => {
                // The rows less the valid ones, both counted as Polars counts.
                let input = self.single(inputs)?;
                let dtype = self.dtype(node)?;
                if dtype != GpuDtype::UInt32 {
                    return self.refuse(node, format!("null_count as {dtype}"));
                }
                let count = |include_nulls| GpuExpr {
                    kind: ExprKind::Agg {
                        op: AggOp::Count { include_nulls },
                        input: Box::new(input.clone()),
                    },
                    dtype,
                };
                return Some(count(true).binary(BinaryOp::Minus, count(false), dtype));
            }
            F::MinBy | F::MaxBy => {
                // The input at the first row where `by` is least (greatest),
                // as Polars' arg_min (arg_max) finds it; nulls skipped.
                let [input, by] = self.exactly::<2>(node, inputs)?;
                let dtype = self.dtype(node)?;
                if !(by.dtype.is_integer() || by.dtype.is_temporal()) {
                    return self.refuse(node, format!("{function} by {}", by.dtype));
                }
                let extreme = if matches!(function, F::MinBy) {
                    AggOp::Min {
                        propagate_nans: false,
                    }
                } else {
                    AggOp::Max {
                        propagate_nans: false,
                    }
                };
                let by_dtype = by.dtype;
                let extreme = GpuExpr {
                    kind: ExprKind::Agg {
                        op: extreme,
                        input: Box::new(by.clone()),
                    },
                    dtype: by_dtype,
                };
                let kept = GpuExpr {
                    kind: ExprKind::Where {
                        input: Box::new(input),
                        by: Box::new(by.binary(BinaryOp::Eq, extreme, GpuDtype::Boolean)),
                    },
                    dtype,
                };
                ExprKind::Agg {
                    op: AggOp::First,
                    input: Box::new(kept),
                }
            }
            F::Floor | F::Ceil => {
                let input = self.single(inputs)?;
                if input.dtype.is_integer() {
                    // Whole already: Polars returns the input.
                    return Some(input);
                }
                if !input.dtype.is_float() {
                    return self.refuse(node, format!("{function} of {}", input.dtype));
                }
                ExprKind::Round {
                    input: Box::new(input),
                    decimals: 0,
                    mode: if matches!(function, F::Floor) {
                        Rounding::Floor
                    } else {
                        Rounding::Ceil
                    },
                }
            }
            F::Clip { has_min, has_max } => {
                let mut nodes = inputs.iter().map(ExprIR::node);
                let input = self.expr(nodes.next()?);
                // A bound absent, or a null literal (of any type), does not
                // clip: `None`. Every bound is lowered, so that each reason
                // is reported.
                let mut bounds = Vec::with_capacity(2);
                for present in [*has_min, *has_max] {
                    let node = if present { nodes.next() } else { None };
                    bounds.push(match node {
                        Some(n) if !self.is_null_literal(n) => Some(self.expr(n)),
                        _ => None,
                    });
                }
                let input = input?;
                let dtype = input.dtype;
                // Polars casts each bound to the input's type, strictly: a
                // literal that does not fit raises, whatever the rows.
                let input_type = inputs.first().and_then(|i| self.polars_dtype(i.node()));
                let literals: Vec<AnyValue<'static>> = inputs
                    .iter()
                    .skip(1)
                    .filter_map(|bound| self.literal_value(bound.node()))
                    .collect();
                for value in literals {
                    let scalar = polars_core::scalar::Scalar::new(value.dtype(), value.clone());
                    let fits = input_type.as_ref().is_some_and(|to| {
                        value.is_null() || scalar.cast_with_options(to, CastOptions::Strict).is_ok()
                    });
                    if !fits {
                        return self.refuse(
                            node,
                            format!("the bound {value} does not fit {dtype}: Polars raises"),
                        );
                    }
                }
                let mut bounds = bounds.into_iter().map(|bound| {
                    let kind = match bound {
                        None => ExprKind::Literal(Scalar::Null),
                        Some(bound) => {
                            let bound = bound?;
                            if bound.dtype == dtype {
                                return Some(Box::new(bound));
                            }
                            ExprKind::Cast {
                                input: Box::new(bound),
                                mode: CastMode::Strict,
                            }
                        }
                    };
                    Some(Box::new(GpuExpr { kind, dtype }))
                });
                let (lower, upper) = (bounds.next()??, bounds.next()??);
                if !(input.dtype.is_numeric() || input.dtype.is_temporal()) {
                    return self.refuse(node, format!("clip of {}", input.dtype));
                }
                ExprKind::Clip {
                    input: Box::new(input),
                    lower,
                    upper,
                }
            }
            F::MaxHorizontal
            | F::MinHorizontal
            | F::SumHorizontal { .. }
            | F::MeanHorizontal { .. } => {
                let dtype = self.dtype(node)?;
                let inputs = self.inputs(inputs)?;
                return match horizontal(function, inputs, dtype) {
                    Ok(expr) => Some(expr),
                    Err(why) => self.refuse(node, why),
                };
            }
            F::Coalesce => {
                let dtype = self.dtype(node)?;
                let mut inputs = self.inputs(inputs)?.into_iter();
                let mut first = inputs.next()?;
                for next in inputs {
                    if first.dtype != dtype || next.dtype != dtype {
                        return self.refuse(node, "coalesce of differing types");
                    }
                    first = GpuExpr {
                        kind: ExprKind::FillNull {
                            input: Box::new(first),
                            value: Box::new(next),
                        },
                        dtype,
                    };
                }
                return Some(first);
            }
            F::Unique(maintain_order) => {
                let maintain_order = *maintain_order;
                ExprKind::Unique {
                    input: Box::new(self.single(inputs)?),
                    maintain_order,
                }
            }
            F::Product => {
                let (dtype, input) = (self.dtype(node)?, inputs.first()?.node());
                // (Of a filter too, `x.filter(p).product()`: of the rows kept.)
                let product = self.aggregation_of(node, AggOp::Product, input, dtype);
                // Integers wrap alike in any order; floats would round in
                // another order than Polars' loop.
                let input = self.dtype(input)?;
                if !(input.is_integer() || input == GpuDtype::Boolean) {
                    return self.refuse(
                        node,
                        format!("product of {input} is not supported on the GPU"),
                    );
                }
                return product;
            }
            F::Quantile { method } => {
                let method = quantile_method_name(*method);
                let [input, quantile] = [inputs[0].node(), inputs[1].node()];
                let input = self.boxed(input);
                let Some(quantile) = self.literal_f64(quantile) else {
                    return self.refuse(node, "the quantile must be a literal number");
                };
                ExprKind::Agg {
                    op: AggOp::Quantile { quantile, method },
                    input: input?,
                }
            }
            F::BinaryExpr { .. }
            | F::Categorical { .. }
            | F::ListExpr { .. }
            | F::StructExpr { .. }
            | F::Pow(IRPowFunction::Cbrt)
            | F::ArgWhere
            | F::Rechunk
            | F::ArgUnique
            | F::Repeat
            | F::AsList
            | F::AsStruct
            | F::ValueCounts { .. }
            | F::UniqueCounts
            | F::RoundSF { .. }
            | F::ConcatExpr { .. }
            | F::PeakMin
            | F::PeakMax
            | F::RLE
            | F::RLEID
            | F::ToPhysical
            | F::SetSortedFlag { .. }
            | F::FoldHorizontal { .. }
            | F::ReduceHorizontal { .. }
            | F::CumReduceHorizontal { .. }
            | F::CumFoldHorizontal { .. }
            | F::GatherEvery { .. }
            | F::ExtendConstant
            | F::RowEncode { .. }
            | F::RowDecode { .. }
            | F::DynamicPred { .. } => return self.refuse(node, unsupported(function)),
            // What Polars features this workspace does not enable add (a
            // crate depending on ours may enable them): refused the same way.
            #[allow(unreachable_patterns)]
            _ => return self.refuse(node, unsupported(function)),
        };
        let dtype = self.dtype(node)?;
        Some(GpuExpr { kind, dtype })
    }

    fn boolean(&mut self, node: Node, inputs: &[ExprIR], function: &IRBooleanFunction) -> Lowered {
        use IRBooleanFunction as B;
        let kind = match function {
            B::IsNan | B::IsNotNan | B::IsFinite | B::IsInfinite => {
                let check = match function {
                    B::IsNan => FloatCheck::IsNan,
                    B::IsNotNan => FloatCheck::IsNotNan,
                    B::IsFinite => FloatCheck::IsFinite,
                    _ => FloatCheck::IsInfinite,
                };
                let input = self.single(inputs)?;
                if !matches!(input.dtype, GpuDtype::Float32 | GpuDtype::Float64) {
                    return self.refuse(
                        node,
                        format!("{check} of {} is not supported on the GPU", input.dtype),
                    );
                }
                ExprKind::FloatCheck {
                    check,
                    input: Box::new(input),
                }
            }
            B::IsUnique | B::IsDuplicated | B::IsFirstDistinct | B::IsLastDistinct => {
                let test = match function {
                    B::IsUnique => DistinctTest::Unique,
                    B::IsDuplicated => DistinctTest::Duplicated,
                    B::IsFirstDistinct => DistinctTest::FirstDistinct,
                    _ => DistinctTest::LastDistinct,
                };
                ExprKind::Distinct {
                    input: Box::new(self.single(inputs)?),
                    test,
                }
            }
            B::IsNull => ExprKind::IsNull(Box::new(self.single(inputs)?)),
            B::IsNotNull => ExprKind::IsNotNull(Box::new(self.single(inputs)?)),
            B::Not => ExprKind::Not(Box::new(self.single(inputs)?)),
            B::IsBetween { closed } => {
                let closed = match closed {
                    ClosedInterval::Both => Closed::Both,
                    ClosedInterval::Left => Closed::Left,
                    ClosedInterval::Right => Closed::Right,
                    ClosedInterval::None => Closed::None,
                };
                let [input, lower, upper] = self.exactly::<3>(node, inputs)?;
                let literal = |e: &GpuExpr| matches!(e.kind, ExprKind::Literal(_));
                if !(literal(&lower) && literal(&upper)) {
                    // Bounds of the rows: the two comparisons, and Kleene's
                    // and of them, as Polars answers (null and false is false).
                    if lower.dtype != input.dtype || upper.dtype != input.dtype {
                        return self.refuse(
                            node,
                            format!(
                                "is_between of {} with bounds of {} and {}",
                                input.dtype, lower.dtype, upper.dtype
                            ),
                        );
                    }
                    let (low, high) = match closed {
                        Closed::Both => (BinaryOp::GtEq, BinaryOp::LtEq),
                        Closed::Left => (BinaryOp::GtEq, BinaryOp::Lt),
                        Closed::Right => (BinaryOp::Gt, BinaryOp::LtEq),
                        Closed::None => (BinaryOp::Gt, BinaryOp::Lt),
                    };
                    let boolean = GpuDtype::Boolean;
                    let above = input.clone().binary(low, lower, boolean);
                    let below = input.binary(high, upper, boolean);
                    return Some(above.binary(BinaryOp::And, below, boolean));
                }
                ExprKind::IsBetween {
                    input: Box::new(input),
                    lower: Box::new(lower),
                    upper: Box::new(upper),
                    closed,
                }
            }
            B::IsIn { nulls_equal } => {
                let nulls_equal = *nulls_equal;
                let input = self.boxed(inputs[0].node());
                let values = self.literal_list(inputs[1].node());
                if let (None, AExpr::Agg(IRAggExpr::Implode { input: other, .. })) =
                    (&values, self.arena.get(inputs[1].node()))
                {
                    let other = self.boxed(*other);
                    let (input, other) = (input?, other?);
                    if input.dtype != other.dtype {
                        return self
                            .refuse(node, format!("is_in of {} in {}", input.dtype, other.dtype));
                    }
                    return Some(GpuExpr {
                        kind: ExprKind::IsInColumn {
                            input,
                            other,
                            nulls_equal,
                        },
                        dtype: GpuDtype::Boolean,
                    });
                }
                let Some((values, list_dtype)) = values else {
                    return self.refuse(
                        node,
                        "is_in needs a literal list or an imploded column on the GPU",
                    );
                };
                let input = input?;
                if input.dtype.is_temporal() && list_dtype != input.dtype {
                    return self.refuse(
                        node,
                        format!("is_in of {} in a list of {list_dtype}", input.dtype),
                    );
                }
                return Some(membership(*input, &values, nulls_equal));
            }
            B::AllHorizontal | B::AnyHorizontal => {
                // Kleene and (or) of booleans, left to right.
                let op = if matches!(function, B::AllHorizontal) {
                    BinaryOp::And
                } else {
                    BinaryOp::Or
                };
                let mut inputs = self.inputs(inputs)?.into_iter();
                let mut folded = inputs.next()?;
                for next in inputs {
                    if folded.dtype != GpuDtype::Boolean || next.dtype != GpuDtype::Boolean {
                        return self.refuse(node, format!("{function} of non-booleans"));
                    }
                    folded = GpuExpr {
                        kind: ExprKind::Binary {
                            op,
                            left: Box::new(folded),
                            right: Box::new(next),
                        },
                        dtype: GpuDtype::Boolean,
                    };
                }
                if folded.dtype != GpuDtype::Boolean {
                    return self.refuse(node, format!("{function} of non-booleans"));
                }
                return Some(folded);
            }
            B::Any { .. } | B::All { .. } | B::IsEmpty { .. } | B::HasNulls => {
                let input = self.single(inputs)?;
                return self.boolean_aggregation(node, input, function);
            }
            B::IsSorted { .. } => {
                return self.refuse(
                    node,
                    format!("function {function} is not supported on the GPU"),
                );
            }
            // What Polars features this workspace does not enable add (a
            // crate depending on ours may enable them): refused the same way.
            #[allow(unreachable_patterns)]
            _ => {
                return self.refuse(
                    node,
                    format!("function {function} is not supported on the GPU"),
                );
            }
        };
        let dtype = self.dtype(node)?;
        Some(GpuExpr { kind, dtype })
    }

    fn string(&mut self, node: Node, inputs: &[ExprIR], function: &IRStringFunction) -> Lowered {
        use IRStringFunction as S;
        if let S::Strptime(dtype, options) = function
            && options.exact
            && let Some(format) = match (dtype, options.format.as_deref()) {
                (DataType::Date, Some(format)) => parse_format(format, false),
                (DataType::Datetime(_, None), Some(format)) => parse_format(format, true),
                // Polars infers a format from the first text it can: for a
                // text of the form YYYY-MM-DD that is `%Y-%m-%d` (its other
                // patterns of dates fail on it), so that a column of such
                // texts only parses as that; the device flags any other.
                // Every pattern it may infer from a text of the form
                // YYYY-MM-DD HH:MM:SS reads the same instant from it.
                (DataType::Date, None) => parse_format("%Y-%m-%d", false),
                (DataType::Datetime(_, None), None) => parse_format("%Y-%m-%d %H:%M:%S", true),
                _ => None,
            }
        {
            let input = self.boxed(inputs.first()?.node())?;
            let dtype = self.dtype(node)?;
            return Some(GpuExpr {
                kind: ExprKind::ParseTemporal { input, format },
                dtype,
            });
        }
        if let S::ConcatVertical {
            delimiter,
            ignore_nulls,
        } = function
        {
            let input = self.single(inputs)?;
            if input.dtype != GpuDtype::String {
                return self.refuse(node, format!("str.join of {}", input.dtype));
            }
            return Some(GpuExpr {
                kind: ExprKind::Agg {
                    op: AggOp::Join {
                        separator: delimiter.to_string(),
                        ignore_nulls: *ignore_nulls,
                    },
                    input: Box::new(input),
                },
                dtype: GpuDtype::String,
            });
        }
        let row_match = match function {
            S::StartsWith => Some(RowMatch::StartsWith),
            S::EndsWith => Some(RowMatch::EndsWith),
            S::Contains { literal: true, .. } => Some(RowMatch::Contains),
            _ => None,
        };
        if let (Some(how), [input, pattern]) = (row_match, inputs)
            && self.literal_str(pattern.node()).is_none()
            && !self.is_null_literal(pattern.node())
        {
            // A pattern per row: an expression of text.
            let (input, pattern) = (self.boxed(input.node()), self.boxed(pattern.node()));
            let (input, pattern) = (input?, pattern?);
            if pattern.dtype != GpuDtype::String {
                return self.refuse(node, format!("{function} of a {} pattern", pattern.dtype));
            }
            return Some(GpuExpr {
                kind: ExprKind::MatchesRow {
                    how,
                    input,
                    pattern,
                },
                dtype: GpuDtype::Boolean,
            });
        }
        let input = self.boxed(inputs[0].node());
        let op = match function {
            S::Contains { literal, .. } => {
                let literal = *literal;
                let Some(pattern) = self.literal_str(inputs[1].node()) else {
                    return self.refuse(node, "str.contains needs a literal pattern on the GPU");
                };
                if literal {
                    StringOp::Contains(pattern)
                } else {
                    match regex_as_pattern(&pattern) {
                        Some(alternatives) => match alternatives.as_slice() {
                            [texts] if texts.len() == 1 => StringOp::Contains(texts[0].clone()),
                            _ => StringOp::ContainsPattern(alternatives),
                        },
                        None => match RegexDfa::cached(&pattern, false) {
                            Ok(dfa) => StringOp::ContainsRegex(dfa),
                            Err(why) => return self.refuse(node, why),
                        },
                    }
                }
            }
            S::StartsWith | S::EndsWith => {
                let Some(text) = self.literal_str(inputs[1].node()) else {
                    return self.refuse(node, format!("{function} needs a literal on the GPU"));
                };
                if matches!(function, S::StartsWith) {
                    StringOp::StartsWith(text)
                } else {
                    StringOp::EndsWith(text)
                }
            }
            S::CountMatches(literal) | S::Find { literal, .. } => {
                let literal = *literal;
                let Some(pattern) = self.literal_str(inputs[1].node()) else {
                    return self.refuse(
                        node,
                        format!("{function} needs a literal pattern on the GPU"),
                    );
                };
                let pattern = match text_pattern(pattern, literal) {
                    Ok(pattern) => pattern,
                    Err(why) => return self.refuse(node, why),
                };
                if matches!(function, S::CountMatches(_)) {
                    StringOp::CountMatches(pattern)
                } else {
                    StringOp::Find(pattern)
                }
            }
            S::LenBytes => StringOp::LenBytes,
            S::LenChars => StringOp::LenChars,
            S::Uppercase => StringOp::ToUppercase,
            S::Lowercase => StringOp::ToLowercase,
            S::Slice => {
                let offset = self.literal_i64(inputs[1].node());
                let length = self.literal_optional_u64(inputs[2].node());
                match (offset, length) {
                    (Some(offset), Some(length)) => StringOp::Slice { offset, length },
                    _ => return self.refuse(node, "str.slice needs literal bounds on the GPU"),
                }
            }
            S::ConcatHorizontal {
                delimiter,
                ignore_nulls,
            } => {
                let (separator, ignore_nulls) = (delimiter.to_string(), *ignore_nulls);
                // The first input is lowered above already.
                let rest = self.inputs(&inputs[1..]);
                let inputs: Vec<GpuExpr> = std::iter::once(*input?).chain(rest?).collect();
                if let Some(other) = inputs.iter().find(|i| i.dtype != GpuDtype::String) {
                    return self.refuse(
                        node,
                        format!(
                            "concat_str of {} (not text) is not supported on the GPU",
                            other.dtype
                        ),
                    );
                }
                let kind = ExprKind::ConcatStr {
                    inputs,
                    separator,
                    ignore_nulls,
                };
                return Some(GpuExpr {
                    kind,
                    dtype: GpuDtype::String,
                });
            }
            S::Replace { n, literal } => {
                let (n, literal) = (*n, *literal);
                let pattern = self.literal_str(inputs[1].node());
                let value_node = inputs[2].node();
                let value_null = self.is_null_literal(value_node);
                let value = self.literal_str(value_node);
                let Some(pattern) = pattern else {
                    return self.refuse(node, "str.replace needs a literal pattern on the GPU");
                };
                if taken_literally(&pattern, literal) && pattern.is_empty() {
                    return self.refuse(node, "str.replace of an empty pattern");
                }
                if value_null && n >= 0 {
                    // Polars leaves the strings as they are.
                    return input.map(|input| *input);
                }
                let Some(value) = value else {
                    return self.refuse(node, "str.replace needs a literal value on the GPU");
                };
                let pattern = match text_pattern(pattern, literal) {
                    Ok(pattern) => pattern,
                    Err(why) => return self.refuse(node, why),
                };
                let limit = match (&pattern, n) {
                    (_, n) if n < 0 => None,
                    (TextPattern::Literal(_), _) => Some(n as u64),
                    // Polars replaces the first match of a regular
                    // expression for n = 0 too, and refuses n > 1.
                    (TextPattern::Regex(_), 0 | 1) => Some(1),
                    (TextPattern::Regex(_), _) => {
                        return self.refuse(node, "str.replace of a regex with n > 1");
                    }
                };
                if matches!(pattern, TextPattern::Regex(_)) && value.contains('$') {
                    // The regex crate expands `$1`, `${name}` and `$$` in it.
                    return self.refuse(
                        node,
                        "str.replace of a regex by a value with `$` (capture groups) is not \
                         supported on the GPU",
                    );
                }
                StringOp::Replace {
                    pattern,
                    value,
                    limit,
                }
            }
            S::PadStart { .. } | S::PadEnd { .. } | S::ZFill => {
                let (side, fill) = match function {
                    S::PadStart { fill_char } => (PadSide::Start, *fill_char),
                    S::PadEnd { fill_char } => (PadSide::End, *fill_char),
                    _ => (PadSide::Zeros, '0'),
                };
                let length_node = inputs.get(1)?.node();
                if self.is_null_literal(length_node) {
                    // Polars gives null for a null length.
                    return Some(GpuExpr::literal(Scalar::Null, GpuDtype::String));
                }
                let length = self
                    .literal_i64(length_node)
                    .and_then(|l| u64::try_from(l).ok());
                let Some(length) = length else {
                    return self.refuse(
                        node,
                        format!("{function} to a length that is not a literal"),
                    );
                };
                StringOp::Pad { length, fill, side }
            }
            S::StripChars | S::StripCharsStart | S::StripCharsEnd => {
                // A null pattern (of any type) strips white space.
                let set = match self.is_null_literal(inputs[1].node()) {
                    true => None,
                    false => match self.literal_str(inputs[1].node()) {
                        Some(text) => Some(text.chars().collect()),
                        None => {
                            return self
                                .refuse(node, format!("{function} needs a literal on the GPU"));
                        }
                    },
                };
                StringOp::Strip {
                    set,
                    start: !matches!(function, S::StripCharsEnd),
                    end: !matches!(function, S::StripCharsStart),
                }
            }
            S::Head | S::Tail => {
                // As slices: the first n characters, or the last n; a
                // negative count: all but the last (first) -n.
                let Some(count) = self.literal_i64(inputs[1].node()) else {
                    return self
                        .refuse(node, format!("{function} needs a literal count on the GPU"));
                };
                match (function, count) {
                    (S::Head, count) if count >= 0 => StringOp::Slice {
                        offset: 0,
                        length: Some(count as u64),
                    },
                    (S::Head, count) => StringOp::DropLast(count.unsigned_abs()),
                    (S::Tail, 0) => StringOp::Slice {
                        offset: 0,
                        length: Some(0),
                    },
                    (S::Tail, count) if count != i64::MIN => StringOp::Slice {
                        offset: -count,
                        length: None,
                    },
                    _ => {
                        return self.refuse(
                            node,
                            format!("{function} by {count} is not supported on the GPU"),
                        );
                    }
                }
            }
            S::StripPrefix | S::StripSuffix => {
                return self.strip_affix(node, inputs, matches!(function, S::StripPrefix));
            }
            S::Extract(group) => {
                let Some(pattern) = self.literal_str(inputs[1].node()) else {
                    return self.refuse(node, "str.extract needs a literal pattern on the GPU");
                };
                if !group_spans_match(&pattern, *group) {
                    return self.refuse(
                        node,
                        format!(
                            "str.extract of group {group} of {pattern:?}: only a group that \
                             spans the whole match runs on the GPU"
                        ),
                    );
                }
                match text_pattern(pattern, false) {
                    Ok(pattern) => StringOp::Extract(pattern),
                    Err(why) => return self.refuse(node, why),
                }
            }
            S::Format { .. }
            | S::ExtractAll
            | S::SplitExact { .. }
            | S::SplitN { .. }
            | S::Strptime { .. }
            | S::Split { .. }
            | S::SplitRegex { .. }
            | S::EscapeRegex => {
                return self.refuse(
                    node,
                    format!("function {function} is not supported on the GPU"),
                );
            }
            // What Polars features this workspace does not enable add (a
            // crate depending on ours may enable them): refused the same way.
            #[allow(unreachable_patterns)]
            _ => {
                return self.refuse(
                    node,
                    format!("function {function} is not supported on the GPU"),
                );
            }
        };
        let kind = ExprKind::String { op, input: input? };
        let dtype = self.dtype(node)?;
        Some(GpuExpr { kind, dtype })
    }

    /// `dt.truncate(every)` of a date or a timestamp (no time zone), `every`
    /// a literal: how Polars truncates by it, or a refusal where Polars
    /// raises an error (a negative or mixed duration) or does what is not
    /// done here (sub-day truncation of dates). With `round`, `dt.round` of
    /// a timestamp by a duration of days and smaller units: the truncation
    /// of the timestamp plus half of `every`; of a date by whole days, the
    /// same of its millisecond timestamp, as Polars rounds it (weeks,
    /// months and dates by parts of days are refused).
    fn truncate(&mut self, node: Node, inputs: &[ExprIR], round: bool) -> Lowered {
        let function = if round { "dt.round" } else { "dt.truncate" };
        let input = self.boxed(inputs.first()?.node());
        let Some(text) = inputs
            .get(1)
            .and_then(|every| self.literal_str(every.node()))
        else {
            return self.refuse(
                node,
                format!("{function} needs a literal duration on the GPU"),
            );
        };
        let every = match polars::prelude::Duration::try_parse(&text) {
            Ok(every) if !every.negative() => every,
            _ => return self.refuse(node, format!("{function} by {text:?}")),
        };
        let input = input?;
        let per_day: i64 = match input.dtype {
            GpuDtype::Date => 1,
            GpuDtype::Datetime(unit) => unit.per_day(),
            other => return self.refuse(node, format!("dt.truncate of {other}")),
        };
        let (months, weeks, days, nanos) = (
            every.months(),
            every.weeks(),
            every.days(),
            every.nanoseconds(),
        );
        let date = input.dtype == GpuDtype::Date;
        let every = match (months, weeks, days, nanos) {
            (0, 0, _, 0) if date => Truncation::Fixed(days),
            (0, 0, ..) if !date => {
                // Polars' fast path: days and smaller units together.
                let units = match input.dtype {
                    GpuDtype::Datetime(TimeUnit::Milliseconds) => nanos / 1_000_000,
                    GpuDtype::Datetime(TimeUnit::Microseconds) => nanos / 1_000,
                    _ => nanos,
                };
                match days.checked_mul(per_day).and_then(|d| d.checked_add(units)) {
                    Some(units) => Truncation::Fixed(units),
                    None => return self.refuse(node, format!("{function} by {text:?}")),
                }
            }
            (0, weeks, 0, 0) if !round => Truncation::Weeks(weeks),
            (months, 0, 0, 0) if !round => Truncation::Months(months),
            _ => {
                return self.refuse(
                    node,
                    format!(
                        "{function} of {} by {text:?} is not supported on the GPU",
                        input.dtype
                    ),
                );
            }
        };
        let dtype = self.dtype(node)?;
        let input = match every {
            // Polars' fast path rounds a timestamp to the multiple of `every`
            // below it shifted by half of `every` (rounded down): ties up.
            Truncation::Fixed(units) if round && !date && units > 0 => {
                let int64 = GpuDtype::Int64;
                let half = GpuExpr::literal(Scalar::Int(units / 2), int64);
                Box::new(
                    input
                        .cast(int64, CastMode::Wrapping)
                        .binary(BinaryOp::Plus, half, int64)
                        .cast(dtype, CastMode::Wrapping),
                )
            }
            // A date Polars rounds as its millisecond timestamp, then takes
            // the day: by whole days, that is the timestamp's rounding (to a
            // multiple of whole days, so the day is exact).
            Truncation::Fixed(days) if round && date && days > 0 => {
                let ms = GpuDtype::Datetime(TimeUnit::Milliseconds);
                let every_ms = match days.checked_mul(TimeUnit::Milliseconds.per_day()) {
                    Some(every_ms) => every_ms,
                    None => return self.refuse(node, format!("{function} by {text:?}")),
                };
                let int64 = GpuDtype::Int64;
                let half = GpuExpr::literal(Scalar::Int(every_ms / 2), int64);
                let shifted = input
                    .cast(ms, CastMode::NonStrict)
                    .cast(int64, CastMode::Wrapping)
                    .binary(BinaryOp::Plus, half, int64)
                    .cast(ms, CastMode::Wrapping);
                let rounded = GpuExpr {
                    kind: ExprKind::Truncate {
                        input: Box::new(shifted),
                        every: Truncation::Fixed(every_ms),
                    },
                    dtype: ms,
                };
                return Some(rounded.cast(dtype, CastMode::NonStrict));
            }
            _ if round => {
                let what = format!("{function} of {} by {text:?}", input.dtype);
                return self.refuse(node, format!("{what} is not supported on the GPU"));
            }
            _ => input,
        };
        Some(GpuExpr {
            kind: ExprKind::Truncate { input, every },
            dtype,
        })
    }

    fn temporal(
        &mut self,
        node: Node,
        inputs: &[ExprIR],
        function: &IRTemporalFunction,
    ) -> Lowered {
        use IRTemporalFunction as T;
        if matches!(function, T::Truncate) {
            return self.truncate(node, inputs, false);
        }
        if matches!(function, T::Round) {
            return self.truncate(node, inputs, true);
        }
        if let T::Date | T::TimeStamp(_) = function {
            // Casts, as Polars computes them (no time zones here): the date
            // of a timestamp rounds down; a timestamp in a unit is the cast
            // to that unit's datetime, as an integer.
            let input = self.single(inputs)?;
            let cast = |input: GpuExpr, dtype| GpuExpr {
                kind: ExprKind::Cast {
                    input: Box::new(input),
                    mode: CastMode::NonStrict,
                },
                dtype,
            };
            return match (function, input.dtype) {
                (T::Date, GpuDtype::Date) => Some(input),
                (T::Date, GpuDtype::Datetime(_)) => Some(cast(input, GpuDtype::Date)),
                (T::TimeStamp(unit), GpuDtype::Date | GpuDtype::Datetime(_)) => {
                    let datetime = cast(input, GpuDtype::Datetime(TimeUnit::from(*unit)));
                    Some(cast(datetime, GpuDtype::Int64))
                }
                (_, other) => self.refuse(
                    node,
                    format!("{function} of {other} is not supported on the GPU"),
                ),
            };
        }
        match function {
            T::TotalDays { fractional }
            | T::TotalHours { fractional }
            | T::TotalMinutes { fractional }
            | T::TotalSeconds { fractional }
            | T::TotalMilliseconds { fractional }
            | T::TotalMicroseconds { fractional }
            | T::TotalNanoseconds { fractional } => {
                let input = self.single(inputs)?;
                let dtype = self.dtype(node)?;
                let nanos_per = match function {
                    T::TotalDays { .. } => 86_400_000_000_000,
                    T::TotalHours { .. } => 3_600_000_000_000,
                    T::TotalMinutes { .. } => 60_000_000_000,
                    T::TotalSeconds { .. } => 1_000_000_000,
                    T::TotalMilliseconds { .. } => 1_000_000,
                    T::TotalMicroseconds { .. } => 1_000,
                    _ => 1,
                };
                return match total_of_duration(input, nanos_per, *fractional, dtype) {
                    Ok(expr) => Some(expr),
                    Err(why) => self.refuse(node, why),
                };
            }
            T::ToString(format) => {
                // Polars' `iso` formats, else a chrono format of the parts
                // the device writes.
                let input = self.single(inputs)?;
                let dtype = input.dtype;
                let parts = match format.as_str() {
                    "iso" | "iso:strict" => FormatPart::iso(dtype, format == "iso:strict"),
                    _ if matches!(dtype, GpuDtype::Date | GpuDtype::Datetime(_)) => {
                        FormatPart::parse(format)
                    }
                    _ => None,
                };
                // Dates have no time of day: Polars raises its error.
                let parts = parts.filter(|parts| {
                    dtype != GpuDtype::Date || !parts.iter().any(|part| part.of_time())
                });
                let Some(format) = parts else {
                    return self.refuse(
                        node,
                        format!("dt.to_string of {dtype} with the format {format:?}"),
                    );
                };
                return Some(GpuExpr {
                    kind: ExprKind::Strftime {
                        input: Box::new(input),
                        format,
                    },
                    dtype: GpuDtype::String,
                });
            }
            T::IsLeapYear | T::Millennium | T::Century | T::IsoYear | T::DaysInMonth => {
                let input = self.single(inputs)?;
                if !matches!(input.dtype, GpuDtype::Date | GpuDtype::Datetime(_)) {
                    return self.refuse(node, format!("{function} of {}", input.dtype));
                }
                return Some(calendar(input, function));
            }
            T::CastTimeUnit(unit) | T::WithTimeUnit(unit) => {
                let input = self.single(inputs)?;
                let unit = TimeUnit::from(*unit);
                let (to, from) = match input.dtype {
                    GpuDtype::Datetime(from) => (GpuDtype::Datetime(unit), from),
                    GpuDtype::Duration(from) => (GpuDtype::Duration(unit), from),
                    other => return self.refuse(node, format!("{function} of {other}")),
                };
                // The same integers read in the new unit.
                let reinterpreted = |value: GpuExpr| {
                    value
                        .cast(GpuDtype::Int64, CastMode::NonStrict)
                        .cast(to, CastMode::NonStrict)
                };
                let finer = unit.per_day() / from.per_day();
                return Some(match function {
                    T::WithTimeUnit(_) => reinterpreted(input),
                    // Polars multiplies, wrapping, to a finer unit; to a
                    // coarser one it divides as a cast does (datetimes
                    // down, durations toward zero).
                    _ if finer > 1 => {
                        reinterpreted(input.cast(GpuDtype::Int64, CastMode::NonStrict).binary(
                            BinaryOp::Multiply,
                            GpuExpr::literal(Scalar::Int(finer), GpuDtype::Int64),
                            GpuDtype::Int64,
                        ))
                    }
                    _ => input.cast(to, CastMode::NonStrict),
                });
            }
            _ => {}
        }
        let part = match function {
            T::Year => TemporalPart::Year,
            T::Quarter => TemporalPart::Quarter,
            T::Month => TemporalPart::Month,
            T::Day => TemporalPart::Day,
            T::WeekDay => TemporalPart::Weekday,
            T::OrdinalDay => TemporalPart::OrdinalDay,
            T::Week => TemporalPart::Week,
            T::Hour => TemporalPart::Hour,
            T::Minute => TemporalPart::Minute,
            T::Second => TemporalPart::Second,
            T::Millisecond => TemporalPart::Millisecond,
            T::Microsecond => TemporalPart::Microsecond,
            T::Nanosecond => TemporalPart::Nanosecond,
            T::Time
            | T::Datetime
            | T::Duration { .. }
            | T::Replace
            | T::Combine { .. }
            | T::DatetimeFunction { .. } => {
                return self.refuse(
                    node,
                    format!("function {function} is not supported on the GPU"),
                );
            }
            // What Polars features this workspace does not enable add (a
            // crate depending on ours may enable them): refused the same way.
            #[allow(unreachable_patterns)]
            _ => {
                return self.refuse(
                    node,
                    format!("function {function} is not supported on the GPU"),
                );
            }
        };
        let input = Box::new(self.single(inputs)?);
        let date = input.dtype == GpuDtype::Date && !part.of_time();
        if !(date || matches!(input.dtype, GpuDtype::Datetime(_))) {
            return self.refuse(
                node,
                format!("{part} of {} is not supported on the GPU", input.dtype),
            );
        }
        let dtype = self.dtype(node)?;
        Some(GpuExpr {
            kind: ExprKind::Temporal { part, input },
            dtype,
        })
    }

    /// `expr` with its rows sorted by the keys `by` (Polars' `sort` when
    /// `by` is `expr` itself, `sort_by`), each key with its direction and
    /// nulls' place from `options`. Polars sorts by several keys stably only
    /// when asked to keep the order: else its order of rows equal on every
    /// key is its own (the executor leaves data with such rows to Polars).
    /// A limit may shorten the result: refused.
    fn sorted_by(
        &mut self,
        node: Node,
        expr: Node,
        by: &[Node],
        options: &SortMultipleOptions,
    ) -> Lowered {
        if options.limit.is_some() {
            return self.refuse(node, "a sort_by with a limit");
        }
        let input = self.boxed(expr);
        self.sorted_by_nodes(node, input, by, options)
    }

    /// `input` (lowered, `None` where it could not be) with its rows sorted
    /// stably by the keys `by` as `options` says (see [`Self::sorted_by`]).
    fn sorted_by_nodes(
        &mut self,
        node: Node,
        input: Option<Box<GpuExpr>>,
        by: &[Node],
        options: &SortMultipleOptions,
    ) -> Lowered {
        let keys: Vec<_> = by.iter().map(|key| self.boxed(*key)).collect();
        let input = input?;
        let flag =
            |flags: &[bool], i: usize| flags.get(i).or(flags.first()).copied().unwrap_or(false);
        let order = keys
            .into_iter()
            .enumerate()
            .map(|(i, key)| {
                Some(RowOrder {
                    key: key?,
                    descending: flag(&options.descending, i),
                    nulls_last: flag(&options.nulls_last, i),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        if order.is_empty() {
            return self.refuse(node, "a sort_by by no keys");
        }
        let dtype = self.dtype(node)?;
        let ties_in_row_order = order.len() == 1 || options.maintain_order;
        Some(GpuExpr {
            kind: ExprKind::SortedBy {
                input,
                order,
                ties_in_row_order,
            },
            dtype,
        })
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

    fn literal_value(&self, node: Node) -> Option<AnyValue<'static>> {
        match self.arena.get(node) {
            AExpr::Literal(value) => value.to_any_value().map(|v| v.into_static()),
            _ => None,
        }
    }

    /// The value of `node` when it is a literal, or a cast of one (cast as
    /// Polars casts it); `None` for anything else, or a cast that fails.
    fn constant(&self, node: Node) -> Option<AnyValue<'static>> {
        match self.arena.get(node) {
            AExpr::Cast {
                expr,
                dtype,
                options,
            } => {
                let value = self.constant(*expr)?;
                let scalar = polars_core::scalar::Scalar::new(value.dtype(), value);
                let cast = scalar.cast_with_options(dtype, *options).ok()?;
                Some(cast.value().clone().into_static())
            }
            _ => self.literal_value(node),
        }
    }

    /// The count of a shift: a literal integer, not null.
    fn literal_periods(&self, node: Node) -> Option<i64> {
        match self.literal_value(node)? {
            AnyValue::Null => None,
            value => value.extract::<i64>(),
        }
    }

    /// `any`, `all` (Kleene unless `ignore_nulls`), `has_nulls` and
    /// `is_empty` (of the valid values, with `ignore_nulls`), per group or
    /// of the column: from the numbers of rows, valid values and true values.
    fn boolean_aggregation(
        &mut self,
        node: Node,
        input: GpuExpr,
        function: &IRBooleanFunction,
    ) -> Lowered {
        use IRBooleanFunction as B;
        if matches!(function, B::Any { .. } | B::All { .. }) && input.dtype != GpuDtype::Boolean {
            return self.refuse(node, format!("{function} of {}", input.dtype));
        }
        let (boolean, count) = (GpuDtype::Boolean, GpuDtype::UInt32);
        let aggregated = |op, input: GpuExpr| GpuExpr {
            kind: ExprKind::Agg {
                op,
                input: Box::new(input),
            },
            dtype: count,
        };
        let rows = aggregated(
            AggOp::Count {
                include_nulls: true,
            },
            input.clone(),
        );
        let valid = aggregated(
            AggOp::Count {
                include_nulls: false,
            },
            input.clone(),
        );
        let minus = |a: GpuExpr, b: GpuExpr| a.binary(BinaryOp::Minus, b, count);
        let zero = || GpuExpr::literal(Scalar::UInt(0), count);
        let some = |n: GpuExpr| n.binary(BinaryOp::Gt, zero(), boolean);
        let none = |n: GpuExpr| n.binary(BinaryOp::Eq, zero(), boolean);
        let truth = |v: bool| GpuExpr::literal(Scalar::Boolean(v), boolean);
        let nulls = || minus(rows.clone(), valid.clone());
        let trues = || aggregated(AggOp::Sum, input.clone());
        // Kleene: the deciding value if any row has it, else null if a row
        // is null, else the other value.
        let kleene = |decided: GpuExpr, value: bool| {
            let unknown = some(nulls()).then(
                GpuExpr::literal(Scalar::Null, boolean),
                truth(!value),
                boolean,
            );
            decided.then(truth(value), unknown, boolean)
        };
        Some(match function {
            B::Any { ignore_nulls: true } => some(trues()),
            B::Any { .. } => kleene(some(trues()), true),
            B::All { ignore_nulls: true } => none(minus(valid.clone(), trues())),
            B::All { .. } => kleene(some(minus(valid.clone(), trues())), false),
            B::HasNulls => some(nulls()),
            B::IsEmpty { ignore_nulls: true } => none(valid),
            _ => none(rows),
        })
    }

    /// `fill_null` with the strategy `min`, `max`, `mean`, `zero` or `one`:
    /// nulls take the column's (the group's) minimum, maximum (NaN ignored),
    /// mean (converted to the input's type as Polars' `NumCast` does:
    /// integers toward zero), or a literal 0 or 1. Where every value is
    /// null the aggregation is null, so nothing changes, as in Polars.
    fn fill_null_by_value(
        &mut self,
        node: Node,
        inputs: &[ExprIR],
        strategy: FillNullStrategy,
    ) -> Lowered {
        let input = self.single(inputs)?;
        let dtype = input.dtype;
        let numeric = dtype.is_integer() || dtype.is_float();
        let aggregated = |op| GpuExpr {
            kind: ExprKind::Agg {
                op,
                input: Box::new(input.clone()),
            },
            dtype,
        };
        let constant = |one: bool| {
            let value = match dtype {
                GpuDtype::Boolean => Scalar::Boolean(one),
                _ if dtype.is_float() => Scalar::Float(if one { 1.0 } else { 0.0 }),
                _ if dtype.is_unsigned() => Scalar::UInt(u64::from(one)),
                _ => Scalar::Int(i64::from(one)),
            };
            GpuExpr::literal(value, dtype)
        };
        let value = match strategy {
            FillNullStrategy::Min if numeric || dtype.is_temporal() => aggregated(AggOp::Min {
                propagate_nans: false,
            }),
            FillNullStrategy::Max if numeric || dtype.is_temporal() => aggregated(AggOp::Max {
                propagate_nans: false,
            }),
            FillNullStrategy::Mean if numeric => GpuExpr {
                kind: ExprKind::Agg {
                    op: AggOp::Mean,
                    input: Box::new(input.clone()),
                },
                dtype: GpuDtype::Float64,
            }
            .cast(dtype, CastMode::NonStrict),
            FillNullStrategy::Zero | FillNullStrategy::One
                if numeric || dtype == GpuDtype::Boolean =>
            {
                constant(matches!(strategy, FillNullStrategy::One))
            }
            other => {
                return self.refuse(
                    node,
                    format!("fill_null with the strategy {other:?} of {dtype}"),
                );
            }
        };
        Some(input.fill_null(value))
    }

    /// `str.strip_prefix` (`prefix`) or `str.strip_suffix` of a literal
    /// text: where the text starts (ends) with it, the text without its
    /// characters; else the text (null stays null).
    fn strip_affix(&mut self, node: Node, inputs: &[ExprIR], prefix: bool) -> Lowered {
        let input = self.expr(inputs.first()?.node());
        let affix = self.literal_str(inputs.get(1)?.node());
        let input = input?;
        let Some(affix) = affix else {
            let name = if prefix {
                "strip_prefix"
            } else {
                "strip_suffix"
            };
            return self.refuse(node, format!("str.{name} needs a literal text on the GPU"));
        };
        let chars = affix.chars().count() as u64;
        let text = GpuDtype::String;
        let string = |op, input: GpuExpr, dtype| GpuExpr {
            kind: ExprKind::String {
                op,
                input: Box::new(input),
            },
            dtype,
        };
        let (test, stripped) = if prefix {
            let from = i64::try_from(chars).unwrap_or(i64::MAX);
            (
                StringOp::StartsWith(affix),
                StringOp::Slice {
                    offset: from,
                    length: None,
                },
            )
        } else {
            (StringOp::EndsWith(affix), StringOp::DropLast(chars))
        };
        let has = string(test, input.clone(), GpuDtype::Boolean);
        Some(has.then(string(stripped, input.clone(), text), input, text))
    }

    /// `shift_and_fill(n, fill)` with literals `n` and `fill`: the shift,
    /// and `fill` where no row was shifted in (a null shifted in stays
    /// null). `fill` becomes a value of the input's type as Polars makes it
    /// (`AnyValue::extract`: numbers converted, null where one does not
    /// fit, temporals by their integers).
    fn shift_and_fill(&mut self, node: Node, inputs: &[ExprIR]) -> Lowered {
        let [input, periods, fill] = [0, 1, 2].map(|i| inputs.get(i).map(ExprIR::node));
        let input = self.expr(input?);
        let periods = self.literal_periods(periods?);
        let fill = self.constant(fill?);
        let mut input = input?;
        // The result has Polars' supertype of the input and the fill value
        // (milliseconds of a duration in nanoseconds filled with milliseconds).
        let out = self.dtype(node)?;
        if out != input.dtype {
            if !cast_supported(input.dtype, out) {
                return self.refuse(
                    node,
                    format!("shift_and_fill of {} into {out}", input.dtype),
                );
            }
            input = input.cast(out, CastMode::NonStrict);
        }
        let Some(periods) = periods else {
            return self.refuse(
                node,
                "shift_and_fill by a count that is not a literal integer",
            );
        };
        let Some(fill) = fill else {
            return self.refuse(
                node,
                "shift_and_fill with a fill value that is not a literal",
            );
        };
        let value = match (input.dtype, &fill) {
            (_, AnyValue::Null) => Some(Scalar::Null),
            (GpuDtype::Boolean, AnyValue::Boolean(v)) => Some(Scalar::Boolean(*v)),
            (GpuDtype::String, AnyValue::String(_) | AnyValue::StringOwned(_)) => {
                any_value_to_scalar(&fill).ok()
            }
            (GpuDtype::Boolean | GpuDtype::String, _) => None,
            (dtype, _) => Some(extracted(&fill, dtype).unwrap_or(Scalar::Null)),
        };
        let Some(value) = value else {
            // Polars rejects it: its own error.
            return self.refuse(
                node,
                format!(
                    "shift_and_fill of {} with the fill value {fill}",
                    input.dtype
                ),
            );
        };
        let dtype = input.dtype;
        let shifted = |input: GpuExpr| GpuExpr {
            kind: ExprKind::Shift {
                input: Box::new(input),
                periods,
            },
            dtype: GpuDtype::Boolean,
        };
        // Null exactly where no row was shifted in: `is_null` is never null.
        let missing = shifted(input.clone().is_null()).is_null();
        let shifted_input = GpuExpr {
            dtype,
            ..shifted(input)
        };
        Some(missing.then(GpuExpr::literal(value, dtype), shifted_input, dtype))
    }

    fn literal_str(&self, node: Node) -> Option<String> {
        match self.literal_value(node)? {
            AnyValue::String(s) => Some(s.to_owned()),
            AnyValue::StringOwned(s) => Some(s.to_string()),
            _ => None,
        }
    }

    /// Whether `node` is a null literal, or a null literal cast to a type.
    fn is_null_literal(&self, node: Node) -> bool {
        match self.arena.get(node) {
            AExpr::Cast { expr, .. } => self.is_null_literal(*expr),
            _ => matches!(self.literal_value(node), Some(AnyValue::Null)),
        }
    }

    fn literal_i64(&self, node: Node) -> Option<i64> {
        self.literal_value(node)?.extract::<i64>()
    }

    fn literal_f64(&self, node: Node) -> Option<f64> {
        self.literal_value(node)?.extract::<f64>()
    }

    /// A literal length: `Some(None)` for null (to the end).
    fn literal_optional_u64(&self, node: Node) -> Option<Option<u64>> {
        match self.literal_value(node)? {
            AnyValue::Null => Some(None),
            value => value.extract::<u64>().map(Some),
        }
    }

    /// The values of a literal list (a Series literal or a list scalar).
    /// The values of a literal list, and their type.
    fn literal_list(&self, node: Node) -> Option<(Vec<Scalar>, GpuDtype)> {
        let series: Series = match self.arena.get(node) {
            AExpr::Literal(LiteralValue::Series(series)) => (**series).clone(),
            AExpr::Literal(LiteralValue::Scalar(scalar)) => match scalar.value() {
                AnyValue::List(series) => series.clone(),
                _ => return None,
            },
            _ => return None,
        };
        let dtype = GpuDtype::from_polars(series.dtype()).ok()?;
        let values = series
            .iter()
            .map(|value| any_value_to_scalar(&value).ok())
            .collect::<Option<_>>()?;
        Some((values, dtype))
    }
}

/// `input.is_in(values)` as Polars decides membership: by exact value (a
/// value the input's type cannot hold exactly matches nothing, so `1` is not
/// in `[1.5]` and a u16 not in `[70000]`), NaN equal to NaN and -0.0 to 0.0.
/// A null input gives null, or with `nulls_equal` whether the list holds a
/// null; nulls of the list match nothing else. Lowered to equalities (and
/// `is_nan` for NaN) joined by `or`, which every type runs.
fn membership(input: GpuExpr, values: &[Scalar], nulls_equal: bool) -> GpuExpr {
    let dtype = input.dtype;
    let boolean = GpuDtype::Boolean;
    let has_null = values.iter().any(|v| matches!(v, Scalar::Null));
    let mut exact: Vec<Scalar> = values
        .iter()
        .filter_map(|v| held_exactly(v, dtype))
        .collect();
    exact.dedup();
    let nan = exact
        .iter()
        .any(|v| matches!(v, Scalar::Float(f) if f.is_nan()));
    exact.retain(|v| !matches!(v, Scalar::Float(f) if f.is_nan()));
    let mut tests: Vec<GpuExpr> = exact
        .into_iter()
        .map(|v| {
            let value = GpuExpr::literal(v, dtype);
            input.clone().binary(BinaryOp::Eq, value, boolean)
        })
        .collect();
    if nan {
        tests.push(GpuExpr {
            kind: ExprKind::FloatCheck {
                check: FloatCheck::IsNan,
                input: Box::new(input.clone()),
            },
            dtype: boolean,
        });
    }
    let any = tests
        .into_iter()
        .reduce(|left, right| left.binary(BinaryOp::Or, right, boolean));
    let null_input = GpuExpr::literal(
        if nulls_equal {
            Scalar::Boolean(has_null)
        } else {
            Scalar::Null
        },
        boolean,
    );
    match any {
        // Null only where the input is null: there a fill gives the member test.
        Some(any) if nulls_equal => any.fill_null(null_input),
        Some(any) => any,
        None => input.is_null().then(
            null_input,
            GpuExpr::literal(Scalar::Boolean(false), boolean),
            boolean,
        ),
    }
}

/// `value` as a value of `dtype`, if `dtype` holds it exactly.
fn held_exactly(value: &Scalar, dtype: GpuDtype) -> Option<Scalar> {
    let integer = |v: i128| -> Option<Scalar> {
        let (min, max): (i128, i128) = match dtype {
            GpuDtype::Int8 => (i8::MIN.into(), i8::MAX.into()),
            GpuDtype::Int16 => (i16::MIN.into(), i16::MAX.into()),
            GpuDtype::Int32 => (i32::MIN.into(), i32::MAX.into()),
            GpuDtype::Int64 => (i64::MIN.into(), i64::MAX.into()),
            GpuDtype::UInt8 => (0, u8::MAX.into()),
            GpuDtype::UInt16 => (0, u16::MAX.into()),
            GpuDtype::UInt32 => (0, u32::MAX.into()),
            GpuDtype::UInt64 => (0, u64::MAX.into()),
            GpuDtype::Float64 => {
                let f = v as f64;
                return (f as i128 == v).then_some(Scalar::Float(f));
            }
            GpuDtype::Float32 => {
                let f = v as f32;
                return (f as i128 == v).then_some(Scalar::Float(f.into()));
            }
            _ => return None,
        };
        if !(min..=max).contains(&v) {
            return None;
        }
        Some(if dtype.is_unsigned() {
            Scalar::UInt(v as u64)
        } else {
            Scalar::Int(v as i64)
        })
    };
    match (value, dtype) {
        (Scalar::Null, _) => None,
        (Scalar::Int(v), _) if dtype.is_numeric() => integer((*v).into()),
        (Scalar::UInt(v), _) if dtype.is_numeric() => integer((*v).into()),
        (Scalar::Float(f), GpuDtype::Float64) => Some(Scalar::Float(*f)),
        (Scalar::Float(f), GpuDtype::Float32) => {
            (f.is_nan() || f64::from(*f as f32) == *f).then_some(Scalar::Float(*f))
        }
        (Scalar::Float(f), _) if dtype.is_integer() => {
            (f.fract() == 0.0 && f.abs() < 2f64.powi(64)).then(|| integer(*f as i128))?
        }
        (Scalar::Boolean(_), GpuDtype::Boolean)
        | (Scalar::String(_), GpuDtype::String)
        | (Scalar::Date(_), GpuDtype::Date)
        | (Scalar::Datetime(_), GpuDtype::Datetime(_))
        | (Scalar::Duration(_), GpuDtype::Duration(_)) => Some(value.clone()),
        _ => None,
    }
}

/// Whether `node` is computed from literals alone (no column, no `len()`,
/// no window, no user function) by elementwise functions and aggregations.
/// Functions of the rows in order (a shift of a literal) are not: Polars
/// takes their literal as one value or as the group's rows by context, so
/// they are refused as functions over one value instead.
fn is_constant(node: Node, arena: &Arena<AExpr>) -> bool {
    use polars_plan::plans::ArenaExprIter;
    arena.iter(node).all(|(_, e)| match e {
        AExpr::Function { options, .. } => {
            options.is_elementwise() || options.flags.returns_scalar()
        }
        AExpr::Sort { .. } | AExpr::SortBy { .. } | AExpr::Gather { .. } => false,
        other => !matches!(
            other,
            AExpr::Column(_)
                | AExpr::Len
                | AExpr::Element
                | AExpr::Over { .. }
                | AExpr::AnonymousFunction { .. }
                | AExpr::AnonymousAgg { .. }
                | AExpr::Eval { .. }
                | AExpr::StructEval { .. }
        ),
    })
}

fn binary_op(op: Operator) -> BinaryOp {
    match op {
        Operator::Eq => BinaryOp::Eq,
        Operator::EqValidity => BinaryOp::EqMissing,
        Operator::NotEq => BinaryOp::NotEq,
        Operator::NotEqValidity => BinaryOp::NotEqMissing,
        Operator::Lt => BinaryOp::Lt,
        Operator::LtEq => BinaryOp::LtEq,
        Operator::Gt => BinaryOp::Gt,
        Operator::GtEq => BinaryOp::GtEq,
        Operator::Plus => BinaryOp::Plus,
        Operator::Minus => BinaryOp::Minus,
        Operator::Multiply => BinaryOp::Multiply,
        Operator::RustDivide => BinaryOp::Divide,
        Operator::TrueDivide => BinaryOp::TrueDivide,
        Operator::FloorDivide => BinaryOp::FloorDivide,
        Operator::Modulus => BinaryOp::Modulus,
        Operator::And | Operator::LogicalAnd => BinaryOp::And,
        Operator::Or | Operator::LogicalOr => BinaryOp::Or,
        Operator::Xor => BinaryOp::Xor,
    }
}

/// Casts the GPU supports: among numeric types (and from Boolean), between
/// temporal types and integers, and between temporal types.
fn cast_supported(from: GpuDtype, to: GpuDtype) -> bool {
    from == to
        || (from.is_numeric() || from == GpuDtype::Boolean)
            && (to.is_numeric() || to == GpuDtype::Boolean)
        || from.is_temporal() && to.is_integer()
        || from.is_integer() && to.is_temporal()
        || from.is_temporal() && to.is_temporal()
        || (from.is_numeric() || from == GpuDtype::Boolean) && to == GpuDtype::String
        || from == GpuDtype::String && (to.is_integer() || to.is_float())
        || matches!(from, GpuDtype::Date | GpuDtype::Datetime(_)) && to == GpuDtype::String
}

/// Each row's place as an i64 from 0: in the frame, or per group in its group.
fn place_from_zero() -> GpuExpr {
    let int64 = GpuDtype::Int64;
    places_from_one().cast(int64, CastMode::NonStrict).binary(
        BinaryOp::Minus,
        GpuExpr::literal(Scalar::Int(1), int64),
        int64,
    )
}

/// Each row's place (u32, from 1): in the frame, or per group in its group
/// (a `cum_sum` of true).
fn places_from_one() -> GpuExpr {
    GpuExpr {
        kind: ExprKind::CumSum(Box::new(GpuExpr::literal(
            Scalar::Boolean(true),
            GpuDtype::Boolean,
        ))),
        dtype: GpuDtype::UInt32,
    }
}

/// `value` as a number or temporal of `dtype`, as Polars' `AnyValue::extract`
/// converts it (`None` where it does not fit).
fn extracted(value: &AnyValue<'_>, dtype: GpuDtype) -> Option<Scalar> {
    Some(match dtype {
        GpuDtype::Int8 => Scalar::Int(value.extract::<i8>()?.into()),
        GpuDtype::Int16 => Scalar::Int(value.extract::<i16>()?.into()),
        GpuDtype::Int32 => Scalar::Int(value.extract::<i32>()?.into()),
        GpuDtype::Int64 => Scalar::Int(value.extract::<i64>()?),
        GpuDtype::UInt8 => Scalar::UInt(value.extract::<u8>()?.into()),
        GpuDtype::UInt16 => Scalar::UInt(value.extract::<u16>()?.into()),
        GpuDtype::UInt32 => Scalar::UInt(value.extract::<u32>()?.into()),
        GpuDtype::UInt64 => Scalar::UInt(value.extract::<u64>()?),
        GpuDtype::Float32 => Scalar::Float(value.extract::<f32>()?.into()),
        GpuDtype::Float64 => Scalar::Float(value.extract::<f64>()?),
        GpuDtype::Date => Scalar::Date(value.extract::<i32>()?),
        GpuDtype::Datetime(_) => Scalar::Datetime(value.extract::<i64>()?),
        GpuDtype::Duration(_) => Scalar::Duration(value.extract::<i64>()?),
        GpuDtype::Boolean | GpuDtype::String => return None,
    })
}

/// `function` (`dt.is_leap_year`, `dt.millennium`, `dt.century`,
/// `dt.iso_year` or `dt.days_in_month`) of a date or datetime, from its
/// year, month and ISO week as Polars computes it.
fn calendar(input: GpuExpr, function: &IRTemporalFunction) -> GpuExpr {
    use IRTemporalFunction as T;
    let int32 = GpuDtype::Int32;
    let part = |part, dtype| {
        GpuExpr {
            kind: ExprKind::Temporal {
                part,
                input: Box::new(input.clone()),
            },
            dtype,
        }
        .cast(int32, CastMode::NonStrict)
    };
    let year = part(TemporalPart::Year, int32);
    let int = |v| GpuExpr::literal(Scalar::Int(v), int32);
    let is = |a: GpuExpr, op, b| a.binary(op, b, GpuDtype::Boolean);
    let arithmetic = |a: GpuExpr, op, b| a.binary(op, b, int32);
    // Divisible by 4, and by 400 where by 100.
    let leap = || {
        let rest = |by: i64| arithmetic(year.clone(), BinaryOp::Modulus, int(by));
        let by_4 = is(rest(4), BinaryOp::Eq, int(0));
        let not_by_100 = is(rest(100), BinaryOp::NotEq, int(0));
        let by_400 = is(rest(400), BinaryOp::Eq, int(0));
        is(by_4, BinaryOp::And, is(not_by_100, BinaryOp::Or, by_400))
    };
    // Polars: (year - 1) floor-divided by 100 (1000), plus 1.
    let of_years = |years| {
        let before = arithmetic(year.clone(), BinaryOp::Minus, int(1));
        arithmetic(
            arithmetic(before, BinaryOp::FloorDivide, int(years)),
            BinaryOp::Plus,
            int(1),
        )
    };
    match function {
        T::Millennium => of_years(1000),
        T::Century => of_years(100),
        T::IsoYear => {
            // The ISO year of the first days of January in the last week of
            // the year before, and of the last of December in week 1.
            let month = part(TemporalPart::Month, GpuDtype::Int8);
            let week = part(TemporalPart::Week, GpuDtype::Int8);
            let both = |a, b| is(a, BinaryOp::And, b);
            let next = both(
                is(month.clone(), BinaryOp::Eq, int(12)),
                is(week.clone(), BinaryOp::Eq, int(1)),
            );
            let previous = both(
                is(month, BinaryOp::Eq, int(1)),
                is(week, BinaryOp::GtEq, int(52)),
            );
            let shift = next.then(int(1), previous.then(int(-1), int(0), int32), int32);
            arithmetic(year, BinaryOp::Plus, shift)
        }
        T::DaysInMonth => {
            let month = part(TemporalPart::Month, GpuDtype::Int8);
            let month_is = |m| is(month.clone(), BinaryOp::Eq, int(m));
            let short = [4, 6, 9, 11]
                .map(month_is)
                .into_iter()
                .reduce(|a, b| is(a, BinaryOp::Or, b))
                .unwrap_or_else(|| int(0));
            let days = month_is(2).then(
                leap().then(int(29), int(28), int32),
                short.then(int(30), int(31), int32),
                int32,
            );
            // Null stays null (a null test picks the last branch).
            let null = GpuExpr::literal(Scalar::Null, int32);
            input
                .clone()
                .is_not_null()
                .then(days, null, int32)
                .cast(GpuDtype::Int8, CastMode::NonStrict)
        }
        _ => leap(),
    }
}

fn any_value_to_scalar(value: &AnyValue<'_>) -> Result<Scalar, String> {
    Ok(match value {
        AnyValue::Null => Scalar::Null,
        AnyValue::Boolean(v) => Scalar::Boolean(*v),
        AnyValue::Int8(v) => Scalar::Int((*v).into()),
        AnyValue::Int16(v) => Scalar::Int((*v).into()),
        AnyValue::Int32(v) => Scalar::Int((*v).into()),
        AnyValue::Int64(v) => Scalar::Int(*v),
        AnyValue::UInt8(v) => Scalar::UInt((*v).into()),
        AnyValue::UInt16(v) => Scalar::UInt((*v).into()),
        AnyValue::UInt32(v) => Scalar::UInt((*v).into()),
        AnyValue::UInt64(v) => Scalar::UInt(*v),
        AnyValue::Float32(v) => Scalar::Float((*v).into()),
        AnyValue::Float64(v) => Scalar::Float(*v),
        AnyValue::String(v) => Scalar::String((*v).to_owned()),
        AnyValue::StringOwned(v) => Scalar::String(v.to_string()),
        AnyValue::Date(v) => Scalar::Date(*v),
        AnyValue::Datetime(v, _, None) | AnyValue::DatetimeOwned(v, _, None) => {
            Scalar::Datetime(*v)
        }
        AnyValue::Duration(v, _) => Scalar::Duration(*v),
        other => {
            return Err(format!(
                "a literal of type {} is not supported on the GPU",
                other.dtype()
            ));
        }
    })
}

/// A strptime `format` as fixed-width fields and literal bytes, where the
/// device parses it: `%Y`, `%m`, `%d` (and `%F`, their ISO form) once each,
/// for a timestamp (`datetime`) also `%H` and `%M` once each and `%S` at
/// most once (`%T` is `%H:%M:%S`), `%%` for '%', any other text as itself.
/// `None` for any other specifier or field count.
fn parse_format(format: &str, datetime: bool) -> Option<Vec<FormatPart>> {
    let mut bytes = format.bytes();
    while let Some(byte) = bytes.next() {
        if byte == b'%' && !b"YmdHMSFT%".contains(&bytes.next()?) {
            return None;
        }
    }
    let parts = FormatPart::parse(format)?;
    let count = |field| parts.iter().filter(|&&part| part == field).count();
    let date = [FormatPart::Year, FormatPart::Month, FormatPart::Day];
    let time = [FormatPart::Hour, FormatPart::Minute];
    let fits = date.iter().all(|&field| count(field) == 1)
        && if datetime {
            time.iter().all(|&field| count(field) == 1) && count(FormatPart::Second) <= 1
        } else {
            time.iter().all(|&field| count(field) == 0) && count(FormatPart::Second) == 0
        };
    fits.then_some(parts)
}

/// Of `values.filter(by)`, `values.drop_nulls()`, `values.drop_nans()`,
/// `values.slice(offset, length)` or `values.gather_every(n, offset)` at
/// `node`: the values' node and which of their rows are kept; `None` for any
/// other expression.
pub(crate) fn filtered_parts(arena: &Arena<AExpr>, node: Node) -> Option<(Node, KeptRows)> {
    match arena.get(node) {
        AExpr::Filter { input, by } => Some((*input, KeptRows::By(*by))),
        AExpr::Slice {
            input,
            offset,
            length,
        } => Some((
            *input,
            KeptRows::Slice {
                offset: *offset,
                length: *length,
            },
        )),
        AExpr::Function {
            input, function, ..
        } => {
            let rows = match function {
                IRFunctionExpr::DropNulls => KeptRows::NotNull,
                IRFunctionExpr::DropNans => KeptRows::NotNan,
                IRFunctionExpr::GatherEvery { n, offset } => KeptRows::Every {
                    n: *n,
                    offset: *offset,
                },
                _ => return None,
            };
            let [values] = input.as_slice() else {
                return None;
            };
            Some((values.node(), rows))
        }
        _ => None,
    }
}

/// `pattern` as [`TextPattern`]: literal when Polars takes it so (asked
/// to, or without ASCII punctuation), else the anchored DFA of the regular
/// expression, or why it has none.
fn text_pattern(pattern: String, literal: bool) -> Result<TextPattern, String> {
    if taken_literally(&pattern, literal) {
        return Ok(TextPattern::Literal(pattern));
    }
    Ok(TextPattern::Regex(RegexDfa::cached(&pattern, true)?))
}

/// Whether Polars matches `pattern` as literal text: when asked to, or when
/// it has no ASCII punctuation (so no metacharacter: a regular expression
/// that matches exactly its own text).
fn taken_literally(pattern: &str, literal: bool) -> bool {
    literal || pattern.chars().all(|c| !c.is_ascii_punctuation())
}

/// A regular expression of the restricted form [`StringOp::ContainsPattern`]
/// runs, as its alternatives, each a list of literal texts; `None` for any
/// other. Within an alternative, `.*` separates texts (at either end it is
/// dropped: a search is not anchored), and a character followed by `*` at the
/// end of a text is dropped (it may occur zero times, and nothing in that text
/// follows it). So `PROMO*` is `["PROM"]`, `.*Customer.*Complaints.*` is
/// `["Customer", "Complaints"]` and `13|31` is `["13"], ["31"]`.
fn regex_as_pattern(pattern: &str) -> Option<Vec<Vec<String>>> {
    const META: &[char] = &[
        '\\', '.', '+', '*', '?', '(', ')', '|', '[', ']', '{', '}', '^', '$',
    ];
    let alternative = |alternative: &str| -> Option<Vec<String>> {
        let mut texts = Vec::new();
        for piece in alternative.split(".*") {
            let mut text = piece.to_owned();
            if let Some(stem) = text.strip_suffix('*') {
                // `c*` at the end: drop `c` too, unless it was escaped or special.
                let mut chars = stem.chars();
                let repeated = chars.next_back()?;
                if META.contains(&repeated) {
                    return None;
                }
                text = chars.as_str().to_owned();
            }
            if text.contains(META) {
                return None;
            }
            if !text.is_empty() {
                texts.push(text);
            }
        }
        // An alternative with no text matches every string: not worth a kernel.
        (!texts.is_empty()).then_some(texts)
    };
    pattern.split('|').map(alternative).collect()
}

fn quantile_method_name(method: QuantileMethod) -> &'static str {
    match method {
        QuantileMethod::Nearest => "nearest",
        QuantileMethod::Lower => "lower",
        QuantileMethod::Higher => "higher",
        QuantileMethod::Midpoint => "midpoint",
        QuantileMethod::Linear => "linear",
        QuantileMethod::Equiprobable => "equiprobable",
    }
}

fn agg_name(agg: &IRAggExpr) -> &'static str {
    match agg {
        IRAggExpr::Min { .. } => "min",
        IRAggExpr::Max { .. } => "max",
        IRAggExpr::Median(_) => "median",
        IRAggExpr::NUnique(_) => "n_unique",
        IRAggExpr::Item { .. } => "item",
        IRAggExpr::First(_) => "first",
        IRAggExpr::FirstNonNull(_) => "first_non_null",
        IRAggExpr::Last(_) => "last",
        IRAggExpr::LastNonNull(_) => "last_non_null",
        IRAggExpr::Mean(_) => "mean",
        IRAggExpr::Implode { .. } => "implode",
        IRAggExpr::Sum(_) => "sum",
        IRAggExpr::Count { .. } => "count",
        IRAggExpr::Std(..) => "std",
        IRAggExpr::Var(..) => "var",
        IRAggExpr::AggGroups(_) => "agg_groups",
    }
}

/// Polars' `min_horizontal`, `max_horizontal`, `sum_horizontal` and
/// `mean_horizontal` of `inputs` (of one type), giving `dtype`, as row-wise
/// expressions: min and max (of integers and temporals) fold left to right,
/// each step a clip by the next input, which a null does not clip and which
/// fills a null; sums fold
/// with `+` (wrapping integers; booleans counted as `u32`), nulls as zero
/// when they are ignored; a mean is the sum, as a float, over the number of
/// valid inputs (null where there are none).
fn horizontal(
    function: &IRFunctionExpr,
    inputs: Vec<GpuExpr>,
    dtype: GpuDtype,
) -> Result<GpuExpr, String> {
    use IRFunctionExpr as F;
    let Some(first) = inputs.first() else {
        return Err(format!("{function} of no inputs"));
    };
    let input_dtype = first.dtype;
    if inputs.iter().any(|input| input.dtype != input_dtype) {
        return Err(format!("{function} of differing types"));
    }
    let zero = |dtype: GpuDtype| {
        let value = match dtype {
            _ if dtype.is_float() => Scalar::Float(0.0),
            _ if dtype.is_unsigned() => Scalar::UInt(0),
            _ => Scalar::Int(0),
        };
        GpuExpr::literal(value, dtype)
    };
    let null = |dtype| GpuExpr::literal(Scalar::Null, dtype);
    match function {
        F::MinHorizontal | F::MaxHorizontal if inputs.len() == 1 && dtype == input_dtype => {
            // One input is itself.
            Ok(inputs.into_iter().next().expect("one input"))
        }
        F::MinHorizontal | F::MaxHorizontal => {
            if !(input_dtype.is_integer() || input_dtype.is_temporal()) || dtype != input_dtype {
                // Polars compares floats as IEEE numbers where neither input
                // has nulls and in total order elsewhere, in an order of its
                // own: with NaN the answer depends on both.
                return Err(format!("{function} of {input_dtype}"));
            }
            let min = matches!(function, F::MinHorizontal);
            let mut inputs = inputs.into_iter();
            let mut folded = inputs.next().expect("one input at least");
            for next in inputs {
                // The larger (smaller) so far clipped by the next input,
                // which a null does not clip and which fills a null. (Equal
                // integers are the same whichever is taken.)
                let (lower, upper) = if min {
                    (null(dtype), next.clone())
                } else {
                    (next.clone(), null(dtype))
                };
                folded = GpuExpr {
                    kind: ExprKind::Clip {
                        input: Box::new(folded),
                        lower: Box::new(lower),
                        upper: Box::new(upper),
                    },
                    dtype,
                }
                .fill_null(next);
            }
            Ok(folded)
        }
        F::SumHorizontal { ignore_nulls } | F::MeanHorizontal { ignore_nulls } => {
            let mean = matches!(function, F::MeanHorizontal { .. });
            if !(input_dtype.is_numeric() || input_dtype == GpuDtype::Boolean) {
                return Err(format!("{function} of {input_dtype}"));
            }
            if input_dtype.is_float() && inputs.len() > 2 {
                // Polars adds the columns pairwise in an order of its own.
                return Err(format!("{function} of more than two float inputs"));
            }
            let sum_dtype = if input_dtype == GpuDtype::Boolean {
                GpuDtype::UInt32
            } else {
                input_dtype
            };
            if mean && inputs.len() == 1 {
                return Ok(inputs
                    .into_iter()
                    .next()
                    .expect("one input")
                    .cast(dtype, CastMode::NonStrict));
            }
            let addend = |input: GpuExpr| {
                let input = input.cast(sum_dtype, CastMode::NonStrict);
                if *ignore_nulls {
                    input.fill_null(zero(sum_dtype))
                } else {
                    input
                }
            };
            let sum = inputs
                .iter()
                .cloned()
                .map(addend)
                .reduce(|sum, next| sum.binary(BinaryOp::Plus, next, sum_dtype))
                .expect("one input at least");
            if !mean {
                return if dtype == sum_dtype {
                    Ok(sum)
                } else {
                    Err(format!("{function} of {input_dtype} as {dtype}"))
                };
            }
            if !*ignore_nulls {
                // A null input makes the sum null; else all count.
                let count = GpuExpr::literal(Scalar::Float(inputs.len() as f64), dtype);
                return Ok(sum.cast(dtype, CastMode::NonStrict).binary(
                    BinaryOp::TrueDivide,
                    count,
                    dtype,
                ));
            }
            let one = GpuExpr::literal(Scalar::Float(1.0), dtype);
            let count = inputs
                .into_iter()
                .map(|input| input.is_not_null().then(one.clone(), zero(dtype), dtype))
                .reduce(|count, next| count.binary(BinaryOp::Plus, next, dtype))
                .expect("one input at least");
            let none = count
                .clone()
                .binary(BinaryOp::Eq, zero(dtype), GpuDtype::Boolean);
            let count = none.then(null(dtype), count, dtype);
            Ok(sum
                .cast(dtype, CastMode::NonStrict)
                .binary(BinaryOp::TrueDivide, count, dtype))
        }
        _ => Err(format!("{function} is not a horizontal aggregation")),
    }
}

/// Polars' `dt.total_*` of a duration `input`, in units of `nanos_per`
/// nanoseconds: the ticks divided toward zero (or multiplied, wrapping, to
/// a finer unit); `fractional`, the ticks as f64 over the unit in ticks,
/// that divisor computed as Polars computes it (the ticks in a second,
/// times or over the unit's seconds) so that every bit agrees.
fn total_of_duration(
    input: GpuExpr,
    nanos_per: i64,
    fractional: bool,
    dtype: GpuDtype,
) -> Result<GpuExpr, String> {
    let GpuDtype::Duration(unit) = input.dtype else {
        return Err(format!("dt.total of {}", input.dtype));
    };
    let per_second = unit.per_day() / 86_400;
    let tick_nanos = 1_000_000_000 / per_second;
    let ticks = input.cast(GpuDtype::Int64, CastMode::NonStrict);
    if fractional {
        let t = per_second as f64;
        let divisor = match nanos_per {
            86_400_000_000_000 => t * 86_400.0,
            3_600_000_000_000 => t * 3_600.0,
            60_000_000_000 => t * 60.0,
            1_000_000_000 => t,
            1_000_000 => t / 1_000.0,
            1_000 => t / 1_000_000.0,
            _ => t / 1_000_000_000.0,
        };
        if dtype != GpuDtype::Float64 {
            return Err(format!("a fractional dt.total as {dtype}"));
        }
        let ticks = ticks.cast(GpuDtype::Float64, CastMode::NonStrict);
        let divisor = GpuExpr::literal(Scalar::Float(divisor), GpuDtype::Float64);
        return Ok(ticks.binary(BinaryOp::TrueDivide, divisor, dtype));
    }
    if dtype != GpuDtype::Int64 {
        return Err(format!("dt.total as {dtype}"));
    }
    let int = |v| GpuExpr::literal(Scalar::Int(v), GpuDtype::Int64);
    if nanos_per <= tick_nanos {
        return Ok(ticks.binary(BinaryOp::Multiply, int(tick_nanos / nanos_per), dtype));
    }
    // Toward zero: the floored quotient, plus one for a negative value with
    // a remainder.
    let divisor = nanos_per / tick_nanos;
    let floored = ticks
        .clone()
        .binary(BinaryOp::FloorDivide, int(divisor), dtype);
    let negative = ticks
        .clone()
        .binary(BinaryOp::Lt, int(0), GpuDtype::Boolean);
    let inexact = ticks.binary(BinaryOp::Modulus, int(divisor), dtype).binary(
        BinaryOp::NotEq,
        int(0),
        GpuDtype::Boolean,
    );
    let up = negative
        .binary(BinaryOp::And, inexact, GpuDtype::Boolean)
        .cast(dtype, CastMode::NonStrict);
    Ok(floored.binary(BinaryOp::Plus, up, dtype))
}

/// `base.pow(exponent)` (a literal) where Polars computes it exactly, as it
/// does: by repeated multiplication (whole exponents from 2 to 9 for floats,
/// 2 to 10 for integers, which wrap), a square root (0.5), the base itself
/// (1) or one (0, even of NaN); integers to a float power as floats. Other
/// exponents go through `powf`, whose last bit a GPU's `pow` may not match.
fn pow_exactly(base: GpuExpr, exponent: AnyValue<'_>, dtype: GpuDtype) -> Result<GpuExpr, String> {
    let literal = |scalar| GpuExpr::literal(scalar, dtype);
    let integer = !dtype.is_float();
    if exponent.is_null() {
        return Ok(literal(Scalar::Null));
    }
    let value = if integer {
        exponent.extract::<i64>().map(|e| e as f64)
    } else {
        exponent.extract::<f64>()
    };
    let Some(value) = value else {
        return Err(format!("pow with the exponent {exponent}"));
    };
    let base = if integer {
        base
    } else {
        base.cast(dtype, CastMode::NonStrict)
    };
    let whole = value.fract() == 0.0;
    let most = if integer { 10.0 } else { 9.0 };
    if value == 1.0 {
        return Ok(base);
    }
    if value == 0.0 {
        let one = literal(match dtype {
            _ if dtype.is_unsigned() => Scalar::UInt(1),
            _ if integer => Scalar::Int(1),
            _ => Scalar::Float(1.0),
        });
        return Ok(base.is_not_null().then(one, literal(Scalar::Null), dtype));
    }
    if value == 0.5 && !integer {
        return Ok(GpuExpr {
            kind: ExprKind::Sqrt(Box::new(base)),
            dtype,
        });
    }
    if !(whole && value > 1.0 && value <= most) {
        return Err(format!(
            "pow with the exponent {value} (Polars' powf, which the GPU's pow may not match to the last bit)"
        ));
    }
    let mut product = base.clone();
    for _ in 1..value as usize {
        product = product.binary(BinaryOp::Multiply, base.clone(), dtype);
    }
    Ok(product)
}

/// Polars' `eq_missing` (`equal`) or `ne_missing`: where either side is
/// null, whether both are (are not both), else `left == right`
/// (`left != right`); never null. A literal side is known null or not, so
/// against a value the answer is Kleene's `left is not null and left ==
/// value` (`left is null or left != value`), against null a null test.
fn null_aware_equality(left: GpuExpr, right: GpuExpr, equal: bool) -> GpuExpr {
    let boolean = GpuDtype::Boolean;
    let known_null = |e: &GpuExpr| match &e.kind {
        ExprKind::Literal(Scalar::Null) => Some(true),
        ExprKind::Literal(_) => Some(false),
        _ => None,
    };
    let (values, nulls) = if equal {
        (BinaryOp::Eq, BinaryOp::And)
    } else {
        (BinaryOp::NotEq, BinaryOp::Xor)
    };
    let known = (known_null(&left), known_null(&right));
    // Where one side is a literal, the other is the one tested.
    let literal_left = known.0.is_some();
    match known {
        (Some(false), Some(false)) => left.binary(values, right, boolean),
        (Some(left_null), Some(right_null)) => {
            let answer = (left_null == right_null) == equal;
            GpuExpr::literal(Scalar::Boolean(answer), boolean)
        }
        (Some(true), None) | (None, Some(true)) => {
            let other = if literal_left { right } else { left };
            if equal {
                other.is_null()
            } else {
                other.is_not_null()
            }
        }
        (Some(false), None) | (None, Some(false)) => {
            let other = if literal_left { &right } else { &left };
            let (test, join) = if equal {
                (other.clone().is_not_null(), BinaryOp::And)
            } else {
                (other.clone().is_null(), BinaryOp::Or)
            };
            test.binary(join, left.binary(values, right, boolean), boolean)
        }
        (None, None) => {
            let (left_null, right_null) = (left.clone().is_null(), right.clone().is_null());
            let either = left_null
                .clone()
                .binary(BinaryOp::Or, right_null.clone(), boolean);
            either.then(
                left_null.binary(nulls, right_null, boolean),
                left.binary(values, right, boolean),
                boolean,
            )
        }
    }
}

/// A running sum from the last row, given the running sum from the first
/// (`before`, of `this` at each row): the whole sum, less the sum before
/// the row, `sum(this) - before + this`, in `before`'s type.
fn from_the_end(before: GpuExpr, this: GpuExpr) -> GpuExpr {
    let dtype = before.dtype;
    let total = GpuExpr {
        kind: ExprKind::Agg {
            op: AggOp::Sum,
            input: Box::new(this.clone()),
        },
        dtype,
    };
    total
        .binary(BinaryOp::Minus, before, dtype)
        .binary(BinaryOp::Plus, this, dtype)
}

#[cfg(test)]
mod tests {
    use super::regex_as_pattern;

    fn texts(alternatives: &[&[&str]]) -> Option<Vec<Vec<String>>> {
        Some(
            alternatives
                .iter()
                .map(|a| a.iter().map(|t| t.to_string()).collect())
                .collect(),
        )
    }

    #[test]
    fn restricted_patterns_become_texts() {
        assert_eq!(regex_as_pattern("green"), texts(&[&["green"]]));
        assert_eq!(regex_as_pattern("PROMO*"), texts(&[&["PROM"]]));
        assert_eq!(
            regex_as_pattern(".*Customer.*Complaints.*"),
            texts(&[&["Customer", "Complaints"]])
        );
        assert_eq!(regex_as_pattern("ab*.*c"), texts(&[&["a", "c"]]));
        assert_eq!(regex_as_pattern("13|31"), texts(&[&["13"], &["31"]]));
    }

    #[test]
    fn anything_else_is_refused() {
        for pattern in [
            "", "a*", ".*", "^abc", "abc$", "a.b", "a+b", "ab*c", "a\\.b", "[ab]", "(a)", "a|",
            "a?", "a{2}", "\\*",
        ] {
            assert_eq!(regex_as_pattern(pattern), None, "{pattern:?}");
        }
    }
}
