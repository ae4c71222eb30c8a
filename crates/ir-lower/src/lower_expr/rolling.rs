//! Rolling windows by a count of rows (`rolling_sum`, `rolling_mean`, `rolling_min`, `rolling_max`, `rolling_var`, `rolling_std`) and exponentially weighted means, variances and deviations (`ewm_mean`, `ewm_var`, `ewm_std`).

use polars_core::prelude::{RollingFnParams, RollingOptionsFixedWindow, RollingVarParams};
use polars_ops::series::EWMOptions;
use polars_plan::plans::IRRollingFunction;

use super::*;
use crate::expr::{EwmFunction, EwmOptions, RollingFunction, RollingWindow};

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
                let ddof = match options.fn_params {
                    Some(RollingFnParams::Var(RollingVarParams { ddof })) => ddof,
                    _ => 1,
                };
                match function {
                    IRRollingFunction::Var => (RollingFunction::Var { ddof }, "rolling_var"),
                    _ => (RollingFunction::Std { ddof }, "rolling_std"),
                }
            }
            IRRollingFunction::Quantile => {
                let what = "rolling_quantile (and rolling_median) is not supported on the GPU";
                return self.refuse(node, what);
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
        let dtype = self.dtype(node)?;
        let from = input.dtype;
        let plain = from.decimal_scale().is_none();
        let taken = match function {
            RollingFunction::Sum => (plain && (from.is_integer() || from.is_float())
                || from == GpuDtype::Boolean)
                .then_some(dtype),
            RollingFunction::Mean | RollingFunction::Var { .. } | RollingFunction::Std { .. } => {
                (plain && (from.is_integer() || from.is_float()) || from == GpuDtype::Boolean)
                    .then_some(dtype)
                    .filter(|dtype| dtype.is_float())
            }
            RollingFunction::Min | RollingFunction::Max => (plain
                && (from.is_integer() || from.is_float() || from.is_temporal())
                || from == GpuDtype::Boolean)
                .then_some(from)
                .filter(|&from| from == dtype),
        };
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
        let window = RollingWindow {
            size: options.window_size as u64,
            min_periods: options.min_periods as u64,
            center: options.center,
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
