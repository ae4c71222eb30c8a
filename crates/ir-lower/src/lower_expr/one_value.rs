//! Where Polars holds an expression as one value (a literal, an aggregation, columns it holds at one row): what of it the device cannot run (functions of the rows in order and aggregations over such a value, functions of one value with arguments of every row), and the aggregations of one value it runs as Polars takes them.

use super::*;

impl ExprLowering<'_> {
    /// Why `node` cannot run where it takes one value that is not a
    /// constant (an aggregation, `len()`): Polars applies an aggregation or
    /// a function that reads other rows (a shift, a running sum, a sort) to
    /// that one value, where the executor would apply it to the value
    /// repeated on every row. `None` for anything else.
    /// With the reason, whether the whole plan must stay on the CPU (see
    /// [`Refusal::whole_plan`]).
    pub(super) fn of_one_value(&self, node: Node) -> Option<(String, bool)> {
        let one_value = |input: Node| self.one_value(input);
        let refused = |what: &str, input: Node| {
            Some((
                format!(
                    "{what} (`{}`) is not supported on the GPU",
                    self.notation(input)
                ),
                false,
            ))
        };
        match self.arena.get(node) {
            AExpr::Agg(agg) => {
                // Of a filter of one value (`len().drop_nulls().sum()`) too.
                let input = agg.get_input().first();
                let values = filtered_parts(self.arena, input).map_or(input, |(values, _)| values);
                if one_value(values) {
                    return refused("an aggregation over one value", values);
                }
            }
            // (A fold's own refusal says what it is: a user's function.)
            AExpr::Function { function, .. } if applies_user_function(function) => {}
            AExpr::Function {
                input,
                options,
                function,
            } => {
                let first = input.first()?.node();
                // Of a filter of one value too (`min(x).drop_nulls().product()`).
                let values = filtered_parts(self.arena, first).map_or(first, |(values, _)| values);
                // (Ranges and repeats take one value by design: see
                // `int_range` and `repeat`.)
                let range = matches!(function, IRFunctionExpr::Range(_) | IRFunctionExpr::Repeat);
                // (Per group, `is_empty` of a literal is the group's: see
                // `boolean_aggregation`.)
                let group_empty = self.per_group
                    && matches!(
                        function,
                        IRFunctionExpr::Boolean(IRBooleanFunction::IsEmpty { .. })
                    )
                    && matches!(self.arena.get(values), AExpr::Literal(_));
                if !options.is_elementwise() && !range && !group_empty && one_value(values) {
                    return refused("a function of the rows in order over one value", values);
                }
                // Polars gives such a function the length of its first
                // input, where the executor repeats that value on every row
                // (`lit(0).clip(col("a"), ...)` is one value in Polars).
                // (Durations and datetimes made of parts, integer ranges and
                // concatenated lists take the longest input's length too; so
                // do `pow`, `arctan2` and `log` by a base, which Polars
                // broadcasts: `lit(2.0).pow(col("a"))` is a value per row;
                // and horizontal sums and means, `fill_null` and
                // `is_between`: `lit(2).fill_null(col("a"))` too.)
                let horizontal = matches!(
                    function,
                    IRFunctionExpr::Coalesce
                        | IRFunctionExpr::Pow(IRPowFunction::Generic)
                        | IRFunctionExpr::Atan2
                        | IRFunctionExpr::Log
                        | IRFunctionExpr::ListExpr(IRListFunction::Concat)
                        | IRFunctionExpr::Range(IRRangeFunction::IntRanges { .. })
                        | IRFunctionExpr::StringExpr(IRStringFunction::ConcatHorizontal { .. })
                        | IRFunctionExpr::MinHorizontal
                        | IRFunctionExpr::MaxHorizontal
                        | IRFunctionExpr::SumHorizontal { .. }
                        | IRFunctionExpr::MeanHorizontal { .. }
                        | IRFunctionExpr::FillNull
                        | IRFunctionExpr::Boolean(IRBooleanFunction::IsBetween { .. })
                        | IRFunctionExpr::TemporalExpr(
                            IRTemporalFunction::Duration(_)
                                | IRTemporalFunction::DatetimeFunction { .. }
                        )
                );
                // (`is_in` of one item in a list per row, and `list.contains`
                // of items per row in one list, give a value per row.)
                let list_of = |i: usize| {
                    input.get(i).is_some_and(|i| {
                        matches!(self.polars_dtype(i.node()), Some(DataType::List(_)))
                    })
                };
                let membership = match function {
                    IRFunctionExpr::Boolean(IRBooleanFunction::IsIn { .. }) => list_of(1),
                    IRFunctionExpr::ListExpr(IRListFunction::Contains { .. }) => list_of(0),
                    _ => false,
                };
                let per_row = input[1..].iter().any(|i| !one_value(i.node()));
                if !horizontal && !membership && one_value(first) && per_row {
                    // Polars' answer depends on whether its engine holds
                    // the columns below as one value: no mixed plan either.
                    let (reason, _) =
                        refused("a function of one value with arguments of every row", first)?;
                    return Some((reason, true));
                }
            }
            AExpr::Sort { expr, .. } if one_value(*expr) => {
                return refused("a sort over one value", *expr);
            }
            AExpr::SortBy { expr, by, .. } => {
                if one_value(*expr) {
                    return refused("a sort over one value", *expr);
                }
                if let Some(key) = by.iter().find(|key| one_value(**key)) {
                    return refused("a sort by one value", *key);
                }
            }
            _ => {}
        }
        None
    }

    /// Whether Polars holds `node` as one value: a literal, an aggregation,
    /// or values computed row by row from columns it holds at one row
    /// (`one_row`: Polars' common subexpressions of one value) and
    /// literals only.
    pub(crate) fn one_value(&self, node: Node) -> bool {
        if polars_plan::plans::is_scalar_ae(node, self.arena) {
            return true;
        }
        if self.one_row.is_empty() {
            return false;
        }
        let mut reads_one_row = false;
        for (_, expr) in self.arena.iter(node) {
            match expr {
                AExpr::Column(name) if self.one_row.contains(name) => reads_one_row = true,
                AExpr::Literal(_)
                | AExpr::Cast { .. }
                | AExpr::BinaryExpr { .. }
                | AExpr::Ternary { .. } => {}
                AExpr::Function { options, .. } if options.is_elementwise() => {}
                _ => return false,
            }
        }
        reads_one_row
    }

    /// `agg` of one value that Polars computes (an aggregation, `len()`:
    /// `x.sum().max()`), as Polars takes it of a column of that one value
    /// (not as the executor would, of it repeated on every row): the value
    /// itself for extremes, first and last, means and medians
    /// (as floats where they give floats); a sum of it, 0 where it is null;
    /// counts of 1 or 0. `None` for the other aggregations (refused by the
    /// caller) and for values of other types.
    pub(crate) fn aggregation_of_one_value(
        &mut self,
        node: Node,
        agg: &IRAggExpr,
    ) -> Option<Lowered> {
        let input = agg.get_input().first();
        let of = self.polars_dtype(input)?;
        let flat = !of.is_nested() && !of.is_object();
        let number = of.is_primitive_numeric() || of.is_bool();
        let picks = matches!(
            agg,
            IRAggExpr::Min { .. }
                | IRAggExpr::Max { .. }
                | IRAggExpr::First(_)
                | IRAggExpr::Last(_)
        );
        let of_numbers = matches!(
            agg,
            IRAggExpr::Mean(_) | IRAggExpr::Median(_) | IRAggExpr::Sum(_)
        );
        let counts = matches!(agg, IRAggExpr::Count { .. } | IRAggExpr::NUnique(_));
        let handled = ((picks || counts) && flat) || (of_numbers && (number || of.is_duration()));
        if !handled {
            return None;
        }
        let dtype = match self.dtype(node) {
            Some(dtype) => dtype,
            None => return Some(None),
        };
        let Some(value) = self.expr(input) else {
            return Some(None);
        };
        let count = GpuDtype::UInt32;
        let lowered = match agg {
            IRAggExpr::Count {
                include_nulls: false,
                ..
            } => value.is_not_null().cast(count, CastMode::NonStrict),
            // One, but of a value that may raise (a strict cast) computed
            // all the same, as Polars computes it (seed 3525).
            IRAggExpr::Count { .. } | IRAggExpr::NUnique(_) => {
                let one = GpuExpr::literal(Scalar::UInt(1), count);
                match value.kind {
                    ExprKind::Literal(_) => one,
                    _ => value
                        .is_null()
                        .cast(count, CastMode::NonStrict)
                        .binary(
                            BinaryOp::Multiply,
                            GpuExpr::literal(Scalar::UInt(0), count),
                            count,
                        )
                        .binary(BinaryOp::Plus, one, count),
                }
            }
            IRAggExpr::Sum(_) => {
                let zero = match dtype {
                    GpuDtype::Duration(_) => Scalar::Duration(0),
                    _ if dtype.is_float() => Scalar::Float(0.0),
                    _ if dtype.is_unsigned() => Scalar::UInt(0),
                    _ => Scalar::Int(0),
                };
                value
                    .cast(dtype, CastMode::NonStrict)
                    .fill_null(GpuExpr::literal(zero, dtype))
            }
            _ => value.cast(dtype, CastMode::NonStrict),
        };
        Some(Some(lowered))
    }
}
