//! Expressions that move their input's values whole to other rows (shifts, reverses, gathers, sorts by keys, fills) or choose each row's value among others (`when/then/otherwise`, `fill_null`): of values of any type.

use super::*;

impl GpuExpr {
    /// Of an expression that moves its input's values whole to other rows
    /// (a shift, a reverse, a gather, a sort by keys, a forward or
    /// backward fill; of each window group too, but a gather): the input
    /// and the expressions that say where each row's value comes from
    /// (indices, keys, partitions). Such a move takes values of any type.
    pub fn moved_rows(&self) -> Option<(&GpuExpr, Vec<&GpuExpr>)> {
        match &self.kind {
            ExprKind::Shift { input, .. }
            | ExprKind::Reverse(input)
            | ExprKind::Fill { input, .. } => Some((input, Vec::new())),
            ExprKind::Gather { input, indices, .. } => Some((input, vec![indices])),
            ExprKind::SortedBy { input, order, .. } => {
                Some((input, order.iter().map(|o| o.key.as_ref()).collect()))
            }
            ExprKind::Window {
                function,
                partition_by,
                order_by,
            } if !matches!(function.kind, ExprKind::Gather { .. }) => {
                let (input, mut by) = function.moved_rows()?;
                by.extend(partition_by);
                by.extend(order_by.iter().map(|o| o.key.as_ref()));
                Some((input, by))
            }
            _ => None,
        }
    }

    /// Whether this chooses each row's value among others row by row
    /// (`when/then/otherwise`, `fill_null`), which takes values of any type.
    pub fn is_choice(&self) -> bool {
        matches!(
            self.kind,
            ExprKind::Ternary { .. } | ExprKind::FillNull { .. }
        )
    }
}
