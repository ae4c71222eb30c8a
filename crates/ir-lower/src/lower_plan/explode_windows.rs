//! Windows mapped by `explode` (`over(.., mapping_strategy="explode")`) as plain nodes: a group-by of the partitions in order of first appearance, each window's values per partition as a list, the lists exploded.

use polars_core::prelude::AnyValue;
use polars_plan::dsl::WindowMapping;

use super::*;

/// How many values a window's function gives for each partition, where the
/// expression alone tells: the windows of one select must agree, so that
/// their values line up row by row as Polars' do.
#[derive(PartialEq)]
enum PerPartition {
    /// One value (an aggregation): a row per partition.
    One,
    /// As many values as the partition has rows.
    Rows,
    /// The values a literal slice (`head(3)`, `slice(1, 2)`) keeps of as
    /// many as the partition's rows.
    Slice(AnyValue<'static>, AnyValue<'static>),
}

/// One window of the select: its function and partition keys, and whether
/// it has an order.
pub(super) struct ExplodeWindow {
    function: Node,
    partition_by: Vec<Node>,
    ordered: bool,
}

impl PlanLowering<'_> {
    /// The places among `exprs` of the windows mapped by `explode`, and the
    /// windows; `None` where there is none.
    pub(super) fn explode_windows(
        &self,
        exprs: &[ExprIR],
    ) -> Option<(Vec<usize>, Vec<ExplodeWindow>)> {
        let (at, windows): (Vec<usize>, Vec<ExplodeWindow>) = exprs
            .iter()
            .enumerate()
            .filter_map(|(at, e)| match self.expr_arena.get(e.node()) {
                AExpr::Over {
                    function,
                    partition_by,
                    order_by,
                    mapping: WindowMapping::Explode,
                } => Some((
                    at,
                    ExplodeWindow {
                        function: *function,
                        partition_by: partition_by.clone(),
                        ordered: order_by.is_some(),
                    },
                )),
                _ => None,
            })
            .unzip();
        (!at.is_empty()).then_some((at, windows))
    }

    /// A select (`exprs` over `input_node`) of windows mapped by `explode`
    /// (at the places `at`, `windows`) and other expressions. The windows
    /// as [`Self::exploded_windows`] computes them; the others beside them,
    /// place by place (Polars' select puts columns of equal lengths side by
    /// side), where the windows give a value per row of their partition
    /// and the others a value per row: the input shared, the others'
    /// select and the windows' side by side, in the select's order. (A
    /// frame sorted by the partition keys lines the two up.)
    pub(super) fn select_with_explode_windows(
        &mut self,
        node: Node,
        input_node: Node,
        exprs: &[ExprIR],
        (at, windows): (Vec<usize>, Vec<ExplodeWindow>),
    ) -> Lowered {
        let output = self.output_schema(node);
        let input = self.node(input_node);
        if at.len() == exprs.len() {
            let (input, output) = (input?, output?);
            return self.exploded_windows(node, (input_node, input), exprs, windows, output);
        }
        let rows_each = windows
            .iter()
            .all(|window| self.per_partition(window.function) == Some(PerPartition::Rows));
        let others: Vec<ExprIR> = (0..exprs.len())
            .filter(|i| !at.contains(i))
            .map(|i| exprs[i].clone())
            .collect();
        let row_wise = others.iter().all(|e| {
            is_length_preserving_ae(e.node(), self.expr_arena)
                && !is_scalar_ae(e.node(), self.expr_arena)
        });
        if !(rows_each && row_wise) {
            return self.refuse(
                node,
                "a window with mapping_strategy=\"explode\" beside other expressions, but \
                 windows of a value per row beside expressions of a value per row, is not \
                 supported on the GPU",
            );
        }
        let named = self.named_exprs(&others, input_node);
        let (input, output, named) = (input?, output?, named?);
        let columns = |places: &[usize]| -> OutputSchema {
            places.iter().map(|&i| output[i].clone()).collect()
        };
        let other_places: Vec<usize> = (0..exprs.len()).filter(|i| !at.contains(i)).collect();
        let other_schema = columns(&other_places);
        self.types_agree(node, &named, &other_schema)?;
        let shared = PlanNode::Cache {
            schema: input.schema().clone(),
            input: Box::new(input),
            id: format!("explode windows {}", node.0),
        };
        let window_exprs: Vec<ExprIR> = at.iter().map(|&i| exprs[i].clone()).collect();
        let exploded = self.exploded_windows(
            node,
            (input_node, shared.clone()),
            &window_exprs,
            windows,
            columns(&at),
        )?;
        let others_plan = PlanNode::Select {
            input: Box::new(shared),
            exprs: named,
            schema: other_schema.clone(),
        };
        let side_by_side: OutputSchema = other_schema
            .into_iter()
            .chain(exploded.schema().iter().cloned())
            .collect();
        // Each output's column among the two inputs' side by side.
        let place = |i: usize| match at.iter().position(|&w| w == i) {
            Some(w) => other_places.len() + w,
            None => other_places.iter().position(|&o| o == i).unwrap_or(0),
        };
        Some(PlanNode::SimpleProjection {
            schema: (0..exprs.len())
                .map(|i| side_by_side[place(i)].clone())
                .collect(),
            columns: (0..exprs.len()).map(place).collect(),
            input: Box::new(PlanNode::HConcat {
                inputs: vec![others_plan, exploded],
                heights: Heights::Error,
                broadcast_unit_length: false,
                schema: side_by_side,
            }),
        })
    }

    /// Windows mapped by `explode` (`exprs`, whose windows are `windows`,
    /// giving the columns `output`) over `input` (the plan of
    /// `input_node`), as Polars computes them: the partitions
    /// in order of first appearance (null keys one partition), each
    /// window's function computed within each partition as a group-by's
    /// aggregations are, and its values one after another, partition by
    /// partition (an empty result one null row). On the GPU a group-by in
    /// order of first appearance of the functions' values as lists, the
    /// lists exploded (aggregations, one value per partition, taken as they
    /// are), the keys dropped. Several windows must be partitioned alike and
    /// give as many values per partition, which the expressions show
    /// (aggregations; as many as the rows; the same literal slice of as
    /// many): Polars lines their values up by place whatever their counts.
    fn exploded_windows(
        &mut self,
        node: Node,
        (input_node, input): (Node, PlanNode),
        exprs: &[ExprIR],
        windows: Vec<ExplodeWindow>,
        mut output: OutputSchema,
    ) -> Lowered {
        if windows.iter().any(|window| window.ordered) {
            return self.refuse(
                node,
                "a window mapped by explode with an order (`order_by`) is not supported on the \
                 GPU",
            );
        }
        let shapes: Vec<Option<PerPartition>> = windows
            .iter()
            .map(|window| self.per_partition(window.function))
            .collect();
        let alike = shapes
            .iter()
            .all(|shape| shape.is_some() && *shape == shapes[0]);
        if windows.len() > 1 && !alike {
            return self.refuse(
                node,
                "windows mapped by explode that may give different numbers of values per \
                 partition (Polars lines them up by place) are not supported on the GPU",
            );
        }
        let one = shapes[0] == Some(PerPartition::One);
        // The keys, named apart from the outputs.
        let names: Vec<&str> = exprs.iter().map(|e| e.output_name().as_str()).collect();
        let key_name = |at: usize| {
            let mut name = format!("__gpu_partition_{at}");
            while names.contains(&name.as_str()) {
                name.push('_');
            }
            name
        };
        let named_keys = |partition_by: &[Node]| -> Vec<ExprIR> {
            partition_by
                .iter()
                .enumerate()
                .map(|(at, &key)| ExprIR::new(key, OutputName::Alias(key_name(at).into())))
                .collect()
        };
        let key_irs = named_keys(&windows[0].partition_by);
        if self.keys_of_one_value(&key_irs, "window") {
            return None;
        }
        let keys = self.named_exprs(&key_irs, input_node)?;
        for window in &windows[1..] {
            let others = self.named_exprs(&named_keys(&window.partition_by), input_node)?;
            let same = |(a, b): (&NamedExpr, &NamedExpr)| a.expr == b.expr;
            if others.len() != keys.len() || !keys.iter().zip(&others).all(same) {
                return self.refuse(
                    node,
                    "windows mapped by explode over different partitions are not supported on \
                     the GPU",
                );
            }
        }
        for key in &keys {
            let why = if key.expr.has_window() {
                "a window inside".to_string()
            } else if !crate::support::group_key(key.expr.dtype) {
                format!("of {}", key.expr.dtype)
            } else {
                continue;
            };
            return self.refuse(
                node,
                format!(
                    "a window mapped by explode partitioned by `{}` ({why}) is not supported on \
                     the GPU",
                    key.expr
                ),
            );
        }
        if !one && let Some(column) = output.iter().find(|column| !listable(column.dtype)) {
            return self.refuse(
                node,
                format!(
                    "a window mapped by explode of {} ({}) is not supported on the GPU",
                    column.name, column.dtype
                ),
            );
        }
        let schema = self.schema_of(input_node);
        let mut lowering = self.expr_lowering_over(&schema, input_node);
        lowering.per_group = true;
        let aggs: Vec<Option<NamedExpr>> = windows
            .iter()
            .zip(exprs)
            .zip(&output)
            .map(|((window, e), column)| {
                let expr = match one {
                    true => lowering.expr(window.function)?,
                    false => {
                        let lists = GpuDtype::list_of(column.dtype);
                        lowering.implode_as(e.node(), window.function, lists)?
                    }
                };
                Some(NamedExpr {
                    name: column.name.clone(),
                    expr,
                })
            })
            .collect();
        let aggs = aggs.into_iter().collect::<Option<Vec<_>>>();
        if one {
            let agg_irs: Vec<ExprIR> = windows
                .iter()
                .zip(exprs)
                .map(|(window, e)| ExprIR::new(window.function, e.output_name_inner().clone()))
                .collect();
            if self.temporal_means_of_one_value(&agg_irs, input_node) {
                return None;
            }
        }
        let mut aggs = aggs?;
        for (agg, column) in aggs.iter_mut().zip(output.iter_mut()) {
            // Polars' plan may type the window otherwise than its values (a
            // fill of another type): at the root, whose frame goes to
            // Polars as it is, the values' type, as Polars' engine gives.
            let values = match &agg.expr.kind {
                ExprKind::Agg { input, .. } if !one => input.dtype,
                _ => agg.expr.dtype,
            };
            if values != column.dtype {
                if self.root != Some(node) || !listable(values) {
                    return self.refuse(
                        node,
                        format!(
                            "column {:?} is {} in Polars' plan but its window gives {values}",
                            column.name, column.dtype
                        ),
                    );
                }
                column.dtype = values;
                if !one {
                    agg.expr.dtype = GpuDtype::list_of(values);
                }
            }
            if let Some(sort) = agg.expr.sort_of_reordered() {
                return self.refuse(node, per_group_sort_of_reordered(&sort));
            }
            if one && !(agg.expr.has_aggregation() && agg.expr.reads_a_column()) {
                return self.refuse(
                    node,
                    format!(
                        "a window mapped by explode of `{}` (one value, not an aggregation of \
                         the partition's rows) is not supported on the GPU",
                        agg.expr
                    ),
                );
            }
        }
        let by = keys.iter().map(|key| (key.name.clone(), key.expr.dtype));
        if self.nested_key_refused(node, by, "window") {
            return None;
        }
        let column = |named: &NamedExpr| OutputColumn {
            name: named.name.clone(),
            dtype: named.expr.dtype,
        };
        let key_columns: Vec<OutputColumn> = keys.iter().map(column).collect();
        let values = key_columns.len()..key_columns.len() + aggs.len();
        let grouped = PlanNode::GroupBy {
            input: Box::new(input),
            schema: key_columns
                .iter()
                .cloned()
                .chain(aggs.iter().map(column))
                .collect(),
            keys,
            aggs,
            maintain_order: true,
            slice: None,
            // (A window's keys are not in its result.)
            polars_partitions_from: None,
        };
        let rows = match one {
            true => grouped,
            false => PlanNode::Explode {
                input: Box::new(grouped),
                columns: values.clone().collect(),
                empty_as_null: true,
                keep_nulls: true,
                schema: key_columns
                    .into_iter()
                    .chain(output.iter().cloned())
                    .collect(),
            },
        };
        Some(PlanNode::SimpleProjection {
            input: Box::new(rows),
            columns: values.collect(),
            schema: output,
        })
    }

    /// How many values `function` gives per partition, where the
    /// expression tells.
    fn per_partition(&mut self, function: Node) -> Option<PerPartition> {
        if is_scalar_ae(function, self.expr_arena) {
            return Some(PerPartition::One);
        }
        if is_length_preserving_ae(function, self.expr_arena) {
            return Some(PerPartition::Rows);
        }
        let AExpr::Slice {
            input,
            offset,
            length,
        } = self.expr_arena.get(function)
        else {
            return None;
        };
        if !is_length_preserving_ae(*input, self.expr_arena) {
            return None;
        }
        let (offset, length) = (*offset, *length);
        let schema = Schema::default();
        let lowering = self.expr_lowering(&schema, Vec::new());
        Some(PerPartition::Slice(
            lowering.constant(offset)?,
            lowering.constant(length)?,
        ))
    }
}

/// Whether values of `dtype` make a list column on the GPU.
fn listable(dtype: GpuDtype) -> bool {
    !dtype.is_nested() && !matches!(dtype, GpuDtype::Categorical(_))
}
