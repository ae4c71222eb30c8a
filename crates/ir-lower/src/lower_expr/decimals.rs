//! Decimals: which expressions of decimals run on the GPU (their scaled integers held as i64), and their sums rewritten into parts an i64 sums exactly.

use super::*;

/// What the GPU runs of decimals, for refusals.
const DECIMALS_ON_THE_GPU: &str = "decimals run held and moved with their rows, as \
    sort, group-by and join keys, compared, added, subtracted, multiplied, divided, negated, in \
    abs, cast from and to numbers, decimals and text, rounded, tested by is_in, ranked, in \
    running extremes, and in sum, mean, median, quantile, std, var, min, max, arg_min, arg_max, \
    first, last, counts, n_unique and lists (made, exploded, measured, indexed, sliced, sorted, \
    searched, counted, compared, summed, averaged, their medians and spreads, evaluated by \
    list.eval and list.agg, their extremes and their places)";

/// 2^32, where a sum of decimals splits their scaled integers.
const HALF: i64 = 1 << 32;

fn is_decimal(expr: &GpuExpr) -> bool {
    matches!(expr.dtype, GpuDtype::Decimal(..))
}

/// Whether `expr` holds decimals: decimals, or lists of them.
fn holds_decimals(expr: &GpuExpr) -> bool {
    expr.dtype.decimal_scale().is_some()
}

/// Whether the decimals (and lists of them) among `exprs` share one scale.
fn one_scale<'e>(exprs: impl IntoIterator<Item = &'e GpuExpr>) -> bool {
    let mut scales = exprs.into_iter().filter_map(|e| e.dtype.decimal_scale());
    let first = scales.next();
    scales.all(|scale| Some(scale) == first)
}

/// Why `expr` (of decimals, its parts lowered) does not run on the GPU, or
/// `None` where it does: operations that move values or compare them
/// within one scale, and those the evaluator computes as Polars does.
fn refused(expr: &GpuExpr) -> Option<String> {
    // The values that become the expression's (or are compared): keys,
    // predicates and indices beside them may be of any type.
    let values: Vec<&GpuExpr> = match &expr.kind {
        ExprKind::Window { function, .. } => vec![function],
        ExprKind::SortedBy { input, .. }
        | ExprKind::Gather { input, .. }
        | ExprKind::SetSorted { input, .. }
        | ExprKind::Where { input, .. } => vec![input],
        ExprKind::Ternary { truthy, falsy, .. } => vec![truthy, falsy],
        _ => expr.children(),
    };
    let same_scale = one_scale(std::iter::once(expr).chain(values));
    let runs = match &expr.kind {
        // Values kept as they are, whatever their scales.
        ExprKind::IsNull(_)
        | ExprKind::IsNotNull(_)
        | ExprKind::StructField { .. }
        | ExprKind::MakeStruct(_)
        | ExprKind::WithFields { .. } => true,
        ExprKind::Column { .. }
        | ExprKind::Literal(_)
        | ExprKind::Shift { .. }
        | ExprKind::Reverse(_)
        | ExprKind::Gather { .. }
        | ExprKind::SetSorted { .. }
        | ExprKind::Where { .. }
        | ExprKind::SortedBy { .. }
        | ExprKind::Fill { .. }
        | ExprKind::Distinct { .. }
        | ExprKind::Unique { .. }
        | ExprKind::Ternary { .. }
        | ExprKind::FillNull { .. }
        | ExprKind::Window { .. }
        | ExprKind::Clip { .. }
        | ExprKind::IsBetween { .. }
        | ExprKind::IsInColumn { .. }
        | ExprKind::InLists { .. }
        | ExprKind::IsIn { .. }
        | ExprKind::Negate(_)
        | ExprKind::Abs(_)
        | ExprKind::CumExtreme { .. }
        | ExprKind::Rank { .. } => same_scale,
        ExprKind::Binary { op, left, right } => {
            let arithmetic = matches!(
                op,
                BinaryOp::Plus
                    | BinaryOp::Minus
                    | BinaryOp::Multiply
                    | BinaryOp::Divide
                    | BinaryOp::TrueDivide
            );
            is_decimal(left) && is_decimal(right) && (op.is_comparison() || arithmetic)
        }
        ExprKind::Round { mode, .. } => {
            same_scale
                && matches!(
                    mode,
                    Rounding::HalfToEven | Rounding::HalfAwayFromZero | Rounding::ToZero
                )
        }
        ExprKind::Cast { input, mode } => {
            let number = |e: &GpuExpr| e.dtype.is_numeric() || is_decimal(e);
            let text = is_decimal(input) && expr.dtype == GpuDtype::String
                || input.dtype == GpuDtype::String && is_decimal(expr);
            *mode != CastMode::Wrapping && (number(input) && number(expr) || text)
        }
        // Lists of decimals: moved, measured, indexed, sliced, sorted,
        // searched, their extremes, means and medians taken, of one scale;
        // expressions of each list's values (checked and rewritten as they
        // were lowered, over the values alone) whatever their scales.
        ExprKind::List { function, .. } => match function {
            ListFunction::Agg { .. } | ListFunction::Eval(_) => true,
            ListFunction::Len
            | ListFunction::Get { .. }
            | ListFunction::GetAt { .. }
            | ListFunction::SliceAt { .. }
            | ListFunction::Keep { .. }
            | ListFunction::Sort { .. }
            | ListFunction::Contains(_) => same_scale,
            // (Of the scaled integers, a float: see the executor's list
            // functions.)
            ListFunction::Aggregate(AggOp::Mean | AggOp::Median) => {
                same_scale && expr.dtype == GpuDtype::Float64
            }
            ListFunction::Aggregate(op) => {
                same_scale
                    && matches!(
                        op,
                        AggOp::Min { .. } | AggOp::Max { .. } | AggOp::ArgMin | AggOp::ArgMax
                    )
            }
        },
        // (Lists compared value by value, of one scale.)
        ExprKind::ConcatList(_) | ExprKind::ListsEqual { .. } => same_scale,
        ExprKind::Agg { op, .. } => match op {
            AggOp::Min { .. }
            | AggOp::Max { .. }
            | AggOp::First
            | AggOp::Last
            | AggOp::Get { .. }
            | AggOp::Item { .. } => same_scale,
            // (A sum is of precision 38 and the input's scale.)
            AggOp::Sum
            | AggOp::Count { .. }
            | AggOp::NUnique
            | AggOp::Mean
            | AggOp::Median
            | AggOp::Quantile { .. }
            | AggOp::Std { .. }
            | AggOp::Var { .. }
            | AggOp::ArgMin
            | AggOp::ArgMax => true,
            AggOp::Implode | AggOp::Mode { .. } => same_scale,
            _ => false,
        },
        _ => false,
    };
    (!runs).then(|| {
        format!(
            "{} is not supported on the GPU yet ({DECIMALS_ON_THE_GPU})",
            what(expr, same_scale)
        )
    })
}

/// The construct `expr` is, in words, for its refusal.
fn what(expr: &GpuExpr, same_scale: bool) -> String {
    let children = expr.children();
    let of = children.first().map_or(expr.dtype, |input| input.dtype);
    match &expr.kind {
        _ if !same_scale => "an operation on decimals of different scales".into(),
        ExprKind::Agg { op, .. } => format!("{op} of {of}"),
        ExprKind::List { function, .. } => format!("{} of {of}", function.name()),
        ExprKind::Cast { input, .. } => format!("a cast from {} to {}", input.dtype, expr.dtype),
        ExprKind::Binary { op, left, right } => {
            format!("`{}` of {} and {}", op.symbol(), left.dtype, right.dtype)
        }
        ExprKind::Round { mode, .. } => format!("rounding {of} {mode:?}"),
        _ => format!("this function of {of}"),
    }
}

/// `sum` of the decimals `input`, of `dtype`: as Polars sums i128s, where
/// an i64 holds the sum. The scaled integers split at 2^32 (a floor
/// quotient and a remainder below 2^32) sum exactly in i64 for frames of
/// fewer than 2^31 rows; the whole, quotient times 2^32 plus remainder, is
/// then checked into i64 as decimal arithmetic is (a sum beyond goes to
/// Polars).
pub(super) fn sum_of_decimals(input: GpuExpr, dtype: GpuDtype) -> GpuExpr {
    let int64 = GpuDtype::Int64;
    let whole = GpuDtype::Decimal(38, 0);
    let half = || GpuExpr::literal(Scalar::Int(HALF), int64);
    let split = |input: GpuExpr, op: BinaryOp| {
        input
            .cast(int64, CastMode::Physical)
            .binary(op, half(), int64)
    };
    let part_of = |input: GpuExpr, op: BinaryOp| input.within_filter(|x| split(x, op));
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
        .cast(dtype, CastMode::Physical)
}

/// `op` (a mean, median or quantile) of the decimals `input` (of `scale`),
/// a float, as Polars takes it: per group, of the values cast to floats;
/// of a whole column, of the scaled integers (as floats) divided by
/// 10^scale.
fn moment_of_decimals(op: AggOp, input: GpuExpr, scale: u8, per_group: bool) -> GpuExpr {
    let float = GpuDtype::Float64;
    if per_group {
        return input
            .within_filter(|x| x.cast(float, CastMode::NonStrict))
            .aggregated(op, float);
    }
    let divisor = 10_i128.pow(scale.into()) as f64;
    input
        .within_filter(|x| x.cast(GpuDtype::Int64, CastMode::Physical))
        .aggregated(op, float)
        .binary(
            BinaryOp::TrueDivide,
            GpuExpr::literal(Scalar::Float(divisor), float),
            float,
        )
}

/// `expr` (of decimals, its parts checked) with every node rewritten as
/// [`rewritten`] says, the innermost first: lowering may build trees whose
/// inner nodes read decimals too. Rewritten nodes read no decimals where
/// they were rewritten, so a tree rewritten again stays as it is.
fn rewritten_tree(mut expr: GpuExpr, per_group: bool) -> GpuExpr {
    for child in expr.children_mut() {
        let placeholder = GpuExpr::literal(Scalar::Null, GpuDtype::Boolean);
        let owned = std::mem::replace(child, placeholder);
        *child = rewritten_tree(owned, per_group);
    }
    rewritten(expr, per_group)
}

/// `expr` (of decimals, its parts checked) as the device computes it: sums
/// in parts, means, medians and quantiles by Polars' two paths, spreads of
/// the values as floats, negation and `abs` by checked subtraction; the
/// rest as it is.
fn rewritten(expr: GpuExpr, per_group: bool) -> GpuExpr {
    let dtype = expr.dtype;
    let zero = |dtype| GpuExpr::literal(Scalar::Int(0), dtype);
    match expr.kind {
        ExprKind::Agg { op, input } if is_decimal(&input) => match op {
            AggOp::Sum => sum_of_decimals(*input, dtype),
            AggOp::Mean | AggOp::Median | AggOp::Quantile { .. } => {
                let GpuDtype::Decimal(_, scale) = input.dtype else {
                    unreachable!("a decimal input")
                };
                moment_of_decimals(op, *input, scale, per_group)
            }
            AggOp::Std { .. } | AggOp::Var { .. } => input
                .within_filter(|x| x.cast(GpuDtype::Float64, CastMode::NonStrict))
                .aggregated(op, dtype),
            op => input.aggregated(op, dtype),
        },
        // 0 - x, checked: a negated i64::MIN is no i64.
        ExprKind::Negate(input) if is_decimal(&input) => {
            zero(input.dtype).binary(BinaryOp::Minus, *input, dtype)
        }
        ExprKind::Abs(input) if is_decimal(&input) => {
            let negative =
                (*input)
                    .clone()
                    .binary(BinaryOp::Lt, zero(input.dtype), GpuDtype::Boolean);
            let negated = zero(input.dtype).binary(BinaryOp::Minus, (*input).clone(), dtype);
            negative.then(negated, *input, dtype)
        }
        kind => GpuExpr { kind, dtype },
    }
}

impl ExprLowering<'_> {
    /// `expr` (lowered from `node`) where it reads or gives decimals: as it
    /// is, or rewritten (sums), or refused.
    pub(crate) fn with_decimals_checked(&mut self, node: Node, expr: GpuExpr) -> Lowered {
        let touches =
            |e: &GpuExpr| holds_decimals(e) || e.children().into_iter().any(holds_decimals);
        if !expr.any(&touches) {
            return Some(expr);
        }
        // Every node: lowering builds trees (`is_in` as comparisons, fills
        // as choices) whose inner nodes read decimals too.
        let mut why = None;
        expr.visit(&mut |e| {
            if why.is_none() && touches(e) {
                why = refused(e);
            }
        });
        if let Some(why) = why {
            return self.refuse(node, why);
        }
        Some(rewritten_tree(expr, self.per_group))
    }
}
