//! Nodes over partitions in steps, each of which runs over partitions itself: windows sharing no key or beside aggregations over the frame or functions of the rows around, counts of distinct values over the whole frame, running functions both from the first row and from the last, filters by running functions, sorts and group-bys by keys reading other rows.
//!
//! - Windows of keys no one key is common to (`x.sum().over("a") -
//!   x.sum().over("b")`): where a filter's, select's or with_columns'
//!   expressions read other rows only in windows (and tests of
//!   distinctness, windows by their value) whose keys are row-wise, but
//!   no key is common to them all, no one hash of keys puts every window's
//!   partition in one bucket. The node then runs in steps: the windows, as
//!   with_columns of them one above the other, those of each step sharing
//!   a key (so that each step runs by buckets of its keys, its rows put
//!   back in the input's order), then the node with each window read from
//!   its step's column: row-wise, beside aggregations over the whole
//!   frame (`x.sum().over("g") - x.mean()`: then one step may do), or
//!   between the rows around each partition (`x.sum().over("g") -
//!   x.shift(1)`, a `cum_sum` beside a window: one step may do too; see
//!   `around.rs`).
//! - Selects of counts of distinct values over the whole frame
//!   (`select([x.n_unique(), y.sum()])`): each count as the distinct
//!   values (by buckets) and their number, the other aggregations as a
//!   select of them, side by side; selects of a column's distinct values
//!   (`select(x.unique())`) as the distinct rows of its values.
//! - Running functions from the first row and from the last in one
//!   select or with_columns (`x.forward_fill().backward_fill()`): those
//!   from the first row of row-wise inputs first, as a with_columns whose
//!   partitions carry them on, then the node reading their columns, whose
//!   partitions run from the last (see `around.rs`).
//! - Filters by running functions (`x.cum_sum() < 100`): the predicate
//!   first, as a with_columns (whose partitions carry the functions on),
//!   then the filter by its column.
//! - Sorts and group-bys by keys reading other rows
//!   (`sort_by(x.sum().over("g"))`, `group_by(x > x.mean().over("g"))`):
//!   the keys first, as a with_columns that runs over partitions (by
//!   buckets of windows' keys, or in steps), then the node by their
//!   columns: by ranges, or by partial aggregations or buckets.

use crate::dtype::GpuDtype;
use crate::expr::{AggOp, ExprKind, GpuExpr, NamedExpr};
use crate::plan::{Keep, OutputColumn, OutputSchema, PlanNode, SortKey};

use super::{Partitioning, named, placeholder, reads_other_rows_itself, window_of_keys};

/// The start of the names of the columns of windows computed first (the
/// column's place in the input's columns, counting on past the last, by
/// the window's place among the node's, follows: a step below another,
/// of a wider input, names its columns otherwise).
pub const WINDOW_STEP: &str = "__polars_gpu_window_";

/// The start of the names of the columns of keys computed first (numbered
/// as [`WINDOW_STEP`]'s).
pub const KEY_STEP: &str = "__polars_gpu_key_";

/// The start of the names of the columns of running functions from the
/// first row computed first, below a node that runs from the last
/// ([`PlanNode::steps`]; numbered as [`WINDOW_STEP`]'s).
pub const RUNNING_STEP: &str = "__polars_gpu_running_step_";

/// The name of the column of the values whose distinct ones a count over
/// the whole frame counts ([`PlanNode::steps`] of such a select).
const DISTINCT_VALUE: &str = "__polars_gpu_distinct_value";

impl PlanNode {
    /// Whether this node runs in steps (see [`PlanNode::steps`]).
    pub(super) fn in_steps(&self) -> bool {
        let input = placeholder(self.inputs()[0].schema().clone());
        self.steps(input).is_some()
    }

    /// This node as steps over `input` (its input, or a placeholder of its
    /// schema), each of which runs over partitions, giving its rows in its
    /// order (see the module's comment): `None` where it does not run so.
    pub fn steps(&self, input: PlanNode) -> Option<PlanNode> {
        match self {
            PlanNode::Sort { .. } | PlanNode::GroupBy { .. } => self.keys_first(input),
            PlanNode::Filter { .. } => match self.window_steps(input.clone()) {
                Some(steps) => Some(steps),
                None => self.predicate_first(input),
            },
            PlanNode::Select { .. } => match self.window_steps(input.clone()) {
                Some(steps) => Some(steps),
                None => self
                    .distinct_counts_apart(input.clone())
                    .or_else(|| self.distinct_values(input.clone()))
                    .or_else(|| self.running_steps(input)),
            },
            _ => self
                .window_steps(input.clone())
                .or_else(|| self.running_steps(input)),
        }
    }

    /// A select of aggregations over the whole frame, some of which count
    /// the distinct values of a row-wise expression reading a column
    /// (`x.n_unique()`), the others adding up over partitions: each count
    /// as a select of its expression's values, their distinct rows (by
    /// buckets) and their number, the others as a select of them (partial
    /// aggregations merged), the rows of all side by side (one each), in
    /// the select's order. Not of floats (whose zeros and NaNs Polars
    /// counts by paths of its own), nested, categorical or null values.
    /// `None` for other nodes, and where a part would run whole.
    fn distinct_counts_apart(&self, input: PlanNode) -> Option<PlanNode> {
        let PlanNode::Select { exprs, schema, .. } = self else {
            return None;
        };
        let counted = |value: &GpuExpr| {
            value.is_row_wise()
                && value.reads_a_column()
                && crate::support::group_key(value.dtype)
                && !value.dtype.is_float()
                && !matches!(value.dtype, GpuDtype::Null | GpuDtype::Categorical(_))
        };
        let mut parts = Vec::new();
        let mut order = Vec::new();
        let mut others = (Vec::new(), Vec::new(), Vec::new());
        for (i, named_expr) in exprs.iter().enumerate() {
            let output = schema.get(i)?.clone();
            match &named_expr.expr.kind {
                ExprKind::Agg {
                    op: AggOp::NUnique,
                    input: value,
                } if counted(value) && named_expr.expr.dtype == GpuDtype::UInt32 => {
                    let values = named(DISTINCT_VALUE.into(), value.as_ref().clone());
                    let distinct = PlanNode::distinct_rows_of(input.clone(), values, false);
                    let count = GpuExpr {
                        kind: ExprKind::Len,
                        dtype: GpuDtype::UInt32,
                    };
                    parts.push(PlanNode::Select {
                        input: Box::new(distinct),
                        exprs: vec![named(output.name.clone(), count)],
                        schema: vec![output],
                    });
                    order.push(i);
                }
                _ => {
                    others.0.push(named_expr.clone());
                    others.1.push(output);
                    others.2.push(i);
                }
            }
        }
        if parts.is_empty() {
            return None;
        }
        let (other_exprs, other_schema, other_places) = others;
        if !other_exprs.is_empty() {
            parts.push(PlanNode::Select {
                input: Box::new(input),
                exprs: other_exprs,
                schema: other_schema,
            });
            order.extend(other_places);
        }
        if parts
            .iter()
            .any(|part| matches!(part.partitioning(), Partitioning::Whole(_)))
        {
            return None;
        }
        PlanNode::side_by_side(parts, &order, schema.clone())
    }

    /// A select of the distinct values of a column (`select(x.unique())`,
    /// `unique_stable`), as a select of its values then their distinct
    /// rows (by buckets; see [`PlanNode::distinct_rows_of`]). `None` for
    /// other nodes. (The lowering makes the distinct values of other
    /// expressions distinct rows already.)
    fn distinct_values(&self, input: PlanNode) -> Option<PlanNode> {
        let (values, maintain_order) = self.unique_selected()?;
        if !matches!(values.expr.kind, ExprKind::Column { .. }) {
            return None;
        }
        let distinct = PlanNode::distinct_rows_of(input, values, maintain_order);
        (distinct.partitioning() == Partitioning::Bucketed).then_some(distinct)
    }

    /// Of a select of only the distinct values of an expression
    /// (`select(x.unique())`): the expression, named as the select's
    /// column, and whether they keep the order of their first rows.
    pub(crate) fn unique_selected(&self) -> Option<(NamedExpr, bool)> {
        let PlanNode::Select { exprs, schema, .. } = self else {
            return None;
        };
        let ([only], [output]) = (exprs.as_slice(), schema.as_slice()) else {
            return None;
        };
        let ExprKind::Unique {
            input: values,
            maintain_order,
        } = &only.expr.kind
        else {
            return None;
        };
        Some((
            named(output.name.clone(), values.as_ref().clone()),
            *maintain_order,
        ))
    }

    /// A select of `values` over `input`, then its distinct rows: in the
    /// order of their first rows where `maintain_order`, else any one of
    /// each in any order.
    pub(crate) fn distinct_rows_of(
        input: PlanNode,
        values: NamedExpr,
        maintain_order: bool,
    ) -> PlanNode {
        let schema = vec![values.output_column()];
        let select = PlanNode::Select {
            input: Box::new(input),
            exprs: vec![values],
            schema,
        };
        PlanNode::distinct_rows(select, maintain_order)
    }

    /// The distinct rows of `input`: in the order of their first rows
    /// where `maintain_order`, else any one of each in any order.
    pub(crate) fn distinct_rows(input: PlanNode, maintain_order: bool) -> PlanNode {
        PlanNode::Distinct {
            schema: input.schema().clone(),
            input: Box::new(input),
            subset: None,
            keep: match maintain_order {
                true => Keep::First,
                false => Keep::Any,
            },
            maintain_order,
            slice: None,
        }
    }

    /// A filter whose predicate reads other rows, as a with_columns of the
    /// predicate over `input` that runs over partitions (not whole: one
    /// holding running functions, `x.cum_sum() < 100`, which a filter's
    /// partitions may not carry on, see `around.rs`), then the filter by
    /// its column, under a projection of the input's columns. `None` for
    /// other nodes, a row-wise predicate, and where the with_columns
    /// would run whole.
    fn predicate_first(&self, input: PlanNode) -> Option<PlanNode> {
        let PlanNode::Filter { predicate, .. } = self else {
            return None;
        };
        if predicate.is_row_wise() {
            return None;
        }
        let in_schema = input.schema().clone();
        let first = in_schema.len();
        let name = format!("{KEY_STEP}{first}");
        let computed = named(name.clone(), predicate.clone());
        let mut schema = in_schema.clone();
        schema.push(computed.output_column());
        let with_predicate = PlanNode::WithColumns {
            input: Box::new(input),
            exprs: vec![computed],
            broadcast: true,
            schema: schema.clone(),
        };
        if matches!(with_predicate.partitioning(), Partitioning::Whole(_)) {
            return None;
        }
        let filter = PlanNode::Filter {
            input: Box::new(with_predicate),
            predicate: GpuExpr::column(first, name, predicate.dtype),
            schema,
        };
        Some(PlanNode::SimpleProjection {
            input: Box::new(filter),
            columns: (0..first).collect(),
            schema: in_schema,
        })
    }

    /// A sort or group-by by keys some of which read other rows, as a
    /// with_columns of those keys over `input` that runs over partitions
    /// (not whole), then the node by their columns (which runs over
    /// partitions: not whole), under a projection of the input's columns
    /// for a sort (see [`PlanNode::keys_computed_first`]). `None` for other
    /// nodes, and where the keys are row-wise or a step would run whole.
    fn keys_first(&self, input: PlanNode) -> Option<PlanNode> {
        let stepped = self.keys_computed_first(input, |key| !key.is_row_wise())?;
        let (by_columns, with_keys) = match &stepped {
            PlanNode::SimpleProjection { input, .. } => (input.as_ref(), input.inputs()[0]),
            node => (node, node.inputs()[0]),
        };
        let whole = |node: &PlanNode| matches!(node.partitioning(), Partitioning::Whole(_));
        (!whole(with_keys) && !whole(by_columns)).then_some(stepped)
    }

    /// A sort or group-by whose keys `computed` picks computed first, as a
    /// with_columns of them over `input` (each named [`KEY_STEP`] and its
    /// place), then the node by their columns (the other keys as they
    /// are), under a projection of the input's columns for a sort: the
    /// same rows, groups and order. `None` for other nodes, and where
    /// `computed` picks no key.
    pub(crate) fn keys_computed_first(
        &self,
        input: PlanNode,
        computed: impl Fn(&GpuExpr) -> bool,
    ) -> Option<PlanNode> {
        let keys: Vec<&GpuExpr> = match self {
            PlanNode::Sort { keys, .. } => keys.iter().map(|key| &key.expr).collect(),
            PlanNode::GroupBy { keys, .. } => keys.iter().map(|key| &key.expr).collect(),
            _ => return None,
        };
        let in_schema = input.schema().clone();
        let first = in_schema.len();
        // Each key picked computed first, read from its column.
        let mut first_computed: Vec<NamedExpr> = Vec::new();
        let read: Vec<GpuExpr> = keys
            .iter()
            .map(|&key| {
                if !computed(key) {
                    return key.clone();
                }
                let place = first + first_computed.len();
                let name = format!("{KEY_STEP}{place}");
                first_computed.push(named(name.clone(), key.clone()));
                GpuExpr::column(place, name, key.dtype)
            })
            .collect();
        if first_computed.is_empty() {
            return None;
        }
        let mut schema = in_schema.clone();
        schema.extend(first_computed.iter().map(NamedExpr::output_column));
        let with_keys = PlanNode::WithColumns {
            input: Box::new(input),
            exprs: first_computed,
            broadcast: true,
            schema: schema.clone(),
        };
        let by_columns = match self {
            PlanNode::Sort {
                keys,
                stable,
                slice,
                ..
            } => {
                let sort = PlanNode::Sort {
                    input: Box::new(with_keys),
                    keys: (keys.iter().zip(read))
                        .map(|(key, expr)| SortKey {
                            expr,
                            descending: key.descending,
                            nulls_last: key.nulls_last,
                        })
                        .collect(),
                    stable: *stable,
                    slice: *slice,
                    schema,
                };
                PlanNode::SimpleProjection {
                    input: Box::new(sort),
                    columns: (0..first).collect(),
                    schema: in_schema,
                }
            }
            PlanNode::GroupBy {
                keys,
                aggs,
                maintain_order,
                slice,
                polars_partitions_from,
                schema,
                ..
            } => PlanNode::GroupBy {
                input: Box::new(with_keys),
                keys: (keys.iter().zip(read))
                    .map(|(key, expr)| named(key.name.clone(), expr))
                    .collect(),
                aggs: aggs.clone(),
                maintain_order: *maintain_order,
                slice: *slice,
                polars_partitions_from: *polars_partitions_from,
                schema: schema.clone(),
            },
            _ => return None,
        };
        Some(by_columns)
    }

    /// A filter, a select of a value per row or a with_columns whose
    /// expressions read other rows than their own only in windows (and
    /// tests of distinctness) of row-wise keys reading a column, and in
    /// aggregations over the whole frame, as steps over `input` (this
    /// node's input, or a placeholder of its schema): a with_columns of
    /// each set of windows sharing a key (`Partitioning::Bucketed`), one
    /// above the other, then this node reading the windows' values from
    /// their columns (a filter or with_columns under a projection of its
    /// own columns), row-wise, beside the aggregations
    /// (`Partitioning::BesideAggregations`) or between the rows around
    /// each partition (`Partitioning::Around`: functions of a bounded
    /// number of rows around each row, running functions). `None` for other nodes, where
    /// windows alone share a key (see [`PlanNode::window_keys`]), and
    /// where the aggregations do not run over partitions.
    fn window_steps(&self, input: PlanNode) -> Option<PlanNode> {
        let exprs = self.expressions_per_row()?;
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
        // (One step of windows alone: the node runs by buckets of their
        // keys itself, see `PlanNode::window_keys`; not beside aggregations
        // or functions of the rows in order.)
        let aggregated = rewritten.iter().any(GpuExpr::has_aggregation);
        let ordered = rewritten.iter().any(|e| !e.is_row_wise());
        if steps.is_empty() || (steps.len() < 2 && !aggregated && !ordered) {
            return None;
        }
        let mut below = input;
        let mut schema = in_schema.clone();
        // The windows in the order their steps add their columns.
        let mut added: Vec<usize> = Vec::with_capacity(windows.len());
        for (_, members) in &steps {
            let exprs: Vec<NamedExpr> = members
                .iter()
                .map(|&i| named(format!("{WINDOW_STEP}{}", first + i), windows[i].clone()))
                .collect();
            added.extend(members);
            below = step(below, exprs, &mut schema, Partitioning::Bucketed)?;
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
        self.over_steps(below, schema, first, rewritten)
    }

    /// A select or with_columns that reads other rows through running
    /// functions from the first row and from the last, which neither
    /// direction of partitions takes alone (`x.forward_fill().backward_fill()`,
    /// `[x.cum_sum(), y.cum_sum(reverse=True)]`), as steps over `input`:
    /// each running function from the first row of a row-wise input (see
    /// `around.rs`) first, in a with_columns of them whose partitions
    /// carry them on from the first row (`Partitioning::Around`), then this
    /// node reading their values from their columns, whose partitions run
    /// from the last row (or row-wise, or beside aggregations over the
    /// whole frame). `None` for other nodes, and where that does not run
    /// over partitions.
    fn running_steps(&self, input: PlanNode) -> Option<PlanNode> {
        if !matches!(self, PlanNode::Select { .. } | PlanNode::WithColumns { .. }) {
            return None;
        }
        let exprs = self.expressions_per_row()?;
        let mut schema = input.schema().clone();
        let first = schema.len();
        let mut running = Vec::new();
        let rewritten: Vec<GpuExpr> = exprs
            .iter()
            .map(|expr| read_running(expr, first, &mut running))
            .collect();
        if running.is_empty() {
            return None;
        }
        let exprs: Vec<NamedExpr> = running
            .into_iter()
            .enumerate()
            .map(|(i, expr)| named(format!("{RUNNING_STEP}{}", first + i), expr))
            .collect();
        let step = step(input, exprs, &mut schema, Partitioning::Around)?;
        self.over_steps(step, schema, first, rewritten)
    }

    /// This filter, select or with_columns as its `rewritten` expressions
    /// over `stepped`, the steps below it, whose `schema` is this node's
    /// input's `first` columns then the steps' (a filter and a
    /// with_columns under a projection of this node's own columns), where
    /// that runs over partitions: row-wise, beside aggregations over the
    /// whole frame, or between the rows around each partition.
    fn over_steps(
        &self,
        stepped: PlanNode,
        schema: OutputSchema,
        first: usize,
        rewritten: Vec<GpuExpr>,
    ) -> Option<PlanNode> {
        let in_schema = schema[..first].to_vec();
        let renamed = |exprs: &[NamedExpr]| -> Vec<NamedExpr> {
            exprs
                .iter()
                .zip(&rewritten)
                .map(|(named_expr, expr)| named(named_expr.name.clone(), expr.clone()))
                .collect()
        };
        let stepped = Box::new(stepped);
        let last = match self {
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
        };
        // The node over the windows' columns runs row-wise, beside
        // aggregations over the whole frame, or between the rows around
        // each partition.
        let node = match &last {
            PlanNode::SimpleProjection { input, .. } => input,
            node => node,
        };
        matches!(
            node.partitioning(),
            Partitioning::RowWise | Partitioning::BesideAggregations | Partitioning::Around
        )
        .then_some(last)
    }
}

/// A step: a with_columns of `exprs` over `below`, whose columns `schema`
/// (`below`'s) gains, where it runs over partitions as `partitioning`
/// says.
fn step(
    below: PlanNode,
    exprs: Vec<NamedExpr>,
    schema: &mut OutputSchema,
    partitioning: Partitioning,
) -> Option<PlanNode> {
    schema.extend(exprs.iter().map(NamedExpr::output_column));
    let step = PlanNode::WithColumns {
        input: Box::new(below),
        exprs,
        broadcast: true,
        schema: schema.clone(),
    };
    (step.partitioning() == partitioning).then_some(step)
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
/// from column `first + i`, named [`WINDOW_STEP`] and `first + i`), added to
/// `windows` where new. `None` where another part reads other rows than
/// its own, but an aggregation over the whole frame (which stays, of the
/// windows' columns inside it).
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
        let name = format!("{WINDOW_STEP}{}", first + i);
        return Some(GpuExpr::column(first + i, name, expr.dtype));
    }
    // (Aggregations over the whole frame stay, of the windows' columns:
    // the node over them runs beside them; so do functions of a bounded
    // number of rows around each row and running functions: the node over
    // them runs between the rows around each partition.)
    if reads_other_rows_itself(expr)
        && !matches!(expr.kind, ExprKind::Agg { .. } | ExprKind::Len)
        && expr.own_rows_around().is_none()
    {
        return None;
    }
    let mut outer = expr.clone();
    for child in outer.children_mut() {
        *child = read_windows(child, first, windows)?;
    }
    Some(outer)
}

/// `expr` with each running function from the first row of a row-wise
/// input in it (see `around.rs`) read from a column beside the input's
/// (the `i`-th of `running` from column `first + i`, named
/// [`RUNNING_STEP`] and `first + i`), added to `running` where new.
fn read_running(expr: &GpuExpr, first: usize, running: &mut Vec<GpuExpr>) -> GpuExpr {
    if expr.is_running() && expr.children().iter().all(|input| input.is_row_wise()) {
        let i = match running.iter().position(|function| function == expr) {
            Some(i) => i,
            None => {
                running.push(expr.clone());
                running.len() - 1
            }
        };
        let name = format!("{RUNNING_STEP}{}", first + i);
        return GpuExpr::column(first + i, name, expr.dtype);
    }
    let mut outer = expr.clone();
    for child in outer.children_mut() {
        *child = read_running(child, first, running);
    }
    outer
}
