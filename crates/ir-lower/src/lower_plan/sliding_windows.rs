//! Polars' `group_by_dynamic` of windows of any period (longer than `every`: overlapping; shorter: with gaps), closed on either side, both or neither, from the first time's window, from the first time itself or from a weekday: each row repeated for each window it lies in (an explode of `int_ranges` of its windows' numbers), then a group-by of the keys and windows in order.

use polars::prelude::{ClosedWindow, DynamicGroupOptions, Label, StartBy};

use super::dynamic::KeyedRows;
use super::*;
use crate::expr::{AggOp, CastMode, RollingWindow, Scalar, Truncation};

/// What `sliding_windows` needs of a `group_by_dynamic` besides its
/// options: `every` (as the truncation of times and in ticks of the time's
/// type: days of dates), the `period` and `offset` in ticks, the time column
/// (as stored, as a temporal value, whether it is an integer Polars takes
/// as timestamps of nanoseconds) and the `group_by` keys.
pub(super) struct SlidingWindows {
    pub every: (Truncation, i64),
    pub period: i64,
    pub offset: i64,
    pub time: (GpuExpr, GpuExpr, bool),
    pub keyed: KeyedRows,
}

impl PlanLowering<'_> {
    /// A `group_by_dynamic` (`dynamic`) of `aggs` by `keys` over `input`
    /// (its rows of each key together, in Polars' order of the keys) in
    /// windows of any period, as Polars finds them within each key's rows
    /// (polars-time's `group_by_windows`): the first window starts at the
    /// first time (`start_by="datapoint"`), or at the truncation of the
    /// first time by `every` (by a week, and as many days as the weekday
    /// is after Monday, for a start by a weekday) moved by the offset, and
    /// then back by as many
    /// `every` as keep the first time from lying before it; window `k`
    /// starts `k` times `every` later and lasts the period (closed as
    /// `dynamic` says), and the windows holding rows are the groups, in
    /// order. Each row lies in the windows from the first starting after
    /// its time less the period to the last starting before its time (at
    /// or before, by the closing): the rows repeated for each of those
    /// (an explode of their numbers), then grouped by the keys and the
    /// window's number in order of appearance (ascending: the times are
    /// sorted within each key's rows, checked, else Polars raises), each
    /// window's rows in their order. Labels and boundaries are computed
    /// from the number. Overlapping windows (`period` longer than `every`,
    /// or as long and closed on both sides) Polars aggregates with its
    /// rolling kernels where they are of numbers (sums, means, extremes,
    /// spreads, quantiles; [`walked`]), walking from window to window:
    /// such aggregations are the same walk over the groups (see
    /// [`RollingWindow::Slices`], the rows numbered by their place among
    /// those in some window), each group's result taken once, beside the
    /// aggregations Polars does not walk ([`walked_in`]); those the
    /// walk does not cover (standard deviations, places of extremes, of
    /// rows a filter, slice, gather or sort keeps) fall back,
    /// as the user wrote them (`polars_aggs`).
    pub(super) fn sliding_windows(
        &mut self,
        node: Node,
        (input, keys, mut aggs): (PlanNode, Vec<NamedExpr>, Vec<NamedExpr>),
        dynamic: &DynamicGroupOptions,
        (windows, polars_aggs): (SlidingWindows, &[ExprIR]),
    ) -> Lowered {
        let SlidingWindows {
            every: (truncation, every),
            period,
            offset,
            time: (stored_time, time, integer),
            keyed,
        } = windows;
        let closed = dynamic.closed_window;
        let overlapping = match closed {
            ClosedWindow::Both => period >= every,
            _ => period > every,
        };
        let width = input.schema().len();
        // The rows' places, after the windows' first start, the check of
        // the times and the windows' numbers.
        let (place_name, place_at) = ("__gpu_place", width + 3);
        let mut walks = false;
        for (agg, polars_agg) in aggs.iter_mut().zip(polars_aggs) {
            if !overlapping || !agg.expr.any(&walked) {
                continue;
            }
            let place = GpuExpr::column(place_at, place_name.to_string(), GpuDtype::Int64);
            let window = RollingWindow::Slices {
                place: Box::new(place),
            };
            let found = crate::refusal::written(polars_agg.node(), self.expr_arena);
            let why = match self.regroups(polars_agg.node()) {
                true => " of rows a filter, slice, gather or sort keeps",
                false => match walked_in(&agg.expr, &window) {
                    Ok(rolled) => {
                        agg.expr = rolled;
                        walks = true;
                        continue;
                    }
                    Err(()) => "",
                },
            };
            return self.refuse(
                node,
                format!(
                    "`{found}`{why} in a group_by_dynamic of overlapping windows (a period of \
                     {} every {}) is not supported on the GPU (Polars aggregates such windows \
                     by its rolling kernels)",
                    written(&dynamic.period),
                    written(&dynamic.every)
                ),
            );
        }
        let int64 = GpuDtype::Int64;
        let int = |value: i64| GpuExpr::literal(Scalar::Int(value), int64);
        let ticks = |e: GpuExpr| e.cast(int64, CastMode::NonStrict);
        let plus = |a: GpuExpr, b: GpuExpr| a.binary(BinaryOp::Plus, b, int64);
        let minus = |a: GpuExpr, b: GpuExpr| a.binary(BinaryOp::Minus, b, int64);
        let times = |a: GpuExpr, b: i64| a.binary(BinaryOp::Multiply, int(b), int64);
        let over = |a: GpuExpr, b: i64| a.binary(BinaryOp::FloorDivide, int(b), int64);
        let dtype = time.dtype;
        let first = keyed.per_key(time.clone().aggregated(AggOp::First, dtype));
        // Windows closed on the left hold a time at their start.
        let at_start = matches!(closed, ClosedWindow::Left | ClosedWindow::Both);
        let at_end = matches!(closed, ClosedWindow::Right | ClosedWindow::Both);
        // From a weekday: the first time's week's Monday (its truncation
        // by a week) and as many days.
        let (truncation, days) = match dynamic.start_by.weekday() {
            Some(day) => {
                let per_day = match (dtype, integer) {
                    (GpuDtype::Date, _) => 1,
                    (GpuDtype::Datetime(unit), false) => unit.per_day(),
                    _ => {
                        return self.refuse(
                            node,
                            format!(
                                "group_by_dynamic of {} with windows started by a weekday is \
                                 not supported on the GPU",
                                stored_time.dtype
                            ),
                        );
                    }
                };
                (Truncation::Weeks(1), i64::from(day) * per_day)
            }
            None => (truncation, 0),
        };
        let origin = match dynamic.start_by {
            StartBy::DataPoint => ticks(first),
            _ => {
                let truncated = GpuExpr {
                    kind: ExprKind::Truncate {
                        input: Box::new(first.clone()),
                        every: truncation,
                    },
                    dtype,
                };
                let start = plus(ticks(truncated), int(days + offset));
                // How far the start lies beyond the first time (beyond the
                // tick before it, for windows open on the left): moved
                // back by whole `every`s past it.
                let gap = minus(start.clone(), ticks(first));
                let gap = match at_start {
                    true => gap,
                    false => plus(gap, int(1)),
                };
                let back = times(plus(over(minus(gap.clone(), int(1)), every), int(1)), every);
                gap.binary(BinaryOp::Gt, int(0), GpuDtype::Boolean).then(
                    minus(start.clone(), back),
                    start,
                    int64,
                )
            }
        };
        // Each row's first window's start (its key's), and the check of
        // the times' order; then the windows holding the row: from `low`
        // to `high`, by their numbers from the first.
        let (origin_name, windows_name) = ("__gpu_origin", "__gpu_window");
        let check = keyed.sorted_check(stored_time.clone());
        let with_origin = with_columns(input, [(origin_name, origin), ("__gpu_sorted", check)]);
        let origin = GpuExpr::column(width, origin_name.to_string(), int64);
        let since = minus(ticks(time.clone()), origin.clone());
        let high = match at_start {
            true => over(since.clone(), every),
            false => over(minus(since.clone(), int(1)), every),
        };
        let low = match at_end {
            // The least k with k·every ≥ since - period.
            true => times(over(minus(int(period), since), every), -1),
            // The least k with k·every > since - period.
            false => plus(over(minus(since, int(period)), every), int(1)),
        };
        let low = low
            .clone()
            .binary(BinaryOp::Lt, int(0), GpuDtype::Boolean)
            .then(int(0), low, int64);
        // (A row in no window, past its key's last or in a gap, has none.)
        let in_some = low
            .clone()
            .binary(BinaryOp::LtEq, high.clone(), GpuDtype::Boolean);
        let numbers = GpuExpr {
            kind: ExprKind::IntRanges {
                start: Box::new(low),
                end: Box::new(plus(high, int(1))),
                step: 1,
            },
            dtype: GpuDtype::list_of(int64),
        };
        let mut columns = vec![(windows_name, numbers)];
        if walks {
            // The place of each row among those in some window.
            let counted = GpuExpr {
                kind: ExprKind::CumSum(Box::new(in_some.cast(int64, CastMode::NonStrict))),
                dtype: int64,
            };
            columns.push((place_name, minus(counted, int(1))));
        }
        let with_windows = with_columns(with_origin, columns);
        let at_windows = width + 2;
        let mut exploded_schema = with_windows.schema().clone();
        exploded_schema[at_windows].dtype = int64;
        let exploded = PlanNode::Explode {
            input: Box::new(with_windows),
            columns: vec![at_windows],
            empty_as_null: false,
            keep_nulls: false,
            schema: exploded_schema,
        };
        // The user's keys, then the windows' numbers; the user's
        // aggregations, then each window's origin (and first time).
        let (stored, name) = (stored_time.dtype, dynamic.index_column.as_str());
        let mut grouped_keys = keys;
        grouped_keys.push(NamedExpr {
            name: windows_name.into(),
            expr: GpuExpr::column(at_windows, windows_name.to_string(), int64),
        });
        let first_name = "__gpu_first_time";
        let mut grouped_aggs = aggs;
        grouped_aggs.push(NamedExpr {
            name: origin_name.into(),
            expr: origin.aggregated(AggOp::First, int64),
        });
        if dynamic.label == Label::DataPoint {
            grouped_aggs.push(NamedExpr {
                name: first_name.into(),
                expr: stored_time.aggregated(AggOp::First, stored),
            });
        }
        let schema = self.output_schema(node)?;
        self.types_agree(node, &grouped_keys, &schema)?;
        self.types_agree(node, &grouped_aggs, &schema)?;
        let grouped_schema: OutputSchema = grouped_keys
            .iter()
            .chain(&grouped_aggs)
            .map(NamedExpr::output_column)
            .collect();
        let bounds = ["_lower_boundary", "_upper_boundary"];
        let is_bound = |name: &str| dynamic.include_boundaries && bounds.contains(&name);
        let grouped = PlanNode::GroupBy {
            // (Polars runs time windows its own way.)
            polars_partitions_from: None,
            input: Box::new(exploded),
            keys: grouped_keys,
            aggs: grouped_aggs,
            maintain_order: true,
            slice: None,
            schema: grouped_schema.clone(),
        };
        let at = |name: &str| grouped_schema.iter().position(|c| c.name == name);
        let number = GpuExpr::column(at(windows_name)?, windows_name.to_string(), int64);
        let origin = GpuExpr::column(at(origin_name)?, origin_name.to_string(), int64);
        let start = plus(origin, times(number, every));
        let end = plus(start.clone(), int(period));
        // Ticks as the time's type (integers as themselves).
        let as_time = |ticks: GpuExpr, to: GpuDtype| match integer {
            true => ticks.cast(to, CastMode::NonStrict),
            false => ticks
                .cast(dtype, CastMode::NonStrict)
                .cast(to, CastMode::NonStrict),
        };
        selected(grouped, schema, |column| {
            let shown = column.name.as_str();
            Some(if is_bound(shown) {
                let bound = match shown == bounds[0] {
                    true => start.clone(),
                    false => end.clone(),
                };
                without_rows(as_time(bound, column.dtype), shown)
            } else if shown == name {
                match dynamic.label {
                    Label::Left => as_time(start.clone(), stored),
                    Label::Right => as_time(end.clone(), stored),
                    Label::DataPoint => GpuExpr::column(at(first_name)?, first_name, stored),
                }
            } else {
                let at = at(shown)?;
                GpuExpr::column(at, shown.to_string(), grouped_schema[at].dtype)
            })
        })
    }
}

/// A select of `schema`'s columns over `input`, each the expression
/// `column` gives it (`None` if any gives none).
pub(super) fn selected(
    input: PlanNode,
    schema: OutputSchema,
    mut column: impl FnMut(&OutputColumn) -> Option<GpuExpr>,
) -> Lowered {
    let exprs = schema
        .iter()
        .map(|c| {
            Some(NamedExpr {
                name: c.name.clone(),
                expr: column(c)?,
            })
        })
        .collect::<Option<_>>()?;
    Some(PlanNode::Select {
        input: Box::new(input),
        exprs,
        schema,
    })
}

/// `input` with the columns `exprs` (names and expressions) after its own.
pub(super) fn with_columns<'n>(
    input: PlanNode,
    exprs: impl IntoIterator<Item = (&'n str, GpuExpr)>,
) -> PlanNode {
    let mut schema = input.schema().clone();
    let exprs = exprs
        .into_iter()
        .map(|(name, expr)| {
            schema.push(OutputColumn {
                name: name.to_string(),
                dtype: expr.dtype,
            });
            NamedExpr {
                name: name.into(),
                expr,
            }
        })
        .collect();
    PlanNode::WithColumns {
        input: Box::new(input),
        exprs,
        broadcast: true,
        schema,
    }
}

/// A window's boundary `bound` (the column `shown`): over no rows, Polars
/// gives no boundary columns (and so raises where a node above reads them),
/// its own answer.
pub(super) fn without_rows(bound: GpuExpr, shown: &str) -> GpuExpr {
    GpuExpr {
        dtype: bound.dtype,
        kind: ExprKind::PolarsOwnWhere {
            input: Box::new(bound),
            polars_own: Box::new(GpuExpr::literal(Scalar::Boolean(false), GpuDtype::Boolean)),
            no_rows: true,
            why: "a group_by_dynamic with boundaries over no rows: Polars gives no boundary \
                  columns there"
                .into(),
            shown: shown.to_string(),
        },
    }
}

/// `expr`, an aggregation of a `group_by_dynamic`'s overlapping groups (or
/// an expression of such), with each aggregation Polars walks ([`walked`];
/// a mean of f32, summed in f64 by Polars' window, whole) as the same walk
/// over the groups (`window`), each group's first, and the others as they
/// are; an error where a walked one is not one the walk covers.
fn walked_in(expr: &GpuExpr, window: &RollingWindow) -> Result<GpuExpr, ()> {
    if walked(expr) || crate::lower_expr::mean_of_f32(expr).is_some() {
        let rolled = super::rolling::rolled(expr, window)?;
        return Ok(rolled.aggregated(AggOp::First, expr.dtype));
    }
    let mut walked_expr = expr.clone();
    if !matches!(expr.kind, ExprKind::Agg { .. }) {
        for (child, original) in walked_expr.children_mut().into_iter().zip(expr.children()) {
            *child = walked_in(original, window)?;
        }
    }
    Ok(walked_expr)
}

/// Whether `e` is an aggregation Polars takes by its rolling kernels over
/// overlapping windows whose answer is the walk's: of numbers (temporal
/// values too), means, places of extremes, spreads, medians and
/// quantiles; sums, minima and maxima of floats (of other numbers the walk
/// gives what any sum or extreme does).
pub(super) fn walked(e: &GpuExpr) -> bool {
    match &e.kind {
        ExprKind::Agg { op, input } => match op {
            AggOp::Min { .. } | AggOp::Max { .. } | AggOp::Sum => input.dtype.is_float(),
            AggOp::Mean
            | AggOp::Median
            | AggOp::Quantile { .. }
            | AggOp::Std { .. }
            | AggOp::Var { .. }
            | AggOp::ArgMin
            | AggOp::ArgMax => true,
            _ => false,
        },
        _ => false,
    }
}

/// A duration as the user wrote it (Polars shows one of integers, `"5i"`,
/// as nanoseconds).
pub(super) fn written(duration: &polars::prelude::Duration) -> String {
    match duration.parsed_int {
        true => format!("{}i", duration.duration_ns()),
        false => duration.to_string(),
    }
}
