//! Rolling windows by a count of rows or by times (`rolling_sum`, `rolling_mean`, `rolling_min`, `rolling_max`, `rolling_var`, `rolling_std` and their `_by` forms; `rolling_quantile` and `rolling_median` by rows) and exponentially weighted functions (`ewm_mean`, `ewm_var`, `ewm_std`): over the frame, or restarted in each group of a window.

use gpu_runtime::ops::{Ewm, RowWindow, TimeWindow, Windows};
use ir_lower::{Closed, EwmFunction, EwmOptions, MOST_RANKED, RollingFunction, RollingWindow};

use super::*;

/// `$call` of the values `$v` of each kind listed, its results of the same
/// kind with their validity; `None` for values of other kinds.
macro_rules! of_kinds {
    ($values:expr, [$($kind:ident),*], |$v:ident| $call:expr) => {
        match $values {
            $(Values::$kind($v) => {
                let (results, valid) = $call;
                Some((Values::$kind(results), valid))
            })*
            _ => None,
        }
    };
}

impl Executor<'_> {
    /// Polars' `rolling_*` (`function`, by `window`) of `input` over
    /// `frame`, restarted in each group of `groups` (in its order), as
    /// `dtype`: sums, means and variances walked by one thread per group as
    /// Polars' windows walk them (see [`Ops::window_sums`],
    /// [`Ops::window_variances`]), integers as 64-bit
    /// words wrapped to `dtype`; minima and maxima as the rows of their
    /// values, gathered, so they come back as they were (a zero's sign, NaN);
    /// first and last values (a rolling group-by's) likewise gathered.
    /// Windows by times walk each group's rows in order of time (stably,
    /// as Polars sorts them), each row's window found by
    /// [`Ops::time_windows`]; windows that are the groups themselves see
    /// [`Executor::rolling_over_slices`].
    pub(crate) fn rolling(
        &self,
        frame: &DeviceFrame,
        (input, function, window): (&GpuExpr, RollingFunction, &RollingWindow),
        dtype: GpuDtype,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let (by, window, min_periods) = match window {
            RollingWindow::Rows {
                size,
                min_periods,
                center,
            } => {
                let window = Windows::Rows(RowWindow {
                    size: *size,
                    min_periods: *min_periods,
                    center: *center,
                });
                return self.in_group_order(frame.height, groups, |order| {
                    self.rolling_in_order(frame, (input, function, window), dtype, (groups, order))
                });
            }
            RollingWindow::Times {
                by,
                period,
                offset,
                min_periods,
                closed,
            } => {
                let window = TimeWindow {
                    period: *period,
                    offset: *offset,
                    closed_left: matches!(closed, Closed::Left | Closed::Both),
                    closed_right: matches!(closed, Closed::Right | Closed::Both),
                };
                (by, window, *min_periods)
            }
            RollingWindow::Slices { place } => {
                let groups = groups.ok_or_else(|| {
                    ExecError::Unsupported(format!("`{input}` over slices of no groups"))
                })?;
                return self.rolling_over_slices(frame, (input, function, place), dtype, groups);
            }
        };
        let times = self.evaluate_in_groups(frame, by, "", groups)?;
        self.in_group_order(frame.height, groups, |(rows, starts)| {
            let order = self.in_order_of(&times, (rows, starts))?;
            let Values::I64(values) = times.values() else {
                return Err(ExecError::Unsupported(format!("windows by `{by}`")));
            };
            let order = (&order, starts);
            let bounds = self
                .ops()
                .time_windows(values, times.validity(), order, window)?;
            let windows = Windows::Given {
                bounds: &bounds,
                min_periods,
            };
            self.rolling_in_order(frame, (input, function, windows), dtype, (groups, order))
        })
    }

    /// The rows of each group (`rows` in group order, `starts` each
    /// group's first position) sorted by `key` (by row; nulls last),
    /// stably: the positions sorted by their group, then by their row's
    /// key.
    fn in_order_of(
        &self,
        key: &DeviceColumn,
        (rows, starts): (&DeviceBuffer<i64>, &DeviceBuffer<i64>),
    ) -> Result<DeviceBuffer<i64>, ExecError> {
        let ops = self.ops();
        let n = rows.len();
        let group_of = ops.segment_ids(starts, n)?;
        let group_of =
            DeviceColumn::from_parts("".into(), GpuDtype::UInt32, n, Values::U32(group_of), None);
        let positions = DeviceFrame {
            columns: vec![group_of, self.gather_column(key, rows)?],
            height: n,
        };
        let (group, key) = (column_ref(0, GpuDtype::UInt32), column_ref(1, key.dtype));
        let sorted = self.sorted_groups_marked(
            &positions,
            &[(&group, false, false), (&key, false, true)],
            1,
        )?;
        Ok(ops.gather(rows, None, &sorted.sorted_rows)?.0)
    }

    /// [`Executor::rolling`] over a `group_by_dynamic`'s overlapping groups
    /// (`groups`, the windows in order, each window's rows in order; see
    /// [`RollingWindow::Slices`]): the rows the windows slice are the first
    /// of each run of one `place` down the frame, each window the span of
    /// those from its first row's to its last's, and the windows are walked
    /// as listed windows (see [`Windows::Listed`]), in runs apart (a window
    /// starting at or after the end of the one before starts one, as
    /// Polars' walk starts afresh there); each row takes its window's
    /// result. One group Polars aggregates as any group: that leaves the
    /// query to Polars.
    fn rolling_over_slices(
        &self,
        frame: &DeviceFrame,
        (input, function, place): (&GpuExpr, RollingFunction, &GpuExpr),
        dtype: GpuDtype,
        (rows, starts): (&DeviceBuffer<i64>, &DeviceBuffer<i64>),
    ) -> Result<DeviceColumn, ExecError> {
        let ops = self.ops();
        let (int64, boolean) = (GpuDtype::Int64, GpuDtype::Boolean);
        let windows = starts.len();
        if windows == 1 {
            return Err(ExecError::DependsOnPolars(
                "a group_by_dynamic of overlapping windows with one window (Polars aggregates \
                 it as any group, not by its rolling kernels)"
                    .into(),
            ));
        }
        let or_true = GpuExpr::literal(Scalar::Boolean(true), boolean);
        let bits = |column: DeviceColumn| match column.into_parts() {
            (Values::Bits(bits), validity) => Ok((bits, validity)),
            _ => Err(ExecError::Unsupported("runs of places".into())),
        };
        // The first row of each run of one place, and each row's run.
        let new_place = place
            .clone()
            .binary(BinaryOp::NotEq, place.clone().shifted(1), boolean)
            .fill_null(or_true.clone());
        let (starts_run, valid) = bits(self.evaluate(frame, &new_place, "")?)?;
        let sliced_rows = ops.filter_indices(&starts_run, valid.as_ref(), frame.height)?;
        let run_of = GpuExpr {
            kind: ExprKind::CumSum(Box::new(new_place.cast(int64, CastMode::NonStrict))),
            dtype: int64,
        }
        .binary(
            BinaryOp::Minus,
            GpuExpr::literal(Scalar::Int(1), int64),
            int64,
        );
        let run_of = self.evaluate_i64(frame, &run_of)?;
        // Each window's span: from its first row's run to its last's.
        let span_end = |index: i64| -> Result<DeviceBuffer<i64>, ExecError> {
            let (rows, _) = self.rows_at_place(rows, starts, index)?;
            Ok(ops.gather(&run_of, None, &rows)?.0)
        };
        let spans = DeviceFrame {
            columns: vec![
                DeviceColumn::of_i64(span_end(0)?),
                DeviceColumn::of_i64(span_end(-1)?),
            ],
            height: windows,
        };
        let (low, last) = (column_ref(0, int64), column_ref(1, int64));
        let one = GpuExpr::literal(Scalar::Int(1), int64);
        let high = last.binary(BinaryOp::Plus, one, int64);
        // The runs of windows: one starts where a window starts at or
        // after the end of the one before.
        let afresh = low
            .clone()
            .binary(BinaryOp::GtEq, high.clone().shifted(1), boolean)
            .fill_null(or_true);
        let (afresh, valid) = bits(self.evaluate(&spans, &afresh, "")?)?;
        let runs = ops.filter_indices(&afresh, valid.as_ref(), windows)?;
        // The bounds, two for each window.
        let bounds = DeviceBuffer::zeroed(2 * windows, self.ctx.memory.clone(), &self.ctx.stream)?;
        let scratch = DeviceBuffer::zeroed(
            (2 * windows).div_ceil(32),
            self.ctx.memory.clone(),
            &self.ctx.stream,
        )?;
        for (side, bound) in [(0, low), (1, high)] {
            let bound = self.evaluate_i64(&spans, &bound)?;
            ops.scatter(
                &bound,
                None,
                &self.bound_places(windows, side)?,
                &bounds,
                &scratch,
            )?;
        }
        let listed = Windows::Listed { bounds: &bounds };
        let results = self.rolling_in_order(
            frame,
            (input, function, listed),
            dtype,
            (Some((rows, starts)), (&sliced_rows, &runs)),
        )?;
        self.gather_column(&results, &self.group_of_rows(rows, starts)?)
    }

    /// [`Executor::rolling`] with the rows in group order (`order`: those
    /// of `groups`, or the frame's); of listed windows, one result for each.
    fn rolling_in_order(
        &self,
        frame: &DeviceFrame,
        (input, function, window): (&GpuExpr, RollingFunction, Windows<'_>),
        dtype: GpuDtype,
        (groups, order): (InGroups<'_>, (&DeviceBuffer<i64>, &DeviceBuffer<i64>)),
    ) -> Result<DeviceColumn, ExecError> {
        let ops = self.ops();
        let unsupported = || ExecError::Unsupported(format!("rolling windows of `{input}`"));
        if let RollingFunction::First | RollingFunction::Last = function {
            // The values of the windows' first (last) rows, gathered.
            let computed = self.computed_in_groups(frame, [input], groups)?;
            let last = function == RollingFunction::Last;
            let rows = ops.window_ends(order, window, last)?;
            return self.gather_column(column_at(&computed, 0)?, &rows);
        }
        if let RollingFunction::Min | RollingFunction::Max = function {
            // The input, computed once, and its values as ordered words.
            let computed = self.computed_in_groups(frame, [input], groups)?;
            let column = column_at(&computed, 0)?;
            let words = cast_to(&column_ref(0, input.dtype), word_dtype(input.dtype));
            let (values, validity) = self.evaluate(&computed, &words, "")?.into_parts();
            let (validity, minimum) = (validity.as_ref(), function == RollingFunction::Min);
            let rows = match values {
                Values::I64(v) => ops.window_extremes(&v, validity, order, window, minimum)?,
                Values::U64(v) => ops.window_extremes(&v, validity, order, window, minimum)?,
                Values::F64(v) => ops.window_extremes(&v, validity, order, window, minimum)?,
                _ => return Err(unsupported()),
            };
            return self.gather_column(column, &rows);
        }
        // Sums of integers as 64-bit words; the rest of floats (as ir-lower
        // casts them).
        let taken = if input.dtype.is_float() {
            input.clone()
        } else {
            cast_to(input, word_dtype(input.dtype))
        };
        let taken_values = self.evaluate_in_groups(frame, &taken, "", groups)?;
        if let RollingFunction::Quantile { .. } = function {
            // Polars ranks -0.0 and 0.0 alike, in an order of its own.
            let values = self.gather_column(&taken_values, &ops.iota(frame.height, 0)?)?;
            let (negative, positive) = self.signed_zeros(values, &ops.iota(1, 0)?)?;
            let what = "a rolling quantile of floats holding -0.0 and 0.0 (Polars ranks them \
                        alike, in an order of its own)";
            self.check_both_zeros(negative, positive, None, what)?;
            self.check_ranked_windows(window)?;
        }
        let (values, validity) = taken_values.into_parts();
        let validity = validity.as_ref();
        let results = match function {
            RollingFunction::Sum => of_kinds!(values, [F64, F32, I64, U64], |v| {
                ops.window_sums(&v, validity, order, window)?
            }),
            RollingFunction::Mean => of_kinds!(values, [F64, F32], |v| {
                ops.window_means(&v, validity, order, window)?
            }),
            RollingFunction::Var { ddof } | RollingFunction::Std { ddof } => {
                let root = matches!(function, RollingFunction::Std { .. });
                of_kinds!(values, [F64, F32], |v| {
                    ops.window_variances(&v, validity, order, window, (ddof, root))?
                })
            }
            RollingFunction::Quantile { quantile, method } => {
                let method = QuantileMethod::from_name(method).ok_or_else(unsupported)?;
                of_kinds!(values, [F64, F32], |v| {
                    ops.window_quantiles(&v, validity, order, window, (quantile, method))?
                })
            }
            RollingFunction::Min
            | RollingFunction::Max
            | RollingFunction::First
            | RollingFunction::Last => None,
        };
        let (values, validity) = results.ok_or_else(unsupported)?;
        let height = match window {
            Windows::Listed { bounds } => bounds.len() / 2,
            _ => frame.height,
        };
        let results =
            DeviceColumn::from_parts("".into(), taken.dtype, height, values, Some(validity));
        if taken.dtype == dtype {
            return Ok(results);
        }
        let sums = DeviceFrame {
            columns: vec![results],
            height,
        };
        // Integer sums wrapped to the result's type.
        let wrapped = GpuExpr {
            kind: ExprKind::Cast {
                input: Box::new(column_ref(0, taken.dtype)),
                mode: CastMode::Wrapping,
            },
            dtype,
        };
        self.evaluate(&sums, &wrapped, "")
    }

    /// Where each of `count` windows' start (`side` 0) or end (1) lies
    /// among bounds two for each window ([`Windows::Given`],
    /// [`Windows::Listed`]): at 2w + side.
    fn bound_places(&self, count: usize, side: i64) -> Result<DeviceBuffer<i64>, ExecError> {
        let int64 = GpuDtype::Int64;
        let numbers = DeviceFrame {
            columns: vec![DeviceColumn::from_parts(
                "".into(),
                int64,
                count,
                Values::I64(self.ops().iota(count, 0)?),
                None,
            )],
            height: count,
        };
        let int = |value: i64| GpuExpr::literal(Scalar::Int(value), int64);
        let place = column_ref(0, int64)
            .binary(BinaryOp::Multiply, int(2), int64)
            .binary(BinaryOp::Plus, int(side), int64);
        self.evaluate_i64(&numbers, &place)
    }

    /// Leaves the query to Polars where a window by times or of groups
    /// holds more than [`MOST_RANKED`] rows: the rolling quantile ranks
    /// each window's values against each other (windows of a count of rows
    /// ir-lower keeps within it).
    fn check_ranked_windows(&self, window: Windows<'_>) -> Result<(), ExecError> {
        let (Windows::Given { bounds, .. } | Windows::Listed { bounds }) = window else {
            return Ok(());
        };
        let ops = self.ops();
        let (count, int64) = (bounds.len() / 2, GpuDtype::Int64);
        if count == 0 {
            return Ok(());
        }
        let mut sides = Vec::with_capacity(2);
        for side in [0, 1] {
            let (bound, _) = ops.gather(bounds, None, &self.bound_places(count, side)?)?;
            sides.push(DeviceColumn::from_parts(
                "".into(),
                int64,
                count,
                Values::I64(bound),
                None,
            ));
        }
        let ends = DeviceFrame {
            columns: sides,
            height: count,
        };
        let width = column_ref(1, int64).binary(BinaryOp::Minus, column_ref(0, int64), int64);
        let widths = self.evaluate_i64(&ends, &width)?;
        let widest = ops.reduce_extreme(&widths, None, true)?.to_host()?;
        match widest.first() {
            Some(&widest) if widest > MOST_RANKED as i64 => {
                Err(ExecError::DependsOnPolars(format!(
                    "a rolling quantile of a window of {widest} rows (the device ranks each \
                 window's values against each other, up to {MOST_RANKED} rows)"
                )))
            }
            _ => Ok(()),
        }
    }

    /// Polars' `ewm_mean`, `ewm_var` or `ewm_std` (`function`) of floats
    /// (`input`) over `frame`, restarted in each group of `groups` (in its
    /// order): one thread per group walks its rows by Polars' recurrence
    /// (see [`Ops::ewm_means`], [`Ops::ewm_spreads`]).
    pub(crate) fn ewm(
        &self,
        frame: &DeviceFrame,
        (input, function, options): (&GpuExpr, EwmFunction, EwmOptions),
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let ewm = Ewm {
            alpha: options.alpha,
            adjust: options.adjust,
            bias: options.bias,
            min_periods: options.min_periods,
            ignore_nulls: options.ignore_nulls,
        };
        let ops = self.ops();
        let (values, validity) = self
            .evaluate_in_groups(frame, input, "", groups)?
            .into_parts();
        let validity = validity.as_ref();
        let root = function == EwmFunction::Std;
        let (values, validity) = self.in_group_order(frame.height, groups, |order| {
            let results = match function {
                EwmFunction::Mean => of_kinds!(values, [F64, F32], |v| {
                    ops.ewm_means(&v, validity, order, ewm)?
                }),
                _ => of_kinds!(values, [F64, F32], |v| {
                    ops.ewm_spreads(&v, validity, order, ewm, root)?
                }),
            };
            results.ok_or_else(|| ExecError::Unsupported(format!("ewm of `{input}`")))
        })?;
        Ok(DeviceColumn::from_parts(
            "".into(),
            input.dtype,
            frame.height,
            values,
            Some(validity),
        ))
    }
}
