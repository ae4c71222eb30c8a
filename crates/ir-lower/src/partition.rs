//! How the partitioned executor may run each plan node over partitions of its input, and why not.
//!
//! The partitioned executor (gpu-exec's `partitioned`) runs a plan whose
//! inputs do not fit the device's memory budget in pieces. What it may do
//! at each node is a property of the plan, decided here once: a node
//! either takes its input partition by partition and gives the same rows,
//! in the same order, as it would over the whole input, or it needs its
//! whole input (then the reason).

use std::sync::Arc;

use polars_core::prelude::DataFrame;

use crate::dtype::GpuDtype;
use crate::expr::{AggOp, BinaryOp, CastMode, ExprKind, GpuExpr, NamedExpr, Scalar};
use crate::plan::{JoinKind, JoinOrder, OutputSchema, PlanNode};

mod around;
mod frame_aggregations;
mod quantiles;
mod steps;
pub use around::{ROWS_AROUND, RUNNING, RowsAround};
pub use frame_aggregations::{FRAME_AGGREGATION, FrameAggregations};
pub use quantiles::{QUANTILE_VALUE, RankedQuantile, RankedQuantiles, RankedValues};

/// How a plan node runs over partitions of its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partitioning {
    /// Partition by partition, in order: the node over each input
    /// partition, the results one after the other, are the node over the
    /// whole (a filter, a select or with_columns of row-wise expressions,
    /// a projection).
    RowWise,
    /// As [`Partitioning::RowWise`], with each partition's rows numbered
    /// on from where the partitions before it ended (a row index).
    Numbered,
    /// Each input's partitions in turn, then the union's slice, if any.
    Stacked,
    /// The rows in order, cut to the slice (a slice of a positive offset).
    Sliced,
    /// Each input over partitions, then their columns side by side on the
    /// host, where their heights match (frames side by side: `hconcat`);
    /// else their results put together in memory.
    SideBySide,
    /// A group-by of aggregations that add up, or a select of such
    /// aggregations over the whole frame (see
    /// [`PlanNode::partial_aggregation`]): each partition aggregated, the
    /// partial results merged by the keys (in buckets where they are many),
    /// then finished.
    Aggregated,
    /// A group-by counting the distinct values of one expression beside
    /// aggregations that add up (see [`PlanNode::distinct_counts`]): the
    /// distinct pairs of keys and value, with the others' partial
    /// results, as a group-by that adds up, then the pairs counted per key
    /// and the partial results merged the same way. A key of many rows
    /// needs no bucket of them all.
    Counted,
    /// A group-by of medians and quantiles beside aggregations that add
    /// up, or a select of such over the whole frame (see
    /// [`PlanNode::ranked_quantiles`]): each group's counts added up over
    /// the partitions with the other aggregations, its valid values
    /// sorted by keys and value by ranges, and its quantile read at its
    /// ranks in that order. A key of many rows needs no bucket of them all.
    Ranked,
    /// A filter, select or with_columns of expressions reading, besides
    /// their own row, only a bounded number of rows before and after it
    /// (`shift`, `diff`, rolling minima of a count of rows), or running
    /// from the first row (`cum_sum`; see [`PlanNode::rows_around`]): each
    /// partition between that many last rows of the input before it and
    /// first rows after it, the rows put around it dropped from its
    /// result, its running functions going on from the values reached
    /// before it. Or a select or with_columns running from the last row
    /// only (`cum_sum(reverse=True)`, a backward fill; see
    /// [`PlanNode::running_from_the_end`]): the partitions from the last
    /// to the first, each going on from the values reached after it.
    Around,
    /// A filter, select or with_columns of row-wise expressions beside
    /// aggregations over the whole frame whose select runs over
    /// partitions (see [`PlanNode::frame_aggregations`]): the
    /// aggregations first, into one row, then each partition with that
    /// row's values beside it, row-wise (or, a select or with_columns,
    /// around each partition, as `Around`).
    BesideAggregations,
    /// Rows put in buckets by a hash of the keys (row-wise expressions), each bucket run whole:
    /// every row of a key is in one bucket, in the order of the input, so
    /// each group (each set of duplicates, each window's partition) sees
    /// the rows it would see over the whole (a group-by, a distinct, a
    /// filter, select or with_columns of windows by common keys: see
    /// [`PlanNode::window_keys`]). The results are put back in the order
    /// of their first rows (of their rows, for windows).
    Bucketed,
    /// In steps, each of which runs over partitions (see
    /// [`PlanNode::steps`]): a filter, select or with_columns whose
    /// expressions read other rows only in windows (and tests of
    /// distinctness) of row-wise keys that no one key is common to, each
    /// set of windows sharing a key computed in a step of its own
    /// ([`Partitioning::Bucketed`]), then the node reading their values
    /// from the steps' columns, row-wise; a sort or group-by by keys
    /// reading other rows, the keys computed first.
    Stepped,
    /// The left input in partitions, the right one whole (a join whose
    /// rows follow the left's, in an order the query leaves open or by the
    /// left rows first); both in buckets by a hash of their keys where the
    /// right one is large (the joined rows put back in the left's order
    /// where the join keeps it). For an as-of join without `by` groups,
    /// each left partition behind the last row of a valid key before it,
    /// so that the check of the left key's order spans the partitions.
    LeftPartitioned,
    /// The right input in partitions, the left one whole (a right or
    /// inner join whose rows follow the right's, in an order the query
    /// leaves open or by the right rows first); both in buckets where the
    /// left one is large (put back in the right's order where the join
    /// keeps it).
    RightPartitioned,
    /// Both inputs in buckets by a hash of their keys, the buckets joined
    /// pair by pair (a full join, or a join validating that the keys of
    /// the input whose order it keeps are unique: each bucket's checked;
    /// put back in the order it keeps, if any; an as-of join by groups,
    /// by its `by` columns, put back in the left's order).
    BothBucketed,
    /// A top-k of a stable sort: the k first of each partition, then the k
    /// first of those (ties stay in the order of the input).
    TopK,
    /// A sort by row-wise keys: rows put in ranges of the sort's order (by
    /// splitter rows sampled from the input, sorted with each partition),
    /// each range sorted whole, the ranges one after the other. Equal keys
    /// share a range, in the order of the input, so the result is the
    /// stable sort of the whole.
    Ranged,
    /// On its whole input, for this reason.
    Whole(&'static str),
}

impl PlanNode {
    /// How this node runs over partitions of its input (see [`Partitioning`]).
    pub fn partitioning(&self) -> Partitioning {
        use Partitioning::*;
        match self {
            PlanNode::DataFrameScan { .. } | PlanNode::FileScan { .. } => {
                Whole("an input, cut into partitions where it is large")
            }
            PlanNode::SimpleProjection { .. } => RowWise,
            PlanNode::Filter { predicate, .. } if predicate.is_row_wise() => RowWise,
            PlanNode::Filter { .. } | PlanNode::Select { .. } | PlanNode::WithColumns { .. }
                if self.window_keys().is_some() =>
            {
                Bucketed
            }
            PlanNode::Filter { .. } | PlanNode::Select { .. } | PlanNode::WithColumns { .. }
                if self.frame_aggregations().is_some() =>
            {
                BesideAggregations
            }
            PlanNode::Filter { .. } | PlanNode::Select { .. } | PlanNode::WithColumns { .. }
                if self.rows_around().is_some() || self.running_from_the_end().is_some() =>
            {
                Around
            }
            PlanNode::Filter { .. } if self.in_steps() => Stepped,
            PlanNode::Filter { .. } => Whole("a filter reading other rows than its own"),
            PlanNode::Select { exprs, .. }
                if all_row_wise(exprs) && exprs.iter().any(|e| e.expr.reads_a_column()) =>
            {
                RowWise
            }
            PlanNode::Select { .. } if self.partial_aggregation().is_some() => Aggregated,
            PlanNode::Select { .. } if self.ranked_quantiles().is_some() => Ranked,
            PlanNode::Select { .. } if self.in_steps() => Stepped,
            PlanNode::Select { .. } => {
                Whole("a select reading other rows than its own, or giving one row")
            }
            PlanNode::WithColumns {
                exprs, broadcast, ..
            } if fills_every_row(exprs, *broadcast) && all_row_wise(exprs) => RowWise,
            PlanNode::WithColumns { .. } if self.in_steps() => Stepped,
            PlanNode::WithColumns { .. } => Whole("a with_columns reading other rows than its own"),
            PlanNode::RowIndex { .. } => Numbered,
            // Each row's lists become rows of their own.
            PlanNode::Explode { .. } | PlanNode::Unnest { .. } => RowWise,
            PlanNode::Union { .. } => Stacked,
            PlanNode::Slice { offset, .. } if *offset >= 0 => Sliced,
            PlanNode::Slice { .. } => Whole("a slice from the end"),
            // (Lists as keys are coded per run, not hashed into buckets.)
            PlanNode::GroupBy { keys, .. } if lists_among(keys.iter().map(|key| &key.expr)) => {
                Whole(LIST_KEYS)
            }
            PlanNode::GroupBy { keys, .. } if all_row_wise(keys) => {
                if self.partial_aggregation().is_some() {
                    Aggregated
                } else if self.distinct_counts().is_some() {
                    Counted
                } else if self.ranked_quantiles().is_some() {
                    Ranked
                } else {
                    Bucketed
                }
            }
            PlanNode::GroupBy { .. } if self.in_steps() => Stepped,
            PlanNode::GroupBy { .. } => {
                Whole("a group-by by keys reading other rows than their own")
            }
            PlanNode::Distinct { schema, subset, .. }
                if schema.iter().enumerate().any(|(i, column)| {
                    matches!(column.dtype, GpuDtype::List(_))
                        && subset.as_ref().is_none_or(|subset| subset.contains(&i))
                }) =>
            {
                Whole(LIST_KEYS)
            }
            PlanNode::Distinct { .. } => Bucketed,
            // Each left row's match depends on the whole right key (of its
            // group), and Polars' on the left keys before it: the executor
            // checks them sorted, across partitions too.
            PlanNode::AsofJoin { by, .. } if by.is_empty() => LeftPartitioned,
            PlanNode::AsofJoin { .. } => BothBucketed,
            PlanNode::Join {
                kind,
                order,
                unique: (left_unique, right_unique),
                left_on,
                right_on,
                predicate,
                ..
            } => {
                use JoinKind::*;
                let row_wise = left_on
                    .iter()
                    .chain(right_on)
                    .chain(predicate)
                    .all(GpuExpr::is_row_wise);
                let keeps_left = matches!(
                    order,
                    JoinOrder::None | JoinOrder::Left | JoinOrder::LeftRight
                );
                let keeps_right = matches!(
                    order,
                    JoinOrder::None | JoinOrder::Right | JoinOrder::RightLeft
                );
                if !row_wise {
                    Whole("a join by keys reading other rows than their own")
                } else if lists_among(left_on.iter()) {
                    Whole(LIST_KEYS)
                } else if matches!(kind, Inner | Left | Semi | Anti | Cross)
                    && keeps_left
                    && !left_unique
                {
                    LeftPartitioned
                } else if matches!(kind, Inner | Right) && keeps_right && !right_unique {
                    RightPartitioned
                } else if *kind == Full
                    || (matches!(kind, Inner | Left | Semi | Anti) && keeps_left)
                    || (matches!(kind, Inner | Right) && keeps_right)
                {
                    // (A join validating the side whose order it keeps: the
                    // keys of each bucket of that side checked.)
                    BothBucketed
                } else if (keeps_left && *left_unique) || (keeps_right && *right_unique) {
                    Whole(
                        "a join validating that the keys of the input it keeps in order are unique",
                    )
                } else {
                    Whole("a join keeping the order of the input it may not take in partitions")
                }
            }
            PlanNode::Sort {
                keys,
                stable: true,
                slice: Some((offset, _)),
                ..
            } if *offset >= 0 && keys.iter().all(|key| key.expr.is_row_wise()) => TopK,
            PlanNode::Sort { keys, .. } if lists_among(keys.iter().map(|key| &key.expr)) => {
                Whole(LIST_KEYS)
            }
            PlanNode::Sort { keys, .. } if keys.iter().all(|key| key.expr.is_row_wise()) => Ranged,
            PlanNode::Sort { .. } if self.in_steps() => Stepped,
            PlanNode::Sort { .. } => Whole("a sort by keys reading other rows than their own"),
            PlanNode::HConcat { .. } => SideBySide,
            PlanNode::Cache { .. } => Whole("a shared subplan"),
        }
    }
}

/// Why a node keyed by lists runs whole: the executor codes lists per
/// run (equal lists, equal codes within it), and hashes no list into a
/// partition's bucket.
const LIST_KEYS: &str = "a group-by, distinct, join or sort by lists";

/// Whether one of `keys` is a list.
fn lists_among<'k>(mut keys: impl Iterator<Item = &'k GpuExpr>) -> bool {
    keys.any(|key| matches!(key.dtype, GpuDtype::List(_)))
}

/// Whether a with_columns of `exprs` fills every row: it `broadcast`s, or
/// each expression reads a column and aggregates nothing outside windows,
/// a value per row (a temporary of Polars' common-subexpression
/// elimination, `(a + b)` of `(a + b) * 2` and `(a + b) * 3`, which keeps
/// only a value of one row one row).
fn fills_every_row(exprs: &[NamedExpr], broadcast: bool) -> bool {
    broadcast
        || exprs
            .iter()
            .all(|named| named.expr.reads_a_column() && !named.expr.has_aggregation())
}

fn all_row_wise(exprs: &[NamedExpr]) -> bool {
    exprs.iter().all(|named| named.expr.is_row_wise())
}

impl PlanNode {
    /// The expressions of a filter (its predicate), a select of a value
    /// per row (one of them reads a column) or a with_columns that fills
    /// every row (see [`fills_every_row`]): the nodes
    /// whose rows are their input's, which windows by buckets, steps and
    /// rows beside aggregations take apart. `None` for other nodes.
    pub(crate) fn expressions_per_row(&self) -> Option<Vec<&GpuExpr>> {
        Some(match self {
            PlanNode::Filter { predicate, .. } => vec![predicate],
            PlanNode::Select { exprs, .. } if exprs.iter().any(|e| e.expr.reads_a_column()) => {
                exprs.iter().map(|named| &named.expr).collect()
            }
            PlanNode::WithColumns {
                exprs, broadcast, ..
            } if fills_every_row(exprs, *broadcast) => {
                exprs.iter().map(|named| &named.expr).collect()
            }
            _ => return None,
        })
    }

    /// The keys of a filter, a select of a value per row or a with_columns
    /// that reads other rows than its own only in windows (`over`) and
    /// tests of distinctness (`is_duplicated`, `is_unique`,
    /// `is_first_distinct`, `is_last_distinct`: each reads the rows of its
    /// value, as a window by it would): keys (reading a column) that every
    /// window is partitioned by, where there are such. Each partition of
    /// every window then lies within one group of these keys, so the node
    /// runs over buckets of them, each row beside the rows of its
    /// windows' partitions, in the order of the input. `None` where a part
    /// outside the windows reads other rows, a window's keys or order do,
    /// a window holds windows or walks groups of rows, a key is a list
    /// (hashed into no bucket), or the windows share no key.
    pub fn window_keys(&self) -> Option<Vec<GpuExpr>> {
        let exprs = self.expressions_per_row()?;
        let mut keys = None;
        for expr in exprs {
            if !row_wise_but_windows(expr, &mut keys) {
                return None;
            }
        }
        keys.filter(|keys: &Vec<GpuExpr>| !keys.is_empty() && !lists_among(keys.iter()))
    }
}

/// Whether `expr` reads other rows than its own only in windows that
/// [`PlanNode::window_keys`] takes and tests of distinctness
/// (`is_duplicated`, `is_first_distinct`, ...: windows by their value),
/// their keys kept in `keys` (those common to all of them so far).
fn row_wise_but_windows(expr: &GpuExpr, keys: &mut Option<Vec<GpuExpr>>) -> bool {
    if matches!(
        expr.kind,
        ExprKind::Window { .. } | ExprKind::Distinct { .. }
    ) {
        let Some(these) = window_of_keys(expr) else {
            return false;
        };
        keep_common(keys, these);
        return true;
    }
    !reads_other_rows_itself(expr)
        && expr
            .children()
            .into_iter()
            .all(|child| row_wise_but_windows(child, keys))
}

/// The keys that partition the rows of `expr`, a window or a test of
/// distinctness (which reads the rows of its value alone: a window
/// partitioned by it), where buckets of them may compute it: its row-wise
/// keys that read a column (none: a window of the whole frame). `None` for
/// other expressions, and where its keys or its order read other rows, or
/// it holds windows or walks groups of rows.
fn window_of_keys(expr: &GpuExpr) -> Option<Vec<GpuExpr>> {
    let (function, partition_by, order_by) = match &expr.kind {
        ExprKind::Distinct { input, .. } => {
            return (input.is_row_wise() && input.reads_a_column())
                .then(|| vec![input.as_ref().clone()]);
        }
        ExprKind::Window {
            function,
            partition_by,
            order_by,
        } => (function, partition_by, order_by),
        _ => return None,
    };
    let inside = |e: &GpuExpr| {
        matches!(
            e.kind,
            ExprKind::Window { .. }
                | ExprKind::Rolling {
                    window: crate::RollingWindow::Slices { .. },
                    ..
                }
        )
    };
    if function.any(&inside)
        || !partition_by.iter().all(GpuExpr::is_row_wise)
        || order_by
            .as_ref()
            .is_some_and(|order| !order.key.is_row_wise())
    {
        return None;
    }
    let keys = partition_by.iter().filter(|key| key.reads_a_column());
    Some(keys.cloned().collect())
}

/// `keys` (`None`: none seen yet) as those of them among `these` too.
fn keep_common(keys: &mut Option<Vec<GpuExpr>>, these: Vec<GpuExpr>) {
    *keys = Some(match keys.take() {
        None => these,
        Some(common) => common
            .into_iter()
            .filter(|key| these.contains(key))
            .collect(),
    });
}

/// Whether `e` itself (not its parts) makes its rows' values of other
/// rows: an aggregation, a window, a function of the rows in order, a
/// change of length, or what [`GpuExpr::is_row_wise`] names besides.
fn reads_other_rows_itself(e: &GpuExpr) -> bool {
    e.reads_other_rows()
        || e.sums_lists_in_polars_order()
        || matches!(
            e.kind,
            ExprKind::Agg { .. }
                | ExprKind::Len
                | ExprKind::Window { .. }
                | ExprKind::Where { .. }
                | ExprKind::Unique { .. }
                | ExprKind::ParseTemporal { inferred: true, .. }
                | ExprKind::PolarsOwnWhere { no_rows: true, .. }
                // (Of one row, Polars takes the bounds as single
                // values.)
                | ExprKind::List {
                    function: crate::ListFunction::SliceAt { .. },
                    ..
                }
        )
}

impl GpuExpr {
    /// Whether each row's value is a function of that row alone: no
    /// aggregation, window, function of the rows in order, change of
    /// length, parse of texts by a format Polars infers from them, or
    /// slice of lists by each row's bounds (which Polars takes as single
    /// values where the frame has one row).
    pub fn is_row_wise(&self) -> bool {
        !self.any(&reads_other_rows_itself)
    }

    /// Whether this expression reads an input column anywhere.
    pub fn reads_a_column(&self) -> bool {
        self.any(&|e| matches!(e.kind, ExprKind::Column { .. }))
    }
}

/// A group-by as three plans (each over a placeholder input of its
/// schema, which the partitioned executor replaces: no copy of the plan
/// below): the `partial` aggregation of one
/// partition, the `merge` of the partial results put together, and the
/// `finish` over the merged groups, which gives the group-by's columns
/// (without its slice).
#[derive(Debug, Clone)]
pub struct PartialAggregation {
    pub partial: PlanNode,
    pub merge: PlanNode,
    pub finish: PlanNode,
}

/// How one aggregation of a row-wise expression that reads a column adds
/// up over partitions: as the same aggregation of the partial results
/// (sums, minima, maxima, firsts and lasts: of the earliest partition), as
/// counts added up, or (`None`) not at all. Means are taken apart.
fn merged_by(op: &AggOp, input: &GpuExpr) -> Option<AggOp> {
    if !(input.is_row_wise() && input.reads_a_column()) {
        return None;
    }
    match op {
        AggOp::Sum if input.dtype.is_numeric() || input.dtype == GpuDtype::Boolean => {
            Some(AggOp::Sum)
        }
        AggOp::Count { .. } => Some(AggOp::Sum),
        AggOp::Min { .. } | AggOp::Max { .. } | AggOp::First | AggOp::Last => Some(op.clone()),
        _ => None,
    }
}

/// The partial aggregations of one group-by aggregation, added to
/// `partial_aggs` (named `__polars_gpu_partial_<j>`, `j` their column in
/// the partial results, after the `k` keys) with how each merges (an
/// aggregation of the partial results, added to `merges`), and the
/// expression that finishes it over the merged columns; `None` where it
/// does not add up over partitions. An aggregation that adds up is one
/// partial column; a mean of numbers two (the sum of the values as f64 and
/// their count, divided at the end); a spread three (see
/// [`spread_parts`]); an elementwise expression of such
/// aggregations (Polars' sums of decimals, as ir-lower writes them) one per
/// aggregation in it, the expression finished over them.
fn partial_parts(
    expr: &GpuExpr,
    k: usize,
    partial_aggs: &mut Vec<NamedExpr>,
    merges: &mut Vec<GpuExpr>,
) -> Option<GpuExpr> {
    let mut partial = |agg: GpuExpr, merge: AggOp| {
        let column = partial_column(k, partial_aggs, agg);
        merges.push(column.clone().aggregated(merge, column.dtype));
        column
    };
    match &expr.kind {
        ExprKind::Len => {
            let merge = AggOp::Sum;
            Some(partial(expr.clone(), merge))
        }
        ExprKind::Agg {
            op: AggOp::Mean,
            input,
        } if input.is_row_wise()
            && input.reads_a_column()
            && input.dtype.is_numeric()
            && expr.dtype == GpuDtype::Float64 =>
        {
            let f64 = GpuDtype::Float64;
            let sum = (**input)
                .clone()
                .cast(f64, CastMode::NonStrict)
                .aggregated(AggOp::Sum, f64);
            let count = AggOp::Count {
                include_nulls: false,
            };
            let count = (**input).clone().aggregated(count, GpuDtype::UInt32);
            let sum = partial(sum, AggOp::Sum);
            let count = partial(count, AggOp::Sum);
            let none = count.clone().binary(
                BinaryOp::Eq,
                GpuExpr::literal(Scalar::UInt(0), GpuDtype::UInt32),
                GpuDtype::Boolean,
            );
            let mean = sum.binary(
                BinaryOp::TrueDivide,
                count.cast(f64, CastMode::NonStrict),
                f64,
            );
            Some(none.then(GpuExpr::literal(Scalar::Null, f64), mean, f64))
        }
        ExprKind::Agg {
            op: op @ (AggOp::Std { ddof, .. } | AggOp::Var { ddof, .. }),
            input,
        } if input.is_row_wise()
            && input.reads_a_column()
            && (input.dtype.is_integer() || input.dtype.is_float())
            && expr.dtype == GpuDtype::Float64 =>
        {
            let std = matches!(op, AggOp::Std { .. });
            Some(spread_parts(
                expr,
                input,
                (*ddof, std),
                k,
                partial_aggs,
                merges,
            ))
        }
        ExprKind::Agg { op, input } => {
            let merge = merged_by(op, input)?;
            Some(partial(expr.clone(), merge))
        }
        // An elementwise function of aggregations (and literals).
        _ if expr.has_aggregation()
            && !expr.reads_other_rows()
            && !matches!(
                expr.kind,
                ExprKind::Window { .. } | ExprKind::Where { .. } | ExprKind::Unique { .. }
            ) =>
        {
            let mut outer = expr.clone();
            for child in outer.children_mut() {
                *child = partial_parts(child, k, partial_aggs, merges)?;
            }
            Some(outer)
        }
        // A constant beside the aggregations (a literal, a cast of one).
        _ if expr.is_row_wise() && !expr.reads_a_column() => Some(expr.clone()),
        _ => None,
    }
}

/// The column of the partial results that `agg`, added to `partial_aggs`,
/// makes (named `__polars_gpu_partial_<j>`, `j` its place after the `k`
/// keys).
fn partial_column(k: usize, partial_aggs: &mut Vec<NamedExpr>, agg: GpuExpr) -> GpuExpr {
    let j = k + partial_aggs.len();
    let name = format!("__polars_gpu_partial_{j}");
    let column = GpuExpr::column(j, name.clone(), agg.dtype);
    partial_aggs.push(named(name, agg));
    column
}

/// The partial aggregations of a group's variance (`ddof`), or its
/// standard deviation (`std`), of `input` as f64, as [`partial_parts`]
/// makes them: per partition the count of valid values, their mean and
/// the sum of their squared deviations from it; merged by Chan's
/// combination (the counts added, the mean of the means weighed by the
/// counts, the sums of squares added to the counts times the squared
/// distances of the partitions' means from it); finished as the sum of
/// squares over the count less `ddof` (null for no more values than
/// `ddof`), its square root for the deviation. A value not finite makes
/// the spread NaN, as Polars' Welford's over the group's rows does (its
/// hash path); but Polars may take the groups of one key as slices, whose
/// spread of no valid value or of one not finite is 0.0, null or NaN by
/// its path: for one key (`k` 1), such a group's answer is Polars' own (a
/// `PolarsOwnWhere`), and so is a sum of squares that overflows.
fn spread_parts(
    expr: &GpuExpr,
    input: &GpuExpr,
    (ddof, std): (u8, bool),
    k: usize,
    partial_aggs: &mut Vec<NamedExpr>,
    merges: &mut Vec<GpuExpr>,
) -> GpuExpr {
    use BinaryOp::{Eq, LtEq, Minus, Multiply, Or, Plus, TrueDivide};
    let (f64, u32, boolean) = (GpuDtype::Float64, GpuDtype::UInt32, GpuDtype::Boolean);
    let x = input.clone().cast(f64, CastMode::NonStrict);
    let count = AggOp::Count {
        include_nulls: false,
    };
    let mean = x.clone().aggregated(AggOp::Mean, f64);
    let deviation = x.clone().binary(Minus, mean.clone(), f64);
    let squares = (deviation.clone().binary(Multiply, deviation, f64)).aggregated(AggOp::Sum, f64);
    let n = partial_column(k, partial_aggs, x.aggregated(count, u32));
    let mean = partial_column(k, partial_aggs, mean);
    let squares = partial_column(k, partial_aggs, squares);
    let as_f64 = |e: GpuExpr| e.cast(f64, CastMode::NonStrict);
    let null = GpuExpr::literal(Scalar::Null, f64);
    let sum = |e: GpuExpr| {
        let dtype = e.dtype;
        e.aggregated(AggOp::Sum, dtype)
    };
    let total = sum(n.clone());
    let none = |total: GpuExpr| total.binary(Eq, GpuExpr::literal(Scalar::UInt(0), u32), boolean);
    let weighed = sum(as_f64(n.clone()).binary(Multiply, mean.clone(), f64));
    let merged_mean = none(total.clone()).then(
        null.clone(),
        weighed.binary(TrueDivide, as_f64(total.clone()), f64),
        f64,
    );
    let apart = mean.clone().binary(Minus, merged_mean.clone(), f64);
    let between =
        sum(as_f64(n.clone()).binary(Multiply, apart.clone().binary(Multiply, apart, f64), f64));
    merges.push(total);
    merges.push(merged_mean);
    merges.push(sum(squares.clone()).binary(Plus, between, f64));
    // The finish, over the merged columns.
    let few = n.clone().binary(
        LtEq,
        GpuExpr::literal(Scalar::UInt(ddof.into()), u32),
        boolean,
    );
    let denominator = as_f64(n.clone()).binary(
        Minus,
        GpuExpr::literal(Scalar::Float(ddof.into()), f64),
        f64,
    );
    let variance = few.then(
        null,
        squares.clone().binary(TrueDivide, denominator, f64),
        f64,
    );
    let spread = match std {
        true => GpuExpr {
            kind: ExprKind::Unary {
                function: crate::expr::UnaryFunction::Sqrt,
                input: Box::new(variance),
            },
            dtype: f64,
        },
        false => variance,
    };
    let finite = GpuExpr {
        kind: ExprKind::FloatCheck {
            check: crate::expr::FloatCheck::IsFinite,
            input: Box::new(squares.clone()),
        },
        dtype: boolean,
    };
    let not_finite = GpuExpr {
        kind: ExprKind::Not(Box::new(finite)),
        dtype: boolean,
    };
    let overflows = GpuExpr {
        kind: ExprKind::FloatCheck {
            check: crate::expr::FloatCheck::IsInfinite,
            input: Box::new(squares),
        },
        dtype: boolean,
    };
    let (polars_own, why) = match k {
        1 => (
            none(n).binary(Or, not_finite, boolean),
            "a spread of a group with no valid value or one not finite (Polars gives 0.0, \
             null or NaN, by its path)",
        ),
        _ => (
            overflows,
            "a spread of a group whose squared deviations overflow (Polars' running \
             variance may not)",
        ),
    };
    GpuExpr {
        kind: ExprKind::PolarsOwnWhere {
            input: Box::new(spread),
            polars_own: Box::new(polars_own),
            no_rows: false,
            why: why.into(),
            shown: expr.to_string(),
        },
        dtype: f64,
    }
}

impl PlanNode {
    /// A group-by whose aggregations add up over partitions as its
    /// partial aggregation, merge and finish: every aggregation a sum (of
    /// numbers or booleans), a count, a length, a minimum or maximum, a
    /// first or last value, a mean of numbers (as a sum and a count), or a
    /// variance or standard deviation of numbers (see `spread_parts`), of
    /// a row-wise expression that reads a column, or an elementwise
    /// expression of those (see `partial_parts`); or a select of such
    /// aggregations over the whole frame (see `select_partials`). `None`
    /// for other nodes.
    pub fn partial_aggregation(&self) -> Option<PartialAggregation> {
        if let PlanNode::Select {
            input,
            exprs,
            schema,
        } = self
        {
            return select_partials(input, exprs, schema);
        }
        let PlanNode::GroupBy {
            input,
            keys,
            aggs,
            schema,
            polars_partitions_from,
            ..
        } = self
        else {
            return None;
        };
        let k = keys.len();
        let mut partial_aggs = Vec::new();
        let mut merges = Vec::new();
        let mut finishes = Vec::new();
        for agg in aggs {
            finishes.push(partial_parts(&agg.expr, k, &mut partial_aggs, &mut merges)?);
        }
        let partial_schema: OutputSchema = keys
            .iter()
            .chain(&partial_aggs)
            .map(NamedExpr::output_column)
            .collect();
        let column = |j: usize| {
            let c = &partial_schema[j];
            GpuExpr::column(j, c.name.clone(), c.dtype)
        };
        let merge_keys: Vec<NamedExpr> = (0..k)
            .map(|j| named(keys[j].name.clone(), column(j)))
            .collect();
        // The merged columns keep the partial columns' names and places.
        let merge_aggs: Vec<NamedExpr> = merges
            .into_iter()
            .enumerate()
            .map(|(i, merge)| named(partial_schema[k + i].name.clone(), merge))
            .collect();
        let finish_exprs: Vec<NamedExpr> = (0..k)
            .map(|j| named(keys[j].name.clone(), column(j)))
            .chain(
                finishes
                    .into_iter()
                    .zip(aggs)
                    .map(|(expr, agg)| named(agg.name.clone(), expr)),
            )
            .collect();
        let partial = PlanNode::GroupBy {
            input: Box::new(placeholder(input.schema().clone())),
            keys: keys.clone(),
            aggs: partial_aggs,
            maintain_order: true,
            slice: None,
            // (Checked at every size: a partition or the merge sees some
            // of the rows only.)
            polars_partitions_from: polars_partitions_from.map(|_| 0),
            schema: partial_schema.clone(),
        };
        let merge = PlanNode::GroupBy {
            input: Box::new(placeholder(partial_schema.clone())),
            keys: merge_keys,
            aggs: merge_aggs,
            maintain_order: true,
            slice: None,
            polars_partitions_from: polars_partitions_from.map(|_| 0),
            schema: partial_schema.clone(),
        };
        let finish = PlanNode::Select {
            input: Box::new(placeholder(partial_schema)),
            exprs: finish_exprs,
            schema: schema.clone(),
        };
        Some(PartialAggregation {
            partial,
            merge,
            finish,
        })
    }
}

/// A select of aggregations over the whole frame that add up over
/// partitions, as [`PlanNode::partial_aggregation`] splits a group-by (of
/// no keys: each partition's partial results one row, merged whole; firsts
/// and lasts from the partitions that have rows). Not of f32 (which Polars
/// adds in f32 in an order of its own).
fn select_partials(
    input: &PlanNode,
    exprs: &[NamedExpr],
    schema: &OutputSchema,
) -> Option<PartialAggregation> {
    if exprs.is_empty() || !exprs.iter().all(|e| e.expr.has_aggregation()) {
        return None;
    }
    let (mut partial_aggs, mut merges, mut finishes) = (Vec::new(), Vec::new(), Vec::new());
    for named_expr in exprs {
        finishes.push(partial_parts(
            &named_expr.expr,
            0,
            &mut partial_aggs,
            &mut merges,
        )?);
    }
    let f32 = |e: &GpuExpr| match &e.kind {
        ExprKind::Agg { input, .. } => {
            e.dtype == GpuDtype::Float32 || input.dtype == GpuDtype::Float32
        }
        _ => false,
    };
    if partial_aggs.iter().any(|p| p.expr.any(&f32)) {
        return None;
    }
    // A partition of no rows gives a row of partial results all the same,
    // whose first and last values are none of its: firsts and lasts merge
    // from the partitions of rows alone (counted beside).
    let pick = |e: &GpuExpr| {
        matches!(
            e.kind,
            ExprKind::Agg {
                op: AggOp::First | AggOp::Last,
                ..
            }
        )
    };
    if partial_aggs.iter().any(|p| pick(&p.expr)) {
        let (u32, boolean) = (GpuDtype::UInt32, GpuDtype::Boolean);
        let len = GpuExpr {
            kind: ExprKind::Len,
            dtype: u32,
        };
        let rows = partial_column(0, &mut partial_aggs, len);
        let some = (rows.clone()).binary(
            BinaryOp::Gt,
            GpuExpr::literal(Scalar::UInt(0), u32),
            boolean,
        );
        for merge in merges.iter_mut() {
            if let ExprKind::Agg {
                op: op @ (AggOp::First | AggOp::Last),
                input,
            } = &mut merge.kind
            {
                let of_rows = GpuExpr {
                    dtype: input.dtype,
                    kind: ExprKind::Where {
                        input: input.clone(),
                        by: Box::new(some.clone()),
                    },
                };
                *merge = of_rows.aggregated(op.clone(), merge.dtype);
            }
        }
        merges.push(rows.aggregated(AggOp::Sum, u32));
    }
    let partial_schema: OutputSchema = partial_aggs.iter().map(NamedExpr::output_column).collect();
    let merge_exprs = (merges.into_iter().zip(&partial_schema))
        .map(|(merge, column)| named(column.name.clone(), merge))
        .collect();
    let finish_exprs = (finishes.into_iter().zip(exprs))
        .map(|(finish, named_expr)| named(named_expr.name.clone(), finish))
        .collect();
    Some(PartialAggregation {
        partial: PlanNode::Select {
            input: Box::new(placeholder(input.schema().clone())),
            exprs: partial_aggs,
            schema: partial_schema.clone(),
        },
        merge: PlanNode::Select {
            input: Box::new(placeholder(partial_schema.clone())),
            exprs: merge_exprs,
            schema: partial_schema.clone(),
        },
        finish: PlanNode::Select {
            input: Box::new(placeholder(partial_schema)),
            exprs: finish_exprs,
            schema: schema.clone(),
        },
    })
}

/// A group-by counting distinct values as two group-bys (each over a
/// placeholder input of its schema, as [`PartialAggregation`]'s): `pairs`,
/// by the keys and the value, of the partial aggregations of the other
/// aggregations (each distinct pair of the input once, in the order of
/// its first row); and `counts`, by the keys over the pairs, of each
/// key's pairs counted and the partial results merged and finished: the
/// group-by's columns (with its slice).
#[derive(Debug, Clone)]
pub struct DistinctCounts {
    pub pairs: PlanNode,
    pub counts: PlanNode,
}

/// The name of the value beside the keys in [`DistinctCounts::pairs`].
const DISTINCT_VALUE: &str = "__polars_gpu_distinct_value";

impl PlanNode {
    /// A group-by of `n_unique` of one row-wise expression that reads a
    /// column, beside aggregations that add up over partitions (see
    /// [`PlanNode::partial_aggregation`]) but lasts, as [`DistinctCounts`]:
    /// a group's distinct values are its pairs of keys and value (a null
    /// one among them), the pairs' groups come in the order of the groups'
    /// first rows, and a group's first row is its first pair's; the other
    /// aggregations add up over its pairs as over partitions. Not where
    /// the keys or the value are floats (whose zeros and NaNs Polars groups
    /// by paths of its own), nested, categorical or null. `None` for other
    /// nodes.
    pub fn distinct_counts(&self) -> Option<DistinctCounts> {
        let PlanNode::GroupBy {
            input,
            keys,
            aggs,
            maintain_order,
            slice,
            schema,
            ..
        } = self
        else {
            return None;
        };
        let counted = |dtype: GpuDtype| {
            crate::support::group_key(dtype)
                && !dtype.is_float()
                && !matches!(dtype, GpuDtype::Null | GpuDtype::Categorical(_))
        };
        let distinct_of = |expr: &GpuExpr| match &expr.kind {
            ExprKind::Agg {
                op: AggOp::NUnique,
                input,
            } if expr.dtype == GpuDtype::UInt32 => Some(input.as_ref().clone()),
            _ => None,
        };
        let value = aggs.iter().find_map(|agg| distinct_of(&agg.expr))?;
        // (A spread's partial results aggregate within the partition, which
        // the pairs' partial aggregation does not take again; and it
        // checks its groups by the number of keys.)
        let spread = |e: &GpuExpr| {
            matches!(
                e.kind,
                ExprKind::Agg {
                    op: AggOp::Std { .. } | AggOp::Var { .. },
                    ..
                }
            )
        };
        if aggs.iter().any(|agg| agg.expr.any(&spread)) {
            return None;
        }
        if !(value.is_row_wise()
            && value.reads_a_column()
            && counted(value.dtype)
            && keys.iter().all(|key| counted(key.expr.dtype)))
        {
            return None;
        }
        // The pairs' columns: the keys, the value, then the partial
        // aggregations of the other aggregations.
        let k = keys.len();
        let (mut partial_aggs, mut merges) = (Vec::new(), Vec::new());
        let count = GpuExpr {
            kind: ExprKind::Len,
            dtype: GpuDtype::UInt32,
        };
        let mut finishes = Vec::new();
        for agg in aggs {
            match distinct_of(&agg.expr) {
                Some(of) if of == value => finishes.push(None),
                Some(_) => return None,
                None => finishes.push(Some(partial_parts(
                    &agg.expr,
                    k + 1,
                    &mut partial_aggs,
                    &mut merges,
                )?)),
            }
        }
        let last = |e: &GpuExpr| {
            matches!(
                e.kind,
                ExprKind::Agg {
                    op: AggOp::Last,
                    ..
                }
            )
        };
        if merges.iter().any(|merge| merge.any(&last)) {
            return None;
        }
        let mut pair_keys = keys.clone();
        pair_keys.push(named(DISTINCT_VALUE.into(), value));
        let pair_schema: OutputSchema = pair_keys
            .iter()
            .chain(&partial_aggs)
            .map(NamedExpr::output_column)
            .collect();
        let pairs = PlanNode::GroupBy {
            input: Box::new(placeholder(input.schema().clone())),
            keys: pair_keys,
            aggs: partial_aggs,
            maintain_order: true,
            slice: None,
            polars_partitions_from: None,
            schema: pair_schema.clone(),
        };
        let count_keys = (pair_schema.iter().take(k).enumerate())
            .map(|(j, c)| named(c.name.clone(), GpuExpr::column(j, c.name.clone(), c.dtype)))
            .collect();
        let count_aggs = (finishes.into_iter().zip(aggs))
            .map(|(finish, agg)| {
                let expr = match finish {
                    Some(mut finish) => {
                        merged_columns(&mut finish, k + 1, &merges);
                        finish
                    }
                    None => count.clone(),
                };
                named(agg.name.clone(), expr)
            })
            .collect();
        let counts = PlanNode::GroupBy {
            input: Box::new(placeholder(pair_schema)),
            keys: count_keys,
            aggs: count_aggs,
            maintain_order: *maintain_order,
            slice: *slice,
            polars_partitions_from: None,
            schema: schema.clone(),
        };
        Some(DistinctCounts { pairs, counts })
    }
}

/// `finish` (a partial aggregation's finish, over columns of partial
/// results from `first` on) with each such column as it merges (`merges`,
/// by the column's place from `first`: aggregations of the partial
/// results).
fn merged_columns(finish: &mut GpuExpr, first: usize, merges: &[GpuExpr]) {
    if let ExprKind::Column { index, .. } = &finish.kind
        && let Some(merge) = index.checked_sub(first).and_then(|i| merges.get(i))
    {
        *finish = merge.clone();
        return;
    }
    for child in finish.children_mut() {
        merged_columns(child, first, merges);
    }
}

/// An input of `schema` that stands for one the partitioned executor
/// replaces (a partition, partial results, pairs).
fn placeholder(schema: OutputSchema) -> PlanNode {
    PlanNode::DataFrameScan {
        df: Arc::new(DataFrame::empty()),
        projection: Vec::new(),
        schema,
    }
}

fn named(name: String, expr: GpuExpr) -> NamedExpr {
    NamedExpr { name, expr }
}
