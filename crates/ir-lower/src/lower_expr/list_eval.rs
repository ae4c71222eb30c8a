//! Lowering of `list.eval` and `list.agg`: expressions of each list's values, each list a group (`element()` its values).

use super::*;

/// Each list's values, of type `values`, as `element()` reads them within
/// the list (column 0 of the values alone).
pub(crate) fn element(values: GpuDtype) -> GpuExpr {
    GpuExpr::column(
        0,
        polars_plan::constants::get_pl_element_name().to_string(),
        values,
    )
}

/// The function of lists of `values` that casts each value to `into` in
/// `mode`: `list.eval(element().cast(into))`, as Polars casts a list.
pub(crate) fn each_cast(values: GpuDtype, into: GpuDtype, mode: CastMode) -> ListFunction {
    ListFunction::Eval(Box::new(element(values).cast(into, mode)))
}

/// `lists` (a list column of values, not nested) as lists of `into`:
/// each value cast in `mode` ([`each_cast`]), as Polars casts a list (a
/// column that is no list: its values cast).
pub(crate) fn lists_cast(lists: GpuExpr, into: GpuDtype, mode: CastMode) -> GpuExpr {
    let GpuDtype::List(from) = lists.dtype else {
        return lists.cast(into, mode);
    };
    GpuExpr {
        kind: ExprKind::List {
            function: each_cast(from.values(), into, mode),
            input: Box::new(lists),
        },
        dtype: GpuDtype::list_of(into),
    }
}

/// Whether `e` gives other values than one per value of its input: a
/// filter, `unique`, a gather.
fn keeps_other_values(e: &GpuExpr) -> bool {
    matches!(
        e.kind,
        ExprKind::Where { .. } | ExprKind::Unique { .. } | ExprKind::Gather { .. }
    )
}

/// The columns of a list's values as `element()` reads them (the only
/// one, of `values`).
pub(crate) fn elements_schema(values: DataType) -> Schema {
    let mut schema = Schema::default();
    schema.insert(polars_plan::constants::get_pl_element_name(), values);
    schema
}

/// A lowering of expressions of each list's values (`schema`: see
/// [`elements_schema`]), each list a group, with `substituted` (a node
/// that stands for the values) where given.
pub(crate) fn over_elements<'s>(
    arena: &'s Arena<AExpr>,
    refusals: &'s mut Vec<Refusal>,
    schema: &'s Schema,
    substituted: Option<(Node, GpuExpr)>,
) -> ExprLowering<'s> {
    ExprLowering {
        arena,
        schema,
        one_row: Vec::new(),
        refusals,
        per_group: true,
        unsliced: None,
        unfiltered: false,
        nulled: None,
        substituted,
        fields_of: None,
        scalar_columns: None,
        constant_windows: None,
    }
}

/// Whether `e`, evaluated over a list's values, gives one value per value
/// (no filter, `unique` or gather; not an aggregation alone, which gives
/// one value per list).
pub(crate) fn one_per_value(e: &GpuExpr) -> bool {
    !e.any(&keeps_other_values) && !matches!(e.kind, ExprKind::Agg { .. } | ExprKind::Len)
}

impl ExprLowering<'_> {
    /// `list.eval(evaluation)` of the lists `expr`: the evaluation lowered
    /// over the values alone (`element()` column 0, per group: each list a
    /// group), where it gives one value per value (elementwise, or reading
    /// the list's other values in order: ranks, running sums, shifts,
    /// sorts, aggregations broadcast), or a filter of the values themselves
    /// (a filter, `drop_nulls`, a slice, `unique`: the values each list
    /// keeps), or one value per list (an aggregation: `list.agg` gives it,
    /// `list.eval` a list of it); filters inside expressions and
    /// evaluations of other columns stay with Polars.
    pub(crate) fn list_eval(
        &mut self,
        node: Node,
        expr: Node,
        evaluation: Node,
        aggregated: bool,
    ) -> Lowered {
        let lists = self.expr(expr)?;
        let GpuDtype::List(of) = lists.dtype else {
            return self.refuse(node, format!("list.eval of {}", lists.dtype));
        };
        let Some(DataType::List(values)) = self.polars_dtype(expr) else {
            return self.refuse(node, "list.eval of values that are not a list");
        };
        let schema = elements_schema(*values);
        let mut inner = over_elements(self.arena, &mut *self.refusals, &schema, None);
        // A filter of the values themselves (`element().filter(..)`,
        // `element().drop_nulls()`, `element().head(2)`): each list's values
        // it keeps, in order, as `list.slice` keeps them; their distinct
        // values (`element().unique()`, Python's `list.unique()`), in the
        // order they first come in the list, as Polars keeps them per group.
        let unique_of = match self.arena.get(evaluation) {
            AExpr::Function {
                input,
                function: IRFunctionExpr::Unique(_),
                ..
            } => input.first().map(|values| values.node()),
            _ => None,
        };
        let kept_values = match (aggregated, unique_of) {
            (true, _) => None,
            (false, Some(values)) => {
                Some(("eval(unique)", inner.first_distinct(evaluation, values)))
            }
            (false, None) => filtered_parts(self.arena, evaluation)
                .map(|parts| ("eval(filter)", inner.filtered(evaluation, parts))),
        };
        if let Some((what, lowered)) = kept_values {
            let (values, kept) = lowered?;
            if !matches!(values.kind, ExprKind::Column { index: 0, .. })
                || of.values().is_nested()
                || kept.any(&keeps_other_values)
            {
                return self.refuse(
                    node,
                    "list.eval of a filter of other than the values themselves is not supported \
                     on the GPU yet",
                );
            }
            let dtype = self.dtype(node)?;
            if dtype != lists.dtype {
                return self.refuse(node, format!("list.eval of a filter into {dtype}"));
            }
            let kept = ListFunction::Keep {
                what,
                by: Box::new(kept),
            };
            return self.list_function_of(node, kept, lists, dtype);
        }
        let evaluated = inner.expr(evaluation)?;
        // One value per list (an aggregation of the values): `list.agg`
        // gives it as it is, `list.eval` as a list of one.
        if polars_plan::plans::is_scalar_ae(evaluation, self.arena) {
            return self.list_agg(node, lists, evaluated, !aggregated);
        }
        if aggregated {
            return self.refuse(
                node,
                "list.agg of other than one value per list is not supported on the GPU",
            );
        }
        if !one_per_value(&evaluated) || of.values().is_nested() {
            return self.refuse(
                node,
                "list.eval of a filter or `unique` inside an expression is not supported on the \
                 GPU yet",
            );
        }
        let dtype = self.dtype(node)?;
        if dtype != GpuDtype::list_of(evaluated.dtype) {
            return self.refuse(node, format!("list.eval into {dtype}"));
        }
        self.list_function_of(node, ListFunction::Eval(Box::new(evaluated)), lists, dtype)
    }

    /// `list.agg(aggregation)` of `lists` (Python's `list.n_unique`,
    /// `list.any`, `list.all` are such): one value of each list's values,
    /// an expression of aggregations as a group-by aggregates a group;
    /// `listed`, `list.eval` of it: each value a list of one. `item`,
    /// `get`, lists, sums, means and spreads of floats (added in Polars'
    /// order of its own) stay with Polars.
    fn list_agg(
        &mut self,
        node: Node,
        lists: GpuExpr,
        aggregation: GpuExpr,
        listed: bool,
    ) -> Lowered {
        let name = if listed { "list.eval" } else { "list.agg" };
        let (function, dtype) = self.list_agg_of(node, aggregation, (listed, name))?;
        self.list_function_of(node, function, lists, dtype)
    }

    /// [`Self::list_agg`]'s function of each list, and its type, or why not
    /// (the construct called `name` in the reasons).
    pub(crate) fn list_agg_of(
        &mut self,
        node: Node,
        aggregation: GpuExpr,
        (listed, name): (bool, &str),
    ) -> Option<(ListFunction, GpuDtype)> {
        let floats_added = aggregation.any(&|e| {
            matches!(
                &e.kind,
                ExprKind::Agg {
                    op: AggOp::Sum
                        | AggOp::Mean
                        | AggOp::Std { .. }
                        | AggOp::Var { .. }
                        | AggOp::Median
                        | AggOp::Quantile { .. },
                    input,
                } if input.dtype.is_float()
            )
        });
        // (`first` and `last` of an empty list are null; `item`, `get`
        // and lists stay with Polars.)
        let picks = aggregation.any(&|e| {
            matches!(
                e.kind,
                ExprKind::Agg {
                    op: AggOp::Item { .. } | AggOp::Get { .. } | AggOp::Implode,
                    ..
                }
            )
        });
        // (Of a literal alone, Polars repeats it for each value.)
        let aggregates =
            aggregation.any(&|e| matches!(e.kind, ExprKind::Agg { .. } | ExprKind::Len));
        if !aggregates {
            self.refuse(
                node,
                format!("{name} of a literal is not supported on the GPU (Polars repeats it)"),
            );
            return None;
        }
        if picks || floats_added {
            self.refuse(
                node,
                format!(
                    "{name} is not supported on the GPU yet where it takes `item`, `get` or \
                     lists, or sums, means, spreads, medians or quantiles of floats"
                ),
            );
            return None;
        }
        let dtype = self.dtype(node)?;
        let expected = match listed {
            true => GpuDtype::list_of(aggregation.dtype),
            false => aggregation.dtype,
        };
        if dtype != expected || listed && aggregation.dtype.is_nested() {
            self.refuse(node, format!("{name} into {dtype}"));
            return None;
        }
        let aggregation = ListFunction::Agg {
            aggregation: Box::new(aggregation),
            listed,
        };
        Some((aggregation, dtype))
    }
}
