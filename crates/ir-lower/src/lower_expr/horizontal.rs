//! Horizontal folds: `min_horizontal`, `max_horizontal`, `sum_horizontal` and `mean_horizontal` across a row's inputs.

use super::*;

/// Polars' `min_horizontal`, `max_horizontal`, `sum_horizontal` and
/// `mean_horizontal` of `inputs` (of one type), giving `dtype`, as row-wise
/// expressions: min and max (of integers and temporals) fold left to right,
/// each step a clip by the next input, which a null does not clip and which
/// fills a null; sums fold
/// with `+` (wrapping integers; booleans counted as `u32`), nulls as zero
/// when they are ignored; a mean is the sum, as a float, over the number of
/// valid inputs (null where there are none).
pub(crate) fn horizontal(
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
            let ordered = input_dtype.is_integer()
                || input_dtype.is_temporal()
                || matches!(input_dtype, GpuDtype::Decimal(..));
            if input_dtype.is_float() {
                // Polars compares floats as IEEE numbers where neither input
                // has nulls and in total order elsewhere, pairwise in an
                // order of its own: with NaN the answer depends on both.
                // (Of two: `ExprLowering::float_extreme_of_two`.)
                return Err(format!(
                    "{function} of more than two floats is not supported on the GPU (Polars \
                     compares them pairwise in an order of its own, NaN as IEEE numbers or \
                     not by where nulls are)"
                ));
            }
            if !ordered || dtype != input_dtype {
                return Err(format!(
                    "{function} of {input_dtype} is not supported on the GPU"
                ));
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
            if input_dtype.decimal_scale().is_some() {
                return Err(format!(
                    "{function} of {input_dtype} is not supported on the GPU (Polars' plan types \
                     the sum as its inputs, its engine gives precision 38)"
                ));
            }
            if !(input_dtype.is_numeric() || input_dtype == GpuDtype::Boolean) {
                return Err(format!(
                    "{function} of {input_dtype} is not supported on the GPU"
                ));
            }
            if input_dtype.is_float() && inputs.len() > 2 {
                // Polars adds the columns pairwise in an order of its own.
                return Err(format!(
                    "{function} of more than two float inputs is not supported on the GPU \
                     (Polars adds them pairwise in an order of its own)"
                ));
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
                .map(|input| row_by_row(addend(input), &inputs, sum_dtype))
                .reduce(|sum, next| sum.binary(BinaryOp::Plus, next, sum_dtype))
                .expect("one input at least");
            if !mean {
                return if dtype == sum_dtype {
                    Ok(sum)
                } else {
                    Err(format!("{function} of {input_dtype} as {dtype}"))
                };
            }
            // Divided by each row's count of valid inputs, a value of every
            // row as Polars divides (not a constant, which Polars' scalar
            // kernel and the executor take by the reciprocal); a null input
            // makes the sum null unless nulls are ignored.
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

/// `addend`, an input of a horizontal sum of `inputs` (of floats), read
/// row by row: Polars adds a fold's column inputs materialized, a column it
/// holds as one value (a literal a with_columns below made) too, where its
/// `+` of such a column goes by its scalar kernel (`x + 0.0` keeps -0.0;
/// fuzz seed 3001). A choice between the addend and itself by a test of
/// every input reads as many values as the inputs do, so the executor adds
/// it row by row wherever an input has a value per row. Literals stay
/// literals (Polars broadcasts them by its scalar kernel too); integers
/// add alike either way.
fn row_by_row(addend: GpuExpr, inputs: &[GpuExpr], dtype: GpuDtype) -> GpuExpr {
    if !dtype.is_float() || !addend.reads_a_column() {
        return addend;
    }
    let every = inputs
        .iter()
        .map(|input| input.clone().is_null())
        .reduce(|all, next| all.binary(BinaryOp::And, next, GpuDtype::Boolean))
        .expect("one input at least");
    every.then(addend.clone(), addend, dtype)
}

impl ExprLowering<'_> {
    /// Polars' `min_horizontal` (`min`) or `max_horizontal` of two floats,
    /// `l` and `r`, as Polars computes it over whole columns: where
    /// neither column holds a null, `l` where `l < r` (`l > r`) as IEEE
    /// numbers (false with a NaN on either side), else `r`; where either
    /// column holds a null anywhere, by Polars' total order (NaN greatest,
    /// -0.0 equal to 0.0), `r` where `l` is null and `l` where `r` is.
    /// Equal values (-0.0 and 0.0 too) give `r`; with a literal or a
    /// column Polars holds as one value, Polars always goes by the total
    /// order. Polars decides by each chunk of its input, which the GPU does
    /// not see: where a column holds a null and a row of two values a NaN,
    /// the run leaves the query to Polars. Whether a column holds a null is
    /// an aggregation of the whole frame: per group (in a group-by, a
    /// window) and over rows an aggregation keeps (Polars' columns are then
    /// the group's, the kept rows'), it falls back; so does an input of an
    /// aggregation (Polars' path then depends on its length).
    pub(super) fn float_extreme_of_two(
        &mut self,
        node: Node,
        inputs: &[ExprIR],
        min: bool,
        (l, r): (GpuExpr, GpuExpr),
    ) -> Lowered {
        let name = if min {
            "min_horizontal"
        } else {
            "max_horizontal"
        };
        if self.per_group || self.unfiltered || self.unsliced.is_some() || self.nulled.is_some() {
            return self.refuse(
                node,
                format!(
                    "{name} of floats per group (in a group-by or a window) or inside an \
                     aggregation is not supported on the GPU (Polars compares NaN by whether \
                     its columns there hold a null)"
                ),
            );
        }
        // A literal, or a column Polars holds as a scalar column (one
        // value repeated, as a with_columns of an aggregation below makes
        // it), is no plain series there, which Polars always compares by
        // its total order (seed 4654).
        let Some(scalar_columns) = &self.scalar_columns else {
            return self.refuse(
                node,
                format!(
                    "{name} of floats here is not supported on the GPU (Polars compares NaN by \
                     whether it holds an input as one value, not known here)"
                ),
            );
        };
        let held_once = |e: &GpuExpr| {
            let mut columns = 0;
            let mut scalar = true;
            e.visit(&mut |part| {
                if let ExprKind::Column { name, .. } = &part.kind {
                    columns += 1;
                    scalar &= scalar_columns.iter().any(|s| s.as_str() == name);
                }
            });
            matches!(e.kind, ExprKind::Literal(_)) || (columns > 0 && scalar)
        };
        let by_total_only = held_once(&l) || held_once(&r);
        if !by_total_only && inputs.iter().any(|input| self.one_value(input.node())) {
            return self.refuse(
                node,
                format!(
                    "{name} of floats with an aggregation is not supported on the GPU (Polars \
                     compares NaN by the aggregation's length)"
                ),
            );
        }
        let (boolean, dtype) = (GpuDtype::Boolean, l.dtype);
        let float_check = |check, input: GpuExpr| GpuExpr {
            kind: ExprKind::FloatCheck {
                check,
                input: Box::new(input),
            },
            dtype: boolean,
        };
        let (beats, not_nan) = match min {
            true => (BinaryOp::Lt, float_check(FloatCheck::IsNotNan, r.clone())),
            false => (BinaryOp::Gt, float_check(FloatCheck::IsNotNan, l.clone())),
        };
        // `l` beats `r` by the total order: null where either is null.
        let by_total = l.clone().binary(beats, r.clone(), boolean);
        let as_ieee = by_total.clone().binary(BinaryOp::And, not_nan, boolean);
        let or_no_right = by_total.binary(BinaryOp::Or, r.clone().is_null(), boolean);
        if by_total_only {
            return Some(or_no_right.then(l, r, dtype));
        }
        let any_null = l
            .clone()
            .is_null()
            .binary(BinaryOp::Or, r.clone().is_null(), boolean)
            .aggregated(
                AggOp::Max {
                    propagate_nans: false,
                },
                boolean,
            );
        // Polars takes the path of each chunk of its input (by whether it
        // holds a null), which the GPU does not see: where a column holds
        // a null and a row of two values a NaN, the answer is Polars' own.
        // (A row with a null is in a chunk with one.)
        let nan = |x: &GpuExpr| float_check(FloatCheck::IsNan, x.clone());
        let both = l
            .clone()
            .is_not_null()
            .binary(BinaryOp::And, r.clone().is_not_null(), boolean);
        let polars_own = any_null
            .clone()
            .binary(BinaryOp::And, both, boolean)
            .binary(
                BinaryOp::And,
                nan(&l).binary(BinaryOp::Or, nan(&r), boolean),
                boolean,
            );
        let left = any_null.then(or_no_right, as_ieee, boolean);
        Some(GpuExpr {
            kind: ExprKind::PolarsOwnWhere {
                input: Box::new(left.then(l, r, dtype)),
                polars_own: Box::new(polars_own),
                no_rows: false,
                why: format!(
                    "{name} of floats with NaN beside a value where a column holds a null: \
                     Polars compares NaN by whether each chunk of its input holds a null"
                ),
                shown: self.notation(node),
            },
            dtype,
        })
    }
}
