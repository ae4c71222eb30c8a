//! Polars' `value_counts`, `unique_counts`, `mode` and `rle` as plain nodes: a group-by of the values in order of first appearance and their counts (as fractions of the rows when normalized), sorted (stably) when asked, and the struct of the two; or the values of the largest counts; or a group-by of the runs of equal values in order.

use super::*;
use crate::expr::{AggOp, BinaryOp, CastMode, ExprKind, NamedExpr};
use crate::plan::SortKey;

impl PlanLowering<'_> {
    /// A select of one `value_counts` (`select(col("x").value_counts(..))`)
    /// of `values` over `input_node`, as Polars computes it: the distinct
    /// values in order of first appearance (null among them), each with its
    /// number of rows (u32, named `name`), sorted by that number descending
    /// (ties in that order: Polars' sort of one column is stable) when
    /// `sort`, as a struct column of the two. Without `sort` Polars gives
    /// the groups in an order of its own (that of its hash table); the
    /// device gives them in order of first appearance. With `normalize`,
    /// each number as a fraction of the rows (f64; see
    /// [`PlanLowering::normalized_counts`]).
    pub(super) fn select_of_value_counts(
        &mut self,
        node: Node,
        input_node: Node,
        only: &ExprIR,
        values: Node,
        (sort, name, normalize): (bool, &str, bool),
    ) -> Lowered {
        let values_name = match self.schema_of(node).get_at_index(0) {
            Some((_, DataType::Struct(fields))) => fields.first()?.name().to_string(),
            _ => return self.refuse(node, "value_counts that does not give a struct"),
        };
        if values_name == name {
            // Polars raises its duplicate-name error when it runs.
            return self.refuse(node, format!("value_counts named {name:?} as its values"));
        }
        let names = (values_name.as_str(), name);
        let mut counts = self.counts(node, input_node, values, names, "value_counts")?;
        if normalize {
            counts = normalized_counts(counts, node)?;
        }
        let columns = counts.schema().clone();
        let count = columns.get(1)?.dtype;
        if sort {
            counts = PlanNode::Sort {
                input: Box::new(counts),
                keys: vec![SortKey {
                    expr: GpuExpr::column(1, name.to_string(), count),
                    descending: true,
                    nulls_last: false,
                }],
                stable: true,
                slice: None,
                schema: columns.clone(),
            };
        }
        let values = columns.first()?.dtype;
        self.select_of_one(node, counts, only, |dtype| GpuExpr {
            kind: ExprKind::MakeStruct(vec![
                GpuExpr::column(0, values_name, values),
                GpuExpr::column(1, name.to_string(), count),
            ]),
            dtype,
        })
    }

    /// A select of one `unique_counts` (`select(col("x").unique_counts())`)
    /// of `values` over `input_node`: each distinct value's number of rows
    /// (u32, null a value too), in order of first appearance, as Polars
    /// gives them.
    pub(super) fn select_of_unique_counts(
        &mut self,
        node: Node,
        input_node: Node,
        only: &ExprIR,
        values: Node,
    ) -> Lowered {
        let name = only.output_name().to_string();
        let names = ("__gpu_values", name.as_str());
        let counts = self.counts(node, input_node, values, names, "unique_counts")?;
        self.select_of_one(node, counts, only, |_| {
            GpuExpr::column(1, name, GpuDtype::UInt32)
        })
    }

    /// A select of one `mode` (`select(col("x").mode(..))`) of `values`
    /// over `input_node`: the values of the most rows (null a value too),
    /// in order of first appearance, as Polars gives them keeping the
    /// order (`maintain_order`); without, Polars gives them in an order of
    /// its own (that of its hash table), the device in order of first
    /// appearance still.
    pub(super) fn select_of_mode(
        &mut self,
        node: Node,
        input_node: Node,
        only: &ExprIR,
        values: Node,
    ) -> Lowered {
        let (largest, value) = self.modes_of(node, input_node, values)?;
        self.select_of_one(node, largest, only, |_| value)
    }

    /// A select of one mode's first or last value (`last`):
    /// `select(col("x").mode().first())`, the most frequent value: of the
    /// modes (see [`Self::select_of_mode`]) in order of first appearance,
    /// the first or last (null where there are no rows). Without
    /// `maintain_order` Polars lists several modes in an order of its own:
    /// where there are several, the query goes to Polars.
    pub(super) fn select_of_picked_mode(
        &mut self,
        node: Node,
        input_node: Node,
        only: &ExprIR,
        values: Node,
        (maintain_order, last): (bool, bool),
    ) -> Lowered {
        let (largest, value) = self.modes_of(node, input_node, values)?;
        let dtype = value.dtype;
        let op = match last {
            true => AggOp::Last,
            false => AggOp::First,
        };
        let picked = value.aggregated(op, dtype);
        let expr = match maintain_order {
            true => picked,
            false => {
                let modes = GpuExpr {
                    kind: ExprKind::Len,
                    dtype: GpuDtype::UInt32,
                };
                let one = GpuExpr::literal(crate::expr::Scalar::UInt(1), GpuDtype::UInt32);
                GpuExpr {
                    kind: ExprKind::PolarsOwnWhere {
                        input: Box::new(picked),
                        polars_own: Box::new(modes.binary(BinaryOp::Gt, one, GpuDtype::Boolean)),
                        no_rows: false,
                        why: "a pick of several modes, which Polars lists in an order of its \
                              own"
                        .into(),
                        shown: crate::refusal::written(only.node(), self.expr_arena),
                    },
                    dtype,
                }
            }
        };
        self.select_of_one(node, largest, only, |_| expr)
    }

    /// The modes of `values` over `input_node` (`node`'s): the rows of the
    /// values' counts that are the largest, in order of first appearance,
    /// and the value column over them.
    fn modes_of(
        &mut self,
        node: Node,
        input_node: Node,
        values: Node,
    ) -> Option<(PlanNode, GpuExpr)> {
        let names = ("__gpu_values", "__gpu_count");
        let counts = self.counts(node, input_node, values, names, "mode")?;
        let columns = counts.schema().clone();
        let (value, count) = (columns.first()?.clone(), columns.get(1)?.clone());
        let counted = GpuExpr::column(1, count.name.clone(), count.dtype);
        let most = counted.clone().aggregated(
            AggOp::Max {
                propagate_nans: false,
            },
            count.dtype,
        );
        let largest = PlanNode::Filter {
            input: Box::new(counts),
            predicate: counted.binary(BinaryOp::Eq, most, GpuDtype::Boolean),
            schema: columns,
        };
        Some((largest, GpuExpr::column(0, value.name, value.dtype)))
    }

    /// A select of one `rle` (`select(col("x").rle())`) of `values` over
    /// `input_node`: each run of equal values in turn (a null equal to a
    /// null, as `rle_id` numbers them), as a struct of its number of rows
    /// (`len`, u32) and its first value (`value`): a group-by of the runs'
    /// numbers in order.
    pub(super) fn select_of_runs(
        &mut self,
        node: Node,
        input_node: Node,
        only: &ExprIR,
        values: Node,
    ) -> Lowered {
        let (input, value) = self.input_and_values(node, input_node, values, "value", "rle")?;
        let (count, dtype) = (GpuDtype::UInt32, value.expr.dtype);
        if dtype.is_float() {
            // (Polars' `rle` compares floats by their total order, -0.0
            // equal to 0.0, which `rle_id`'s comparison may not share.)
            return self.refuse(node, format!("rle of {dtype} is not supported on the GPU"));
        }
        // The values made first, as a column: the group-by takes each run's
        // first of them, and an aggregation's input made of other rows
        // (`col("s").shift(2).rle()`: text shifted, a gather) is made per
        // group, where the runs are the whole frame's (fuzz seed 5163).
        let (input, value) = match value.expr.kind {
            ExprKind::Column { .. } => (input, value),
            _ => {
                let schema = vec![OutputColumn {
                    name: value.name.clone(),
                    dtype,
                }];
                let made = PlanNode::Select {
                    input: Box::new(input),
                    exprs: vec![value.clone()],
                    schema,
                };
                let column = GpuExpr::column(0, value.name.clone(), dtype);
                (
                    made,
                    NamedExpr {
                        expr: column,
                        ..value
                    },
                )
            }
        };
        let runs = match crate::lower_expr::run_ids(value.expr.clone(), count) {
            Ok(runs) => runs,
            Err(why) => return self.refuse(node, why),
        };
        let named = |name: &str, expr| NamedExpr {
            name: name.into(),
            expr,
        };
        let first = value.expr.aggregated(AggOp::First, dtype);
        let len = GpuExpr {
            kind: ExprKind::Len,
            dtype: count,
        };
        let column = |name: &str, dtype| OutputColumn {
            name: name.into(),
            dtype,
        };
        let grouped = PlanNode::GroupBy {
            polars_partitions_from: None,
            input: Box::new(input),
            keys: vec![named("__gpu_run", runs)],
            aggs: vec![named("len", len), named("value", first)],
            maintain_order: true,
            slice: None,
            schema: vec![
                column("__gpu_run", count),
                column("len", count),
                column("value", dtype),
            ],
        };
        self.select_of_one(node, grouped, only, |runs| GpuExpr {
            kind: ExprKind::MakeStruct(vec![
                GpuExpr::column(1, "len", count),
                GpuExpr::column(2, "value", dtype),
            ]),
            dtype: runs,
        })
    }

    /// The select at `node` of its one expression `only` over `input`: the
    /// expression `made` makes of the output column's type.
    fn select_of_one(
        &mut self,
        node: Node,
        input: PlanNode,
        only: &ExprIR,
        made: impl FnOnce(GpuDtype) -> GpuExpr,
    ) -> Lowered {
        let schema = self.output_schema(node)?;
        let expr = made(schema.first()?.dtype);
        Some(PlanNode::Select {
            input: Box::new(input),
            exprs: vec![NamedExpr {
                name: only.output_name().to_string(),
                expr,
            }],
            schema,
        })
    }

    /// The plan at `input_node` lowered, and the expression at `values`
    /// over it named `name` (not of one value, which `what` would group
    /// by: see `keys_of_one_value`); where `values` reads the input only
    /// through one explode, the exploded lists and the values over them
    /// (see `over_explode`).
    fn input_and_values(
        &mut self,
        node: Node,
        input_node: Node,
        values: Node,
        name: &str,
        what: &str,
    ) -> Option<(PlanNode, NamedExpr)> {
        let valued = ExprIR::new(values, OutputName::Alias(name.into()));
        if self.keys_of_one_value(std::slice::from_ref(&valued), what) {
            return None;
        }
        // Values read through one explode (`col("t").str.split(" ")
        // .explode().value_counts()`): of the exploded lists.
        if let Some(exploded) = self.over_explode(node, input_node, std::slice::from_ref(&valued)) {
            let (explode, mut values) = exploded?;
            return Some((explode, values.pop()?));
        }
        let input = self.node(input_node);
        let values = self.named_exprs(std::slice::from_ref(&valued), input_node);
        Some((input?, values?.pop()?))
    }

    /// The group-by of `values` over `input_node`, groups in order of first
    /// appearance: each distinct value (named `values_name`) and its number
    /// of rows (u32, named `count_name`); `what` counts them, for refusals.
    fn counts(
        &mut self,
        node: Node,
        input_node: Node,
        values: Node,
        (values_name, count_name): (&str, &str),
        what: &str,
    ) -> Option<PlanNode> {
        let (input, key) = self.input_and_values(node, input_node, values, values_name, what)?;
        let key_dtype = key.expr.dtype;
        let keys = vec![key];
        if self.nested_key_refused(
            node,
            [(values_name.to_string(), key_dtype)].into_iter(),
            what,
        ) {
            return None;
        }
        let count = GpuDtype::UInt32;
        let counted = NamedExpr {
            name: count_name.to_string(),
            expr: GpuExpr {
                kind: ExprKind::Len,
                dtype: count,
            },
        };
        Some(PlanNode::GroupBy {
            // (Polars' value_counts keeps each group's first value.)
            polars_partitions_from: None,
            input: Box::new(input),
            keys,
            aggs: vec![counted],
            maintain_order: true,
            slice: None,
            schema: vec![
                OutputColumn {
                    name: values_name.to_string(),
                    dtype: key_dtype,
                },
                OutputColumn {
                    name: count_name.to_string(),
                    dtype: count,
                },
            ],
        })
    }
}

/// `counts` (each distinct value and its number of rows, u32) with each
/// number a fraction of all the rows, f64, as Polars' `value_counts(normalize=True)`
/// divides it (`count as f64 / rows as f64`, row by row: the rows, the sum
/// of the counts, are joined to every group as a column, so that the
/// division is not the one by a scalar, which Polars' arithmetic takes by
/// the reciprocal). `node` names the shared counts.
fn normalized_counts(counts: PlanNode, node: Node) -> Option<PlanNode> {
    let columns = counts.schema().clone();
    let (values, count) = (columns.first()?.clone(), columns.get(1)?.clone());
    let (wide, float) = (GpuDtype::UInt64, GpuDtype::Float64);
    let shared = PlanNode::Cache {
        schema: columns.clone(),
        input: Box::new(counts),
        id: format!("value_counts {}", node.0),
    };
    let mut rows_name = String::from("__gpu_rows");
    while columns.iter().any(|column| column.name == rows_name) {
        rows_name.push('_');
    }
    let rows_column = OutputColumn {
        name: rows_name.clone(),
        dtype: wide,
    };
    let rows = PlanNode::Select {
        input: Box::new(shared.clone()),
        exprs: vec![NamedExpr {
            name: rows_name.clone(),
            expr: GpuExpr::column(1, count.name.clone(), count.dtype)
                .cast(wide, CastMode::NonStrict)
                .aggregated(AggOp::Sum, wide),
        }],
        schema: vec![rows_column.clone()],
    };
    let mut joined_schema = columns.clone();
    joined_schema.push(rows_column);
    let joined = PlanNode::Join {
        left: Box::new(shared),
        right: Box::new(rows),
        left_on: Vec::new(),
        right_on: Vec::new(),
        kind: JoinKind::Cross,
        nulls_equal: false,
        coalesce: false,
        suffix: "_right".into(),
        predicate: None,
        order: JoinOrder::Left,
        slice: None,
        unique: (false, false),
        schema: joined_schema,
    };
    let as_float = |e: GpuExpr| e.cast(float, CastMode::NonStrict);
    let fraction = as_float(GpuExpr::column(1, count.name.clone(), count.dtype)).binary(
        BinaryOp::TrueDivide,
        as_float(GpuExpr::column(2, rows_name, wide)),
        float,
    );
    let fraction_column = OutputColumn {
        name: count.name.clone(),
        dtype: float,
    };
    Some(PlanNode::Select {
        input: Box::new(joined),
        exprs: vec![
            NamedExpr {
                name: values.name.clone(),
                expr: GpuExpr::column(0, values.name.clone(), values.dtype),
            },
            NamedExpr {
                name: count.name,
                expr: fraction,
            },
        ],
        schema: vec![values, fraction_column],
    })
}
