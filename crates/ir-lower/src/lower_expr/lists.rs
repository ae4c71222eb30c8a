//! Lowering of lists: the list functions (`list.len`), `implode`, and the one rule every other expression meets (no lists in or out).

use super::*;

/// What the GPU does with lists, for the reasons that refuse the rest.
const LISTS_ON_THE_GPU: &str = "the GPU holds list columns, makes them by `implode` and by \
                                `agg` of values, explodes them and takes `list.len`";

impl ExprLowering<'_> {
    /// A function of the `list` namespace.
    pub(crate) fn list(
        &mut self,
        node: Node,
        inputs: &[ExprIR],
        function: &IRListFunction,
    ) -> Lowered {
        let function = match function {
            IRListFunction::Length => ListFunction::Len,
            other => {
                return self.refuse(
                    node,
                    format!("list.{other} is not supported on the GPU yet ({LISTS_ON_THE_GPU})"),
                );
            }
        };
        let input = self.single(inputs)?;
        if !matches!(input.kind, ExprKind::Column { .. }) {
            return self.refuse(
                node,
                format!("{function} of a list computed in the expression is not supported on the GPU yet (of a list column it is)"),
            );
        }
        let dtype = self.dtype(node)?;
        Some(GpuExpr {
            kind: ExprKind::List {
                function,
                input: Box::new(input),
            },
            dtype,
        })
    }

    /// `implode` of `input` (a group-by's aggregation of values it leaves
    /// unaggregated is one): each group's values as one list, of values
    /// computed row by row.
    pub(crate) fn implode(&mut self, node: Node, input: Node) -> Lowered {
        let values = self.expr(input)?;
        let per_row = !values.taken_as_lists_per_group()
            && !values.has_window()
            && !values.any(&|e| {
                matches!(
                    e.kind,
                    ExprKind::Where { .. } | ExprKind::Unique { .. } | ExprKind::SortedBy { .. }
                )
            });
        if !per_row {
            // Named as the user wrote it (`col("x").unique()` inside
            // `agg`), not the `implode` Polars wraps it in.
            return self.refuse(
                input,
                "a list of values that are not each row's own (a sort, filter, unique, shift, \
                 cumulative or aggregated values per group) is not supported on the GPU yet",
            );
        }
        if !values.any(&|e| matches!(e.kind, ExprKind::Column { .. })) {
            return self.refuse(input, "a list of literals is not supported on the GPU yet");
        }
        let dtype = self.dtype(node)?;
        Some(values.aggregated(AggOp::Implode, dtype))
    }

    /// `expr` (lowered from `node`) unless it computes with lists where the
    /// GPU does not: lists are read as columns, made by `implode` and
    /// measured by [`ListFunction`]s; any other expression of lists or
    /// giving lists is refused.
    pub(crate) fn without_list_values(&mut self, node: Node, expr: GpuExpr) -> Lowered {
        let is_list = |e: &GpuExpr| matches!(e.dtype, GpuDtype::List(_));
        let held = match &expr.kind {
            ExprKind::Column { .. } | ExprKind::List { .. } => true,
            ExprKind::Agg {
                op: AggOp::Implode, ..
            } => true,
            _ => !is_list(&expr) && !expr.children().into_iter().any(is_list),
        };
        if held {
            return Some(expr);
        }
        self.refuse(
            node,
            format!("this operation on lists is not supported on the GPU yet ({LISTS_ON_THE_GPU})"),
        )
    }
}
