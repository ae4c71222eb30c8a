//! Rolling windows by a count of rows (`rolling_sum`, `rolling_mean`, `rolling_min`, `rolling_max`, `rolling_var`, `rolling_std`) and exponentially weighted functions (`ewm_mean`, `ewm_var`, `ewm_std`): over the frame, or restarted in each group of a window.

use gpu_runtime::ops::{Ewm, RowWindow};
use ir_lower::{EwmFunction, EwmOptions, RollingFunction, RollingWindow};

use super::*;

impl Executor<'_> {
    /// Polars' `rolling_*` (`function`, by `window`) of `input` over
    /// `frame`, restarted in each group of `groups` (in its order), as
    /// `dtype`: sums, means and variances walked by one thread per group as
    /// Polars' windows walk them (see [`Ops::window_sums`],
    /// [`Ops::window_variances`]), integers as 64-bit
    /// words wrapped to `dtype`; minima and maxima as the rows of their
    /// values, gathered, so they come back as they were (a zero's sign, NaN).
    pub(crate) fn rolling(
        &self,
        frame: &DeviceFrame,
        (input, function, window): (&GpuExpr, RollingFunction, RollingWindow),
        dtype: GpuDtype,
        groups: InGroups<'_>,
    ) -> Result<DeviceColumn, ExecError> {
        let window = RowWindow {
            size: window.size,
            min_periods: window.min_periods,
            center: window.center,
        };
        self.in_group_order(frame.height, groups, |order| {
            self.rolling_in_order(frame, (input, function, window), dtype, (groups, order))
        })
    }

    /// [`Executor::rolling`] with the rows in group order (`order`: those
    /// of `groups`, or the frame's).
    fn rolling_in_order(
        &self,
        frame: &DeviceFrame,
        (input, function, window): (&GpuExpr, RollingFunction, RowWindow),
        dtype: GpuDtype,
        (groups, order): (InGroups<'_>, (&DeviceBuffer<i64>, &DeviceBuffer<i64>)),
    ) -> Result<DeviceColumn, ExecError> {
        let ops = self.ops();
        let unsupported = || ExecError::Unsupported(format!("rolling windows of `{input}`"));
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
        if let RollingFunction::Var { ddof } | RollingFunction::Std { ddof } = function {
            // Floats, as ir-lower casts the input.
            let root = matches!(function, RollingFunction::Std { .. });
            let (values, validity) = self
                .evaluate_in_groups(frame, input, "", groups)?
                .into_parts();
            let validity = validity.as_ref();
            let (values, validity) = match values {
                Values::F64(v) => {
                    let (spreads, valid) =
                        ops.window_variances(&v, validity, order, window, (ddof, root))?;
                    (Values::F64(spreads), valid)
                }
                Values::F32(v) => {
                    let (spreads, valid) =
                        ops.window_variances(&v, validity, order, window, (ddof, root))?;
                    (Values::F32(spreads), valid)
                }
                _ => return Err(unsupported()),
            };
            return Ok(DeviceColumn::from_parts(
                "".into(),
                dtype,
                frame.height,
                values,
                Some(validity),
            ));
        }
        let mean = function == RollingFunction::Mean;
        let taken = if input.dtype.is_float() {
            input.clone()
        } else {
            cast_to(input, word_dtype(input.dtype))
        };
        let (values, validity) = self
            .evaluate_in_groups(frame, &taken, "", groups)?
            .into_parts();
        let validity = validity.as_ref();
        let (values, validity) = match (values, mean) {
            (Values::F64(v), false) => {
                let (sums, valid) = ops.window_sums(&v, validity, order, window)?;
                (Values::F64(sums), valid)
            }
            (Values::F32(v), false) => {
                let (sums, valid) = ops.window_sums(&v, validity, order, window)?;
                (Values::F32(sums), valid)
            }
            (Values::F64(v), true) => {
                let (means, valid) = ops.window_means(&v, validity, order, window)?;
                (Values::F64(means), valid)
            }
            (Values::F32(v), true) => {
                let (means, valid) = ops.window_means(&v, validity, order, window)?;
                (Values::F32(means), valid)
            }
            (Values::I64(v), false) => {
                let (sums, valid) = ops.window_sums(&v, validity, order, window)?;
                (Values::I64(sums), valid)
            }
            (Values::U64(v), false) => {
                let (sums, valid) = ops.window_sums(&v, validity, order, window)?;
                (Values::U64(sums), valid)
            }
            _ => return Err(unsupported()),
        };
        let sums =
            DeviceColumn::from_parts("".into(), taken.dtype, frame.height, values, Some(validity));
        if taken.dtype == dtype {
            return Ok(sums);
        }
        let sums = DeviceFrame {
            columns: vec![sums],
            height: frame.height,
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
            Ok(match (values, function) {
                (Values::F64(v), EwmFunction::Mean) => {
                    let (means, valid) = ops.ewm_means(&v, validity, order, ewm)?;
                    (Values::F64(means), valid)
                }
                (Values::F32(v), EwmFunction::Mean) => {
                    let (means, valid) = ops.ewm_means(&v, validity, order, ewm)?;
                    (Values::F32(means), valid)
                }
                (Values::F64(v), _) => {
                    let (spreads, valid) = ops.ewm_spreads(&v, validity, order, ewm, root)?;
                    (Values::F64(spreads), valid)
                }
                (Values::F32(v), _) => {
                    let (spreads, valid) = ops.ewm_spreads(&v, validity, order, ewm, root)?;
                    (Values::F32(spreads), valid)
                }
                _ => return Err(ExecError::Unsupported(format!("ewm of `{input}`"))),
            })
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
