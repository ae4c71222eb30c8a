//! Aggregations: per group and whole-frame, of filters, of booleans, and their names in Polars' notation.

use super::*;

/// Whether `dtype` holds durations or timestamps (not zoned) as i64 ticks,
/// whose mean and median Polars takes of the ticks.
fn ticks(dtype: GpuDtype) -> bool {
    matches!(dtype, GpuDtype::Duration(_) | GpuDtype::Datetime(_))
}

pub(crate) fn quantile_method_name(method: QuantileMethod) -> &'static str {
    match method {
        QuantileMethod::Nearest => "nearest",
        QuantileMethod::Lower => "lower",
        QuantileMethod::Higher => "higher",
        QuantileMethod::Midpoint => "midpoint",
        QuantileMethod::Linear => "linear",
        QuantileMethod::Equiprobable => "equiprobable",
    }
}

pub(crate) fn agg_name(agg: &IRAggExpr) -> &'static str {
    match agg {
        IRAggExpr::Min { .. } => "min",
        IRAggExpr::Max { .. } => "max",
        IRAggExpr::Median(_) => "median",
        IRAggExpr::NUnique(_) => "n_unique",
        IRAggExpr::Item { .. } => "item",
        IRAggExpr::First(_) => "first",
        IRAggExpr::FirstNonNull(_) => "first_non_null",
        IRAggExpr::Last(_) => "last",
        IRAggExpr::LastNonNull(_) => "last_non_null",
        IRAggExpr::Mean(_) => "mean",
        IRAggExpr::Implode { .. } => "implode",
        IRAggExpr::Sum(_) => "sum",
        IRAggExpr::Count { .. } => "count",
        IRAggExpr::Std(..) => "std",
        IRAggExpr::Var(..) => "var",
        IRAggExpr::AggGroups(_) => "agg_groups",
    }
}

/// `mean`, a mean of f32 lowered as of f64, with its values (also those a
/// filter keeps) widened to f64: Polars' mean of f32 in f64.
fn mean_of_widened(mean: GpuExpr) -> GpuExpr {
    let widened = |e: Box<GpuExpr>| Box::new(e.cast(GpuDtype::Float64, CastMode::NonStrict));
    match mean.kind {
        ExprKind::Agg {
            op: AggOp::Mean,
            input,
        } => {
            let input = match input.kind {
                ExprKind::Where { input, by } => Box::new(GpuExpr {
                    dtype: GpuDtype::Float64,
                    kind: ExprKind::Where {
                        input: widened(input),
                        by,
                    },
                }),
                _ => widened(input),
            };
            GpuExpr {
                kind: ExprKind::Agg {
                    op: AggOp::Mean,
                    input,
                },
                dtype: mean.dtype,
            }
        }
        kind => GpuExpr {
            kind,
            dtype: mean.dtype,
        },
    }
}

/// The values of `expr` where it is a mean of f32 lowered as of f64 (see
/// [`mean_of_widened`]): `cast(mean(cast(values, f64)), f32)`.
pub(crate) fn mean_of_f32(expr: &GpuExpr) -> Option<&GpuExpr> {
    let ExprKind::Cast { input: mean, .. } = &expr.kind else {
        return None;
    };
    let ExprKind::Agg {
        op: AggOp::Mean,
        input: widened,
    } = &mean.kind
    else {
        return None;
    };
    match &widened.kind {
        ExprKind::Cast { input: values, .. }
            if values.dtype == GpuDtype::Float32 && expr.dtype == GpuDtype::Float32 =>
        {
            Some(values)
        }
        _ => None,
    }
}

/// Why a median or quantile of f32 stays with Polars, which interpolates
/// it in f32.
pub(crate) const MIDDLE_OF_F32: &str =
    "a median or quantile of f32 is not supported on the GPU (Polars interpolates it in f32)";

impl ExprLowering<'_> {
    pub(crate) fn aggregation(&mut self, node: Node, agg: &IRAggExpr) -> Lowered {
        let (op, input) = match *agg {
            IRAggExpr::Min {
                input,
                propagate_nans,
            } => (AggOp::Min { propagate_nans }, input),
            IRAggExpr::Max {
                input,
                propagate_nans,
            } => (AggOp::Max { propagate_nans }, input),
            IRAggExpr::Median(input) => (AggOp::Median, input),
            IRAggExpr::NUnique(input) => (AggOp::NUnique, input),
            IRAggExpr::First(input) => (AggOp::First, input),
            IRAggExpr::Last(input) => (AggOp::Last, input),
            IRAggExpr::Mean(input) => (AggOp::Mean, input),
            IRAggExpr::Sum(input) => (AggOp::Sum, input),
            IRAggExpr::Count {
                input,
                include_nulls,
            } => (AggOp::Count { include_nulls }, input),
            IRAggExpr::Std(input, ddof) => (
                AggOp::Std {
                    ddof,
                    in_chunks: false,
                },
                input,
            ),
            IRAggExpr::Var(input, ddof) => (
                AggOp::Var {
                    ddof,
                    in_chunks: false,
                },
                input,
            ),
            // The first (last) of the values that are not null.
            IRAggExpr::FirstNonNull(input) | IRAggExpr::LastNonNull(input) => {
                let op = if matches!(agg, IRAggExpr::FirstNonNull(_)) {
                    AggOp::First
                } else {
                    AggOp::Last
                };
                let dtype = self.dtype(node)?;
                let values = self.expr(input)?;
                let kept = values.clone().is_not_null();
                return self.aggregation_of_filter(node, op, (values, kept), dtype);
            }
            IRAggExpr::Item { input, allow_empty } => (AggOp::Item { allow_empty }, input),
            IRAggExpr::Implode { input, .. } => return self.implode(node, input),
            IRAggExpr::AggGroups(_) => {
                return self.refuse(
                    node,
                    format!("aggregation {} is not supported on the GPU", agg_name(agg)),
                );
            }
        };
        let dtype = self.dtype(node)?;
        if let Some(picked) = self.first_or_last_mode(&op, input, dtype) {
            return picked;
        }
        if let Some(null) = self.null_per_group(&op, input, dtype) {
            return Some(null);
        }
        if let Some(picked) = self.struct_picked(&op, input, dtype) {
            return Some(picked);
        }
        let picks_a_value = matches!(
            op,
            AggOp::Min { .. } | AggOp::Max { .. } | AggOp::First | AggOp::Last | AggOp::Item { .. }
        );
        if dtype == GpuDtype::Time && !picks_a_value {
            // A mean, median or quantile Polars takes of the nanoseconds as
            // floats, truncated back to a time.
            return self.refuse(node, format!("{op} of time is not supported on the GPU"));
        }
        if op == AggOp::Median && dtype == GpuDtype::Float32 {
            return self.refuse(node, MIDDLE_OF_F32);
        }
        if matches!(op, AggOp::Mean | AggOp::Median) && ticks(dtype) {
            return self.temporal_moment(node, op, input, dtype);
        }
        if op == AggOp::Mean && dtype == GpuDtype::Float32 {
            // Polars takes a mean of f32 in f64 (its sum of the values
            // widened, by the count), then rounds it to f32.
            let mean = self.aggregation_of(node, op, input, GpuDtype::Float64)?;
            return Some(mean_of_widened(mean).cast(dtype, CastMode::NonStrict));
        }
        if let AggOp::Item { .. } = op {
            // Of the input as it is (a filter or slice of it is refused as
            // an expression; a sort of the one row it must have changes
            // nothing: the executor takes it of the values as they come).
            let input = self.boxed(input)?;
            return Some(GpuExpr {
                kind: ExprKind::Agg { op, input },
                dtype,
            });
        }
        self.aggregation_of(node, op, input, dtype)
    }

    /// Per group, the first or last (`op`) of `input`, a mode
    /// (`x.mode().first()`, the most frequent value): of the group's modes
    /// as a list ([`AggOp::Mode`]), the value at place 0 or -1. `None` for
    /// any other aggregation and over the whole frame.
    fn first_or_last_mode(&mut self, op: &AggOp, input: Node, dtype: GpuDtype) -> Option<Lowered> {
        let index = match op {
            AggOp::First => 0,
            AggOp::Last => -1,
            _ => return None,
        };
        let AExpr::Function {
            input: values,
            function: IRFunctionExpr::Mode { maintain_order },
            ..
        } = self.arena.get(input)
        else {
            return None;
        };
        if !self.per_group {
            return None;
        }
        let (values, stable) = (values.clone(), *maintain_order);
        Some(self.modes(input, &values, stable).map(|modes| GpuExpr {
            kind: ExprKind::List {
                function: ListFunction::Get {
                    index,
                    null_on_oob: true,
                },
                input: Box::new(modes),
            },
            dtype,
        }))
    }

    /// Per group (of a group-by or a window, never empty), the first or
    /// last (`op`) of a struct made of values of each row (`pl.struct(a,
    /// b)`, never null, of fields neither lists nor structs; Polars' plan
    /// slices each field to its first or last row first): the struct of
    /// each field's first or last, the same row's values. `None` for any
    /// other aggregation, and in `list.eval` (whose lists may be empty:
    /// Polars' pick is then a null struct).
    fn struct_picked(&mut self, op: &AggOp, input: Node, dtype: GpuDtype) -> Option<GpuExpr> {
        let element = polars_plan::constants::POLARS_ELEMENT;
        let picked_row = match op {
            AggOp::First => 0,
            AggOp::Last => -1,
            _ => return None,
        };
        let AExpr::Function {
            function: IRFunctionExpr::AsStruct,
            input: fields,
            ..
        } = self.arena.get(input)
        else {
            return None;
        };
        if !self.per_group || self.schema.contains(element) {
            return None;
        }
        let fields: Vec<Node> = fields.iter().map(|field| field.node()).collect();
        let per_row = |f: &GpuExpr| f.is_row_wise() && !f.has_aggregation() && !f.dtype.is_nested();
        let mut picked = Vec::with_capacity(fields.len());
        for field in fields {
            // Each field's values over every row: read through the slices
            // of the picked row where Polars' plan put them.
            let sliced = |e: &AExpr| matches!(e, AExpr::Slice { .. });
            let value = match self.common_slice(field) {
                Some((bounds, None))
                    if self.literal_slice_bounds(bounds) == Some((picked_row, 1)) =>
                {
                    let outer = self.unsliced.replace(bounds);
                    let value = self.expr(field);
                    self.unsliced = outer;
                    value?
                }
                _ if !self.arena.iter(field).any(|(_, e)| sliced(e)) => self.expr(field)?,
                _ => return None,
            };
            if !per_row(&value) {
                return None;
            }
            let of = value.dtype;
            picked.push(value.aggregated(op.clone(), of));
        }
        Some(GpuExpr {
            kind: ExprKind::MakeStruct(picked),
            dtype,
        })
    }

    /// Per group, Polars' null for a mean, median or spread of a text
    /// column, and for a spread of a timestamp column (over the whole
    /// frame it raises): a null of `dtype` per group. `None` for any other
    /// aggregation (a date's spread too: Polars' plan types it as a
    /// timestamp, its result as a date).
    fn null_per_group(&self, op: &AggOp, input: Node, dtype: GpuDtype) -> Option<GpuExpr> {
        let spread = matches!(op, AggOp::Std { .. } | AggOp::Var { .. });
        let moment = spread || matches!(op, AggOp::Mean | AggOp::Median);
        if !self.per_group || !moment || !matches!(self.arena.get(input), AExpr::Column(_)) {
            return None;
        }
        let of = self.polars_dtype(input)?;
        let null = match of {
            DataType::String => true,
            DataType::Datetime(_, None) => spread,
            _ => false,
        };
        let typed_alike = GpuDtype::from_polars(&of).ok() == Some(dtype);
        (null && typed_alike).then(|| GpuExpr::literal(Scalar::Null, dtype))
    }

    /// `op` (a mean or a median) of the durations, timestamps or dates at
    /// `input`, of `dtype`, as Polars takes it: of their integers (a date's
    /// days), as a float (of dates, times the microseconds of a day: a
    /// timestamp in microseconds), cast back toward zero; beyond i64, per
    /// group null (Polars casts), of a whole column the greatest or least
    /// i64 (Polars converts with Rust's `as`).
    fn temporal_moment(&mut self, node: Node, op: AggOp, input: Node, dtype: GpuDtype) -> Lowered {
        let (float, int) = (GpuDtype::Float64, GpuDtype::Int64);
        let dates = self.dtype(input)? == GpuDtype::Date;
        let mut moment = self.aggregation_of(node, op.clone(), input, float)?;
        // (Of a function of a filter's rows, a list's moment of ticks the
        // list machinery does not take: fuzz seed 23007 case 134.)
        if crate::support::kept_list(&moment) {
            return self.refuse(
                node,
                format!("{op} of temporal values a filter keeps, through other functions"),
            );
        }
        if let ExprKind::Agg { input, .. } = &mut moment.kind {
            let values = std::mem::replace(input.as_mut(), GpuExpr::literal(Scalar::Null, int));
            **input = values.within_filter(|x| x.cast(int, CastMode::NonStrict));
        }
        if dates {
            let per_day = GpuExpr::literal(Scalar::Float(86_400_000_000.0), float);
            moment = moment.binary(BinaryOp::Multiply, per_day, float);
        }
        let ticks = moment.clone().cast(int, CastMode::NonStrict);
        let ticks = match self.per_group {
            true => ticks,
            false => {
                let beyond = GpuExpr::literal(Scalar::Float(9_223_372_036_854_775_808.0), float);
                let below = GpuExpr::literal(Scalar::Float(-9_223_372_036_854_775_808.0), float);
                let greatest = GpuExpr::literal(Scalar::Int(i64::MAX), int);
                let least = GpuExpr::literal(Scalar::Int(i64::MIN), int);
                let over = moment
                    .clone()
                    .binary(BinaryOp::GtEq, beyond, GpuDtype::Boolean);
                let under = moment.binary(BinaryOp::Lt, below, GpuDtype::Boolean);
                over.then(greatest, under.then(least, ticks, int), int)
            }
        };
        Some(ticks.cast(dtype, CastMode::NonStrict))
    }

    /// `op` of the expression at `input`, of `dtype`: of a filter
    /// ([`filtered_parts`]), the rows it keeps.
    pub(crate) fn aggregation_of(
        &mut self,
        node: Node,
        mut op: AggOp,
        input: Node,
        dtype: GpuDtype,
    ) -> Lowered {
        // Values gathered by a slice of another's `arg_sort`
        // (`x.gather(y.arg_sort().head(2))`): x sorted by y, the rows kept
        // by their places in that order.
        if let AExpr::Gather {
            expr: values,
            idx,
            returns_scalar: false,
            ..
        } = self.arena.get(input)
            && let AExpr::Slice {
                input: indices,
                offset,
                length,
            } = self.arena.get(*idx)
            && let Some((key, options)) = crate::lower_expr::arg_sort_of(self.arena, *indices)
            && !self.one_value(key)
            && !self.one_value(*values)
        {
            let (values, bounds) = (self.boxed(*values), (*offset, *length));
            let sorted = self.sorted_by_nodes(input, values, &[key], &options);
            let kept = self.kept_by_place(node, bounds);
            return self.aggregation_of_filter(node, op, (sorted?, kept?), dtype);
        }
        // A slice or a filter inside an elementwise expression
        // (`(x.filter(p) * 2).mean()`): the rows it keeps.
        if filtered_parts(self.arena, input).is_none()
            && let Some(rows) = self.filter_inside(input)
        {
            let (values, kept) = self.through_filter(input, rows)?;
            return self.aggregation_of_filter(node, op, (values, kept), dtype);
        }
        if let Some(parts) = filtered_parts(self.arena, input) {
            // A variance of every n-th value, or of a filter by a literal:
            // where a group keeps no valid value Polars gives 0.0 on this
            // path (null on the others), so the executor, seeing the rows
            // kept (`Where`), leaves such a group to Polars.
            let by_literal = |by: Node| matches!(self.arena.get(by), AExpr::Literal(_));
            let polars_own = matches!(op, AggOp::Std { .. } | AggOp::Var { .. })
                && match parts.1 {
                    KeptRows::Every { .. } => true,
                    KeptRows::By(by) => by_literal(by),
                    _ => false,
                };
            let (values, kept) = self.filtered(input, parts)?;
            if polars_own {
                let input = GpuExpr {
                    dtype: values.dtype,
                    kind: ExprKind::Where {
                        input: Box::new(values),
                        by: Box::new(kept),
                    },
                };
                return Some(GpuExpr {
                    kind: ExprKind::Agg {
                        op,
                        input: Box::new(input),
                    },
                    dtype,
                });
            }
            return self.aggregation_of_filter(node, op, (values, kept), dtype);
        }
        let implode = matches!(op, AggOp::Implode);
        // Other functions of a filter's rows (`x.filter(p).shift(1)`): of
        // each group's kept values as a list.
        if let Some(lowered) = self.of_kept_lists(node, implode, input, dtype) {
            return lowered;
        }
        let mut input = self.boxed(input)?;
        // (`implode` refuses what it does not list, with its own reasons.)
        if !implode
            && let ExprKind::SortedBy {
                input: values,
                order,
                ..
            } = &input.kind
        {
            // The first, last or n-th value in the sorted order are picked
            // in it; an aggregation the order does not change is taken of
            // the values as they come (by the executor: over no groups,
            // Polars types such an aggregation null, see gpu-exec's
            // `typed_null_over_no_groups`), its keys unread: where Polars
            // may raise computing them (a strict cast, fuzz seed 23007 case
            // 69), the query stays with Polars.
            let picks = matches!(op, AggOp::First | AggOp::Last | AggOp::Get { .. });
            // (A strict parse of texts into temporal values too: fuzz seed
            // 9919 case 117, a strict cast of text to a timestamp.)
            let strict = |e: &GpuExpr| {
                matches!(
                    e.kind,
                    ExprKind::Cast {
                        mode: CastMode::Strict,
                        ..
                    } | ExprKind::ParseTemporal { lenient: false, .. }
                )
            };
            if !picks && order.iter().any(|order| order.key.any(&strict)) {
                return self.refuse(
                    node,
                    format!(
                        "`{op}` of values sorted by a key Polars may raise on (a strict cast) is \
                         not supported on the GPU"
                    ),
                );
            }
            if !picks && !crate::support::order_free(&op, values.dtype) {
                return self.refuse(
                    node,
                    format!(
                        "`{op}` of values in a sorted order (a gather by `arg_sort`, `sort`, \
                         `sort_by`) is not supported on the GPU (but their first, last or n-th \
                         value, and counts, extremes, sums and medians of other values than \
                         floats)"
                    ),
                );
            }
        }
        if !implode && input.any(&|e| matches!(e.kind, ExprKind::Unique { .. })) {
            // (The count of distinct values, nulls too, is `n_unique`.)
            if op
                == (AggOp::Count {
                    include_nulls: true,
                })
            {
                op = AggOp::NUnique;
            }
            match without_unique(&op, self.per_group, &input) {
                Some(values) => *input = values,
                None => {
                    return self.refuse(
                        node,
                        "`unique` inside an aggregation (but a group's first or last distinct \
                         value, the first or last of its distinct values sorted, or their count) \
                         is not supported on the GPU",
                    );
                }
            }
        }
        Some(GpuExpr {
            kind: ExprKind::Agg { op, input },
            dtype,
        })
    }

    /// Of `k.arg_max()` (or `k.arg_min()`) at `idx`: k's node and whether
    /// it is the greatest that is sought; `None` for any other.
    pub(crate) fn arg_extreme_of(&self, idx: Node) -> Option<(Node, bool)> {
        let AExpr::Function {
            input, function, ..
        } = self.arena.get(idx)
        else {
            return None;
        };
        let maximum = match function {
            IRFunctionExpr::ArgMax => true,
            IRFunctionExpr::ArgMin => false,
            _ => return None,
        };
        match input.as_slice() {
            [by] => Some((by.node(), maximum)),
            _ => None,
        }
    }

    /// `expr.get(by.arg_max())` (`maximum`, else `arg_min`) at `node`: the
    /// value of `expr` at the place of `by`'s greatest (least) valid value,
    /// null where `by` has none (Polars' `get` of a null place); where the
    /// extreme is held more than once, Polars' place is the first or, where
    /// it knows `by` sorted, the last, so the executor's `arg_max` leaves
    /// such data to Polars.
    pub(crate) fn value_at_extreme(
        &mut self,
        node: Node,
        expr: Node,
        by: Node,
        maximum: bool,
    ) -> Lowered {
        if self.one_value(expr) || self.one_value(by) {
            return self.refuse(
                node,
                "`get` at the place of an extreme of a literal or an aggregation is not \
                 supported on the GPU",
            );
        }
        let dtype = self.dtype(node)?;
        let (values, key) = (self.expr(expr), self.expr(by));
        let (values, key) = (values?, key?);
        if !crate::support::arg_extreme_input(key.dtype) {
            return self.refuse(
                node,
                format!(
                    "`get` at the place of an extreme of {} is not supported on the GPU",
                    key.dtype
                ),
            );
        }
        // The row at the place `arg_max` (`arg_min`) gives, which takes
        // equal extremes as Polars does or leaves them to it (Polars takes
        // the last of them where it knows the values sorted).
        let op = match maximum {
            true => AggOp::ArgMax,
            false => AggOp::ArgMin,
        };
        let int64 = GpuDtype::Int64;
        let place = key
            .aggregated(op, GpuDtype::UInt32)
            .cast(int64, CastMode::NonStrict);
        let at = place_from_zero().binary(BinaryOp::Eq, place, GpuDtype::Boolean);
        let kept = GpuExpr {
            dtype: values.dtype,
            kind: ExprKind::Where {
                input: Box::new(values),
                by: Box::new(at),
            },
        };
        Some(kept.aggregated(AggOp::First, dtype))
    }

    /// An aggregation of `input.filter(by)`: of the input with null where
    /// `by` is not true, for the aggregations that skip nulls (the number of
    /// rows kept, for `len`); `first` and `last` of the rows kept; n_unique,
    /// which counts null, as that of the input with null where `by` is not
    /// true, less that null where no row kept holds one.
    pub(crate) fn aggregation_of_filter(
        &mut self,
        node: Node,
        op: AggOp,
        (input, by): (GpuExpr, GpuExpr),
        dtype: GpuDtype,
    ) -> Lowered {
        let (op, input) = match op {
            AggOp::NUnique if dtype == GpuDtype::UInt32 => {
                let (boolean, count) = (GpuDtype::Boolean, GpuDtype::UInt32);
                let kept = by.fill_null(GpuExpr::literal(Scalar::Boolean(false), boolean));
                let null = GpuExpr::literal(Scalar::Null, input.dtype);
                let values = kept.clone().then(input.clone(), null, input.dtype);
                // Whether any row of `rows` is true, as 1 or 0.
                let any = |rows: GpuExpr| {
                    let zero = GpuExpr::literal(Scalar::UInt(0), count);
                    rows.cast(count, CastMode::NonStrict)
                        .aggregated(AggOp::Sum, count)
                        .binary(BinaryOp::Gt, zero, boolean)
                        .cast(count, CastMode::NonStrict)
                };
                let kept_null = any(kept.binary(BinaryOp::And, input.is_null(), boolean));
                let some_null = any(values.clone().is_null());
                return Some(
                    values
                        .aggregated(AggOp::NUnique, count)
                        .binary(BinaryOp::Minus, some_null, count)
                        .binary(BinaryOp::Plus, kept_null, count),
                );
            }
            AggOp::NUnique => {
                return self.refuse(node, format!("{op} of a filtered expression as {dtype}"));
            }
            // The rows kept themselves: first and last pick among them,
            // implode lists them, and Polars sums (and so averages) the kept
            // values of floats (and of integers, for means) in its own order
            // (a sum of f32 of a filter ir-lower's support then refuses).
            AggOp::First | AggOp::Last | AggOp::Sum | AggOp::Mean | AggOp::Implode
                if matches!(op, AggOp::First | AggOp::Last | AggOp::Implode)
                    || input.dtype == GpuDtype::Float64
                    || (op == AggOp::Sum && input.dtype == GpuDtype::Float32)
                    || (op == AggOp::Mean
                        && (ticks(input.dtype)
                            || matches!(
                                input.dtype,
                                GpuDtype::Int32
                                    | GpuDtype::Int64
                                    | GpuDtype::UInt32
                                    | GpuDtype::UInt64
                            ))) =>
            {
                let kept = GpuExpr {
                    dtype: input.dtype,
                    kind: ExprKind::Where {
                        input: Box::new(input),
                        by: Box::new(by),
                    },
                };
                (op, kept)
            }
            // (Polars computes the values over every row first: a strict
            // cast there raises where one does not fit, which the rows
            // counted alone would not see; fuzz seed 5066, case 68.)
            AggOp::Count {
                include_nulls: true,
            } if input.any(&|e| {
                matches!(
                    e.kind,
                    ExprKind::Cast {
                        mode: CastMode::Strict,
                        ..
                    }
                )
            }) =>
            {
                return self.refuse(
                    node,
                    "the number of rows a filter keeps of values cast strictly is not supported \
                     on the GPU (Polars casts every row first, and raises where one does not fit)",
                );
            }
            AggOp::Count {
                include_nulls: true,
            } if dtype == GpuDtype::UInt32 => {
                // The rows the filter keeps.
                let kept = by
                    .fill_null(GpuExpr::literal(Scalar::Boolean(false), GpuDtype::Boolean))
                    .cast(GpuDtype::UInt32, CastMode::NonStrict);
                (AggOp::Sum, kept)
            }
            AggOp::Count {
                include_nulls: true,
            } => {
                return self.refuse(node, format!("the number of filtered rows as {dtype}"));
            }
            op => {
                let null = GpuExpr::literal(Scalar::Null, input.dtype);
                let dtype = input.dtype;
                (op, by.then(input, null, dtype))
            }
        };
        Some(GpuExpr {
            kind: ExprKind::Agg {
                op,
                input: Box::new(input),
            },
            dtype,
        })
    }
}

/// `input`, the input of the aggregation `op` holding a `unique`, without
/// it, where the aggregation gives the same value over the values with
/// their duplicates: a group's first distinct value (per group Polars
/// keeps the order of first appearance) is its first value, and its last
/// the last value of the rows where a value first comes; the first or
/// last of the distinct values sorted, the first or last of the values
/// sorted; the count of distinct values (`n_unique`, and `len`, taken as
/// it), that of the values, and of valid distinct values (`count`), that
/// of the rows where a valid value first comes. Not of floats
/// (which of two equal zeros, or NaNs, is kept is Polars' own). `None`
/// for any other.
fn without_unique(op: &AggOp, per_group: bool, input: &GpuExpr) -> Option<GpuExpr> {
    // Whether a value first comes at each row of `values`.
    let first = |values: &GpuExpr| GpuExpr {
        kind: ExprKind::Distinct {
            input: Box::new(values.clone()),
            test: DistinctTest::FirstDistinct,
        },
        dtype: GpuDtype::Boolean,
    };
    // The rows of `values` where a value first comes.
    let first_comes = |values: GpuExpr| GpuExpr {
        dtype: values.dtype,
        kind: ExprKind::Where {
            by: Box::new(first(&values)),
            input: Box::new(values),
        },
    };
    let distinct = |e: &GpuExpr| match &e.kind {
        ExprKind::Unique { input, .. } if !input.dtype.is_float() => Some(input.as_ref().clone()),
        _ => None,
    };
    let values = match (op, &input.kind) {
        (AggOp::First, ExprKind::Unique { .. }) if per_group => distinct(input)?,
        // The last distinct value per group, and the count of distinct
        // values (valid ones, or nulls too): of the rows where a value
        // first comes, the last, or their count.
        (AggOp::Last, ExprKind::Unique { .. }) if per_group => first_comes(distinct(input)?),
        // (Not the values themselves, which may be text, but a flag valid
        // where a valid value first comes.)
        (
            AggOp::Count {
                include_nulls: false,
            },
            ExprKind::Unique { .. },
        ) => {
            let values = distinct(input)?;
            let boolean = GpuDtype::Boolean;
            let counted = first(&values).binary(BinaryOp::And, values.is_not_null(), boolean);
            counted.then(
                GpuExpr::literal(Scalar::Boolean(true), boolean),
                GpuExpr::literal(Scalar::Null, boolean),
                boolean,
            )
        }
        (AggOp::NUnique, ExprKind::Unique { .. }) => distinct(input)?,
        (
            AggOp::First | AggOp::Last,
            ExprKind::SortedBy {
                input: sorted,
                order,
                unstable,
            },
        ) if order.iter().all(|order| order.key == *sorted) => {
            let values = distinct(sorted)?;
            let order = order
                .iter()
                .map(|order| RowOrder {
                    key: Box::new(values.clone()),
                    ..order.clone()
                })
                .collect();
            GpuExpr {
                dtype: input.dtype,
                kind: ExprKind::SortedBy {
                    input: Box::new(values),
                    order,
                    unstable: unstable.clone(),
                },
            }
        }
        _ => return None,
    };
    (!values.any(&|e| matches!(e.kind, ExprKind::Unique { .. }))).then_some(values)
}

/// Why a mode other than a group-by's aggregation or a select's one
/// column stays with Polars.
pub(crate) const MODE_ELSEWHERE: &str = "mode inside another expression or beside other columns \
     is not supported on the GPU (a group-by's mode as its aggregation, and a select of one mode, \
     are)";

impl ExprLowering<'_> {
    /// Polars' `mode` (`node`, of `inputs`) as a group-by's aggregation
    /// ([`AggOp::Mode`], which Polars' plan lists by an `implode`): each
    /// group's values of the most rows, as a list. Of values the GPU groups
    /// rows by, but floats (which of two equal zeros Polars keeps, and how
    /// it hashes NaN, are its own); not in a window (see the window's
    /// lowering). A select of one mode over the frame is a plan of its own
    /// (`lower_plan/value_counts.rs`).
    pub(crate) fn modes(&mut self, node: Node, inputs: &[ExprIR], maintain_order: bool) -> Lowered {
        if !self.per_group {
            return self.refuse(node, MODE_ELSEWHERE);
        }
        let input = self.single(inputs)?;
        let keyed = crate::support::group_key(crate::support::widened_key_type(input.dtype));
        if !keyed || input.dtype.is_float() || input.dtype == GpuDtype::Null {
            return self.refuse(
                node,
                format!(
                    "mode of {} per group is not supported on the GPU",
                    input.dtype
                ),
            );
        }
        if input.has_aggregation() || input.has_window() {
            return self.refuse(
                node,
                "mode of an aggregation or a window per group is not supported on the GPU",
            );
        }
        // (Polars' plan types the mode as its values; per group, a list of
        // them.)
        let dtype = self.dtype(node)?;
        if dtype != input.dtype {
            return self.refuse(node, format!("mode of {} into {dtype}", input.dtype));
        }
        let listed = GpuDtype::list_of(dtype);
        Some(input.aggregated(AggOp::Mode { maintain_order }, listed))
    }
}
