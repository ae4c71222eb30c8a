//! Operations of the rolling-window kernels (`kernels/cuda/rolling.cu`): Polars' rolling sums, means, variances, minima, maxima and quantiles by a count of rows or by times, and exponentially weighted means, variances and deviations, restarted in each group.

use super::*;

/// A window of rows as Polars' `rolling_*` functions take it: the `size`
/// rows ending at each row (or, `center`, around it, more after than
/// before when `size` is even), cut at the group's ends; a result where
/// the window holds at least `min_periods` valid values, else null.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowWindow {
    pub size: u64,
    pub min_periods: u64,
    pub center: bool,
}

/// The windows of the rolling kernels: by a count of rows, or given for
/// each position of the groups' order (Polars' windows by times, see
/// [`Ops::time_windows`]), with the least count of rows (and of valid
/// values) a window needs for a result; or listed, as many as they are
/// (Polars' overlapping groups of a `group_by_dynamic`, which it
/// aggregates by its rolling kernels).
#[derive(Debug, Clone, Copy)]
pub enum Windows<'b> {
    Rows(RowWindow),
    Given {
        bounds: &'b DeviceBuffer<i64>,
        min_periods: u64,
    },
    /// Windows of their own: window w holds the positions
    /// `[bounds[2w], bounds[2w + 1])` of all the rows (not of a group's),
    /// and its result is the w-th. The groups the kernels take are then
    /// runs of windows, each walked by one thread as Polars walks them all
    /// (the starts their first windows' numbers), and apart: a run starts
    /// at or after the end of the window before it (where Polars' windows
    /// start afresh); each run's windows' rows follow the run's first
    /// window's first row.
    Listed {
        bounds: &'b DeviceBuffer<i64>,
    },
}

impl From<RowWindow> for Windows<'_> {
    fn from(window: RowWindow) -> Self {
        Windows::Rows(window)
    }
}

impl Windows<'_> {
    /// The kernels' window parameters: size, least count, centring and
    /// the given bounds (null for windows of rows).
    fn args(self, args: KernelArgs) -> KernelArgs {
        match self {
            Windows::Rows(window) => args
                .arg(window.size)
                .arg(window.min_periods)
                .arg(u32::from(window.center))
                .arg(DevicePtr::NULL)
                .arg(0u32),
            Windows::Given {
                bounds,
                min_periods,
            } => args
                .arg(0u64)
                .arg(min_periods)
                .arg(0u32)
                .buffer(bounds)
                .arg(0u32),
            Windows::Listed { bounds } => {
                args.arg(0u64).arg(0u64).arg(0u32).buffer(bounds).arg(1u32)
            }
        }
    }

    /// How many results the windows give over `n` rows: one per row, or
    /// one per listed window.
    fn results(self, n: usize) -> usize {
        match self {
            Windows::Listed { bounds } => bounds.len() / 2,
            _ => n,
        }
    }

    /// That a window of rows holds some, that given windows are two bounds
    /// for each of `n` positions, and that listed ones are two bounds each.
    fn check(self, n: usize) -> Result<(), RuntimeError> {
        match self {
            Windows::Rows(window) => check(window.size > 0, || "a window of no rows".into()),
            Windows::Given { bounds, .. } => check(bounds.len() == 2 * n, || {
                format!("{} window bounds for {n} rows", bounds.len())
            }),
            Windows::Listed { bounds } => check(bounds.len() % 2 == 0, || {
                format!("{} bounds of listed windows", bounds.len())
            }),
        }
    }
}

/// A window by times: the window of a row of time `t` is from `t + offset`
/// to `t + offset + period` (`offset` is `-period` for the window before
/// it), holding the times at either end as `closed_left` and
/// `closed_right` say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeWindow {
    pub period: i64,
    pub offset: i64,
    pub closed_left: bool,
    pub closed_right: bool,
}

/// Element types with a kernel of window sums: f64 and f32 (each summed
/// in its own type) and 64-bit integers (as words wrapping around: the
/// same bits signed or not).
pub trait WindowSum: DeviceCopy {
    const KERNEL: Kernel;
}

kernel_for!(WindowSum: f64 => window_sums_f64, f32 => window_sums_f32, u64 => window_sums_u64,
    i64 => window_sums_u64);

/// Float types with a kernel of window means (f32 summed in f64, as
/// Polars' mean window sums them).
pub trait WindowMean: DeviceCopy {
    const KERNEL: Kernel;
}

kernel_for!(WindowMean: f64 => window_sums_f64, f32 => window_sums_f32_in_f64);

/// Float types with a kernel of window variances.
pub trait WindowVariance: DeviceCopy {
    const KERNEL: Kernel;
}

kernel_for!(WindowVariance: f64 => window_variances_f64, f32 => window_variances_f32);

/// Float types with a kernel of window quantiles (each in its own type).
pub trait WindowQuantile: DeviceCopy {
    const KERNEL: Kernel;
}

kernel_for!(WindowQuantile: f64 => window_quantiles_f64, f32 => window_quantiles_f32);

/// Float types with a kernel of exponentially weighted means.
pub trait EwmMean: DeviceCopy {
    const KERNEL: Kernel;
}

kernel_for!(EwmMean: f64 => ewm_means_f64, f32 => ewm_means_f32);

/// Float types with a kernel of exponentially weighted variances.
pub trait EwmSpread: DeviceCopy {
    const KERNEL: Kernel;
}

kernel_for!(EwmSpread: f64 => ewm_spreads_f64, f32 => ewm_spreads_f32);

/// Polars' `ewm_*` options: the smoothing factor (taken in the values'
/// type), whether weights are adjusted for the start, whether variances
/// stay biased, the least count of values for a result, and whether nulls
/// leave the weights alone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ewm {
    pub alpha: f64,
    pub adjust: bool,
    pub bias: bool,
    pub min_periods: u64,
    pub ignore_nulls: bool,
}

impl Ops<'_> {
    /// Polars' `rolling_sum` of `values` (`validity`) by `window`,
    /// restarted in each group (`rows` in group order, `starts` each
    /// group's first position): one thread per group walks its rows as
    /// Polars' window does (floats by Kahan's compensated sums, leaving
    /// values taken away before entering ones are added), so every sum is
    /// Polars' to the bit; integers as words wrapping around. The sums at
    /// their rows (of listed windows: one per window), and their validity.
    pub fn window_sums<'w, T: WindowSum>(
        &self,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        groups: (&DeviceBuffer<i64>, &DeviceBuffer<i64>),
        window: impl Into<Windows<'w>>,
    ) -> Result<(DeviceBuffer<T>, DeviceBuffer<u32>), RuntimeError> {
        self.window_walk(T::KERNEL, values, validity, groups, window.into(), false)
    }

    /// Polars' `rolling_mean` of floats: as [`Ops::window_sums`], each sum
    /// (of f32 values in f64, rounded to f32) divided by the count of valid
    /// values in its window; null where there is none.
    pub fn window_means<'w, T: WindowMean>(
        &self,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        groups: (&DeviceBuffer<i64>, &DeviceBuffer<i64>),
        window: impl Into<Windows<'w>>,
    ) -> Result<(DeviceBuffer<T>, DeviceBuffer<u32>), RuntimeError> {
        self.window_walk(T::KERNEL, values, validity, groups, window.into(), true)
    }

    fn window_walk<T: DeviceCopy>(
        &self,
        kernel: Kernel,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        groups: (&DeviceBuffer<i64>, &DeviceBuffer<i64>),
        window: Windows<'_>,
        mean: bool,
    ) -> Result<(DeviceBuffer<T>, DeviceBuffer<u32>), RuntimeError> {
        let params = |args: KernelArgs| args.arg(u32::from(mean));
        self.walk(
            kernel,
            values,
            validity,
            groups,
            (Some(window), false),
            params,
        )
    }

    /// Polars' `rolling_var` (or `rolling_std`, `root`) of floats with
    /// `ddof`, restarted in each group (as [`Ops::window_sums`]): one
    /// thread per group walks its windows as Polars' moment window does (a
    /// queue of two stacks of Welford moments, merged as Chan merges them),
    /// so every variance is Polars' to the bit; NaN while an infinity or
    /// NaN is in the window; null where the window holds fewer than
    /// `min_periods` valid values, or no more than `ddof`. The stacks take
    /// 32 bytes of scratch per row.
    pub fn window_variances<'w, T: WindowVariance>(
        &self,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        groups: (&DeviceBuffer<i64>, &DeviceBuffer<i64>),
        window: impl Into<Windows<'w>>,
        (ddof, root): (u8, bool),
    ) -> Result<(DeviceBuffer<T>, DeviceBuffer<u32>), RuntimeError> {
        // (The stacks at the rows' positions.)
        let n = groups.0.len();
        let front = self.output::<f64>(3 * n)?;
        let back = self.output::<f64>(n)?;
        let params = |args: KernelArgs| {
            args.arg(u32::from(ddof))
                .arg(u32::from(root))
                .buffer(&front)
                .buffer(&back)
        };
        self.walk(
            T::KERNEL,
            values,
            validity,
            groups,
            (Some(window.into()), false),
            params,
        )
    }

    /// Polars' `rolling_quantile` (`rolling_median`: `q` 0.5, linear) of
    /// floats at `q` by `method`, restarted in each group (as
    /// [`Ops::window_sums`]): one thread per row ranks the valid values of
    /// its window in Polars' total order (NaN last, both zeros alike, equal
    /// values by place) and takes the value at the place Polars' rolling
    /// quantile finds, or combines the two around it (linear, midpoint) in
    /// the values' type; null where the window holds fewer than
    /// `min_periods` valid values, or none. Quadratic in the window's size.
    pub fn window_quantiles<'w, T: WindowQuantile>(
        &self,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        (rows, starts): (&DeviceBuffer<i64>, &DeviceBuffer<i64>),
        window: impl Into<Windows<'w>>,
        (q, method): (f64, QuantileMethod),
    ) -> Result<(DeviceBuffer<T>, DeviceBuffer<u32>), RuntimeError> {
        check((0.0..=1.0).contains(&q), || format!("the quantile {q}"))?;
        let params = |args: KernelArgs| args.arg(q).arg(method as u32);
        let window = (Some(window.into()), true);
        self.walk(T::KERNEL, values, validity, (rows, starts), window, params)
    }

    /// Polars' `ewm_mean` of floats by `ewm`, restarted in each group (as
    /// [`Ops::window_sums`]): one thread per group walks its rows with
    /// Polars' recurrence in the values' type, so every mean is Polars' to
    /// the bit; null at a null row, and before `min_periods` values came.
    pub fn ewm_means<T: EwmMean>(
        &self,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        groups: (&DeviceBuffer<i64>, &DeviceBuffer<i64>),
        ewm: Ewm,
    ) -> Result<(DeviceBuffer<T>, DeviceBuffer<u32>), RuntimeError> {
        self.group_walk(T::KERNEL, values, validity, groups, |args| {
            args.arg(ewm.alpha)
                .arg(u32::from(ewm.adjust))
                .arg(ewm.min_periods)
                .arg(u32::from(ewm.ignore_nulls))
        })
    }

    /// Polars' `ewm_var` (or `ewm_std`, `root`) of floats by `ewm`,
    /// restarted in each group (as [`Ops::window_sums`]): one thread per
    /// group with Polars' recurrence in the values' type, so every variance
    /// is Polars' to the bit; null at a null row, before `min_periods`
    /// values came, and (unbiased) where the weights leave no freedom.
    pub fn ewm_spreads<T: EwmSpread>(
        &self,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        groups: (&DeviceBuffer<i64>, &DeviceBuffer<i64>),
        ewm: Ewm,
        root: bool,
    ) -> Result<(DeviceBuffer<T>, DeviceBuffer<u32>), RuntimeError> {
        self.group_walk(T::KERNEL, values, validity, groups, |args| {
            args.arg(ewm.alpha)
                .arg(u32::from(ewm.adjust))
                .arg(u32::from(ewm.bias))
                .arg(ewm.min_periods)
                .arg(u32::from(ewm.ignore_nulls))
                .arg(u32::from(root))
        })
    }

    /// Launches `kernel` of this family that walks each group with one
    /// thread (see [`Ops::walk`]).
    fn group_walk<T: DeviceCopy>(
        &self,
        kernel: Kernel,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        groups: (&DeviceBuffer<i64>, &DeviceBuffer<i64>),
        params: impl FnOnce(KernelArgs) -> KernelArgs,
    ) -> Result<(DeviceBuffer<T>, DeviceBuffer<u32>), RuntimeError> {
        self.walk(kernel, values, validity, groups, (None, false), params)
    }

    /// Launches `kernel` of this family, one thread per group (or, `per_row`,
    /// per row, or per listed window): its parameters are `values`, their
    /// validity, the rows in group order, the groups' starts and both
    /// counts (of listed windows: the windows'), then `window`'s, then its
    /// own (`params`), then the results and their validity (zeroed: null
    /// unless the kernel sets it), one per row or per listed window.
    fn walk<T: DeviceCopy>(
        &self,
        kernel: Kernel,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        (rows, starts): (&DeviceBuffer<i64>, &DeviceBuffer<i64>),
        (window, per_row): (Option<Windows<'_>>, bool),
        params: impl FnOnce(KernelArgs) -> KernelArgs,
    ) -> Result<(DeviceBuffer<T>, DeviceBuffer<u32>), RuntimeError> {
        let n = values.len();
        let results = window.map_or(n, |window| window.results(n));
        check_rows(n, validity, rows, window)?;
        let out = self.zeroed::<T>(results)?;
        let out_validity = self.zeroed::<u32>(words(results))?;
        if results == 0 || starts.is_empty() {
            return Ok((out, out_validity));
        }
        let args = KernelArgs::new()
            .buffer(values)
            .arg(ptr(validity))
            .buffer(rows)
            .buffer(starts)
            .arg(results as u64)
            .arg(starts.len() as u64);
        let args = match window {
            Some(window) => window.args(args),
            None => args,
        };
        let args = params(args).buffer(&out).buffer(&out_validity);
        let threads = if per_row { results } else { starts.len() };
        self.launch(kernel, Self::linear(threads), args)?;
        Ok((out, out_validity))
    }

    /// Polars' `rolling_min` (or `rolling_max`, `!minimum`) of 64-bit
    /// `values` (`validity`) by `window`, restarted in each group (as
    /// [`Ops::window_sums`]), as rows to gather: at every row, the row of
    /// the best valid value of its window (the earliest of equals; NaN
    /// beats any number, both zeros alike), or -1 where the window holds
    /// fewer than `min_periods` valid values or none.
    pub fn window_extremes<'w, T: OrderedWord>(
        &self,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        (rows, starts): (&DeviceBuffer<i64>, &DeviceBuffer<i64>),
        window: impl Into<Windows<'w>>,
        minimum: bool,
    ) -> Result<DeviceBuffer<i64>, RuntimeError> {
        let window = window.into();
        let n = values.len();
        check_rows(n, validity, rows, Some(window))?;
        let results = window.results(n);
        let out = self.output::<i64>(results)?;
        if results == 0 || starts.is_empty() {
            return Ok(out);
        }
        let args = KernelArgs::new()
            .buffer(values)
            .arg(ptr(validity))
            .arg(T::KIND)
            .arg(u32::from(minimum))
            .buffer(rows)
            .buffer(starts)
            .arg(results as u64)
            .arg(starts.len() as u64);
        let args = window.args(args).buffer(&out);
        self.launch(ids::window_extremes, Self::linear(results), args)?;
        Ok(out)
    }

    /// The first (or, `last`, the last) row of each row's `window` in its
    /// group (as [`Ops::window_sums`] takes groups), as rows to gather: -1
    /// where the window holds no row (or, given, is skipped).
    pub fn window_ends<'w>(
        &self,
        (rows, starts): (&DeviceBuffer<i64>, &DeviceBuffer<i64>),
        window: impl Into<Windows<'w>>,
        last: bool,
    ) -> Result<DeviceBuffer<i64>, RuntimeError> {
        let window = window.into();
        let n = rows.len();
        window.check(n)?;
        let results = window.results(n);
        let out = self.output::<i64>(results)?;
        if results == 0 || starts.is_empty() {
            return Ok(out);
        }
        let args = KernelArgs::new()
            .buffer(rows)
            .buffer(starts)
            .arg(results as u64)
            .arg(starts.len() as u64);
        let args = window.args(args).arg(u32::from(last)).buffer(&out);
        self.launch(ids::window_ends, Self::linear(results), args)?;
        Ok(out)
    }

    /// Polars' windows by times (`rolling_*_by`) of the rows in each group
    /// (`rows` in group order, each group's rows sorted by their `times`,
    /// which `validity` says are null last): for every position, the
    /// positions (relative to its group) of the rows whose time lies in
    /// its row's `window`, as two i64 (a row of a null time is in no
    /// window: (1, 0)); the bounds [`Windows::Given`] takes.
    pub fn time_windows(
        &self,
        times: &DeviceBuffer<i64>,
        validity: Option<&DeviceBuffer<u32>>,
        (rows, starts): (&DeviceBuffer<i64>, &DeviceBuffer<i64>),
        window: TimeWindow,
    ) -> Result<DeviceBuffer<i64>, RuntimeError> {
        let n = times.len();
        check_rows(n, validity, rows, None)?;
        let out = self.output::<i64>(2 * n)?;
        if n == 0 || starts.is_empty() {
            return Ok(out);
        }
        let args = KernelArgs::new()
            .buffer(times)
            .arg(ptr(validity))
            .buffer(rows)
            .buffer(starts)
            .arg(n as u64)
            .arg(starts.len() as u64)
            .arg(window.period)
            .arg(window.offset)
            .arg(u32::from(window.closed_left))
            .arg(u32::from(window.closed_right))
            .buffer(&out);
        self.launch(ids::time_windows, Self::linear(n), args)?;
        Ok(out)
    }
}

/// That `rows` and `validity` are of `n` values.
/// That `validity` is of `n` values, and that there are as many `rows`
/// (of listed windows: any number, of those values) and, given, windows
/// for them (see [`Windows::check`]).
fn check_rows(
    n: usize,
    validity: Option<&DeviceBuffer<u32>>,
    rows: &DeviceBuffer<i64>,
    window: Option<Windows<'_>>,
) -> Result<(), RuntimeError> {
    check_bitmap(validity, n, "validity")?;
    if let Some(window) = window {
        window.check(rows.len())?;
    }
    let listed = matches!(window, Some(Windows::Listed { .. }));
    check(listed || rows.len() == n, || {
        format!("{} rows for {n} values", rows.len())
    })
}
