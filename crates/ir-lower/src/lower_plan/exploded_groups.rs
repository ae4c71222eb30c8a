//! Selects of exploded list expressions alone (`select(a.explode(), b.explode())`), exploded together; a group-by whose aggregations, or a select whose expressions, read the input only through one exploded list expression (`group_by(k).agg(col("tags").explode())`, `...explode().n_unique()`, `select(col("t").str.split(" ").explode().str.len_chars())`): the keys and the lists computed by a select, exploded, then grouped or selected from; a select of one value each beside aggregations of the input (`select([l.explode().max(), len()])`) side by side with them.

use polars_core::prelude::ExplodeOptions;
use polars_plan::plans::ArenaExprIter;

use super::*;

/// The name of the exploded lists' column, other than every key's.
fn exploded_name(keys: &[NamedExpr]) -> String {
    let mut name = String::from("__exploded");
    while keys.iter().any(|key| key.name == name) {
        name.push('_');
    }
    name
}

impl PlanLowering<'_> {
    /// The lists of `exprs` where each is an exploded expression, all with
    /// the same options, and those options.
    pub(super) fn exploded(
        &self,
        exprs: &[ExprIR],
    ) -> Option<(Vec<Node>, polars_core::prelude::ExplodeOptions)> {
        let mut options = None;
        let lists = exprs.iter().map(|e| match self.expr_arena.get(e.node()) {
            AExpr::Explode {
                expr: lists,
                options: these,
            } if *options.get_or_insert(*these) == *these => Some(*lists),
            _ => None,
        });
        let lists = lists.collect::<Option<Vec<Node>>>()?;
        Some((lists, options?))
    }

    /// A select of exploded expressions only, of the same options
    /// (`select(col("x").explode())`, `select(col("t").str.split("
    /// ").explode())`, `select(a.explode(), b.explode())`): the lists
    /// computed by a select, then the explode node of them all, with the
    /// expressions' options. (Polars explodes each on its own and then
    /// requires the columns to be as long; the node requires each row's
    /// lists to span as many values, else it leaves the query to Polars,
    /// whose answer or error it then is.)
    pub(super) fn select_of_explode(
        &mut self,
        node: Node,
        input_node: Node,
        exploded: &[ExprIR],
        lists: &[Node],
        options: polars_core::prelude::ExplodeOptions,
    ) -> Lowered {
        let input = self.node(input_node);
        let listed: Vec<ExprIR> = exploded
            .iter()
            .zip(lists)
            .map(|(e, &lists)| ExprIR::new(lists, OutputName::Alias(e.output_name().clone())))
            .collect();
        let exprs = self.named_exprs(&listed, input_node);
        let (input, exprs) = (input?, exprs?);
        let mut schema = Vec::with_capacity(exprs.len());
        for named in &exprs {
            let dtype = named.expr.dtype;
            if !matches!(dtype, GpuDtype::List(_)) {
                return self.refuse(
                    node,
                    format!("an explode of {dtype} (not a list) is not supported on the GPU"),
                );
            }
            schema.push(OutputColumn {
                name: named.name.clone(),
                dtype,
            });
        }
        let columns = (0..exprs.len()).collect();
        let select = PlanNode::Select {
            input: Box::new(input),
            exprs,
            schema,
        };
        Some(PlanNode::Explode {
            input: Box::new(select),
            columns,
            empty_as_null: options.empty_as_null,
            keep_nulls: options.keep_nulls,
            schema: self.output_schema(node)?,
        })
    }

    /// Of a group-by's `aggs`: where each reads the input's columns only
    /// through one `explode` (Polars' default options: an empty or null
    /// list one null row, so that every row, and every group, stays) and
    /// all explode the same list expression, the list expression's node
    /// and, for each aggregation, its explode's node. `None` otherwise.
    pub(super) fn explode_of_aggregations(&self, aggs: &[ExprIR]) -> Option<(Node, Vec<Node>)> {
        let (lists, explodes) = self.explode_of(aggs)?;
        Some((lists, explodes.into_iter().collect::<Option<_>>()?))
    }

    /// Of a node's `exprs`: where each reads the input's columns only
    /// through one `explode` (or reads none: a literal) and all explode
    /// the same list expression (at least one), the list expression's node
    /// and, for each expression, its explode's node (see
    /// [`Self::explode_of_aggregations`]).
    fn explode_of(&self, exprs: &[ExprIR]) -> Option<(Node, Vec<Option<Node>>)> {
        let arena = self.expr_arena;
        let notation = |node: Node| crate::refusal::written(node, arena);
        let mut lists: Option<(Node, String)> = None;
        let mut explodes = Vec::with_capacity(exprs.len());
        for agg in exprs {
            let mut found = None;
            let mut pending = vec![agg.node()];
            while let Some(at) = pending.pop() {
                match arena.get(at) {
                    AExpr::Explode {
                        expr,
                        options:
                            ExplodeOptions {
                                empty_as_null: true,
                                keep_nulls: true,
                            },
                    } => {
                        if found.replace(at).is_some() {
                            return None;
                        }
                        let written = notation(*expr);
                        match &lists {
                            Some((_, seen)) if *seen != written => return None,
                            Some(_) => {}
                            None => lists = Some((*expr, written)),
                        }
                    }
                    // Anything else reading rows of the input (`len()`
                    // counts the group's rows, which the explode changes).
                    AExpr::Explode { .. } | AExpr::Column(_) | AExpr::Len => return None,
                    e => e.children_rev(&mut pending),
                }
            }
            explodes.push(found);
        }
        let (lists, _) = lists?;
        Some((lists, explodes))
    }

    /// A select (`node`) whose `exprs` read the input only through one
    /// exploded list expression (see [`Self::explode_of`]), where not the
    /// only expression (see `select_of_explode`): the select over the
    /// exploded lists (see [`Self::over_explode`]). `None` (not refused)
    /// where the expressions read the input otherwise.
    pub(super) fn select_over_explode(
        &mut self,
        node: Node,
        input_node: Node,
        exprs: &[ExprIR],
    ) -> Option<Lowered> {
        let Some(exploded) = self.over_explode(node, input_node, exprs) else {
            return self.explode_beside_aggregations(node, input_node, exprs);
        };
        Some(exploded.and_then(|(explode, exprs)| self.checked_select(node, explode, exprs)))
    }

    /// A select (`node`) of one value per expression, some reading the
    /// input only through one exploded list expression, the others not
    /// through any (`select([l.explode().max(), len()])`: the length is the
    /// input's): the former over the exploded lists (see
    /// [`Self::over_explode`]), the latter over the input, their rows side
    /// by side, in the select's order. `None` (not refused) otherwise.
    fn explode_beside_aggregations(
        &mut self,
        node: Node,
        input_node: Node,
        exprs: &[ExprIR],
    ) -> Option<Lowered> {
        let arena = self.expr_arena;
        if !exprs
            .iter()
            .all(|e| polars_plan::plans::is_scalar_ae(e.node(), arena))
        {
            return None;
        }
        let explodes = |e: &ExprIR| {
            (arena.iter(e.node())).any(|(_, part)| matches!(part, AExpr::Explode { .. }))
        };
        let (exploded, beside): (Vec<usize>, Vec<usize>) =
            (0..exprs.len()).partition(|&i| explodes(&exprs[i]));
        if exploded.is_empty() || beside.is_empty() {
            return None;
        }
        let of = |places: &[usize]| places.iter().map(|&i| exprs[i].clone()).collect::<Vec<_>>();
        let (exploded_exprs, beside_exprs) = (of(&exploded), of(&beside));
        self.explode_of(&exploded_exprs)?;
        let schema = self.output_schema(node);
        let over_explode = self.over_explode(node, input_node, &exploded_exprs)?;
        let input = self.node(input_node);
        let beside_lowered = self.exprs(&beside_exprs, input_node);
        let (Some(schema), Some((explode, exploded_named)), Some(input), Some(beside_lowered)) =
            (schema, over_explode, input, beside_lowered)
        else {
            return Some(None);
        };
        let columns = |places: &[usize]| places.iter().map(|&i| schema[i].clone()).collect();
        let beside_named = beside
            .iter()
            .zip(beside_lowered)
            .map(|(&i, expr)| NamedExpr {
                name: schema[i].name.clone(),
                expr,
            })
            .collect::<Vec<_>>();
        if self
            .types_agree(node, &exploded_named, &columns(&exploded))
            .is_none()
            || self
                .types_agree(node, &beside_named, &columns(&beside))
                .is_none()
        {
            return Some(None);
        }
        let of_explode = PlanNode::Select {
            input: Box::new(explode),
            exprs: exploded_named,
            schema: columns(&exploded),
        };
        let of_input = PlanNode::Select {
            input: Box::new(input),
            exprs: beside_named,
            schema: columns(&beside),
        };
        let order: Vec<usize> = exploded.iter().chain(&beside).copied().collect();
        PlanNode::side_by_side(vec![of_explode, of_input], &order, schema).map(Some)
    }

    /// Where `exprs` (of `node`) read the input only through one exploded
    /// list expression (see [`Self::explode_of`]): a select of the lists
    /// over `input_node`, their explode (each row's values in turn, one
    /// null row for an empty or null list), and the expressions over it,
    /// each reading the exploded column where it read the explode (`None`
    /// inside where a part was refused). `None` where the expressions read
    /// the input otherwise.
    pub(super) fn over_explode(
        &mut self,
        node: Node,
        input_node: Node,
        exprs: &[ExprIR],
    ) -> Option<Option<(PlanNode, Vec<NamedExpr>)>> {
        let (lists, explodes) = self.explode_of(exprs)?;
        let input = self.node(input_node);
        let name = "__exploded".to_string();
        let listed = ExprIR::new(lists, OutputName::Alias(name.as_str().into()));
        let lists = self.exprs(std::slice::from_ref(&listed), input_node);
        let (Some(input), Some(lists)) = (input, lists) else {
            return Some(None);
        };
        let lists = lists.into_iter().next()?;
        let GpuDtype::List(of) = lists.dtype else {
            let why = format!(
                "an explode of {} (not a list) is not supported on the GPU",
                lists.dtype
            );
            self.refuse(node, why);
            return Some(None);
        };
        let column = |dtype| OutputColumn {
            name: name.clone(),
            dtype,
        };
        let select = PlanNode::Select {
            input: Box::new(input),
            exprs: vec![NamedExpr {
                name: name.clone(),
                expr: lists.clone(),
            }],
            schema: vec![column(lists.dtype)],
        };
        let explode = PlanNode::Explode {
            input: Box::new(select),
            columns: vec![0],
            empty_as_null: true,
            keep_nulls: true,
            schema: vec![column(of.values())],
        };
        // The input's schema types the nodes above the explodes.
        let schema = self.schema_of(input_node);
        let mut lowering = self.expr_lowering_over(&schema, input_node);
        let values = GpuExpr::column(0, name.clone(), of.values());
        let exprs: Option<Vec<NamedExpr>> = exprs
            .iter()
            .zip(explodes)
            .map(|(e, explode)| {
                lowering.substituted = explode.map(|explode| (explode, values.clone()));
                lowering.named(e)
            })
            .collect();
        Some(exprs.map(|exprs| (explode, exprs)))
    }

    /// A group-by (`node`) of `keys` whose `aggs` read the input through the
    /// explodes of one list expression (see
    /// [`PlanLowering::explode_of_aggregations`]): a select of the keys and
    /// the lists, an explode of the lists (each row's values in turn, one
    /// null row for an empty or null list), then the group-by, each
    /// aggregation reading the exploded column where it read the explode.
    pub(super) fn group_by_of_explode(
        &mut self,
        node: Node,
        input_node: Node,
        keys: &[ExprIR],
        aggs: &[ExprIR],
        (lists, explodes): (Node, Vec<Node>),
        (maintain_order, slice): (bool, Option<(i64, usize)>),
    ) -> Lowered {
        let input = self.node(input_node);
        if self.keys_of_one_value(keys, "group-by") {
            return None;
        }
        let keys = self.named_exprs(keys, input_node);
        let listed = ExprIR::new(lists, OutputName::Alias("lists".into()));
        let lists = self.exprs(std::slice::from_ref(&listed), input_node);
        let (input, keys, lists) = (input?, keys?, lists?);
        let lists = lists.into_iter().next()?;
        let GpuDtype::List(of) = lists.dtype else {
            return self.refuse(
                node,
                format!(
                    "an explode of {} (not a list) is not supported on the GPU",
                    lists.dtype
                ),
            );
        };
        let by = keys.iter().map(|key| (key.name.clone(), key.expr.dtype));
        if self.nested_key_refused(node, by, "group-by") {
            return None;
        }
        let name = exploded_name(&keys);
        let k = keys.len();
        let column = |name: &str, dtype| OutputColumn {
            name: name.to_string(),
            dtype,
        };
        let mut selected: Vec<OutputColumn> = keys
            .iter()
            .map(|key| column(&key.name, key.expr.dtype))
            .collect();
        selected.push(column(&name, lists.dtype));
        let mut exploded = selected.clone();
        exploded[k] = column(&name, of.values());
        let mut exprs = keys.clone();
        exprs.push(NamedExpr {
            name: name.clone(),
            expr: lists,
        });
        let select = PlanNode::Select {
            input: Box::new(input),
            exprs,
            schema: selected,
        };
        let explode = PlanNode::Explode {
            input: Box::new(select),
            columns: vec![k],
            empty_as_null: true,
            keep_nulls: true,
            schema: exploded,
        };
        // The aggregations over the exploded frame: each explode is its
        // column (the input's schema types the nodes above it).
        let schema = self.schema_of(input_node);
        let mut lowering = self.expr_lowering_over(&schema, input_node);
        lowering.per_group = true;
        let values = GpuExpr::column(k, name, of.values());
        let aggs: Option<Vec<NamedExpr>> = aggs
            .iter()
            .zip(explodes)
            .map(|(agg, explode)| {
                lowering.substituted = Some((explode, values.clone()));
                lowering.named(agg)
            })
            .collect();
        let aggs = aggs?;
        let schema = self.output_schema(node)?;
        self.types_agree(node, &keys, &schema)?;
        self.types_agree(node, &aggs, &schema)?;
        let keys = keys
            .iter()
            .enumerate()
            .map(|(index, key)| NamedExpr {
                name: key.name.clone(),
                expr: GpuExpr::column(index, key.name.clone(), key.expr.dtype),
            })
            .collect();
        Some(PlanNode::GroupBy {
            input: Box::new(explode),
            keys,
            aggs,
            maintain_order,
            slice,
            polars_partitions_from: None,
            schema,
        })
    }
}
