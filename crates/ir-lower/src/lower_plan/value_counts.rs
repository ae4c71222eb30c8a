//! Polars' `value_counts` as plain nodes: a group-by of the values in order of first appearance, their counts sorted (stably) when asked, and the struct of the two.

use super::*;
use crate::expr::{ExprKind, NamedExpr};
use crate::plan::SortKey;

impl PlanLowering<'_> {
    /// A select of one `value_counts` (`select(col("x").value_counts(..))`)
    /// of `values` over `input_node`, as Polars computes it: the distinct
    /// values in order of first appearance (null among them), each with its
    /// number of rows (u32, named `name`), sorted by that number descending
    /// (ties in that order: Polars' sort of one column is stable) when
    /// `sort`, as a struct column of the two. Without `sort` Polars gives
    /// the groups in an order of its own (that of its hash table); the
    /// device gives them in order of first appearance. Counts normalized to
    /// fractions of the rows are refused (Polars divides each by the rows,
    /// which the device's division of a column by a whole-frame value does
    /// not reproduce to the last bit).
    pub(super) fn select_of_value_counts(
        &mut self,
        node: Node,
        input_node: Node,
        only: &ExprIR,
        values: Node,
        (sort, name, normalize): (bool, &str, bool),
    ) -> Lowered {
        if normalize {
            return self.refuse(
                node,
                "value_counts with normalize=True is not supported on the GPU yet",
            );
        }
        let input = self.node(input_node);
        let values_name = match self.schema_of(node).get_at_index(0) {
            Some((_, DataType::Struct(fields))) => fields.first()?.name().to_string(),
            _ => return self.refuse(node, "value_counts that does not give a struct"),
        };
        let valued = ExprIR::new(values, OutputName::Alias(values_name.as_str().into()));
        if self.keys_of_one_value(std::slice::from_ref(&valued), "value_counts") {
            return None;
        }
        let keys = self.named_exprs(std::slice::from_ref(&valued), input_node);
        let (input, keys) = (input?, keys?);
        let key_dtype = keys.first()?.expr.dtype;
        if self.list_key(
            node,
            [(values_name.clone(), key_dtype)].into_iter(),
            "value_counts",
        ) {
            return None;
        }
        let count = GpuDtype::UInt32;
        let counted = NamedExpr {
            name: name.to_string(),
            expr: GpuExpr {
                kind: ExprKind::Len,
                dtype: count,
            },
        };
        let columns = vec![
            OutputColumn {
                name: values_name.clone(),
                dtype: key_dtype,
            },
            OutputColumn {
                name: name.to_string(),
                dtype: count,
            },
        ];
        let mut counts = PlanNode::GroupBy {
            input: Box::new(input),
            keys,
            aggs: vec![counted],
            maintain_order: true,
            slice: None,
            schema: columns.clone(),
        };
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
                schema: columns,
            };
        }
        let schema = self.output_schema(node)?;
        let dtype = schema.first()?.dtype;
        let made = GpuExpr {
            kind: ExprKind::MakeStruct(vec![
                GpuExpr::column(0, values_name, key_dtype),
                GpuExpr::column(1, name.to_string(), count),
            ]),
            dtype,
        };
        Some(PlanNode::Select {
            input: Box::new(counts),
            exprs: vec![NamedExpr {
                name: only.output_name().to_string(),
                expr: made,
            }],
            schema,
        })
    }
}
