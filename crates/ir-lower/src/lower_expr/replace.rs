//! `replace` and `replace_strict` by literal values: a choice among the new values by which old value a row holds.

use super::*;

/// The most old values mapped to as many new ones (each a test and a
/// choice in the fused evaluator).
const MOST_PAIRS: usize = 64;

/// `value` (of type `from`) as a value of `dtype`, where `dtype` holds it
/// exactly (so Polars' cast of it neither raises nor changes it); temporal
/// values only into their own type, nothing into decimals.
fn fitted(value: &Scalar, from: GpuDtype, dtype: GpuDtype) -> Option<Scalar> {
    match value {
        Scalar::Null => Some(Scalar::Null),
        _ if dtype.decimal_scale().is_some() || (dtype.is_temporal() && from != dtype) => None,
        _ => held_exactly(value, dtype),
    }
}

impl ExprLowering<'_> {
    /// Polars' `replace(old, new)` (`strict`: `replace_strict(old, new,
    /// default)`) of literal values: each row holding the j-th old value
    /// (a null one: a null row) takes the j-th new value (or the one new
    /// value), as a chain of `when/then`; the other rows keep their value
    /// (`replace`) or take the default (`replace_strict`, null rows too
    /// where no old value is null; without a default, null rows are null
    /// and a valid row of no old value sends the query to Polars, which
    /// raises: see [`unmatched_raise`]). Values of integers, booleans, texts,
    /// dates and times, and floats, matched by Polars' `==` (NaN equal to
    /// NaN, both zeros alike), as its `==`, membership test and join, one
    /// of which `replace` takes by the counts of values, all match them.
    pub(super) fn replace(&mut self, node: Node, inputs: &[ExprIR], strict: bool) -> Lowered {
        let name = if strict { "replace_strict" } else { "replace" };
        let input = self.expr(inputs.first()?.node())?;
        let from = input.dtype;
        let exact = (from.is_integer() && from.decimal_scale().is_none())
            || from.is_float()
            || matches!(
                from,
                GpuDtype::Boolean
                    | GpuDtype::String
                    | GpuDtype::Date
                    | GpuDtype::Datetime(_)
                    | GpuDtype::Duration(_)
                    | GpuDtype::Time
            );
        if !exact {
            return self.refuse(
                node,
                format!("{name} of {from} is not supported on the GPU"),
            );
        }
        let lists = (
            self.literal_list(inputs.get(1)?.node()),
            self.literal_list(inputs.get(2)?.node()),
        );
        let (Some((old, old_dtype)), Some((new, new_dtype))) = lists else {
            return self.refuse(
                node,
                format!("{name} by values other than literals is not supported on the GPU"),
            );
        };
        let dtype = self.dtype(node)?;
        // Without a default, Polars raises where a value has no new value:
        // the rows left to the default are null, and checked.
        let raises = strict && inputs.get(3).is_none();
        if raises && old.is_empty() {
            return self.refuse(node, "replace_strict of no old values (Polars raises)");
        }
        let default = match (strict, inputs.get(3)) {
            (false, _) => None,
            (true, Some(default)) => Some(self.expr(default.node())?),
            (true, None) => Some(GpuExpr::literal(Scalar::Null, dtype)),
        };
        // A constant input with a default that reads rows (or a group's
        // aggregation): Polars raises on their lengths; the device would
        // repeat the constant.
        let reads = |e: &GpuExpr| {
            e.any(&|part| {
                matches!(
                    part.kind,
                    ExprKind::Column { .. } | ExprKind::Agg { .. } | ExprKind::Len
                )
            })
        };
        if !reads(&input) && default.as_ref().is_some_and(reads) {
            return self.refuse(
                node,
                format!(
                    "{name} of a constant with a default of other length (Polars raises) is not \
                     supported on the GPU"
                ),
            );
        }
        if !strict && dtype != from {
            return self.refuse(node, format!("{name} of {from} into {dtype}"));
        }
        let old: Option<Vec<Scalar>> = old.iter().map(|v| fitted(v, old_dtype, from)).collect();
        let target = if strict { dtype } else { from };
        let new: Option<Vec<Scalar>> = new.iter().map(|v| fitted(v, new_dtype, target)).collect();
        let (Some(old), Some(new)) = (old, new) else {
            return self.refuse(
                node,
                format!(
                    "{name} of {from} by values of {old_dtype} with values of {new_dtype} (which \
                     Polars casts, raising where they do not fit) is not supported on the GPU"
                ),
            );
        };
        // (Old values alike by total equality: Polars raises.)
        let alike = |a: &Scalar, b: &Scalar| match (a, b) {
            (Scalar::Float(a), Scalar::Float(b)) => a == b || (a.is_nan() && b.is_nan()),
            _ => a == b,
        };
        let distinct = old
            .iter()
            .enumerate()
            .all(|(i, value)| !old[..i].iter().any(|other| alike(other, value)));
        if !distinct || !(new.len() == 1 || new.len() == old.len()) || old.len() > MOST_PAIRS {
            return self.refuse(
                node,
                format!(
                    "{name} of {} old values by {} new ones (Polars raises on repeated old \
                     values and on counts that differ; the GPU takes up to {MOST_PAIRS} pairs) \
                     is not supported on the GPU",
                    old.len(),
                    new.len()
                ),
            );
        }
        let otherwise = match default {
            None => input.clone(),
            Some(default) if default.dtype == dtype => default,
            Some(default) if cast_supported(default.dtype, dtype) => {
                default.cast(dtype, CastMode::NonStrict)
            }
            Some(default) => {
                return self.refuse(
                    node,
                    format!("{name} with a default of {} as {dtype}", default.dtype),
                );
            }
        };
        // No old values: every row takes the default; one the input's
        // rows decide (a constant default stays one value per row of the
        // input, as Polars gives it, not one row).
        let otherwise = match old.is_empty() && reads(&input) && !reads(&otherwise) {
            true => input
                .clone()
                .is_null()
                .then(otherwise.clone(), otherwise, dtype),
            false => otherwise,
        };
        let mut chosen = otherwise;
        let mut any_match: Option<GpuExpr> = None;
        for (j, value) in old.iter().enumerate().rev() {
            let matches = match value {
                Scalar::Null => GpuExpr {
                    kind: ExprKind::IsNull(Box::new(input.clone())),
                    dtype: GpuDtype::Boolean,
                },
                value => input.clone().binary(
                    BinaryOp::Eq,
                    GpuExpr::literal(value.clone(), from),
                    GpuDtype::Boolean,
                ),
            };
            any_match = Some(match any_match {
                None => matches.clone(),
                Some(any) => any.binary(BinaryOp::Or, matches.clone(), GpuDtype::Boolean),
            });
            let replacement = new[if new.len() == 1 { 0 } else { j }].clone();
            chosen = GpuExpr {
                kind: ExprKind::Ternary {
                    predicate: Box::new(matches),
                    truthy: Box::new(GpuExpr::literal(replacement, target)),
                    falsy: Box::new(chosen),
                },
                dtype,
            };
        }
        if raises && let Some(any_match) = any_match {
            // With one new value, Polars finds the rows to replace by a
            // membership test of the old values, which leaves null rows
            // unmatched (and raises on them) unless every old value is null.
            let null = |value: &Scalar| matches!(value, Scalar::Null);
            let nulls_unmatched = new.len() == 1 && old.iter().any(null) && !old.iter().all(null);
            return Some(unmatched_raise(chosen, input, any_match, nulls_unmatched));
        }
        Some(chosen)
    }
}

/// `chosen`, unless a valid row of `input` (any row, with
/// `nulls_unmatched`) matches no old value (`any_match` false there),
/// where Polars' `replace_strict` raises (see [`raising_where`]).
fn unmatched_raise(
    chosen: GpuExpr,
    input: GpuExpr,
    any_match: GpuExpr,
    nulls_unmatched: bool,
) -> GpuExpr {
    let boolean = GpuDtype::Boolean;
    let matched = any_match.fill_null(GpuExpr::literal(Scalar::Boolean(false), boolean));
    let not_matched = GpuExpr {
        kind: ExprKind::Not(Box::new(matched)),
        dtype: boolean,
    };
    let unmatched = match nulls_unmatched {
        true => input.is_null().binary(BinaryOp::Or, not_matched, boolean),
        false => input
            .is_not_null()
            .binary(BinaryOp::And, not_matched, boolean),
    };
    raising_unless(chosen, unmatched)
}
