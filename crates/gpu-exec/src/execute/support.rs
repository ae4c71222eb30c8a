//! The executor's last check over a whole plan before it starts: what it cannot compute (ir-lower decides support, so what this finds is a bug, an internal error).

use super::*;
pub(crate) use ir_lower::support::{comparable, group_key, hashable, list_sort_key};

/// Every part of `plan` the executor cannot run, each with its plan node
/// (empty: it can, once its file scans are read on the host into
/// in-memory frames, as engine-select does). For a plan ir-lower lowered,
/// anything here is a bug: engine-select reports it as an internal error.
pub fn unsupported(plan: &GpuPlan) -> Vec<Refusal> {
    let mut refusals = Vec::new();
    check_tree(&plan.root, &mut refusals);
    refusals
}

/// The node's line of the plan as `explain` shows it, shortened.
fn subject(node: &PlanNode) -> String {
    const MOST: usize = 160;
    let header = node.header();
    match header.char_indices().nth(MOST) {
        Some((end, _)) => format!("{}…", &header[..end]),
        None => header,
    }
}

fn check_tree(node: &PlanNode, refusals: &mut Vec<Refusal>) {
    for input in node.inputs() {
        check_tree(input, refusals);
    }
    let mut reasons = Vec::new();
    check_node(node, &mut reasons);
    refusals.extend(reasons.into_iter().map(|reason| Refusal {
        subject: subject(node),
        reason,
        whole_plan: false,
    }));
}

pub(crate) fn not_yet(what: impl std::fmt::Display) -> String {
    format!("{what} is not executed on the device yet")
}

/// Why the executor cannot run `node` itself (its inputs aside).
fn check_node(node: &PlanNode, reasons: &mut Vec<String>) {
    match node {
        PlanNode::DataFrameScan { .. }
        | PlanNode::SimpleProjection { .. }
        | PlanNode::Slice { .. }
        | PlanNode::RowIndex { .. }
        | PlanNode::Explode { .. }
        | PlanNode::Unnest { .. }
        | PlanNode::HConcat { .. }
        | PlanNode::AsofJoin { .. } => {}
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
        // (Of lists and structs of keys, by their codes.)
        PlanNode::Select { exprs, .. }
            if unique_of_column(exprs).is_some_and(|(key, _)| {
                group_key(key.dtype) || ir_lower::support::nested_key(key.dtype)
            }) => {}
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
        // Read on the host by whoever runs the plan (engine-select reads
        // every file scan with Polars' reader before the device starts).
        PlanNode::FileScan { .. } => {}
        // (The keys' types are decided in ir-lower: `ir_lower::support`.)
        PlanNode::Sort { keys, .. } => {
            for key in keys {
                if !computable_key(&key.expr) {
                    reasons.push(not_yet(format_args!("sorting by `{}`", key.expr)));
                }
            }
        }
        // (Slices of groups in no order are refused in ir-lower.)
        PlanNode::GroupBy { keys, aggs, .. } => {
            for key in keys {
                if !computable_key(&key.expr) {
                    reasons.push(not_yet(format_args!("grouping by `{}`", key.expr)));
                }
            }
            for agg in aggs {
                if let Err(why) = aggregation_supported(&agg.expr) {
                    reasons.push(not_yet(format_args!("aggregation `{}` ({why})", agg.expr)));
                }
            }
        }
        PlanNode::Join {
            left_on,
            right_on,
            predicate,
            ..
        } => {
            // Keys are columns or row-wise expressions (computed first).
            // (Their types and pairs, and which coalesce, are decided in
            // ir-lower: `ir_lower::support`.)
            let key_fits = |key: &GpuExpr| computable_key(key) && !key.has_window();
            if let Some(key) = left_on.iter().chain(right_on).find(|key| !key_fits(key)) {
                reasons.push(not_yet(format_args!("a join on `{key}`")));
            }
            if let Some(p) = predicate
                && !predicate_supported(p)
                && evaluable(p).is_err()
            {
                reasons.push(not_yet(format_args!("a join's filter `{p}`")));
            }
        }
        PlanNode::Distinct { .. } | PlanNode::Union { .. } => {}
        PlanNode::Cache { .. } => {}
    }
}

/// Whether the executor computes every field of a struct it builds.
fn fields_evaluable(fields: &[GpuExpr]) -> Result<(), String> {
    fields.iter().try_for_each(|field| match field.dtype {
        GpuDtype::String => string_valued(field),
        _ => evaluable(field),
    })
}

/// Whether [`Executor::evaluate`] runs `expr`: the evaluator alone, or
/// after the predicate kernels computed the boolean parts it cannot run
/// (string comparisons and matches, `is_in` of strings).
pub(crate) fn evaluable(expr: &GpuExpr) -> Result<(), String> {
    if let Some((checked, checks)) = without_polars_own(expr) {
        for check in &checks {
            evaluable(&check.test)?;
        }
        return evaluable(&checked);
    }
    if expr.dtype.is_nested() {
        // A copy of a list or struct column, texts split, a struct made,
        // values imploded (per window group too).
        return match &expr.kind {
            ExprKind::Column { .. } => Ok(()),
            ExprKind::String { op, input } if op.makes_lists() => string_valued(input),
            ExprKind::Agg {
                op: AggOp::Implode | AggOp::Mode { .. },
                input,
            } => implode_supported(expr, input),
            // A window mapped by `join`: its group's list on each row.
            ExprKind::Window {
                function,
                partition_by,
                order_by: None,
            } if let ExprKind::Agg {
                op: AggOp::Implode,
                input,
            } = &function.kind =>
            {
                partition_by.iter().try_for_each(evaluable)?;
                implode_supported(function, input)
            }
            // A function of each list giving lists (`list.sort`).
            ExprKind::List { function, input } => {
                list_function_supported(function)?;
                evaluable(input)
            }
            ExprKind::ConcatList(inputs) => inputs.iter().try_for_each(|input| match input.dtype {
                GpuDtype::String => string_valued(input),
                _ => evaluable(input),
            }),
            ExprKind::IntRanges { start, end, .. } => {
                evaluable(start)?;
                evaluable(end)
            }
            ExprKind::MakeStruct(fields) => fields_evaluable(fields),
            ExprKind::WithFields { input, fields } => match input.kind {
                ExprKind::Column { .. } => fields_evaluable(fields),
                _ => Err(format!("`{expr}` of a struct that is not a column")),
            },
            ExprKind::Cast { input, .. } if matches!(input.dtype, GpuDtype::Struct(_)) => {
                evaluable(input)
            }
            _ if let Some(supported) = moves_supported(expr) => supported,
            // A null list or struct; a choice between lists or structs.
            ExprKind::Literal(Scalar::Null) => Ok(()),
            ExprKind::Ternary {
                predicate,
                truthy,
                falsy,
            } => [predicate, truthy, falsy]
                .into_iter()
                .try_for_each(|part| evaluable(part)),
            ExprKind::FillNull { input, value } => {
                evaluable(input)?;
                evaluable(value)
            }
            // Such a choice within window groups.
            ExprKind::Window {
                function,
                partition_by,
                order_by,
            } if function.is_choice() => {
                partition_supported(partition_by, order_by.as_ref(), function)?;
                evaluable(function)
            }
            // A column's first or last list or struct (of each group),
            // repeated on its rows.
            ExprKind::Agg {
                op: AggOp::First | AggOp::Last,
                ..
            } => single_aggregation_supported(expr),
            _ => Err(format!("the values of `{expr}`")),
        };
    }
    if expr.dtype == GpuDtype::String {
        return string_valued(expr);
    }
    if expr.has_aggregation() {
        // Whole-column aggregations, broadcast to every row.
        // (Numbered above any input column, so no predicate part reads them.)
        // (Those inside functions of lists or structs stay, computed with
        // them as parts: below.)
        let (outer, leaves) = hoist_aggregations(expr, usize::MAX / 2, true)?;
        for leaf in &leaves {
            single_aggregation_supported(leaf)?;
        }
        if !leaves.is_empty() {
            return evaluable(&outer);
        }
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
pub(crate) fn computable_key(key: &GpuExpr) -> bool {
    is_column(key) || (!key.has_aggregation() && evaluable(key).is_ok())
}

/// Whether the executor computes the window `expr`: partitions by columns
/// it groups, and a function it evaluates with its aggregations, shifts,
/// fills and `cum_sum`s taken per group (no window inside).
pub(crate) fn window_supported(expr: &GpuExpr) -> Result<(), String> {
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
pub(crate) fn sort_keys_supported(order: &[RowOrder]) -> Result<(), String> {
    for order in order {
        let key = order.key.as_ref();
        let keyed = group_key(widened_key(key).dtype) || list_sort_key(key.dtype);
        if !computable_key(key) || key.has_window() || !keyed {
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
pub(crate) fn partition_supported(
    partition_by: &[GpuExpr],
    order_by: Option<&RowOrder>,
    function: &GpuExpr,
) -> Result<(), String> {
    let order_key = order_by.map(|order| order.key.as_ref());
    for (i, key) in partition_by.iter().chain(order_key).enumerate() {
        // (A window inside a key would be a window inside the window.
        // Partitions by lists of keys, by their codes.)
        let keyed = group_key(key.dtype)
            || (i < partition_by.len() && ir_lower::support::list_key(key.dtype));
        if !computable_key(key) || key.has_window() || !keyed {
            return Err(format!("a window partitioned or ordered by `{key}`"));
        }
    }
    if order_by.is_some() && function.any(&ir_lower::support::reads_in_own_order) {
        return Err(format!(
            "a rank, distinctness test or sort in the ordered window of `{function}`"
        ));
    }
    Ok(())
}

/// Whether the executor computes `expr` where it moves its input's values
/// whole to other rows, of any type (see [`GpuExpr::moved_rows`]): over
/// the frame, or within each window group; `None` where it does not move
/// values.
fn moves_supported(expr: &GpuExpr) -> Option<Result<(), String>> {
    expr.moved_rows()?;
    Some(match &expr.kind {
        ExprKind::Window {
            function,
            partition_by,
            order_by,
        } => partition_supported(partition_by, order_by.as_ref(), function)
            .and_then(|()| row_order_part_supported(function)),
        _ => row_order_part_supported(expr),
    })
}

/// Whether the executor computes `expr`, a part that depends on the order
/// of the rows (a shift, a forward or backward fill, a `cum_sum` or `cum_prod`, a
/// `cum_max` or `cum_min`, a rolling window, an `ewm_*`, a rank, a distinctness test), of an
/// expression it evaluates (or makes, for text) row by row, with no
/// aggregation or window inside. (Inside a window or an aggregation it is
/// computed within each group, in the rows' order.)
pub(crate) fn row_order_part_supported(expr: &GpuExpr) -> Result<(), String> {
    let (ExprKind::Shift { input, .. }
    | ExprKind::Reverse(input)
    | ExprKind::Gather { input, .. }
    | ExprKind::SetSorted { input, .. }
    | ExprKind::Fill { input, .. }
    | ExprKind::CumSum(input)
    | ExprKind::CumProd(input)
    | ExprKind::CumExtreme { input, .. }
    | ExprKind::Rolling { input, .. }
    | ExprKind::Ewm { input, .. }
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
    if let ExprKind::Gather { indices, .. } = &expr.kind {
        if indices.has_aggregation() || indices.has_window() || !indices.dtype.is_integer() {
            return Err(format!("a gather by `{indices}`"));
        }
        evaluable(indices)?;
    }
    if input.has_aggregation() || input.has_window() {
        return Err(format!("a shift or fill of aggregated values (`{expr}`)"));
    }
    if let ExprKind::Rolling {
        window:
            ir_lower::RollingWindow::Times { by, .. } | ir_lower::RollingWindow::Slices { place: by },
        ..
    } = &expr.kind
    {
        if by.has_aggregation() || by.has_window() || by.dtype != GpuDtype::Int64 {
            return Err(format!("windows by `{by}`"));
        }
        evaluable(by)?;
    }
    if let ExprKind::SortedBy { order, .. } = &expr.kind {
        if let Some(order) = order.iter().find(|order| order.key.has_aggregation()) {
            return Err(format!("rows sorted by `{}`", order.key));
        }
        sort_keys_supported(order)?;
    }
    // (Structs and lists of keys by their codes.)
    let nested_keys = ir_lower::support::struct_of_keys(input).is_some()
        || ir_lower::support::list_key(input.dtype);
    if matches!(expr.kind, ExprKind::Distinct { .. } | ExprKind::Rank { .. })
        && !group_key(widened_key(input).dtype)
        && !(nested_keys && matches!(expr.kind, ExprKind::Distinct { .. }))
    {
        return Err(format!("`{expr}` of {}", input.dtype));
    }
    // Evaluated, or for text made by the string kernels.
    evaluable(input)
}

/// Whether `expr` is a cast of text the device makes to an integer, a
/// float or a decimal type (parsed by [`Executor::parsed_numbers`]) or to a categorical
/// or enum (their codes, by [`Executor::cast_as_categories`]).
pub(crate) fn text_parse_supported(expr: &GpuExpr) -> bool {
    match &expr.kind {
        ExprKind::Cast { input, .. } => {
            input.dtype == GpuDtype::String
                && (integer_bounds(expr.dtype).is_some()
                    || matches!(
                        expr.dtype,
                        GpuDtype::Float32
                            | GpuDtype::Float64
                            | GpuDtype::Categorical(_)
                            | GpuDtype::Decimal(..)
                    ))
                && string_valued(input).is_ok()
        }
        ExprKind::ParseTemporal { input, .. } => string_valued(input).is_ok(),
        _ => false,
    }
}

/// Whether [`Executor::make_strings`] makes the strings of `expr`: a
/// column, or `str.slice` of such an expression.
pub(crate) fn string_valued(expr: &GpuExpr) -> Result<(), String> {
    match &expr.kind {
        ExprKind::Column { .. } => Ok(()),
        // A text of a list (its place, or its texts joined), a struct's field.
        ExprKind::List { function, input } => {
            list_function_supported(function)?;
            evaluable(input)
        }
        ExprKind::StructField { input, .. } => evaluable(input),
        ExprKind::String {
            op:
                StringOp::Slice { .. }
                | StringOp::DropLast(_)
                | StringOp::ToUppercase
                | StringOp::ToLowercase
                | StringOp::Strip { .. }
                | StringOp::Replace { .. }
                | StringOp::ReplaceMany { .. }
                | StringOp::Extract(_)
                | StringOp::ExtractGroup { .. }
                | StringOp::ReplaceGroups { .. }
                | StringOp::Pad { .. },
            input,
        } => string_valued(input),
        ExprKind::StringByRows {
            input, by, length, ..
        } => {
            string_valued(input)?;
            match by.dtype {
                GpuDtype::String => string_valued(by)?,
                _ => evaluable(by)?,
            }
            length.as_deref().map_or(Ok(()), evaluable)
        }
        ExprKind::SetSorted { .. } => row_order_part_supported(expr),
        _ if let Some(supported) = moves_supported(expr) => supported,
        // An aggregation of text per group, repeated on the group's rows.
        ExprKind::Window {
            function,
            partition_by,
            order_by,
        } if matches!(function.kind, ExprKind::Agg { .. }) => {
            partition_supported(partition_by, order_by.as_ref(), function)?;
            single_aggregation_supported(function)
        }
        // An aggregation of text over the whole frame, repeated on every row.
        ExprKind::Agg { .. } => single_aggregation_supported(expr),
        ExprKind::Strftime { input, .. } => evaluable(input),
        ExprKind::Cast { input, .. }
            if input.dtype.is_numeric()
                || matches!(
                    input.dtype,
                    GpuDtype::Boolean
                        | GpuDtype::Date
                        | GpuDtype::Datetime(_)
                        | GpuDtype::Time
                        | GpuDtype::Categorical(_)
                        | GpuDtype::Decimal(..)
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

/// Whether [`Executor::concatenated`] takes `input`: text it makes, or a
/// text literal.
pub(crate) fn text_part(input: &GpuExpr) -> Result<(), String> {
    match &input.kind {
        ExprKind::Literal(Scalar::String(_) | Scalar::Null) => Ok(()),
        _ if input.dtype == GpuDtype::String => string_valued(input),
        _ => Err(format!("`{input}` is not text")),
    }
}

/// Whether the executor runs `expr` per group: aggregations the kernels
/// run (see [`single_aggregation_supported`]), alone or inside an
/// elementwise expression of them and literals (`0.2 * mean(x)`).
pub(crate) fn aggregation_supported(expr: &GpuExpr) -> Result<(), String> {
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

/// Whether `expr` is a function of each list or a struct's field, of a
/// list or struct the executor computes: a part other kernels compute.
pub(crate) fn nested_part(expr: &GpuExpr) -> bool {
    match &expr.kind {
        ExprKind::List { function, input } => {
            list_function_supported(function).is_ok() && evaluable(input).is_ok()
        }
        ExprKind::StructField { input, .. } => evaluable(input).is_ok(),
        // Structs tested for nulls.
        ExprKind::IsNull(input) | ExprKind::IsNotNull(input)
            if matches!(input.dtype, GpuDtype::Struct(_)) =>
        {
            evaluable(input).is_ok()
        }
        ExprKind::ListsEqual { left, right, .. } => {
            evaluable(left).is_ok() && evaluable(right).is_ok()
        }
        ExprKind::InLists { item, lists, .. } => {
            evaluable(lists).is_ok()
                && match item.dtype {
                    GpuDtype::String => string_valued(item).is_ok(),
                    _ => evaluable(item).is_ok(),
                }
        }
        _ => false,
    }
}

/// Whether the executor computes what `function` computes of each list's
/// values (column 0 of a frame of their own, each list a group): an
/// evaluation, an aggregation or a filter of them.
fn list_function_supported(function: &ListFunction) -> Result<(), String> {
    match function {
        ListFunction::Eval(expr)
        | ListFunction::Agg {
            aggregation: expr, ..
        }
        | ListFunction::Keep { by: expr, .. } => evaluable(expr),
        // (A place of each row, over the frame's rows.)
        ListFunction::GetAt { index, .. } => evaluable(index),
        ListFunction::SliceAt { offset, length } => {
            evaluable(offset)?;
            evaluable(length)
        }
        _ => Ok(()),
    }
}

/// Whether the executor lists `input` per group (`expr`, its implode or
/// its modes): its values, and a filter's rows, computed as in the group.
fn implode_supported(expr: &GpuExpr, input: &GpuExpr) -> Result<(), String> {
    let (values, kept) = match &input.kind {
        ExprKind::Where { input, by } => (input.as_ref(), Some(by.as_ref())),
        _ => (input, None),
    };
    if !matches!(expr.dtype, GpuDtype::List(of) if of.values() == values.dtype) {
        return Err(format!("`{expr}` as {}", expr.dtype));
    }
    per_group_text_made(expr)?;
    for part in std::iter::once(values).chain(kept) {
        evaluable(part)?;
    }
    Ok(())
}

/// Whether the aggregation `expr` reads text made of aggregations or of
/// other rows, which is made over the whole frame, not per group (see
/// ir-lower's `text_of_other_rows_inside`).
fn per_group_text_made(expr: &GpuExpr) -> Result<(), String> {
    if ir_lower::support::text_of_other_rows_inside(expr) {
        return Err(format!(
            "text made of aggregations or of other rows inside the aggregation `{expr}`"
        ));
    }
    Ok(())
}

/// Whether the per-group kernels run `expr`: `len()`, or one aggregation of
/// an elementwise expression, with the output type the kernels give.
pub(crate) fn single_aggregation_supported(expr: &GpuExpr) -> Result<(), String> {
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
    if let AggOp::Implode | AggOp::Mode { .. } = op {
        return implode_supported(expr, input);
    }
    per_group_text_made(expr)?;
    if let ExprKind::SortedBy {
        input: sorted,
        order,
        ..
    } = &input.kind
    {
        // An aggregation the order does not change, of the values as they
        // come (see `Executor::aggregate`).
        if ir_lower::support::order_free(op, sorted.dtype) {
            return single_aggregation_supported(
                &sorted.as_ref().clone().aggregated(op.clone(), expr.dtype),
            );
        }
        // The first or last row in the key's order (or the one at a
        // place), of any type.
        if !matches!(op, AggOp::First | AggOp::Last | AggOp::Get { .. })
            || expr.dtype != sorted.dtype
        {
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
    // (A sum of f32 in f32 is a whole frame's, Polars' pairwise one: ir-lower
    // refuses it per group.)
    let fits = ir_lower::support::aggregation_types(op, input.dtype, expr.dtype)
        || ir_lower::support::sum_in_f32(op, input.dtype, expr.dtype);
    if fits {
        Ok(())
    } else {
        Err(format!("{op} of {} into {}", input.dtype, expr.dtype))
    }
}

pub(crate) fn predicate_supported(expr: &GpuExpr) -> bool {
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
