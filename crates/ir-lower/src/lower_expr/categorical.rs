//! Categoricals and enums: equality (and an enum's order) by code, a text looked up in the dictionary with nothing added; membership; what stays with Polars (a categorical's comparisons of order, texts made categories).

use super::*;

/// Why a categorical's comparisons of order stay with Polars (its sorts and
/// extremes run by its texts' ranks).
pub(crate) const CATEGORICAL_ORDER: &str =
    "Polars orders categoricals by their texts, enums by code";

/// The categorical side's codes compared with the other side: `Ok` with the
/// two sides to compare as codes, or `Err` with the lowered answer (or the
/// refusal) where the comparison is decided here.
pub(crate) type CodeSides = Result<(GpuExpr, GpuExpr), Lowered>;

impl ExprLowering<'_> {
    /// `left op right` where either side is a categorical or enum (the sides
    /// as they are where neither is): equality
    /// (and an enum's order) with the same dictionary's values, or with a
    /// text, which is its code there (a text a categorical lacks equals no
    /// value, nulls staying null, as Polars answers; one an enum lacks goes
    /// to Polars, which raises). Polars orders categoricals by their texts:
    /// their order, arithmetic and comparisons with other types stay with it.
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
        // An enum's order is its codes'.
        if !(equality || order && dictionary.is_enum()) {
            return Err(self.refuse(
                node,
                format!(
                    "{} {} {} is not supported on the GPU ({CATEGORICAL_ORDER})",
                    left.dtype,
                    op.symbol(),
                    right.dtype
                ),
            ));
        }
        let (categorical, other) = match categorical_left {
            true => (left, right),
            false => (right, left),
        };
        let other = match (&other.kind, other.dtype) {
            (_, d) if d == dtype => other,
            (ExprKind::Literal(Scalar::Null), _) => GpuExpr::literal(Scalar::Null, dtype),
            (ExprKind::Literal(Scalar::String(text)), GpuDtype::String) => {
                match dictionary.code(text) {
                    Some(code) => GpuExpr::literal(Scalar::UInt(code.into()), dtype),
                    // Polars raises its error for a text no enum value has.
                    None if dictionary.is_enum() => {
                        return Err(
                            self.refuse(node, format!("{text:?} is not a category of the enum"))
                        );
                    }
                    None => return Err(Some(absent_text(categorical, op))),
                }
            }
            _ => {
                return Err(self.refuse(
                    node,
                    format!(
                        "comparing {} with {} is not supported on the GPU",
                        categorical.dtype, other.dtype
                    ),
                ));
            }
        };
        Ok(match categorical_left {
            true => (categorical, other),
            false => (other, categorical),
        })
    }
}

/// `categorical op text` for a text the dictionary lacks: no value equals
/// it; `==` and `!=` give null for null values, `eq_missing` and
/// `ne_missing` never.
fn absent_text(categorical: GpuExpr, op: BinaryOp) -> GpuExpr {
    let boolean = GpuDtype::Boolean;
    let answer = |value: bool| GpuExpr::literal(Scalar::Boolean(value), boolean);
    let unequal = matches!(op, BinaryOp::NotEq | BinaryOp::NotEqMissing);
    let for_null = match op {
        BinaryOp::Eq | BinaryOp::NotEq => GpuExpr::literal(Scalar::Null, boolean),
        _ => answer(unequal),
    };
    categorical
        .is_null()
        .then(for_null, answer(unequal), boolean)
}

/// `values`, texts or nulls of an `is_in` list, as the codes of
/// `dictionary` (texts a categorical's lacks dropped: no value equals them;
/// `None` for an enum's, where Polars raises its error, or for other values).
pub(crate) fn codes_of(dictionary: Dictionary, values: &[Scalar]) -> Option<Vec<Scalar>> {
    let enumeration = dictionary.is_enum();
    values
        .iter()
        .filter_map(|value| match value {
            Scalar::Null => Some(Some(Scalar::Null)),
            Scalar::String(text) => match dictionary.code(text) {
                Some(code) => Some(Some(Scalar::UInt(code.into()))),
                None if enumeration => Some(None),
                None => None,
            },
            _ => Some(None),
        })
        .collect()
}
