//! Selects and with_columns of Series literals (`with_columns(lit(series))`, Python's `with_columns(pl.Series(..))`): the Series as a frame of its own beside the input, read as columns.

use super::*;
use crate::plan::{Heights, OutputColumn};
use polars_core::prelude::{DataFrame, IntoColumn, Series};
use polars_plan::plans::LiteralValue;
use std::sync::Arc;

impl PlanLowering<'_> {
    /// The Series literals among `exprs` that are a whole expression
    /// (`lit(series)`, aliased or not), by their place in `exprs`.
    /// Series literals inside expressions (the list of `is_in`, `replace`'s
    /// mapping) are arguments of their function, not columns.
    pub(super) fn series_at_root(&self, exprs: &[ExprIR]) -> Vec<(usize, Series)> {
        exprs
            .iter()
            .enumerate()
            .filter_map(|(i, e)| match self.expr_arena.get(e.node()) {
                AExpr::Literal(LiteralValue::Series(series)) => Some((i, (**series).clone())),
                _ => None,
            })
            .collect()
    }

    /// A select (or with_columns, `hstack`) of `exprs` over `input_node`,
    /// some of them Series literals (`series`, by place): the Series as a
    /// frame of their own, side by side with the input (Polars compares
    /// the lengths: where they differ, the query is its own, which raises
    /// or broadcasts a Series of one value), and a select over both that
    /// reads each Series as a column, the other expressions as they are
    /// (with_columns: the input's columns in place, replaced or not, the
    /// new ones after them, as Polars' schema lists them).
    pub(super) fn with_series_columns(
        &mut self,
        node: Node,
        input_node: Node,
        exprs: &[ExprIR],
        series: Vec<(usize, Series)>,
        hstack: bool,
    ) -> Lowered {
        let input = self.node(input_node);
        let others: Vec<ExprIR> = exprs
            .iter()
            .enumerate()
            .filter(|(i, _)| series.iter().all(|(j, _)| j != i))
            .map(|(_, e)| e.clone())
            .collect();
        let others = self.named_exprs(&others, input_node);
        let (input, others) = (input?, others?);
        let n = input.schema().len();
        let mut columns = Vec::with_capacity(series.len());
        let mut extra: OutputSchema = Vec::with_capacity(series.len());
        for (j, (_, values)) in series.iter().enumerate() {
            let name = format!("__polars_gpu_series_{j}");
            let dtype = match GpuDtype::from_polars(values.dtype()) {
                Ok(dtype) => dtype,
                Err(why) => return self.refuse(node, format!("a Series literal: {why}")),
            };
            columns.push(values.clone().with_name(name.as_str().into()).into_column());
            extra.push(OutputColumn { name, dtype });
        }
        let height = series.first().map_or(0, |(_, values)| values.len());
        if series.iter().any(|(_, values)| values.len() != height) {
            // Polars raises on Series of differing lengths.
            return self.refuse(node, "Series literals of differing lengths");
        }
        let df = match DataFrame::new(height, columns) {
            Ok(df) => df,
            Err(e) => return self.refuse(node, format!("a Series literal: {e}")),
        };
        let beside = PlanNode::DataFrameScan {
            df: Arc::new(df),
            projection: (0..extra.len()).collect(),
            schema: extra.clone(),
        };
        let together = PlanNode::HConcat {
            schema: input.schema().iter().chain(&extra).cloned().collect(),
            inputs: vec![input, beside],
            heights: Heights::ToPolars,
            broadcast_unit_length: false,
        };
        // Each expression's lowering: a Series as its column after the
        // input's, the others lowered over the input's columns.
        let mut others = others.into_iter();
        let lowered: Vec<NamedExpr> = exprs
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let name = e.output_name().to_string();
                match series.iter().position(|(j, _)| *j == i) {
                    Some(j) => NamedExpr {
                        expr: GpuExpr::column(n + j, extra[j].name.clone(), extra[j].dtype),
                        name,
                    },
                    None => others.next().expect("one lowering per other expression"),
                }
            })
            .collect();
        let schema = self.output_schema(node)?;
        let exprs = if hstack {
            // The output's columns by name: a new or replaced column's
            // expression, else the input's column.
            let inputs = together.schema();
            schema
                .iter()
                .map(|column| {
                    let expr = match lowered.iter().find(|e| e.name == column.name) {
                        Some(e) => e.expr.clone(),
                        None => {
                            let at = inputs[..n].iter().position(|c| c.name == column.name)?;
                            GpuExpr::column(at, column.name.clone(), inputs[at].dtype)
                        }
                    };
                    Some(NamedExpr {
                        name: column.name.clone(),
                        expr,
                    })
                })
                .collect::<Option<Vec<_>>>()?
        } else {
            lowered
        };
        self.types_agree(node, &exprs, &schema)?;
        Some(PlanNode::Select {
            input: Box::new(together),
            exprs,
            schema,
        })
    }
}
