//! Functions of the rows a filter keeps, inside aggregations (`x.filter(p).shift(1)`, `x.filter(p).diff().sum()` in `agg`): each group's kept values listed, then the function of each list, as `list.eval` and `list.agg` compute it.

use super::kept_rows::{filter_below, filtered_parts, of_every_row};
use super::list_eval::{element, one_per_value, over_elements};
use super::*;

impl ExprLowering<'_> {
    /// Of the aggregation at `node` (of type `dtype`; an `implode` or not)
    /// of `input` per group, where `input` reads its columns through one
    /// filter or slice under functions of the values (with constants
    /// beside them): each group's values the filter keeps as a list
    /// ([`AggOp::Implode`] of them), and of it, for an implode,
    /// `list.eval` of the functions (their values in a list per group, as
    /// Polars lists them), else `list.agg` of the
    /// aggregation of them. `None` where `input` is not such.
    pub(crate) fn of_kept_lists(
        &mut self,
        node: Node,
        implode: bool,
        input: Node,
        dtype: GpuDtype,
    ) -> Option<Lowered> {
        // Not within the lists' own lowering, where the filter stands for
        // their values. (Over the whole frame such a value beside the rows
        // is refused with the plan: see `support::kept_list`.)
        if self.substituted.is_some() {
            return None;
        }
        let through = |e: &AExpr| {
            matches!(
                e,
                AExpr::Function { .. }
                    | AExpr::Cast { .. }
                    | AExpr::BinaryExpr { .. }
                    | AExpr::Ternary { .. }
                    | AExpr::Sort { .. }
            )
        };
        let (filter, parts) = filter_below(self.arena, input, through)?;
        Some(self.kept_lists(node, implode, (input, filter, parts), dtype))
    }

    /// As [`Self::of_kept_lists`] of an aggregation (not an implode),
    /// where `input` may also be the filter or slice itself
    /// (`x.filter(p).quantile(q)`).
    pub(crate) fn of_kept_lists_or_filter(
        &mut self,
        node: Node,
        input: Node,
        dtype: GpuDtype,
    ) -> Option<Lowered> {
        if self.substituted.is_some() {
            return None;
        }
        if let Some(parts) = filtered_parts(self.arena, input)
            && of_every_row(self.arena, parts)
        {
            return Some(self.kept_lists(node, false, (input, input, parts), dtype));
        }
        self.of_kept_lists(node, false, input, dtype)
    }

    fn kept_lists(
        &mut self,
        node: Node,
        implode: bool,
        (input, filter, parts): (Node, Node, (Node, KeptRows)),
        dtype: GpuDtype,
    ) -> Lowered {
        let (values, kept) = self.filtered(filter, parts)?;
        let of = values.dtype;
        if !of.listable() {
            return self.refuse(
                node,
                format!("a function of the {of} values a filter keeps"),
            );
        }
        let lists = GpuExpr {
            dtype: of,
            kind: ExprKind::Where {
                input: Box::new(values),
                by: Box::new(kept),
            },
        }
        .aggregated(AggOp::Implode, GpuDtype::list_of(of));
        // The functions of each group's kept values, the filter standing
        // for them (`element()`, column 0 of the values alone; the types
        // resolved over the frame's columns, which nothing else reads).
        let schema = self.schema;
        let arena = self.arena;
        let mut inner = over_elements(
            arena,
            &mut *self.refusals,
            schema,
            Some((filter, element(of))),
        );
        let function = match implode {
            true => {
                let evaluated = inner.expr(input)?;
                if !one_per_value(&evaluated) || dtype != GpuDtype::list_of(evaluated.dtype) {
                    let written = self.notation(input);
                    return self.refuse(
                        node,
                        format!(
                            "`{written}` as a list per group (of {dtype}) is not supported on \
                             the GPU"
                        ),
                    );
                }
                ListFunction::Eval(Box::new(evaluated))
            }
            false => {
                let aggregation = inner.expr(node)?;
                let name = "an aggregation of a function of the rows a filter keeps";
                self.list_agg_of(node, aggregation, (false, name))?.0
            }
        };
        Some(GpuExpr {
            kind: ExprKind::List {
                function,
                input: Box::new(lists),
            },
            dtype,
        })
    }
}
