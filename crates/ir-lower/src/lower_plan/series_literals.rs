//! Selects and with_columns of Series literals (`with_columns(lit(series))`, Python's `with_columns(pl.Series(..))`) and of constants of more than one value (`int_range(0, 5)`): their values as a frame of its own beside the input, read as columns.

use super::*;
use crate::lower_expr::reads_the_frame;
use crate::plan::{Heights, OutputColumn};
use polars_core::prelude::{DataFrame, IntoColumn, Series};
use polars_plan::plans::LiteralValue;
use std::sync::Arc;

impl PlanLowering<'_> {
    /// The Series literals among `exprs` that are a whole expression
    /// (`lit(series)`, aliased or not), and the columns of other constants
    /// of more than one value (`int_range(0, 3)`, `repeat(7, 3)`: no column
    /// or length read), computed by Polars, by their place in `exprs`.
    /// Series literals inside expressions (the list of `is_in`, `replace`'s
    /// mapping) are arguments of their function, not columns.
    pub(super) fn series_at_root(&self, exprs: &[ExprIR]) -> Vec<(usize, Series)> {
        exprs
            .iter()
            .enumerate()
            .filter_map(|(i, e)| match self.expr_arena.get(e.node()) {
                AExpr::Literal(LiteralValue::Series(series)) => Some((i, (**series).clone())),
                _ => self.constant_column(e.node()).map(|series| (i, series)),
            })
            .collect()
    }

    /// The values of `node`, a constant that is no one value (it reads no
    /// column, no length and no group, and Polars does not take it as a
    /// scalar), as Polars computes them over no frame; `None` for any
    /// other expression, and where Polars raises or panics on it (the
    /// query is then lowered as it is).
    fn constant_column(&self, node: Node) -> Option<Series> {
        use polars_plan::plans::{ArenaExprIter, is_scalar_ae, node_to_expr};
        let arena = self.expr_arena;
        let reads = arena.iter(node).any(|(_, e)| reads_the_frame(e));
        if reads || is_scalar_ae(node, arena) || matches!(arena.get(node), AExpr::Literal(_)) {
            return None;
        }
        let expr = node_to_expr(node, arena).alias("constant");
        let computed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            polars::prelude::IntoLazy::lazy(DataFrame::empty())
                .select([expr])
                .collect()
        }));
        match computed {
            Ok(Ok(df)) if df.width() == 1 => Some(df.columns()[0].as_materialized_series().clone()),
            _ => None,
        }
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
        if !hstack && series.len() == exprs.len() {
            // Nothing of the input read: the Series alone, as long as they
            // are (a select's length is its expressions'). Polars computes
            // the input all the same, and raises where it does: the input
            // must lower too (a plan the device may not run goes to Polars
            // whole).
            self.node(input_node)?;
            return self.series_alone(node, exprs, series);
        }
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
        let beside = self.series_frame(node, &series)?;
        let extra = beside.schema().clone();
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

    /// The Series as a frame of their own, each column named
    /// `__polars_gpu_series_<j>` (`j` its place among them); Series of
    /// differing lengths are refused (Polars raises).
    fn series_frame(&mut self, node: Node, series: &[(usize, Series)]) -> Lowered {
        let mut columns = Vec::with_capacity(series.len());
        let mut schema: OutputSchema = Vec::with_capacity(series.len());
        for (j, (_, values)) in series.iter().enumerate() {
            let name = format!("__polars_gpu_series_{j}");
            let dtype = match GpuDtype::from_polars(values.dtype()) {
                Ok(dtype) => dtype,
                Err(why) => return self.refuse(node, format!("a Series literal: {why}")),
            };
            columns.push(values.clone().with_name(name.as_str().into()).into_column());
            schema.push(OutputColumn { name, dtype });
        }
        let height = series.first().map_or(0, |(_, values)| values.len());
        if series.iter().any(|(_, values)| values.len() != height) {
            return self.refuse(node, "Series literals of differing lengths (Polars raises)");
        }
        let df = match DataFrame::new(height, columns) {
            Ok(df) => df,
            Err(e) => return self.refuse(node, format!("a Series literal: {e}")),
        };
        Some(PlanNode::DataFrameScan {
            df: Arc::new(df),
            projection: (0..schema.len()).collect(),
            schema,
        })
    }

    /// A select of Series alone (every expression one): their frame, named
    /// as the select names them.
    fn series_alone(
        &mut self,
        node: Node,
        exprs: &[ExprIR],
        series: Vec<(usize, Series)>,
    ) -> Lowered {
        let frame = self.series_frame(node, &series)?;
        let schema = self.output_schema(node)?;
        let inner = frame.schema().clone();
        let named: Vec<NamedExpr> = exprs
            .iter()
            .zip(&inner)
            .enumerate()
            .map(|(j, (e, column))| NamedExpr {
                name: e.output_name().to_string(),
                expr: GpuExpr::column(j, column.name.clone(), column.dtype),
            })
            .collect();
        self.types_agree(node, &named, &schema)?;
        Some(PlanNode::Select {
            input: Box::new(frame),
            exprs: named,
            schema,
        })
    }
}
