//! Polars' `group_by_dynamic` of time windows as a plain group-by: each row's window the truncation of its time, a check that the times are sorted and valid (else Polars raises), and the group-by by the windows in order.

use polars::prelude::{ClosedWindow, DynamicGroupOptions, Label, StartBy};

use super::*;
use crate::expr::{CastMode, Scalar};
use crate::lower_expr::truncation;

impl PlanLowering<'_> {
    /// A `group_by_dynamic` (`dynamic`) of `aggs` over `input_node`, with
    /// the window's defaults but for `every` (windows as long as they are
    /// apart, from the time's truncation, closed on the left and labelled
    /// by their start, no boundary columns, no `group_by` keys) on a date
    /// or timestamp column: the windows as a column the group-by takes
    /// (in order: the times are sorted), named as the time column.
    pub(super) fn dynamic_group_by(
        &mut self,
        node: Node,
        input_node: Node,
        (keys, aggs): (&[ExprIR], &[ExprIR]),
        dynamic: &DynamicGroupOptions,
    ) -> Lowered {
        let plain = keys.is_empty()
            && dynamic.every == dynamic.period
            && dynamic.offset.is_zero()
            && !dynamic.every.negative()
            && !dynamic.every.is_zero()
            && dynamic.closed_window == ClosedWindow::Left
            && dynamic.label == Label::Left
            && !dynamic.include_boundaries
            && dynamic.start_by == StartBy::WindowBound;
        if !plain {
            return self.refuse(
                node,
                "group_by_dynamic with `group_by` keys, a period other than `every`, an \
                 offset, boundaries, or windows closed or labelled otherwise than on the left \
                 is not supported on the GPU",
            );
        }
        let input = self.node(input_node);
        let input_schema = self.schema_of(input_node);
        let name = dynamic.index_column.as_str();
        let index = self.positions(node, &input_schema, &[name])?[0];
        let dtype = GpuDtype::from_polars(input_schema.get_at_index(index)?.1).ok()?;
        let Some(every) = truncation(&dynamic.every, dtype, false) else {
            return self.refuse(
                node,
                format!(
                    "group_by_dynamic of {dtype} every {} is not supported on the GPU",
                    dynamic.every
                ),
            );
        };
        let aggs = self.named_exprs_in(aggs, input_node, true);
        let (input, aggs) = (input?, aggs?);
        let time = GpuExpr::column(index, name.to_string(), dtype);
        let window = GpuExpr {
            kind: ExprKind::Truncate {
                input: Box::new(time.clone()),
                every,
            },
            dtype,
        };
        // Polars raises where the times are not sorted or hold a null: a
        // strict cast of -1 to u8 there sends the query to Polars.
        let boolean = GpuDtype::Boolean;
        let previous = GpuExpr {
            kind: ExprKind::Shift {
                input: Box::new(time.clone()),
                periods: 1,
            },
            dtype,
        };
        let wrong = time
            .clone()
            .is_null()
            .binary(
                BinaryOp::Or,
                time.binary(BinaryOp::Lt, previous, boolean),
                boolean,
            )
            .fill_null(GpuExpr::literal(Scalar::Boolean(false), boolean));
        let int64 = GpuDtype::Int64;
        let check = wrong
            .then(
                GpuExpr::literal(Scalar::Int(-1), int64),
                GpuExpr::literal(Scalar::Int(0), int64),
                int64,
            )
            .cast(GpuDtype::UInt8, CastMode::Strict);
        let width = input.schema().len();
        let mut with_window = input.schema().clone();
        for (name, dtype) in [("__gpu_window", dtype), ("__gpu_sorted", GpuDtype::UInt8)] {
            with_window.push(OutputColumn {
                name: name.to_string(),
                dtype,
            });
        }
        let windows = PlanNode::WithColumns {
            input: Box::new(input),
            exprs: vec![
                NamedExpr {
                    name: "__gpu_window".into(),
                    expr: window,
                },
                NamedExpr {
                    name: "__gpu_sorted".into(),
                    expr: check,
                },
            ],
            broadcast: true,
            schema: with_window,
        };
        let keys = vec![NamedExpr {
            name: name.to_string(),
            expr: GpuExpr::column(width, name.to_string(), dtype),
        }];
        let schema = self.output_schema(node)?;
        self.types_agree(node, &keys, &schema)?;
        self.types_agree(node, &aggs, &schema)?;
        Some(PlanNode::GroupBy {
            // (Polars runs time windows its own way.)
            polars_partitions_from: None,
            input: Box::new(windows),
            keys,
            aggs,
            maintain_order: true,
            slice: None,
            schema,
        })
    }
}
