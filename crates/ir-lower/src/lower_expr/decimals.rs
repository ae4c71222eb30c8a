//! Decimals: which expressions of decimals run on the GPU (their scaled integers held as i64), and their sums rewritten into parts an i64 sums exactly.

use super::*;

/// What the GPU runs of decimals, for refusals.
pub(crate) const DECIMALS_ON_THE_GPU: &str = "decimals run held and moved with their rows, as \
    sort, group-by and join keys, compared, added, subtracted, multiplied, divided, cast from and \
    to numbers and decimals, and in sum, min, max, first, last, counts and n_unique";

/// 2^32, where a sum of decimals splits their scaled integers.
const HALF: i64 = 1 << 32;

fn is_decimal(expr: &GpuExpr) -> bool {
    matches!(expr.dtype, GpuDtype::Decimal(..))
}

/// Whether the decimals among `exprs` share one scale.
fn one_scale<'e>(exprs: impl IntoIterator<Item = &'e GpuExpr>) -> bool {
    let mut scales = exprs.into_iter().filter_map(|e| match e.dtype {
        GpuDtype::Decimal(_, scale) => Some(scale),
        _ => None,
    });
    let first = scales.next();
    scales.all(|scale| Some(scale) == first)
}

/// Why `expr` (of decimals, its parts lowered) does not run on the GPU, or
/// `None` where it does: operations that move values or compare them
/// within one scale, and those the evaluator computes as Polars does.
fn refused(expr: &GpuExpr) -> Option<String> {
    let values = std::iter::once(expr).chain(expr.children());
    let same_scale = one_scale(values);
    let runs = match &expr.kind {
        ExprKind::Column { .. }
        | ExprKind::Literal(_)
        | ExprKind::Shift { .. }
        | ExprKind::Reverse(_)
        | ExprKind::Gather { .. }
        | ExprKind::Where { .. }
        | ExprKind::SortedBy { .. }
        | ExprKind::Fill { .. }
        | ExprKind::IsNull(_)
        | ExprKind::IsNotNull(_)
        | ExprKind::Distinct { .. }
        | ExprKind::Unique { .. }
        | ExprKind::Ternary { .. }
        | ExprKind::FillNull { .. }
        | ExprKind::Window { .. }
        | ExprKind::CumExtreme { .. }
        | ExprKind::Rank { .. }
        | ExprKind::Clip { .. }
        | ExprKind::IsBetween { .. }
        | ExprKind::IsInColumn { .. }
        | ExprKind::StructField { .. }
        | ExprKind::MakeStruct(_) => same_scale,
        ExprKind::Binary { op, left, right } => {
            is_decimal(left)
                && is_decimal(right)
                && matches!(
                    op,
                    BinaryOp::Eq
                        | BinaryOp::NotEq
                        | BinaryOp::Lt
                        | BinaryOp::LtEq
                        | BinaryOp::Gt
                        | BinaryOp::GtEq
                        | BinaryOp::Plus
                        | BinaryOp::Minus
                        | BinaryOp::Multiply
                        | BinaryOp::Divide
                        | BinaryOp::TrueDivide
                )
        }
        ExprKind::Cast { input, mode } => {
            let number = |e: &GpuExpr| e.dtype.is_numeric() || is_decimal(e);
            *mode != CastMode::Wrapping && number(input) && number(expr)
        }
        ExprKind::Agg { op, .. } => match op {
            AggOp::Min { .. }
            | AggOp::Max { .. }
            | AggOp::First
            | AggOp::Last
            | AggOp::Get { .. }
            | AggOp::Item { .. }
            | AggOp::Sum => same_scale || matches!(op, AggOp::Sum),
            AggOp::Count { .. } | AggOp::NUnique => true,
            _ => false,
        },
        _ => false,
    };
    (!runs).then(|| {
        format!(
            "this operation on decimals is not supported on the GPU yet ({DECIMALS_ON_THE_GPU})"
        )
    })
}

/// `sum` of the decimals `input` (of `scale`), of `dtype`: as Polars sums
/// i128s, where an i64 holds the sum. The scaled integers split at 2^32
/// (a floor quotient and a remainder below 2^32) sum exactly in i64 for
/// frames of fewer than 2^31 rows; the whole, quotient times 2^32 plus
/// remainder, is then checked into i64 as decimal arithmetic is (a sum
/// beyond goes to Polars).
fn sum_of_decimals(input: GpuExpr, dtype: GpuDtype) -> GpuExpr {
    let int64 = GpuDtype::Int64;
    let whole = GpuDtype::Decimal(38, 0);
    let half = || GpuExpr::literal(Scalar::Int(HALF), int64);
    // The part of each value; of the rows kept, where a filter keeps them
    // (it stays the input of the aggregation).
    let part_of = |input: GpuExpr, op: BinaryOp| match input.kind {
        ExprKind::Where { input, by } => GpuExpr {
            kind: ExprKind::Where {
                input: Box::new(
                    input
                        .cast(int64, CastMode::Physical)
                        .binary(op, half(), int64),
                ),
                by,
            },
            dtype: int64,
        },
        _ => input
            .cast(int64, CastMode::Physical)
            .binary(op, half(), int64),
    };
    let part = |op: BinaryOp| {
        part_of(input.clone(), op)
            .aggregated(AggOp::Sum, int64)
            .cast(whole, CastMode::Physical)
    };
    let high = part(BinaryOp::FloorDivide);
    let low = part(BinaryOp::Modulus);
    let half = half().cast(whole, CastMode::Physical);
    high.binary(BinaryOp::Multiply, half, whole)
        .binary(BinaryOp::Plus, low, whole)
        .cast(int64, CastMode::Physical)
        .cast(dtype, CastMode::Physical)
}

impl ExprLowering<'_> {
    /// `expr` (lowered from `node`) where it reads or gives decimals: as it
    /// is, or rewritten (sums), or refused.
    pub(crate) fn with_decimals_checked(&mut self, node: Node, expr: GpuExpr) -> Lowered {
        if !is_decimal(&expr) && !expr.children().into_iter().any(is_decimal) {
            return Some(expr);
        }
        if let Some(why) = refused(&expr) {
            return self.refuse(node, why);
        }
        match expr.kind {
            ExprKind::Agg {
                op: AggOp::Sum,
                input,
            } => Some(sum_of_decimals(*input, expr.dtype)),
            _ => Some(expr),
        }
    }
}
