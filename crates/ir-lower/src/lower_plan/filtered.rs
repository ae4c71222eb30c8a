//! A select whose expressions filter or slice their rows alike (`select(col("x").filter(p), col("y").sum())`): the values over the whole frame, then a filter.

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
    /// One value (an aggregation, a literal), repeated on every row kept.
    Scalar,
}

impl PlanLowering<'_> {
    /// Of a select over `input_node` whose every expression filters
    /// (`filter`, `drop_nulls`, `drop_nans`, slices, `gather_every`) values
    /// as long as the frame by a predicate as long as the frame, or reads
    /// its columns through one such filter or slice under elementwise or
    /// running functions, or is a scalar (an aggregation, a literal: Polars repeats
    /// it on every row kept), with one filter at least: each expression's
    /// [`Part`]; `None` for any other select.
    pub(super) fn filtered_columns(
        &mut self,
        exprs: &[ExprIR],
        input_node: Node,
    ) -> Option<Vec<Part>> {
        let arena = self.expr_arena;
        let whole = |node| is_length_preserving_ae(node, arena);
        let schema = self.schema_of(input_node);
        let one_row = self.one_row_columns(input_node);
        let lowering = self.expr_lowering(&schema, one_row);
        exprs
            .iter()
            .map(|e| {
                let Some((values, rows)) = filtered_parts(arena, e.node()) else {
                    if is_scalar_ae(e.node(), arena) {
                        return Some(Part::Scalar);
                    }
                    return lowering.filter_inside(e.node()).map(Part::Inside);
                };
                let by_whole = match rows {
                    KeptRows::By(by) => whole(by),
                    _ => true,
                };
                (whole(values) && by_whole).then_some(Part::Filtered((values, rows)))
            })
            .collect::<Option<Vec<_>>>()
            .filter(|parts| parts.iter().any(|part| !matches!(part, Part::Scalar)))
    }

    /// A select of filtered expressions ([`PlanLowering::filtered_columns`])
    /// that all keep the same rows: the values (scalars repeated on every
    /// row) and the rows kept computed over the whole frame (values may read
    /// other rows: a filter applies to their results), then the filter,
    /// then the values alone.
    pub(super) fn select_of_filtered(
        &mut self,
        node: Node,
        input_node: Node,
        exprs: &[ExprIR],
        parts: Vec<Part>,
    ) -> Lowered {
        let input = self.node(input_node);
        let input_schema = self.schema_of(input_node);
        let one_row = self.one_row_columns(input_node);
        let mut lowering = self.expr_lowering(&input_schema, one_row);
        let lowered: Vec<Option<(GpuExpr, Option<GpuExpr>)>> = exprs
            .iter()
            .zip(parts)
            .map(|(e, part)| match part {
                Part::Filtered(parts) => {
                    let (values, kept) = lowering.filtered(e.node(), parts)?;
                    Some((values, Some(kept)))
                }
                Part::Inside(inside) => {
                    let (values, kept) = lowering.through_filter(e.node(), inside)?;
                    Some((values, Some(kept)))
                }
                Part::Scalar => Some((lowering.expr(e.node())?, None)),
            })
            .collect();
        let lowered: Vec<(GpuExpr, Option<GpuExpr>)> =
            lowered.into_iter().collect::<Option<_>>()?;
        let input = input?;
        let mut filters = lowered.iter().filter_map(|(_, kept)| kept.as_ref());
        let kept = filters.next()?.clone();
        if filters.any(|other| *other != kept) {
            return self.refuse(node, "filters inside expressions that keep different rows");
        }
        if kept.dtype != GpuDtype::Boolean {
            return self.refuse(node, "the filter predicate is not boolean");
        }
        let schema = self.output_schema(node)?;
        let n = schema.len();
        // The rows kept, in a column of a name no output has.
        let mut name = String::from("__gpu_kept");
        while schema.iter().any(|column| column.name == name) {
            name.push('_');
        }
        let mut inner = schema.clone();
        inner.push(OutputColumn {
            name: name.clone(),
            dtype: GpuDtype::Boolean,
        });
        let mut named: Vec<NamedExpr> = exprs
            .iter()
            .zip(lowered)
            .map(|(e, (values, _))| NamedExpr {
                name: e.output_name().to_string(),
                expr: values,
            })
            .collect();
        named.push(NamedExpr {
            name: name.clone(),
            expr: kept,
        });
        let select = PlanNode::Select {
            input: Box::new(input),
            exprs: named,
            schema: inner.clone(),
        };
        let filter = PlanNode::Filter {
            input: Box::new(select),
            predicate: GpuExpr::column(n, name, GpuDtype::Boolean),
            schema: inner,
        };
        Some(PlanNode::SimpleProjection {
            input: Box::new(filter),
            columns: (0..n).collect(),
            schema,
        })
    }
}
