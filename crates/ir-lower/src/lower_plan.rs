//! Lowering Polars plan nodes (`IR`) to GPU plan nodes, collecting every refusal.

use polars_core::prelude::{DataType, PlSmallStr, Schema, SchemaRef, UniqueKeepStrategy};
use polars_ops::frame::{JoinType, JoinValidation, MaintainOrderJoin};
use polars_plan::dsl::{FileScanIR, JoinTypeOptionsIR, Operator};
use polars_plan::plans::expr_ir::{ExprIR, OutputName};
use polars_plan::plans::{
    AExpr, FunctionIR, IR, IRAggExpr, IRFunctionExpr, IRPlanRef, can_pre_agg_exprs,
    is_length_preserving_ae, is_scalar_ae, node_to_expr,
};
use polars_utils::arena::{Arena, Node};

use crate::dtype::GpuDtype;
use crate::expr::{BinaryOp, ExprKind, GpuExpr, NamedExpr};
use crate::lower_expr::{
    AtPlaces, ExprLowering, Inside, KeptRows, filter_below, filtered_parts, is_constant,
    of_every_row, per_group_sort_of_reordered,
};
use crate::plan::{
    FileFormat, Heights, HostScan, JoinKind, JoinOrder, Keep, OutputColumn, OutputSchema,
    POLARS_PARTITIONED_ROWS, PlanNode, SortKey,
};
use crate::refusal::Refusal;

mod asof_join;
mod dynamic;
mod explode_windows;
mod exploded_groups;
mod filtered;
mod join_order;
mod one_value;
mod rewrites;
mod rolling;
mod series_literals;
mod sliding_windows;
mod unpivot;
mod value_counts;

use join_order::unordered_join;
use rewrites::{
    aggregated_keys_first, distinct_values_as_rows, inner_windows_first, spreads_of_sorted_keys,
};

/// The plan node `node` as Polars' `explain` writes it: its first line.
pub fn node_notation(node: Node, lp_arena: &Arena<IR>, expr_arena: &Arena<AExpr>) -> String {
    let plan = IRPlanRef {
        lp_top: node,
        lp_arena,
        expr_arena,
    };
    let text = plan.display().to_string();
    let line = text.lines().next().unwrap_or_default().trim();
    // Polars heads a join "FULL JOIN:"; the reason follows a colon of its own.
    line.trim_end_matches(':').trim_end().to_owned()
}

/// State of one lowering: the arenas and every refusal so far.
pub(crate) struct PlanLowering<'a> {
    pub lp_arena: &'a Arena<IR>,
    pub expr_arena: &'a Arena<AExpr>,
    pub refusals: Vec<Refusal>,
    /// The root of the plan lowered: its columns go to Polars as they are.
    pub root: Option<Node>,
}

type Lowered = Option<PlanNode>;

impl<'a> PlanLowering<'a> {
    pub fn new(lp_arena: &'a Arena<IR>, expr_arena: &'a Arena<AExpr>) -> Self {
        PlanLowering {
            lp_arena,
            expr_arena,
            refusals: Vec::new(),
            root: None,
        }
    }

    /// Lowers `node` and everything under it (every input, even after one
    /// failed, so that every refusal is found).
    pub fn node(&mut self, node: Node) -> Lowered {
        let lowered = spreads_of_sorted_keys(distinct_values_as_rows(aggregated_keys_first(
            inner_windows_first(self.node_inner(node)?),
        )));
        // The nodes a lowering makes below its own (a select of the lists
        // an explode takes, a union's selects) are checked too; its inputs,
        // lowered by this, pass again.
        fn refusal(node: &PlanNode) -> Option<String> {
            crate::support::refusal(node).or_else(|| node.inputs().into_iter().find_map(refusal))
        }
        match refusal(&lowered) {
            Some(why) => self.refuse(node, why),
            None => Some(lowered),
        }
    }

    fn refuse(&mut self, node: Node, reason: impl Into<String>) -> Lowered {
        self.refusals.push(Refusal {
            subject: node_notation(node, self.lp_arena, self.expr_arena),
            reason: reason.into(),
            whole_plan: false,
        });
        None
    }

    fn schema_of(&self, node: Node) -> SchemaRef {
        self.lp_arena.get(node).schema(self.lp_arena).into_owned()
    }

    /// Lowers expressions over the columns of the plan node `input` (of
    /// `schema`): Polars holds some at one row, some as scalar columns.
    fn expr_lowering_over<'s>(&'s mut self, schema: &'s Schema, input: Node) -> ExprLowering<'s> {
        let one_row = self.one_row_columns(input);
        let scalar_columns = self.scalar_columns_in(input, true);
        let mut lowering = self.expr_lowering(schema, one_row);
        lowering.scalar_columns = Some(scalar_columns);
        lowering
    }

    /// Lowers expressions over the columns `schema` names, of which Polars
    /// holds those named in `one_row` at one row.
    fn expr_lowering<'s>(
        &'s mut self,
        schema: &'s Schema,
        one_row: Vec<PlSmallStr>,
    ) -> ExprLowering<'s> {
        ExprLowering {
            arena: self.expr_arena,
            schema,
            one_row,
            refusals: &mut self.refusals,
            per_group: false,
            unsliced: None,
            unfiltered: false,
            nulled: None,
            substituted: None,
            fields_of: None,
            scalar_columns: None,
            constant_windows: None,
        }
    }

    /// Lowers expressions over the columns of the plan node `input`.
    fn exprs(&mut self, exprs: &[ExprIR], input: Node) -> Option<Vec<GpuExpr>> {
        self.each_lowered(exprs, input, |lowering, e| lowering.expr(e.node()))
    }

    /// Each of `exprs` lowered by `lower` over the columns of `input`
    /// (every one, so that every refusal is found), if all lowered.
    fn each_lowered(
        &mut self,
        exprs: &[ExprIR],
        input: Node,
        mut lower: impl FnMut(&mut ExprLowering<'_>, &ExprIR) -> Option<GpuExpr>,
    ) -> Option<Vec<GpuExpr>> {
        let schema = self.schema_of(input);
        let mut lowering = self.expr_lowering_over(&schema, input);
        let lowered: Vec<Option<GpuExpr>> = exprs.iter().map(|e| lower(&mut lowering, e)).collect();
        lowered.into_iter().collect()
    }

    /// A join's keys over the columns of `input`; a key Polars casts to
    /// i128 (a u64 joined with a signed integer) as
    /// [`ExprLowering::wide_join_key`] gives it.
    fn join_keys(
        &mut self,
        keys: &[ExprIR],
        input: Node,
        nulls_equal: bool,
    ) -> Option<Vec<GpuExpr>> {
        self.each_lowered(keys, input, |lowering, key| {
            match lowering.cast_to_i128_of(key.node()) {
                Some(integer) => lowering.wide_join_key(key.node(), integer, nulls_equal),
                None => lowering.expr(key.node()),
            }
        })
    }

    fn exprs_over(
        &mut self,
        exprs: &[ExprIR],
        schema: &Schema,
        one_row: Vec<PlSmallStr>,
    ) -> Option<Vec<GpuExpr>> {
        let mut lowering = self.expr_lowering(schema, one_row);
        let lowered: Vec<Option<GpuExpr>> = exprs.iter().map(|e| lowering.expr(e.node())).collect();
        lowered.into_iter().collect()
    }

    /// Lowers named expressions over the columns of the plan node `input`.
    fn named_exprs(&mut self, exprs: &[ExprIR], input: Node) -> Option<Vec<NamedExpr>> {
        self.named_exprs_in(exprs, input, false)
    }

    /// [`Self::named_exprs`], evaluated per group where `per_group` (the
    /// aggregations of a group-by).
    fn named_exprs_in(
        &mut self,
        exprs: &[ExprIR],
        input: Node,
        per_group: bool,
    ) -> Option<Vec<NamedExpr>> {
        let schema = self.schema_of(input);
        let mut lowering = self.expr_lowering_over(&schema, input);
        lowering.per_group = per_group;
        lowering.all_named(exprs)
    }

    /// The select at `node` of `exprs` over `input`, of Polars' output
    /// schema for it (refused where the types disagree: see
    /// [`Self::types_agree`]).
    fn checked_select(&mut self, node: Node, input: PlanNode, exprs: Vec<NamedExpr>) -> Lowered {
        let schema = self.output_schema(node)?;
        self.types_agree(node, &exprs, &schema)?;
        Some(PlanNode::Select {
            input: Box::new(input),
            exprs,
            schema,
        })
    }

    /// Refuses `node` where a column it makes or passes on has another type
    /// in Polars' plan than its expression's: Polars' optimiser turns a
    /// right join into an inner one and renames the key column without the
    /// type of the values it then holds, a dynamic literal's division keeps
    /// the type the literal had before it was widened, and so on. Polars'
    /// engine follows the values; the executor, and the plan above, the
    /// types: such a plan is Polars' to run (but at its root).
    fn types_agree(
        &mut self,
        node: Node,
        exprs: &[NamedExpr],
        schema: &OutputSchema,
    ) -> Option<()> {
        // The root's frame goes to Polars with its columns' own types, which
        // are those Polars' engine computes.
        if self.root == Some(node) {
            return Some(());
        }
        for named in exprs {
            let planned = schema.iter().find(|column| column.name == named.name);
            if let Some(column) = planned
                && column.dtype != named.expr.dtype
            {
                self.refuse(
                    node,
                    format!(
                        "column {:?} is {} in Polars' plan but its expression gives {}",
                        named.name, column.dtype, named.expr.dtype
                    ),
                );
                return None;
            }
        }
        Some(())
    }

    /// The output schema of `node` in GPU types, refusing columns the GPU cannot hold.
    fn output_schema(&mut self, node: Node) -> Option<OutputSchema> {
        let schema = self.schema_of(node);
        let mut columns = Vec::with_capacity(schema.len());
        let mut refused = false;
        for (name, dtype) in schema.iter() {
            match GpuDtype::from_polars(dtype) {
                Ok(dtype) => columns.push(OutputColumn {
                    name: name.to_string(),
                    dtype,
                }),
                Err(reason) => {
                    refused = true;
                    self.refuse(node, format!("column {name:?}: {reason}"));
                }
            }
        }
        (!refused).then_some(columns)
    }

    /// Whether one of `keys` (of a sort, a group-by, a join, a distinct) is
    /// a list or a struct, refusing `node` if so: they are no keys on the
    /// GPU, but structs of keys grouping, ordering or matching rows (of a
    /// group-by, a distinct, a sort, a join: see
    /// [`crate::support::struct_key`]), and lists of keys grouping,
    /// ordering or matching them (see [`crate::support::list_key`]).
    fn nested_key_refused(
        &mut self,
        node: Node,
        mut keys: impl Iterator<Item = (String, GpuDtype)>,
        what: &str,
    ) -> bool {
        let grouping = matches!(what, "group-by" | "distinct" | "sort" | "join");
        let keyed = |dtype: GpuDtype| match what {
            "sort" => crate::support::struct_key(dtype) || crate::support::list_sort_key(dtype),
            _ => crate::support::nested_key(dtype),
        };
        let refused = |dtype: &GpuDtype| dtype.is_nested() && !(grouping && keyed(*dtype));
        let Some((key, dtype)) = keys.find(|(_, dtype)| refused(dtype)) else {
            return false;
        };
        self.refuse(
            node,
            format!("a {what} by `{key}` ({dtype}) is not supported on the GPU yet"),
        );
        true
    }

    fn positions(&mut self, node: Node, schema: &Schema, names: &[&str]) -> Option<Vec<usize>> {
        let positions: Option<Vec<usize>> = names.iter().map(|n| schema.index_of(n)).collect();
        if positions.is_none() {
            self.refuse(node, "a projected column is missing from the input");
        }
        positions
    }

    fn node_inner(&mut self, node: Node) -> Lowered {
        let lp_arena = self.lp_arena;
        match lp_arena.get(node) {
            IR::DataFrameScan {
                df,
                schema,
                output_schema,
            } => {
                let names: Vec<&str> = match output_schema {
                    Some(projected) => projected.iter_names().map(|n| n.as_str()).collect(),
                    None => schema.iter_names().map(|n| n.as_str()).collect(),
                };
                let projection = self.positions(node, schema, &names)?;
                let schema = self.output_schema(node)?;
                Some(PlanNode::DataFrameScan {
                    df: df.clone(),
                    projection,
                    schema,
                })
            }
            IR::SimpleProjection { input, columns } => {
                let input_node = *input;
                let input = self.node(input_node);
                let input_schema = self.schema_of(input_node);
                let names: Vec<&str> = columns.iter_names().map(|n| n.as_str()).collect();
                let columns = self.positions(node, &input_schema, &names)?;
                let input = input?;
                let schema = self.output_schema(node)?;
                Some(PlanNode::SimpleProjection {
                    input: Box::new(input),
                    columns,
                    schema,
                })
            }
            IR::Select { input, expr, .. } => {
                let input_node = *input;
                let series = self.series_at_root(expr);
                if !series.is_empty() {
                    return self.with_series_columns(node, input_node, expr, series, false);
                }
                if let Some((lists, options)) = self.exploded(expr) {
                    return self.select_of_explode(node, input_node, expr, &lists, options);
                }
                if let [only] = expr.as_slice()
                    && let AExpr::Function {
                        input: values,
                        function:
                            IRFunctionExpr::ValueCounts {
                                sort,
                                name,
                                normalize,
                                ..
                            },
                        ..
                    } = self.expr_arena.get(only.node())
                    && let [values] = values.as_slice()
                {
                    let how = (*sort, name.to_string(), *normalize);
                    let values = values.node();
                    return self.select_of_value_counts(
                        node,
                        input_node,
                        only,
                        values,
                        (how.0, &how.1, how.2),
                    );
                }
                if let [only] = expr.as_slice()
                    && let AExpr::Function {
                        input: values,
                        function: IRFunctionExpr::Mode { .. },
                        ..
                    } = self.expr_arena.get(only.node())
                    && let [values] = values.as_slice()
                {
                    return self.select_of_mode(node, input_node, only, values.node());
                }
                // Its first or last value: the most frequent.
                if let [only] = expr.as_slice()
                    && let AExpr::Agg(IRAggExpr::First(modes) | IRAggExpr::Last(modes)) =
                        self.expr_arena.get(only.node())
                    && let AExpr::Function {
                        input: values,
                        function: IRFunctionExpr::Mode { maintain_order },
                        ..
                    } = self.expr_arena.get(*modes)
                    && let [values] = values.as_slice()
                {
                    let last = matches!(
                        self.expr_arena.get(only.node()),
                        AExpr::Agg(IRAggExpr::Last(_))
                    );
                    let how = (*maintain_order, last);
                    return self.select_of_picked_mode(node, input_node, only, values.node(), how);
                }
                if let [only] = expr.as_slice()
                    && let AExpr::Function {
                        input: values,
                        function: IRFunctionExpr::RLE,
                        ..
                    } = self.expr_arena.get(only.node())
                    && let [values] = values.as_slice()
                {
                    return self.select_of_runs(node, input_node, only, values.node());
                }
                if let [only] = expr.as_slice()
                    && let AExpr::Function {
                        input: values,
                        function: IRFunctionExpr::UniqueCounts,
                        ..
                    } = self.expr_arena.get(only.node())
                    && let [values] = values.as_slice()
                {
                    let values = values.node();
                    return self.select_of_unique_counts(node, input_node, only, values);
                }
                if let Some(windows) = self.explode_windows(expr) {
                    return self.select_with_explode_windows(node, input_node, expr, windows);
                }
                if let Some(lowered) = self.select_over_explode(node, input_node, expr) {
                    return lowered;
                }
                if let Some(gathers) = self.gathered_columns(expr, input_node) {
                    return self.select_of_gathers(node, input_node, expr, gathers);
                }
                if let Some(parts) = self.filtered_columns(expr, input_node) {
                    return self.select_of_filtered(node, input_node, expr, parts);
                }
                if let Some(lowered) = self.select_of_kept_then(node, input_node, expr) {
                    return lowered;
                }
                let input = self.node(input_node);
                if self.reads_only_repeated_values(expr, input_node) {
                    return self.refuse(
                        node,
                        "a select reading only columns of one value that the step below \
                         made (Polars gives one row or every row by the order of the \
                         operands) is not supported on the GPU",
                    );
                }
                let exprs = self.named_exprs(expr, input_node);
                self.checked_select(node, input?, exprs?)
            }
            IR::HStack {
                input,
                exprs,
                options,
                ..
            } => {
                let input_node = *input;
                let series = self.series_at_root(exprs);
                if !series.is_empty() {
                    return self.with_series_columns(node, input_node, exprs, series, true);
                }
                let input = self.node(input_node);
                let exprs = self.named_exprs(exprs, input_node);
                let (input, exprs) = (input?, exprs?);
                let schema = self.output_schema(node)?;
                self.types_agree(node, &exprs, &schema)?;
                Some(PlanNode::WithColumns {
                    input: Box::new(input),
                    exprs,
                    broadcast: options.should_broadcast,
                    schema,
                })
            }
            IR::Filter { input, predicate } => {
                let input_node = *input;
                let input = self.node(input_node);
                let mut conjuncts = Vec::new();
                collect_conjuncts(self.expr_arena, predicate.node(), &mut conjuncts);
                if conjuncts.is_empty() {
                    // Only top-k pruning hints: the sort above gives the same rows without them.
                    return input;
                }
                let input_schema = self.schema_of(input_node);
                let mut lowering = self.expr_lowering_over(&input_schema, input_node);
                let lowered: Vec<Option<GpuExpr>> =
                    conjuncts.iter().map(|c| lowering.expr(*c)).collect();
                let lowered = lowered.into_iter().collect::<Option<Vec<GpuExpr>>>()?;
                // Each conjunct boolean (split at every `&`, which Polars'
                // optimiser also writes between floats: `all_horizontal` of
                // `len()` and a float), and so their `and`.
                if lowered.iter().any(|c| c.dtype != GpuDtype::Boolean) {
                    return self.refuse(node, "the filter predicate is not boolean");
                }
                let predicate = lowered.into_iter().reduce(|left, right| GpuExpr {
                    kind: ExprKind::Binary {
                        op: BinaryOp::And,
                        left: Box::new(left),
                        right: Box::new(right),
                    },
                    dtype: GpuDtype::Boolean,
                })?;
                let input = input?;
                let schema = self.output_schema(node)?;
                Some(PlanNode::Filter {
                    input: Box::new(input),
                    predicate,
                    schema,
                })
            }
            IR::Slice { input, offset, len } => {
                let (offset, len) = (*offset, *len as usize);
                let input = self.node(*input)?;
                let schema = self.output_schema(node)?;
                Some(PlanNode::Slice {
                    input: Box::new(input),
                    offset,
                    len,
                    schema,
                })
            }
            IR::Sort {
                input,
                by_column,
                slice,
                sort_options,
            } => {
                let input_node = *input;
                let input = self.node(input_node);
                if self.keys_of_one_value(by_column, "sort") {
                    return None;
                }
                let exprs = self.exprs(by_column, input_node);
                let pick = |flags: &[bool], i: usize| {
                    flags.get(i).or(flags.first()).copied().unwrap_or(false)
                };
                let exprs = exprs?;
                let keys = exprs.iter().map(|key| (key.to_string(), key.dtype));
                if self.nested_key_refused(node, keys, "sort") {
                    return None;
                }
                let keys = exprs
                    .into_iter()
                    .enumerate()
                    .flat_map(|(i, expr)| {
                        let descending = pick(&sort_options.descending, i);
                        let nulls_last = pick(&sort_options.nulls_last, i);
                        struct_sort_keys(expr, descending, nulls_last)
                    })
                    .collect();
                let slice = slice
                    .as_ref()
                    .map(|(offset, len, _)| (*offset, *len))
                    .or(sort_options.limit.map(|limit| (0, limit as usize)));
                let input = input?;
                let schema = self.output_schema(node)?;
                Some(PlanNode::Sort {
                    input: Box::new(input),
                    keys,
                    stable: sort_options.maintain_order,
                    slice,
                    schema,
                })
            }
            IR::GroupBy {
                input,
                keys,
                aggs,
                maintain_order,
                options,
                apply,
                ..
            } => {
                let input_node = *input;
                // (A slice Polars pushed into the windows takes the same
                // windows' rows after: each window is aggregated alone, but
                // where Polars' rolling kernels walk overlapping ones, which
                // fall back.)
                if let Some(dynamic) = &options.dynamic
                    && apply.is_none()
                {
                    let windows = self.dynamic_group_by(node, input_node, (keys, aggs), dynamic)?;
                    let Some((offset, len)) = options.slice else {
                        return Some(windows);
                    };
                    let schema = windows.schema().clone();
                    return Some(PlanNode::Slice {
                        input: Box::new(windows),
                        offset,
                        len,
                        schema,
                    });
                }
                if let Some(rolling) = &options.rolling
                    && options.slice.is_none()
                    && apply.is_none()
                {
                    return self.rolling_group_by(node, input_node, (keys, aggs), rolling);
                }
                if apply.is_none()
                    && !options.is_dynamic()
                    && !options.is_rolling()
                    && (options.slice.is_none() || *maintain_order)
                    && let Some(exploded) = self.explode_of_aggregations(aggs)
                {
                    let how = (*maintain_order, options.slice);
                    return self.group_by_of_explode(node, input_node, keys, aggs, exploded, how);
                }
                let input = self.node(input_node);
                if apply.is_some() {
                    return self.refuse(
                        node,
                        "group-by with a user function (map_groups) runs on the CPU only",
                    );
                }
                if options.is_rolling() {
                    // (Polars' rolling kernels walk only the windows the
                    // slice keeps, from a fresh state.)
                    return self.refuse(
                        node,
                        "a slice of a rolling group-by is not supported on the GPU",
                    );
                }
                if options.slice.is_some() && !*maintain_order {
                    return self.refuse(
                        node,
                        "a slice of the groups of a group-by in no order (`head`, `slice`): \
                         which groups Polars keeps is its own (with maintain_order=True it runs \
                         on the GPU)",
                    );
                }
                // A constant key beside keys of every row Polars repeats on
                // every row (one value in every group); other keys of one
                // value (all keys constant: one group even of no rows; an
                // aggregation) stay refused.
                let reads_rows = |key: &ExprIR| !is_scalar_ae(key.node(), self.expr_arena);
                let of_one_value: Vec<ExprIR> = if keys.iter().any(reads_rows) {
                    keys.iter()
                        .filter(|key| !is_constant(key.node(), self.expr_arena))
                        .cloned()
                        .collect()
                } else {
                    keys.clone()
                };
                if self.keys_of_one_value(&of_one_value, "group-by")
                    | self.temporal_means_of_one_value(aggs, input_node)
                {
                    return None;
                }
                let (keys_ir, aggs_ir) = (keys, aggs);
                let keys = self.named_exprs(keys, input_node);
                let aggs = self.named_exprs_in(aggs, input_node, true);
                let (keys, aggs) = (keys?, aggs?);
                let mut refused = false;
                for agg in &aggs {
                    if let Some(sort) = agg.expr.sort_of_reordered() {
                        refused = true;
                        self.refuse(node, per_group_sort_of_reordered(&sort));
                    }
                    if !crate::expr::is_mode_or_picked(&agg.expr)
                        && agg.expr.any(&crate::expr::is_mode)
                    {
                        refused = true;
                        self.refuse(
                            node,
                            format!(
                                "mode inside the aggregation {:?} is not supported on the GPU (a \
                                 mode as a whole aggregation is, and its first or last value)",
                                agg.name
                            ),
                        );
                    }
                    if column_outside_aggregation(&agg.expr) {
                        refused = true;
                        self.refuse(
                            node,
                            format!(
                                "aggregation {:?} gives a list per group (a column outside any \
                                 aggregation), which the GPU does not support",
                                agg.name
                            ),
                        );
                    }
                }
                let input = input?;
                let by = keys.iter().map(|key| (key.name.clone(), key.expr.dtype));
                if refused | self.nested_key_refused(node, by, "group-by") {
                    return None;
                }
                let schema = self.output_schema(node)?;
                self.types_agree(node, &keys, &schema)?;
                self.types_agree(node, &aggs, &schema)?;
                // As Polars' planner decides whether the group-by may take
                // its partitioned path (polars-mem-engine's partitionable_gb).
                use polars_plan::plans::ArenaExprIter;
                let plain_keys = keys.len() < 3
                    && keys_ir.iter().all(|key| {
                        self.expr_arena.iter(key.node()).count() == 1
                            && !matches!(self.expr_arena.get(key.node()), AExpr::Literal(value) if !value.is_scalar())
                    });
                let input_schema = self.schema_of(input_node);
                let partitionable = !keys.is_empty()
                    && plain_keys
                    && can_pre_agg_exprs(aggs_ir, self.expr_arena, &input_schema);
                Some(PlanNode::GroupBy {
                    input: Box::new(input),
                    keys,
                    aggs,
                    maintain_order: *maintain_order,
                    slice: options.slice,
                    polars_partitions_from: partitionable.then_some(POLARS_PARTITIONED_ROWS),
                    schema,
                })
            }
            IR::Join {
                input_left,
                input_right,
                left_on,
                right_on,
                options,
                ..
            } => {
                let (left_node, right_node) = (*input_left, *input_right);
                if let JoinType::AsOf(asof) = &options.args.how {
                    let (nodes, keys) = ((left_node, right_node), (&left_on[..], &right_on[..]));
                    return self.asof_join(node, nodes, keys, &options.args, asof);
                }
                let left = self.node(left_node);
                let right = self.node(right_node);
                let one_value = self.keys_of_one_value(left_on, "join")
                    | self.keys_of_one_value(right_on, "join");
                if one_value {
                    return None;
                }
                let args = &options.args;
                let left_on = self.join_keys(left_on, left_node, args.nulls_equal);
                let right_on = self.join_keys(right_on, right_node, args.nulls_equal);
                let kind = match args.how {
                    JoinType::Inner => JoinKind::Inner,
                    JoinType::Left => JoinKind::Left,
                    JoinType::Right => JoinKind::Right,
                    JoinType::Full => JoinKind::Full,
                    JoinType::Semi => JoinKind::Semi,
                    JoinType::Anti => JoinKind::Anti,
                    JoinType::Cross => JoinKind::Cross,
                    // Join types of Polars features this workspace does not
                    // enable (a crate depending on ours may enable them).
                    #[allow(unreachable_patterns)]
                    ref other => {
                        return self
                            .refuse(node, format!("{other} joins are not supported on the GPU"));
                    }
                };
                // A cross join fused with a filter: the predicate reads the joined columns.
                let predicate = match &options.options {
                    None => None,
                    Some(JoinTypeOptionsIR::CrossAndFilter { predicate }) => {
                        let joined = self.schema_of(node);
                        let lowered =
                            self.exprs_over(std::slice::from_ref(predicate), &joined, Vec::new());
                        Some(lowered?.pop()?)
                    }
                    #[allow(unreachable_patterns)]
                    Some(_) => {
                        return self
                            .refuse(node, "these join options are not supported on the GPU");
                    }
                };
                let unique = match args.validation {
                    JoinValidation::ManyToMany => (false, false),
                    JoinValidation::OneToMany => (true, false),
                    JoinValidation::ManyToOne => (false, true),
                    JoinValidation::OneToOne => (true, true),
                };
                // Polars validates only these joins (and raises for others).
                if unique != (false, false)
                    && !matches!(kind, JoinKind::Inner | JoinKind::Left | JoinKind::Full)
                {
                    return self.refuse(
                        node,
                        format!("join validation {} of a {kind:?} join", args.validation),
                    );
                }
                let order = match args.maintain_order {
                    MaintainOrderJoin::None => JoinOrder::None,
                    MaintainOrderJoin::Left => JoinOrder::Left,
                    MaintainOrderJoin::Right => JoinOrder::Right,
                    MaintainOrderJoin::LeftRight => JoinOrder::LeftRight,
                    MaintainOrderJoin::RightLeft => JoinOrder::RightLeft,
                };
                if let Some(why) = unordered_join(kind, order, args.slice.is_some()) {
                    return self.refuse(node, why);
                }
                let (left, right) = (left?, right?);
                let (left_on, right_on) = (left_on?, right_on?);
                let on = left_on.iter().chain(&right_on);
                if self.nested_key_refused(node, on.map(|key| (key.to_string(), key.dtype)), "join")
                {
                    return None;
                }
                // Decimal keys compare their scaled integers: of one scale.
                let scale = |key: &GpuExpr| key.dtype.decimal_scale();
                let pairs = left_on.iter().zip(&right_on);
                if let Some((l, r)) = pairs.into_iter().find(|(l, r)| scale(l) != scale(r)) {
                    return self.refuse(
                        node,
                        format!(
                            "a join of `{l}` ({}) with `{r}` ({}): decimal keys of different \
                             scales are not supported on the GPU yet",
                            l.dtype, r.dtype
                        ),
                    );
                }
                let schema = self.output_schema(node)?;
                Some(PlanNode::Join {
                    left: Box::new(left),
                    right: Box::new(right),
                    left_on,
                    right_on,
                    kind,
                    nulls_equal: args.nulls_equal,
                    coalesce: args.should_coalesce(),
                    suffix: args.suffix().to_string(),
                    predicate,
                    order,
                    slice: args.slice,
                    unique,
                    schema,
                })
            }
            IR::Distinct { input, options } => {
                let input_node = *input;
                let input = self.node(input_node);
                let input_schema = self.schema_of(input_node);
                let subset = match &options.subset {
                    Some(names) => {
                        let names: Vec<&str> = names.iter().map(|n| n.as_str()).collect();
                        Some(self.positions(node, &input_schema, &names)?)
                    }
                    None => None,
                };
                let keep = match options.keep_strategy {
                    UniqueKeepStrategy::First => Keep::First,
                    UniqueKeepStrategy::Last => Keep::Last,
                    UniqueKeepStrategy::Any => Keep::Any,
                    UniqueKeepStrategy::None => Keep::None,
                };
                let input = input?;
                let by = input_schema
                    .iter()
                    .enumerate()
                    .filter(|(index, _)| subset.as_ref().is_none_or(|s| s.contains(index)))
                    .filter_map(|(_, (name, dtype))| {
                        Some((name.to_string(), GpuDtype::from_polars(dtype).ok()?))
                    });
                if self.nested_key_refused(node, by, "distinct") {
                    return None;
                }
                let schema = self.output_schema(node)?;
                Some(PlanNode::Distinct {
                    input: Box::new(input),
                    subset,
                    keep,
                    maintain_order: options.maintain_order,
                    slice: options.slice,
                    schema,
                })
            }
            IR::Union { inputs, options } => {
                let lowered: Vec<Lowered> = inputs.iter().map(|i| self.node(*i)).collect();
                let inputs = lowered.into_iter().collect::<Option<_>>()?;
                let schema = self.output_schema(node)?;
                Some(PlanNode::Union {
                    inputs,
                    slice: options.slice,
                    schema,
                })
            }
            IR::HConcat {
                inputs, options, ..
            } => {
                let lowered: Vec<Lowered> = inputs.iter().map(|i| self.node(*i)).collect();
                let inputs = lowered.into_iter().collect::<Option<_>>()?;
                let schema = self.output_schema(node)?;
                Some(PlanNode::HConcat {
                    inputs,
                    heights: match options.strict {
                        true => Heights::Error,
                        false => Heights::Padded,
                    },
                    broadcast_unit_length: options.broadcast_unit_length,
                    schema,
                })
            }
            IR::Cache { input, id } => {
                let id = format!("{id:?}");
                let input = self.node(*input)?;
                let schema = self.output_schema(node)?;
                Some(PlanNode::Cache {
                    input: Box::new(input),
                    id,
                    schema,
                })
            }
            IR::MapFunction { input, function } => match function {
                // Neither changes the values: the GPU plan is the input's.
                FunctionIR::Rechunk | FunctionIR::Hint(_) => {
                    let input = *input;
                    self.node(input)
                }
                FunctionIR::RowIndex { name, offset, .. } => {
                    let (name, offset) = (name.to_string(), offset.unwrap_or(0));
                    let input = self.node(*input)?;
                    let schema = self.output_schema(node)?;
                    Some(PlanNode::RowIndex {
                        input: Box::new(input),
                        name,
                        offset,
                        schema,
                    })
                }
                FunctionIR::Explode {
                    columns, options, ..
                } => {
                    let input_node = *input;
                    let input = self.node(input_node);
                    let input_schema = self.schema_of(input_node);
                    let names: Vec<&str> = columns.iter().map(|n| n.as_str()).collect();
                    let columns = self.positions(node, &input_schema, &names)?;
                    let not_list = columns.iter().find_map(|&index| {
                        let (name, dtype) = input_schema.get_at_index(index)?;
                        (!matches!(dtype, DataType::List(_))).then(|| (name.clone(), dtype.clone()))
                    });
                    if let Some((name, dtype)) = not_list {
                        return self.refuse(
                            node,
                            format!(
                                "an explode of {name:?} ({dtype}, not a list) is not supported on \
                                 the GPU"
                            ),
                        );
                    }
                    let input = input?;
                    let schema = self.output_schema(node)?;
                    Some(PlanNode::Explode {
                        input: Box::new(input),
                        columns,
                        empty_as_null: options.empty_as_null,
                        keep_nulls: options.keep_nulls,
                        schema,
                    })
                }
                FunctionIR::Unnest { columns, .. } => {
                    let input_node = *input;
                    let input = self.node(input_node);
                    let input_schema = self.schema_of(input_node);
                    let names: Vec<&str> = columns.iter().map(|n| n.as_str()).collect();
                    let columns = self.positions(node, &input_schema, &names)?;
                    let input = input?;
                    let schema = self.output_schema(node)?;
                    // Polars raises where a field's name (with the
                    // separator's prefix) is another column's: its schema
                    // keeps one of them.
                    let fields: usize = input_schema
                        .iter()
                        .enumerate()
                        .map(|(index, (_, dtype))| match dtype {
                            DataType::Struct(fields) if columns.contains(&index) => fields.len(),
                            _ => 1,
                        })
                        .sum();
                    if fields != schema.len() {
                        return self.refuse(
                            node,
                            "an unnest giving two columns of one name (Polars raises) is not \
                             supported on the GPU",
                        );
                    }
                    Some(PlanNode::Unnest {
                        input: Box::new(input),
                        columns,
                        schema,
                    })
                }
                FunctionIR::Unpivot { args, .. } => self.unpivot(node, *input, args),
                FunctionIR::FastCount { .. } | FunctionIR::Opaque { .. } => {
                    let input = *input;
                    self.node(input);
                    self.refuse(node, format!("{function} is not supported on the GPU"))
                }
            },
            IR::Scan {
                sources,
                file_info,
                hive_parts,
                predicate,
                output_schema,
                scan_type,
                unified_scan_args,
                ..
            } => {
                let format = match scan_type.as_ref() {
                    FileScanIR::Parquet { .. } => FileFormat::Parquet,
                    FileScanIR::Csv { .. } => FileFormat::Csv,
                    // (With Polars features a depending crate may enable,
                    // also NDJSON and IPC.)
                    other => {
                        let name: &'static str = other.into();
                        return self
                            .refuse(node, format!("{name} scans are not supported on the GPU"));
                    }
                };
                let scan = HostScan {
                    format,
                    sources: sources.clone(),
                    file_info: file_info.clone(),
                    hive_parts: hive_parts.clone(),
                    predicate: predicate
                        .as_ref()
                        .map(|p| node_to_expr(p.node(), self.expr_arena)),
                    output_schema: output_schema.clone(),
                    scan_type: scan_type.clone(),
                    unified_scan_args: unified_scan_args.clone(),
                    node,
                };
                let schema = self.output_schema(node)?;
                Some(PlanNode::FileScan { scan, schema })
            }
            IR::Gather { input, .. } => {
                let input = *input;
                self.node(input);
                self.refuse(node, "gather is not supported on the GPU")
            }
            IR::ExtContext { input, .. } => {
                let input = *input;
                self.node(input);
                self.refuse(
                    node,
                    "extra contexts (with_context) are not supported on the GPU",
                )
            }
            IR::Sink { input, .. } => {
                let input = *input;
                self.node(input);
                self.refuse(node, "sinks run on the CPU")
            }
            IR::SinkMultiple { inputs } => {
                for input in inputs.clone() {
                    self.node(input);
                }
                self.refuse(node, "sinks run on the CPU")
            }
            IR::UnoptimizedDispatch { .. } => self.refuse(
                node,
                "unoptimized dispatch nodes are not supported on the GPU",
            ),
            IR::Invalid => self.refuse(node, "the plan holds an invalid node"),
        }
    }
}

/// Whether some column reference is not under an aggregation: in a group-by
/// such an expression yields a list per group.
fn column_outside_aggregation(expr: &GpuExpr) -> bool {
    match &expr.kind {
        ExprKind::Agg { .. } | ExprKind::Len => false,
        ExprKind::Column { .. } => true,
        _ => expr.children().into_iter().any(column_outside_aggregation),
    }
}

/// The conjuncts of a filter predicate (split on `and`: under a boolean
/// predicate every `and` of the chain is boolean), without Polars' dynamic
/// predicates: runtime pruning hints that a top-k sort inserts below
/// itself, which never change the sort's result.
fn collect_conjuncts(arena: &Arena<AExpr>, node: Node, out: &mut Vec<Node>) {
    match arena.get(node) {
        AExpr::BinaryExpr {
            left,
            op: Operator::And | Operator::LogicalAnd,
            right,
        } => {
            collect_conjuncts(arena, *left, out);
            collect_conjuncts(arena, *right, out);
        }
        AExpr::Function {
            function: IRFunctionExpr::DynamicPred { .. },
            ..
        } => {}
        _ => out.push(node),
    }
}

/// The keys a sort by `expr` takes (with `descending` and `nulls_last`):
/// `expr` itself, or of a struct the order Polars' row encoding gives
/// structs: null structs first or last (`nulls_last`), then each field in
/// turn in the struct's direction, its nulls taken as the least values
/// (first ascending, last descending).
fn struct_sort_keys(expr: GpuExpr, descending: bool, nulls_last: bool) -> Vec<SortKey> {
    let GpuDtype::Struct(of) = expr.dtype else {
        return vec![SortKey {
            expr,
            descending,
            nulls_last,
        }];
    };
    let null = SortKey {
        expr: expr.clone().is_null(),
        descending: !nulls_last,
        nulls_last: false,
    };
    let fields = of
        .fields()
        .into_iter()
        .enumerate()
        .map(|(field, (name, dtype))| SortKey {
            expr: GpuExpr {
                kind: ExprKind::StructField {
                    field,
                    name,
                    input: Box::new(expr.clone()),
                },
                dtype,
            },
            descending,
            nulls_last: descending,
        });
    std::iter::once(null).chain(fields).collect()
}
