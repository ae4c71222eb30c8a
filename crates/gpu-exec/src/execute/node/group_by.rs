//! The group-by operator: each group's keys and aggregations.

use super::*;

impl Executor<'_> {
    /// A group-by (`node`): the keys' first rows and the aggregations per group.
    pub(crate) fn group_by(&self, node: &PlanNode) -> Result<DeviceFrame, ExecError> {
        let PlanNode::GroupBy {
            input,
            keys,
            aggs,
            maintain_order,
            slice,
            schema,
            polars_partitions_from,
            ..
        } = node
        else {
            return Err(ExecError::Unsupported(format!(
                "`{}` is not a group-by",
                node.header()
            )));
        };
        let mut frame = self.run(input)?;
        let ops = self.ops();
        // Keys that are expressions are computed and appended to the
        // frame (the aggregations read only the columns before them).
        let mut key_exprs = Vec::with_capacity(keys.len());
        for key in keys {
            if is_column(&key.expr) {
                key_exprs.push(key.expr.clone());
                continue;
            }
            let column = self.evaluate(&frame, &key.expr, &key.name)?;
            key_exprs.push(GpuExpr::column(
                frame.columns.len(),
                key.name.clone(),
                key.expr.dtype,
            ));
            frame.columns.push(column);
        }
        // Of a struct key, which row's struct shows a group holding -0.0 in
        // a float field is as Polars' hash path takes its rows.
        let float_fields: Vec<GpuExpr> = key_exprs
            .iter()
            .filter_map(|key| match key.dtype {
                GpuDtype::Struct(of) => Some(struct_fields(key, of)),
                _ => None,
            })
            .flatten()
            .filter(|field| field.dtype.is_float())
            .collect();
        let what = "a struct key holding -0.0 in a float field (the group shows a row's struct \
                    as Polars' hash path takes its rows)";
        self.check_negative_zero_keys(&frame, &float_fields, what)?;
        // Of a list key of floats likewise, its values.
        for key in &key_exprs {
            if let GpuDtype::List(of) = key.dtype
                && of.values().is_float()
            {
                let values = self.list_values(column_at(&frame, column_index(key)?)?)?;
                let what = "a list key holding -0.0 (the group shows a row's list as Polars' \
                            hash path takes its rows)";
                self.check_negative_zero_keys(&values, &[column_ref(0, of.values())], what)?;
            }
        }
        if key_exprs.len() > 1 {
            let what = "a float key of -0.0 in a group-by on several keys (Polars' key is 0.0 \
                        or -0.0 by the hash path it takes for the frame's size)";
            self.check_negative_zero_keys(&frame, &key_exprs, what)?;
        } else if let [key] = key_exprs.as_slice()
            && key.dtype.is_float()
            && (!input.rows_in_defined_order()
                || polars_partitions_from.is_some_and(|rows| frame.height >= rows))
        {
            // The group of -0.0 and 0.0 shows its first row's zero, first
            // in an order Polars leaves its own here (after an unordered
            // distinct or join), or, from a frame's size on, a zero of
            // Polars' partitioned hash path (it samples the keys to choose
            // it): where both are met, the key is Polars'.
            let keys = column_at(&frame, column_index(key)?)?;
            let values = self.gather_column(keys, &self.ops().iota(frame.height, 0)?)?;
            let (negative, positive) = self.signed_zeros(values, &self.ops().iota(1, 0)?)?;
            let what = "a float key holding both -0.0 and 0.0 (the group's key is its first \
                        row's zero, in Polars' order of the rows)";
            self.check_both_zeros(negative, positive, None, what)?;
        }
        let Groups {
            sorted_rows,
            starts,
            first_rows,
        } = self.groups(&frame, &key_exprs.iter().collect::<Vec<_>>())?;
        // Over no groups Polars types the literal parts of an aggregation
        // null: an aggregation of literals alone is a column of no type,
        // and temporal arithmetic with such a part raises (a date plus a
        // null).
        if starts.is_empty() && aggs.iter().any(|agg| typed_null_over_no_groups(&agg.expr)) {
            return Err(ExecError::DependsOnPolars(
                "a group-by of no groups with an aggregation of literals, of temporal values \
                 and literals, or of values in another's order (Polars types them null there)"
                    .into(),
            ));
        }
        let mut columns = Vec::with_capacity(schema.len());
        for key in &key_exprs {
            columns.push(self.gather_column(column_at(&frame, column_index(key)?)?, &first_rows)?);
        }
        self.with_one_key_groups(key_exprs.len() == 1, || {
            for agg in aggs {
                let groups = (&sorted_rows, &starts);
                columns.push(self.aggregate_expr(&frame, &agg.expr, groups, false)?);
            }
            Ok::<_, ExecError>(())
        })?;
        let mut out = DeviceFrame {
            columns,
            height: starts.len(),
        };
        if *maintain_order {
            // Groups in the order of their first rows.
            let groups = ops.rows(starts.len())?;
            let order = ops.sort_by(groups, &first_rows, None, false, false)?;
            out = self.gather_frame(&out, &ops.widen(&order)?)?;
        }
        if let Some(slice) = slice {
            out = self.slice_frame(&out, *slice)?;
            // Polars evaluates the aggregations of a slice that keeps no
            // group over no groups, by paths of its own (some raise there,
            // as a ternary of an aggregation and a column under `round`).
            if out.height == 0 && !starts.is_empty() {
                return Err(ExecError::DependsOnPolars(
                    "a sliced group-by keeping no group: Polars evaluates its aggregations \
                     over no groups by paths of its own"
                        .into(),
                ));
            }
        }
        for (column, output) in out.columns.iter_mut().zip(schema) {
            column.name = output.name.as_str().into();
        }
        Ok(out)
    }
}

/// Whether Polars, aggregating `expr` over no groups, takes a part of it as
/// a null of no type where the device keeps its type: `expr` of literals
/// alone, holding a literal beside temporal values, or of values in
/// another's order aggregated otherwise than by picking one.
pub(crate) fn typed_null_over_no_groups(expr: &GpuExpr) -> bool {
    let literal = expr.any(&|e| matches!(e.kind, ExprKind::Literal(_)));
    // (Values in another's order aggregated otherwise than by picking one,
    // `x.gather(k.arg_sort().head(2)).sum()`: Polars types them null over
    // no groups too, and raises where `not` meets them; fuzz seed 2799. Of
    // `x.sort_by(k).first()` it keeps their type.)
    let (mut sorted, mut picked) = (0, 0);
    expr.visit(&mut |e| match &e.kind {
        ExprKind::SortedBy { .. } => sorted += 1,
        ExprKind::Agg {
            op: AggOp::First | AggOp::Last | AggOp::Get { .. },
            input,
        } if matches!(input.kind, ExprKind::SortedBy { .. }) => picked += 1,
        _ => {}
    });
    let gathered = sorted > picked;
    of_literals_only(expr) || gathered || (literal && expr.any(&|e| e.dtype.is_temporal()))
}
