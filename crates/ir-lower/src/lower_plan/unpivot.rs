//! Polars' `unpivot` (wide to long) as plain nodes: one select per value column over the input, shared, and their union.

use super::*;
use crate::expr::Scalar;

impl PlanLowering<'_> {
    /// An unpivot of `input_node` (Polars' `FunctionIR::Unpivot`), as Polars
    /// computes it: for each column of `on` in turn, every row's `index`
    /// columns, the column's name (`variable_name`, text) and its value cast
    /// (not strictly: a value the cast cannot take is null) to the type of
    /// the output's value column (`value_name`, the supertype of `on`'s
    /// types); the blocks one after another, in `on`'s order; no rows where
    /// `on` is empty. On the GPU a select per column of `on` over the input
    /// (computed once, a shared subplan) and their union; where `on` is
    /// empty, a select cut to no rows.
    pub(super) fn unpivot(
        &mut self,
        node: Node,
        input_node: Node,
        args: &polars_core::prelude::UnpivotArgsIR,
    ) -> Lowered {
        let input = self.node(input_node);
        let input_schema = self.schema_of(input_node);
        let mut names: Vec<&str> = args.index.iter().map(|n| n.as_str()).collect();
        names.extend([args.variable_name.as_str(), args.value_name.as_str()]);
        if let Some(name) = names
            .iter()
            .enumerate()
            .find_map(|(at, name)| names[..at].contains(name).then_some(name))
        {
            // Polars raises its duplicate-name error when it runs.
            return self.refuse(
                node,
                format!("an unpivot giving two columns named {name:?} is not supported on the GPU"),
            );
        }
        let index: Vec<&str> = args.index.iter().map(|n| n.as_str()).collect();
        let on: Vec<&str> = args.on.iter().map(|n| n.as_str()).collect();
        let index = self.positions(node, &input_schema, &index)?;
        let on = self.positions(node, &input_schema, &on)?;
        let schema = self.output_schema(node)?;
        let value = schema.last()?.dtype;
        let mut refused = false;
        for &at in &on {
            let (name, dtype) = input_schema.get_at_index(at)?;
            let Ok(from) = GpuDtype::from_polars(dtype) else {
                refused = true;
                self.refuse(
                    node,
                    format!("an unpivot of {name:?} ({dtype}) is not supported on the GPU"),
                );
                continue;
            };
            if !crate::lower_expr::cast_or_nulls_supported(from, value) {
                refused = true;
                self.refuse(
                    node,
                    format!(
                        "an unpivot of {name:?} ({dtype}) into values of {value} (a cast the GPU \
                         does not run) is not supported on the GPU"
                    ),
                );
            }
        }
        let input = input?;
        if refused {
            return None;
        }
        let read = |at: usize| {
            let column = input.schema().get(at)?;
            Some(NamedExpr {
                name: column.name.clone(),
                expr: GpuExpr::column(at, column.name.clone(), column.dtype),
            })
        };
        let index = index
            .iter()
            .map(|&at| read(at))
            .collect::<Option<Vec<_>>>()?;
        let variable = |text: Scalar| NamedExpr {
            name: args.variable_name.to_string(),
            expr: GpuExpr::literal(text, GpuDtype::String),
        };
        let value = |expr: GpuExpr| NamedExpr {
            name: args.value_name.to_string(),
            expr: expr.cast_or_nulls(value),
        };
        if on.is_empty() {
            // Polars gives no rows: the index columns, no names, and values
            // of the Null type.
            let mut exprs = index;
            exprs.push(variable(Scalar::Null));
            exprs.push(value(GpuExpr::literal(Scalar::Null, GpuDtype::Null)));
            let none = PlanNode::Select {
                input: Box::new(input),
                exprs,
                schema: schema.clone(),
            };
            return Some(PlanNode::Slice {
                input: Box::new(none),
                offset: 0,
                len: 0,
                schema,
            });
        }
        let blocks = on
            .iter()
            .map(|&at| {
                let values = read(at)?;
                let mut exprs = index.clone();
                exprs.push(variable(Scalar::String(values.name)));
                exprs.push(value(values.expr));
                Some(exprs)
            })
            .collect::<Option<Vec<_>>>()?;
        let shared = PlanNode::Cache {
            schema: input.schema().clone(),
            input: Box::new(input),
            id: format!("unpivot {}", node.0),
        };
        let inputs = blocks
            .into_iter()
            .map(|exprs| PlanNode::Select {
                input: Box::new(shared.clone()),
                exprs,
                schema: schema.clone(),
            })
            .collect();
        Some(PlanNode::Union {
            inputs,
            slice: None,
            schema,
        })
    }
}
