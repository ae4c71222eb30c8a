//! Windows of keys no one key is common to (`x.sum().over("a") - x.sum().over("b")`) over partitions: each set of windows sharing a key computed in a step of its own, by buckets, then the rest row-wise.
//!
//! Where a filter's, select's or with_columns' expressions read other
//! rows only in windows (and tests of distinctness, windows by their
//! value) whose keys are row-wise, but no key is common to them all, no
//! one hash of keys puts every window's partition in one bucket. The node
//! then runs in steps: the windows, as with_columns of them one above the
//! other, those of each step sharing a key (so that each step runs by
//! buckets of its keys, its rows put back in the input's order), then the
//! node with each window read from its step's column: row-wise.

use crate::expr::{ExprKind, GpuExpr, NamedExpr};
use crate::plan::{OutputColumn, OutputSchema, PlanNode};

use super::{Partitioning, named, placeholder, reads_other_rows_itself, window_of_keys};

/// The start of the names of the columns the steps add (the window's
/// place among the node's windows follows).
pub const WINDOW_STEP: &str = "__polars_gpu_window_step_";

impl PlanNode {
    /// Whether this node runs in steps of windows sharing a key (see
    /// [`PlanNode::window_steps`]).
    pub(super) fn in_steps(&self) -> bool {
        let input = placeholder(self.inputs()[0].schema().clone());
        self.window_steps(input).is_some()
    }

    /// A filter, a select of a value per row or a with_columns whose
    /// expressions read other rows than their own only in windows (and
    /// tests of distinctness) of row-wise keys reading a column, which
    /// share no key, as steps over `input` (this node's input, or a
    /// placeholder of its schema): a with_columns of each set of windows
    /// sharing a key (`Partitioning::Bucketed`), one above the other, then
    /// this node reading the windows' values from their columns (a filter
    /// or with_columns under a projection of its own columns). `None` for
    /// other nodes, and where one step would do (see
    /// [`PlanNode::window_keys`]).
    pub fn window_steps(&self, input: PlanNode) -> Option<PlanNode> {
        let exprs: Vec<&GpuExpr> = match self {
            PlanNode::Filter { predicate, .. } => vec![predicate],
            PlanNode::Select { exprs, .. } if exprs.iter().any(|e| e.expr.reads_a_column()) => {
                exprs.iter().map(|named| &named.expr).collect()
            }
            PlanNode::WithColumns {
                exprs,
                broadcast: true,
                ..
            } => exprs.iter().map(|named| &named.expr).collect(),
            _ => return None,
        };
        let in_schema = input.schema().clone();
        let first = in_schema.len();
        let mut windows = Vec::new();
        let rewritten = exprs
            .iter()
            .map(|expr| read_windows(expr, first, &mut windows))
            .collect::<Option<Vec<_>>>()?;
        // Each window to the first step sharing a key with it (keys
        // reading no column put no rows apart: a window of none is one of
        // the whole frame).
        let mut steps: Vec<(Vec<GpuExpr>, Vec<usize>)> = Vec::new();
        for (i, window) in windows.iter().enumerate() {
            let keys = window_of_keys(window)?;
            if keys.is_empty() {
                return None;
            }
            let shared =
                (steps.iter_mut()).find(|(common, _)| common.iter().any(|key| keys.contains(key)));
            match shared {
                Some((common, members)) => {
                    common.retain(|key| keys.contains(key));
                    members.push(i);
                }
                None => steps.push((keys, vec![i])),
            }
        }
        if steps.len() < 2 {
            return None;
        }
        let mut below = input;
        let mut schema = in_schema.clone();
        // The windows in the order their steps add their columns.
        let mut added: Vec<usize> = Vec::with_capacity(windows.len());
        for (_, members) in &steps {
            let exprs: Vec<NamedExpr> = members
                .iter()
                .map(|&i| named(format!("{WINDOW_STEP}{i}"), windows[i].clone()))
                .collect();
            schema.extend(exprs.iter().map(NamedExpr::output_column));
            added.extend(members);
            let step = PlanNode::WithColumns {
                input: Box::new(below),
                exprs,
                broadcast: true,
                schema: schema.clone(),
            };
            if step.partitioning() != Partitioning::Bucketed {
                return None;
            }
            below = step;
        }
        // Each window read from its column's place.
        let rewritten: Vec<GpuExpr> = rewritten
            .into_iter()
            .map(|mut expr| {
                expr.visit_mut(&mut |e| {
                    if let ExprKind::Column { index, .. } = &mut e.kind
                        && *index >= first
                        && let Some(place) = added.iter().position(|&i| i == *index - first)
                    {
                        *index = first + place;
                    }
                });
                expr
            })
            .collect();
        if !rewritten.iter().all(GpuExpr::is_row_wise) {
            return None;
        }
        let renamed = |exprs: &[NamedExpr]| -> Vec<NamedExpr> {
            exprs
                .iter()
                .zip(&rewritten)
                .map(|(named_expr, expr)| named(named_expr.name.clone(), expr.clone()))
                .collect()
        };
        let stepped = Box::new(below);
        Some(match self {
            PlanNode::Filter { .. } => PlanNode::SimpleProjection {
                input: Box::new(PlanNode::Filter {
                    input: stepped,
                    predicate: rewritten[0].clone(),
                    schema,
                }),
                columns: (0..first).collect(),
                schema: in_schema,
            },
            PlanNode::Select { exprs, schema, .. } => PlanNode::Select {
                input: stepped,
                exprs: renamed(exprs),
                schema: schema.clone(),
            },
            PlanNode::WithColumns {
                exprs,
                schema: out_schema,
                ..
            } => {
                // (The node's columns: the input's, replaced or not, then
                // those it adds; the windows' columns left out.)
                let with_columns = PlanNode::WithColumns {
                    input: stepped,
                    exprs: renamed(exprs),
                    broadcast: true,
                    schema: with_windows(out_schema, first, &schema[first..]),
                };
                let columns = (0..out_schema.len())
                    .map(|i| {
                        if i < first {
                            i
                        } else {
                            i + schema.len() - first
                        }
                    })
                    .collect();
                PlanNode::SimpleProjection {
                    input: Box::new(with_columns),
                    columns,
                    schema: out_schema.clone(),
                }
            }
            _ => return None,
        })
    }
}

/// A with_columns' output `schema` over an input with the `windows'`
/// columns last: the input's `first` columns (as the node leaves them),
/// the windows', then those the node adds.
fn with_windows(schema: &OutputSchema, first: usize, windows: &[OutputColumn]) -> OutputSchema {
    let mut with = schema[..first].to_vec();
    with.extend_from_slice(windows);
    with.extend_from_slice(&schema[first..]);
    with
}

/// `expr` with each window in it (and test of distinctness) that a step
/// takes read from a column beside the input's (the `i`-th of `windows`
/// from column `first + i`, named [`WINDOW_STEP`] and `i`), added to
/// `windows` where new. `None` where another part reads other rows than
/// its own.
fn read_windows(expr: &GpuExpr, first: usize, windows: &mut Vec<GpuExpr>) -> Option<GpuExpr> {
    if matches!(
        expr.kind,
        ExprKind::Window { .. } | ExprKind::Distinct { .. }
    ) {
        window_of_keys(expr)?;
        let i = match windows.iter().position(|window| window == expr) {
            Some(i) => i,
            None => {
                windows.push(expr.clone());
                windows.len() - 1
            }
        };
        return Some(GpuExpr::column(
            first + i,
            format!("{WINDOW_STEP}{i}"),
            expr.dtype,
        ));
    }
    if reads_other_rows_itself(expr) {
        return None;
    }
    let mut outer = expr.clone();
    for child in outer.children_mut() {
        *child = read_windows(child, first, windows)?;
    }
    Some(outer)
}
