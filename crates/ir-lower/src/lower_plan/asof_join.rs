//! Polars' `join_asof` as a node of its own: each left row with the right row its sorted key matches (of its group, by groups), backward, forward or nearest.

use polars_core::prelude::AnyValue;
use polars_ops::frame::{AsOfOptions, AsofStrategy as PolarsStrategy, JoinArgs};

use super::*;
use crate::lower_expr::integer_range;
use crate::plan::{AsofStrategy, AsofTolerance};

/// The range (least and greatest value) of the integer type Polars
/// searches keys of `dtype` as (narrow integers as i32, temporal values as
/// their integers, decimals as their scaled i128), which its tolerance must
/// fit.
fn native_range(dtype: GpuDtype) -> Option<(i128, i128)> {
    let native = match dtype {
        GpuDtype::Decimal(..) => return Some((i128::MIN, i128::MAX)),
        GpuDtype::Int8 | GpuDtype::Int16 | GpuDtype::UInt8 | GpuDtype::UInt16 | GpuDtype::Date => {
            GpuDtype::Int32
        }
        GpuDtype::Datetime(_)
        | GpuDtype::ZonedDatetime(..)
        | GpuDtype::Duration(_)
        | GpuDtype::Time => GpuDtype::Int64,
        other => other,
    };
    integer_range(native)
}

/// The tolerance of a `join_asof` on keys of `dtype` as Polars takes it
/// (its absolute value in the keys' native type): for floats, the value as
/// a float of their type (Polars' `extract`; NaN within no distance); for
/// integers, one that fits their `range` (else none: the GPU leaves it).
fn tolerance_of(
    dtype: GpuDtype,
    value: &AnyValue<'_>,
    range: Option<(i128, i128)>,
) -> Option<AsofTolerance> {
    // Polars' `abs_diff` of the tolerance and zero (of a NaN, a NaN).
    match dtype {
        GpuDtype::Float32 => {
            let t = value.extract::<f32>()?;
            Some(AsofTolerance::Float(f64::from(if t > 0.0 {
                t
            } else {
                0.0 - t
            })))
        }
        GpuDtype::Float64 => {
            let t = value.extract::<f64>()?;
            Some(AsofTolerance::Float(if t > 0.0 { t } else { 0.0 - t }))
        }
        _ => {
            // (A float truncated toward zero, as Polars casts it; of
            // decimals, in units of their scale, as Polars takes it. The
            // device's keys are 64-bit: a larger tolerance takes every
            // distance, as u64::MAX does.)
            let (least, greatest) = range?;
            let t = value.extract::<i128>()?;
            let t = (least..=greatest).contains(&t).then_some(t)?.unsigned_abs();
            Some(AsofTolerance::Integer(u64::try_from(t).unwrap_or(u64::MAX)))
        }
    }
}

impl PlanLowering<'_> {
    /// A `join_asof` (`node`) of `left_node` with `right_node` on one key
    /// column of each (`left_on`, `right_on`), as Polars runs it: every
    /// left row with the right row its key matches by `asof`'s strategy
    /// among the right keys in ascending order (see [`AsofStrategy`]), of
    /// its group where `asof` has `by` groups, the right columns null where
    /// none does. The GPU checks that the keys are sorted as Polars reads
    /// them (else Polars answers, or raises its error).
    pub(super) fn asof_join(
        &mut self,
        node: Node,
        (left_node, right_node): (Node, Node),
        (left_on, right_on): (&[ExprIR], &[ExprIR]),
        args: &JoinArgs,
        asof: &AsOfOptions,
    ) -> Lowered {
        let left = self.node(left_node);
        let right = self.node(right_node);
        if args.validation != JoinValidation::ManyToMany {
            return self.refuse(
                node,
                format!("join validation {} of a join_asof", args.validation),
            );
        }
        let (Some(left_ir), Some(right_ir), 1, 1) = (
            left_on.first(),
            right_on.first(),
            left_on.len(),
            right_on.len(),
        ) else {
            return self.refuse(node, "a join_asof on several keys");
        };
        let shown = |key: &ExprIR| crate::refusal::written(key.node(), self.expr_arena);
        let (left_shown, right_shown) = (shown(left_ir).to_string(), shown(right_ir).to_string());
        let left_on = self.exprs(left_on, left_node);
        let right_on = self.exprs(right_on, right_node);
        let (mut left_on, mut right_on) = (left_on?, right_on?);
        let (left_on, right_on) = (left_on.pop()?, right_on.pop()?);
        // A key may be an expression of its side's rows (`col("t") * 2`),
        // which Polars computes and searches, adding no column.
        for (key, shown) in [(&left_on, &left_shown), (&right_on, &right_shown)] {
            if !key.is_row_wise() || !key.reads_a_column() {
                return self.refuse(
                    node,
                    format!(
                        "a join_asof on `{shown}`: keys that are not functions of each row's \
                         values are not supported on the GPU"
                    ),
                );
            }
        }
        let dtype = left_on.dtype;
        let range = native_range(dtype);
        // Texts (by their bytes) and booleans Polars searches by their
        // order alone: backward and forward, without a tolerance.
        let ordered_only = matches!(dtype, GpuDtype::String | GpuDtype::Boolean);
        if right_on.dtype != dtype || (range.is_none() && !dtype.is_float() && !ordered_only) {
            return self.refuse(
                node,
                format!(
                    "a join_asof on `{left_shown}` ({dtype}) and `{right_shown}` ({}): keys that \
                     are not integers, temporal values, decimals, floats, texts or booleans of \
                     one type are not supported on the GPU yet",
                    right_on.dtype
                ),
            );
        }
        let strategy = match asof.strategy {
            PolarsStrategy::Backward => AsofStrategy::Backward,
            PolarsStrategy::Forward => AsofStrategy::Forward,
            PolarsStrategy::Nearest => AsofStrategy::Nearest,
        };
        if ordered_only && (strategy == AsofStrategy::Nearest || asof.tolerance.is_some()) {
            return self.refuse(
                node,
                format!(
                    "a join_asof on `{left_shown}` ({dtype}) by the nearest key or within a \
                     tolerance: Polars measures no distance between texts or booleans (it \
                     raises its error)"
                ),
            );
        }
        let tolerance = match &asof.tolerance {
            None => None,
            Some(tolerance) => {
                let value = tolerance.value();
                match tolerance_of(dtype, value, range) {
                    Some(t) => Some(t),
                    None => {
                        return self.refuse(
                            node,
                            format!(
                                "a join_asof on `{left_shown}` ({dtype}) with the tolerance {value}: \
                                 a tolerance that is not a number of the keys' type and range is \
                                 not supported on the GPU"
                            ),
                        );
                    }
                }
            }
        };
        let (left_schema, right_schema) = (self.schema_of(left_node), self.schema_of(right_node));
        let by = match (&asof.left_by, &asof.right_by) {
            (None, None) => Vec::new(),
            (Some(l), Some(r)) => self.asof_groups(node, (l, r), (&left_schema, &right_schema))?,
            _ => return self.refuse(node, "a join_asof by groups of one side only"),
        };
        let right_name = right_ir.output_name();
        let mut drop_right: Vec<usize> = asof
            .right_by
            .iter()
            .flatten()
            .filter_map(|name| right_schema.index_of(name))
            .collect();
        if args.should_coalesce() && left_ir.output_name() == right_name {
            drop_right.extend(right_schema.index_of(right_name));
        }
        drop_right.sort_unstable();
        drop_right.dedup();
        let schema = self.output_schema(node)?;
        let kept = left_schema.len() + right_schema.len() - drop_right.len();
        if schema.len() != kept {
            return self.refuse(
                node,
                "a join_asof whose columns are not its inputs' is not supported on the GPU",
            );
        }
        Some(PlanNode::AsofJoin {
            left: Box::new(left?),
            right: Box::new(right?),
            left_on,
            right_on,
            keys_written: [left_shown, right_shown],
            by,
            strategy,
            allow_eq: asof.allow_eq,
            tolerance,
            check_sortedness: asof.check_sortedness,
            drop_right,
            slice: args.slice,
            schema,
        })
    }

    /// The `by` columns of a `join_asof` (`node`): pairs of one of each
    /// side, of one type whose equal values the GPU groups as Polars
    /// matches them (integers, temporal values, texts, categoricals and
    /// enums by code, decimals, floats, equal by their total order as
    /// Polars' hashes of them take them: -0.0 as 0.0, every NaN alike;
    /// booleans among several, which Polars encodes as rows, where one
    /// alone it does not join by).
    fn asof_groups(
        &mut self,
        node: Node,
        (left_by, right_by): (&[PlSmallStr], &[PlSmallStr]),
        (left_schema, right_schema): (&Schema, &Schema),
    ) -> Option<Vec<(GpuExpr, GpuExpr)>> {
        if left_by.len() != right_by.len() || left_by.is_empty() {
            self.refuse(
                node,
                "a join_asof by different numbers of columns on each side",
            );
            return None;
        }
        let column = |schema: &Schema, name: &PlSmallStr| {
            let (index, _, dtype) = schema.get_full(name)?;
            let dtype = GpuDtype::from_polars(dtype).ok()?;
            Some(GpuExpr::column(index, name.to_string(), dtype))
        };
        let several = left_by.len() > 1;
        let groupable = |dtype: GpuDtype| {
            dtype.is_integer()
                || dtype.is_temporal()
                || dtype.is_float()
                || matches!(
                    dtype,
                    GpuDtype::String | GpuDtype::Categorical(_) | GpuDtype::Decimal(..)
                )
                || (several && dtype == GpuDtype::Boolean)
        };
        let mut pairs = Vec::with_capacity(left_by.len());
        for (l, r) in left_by.iter().zip(right_by) {
            match (column(left_schema, l), column(right_schema, r)) {
                (Some(l), Some(r)) if l.dtype == r.dtype && groupable(l.dtype) => {
                    pairs.push((l, r))
                }
                _ => {
                    self.refuse(
                        node,
                        format!(
                            "a join_asof by `col({l:?})` and `col({r:?})`: groups of other than \
                             one integer, temporal, float, text, categorical or decimal type \
                             (or booleans among several) are not supported on the GPU yet"
                        ),
                    );
                    return None;
                }
            }
        }
        Some(pairs)
    }
}
