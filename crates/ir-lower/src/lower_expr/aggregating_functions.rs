//! Functions Polars plans as functions that aggregate (`any`, `all`, `has_nulls`, `is_empty`, `null_count`, `quantile`, `entropy`): built from aggregations of their input, so that a filter's or a slice's rows reach them as they reach `sum` (a quantile, of each group's kept values as a list).

use super::kept_rows::filtered_parts;
use super::*;

/// An aggregation of the function's input (`op`, of the type given), as
/// [`ExprLowering::aggregation_of`] lowers it.
type Aggregate<'f, 'a> = &'f dyn Fn(&mut ExprLowering<'a>, AggOp, GpuDtype) -> Lowered;

/// The numbers of rows and of valid values (u32) of the function's input,
/// as Polars counts them.
fn rows_and_valid<'a>(
    this: &mut ExprLowering<'a>,
    aggregate: Aggregate<'_, 'a>,
) -> Option<(GpuExpr, GpuExpr)> {
    let counted = |include_nulls| AggOp::Count { include_nulls };
    let rows = aggregate(this, counted(true), GpuDtype::UInt32)?;
    let valid = aggregate(this, counted(false), GpuDtype::UInt32)?;
    Some((rows, valid))
}

impl<'a> ExprLowering<'a> {
    /// The function at `node` (of type `dtype`) of the expression at
    /// `input`, which `build` makes of aggregations of it: of a filter's
    /// or a slice's rows (`x.filter(p).all()`), or of elementwise functions
    /// of them, of the rows it keeps, as `aggregation_of` takes them; of
    /// other functions of such rows (`x.filter(p).shift(1).all()`), the
    /// function of each group's kept values as a list.
    fn of_aggregations(
        &mut self,
        node: Node,
        input: Node,
        dtype: GpuDtype,
        build: impl FnOnce(&mut Self, Aggregate<'_, 'a>) -> Lowered,
    ) -> Lowered {
        if !self.keeps_rows_directly(input)
            && let Some(lowered) = self.of_kept_lists(node, false, input, dtype)
        {
            return lowered;
        }
        build(self, &|this, op, dtype| {
            this.aggregation_of(node, op, input, dtype)
        })
    }

    /// Whether the expression at `input` is a filter or a slice, or an
    /// elementwise function or a running function that skips nulls of
    /// one, whose kept rows `aggregation_of` takes.
    fn keeps_rows_directly(&self, input: Node) -> bool {
        filtered_parts(self.arena, input).is_some() || self.filter_inside(input).is_some()
    }

    /// `any`, `all` (Kleene unless `ignore_nulls`), `has_nulls` and
    /// `is_empty` (of the valid values, with `ignore_nulls`) of the
    /// expression at `input`, per group or of the column: from the numbers
    /// of rows, valid values and true values.
    pub(crate) fn boolean_aggregation(
        &mut self,
        node: Node,
        input: Node,
        function: &IRBooleanFunction,
    ) -> Lowered {
        use IRBooleanFunction as B;
        let of = self.dtype(input)?;
        let of_truths = matches!(function, B::Any { .. } | B::All { .. });
        if of_truths && of != GpuDtype::Boolean {
            return self.refuse(
                node,
                format!("{function} of {of} is not supported on the GPU"),
            );
        }
        let (boolean, count) = (GpuDtype::Boolean, GpuDtype::UInt32);
        // A literal per group is empty as its group is (Polars takes it as
        // many rows as the group has: a rolling window of none is empty,
        // though the literal's count is one there).
        // (Of a null, ignoring nulls, Polars panics.)
        if self.per_group
            && let B::IsEmpty { ignore_nulls } = function
            && matches!(self.arena.get(input), AExpr::Literal(value) if !(value.is_null() && *ignore_nulls))
        {
            let length = GpuExpr {
                kind: ExprKind::Len,
                dtype: count,
            };
            let zero = GpuExpr::literal(Scalar::UInt(0), count);
            return Some(length.binary(BinaryOp::Eq, zero, boolean));
        }
        self.of_aggregations(node, input, boolean, |this, aggregate| {
            let (rows, valid) = rows_and_valid(this, aggregate)?;
            let trues = |this: &mut Self| aggregate(this, AggOp::Sum, count);
            let minus = |a: GpuExpr, b: GpuExpr| a.binary(BinaryOp::Minus, b, count);
            let zero = || GpuExpr::literal(Scalar::UInt(0), count);
            let some = |n: GpuExpr| n.binary(BinaryOp::Gt, zero(), boolean);
            let none = |n: GpuExpr| n.binary(BinaryOp::Eq, zero(), boolean);
            let truth = |v: bool| GpuExpr::literal(Scalar::Boolean(v), boolean);
            let nulls = || minus(rows.clone(), valid.clone());
            // Kleene: the deciding value if any row has it, else null if a
            // row is null, else the other value.
            let kleene = |decided: GpuExpr, value: bool| {
                let unknown = some(nulls()).then(
                    GpuExpr::literal(Scalar::Null, boolean),
                    truth(!value),
                    boolean,
                );
                decided.then(truth(value), unknown, boolean)
            };
            Some(match function {
                B::Any { ignore_nulls: true } => some(trues(this)?),
                B::Any { .. } => kleene(some(trues(this)?), true),
                B::All { ignore_nulls: true } => none(minus(valid.clone(), trues(this)?)),
                B::All { .. } => kleene(some(minus(valid.clone(), trues(this)?)), false),
                B::HasNulls => some(nulls()),
                B::IsEmpty { ignore_nulls: true } => none(valid),
                _ => none(rows),
            })
        })
    }

    /// `null_count` of the expression at `input`: the rows less the valid
    /// ones, both counted as Polars counts.
    pub(crate) fn null_count(&mut self, node: Node, input: Node) -> Lowered {
        let dtype = self.dtype(node)?;
        if dtype != GpuDtype::UInt32 {
            return self.refuse(node, format!("null_count as {dtype}"));
        }
        self.of_aggregations(node, input, dtype, |this, aggregate| {
            let (rows, valid) = rows_and_valid(this, aggregate)?;
            Some(rows.binary(BinaryOp::Minus, valid, dtype))
        })
    }

    /// `quantile` (at the literal `quantile`, by `method`) of the
    /// expression at `input`. Polars places it among the values counting
    /// their nulls, so of a filter's or a slice's rows (and of functions
    /// of them), it is taken of each group's kept values as a list (the
    /// rows dropped, as nulls, would move the place).
    pub(crate) fn quantile(
        &mut self,
        node: Node,
        (input, quantile): (Node, Node),
        method: QuantileMethod,
    ) -> Lowered {
        let Some(quantile) = self.literal_f64(quantile) else {
            return self.refuse(node, "the quantile must be a literal number");
        };
        let dtype = self.dtype(node)?;
        if dtype == GpuDtype::Float32 {
            return self.refuse(node, MIDDLE_OF_F32);
        }
        if let Some(lowered) = self.of_kept_lists_or_filter(node, input, dtype) {
            return lowered;
        }
        if self.keeps_rows_directly(input) && self.substituted.is_none() {
            return self.refuse(
                node,
                "a quantile of the rows a filter or slice keeps, read through several columns \
                 or by a predicate not of every row, is not supported on the GPU",
            );
        }
        let method = quantile_method_name(method);
        Some(
            self.expr(input)?
                .aggregated(AggOp::Quantile { quantile, method }, dtype),
        )
    }

    /// Polars' `entropy(base, normalize)` of a whole frame's values (f64,
    /// or integers as f64): `-sum(pk * log(pk, base))`, `pk` the values over
    /// their sum with `normalize` (over a sum of one, the values as they
    /// are: the same), 0.0 of one row (a null too), as polars-ops computes
    /// it; the logarithms are the host's (`HostFunction::Log`), the sums
    /// Polars' pairwise ones over the column. Per group Polars adds each
    /// group's values in an order of its own, and of f32 in f32: refused.
    pub(crate) fn entropy(
        &mut self,
        node: Node,
        input: Node,
        (base, normalize): (f64, bool),
    ) -> Lowered {
        if self.per_group {
            return self.refuse(
                node,
                "entropy per group (in a group-by or a window) is not supported on the GPU \
                 (Polars adds each group's values in an order of its own)",
            );
        }
        let values = self.expr(input)?;
        let float = GpuDtype::Float64;
        let values = match values.dtype {
            dtype if !values.is_row_wise() || self.one_value(input) => {
                return self.refuse(
                    node,
                    format!(
                        "entropy of an expression of other rows or of one value ({dtype}) is not \
                         supported on the GPU"
                    ),
                );
            }
            dtype if dtype == float => values,
            dtype if dtype.is_integer() => values.cast(float, CastMode::NonStrict),
            dtype => {
                return self.refuse(
                    node,
                    format!("entropy of {dtype} is not supported on the GPU"),
                );
            }
        };
        let pk = match normalize {
            true => {
                let sum = values.clone().aggregated(AggOp::Sum, float);
                values.binary(BinaryOp::TrueDivide, sum, float)
            }
            false => values,
        };
        let log = GpuExpr {
            kind: ExprKind::OnHost {
                function: HostFunction::Log { base },
                input: Box::new(pk.clone()),
                other: None,
            },
            dtype: float,
        };
        let terms = pk
            .binary(BinaryOp::Multiply, log, float)
            .aggregated(AggOp::Sum, float);
        let entropy = GpuExpr {
            kind: ExprKind::Negate(Box::new(terms)),
            dtype: float,
        };
        let count = GpuDtype::UInt32;
        let rows = GpuExpr {
            kind: ExprKind::Len,
            dtype: count,
        };
        let one_row = rows.binary(
            BinaryOp::Eq,
            GpuExpr::literal(Scalar::UInt(1), count),
            GpuDtype::Boolean,
        );
        Some(one_row.then(GpuExpr::literal(Scalar::Float(0.0), float), entropy, float))
    }
}
