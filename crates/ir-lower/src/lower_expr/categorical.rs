//! Categoricals and enums in comparisons: equality (and an enum's order) by code, a text looked up in the dictionary with nothing added; a categorical's order by its texts; membership.

use super::*;

/// The categorical side's codes (or texts) compared with the other side:
/// `Ok` with the two sides to compare, or `Err` with the refusal.
pub(crate) type CodeSides = Result<(GpuExpr, GpuExpr), Lowered>;

impl ExprLowering<'_> {
    /// `left op right` where either side is a categorical or enum (the sides
    /// as they are where neither is), as Polars compares them: equality
    /// with the same dictionary's values, or with a text the dictionary
    /// holds, by code; an enum's order by code (a text an enum lacks goes
    /// to Polars, which raises); a categorical's order, and its equality
    /// with texts its dictionary lacks as the plan is lowered (a cast in the
    /// plan may add them) or with computed texts, by its texts (byte by
    /// byte, as Polars orders categoricals). Arithmetic and comparisons
    /// with other types stay with Polars.
    pub(crate) fn categorical_sides(
        &mut self,
        node: Node,
        op: BinaryOp,
        left: GpuExpr,
        right: GpuExpr,
    ) -> CodeSides {
        let (dictionary, categorical_left) = match (left.dtype, right.dtype) {
            (GpuDtype::Categorical(d), _) => (d, true),
            (_, GpuDtype::Categorical(d)) => (d, false),
            _ => return Ok((left, right)),
        };
        let dtype = GpuDtype::Categorical(dictionary);
        let equality = matches!(
            op,
            BinaryOp::Eq | BinaryOp::NotEq | BinaryOp::EqMissing | BinaryOp::NotEqMissing
        );
        let order = matches!(
            op,
            BinaryOp::Lt | BinaryOp::LtEq | BinaryOp::Gt | BinaryOp::GtEq
        );
        let (categorical, other) = match categorical_left {
            true => (left, right),
            false => (right, left),
        };
        let refused = |lowering: &mut Self| {
            Err(lowering.refuse(
                node,
                format!(
                    "comparing {} with {} is not supported on the GPU",
                    categorical.dtype, other.dtype
                ),
            ))
        };
        if !(equality || order) {
            return refused(self);
        }
        // A categorical and an enum, or two enums, Polars does not compare
        // (it raises its error, of no rows too; fuzz seed 6572, case 223):
        // of a null of the other's type too.
        if let GpuDtype::Categorical(theirs) = other.dtype
            && theirs != dictionary
        {
            return refused(self);
        }
        let text = GpuDtype::String;
        let by_code = equality || dictionary.is_enum();
        let other = match (&other.kind, other.dtype) {
            (_, d) if d == dtype && by_code => other,
            (ExprKind::Literal(Scalar::Null), _) if by_code => {
                GpuExpr::literal(Scalar::Null, dtype)
            }
            (ExprKind::Literal(Scalar::String(value)), GpuDtype::String) if by_code => {
                match dictionary.code(value) {
                    Some(code) => GpuExpr::literal(Scalar::UInt(code.into()), dtype),
                    // Polars raises its error for a text no enum value has.
                    None if dictionary.is_enum() => {
                        return Err(
                            self.refuse(node, format!("{value:?} is not a category of the enum"))
                        );
                    }
                    None => return Ok(texts_compared(categorical, other, categorical_left)),
                }
            }
            _ if dictionary.is_enum() => return refused(self),
            // A categorical by its texts: with the same dictionary's values,
            // with texts, with a null.
            (_, d) if d == dtype || d == text => {
                return Ok(texts_compared(categorical, other, categorical_left));
            }
            (ExprKind::Literal(Scalar::Null), _) => {
                let null = GpuExpr::literal(Scalar::Null, text);
                return Ok(texts_compared(categorical, null, categorical_left));
            }
            _ => return refused(self),
        };
        Ok(match categorical_left {
            true => (categorical, other),
            false => (other, categorical),
        })
    }
}

/// `e` as texts where it is a categorical or enum (the dictionary's texts
/// gathered by code), else as it is: how a categorical's order, and its
/// equality with texts it may lack, are compared.
pub(crate) fn as_texts(e: GpuExpr) -> GpuExpr {
    match e.dtype {
        GpuDtype::Categorical(_) => e.cast(GpuDtype::String, CastMode::Strict),
        _ => e,
    }
}

/// `categorical` and `other` (a categorical of the same dictionary, or
/// texts) as texts to compare, in their order (`categorical` first when
/// `categorical_left`).
fn texts_compared(
    categorical: GpuExpr,
    other: GpuExpr,
    categorical_left: bool,
) -> (GpuExpr, GpuExpr) {
    let (categorical, other) = (as_texts(categorical), as_texts(other));
    match categorical_left {
        true => (categorical, other),
        false => (other, categorical),
    }
}

/// `values`, texts or nulls of an `is_in` list, as the codes of
/// `dictionary`; `None` where a text is not one of its categories as the
/// plan is lowered (an enum's: Polars raises its error; a categorical's: a
/// cast in the plan may add it, so the texts are compared) or for other
/// values.
pub(crate) fn codes_of(dictionary: Dictionary, values: &[Scalar]) -> Option<Vec<Scalar>> {
    values
        .iter()
        .map(|value| match value {
            Scalar::Null => Some(Scalar::Null),
            Scalar::String(text) => dictionary.code(text).map(|code| Scalar::UInt(code.into())),
            _ => None,
        })
        .collect()
}
