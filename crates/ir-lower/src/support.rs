//! What the executor runs, decided once over each lowered node: the keys it sorts, groups and joins by, the aggregations its kernels take, and the rules both layers read.
//!
//! The executor's kernels take keys by their physical words: hash joins
//! integers and the types held as them, group-bys and distinct rows those
//! and texts, floats, booleans and small integers (widened), sorts
//! numbers, texts, booleans and categoricals (by their texts' ranks); it
//! computes keys row by row, before any aggregation. Its per-group
//! kernels take aggregations of some value and result types
//! ([`aggregation_types`]), others once widened ([`widened_aggregation`]);
//! its sums and means add in f64, so those of f32 (which Polars adds in
//! f32) are not its. `refusal` checks a lowered node against those
//! rules, so that a plan ir-lower accepts is one the executor takes (its
//! last check finding more is a bug); the executor reads the same rules
//! from here, and which selects give one row ([`aggregating_select`]).

use crate::dtype::GpuDtype;
use crate::expr::{AggOp, CastMode, ExprKind, GpuExpr, ListFunction, NamedExpr, Scalar};
use crate::plan::{JoinKind, PlanNode};

/// Whether `dtype` is an 8- or 16-bit integer type.
pub fn small_integer(dtype: GpuDtype) -> bool {
    matches!(
        dtype,
        GpuDtype::Int8 | GpuDtype::Int16 | GpuDtype::UInt8 | GpuDtype::UInt16
    )
}

/// Key types of hash joins.
pub fn hashable(dtype: GpuDtype) -> bool {
    matches!(
        dtype,
        GpuDtype::Int32
            | GpuDtype::Int64
            | GpuDtype::UInt32
            | GpuDtype::UInt64
            | GpuDtype::Date
            | GpuDtype::Datetime(_)
            | GpuDtype::Duration(_)
            | GpuDtype::Time
            | GpuDtype::ZonedDatetime(..)
            | GpuDtype::Categorical(_)
            | GpuDtype::Decimal(..)
    )
}

/// Physical types the comparison kernels take.
pub fn comparable(dtype: GpuDtype) -> bool {
    hashable(dtype) || dtype == GpuDtype::Float64
}

/// Types the executor groups by (and takes the distinct values of).
pub fn groupable(dtype: GpuDtype) -> bool {
    hashable(dtype) || matches!(dtype, GpuDtype::String | GpuDtype::Float64)
}

/// Types of the keys rows are grouped by (group-by, distinct rows, unique):
/// booleans too, as 0 and 1 (the Null type's all null), small integers as
/// 64-bit words, and f32 widened to f64.
pub fn group_key(dtype: GpuDtype) -> bool {
    groupable(dtype)
        || small_integer(dtype)
        || matches!(
            dtype,
            GpuDtype::Boolean | GpuDtype::Null | GpuDtype::Float32
        )
}

/// Whether rows are grouped by structs of `dtype` on the GPU: structs of
/// fields of types it groups by (not nested), their rows equal where every
/// field is (a null struct apart from a struct of null fields).
pub fn struct_key(dtype: GpuDtype) -> bool {
    let GpuDtype::Struct(of) = dtype else {
        return false;
    };
    of.fields().iter().all(|(_, field)| key_field(*field))
}

/// Whether rows are grouped by lists of `dtype` on the GPU (also joined
/// and made distinct by them; sorted: see [`list_sort_key`]): lists of
/// values of types it groups by (not nested), equal where their values
/// are one by one.
pub fn list_key(dtype: GpuDtype) -> bool {
    matches!(dtype, GpuDtype::List(of) if key_field(of.values()))
}

/// Whether rows are sorted by lists of `dtype` on the GPU: lists of keys
/// (see [`list_key`]) of values ordered as Polars' row encoding orders
/// them (not categoricals or enums, whose order it takes from their
/// dictionary), compared value by value, a list before the longer ones it
/// begins.
pub fn list_sort_key(dtype: GpuDtype) -> bool {
    matches!(dtype, GpuDtype::List(of)
        if list_key(dtype) && !matches!(of.values(), GpuDtype::Categorical(_)))
}

/// Whether rows are grouped by keys of `dtype` that are structs or lists
/// (see [`struct_key`] and [`list_key`]): by a code of each, equal where
/// the keys are.
pub fn nested_key(dtype: GpuDtype) -> bool {
    struct_key(dtype) || list_key(dtype)
}

/// Whether a struct's field of `dtype` is a key the GPU groups by (not
/// nested).
fn key_field(dtype: GpuDtype) -> bool {
    !dtype.is_nested() && group_key(widened_key_type(dtype))
}

/// The fields of `expr`, a struct made of values the GPU groups by
/// (`pl.struct(a, b)`): rows equal in every field are equal structs (it
/// is never null). `None` for any other expression.
pub fn struct_of_keys(expr: &GpuExpr) -> Option<&[GpuExpr]> {
    let ExprKind::MakeStruct(fields) = &expr.kind else {
        return None;
    };
    fields
        .iter()
        .all(|field| key_field(field.dtype))
        .then_some(fields.as_slice())
}

/// Types the radix sort orders (enums by code, categoricals by their
/// texts' ranks, as Polars orders them).
pub fn sortable(dtype: GpuDtype) -> bool {
    matches!(dtype, GpuDtype::Categorical(_)) || comparable(dtype) || dtype == GpuDtype::Float32
}

/// Types of the keys a frame is sorted by: those the radix sort orders,
/// small integers (widened), texts, booleans and the Null type.
pub fn sort_key(dtype: GpuDtype) -> bool {
    sortable(dtype)
        || small_integer(dtype)
        || matches!(dtype, GpuDtype::String | GpuDtype::Boolean | GpuDtype::Null)
}

/// Types whose least or greatest value's place (`arg_min`, `arg_max`) the
/// kernels find, compared as 64-bit words: numbers, booleans, temporal
/// values by their integers, decimals.
pub fn arg_extreme_input(dtype: GpuDtype) -> bool {
    dtype.is_numeric()
        || dtype.is_temporal()
        || matches!(dtype, GpuDtype::Boolean | GpuDtype::Decimal(..))
}

/// Whether the per-group kernels take the aggregation `op` of values of
/// type `input`, giving `output` (Polars' type for it), once
/// [`widened_aggregation`] has widened what they take as a wider type.
/// (The first or last row of a filter or in a sort's order, of any type,
/// and lists of values, are taken by their own kernels.)
pub fn aggregation_types(op: &AggOp, input: GpuDtype, output: GpuDtype) -> bool {
    let aggregable = matches!(
        input,
        GpuDtype::Int32 | GpuDtype::Int64 | GpuDtype::UInt32 | GpuDtype::UInt64 | GpuDtype::Float64
    );
    match op {
        // Polars counts the true values of booleans, as u32.
        AggOp::Sum if input == GpuDtype::Boolean => output == GpuDtype::UInt32,
        AggOp::Implode | AggOp::Mode { .. } => false,
        // Of any type: each group's first or last row, gathered.
        AggOp::First | AggOp::Last | AggOp::Item { .. } | AggOp::Get { .. } => output == input,
        // Temporals as their integers; text, booleans and small integers by
        // sorting each group.
        AggOp::Min { .. } | AggOp::Max { .. } if !input.is_float() => {
            output == input
                && (aggregable || input.is_temporal() || group_key(widened_key_type(input)))
        }
        // Durations as their integers.
        AggOp::Sum | AggOp::Min { .. } | AggOp::Max { .. } => {
            (aggregable || matches!(input, GpuDtype::Duration(_))) && output == input
        }
        AggOp::Mean => aggregable && output == GpuDtype::Float64,
        // Over i64 (u64 for u64), as Polars multiplies; floats in their
        // own type.
        AggOp::Product if input.is_float() => output == input,
        AggOp::Product => {
            (input.is_integer() || input == GpuDtype::Boolean)
                && matches!(output, GpuDtype::Int64 | GpuDtype::UInt64)
        }
        AggOp::Count { .. } => output == GpuDtype::UInt32,
        // (Of structs, of keys alone: see `struct_of_keys`; of lists of
        // keys by their codes.)
        AggOp::NUnique => {
            (groupable(input) || matches!(input, GpuDtype::Struct(_)) || list_key(input))
                && output == GpuDtype::UInt32
        }
        AggOp::Join { .. } => input == GpuDtype::String && output == GpuDtype::String,
        AggOp::ArgMin | AggOp::ArgMax => arg_extreme_input(input) && output == GpuDtype::UInt32,
        // Read as floats: small integers and booleans too.
        AggOp::Std { .. } | AggOp::Var { .. } | AggOp::Median => {
            (aggregable || small_integer(input) || input == GpuDtype::Boolean)
                && output == GpuDtype::Float64
        }
        AggOp::Quantile { quantile, .. } => {
            (aggregable || small_integer(input) || input == GpuDtype::Boolean)
                && output == GpuDtype::Float64
                && (0.0..=1.0).contains(quantile)
        }
    }
}

/// An aggregation of a type the per-group kernels do not take, as one of a
/// wider type that gives the same answer, and the type to cast its result
/// back to (`None`: it already has the aggregation's type): sums, means and
/// distinct counts of small integers over i64 (Polars sums them as i64),
/// means and distinct counts of booleans over integers, and distinct
/// counts of f32 over f64; minima and maxima of small integers over i64, of
/// booleans over u32 and of f32 over f64 (exact both ways); spreads of f32
/// over f64 (as Polars computes them), cast back.
pub fn widened_aggregation(expr: &GpuExpr) -> Option<(GpuExpr, Option<GpuDtype>)> {
    let ExprKind::Agg { op, input } = &expr.kind else {
        return None;
    };
    let small = small_integer(input.dtype);
    let boolean = input.dtype == GpuDtype::Boolean;
    let (wide, back) = match op {
        AggOp::Sum | AggOp::Mean if small => (GpuDtype::Int64, None),
        AggOp::Product if input.dtype != expr.dtype => (expr.dtype, None),
        AggOp::Mean if boolean => (GpuDtype::UInt32, None),
        AggOp::NUnique if small => (GpuDtype::Int64, None),
        AggOp::NUnique if boolean => (GpuDtype::UInt32, None),
        // Widened exactly; grouped as f64 is (NaNs one value, -0.0 with 0.0).
        AggOp::NUnique if input.dtype == GpuDtype::Float32 => (GpuDtype::Float64, None),
        // Polars' spreads of f32 are computed in f64 and cast back.
        AggOp::Min { .. } | AggOp::Max { .. } | AggOp::Std { .. } | AggOp::Var { .. }
            if input.dtype == GpuDtype::Float32 =>
        {
            (GpuDtype::Float64, Some(GpuDtype::Float32))
        }
        AggOp::Min { .. } | AggOp::Max { .. } if small => (GpuDtype::Int64, Some(input.dtype)),
        AggOp::Min { .. } | AggOp::Max { .. } if boolean => {
            (GpuDtype::UInt32, Some(GpuDtype::Boolean))
        }
        _ => return None,
    };
    // (A filter's values widened inside it: the rows kept stay in sight.)
    let wide_input = input
        .as_ref()
        .clone()
        .within_filter(|x| x.cast(wide, CastMode::NonStrict));
    let aggregated = wide_input.aggregated(op.clone(), back.map_or(expr.dtype, |_| wide));
    Some((aggregated, back))
}

/// Whether the per-group kernels do not take the aggregation `e` by the
/// types of its values and result (see [`aggregation_types`]; a filter's
/// rows other than its first or last are aggregated as the values with
/// nulls where the filter does not keep them, of the same type).
fn misfit_aggregation(e: &GpuExpr) -> bool {
    let widened = widened_aggregation(e).map(|(wide, _)| wide);
    let e = widened.as_ref().unwrap_or(e);
    let ExprKind::Agg { op, input } = &e.kind else {
        return false;
    };
    match (op, &input.kind) {
        (AggOp::Implode | AggOp::Mode { .. }, _) => false,
        // The first or last row in a sort's order, or the one at a place.
        (AggOp::First | AggOp::Last | AggOp::Get { .. }, ExprKind::SortedBy { input, .. }) => {
            e.dtype != input.dtype
        }
        // An aggregation the order does not change: of the values as they
        // come.
        (op, ExprKind::SortedBy { input: values, .. }) if order_free(op, values.dtype) => {
            misfit_aggregation(&values.as_ref().clone().aggregated(op.clone(), e.dtype))
        }
        (_, ExprKind::SortedBy { .. }) => true,
        (AggOp::First | AggOp::Last, ExprKind::Where { .. }) => false,
        _ => !aggregation_types(op, input.dtype, e.dtype),
    }
}

/// Whether the executor's kernels do not take the aggregation `e`
/// ([`misfit_aggregation`]), where a sum of f32 ([`sum_in_f32`]) is one
/// only `per_group` or of a filter: the whole frame's sum of f32 is
/// Polars' pairwise one in f32, of a filter one of Polars' own order.
fn misfit(e: &GpuExpr, per_group: bool) -> bool {
    match &e.kind {
        ExprKind::Agg { op, input } if sum_in_f32(op, input.dtype, e.dtype) => {
            per_group || input.any(&|part| matches!(part.kind, ExprKind::Where { .. }))
        }
        _ => misfit_aggregation(e),
    }
}

/// Whether `op` is a sum of f32 in f32: over a whole frame, Polars'
/// pairwise sum (`Ops::pairwise_sum`); per group no kernel takes it.
pub fn sum_in_f32(op: &AggOp, input: GpuDtype, output: GpuDtype) -> bool {
    *op == AggOp::Sum && input == GpuDtype::Float32 && output == GpuDtype::Float32
}

/// The first part of `e` (its lists' own expressions included: those of
/// `list.eval`, a list's filter or slice and, with `aggregations`,
/// `list.agg`) for which `f` holds, told whether the part is computed per
/// group: inside a window or a list's own expression, or anywhere where
/// `per_group`.
fn find_deep<'e>(
    e: &'e GpuExpr,
    aggregations: bool,
    per_group: bool,
    f: &impl Fn(&GpuExpr, bool) -> bool,
) -> Option<&'e GpuExpr> {
    if f(e, per_group) {
        return Some(e);
    }
    if let ExprKind::List { function, .. } = &e.kind
        && let Some(inner) = match function {
            ListFunction::Eval(inner) | ListFunction::Keep { by: inner, .. } => Some(inner),
            ListFunction::Agg {
                aggregation: inner, ..
            } if aggregations => Some(inner),
            _ => None,
        }
        && let Some(found) = find_deep(inner, aggregations, true, f)
    {
        return Some(found);
    }
    let per_group = per_group || matches!(e.kind, ExprKind::Window { .. });
    e.children()
        .into_iter()
        .find_map(|child| find_deep(child, aggregations, per_group, f))
}

/// Why a [`kept_list`] inside another aggregation, or beside values of
/// each row, stays with Polars.
pub(crate) const KEPT_LIST_BESIDE_ROWS: &str = "a function of the rows a filter keeps (but \
     running sums, counts, extremes and fills), aggregated, inside another aggregation or beside \
     values of each row is not supported on the GPU";

/// Whether `e` is a function of each group's (or the frame's) list of the
/// values a filter keeps, as ir-lower lowers `x.filter(p).shift(1)` inside
/// an aggregation (`lower_expr/kept_lists.rs`): one value per group, not
/// per row.
pub fn kept_list(e: &GpuExpr) -> bool {
    matches!(
        &e.kind,
        ExprKind::List { input, .. }
            if matches!(input.kind, ExprKind::Agg { op: AggOp::Implode, .. })
    )
}

/// Whether a select gives one row: no expression reads a column outside
/// an aggregation, so every one is one value (aggregations, literals, what
/// functions make of them), as Polars holds them; else, as in Polars, they
/// are repeated on every row, beside the row-wise expressions. One row
/// also of an empty frame: Polars' `select([lit(1)])` is one row there too.
pub fn aggregating_select(exprs: &[NamedExpr]) -> bool {
    !exprs.is_empty() && exprs.iter().all(|named| !reads_rows(&named.expr))
}

/// Whether `expr` reads a column outside an aggregation (or the imploded
/// column of an `is_in`), or the rows' places, or is a window (of a value
/// for each row, whatever its partition).
pub fn reads_rows(expr: &GpuExpr) -> bool {
    let row_wise = strip_aggregations(expr);
    row_wise.any(&|e| {
        e.is_places() || matches!(e.kind, ExprKind::Column { .. } | ExprKind::Window { .. })
    })
}

/// `expr` with every aggregation replaced by a null literal: what it reads
/// row by row.
fn strip_aggregations(expr: &GpuExpr) -> GpuExpr {
    let mut out = expr.clone();
    fn walk(expr: &mut GpuExpr) {
        if matches!(expr.kind, ExprKind::Agg { .. } | ExprKind::Len) {
            expr.kind = ExprKind::Literal(Scalar::Null);
            return;
        }
        // The column an `is_in` looks in is imploded: one value.
        if let ExprKind::IsInColumn { other, .. } = &mut expr.kind {
            other.kind = ExprKind::Literal(Scalar::Null);
        }
        for child in expr.children_mut() {
            walk(child);
        }
    }
    walk(&mut out);
    out
}

/// Why the executor cannot compute the row-wise expressions of `node` (a
/// with_columns, a filter, a select of a value per row): a part other
/// kernels compute from text (a parse, a comparison, a length, a match)
/// of text aggregated over the whole frame or in a window, or within a
/// list by `list.eval` or a list's filter. (It computes such parts from the
/// frame's columns before the aggregations.)
fn row_wise_refusal(node: &PlanNode) -> Option<String> {
    // Distinct values over the whole frame, where the executor takes them:
    // a select of them alone (of a column; of an expression, rewritten to
    // distinct rows, sorted too: `lower_plan/rewrites.rs`), their list
    // (`implode`), or in an aggregation (first, last, count: without the
    // `unique`); elsewhere (beside other columns, inside a row-wise
    // function, sorted inside a list) they stay with Polars.
    let exprs = match node {
        PlanNode::Select { .. } | PlanNode::WithColumns { .. } | PlanNode::Filter { .. } => {
            node.exprs()
        }
        _ => return None,
    };
    let distinct = |e: &GpuExpr| matches!(e.kind, ExprKind::Unique { .. });
    // (Of an expression, alone, the rewrite made distinct rows already.)
    let alone = matches!(node, PlanNode::Select { .. })
        && matches!(exprs.as_slice(), [e] if matches!(&e.kind,
            ExprKind::Unique { input, .. } if matches!(input.kind, ExprKind::Column { .. })));
    let sorted_distinct = |e: &GpuExpr, per_group: bool| {
        !per_group && matches!(&e.kind, ExprKind::SortedBy { input, .. } if distinct(input))
    };
    let aggregating = matches!(node, PlanNode::Select { exprs, .. } if aggregating_select(exprs));
    // Inside a row-wise function (an aggregation of them has its own
    // checks: its list, or what the lowering took without the `unique`).
    let inside = |e: &GpuExpr, per_group: bool| {
        !per_group
            && !matches!(e.kind, ExprKind::Agg { .. })
            && e.children().into_iter().any(distinct)
    };
    let refused = |e: &GpuExpr| {
        find_deep(e, false, false, &sorted_distinct).is_some()
            || (!aggregating
                && ((!alone && distinct(e)) || find_deep(e, false, false, &inside).is_some()))
    };
    if exprs.iter().any(|e| refused(e)) {
        return Some(
            "`unique` over the whole frame beside other columns or inside another expression \
             (but alone in a select, sorted there but of floats, imploded, or the first, last \
             or count of the distinct values) is not supported on the GPU"
                .into(),
        );
    }
    if aggregating {
        return None;
    }
    if exprs
        .iter()
        .any(|e| find_deep(e, false, false, &|e, _| kept_list(e)).is_some())
    {
        return Some(KEPT_LIST_BESIDE_ROWS.into());
    }
    let of_aggregated_text = |e: &GpuExpr| {
        // (A zone's local times, too: fuzz seed 2686,
        // `min(t).dt.convert_time_zone(..).dt.hour()` beside columns.)
        let zone = matches!(
            e.kind,
            ExprKind::LocalTime { .. } | ExprKind::Localized { .. }
        );
        e.dtype != GpuDtype::String
            && !matches!(
                e.kind,
                ExprKind::Agg { .. } | ExprKind::Len | ExprKind::Window { .. }
            )
            && e.children()
                .into_iter()
                .any(|child| (child.dtype == GpuDtype::String || zone) && child.has_aggregation())
    };
    let found = exprs
        .iter()
        .find_map(|e| find_deep(e, false, false, &|e, _| of_aggregated_text(e)))?;
    Some(format!(
        "`{found}`: a function of aggregated text or local times outside an aggregation is not \
         supported on the GPU"
    ))
}

/// Whether `e` is an aggregation of text made of aggregations or of other
/// rows (text is made over the whole frame, not group by group): of the values a
/// first or last row of a filter keeps (and of aggregations in its
/// predicate), of the values and the filter of a
/// list made per group, else of its whole input (not of a sort's row at a
/// place: its values are gathered).
pub fn text_of_other_rows_inside(e: &GpuExpr) -> bool {
    let ExprKind::Agg { op, input } = &e.kind else {
        return false;
    };
    let parts: Vec<&GpuExpr> = match (op, &input.kind) {
        // (Each group's row at a place of a sort: the values are gathered.)
        (AggOp::First | AggOp::Last | AggOp::Get { .. }, ExprKind::SortedBy { .. }) => Vec::new(),
        // (A predicate's text made of aggregations, too: fuzz seed 2427,
        // `x.filter(t.str.join(", ").str.starts_with("a")).last()`.)
        (AggOp::First | AggOp::Last, ExprKind::Where { input: values, by }) => {
            let aggregated_text = |e: &GpuExpr| e.dtype == GpuDtype::String && e.has_aggregation();
            if by.any(&aggregated_text) {
                return true;
            }
            vec![values]
        }
        // (A list of a text column's values moved within each group: they
        // are gathered group by group.)
        (AggOp::Implode, ExprKind::Where { input: values, by }) if text_moved_in_groups(values) => {
            vec![by]
        }
        (AggOp::Implode, ExprKind::Where { input: values, by }) => vec![values, by],
        (AggOp::Implode, _) if text_moved_in_groups(input) => Vec::new(),
        _ => vec![input],
    };
    parts.into_iter().any(per_group_text)
}

/// Whether `part` is text made of aggregations or of other rows.
pub fn per_group_text(part: &GpuExpr) -> bool {
    part.any(&|e| {
        e.dtype == GpuDtype::String && (e.has_aggregation() || e.has_part_reading_other_rows())
    })
}

/// Whether `e` is a text column's values moved within each group as a
/// whole: shifted, reversed, filled forward or backward, or sorted by keys
/// made row by row (no aggregation, nothing of other rows), which the
/// executor gathers group by group.
pub fn text_moved_in_groups(e: &GpuExpr) -> bool {
    let column = |input: &GpuExpr| {
        input.dtype == GpuDtype::String && matches!(input.kind, ExprKind::Column { .. })
    };
    match &e.kind {
        ExprKind::Shift { input, .. } | ExprKind::Reverse(input) | ExprKind::Fill { input, .. } => {
            column(input)
        }
        ExprKind::SortedBy { input, order, .. } => {
            column(input)
                && order.iter().all(|order| {
                    !order.key.has_aggregation() && !order.key.has_part_reading_other_rows()
                })
        }
        _ => false,
    }
}

/// Whether `e` orders rows by their own values (a rank, a distinctness
/// test, a sort), which an ordered window (`order_by`) does not take.
pub fn reads_in_own_order(e: &GpuExpr) -> bool {
    matches!(
        e.kind,
        ExprKind::Rank { .. } | ExprKind::Distinct { .. } | ExprKind::SortedBy { .. }
    )
}

/// `dtype` as a join's key words hold it: small integers as i64.
pub fn widened_key_type(dtype: GpuDtype) -> GpuDtype {
    if small_integer(dtype) {
        GpuDtype::Int64
    } else {
        dtype
    }
}

/// `dtype` as a join's key words hold it: small integers as i64 (as
/// [`widened_key_type`]), booleans as u32 (0 and 1) and f32 as f64 (exact),
/// so that such a key is compared beside another as integers and f64 are.
pub fn widened_join_key_type(dtype: GpuDtype) -> GpuDtype {
    match dtype {
        GpuDtype::Boolean => GpuDtype::UInt32,
        GpuDtype::Float32 => GpuDtype::Float64,
        other => widened_key_type(other),
    }
}

/// Which of a join's keys (widened) is hashed: the first of a hashable
/// type, else the first text, else the first float or boolean (compared as
/// its words); the other pairs are compared on the candidate pairs.
pub fn join_key(dtypes: &[GpuDtype]) -> Option<usize> {
    dtypes
        .iter()
        .position(|&dtype| hashable(dtype))
        .or_else(|| dtypes.iter().position(|&dtype| dtype == GpuDtype::String))
        .or_else(|| {
            dtypes.iter().position(|dtype| {
                matches!(
                    dtype,
                    GpuDtype::Float64 | GpuDtype::Float32 | GpuDtype::Boolean
                )
            })
        })
}

/// Why the executor cannot run `node` (the types of its sort, group, join
/// or distinct keys, a union's inputs, an aggregation's), in the user's
/// terms; `None` where it can. (Whether it computes the keys that are
/// expressions is the expressions' own check.)
pub(crate) fn refusal(node: &PlanNode) -> Option<String> {
    key_refusal(node)
        .or_else(|| aggregation_refusal(node))
        .or_else(|| row_wise_refusal(node))
        .or_else(|| nested_window_refusal(node))
}

/// Why the executor cannot run a window inside a window's function left
/// in `node`: the plan computes such inner windows first only for a
/// select, a with_columns and a filter (`inner_windows_first`), not for
/// keys of sorts, group-bys or joins, nor inside aggregations.
fn nested_window_refusal(node: &PlanNode) -> Option<String> {
    let nested = node.exprs().into_iter().find_map(|e| {
        let mut found = None;
        e.visit(&mut |w| {
            if let ExprKind::Window { function, .. } = &w.kind
                && function.has_window()
                && found.is_none()
            {
                found = Some(w.to_string());
            }
        });
        found
    })?;
    Some(format!(
        "`{nested}`: a window inside a window's function is not supported on the GPU \
         outside a select, with_columns or filter"
    ))
}

/// Why the executor's kernels do not take an aggregation of `node`: a sum
/// of f32 per group (over a whole frame the device adds f32 as Polars
/// does), or an aggregation of values or into a type they do not take.
fn aggregation_refusal(node: &PlanNode) -> Option<String> {
    let whole_frame = matches!(node, PlanNode::Select { .. } | PlanNode::WithColumns { .. });
    let found = node
        .exprs()
        .iter()
        .find_map(|e| find_deep(e, true, !whole_frame, &misfit))?;
    let ExprKind::Agg { op, input } = &found.kind else {
        return None;
    };
    if sum_in_f32(op, input.dtype, found.dtype) {
        return Some(format!(
            "`{found}`: a sum of f32 per group or of a filter is not supported on the GPU \
             (Polars adds such f32 values in f32, in an order of its own)"
        ));
    }
    Some(format!(
        "`{found}`: {op} of {} is not supported on the GPU",
        input.dtype
    ))
}

/// Whether `op` of values of `dtype` is the same in any order of the
/// values (so that sorting them first changes nothing): counts, `item` (of
/// one row); extremes, sums, products, medians and quantiles of other
/// values than floats (floats add and round in the order they come, and
/// which of -0.0 and 0.0 an extreme or a median gives depends on it).
pub fn order_free(op: &AggOp, dtype: GpuDtype) -> bool {
    match op {
        AggOp::Count { .. } | AggOp::NUnique | AggOp::Item { .. } => true,
        AggOp::Min { .. }
        | AggOp::Max { .. }
        | AggOp::Sum
        | AggOp::Product
        | AggOp::Median
        | AggOp::Quantile { .. } => !dtype.is_float(),
        _ => false,
    }
}

/// Why a key the executor computes may not be one Polars computes by each
/// chunk of its input ([`GpuExpr::by_chunks`]).
pub(crate) const BY_CHUNKS: &str = "which Polars computes by each chunk of its input";

/// Why the executor cannot take `node`'s keys; `None` where it can.
fn key_refusal(node: &PlanNode) -> Option<String> {
    computed_key_refusal(node).or_else(|| key_type_refusal(node))
}

/// Why the executor cannot compute a key of `node` (a sort, a group-by, a
/// join): it computes keys row by row, before any aggregation, and a
/// join's before any window.
fn computed_key_refusal(node: &PlanNode) -> Option<String> {
    let (keys, what): (Vec<&GpuExpr>, &str) = match node {
        PlanNode::Sort { keys, .. } => (keys.iter().map(|key| &key.expr).collect(), "sorting"),
        PlanNode::GroupBy { keys, .. } => (keys.iter().map(|key| &key.expr).collect(), "grouping"),
        PlanNode::Join {
            left_on, right_on, ..
        } => (left_on.iter().chain(right_on).collect(), "joining"),
        _ => return None,
    };
    let join = matches!(node, PlanNode::Join { .. });
    let key = keys
        .into_iter()
        .find(|key| key.has_aggregation() || (join && key.has_window()))?;
    let inside = match key.by_chunks() {
        true => BY_CHUNKS,
        false => "an aggregation or a window inside",
    };
    Some(format!(
        "{what} by `{key}` ({inside}) is not supported on the GPU"
    ))
}

/// Why the executor cannot take the types of `node`'s keys; `None` where it can.
fn key_type_refusal(node: &PlanNode) -> Option<String> {
    match node {
        PlanNode::Sort { keys, .. } => keys
            .iter()
            .find(|key| !(sort_key(key.expr.dtype) || list_sort_key(key.expr.dtype)))
            .map(|key| {
                format!(
                    "sorting by {} is not supported on the GPU",
                    typed_key(&key.expr)
                )
            }),
        PlanNode::GroupBy { keys, .. } => keys
            .iter()
            .find(|key| !(group_key(key.expr.dtype) || nested_key(key.expr.dtype)))
            .map(|key| {
                format!(
                    "grouping by {} is not supported on the GPU",
                    typed_key(&key.expr)
                )
            }),
        PlanNode::Distinct { schema, subset, .. } => {
            let mut columns = (0..schema.len()).filter(|&i| match subset {
                Some(subset) => subset.contains(&i),
                None => true,
            });
            let keyed = |dtype| group_key(dtype) || nested_key(dtype);
            columns.find(|&i| !keyed(schema[i].dtype)).map(|i| {
                format!(
                    "distinct rows by `{}` ({}) are not supported on the GPU",
                    schema[i].name, schema[i].dtype
                )
            })
        }
        PlanNode::Union { inputs, schema, .. } => {
            let dtypes = |schema: &crate::OutputSchema| -> Vec<GpuDtype> {
                schema.iter().map(|column| column.dtype).collect()
            };
            inputs
                .iter()
                .any(|input| dtypes(input.schema()) != dtypes(schema))
                .then(|| "a union of inputs of different types is not supported on the GPU".into())
        }
        PlanNode::Join { .. } => join_refusal(node),
        _ => None,
    }
}

/// Why the executor cannot join as `node` (a join) asks: its keys' types,
/// their pairs, or its columns.
fn join_refusal(node: &PlanNode) -> Option<String> {
    let PlanNode::Join {
        left,
        right,
        left_on,
        right_on,
        kind,
        nulls_equal,
        coalesce,
        predicate,
        schema,
        ..
    } = node
    else {
        return None;
    };
    if *kind == JoinKind::Cross {
        if !left_on.is_empty() || !right_on.is_empty() {
            return Some("a cross join on keys is not supported on the GPU".into());
        }
    } else {
        if predicate.is_some() {
            return Some(format!(
                "a {kind:?} join fused with a filter is not supported on the GPU"
            ));
        }
        if left_on.len() != right_on.len() {
            return Some("a join of unequal numbers of keys is not supported on the GPU".into());
        }
        let widened = |keys: &[GpuExpr]| -> Vec<GpuDtype> {
            keys.iter()
                .map(|key| widened_join_key_type(key.dtype))
                .collect()
        };
        let (left_types, right_types) = (widened(left_on), widened(right_on));
        // Structs and lists of keys match by codes (every key then by
        // codes).
        let structs = left_types.iter().any(|dtype| nested_key(*dtype));
        let Some(hashed) = join_key(&left_types).or(structs.then_some(0)) else {
            let types: Vec<String> = left_on.iter().map(|key| key.dtype.to_string()).collect();
            return Some(format!(
                "a join on keys of type {} is not supported on the GPU",
                types.join(", ")
            ));
        };
        // A coalesced pair becomes one column of the left's: of (a cast
        // of) a column, a small integer of a column itself (the executor
        // widens it to i64 by a cast of its own).
        let column = |e: &GpuExpr| matches!(e.kind, ExprKind::Column { .. });
        let coalescible = |key: &GpuExpr| match &key.kind {
            ExprKind::Column { .. } => true,
            ExprKind::Cast { input, .. } => !small_integer(key.dtype) && column(input),
            _ => false,
        };
        if *coalesce && let Some(key) = left_on.iter().chain(right_on).find(|key| !coalescible(key))
        {
            return Some(match &key.kind {
                ExprKind::Cast { input, .. } if column(input) => format!(
                    "a coalescing join on {input}, cast to {} (the sides' key types differ), is \
                     not supported on the GPU",
                    key.dtype
                ),
                _ => format!(
                    "a coalescing join on the computed key {} is not supported on the GPU",
                    typed_key(key)
                ),
            });
        }
        for (i, (l, r)) in left_on.iter().zip(right_on).enumerate() {
            let (lt, rt) = (left_types[i], right_types[i]);
            if lt != rt {
                return Some(format!(
                    "a join of {} with {}: keys of two types are not supported on the GPU",
                    typed_key(l),
                    typed_key(r)
                ));
            }
            if !(comparable(lt) || lt == GpuDtype::String || i == hashed || structs) {
                return Some(format!(
                    "a join on {} besides another key is not supported on the GPU",
                    typed_key(l)
                ));
            }
            if *nulls_equal && !(group_key(lt) || nested_key(lt)) {
                return Some(format!(
                    "a join on {} with nulls equal is not supported on the GPU",
                    typed_key(l)
                ));
            }
        }
    }
    // Coalesced keys merge each pair into one column; Polars keeps a key
    // column that several pairs name once.
    let dropped = if *coalesce { left_on.len() } else { 0 };
    let width = match kind {
        JoinKind::Semi | JoinKind::Anti => left.schema().len(),
        JoinKind::Cross => left.schema().len() + right.schema().len(),
        _ => (left.schema().len() + right.schema().len()).saturating_sub(dropped),
    };
    (width != schema.len()).then(|| {
        "a join coalescing keys that name a column twice is not supported on the GPU".into()
    })
}

fn typed_key(key: &GpuExpr) -> String {
    format!("`{key}` ({})", key.dtype)
}
