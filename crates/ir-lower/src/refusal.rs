//! A refusal: a construct the GPU engine cannot run, named in Polars' notation, with the reason.

use std::fmt;

use polars_plan::constants::CSE_REPLACED;
use polars_plan::plans::{AExpr, ArenaLpIter, ExprIRDisplay, IR};
use polars_utils::arena::{Arena, Node};

/// One construct of a plan that cannot run on the GPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The plan node or expression, in Polars' notation (as `explain` shows it).
    pub subject: String,
    /// Why it cannot run on the GPU.
    pub reason: String,
    /// Whether no part of the plan may run on the device either (no mixed
    /// plan): where Polars' answer for the construct depends on how its own
    /// engine holds the columns below it (a literal column as one value),
    /// which a frame from the device cannot reproduce.
    pub whole_plan: bool,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.subject, self.reason)
    }
}

/// `refusals` with each construct and reason once, in order (a frame read
/// twice, as by a self-join, refuses its columns once); a repeat that
/// keeps the whole plan on the CPU makes the one kept do so.
pub(crate) fn distinct(refusals: Vec<Refusal>) -> Vec<Refusal> {
    let mut kept: Vec<Refusal> = Vec::with_capacity(refusals.len());
    for refusal in refusals {
        match kept
            .iter_mut()
            .find(|k| k.subject == refusal.subject && k.reason == refusal.reason)
        {
            Some(first) => first.whole_plan |= refusal.whole_plan,
            None => kept.push(refusal),
        }
    }
    kept
}

/// `refusals` with the columns Polars' optimiser adds for common
/// subexpressions (`col("__POLARS_CSER_0x…")`, computed once by a select
/// under `root`) written as the expressions they stand for, so that each
/// construct reads as the user wrote it.
pub(crate) fn written_out(
    mut refusals: Vec<Refusal>,
    root: Node,
    lp_arena: &Arena<IR>,
    expr_arena: &Arena<AExpr>,
) -> Vec<Refusal> {
    let mut columns = Vec::new();
    for (_, ir) in lp_arena.iter(root) {
        let exprs = match ir {
            IR::Select { expr, .. } => expr,
            IR::HStack { exprs, .. } => exprs,
            _ => continue,
        };
        for e in exprs.iter() {
            let name = e.output_name();
            if name.starts_with(CSE_REPLACED) {
                let written = ExprIRDisplay::display_node(e.node(), expr_arena).to_string();
                columns.push((format!("col(\"{name}\")"), written));
            }
        }
    }
    // A common subexpression may hold another: until none is left.
    let write_out = |text: &mut String| {
        for _ in 0..=columns.len() {
            if !text.contains(CSE_REPLACED) {
                break;
            }
            for (column, expr) in &columns {
                *text = text.replace(column.as_str(), expr);
            }
        }
    };
    for refusal in &mut refusals {
        write_out(&mut refusal.subject);
        write_out(&mut refusal.reason);
    }
    refusals
}
