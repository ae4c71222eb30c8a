//! Lowering of what makes lists: `implode` (and the lists a gather at literal places or each group's distinct values make), `concat_list`, `int_ranges`.

use super::*;

/// The most values a list the lowering builds of parts of its own holds
/// (a `concat_list` of a `get` per literal place, or of a list literal's
/// values).
pub(crate) const MOST_LISTED: usize = 64;

/// A `gather` at literal places ([`ExprLowering::gather_at_places`]): the
/// values' node, the places, and whether a place outside gives null.
pub(crate) type AtPlaces = (Node, Vec<i64>, bool);

impl ExprLowering<'_> {
    /// `concat_list` of `inputs`, lists of one type and values of their
    /// values' type (not single values Polars repeats): each row's lists
    /// and values in order.
    pub(crate) fn concat_list(&mut self, node: Node, inputs: &[ExprIR]) -> Lowered {
        // (A literal value beside inputs of every row is each row's.)
        let single = |lowering: &Self, input: &ExprIR| lowering.one_value(input.node());
        // (By the value's kind: Polars gives no type of a category's value.)
        let literal = |lowering: &Self, input: &ExprIR| {
            (lowering.literal_value(input.node())).is_some_and(|value| {
                !matches!(
                    value,
                    AnyValue::List(_) | AnyValue::Array(..) | AnyValue::Struct(..)
                ) && !matches!(value, AnyValue::StructOwned(_))
            })
        };
        if inputs.iter().all(|i| single(self, i))
            || inputs.iter().any(|i| single(self, i) && !literal(self, i))
        {
            return self.refuse(
                node,
                "concat_list of an aggregation, of a literal list, or of literals only is not \
                 supported on the GPU yet",
            );
        }
        if let Some(answered) = self.concat_list_answered(node, inputs) {
            let planned = self.dtype(node)?;
            return self.refuse(
                node,
                format!(
                    "concat_list of a literal number Polars makes a column of its own type: \
                     Polars plans {planned} and answers {answered}"
                ),
            );
        }
        let mut values = self.inputs(inputs)?;
        let dtype = self.dtype(node)?;
        // Numbers and lists of numbers as the lists' values' type, and
        // categories and lists of them as text among texts (Polars casts
        // each value to it, the types' supertype).
        if let GpuDtype::List(of) = dtype {
            let number = |d: GpuDtype| d.is_integer() || d.is_float();
            let cast = |from: GpuDtype| {
                from != of.values()
                    && (number(from) && number(of.values())
                        || matches!(from, GpuDtype::Categorical(_))
                            && of.values() == GpuDtype::String)
            };
            for value in &mut values {
                let null = matches!(value.kind, ExprKind::Literal(Scalar::Null));
                match value.dtype {
                    GpuDtype::List(from) if cast(from.values()) => {
                        *value =
                            list_eval::lists_cast(value.clone(), of.values(), CastMode::NonStrict);
                    }
                    from if !null && cast(from) => {
                        *value = value.clone().cast(of.values(), CastMode::NonStrict);
                    }
                    _ => {}
                }
            }
        }
        let of_values = |e: &GpuExpr| e.dtype == dtype || GpuDtype::list_of(e.dtype) == dtype;
        if values.is_empty() || !values.iter().all(of_values) {
            return self.refuse(
                node,
                format!(
                    "concat_list into {dtype} of lists or values of other types is not \
                     supported on the GPU yet"
                ),
            );
        }
        Some(GpuExpr {
            kind: ExprKind::ConcatList(values),
            dtype,
        })
    }

    /// The type of the lists Polars' engine makes of `inputs` where it is
    /// not the type its plan gives `node`: Polars' engine casts the inputs
    /// to the supertype of their values' types as they are once columns,
    /// a literal number as its own type (`2` as i32), where its plan took
    /// the literal as any type that holds it (`concat_list([u8 list, 2])`
    /// planned as list[u8], answered as list[i32]).
    fn concat_list_answered(&self, node: Node, inputs: &[ExprIR]) -> Option<DataType> {
        let dynamic = |input: &ExprIR| {
            matches!(
                self.arena.get(input.node()),
                AExpr::Literal(LiteralValue::Dyn(_))
            )
        };
        if !inputs.iter().any(dynamic) {
            return None;
        }
        let planned = self.polars_dtype(node)?;
        let answered = inputs.iter().try_fold(None::<DataType>, |so_far, input| {
            let dtype = self.polars_dtype(input.node())?;
            let values = match dtype {
                DataType::List(of) => *of,
                dtype => dtype,
            };
            Some(Some(match so_far {
                None => values,
                Some(so_far) => polars_core::utils::try_get_supertype(&so_far, &values).ok()?,
            }))
        })??;
        let answered = DataType::List(Box::new(answered));
        (answered != planned).then_some(answered)
    }

    /// Polars' `int_ranges(start, end, step)` (as i64; `step` a literal
    /// other than zero): each row's integers from its `start` up to its
    /// `end`. Of the rows of a frame (not inside an aggregation or a window,
    /// where Polars makes a list per row of each group; not of two single
    /// values, which make one row).
    pub(super) fn int_ranges(&mut self, node: Node, inputs: &[ExprIR]) -> Lowered {
        let [start, end, step] = [0, 1, 2].map(|at| inputs.get(at).map(ExprIR::node));
        let (start, end, step) = (start?, end?, step?);
        let dtype = self.dtype(node)?;
        let int64 = GpuDtype::Int64;
        if dtype != GpuDtype::list_of(int64) {
            return self.refuse(node, format!("int_ranges into {dtype}"));
        }
        // (A step of i64::MIN has no magnitude in i64.)
        let stepped = |&step: &i64| step != 0 && step != i64::MIN;
        let Some(step) = self.literal_i64(step).filter(stepped) else {
            return self.refuse(
                node,
                "int_ranges by a step that is not a literal integer other than 0 (and -2^63) \
                 is not supported on the GPU",
            );
        };
        if self.per_group {
            return self.refuse(
                node,
                "int_ranges inside an aggregation or a window is not supported on the GPU",
            );
        }
        if self.one_value(start) && self.one_value(end) {
            return self.refuse(
                node,
                "int_ranges of a single start and end (one list) is not supported on the GPU",
            );
        }
        let (start, end) = (self.expr(start)?, self.expr(end)?);
        if start.dtype != int64 || end.dtype != int64 {
            return self.refuse(
                node,
                format!("int_ranges from {} to {}", start.dtype, end.dtype),
            );
        }
        Some(GpuExpr {
            kind: ExprKind::IntRanges {
                start: Box::new(start),
                end: Box::new(end),
                step,
            },
            dtype,
        })
    }

    /// Of `values.gather(places)` at `node` by a literal list of integer
    /// places (`gather([2, 0, -1])`, no null among them) or one literal
    /// place (`gather(0)`, a list of one place): the values' node,
    /// the places, and whether a place outside the values gives null
    /// (`null_on_oob`; else Polars raises). `None` for any other node.
    pub(crate) fn gather_at_places(&self, node: Node) -> Option<AtPlaces> {
        let AExpr::Gather {
            expr,
            idx,
            returns_scalar: false,
            null_on_oob,
        } = self.arena.get(node)
        else {
            return None;
        };
        // (One place, `gather(0)`, Polars takes as a list of one.)
        let places = match self.literal_list(*idx) {
            Some((places, dtype)) if dtype.is_integer() => places
                .iter()
                .map(|place| match place {
                    Scalar::Int(place) => Some(*place),
                    Scalar::UInt(place) => i64::try_from(*place).ok(),
                    _ => None,
                })
                .collect::<Option<_>>()?,
            Some(_) => return None,
            None => vec![
                self.constant(*idx)
                    .filter(|place| value_dtype(place).is_some_and(|dtype| dtype.is_integer()))
                    .and_then(|place| place.extract::<i64>())?,
            ],
        };
        Some((*expr, places, *null_on_oob))
    }

    /// Polars' `gather` at literal places ([`Self::gather_at_places`]) of
    /// each group's values (of the whole frame's, where a select explodes
    /// it), as a list of type `dtype`: the value at each place as `get`
    /// takes it (counted from the end where negative; outside the values
    /// null with `null_on_oob` over the frame, else the query goes to
    /// Polars, which raises, per group with `null_on_oob` too).
    pub(crate) fn gathered_list(
        &mut self,
        node: Node,
        (values, places, null_on_oob): AtPlaces,
        dtype: GpuDtype,
    ) -> Lowered {
        if self.one_value(values) {
            // Polars takes one value (a list of one) per group.
            return self.refuse(
                node,
                "`gather` of a literal or an aggregation is not supported on the GPU",
            );
        }
        if places.is_empty() || places.len() > MOST_LISTED {
            return self.refuse(
                node,
                format!(
                    "`gather` at {} literal places is not supported on the GPU (1 to \
                     {MOST_LISTED} are)",
                    places.len()
                ),
            );
        }
        // Per group Polars raises at a place outside a group with
        // `null_on_oob` too.
        let null_on_oob = null_on_oob && !self.per_group;
        let values = self.expr(values)?;
        let listed = GpuDtype::list_of(values.dtype);
        if !values.dtype.listable() || dtype != listed {
            // (Each group's values, or the frame's, are listed first.)
            return self.refuse(
                node,
                format!(
                    "`gather` at literal places of {} (as {dtype}) is not supported on the GPU",
                    values.dtype
                ),
            );
        }
        let got = places
            .into_iter()
            .map(|index| {
                let op = AggOp::Get { index, null_on_oob };
                values.clone().aggregated(op, values.dtype)
            })
            .collect();
        Some(GpuExpr {
            kind: ExprKind::ConcatList(got),
            dtype,
        })
    }

    /// The distinct values of `values` (the input of the `unique` at
    /// `node`) as a list of `dtype`: the rows where each first comes
    /// ([`Self::first_distinct`]), imploded.
    fn distinct_listed(&mut self, node: Node, values: Node, dtype: GpuDtype) -> Option<GpuExpr> {
        let (values, first) = self.first_distinct(node, values)?;
        let kept = GpuExpr {
            dtype: values.dtype,
            kind: ExprKind::Where {
                input: Box::new(values),
                by: Box::new(first),
            },
        };
        Some(kept.aggregated(AggOp::Implode, dtype))
    }

    /// Of `unique` (at `node`) of `values` within each group (or list),
    /// where Polars keeps the distinct values in the order they first come:
    /// the values, and whether each row is where its value first comes (of
    /// the valid values alone after `drop_nulls`: whether a row is kept is
    /// a function of its value). Of floats Polars' equality is its own.
    pub(crate) fn first_distinct(
        &mut self,
        node: Node,
        values: Node,
    ) -> Option<(GpuExpr, GpuExpr)> {
        let (values, valid_only) = match filtered_parts(self.arena, values) {
            Some((inner, KeptRows::NotNull)) => (inner, true),
            _ => (values, false),
        };
        let values = self.expr(values)?;
        if values.dtype.is_float() {
            self.refuse(
                node,
                "a list of the distinct floats of each group or list is not supported on the GPU \
                 yet",
            );
            return None;
        }
        let mut first = GpuExpr {
            kind: ExprKind::Distinct {
                input: Box::new(values.clone()),
                test: DistinctTest::FirstDistinct,
            },
            dtype: GpuDtype::Boolean,
        };
        if valid_only {
            let valid = values.clone().is_not_null();
            first = first.binary(BinaryOp::And, valid, GpuDtype::Boolean);
        }
        Some((values, first))
    }

    /// `implode` of `input` (a group-by's aggregation of values it leaves
    /// unaggregated is one): each group's values (of a select, the
    /// column's) as one list in row order, computed as in the group (its
    /// shifts, running sums, sorts and aggregations within it); of a
    /// filter (`filter`, `drop_nulls`, `head`, `slice`, ...), the values it
    /// keeps.
    pub(crate) fn implode(&mut self, node: Node, input: Node) -> Lowered {
        let dtype = self.dtype(node)?;
        self.implode_as(node, input, dtype)
    }

    /// [`Self::implode`] of `input` into lists of type `dtype`, refused
    /// (where it is) as `node`.
    pub(crate) fn implode_as(&mut self, node: Node, input: Node, dtype: GpuDtype) -> Lowered {
        if let Some(gather) = self.gather_at_places(input) {
            return self.gathered_list(input, gather, dtype);
        }
        // A group's modes, listed (as a group-by's aggregation).
        if let AExpr::Function {
            input: values,
            function: IRFunctionExpr::Mode { maintain_order },
            ..
        } = self.arena.get(input)
        {
            let (values, stable) = (values.clone(), *maintain_order);
            let modes = self.modes(input, &values, stable)?;
            if modes.dtype != dtype {
                return self.refuse(
                    node,
                    format!("the modes of a group as {dtype} are not supported on the GPU"),
                );
            }
            return Some(modes);
        }
        // A group's distinct values sorted (`x.unique().sort()`): their
        // list, sorted.
        if self.per_group
            && let AExpr::Sort {
                expr: distinct,
                options,
            } = self.arena.get(input)
            && let AExpr::Function {
                input: values,
                function: IRFunctionExpr::Unique(_),
                ..
            } = self.arena.get(*distinct)
        {
            let (distinct, options) = (*distinct, *options);
            let listed = self.distinct_listed(distinct, values.first()?.node(), dtype)?;
            return Some(GpuExpr {
                kind: ExprKind::List {
                    function: ListFunction::Sort {
                        descending: options.descending,
                        nulls_last: options.nulls_last,
                    },
                    input: Box::new(listed),
                },
                dtype,
            });
        }
        let imploded = match self.arena.get(input) {
            // The distinct values in the order they first come (of each
            // group): the rows where each first comes. Per group Polars
            // keeps that order without `maintain_order` too; over a whole
            // column it then sorts them (left to it). Of floats its
            // equality is its own.
            AExpr::Function {
                input: values,
                function: IRFunctionExpr::Unique(stable),
                ..
            } if *stable || self.per_group => {
                self.distinct_listed(input, values.first()?.node(), dtype)?
            }
            _ => self.aggregation_of(node, AggOp::Implode, input, dtype)?,
        };
        // (Functions of a filter's kept values: their lists, made whole.)
        if crate::support::kept_list(&imploded) {
            return Some(imploded);
        }
        let ExprKind::Agg { input: listed, .. } = &imploded.kind else {
            return self.refuse(input, format!("`{imploded}` is not an implode"));
        };
        let (values, kept) = match &listed.kind {
            ExprKind::Where { input, by } => (input.as_ref(), Some(by.as_ref())),
            _ => (listed.as_ref(), None),
        };
        // Computed per group, row by row (no filter or distinct values
        // within, whose places Polars pairs by its own bookkeeping).
        let listable = |e: &GpuExpr| {
            !e.has_window()
                && !e.any(&|part| {
                    matches!(
                        part.kind,
                        ExprKind::Where { .. }
                            | ExprKind::Unique { .. }
                            | ExprKind::ParseTemporal { inferred: true, .. }
                    )
                })
        };
        if !listable(values) || !kept.is_none_or(listable) {
            // Named as the user wrote it (`col("x").unique()` inside
            // `agg`), not the `implode` Polars wraps it in.
            return self.refuse(
                input,
                "a list result of values made within each group by a filter inside, \
                 `unique` of a whole column (Polars sorts them), a window or an inferred \
                 parse is not supported on the GPU yet",
            );
        }
        let moved = crate::support::text_moved_in_groups(values);
        if !moved && crate::support::per_group_text(values) {
            return self.refuse(
                input,
                "a list result of texts made within each group of other rows or of aggregations \
                 (beyond a text column shifted, reversed, filled or sorted) is not supported on the GPU \
                 yet",
            );
        }
        // (The places `arg_unique` and `arg_where` list are no literals:
        // rows of a column.)
        let places = filtered_parts(self.arena, input).is_some_and(|(_, rows)| rows.keeps_places());
        // (Nor are the rows' places, `int_range(0, len())`, `repeat(v, len())`.)
        let rows = values.any(&|e| e.is_places() || matches!(e.kind, ExprKind::Column { .. }));
        if !places && !rows {
            return self.refuse(input, "a list of literals is not supported on the GPU yet");
        }
        Some(imploded)
    }
}
