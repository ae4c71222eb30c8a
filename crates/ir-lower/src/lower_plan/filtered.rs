//! A select whose expressions keep or pick rows alike: filters and slices (`select(col("x").filter(p), col("y").sum())`: the values over the whole frame, then a filter; the distinct values kept, `select(x.drop_nulls().unique())`, or a slice of them) and gathers at literal places (the values at each place in a list, exploded).

use super::*;

/// How one expression of a select keeps rows ([`PlanLowering::filtered_columns`]).
pub(super) enum Part {
    /// A filter, `drop_nulls`, `drop_nans`, slice or `gather_every` at its
    /// root: its values' node and the rows it keeps.
    Filtered((Node, KeptRows)),
    /// A filter or a slice that every column of the expression reads
    /// through, under elementwise functions (`col("x").filter(p) * 2`) or
    /// running ones that skip nulls (`col("x").filter(p).cum_sum()`): where
    /// (see `ExprLowering::through_filter`).
    Inside(Inside),
    /// Any other functions (`shift`, `diff`, `rank`, ...) of one filter or
    /// slice, with literals beside (`col("x").filter(p).shift(1) * 2`): the
    /// filter's node and its parts; the functions run over the rows kept.
    After(Node, (Node, KeptRows)),
    /// One value (an aggregation, a literal), repeated on every row kept.
    Scalar,
}

/// What a select does with the rows a filter keeps ([`PlanLowering::select_of_kept_then`]).
enum Then {
    /// Their distinct values (in the order of their first rows, with
    /// `true`).
    Distinct(bool),
    /// The rows of a slice (offset, length) of them.
    Slice(i64, usize),
}

/// A select of `exprs` over `input`, its columns named and typed as they are.
fn select_of(input: PlanNode, exprs: Vec<NamedExpr>) -> PlanNode {
    let schema = exprs.iter().map(NamedExpr::output_column).collect();
    PlanNode::Select {
        input: Box::new(input),
        exprs,
        schema,
    }
}

/// Of an expression at `node` that reads its columns through one filter or
/// slice under functions that keep its length ([`filter_below`]): the
/// filter's node and parts.
fn filter_under(arena: &Arena<AExpr>, node: Node) -> Option<(Node, (Node, KeptRows))> {
    // Not through aggregations or windows, whose length is the frame's or
    // one.
    let keeps_length = |e: &AExpr| match e {
        AExpr::Function { options, .. } => options.is_length_preserving(),
        AExpr::BinaryExpr { .. }
        | AExpr::Cast { .. }
        | AExpr::Ternary { .. }
        | AExpr::Sort { .. } => true,
        _ => false,
    };
    filter_below(arena, node, keeps_length)
}

impl PlanLowering<'_> {
    /// Of a select over `input_node` whose every expression filters
    /// (`filter`, `drop_nulls`, `drop_nans`, slices, `gather_every`) values
    /// as long as the frame by a predicate as long as the frame, or reads
    /// its columns through one such filter or slice under other functions,
    /// or is a scalar (an aggregation, a literal: Polars repeats
    /// it on every row kept), with one filter at least: each expression's
    /// [`Part`]; `None` for any other select.
    pub(super) fn filtered_columns(
        &mut self,
        exprs: &[ExprIR],
        input_node: Node,
    ) -> Option<Vec<Part>> {
        let arena = self.expr_arena;
        let schema = self.schema_of(input_node);
        let lowering = self.expr_lowering_over(&schema, input_node);
        exprs
            .iter()
            .map(|e| {
                let Some(parts) = filtered_parts(arena, e.node()) else {
                    if is_scalar_ae(e.node(), arena) {
                        return Some(Part::Scalar);
                    }
                    if let Some(inside) = lowering.filter_inside(e.node()) {
                        return Some(Part::Inside(inside));
                    }
                    let (filter, parts) = filter_under(arena, e.node())?;
                    return Some(Part::After(filter, parts));
                };
                of_every_row(arena, parts).then_some(Part::Filtered(parts))
            })
            .collect::<Option<Vec<_>>>()
            .filter(|parts| parts.iter().any(|part| !matches!(part, Part::Scalar)))
    }

    /// A select of filtered expressions ([`PlanLowering::filtered_columns`]):
    /// the values (scalars repeated on every row) and the rows kept computed
    /// over the whole frame (values may read other rows: a filter applies
    /// to their results), then the filter, then the values alone, or, of
    /// expressions whose functions run after the filter ([`Part::After`]),
    /// those functions over the rows kept. Expressions that keep different
    /// rows (`select(x.head(3), y.tail(3))`) each have their filter, side by
    /// side; where they keep different numbers of rows the query goes to
    /// Polars.
    pub(super) fn select_of_filtered(
        &mut self,
        node: Node,
        input_node: Node,
        exprs: &[ExprIR],
        parts: Vec<Part>,
    ) -> Lowered {
        let input = self.node(input_node);
        let input_schema = self.schema_of(input_node);
        let mut lowering = self.expr_lowering_over(&input_schema, input_node);
        // Each expression's values over the whole frame, the rows it keeps
        // and, of one whose functions run after the filter, those.
        type Lowered3 = (GpuExpr, Option<GpuExpr>, Option<GpuExpr>);
        let lowered: Vec<Option<Lowered3>> = exprs
            .iter()
            .zip(parts)
            .enumerate()
            .map(|(at, (e, part))| match part {
                Part::Filtered(parts) => {
                    let (values, kept) = lowering.filtered(e.node(), parts)?;
                    Some((values, Some(kept), None))
                }
                Part::Inside(inside) => {
                    let (values, kept) = lowering.through_filter(e.node(), inside)?;
                    Some((values, Some(kept), None))
                }
                Part::After(filter, parts) => {
                    let (values, kept) = lowering.filtered(filter, parts)?;
                    let name = e.output_name().to_string();
                    let kept_values = GpuExpr::column(at, name, values.dtype);
                    let outer = lowering.nulled.replace((filter, kept_values));
                    let after = lowering.expr(e.node());
                    lowering.nulled = outer;
                    Some((values, Some(kept), Some(after?)))
                }
                Part::Scalar => Some((lowering.expr(e.node())?, None, None)),
            })
            .collect();
        let lowered: Vec<Lowered3> = lowered.into_iter().collect::<Option<_>>()?;
        let input = input?;
        // The distinct sets of rows kept, in order, and each expression's
        // (a scalar's the first: it is repeated on every row kept).
        let mut kept_sets: Vec<GpuExpr> = Vec::new();
        let set_of: Vec<usize> = lowered
            .iter()
            .map(|(_, kept, _)| match kept {
                None => 0,
                Some(kept) => kept_sets.iter().position(|k| k == kept).unwrap_or_else(|| {
                    kept_sets.push(kept.clone());
                    kept_sets.len() - 1
                }),
            })
            .collect();
        if kept_sets.iter().any(|kept| kept.dtype != GpuDtype::Boolean) {
            return self.refuse(node, "the filter predicate is not boolean");
        }
        let schema = self.output_schema(node)?;
        let n = schema.len();
        // The rows kept, each set in a column of a name no output has.
        let kept_name = |set: usize| {
            let mut name = match set {
                0 => String::from("__gpu_kept"),
                _ => format!("__gpu_kept_{set}"),
            };
            while schema.iter().any(|column| column.name == name) {
                name.push('_');
            }
            name
        };
        let mut named: Vec<NamedExpr> = Vec::with_capacity(n + kept_sets.len());
        let mut after: Vec<Option<GpuExpr>> = Vec::with_capacity(n);
        for (e, (values, _, then)) in exprs.iter().zip(lowered) {
            named.push(NamedExpr {
                name: e.output_name().to_string(),
                expr: values,
            });
            after.push(then);
        }
        for (set, kept) in kept_sets.iter().enumerate() {
            named.push(NamedExpr {
                name: kept_name(set),
                expr: kept.clone(),
            });
        }
        let select = select_of(input, named);
        let inner = select.schema().clone();
        let shared = match kept_sets.len() {
            1 => select,
            _ => PlanNode::Cache {
                schema: inner.clone(),
                input: Box::new(select),
                id: format!("filtered {}", node.0),
            },
        };
        // Each set's filter, then its expressions' values, or the functions
        // that run after it over the rows kept; the sets side by side.
        let mut sets = Vec::with_capacity(kept_sets.len());
        let mut places = vec![0; n];
        let mut side_by_side: OutputSchema = Vec::with_capacity(n);
        for set in 0..kept_sets.len() {
            let filter = PlanNode::Filter {
                input: Box::new(shared.clone()),
                predicate: GpuExpr::column(n + set, kept_name(set), GpuDtype::Boolean),
                schema: inner.clone(),
            };
            let members: Vec<usize> = (0..n).filter(|&i| set_of[i] == set).collect();
            let columns: OutputSchema = members.iter().map(|&i| schema[i].clone()).collect();
            for &i in &members {
                places[i] = side_by_side.len();
                side_by_side.push(schema[i].clone());
            }
            sets.push(match members.iter().all(|&i| after[i].is_none()) {
                true => PlanNode::SimpleProjection {
                    input: Box::new(filter),
                    columns: members,
                    schema: columns,
                },
                false => PlanNode::Select {
                    input: Box::new(filter),
                    exprs: members
                        .iter()
                        .map(|&i| NamedExpr {
                            name: inner[i].name.clone(),
                            expr: after[i].take().unwrap_or_else(|| {
                                GpuExpr::column(i, inner[i].name.clone(), inner[i].dtype)
                            }),
                        })
                        .collect(),
                    schema: columns,
                },
            });
        }
        if sets.len() == 1 {
            return sets.pop();
        }
        // Polars compares the sets' lengths: where they differ, the query
        // is its own (it raises).
        let together = PlanNode::HConcat {
            inputs: sets,
            heights: Heights::ToPolars,
            broadcast_unit_length: false,
            schema: side_by_side,
        };
        Some(PlanNode::SimpleProjection {
            input: Box::new(together),
            columns: places,
            schema,
        })
    }

    /// A select of only the distinct values, or a literal slice, of a
    /// filtered expression (`select(x.drop_nulls().unique())`,
    /// `select(x.filter(p).head(3))`), or the valid distinct values
    /// (`select(x.unique().drop_nulls())`), each sorted by itself after
    /// (`.sort()`), or a literal slice of distinct values in the order they
    /// first come (`x.unique_stable().head(3)`): the select of the filtered values
    /// ([`PlanLowering::select_of_filtered`]), then their distinct rows (in
    /// the order of their first rows where `unique` keeps it) or the slice
    /// of its rows, then the sort. `None` (not lowered here) for any other select;
    /// `Some(None)` where it is refused.
    pub(super) fn select_of_kept_then(
        &mut self,
        node: Node,
        input_node: Node,
        exprs: &[ExprIR],
    ) -> Option<Lowered> {
        let [only] = exprs else {
            return None;
        };
        let at = (node, input_node);
        match self.expr_arena.get(only.node()) {
            AExpr::Sort { expr, options } if options.limit.is_none() => {
                self.kept_then_sorted(at, only, *expr, (options.descending, options.nulls_last))
            }
            AExpr::Function {
                input,
                function: IRFunctionExpr::Unique(maintain_order),
                ..
            } => match input.as_slice() {
                [values] => {
                    self.kept_then(at, only, values.node(), Then::Distinct(*maintain_order))
                }
                _ => None,
            },
            AExpr::Slice {
                input,
                offset,
                length,
            } => self.kept_then_sliced(at, only, *input, (*offset, *length)),
            AExpr::Function {
                input,
                function: function @ (IRFunctionExpr::DropNulls | IRFunctionExpr::DropNans),
                ..
            } => {
                let rows = match function {
                    IRFunctionExpr::DropNulls => KeptRows::NotNull,
                    _ => KeptRows::NotNan,
                };
                let [distinct] = input.as_slice() else {
                    return None;
                };
                self.distinct_then_valid(at, only, distinct.node(), rows)
            }
            _ => None,
        }
    }

    /// [`PlanLowering::select_of_kept_then`] of `only`, a sort by itself
    /// (of `descending` and `nulls_last`) of `sorted`: the select of
    /// `sorted` so lowered, then a sort of its one column (not of floats,
    /// of whose equal zeros Polars keeps one of its own).
    fn kept_then_sorted(
        &mut self,
        (node, input_node): (Node, Node),
        only: &ExprIR,
        sorted: Node,
        (descending, nulls_last): (bool, bool),
    ) -> Option<Lowered> {
        let schema = self.output_schema(node)?;
        let [output] = schema.as_slice() else {
            return None;
        };
        if output.dtype.is_float() {
            let arena = self.expr_arena;
            // (Distinct values of a filter's rows, or the valid ones
            // of distinct values.)
            let distinct = |at: Node, of_kept: bool| match arena.get(at) {
                AExpr::Function {
                    input,
                    function: IRFunctionExpr::Unique(_),
                    ..
                } => {
                    !of_kept
                        || input
                            .iter()
                            .any(|i| filtered_parts(arena, i.node()).is_some())
                }
                _ => false,
            };
            let kept_distinct = distinct(sorted, true)
                || matches!(arena.get(sorted), AExpr::Function {
                    input,
                    function: IRFunctionExpr::DropNulls | IRFunctionExpr::DropNans,
                    ..
                } if input.iter().any(|i| distinct(i.node(), false)));
            if !kept_distinct {
                return None;
            }
            let why = "a sort of distinct floats kept by a filter is not supported on the GPU \
                       (which of two equal zeros Polars keeps is its own)";
            return Some(self.refuse(node, why));
        }
        let key = GpuExpr::column(0, output.name.clone(), output.dtype);
        let sorted = ExprIR::new(sorted, only.output_name_inner().clone());
        let kept = self.select_of_kept_then(node, input_node, &[sorted])?;
        Some(kept.map(|kept| PlanNode::Sort {
            input: Box::new(kept),
            keys: vec![SortKey {
                expr: key,
                descending,
                nulls_last,
            }],
            stable: false,
            slice: None,
            schema,
        }))
    }

    /// [`PlanLowering::select_of_kept_then`] of `only`, a slice of
    /// `values` at a literal `offset` of a literal `length`: of distinct
    /// values in the order they first come (`x.unique_stable().head(3)`)
    /// their select, then the slice; of a filter's values the slice of
    /// its rows.
    fn kept_then_sliced(
        &mut self,
        (node, input_node): (Node, Node),
        only: &ExprIR,
        values: Node,
        (offset, length): (Node, Node),
    ) -> Option<Lowered> {
        let literal = |at: Node| match self.expr_arena.get(at) {
            AExpr::Literal(value) => value.to_any_value(),
            _ => None,
        };
        let offset = literal(offset)?.extract::<i64>()?;
        let len = match literal(length)? {
            polars_core::prelude::AnyValue::Null => usize::MAX,
            length => usize::try_from(length.extract::<u64>()?).ok()?,
        };
        if let AExpr::Function {
            function: IRFunctionExpr::Unique(true),
            ..
        } = self.expr_arena.get(values)
        {
            let distinct = ExprIR::new(values, only.output_name_inner().clone());
            let distinct = self.select_of_distinct(node, input_node, distinct);
            return Some(distinct.map(|distinct| PlanNode::Slice {
                schema: distinct.schema().clone(),
                input: Box::new(distinct),
                offset,
                len,
            }));
        }
        self.kept_then((node, input_node), only, values, Then::Slice(offset, len))
    }

    /// [`PlanLowering::select_of_kept_then`] of `only`, the valid (or not
    /// NaN: `rows`) ones of the distinct values `distinct`
    /// (`x.unique().drop_nulls()`): the distinct ones of the valid values,
    /// which come first at the same rows.
    fn distinct_then_valid(
        &mut self,
        (node, input_node): (Node, Node),
        only: &ExprIR,
        distinct: Node,
        rows: KeptRows,
    ) -> Option<Lowered> {
        let AExpr::Function {
            input,
            function: IRFunctionExpr::Unique(maintain_order),
            ..
        } = self.expr_arena.get(distinct)
        else {
            return None;
        };
        let [values] = input.as_slice() else {
            return None;
        };
        let parts = (values.node(), rows);
        if !of_every_row(self.expr_arena, parts) {
            return None;
        }
        let kept = [ExprIR::new(only.node(), only.output_name_inner().clone())];
        let kept = self.select_of_filtered(node, input_node, &kept, vec![Part::Filtered(parts)]);
        Some(kept.map(|kept| PlanNode::distinct_rows(kept, *maintain_order)))
    }

    /// [`PlanLowering::select_of_kept_then`] of `only`, `then` of the
    /// rows a filter keeps of `values`: the select of the filtered values,
    /// then their distinct rows or the slice of them.
    fn kept_then(
        &mut self,
        (node, input_node): (Node, Node),
        only: &ExprIR,
        values: Node,
        then: Then,
    ) -> Option<Lowered> {
        filtered_parts(self.expr_arena, values)?;
        let values = [ExprIR::new(values, only.output_name_inner().clone())];
        let parts = self.filtered_columns(&values, input_node)?;
        let kept = self.select_of_filtered(node, input_node, &values, parts);
        Some(kept.map(|kept| match then {
            Then::Distinct(maintain_order) => PlanNode::distinct_rows(kept, maintain_order),
            Then::Slice(offset, len) => PlanNode::Slice {
                schema: kept.schema().clone(),
                input: Box::new(kept),
                offset,
                len,
            },
        }))
    }

    /// A select of `distinct` alone, the distinct values of an expression
    /// (`unique`), at `node` over `input_node`: of a filter's rows as
    /// [`PlanLowering::select_of_kept_then`] lowers it, else as a select
    /// of them, then their distinct rows where the expression is not a
    /// column (see `distinct_values_as_rows`).
    fn select_of_distinct(&mut self, node: Node, input_node: Node, distinct: ExprIR) -> Lowered {
        let distinct = std::slice::from_ref(&distinct);
        if let Some(kept) = self.select_of_kept_then(node, input_node, distinct) {
            return kept;
        }
        let input = self.node(input_node);
        let exprs = self.named_exprs(distinct, input_node);
        Some(distinct_values_as_rows(select_of(input?, exprs?)))
    }

    /// Of a select whose every expression gathers values as long as the
    /// frame at the same literal places (`select(col("x").gather([2, 0]),
    /// col("y").gather([2, 0]))`), or is a scalar (repeated on every row
    /// picked), with one gather at least: each expression's gather
    /// ([`ExprLowering::gather_at_places`]), `None` for a scalar; `None` for
    /// any other select.
    pub(super) fn gathered_columns(
        &mut self,
        exprs: &[ExprIR],
        input_node: Node,
    ) -> Option<Vec<Option<AtPlaces>>> {
        let arena = self.expr_arena;
        let schema = self.schema_of(input_node);
        let lowering = self.expr_lowering_over(&schema, input_node);
        let mut places: Option<Vec<i64>> = None;
        exprs
            .iter()
            .map(|e| {
                let Some(gather) = lowering.gather_at_places(e.node()) else {
                    return is_scalar_ae(e.node(), arena).then_some(None);
                };
                let same = places.get_or_insert_with(|| gather.1.clone()) == &gather.1;
                (same && is_length_preserving_ae(gather.0, arena)).then_some(Some(gather))
            })
            .collect::<Option<Vec<_>>>()
            .filter(|gathers| gathers.iter().any(Option::is_some))
    }

    /// A select of gathers at the same literal places
    /// ([`PlanLowering::gathered_columns`]): each gather's values at the
    /// places in a list (`get` of each place), scalars as they are, then
    /// the lists exploded, the scalars repeated on every row.
    pub(super) fn select_of_gathers(
        &mut self,
        node: Node,
        input_node: Node,
        exprs: &[ExprIR],
        gathers: Vec<Option<AtPlaces>>,
    ) -> Lowered {
        let input = self.node(input_node);
        let schema = self.output_schema(node)?;
        let input_schema = self.schema_of(input_node);
        let mut lowering = self.expr_lowering_over(&input_schema, input_node);
        let lowered: Vec<Option<NamedExpr>> = exprs
            .iter()
            .zip(gathers.iter().cloned())
            .zip(&schema)
            .map(|((e, gather), column)| {
                let expr = match gather {
                    Some(gather) => {
                        let listed = GpuDtype::list_of(column.dtype);
                        let list = lowering.gathered_list(e.node(), gather, listed)?;
                        // (As every expression lowered is checked: no gather
                        // by indices inside the `get`s, fuzz seed 2686.)
                        lowering.without_unrun_nesting(e.node(), list)?
                    }
                    None => lowering.expr(e.node())?,
                };
                Some(NamedExpr {
                    name: column.name.clone(),
                    expr,
                })
            })
            .collect();
        let exprs: Vec<NamedExpr> = lowered.into_iter().collect::<Option<_>>()?;
        let input = input?;
        let select = select_of(input, exprs);
        Some(PlanNode::Explode {
            input: Box::new(select),
            columns: (0..gathers.len())
                .filter(|&at| gathers[at].is_some())
                .collect(),
            empty_as_null: false,
            keep_nulls: true,
            schema,
        })
    }
}
