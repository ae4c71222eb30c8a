//! Which orders of a join's rows the device gives as Polars does, and why not the others.

use crate::plan::{JoinKind, JoinOrder};

/// Why a join of `kind` keeping `order` (`sliced`: with a slice) does not
/// run on the device, if it does not: a full join keeping one side's order
/// alone leaves the order of one row's matches, and of the other side's
/// rows matching nothing, to Polars' own, and so does a full join in no
/// order which rows a slice keeps; a semi or anti join gives left rows
/// only, in their order.
pub(super) fn unordered_join(kind: JoinKind, order: JoinOrder, sliced: bool) -> Option<String> {
    let name = |order| match order {
        JoinOrder::Left => "left",
        JoinOrder::Right => "right",
        JoinOrder::RightLeft => "right_left",
        _ => "left_right",
    };
    match (kind, order) {
        (JoinKind::Full, JoinOrder::None) if sliced => Some(
            "a slice of a full join in no order: which rows Polars keeps is its own (with \
             maintain_order=\"left_right\" or \"right_left\" it runs on the GPU)"
                .into(),
        ),
        (JoinKind::Full, JoinOrder::Left | JoinOrder::Right) => Some(format!(
            "a full join with maintain_order=\"{}\": the order of one row's matches, and of \
             the rows matching nothing, is Polars' own (\"left_right\" and \"right_left\" run \
             on the GPU)",
            name(order)
        )),
        (JoinKind::Semi | JoinKind::Anti, JoinOrder::Right | JoinOrder::RightLeft) => {
            Some(format!(
                "a {} join with maintain_order=\"{}\" is not supported on the GPU (it keeps \
                 the left rows' order)",
                if kind == JoinKind::Semi {
                    "semi"
                } else {
                    "anti"
                },
                name(order)
            ))
        }
        _ => None,
    }
}
