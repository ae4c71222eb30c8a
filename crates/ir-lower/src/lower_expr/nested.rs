//! The one rule every expression meets: no lists or structs in or out, but where the GPU computes them.

use super::*;

impl ExprLowering<'_> {
    /// `expr` (lowered from `node`) unless it computes with lists or
    /// structs where the GPU does not: they are read as columns; lists are
    /// made by `implode` (also of each row's window group, a window mapped by
    /// `join`) and `str.split`, taken by the functions of
    /// [`ListFunction`] and by `is_in`, and tested for nulls (by their
    /// lengths, null exactly where they are); structs are built by
    /// `pl.struct`, read by `struct.field` and tested for nulls, and
    /// structs of keys tested for repeats and counted distinct (see
    /// [`crate::support::struct_of_keys`]); both are counted and picked
    /// first or last per group.
    /// Lists and structs are also moved whole to other rows (see
    /// [`GpuExpr::moved_rows`]), chosen row by row (`when/then/otherwise`,
    /// `fill_null`, also within window groups) and made null
    /// (`lit(None).cast(..)`).
    /// Any other expression of them or giving them is refused.
    pub(crate) fn without_nested_values(&mut self, node: Node, mut expr: GpuExpr) -> Lowered {
        let nested = |e: &GpuExpr| e.dtype.is_nested();
        let nested_column = |e: &GpuExpr| nested(e) && matches!(e.kind, ExprKind::Column { .. });
        let renamed = super::structs::is_renamed_struct(&expr);
        let flat = |fields: &[GpuExpr]| {
            !fields
                .iter()
                .any(|f| matches!(f.dtype, GpuDtype::Struct(_)))
        };
        // (Lists of keys sort and group rows by their codes; values sorted
        // by several keys, of which a list, Polars' `sort_by` raises.)
        let key = |e: &GpuExpr| !nested(e) || crate::support::list_sort_key(e.dtype);
        let moved = (expr.moved_rows()).is_some_and(|(_, by)| match by.as_slice() {
            [one] => key(one),
            by => !by.iter().any(|e| nested(e)),
        });
        let dtype = expr.dtype;
        let held = match &mut expr.kind {
            ExprKind::Column { .. } | ExprKind::List { .. } | ExprKind::StructField { .. } => true,
            ExprKind::String { op, input } if op.makes_lists() => !nested(input),
            // Of values, and of lists of the result's type.
            ExprKind::ConcatList(inputs) => inputs.iter().all(|i| !nested(i) || i.dtype == dtype),
            ExprKind::IntRanges { start, end, .. } => !nested(start) && !nested(end),
            ExprKind::InLists { item, .. } => !nested(item),
            // Lists of one type compared (checked as they were lowered).
            ExprKind::ListsEqual { .. } => true,
            // Struct fields renamed: the same values.
            ExprKind::Cast { .. } if renamed => true,
            // Distinct structs of keys, tested or counted (their fields
            // grouped together), and lists of keys (by codes of lists).
            ExprKind::Distinct { input, .. }
            | ExprKind::Agg {
                op: AggOp::NUnique,
                input,
            } => {
                !nested(input)
                    || crate::support::struct_of_keys(input).is_some()
                    || crate::support::list_key(input.dtype)
            }
            // The distinct lists or structs of keys of a column (rows
            // grouped by their codes).
            ExprKind::Unique { input, .. } if nested_column(input) => {
                crate::support::nested_key(input.dtype)
            }
            ExprKind::MakeStruct(fields) => flat(fields),
            // Of a struct column, into fields not structs.
            ExprKind::WithFields { input, fields } => {
                matches!(input.kind, ExprKind::Column { .. }) && flat(fields)
            }
            ExprKind::Agg {
                op: AggOp::Implode | AggOp::Mode { .. },
                ..
            } => true,
            // A window mapped by `join`: its group's list on each row.
            ExprKind::Window { function, .. }
                if matches!(
                    function.kind,
                    ExprKind::Agg {
                        op: AggOp::Implode,
                        ..
                    }
                ) =>
            {
                true
            }
            ExprKind::Agg {
                op: AggOp::First | AggOp::Last | AggOp::Count { .. },
                input,
            } if nested_column(input) => true,
            // Moved whole to other rows: shifted, reversed, gathered,
            // sorted by keys, filled from a neighbour (also within window
            // groups), by indices and keys that are not nested, or by one
            // list of keys (values of any type sorted by it too).
            _ if moved => true,
            // A null list or struct (`lit(None).cast(..)`), and a choice
            // between lists or structs row by row (`when/then/otherwise`,
            // `fill_null`), of values held (checked as they were lowered).
            ExprKind::Literal(Scalar::Null) | ExprKind::FillNull { .. } => true,
            ExprKind::Ternary { predicate, .. } => !nested(predicate),
            // Such a choice within window groups (its moves and
            // aggregations taken per group).
            ExprKind::Window {
                function,
                partition_by,
                order_by,
            } if function.is_choice() => {
                !partition_by.iter().any(nested) && !order_by.iter().any(|o| nested(&o.key))
            }
            // Structs by their own validity (a struct made is never null).
            ExprKind::IsNull(input) | ExprKind::IsNotNull(input)
                if matches!(input.dtype, GpuDtype::Struct(_)) =>
            {
                true
            }
            ExprKind::IsNull(input) | ExprKind::IsNotNull(input)
                if matches!(input.dtype, GpuDtype::List(_)) =>
            {
                let length = GpuExpr {
                    kind: ExprKind::List {
                        function: ListFunction::Len,
                        input: input.clone(),
                    },
                    dtype: GpuDtype::UInt32,
                };
                **input = length;
                true
            }
            // A window of values partitioned by lists of keys (ordered by
            // other keys).
            ExprKind::Window {
                function,
                partition_by,
                order_by,
            } if !nested(function) && !dtype.is_nested() => {
                partition_by.iter().all(key) && !order_by.iter().any(|o| nested(&o.key))
            }
            _ => !nested(&expr) && !expr.children().into_iter().any(nested),
        };
        if held {
            return Some(expr);
        }
        let of_structs = std::iter::once(&expr)
            .chain(expr.children())
            .any(|e| matches!(e.dtype, GpuDtype::Struct(_)));
        let (what, why) = match of_structs {
            true => ("structs", STRUCTS_ON_THE_GPU),
            false => ("lists", LISTS_ON_THE_GPU),
        };
        self.refuse(
            node,
            format!("this operation on {what} is not supported on the GPU yet ({why})"),
        )
    }
}
