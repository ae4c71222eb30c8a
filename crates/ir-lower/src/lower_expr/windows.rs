//! Windows (`over`): mapped to the rows or by `join`, ordered or not, with windows inside a window's function partitioned by its keys too.

use polars_core::prelude::SortOptions;

use super::*;

impl ExprLowering<'_> {
    /// `function` over partitions by `partition_by` (ordered by `order_by`,
    /// mapped by `mapping`) at `node`.
    pub(super) fn window(
        &mut self,
        node: Node,
        function: Node,
        partition_by: &[Node],
        order_by: Option<(Node, SortOptions)>,
        mapping: WindowMapping,
    ) -> Lowered {
        // Mapped by `join`: each row's group's values as a list (a
        // function of one value per group, whose empty frame Polars
        // gives lists, and an order, stay with Polars).
        let joined = mapping == WindowMapping::Join;
        if !(mapping == WindowMapping::GroupsToRows
            || joined && order_by.is_none() && matches!(self.dtype(node)?, GpuDtype::List(_)))
        {
            let why = match joined {
                true => {
                    "a window with mapping_strategy=\"join\" of one value per \
                         group, or ordered, is not supported on the GPU"
                }
                false => {
                    "a window with mapping_strategy=\"explode\" inside an \
                          expression or in with_columns is not supported on the GPU"
                }
            };
            return self.refuse(node, why);
        }
        // A literal partition is one partition of every row (Polars
        // makes `over(order_by=...)` so); other single values as keys
        // Polars broadcasts, or (as an order) rejects.
        let one_value = |key: &Node| self.one_value(*key);
        let literal = |key: &Node| matches!(self.arena.get(*key), AExpr::Literal(_));
        if let Some(key) = partition_by
            .iter()
            .filter(|key| !literal(key))
            .chain(order_by.as_ref().map(|(key, _)| key))
            .find(|key| one_value(key))
        {
            let key = self.notation(*key);
            return self.refuse(
                node,
                format!(
                    "a window partitioned or ordered by one value (`{key}`) is not \
                     supported on the GPU"
                ),
            );
        }
        // Polars holds a window of a constant as one value, which
        // its arithmetic takes by its scalar kernels (fuzz seed 2677:
        // `lit(0.0).over(c) - a` is -0.0 where `a` is 0.0). It computes it
        // by the group-by path the keys' columns lead it to (sorted or
        // not), and panics on some over keys it does not know sorted (fuzz
        // seed 6606 case 168, `lit(999).sort().over(b)`): no mixed plan,
        // whose device part would hand it such columns.
        // Among the rows (`lit(0.0).over(g) - x`, whose other operands
        // read the rows), such a window is the constant itself, taken as
        // Polars takes it (see `constant_windows_among_rows`).
        let among_rows = (self.constant_windows.as_ref()).is_some_and(|w| w.contains(&node));
        if among_rows && !self.per_group && order_by.is_none() && !joined {
            let keys: Vec<Lowered> = partition_by.iter().map(|&key| self.expr(key)).collect();
            let constant = self.expr(function);
            return keys
                .into_iter()
                .all(|key| key.is_some())
                .then_some(constant)?;
        }
        if is_constant(function, self.arena) {
            let constant = self.notation(function);
            let reason = format!(
                "a window of the constant `{constant}` (Polars holds it as one value) is not \
                 supported on the GPU, but among other operands of each row (`lit(1).over(g) \
                 - x`)"
            );
            return self.refused(node, reason, true);
        }
        let outer = std::mem::replace(&mut self.per_group, true);
        let function_node = function;
        let function = match joined {
            true => self.implode(node, function).map(Box::new),
            false => self.boxed(function),
        };
        self.per_group = outer;
        // (A group's null that Polars gives a text's mean, see
        // `null_per_group`: a window of a constant.)
        if let Some(function) = &function
            && matches!(function.kind, ExprKind::Literal(_))
        {
            return self.refuse(
                node,
                format!(
                    "a window of `{}` (null per group) is not supported on the GPU",
                    self.notation(function_node)
                ),
            );
        }
        if let Some(function) = &function
            && function.any(&crate::expr::is_mode)
        {
            return self.refuse(node, "mode in a window is not supported on the GPU");
        }
        if let Some(function) = &function
            && function.any(&crate::support::kept_list)
        {
            return self.refuse(
                node,
                "a function of the rows a filter keeps (but running sums, counts, \
                 extremes and fills) in a window is not supported on the GPU",
            );
        }
        let keys: Vec<Lowered> = partition_by.iter().map(|&key| self.expr(key)).collect();
        let order_by = order_by.map(|(key, options)| {
            Some(RowOrder {
                key: self.boxed(key)?,
                descending: options.descending,
                nulls_last: options.nulls_last,
            })
        });
        let partition_by = keys.into_iter().collect::<Option<Vec<_>>>()?;
        let order_by = match order_by {
            Some(order) => Some(order?),
            None => None,
        };
        let function = function?;
        // The executor groups rows by keys it computes row by row
        // (no window or aggregation inside) of types it groups by.
        let order_key = order_by.as_ref().map(|order| order.key.as_ref());
        for (i, key) in partition_by.iter().chain(order_key).enumerate() {
            // (Partitions by lists of keys, by their codes.)
            let list_key = i < partition_by.len() && crate::support::list_key(key.dtype);
            let why = if key.has_window() {
                "a window inside".to_string()
            } else if key.by_chunks() {
                crate::support::BY_CHUNKS.to_string()
            } else if key.has_aggregation() {
                "an aggregation inside".to_string()
            } else if !(crate::support::group_key(key.dtype) || list_key) {
                format!("of {}", key.dtype)
            } else {
                continue;
            };
            return self.refuse(
                node,
                format!(
                    "a window partitioned or ordered by `{key}` ({why}) is not supported \
                     on the GPU"
                ),
            );
        }
        // Polars computes a window inside the function within each
        // of this window's partitions: a window partitioned by this
        // one's keys too, computed over the frame (not ordered by
        // this one, whose order would be the inner one's rows').
        let mut function = function;
        if function.has_window()
            && (joined || order_by.is_some() || !within_partitions(&mut function, &partition_by))
        {
            return self.refuse(
                node,
                "a window inside the window's function (but one level deep, in \
                 a window by keys reading a column, in no order, mapped to the \
                 rows) is not supported on the GPU",
            );
        }
        if let Some(sort) = function.sort_of_reordered() {
            return self.refuse(node, per_group_sort_of_reordered(&sort));
        }
        if order_by.is_some() && function.any(&crate::support::reads_in_own_order) {
            return self.refuse(
                node,
                "a rank, distinctness test or sort in the ordered window (`order_by`) \
                 is not supported on the GPU",
            );
        }
        // A function of each row's own values gives each row the
        // same over any groups (where the keys are values as they
        // are, which Polars groups without raising): the function.
        let plain = |key: &GpuExpr| {
            matches!(key.kind, ExprKind::Column { .. } | ExprKind::Literal(_))
                && !key.dtype.is_nested()
        };
        if !joined
            && function.is_row_wise()
            && function.reads_a_column()
            && partition_by.iter().all(plain)
            && order_by.as_ref().is_none_or(|order| plain(&order.key))
        {
            return Some(*function);
        }
        let mut window = (*function).over(partition_by, order_by);
        window.dtype = self.dtype(node)?;
        Some(window)
    }
}

/// Each window inside `function` (the function of a window by `keys`)
/// partitioned by `keys` before its own, as Polars computes it within each
/// of the outer window's partitions; false where one is inside another
/// inside `function`, or where `keys` read no column.
fn within_partitions(function: &mut GpuExpr, keys: &[GpuExpr]) -> bool {
    if !keys
        .iter()
        .any(|key| key.any(&|e| matches!(e.kind, ExprKind::Column { .. })))
    {
        return false;
    }
    let mut fine = true;
    function.visit_mut(&mut |e| {
        if let ExprKind::Window {
            function,
            partition_by,
            ..
        } = &mut e.kind
        {
            fine &= !function.has_window();
            let mut extended = keys.to_vec();
            extended.append(partition_by);
            *partition_by = extended;
        }
    });
    fine
}

/// The windows of a constant in the expression `top` that Polars takes as
/// it takes the constant, where the expression gives a value per row:
/// windows whose function is a constant Polars holds as one value (a
/// literal, its casts, arithmetic, choices and elementwise functions, and
/// aggregations of such), unordered, reached from `top` through
/// elementwise operations only, beside a column read so too. Polars gives
/// such a window as a column of that value repeated, which its arithmetic
/// takes by its scalar kernels, as it takes the constant, and the column
/// gives the result its rows. (Alone, or under an aggregation or a
/// function of the rows in order, the window's length is the frame's, not
/// the constant's; of a function of the rows in order, Polars holds it as
/// a column of its own: those fall back.)
pub(super) fn constant_windows_among_rows(top: Node, arena: &Arena<AExpr>) -> Vec<Node> {
    fn walk(node: Node, arena: &Arena<AExpr>, windows: &mut Vec<Node>, column: &mut bool) {
        match arena.get(node) {
            AExpr::Over {
                function,
                order_by: None,
                mapping: WindowMapping::GroupsToRows,
                ..
            } if held_as_the_constant(*function, arena) => windows.push(node),
            AExpr::Column(_) => *column = true,
            AExpr::BinaryExpr { left, right, .. } => {
                walk(*left, arena, windows, column);
                walk(*right, arena, windows, column);
            }
            AExpr::Ternary {
                predicate,
                truthy,
                falsy,
            } => {
                for part in [*predicate, *truthy, *falsy] {
                    walk(part, arena, windows, column);
                }
            }
            AExpr::Cast { expr, .. } => walk(*expr, arena, windows, column),
            AExpr::Function { input, options, .. } if options.is_elementwise() => {
                for part in input {
                    walk(part.node(), arena, windows, column);
                }
            }
            _ => {}
        }
    }
    let (mut windows, mut column) = (Vec::new(), false);
    walk(top, arena, &mut windows, &mut column);
    if !column {
        windows.clear();
    }
    windows
}

/// Whether Polars holds a window of the expression `node` as the constant
/// it is: literals, casts, arithmetic, choices and elementwise functions of
/// them, and aggregations of those that give one value.
fn held_as_the_constant(node: Node, arena: &Arena<AExpr>) -> bool {
    use polars_plan::plans::IRAggExpr as A;
    let all = |nodes: &mut dyn Iterator<Item = Node>| {
        let mut all = true;
        for n in nodes {
            all &= held_as_the_constant(n, arena);
        }
        all
    };
    match arena.get(node) {
        AExpr::Literal(_) => true,
        AExpr::Cast { expr, .. } => held_as_the_constant(*expr, arena),
        AExpr::BinaryExpr { left, right, .. } => all(&mut [*left, *right].into_iter()),
        AExpr::Ternary {
            predicate,
            truthy,
            falsy,
        } => all(&mut [*predicate, *truthy, *falsy].into_iter()),
        AExpr::Function { input, options, .. } if options.is_elementwise() => {
            all(&mut input.iter().map(|e| e.node()))
        }
        AExpr::Agg(
            A::Min { input, .. }
            | A::Max { input, .. }
            | A::Median(input)
            | A::NUnique(input)
            | A::First(input)
            | A::Last(input)
            | A::Mean(input)
            | A::Sum(input)
            | A::Count { input, .. }
            | A::Std(input, _)
            | A::Var(input, _),
        ) => held_as_the_constant(*input, arena),
        _ => false,
    }
}
