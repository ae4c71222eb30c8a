//! Checks of values whose answer is Polars' own: -0.0 beside 0.0, groups of no valid value or one not finite.

use super::*;

/// The magnitude (2^480) from which a float counts as not finite to the
/// spreads' checks: the squares of deviations of such values, summed over
/// a group, may overflow.
const OVERFLOWING: f64 = 3.121_748_550_315_992_2e144;

impl Executor<'_> {
    /// Leaves a variance or standard deviation of `kept` (a filter: the
    /// input, null where the filter drops the row; or an input holding
    /// aggregations) to Polars where a group has no valid value or one not
    /// finite (infinite or NaN): Polars' paths give 0.0 there or null (NaN
    /// or 0.0), by how the input reaches the spread.
    pub(crate) fn check_kept_values(
        &self,
        frame: &DeviceFrame,
        kept: &GpuExpr,
        sorted_rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
        whole: bool,
    ) -> Result<(), ExecError> {
        let what = "a spread of a group with no valid value or one not finite (Polars gives \
                    0.0, null or NaN, by its path)";
        let counts = self.valid_counts(frame, kept, (sorted_rows, starts), whole, true)?;
        self.check_any_later(
            &counts,
            unanswered(),
            what.into(),
            ExecError::DependsOnPolars,
        )
    }

    /// Per group of `groups` (sorted rows and starts), how many values of
    /// `input` are valid and, with `not_finite` (of floats), how many are
    /// not finite (infinite, NaN, or of a magnitude of [`OVERFLOWING`] or
    /// more): two u32 columns.
    fn valid_counts(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        (sorted_rows, starts): (&DeviceBuffer<i64>, &DeviceBuffer<i64>),
        whole: bool,
        not_finite: bool,
    ) -> Result<DeviceFrame, ExecError> {
        let count = GpuDtype::UInt32;
        let valid = AggOp::Count {
            include_nulls: false,
        };
        let not_finite = if not_finite && input.dtype.is_float() {
            not_finite_value(input).cast(count, CastMode::NonStrict)
        } else {
            GpuExpr::literal(Scalar::UInt(0), count)
        };
        Ok(DeviceFrame {
            columns: vec![
                self.aggregate(
                    frame,
                    &input.clone().aggregated(valid, count),
                    sorted_rows,
                    starts,
                    whole,
                )?,
                self.aggregate(
                    frame,
                    &not_finite.aggregated(AggOp::Sum, count),
                    sorted_rows,
                    starts,
                    whole,
                )?,
            ],
            height: starts.len(),
        })
    }

    /// Leaves the query to Polars (`what` says why) where a group of
    /// `sorted_rows` and `starts` has no valid value of `input`.
    pub(crate) fn check_no_valid_value(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        sorted_rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
        whole: bool,
        what: &str,
    ) -> Result<(), ExecError> {
        let counts = self.valid_counts(frame, input, (sorted_rows, starts), whole, false)?;
        self.check_any_later(
            &counts,
            unanswered(),
            what.into(),
            ExecError::DependsOnPolars,
        )
    }

    /// Leaves the query to Polars (`what` says why) where a group of
    /// `sorted_rows` and `starts` (the groups of one key) has no valid value
    /// of `input` (or, with `not_finite`, one not finite: see `valid_counts`)
    /// and every group is a run of rows. Polars takes the groups of a key it holds marked
    /// sorted (the first key of a sort before, a column of one row, sorted
    /// parts concatenated in order) as slices of rows, on paths of its own
    /// for such groups; a key whose groups are not all runs of rows is not
    /// sorted, so Polars cannot hold it so.
    pub(crate) fn check_no_valid_value_in_runs(
        &self,
        frame: &DeviceFrame,
        input: &GpuExpr,
        (sorted_rows, starts): (&DeviceBuffer<i64>, &DeviceBuffer<i64>),
        not_finite: bool,
        what: &str,
    ) -> Result<(), ExecError> {
        let (int, count) = (GpuDtype::Int64, GpuDtype::UInt32);
        let rows = DeviceFrame {
            columns: vec![DeviceColumn::from_parts(
                "".into(),
                int,
                frame.height,
                Values::I64(self.ops().iota(frame.height, 0)?),
                None,
            )],
            height: frame.height,
        };
        let per_row = |op: AggOp, dtype| {
            let row = column_ref(0, int);
            self.aggregate(
                &rows,
                &row.aggregated(op, dtype),
                sorted_rows,
                starts,
                false,
            )
        };
        let no_nans = false;
        let mut per_group =
            self.valid_counts(frame, input, (sorted_rows, starts), false, not_finite)?;
        per_group.columns.extend([
            per_row(
                AggOp::Min {
                    propagate_nans: no_nans,
                },
                int,
            )?,
            per_row(
                AggOp::Max {
                    propagate_nans: no_nans,
                },
                int,
            )?,
            per_row(
                AggOp::Count {
                    include_nulls: true,
                },
                count,
            )?,
        ]);
        // Per group: whether it is not a run of rows (its rows do not span
        // its length), whether Polars answers it its own way; then how many
        // groups are either, over all groups.
        let span = column_ref(3, int)
            .binary(BinaryOp::Minus, column_ref(2, int), int)
            .binary(BinaryOp::Plus, GpuExpr::literal(Scalar::Int(1), int), int);
        let not_run = span.binary(
            BinaryOp::NotEq,
            cast_to(&column_ref(4, count), int),
            GpuDtype::Boolean,
        );
        let (all, one) = self.one_group(per_group.height)?;
        let total = |flag: GpuExpr| {
            let sum = flag
                .cast(count, CastMode::NonStrict)
                .aggregated(AggOp::Sum, count);
            self.aggregate(&per_group, &sum, &all, &one, true)
        };
        let totals = DeviceFrame {
            columns: vec![total(not_run)?, total(unanswered())?],
            height: 1,
        };
        let zero = GpuExpr::literal(Scalar::UInt(0), count);
        let runs_with_some = column_ref(0, count)
            .binary(BinaryOp::Eq, zero.clone(), GpuDtype::Boolean)
            .binary(
                BinaryOp::And,
                column_ref(1, count).binary(BinaryOp::Gt, zero, GpuDtype::Boolean),
                GpuDtype::Boolean,
            );
        self.check_any_later(
            &totals,
            runs_with_some,
            what.into(),
            ExecError::DependsOnPolars,
        )
    }

    /// Leaves a quantile to Polars where it is a zero of a group that holds
    /// both -0.0 and 0.0: Polars picks among values it counts equal with
    /// Rust's `select_nth_unstable`, so which zero it gives is its own.
    /// (`values`: the group's values in group order, from `starts`.)
    pub(crate) fn check_zero_picks(
        &self,
        values: DeviceColumn,
        starts: &DeviceBuffer<i64>,
        (picked, picked_valid): (DeviceBuffer<f64>, DeviceBuffer<u32>),
    ) -> Result<(DeviceBuffer<f64>, DeviceBuffer<u32>), ExecError> {
        let (negative, positive) = self.signed_zeros(values, starts)?;
        let picked = DeviceColumn::from_parts(
            "".into(),
            GpuDtype::Float64,
            starts.len(),
            Values::F64(picked),
            Some(picked_valid),
        );
        match self
            .check_both_zeros(negative, positive, Some(picked), "")?
            .map(DeviceColumn::into_parts)
        {
            Some((Values::F64(picked), Some(valid))) => Ok((picked, valid)),
            _ => Err(ExecError::Unsupported("the quantiles' own column".into())),
        }
    }

    /// Why a quantile, minimum or maximum that is a zero of a group
    /// holding both zeros is Polars' own.
    pub(crate) const ZERO_PICKS: &'static str = "a quantile, minimum or maximum that is a zero \
        of values holding -0.0 and 0.0 (which zero Polars picks is its own)";

    /// Why a sort of one float column holding -0.0 and 0.0 is Polars' own.
    pub(crate) const SORTED_ZEROS: &'static str = "a sort of one float column holding -0.0 and 0.0 \
        (Polars sorts its values, putting the zeros in an order of its own)";

    /// Per group of `starts` (over `values`, floats in group order), how
    /// many values are -0.0 and how many 0.0, as u32 columns.
    pub(crate) fn signed_zeros(
        &self,
        values: DeviceColumn,
        starts: &DeviceBuffer<i64>,
    ) -> Result<(DeviceColumn, DeviceColumn), ExecError> {
        let (float, boolean, count) = (GpuDtype::Float64, GpuDtype::Boolean, GpuDtype::UInt32);
        let value = |v: f64| GpuExpr::literal(Scalar::Float(v), float);
        let x = cast_to(&column_ref(0, values.dtype), float);
        let zero_of_sign = |sign: f64| {
            let zero = x.clone().binary(BinaryOp::Eq, value(0.0), boolean);
            let signed = value(1.0)
                .binary(BinaryOp::TrueDivide, x.clone(), float)
                .binary(BinaryOp::Eq, value(sign * f64::INFINITY), boolean);
            zero.binary(BinaryOp::And, signed, boolean)
                .fill_null(GpuExpr::literal(Scalar::Boolean(false), boolean))
                .cast(count, CastMode::NonStrict)
        };
        let one = DeviceFrame {
            height: values.len(),
            columns: vec![values],
        };
        let ops = self.ops();
        let per_group = |sign: f64| -> Result<DeviceColumn, ExecError> {
            let Values::U32(flags) = self.evaluate(&one, &zero_of_sign(sign), "")?.into_parts().0
            else {
                return Err(ExecError::Unsupported("flags as u32".into()));
            };
            let sums = ops.segment_sum(&flags, None, starts)?;
            Ok(DeviceColumn::from_parts(
                "".into(),
                count,
                starts.len(),
                Values::U32(sums),
                None,
            ))
        };
        Ok((per_group(-1.0)?, per_group(1.0)?))
    }

    /// Leaves the query to Polars (`what` says why, without `picked`)
    /// where a group holds both -0.0 and 0.0 (counted by
    /// [`Executor::signed_zeros`]) and, when `picked` is given (a float per
    /// group), that group's pick is a zero: which zero Polars gives, or in
    /// which order, is its own. Gives `picked` back.
    pub(crate) fn check_both_zeros(
        &self,
        negative: DeviceColumn,
        positive: DeviceColumn,
        picked: Option<DeviceColumn>,
        what: &str,
    ) -> Result<Option<DeviceColumn>, ExecError> {
        let (float, boolean, count) = (GpuDtype::Float64, GpuDtype::Boolean, GpuDtype::UInt32);
        let some = |index: usize| {
            column_ref(index, count).binary(
                BinaryOp::Gt,
                GpuExpr::literal(Scalar::UInt(0), count),
                boolean,
            )
        };
        let mut both = some(0).binary(BinaryOp::And, some(1), boolean);
        let mut results = DeviceFrame {
            height: negative.len(),
            columns: vec![negative, positive],
        };
        let what = if let Some(picked) = picked {
            let zero = GpuExpr::literal(Scalar::Float(0.0), float);
            both = both.binary(
                BinaryOp::And,
                column_ref(2, float).binary(BinaryOp::Eq, zero, boolean),
                boolean,
            );
            results.columns.push(picked);
            Self::ZERO_PICKS
        } else {
            what
        };
        self.check_any_later(&results, both, what.into(), ExecError::DependsOnPolars)?;
        Ok((results.columns.len() == 3)
            .then(|| results.columns.pop())
            .flatten())
    }
}

/// Over the counts of [`Executor::valid_counts`]: whether a group has no
/// valid value or one not finite.
/// Whether a float `input` is not finite to the spreads' checks:
/// infinite, NaN (no comparison holds), or so large ([`OVERFLOWING`] or
/// more) that sums of values or of squared deviations may overflow, where
/// Polars' paths differ (a sum that overflows makes its mean NaN,
/// Welford's updates do not); false where null.
fn not_finite_value(input: &GpuExpr) -> GpuExpr {
    let magnitude = GpuExpr {
        kind: ExprKind::Abs(Box::new(input.clone())),
        dtype: input.dtype,
    };
    let small = magnitude.binary(
        BinaryOp::Lt,
        GpuExpr::literal(Scalar::Float(OVERFLOWING), input.dtype),
        GpuDtype::Boolean,
    );
    GpuExpr {
        kind: ExprKind::Not(Box::new(small)),
        dtype: GpuDtype::Boolean,
    }
    .fill_null(GpuExpr::literal(Scalar::Boolean(false), GpuDtype::Boolean))
}

fn unanswered() -> GpuExpr {
    let count = GpuDtype::UInt32;
    let zero = GpuExpr::literal(Scalar::UInt(0), count);
    column_ref(0, count)
        .binary(BinaryOp::Eq, zero.clone(), GpuDtype::Boolean)
        .binary(
            BinaryOp::Or,
            column_ref(1, count).binary(BinaryOp::Gt, zero, GpuDtype::Boolean),
            GpuDtype::Boolean,
        )
}
