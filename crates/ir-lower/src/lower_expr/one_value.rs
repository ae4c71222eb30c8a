//! Where Polars holds an expression as one value (a literal, an aggregation, columns it holds at one row) and what of it the device cannot run: functions of the rows in order and aggregations over such a value, functions of one value with arguments of every row.

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
                if !options.is_elementwise() && !range && one_value(values) {
                    return refused("a function of the rows in order over one value", values);
                }
                // Polars gives such a function the length of its first
                // input, where the executor repeats that value on every row
                // (`lit(0).clip(col("a"), ...)` is one value in Polars).
                // (Durations and datetimes made of parts, and integer
                // ranges, take the longest input's length too.)
                let horizontal = matches!(
                    function,
                    IRFunctionExpr::Coalesce
                        | IRFunctionExpr::Range(IRRangeFunction::IntRanges { .. })
                        | IRFunctionExpr::StringExpr(IRStringFunction::ConcatHorizontal { .. })
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
}
