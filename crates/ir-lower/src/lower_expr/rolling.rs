//! Rolling windows by a count of rows (`rolling_sum`, `rolling_mean`, `rolling_min`, `rolling_max`, `rolling_var`, `rolling_std`, `rolling_quantile`, `rolling_median`) and by times (their `_by` forms), and exponentially weighted means, variances and deviations (`ewm_mean`, `ewm_var`, `ewm_std`).

use polars::prelude::{ClosedWindow, Duration, RollingOptionsDynamicWindow};
use polars_core::prelude::{RollingFnParams, RollingOptionsFixedWindow, RollingVarParams};
use polars_ops::series::EWMOptions;
use polars_plan::plans::{IRRollingFunction, IRRollingFunctionBy};

use super::*;
use crate::expr::{Closed, EwmFunction, EwmOptions, MOST_RANKED, RollingFunction, RollingWindow};

/// Polars' rolling quantile (`name`: by rows or by times) at the quantile
/// and by the method of `params`, with a least count of `min_periods`: the
/// function, or why the device leaves it to Polars (no quantile, one
/// outside [0, 1], which Polars rejects, or a least count of none).
fn quantile_of(
    params: &Option<RollingFnParams>,
    min_periods: usize,
    name: &str,
) -> Result<RollingFunction, String> {
    let Some(RollingFnParams::Quantile(params)) = params else {
        return Err(format!("{name} without its quantile"));
    };
    if !(0.0..=1.0).contains(&params.prob) {
        return Err(format!("{name} at {} (Polars raises)", params.prob));
    }
    if min_periods == 0 {
        return Err(format!(
            "{name} with min_periods=0 is not supported on the GPU"
        ));
    }
    Ok(RollingFunction::Quantile {
        quantile: params.prob,
        method: quantile_method_name(params.method),
    })
}

/// The `ddof` of a variance's parameters (Polars' default 1).
fn ddof_of(params: &Option<RollingFnParams>) -> u8 {
    match params {
        Some(RollingFnParams::Var(RollingVarParams { ddof })) => *ddof,
        _ => 1,
    }
}

impl ExprLowering<'_> {
    /// Polars' `rolling_*(window_size, weights, min_periods, center)` of
    /// the single input: sums, means, minima, maxima, variances and
    /// standard deviations without weights; the input cast as Polars casts
    /// it (booleans summed as u32, small integers as i64, numbers averaged
    /// and spread as f64).
    pub(super) fn rolling(
        &mut self,
        node: Node,
        function: &IRRollingFunction,
        options: &RollingOptionsFixedWindow,
        inputs: &[ExprIR],
    ) -> Lowered {
        let (function, name) = match function {
            IRRollingFunction::Sum => (RollingFunction::Sum, "rolling_sum"),
            IRRollingFunction::Mean => (RollingFunction::Mean, "rolling_mean"),
            IRRollingFunction::Min => (RollingFunction::Min, "rolling_min"),
            IRRollingFunction::Max => (RollingFunction::Max, "rolling_max"),
            IRRollingFunction::Var | IRRollingFunction::Std => {
                let ddof = ddof_of(&options.fn_params);
                match function {
                    IRRollingFunction::Var => (RollingFunction::Var { ddof }, "rolling_var"),
                    _ => (RollingFunction::Std { ddof }, "rolling_std"),
                }
            }
            IRRollingFunction::Quantile => {
                let name = "rolling_quantile";
                let function = match quantile_of(&options.fn_params, options.min_periods, name) {
                    Ok(function) => function,
                    Err(why) => return self.refuse(node, why),
                };
                if options.window_size > MOST_RANKED {
                    return self.refuse(
                        node,
                        format!(
                            "rolling_quantile of windows over {MOST_RANKED} rows is not \
                             supported on the GPU (it ranks each window's values against each \
                             other)"
                        ),
                    );
                }
                (function, name)
            }
            other => return self.refuse(node, format!("{other} is not supported on the GPU")),
        };
        if options.weights.is_some() {
            return self.refuse(
                node,
                format!("{name} with weights is not supported on the GPU"),
            );
        }
        if options.window_size == 0 || options.min_periods > options.window_size {
            return self.refuse(
                node,
                format!(
                    "{name} of window_size={} and min_periods={} is not supported on the GPU",
                    options.window_size, options.min_periods
                ),
            );
        }
        let input = self.single(inputs)?;
        let window = RollingWindow::Rows {
            size: options.window_size as u64,
            min_periods: options.min_periods as u64,
            center: options.center,
        };
        self.rolling_of(node, (function, name), input, window)
    }

    /// Polars' `rolling_*_by(by, window_size, min_periods, closed)` of the
    /// first input by the times of the second (dates, timestamps of no
    /// zone or of UTC, or integers but u64): sums, means, minima, maxima,
    /// variances, standard deviations and quantiles (of a least count of
    /// one; windows wider than [`MOST_RANKED`] rows leave the query to
    /// Polars at run time), in windows of a fixed duration
    /// (no months; of nanoseconds alone for other zones), as
    /// [`ExprLowering::rolling`] casts their input.
    pub(super) fn rolling_by(
        &mut self,
        node: Node,
        function: &IRRollingFunctionBy,
        options: &RollingOptionsDynamicWindow,
        inputs: &[ExprIR],
    ) -> Lowered {
        use IRRollingFunctionBy as F;
        let ddof = ddof_of(&options.fn_params);
        let (function, name) = match function {
            F::SumBy => (RollingFunction::Sum, "rolling_sum_by"),
            F::MeanBy => (RollingFunction::Mean, "rolling_mean_by"),
            F::MinBy => (RollingFunction::Min, "rolling_min_by"),
            F::MaxBy => (RollingFunction::Max, "rolling_max_by"),
            F::VarBy => (RollingFunction::Var { ddof }, "rolling_var_by"),
            F::StdBy => (RollingFunction::Std { ddof }, "rolling_std_by"),
            F::QuantileBy => {
                let name = "rolling_quantile_by";
                match quantile_of(&options.fn_params, options.min_periods, name) {
                    Ok(function) => (function, name),
                    Err(why) => return self.refuse(node, why),
                }
            }
            other => return self.refuse(node, format!("{other} is not supported on the GPU")),
        };
        let [values, by] = [inputs.first()?.node(), inputs.get(1)?.node()];
        if self.one_value(by) {
            return self.refuse(node, format!("{name} by one value (Polars raises)"));
        }
        let (input, by) = (self.expr(values), self.expr(by));
        let (input, by) = (input?, by?);
        let (size, by_dtype) = (&options.window_size, by.dtype);
        let Some((by, period)) = times_of(by, size) else {
            return self.refuse(
                node,
                format!("{name} by {by_dtype} in windows of {size} is not supported on the GPU"),
            );
        };
        let closed = match options.closed_window {
            ClosedWindow::Both => Closed::Both,
            ClosedWindow::Left => Closed::Left,
            ClosedWindow::Right => Closed::Right,
            ClosedWindow::None => Closed::None,
        };
        let window = RollingWindow::Times {
            by: Box::new(by),
            period,
            offset: -period,
            min_periods: options.min_periods as u64,
            closed,
        };
        self.rolling_of(node, (function, name), input, window)
    }

    /// `function` (named `name`) of `input` in `window`, the input cast as
    /// Polars casts it (booleans summed as u32, small integers as i64,
    /// numbers averaged and spread as floats; extremes of their own type).
    fn rolling_of(
        &mut self,
        node: Node,
        (function, name): (RollingFunction, &str),
        input: GpuExpr,
        window: RollingWindow,
    ) -> Lowered {
        let dtype = self.dtype(node)?;
        let from = input.dtype;
        let taken = rolling_input(function, from, dtype);
        let Some(taken) = taken else {
            return self.refuse(
                node,
                format!("{name} of {from} is not supported on the GPU"),
            );
        };
        let input = if taken == from {
            input
        } else {
            input.cast(taken, CastMode::NonStrict)
        };
        Some(GpuExpr {
            kind: ExprKind::Rolling {
                input: Box::new(input),
                function,
                window,
            },
            dtype,
        })
    }

    /// Polars' `ewm_mean`, `ewm_var` or `ewm_std` of floats (its kernels
    /// take f32 and f64; Polars casts integers to f64 first), with a
    /// smoothing factor in [0, 1] (Polars raises on others).
    pub(super) fn ewm(
        &mut self,
        node: Node,
        function: EwmFunction,
        options: &EWMOptions,
        inputs: &[ExprIR],
    ) -> Lowered {
        let name = match function {
            EwmFunction::Mean => "ewm_mean",
            EwmFunction::Var => "ewm_var",
            EwmFunction::Std => "ewm_std",
        };
        let input = self.single(inputs)?;
        let dtype = self.dtype(node)?;
        if !input.dtype.is_float() || dtype != input.dtype {
            return self.refuse(
                node,
                format!("{name} of {} is not supported on the GPU", input.dtype),
            );
        }
        if !(0.0..=1.0).contains(&options.alpha) {
            return self.refuse(
                node,
                format!("{name} with alpha {} (Polars raises)", options.alpha),
            );
        }
        let options = EwmOptions {
            alpha: options.alpha,
            adjust: options.adjust,
            bias: options.bias,
            min_periods: options.min_periods as u64,
            ignore_nulls: options.ignore_nulls,
        };
        Some(GpuExpr {
            kind: ExprKind::Ewm {
                input: Box::new(input),
                function,
                options,
            },
            dtype,
        })
    }
}

/// `by` as the i64 ticks `rolling_*_by` windows it in, and the window's
/// `size` in those ticks (see [`window_ticks`]); None for what
/// `window_ticks` refuses, and for sizes Polars raises on (zero or
/// negative).
pub(crate) fn times_of(by: GpuExpr, size: &Duration) -> Option<(GpuExpr, i64)> {
    if size.is_zero() || size.negative() {
        return None;
    }
    let ticks = window_ticks(by.dtype, size)?;
    let by = match by.dtype {
        GpuDtype::Date => by.cast(
            GpuDtype::Datetime(TimeUnit::Microseconds),
            CastMode::NonStrict,
        ),
        _ => by,
    };
    Some((by.cast(GpuDtype::Int64, CastMode::NonStrict), ticks))
}

/// A duration (signed) in the ticks Polars' windows by times take times of
/// `dtype` as: dates as microseconds, timestamps in their unit (of UTC or
/// no zone; of another zone only for a duration of nanoseconds alone,
/// local days not being fixed), integers (but u64, which Polars casts to
/// i64 as it may not fit) as they are, with a duration of integers
/// (`"3i"`) or zero. None for other types and durations, and for those
/// Polars raises on (months; integers with a duration of time, times with
/// one of integers).
pub(crate) fn window_ticks(dtype: GpuDtype, duration: &Duration) -> Option<i64> {
    if duration.months() != 0 {
        return None;
    }
    fixed_ticks(dtype, duration)
}

/// The ticks of `duration` but its months (weeks, days and the rest), as
/// [`window_ticks`] counts them.
pub(crate) fn fixed_ticks(dtype: GpuDtype, duration: &Duration) -> Option<i64> {
    let sign = if duration.negative() { -1 } else { 1 };
    let per_day = match dtype {
        GpuDtype::Int64 | GpuDtype::Int32 | GpuDtype::UInt32 => {
            let fits = duration.parsed_int || duration.is_zero();
            return fits.then_some(sign * duration.nanoseconds());
        }
        _ if duration.parsed_int => return None,
        GpuDtype::Date => TimeUnit::Microseconds.per_day(),
        GpuDtype::Datetime(unit) => unit.per_day(),
        GpuDtype::ZonedDatetime(unit, zone)
            if zone.is_utc() || (duration.weeks() == 0 && duration.days() == 0) =>
        {
            unit.per_day()
        }
        _ => return None,
    };
    let per_nanosecond = TimeUnit::Nanoseconds.per_day() / per_day;
    let days = duration
        .weeks()
        .checked_mul(7)?
        .checked_add(duration.days())?;
    let ticks = days
        .checked_mul(per_day)?
        .checked_add(duration.nanoseconds() / per_nanosecond)?;
    Some(sign * ticks)
}

/// The type a rolling `function` of values of type `from` with a result of
/// `dtype` takes its input as (Polars casts booleans summed to u32, small
/// integers to i64, numbers averaged and spread to floats; extremes keep
/// their own type, temporal too); None for the types it does not take.
pub(crate) fn rolling_input(
    function: RollingFunction,
    from: GpuDtype,
    dtype: GpuDtype,
) -> Option<GpuDtype> {
    let plain = from.decimal_scale().is_none();
    match function {
        RollingFunction::Sum => ((plain && (from.is_integer() || from.is_float()))
            || from == GpuDtype::Boolean)
            .then_some(dtype),
        // (Of numbers alone: Polars' rolling quantile of booleans is its own.)
        RollingFunction::Quantile { .. } => (plain && (from.is_integer() || from.is_float()))
            .then_some(dtype)
            .filter(|dtype| dtype.is_float()),
        RollingFunction::Mean | RollingFunction::Var { .. } | RollingFunction::Std { .. } => {
            ((plain && (from.is_integer() || from.is_float())) || from == GpuDtype::Boolean)
                .then_some(dtype)
                .filter(|dtype| dtype.is_float())
        }
        RollingFunction::Min | RollingFunction::Max => ((plain
            && (from.is_integer() || from.is_float() || from.is_temporal()))
            || from == GpuDtype::Boolean)
            .then_some(from)
            .filter(|&from| from == dtype),
        // (Values the evaluator holds: they are gathered.)
        RollingFunction::First | RollingFunction::Last => Some(from)
            .filter(|&from| from == dtype && from != GpuDtype::String && !from.is_nested()),
    }
}
