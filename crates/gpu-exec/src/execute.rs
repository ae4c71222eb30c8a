//! Running a GPU plan: one function per operator, over device frames.
//!
//! [`unsupported`] says, before anything runs, which parts of a plan the
//! executor cannot run yet; [`execute`] runs a plan that has none. Operators:
//! in-memory scans, projections, select and with_columns of elementwise
//! expressions (one fused launch each, parts other kernels run computed
//! first), filters, slices, sorts (also top-k), joins of every kind (keys
//! that are expressions computed first), group-bys, windows, distinct rows,
//! `unique` of a column, unions, hconcat and shared subplans; README.md
//! lists what each covers.

use gpu_runtime::memory::DeviceBuffer;
use gpu_runtime::ops::{
    Comparison, DeviceStrings, DfaTables, JoinIndices, JoinKind as DeviceJoin, Logic, Multipliable,
    Ops, PARSE_YEAR, Pattern, StringMatch,
};
use gpu_runtime::{Event, RuntimeError, Stream, WorkCounts};
use ir_lower::{
    AggOp, BinaryOp, CastMode, Closed, DistinctTest, ExprKind, FormatPart, GpuDtype, GpuExpr,
    GpuPlan, Held, JoinKind, JoinOrder, Keep, NamedExpr, PlanNode, RankMethod, RegexDfa, RowMatch,
    RowOrder, Scalar, StringOp, TextPattern,
};
use polars::prelude::DataFrame;
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use crate::column::{DeviceColumn, DeviceFrame, ExecContext, Values};
use crate::compile::{GroupShape, compile, reads_group_lengths};
use crate::error::ExecError;
use crate::prefetch::Prefetch;
use gpu_runtime::ops::{
    AsciiCase, ConcatPart, ExprInput, Gather, IntegerText, QuantileMethod, RankPlace, SegmentPick,
    Side, StringsRef, TypedBuffer, Word64,
};

/// Groups to compute in, where there are: the rows sorted by group and the
/// groups' first positions in that order (see [`Executor::groups`]).
type InGroups<'a> = Option<(&'a DeviceBuffer<i64>, &'a DeviceBuffer<i64>)>;

/// Every part of `plan` the executor cannot run yet, in words (empty: it can).
pub fn unsupported(plan: &GpuPlan) -> Vec<String> {
    let mut reasons = Vec::new();
    check_node(&plan.root, &mut reasons);
    reasons
}

fn not_yet(what: impl std::fmt::Display) -> String {
    format!("{what} is not executed on the device yet")
}

fn check_node(node: &PlanNode, reasons: &mut Vec<String>) {
    for input in node.inputs() {
        check_node(input, reasons);
    }
    match node {
        PlanNode::DataFrameScan { .. }
        | PlanNode::SimpleProjection { .. }
        | PlanNode::Slice { .. }
        | PlanNode::RowIndex { .. }
        | PlanNode::HConcat { .. } => {}
        PlanNode::Select { input, exprs, .. }
            if aggregating_select(exprs)
                || !matches!(select_exprs(exprs, input), Ok(Cow::Borrowed(_))) =>
        {
            match select_exprs(exprs, input) {
                Err(why) => reasons.push(not_yet(why)),
                Ok(exprs) => {
                    for named in exprs.iter() {
                        if let Err(why) = aggregation_supported(&named.expr) {
                            reasons
                                .push(not_yet(format_args!("expression `{}` ({why})", named.expr)));
                        }
                    }
                }
            }
        }
        PlanNode::Select { exprs, .. }
            if unique_of_column(exprs).is_some_and(|(key, _)| group_key(key.dtype)) => {}
        PlanNode::Select { exprs, .. } | PlanNode::WithColumns { exprs, .. } => {
            let mut seen = Vec::new();
            for named in exprs {
                let moved = matches!(node, PlanNode::Select { .. })
                    && matches!(named.expr.kind, ExprKind::Column { index, .. } if !seen.contains(&index));
                if let ExprKind::Column { index, .. } = named.expr.kind {
                    seen.push(index);
                }
                if moved {
                    continue;
                }
                if let Err(why) = evaluable(&named.expr) {
                    reasons.push(not_yet(format_args!("expression `{}` ({why})", named.expr)));
                }
            }
        }
        PlanNode::Filter { predicate, .. } => {
            if !predicate_supported(predicate) && evaluable(predicate).is_err() {
                reasons.push(not_yet(format_args!("filter predicate `{predicate}`")));
            }
        }
        PlanNode::FileScan { .. } => reasons.push(not_yet("a file scan")),
        PlanNode::Sort { keys, .. } => {
            for key in keys {
                if !computable_key(&key.expr)
                    || !(sortable(key.expr.dtype)
                        || small_integer(key.expr.dtype)
                        || matches!(key.expr.dtype, GpuDtype::String | GpuDtype::Boolean))
                {
                    reasons.push(not_yet(format_args!("sorting by `{}`", key.expr)));
                }
            }
        }
        PlanNode::GroupBy {
            keys,
            aggs,
            slice,
            maintain_order,
            ..
        } => {
            for key in keys {
                if !computable_key(&key.expr) || !group_key(key.expr.dtype) {
                    reasons.push(not_yet(format_args!("grouping by `{}`", key.expr)));
                }
            }
            for agg in aggs {
                if let Err(why) = aggregation_supported(&agg.expr) {
                    reasons.push(not_yet(format_args!("aggregation `{}` ({why})", agg.expr)));
                }
            }
            // A slice of groups in no particular order would pick other
            // groups than the CPU's.
            if slice.is_some() && !maintain_order {
                reasons.push(not_yet("a sliced group-by without maintain_order"));
            }
        }
        PlanNode::Join {
            left,
            right,
            left_on,
            right_on,
            kind,
            nulls_equal,
            coalesce,
            predicate,
            slice,
            order,
            schema,
            ..
        } => {
            // The device's order of rows: the left rows in order, each with
            // its right rows in order (a right join: the other way round; a
            // full join: that, then the left rows that matched nothing).
            let ordered = match kind {
                JoinKind::Right => {
                    matches!(
                        order,
                        JoinOrder::None | JoinOrder::Right | JoinOrder::RightLeft
                    )
                }
                JoinKind::Full => *order == JoinOrder::None,
                _ => matches!(
                    order,
                    JoinOrder::None | JoinOrder::Left | JoinOrder::LeftRight
                ),
            };
            if !ordered {
                reasons.push(not_yet(format_args!(
                    "{kind:?} join keeping the order {order:?}"
                )));
            }
            // Small integers as i64 (see `widened_key`).
            let (left_on, right_on) = (widened_keys(left_on), widened_keys(right_on));
            let (left_on, right_on) = (&left_on, &right_on);
            // One key pair is hashed; any others are compared on the
            // candidate pairs (texts too).
            let hashed = join_key(left_on);
            // Keys are columns or row-wise expressions (computed first);
            // coalesced ones are (casts of) columns.
            let key_fits = |key: &GpuExpr| {
                computable_key(key) && !key.has_window() && (!*coalesce || key_column(key).is_ok())
            };
            let pairs_fit = left_on.len() == right_on.len()
                && left_on.iter().zip(right_on).enumerate().all(|(i, (l, r))| {
                    key_fits(l)
                        && key_fits(r)
                        && l.dtype == r.dtype
                        && (comparable(l.dtype) || l.dtype == GpuDtype::String || Some(i) == hashed)
                });
            let keys_fit = if *kind == JoinKind::Cross {
                left_on.is_empty() && right_on.is_empty()
            } else {
                pairs_fit && hashed.is_some()
            };
            let dropped = if *coalesce { left_on.len() } else { 0 };
            let width = match kind {
                JoinKind::Semi | JoinKind::Anti => Some(left.schema().len()),
                JoinKind::Inner | JoinKind::Left | JoinKind::Right | JoinKind::Full => {
                    Some(left.schema().len() + right.schema().len() - dropped)
                }
                JoinKind::Cross => Some(left.schema().len() + right.schema().len()),
            };
            let predicate_fits = match predicate {
                None => true,
                Some(p) => {
                    *kind == JoinKind::Cross && (predicate_supported(p) || evaluable(p).is_ok())
                }
            };
            if !keys_fit
                || (*nulls_equal && !left_on.iter().all(|key| group_key(key.dtype)))
                || !predicate_fits
                // A full join's rows come in no particular order: a slice
                // would pick other rows than the CPU's.
                || (slice.is_some() && *kind == JoinKind::Full)
                || width != Some(schema.len())
            {
                let types: Vec<String> = left_on.iter().map(|k| k.dtype.to_string()).collect();
                reasons.push(not_yet(format_args!(
                    "join ({kind:?}, on {} key(s) of type {})",
                    left_on.len(),
                    types.join(", ")
                )));
            }
        }
        PlanNode::Distinct { input, subset, .. } => {
            for key in distinct_keys(input.schema(), subset.as_deref()) {
                if !group_key(key.dtype) {
                    reasons.push(not_yet(format_args!("distinct rows by `{key}`")));
                }
            }
        }
        PlanNode::Union { inputs, schema, .. } => {
            let dtypes = |schema: &ir_lower::OutputSchema| -> Vec<GpuDtype> {
                schema.iter().map(|column| column.dtype).collect()
            };
            if inputs
                .iter()
                .any(|input| dtypes(input.schema()) != dtypes(schema))
            {
                reasons.push(not_yet("a union of inputs of different types"));
            }
        }
        PlanNode::Cache { .. } => {}
    }
}

/// Whether a select gives one row: no expression reads a column outside
/// an aggregation, so every one is one value (aggregations, literals, what
/// functions make of them), as Polars holds them; else, as in Polars, they
/// are repeated on every row, beside the row-wise expressions. One row
/// also of an empty frame: Polars' `select([lit(1)])` is one row there too.
fn aggregating_select(exprs: &[NamedExpr]) -> bool {
    !exprs.is_empty() && exprs.iter().all(|named| !reads_rows(&named.expr))
}

/// Whether `expr` reads a column outside an aggregation (or the imploded
/// column of an `is_in`).
fn reads_rows(expr: &GpuExpr) -> bool {
    !reads_only_below(&strip_aggregations(expr), 0)
}

/// The columns of `input` that Polars holds at one row: those a with_columns
/// without broadcasting (Polars' common subexpressions) computes by
/// whole-column aggregations. The executor holds them repeated on every row.
fn one_row_columns(input: &PlanNode) -> Vec<usize> {
    let (computed, _) = one_row_computed(input);
    computed.into_iter().map(|(index, _)| index).collect()
}

/// The one-row columns of `input` (see [`one_row_columns`]) whose
/// aggregation reads only columns the with_columns keeps as they are (at
/// the same places), with that aggregation: over the with_columns' output
/// it gives the same value.
fn one_row_definitions(input: &PlanNode) -> Vec<(usize, &GpuExpr)> {
    let (computed, kept) = one_row_computed(input);
    computed
        .into_iter()
        .filter(|(_, definition)| {
            let mut reads_kept = true;
            definition.visit(&mut |e| {
                if let ExprKind::Column { index, .. } = e.kind {
                    reads_kept &= kept.contains(&index);
                }
            });
            reads_kept
        })
        .collect()
}

/// Each one-row column of `input` with the aggregation that computes it;
/// and the columns the with_columns keeps as they are (at the same places).
fn one_row_computed(input: &PlanNode) -> (Vec<(usize, &GpuExpr)>, Vec<usize>) {
    let PlanNode::WithColumns {
        input: below,
        exprs: computed,
        broadcast: false,
        schema,
    } = input
    else {
        return (Vec::new(), Vec::new());
    };
    let kept = below
        .schema()
        .iter()
        .enumerate()
        .filter(|(index, column)| {
            schema
                .get(*index)
                .is_some_and(|out| out.name == column.name)
                && !computed.iter().any(|c| c.name == column.name.as_str())
        })
        .map(|(index, _)| index)
        .collect();
    let one_row = schema
        .iter()
        .enumerate()
        .filter_map(|(index, output)| {
            let definition = computed
                .iter()
                .find(|c| c.name == output.name.as_str() && split_aggregations(&c.expr).is_ok())?;
            Some((index, &definition.expr))
        })
        .collect();
    (one_row, kept)
}

/// `expr` over `input` with its reads of the columns Polars holds at one row
/// (see [`one_row_columns`]) marked [`Held::Once`], which Polars'
/// arithmetic treats as scalars.
fn marking_one_row_reads<'e>(expr: &'e GpuExpr, input: &PlanNode) -> Cow<'e, GpuExpr> {
    let one_row = one_row_columns(input);
    if one_row.is_empty() {
        return Cow::Borrowed(expr);
    }
    let mut marked = expr.clone();
    mark_held(&mut marked, Held::Once, |index| one_row.contains(&index));
    Cow::Owned(marked)
}

/// Marks the reads in `expr` of the columns `marked` picks as `held`.
fn mark_held(expr: &mut GpuExpr, held: Held, marked: impl Fn(usize) -> bool) {
    expr.visit_mut(&mut |e| {
        if let ExprKind::Column { index, held: h, .. } = &mut e.kind
            && marked(*index)
        {
            *h = held;
        }
    });
}

/// The expressions of a select over `input` as they must run. A
/// with_columns without broadcasting (Polars' common subexpressions) keeps
/// a column computed by whole-column aggregations at one row, which the
/// executor holds repeated on every row. When every expression reads such
/// columns only (outside aggregations), the select is one row: those reads
/// become `first(column)` (`Owned`). `Err` when that row cannot be made
/// (an expression of literals only beside them).
fn select_exprs<'e>(
    exprs: &'e [NamedExpr],
    input: &PlanNode,
) -> Result<Cow<'e, [NamedExpr]>, String> {
    let whole_column = |expr: &GpuExpr| split_aggregations(expr).is_ok();
    let scalar = one_row_columns(input);
    if scalar.is_empty() {
        return Ok(Cow::Borrowed(exprs));
    }
    let definitions = one_row_definitions(input);
    let first_of_scalars = |expr: &mut GpuExpr| {
        fn walk(expr: &mut GpuExpr, scalar: &[usize], definitions: &[(usize, &GpuExpr)]) {
            match &expr.kind {
                // Inside an aggregation a column is read row by row.
                ExprKind::Agg { .. } | ExprKind::Len => return,
                ExprKind::Column { index, .. } if scalar.contains(index) => {
                    let index = *index;
                    // Its aggregation again (of no rows too, which gives
                    // a value: the first of no rows would be null), else
                    // its first row.
                    *expr = match definitions.iter().find(|(i, _)| *i == index) {
                        Some((_, definition)) => (*definition).clone(),
                        None => {
                            let column = expr.clone();
                            GpuExpr {
                                dtype: column.dtype,
                                kind: ExprKind::Agg {
                                    op: AggOp::First,
                                    input: Box::new(column),
                                },
                            }
                        }
                    };
                    return;
                }
                _ => {}
            }
            for child in expr.children_mut() {
                walk(child, scalar, definitions);
            }
        }
        walk(expr, &scalar, &definitions);
    };
    let rewritten: Vec<NamedExpr> = exprs
        .iter()
        .map(|named| {
            let mut named = named.clone();
            first_of_scalars(&mut named.expr);
            named
        })
        .collect();
    if rewritten.iter().any(|named| reads_rows(&named.expr)) {
        // Row-wise: the one-row columns broadcast, as the executor holds them.
        return Ok(Cow::Borrowed(exprs));
    }
    if rewritten.iter().all(|named| whole_column(&named.expr)) {
        Ok(Cow::Owned(rewritten))
    } else {
        Err("a select of literals beside common subexpressions".into())
    }
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

/// Physical types the comparison kernels take.
fn comparable(dtype: GpuDtype) -> bool {
    hashable(dtype) || dtype == GpuDtype::Float64
}

/// Whether [`Executor::evaluate`] runs `expr`: the evaluator alone, or
/// after the predicate kernels computed the boolean parts it cannot run
/// (string comparisons and matches, `is_in` of strings).
fn evaluable(expr: &GpuExpr) -> Result<(), String> {
    if expr.dtype == GpuDtype::String {
        return string_valued(expr);
    }
    if expr.has_aggregation() {
        // Whole-column aggregations, broadcast to every row.
        // (Numbered above any input column, so no predicate part reads them.)
        let (outer, leaves) = hoist_aggregations(expr, usize::MAX / 2, true)?;
        for leaf in &leaves {
            single_aggregation_supported(leaf)?;
        }
        return evaluable(&outer);
    }
    let Err(why) = compile(expr, None) else {
        return Ok(());
    };
    // A window the executor does not compute says why itself.
    let mut window = Ok(());
    expr.visit(&mut |e| {
        if window.is_ok() && matches!(e.kind, ExprKind::Window { .. }) {
            window = if e.dtype == GpuDtype::String {
                string_valued(e)
            } else {
                window_supported(e)
            };
        }
    });
    window?;
    // Where the hoisted columns go does not matter to the compiler.
    let (outer, hoisted) = hoist_parts(expr, usize::MAX / 4 * 3, usize::MAX / 4);
    if hoisted.is_empty() {
        return Err(why);
    }
    compile(&outer, None).map(|_| ())
}

/// Whether a sort, group or partition key is a column, or a row-wise
/// expression the executor computes first.
fn computable_key(key: &GpuExpr) -> bool {
    is_column(key) || (!key.has_aggregation() && evaluable(key).is_ok())
}

/// The function, partition keys and order of the window `expr`.
fn window_parts(expr: &GpuExpr) -> Option<(&GpuExpr, &[GpuExpr], Option<&RowOrder>)> {
    match &expr.kind {
        ExprKind::Window {
            function,
            partition_by,
            order_by,
        } => Some((function, partition_by, order_by.as_ref())),
        _ => None,
    }
}

/// Whether the executor computes the window `expr`: partitions by columns
/// it groups, and a function it evaluates with its aggregations, shifts,
/// fills and `cum_sum`s taken per group (no window inside).
fn window_supported(expr: &GpuExpr) -> Result<(), String> {
    let Some((function, partition_by, order_by)) = window_parts(expr) else {
        return Err(format!("`{expr}` is not a window"));
    };
    partition_supported(partition_by, order_by, function)?;
    if function.has_window() {
        return Err(format!("a window inside the window `{expr}`"));
    }
    if function.dtype == GpuDtype::String {
        return Err(format!("a text-valued window `{expr}`"));
    }
    evaluable(function)
}

/// Whether the executor sorts rows by the keys of `order`: columns or
/// row-wise expressions (no window inside) of types it sorts and groups by.
fn sort_keys_supported(order: &[RowOrder]) -> Result<(), String> {
    for order in order {
        let key = order.key.as_ref();
        if !computable_key(key) || key.has_window() || !group_key(widened_key(key).dtype) {
            return Err(format!("rows sorted by `{key}`"));
        }
    }
    Ok(())
}

/// Whether the executor groups rows by the window keys `partition_by`
/// (and orders each partition by `order_by`): columns or row-wise
/// expressions of types it groups by. In an ordered window, ranks and
/// distinctness tests of `function` (which read the rows in their own
/// order) are refused.
fn partition_supported(
    partition_by: &[GpuExpr],
    order_by: Option<&RowOrder>,
    function: &GpuExpr,
) -> Result<(), String> {
    let order_key = order_by.map(|order| order.key.as_ref());
    for key in partition_by.iter().chain(order_key) {
        // (A window inside a key would be a window inside the window.)
        if !computable_key(key) || key.has_window() || !group_key(key.dtype) {
            return Err(format!("a window partitioned or ordered by `{key}`"));
        }
    }
    if order_by.is_some()
        && function.any(&|e| {
            matches!(
                e.kind,
                ExprKind::Rank { .. } | ExprKind::Distinct { .. } | ExprKind::SortedBy { .. }
            )
        })
    {
        return Err(format!(
            "a rank, distinctness test or sort in the ordered window of `{function}`"
        ));
    }
    Ok(())
}

/// Whether the executor computes `expr`, a part that depends on the order
/// of the rows (a shift, a forward or backward fill, a `cum_sum`, a
/// `cum_max` or `cum_min`, a rank, a distinctness test), of an
/// expression it evaluates (or makes, for text) row by row, with no
/// aggregation or window inside. (Inside a window or an aggregation it is
/// computed within each group, in the rows' order.)
fn row_order_part_supported(expr: &GpuExpr) -> Result<(), String> {
    let (ExprKind::Shift { input, .. }
    | ExprKind::Reverse(input)
    | ExprKind::Fill { input, .. }
    | ExprKind::CumSum(input)
    | ExprKind::CumExtreme { input, .. }
    | ExprKind::Rank { input, .. }
    | ExprKind::Distinct { input, .. }
    | ExprKind::SortedBy { input, .. }
    | ExprKind::IsInColumn { input, .. }) = &expr.kind
    else {
        return Err(format!("`{expr}` does not read other rows"));
    };
    if let ExprKind::IsInColumn { other, .. } = &expr.kind {
        if other.has_aggregation() || other.has_window() {
            return Err(format!("membership in `{other}`"));
        }
        if !group_key(widened_key(input).dtype) {
            return Err(format!("`{expr}` of {}", input.dtype));
        }
        evaluable(other)?;
    }
    if input.has_aggregation() || input.has_window() {
        return Err(format!("a shift or fill of aggregated values (`{expr}`)"));
    }
    if let ExprKind::SortedBy { order, .. } = &expr.kind {
        if let Some(order) = order.iter().find(|order| order.key.has_aggregation()) {
            return Err(format!("rows sorted by `{}`", order.key));
        }
        sort_keys_supported(order)?;
    }
    if matches!(expr.kind, ExprKind::Distinct { .. } | ExprKind::Rank { .. })
        && !group_key(widened_key(input).dtype)
    {
        return Err(format!("`{expr}` of {}", input.dtype));
    }
    // Evaluated, or for text made by the string kernels.
    evaluable(input)
}

/// Whether `expr` is a cast of text the device makes to an integer or a
/// float type (parsed by [`Executor::parsed_numbers`]).
fn text_parse_supported(expr: &GpuExpr) -> bool {
    match &expr.kind {
        ExprKind::Cast { input, .. } => {
            input.dtype == GpuDtype::String
                && (integer_bounds(expr.dtype).is_some()
                    || matches!(expr.dtype, GpuDtype::Float32 | GpuDtype::Float64))
                && string_valued(input).is_ok()
        }
        ExprKind::ParseTemporal { input, .. } => string_valued(input).is_ok(),
        _ => false,
    }
}

/// The least and the greatest value of an integer type.
fn integer_bounds(dtype: GpuDtype) -> Option<(i64, u64)> {
    Some(match dtype {
        GpuDtype::Int8 => (i8::MIN.into(), i8::MAX as u64),
        GpuDtype::Int16 => (i16::MIN.into(), i16::MAX as u64),
        GpuDtype::Int32 => (i32::MIN.into(), i32::MAX as u64),
        GpuDtype::Int64 => (i64::MIN, i64::MAX as u64),
        GpuDtype::UInt8 => (0, u8::MAX.into()),
        GpuDtype::UInt16 => (0, u16::MAX.into()),
        GpuDtype::UInt32 => (0, u32::MAX.into()),
        GpuDtype::UInt64 => (0, u64::MAX),
        _ => return None,
    })
}

/// The order [`Executor::pick_in_order`] picks in: of the values
/// themselves, or of keys (each with its direction and nulls' place), with
/// the sort (`SortedBy`) whose unstable order leaves rows equal on every key
/// to Polars, if it is one.
#[derive(Debug, Clone, Copy)]
enum PickOrder<'a> {
    Values { descending: bool, nulls_last: bool },
    Keys(&'a [(&'a GpuExpr, bool, bool)], Option<&'a GpuExpr>),
}

/// How [`Executor::concatenated`] joins its inputs' texts.
#[derive(Debug, Clone, Copy)]
enum Joining<'a> {
    /// Polars' `concat_str`.
    Concat {
        separator: &'a str,
        ignore_nulls: bool,
    },
    /// The first that is not null (`coalesce`, `fill_null`).
    Coalesce,
}

/// The 64-bit type scans take values of `dtype` as: floats as f64,
/// unsigned integers and booleans as u64, the others as i64.
fn word_dtype(dtype: GpuDtype) -> GpuDtype {
    if dtype.is_float() {
        GpuDtype::Float64
    } else if dtype.is_unsigned() || dtype == GpuDtype::Boolean {
        GpuDtype::UInt64
    } else {
        GpuDtype::Int64
    }
}

/// Column `index` (of a frame made for the purpose), unnamed, of `dtype`.
fn column_ref(index: usize, dtype: GpuDtype) -> GpuExpr {
    GpuExpr::column(index, String::new(), dtype)
}

/// A text column named `name` of `strings`.
fn strings_column(name: &str, strings: DeviceStrings) -> DeviceColumn {
    let DeviceStrings {
        offsets,
        bytes,
        validity,
    } = strings;
    let height = offsets.len().saturating_sub(1);
    DeviceColumn::from_parts(
        name.into(),
        GpuDtype::String,
        height,
        Values::Str { offsets, bytes },
        Some(validity),
    )
}

/// The tables of a regular expression's DFA, as the kernels take them.
fn dfa_tables(dfa: &RegexDfa) -> DfaTables<'_> {
    DfaTables {
        classes: dfa.classes(),
        transitions: dfa.transitions(),
        flags: dfa.flags(),
        starts: dfa.starts(),
    }
}

/// A pattern to count, find or replace, as the kernels take it.
fn device_pattern(pattern: &TextPattern) -> Pattern<'_> {
    match pattern {
        TextPattern::Literal(text) => Pattern::Literal(text),
        TextPattern::Regex(dfa) => Pattern::Anchored(dfa_tables(dfa)),
    }
}

/// Whether [`Executor::make_strings`] makes the strings of `expr`: a
/// column, or `str.slice` of such an expression.
fn string_valued(expr: &GpuExpr) -> Result<(), String> {
    match &expr.kind {
        ExprKind::Column { .. } => Ok(()),
        ExprKind::String {
            op:
                StringOp::Slice { .. }
                | StringOp::DropLast(_)
                | StringOp::ToUppercase
                | StringOp::ToLowercase
                | StringOp::Strip { .. }
                | StringOp::Replace { .. }
                | StringOp::Extract(_)
                | StringOp::Pad { .. },
            input,
        } => string_valued(input),
        ExprKind::Shift { .. }
        | ExprKind::Reverse(_)
        | ExprKind::Fill { .. }
        | ExprKind::SortedBy { .. } => row_order_part_supported(expr),
        // A shift or fill of text within groups, or an aggregation of text
        // per group, repeated on the group's rows.
        ExprKind::Window {
            function,
            partition_by,
            order_by,
        } if matches!(
            function.kind,
            ExprKind::Shift { .. }
                | ExprKind::Reverse(_)
                | ExprKind::Fill { .. }
                | ExprKind::SortedBy { .. }
                | ExprKind::Agg { .. }
        ) =>
        {
            partition_supported(partition_by, order_by.as_ref(), function)?;
            match function.kind {
                ExprKind::Agg { .. } => single_aggregation_supported(function),
                _ => row_order_part_supported(function),
            }
        }
        ExprKind::Window { .. } if let Some(distributed) = window_distributed(expr) => {
            string_valued(&distributed)
        }
        // An aggregation of text over the whole frame, repeated on every row.
        ExprKind::Agg { .. } => single_aggregation_supported(expr),
        ExprKind::Strftime { input, .. } => evaluable(input),
        ExprKind::Cast { input, .. }
            if input.dtype.is_numeric()
                || matches!(
                    input.dtype,
                    GpuDtype::Boolean | GpuDtype::Date | GpuDtype::Datetime(_)
                ) =>
        {
            evaluable(input)
        }
        ExprKind::FillNull { input, value } => {
            text_part(input)?;
            text_part(value)
        }
        ExprKind::Ternary {
            predicate,
            truthy,
            falsy,
        } => {
            evaluable(predicate)?;
            text_part(truthy)?;
            text_part(falsy)
        }
        ExprKind::ConcatStr { inputs, .. } => inputs.iter().try_for_each(text_part),
        // A text (or null) literal repeated on every row.
        ExprKind::Literal(Scalar::String(_) | Scalar::Null) => Ok(()),
        _ => Err(format!(
            "`{expr}` makes strings the device does not make yet"
        )),
    }
}

/// A window of a text function that works row by row at its top (a
/// `when/then`, `fill_null`, `concat_str` or string operation) as that
/// function of its inputs, each input that aggregates or reads other rows
/// in the same window: `over` gives each row the function of its own row's
/// inputs, so the two agree. `None` for any other expression.
fn window_distributed(expr: &GpuExpr) -> Option<GpuExpr> {
    let (function, partition_by, order_by) = window_parts(expr)?;
    if !matches!(
        function.kind,
        ExprKind::Ternary { .. }
            | ExprKind::FillNull { .. }
            | ExprKind::ConcatStr { .. }
            | ExprKind::String { .. }
    ) {
        return None;
    }
    let mut distributed = function.clone();
    for input in distributed.children_mut() {
        if input.has_aggregation() || input.has_part_reading_other_rows() {
            let dtype = input.dtype;
            let function = Box::new(std::mem::replace(
                input,
                GpuExpr::literal(Scalar::Null, dtype),
            ));
            *input = GpuExpr {
                kind: ExprKind::Window {
                    function,
                    partition_by: partition_by.to_vec(),
                    order_by: order_by.cloned(),
                },
                dtype,
            };
        }
    }
    Some(distributed)
}

/// Whether [`Executor::concatenated`] takes `input`: text it makes, or a
/// text literal.
fn text_part(input: &GpuExpr) -> Result<(), String> {
    match &input.kind {
        ExprKind::Literal(Scalar::String(_) | Scalar::Null) => Ok(()),
        _ if input.dtype == GpuDtype::String => string_valued(input),
        _ => Err(format!("`{input}` is not text")),
    }
}

/// Polars' `str.to_uppercase` of every character above ASCII, as Rust's
/// `char::to_uppercase` maps it (up to three characters; context-free):
/// the sorted code points that change, and three code points for each, 0
/// ending a shorter mapping. Built once per process.
fn uppercase_table() -> &'static (Vec<u32>, Vec<u32>) {
    static TABLE: std::sync::OnceLock<(Vec<u32>, Vec<u32>)> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| char_mapping(|c| c.to_uppercase().map(u32::from).collect()))
}

/// The characters above ASCII that `map` changes, sorted, and three code
/// points for each (0 ends a shorter mapping): a table for
/// `Ops::string_map_chars`.
fn char_mapping(map: impl Fn(char) -> Vec<u32>) -> (Vec<u32>, Vec<u32>) {
    let (mut from, mut to) = (Vec::new(), Vec::new());
    for c in (0x80..=0x10FFFFu32).filter_map(char::from_u32) {
        let mapped = map(c);
        if mapped != [u32::from(c)] {
            from.push(u32::from(c));
            to.extend((0..3).map(|i| mapped.get(i).copied().unwrap_or(0)));
        }
    }
    (from, to)
}

/// What the device needs for Polars' `str.to_lowercase`.
struct LowercaseTables {
    /// Characters above ASCII whose `char::to_lowercase` differs, sorted,
    /// and three code points for each (0 ends a shorter mapping).
    from: Vec<u32>,
    to: Vec<u32>,
    /// Case-ignorable characters, sorted: skipped when a capital sigma looks
    /// for its neighbours.
    ignorable: Vec<u32>,
    /// Cased characters that are not case-ignorable, sorted.
    cased: Vec<u32>,
}

/// The tables of Polars' `str.to_lowercase`, built once per process. The
/// mapping is Rust's `char::to_lowercase`, which Polars applies to every
/// character but the capital sigma. For that one Polars follows Unicode's
/// final-sigma rule, which needs the Case_Ignorable and Cased properties;
/// they are read off Polars' own lower case, by probing every character c
/// in three contexts: "AcΣ" gives a final sigma when c is case-ignorable or
/// cased, "cΣ" when c is cased and not case-ignorable, and "AΣc" when c is
/// case-ignorable or not cased.
fn lowercase_tables() -> &'static LowercaseTables {
    use polars::prelude::{NewChunkedArray, StringChunked, StringNameSpaceImpl};
    static TABLES: std::sync::OnceLock<LowercaseTables> = std::sync::OnceLock::new();
    TABLES.get_or_init(|| {
        let (from, to) = char_mapping(|c| c.to_lowercase().map(u32::from).collect());
        let chars: Vec<char> = (0..=0x10FFFFu32).filter_map(char::from_u32).collect();
        let final_sigma = |probe: &dyn Fn(char) -> String, at: &dyn Fn(&str) -> Option<char>| {
            let probes: Vec<String> = chars.iter().map(|&c| probe(c)).collect();
            let texts = StringChunked::from_slice("".into(), &probes);
            texts
                .to_lowercase()
                .iter()
                .map(|text| text.and_then(at) == Some('ς'))
                .collect::<Vec<bool>>()
        };
        let last = |text: &str| text.chars().last();
        let second = |text: &str| text.chars().nth(1);
        let after_cased_or_ignorable = final_sigma(&|c| format!("A{c}Σ"), &last);
        let after_cased = final_sigma(&|c| format!("{c}Σ"), &last);
        let before_uncased_or_ignorable = final_sigma(&|c| format!("AΣ{c}"), &second);
        let (mut ignorable, mut cased) = (Vec::new(), Vec::new());
        for (i, &c) in chars.iter().enumerate() {
            if after_cased_or_ignorable[i] && !after_cased[i] && before_uncased_or_ignorable[i] {
                ignorable.push(u32::from(c));
            } else if after_cased[i] {
                cased.push(u32::from(c));
            }
        }
        LowercaseTables {
            from,
            to,
            ignorable,
            cased,
        }
    })
}

/// Whether `expr` is the byte or character length of a text column, or the
/// number or first offset of matches of a literal text in it (a part the
/// string kernels compute for the evaluator).
fn is_text_measure(expr: &GpuExpr) -> bool {
    matches!(
        &expr.kind,
        ExprKind::String {
            op: StringOp::LenBytes
                | StringOp::LenChars
                | StringOp::CountMatches(_)
                | StringOp::Find(_),
            input,
        } if input.dtype == GpuDtype::String && string_valued(input).is_ok()
    ) && expr.dtype == GpuDtype::UInt32
}

/// A predicate the predicate kernels run once its text operands, of which
/// at least one is text the device makes (not a column), are made: those
/// operands, and the predicate reading them as the columns of a frame of
/// their own (in order).
fn computed_text_predicate(expr: &GpuExpr) -> Option<(Vec<&GpuExpr>, GpuExpr)> {
    let text = |e: &GpuExpr| e.dtype == GpuDtype::String && !is_literal(e);
    let texts: Vec<&GpuExpr> = match &expr.kind {
        ExprKind::String { input, .. } | ExprKind::IsIn { input, .. } => vec![input],
        ExprKind::Binary { left, right, .. } => [&**left, &**right]
            .into_iter()
            .filter(|e| text(e))
            .collect(),
        ExprKind::MatchesRow { input, pattern, .. } => vec![input, pattern],
        _ => return None,
    };
    let computed = |e: &GpuExpr| !is_column(e);
    if texts.is_empty()
        || !texts.iter().any(|e| computed(e))
        || texts.iter().any(|e| string_valued(e).is_err())
    {
        return None;
    }
    let column = |index| column_ref(index, GpuDtype::String);
    let mut rewritten = expr.clone();
    match &mut rewritten.kind {
        ExprKind::String { input, .. } | ExprKind::IsIn { input, .. } => **input = column(0),
        ExprKind::MatchesRow { input, pattern, .. } => {
            **input = column(0);
            **pattern = column(1);
        }
        ExprKind::Binary { left, right, .. } => {
            let mut next = 0;
            for side in [left, right] {
                if text(side) {
                    **side = column(next);
                    next += 1;
                }
            }
        }
        _ => return None,
    }
    predicate_supported(&rewritten).then_some((texts, rewritten))
}

/// `expr` with each part the evaluator cannot run but other kernels can
/// (boolean parts the predicate kernels run, lengths of text, windows), reading
/// only the frame's `width` columns, replaced by a column, the i-th by
/// column `first + i`, and those parts.
fn hoist_parts(expr: &GpuExpr, first: usize, width: usize) -> (GpuExpr, Vec<GpuExpr>) {
    fn walk(expr: &mut GpuExpr, first: usize, width: usize, hoisted: &mut Vec<GpuExpr>) {
        let predicate = expr.dtype == GpuDtype::Boolean
            && compile(expr, None).is_err()
            && predicate_supported(expr);
        let window = window_supported(expr).is_ok();
        let row_order = expr.dtype != GpuDtype::String && row_order_part_supported(expr).is_ok();
        let text_predicate = computed_text_predicate(expr).is_some();
        if (predicate
            || window
            || row_order
            || text_predicate
            || is_text_measure(expr)
            || text_parse_supported(expr))
            && reads_only_below(expr, width)
        {
            let index = first + hoisted.len();
            let column = GpuExpr::column(index, format!("__part_{}", hoisted.len()), expr.dtype);
            hoisted.push(std::mem::replace(expr, column));
            return;
        }
        for child in expr.children_mut() {
            walk(child, first, width, hoisted);
        }
    }
    let mut outer = expr.clone();
    let mut hoisted = Vec::new();
    walk(&mut outer, first, width, &mut hoisted);
    (outer, hoisted)
}

/// A select of only `unique(column)`: the column and whether the values keep
/// the order of their first appearance.
fn unique_of_column(exprs: &[NamedExpr]) -> Option<(&GpuExpr, bool)> {
    match exprs {
        [named] => match &named.expr.kind {
            ExprKind::Unique {
                input,
                maintain_order,
            } if is_column(input) => Some((input, *maintain_order)),
            _ => None,
        },
        _ => None,
    }
}

/// The columns (of a frame of `schema`) whose values make rows duplicates:
/// `subset`, or all.
fn distinct_keys(schema: &ir_lower::OutputSchema, subset: Option<&[usize]>) -> Vec<GpuExpr> {
    let column =
        |index: usize| GpuExpr::column(index, schema[index].name.to_string(), schema[index].dtype);
    match subset {
        Some(subset) => subset
            .iter()
            .copied()
            .filter(|&i| i < schema.len())
            .map(column)
            .collect(),
        None => (0..schema.len()).map(column).collect(),
    }
}

/// Whether every column `expr` reads is one of the first `width`.
fn reads_only_below(expr: &GpuExpr, width: usize) -> bool {
    let mut below = true;
    expr.visit(&mut |e| {
        if let ExprKind::Column { index, .. } = e.kind {
            below &= index < width;
        }
    });
    below
}

/// Whether the executor runs `expr` per group: aggregations the kernels
/// run (see [`single_aggregation_supported`]), alone or inside an
/// elementwise expression of them and literals (`0.2 * mean(x)`).
fn aggregation_supported(expr: &GpuExpr) -> Result<(), String> {
    if matches!(expr.kind, ExprKind::Agg { .. } | ExprKind::Len) {
        return single_aggregation_supported(expr);
    }
    let (outer, leaves) = split_aggregations(expr)?;
    if outer.has_part_reading_other_rows() {
        // Polars shifts each group's one value.
        return Err(format!("a shift or fill of aggregations (`{expr}`)"));
    }
    for leaf in &leaves {
        single_aggregation_supported(leaf)?;
    }
    evaluable(&outer)
}

/// `expr` with each aggregation in it replaced by a column of a frame of
/// their results (the i-th aggregation by column i), and the aggregations.
/// Columns outside an aggregation are an error: per group they are lists.
fn split_aggregations(expr: &GpuExpr) -> Result<(GpuExpr, Vec<GpuExpr>), String> {
    hoist_aggregations(expr, 0, false)
}

/// `expr` with each aggregation in it replaced by a column, the i-th by
/// column `first + i`, and the aggregations; with `keep_columns`, columns
/// outside aggregations stay (the row-wise context: aggregations broadcast).
fn hoist_aggregations(
    expr: &GpuExpr,
    first: usize,
    keep_columns: bool,
) -> Result<(GpuExpr, Vec<GpuExpr>), String> {
    fn walk(
        expr: &mut GpuExpr,
        first: usize,
        keep_columns: bool,
        leaves: &mut Vec<GpuExpr>,
    ) -> Result<(), String> {
        match expr.kind {
            ExprKind::Agg { .. } | ExprKind::Len => {
                let index = leaves.len();
                let result =
                    GpuExpr::column(first + index, format!("__aggregation_{index}"), expr.dtype);
                leaves.push(std::mem::replace(expr, result));
                Ok(())
            }
            ExprKind::Column { .. } if !keep_columns => {
                Err(format!("`{expr}` outside an aggregation"))
            }
            // A window aggregates within itself: in a row-wise expression it
            // is a part computed first (see `hoist_parts`).
            ExprKind::Window { .. } if keep_columns => Ok(()),
            ExprKind::Window { .. } => Err(format!("a window (`{expr}`) among aggregations")),
            _ => expr
                .children_mut()
                .into_iter()
                .try_for_each(|child| walk(child, first, keep_columns, leaves)),
        }
    }
    let mut outer = expr.clone();
    let mut leaves = Vec::new();
    walk(&mut outer, first, keep_columns, &mut leaves)?;
    if leaves.is_empty() && keep_columns {
        return Err("no aggregation".into());
    }
    // Without columns, no leaf is a constant: one value per group (or for
    // the frame), as Polars holds a literal.
    Ok((outer, leaves))
}

/// Whether the per-group kernels run `expr`: `len()`, or one aggregation of
/// an elementwise expression, with the output type the kernels give.
fn single_aggregation_supported(expr: &GpuExpr) -> Result<(), String> {
    if let Some((wide, _)) = widened_aggregation(expr) {
        return single_aggregation_supported(&wide);
    }
    let ExprKind::Agg { op, input } = &expr.kind else {
        return if matches!(expr.kind, ExprKind::Len) {
            Ok(())
        } else {
            Err("not a single aggregation".into())
        };
    };
    if let ExprKind::SortedBy {
        input: sorted,
        order,
        ..
    } = &input.kind
    {
        // The first or last row in the key's order, of any type.
        if !matches!(op, AggOp::First | AggOp::Last) || expr.dtype != sorted.dtype {
            return Err(format!("{op} of `{input}`"));
        }
        sort_keys_supported(order)?;
        return evaluable(sorted);
    }
    if let Some(rewritten) = filter_as_nulls(expr) {
        return single_aggregation_supported(&rewritten);
    }
    if let ExprKind::Where { input: kept, by } = &input.kind {
        // The first or last row the filter keeps, of any type.
        if !matches!(op, AggOp::First | AggOp::Last) || expr.dtype != kept.dtype {
            return Err(format!("{op} of the filter `{input}`"));
        }
        if by.dtype != GpuDtype::Boolean {
            return Err(format!("a filter by `{by}`"));
        }
        evaluable(by)?;
        return evaluable(kept);
    }
    // Aggregations inside are per group, repeated on the group's rows;
    // shifts, fills and `cum_sum`s are within the group, in the rows' order.
    evaluable(input)?;
    // Text is made over the whole frame: not of values repeated per group,
    // nor of other rows within each group.
    let per_group_text = |e: &GpuExpr| {
        e.dtype == GpuDtype::String && (e.has_aggregation() || e.has_part_reading_other_rows())
    };
    if input.any(&per_group_text) {
        return Err(format!(
            "text made of aggregations or of other rows (`{input}`) inside an aggregation"
        ));
    }
    let aggregable = matches!(
        input.dtype,
        GpuDtype::Int32 | GpuDtype::Int64 | GpuDtype::UInt32 | GpuDtype::UInt64 | GpuDtype::Float64
    );
    let fits = match op {
        // Polars counts the true values of booleans, as u32.
        AggOp::Sum if input.dtype == GpuDtype::Boolean => expr.dtype == GpuDtype::UInt32,
        // Of any type: each group's first or last row, gathered.
        AggOp::First | AggOp::Last | AggOp::Item { .. } => expr.dtype == input.dtype,
        // Temporals as their integers; text, booleans and small integers by
        // sorting each group.
        AggOp::Min { .. } | AggOp::Max { .. } if !input.dtype.is_float() => {
            expr.dtype == input.dtype
                && (aggregable || input.dtype.is_temporal() || group_key(widened_key(input).dtype))
        }
        // Durations as their integers.
        AggOp::Sum | AggOp::Min { .. } | AggOp::Max { .. } => {
            (aggregable || matches!(input.dtype, GpuDtype::Duration(_)))
                && expr.dtype == input.dtype
        }
        AggOp::Mean => aggregable && expr.dtype == GpuDtype::Float64,
        // Over i64 (u64 for u64), as Polars multiplies.
        AggOp::Product => {
            (input.dtype.is_integer() || input.dtype == GpuDtype::Boolean)
                && matches!(expr.dtype, GpuDtype::Int64 | GpuDtype::UInt64)
        }
        AggOp::Count { .. } => expr.dtype == GpuDtype::UInt32,
        AggOp::NUnique => groupable(input.dtype) && expr.dtype == GpuDtype::UInt32,
        AggOp::Join { .. } => input.dtype == GpuDtype::String && expr.dtype == GpuDtype::String,
        // Compared as 64-bit words: temporals by their integers.
        AggOp::ArgMin | AggOp::ArgMax => {
            (aggregable
                || small_integer(input.dtype)
                || input.dtype.is_temporal()
                || matches!(input.dtype, GpuDtype::Boolean | GpuDtype::Float32))
                && expr.dtype == GpuDtype::UInt32
        }
        // Read as floats: small integers and booleans too.
        AggOp::Std { .. } | AggOp::Var { .. } | AggOp::Median => {
            (aggregable || small_integer(input.dtype) || input.dtype == GpuDtype::Boolean)
                && expr.dtype == GpuDtype::Float64
        }
        AggOp::Quantile { quantile, method } => {
            (aggregable || small_integer(input.dtype) || input.dtype == GpuDtype::Boolean)
                && expr.dtype == GpuDtype::Float64
                && (0.0..=1.0).contains(quantile)
                && QuantileMethod::from_name(method).is_some()
        }
    };
    if fits {
        Ok(())
    } else {
        Err(format!("{op} of {} into {}", input.dtype, expr.dtype))
    }
}

/// An aggregation other than `first` or `last` of a filter's kept rows
/// (`ExprKind::Where`) as the same aggregation of the input with null where
/// the filter does not keep the row: per group the two agree (the
/// aggregations skip nulls). `None` for any other expression.
fn filter_as_nulls(expr: &GpuExpr) -> Option<GpuExpr> {
    let ExprKind::Agg { op, input } = &expr.kind else {
        return None;
    };
    let ExprKind::Where { input: kept, by } = &input.kind else {
        return None;
    };
    if matches!(op, AggOp::First | AggOp::Last) {
        return None;
    }
    let null = GpuExpr::literal(Scalar::Null, kept.dtype);
    let nulled = by
        .as_ref()
        .clone()
        .then(kept.as_ref().clone(), null, kept.dtype);
    Some(GpuExpr {
        kind: ExprKind::Agg {
            op: op.clone(),
            input: Box::new(nulled),
        },
        dtype: expr.dtype,
    })
}

/// The column of `frame` that `input` names, as it is, where aggregating
/// it by `op` may read it in place instead of a copy made by the expression
/// kernel: a reference to a column of every row, of its type, of numbers
/// the reductions take (whose kernels skip null rows whatever value they
/// hold).
fn column_as_is<'f>(
    frame: &'f DeviceFrame,
    input: &GpuExpr,
    op: &AggOp,
) -> Option<&'f DeviceColumn> {
    let ExprKind::Column {
        index,
        held: Held::PerRow,
        ..
    } = &input.kind
    else {
        return None;
    };
    let reads_in_place = matches!(
        op,
        AggOp::Sum
            | AggOp::Product
            | AggOp::Mean
            | AggOp::Min { .. }
            | AggOp::Max { .. }
            | AggOp::First
            | AggOp::Last
            | AggOp::Count { .. }
    );
    let column = frame.columns.get(*index)?;
    let numbers = matches!(
        column.values(),
        Values::I32(_) | Values::I64(_) | Values::U32(_) | Values::U64(_) | Values::F64(_)
    );
    (reads_in_place && numbers && column.dtype == input.dtype && column.len() == frame.height)
        .then_some(column)
}

/// Each group's product of the valid `values` (1 for none), the rows
/// taken in group order (`sorted_rows`; `None`: the values are in that
/// order already, as a whole frame's one group is).
fn group_products<T: Multipliable + Gather>(
    ops: &Ops<'_>,
    values: &DeviceBuffer<T>,
    validity: Option<&DeviceBuffer<u32>>,
    sorted_rows: Option<&DeviceBuffer<i64>>,
    starts: &DeviceBuffer<i64>,
) -> Result<DeviceBuffer<T>, RuntimeError> {
    let Some(sorted_rows) = sorted_rows else {
        return ops.segment_product(values, validity, starts);
    };
    let (sorted, valid) = ops.gather(values, validity, sorted_rows)?;
    ops.segment_product(&sorted, Some(&valid), starts)
}

/// Whether `count`, a u64 number of valid values, is above zero.
fn some_valid(count: GpuExpr) -> GpuExpr {
    let zero = GpuExpr::literal(Scalar::UInt(0), GpuDtype::UInt64);
    count.binary(BinaryOp::Gt, zero, GpuDtype::Boolean)
}

/// Whether `dtype` is an 8- or 16-bit integer type.
fn small_integer(dtype: GpuDtype) -> bool {
    matches!(
        dtype,
        GpuDtype::Int8 | GpuDtype::Int16 | GpuDtype::UInt8 | GpuDtype::UInt16
    )
}

/// An aggregation of a type the per-group kernels do not take, as one of a
/// wider type that gives the same answer, and the type to cast its result
/// back to (`None`: it already has the aggregation's type): sums, means and
/// distinct counts of small integers over i64 (Polars sums them as i64),
/// means and distinct counts of booleans over integers, and distinct
/// counts of f32 over f64; minima and maxima of small integers over i64, of
/// booleans over u32 and of f32 over f64 (exact both ways).
fn widened_aggregation(expr: &GpuExpr) -> Option<(GpuExpr, Option<GpuDtype>)> {
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
        AggOp::Min { .. } | AggOp::Max { .. } if input.dtype == GpuDtype::Float32 => {
            (GpuDtype::Float64, Some(GpuDtype::Float32))
        }
        AggOp::Min { .. } | AggOp::Max { .. } if small => (GpuDtype::Int64, Some(input.dtype)),
        AggOp::Min { .. } | AggOp::Max { .. } if boolean => {
            (GpuDtype::UInt32, Some(GpuDtype::Boolean))
        }
        _ => return None,
    };
    let aggregated = GpuExpr {
        kind: ExprKind::Agg {
            op: op.clone(),
            input: Box::new(cast_to(input, wide)),
        },
        dtype: back.map_or(expr.dtype, |_| wide),
    };
    Some((aggregated, back))
}

/// Which of a join's keys the hash table is built on: the first hashable
/// one, else the first text key (as dense integer codes), else the first
/// float or boolean key (as integer keys, see `Executor::hashable_key`).
fn join_key(keys: &[GpuExpr]) -> Option<usize> {
    keys.iter()
        .position(|key| hashable(key.dtype))
        .or_else(|| keys.iter().position(|key| key.dtype == GpuDtype::String))
        .or_else(|| {
            keys.iter().position(|key| {
                matches!(
                    key.dtype,
                    GpuDtype::Float64 | GpuDtype::Float32 | GpuDtype::Boolean
                )
            })
        })
}

/// Key types of hash joins.
fn hashable(dtype: GpuDtype) -> bool {
    matches!(
        dtype,
        GpuDtype::Int32
            | GpuDtype::Int64
            | GpuDtype::UInt32
            | GpuDtype::UInt64
            | GpuDtype::Date
            | GpuDtype::Datetime(_)
            | GpuDtype::Duration(_)
    )
}

/// Types the executor groups by (and takes the distinct values of).
fn groupable(dtype: GpuDtype) -> bool {
    hashable(dtype) || matches!(dtype, GpuDtype::String | GpuDtype::Float64)
}

/// Types of the keys rows are grouped by (group-by, distinct rows, unique):
/// booleans too, as 0 and 1, small integers as 64-bit words, and f32
/// widened to f64.
fn group_key(dtype: GpuDtype) -> bool {
    groupable(dtype)
        || small_integer(dtype)
        || matches!(dtype, GpuDtype::Boolean | GpuDtype::Float32)
}

/// `expr` as a key the sorts and groups take: small integers widened to
/// i64 (which keeps their order and equality).
fn widened_key(expr: &GpuExpr) -> GpuExpr {
    if small_integer(expr.dtype) {
        cast_to(expr, GpuDtype::Int64)
    } else {
        expr.clone()
    }
}

/// Each key as [`widened_key`] makes it.
fn widened_keys(keys: &[GpuExpr]) -> Vec<GpuExpr> {
    keys.iter().map(widened_key).collect()
}

/// `expr` cast to `dtype` (Polars' non-strict cast).
fn cast_to(expr: &GpuExpr, dtype: GpuDtype) -> GpuExpr {
    GpuExpr {
        kind: ExprKind::Cast {
            input: Box::new(expr.clone()),
            mode: CastMode::NonStrict,
        },
        dtype,
    }
}

/// Types the radix sort orders.
fn sortable(dtype: GpuDtype) -> bool {
    comparable(dtype) || dtype == GpuDtype::Float32
}

fn comparison(op: BinaryOp) -> Option<Comparison> {
    Some(match op {
        BinaryOp::Eq => Comparison::Eq,
        BinaryOp::NotEq => Comparison::NotEq,
        BinaryOp::Lt => Comparison::Lt,
        BinaryOp::LtEq => Comparison::LtEq,
        BinaryOp::Gt => Comparison::Gt,
        BinaryOp::GtEq => Comparison::GtEq,
        _ => return None,
    })
}

/// `b op a` as `a op' b`.
fn mirrored(op: Comparison) -> Comparison {
    match op {
        Comparison::Lt => Comparison::Gt,
        Comparison::LtEq => Comparison::GtEq,
        Comparison::Gt => Comparison::Lt,
        Comparison::GtEq => Comparison::LtEq,
        other => other,
    }
}

fn is_column(expr: &GpuExpr) -> bool {
    matches!(expr.kind, ExprKind::Column { .. })
}

fn is_literal(expr: &GpuExpr) -> bool {
    matches!(expr.kind, ExprKind::Literal(_))
}

fn predicate_supported(expr: &GpuExpr) -> bool {
    match &expr.kind {
        ExprKind::Column { .. } => expr.dtype == GpuDtype::Boolean,
        ExprKind::Binary { op, left, right } => match op {
            BinaryOp::And | BinaryOp::Or => {
                expr.dtype == GpuDtype::Boolean
                    && predicate_supported(left)
                    && predicate_supported(right)
            }
            _ if left.dtype == GpuDtype::String => {
                comparison(*op).is_some()
                    && right.dtype == GpuDtype::String
                    && ((is_column(left) && (is_literal(right) || is_column(right)))
                        || (is_literal(left) && is_column(right)))
            }
            _ => {
                comparison(*op).is_some()
                    && left.dtype == right.dtype
                    && comparable(left.dtype)
                    && (is_column(left) || is_column(right))
                    && (is_column(left) || is_literal(left))
                    && (is_column(right) || is_literal(right))
            }
        },
        ExprKind::Not(input) => input.dtype == GpuDtype::Boolean && predicate_supported(input),
        ExprKind::MatchesRow { input, pattern, .. } => {
            is_column(input) && is_column(pattern) && pattern.dtype == GpuDtype::String
        }
        ExprKind::IsNull(input) | ExprKind::IsNotNull(input) => is_column(input),
        ExprKind::IsBetween {
            input,
            lower,
            upper,
            ..
        } => {
            is_column(input)
                && comparable(input.dtype)
                && is_literal(lower)
                && is_literal(upper)
                && lower.dtype == input.dtype
                && upper.dtype == input.dtype
        }
        ExprKind::IsIn {
            input,
            values,
            nulls_equal: false,
        } => {
            is_column(input)
                && !values.is_empty()
                && (comparable(input.dtype) || input.dtype == GpuDtype::String)
        }
        ExprKind::String {
            op:
                StringOp::StartsWith(_)
                | StringOp::EndsWith(_)
                | StringOp::Contains(_)
                | StringOp::ContainsPattern(_)
                | StringOp::ContainsRegex(_),
            input,
        } => is_column(input) && input.dtype == GpuDtype::String,
        _ => false,
    }
}

/// Runs `plan` on the device and brings the result back.
pub fn execute(plan: &GpuPlan, ctx: &ExecContext) -> Result<DataFrame, ExecError> {
    execute_counting(plan, ctx).map(|(df, _)| df)
}

/// [`execute`], also giving how many in-memory inputs were uploaded ahead
/// of their use (see `ExecContext::copy_stream`).
fn execute_counting(plan: &GpuPlan, ctx: &ExecContext) -> Result<(DataFrame, usize), ExecError> {
    let reasons = unsupported(plan);
    if !reasons.is_empty() {
        return Err(ExecError::Unsupported(reasons.join("; ")));
    }
    let mut uses = HashMap::new();
    count_cache_uses(&plan.root, &mut uses);
    let profiling = std::env::var(PROFILE_VAR).is_ok_and(|v| !matches!(v.trim(), "" | "0"));
    let fresh = || {
        RefCell::new(Shared {
            uses: uses.clone(),
            frames: HashMap::new(),
            checks: Vec::new(),
            profile: profiling.then(Profile::default),
        })
    };
    let run = |shared: &RefCell<Shared>, uploads: Option<&Uploads>| {
        Executor {
            ctx,
            shared,
            uploads,
        }
        .run(&plan.root)
    };
    let scans = scans_in_order(&plan.root);
    let copy_stream = ctx.copy_stream.as_ref().filter(|_| scans.len() > 1);
    let mut shared = fresh();
    let (frame, uploaded_ahead) = match copy_stream {
        Some(copy_stream) if prefetching() => {
            let uploads = Prefetch::new(scans.iter().map(|(key, ..)| *key).collect(), 1);
            let copy_ctx = ExecContext {
                memory: ctx.memory.clone(),
                stream: copy_stream.clone(),
                side_stream: None,
                copy_stream: None,
            };
            let ahead = std::thread::scope(|s| {
                s.spawn(|| {
                    uploads.work(|key| {
                        let (_, df, projection) = scans.iter().find(|(k, ..)| *k == key)?;
                        let frame = DeviceFrame::from_dataframe(df, Some(projection), &copy_ctx);
                        let made = Event::new();
                        // An input the worker cannot make (out of memory,
                        // say) is the executor's to make, or fail on.
                        made.record(copy_stream).ok()?;
                        Some((frame.ok()?, made))
                    })
                });
                let frame = run(&shared, Some(&uploads));
                uploads.stop();
                frame.map(|frame| (frame, uploads.taken()))
            });
            drop(uploads);
            match ahead {
                // An input uploaded ahead holds device memory before the
                // plan needs it: a plan that runs out of memory so runs
                // again, from the start, with each input uploaded when the
                // executor reaches it (what it held of the first try is
                // freed first).
                Err(ExecError::Runtime(RuntimeError::OutOfMemory { .. })) => {
                    shared = fresh();
                    run(&shared, None).map(|frame| (frame, 0))
                }
                other => other,
            }
        }
        _ => run(&shared, None).map(|frame| (frame, 0)),
    }?;
    let started = std::time::Instant::now();
    let df = held_as_polars_holds(frame.to_dataframe()?, &plan.root)?;
    if let Some(profile) = &shared.borrow().profile {
        eprintln!("{}", profile.render(started.elapsed(), df.height()));
        eprintln!(
            "{uploaded_ahead} of {} in-memory inputs uploaded ahead of their use",
            scans.len()
        );
    }
    // The result is on the host, so every launch has finished.
    for (flag, what, failure) in &shared.borrow().checks {
        if flag.to_host()?.first().is_some_and(|&failed| failed != 0) {
            return Err(failure(what.clone()));
        }
    }
    Ok((df, uploaded_ahead))
}

/// `df`, the result of `root`, held as Polars' engine holds its own result
/// of that node: the columns of one value repeated on every row as
/// `Column::Scalar` (a select's or with_columns' expressions of one value
/// beside per-row ones), a sort's first key marked sorted. Polars' engine,
/// running the rest of a mixed plan, treats such columns apart.
fn held_as_polars_holds(mut df: DataFrame, root: &PlanNode) -> Result<DataFrame, ExecError> {
    // Polars marks the first key column of a sort as sorted, and its
    // engine then takes paths of its own (groups as slices) over it.
    if let PlanNode::Sort { keys, .. } = root
        && let Some(first) = keys.first()
        && let ExprKind::Column { index, .. } = first.expr.kind
        && let Some(name) = root.schema().get(index).map(|c| c.name.clone())
    {
        let flag = if first.descending {
            polars::series::IsSorted::Descending
        } else {
            polars::series::IsSorted::Ascending
        };
        df.apply(name.as_str(), |column| {
            let mut column = column.clone();
            column.set_sorted_flag(flag);
            column
        })?;
        return Ok(df);
    }
    let exprs = match root {
        PlanNode::Select { exprs, .. } if !aggregating_select(exprs) => exprs,
        PlanNode::WithColumns {
            exprs,
            broadcast: true,
            ..
        } => exprs,
        _ => return Ok(df),
    };
    let height = df.height();
    if height == 0 {
        return Ok(df);
    }
    for named in exprs.iter().filter(|named| !reads_rows(&named.expr)) {
        let Ok(column) = df.column(&named.name) else {
            continue;
        };
        let value = column.get(0)?.into_static();
        let scalar = polars::prelude::Scalar::new(column.dtype().clone(), value);
        let held = polars::prelude::Column::new_scalar(named.name.as_str().into(), scalar, height);
        df.with_column(held)?;
    }
    Ok(df)
}

/// Set to `0`, a plan's in-memory inputs are uploaded when the executor
/// reaches them, instead of ahead of their use on a copy stream while the
/// executor computes (the default, where the context has a copy stream).
pub const PREFETCH_VAR: &str = "POLARS_GPU_PREFETCH";

fn prefetching() -> bool {
    std::env::var(PREFETCH_VAR).map_or(true, |v| v.trim() != "0")
}

/// Inputs uploaded ahead on the copy stream, each with the event that
/// marks its copies' end there.
type Uploads = Prefetch<(DeviceFrame, Event)>;

/// The plan's in-memory scans in the order the executor reaches them
/// (inputs depth first, left to right; a shared subplan once), each keyed
/// by its node's address.
fn scans_in_order(root: &PlanNode) -> Vec<(usize, &DataFrame, &[usize])> {
    fn walk<'p>(
        node: &'p PlanNode,
        seen: &mut HashSet<&'p str>,
        out: &mut Vec<(usize, &'p DataFrame, &'p [usize])>,
    ) {
        match node {
            PlanNode::DataFrameScan { df, projection, .. } => {
                out.push((scan_key(node), df, projection));
            }
            PlanNode::Cache { id, .. } if !seen.insert(id) => {}
            _ => {
                for input in node.inputs() {
                    walk(input, seen, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(root, &mut HashSet::new(), &mut out);
    out
}

/// The key of an in-memory scan among the uploads made ahead: its node's
/// address, the same for the plan's walk and the executor's.
fn scan_key(node: &PlanNode) -> usize {
    std::ptr::from_ref(node) as usize
}

/// How many times each shared subplan (`PlanNode::Cache`, by id) is used.
fn count_cache_uses(node: &PlanNode, uses: &mut HashMap<String, usize>) {
    if let PlanNode::Cache { id, .. } = node {
        *uses.entry(id.clone()).or_default() += 1;
        if uses[id] > 1 {
            // Its subplan is counted once: it runs once.
            return;
        }
    }
    for input in node.inputs() {
        count_cache_uses(input, uses);
    }
}

/// The results of shared subplans, kept on the device between their uses.
/// What the executors of one plan share, whichever stream they run on.
struct Shared {
    /// Uses of each shared subplan (cache) not served yet.
    uses: HashMap<String, usize>,
    /// Results of shared subplans, with the stream that made them, until
    /// their last use.
    frames: HashMap<String, (DeviceFrame, Stream)>,
    /// The failure flag of every launch that checks values (strict casts),
    /// with what it checks and the error a raised flag gives (invalid data,
    /// or values the device cannot answer for as Polars would); read once
    /// the result is on the host.
    checks: Vec<Check>,
    /// Per-node times, when `POLARS_GPU_PROFILE` asks for them.
    profile: Option<Profile>,
}

/// A failure flag, what it checks, and the error it gives when raised.
type Check = (DeviceBuffer<u32>, String, fn(String) -> ExecError);

/// Set (to anything but `0`), every plan node's time, kernel launches and
/// host waits are written to stderr after each GPU query: the stream is
/// synchronized after each node, so the times add up to more than an
/// unprofiled run and say where it goes (the waits shown leave out those
/// synchronizations).
pub const PROFILE_VAR: &str = "POLARS_GPU_PROFILE";

/// Each plan node's time and work, in the order the nodes started
/// (`POLARS_GPU_PROFILE`).
#[derive(Default)]
struct Profile {
    depth: usize,
    nodes: Vec<ProfiledNode>,
}

struct ProfiledNode {
    depth: usize,
    /// The node's line.
    line: String,
    /// With its inputs'.
    time: std::time::Duration,
    rows: usize,
    /// Launches and host waits with its inputs', the profile's
    /// synchronization after each node of the subtree included.
    work: WorkCounts,
}

impl Profile {
    /// The nodes as an indented tree, each with its time, its own time
    /// (without its inputs'), its rows, and its own launches and host waits
    /// (without the profile's synchronizations), then the download.
    fn render(&self, download: std::time::Duration, rows: usize) -> String {
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        let mut out = String::from(
            "GPU profile (total ms, own ms, rows, own launches, own host waits, node):\n",
        );
        for (i, node) in self.nodes.iter().enumerate() {
            let inputs: Vec<&ProfiledNode> = self.nodes[i + 1..]
                .iter()
                .take_while(|input| input.depth > node.depth)
                .filter(|input| input.depth == node.depth + 1)
                .collect();
            let time: std::time::Duration = inputs.iter().map(|input| input.time).sum();
            let launches: u64 = inputs.iter().map(|input| input.work.launches).sum();
            let waits: u64 = inputs.iter().map(|input| input.work.host_waits).sum();
            let line: String = node.line.chars().take(110).collect();
            out += &format!(
                "{:>9.2} {:>9.2} {:>10} {:>8} {:>6}  {}{line}\n",
                ms(node.time),
                ms(node.time.saturating_sub(time)),
                node.rows,
                node.work.launches.saturating_sub(launches),
                // Less the profile's own synchronization after this node.
                node.work.host_waits.saturating_sub(waits + 1),
                "  ".repeat(node.depth)
            );
        }
        out + &format!(
            "{:>9.2} {:>9} {rows:>10} {:>8} {:>6}  download of the result",
            ms(download),
            "",
            "",
            ""
        )
    }
}

struct Executor<'a> {
    ctx: &'a ExecContext,
    shared: &'a RefCell<Shared>,
    /// The plan's in-memory inputs, uploaded ahead, when they are.
    uploads: Option<&'a Uploads>,
}

/// Rows grouped by their keys.
struct Groups {
    /// Every row, ordered by the keys (stable: each group in row order).
    sorted_rows: DeviceBuffer<i64>,
    /// Where each group starts in `sorted_rows`.
    starts: DeviceBuffer<i64>,
    /// The first row of each group, in the input's numbering.
    first_rows: DeviceBuffer<i64>,
}

/// A sort or group key as the radix sort takes it.
enum KeyWords<'a> {
    /// A numeric or temporal column, sorted as it is.
    Column(&'a DeviceColumn),
    /// u64 words the radix sort orders as they are, most significant first,
    /// and the column's validity: a string column's key words
    /// (`Ops::string_sort_keys`), or a grouped float column's total-order
    /// keys (equal exactly when Polars groups the floats together).
    Words(Vec<DeviceBuffer<u64>>, Option<&'a DeviceBuffer<u32>>),
}

/// A boolean column: bits and validity, owned or borrowed from a frame.
enum Mask<'a> {
    Borrowed(&'a DeviceBuffer<u32>, Option<&'a DeviceBuffer<u32>>),
    Owned(DeviceBuffer<u32>, Option<DeviceBuffer<u32>>),
}

impl Mask<'_> {
    fn parts(&self) -> (&DeviceBuffer<u32>, Option<&DeviceBuffer<u32>>) {
        match self {
            Mask::Borrowed(bits, validity) => (bits, *validity),
            Mask::Owned(bits, validity) => (bits, validity.as_ref()),
        }
    }
}

impl Executor<'_> {
    fn ops(&self) -> Ops<'_> {
        Ops {
            memory: &self.ctx.memory,
            stream: &self.ctx.stream,
        }
    }

    /// Runs `node` (timed, when profiling).
    fn run(&self, node: &PlanNode) -> Result<DeviceFrame, ExecError> {
        let slot = {
            let mut shared = self.shared.borrow_mut();
            let Some(profile) = &mut shared.profile else {
                drop(shared);
                return self.run_node(node);
            };
            profile.nodes.push(ProfiledNode {
                depth: profile.depth,
                line: node.header(),
                time: std::time::Duration::ZERO,
                rows: 0,
                work: WorkCounts::default(),
            });
            profile.depth += 1;
            profile.nodes.len() - 1
        };
        let (started, counted) = (std::time::Instant::now(), WorkCounts::now());
        let frame = self.run_node(node);
        let synchronized = self.ctx.stream.synchronize();
        let mut shared = self.shared.borrow_mut();
        if let Some(profile) = &mut shared.profile {
            profile.depth -= 1;
            let entry = &mut profile.nodes[slot];
            entry.time = started.elapsed();
            entry.rows = frame.as_ref().map_or(0, |f| f.height);
            entry.work = WorkCounts::now().since(counted);
        }
        synchronized?;
        frame
    }

    fn run_node(&self, node: &PlanNode) -> Result<DeviceFrame, ExecError> {
        match node {
            PlanNode::DataFrameScan { df, projection, .. } => {
                match self
                    .uploads
                    .and_then(|uploads| uploads.take(scan_key(node)))
                {
                    Some((mut frame, made)) => {
                        for column in &mut frame.columns {
                            column.move_to_stream(&self.ctx.stream, Some(&made))?;
                        }
                        Ok(frame)
                    }
                    None => DeviceFrame::from_dataframe(df, Some(projection), self.ctx),
                }
            }
            PlanNode::SimpleProjection { input, columns, .. } => {
                let frame = self.run(input)?;
                Ok(take_columns(frame, columns.iter().map(|i| (*i, None)))?)
            }
            PlanNode::Select { input, exprs, .. }
                if aggregating_select(exprs)
                    || matches!(select_exprs(exprs, input), Ok(Cow::Owned(_))) =>
            {
                // Whole-column aggregations: one group of every row.
                let exprs = select_exprs(exprs, input)
                    .map_err(|why| ExecError::Unsupported(not_yet(why)))?;
                let frame = self.run(input)?;
                let (rows, starts) = self.one_group(frame.height)?;
                let columns = exprs
                    .iter()
                    .map(|named| {
                        let mut column =
                            self.aggregate_expr(&frame, &named.expr, (&rows, &starts), true)?;
                        column.name = named.name.as_str().into();
                        Ok(column)
                    })
                    .collect::<Result<_, ExecError>>()?;
                Ok(DeviceFrame { columns, height: 1 })
            }
            PlanNode::Select { input, exprs, .. } if unique_of_column(exprs).is_some() => {
                let frame = self.run(input)?;
                let (key, maintain_order) = unique_of_column(exprs)
                    .ok_or_else(|| ExecError::Unsupported(not_yet("unique")))?;
                let ops = self.ops();
                let Groups { first_rows, .. } = self.groups(&frame, &[key])?;
                let first_rows = if maintain_order {
                    // In the order of first appearance.
                    let order = ops.sorted_rows(&first_rows, None, false, false)?;
                    ops.gather(&first_rows, None, &ops.widen(&order)?)?.0
                } else {
                    first_rows
                };
                let mut column =
                    self.gather_column(column_at(&frame, column_index(key)?)?, &first_rows)?;
                column.name = exprs[0].name.as_str().into();
                Ok(DeviceFrame {
                    height: column.len(),
                    columns: vec![column],
                })
            }
            PlanNode::Select { input, exprs, .. } => {
                let frame = self.run(input)?;
                // Computed columns first, while every input column is still there.
                let mut computed = Vec::new();
                let mut moved = Vec::new();
                for (position, named) in exprs.iter().enumerate() {
                    match named.expr.kind {
                        ExprKind::Column { index, .. } if !moved.contains(&index) => {
                            moved.push(index)
                        }
                        _ => {
                            let expr = marking_one_row_reads(&named.expr, input);
                            computed.push((position, self.evaluate(&frame, &expr, &named.name)?))
                        }
                    }
                }
                let height = frame.height;
                let mut slots: Vec<Option<DeviceColumn>> =
                    frame.columns.into_iter().map(Some).collect();
                let mut computed = computed.into_iter().peekable();
                let mut columns = Vec::with_capacity(exprs.len());
                for (position, named) in exprs.iter().enumerate() {
                    if computed.peek().is_some_and(|(p, _)| *p == position) {
                        columns.extend(computed.next().map(|(_, c)| c));
                        continue;
                    }
                    let ExprKind::Column { index, .. } = named.expr.kind else {
                        return Err(ExecError::Unsupported(not_yet(format_args!(
                            "`{}`",
                            named.expr
                        ))));
                    };
                    let mut column =
                        slots.get_mut(index).and_then(Option::take).ok_or_else(|| {
                            ExecError::Unsupported(format!(
                                "column #{index} taken twice or missing"
                            ))
                        })?;
                    column.name = named.name.as_str().into();
                    columns.push(column);
                }
                Ok(DeviceFrame { columns, height })
            }
            PlanNode::WithColumns {
                input,
                exprs,
                schema,
                ..
            } => {
                let frame = self.run(input)?;
                let mut computed: Vec<DeviceColumn> = exprs
                    .iter()
                    .map(|named| {
                        let expr = marking_one_row_reads(&named.expr, input);
                        self.evaluate(&frame, &expr, &named.name)
                    })
                    .collect::<Result<_, _>>()?;
                let height = frame.height;
                let mut inputs: Vec<Option<DeviceColumn>> =
                    frame.columns.into_iter().map(Some).collect();
                let mut columns = Vec::with_capacity(schema.len());
                for output in schema {
                    let name = output.name.as_str();
                    let column = match computed.iter().position(|c| c.name.as_str() == name) {
                        Some(i) => computed.swap_remove(i),
                        None => inputs
                            .iter_mut()
                            .find(|c| c.as_ref().is_some_and(|c| c.name.as_str() == name))
                            .and_then(Option::take)
                            .ok_or_else(|| {
                                ExecError::Unsupported(format!("with_columns lost column {name:?}"))
                            })?,
                    };
                    columns.push(column);
                }
                Ok(DeviceFrame { columns, height })
            }
            PlanNode::Filter {
                input, predicate, ..
            } => {
                let frame = self.run(input)?;
                self.filter(&frame, predicate)
            }
            PlanNode::Slice {
                input, offset, len, ..
            } => {
                let frame = self.run(input)?;
                self.slice_frame(&frame, (*offset, *len))
            }
            PlanNode::RowIndex {
                input,
                name,
                offset,
                ..
            } => {
                let mut frame = self.run(input)?;
                // Polars raises where the numbers would not fit in u32.
                let fits = u32::try_from(frame.height)
                    .ok()
                    .and_then(|height| offset.checked_add(height))
                    .is_some();
                if !fits {
                    return Err(ExecError::InvalidData(format!(
                        "a row index from {offset} over {} rows overflows u32",
                        frame.height
                    )));
                }
                let numbers = self.ops().row_numbers(frame.height, *offset)?;
                let column = DeviceColumn::from_parts(
                    name.as_str().into(),
                    GpuDtype::UInt32,
                    frame.height,
                    Values::U32(numbers),
                    None,
                );
                frame.columns.insert(0, column);
                Ok(frame)
            }
            PlanNode::Sort {
                input, keys, slice, ..
            } => {
                let frame = self.run(input)?;
                let ops = self.ops();
                if let ([key], [column]) = (keys.as_slice(), frame.columns.as_slice())
                    && is_column(&key.expr)
                    && column.dtype.is_float()
                {
                    // Polars sorts a frame of one float column by its values,
                    // where -0.0 and 0.0, equal, land in an order of its own.
                    let values = self.gather_column(column, &ops.iota(frame.height, 0)?)?;
                    let (negative, positive) = self.signed_zeros(values, &ops.iota(1, 0)?)?;
                    self.check_both_zeros(negative, positive, None)?;
                }
                // Keys that are expressions, computed into a frame of their own.
                let computed = self.computed_frame(
                    &frame,
                    keys.iter()
                        .map(|key| &key.expr)
                        .filter(|expr| !is_column(expr)),
                )?;
                let mut computed_index = computed.columns.len();
                let mut permutation = None;
                for key in keys.iter().rev() {
                    let words = if is_column(&key.expr) {
                        self.key_words(&frame, &key.expr, "sorting by")?
                    } else {
                        computed_index -= 1;
                        let column = column_ref(computed_index, key.expr.dtype);
                        self.key_words(&computed, &column, "sorting by")?
                    };
                    permutation = Some(self.sort_by_key(
                        permutation,
                        &words,
                        key.descending,
                        key.nulls_last,
                    )?);
                }
                let permutation = permutation.map_or_else(|| ops.rows(frame.height), Ok)?;
                let mut indices = ops.widen(&permutation)?;
                if let Some(slice) = slice {
                    let range = self.slice_rows(frame.height, *slice)?;
                    indices = ops.gather(&indices, None, &range)?.0;
                }
                self.gather_frame(&frame, &indices)
            }
            PlanNode::Join {
                left,
                right,
                left_on,
                right_on,
                kind,
                coalesce,
                nulls_equal,
                predicate,
                slice,
                unique,
                schema,
                ..
            } => {
                // The two sides on two streams.
                let (left_frame, right_frame) = (self.run(left)?, self.run_beside(right)?);
                // Small integers hashed and compared as i64.
                let (left_on, right_on) = (&widened_keys(left_on), &widened_keys(right_on));
                // Keys that are expressions are computed into frames of their own.
                let computed;
                let keys = if left_on.iter().chain(right_on).all(is_column) {
                    JoinKeys::columns(&left_frame, &right_frame, left_on, right_on)?
                } else {
                    computed = (
                        self.computed_frame(&left_frame, left_on)?,
                        self.computed_frame(&right_frame, right_on)?,
                        column_refs(left_on),
                        column_refs(right_on),
                    );
                    JoinKeys {
                        left: &computed.0,
                        right: &computed.1,
                        pairs: (0..left_on.len()).map(|i| (i, i)).collect(),
                        left_on: &computed.2,
                        right_on: &computed.3,
                    }
                };
                self.validate_join(&keys, *unique)?;
                // The input columns the keys are, for coalescing.
                let key_columns = if *coalesce {
                    left_on
                        .iter()
                        .zip(right_on)
                        .map(|(l, r)| Ok((key_column(l)?, key_column(r)?)))
                        .collect::<Result<Vec<_>, ExecError>>()?
                } else {
                    Vec::new()
                };
                if matches!(kind, JoinKind::Right | JoinKind::Full) {
                    let mut out = self.outer_join(
                        (&left_frame, &right_frame),
                        &keys,
                        &key_columns,
                        *kind == JoinKind::Full,
                        *nulls_equal,
                    )?;
                    for (column, output) in out.columns.iter_mut().zip(schema) {
                        column.name = output.name.as_str().into();
                    }
                    return match slice {
                        Some(slice) => self.slice_frame(&out, *slice),
                        None => Ok(out),
                    };
                }
                let indices = if *kind == JoinKind::Cross {
                    self.ops()
                        .cross_join(left_frame.height, right_frame.height)?
                } else {
                    self.key_join(
                        keys.left,
                        keys.right,
                        &keys.pairs,
                        keys.left_on,
                        *kind,
                        *nulls_equal,
                    )?
                };
                let mut out = self.gather_frame(&left_frame, &indices.left)?;
                if let Some(right_rows) = &indices.right {
                    for (i, column) in right_frame.columns.iter().enumerate() {
                        if !key_columns.iter().any(|&(_, r)| r == i) {
                            out.columns.push(self.gather_column(column, right_rows)?);
                        }
                    }
                }
                for (column, output) in out.columns.iter_mut().zip(schema) {
                    column.name = output.name.as_str().into();
                }
                if let Some(predicate) = predicate {
                    // A cross join fused with a filter of the joined rows.
                    out = self.filter(&out, predicate)?;
                }
                match slice {
                    Some(slice) => self.slice_frame(&out, *slice),
                    None => Ok(out),
                }
            }
            PlanNode::GroupBy {
                input,
                keys,
                aggs,
                maintain_order,
                slice,
                schema,
                ..
            } => {
                let mut frame = self.run(input)?;
                let ops = self.ops();
                // Keys that are expressions are computed and appended to the
                // frame (the aggregations read only the columns before them).
                let mut key_exprs = Vec::with_capacity(keys.len());
                for key in keys {
                    if is_column(&key.expr) {
                        key_exprs.push(key.expr.clone());
                        continue;
                    }
                    let column = self.evaluate(&frame, &key.expr, &key.name)?;
                    key_exprs.push(GpuExpr::column(
                        frame.columns.len(),
                        key.name.clone(),
                        key.expr.dtype,
                    ));
                    frame.columns.push(column);
                }
                if key_exprs.len() > 1 {
                    self.check_negative_zero_keys(&frame, &key_exprs)?;
                }
                let Groups {
                    sorted_rows,
                    starts,
                    first_rows,
                } = self.groups(&frame, &key_exprs.iter().collect::<Vec<_>>())?;
                let mut columns = Vec::with_capacity(schema.len());
                for key in &key_exprs {
                    columns.push(
                        self.gather_column(column_at(&frame, column_index(key)?)?, &first_rows)?,
                    );
                }
                for agg in aggs {
                    columns.push(self.aggregate_expr(
                        &frame,
                        &agg.expr,
                        (&sorted_rows, &starts),
                        false,
                    )?);
                }
                let mut out = DeviceFrame {
                    columns,
                    height: starts.len(),
                };
                if *maintain_order {
                    // Groups in the order of their first rows.
                    let groups = ops.rows(starts.len())?;
                    let order = ops.sort_by(groups, &first_rows, None, false, false)?;
                    out = self.gather_frame(&out, &ops.widen(&order)?)?;
                }
                if let Some(slice) = slice {
                    out = self.slice_frame(&out, *slice)?;
                }
                for (column, output) in out.columns.iter_mut().zip(schema) {
                    column.name = output.name.as_str().into();
                }
                Ok(out)
            }
            PlanNode::Union {
                inputs,
                slice,
                schema,
            } => {
                let frames = self.run_each(inputs)?;
                let height = frames.iter().map(|frame| frame.height).sum();
                let columns = schema
                    .iter()
                    .enumerate()
                    .map(|(i, output)| {
                        let parts = frames
                            .iter()
                            .map(|frame| column_at(frame, i))
                            .collect::<Result<Vec<_>, _>>()?;
                        self.concat_column(&parts, output.name.as_str(), output.dtype, height)
                    })
                    .collect::<Result<_, ExecError>>()?;
                let out = DeviceFrame { columns, height };
                match slice {
                    Some(slice) => self.slice_frame(&out, *slice),
                    None => Ok(out),
                }
            }
            PlanNode::Distinct {
                input,
                subset,
                keep,
                maintain_order,
                slice,
                ..
            } => {
                let frame = self.run(input)?;
                let keys = distinct_keys(input.schema(), subset.as_deref());
                let mut rows = self.distinct_rows(&frame, &keys, *keep, *maintain_order)?;
                if let Some(slice) = slice {
                    let range = self.slice_rows(rows.len(), *slice)?;
                    rows = self.ops().gather(&rows, None, &range)?.0;
                }
                self.gather_frame(&frame, &rows)
            }
            PlanNode::HConcat {
                inputs,
                strict,
                broadcast_unit_length,
                schema,
            } => {
                let frames = self.run_each(inputs)?;
                let height = frames.iter().map(|frame| frame.height).max().unwrap_or(0);
                let ops = self.ops();
                let mut columns = Vec::with_capacity(schema.len());
                for frame in frames {
                    if frame.height == height {
                        columns.extend(frame.columns);
                        continue;
                    }
                    if *strict {
                        // Polars' own error for this query.
                        return Err(ExecError::Polars(
                            polars::prelude::PolarsError::ShapeMismatch(
                                format!(
                                    "cannot concat horizontally frames of {} and {height} rows",
                                    frame.height
                                )
                                .into(),
                            ),
                        ));
                    }
                    // Gathers past the end give nulls; index 0 repeats the one row.
                    let rows = if *broadcast_unit_length && frame.height == 1 {
                        ops.repeat_first(height)?
                    } else {
                        ops.iota(height, 0)?
                    };
                    columns.extend(self.gather_frame(&frame, &rows)?.columns);
                }
                for (column, output) in columns.iter_mut().zip(schema) {
                    column.name = output.name.as_str().into();
                }
                Ok(DeviceFrame { columns, height })
            }
            PlanNode::Cache { input, id, .. } => self.cached(input, id),
            other => Err(ExecError::Unsupported(not_yet(format_args!("{other:?}")))),
        }
    }

    /// Evaluates an elementwise expression over `frame` with the fused
    /// evaluator: one launch, one new column.
    fn evaluate(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        name: &str,
    ) -> Result<DeviceColumn, ExecError> {
        self.evaluate_in_groups(frame, expr, name, None)
    }

    /// As [`Executor::evaluate`], where the aggregations inside `expr` are
    /// taken per group of `groups` (sorted rows and group starts) and
    /// repeated on each group's rows; without groups, over the whole frame.
    fn evaluate_in_groups(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        name: &str,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let unsupported =
            |why: String| ExecError::Unsupported(not_yet(format_args!("`{expr}` ({why})")));
        if expr.dtype == GpuDtype::String {
            string_valued(expr).map_err(unsupported)?;
            if groups.is_some() && expr.has_aggregation() {
                return Err(unsupported("text aggregated inside an aggregation".into()));
            }
            return self.make_strings(frame, expr, name);
        }
        let width = frame.columns.len();
        let mut hoisted = Vec::new();
        let mut shape = None;
        let mut row_wise = std::borrow::Cow::Borrowed(expr);
        if expr.has_aggregation() {
            // Aggregations (of the whole frame, or of each group), repeated
            // on their rows, become input columns.
            let (mut outer, leaves) = hoist_aggregations(expr, width, true).map_err(unsupported)?;
            // One row each in Polars: of the frame, or of each group.
            let held = match groups {
                None => Held::Once,
                Some(_) => Held::PerGroup,
            };
            mark_held(&mut outer, held, |index| index >= width);
            let ops = self.ops();
            let whole;
            let (rows, starts, group_of_row) = match groups {
                None => {
                    whole = self.one_group(frame.height)?;
                    (&whole.0, &whole.1, ops.repeat_first(frame.height)?)
                }
                Some((rows, starts)) => (rows, starts, self.group_of_rows(rows, starts)?),
            };
            for leaf in &leaves {
                let value = match groups {
                    None => self.aggregate_whole(frame, leaf, rows, starts)?,
                    Some(_) => self.aggregate(frame, leaf, rows, starts, false)?,
                };
                hoisted.push(self.gather_column(&value, &group_of_row)?);
            }
            if let Some((_, starts)) = groups {
                let mut lengths = None;
                if reads_group_lengths(&outer) {
                    // Each row's group length: Polars computes with a group's
                    // value row by row in a group of one row.
                    let len = GpuExpr {
                        kind: ExprKind::Len,
                        dtype: GpuDtype::UInt32,
                    };
                    let per_group = self.aggregate(frame, &len, rows, starts, false)?;
                    lengths = Some(width + hoisted.len());
                    hoisted.push(self.gather_column(&per_group, &group_of_row)?);
                }
                shape = Some(GroupShape {
                    lengths,
                    one_group: starts.len() == 1,
                });
            }
            row_wise = std::borrow::Cow::Owned(outer);
        }
        let compiled = match compile(&row_wise, shape) {
            Ok(compiled) => compiled,
            Err(why) => {
                // Parts other kernels run become input columns.
                let (outer, parts) = hoist_parts(&row_wise, width + hoisted.len(), width);
                if parts.is_empty() {
                    return Err(unsupported(why));
                }
                let compiled = compile(&outer, shape).map_err(unsupported)?;
                for part in &parts {
                    hoisted.push(self.part_column(frame, part, groups)?);
                }
                compiled
            }
        };
        let inputs = compiled
            .columns
            .iter()
            .map(|&index| {
                let column = match index.checked_sub(width) {
                    None => column_at(frame, index)?,
                    Some(part) => hoisted.get(part).ok_or_else(|| {
                        ExecError::Unsupported(format!("no predicate column {part}"))
                    })?,
                };
                let validity = column.validity();
                Ok(match column.values() {
                    Values::Bits(b) => ExprInput::bits(b, column.len(), validity),
                    Values::I8(b) => ExprInput::values(b, validity),
                    Values::I16(b) => ExprInput::values(b, validity),
                    Values::I32(b) => ExprInput::values(b, validity),
                    Values::I64(b) => ExprInput::values(b, validity),
                    Values::U8(b) => ExprInput::values(b, validity),
                    Values::U16(b) => ExprInput::values(b, validity),
                    Values::U32(b) => ExprInput::values(b, validity),
                    Values::U64(b) => ExprInput::values(b, validity),
                    Values::F32(b) => ExprInput::values(b, validity),
                    Values::F64(b) => ExprInput::values(b, validity),
                    Values::Str { .. } => {
                        return Err(ExecError::Unsupported(format!("`{expr}` reads text")));
                    }
                })
            })
            .collect::<Result<Vec<_>, ExecError>>()?;
        let failed = if compiled.program.checks_values() {
            let flag = DeviceBuffer::<u32>::zeroed(1, self.ctx.memory.clone(), &self.ctx.stream)?;
            Some(flag)
        } else {
            None
        };
        let (values, validity) =
            self.ops()
                .eval(&compiled.program, &inputs, frame.height, failed.as_ref())?;
        if let Some(flag) = failed {
            let what = format!("a strict cast met values that do not fit in `{expr}`");
            self.check_later(flag, what, ExecError::InvalidData);
        }
        let values = match values {
            TypedBuffer::Bits(b) => Values::Bits(b),
            TypedBuffer::I8(b) => Values::I8(b),
            TypedBuffer::I16(b) => Values::I16(b),
            TypedBuffer::I32(b) => Values::I32(b),
            TypedBuffer::I64(b) => Values::I64(b),
            TypedBuffer::U8(b) => Values::U8(b),
            TypedBuffer::U16(b) => Values::U16(b),
            TypedBuffer::U32(b) => Values::U32(b),
            TypedBuffer::U64(b) => Values::U64(b),
            TypedBuffer::F32(b) => Values::F32(b),
            TypedBuffer::F64(b) => Values::F64(b),
        };
        Ok(DeviceColumn::from_parts(
            name.into(),
            expr.dtype,
            frame.height,
            values,
            Some(validity),
        ))
    }

    /// The rows of `parts` (columns of one physical type, `height` rows in
    /// all) one after another, as a column named `name`.
    fn concat_column(
        &self,
        parts: &[&DeviceColumn],
        name: &str,
        dtype: GpuDtype,
        height: usize,
    ) -> Result<DeviceColumn, ExecError> {
        let ops = self.ops();
        let bitmap = || {
            DeviceBuffer::<u32>::zeroed(
                height.div_ceil(32),
                self.ctx.memory.clone(),
                &self.ctx.stream,
            )
        };
        let mismatch = || {
            ExecError::Unsupported(format!(
                "a union of columns {name:?} of different physical types"
            ))
        };
        macro_rules! concat {
            ($variant:ident) => {{
                let out = DeviceBuffer::zeroed(height, self.ctx.memory.clone(), &self.ctx.stream)?;
                let mut at = 0;
                for part in parts {
                    let Values::$variant(values) = part.values() else {
                        return Err(mismatch());
                    };
                    out.copy_from_device(at, values)?;
                    at += part.len();
                }
                Values::$variant(out)
            }};
        }
        let first = parts.first().ok_or_else(|| {
            ExecError::Unsupported(format!("a union without inputs for {name:?}"))
        })?;
        let values = match first.values() {
            Values::Bits(_) => {
                let out = bitmap()?;
                let mut at = 0;
                for part in parts {
                    let Values::Bits(bits) = part.values() else {
                        return Err(mismatch());
                    };
                    ops.bitmap_append(Some(bits), part.len(), &out, at)?;
                    at += part.len();
                }
                Values::Bits(out)
            }
            Values::I8(_) => concat!(I8),
            Values::I16(_) => concat!(I16),
            Values::I32(_) => concat!(I32),
            Values::I64(_) => concat!(I64),
            Values::U8(_) => concat!(U8),
            Values::U16(_) => concat!(U16),
            Values::U32(_) => concat!(U32),
            Values::U64(_) => concat!(U64),
            Values::F32(_) => concat!(F32),
            Values::F64(_) => concat!(F64),
            Values::Str { .. } => {
                let strings = parts
                    .iter()
                    .map(|part| match part.values() {
                        Values::Str { offsets, bytes } => Ok((offsets, bytes)),
                        _ => Err(mismatch()),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let (offsets, bytes) = ops.concat_strings(&strings)?;
                Values::Str { offsets, bytes }
            }
        };
        let validity = if parts.iter().any(|part| part.validity().is_some()) {
            let out = bitmap()?;
            let mut at = 0;
            for part in parts {
                ops.bitmap_append(part.validity(), part.len(), &out, at)?;
                at += part.len();
            }
            Some(out)
        } else {
            None
        };
        Ok(DeviceColumn::from_parts(
            name.into(),
            dtype,
            height,
            values,
            validity,
        ))
    }

    /// A new string column of `expr` (see [`string_valued`]).
    fn make_strings(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        name: &str,
    ) -> Result<DeviceColumn, ExecError> {
        let ops = self.ops();
        let mut made = match &expr.kind {
            ExprKind::Column { index, .. } => {
                let column = column_at(frame, *index)?;
                self.gather_column(column, &ops.iota(column.len(), 0)?)?
            }
            ExprKind::Shift { .. } | ExprKind::Reverse(_) => {
                self.shifted(frame, expr, name, None)?
            }
            ExprKind::Fill { .. } => self.filled(frame, expr, name, None)?,
            ExprKind::SortedBy { .. } => self.sorted_part(frame, expr, name, None)?,
            ExprKind::Window { .. } if let Some(distributed) = window_distributed(expr) => {
                return self.make_strings(frame, &distributed, name);
            }
            ExprKind::Window {
                function,
                partition_by,
                order_by,
            } => {
                let groups = self.window_groups(frame, partition_by, order_by.as_ref())?;
                let (rows, starts) = (&groups.sorted_rows, &groups.starts);
                match function.kind {
                    ExprKind::Shift { .. } | ExprKind::Reverse(_) => {
                        self.shifted(frame, function, name, Some((rows, starts)))?
                    }
                    ExprKind::Fill { .. } => {
                        self.filled(frame, function, name, Some((rows, starts)))?
                    }
                    ExprKind::SortedBy { .. } => {
                        self.sorted_part(frame, function, name, Some((rows, starts)))?
                    }
                    _ => {
                        let value = self.aggregate(frame, function, rows, starts, false)?;
                        self.gather_column(&value, &self.group_of_rows(rows, starts)?)?
                    }
                }
            }
            ExprKind::Agg { .. } => {
                let (rows, starts) = self.one_group(frame.height)?;
                let value = self.aggregate(frame, expr, &rows, &starts, true)?;
                self.gather_column(&value, &ops.repeat_first(frame.height)?)?
            }
            ExprKind::Cast { input, .. } => self.cast_as_text(frame, input, name)?,
            ExprKind::Strftime { input, format } => self.formatted(frame, input, format, name)?,
            ExprKind::String {
                op:
                    op @ (StringOp::Slice { .. }
                    | StringOp::DropLast(_)
                    | StringOp::ToUppercase
                    | StringOp::ToLowercase
                    | StringOp::Strip { .. }
                    | StringOp::Replace { .. }
                    | StringOp::Extract(_)
                    | StringOp::Pad { .. }),
                input,
            } => {
                let mut owned = None;
                let (offsets, bytes, validity) = self.strings_of(frame, input, &mut owned)?;
                let strings = match op {
                    StringOp::Slice { offset, length } => {
                        ops.string_slice(offsets, bytes, validity, (*offset, *length), 0)?
                    }
                    StringOp::DropLast(count) => {
                        ops.string_slice(offsets, bytes, validity, (0, None), *count)?
                    }
                    StringOp::Replace {
                        pattern,
                        value,
                        limit,
                    } => {
                        let pattern = device_pattern(pattern);
                        ops.string_replace(offsets, bytes, validity, (pattern, value), *limit)?
                    }
                    StringOp::Extract(pattern) => {
                        ops.string_extract((offsets, bytes, validity), device_pattern(pattern))?
                    }
                    StringOp::Strip { set, start, end } => {
                        let side = match (start, end) {
                            (true, false) => Side::Start,
                            (false, true) => Side::End,
                            _ => Side::Both,
                        };
                        ops.string_strip(offsets, bytes, validity, set.as_deref(), side)?
                    }
                    StringOp::Pad { length, fill, side } => {
                        ops.string_pad((offsets, bytes, validity), *length, *fill, *side as u32)?
                    }
                    _ => {
                        let upload = |values: &[u32]| {
                            DeviceBuffer::from_host(
                                values,
                                self.ctx.memory.clone(),
                                &self.ctx.stream,
                            )
                        };
                        let strings = (offsets, bytes, validity);
                        if matches!(op, StringOp::ToUppercase) {
                            let (from, to) = uppercase_table();
                            ops.string_map_chars(
                                strings,
                                AsciiCase::Upper,
                                (&upload(from)?, &upload(to)?),
                                None,
                            )?
                        } else {
                            let tables = lowercase_tables();
                            let (ignorable, cased) =
                                (upload(&tables.ignorable)?, upload(&tables.cased)?);
                            ops.string_map_chars(
                                strings,
                                AsciiCase::Lower,
                                (&upload(&tables.from)?, &upload(&tables.to)?),
                                Some((&ignorable, &cased)),
                            )?
                        }
                    }
                };
                strings_column(name, strings)
            }
            ExprKind::ConcatStr {
                inputs,
                separator,
                ignore_nulls,
            } => {
                let how = Joining::Concat {
                    separator,
                    ignore_nulls: *ignore_nulls,
                };
                self.concatenated(frame, inputs, &[], how, name)?
            }
            ExprKind::Literal(_) => {
                // The literal alone, repeated on every row.
                self.concatenated(
                    frame,
                    std::slice::from_ref(expr),
                    &[],
                    Joining::Coalesce,
                    name,
                )?
            }
            ExprKind::FillNull { input, value } => {
                let inputs = [(**input).clone(), (**value).clone()];
                self.concatenated(frame, &inputs, &[], Joining::Coalesce, name)?
            }
            ExprKind::Ternary {
                predicate,
                truthy,
                falsy,
            } => {
                // `truthy` where the predicate is true, `falsy` where it is
                // false or null: each masked by its rows, then coalesced.
                let when = GpuExpr {
                    kind: ExprKind::FillNull {
                        input: predicate.clone(),
                        value: Box::new(GpuExpr {
                            kind: ExprKind::Literal(Scalar::Boolean(false)),
                            dtype: GpuDtype::Boolean,
                        }),
                    },
                    dtype: GpuDtype::Boolean,
                };
                let otherwise = GpuExpr {
                    kind: ExprKind::Not(Box::new(when.clone())),
                    dtype: GpuDtype::Boolean,
                };
                let (when, otherwise) = (
                    self.evaluate(frame, &when, "")?,
                    self.evaluate(frame, &otherwise, "")?,
                );
                let (Values::Bits(when), Values::Bits(otherwise)) =
                    (when.values(), otherwise.values())
                else {
                    return Err(ExecError::Unsupported(format!(
                        "the predicate of `{expr}` is not boolean"
                    )));
                };
                let inputs = [(**truthy).clone(), (**falsy).clone()];
                let masks = [Some(when), Some(otherwise)];
                self.concatenated(frame, &inputs, &masks, Joining::Coalesce, name)?
            }
            _ => {
                return Err(ExecError::Unsupported(not_yet(format_args!(
                    "the strings of `{expr}`"
                ))));
            }
        };
        made.name = name.into();
        Ok(made)
    }

    /// A text literal (a null when not text) as one row of strings on the
    /// device: offsets, bytes, validity.
    fn text_literal(&self, value: &Scalar) -> Result<DeviceStrings, ExecError> {
        let (memory, stream) = (|| self.ctx.memory.clone(), &self.ctx.stream);
        let text = match value {
            Scalar::String(text) => Some(text.as_bytes()),
            _ => None,
        };
        let bytes = text.unwrap_or_default();
        Ok(DeviceStrings {
            offsets: DeviceBuffer::from_host(&[0, bytes.len() as i64], memory(), stream)?,
            bytes: DeviceBuffer::from_host(bytes, memory(), stream)?,
            validity: DeviceBuffer::from_host(&[u32::from(text.is_some())], memory(), stream)?,
        })
    }

    /// Integers, booleans, floats, dates or timestamps (`input`) as text, as
    /// Polars casts them: decimal digits (of integers and booleans evaluated
    /// as 64-bit words), `true` and `false`, floats as zmij writes them, or
    /// chrono's `%Y-%m-%d` (with ` %H:%M:%S` and the fraction of the second
    /// in the unit's digits for timestamps).
    fn cast_as_text(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        name: &str,
    ) -> Result<DeviceColumn, ExecError> {
        if let Some(format) = FormatPart::iso(input.dtype, false) {
            return self.formatted(frame, input, &format, name);
        }
        if input.dtype.is_float() {
            let column = self.evaluate(frame, input, name)?;
            let strings = match column.values() {
                Values::F64(values) => self.ops().string_from_floats(values, column.validity())?,
                Values::F32(values) => self.ops().string_from_floats(values, column.validity())?,
                _ => {
                    return Err(ExecError::Unsupported(format!("`{input}` as floats")));
                }
            };
            return Ok(strings_column(name, strings));
        }
        let (words, kind) = match input.dtype {
            GpuDtype::Boolean => (GpuDtype::Int64, IntegerText::Boolean),
            dtype if dtype.is_unsigned() => (GpuDtype::UInt64, IntegerText::Unsigned),
            _ => (GpuDtype::Int64, IntegerText::Signed),
        };
        let column = self.evaluate(frame, &cast_to(input, words), name)?;
        let strings = match column.values() {
            Values::I64(values) => {
                self.ops()
                    .string_from_integers(values, column.validity(), kind)?
            }
            Values::U64(values) => {
                self.ops()
                    .string_from_integers(values, column.validity(), kind)?
            }
            _ => {
                return Err(ExecError::Unsupported(format!(
                    "`{input}` as 64-bit integers"
                )));
            }
        };
        Ok(strings_column(name, strings))
    }

    /// `inputs` (text columns or expressions, or text literals) joined row
    /// by row: concatenated as Polars' `concat_str`, or coalesced.
    fn concatenated(
        &self,
        frame: &DeviceFrame,
        inputs: &[GpuExpr],
        masks: &[Option<&DeviceBuffer<u32>>],
        how: Joining<'_>,
        name: &str,
    ) -> Result<DeviceColumn, ExecError> {
        // Literals become one-row columns, repeated on every row.
        let mut literals = Vec::new();
        let mut owned: Vec<Option<DeviceColumn>> = inputs.iter().map(|_| None).collect();
        for input in inputs {
            if let ExprKind::Literal(value) = &input.kind {
                literals.push(self.text_literal(value)?);
            }
        }
        let mut columns = Vec::with_capacity(inputs.len());
        for (input, slot) in inputs.iter().zip(owned.iter_mut()) {
            if matches!(input.kind, ExprKind::Literal(_)) {
                columns.push(None);
            } else {
                columns.push(Some(self.column_of(frame, input, name, slot)?));
            }
        }
        let mut literal = literals.iter();
        let mut parts = Vec::with_capacity(inputs.len());
        for (j, column) in columns.iter().enumerate() {
            let mask = masks.get(j).copied().flatten();
            parts.push(match column {
                Some(column) => {
                    let Values::Str { offsets, bytes } = column.values() else {
                        return Err(ExecError::Unsupported(format!(
                            "`{}` is not text",
                            column.name
                        )));
                    };
                    ConcatPart {
                        offsets,
                        bytes,
                        validity: column.validity(),
                        mask,
                        repeated: false,
                    }
                }
                None => {
                    let text: &DeviceStrings = literal
                        .next()
                        .ok_or_else(|| ExecError::Unsupported("a literal went missing".into()))?;
                    ConcatPart {
                        offsets: &text.offsets,
                        bytes: &text.bytes,
                        validity: Some(&text.validity),
                        mask,
                        repeated: true,
                    }
                }
            });
        }
        let strings = match how {
            Joining::Concat {
                separator,
                ignore_nulls,
            } => self.ops().string_concat(
                &parts,
                frame.height,
                separator.as_bytes(),
                ignore_nulls,
            )?,
            Joining::Coalesce => self.ops().string_coalesce(&parts, frame.height)?,
        };
        Ok(strings_column(name, strings))
    }

    /// The rows of `frame` where `predicate` is true.
    fn filter(&self, frame: &DeviceFrame, predicate: &GpuExpr) -> Result<DeviceFrame, ExecError> {
        let mask = if predicate_supported(predicate) {
            self.predicate(frame, predicate)?
        } else {
            let column = self.evaluate(frame, predicate, "predicate")?;
            match column.into_parts() {
                (Values::Bits(bits), validity) => Mask::Owned(bits, validity),
                _ => {
                    return Err(ExecError::Unsupported(format!(
                        "`{predicate}` is not boolean"
                    )));
                }
            }
        };
        let (bits, validity) = mask.parts();
        let indices = self.ops().filter_indices(bits, validity, frame.height)?;
        drop(mask);
        self.gather_frame(frame, &indices)
    }

    /// `exprs` evaluated over `frame` (texts made), as the columns of a frame
    /// of their own.
    fn computed_frame<'e>(
        &self,
        frame: &DeviceFrame,
        exprs: impl IntoIterator<Item = &'e GpuExpr>,
    ) -> Result<DeviceFrame, ExecError> {
        self.computed_in_groups(frame, exprs, None)
    }

    /// As [`Executor::computed_frame`], within each group of `groups` (the
    /// aggregations and the parts that read other rows in the expressions
    /// taken per group).
    fn computed_in_groups<'e>(
        &self,
        frame: &DeviceFrame,
        exprs: impl IntoIterator<Item = &'e GpuExpr>,
        groups: InGroups<'_>,
    ) -> Result<DeviceFrame, ExecError> {
        let columns = exprs
            .into_iter()
            .map(|expr| self.evaluate_in_groups(frame, expr, "", groups))
            .collect::<Result<_, _>>()?;
        Ok(DeviceFrame {
            columns,
            height: frame.height,
        })
    }

    /// `expr` over `frame` as a column: a column of the frame itself, else
    /// computed (evaluated, or made for text) into `owned`.
    fn column_of<'f>(
        &self,
        frame: &'f DeviceFrame,
        expr: &GpuExpr,
        name: &str,
        owned: &'f mut Option<DeviceColumn>,
    ) -> Result<&'f DeviceColumn, ExecError> {
        self.column_in_groups(frame, expr, name, owned, None)
    }

    /// As [`Executor::column_of`], computed within each group of `groups`.
    fn column_in_groups<'f>(
        &self,
        frame: &'f DeviceFrame,
        expr: &GpuExpr,
        name: &str,
        owned: &'f mut Option<DeviceColumn>,
        groups: InGroups<'_>,
    ) -> Result<&'f DeviceColumn, ExecError> {
        if is_column(expr) {
            return column_at(frame, column_index(expr)?);
        }
        Ok(owned.insert(self.evaluate_in_groups(frame, expr, name, groups)?))
    }

    /// The texts of `expr` over `frame` (a column of the frame, else made
    /// into `owned`): offsets, bytes and validity, as the string kernels
    /// take them.
    fn strings_of<'f>(
        &self,
        frame: &'f DeviceFrame,
        expr: &GpuExpr,
        owned: &'f mut Option<DeviceColumn>,
    ) -> Result<StringsRef<'f>, ExecError> {
        let column = self.column_of(frame, expr, "", owned)?;
        let Values::Str { offsets, bytes } = column.values() else {
            return Err(ExecError::Unsupported(format!("`{expr}` is not text")));
        };
        Ok((offsets, bytes, column.validity()))
    }

    /// `shift(input, periods)` over `frame`: the input (a column, else
    /// evaluated or made) gathered from `periods` rows earlier, null where
    /// that row does not exist; or `reverse(input)`: gathered from the rows
    /// in the opposite order. Within each group of `groups`, when given.
    fn shifted(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        name: &str,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let (input, periods) = match &expr.kind {
            ExprKind::Shift { input, periods } => (input, Some(*periods)),
            ExprKind::Reverse(input) => (input, None),
            _ => return Err(ExecError::Unsupported(format!("`{expr}` is not a shift"))),
        };
        let mut owned = None;
        let column = self.column_in_groups(frame, input, name, &mut owned, groups)?;
        let ops = self.ops();
        let rows = match (groups, periods) {
            // Within each group: the group's row `periods` before.
            (Some((sorted_rows, starts)), Some(periods)) => {
                let group_of = ops.segment_ids(starts, sorted_rows.len())?;
                ops.segment_sources(sorted_rows, starts, &group_of, None, periods)?
            }
            // Within each group: the group's rows from its last.
            (Some((sorted_rows, starts)), None) => {
                let group_of = ops.segment_ids(starts, sorted_rows.len())?;
                let mirrored = self.mirrored_positions(starts, &group_of)?;
                ops.segment_sources(sorted_rows, starts, &group_of, Some(&mirrored), 0)?
            }
            (None, Some(periods)) => {
                // Row i takes row i - periods; beyond either end is null (a
                // shift by the height or more: every row, from past the end).
                let height = frame.height as i64;
                let start = if periods.unsigned_abs() >= frame.height as u64 {
                    height
                } else {
                    -periods
                };
                ops.iota(frame.height, start)?
            }
            (None, None) => self.last_to_first(frame.height)?,
        };
        self.gather_column(column, &rows)
    }

    /// For every sorted position p, in a group from `start` to `end`
    /// (exclusive; `group_of` numbers each position's group), the position
    /// `start + end - 1 - p`: the group's positions from its last.
    fn mirrored_positions(
        &self,
        starts: &DeviceBuffer<i64>,
        group_of: &DeviceBuffer<u32>,
    ) -> Result<DeviceBuffer<i64>, ExecError> {
        let ops = self.ops();
        let (n, count) = (group_of.len(), starts.len());
        let int64 = |values| {
            DeviceColumn::from_parts("".into(), GpuDtype::Int64, n, Values::I64(values), None)
        };
        let group = ops.widen(group_of)?;
        let bounds = self.group_bounds(starts, n)?;
        let (ends, _) = ops.gather(&bounds, None, &ops.iota(count, 1)?)?;
        let positions = DeviceFrame {
            columns: vec![
                int64(ops.gather(starts, None, &group)?.0),
                int64(ops.gather(&ends, None, &group)?.0),
                int64(ops.iota(n, 0)?),
            ],
            height: n,
        };
        let [start, end, p] = [0, 1, 2].map(|i| column_ref(i, GpuDtype::Int64));
        let one = GpuExpr::literal(Scalar::Int(1), GpuDtype::Int64);
        let mirrored = start
            .binary(BinaryOp::Plus, end, GpuDtype::Int64)
            .binary(BinaryOp::Minus, one, GpuDtype::Int64)
            .binary(BinaryOp::Minus, p, GpuDtype::Int64);
        self.evaluate_i64(&positions, &mirrored)
    }

    /// Where each group of `n` sorted positions begins, then `n`: group g
    /// spans `bounds[g]..bounds[g + 1]`.
    fn group_bounds(
        &self,
        starts: &DeviceBuffer<i64>,
        n: usize,
    ) -> Result<DeviceBuffer<i64>, ExecError> {
        let ops = self.ops();
        let count = starts.len();
        // Past the last start the gather gives null: n.
        let (bounds, valid) = ops.gather(starts, None, &ops.iota(count + 1, 0)?)?;
        let bounds = DeviceFrame {
            columns: vec![DeviceColumn::from_parts(
                "".into(),
                GpuDtype::Int64,
                count + 1,
                Values::I64(bounds),
                Some(valid),
            )],
            height: count + 1,
        };
        let bound_or_n = column_ref(0, GpuDtype::Int64)
            .fill_null(GpuExpr::literal(Scalar::Int(n as i64), GpuDtype::Int64));
        self.evaluate_i64(&bounds, &bound_or_n)
    }

    /// `expr`, of i64, evaluated over `frame`: its values.
    fn evaluate_i64(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
    ) -> Result<DeviceBuffer<i64>, ExecError> {
        match self.evaluate(frame, expr, "")?.into_parts().0 {
            Values::I64(values) => Ok(values),
            _ => Err(ExecError::Unsupported(format!("`{expr}` as i64"))),
        }
    }

    /// Raises a check read once the result is on the host (see
    /// [`Executor::check_later`]) where `condition` holds for a row of
    /// `frame` (a null does not hold).
    fn check_any_later(
        &self,
        frame: &DeviceFrame,
        condition: GpuExpr,
        what: String,
        failure: fn(String) -> ExecError,
    ) -> Result<(), ExecError> {
        let flags = condition
            .fill_null(GpuExpr::literal(Scalar::Boolean(false), GpuDtype::Boolean))
            .cast(GpuDtype::UInt32, CastMode::NonStrict);
        let Values::U32(flags) = self.evaluate(frame, &flags, "")?.into_parts().0 else {
            return Err(ExecError::Unsupported("flags as u32".into()));
        };
        let ops = self.ops();
        let flag = ops.segment_sum(&flags, None, &ops.iota(1, 0)?)?;
        self.check_later(flag, what, failure);
        Ok(())
    }

    /// Leaves the group-by to Polars where a float key of a group-by on
    /// several keys holds -0.0: Polars groups it with 0.0 and gives the
    /// group's key as the first row's value or as 0.0, by which hash path it
    /// takes for the frame's size (row-encoded keys lose the sign).
    fn check_negative_zero_keys(
        &self,
        frame: &DeviceFrame,
        keys: &[GpuExpr],
    ) -> Result<(), ExecError> {
        let (float, boolean) = (GpuDtype::Float64, GpuDtype::Boolean);
        let value = |v: f64| GpuExpr::literal(Scalar::Float(v), float);
        for key in keys.iter().filter(|key| key.dtype.is_float()) {
            let key = cast_to(key, float);
            let zero = key.clone().binary(BinaryOp::Eq, value(0.0), boolean);
            let negative = value(1.0).binary(BinaryOp::TrueDivide, key, float).binary(
                BinaryOp::Eq,
                value(f64::NEG_INFINITY),
                boolean,
            );
            let what = "a float key of -0.0 in a group-by on several keys (Polars' key is \
                        0.0 or -0.0 by the hash path it takes for the frame's size)";
            self.check_any_later(
                frame,
                zero.binary(BinaryOp::And, negative, boolean),
                what.into(),
                ExecError::DependsOnPolars,
            )?;
        }
        Ok(())
    }

    /// `input`, dates or timestamps, as text in the chrono `format` (see
    /// [`Ops::string_format_temporal`]).
    fn formatted(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        format: &[FormatPart],
        name: &str,
    ) -> Result<DeviceColumn, ExecError> {
        let per_day = match input.dtype {
            GpuDtype::Date => 1,
            GpuDtype::Datetime(unit) => unit.per_day(),
            other => {
                return Err(ExecError::Unsupported(format!(
                    "`{input}` of {other} as text"
                )));
            }
        };
        let program: Vec<u32> = format
            .iter()
            .map(|part| {
                let (code, argument) = match *part {
                    FormatPart::Byte(byte) => (0, byte),
                    FormatPart::Year => (1, 0),
                    FormatPart::Month => (2, 0),
                    FormatPart::Day => (3, 0),
                    FormatPart::Hour => (4, 0),
                    FormatPart::Minute => (5, 0),
                    FormatPart::Second => (6, 0),
                    FormatPart::Fraction(digits) => (7, digits),
                    FormatPart::YearMod100 => (8, 0),
                    FormatPart::Ordinal => (9, 0),
                    FormatPart::DaySpaced => (10, 0),
                    FormatPart::MonthShort => (11, 0),
                    FormatPart::MonthLong => (12, 0),
                    FormatPart::WeekdayShort => (13, 0),
                    FormatPart::WeekdayLong => (14, 0),
                    FormatPart::WeekdayFromMonday => (15, 0),
                    FormatPart::WeekdayFromSunday => (16, 0),
                    FormatPart::Hour12 => (17, 0),
                    FormatPart::AmPm => (18, 0),
                };
                (code << 8) | u32::from(argument)
            })
            .collect();
        // Day counts or ticks, as i64.
        let column = self.evaluate(frame, &cast_to(input, GpuDtype::Int64), name)?;
        let Values::I64(values) = column.values() else {
            return Err(ExecError::Unsupported(format!("`{input}` as i64")));
        };
        let strings =
            self.ops()
                .string_format_temporal(values, column.validity(), per_day, &program)?;
        Ok(strings_column(name, strings))
    }

    /// Polars' `cum_sum` of `input` (integers or booleans) over `frame`, as
    /// `dtype`: the input as 64-bit words (nulls as zeros, and kept null),
    /// their inclusive scan (restarted in each group of `groups`), wrapped
    /// to `dtype`.
    fn cumulative_sum(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        dtype: GpuDtype,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let words = word_dtype(input.dtype);
        // The evaluator writes 0 for a null row.
        let (values, validity) = self
            .evaluate_in_groups(frame, &cast_to(input, words), "", groups)?
            .into_parts();
        let values = match values {
            Values::I64(v) => Values::I64(self.running_sums(&v, true, groups)?),
            Values::U64(v) => Values::U64(self.running_sums(&v, false, groups)?),
            _ => return Err(ExecError::Unsupported(format!("cum_sum of `{input}`"))),
        };
        let sums = DeviceFrame {
            columns: vec![DeviceColumn::from_parts(
                "".into(),
                words,
                frame.height,
                values,
                validity,
            )],
            height: frame.height,
        };
        let wrapped = GpuExpr {
            kind: ExprKind::Cast {
                input: Box::new(column_ref(0, words)),
                mode: CastMode::Wrapping,
            },
            dtype,
        };
        self.evaluate(&sums, &wrapped, "")
    }

    /// Polars' `cum_max` (`cum_min`, `minimum`) of `input` (integers or
    /// floats) over `frame` (restarted in each group of `groups`, in its
    /// order; from the last row to the first, `reverse`): each row's best
    /// value so far gathered from its row, so the values come back as they
    /// were (the sign of a zero, NaN).
    fn cumulative_extreme(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        (minimum, reverse): (bool, bool),
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        // The input, computed once where it is not a column of the frame.
        let computed;
        let (source, input) = if is_column(input) {
            (frame, input.clone())
        } else {
            computed = self.computed_in_groups(frame, [input], groups)?;
            (&computed, column_ref(0, input.dtype))
        };
        let column = column_at(source, column_index(&input)?)?;
        let rows = self.running_best_rows(source, &input, (minimum, reverse), groups)?;
        self.gather_column(column, &rows)
    }

    /// For every row of `frame`, the row of the best value of `input` at or
    /// before it (`reverse`: at or after it), within its group of `groups`
    /// (see [`Ops::running_best`]).
    fn running_best_rows(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        (minimum, reverse): (bool, bool),
        groups: InGroups<'_>,
    ) -> Result<DeviceBuffer<i64>, ExecError> {
        let (values, validity) = self
            .evaluate(frame, &cast_to(input, word_dtype(input.dtype)), "")?
            .into_parts();
        let ops = self.ops();
        let n = frame.height;
        // The rows in the scan's order, and each position's group.
        let (rows, group_of);
        let order = match (groups, reverse) {
            (None, false) => None,
            (None, true) => {
                rows = self.last_to_first(n)?;
                group_of = DeviceBuffer::zeroed(n, self.ctx.memory.clone(), &self.ctx.stream)?;
                Some((&rows, &group_of))
            }
            (Some((sorted_rows, starts)), false) => {
                group_of = ops.segment_ids(starts, sorted_rows.len())?;
                Some((sorted_rows, &group_of))
            }
            (Some((sorted_rows, starts)), true) => {
                let back = self.last_to_first(n)?;
                rows = ops.gather(sorted_rows, None, &back)?.0;
                group_of = ops
                    .gather(&ops.segment_ids(starts, sorted_rows.len())?, None, &back)?
                    .0;
                Some((&rows, &group_of))
            }
        };
        let validity = validity.as_ref();
        Ok(match values {
            Values::I64(v) => ops.running_best(&v, validity, minimum, order)?,
            Values::U64(v) => ops.running_best(&v, validity, minimum, order)?,
            Values::F64(v) => ops.running_best(&v, validity, minimum, order)?,
            _ => return Err(ExecError::Unsupported(format!("cum_max of `{input}`"))),
        })
    }

    /// Polars' `arg_min` (`minimum`) or `arg_max` of `input` per group of
    /// `sorted_rows`: the place in its group of the group's first best
    /// valid value, null where the group has none. A running best gives
    /// each row the place of the best value up to it; those places only
    /// grow along the group, so the greatest at a valid row is the group's.
    /// Polars takes the last of equal best values instead where it knows
    /// the values sorted, which the device cannot know: where a group holds
    /// its best value twice or more (booleans aside, which Polars never
    /// takes by sortedness), a check makes the collect fall back.
    fn arg_extreme(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        minimum: bool,
        sorted_rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceColumn, ExecError> {
        let ops = self.ops();
        let groups = Some((sorted_rows, starts));
        // Computed once, with the aggregations inside per group.
        let computed = DeviceFrame {
            columns: vec![self.evaluate_in_groups(frame, input, "", groups)?],
            height: frame.height,
        };
        let values = column_ref(0, input.dtype);
        let validity = computed.columns[0].validity();
        // Each row's place in the sorted order.
        let n = frame.height;
        let (memory, stream) = (self.ctx.memory.clone(), &self.ctx.stream);
        let places = DeviceBuffer::<i64>::zeroed(n, memory.clone(), stream)?;
        let places_valid = DeviceBuffer::<u32>::zeroed(n.div_ceil(32), memory, stream)?;
        ops.scatter(&ops.iota(n, 0)?, None, sorted_rows, &places, &places_valid)?;
        // Each group's first best place (the greatest of the running best's
        // at valid rows) and, scanning from the end, its last (the least).
        let best_place = |reverse: bool| -> Result<_, ExecError> {
            let rows = self.running_best_rows(&computed, &values, (minimum, reverse), groups)?;
            let (best, _) = ops.gather(&places, None, &rows)?;
            let (sorted, sorted_valid) = ops.gather(&best, validity, sorted_rows)?;
            let pick = if reverse {
                SegmentPick::Min
            } else {
                SegmentPick::Max
            };
            Ok(ops.segment_pick(pick, &sorted, Some(&sorted_valid), starts)?)
        };
        let (first, first_valid) = best_place(false)?;
        let count = starts.len();
        let i64_column = |values, validity| {
            DeviceColumn::from_parts(
                "".into(),
                GpuDtype::Int64,
                count,
                Values::I64(values),
                validity,
            )
        };
        let mut columns = vec![
            i64_column(first, Some(first_valid)),
            i64_column(ops.gather(starts, None, &ops.iota(count, 0)?)?.0, None),
        ];
        if input.dtype != GpuDtype::Boolean {
            let (last, last_valid) = best_place(true)?;
            columns.push(i64_column(last, Some(last_valid)));
        }
        let results = DeviceFrame {
            columns,
            height: count,
        };
        let [first, start, last] = [0, 1, 2].map(|i| column_ref(i, GpuDtype::Int64));
        if input.dtype != GpuDtype::Boolean {
            // Groups whose first and last best places differ.
            let tied = first
                .clone()
                .binary(BinaryOp::NotEq, last, GpuDtype::Boolean);
            let what = format!(
                "`{input}` holds its {} value more than once in a group: Polars \
                 answers by whether it knows the values sorted",
                if minimum { "least" } else { "greatest" }
            );
            self.check_any_later(&results, tied, what, ExecError::DependsOnPolars)?;
        }
        let within = first.binary(BinaryOp::Minus, start, GpuDtype::Int64);
        self.evaluate(&results, &cast_to(&within, GpuDtype::UInt32), "")
    }

    /// Polars' `str.join(separator)` of the texts `texts` per group of
    /// `sorted_rows`: every text but a group's first valid one takes the
    /// separator before it (nulls become empty), the pieces are put in group
    /// order, and a group's result is the bytes from its first piece to its
    /// last, so the pieces' bytes serve every group as they are. Unless
    /// `ignore_nulls`, a group with a null is null.
    fn joined_texts(
        &self,
        texts: &DeviceColumn,
        (separator, ignore_nulls): (&str, bool),
        sorted_rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceColumn, ExecError> {
        let ops = self.ops();
        let n = texts.len();
        let count = starts.len();
        let boolean = GpuDtype::Boolean;
        // Whether each row is valid, and how many valid rows come before it
        // in its group.
        let kept = match texts.validity() {
            Some(bits) => ops.gather_bits(bits, n, None, &ops.iota(n, 0)?)?.0,
            None => {
                let empty = DeviceFrame {
                    columns: vec![],
                    height: n,
                };
                let all = GpuExpr::literal(Scalar::Boolean(true), boolean);
                let Values::Bits(bits) = self.evaluate(&empty, &all, "")?.into_parts().0 else {
                    return Err(ExecError::Unsupported("booleans that are not bits".into()));
                };
                bits
            }
        };
        let kept = DeviceFrame {
            columns: vec![DeviceColumn::from_parts(
                "".into(),
                boolean,
                n,
                Values::Bits(kept),
                None,
            )],
            height: n,
        };
        let groups = Some((sorted_rows, starts));
        let through =
            self.cumulative_sum(&kept, &column_ref(0, boolean), GpuDtype::UInt32, groups)?;
        let mut counts = kept;
        counts.columns.push(through);
        let before = column_ref(1, GpuDtype::UInt32).binary(
            BinaryOp::Minus,
            cast_to(&column_ref(0, boolean), GpuDtype::UInt32),
            GpuDtype::UInt32,
        );
        let before = self.evaluate(&counts, &before, "")?;
        // The pieces, in group order.
        let rows = DeviceFrame {
            columns: vec![self.gather_column(texts, &ops.iota(n, 0)?)?, before],
            height: n,
        };
        let text = GpuDtype::String;
        let literal = |value: &str| GpuExpr::literal(Scalar::String(value.into()), text);
        let joined = GpuExpr {
            kind: ExprKind::ConcatStr {
                inputs: vec![literal(separator), column_ref(0, text)],
                separator: String::new(),
                ignore_nulls: false,
            },
            dtype: text,
        };
        let after_another = column_ref(1, GpuDtype::UInt32).binary(
            BinaryOp::Gt,
            GpuExpr::literal(Scalar::UInt(0), GpuDtype::UInt32),
            boolean,
        );
        let piece = after_another
            .then(joined, column_ref(0, text), text)
            .fill_null(literal(""));
        let pieces = self.make_strings(&rows, &piece, "")?;
        let sorted = self.gather_column(&pieces, sorted_rows)?;
        let Values::Str { offsets, bytes } = sorted.into_parts().0 else {
            return Err(ExecError::Unsupported("pieces that are not text".into()));
        };
        // Each group's result: from its first piece to its last.
        let bounds = self.group_bounds(starts, n)?;
        let (offsets, _) = ops.gather(&offsets, None, &bounds)?;
        let validity = match texts.validity() {
            Some(validity) if !ignore_nulls => {
                // Valid where every row of the group is.
                let (sorted_valid, _) = ops.gather_bits(validity, n, None, sorted_rows)?;
                let counts = DeviceFrame {
                    columns: [Some(&sorted_valid), None]
                        .into_iter()
                        .map(|valid| -> Result<_, ExecError> {
                            Ok(DeviceColumn::from_parts(
                                "".into(),
                                GpuDtype::UInt32,
                                count,
                                Values::U32(ops.segment_count(valid, starts, n)?),
                                None,
                            ))
                        })
                        .collect::<Result<_, _>>()?,
                    height: count,
                };
                let whole = column_ref(0, GpuDtype::UInt32).binary(
                    BinaryOp::Eq,
                    column_ref(1, GpuDtype::UInt32),
                    boolean,
                );
                let Values::Bits(bits) = self.evaluate(&counts, &whole, "")?.into_parts().0 else {
                    return Err(ExecError::Unsupported("booleans that are not bits".into()));
                };
                Some(bits)
            }
            _ => None,
        };
        Ok(DeviceColumn::from_parts(
            "".into(),
            text,
            count,
            Values::Str { offsets, bytes },
            validity,
        ))
    }

    /// The positions `n - 1` down to 0.
    fn last_to_first(&self, n: usize) -> Result<DeviceBuffer<i64>, ExecError> {
        let positions = DeviceFrame {
            columns: vec![DeviceColumn::from_parts(
                "".into(),
                GpuDtype::Int64,
                n,
                Values::I64(self.ops().iota(n, 0)?),
                None,
            )],
            height: n,
        };
        let last = GpuExpr::literal(Scalar::Int(n as i64 - 1), GpuDtype::Int64);
        let back = last.binary(
            BinaryOp::Minus,
            column_ref(0, GpuDtype::Int64),
            GpuDtype::Int64,
        );
        self.evaluate_i64(&positions, &back)
    }

    /// Wrapping inclusive prefix sums of 64-bit `values`, by row: of the
    /// whole column, or restarted in each group of `groups`.
    fn running_sums<T: Word64 + Gather>(
        &self,
        values: &DeviceBuffer<T>,
        signed: bool,
        groups: InGroups<'_>,
    ) -> Result<DeviceBuffer<T>, ExecError> {
        let ops = self.ops();
        let Some((sorted_rows, starts)) = groups else {
            return Ok(ops.inclusive_scan(values, signed)?);
        };
        let (sorted, _) = ops.gather(values, None, sorted_rows)?;
        let scan = ops.inclusive_scan(&sorted, signed)?;
        let group_of = ops.segment_ids(starts, sorted_rows.len())?;
        Ok(ops.segment_rebase(&scan, sorted_rows, starts, &group_of)?)
    }

    /// A forward or backward fill of the nulls of its input over `frame`
    /// (within each group of `groups`): the input (a column, else evaluated
    /// or made) gathered from each row's source row.
    fn filled(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        name: &str,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let ExprKind::Fill {
            input,
            forward,
            limit,
        } = &expr.kind
        else {
            return Err(ExecError::Unsupported(format!("`{expr}` is not a fill")));
        };
        let mut owned = None;
        let column = self.column_in_groups(frame, input, name, &mut owned, groups)?;
        let ops = self.ops();
        let rows = match (column.validity(), groups) {
            (Some(validity), None) => ops.fill_sources(validity, frame.height, *forward, *limit)?,
            (Some(validity), Some((sorted_rows, starts))) => {
                // The nearest valid positions in the sorted order, kept
                // within each group.
                let (sorted_validity, _) =
                    ops.gather_bits(validity, frame.height, None, sorted_rows)?;
                let positions =
                    ops.fill_sources(&sorted_validity, frame.height, *forward, *limit)?;
                let group_of = ops.segment_ids(starts, sorted_rows.len())?;
                ops.segment_sources(sorted_rows, starts, &group_of, Some(&positions), 0)?
            }
            (None, _) => ops.iota(frame.height, 0)?,
        };
        self.gather_column(column, &rows)
    }

    /// A part hoisted out of an expression (see [`hoist_parts`]), computed:
    /// a window (its function evaluated with the aggregations taken per
    /// group of the partition keys), a text length, or a predicate the
    /// predicate kernels run.
    fn part_column(
        &self,
        frame: &DeviceFrame,
        part: &GpuExpr,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        if let ExprKind::Shift { .. } | ExprKind::Reverse(_) = part.kind {
            return self.shifted(frame, part, "", groups);
        }
        if let ExprKind::Fill { .. } = part.kind {
            return self.filled(frame, part, "", groups);
        }
        if let ExprKind::CumSum(input) = &part.kind {
            return self.cumulative_sum(frame, input, part.dtype, groups);
        }
        if let ExprKind::CumExtreme {
            input,
            minimum,
            reverse,
        } = &part.kind
        {
            return self.cumulative_extreme(frame, input, (*minimum, *reverse), groups);
        }
        if let ExprKind::Rank { .. } = part.kind {
            return self.ranked(frame, part, groups);
        }
        if let ExprKind::SortedBy { .. } = part.kind {
            return self.sorted_part(frame, part, "", groups);
        }
        if let ExprKind::IsInColumn { .. } = part.kind {
            return self.membership(frame, part, groups);
        }
        if let ExprKind::ParseTemporal { input, format } = &part.kind {
            return self.parsed_temporals(frame, (input, format), part);
        }
        if text_parse_supported(part) {
            return self.parsed_numbers(frame, part);
        }
        if let ExprKind::Distinct { input, test } = &part.kind {
            return self.distinctness(frame, input, *test, groups);
        }
        if let ExprKind::Window {
            function,
            partition_by,
            order_by,
        } = &part.kind
        {
            let groups = self.window_groups(frame, partition_by, order_by.as_ref())?;
            let groups = Some((&groups.sorted_rows, &groups.starts));
            return self.evaluate_in_groups(frame, function, "", groups);
        }
        if let Some((texts, predicate)) = computed_text_predicate(part) {
            // The texts made, then the predicate over them alone.
            let made = self.computed_frame(frame, texts)?;
            return self.part_column(&made, &predicate, None);
        }
        if let ExprKind::String { op, input } = &part.kind
            && is_text_measure(part)
        {
            let mut owned = None;
            let strings = self.strings_of(frame, input, &mut owned)?;
            let (offsets, bytes, validity) = strings;
            let ops = self.ops();
            let (values, validity) = match op {
                StringOp::CountMatches(pattern) => {
                    ops.string_matches(strings, device_pattern(pattern), false)?
                }
                StringOp::Find(pattern) => {
                    ops.string_matches(strings, device_pattern(pattern), true)?
                }
                _ => {
                    let chars = *op == StringOp::LenChars;
                    ops.string_lengths(offsets, bytes, validity, chars)?
                }
            };
            return Ok(DeviceColumn::from_parts(
                "".into(),
                GpuDtype::UInt32,
                frame.height,
                Values::U32(values),
                Some(validity),
            ));
        }
        let (bits, validity) = match self.predicate(frame, part)? {
            Mask::Owned(bits, validity) => (bits, validity),
            Mask::Borrowed(..) => {
                return Err(ExecError::Unsupported(format!(
                    "`{part}` is a column, not a predicate to compute"
                )));
            }
        };
        Ok(DeviceColumn::from_parts(
            "".into(),
            GpuDtype::Boolean,
            frame.height,
            Values::Bits(bits),
            validity,
        ))
    }

    /// The groups of a window's keys `partition_by` over `frame` (keys that
    /// are expressions computed first, into a frame of their own), each
    /// group's rows in the order of `order_by` (stable), else in row order.
    fn window_groups(
        &self,
        frame: &DeviceFrame,
        partition_by: &[GpuExpr],
        order_by: Option<&RowOrder>,
    ) -> Result<Groups, ExecError> {
        let Some(order) = order_by else {
            if partition_by.iter().all(is_column) {
                return self.groups(frame, &partition_by.iter().collect::<Vec<_>>());
            }
            let keys = self.computed_frame(frame, partition_by)?;
            let columns = column_refs(partition_by);
            return self.groups(&keys, &columns.iter().collect::<Vec<_>>());
        };
        let order_key = std::slice::from_ref(order.key.as_ref());
        let keys = self.computed_frame(frame, partition_by.iter().chain(order_key))?;
        let all: Vec<GpuExpr> = partition_by.iter().chain(order_key).cloned().collect();
        let columns = column_refs(&all);
        // Sorted by the partition keys, then by the order key; only the
        // partition keys make groups.
        let mut sorting: Vec<(&GpuExpr, bool, bool)> =
            columns.iter().map(|key| (key, false, false)).collect();
        if let Some(last) = sorting.last_mut() {
            *last = (last.0, order.descending, order.nulls_last);
        }
        self.sorted_groups_marked(&keys, &sorting, partition_by.len())
    }

    /// An aggregation, or an elementwise expression of aggregations, per
    /// group (`whole`: of the whole frame, one group of every row in row
    /// order): the aggregations first, then the expression over their results.
    fn aggregate_expr(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        (sorted_rows, starts): (&DeviceBuffer<i64>, &DeviceBuffer<i64>),
        whole: bool,
    ) -> Result<DeviceColumn, ExecError> {
        let aggregate = |leaf: &GpuExpr| {
            if whole {
                self.aggregate_whole(frame, leaf, sorted_rows, starts)
            } else {
                self.aggregate(frame, leaf, sorted_rows, starts, false)
            }
        };
        if matches!(expr.kind, ExprKind::Agg { .. } | ExprKind::Len) {
            return aggregate(expr);
        }
        let (outer, leaves) = split_aggregations(expr).map_err(|why| {
            ExecError::Unsupported(not_yet(format_args!("aggregation `{expr}` ({why})")))
        })?;
        let columns = leaves.iter().map(aggregate).collect::<Result<_, _>>()?;
        let results = DeviceFrame {
            columns,
            height: starts.len(),
        };
        self.evaluate(&results, &outer, "")
    }

    /// One aggregation of the whole frame (`rows` and `starts`: one group
    /// of every row, in row order). Polars sums a float column (of one
    /// chunk) pairwise and takes a mean of numbers as that sum of the
    /// values as f64 divided by their number, so `sum` of f64 and `mean` of
    /// integers and f64 follow its order bit for bit ([`Ops::pairwise_sum`]);
    /// the others are [`Executor::aggregate`]'s.
    fn aggregate_whole(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceColumn, ExecError> {
        let float = GpuDtype::Float64;
        let pairwise = match &expr.kind {
            ExprKind::Agg {
                op: AggOp::Sum,
                input,
            } => input.dtype == float && expr.dtype == float,
            ExprKind::Agg {
                op: AggOp::Mean,
                input,
            } => (input.dtype == float || input.dtype.is_integer()) && expr.dtype == float,
            _ => false,
        };
        let ExprKind::Agg { op, input } = &expr.kind else {
            return self.aggregate(frame, expr, rows, starts, true);
        };
        if !pairwise {
            return self.aggregate(frame, expr, rows, starts, true);
        }
        let ops = self.ops();
        let whole = Some((rows, starts));
        // A column of f64 is summed in place; other values are evaluated
        // (of a filter: only the values it keeps, as Polars sums the
        // filtered column) and made f64 first.
        let (evaluated, made);
        let (values, validity, n) = match column_as_is(frame, input, op) {
            Some(column) if input.dtype == float => {
                (column.values(), column.validity(), column.len())
            }
            _ => {
                evaluated = self.evaluated_for_whole(frame, input, whole)?;
                let column = if input.dtype == float {
                    &evaluated.columns[0]
                } else {
                    made = self.evaluate(
                        &evaluated,
                        &cast_to(&column_ref(0, input.dtype), float),
                        "",
                    )?;
                    &made
                };
                (column.values(), column.validity(), evaluated.height)
            }
        };
        let Values::F64(values) = values else {
            return Err(ExecError::Unsupported(format!("`{input}` as f64")));
        };
        let sum = DeviceColumn::from_parts(
            "".into(),
            float,
            1,
            Values::F64(ops.pairwise_sum(values, validity)?),
            None,
        );
        if *op == AggOp::Sum {
            return Ok(sum);
        }
        // The mean: null without a valid value.
        let results = DeviceFrame {
            columns: vec![sum, self.valid_count(validity, n)?],
            height: 1,
        };
        let count = column_ref(1, GpuDtype::UInt64);
        let mean = column_ref(0, float).binary(BinaryOp::TrueDivide, cast_to(&count, float), float);
        let none = GpuExpr::literal(Scalar::Null, float);
        self.evaluate(&results, &some_valid(count).then(mean, none, float), "")
    }

    /// The values a whole frame's pairwise sum adds, as a frame of one
    /// column: `input` evaluated, or of a filter, the values it keeps
    /// (Polars sums the filtered column).
    fn evaluated_for_whole(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        whole: InGroups<'_>,
    ) -> Result<DeviceFrame, ExecError> {
        Ok(match &input.kind {
            ExprKind::Where { input: kept, by } => {
                let both = DeviceFrame {
                    columns: vec![
                        self.evaluate_in_groups(frame, kept, "", whole)?,
                        self.evaluate_in_groups(frame, by, "", whole)?,
                    ],
                    height: frame.height,
                };
                let mut kept = self.filter(&both, &column_ref(1, GpuDtype::Boolean))?;
                kept.columns.truncate(1);
                kept
            }
            _ => DeviceFrame {
                columns: vec![self.evaluate_in_groups(frame, input, "", whole)?],
                height: frame.height,
            },
        })
    }

    /// How many of a whole frame's `n` values are valid, as one u64: the
    /// device-wide count of the validity's set bits (`n` without one).
    fn valid_count(
        &self,
        validity: Option<&DeviceBuffer<u32>>,
        n: usize,
    ) -> Result<DeviceColumn, ExecError> {
        let count = match validity {
            Some(bits) => self.ops().count_set(bits, n)?,
            None => {
                DeviceBuffer::from_host(&[n as u64], self.ctx.memory.clone(), &self.ctx.stream)?
            }
        };
        let count = Values::U64(count);
        Ok(DeviceColumn::from_parts(
            "".into(),
            GpuDtype::UInt64,
            1,
            count,
            None,
        ))
    }

    /// `value`, a whole frame's aggregation of its `n` values (`validity`:
    /// theirs), null where none of them is valid.
    fn null_without_values(
        &self,
        value: DeviceColumn,
        validity: Option<&DeviceBuffer<u32>>,
        n: usize,
    ) -> Result<DeviceColumn, ExecError> {
        if validity.is_none() && n > 0 {
            return Ok(value);
        }
        let count = DeviceFrame {
            columns: vec![self.valid_count(validity, n)?],
            height: 1,
        };
        let some = some_valid(column_ref(0, GpuDtype::UInt64));
        let Values::Bits(some) = self.evaluate(&count, &some, "")?.into_parts().0 else {
            return Err(ExecError::Unsupported("a comparison not as bits".into()));
        };
        let (name, dtype) = (value.name.clone(), value.dtype);
        let (values, _) = value.into_parts();
        Ok(DeviceColumn::from_parts(name, dtype, 1, values, Some(some)))
    }

    /// Polars' `item` per group: the group's first value, and a check read
    /// once the result is on the host that every group has one row (or
    /// none, with `allow_empty`; its value is then null): Polars raises
    /// otherwise, so the collect falls back for Polars to raise its error.
    fn item(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        allow_empty: bool,
        sorted_rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceColumn, ExecError> {
        let ExprKind::Agg { input, .. } = &expr.kind else {
            return Err(ExecError::Unsupported(format!("`{expr}` is not item")));
        };
        let first = GpuExpr {
            kind: ExprKind::Agg {
                op: AggOp::First,
                input: input.clone(),
            },
            dtype: expr.dtype,
        };
        let value = self.aggregate(frame, &first, sorted_rows, starts, false)?;
        let ops = self.ops();
        let count = starts.len();
        let lengths = DeviceFrame {
            columns: vec![DeviceColumn::from_parts(
                "".into(),
                GpuDtype::UInt32,
                count,
                Values::U32(ops.segment_count(None, starts, sorted_rows.len())?),
                None,
            )],
            height: count,
        };
        let length = column_ref(0, GpuDtype::UInt32);
        let number = |n| GpuExpr::literal(Scalar::UInt(n), GpuDtype::UInt32);
        let boolean = GpuDtype::Boolean;
        let wrong = if allow_empty {
            length.binary(BinaryOp::Gt, number(1), boolean)
        } else {
            length.binary(BinaryOp::NotEq, number(1), boolean)
        };
        let what = format!("`{expr}` of a group without exactly one row");
        self.check_any_later(&lengths, wrong, what, ExecError::InvalidData)?;
        Ok(value)
    }

    /// One aggregation per group: the input evaluated, put in the sorted
    /// order, and reduced segment by segment. `whole`: the groups are one
    /// group of every row in row order (a whole frame's), whose sums,
    /// minima and maxima of numbers are the device-wide reductions of the
    /// values as they are.
    fn aggregate(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        sorted_rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
        whole: bool,
    ) -> Result<DeviceColumn, ExecError> {
        let ops = self.ops();
        let groups = starts.len();
        let column = |values, validity| {
            DeviceColumn::from_parts("".into(), expr.dtype, groups, values, validity)
        };
        let ExprKind::Agg { op, input } = &expr.kind else {
            let lengths = ops.segment_count(None, starts, sorted_rows.len())?;
            return Ok(column(Values::U32(lengths), None));
        };
        if let Some(rewritten) = filter_as_nulls(expr) {
            let result = self.aggregate(frame, &rewritten, sorted_rows, starts, whole)?;
            if let (AggOp::Std { .. } | AggOp::Var { .. }, ExprKind::Agg { input: kept, .. }) =
                (op, &rewritten.kind)
                && whole
            {
                // (Per group, the rewritten aggregation checks itself.)
                self.check_kept_values(frame, kept, sorted_rows, starts, whole)?;
            }
            return Ok(result);
        }
        if let AggOp::Item { allow_empty } = op {
            return self.item(frame, expr, *allow_empty, sorted_rows, starts);
        }
        if let ExprKind::Where { input: kept, by } = &input.kind {
            let last = matches!(op, AggOp::Last);
            return self.first_kept(frame, (kept, by), last, sorted_rows, starts);
        }
        if let ExprKind::SortedBy {
            input: values,
            order,
            ties_in_row_order,
        } = &input.kind
        {
            let last = matches!(op, AggOp::Last);
            let groups = Some((sorted_rows, starts));
            let values = self.evaluate_in_groups(frame, values, "", groups)?;
            let keys: Vec<_> = order
                .iter()
                .map(|order| (order.key.as_ref(), order.descending, order.nulls_last))
                .collect();
            let order = PickOrder::Keys(&keys, (!ties_in_row_order).then_some(input.as_ref()));
            return self.pick_in_order(frame, values, order, last, sorted_rows, starts);
        }
        if let Some((wide, back)) = widened_aggregation(expr) {
            let value = self.aggregate(frame, &wide, sorted_rows, starts, whole)?;
            let Some(back) = back else {
                return Ok(value);
            };
            let dtype = value.dtype;
            let values = DeviceFrame {
                columns: vec![value],
                height: groups,
            };
            return self.evaluate(&values, &cast_to(&column_ref(0, dtype), back), "");
        }

        if let AggOp::ArgMin | AggOp::ArgMax = op {
            if !whole && (input.has_aggregation() || input.has_part_reading_other_rows()) {
                // Of a group of no valid value: null of a column, 0 of an
                // input Polars takes per group as lists.
                let what = "the place of an extreme of a group with no valid value (Polars \
                            gives 0 or null, by its path)";
                self.check_no_valid_value(frame, input, sorted_rows, starts, whole, what)?;
            }
            let minimum = matches!(op, AggOp::ArgMin);
            return self.arg_extreme(frame, input, minimum, sorted_rows, starts);
        }
        if matches!(op, AggOp::Std { .. } | AggOp::Var { .. })
            && !whole
            && (input.has_aggregation() || input.has_part_reading_other_rows())
        {
            // A group of no valid value: Polars' spread is null of a column
            // (Welford's over the group's rows), 0.0 of an input it takes
            // per group as lists (holding aggregations or functions of the
            // rows in order).
            self.check_kept_values(frame, input, sorted_rows, starts, whole)?;
        }
        // Spreads and quantiles read floats: the cast runs in the input's launch.
        let reads_floats = matches!(
            op,
            AggOp::Std { .. } | AggOp::Var { .. } | AggOp::Median | AggOp::Quantile { .. }
        );
        let cast;
        let input = if reads_floats && input.dtype != GpuDtype::Float64 {
            cast = cast_to(input, GpuDtype::Float64);
            &cast
        } else if input.dtype == GpuDtype::Boolean && matches!(op, AggOp::Sum) {
            // A sum of booleans counts the true values.
            cast = cast_to(input, GpuDtype::UInt32);
            &cast
        } else {
            input.as_ref()
        };
        // Aggregations inside the input are this aggregation's groups'.
        let as_is = column_as_is(frame, input, op);
        let mut owned = None;
        if as_is.is_none() {
            owned = Some(self.evaluate_in_groups(frame, input, "", Some((sorted_rows, starts)))?);
        }
        let Some(evaluated) = as_is.or(owned.as_ref()) else {
            return Err(ExecError::Unsupported(format!("`{input}` not evaluated")));
        };
        match op {
            AggOp::NUnique => {
                let counts = self.count_distinct(evaluated, input, sorted_rows, starts)?;
                return Ok(column(Values::U32(counts), None));
            }
            AggOp::Std { ddof } | AggOp::Var { ddof } => {
                let Values::F64(v) = evaluated.values() else {
                    return Err(ExecError::Unsupported(format!("`{input}` as f64")));
                };
                let (sorted, valid) = ops.gather(v, evaluated.validity(), sorted_rows)?;
                let std = matches!(op, AggOp::Std { .. });
                let (out, out_valid) =
                    ops.segment_variance(&sorted, Some(&valid), starts, *ddof, std)?;
                return Ok(column(Values::F64(out), Some(out_valid)));
            }
            AggOp::Median | AggOp::Quantile { .. } => {
                let (q, method) = match op {
                    AggOp::Quantile { quantile, method } => (*quantile, *method),
                    _ => (0.5, "linear"),
                };
                let method = QuantileMethod::from_name(method).ok_or_else(|| {
                    ExecError::Unsupported(not_yet(format_args!("quantile method {method}")))
                })?;
                let (out, out_valid) = self.quantiles(evaluated, sorted_rows, starts, q, method)?;
                return Ok(column(Values::F64(out), Some(out_valid)));
            }
            _ => {}
        }
        if let AggOp::Join {
            separator,
            ignore_nulls,
        } = op
        {
            return self.joined_texts(evaluated, (separator, *ignore_nulls), sorted_rows, starts);
        }
        let validity = evaluated.validity();
        if let AggOp::Product = op {
            // (Smaller integers and booleans were widened to i64 above.) A
            // whole frame's rows are in row order: multiplied where they are.
            let rows = (!whole).then_some(sorted_rows);
            let products = match evaluated.values() {
                Values::I64(v) => Values::I64(group_products(&ops, v, validity, rows, starts)?),
                Values::U64(v) => Values::U64(group_products(&ops, v, validity, rows, starts)?),
                _ => {
                    return Err(ExecError::Unsupported(not_yet(format_args!(
                        "the product of `{input}`"
                    ))));
                }
            };
            return Ok(column(products, None));
        }
        if let AggOp::Count { include_nulls } = op {
            // Counting needs only the validity, so any dtype can be counted.
            let counted = match (include_nulls, validity) {
                (false, Some(bits)) => {
                    let (sorted_bits, _) =
                        ops.gather_bits(bits, evaluated.len(), None, sorted_rows)?;
                    Some(sorted_bits)
                }
                _ => None,
            };
            let counts = ops.segment_count(counted.as_ref(), starts, sorted_rows.len())?;
            return Ok(column(Values::U32(counts), None));
        }
        let reduced = matches!(
            evaluated.values(),
            Values::I32(_) | Values::I64(_) | Values::U32(_) | Values::U64(_) | Values::F64(_)
        );
        match op {
            // Of other types: each group's first or last row, gathered.
            AggOp::First | AggOp::Last if !reduced => {
                let rows = match op {
                    AggOp::First => ops.gather(sorted_rows, None, starts)?.0,
                    _ => {
                        ops.segment_pick(SegmentPick::Last, sorted_rows, None, starts)?
                            .0
                    }
                };
                return self.gather_column(evaluated, &rows);
            }
            AggOp::Min { .. } | AggOp::Max { .. } if !reduced => {
                let max = matches!(op, AggOp::Max { .. });
                // The first valid value in the value's order, nulls last.
                let order = PickOrder::Values {
                    descending: max,
                    nulls_last: true,
                };
                let values = match owned.take() {
                    Some(values) => values,
                    None => {
                        self.evaluate_in_groups(frame, input, "", Some((sorted_rows, starts)))?
                    }
                };
                return self.pick_in_order(frame, values, order, false, sorted_rows, starts);
            }
            _ => {}
        }
        let n = evaluated.len();
        macro_rules! reduce {
            // 64-bit integers: a whole frame's sum is the device-wide one.
            ($variant:ident, $values:expr, sum) => {{
                if whole && matches!(op, AggOp::Sum) {
                    let sum = ops.reduce_sum($values, validity)?;
                    return Ok(column(Values::$variant(sum), None));
                }
                reduce!($variant, $values)
            }};
            // 32-bit integers: summed in 64 bits, then wrapped back (Polars
            // sums them in their own type).
            ($variant:ident, $values:expr, sum in $wide:ident $wide_dtype:ident) => {{
                if whole && matches!(op, AggOp::Sum) {
                    let sum = Values::$wide(ops.reduce_sum($values, validity)?);
                    let wide = GpuDtype::$wide_dtype;
                    let sums = DeviceFrame {
                        columns: vec![DeviceColumn::from_parts("".into(), wide, 1, sum, None)],
                        height: 1,
                    };
                    let wrapped = column_ref(0, wide).cast(expr.dtype, CastMode::Wrapping);
                    return self.evaluate(&sums, &wrapped, "");
                }
                reduce!($variant, $values)
            }};
            // Minima and maxima of a whole frame are the device-wide ones.
            ($variant:ident, $values:expr) => {{
                if whole && matches!(op, AggOp::Min { .. } | AggOp::Max { .. }) {
                    let max = matches!(op, AggOp::Max { .. });
                    let extreme = ops.reduce_extreme($values, validity, max)?;
                    let extreme = column(Values::$variant(extreme), None);
                    return self.null_without_values(extreme, validity, n);
                }
                let (sorted, valid) = ops.gather($values, validity, sorted_rows)?;
                let valid = Some(&valid);
                match op {
                    AggOp::Sum => column(
                        Values::$variant(ops.segment_sum(&sorted, valid, starts)?),
                        None,
                    ),
                    AggOp::Mean => {
                        let (means, mean_valid) = ops.segment_mean(&sorted, valid, starts)?;
                        column(Values::F64(means), Some(mean_valid))
                    }
                    AggOp::Min { .. } | AggOp::Max { .. } | AggOp::First | AggOp::Last => {
                        let pick = match op {
                            AggOp::Min { .. } => SegmentPick::Min,
                            AggOp::Max { .. } => SegmentPick::Max,
                            AggOp::First => SegmentPick::First,
                            _ => SegmentPick::Last,
                        };
                        let (picked, picked_valid) =
                            ops.segment_pick(pick, &sorted, valid, starts)?;
                        column(Values::$variant(picked), Some(picked_valid))
                    }
                    other => {
                        return Err(ExecError::Unsupported(not_yet(format_args!(
                            "aggregation {other}"
                        ))));
                    }
                }
            }};
        }
        Ok(match evaluated.values() {
            Values::I32(v) => reduce!(I32, v, sum in I64 Int64),
            Values::I64(v) => reduce!(I64, v, sum),
            Values::U32(v) => reduce!(U32, v, sum in U64 UInt64),
            Values::U64(v) => reduce!(U64, v, sum),
            // Float sums of a whole frame are Polars' pairwise ones
            // (`aggregate_whole`).
            Values::F64(v) => reduce!(F64, v),
            _ => {
                return Err(ExecError::Unsupported(not_yet(format_args!(
                    "aggregating `{input}`"
                ))));
            }
        })
    }

    /// The rows `Distinct` keeps of `frame`: one per group of equal `keys`
    /// (the first, the last, or only groups of one row), ordered by row
    /// when `maintain_order`, else by key.
    fn distinct_rows(
        &self,
        frame: &DeviceFrame,
        keys: &[GpuExpr],
        keep: Keep,
        maintain_order: bool,
    ) -> Result<DeviceBuffer<i64>, ExecError> {
        let ops = self.ops();
        let keys: Vec<&GpuExpr> = keys.iter().collect();
        let Groups {
            sorted_rows,
            starts,
            first_rows,
        } = self.groups(frame, &keys)?;
        let rows = match keep {
            Keep::First | Keep::Any => first_rows,
            Keep::Last => {
                ops.segment_pick(SegmentPick::Last, &sorted_rows, None, &starts)?
                    .0
            }
            Keep::None => {
                let sizes = ops.segment_count(None, &starts, sorted_rows.len())?;
                let one =
                    DeviceBuffer::from_host(&[1u32], self.ctx.memory.clone(), &self.ctx.stream)?;
                let (alone, _) =
                    ops.compare(&sizes, None, &one, None, true, sizes.len(), Comparison::Eq)?;
                let groups = ops.filter_indices(&alone, None, sizes.len())?;
                ops.gather(&first_rows, None, &groups)?.0
            }
        };
        if !maintain_order {
            return Ok(rows);
        }
        let order = ops.sorted_rows(&rows, None, false, false)?;
        Ok(ops.gather(&rows, None, &ops.widen(&order)?)?.0)
    }

    /// The quantile `q` of each group's valid values (`values` by row):
    /// each group's rows sorted by value (nulls first), then reduced.
    fn quantiles(
        &self,
        values: &DeviceColumn,
        sorted_rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
        q: f64,
        method: QuantileMethod,
    ) -> Result<(DeviceBuffer<f64>, DeviceBuffer<u32>), ExecError> {
        let in_groups = self.gather_column(values, sorted_rows)?;
        let (order, _) = self.order_in_groups(&KeyWords::Column(&in_groups), starts)?;
        let ordered = self.gather_column(&in_groups, &order)?;
        let Values::F64(v) = ordered.values() else {
            return Err(ExecError::Unsupported("quantiles of non-f64 values".into()));
        };
        let ops = self.ops();
        let picked = ops.segment_quantile(v, ordered.validity(), starts, q, method)?;
        self.check_zero_picks(in_groups, starts, picked)
    }

    /// Leaves a variance or standard deviation of `kept` (a filter: the
    /// input, null where the filter drops the row; or an input holding
    /// aggregations) to Polars where a group has no valid value: Polars'
    /// paths give 0.0 there or null, by how the input reaches the spread.
    fn check_kept_values(
        &self,
        frame: &DeviceFrame,
        kept: &GpuExpr,
        sorted_rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
        whole: bool,
    ) -> Result<(), ExecError> {
        let what = "a variance of a group with no valid value (Polars gives 0.0 or null, by \
                    its path)";
        self.check_no_valid_value(frame, kept, sorted_rows, starts, whole, what)
    }

    /// Leaves the query to Polars (`what` says why) where a group of
    /// `sorted_rows` and `starts` has no valid value of `input`.
    fn check_no_valid_value(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        sorted_rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
        whole: bool,
        what: &str,
    ) -> Result<(), ExecError> {
        let kept = input;
        let count = GpuDtype::UInt32;
        let valid = GpuExpr {
            kind: ExprKind::Agg {
                op: AggOp::Count {
                    include_nulls: false,
                },
                input: Box::new(kept.clone()),
            },
            dtype: count,
        };
        let counts = DeviceFrame {
            columns: vec![self.aggregate(frame, &valid, sorted_rows, starts, whole)?],
            height: starts.len(),
        };
        let none = column_ref(0, count).binary(
            BinaryOp::Eq,
            GpuExpr::literal(Scalar::UInt(0), count),
            GpuDtype::Boolean,
        );
        self.check_any_later(&counts, none, what.into(), ExecError::DependsOnPolars)
    }

    /// Leaves a quantile to Polars where it is a zero of a group that holds
    /// both -0.0 and 0.0: Polars picks among values it counts equal with
    /// Rust's `select_nth_unstable`, so which zero it gives is its own.
    /// (`values`: the group's values in group order, from `starts`.)
    fn check_zero_picks(
        &self,
        values: DeviceColumn,
        starts: &DeviceBuffer<i64>,
        (picked, picked_valid): (DeviceBuffer<f64>, DeviceBuffer<u32>),
    ) -> Result<(DeviceBuffer<f64>, DeviceBuffer<u32>), ExecError> {
        let (negative, positive) = self.signed_zeros(values, starts)?;
        let picked = DeviceColumn::from_parts(
            "".into(),
            GpuDtype::Float64,
            starts.len(),
            Values::F64(picked),
            Some(picked_valid),
        );
        match self
            .check_both_zeros(negative, positive, Some(picked))?
            .map(DeviceColumn::into_parts)
        {
            Some((Values::F64(picked), Some(valid))) => Ok((picked, valid)),
            _ => Err(ExecError::Unsupported("the quantiles' own column".into())),
        }
    }

    /// Per group of `starts` (over `values`, floats in group order), how
    /// many values are -0.0 and how many 0.0, as u32 columns.
    fn signed_zeros(
        &self,
        values: DeviceColumn,
        starts: &DeviceBuffer<i64>,
    ) -> Result<(DeviceColumn, DeviceColumn), ExecError> {
        let (float, boolean, count) = (GpuDtype::Float64, GpuDtype::Boolean, GpuDtype::UInt32);
        let value = |v: f64| GpuExpr::literal(Scalar::Float(v), float);
        let x = cast_to(&column_ref(0, values.dtype), float);
        let zero_of_sign = |sign: f64| {
            let zero = x.clone().binary(BinaryOp::Eq, value(0.0), boolean);
            let signed = value(1.0)
                .binary(BinaryOp::TrueDivide, x.clone(), float)
                .binary(BinaryOp::Eq, value(sign * f64::INFINITY), boolean);
            zero.binary(BinaryOp::And, signed, boolean)
                .fill_null(GpuExpr::literal(Scalar::Boolean(false), boolean))
                .cast(count, CastMode::NonStrict)
        };
        let one = DeviceFrame {
            height: values.len(),
            columns: vec![values],
        };
        let ops = self.ops();
        let per_group = |sign: f64| -> Result<DeviceColumn, ExecError> {
            let Values::U32(flags) = self.evaluate(&one, &zero_of_sign(sign), "")?.into_parts().0
            else {
                return Err(ExecError::Unsupported("flags as u32".into()));
            };
            let sums = ops.segment_sum(&flags, None, starts)?;
            Ok(DeviceColumn::from_parts(
                "".into(),
                count,
                starts.len(),
                Values::U32(sums),
                None,
            ))
        };
        Ok((per_group(-1.0)?, per_group(1.0)?))
    }

    /// Leaves the query to Polars where a group holds both -0.0 and 0.0
    /// (counted by [`Executor::signed_zeros`]) and, when `picked` is given
    /// (a float per group), that group's pick is a zero: which zero Polars
    /// gives, or in which order, is its own. Gives `picked` back.
    fn check_both_zeros(
        &self,
        negative: DeviceColumn,
        positive: DeviceColumn,
        picked: Option<DeviceColumn>,
    ) -> Result<Option<DeviceColumn>, ExecError> {
        let (float, boolean, count) = (GpuDtype::Float64, GpuDtype::Boolean, GpuDtype::UInt32);
        let some = |index: usize| {
            column_ref(index, count).binary(
                BinaryOp::Gt,
                GpuExpr::literal(Scalar::UInt(0), count),
                boolean,
            )
        };
        let mut both = some(0).binary(BinaryOp::And, some(1), boolean);
        let mut results = DeviceFrame {
            height: negative.len(),
            columns: vec![negative, positive],
        };
        let what = if let Some(picked) = picked {
            let zero = GpuExpr::literal(Scalar::Float(0.0), float);
            both = both.binary(
                BinaryOp::And,
                column_ref(2, float).binary(BinaryOp::Eq, zero, boolean),
                boolean,
            );
            results.columns.push(picked);
            "a quantile that is a zero of a group holding -0.0 and 0.0 (which zero Polars \
             picks is its own)"
        } else {
            "a sort of one float column holding -0.0 and 0.0 (Polars sorts its values, \
             putting the zeros in an order of its own)"
        };
        self.check_any_later(&results, both, what.into(), ExecError::DependsOnPolars)?;
        Ok((results.columns.len() == 3)
            .then(|| results.columns.pop())
            .flatten())
    }

    /// For values in group order (`key`, position p of group `g` where
    /// `starts` says), the positions ordered by (group, value; nulls first),
    /// and each position's group number. Every group keeps its positions.
    fn order_in_groups(
        &self,
        key: &KeyWords<'_>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<(DeviceBuffer<i64>, DeviceBuffer<u32>), ExecError> {
        let ops = self.ops();
        let n = match key {
            KeyWords::Column(column) => column.len(),
            KeyWords::Words(words, _) => words.first().map_or(0, DeviceBuffer::len),
        };
        let group_ids = ops.segment_ids(starts, n)?;
        let by_value = self.sort_by_key(None, key, false, false)?;
        // Stable: each group keeps its positions, now in value order.
        let order = ops.widen(&ops.sort_by(by_value, &group_ids, None, false, false)?)?;
        Ok((order, group_ids))
    }

    /// The distinct values of `column` (the values of `expr`; null is one
    /// value) in each group: the group's rows sorted by (group, value), and
    /// the places where either changes counted per group.
    fn count_distinct(
        &self,
        column: &DeviceColumn,
        expr: &GpuExpr,
        sorted_rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceBuffer<u32>, ExecError> {
        let ops = self.ops();
        let n = sorted_rows.len();
        if n == 0 {
            return Ok(ops.segment_count(None, starts, 0)?);
        }
        // Position p holds row sorted_rows[p]; groups are runs of positions.
        let in_groups = self.gather_column(column, sorted_rows)?;
        let key = self.group_key_words(&in_groups, expr)?;
        let (order, group_ids) = self.order_in_groups(&key, starts)?;
        let flags = ops.group_flags(n)?;
        let (ordered_ids, _) = ops.gather(&group_ids, None, &order)?;
        ops.mark_group_starts(&ordered_ids, None, &flags)?;
        self.mark_key_changes(&key, &order, &flags)?;
        let changes = ops.flags_bitmap(&flags, n)?;
        Ok(ops.segment_count(Some(&changes), starts, n)?)
    }

    fn join_indices(
        &self,
        left: &DeviceColumn,
        right: &DeviceColumn,
        kind: DeviceJoin,
    ) -> Result<JoinIndices, ExecError> {
        let ops = self.ops();
        let (lv, rv) = (left.validity(), right.validity());
        Ok(match (left.values(), right.values()) {
            (Values::I32(l), Values::I32(r)) => ops.hash_join((l, lv), (r, rv), kind)?,
            (Values::I64(l), Values::I64(r)) => ops.hash_join((l, lv), (r, rv), kind)?,
            (Values::U32(l), Values::U32(r)) => ops.hash_join((l, lv), (r, rv), kind)?,
            (Values::U64(l), Values::U64(r)) => ops.hash_join((l, lv), (r, rv), kind)?,
            _ => {
                return Err(ExecError::Unsupported(format!(
                    "joining {} with {}",
                    left.dtype, right.dtype
                )));
            }
        })
    }

    /// The group of each row (by row), from groups given as the rows sorted
    /// by group and the groups' starts.
    fn group_of_rows(
        &self,
        rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceBuffer<i64>, ExecError> {
        let ops = self.ops();
        let n = rows.len();
        let group_of_position = ops.widen(&ops.segment_ids(starts, n)?)?;
        let group_of_row = DeviceBuffer::zeroed(n, self.ctx.memory.clone(), &self.ctx.stream)?;
        let scratch =
            DeviceBuffer::zeroed(n.div_ceil(32), self.ctx.memory.clone(), &self.ctx.stream)?;
        ops.scatter(&group_of_position, None, rows, &group_of_row, &scratch)?;
        Ok(group_of_row)
    }

    /// [`Executor::group_of_rows`] as an i64 column, a sort or group key.
    fn group_column(
        &self,
        rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceColumn, ExecError> {
        let group_of_row = self.group_of_rows(rows, starts)?;
        Ok(DeviceColumn::from_parts(
            "".into(),
            GpuDtype::Int64,
            rows.len(),
            Values::I64(group_of_row),
            None,
        ))
    }

    /// `input` computed over `frame`, in a frame of its own, after the
    /// number of each row's group where there are `groups`: the frame and
    /// its key columns (the group first).
    fn keyed_by_group(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        groups: InGroups<'_>,
    ) -> Result<(DeviceFrame, Vec<GpuExpr>), ExecError> {
        let mut keyed = self.computed_in_groups(frame, [&widened_key(input)], groups)?;
        if let Some((rows, starts)) = groups {
            keyed.columns.insert(0, self.group_column(rows, starts)?);
        }
        let keys = keyed
            .columns
            .iter()
            .enumerate()
            .map(|(index, column)| column_ref(index, column.dtype))
            .collect();
        Ok((keyed, keys))
    }

    /// Per group (rows `sorted_rows` from `starts`), the value of `input` at
    /// the first (`last`: the last) row where `by` is true, null where there
    /// is none: the smallest (greatest) sorted position whose row `by`
    /// keeps, its row, and a gather that gives null for none.
    fn first_kept(
        &self,
        frame: &DeviceFrame,
        (input, by): (&GpuExpr, &GpuExpr),
        last: bool,
        sorted_rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceColumn, ExecError> {
        let ops = self.ops();
        let n = sorted_rows.len();
        let groups = Some((sorted_rows, starts));
        let no = GpuExpr::literal(Scalar::Boolean(false), GpuDtype::Boolean);
        let kept = self.evaluate_in_groups(frame, &by.clone().fill_null(no), "", groups)?;
        let Values::Bits(bits) = kept.values() else {
            return Err(ExecError::Unsupported(format!("`{by}` is not a filter")));
        };
        // The positions whose rows are kept, as the valid ones.
        let (kept_in_order, _) = ops.gather_bits(bits, n, None, sorted_rows)?;
        let pick = if last {
            SegmentPick::Max
        } else {
            SegmentPick::Min
        };
        let (position, found) =
            ops.segment_pick(pick, &ops.iota(n, 0)?, Some(&kept_in_order), starts)?;
        let (row, _) = ops.gather(sorted_rows, None, &position)?;
        let picked = DeviceFrame {
            columns: vec![DeviceColumn::from_parts(
                "".into(),
                GpuDtype::Int64,
                starts.len(),
                Values::I64(row),
                Some(found),
            )],
            height: starts.len(),
        };
        // No row kept: past the end, which gathers a null.
        let none = GpuExpr::literal(Scalar::Int(-1), GpuDtype::Int64);
        let rows = self.evaluate(&picked, &column_ref(0, GpuDtype::Int64).fill_null(none), "")?;
        let Values::I64(rows) = rows.values() else {
            return Err(ExecError::Unsupported("rows as i64".into()));
        };
        // Within the groups: aggregations and functions of the rows in
        // order inside the input are the group's.
        let mut owned = None;
        let values = self.column_in_groups(frame, input, "", &mut owned, groups)?;
        self.gather_column(values, rows)
    }

    /// Per group (rows `sorted_rows` from `starts`), the value of `values`
    /// (by row) at the first (`last`: the last) row in `order`: of keys
    /// computed over `frame`, or of the values themselves, each in its
    /// direction and with its nulls placed as `(descending, nulls_last)` say
    /// (stable: ties in row order). The rows are sorted by group number,
    /// then by the keys (small integers widened), and each group's first or
    /// last row gathered. `first`/`last` of `sort_by`, and `min`/`max` of the
    /// types the per-group kernels do not reduce (the first valid value in
    /// the value's order, nulls last).
    fn pick_in_order(
        &self,
        frame: &DeviceFrame,
        values: DeviceColumn,
        order: PickOrder<'_>,
        last: bool,
        sorted_rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceColumn, ExecError> {
        if values.is_empty() {
            // No rows (an empty frame's one group): null, as every row
            // gathered from nothing is.
            return self.gather_column(&values, &self.ops().repeat_first(starts.len())?);
        }
        let (values, sorted) = self.in_order(frame, values, order, sorted_rows, starts)?;
        let rows = if last {
            let (rows, _) = self.ops().segment_pick(
                SegmentPick::Last,
                &sorted.sorted_rows,
                None,
                &sorted.starts,
            )?;
            rows
        } else {
            sorted.first_rows
        };
        self.gather_column(&values, &rows)
    }

    /// The rows of each group (rows `sorted_rows` from `starts`) in `order`
    /// (see [`Executor::pick_in_order`]): `values` back, and the groups
    /// found again over the rows sorted by group number, then by the keys,
    /// stably; sorted by group number first, each group keeps its place.
    fn in_order(
        &self,
        frame: &DeviceFrame,
        values: DeviceColumn,
        order: PickOrder<'_>,
        sorted_rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<(DeviceColumn, Groups), ExecError> {
        let n = values.len();
        let group = self.group_column(sorted_rows, starts)?;
        let value_dtype = values.dtype;
        let mut keyed = DeviceFrame {
            columns: vec![group, values],
            height: n,
        };
        let mut keys: Vec<(GpuExpr, bool, bool)> = Vec::new();
        match order {
            PickOrder::Values {
                descending,
                nulls_last,
            } => keys.push((column_ref(1, value_dtype), descending, nulls_last)),
            PickOrder::Keys(by, _) => {
                for &(expr, descending, nulls_last) in by {
                    let groups = Some((sorted_rows, starts));
                    keyed
                        .columns
                        .push(self.evaluate_in_groups(frame, expr, "", groups)?);
                    let key = column_ref(keyed.columns.len() - 1, expr.dtype);
                    keys.push((key, descending, nulls_last));
                }
            }
        }
        for (key, _, _) in &mut keys {
            let widened = widened_key(key);
            if widened.dtype != key.dtype {
                keyed.columns.push(self.evaluate(&keyed, &widened, "")?);
                *key = column_ref(keyed.columns.len() - 1, widened.dtype);
            }
        }
        let by_group = column_ref(0, GpuDtype::Int64);
        let sorting: Vec<(&GpuExpr, bool, bool)> = std::iter::once((&by_group, false, false))
            .chain(keys.iter().map(|(key, d, l)| (key, *d, *l)))
            .collect();
        let unstable = match order {
            PickOrder::Keys(_, unstable) => unstable,
            PickOrder::Values { .. } => None,
        };
        let (sorted, distinct) =
            self.sorted_groups_checked(&keyed, &sorting, 1, unstable.is_some())?;
        if let Some(unstable) = unstable
            && !distinct
        {
            return Err(ExecError::DependsOnPolars(format!(
                "rows equal on every key of `{unstable}`: without maintain_order, Polars' \
                 unstable sort orders them its own way"
            )));
        }
        Ok((keyed.columns.swap_remove(1), sorted))
    }

    /// Polars' `is_in(other.implode())` (`expr`, an `IsInColumn`) over
    /// `frame`, within each group of `groups`: a semi join of the input
    /// with `other` (on the group number too, in groups), the rows it keeps
    /// marked in a bitmap by a scatter's validity; null where the input is
    /// null, unless nulls are equal.
    fn membership(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let ExprKind::IsInColumn {
            input,
            other,
            nulls_equal,
        } = &expr.kind
        else {
            return Err(ExecError::Unsupported(format!("`{expr}` is not is_in")));
        };
        let ops = self.ops();
        let n = frame.height;
        // Both sides evaluated as they are in groups (a shift of `other`
        // within each group, as Polars shifts it there), in one frame that
        // is both sides of the join: the input, `other`, and in groups the
        // group number, a key of both.
        // (Small integers and f32 widened, as the join hashes and compares
        // wider ones.)
        let widened = |e: &GpuExpr| match e.dtype {
            GpuDtype::Float32 => cast_to(e, GpuDtype::Float64),
            _ => widened_key(e),
        };
        let mut sides = DeviceFrame {
            columns: vec![
                self.evaluate_in_groups(frame, &widened(input), "", groups)?,
                self.evaluate_in_groups(frame, &widened(other), "", groups)?,
            ],
            height: n,
        };
        let mut key_pairs = vec![(0, 1)];
        let mut on = vec![column_ref(0, sides.columns[0].dtype)];
        if let Some((rows, starts)) = groups {
            sides.columns.push(self.group_column(rows, starts)?);
            key_pairs.push((2, 2));
            on.push(column_ref(2, GpuDtype::Int64));
        }
        let kept = self.key_join(
            &sides,
            &sides,
            &key_pairs,
            &on,
            JoinKind::Semi,
            *nulls_equal,
        )?;
        let scattered = DeviceBuffer::<i64>::zeroed(n, self.ctx.memory.clone(), &self.ctx.stream)?;
        let bits =
            DeviceBuffer::<u32>::zeroed(n.div_ceil(32), self.ctx.memory.clone(), &self.ctx.stream)?;
        ops.scatter(&kept.left, None, &kept.left, &scattered, &bits)?;
        let validity = match column_at(&sides, 0)?.validity() {
            Some(valid) if !nulls_equal => {
                let copy = DeviceBuffer::<u32>::zeroed(
                    n.div_ceil(32),
                    self.ctx.memory.clone(),
                    &self.ctx.stream,
                )?;
                ops.bitmap_append(Some(valid), n, &copy, 0)?;
                Some(copy)
            }
            _ => None,
        };
        Ok(DeviceColumn::from_parts(
            "".into(),
            GpuDtype::Boolean,
            n,
            Values::Bits(bits),
            validity,
        ))
    }

    /// Polars' `sort`, `sort_by` or `arg_sort` (`expr`, a `SortedBy`) over
    /// `frame`, within each group of `groups` (one group of every row when
    /// none): the input's rows sorted stably by the keys, the i-th row of a
    /// group taking the i-th value of the group in that order.
    fn sorted_part(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        name: &str,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let ExprKind::SortedBy {
            input,
            order,
            ties_in_row_order,
        } = &expr.kind
        else {
            return Err(ExecError::Unsupported(format!("`{expr}` is not a sort")));
        };
        let whole;
        let (rows, starts) = match groups {
            Some(groups) => groups,
            None => {
                whole = self.one_group(frame.height)?;
                (&whole.0, &whole.1)
            }
        };
        let values = self.evaluate_in_groups(frame, input, name, Some((rows, starts)))?;
        if let [only] = order.as_slice()
            && *only.key == **input
            && values.dtype.is_float()
        {
            // Polars' `sort` sorts the values themselves, unstably: -0.0
            // and 0.0, equal, land in an order of its own.
            let in_group_order = self.gather_column(&values, rows)?;
            let (negative, positive) = self.signed_zeros(in_group_order, starts)?;
            self.check_both_zeros(negative, positive, None)?;
        }
        let keys: Vec<_> = order
            .iter()
            .map(|order| (order.key.as_ref(), order.descending, order.nulls_last))
            .collect();
        let order = PickOrder::Keys(&keys, (!ties_in_row_order).then_some(expr));
        let (values, sorted) = self.in_order(frame, values, order, rows, starts)?;
        // Both orders list the groups in the same places: position p is
        // the row rows[p] of the group, and takes the row sorted[p].
        let n = frame.height;
        let sources = DeviceBuffer::zeroed(n, self.ctx.memory.clone(), &self.ctx.stream)?;
        let scratch =
            DeviceBuffer::zeroed(n.div_ceil(32), self.ctx.memory.clone(), &self.ctx.stream)?;
        self.ops()
            .scatter(&sorted.sorted_rows, None, rows, &sources, &scratch)?;
        let mut column = self.gather_column(&values, &sources)?;
        column.name = name.into();
        Ok(column)
    }

    /// A cast of text (made over `frame`) to an integer or a float type,
    /// parsed as Polars parses it: null where it does not parse or fit; a
    /// strict cast keeps a failure flag the executor reads once the result
    /// is on the host. A float that only exact big-number arithmetic rounds
    /// (fast_float2's slow path: numbers of more than 19 digits, rarely)
    /// raises another flag, and the query goes to Polars.
    fn parsed_numbers(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
    ) -> Result<DeviceColumn, ExecError> {
        let ExprKind::Cast { input, mode } = &expr.kind else {
            return Err(ExecError::Unsupported(format!(
                "`{expr}` is not a cast of text to numbers"
            )));
        };
        let mut owned = None;
        let strings = self.strings_of(frame, input, &mut owned)?;
        let flag = || DeviceBuffer::<u32>::zeroed(1, self.ctx.memory.clone(), &self.ctx.stream);
        let failed = match mode {
            CastMode::Strict => Some(flag()?),
            CastMode::NonStrict | CastMode::Wrapping => None,
        };
        let ops = self.ops();
        let (values, validity) = match (expr.dtype, integer_bounds(expr.dtype)) {
            (GpuDtype::Float64 | GpuDtype::Float32, _) => {
                let undecided = flag()?;
                let parsed = if expr.dtype == GpuDtype::Float64 {
                    let (values, validity) =
                        ops.string_parse_floats::<f64>(strings, failed.as_ref(), &undecided)?;
                    (Values::F64(values), validity)
                } else {
                    let (values, validity) =
                        ops.string_parse_floats::<f32>(strings, failed.as_ref(), &undecided)?;
                    (Values::F32(values), validity)
                };
                let what = format!(
                    "texts of numbers that only exact big-number arithmetic rounds (more \
                     than 19 digits) in `{expr}`"
                );
                self.check_later(undecided, what, ExecError::DependsOnPolars);
                parsed
            }
            (_, Some(bounds)) => {
                let (words, validity) =
                    ops.string_parse_integers(strings, bounds, failed.as_ref())?;
                (Values::U64(words), validity)
            }
            _ => {
                return Err(ExecError::Unsupported(format!(
                    "`{expr}` is not a cast of text to numbers"
                )));
            }
        };
        if let Some(flag) = failed {
            let what =
                format!("a strict cast met texts that are not numbers of the type in `{expr}`");
            self.check_later(flag, what, ExecError::InvalidData);
        }
        let Values::U64(words) = values else {
            return Ok(DeviceColumn::from_parts(
                "".into(),
                expr.dtype,
                frame.height,
                values,
                Some(validity),
            ));
        };
        // The words hold values of the integer type in two's complement:
        // their wrapping cast (Rust's `as`) is exact.
        let parsed = DeviceFrame {
            columns: vec![DeviceColumn::from_parts(
                "".into(),
                GpuDtype::UInt64,
                frame.height,
                Values::U64(words),
                Some(validity),
            )],
            height: frame.height,
        };
        let cast = column_ref(0, GpuDtype::UInt64).cast(expr.dtype, CastMode::Wrapping);
        self.evaluate(&parsed, &cast, "")
    }

    /// `str.to_date` or `str.to_datetime` in `format` of `input` over
    /// `frame` (`expr`, whose type says which): texts of exactly that form
    /// (`YYYY-MM-DD` for `%Y-%m-%d`) parsed on the device; any other text
    /// raises the launch's failure flag, so the query goes to Polars, whose
    /// parser decides what it is (a value of another form, null, an error).
    fn parsed_temporals(
        &self,
        frame: &DeviceFrame,
        (input, format): (&GpuExpr, &[FormatPart]),
        expr: &GpuExpr,
    ) -> Result<DeviceColumn, ExecError> {
        let mut owned = None;
        let strings = self.strings_of(frame, input, &mut owned)?;
        let failed = DeviceBuffer::<u32>::zeroed(1, self.ctx.memory.clone(), &self.ctx.stream)?;
        let ops = self.ops();
        let (program, form): (Vec<u32>, String) = format
            .iter()
            .map(|part| match part {
                FormatPart::Byte(byte) => Ok((u32::from(*byte), char::from(*byte).to_string())),
                FormatPart::Year => Ok((PARSE_YEAR, "YYYY".into())),
                FormatPart::Month => Ok((PARSE_YEAR + 1, "MM".into())),
                FormatPart::Day => Ok((PARSE_YEAR + 2, "DD".into())),
                FormatPart::Hour => Ok((PARSE_YEAR + 3, "HH".into())),
                FormatPart::Minute => Ok((PARSE_YEAR + 4, "MM".into())),
                FormatPart::Second => Ok((PARSE_YEAR + 5, "SS".into())),
                other => Err(ExecError::Unsupported(format!(
                    "parsing {other:?} in `{expr}`"
                ))),
            })
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .unzip();
        let (values, validity) = match expr.dtype {
            GpuDtype::Date => {
                let (days, validity) = ops.string_parse_dates(strings, &program, &failed)?;
                (Values::I32(days), validity)
            }
            GpuDtype::Datetime(unit) => {
                let per_second = (unit.per_day() / 86_400) as u64;
                let (ticks, validity) =
                    ops.string_parse_timestamps(strings, &program, per_second, &failed)?;
                (Values::I64(ticks), validity)
            }
            other => {
                return Err(ExecError::Unsupported(format!("`{expr}` as {other}")));
            }
        };
        let what = format!("texts not of the form {form}, or not valid, in `{expr}`");
        self.check_later(failed, what, ExecError::InvalidData);
        Ok(DeviceColumn::from_parts(
            "".into(),
            expr.dtype,
            frame.height,
            values,
            Some(validity),
        ))
    }

    /// Polars' `rank` (`expr`) over `frame`, within each group of `groups`:
    /// the rows sorted by group, then value (nulls last), the runs of equal
    /// values found as a group-by finds groups, and each row's place counted
    /// from its group's start; nulls stay null.
    fn ranked(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let ExprKind::Rank {
            input,
            method,
            descending,
        } = &expr.kind
        else {
            return Err(ExecError::Unsupported(format!("`{expr}` is not a rank")));
        };
        let ops = self.ops();
        let n = frame.height;
        let (mut keyed, keys) = self.keyed_by_group(frame, input, groups)?;
        let mut order: Vec<(&GpuExpr, bool, bool)> =
            keys.iter().map(|key| (key, false, false)).collect();
        if let Some(value) = order.last_mut() {
            *value = (value.0, *descending, true);
        }
        let sorted = self.sorted_groups(&keyed, &order)?;
        let tie_of = ops.segment_ids(&sorted.starts, n)?;
        // Sorted by group first, the groups keep their places.
        let whole;
        let parts = match groups {
            Some((_, starts)) => starts,
            None => {
                whole = ops.iota(1, 0)?;
                &whole
            }
        };
        let part_of = ops.segment_ids(parts, n)?;
        let (rows, ties, parts) = (
            &sorted.sorted_rows,
            (&sorted.starts, &tie_of),
            (parts, &part_of),
        );
        let values = match (method, expr.dtype) {
            (RankMethod::Average, GpuDtype::Float64) => {
                Values::F64(ops.rank_averages(rows, ties, parts)?)
            }
            (_, GpuDtype::UInt32) => {
                let place = match method {
                    RankMethod::Min => RankPlace::Min,
                    RankMethod::Max => RankPlace::Max,
                    RankMethod::Dense => RankPlace::Dense,
                    _ => RankPlace::Ordinal,
                };
                Values::U32(ops.rank_places(rows, ties, parts, place)?)
            }
            _ => {
                return Err(ExecError::Unsupported(format!(
                    "`{expr}` as {}",
                    expr.dtype
                )));
            }
        };
        // Nulls stay null.
        let validity = keyed.columns.pop().and_then(|value| value.into_parts().1);
        Ok(DeviceColumn::from_parts(
            "".into(),
            expr.dtype,
            n,
            values,
            validity,
        ))
    }

    /// Polars' `is_unique`, `is_duplicated`, `is_first_distinct` or
    /// `is_last_distinct` of `input` over `frame` (within each group of
    /// `groups`): rows grouped by (group and) value, null being one value,
    /// each row's group's size, first or last row compared with the row.
    fn distinctness(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        test: DistinctTest,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let ops = self.ops();
        let n = frame.height;
        let (keyed, keys) = self.keyed_by_group(frame, input, groups)?;
        let equal = self.groups(&keyed, &keys.iter().collect::<Vec<_>>())?;
        let group_of_row = self.group_of_rows(&equal.sorted_rows, &equal.starts)?;
        let column = |values, dtype| DeviceColumn::from_parts("".into(), dtype, n, values, None);
        let (per_group, dtype) = match test {
            DistinctTest::Unique | DistinctTest::Duplicated => (
                Values::U32(ops.segment_count(None, &equal.starts, n)?),
                GpuDtype::UInt32,
            ),
            DistinctTest::FirstDistinct => (Values::I64(equal.first_rows), GpuDtype::Int64),
            DistinctTest::LastDistinct => {
                let (last, _) =
                    ops.segment_pick(SegmentPick::Last, &equal.sorted_rows, None, &equal.starts)?;
                (Values::I64(last), GpuDtype::Int64)
            }
        };
        // Each row's group's count (or first or last row), beside the row.
        let per_row = self.gather_column(&column(per_group, dtype), &group_of_row)?;
        let tested = DeviceFrame {
            columns: vec![
                per_row,
                column(Values::I64(ops.iota(n, 0)?), GpuDtype::Int64),
            ],
            height: n,
        };
        let (value, row) = (column_ref(0, dtype), column_ref(1, GpuDtype::Int64));
        let one = GpuExpr::literal(Scalar::UInt(1), dtype);
        let test = match test {
            DistinctTest::Unique => value.binary(BinaryOp::Eq, one, GpuDtype::Boolean),
            DistinctTest::Duplicated => value.binary(BinaryOp::Gt, one, GpuDtype::Boolean),
            _ => value.binary(BinaryOp::Eq, row, GpuDtype::Boolean),
        };
        self.evaluate(&tested, &test, "")
    }
    /// Every one of `height` rows as a single group, as `aggregate` takes
    /// groups: the rows in order, and the group's start.
    /// Polars' join validation: the keys of the sides in `unique` (left,
    /// right) must be unique. A side with a duplicate key, or with a null
    /// key (Polars' rules for nulls differ by join), is invalid data: the
    /// collect falls back and Polars' engine validates, raising its error
    /// or joining.
    fn validate_join(&self, keys: &JoinKeys<'_>, unique: (bool, bool)) -> Result<(), ExecError> {
        let sides = [
            (unique.0, keys.left, keys.left_on, "1:m"),
            (unique.1, keys.right, keys.right_on, "m:1"),
        ];
        for (check, frame, on, validation) in sides {
            if !check {
                continue;
            }
            let invalid = || {
                let both = if unique == (true, true) {
                    "1:1"
                } else {
                    validation
                };
                ExecError::InvalidData(format!("join keys did not fulfill {both} validation"))
            };
            let ops = self.ops();
            for key in on {
                let column = column_at(frame, column_index(key)?)?;
                if let Some(validity) = column.validity() {
                    let valid = ops.count_set(validity, frame.height)?;
                    if valid.to_host()?.first() != Some(&(frame.height as u64)) {
                        return Err(invalid());
                    }
                }
            }
            if frame.height < 2 {
                continue;
            }
            let groups = self.groups(frame, &on.iter().collect::<Vec<_>>())?;
            if groups.starts.len() != frame.height {
                return Err(invalid());
            }
        }
        Ok(())
    }

    /// Reads `flag` once the result is on the host: raised (not 0), the
    /// collect fails with `failure(what)`.
    fn check_later(&self, flag: DeviceBuffer<u32>, what: String, failure: fn(String) -> ExecError) {
        self.shared.borrow_mut().checks.push((flag, what, failure));
    }

    fn one_group(
        &self,
        height: usize,
    ) -> Result<(DeviceBuffer<i64>, DeviceBuffer<i64>), ExecError> {
        let ops = self.ops();
        Ok((ops.iota(height, 0)?, ops.iota(1, 0)?))
    }

    /// The groups of equal `keys` (columns of `frame`; nulls equal), by
    /// sorting on the keys and marking where one changes.
    fn groups(&self, frame: &DeviceFrame, keys: &[&GpuExpr]) -> Result<Groups, ExecError> {
        let keys: Vec<(&GpuExpr, bool, bool)> =
            keys.iter().map(|&key| (key, false, false)).collect();
        self.sorted_groups(frame, &keys)
    }

    /// As [`Executor::groups`], with the rows sorted by each key in the
    /// order given with it (descending, nulls last).
    fn sorted_groups(
        &self,
        frame: &DeviceFrame,
        keys: &[(&GpuExpr, bool, bool)],
    ) -> Result<Groups, ExecError> {
        self.sorted_groups_marked(frame, keys, keys.len())
    }

    /// As [`Executor::sorted_groups`], where only the first `marked` keys
    /// make groups: the others order each group's rows.
    fn sorted_groups_marked(
        &self,
        frame: &DeviceFrame,
        keys: &[(&GpuExpr, bool, bool)],
        marked: usize,
    ) -> Result<Groups, ExecError> {
        Ok(self.sorted_groups_checked(frame, keys, marked, false)?.0)
    }

    /// As [`Executor::sorted_groups_marked`]; with `check_ties`, also
    /// whether no two rows are equal on every key (else `true`).
    fn sorted_groups_checked(
        &self,
        frame: &DeviceFrame,
        keys: &[(&GpuExpr, bool, bool)],
        marked: usize,
        check_ties: bool,
    ) -> Result<(Groups, bool), ExecError> {
        let ops = self.ops();
        let n = frame.height;
        let words = self.sort_words(frame, keys)?;
        let mut permutation = None;
        for (key, &(_, descending, nulls_last)) in words.iter().zip(keys).rev() {
            permutation = Some(self.sort_by_key(permutation, key, descending, nulls_last)?);
        }
        let permutation = permutation.map_or_else(|| ops.rows(n), Ok)?;
        let sorted_rows = ops.widen(&permutation)?;
        let flags = ops.group_flags(n)?;
        for key in words.iter().take(marked) {
            self.mark_key_changes(key, &sorted_rows, &flags)?;
        }
        if marked == 0 && n > 0 {
            // One group of every row: its start is the only mark.
            ops.mark_group_starts(&ops.repeat_first(n)?, None, &flags)?;
        }
        let starts = ops.group_starts(&flags, n)?;
        let (first_rows, _) = ops.gather(&sorted_rows, None, &starts)?;
        let mut distinct = true;
        if check_ties {
            let every_key = ops.group_flags(n)?;
            for key in &words {
                self.mark_key_changes(key, &sorted_rows, &every_key)?;
            }
            distinct = ops.group_starts(&every_key, n)?.len() == n;
        }
        let groups = Groups {
            sorted_rows,
            starts,
            first_rows,
        };
        Ok((groups, distinct))
    }

    /// The keys (columns of `frame`) as the radix sort and the marking of
    /// groups take them.
    fn sort_words<'f>(
        &self,
        frame: &'f DeviceFrame,
        keys: &[(&GpuExpr, bool, bool)],
    ) -> Result<Vec<KeyWords<'f>>, ExecError> {
        keys.iter()
            .map(|&(key, _, _)| {
                if let Some(words) = self.widened_words(frame, key)? {
                    return Ok(words);
                }
                let column = column_at(frame, column_index(key)?)?;
                if let Values::F32(_) = column.values() {
                    // Widened exactly, then grouped as f64 is.
                    let (keys, _) = self.float_keys(frame, key)?;
                    return Ok(KeyWords::Words(vec![keys], column.validity()));
                }
                self.group_key_words(column, key)
            })
            .collect()
    }

    /// `expr` (a column of `frame`) as the radix sort takes it: the column,
    /// or for strings their key words. `what` names the use in errors.
    fn key_words<'f>(
        &self,
        frame: &'f DeviceFrame,
        expr: &GpuExpr,
        what: &str,
    ) -> Result<KeyWords<'f>, ExecError> {
        if let Some(words) = self.widened_words(frame, expr)? {
            return Ok(words);
        }
        self.column_key_words(column_at(frame, column_index(expr)?)?, expr, what)
    }

    /// A key column (`expr`, a column of `frame`) of booleans or small
    /// integers as one u64 word per row, in the same order and equal where
    /// the values are (booleans 0 or 1; signed integers with the sign bit
    /// flipped), with the column's validity; `None` for other keys.
    fn widened_words<'f>(
        &self,
        frame: &'f DeviceFrame,
        expr: &GpuExpr,
    ) -> Result<Option<KeyWords<'f>>, ExecError> {
        let column = column_at(frame, column_index(expr)?)?;
        let words = match column.values() {
            Values::Bits(_) | Values::U8(_) | Values::U16(_) => cast_to(expr, GpuDtype::UInt64),
            Values::I8(_) | Values::I16(_) => {
                let wide = GpuDtype::Int64;
                let flipped = cast_to(expr, wide).binary(
                    BinaryOp::Minus,
                    GpuExpr::literal(Scalar::Int(i64::MIN), wide),
                    wide,
                );
                flipped.cast(GpuDtype::UInt64, CastMode::Wrapping)
            }
            _ => return Ok(None),
        };
        let (values, _) = self.evaluate(frame, &words, "")?.into_parts();
        let Values::U64(words) = values else {
            return Err(ExecError::Unsupported(format!(
                "a key `{expr}` widened to other values"
            )));
        };
        Ok(Some(KeyWords::Words(vec![words], column.validity())))
    }

    /// A group key (`column`, the values of `expr`) as the radix sort takes
    /// it, equal exactly where Polars groups values together: floats by
    /// their total-order keys.
    fn group_key_words<'c>(
        &self,
        column: &'c DeviceColumn,
        expr: &GpuExpr,
    ) -> Result<KeyWords<'c>, ExecError> {
        Ok(match self.column_key_words(column, expr, "grouping by")? {
            KeyWords::Column(column) => match column.values() {
                // Sorted and compared by one set of total-order keys.
                Values::F64(v) => {
                    KeyWords::Words(vec![self.ops().total_order_keys(v)?], column.validity())
                }
                _ => KeyWords::Column(column),
            },
            words => words,
        })
    }

    fn column_key_words<'c>(
        &self,
        column: &'c DeviceColumn,
        expr: &GpuExpr,
        what: &str,
    ) -> Result<KeyWords<'c>, ExecError> {
        let validity = column.validity();
        match column.values() {
            Values::I32(_)
            | Values::I64(_)
            | Values::U32(_)
            | Values::U64(_)
            | Values::F32(_)
            | Values::F64(_) => Ok(KeyWords::Column(column)),
            Values::Str { offsets, bytes } => Ok(KeyWords::Words(
                self.ops().string_sort_keys(offsets, bytes, validity)?,
                validity,
            )),
            _ => Err(ExecError::Unsupported(not_yet(format_args!(
                "{what} `{expr}`"
            )))),
        }
    }

    /// One key of a stable multi-key sort (see `Ops::sort_by`), from
    /// `permutation`, or from the rows in order where that is `None` (the
    /// first key sorted: `Ops::sorted_rows` reads the key as it is).
    fn sort_by_key(
        &self,
        permutation: Option<DeviceBuffer<u32>>,
        key: &KeyWords<'_>,
        descending: bool,
        nulls_last: bool,
    ) -> Result<DeviceBuffer<u32>, ExecError> {
        let column = match key {
            KeyWords::Column(column) => column,
            KeyWords::Words(words, validity) => {
                // Least significant word first; nulls placed by the last pass.
                let mut permutation = permutation;
                for (i, word) in words.iter().enumerate().rev() {
                    let validity = if i == 0 { *validity } else { None };
                    permutation = Some(self.ops().sort_rows(
                        permutation,
                        word,
                        validity,
                        descending,
                        nulls_last,
                    )?);
                }
                return permutation
                    .ok_or_else(|| ExecError::Unsupported("a text sort key of no words".into()));
            }
        };
        let validity = column.validity();
        macro_rules! by {
            ($values:expr) => {
                self.ops()
                    .sort_rows(permutation, $values, validity, descending, nulls_last)?
            };
        }
        Ok(match column.values() {
            Values::I32(v) => by!(v),
            Values::I64(v) => by!(v),
            Values::U32(v) => by!(v),
            Values::U64(v) => by!(v),
            Values::F32(v) => by!(v),
            Values::F64(v) => by!(v),
            _ => return Err(ExecError::Unsupported(not_yet("this sort key"))),
        })
    }

    /// Sets `flags` where `key`, read in `sorted_rows` order, changes.
    fn mark_key_changes(
        &self,
        key: &KeyWords<'_>,
        sorted_rows: &DeviceBuffer<i64>,
        flags: &DeviceBuffer<u8>,
    ) -> Result<(), ExecError> {
        let ops = self.ops();
        macro_rules! mark {
            ($values:expr, $validity:expr) => {{
                let (sorted, valid) = ops.gather($values, $validity, sorted_rows)?;
                ops.mark_group_starts(&sorted, Some(&valid), flags)?
            }};
        }
        match key {
            KeyWords::Words(words, validity) => {
                for word in words {
                    mark!(word, *validity);
                }
            }
            KeyWords::Column(column) => match column.values() {
                Values::I32(v) => mark!(v, column.validity()),
                Values::I64(v) => mark!(v, column.validity()),
                Values::U32(v) => mark!(v, column.validity()),
                Values::U64(v) => mark!(v, column.validity()),
                _ => return Err(ExecError::Unsupported(not_yet("this group key"))),
            },
        }
        Ok(())
    }

    /// The rows of a join on key columns (`key_pairs`: left and right
    /// column numbers) of `kind`.
    fn key_join(
        &self,
        left_frame: &DeviceFrame,
        right_frame: &DeviceFrame,
        key_pairs: &[(usize, usize)],
        left_on: &[GpuExpr],
        kind: JoinKind,
        nulls_equal: bool,
    ) -> Result<JoinIndices, ExecError> {
        if nulls_equal && key_pairs.len() > 1 {
            // Every key as codes in which null is one more value: then a
            // plain join on the codes matches nulls with nulls.
            let (mut left_codes, mut right_codes) = (Vec::new(), Vec::new());
            for &(l, r) in key_pairs {
                let (a, b) =
                    self.key_codes(column_at(left_frame, l)?, column_at(right_frame, r)?, true)?;
                left_codes.push(a);
                right_codes.push(b);
            }
            let on: Vec<GpuExpr> = (0..key_pairs.len())
                .map(|index| column_ref(index, GpuDtype::Int64))
                .collect();
            let pairs: Vec<(usize, usize)> = (0..key_pairs.len()).map(|i| (i, i)).collect();
            let frame = |columns, height| DeviceFrame { columns, height };
            return self.key_join(
                &frame(left_codes, left_frame.height),
                &frame(right_codes, right_frame.height),
                &pairs,
                &on,
                kind,
                false,
            );
        }
        let hashed = join_key(left_on).ok_or_else(|| {
            ExecError::Unsupported(not_yet(
                "a join without an integer, temporal, text, float or boolean key",
            ))
        })?;
        let (left_key, right_key) = key_pairs[hashed];
        let kind = match kind {
            JoinKind::Inner => DeviceJoin::Inner,
            JoinKind::Left => DeviceJoin::Left,
            JoinKind::Semi => DeviceJoin::Semi,
            JoinKind::Anti => DeviceJoin::Anti,
            other => {
                return Err(ExecError::Unsupported(not_yet(format_args!(
                    "a {other:?} join"
                ))));
            }
        };
        let (left_column, right_column) = (
            column_at(left_frame, left_key)?,
            column_at(right_frame, right_key)?,
        );
        let codes;
        let (left_column, right_column) = if nulls_equal || left_column.dtype == GpuDtype::String {
            codes = self.key_codes(left_column, right_column, nulls_equal)?;
            (&codes.0, &codes.1)
        } else if hashable(left_column.dtype) {
            (left_column, right_column)
        } else {
            codes = (
                self.hashable_key(left_frame, left_key)?,
                self.hashable_key(right_frame, right_key)?,
            );
            (&codes.0, &codes.1)
        };
        if key_pairs.len() == 1 {
            return self.join_indices(left_column, right_column, kind);
        }
        // Several keys: the pairs equal on the hashed key, kept where the
        // others are equal too; the other kinds follow from those matches.
        let candidates = self.join_indices(left_column, right_column, DeviceJoin::Inner)?;
        let matched = self.refine_pairs(left_frame, right_frame, key_pairs, hashed, candidates)?;
        if kind == DeviceJoin::Inner {
            return Ok(matched);
        }
        self.complete_join(left_frame.height, right_frame.height, matched, kind)
    }

    /// Column `index` of `frame`, a float or boolean join key, as keys the
    /// hash table takes, equal exactly where Polars' join counts the values
    /// equal: booleans as integers, floats (f32 widened exactly) as their
    /// total-order keys (every NaN one value, -0.0 equal to 0.0). Nulls stay
    /// null, so they match nothing.
    fn hashable_key(&self, frame: &DeviceFrame, index: usize) -> Result<DeviceColumn, ExecError> {
        let source = column_at(frame, index)?;
        let key = GpuExpr::column(index, source.name.to_string(), source.dtype);
        if source.dtype == GpuDtype::Boolean {
            return self.evaluate(frame, &cast_to(&key, GpuDtype::Int64), "");
        }
        let (keys, validity) = self.float_keys(frame, &key)?;
        Ok(DeviceColumn::from_parts(
            "".into(),
            GpuDtype::UInt64,
            frame.height,
            Values::U64(keys),
            validity,
        ))
    }

    /// `expr`, floats of `frame` (f32 widened exactly), as their total-order
    /// keys (equal exactly where Polars counts the floats equal: every NaN
    /// one value, -0.0 equal to 0.0), with their validity.
    fn float_keys(
        &self,
        frame: &DeviceFrame,
        expr: &GpuExpr,
    ) -> Result<(DeviceBuffer<u64>, Option<DeviceBuffer<u32>>), ExecError> {
        let floats = self.evaluate(frame, &cast_to(expr, GpuDtype::Float64), "")?;
        let (values, validity) = floats.into_parts();
        let Values::F64(values) = values else {
            return Err(ExecError::Unsupported(format!(
                "float keys `{expr}` evaluated to other values"
            )));
        };
        Ok((self.ops().total_order_keys(&values)?, validity))
    }

    /// Dense i64 codes of two key columns of one type, equal exactly where
    /// the keys are (as grouping counts them equal): both columns are put
    /// one after the other, grouped, and each row gets its group's number.
    /// A null key stays null, so it matches nothing, unless `nulls_equal`
    /// (nulls are then one group, matching each other).
    fn key_codes(
        &self,
        left: &DeviceColumn,
        right: &DeviceColumn,
        nulls_equal: bool,
    ) -> Result<(DeviceColumn, DeviceColumn), ExecError> {
        let ops = self.ops();
        let (n_left, n) = (left.len(), left.len() + right.len());
        let both = self.concat_column(&[left, right], "", left.dtype, n)?;
        let key = column_ref(0, left.dtype);
        let frame = DeviceFrame {
            columns: vec![both],
            height: n,
        };
        let Groups {
            sorted_rows,
            starts,
            ..
        } = self.groups(&frame, &[&key])?;
        let group_of_position = ops.widen(&ops.segment_ids(&starts, n)?)?;
        let codes = DeviceBuffer::zeroed(n, self.ctx.memory.clone(), &self.ctx.stream)?;
        let scratch =
            DeviceBuffer::zeroed(n.div_ceil(32), self.ctx.memory.clone(), &self.ctx.stream)?;
        ops.scatter(&group_of_position, None, &sorted_rows, &codes, &scratch)?;
        // The keys' validity, so that null keys match nothing.
        let validity = if nulls_equal {
            None
        } else {
            frame.columns[0].validity()
        };
        let part = |start: usize, len: usize| -> Result<DeviceColumn, ExecError> {
            let rows = ops.iota(len, start as i64)?;
            let (values, valid) = ops.gather(&codes, validity, &rows)?;
            Ok(DeviceColumn::from_parts(
                "".into(),
                GpuDtype::Int64,
                len,
                Values::I64(values),
                Some(valid),
            ))
        };
        Ok((part(0, n_left)?, part(n_left, n - n_left)?))
    }

    /// A left, semi or anti join from the matched pairs of an inner join
    /// (in (left row, right row) order) of `n_left` rows with `n_right`.
    fn complete_join(
        &self,
        n_left: usize,
        n_right: usize,
        matched: JoinIndices,
        kind: DeviceJoin,
    ) -> Result<JoinIndices, ExecError> {
        let ops = self.ops();
        let rows = ops.iota(n_left, 0)?;
        // The left rows with (semi) or without (anti) a match, in order.
        let rows_by_match = |kind| ops.hash_join((&rows, None), (&matched.left, None), kind);
        if kind != DeviceJoin::Left {
            return Ok(rows_by_match(kind)?);
        }
        let unmatched = rows_by_match(DeviceJoin::Anti)?.left;
        let right_rows = matched
            .right
            .as_ref()
            .ok_or_else(|| ExecError::Unsupported("an inner join gave no right rows".into()))?;
        // Unmatched rows pair with a right row past the end: nulls.
        let nulls = ops.iota(unmatched.len(), n_right as i64)?;
        let (left, right) = (
            self.concat_indices(&matched.left, &unmatched)?,
            self.concat_indices(right_rows, &nulls)?,
        );
        // By left row, stably: each row's matches keep the right order.
        let order = ops.widen(&ops.sorted_rows(&left, None, false, false)?)?;
        Ok(JoinIndices {
            left: ops.gather(&left, None, &order)?.0,
            right: Some(ops.gather(&right, None, &order)?.0),
        })
    }

    /// `first` then `second`, one index buffer.
    fn concat_indices(
        &self,
        first: &DeviceBuffer<i64>,
        second: &DeviceBuffer<i64>,
    ) -> Result<DeviceBuffer<i64>, ExecError> {
        let total = first.len() + second.len();
        let out = DeviceBuffer::zeroed(total, self.ctx.memory.clone(), &self.ctx.stream)?;
        out.copy_from_device(0, first)?;
        out.copy_from_device(first.len(), second)?;
        Ok(out)
    }

    /// A right or full join, as Polars orders and shapes it: the right rows
    /// in order, each with its matching left rows in order (or with nulls),
    /// then, for a full join, the left rows that matched nothing (with
    /// nulls). Columns: the left ones then the right ones; coalescing (of
    /// the input columns `key_columns`, none without it) drops the left keys
    /// of a right join, and puts each key of a full join at its left place,
    /// the left value or else the right one.
    fn outer_join(
        &self,
        (left_frame, right_frame): (&DeviceFrame, &DeviceFrame),
        keys: &JoinKeys<'_>,
        key_columns: &[(usize, usize)],
        full: bool,
        nulls_equal: bool,
    ) -> Result<DeviceFrame, ExecError> {
        let swapped: Vec<(usize, usize)> = keys.pairs.iter().map(|&(l, r)| (r, l)).collect();
        let by_right = self.key_join(
            keys.right,
            keys.left,
            &swapped,
            keys.right_on,
            JoinKind::Left,
            nulls_equal,
        )?;
        let (mut right_rows, mut left_rows) = (
            by_right.left,
            by_right
                .right
                .ok_or_else(|| ExecError::Unsupported("a left join gave no right rows".into()))?,
        );
        if full {
            let unmatched = self
                .key_join(
                    keys.left,
                    keys.right,
                    &keys.pairs,
                    keys.left_on,
                    JoinKind::Anti,
                    nulls_equal,
                )?
                .left;
            let nulls = self
                .ops()
                .iota(unmatched.len(), right_frame.height as i64)?;
            left_rows = self.concat_indices(&left_rows, &unmatched)?;
            right_rows = self.concat_indices(&right_rows, &nulls)?;
        }
        let left_out = self.gather_frame(left_frame, &left_rows)?;
        let right_out = self.gather_frame(right_frame, &right_rows)?;
        let height = left_rows.len();
        let mut right_columns: Vec<Option<DeviceColumn>> =
            right_out.columns.into_iter().map(Some).collect();
        let mut columns = Vec::new();
        for (i, column) in left_out.columns.into_iter().enumerate() {
            match key_columns.iter().find(|&&(l, _)| l == i) {
                Some(_) if !full => {}
                Some(&(_, r)) => {
                    let other = right_columns[r].take().ok_or_else(|| {
                        ExecError::Unsupported("a right key column used twice".into())
                    })?;
                    columns.push(self.coalesce_columns(column, other, height)?);
                }
                None => columns.push(column),
            }
        }
        columns.extend(right_columns.into_iter().flatten());
        Ok(DeviceFrame { columns, height })
    }

    /// `first`'s values, or `second`'s where `first` is null (one launch).
    fn coalesce_columns(
        &self,
        first: DeviceColumn,
        second: DeviceColumn,
        height: usize,
    ) -> Result<DeviceColumn, ExecError> {
        let dtype = first.dtype;
        if let (
            Values::Str { offsets, bytes },
            Values::Str {
                offsets: o2,
                bytes: b2,
            },
        ) = (first.values(), second.values())
        {
            let part = |offsets, bytes, validity| ConcatPart {
                offsets,
                bytes,
                validity,
                mask: None,
                repeated: false,
            };
            let parts = [
                part(offsets, bytes, first.validity()),
                part(o2, b2, second.validity()),
            ];
            let strings = self.ops().string_coalesce(&parts, height)?;
            return Ok(strings_column(&first.name, strings));
        }
        let column = |index| Box::new(column_ref(index, dtype));
        let expr = GpuExpr {
            kind: ExprKind::FillNull {
                input: column(0),
                value: column(1),
            },
            dtype,
        };
        let frame = DeviceFrame {
            columns: vec![first, second],
            height,
        };
        self.evaluate(&frame, &expr, "")
    }

    /// Keeps the pairs of an inner join on `key_pairs[hashed]` whose other
    /// keys are equal too (a null key matches nothing), in the same order.
    fn refine_pairs(
        &self,
        left: &DeviceFrame,
        right: &DeviceFrame,
        key_pairs: &[(usize, usize)],
        hashed: usize,
        pairs: JoinIndices,
    ) -> Result<JoinIndices, ExecError> {
        let ops = self.ops();
        let right_rows = pairs
            .right
            .as_ref()
            .ok_or_else(|| ExecError::Unsupported("an inner join gave no right rows".into()))?;
        let n = pairs.left.len();
        let mut equal: Option<(DeviceBuffer<u32>, DeviceBuffer<u32>)> = None;
        for (i, &(l, r)) in key_pairs.iter().enumerate() {
            if i == hashed {
                continue;
            }
            let a = self.gather_column(column_at(left, l)?, &pairs.left)?;
            let b = self.gather_column(column_at(right, r)?, right_rows)?;
            let this = self.compare_columns(&a, &b, n, Comparison::Eq)?;
            equal = Some(match equal {
                None => this,
                Some((bits, valid)) => ops.kleene(
                    (&bits, Some(&valid)),
                    (&this.0, Some(&this.1)),
                    n,
                    Logic::And,
                )?,
            });
        }
        let Some((bits, valid)) = equal else {
            return Ok(pairs);
        };
        let keep = ops.filter_indices(&bits, Some(&valid), n)?;
        Ok(JoinIndices {
            left: ops.gather(&pairs.left, None, &keep)?.0,
            right: Some(ops.gather(right_rows, None, &keep)?.0),
        })
    }

    /// The frames of independent inputs (of a union or an hconcat), in
    /// order: the first on this stream, the others on the side stream.
    fn run_each(&self, inputs: &[PlanNode]) -> Result<Vec<DeviceFrame>, ExecError> {
        inputs
            .iter()
            .enumerate()
            .map(|(i, input)| {
                if i == 0 {
                    self.run(input)
                } else {
                    self.run_beside(input)
                }
            })
            .collect()
    }

    /// A shared subplan's result: run on its first use and kept on the
    /// device; each later use gets a copy, the last one the kept frame.
    fn cached(&self, input: &PlanNode, id: &str) -> Result<DeviceFrame, ExecError> {
        let (left, kept) = {
            let mut shared = self.shared.borrow_mut();
            let left = shared.uses.get_mut(id).map_or(0, |uses| {
                *uses = uses.saturating_sub(1);
                *uses
            });
            (left, shared.frames.remove(id))
        };
        let Some((mut frame, made_on)) = kept else {
            let frame = self.run(input)?;
            if left == 0 {
                return Ok(frame);
            }
            let copy = self.copy_frame(&frame)?;
            self.shared
                .borrow_mut()
                .frames
                .insert(id.to_owned(), (frame, self.ctx.stream.clone()));
            return Ok(copy);
        };
        if left == 0 {
            for column in &mut frame.columns {
                column.move_to_stream(&self.ctx.stream, None)?;
            }
            return Ok(frame);
        }
        // Read on this stream after the frame was made on its own, and
        // freed on its own only after this read.
        self.ctx.stream.wait_for(&made_on)?;
        let copy = self.copy_frame(&frame)?;
        made_on.wait_for(&self.ctx.stream)?;
        self.shared
            .borrow_mut()
            .frames
            .insert(id.to_owned(), (frame, made_on));
        Ok(copy)
    }

    /// A copy of `frame` on this executor's stream.
    fn copy_frame(&self, frame: &DeviceFrame) -> Result<DeviceFrame, ExecError> {
        let rows = self.ops().iota(frame.height, 0)?;
        self.gather_frame(frame, &rows)
    }

    /// Runs `node` on the side stream, if there is one, while work already
    /// enqueued on this executor's stream goes on, then hands its result to
    /// this stream (which waits for it there).
    fn run_beside(&self, node: &PlanNode) -> Result<DeviceFrame, ExecError> {
        let Some(side) = self.ctx.swapped() else {
            return self.run(node);
        };
        let mut frame = Executor {
            ctx: &side,
            shared: self.shared,
            uploads: self.uploads,
        }
        .run(node)?;
        for column in &mut frame.columns {
            column.move_to_stream(&self.ctx.stream, None)?;
        }
        Ok(frame)
    }

    /// The row numbers a slice `(offset, len)` of `height` rows keeps.
    fn slice_rows(
        &self,
        height: usize,
        (offset, len): (i64, usize),
    ) -> Result<DeviceBuffer<i64>, ExecError> {
        let (start, end) = slice_bounds(height, offset, len);
        Ok(self.ops().iota(end - start, start as i64)?)
    }

    fn slice_frame(
        &self,
        frame: &DeviceFrame,
        slice: (i64, usize),
    ) -> Result<DeviceFrame, ExecError> {
        self.gather_frame(frame, &self.slice_rows(frame.height, slice)?)
    }

    fn gather_frame(
        &self,
        frame: &DeviceFrame,
        indices: &DeviceBuffer<i64>,
    ) -> Result<DeviceFrame, ExecError> {
        let columns = frame
            .columns
            .iter()
            .map(|column| self.gather_column(column, indices))
            .collect::<Result<_, _>>()?;
        Ok(DeviceFrame {
            columns,
            height: indices.len(),
        })
    }

    fn gather_column(
        &self,
        column: &DeviceColumn,
        indices: &DeviceBuffer<i64>,
    ) -> Result<DeviceColumn, ExecError> {
        let ops = self.ops();
        let validity = column.validity();
        macro_rules! gather {
            ($variant:ident, $buffer:expr) => {{
                let (values, valid) = ops.gather($buffer, validity, indices)?;
                (Values::$variant(values), valid)
            }};
        }
        let (values, valid) = match column.values() {
            Values::Bits(bits) => {
                let (bits, valid) = ops.gather_bits(bits, column.len(), validity, indices)?;
                (Values::Bits(bits), valid)
            }
            Values::I8(b) => gather!(I8, b),
            Values::I16(b) => gather!(I16, b),
            Values::I32(b) => gather!(I32, b),
            Values::I64(b) => gather!(I64, b),
            Values::U8(b) => gather!(U8, b),
            Values::U16(b) => gather!(U16, b),
            Values::U32(b) => gather!(U32, b),
            Values::U64(b) => gather!(U64, b),
            Values::F32(b) => gather!(F32, b),
            Values::F64(b) => gather!(F64, b),
            Values::Str { offsets, bytes } => {
                let DeviceStrings {
                    offsets,
                    bytes,
                    validity,
                } = ops.gather_strings(offsets, bytes, validity, indices)?;
                (Values::Str { offsets, bytes }, validity)
            }
        };
        Ok(DeviceColumn::from_parts(
            column.name.clone(),
            column.dtype,
            indices.len(),
            values,
            Some(valid),
        ))
    }

    /// Evaluates a boolean expression over `frame` (see `predicate_supported`).
    fn predicate<'f>(&self, frame: &'f DeviceFrame, expr: &GpuExpr) -> Result<Mask<'f>, ExecError> {
        let n = frame.height;
        let ops = self.ops();
        match &expr.kind {
            ExprKind::Column { index, .. } => {
                let column = column_at(frame, *index)?;
                match column.values() {
                    Values::Bits(bits) => Ok(Mask::Borrowed(bits, column.validity())),
                    _ => Err(ExecError::Unsupported(format!("`{expr}` is not boolean"))),
                }
            }
            ExprKind::Binary {
                op: op @ (BinaryOp::And | BinaryOp::Or),
                left,
                right,
            } => {
                let (left, right) = (self.predicate(frame, left)?, self.predicate(frame, right)?);
                let logic = if *op == BinaryOp::And {
                    Logic::And
                } else {
                    Logic::Or
                };
                let (bits, valid) = ops.kleene(left.parts(), right.parts(), n, logic)?;
                Ok(Mask::Owned(bits, Some(valid)))
            }
            ExprKind::Binary {
                op: op @ (BinaryOp::Eq | BinaryOp::NotEq),
                left,
                right,
            } if left.dtype == GpuDtype::String && (is_literal(left) || is_literal(right)) => {
                let (column, literal) = if is_column(left) {
                    (left, right)
                } else {
                    (right, left)
                };
                let ExprKind::Literal(value) = &literal.kind else {
                    return Err(ExecError::Unsupported(not_yet(format_args!("`{expr}`"))));
                };
                let (bits, valid) = self.string_match(frame, column, value, StringMatch::Equals)?;
                let bits = if *op == BinaryOp::NotEq {
                    ops.bits_not(&bits, n)?
                } else {
                    bits
                };
                Ok(Mask::Owned(bits, Some(valid)))
            }
            ExprKind::Binary { op, left, right } if left.dtype == GpuDtype::String => {
                // Column against column, or against a literal (on either
                // side: the comparison mirrored), in Rust's `str` order.
                let op = comparison(*op)
                    .ok_or_else(|| ExecError::Unsupported(not_yet(format_args!("`{expr}`"))))?;
                let (a, b, op) = if is_column(left) {
                    (left, right, op)
                } else {
                    (right, left, mirrored(op))
                };
                let (a_column, a_offsets, a_bytes) = text_column(frame, a)?;
                let a = (a_offsets, a_bytes, a_column.validity());
                let (bits, valid) = match &b.kind {
                    ExprKind::Literal(value) => {
                        let text = self.text_literal(value)?;
                        let b = (&text.offsets, &text.bytes, Some(&text.validity));
                        ops.string_compare(a, b, true, op)?
                    }
                    _ => {
                        let (b_column, b_offsets, b_bytes) = text_column(frame, b)?;
                        ops.string_compare(a, (b_offsets, b_bytes, b_column.validity()), false, op)?
                    }
                };
                Ok(Mask::Owned(bits, Some(valid)))
            }
            ExprKind::String {
                op: StringOp::ContainsPattern(alternatives),
                input,
            } => {
                let (column, offsets, bytes) = text_column(frame, input)?;
                let (bits, valid) =
                    ops.string_match_sequence(offsets, bytes, column.validity(), alternatives)?;
                Ok(Mask::Owned(bits, Some(valid)))
            }
            ExprKind::String {
                op: StringOp::ContainsRegex(dfa),
                input,
            } => {
                let (column, offsets, bytes) = text_column(frame, input)?;
                let strings = (offsets, bytes, column.validity());
                let (bits, valid) = ops.string_match_dfa(strings, dfa_tables(dfa))?;
                Ok(Mask::Owned(bits, Some(valid)))
            }
            ExprKind::String { op, input } => {
                let (text, how) = match op {
                    StringOp::StartsWith(text) => (text, StringMatch::StartsWith),
                    StringOp::EndsWith(text) => (text, StringMatch::EndsWith),
                    StringOp::Contains(text) => (text, StringMatch::Contains),
                    _ => return Err(ExecError::Unsupported(not_yet(format_args!("`{expr}`")))),
                };
                let (bits, valid) =
                    self.string_match(frame, input, &Scalar::String(text.clone()), how)?;
                Ok(Mask::Owned(bits, Some(valid)))
            }
            ExprKind::IsBetween {
                input,
                lower,
                upper,
                closed,
            } => {
                let column = column_at(frame, column_index(input)?)?;
                let (low_op, high_op) = match closed {
                    Closed::Both => (Comparison::GtEq, Comparison::LtEq),
                    Closed::Left => (Comparison::GtEq, Comparison::Lt),
                    Closed::Right => (Comparison::Gt, Comparison::LtEq),
                    Closed::None => (Comparison::Gt, Comparison::Lt),
                };
                let (ExprKind::Literal(low), ExprKind::Literal(high)) = (&lower.kind, &upper.kind)
                else {
                    return Err(ExecError::Unsupported(not_yet(format_args!("`{expr}`"))));
                };
                let above = self.compare_scalar(column, low, n, low_op)?;
                let below = self.compare_scalar(column, high, n, high_op)?;
                let (bits, valid) = ops.kleene(
                    (&above.0, Some(&above.1)),
                    (&below.0, Some(&below.1)),
                    n,
                    Logic::And,
                )?;
                Ok(Mask::Owned(bits, Some(valid)))
            }
            ExprKind::MatchesRow {
                how,
                input,
                pattern,
            } => {
                let how = match how {
                    RowMatch::StartsWith => StringMatch::StartsWith,
                    RowMatch::EndsWith => StringMatch::EndsWith,
                    RowMatch::Contains => StringMatch::Contains,
                };
                let (mut a, mut b) = (None, None);
                let texts = self.strings_of(frame, input, &mut a)?;
                let patterns = self.strings_of(frame, pattern, &mut b)?;
                let (bits, valid) = ops.string_match_rows(texts, patterns, how)?;
                Ok(Mask::Owned(bits, Some(valid)))
            }
            ExprKind::IsIn { input, values, .. } => {
                let column = column_at(frame, column_index(input)?)?;
                let mut result: Option<(DeviceBuffer<u32>, DeviceBuffer<u32>)> = None;
                for value in values {
                    let equal = if input.dtype == GpuDtype::String {
                        self.string_match(frame, input, value, StringMatch::Equals)?
                    } else {
                        self.compare_scalar(column, value, n, Comparison::Eq)?
                    };
                    result = Some(match result {
                        None => equal,
                        Some(acc) => ops.kleene(
                            (&acc.0, Some(&acc.1)),
                            (&equal.0, Some(&equal.1)),
                            n,
                            Logic::Or,
                        )?,
                    });
                }
                let (bits, valid) = result
                    .ok_or_else(|| ExecError::Unsupported(not_yet("is_in with an empty list")))?;
                Ok(Mask::Owned(bits, Some(valid)))
            }
            ExprKind::Binary { op, left, right } => {
                let op = comparison(*op)
                    .ok_or_else(|| ExecError::Unsupported(not_yet(format_args!("`{expr}`"))))?;
                let (column, other, op) = match (&left.kind, &right.kind) {
                    (ExprKind::Column { .. }, _) => (left, right, op),
                    _ => (right, left, mirrored(op)),
                };
                let ExprKind::Column { index, .. } = column.kind else {
                    return Err(ExecError::Unsupported(not_yet(format_args!("`{expr}`"))));
                };
                let column = column_at(frame, index)?;
                let (bits, valid) = match &other.kind {
                    ExprKind::Column { index, .. } => {
                        self.compare_columns(column, column_at(frame, *index)?, n, op)?
                    }
                    ExprKind::Literal(value) => self.compare_scalar(column, value, n, op)?,
                    _ => return Err(ExecError::Unsupported(not_yet(format_args!("`{expr}`")))),
                };
                Ok(Mask::Owned(bits, Some(valid)))
            }
            ExprKind::Not(input) => {
                let inner = self.predicate(frame, input)?;
                let (bits, validity) = inner.parts();
                let negated = ops.bits_not(bits, n)?;
                let validity = match validity {
                    Some(v) => Some(ops.bits_not(&ops.bits_not(v, n)?, n)?),
                    None => None,
                };
                Ok(Mask::Owned(negated, validity))
            }
            ExprKind::IsNull(input) | ExprKind::IsNotNull(input) => {
                let ExprKind::Column { index, .. } = input.kind else {
                    return Err(ExecError::Unsupported(not_yet(format_args!("`{expr}`"))));
                };
                let column = column_at(frame, index)?;
                let valid = match column.validity() {
                    Some(v) => ops.bits_not(&ops.bits_not(v, n)?, n)?,
                    None => ops.bits_not(
                        &DeviceBuffer::zeroed(
                            n.div_ceil(32),
                            self.ctx.memory.clone(),
                            &self.ctx.stream,
                        )?,
                        n,
                    )?,
                };
                let bits = if matches!(expr.kind, ExprKind::IsNull(_)) {
                    ops.bits_not(&valid, n)?
                } else {
                    valid
                };
                Ok(Mask::Owned(bits, None))
            }
            _ => Err(ExecError::Unsupported(not_yet(format_args!("`{expr}`")))),
        }
    }

    /// A string column (`column` must be a column reference) against a literal.
    fn string_match(
        &self,
        frame: &DeviceFrame,
        column: &GpuExpr,
        value: &Scalar,
        how: StringMatch,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), ExecError> {
        let (column, offsets, bytes) = text_column(frame, column)?;
        match value {
            Scalar::String(text) => Ok(self.ops().string_match(
                offsets,
                bytes,
                column.validity(),
                text.as_bytes(),
                how,
            )?),
            // A null literal: every row is null (and false).
            Scalar::Null => {
                let words = column.len().div_ceil(32);
                let zeros =
                    || DeviceBuffer::zeroed(words, self.ctx.memory.clone(), &self.ctx.stream);
                Ok((zeros()?, zeros()?))
            }
            other => Err(ExecError::Unsupported(format!(
                "matching text with the literal {other}"
            ))),
        }
    }

    fn compare_columns(
        &self,
        a: &DeviceColumn,
        b: &DeviceColumn,
        n: usize,
        op: Comparison,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), ExecError> {
        let ops = self.ops();
        let (av, bv) = (a.validity(), b.validity());
        Ok(match (a.values(), b.values()) {
            (Values::I32(x), Values::I32(y)) => ops.compare(x, av, y, bv, false, n, op)?,
            (Values::I64(x), Values::I64(y)) => ops.compare(x, av, y, bv, false, n, op)?,
            (Values::U32(x), Values::U32(y)) => ops.compare(x, av, y, bv, false, n, op)?,
            (Values::U64(x), Values::U64(y)) => ops.compare(x, av, y, bv, false, n, op)?,
            (Values::F64(x), Values::F64(y)) => ops.compare(x, av, y, bv, false, n, op)?,
            (
                Values::Str { offsets, bytes },
                Values::Str {
                    offsets: b_offsets,
                    bytes: b_bytes,
                },
            ) => ops.string_compare((offsets, bytes, av), (b_offsets, b_bytes, bv), false, op)?,
            _ => {
                return Err(ExecError::Unsupported(format!(
                    "comparing {} with {}",
                    a.dtype, b.dtype
                )));
            }
        })
    }

    fn compare_scalar(
        &self,
        a: &DeviceColumn,
        value: &Scalar,
        n: usize,
        op: Comparison,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), ExecError> {
        let ops = self.ops();
        let (memory, stream) = (self.ctx.memory.clone(), &self.ctx.stream);
        // A null literal: every comparison is null.
        let null = matches!(value, Scalar::Null);
        let validity = DeviceBuffer::from_host(&[u32::from(!null)], memory.clone(), stream)?;
        let av = a.validity();
        let bv = Some(&validity);
        let int = |v: &Scalar| -> Option<i128> {
            match v {
                Scalar::Int(x) | Scalar::Datetime(x) | Scalar::Duration(x) => Some(i128::from(*x)),
                Scalar::UInt(x) => Some(i128::from(*x)),
                Scalar::Date(x) => Some(i128::from(*x)),
                Scalar::Null => Some(0),
                _ => None,
            }
        };
        let mismatch =
            || ExecError::Unsupported(format!("comparing {} with the literal {value}", a.dtype));
        macro_rules! scalar {
            ($t:ty, $x:expr) => {{
                let literal: $t = int(value)
                    .and_then(|v| <$t>::try_from(v).ok())
                    .ok_or_else(mismatch)?;
                let b = DeviceBuffer::from_host(&[literal], memory.clone(), stream)?;
                ops.compare($x, av, &b, bv, true, n, op)?
            }};
        }
        Ok(match a.values() {
            Values::I32(x) => scalar!(i32, x),
            Values::I64(x) => scalar!(i64, x),
            Values::U32(x) => scalar!(u32, x),
            Values::U64(x) => scalar!(u64, x),
            Values::F64(x) => {
                let literal = match value {
                    Scalar::Float(f) => *f,
                    Scalar::Null => 0.0,
                    other => int(other).map(|v| v as f64).ok_or_else(mismatch)?,
                };
                let b = DeviceBuffer::from_host(&[literal], memory.clone(), stream)?;
                ops.compare(x, av, &b, bv, true, n, op)?
            }
            _ => return Err(mismatch()),
        })
    }
}

/// The rows `[start, end)` a slice keeps, as Polars computes them: a
/// negative offset counts from the end, and the window is clamped to the
/// frame only after its end is placed (so `slice(-60, 4)` of 9 rows is empty).
fn slice_bounds(height: usize, offset: i64, len: usize) -> (usize, usize) {
    let height_i = i64::try_from(height).unwrap_or(i64::MAX);
    let start = if offset < 0 {
        offset.saturating_add(height_i)
    } else {
        offset
    };
    let stop = start.saturating_add(i64::try_from(len).unwrap_or(i64::MAX));
    let clamp = |at: i64| at.clamp(0, height_i) as usize;
    (clamp(start), clamp(stop))
}

/// A join's keys: the frames that hold them (the inputs themselves where
/// every key is a column, else the keys computed into frames of their own),
/// the pairs of their key columns, and the keys as columns of those frames.
struct JoinKeys<'a> {
    left: &'a DeviceFrame,
    right: &'a DeviceFrame,
    pairs: Vec<(usize, usize)>,
    left_on: &'a [GpuExpr],
    right_on: &'a [GpuExpr],
}

impl<'a> JoinKeys<'a> {
    /// Keys that are all columns of the inputs.
    fn columns(
        left: &'a DeviceFrame,
        right: &'a DeviceFrame,
        left_on: &'a [GpuExpr],
        right_on: &'a [GpuExpr],
    ) -> Result<Self, ExecError> {
        let pairs = left_on
            .iter()
            .zip(right_on)
            .map(|(l, r)| Ok((column_index(l)?, column_index(r)?)))
            .collect::<Result<_, ExecError>>()?;
        Ok(JoinKeys {
            left,
            right,
            pairs,
            left_on,
            right_on,
        })
    }
}

/// `keys` as the columns of a frame of them, in order.
fn column_refs(keys: &[GpuExpr]) -> Vec<GpuExpr> {
    keys.iter()
        .enumerate()
        .map(|(index, key)| column_ref(index, key.dtype))
        .collect()
}

/// The input column a coalesced join key is: a column, or a cast of one
/// (Polars casts keys of different types to a common one, and names the
/// key after the column).
fn key_column(key: &GpuExpr) -> Result<usize, ExecError> {
    match &key.kind {
        ExprKind::Cast { input, .. } => column_index(input),
        _ => column_index(key),
    }
}

fn column_index(expr: &GpuExpr) -> Result<usize, ExecError> {
    match expr.kind {
        ExprKind::Column { index, .. } => Ok(index),
        _ => Err(ExecError::Unsupported(format!(
            "`{expr}` where a column was expected"
        ))),
    }
}

/// The string column `expr` names, with its offsets and bytes.
fn text_column<'f>(
    frame: &'f DeviceFrame,
    expr: &GpuExpr,
) -> Result<
    (
        &'f DeviceColumn,
        &'f DeviceBuffer<i64>,
        &'f DeviceBuffer<u8>,
    ),
    ExecError,
> {
    let column = column_at(frame, column_index(expr)?)?;
    match column.values() {
        Values::Str { offsets, bytes } => Ok((column, offsets, bytes)),
        _ => Err(ExecError::Unsupported(format!(
            "matching a {} column as text",
            column.dtype
        ))),
    }
}

fn column_at(frame: &DeviceFrame, index: usize) -> Result<&DeviceColumn, ExecError> {
    frame.columns.get(index).ok_or_else(|| {
        ExecError::Unsupported(format!(
            "column #{index} of a frame of {}",
            frame.columns.len()
        ))
    })
}

/// The columns at `picks` (each at most once), renamed where given.
fn take_columns<'a>(
    frame: DeviceFrame,
    picks: impl Iterator<Item = (usize, Option<&'a str>)>,
) -> Result<DeviceFrame, ExecError> {
    let height = frame.height;
    let mut slots: Vec<Option<DeviceColumn>> = frame.columns.into_iter().map(Some).collect();
    let mut columns = Vec::new();
    for (index, name) in picks {
        let mut column = slots.get_mut(index).and_then(Option::take).ok_or_else(|| {
            ExecError::Unsupported(format!("column #{index} taken twice or missing"))
        })?;
        if let Some(name) = name {
            column.name = name.into();
        }
        columns.push(column);
    }
    Ok(DeviceFrame { columns, height })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use gpu_runtime::memory::{
        LimitResource, MemoryResource, PoolOptions, PoolResource, StatisticsResource,
    };
    use gpu_runtime::{Device, WorkCounts};
    use ir_lower::{
        BinaryOp, GpuDtype, GpuExpr, GpuPlan, OutputColumn, OutputSchema, PlanNode, Scalar,
    };
    use polars::prelude::{DataFrame, df};

    use super::{ExecContext, Profile, ProfiledNode, execute_counting};

    /// A context on `device` with `memory`, a side stream, and a copy
    /// stream when asked.
    fn context(device: &Device, memory: Arc<dyn MemoryResource>, copy_stream: bool) -> ExecContext {
        ExecContext {
            memory,
            stream: device.create_stream().unwrap(),
            side_stream: Some(device.create_stream().unwrap()),
            copy_stream: copy_stream.then(|| device.create_stream().unwrap()),
        }
    }

    fn pool(device: &Arc<Device>) -> Arc<dyn MemoryResource> {
        Arc::new(PoolResource::new(device.clone(), PoolOptions::default()).unwrap())
    }

    /// The output of a frame of two columns, an Int64 `k` and `second`.
    fn k_and(second: (&str, GpuDtype)) -> OutputSchema {
        [("k", GpuDtype::Int64), second]
            .into_iter()
            .map(|(name, dtype)| OutputColumn {
                name: name.into(),
                dtype,
            })
            .collect()
    }

    /// A scan of both columns of `df`.
    fn scan(df: &DataFrame, schema: &OutputSchema) -> PlanNode {
        PlanNode::DataFrameScan {
            df: Arc::new(df.clone()),
            projection: vec![0, 1],
            schema: schema.clone(),
        }
    }

    #[test]
    fn a_plans_inputs_upload_ahead_on_the_copy_stream() {
        let device = Arc::new(Device::under_test(1 << 30).expect("the device under test"));
        let n = 50_000;
        let frame = |step: i64| {
            df!(
                "k" => (0..n).map(|i| i * step % 9_973).collect::<Vec<i64>>(),
                "s" => (0..n).map(|i| format!("s{}", i * step % 313)).collect::<Vec<String>>(),
            )
            .unwrap()
        };
        let frames = [frame(7), frame(11), frame(13)];
        let schema = k_and(("s", GpuDtype::String));
        // A union of three in-memory frames: the first input on the
        // executor's stream, the others on its side stream.
        let plan = GpuPlan {
            root: PlanNode::Union {
                inputs: frames.iter().map(|df| scan(df, &schema)).collect(),
                slice: None,
                schema: schema.clone(),
            },
        };
        let mut expected = frames[0].clone();
        expected.vstack_mut(&frames[1]).unwrap();
        expected.vstack_mut(&frames[2]).unwrap();
        // Three scans, each made by the copy stream's worker and waited for
        // there; without a copy stream, by the executor.
        for (copy_stream, ahead) in [(true, 3), (false, 0)] {
            let context = context(&device, pool(&device), copy_stream);
            let (df, uploaded_ahead) = execute_counting(&plan, &context).unwrap();
            assert!(df.equals_missing(&expected), "{df}\n{expected}");
            assert_eq!(uploaded_ahead, ahead, "copy stream: {copy_stream}");
        }
    }

    #[test]
    fn a_plan_that_fits_only_without_uploads_ahead_still_runs() {
        // A filter that keeps every row of a large input (its work holds
        // about as much again), in a union with a small input: uploaded
        // when reached, the small input comes after the filter's work is
        // freed; uploaded ahead, it is there during that work, which the
        // limit (the most the plan holds the first way) does not allow.
        // Whichever allocation fails (the worker's, or the executor's, and
        // then the plan runs again without uploads ahead), the result is
        // the CPU's.
        let device = Arc::new(Device::under_test(1 << 30).expect("the device under test"));
        let frame = |n: usize, step: i64| {
            df!(
                "k" => (0..n as i64).map(|i| i * step % 1_000_003).collect::<Vec<i64>>(),
                "v" => (0..n as i64).map(|i| i * 3).collect::<Vec<i64>>(),
            )
            .unwrap()
        };
        let (a, b) = (frame(400_000, 7), frame(50_000, 11));
        let schema = k_and(("v", GpuDtype::Int64));
        let kept = GpuExpr::column(0, "k", GpuDtype::Int64).binary(
            BinaryOp::GtEq,
            GpuExpr::literal(Scalar::Int(0), GpuDtype::Int64),
            GpuDtype::Boolean,
        );
        let plan = GpuPlan {
            root: PlanNode::Union {
                inputs: vec![
                    PlanNode::Filter {
                        input: Box::new(scan(&a, &schema)),
                        predicate: kept,
                        schema: schema.clone(),
                    },
                    scan(&b, &schema),
                ],
                slice: None,
                schema: schema.clone(),
            },
        };
        let mut expected = a.clone();
        expected.vstack_mut(&b).unwrap();
        // The most the plan holds with each input uploaded when reached:
        // the limit.
        let counted = Arc::new(StatisticsResource::new(pool(&device)));
        let (df, _) = execute_counting(&plan, &context(&device, counted.clone(), false)).unwrap();
        assert!(df.equals_missing(&expected), "{df}\n{expected}");
        let limit = counted.statistics().peak_bytes;
        for _ in 0..3 {
            let limited = Arc::new(LimitResource::new(pool(&device), limit));
            let (df, _) = execute_counting(&plan, &context(&device, limited, true)).unwrap();
            assert!(df.equals_missing(&expected), "{df}\n{expected}");
        }
    }

    #[test]
    fn a_profile_gives_each_node_its_time_and_work_without_its_inputs() {
        let ms = Duration::from_millis;
        let node = |depth, line: &str, time, rows, launches, host_waits| ProfiledNode {
            depth,
            line: line.into(),
            time,
            rows,
            work: WorkCounts {
                launches,
                host_waits,
            },
        };
        let profile = Profile {
            depth: 0,
            nodes: vec![
                node(0, "Sort", ms(10), 1, 30, 9),
                node(1, "Join", ms(6), 5, 20, 6),
                node(2, "Scan left", ms(2), 5, 2, 2),
                node(1, "Scan right", ms(3), 7, 3, 1),
            ],
        };
        let text = profile.render(ms(4), 1);
        let lines: Vec<Vec<&str>> = text
            .lines()
            .skip(1)
            .map(|line| line.split_whitespace().collect())
            .collect();
        // Total, own (total minus the direct inputs' totals), rows, own
        // launches, own host waits (less the profile's one per node), node.
        assert_eq!(lines[0][..6], ["10.00", "1.00", "1", "7", "1", "Sort"]);
        assert_eq!(lines[1][..6], ["6.00", "4.00", "5", "18", "3", "Join"]);
        assert_eq!(lines[2][..6], ["2.00", "2.00", "5", "2", "1", "Scan"]);
        assert_eq!(lines[3][..6], ["3.00", "3.00", "7", "3", "0", "Scan"]);
        assert_eq!(lines[4], ["4.00", "1", "download", "of", "the", "result"]);
        // Inputs are indented under their node, two spaces a level.
        let raw: Vec<&str> = text.lines().collect();
        assert!(raw[1].ends_with(" 1  Sort"), "{text}");
        assert!(raw[2].ends_with(" 3    Join"), "{text}");
        assert!(raw[3].ends_with(" 1      Scan left"), "{text}");
        assert!(raw[4].ends_with(" 0    Scan right"), "{text}");
    }
}
