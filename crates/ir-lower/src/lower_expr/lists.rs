//! Lowering of lists: the list functions (`list.len`, `list.get`, `list.sum`, `list.sort`, ...) and `implode`.

use super::*;

/// The most values a list the lowering builds of parts of its own holds
/// (a `concat_list` of a `get` per literal place, or of a list literal's
/// values).
pub(crate) const MOST_LISTED: usize = 64;

/// A `gather` at literal places ([`ExprLowering::gather_at_places`]): the
/// values' node, the places, and whether a place outside gives null.
pub(crate) type AtPlaces = (Node, Vec<i64>, bool);

/// What the GPU does with lists, for the reasons that refuse the rest.
pub(crate) const LISTS_ON_THE_GPU: &str = "the GPU holds list columns, makes them by `implode` and by \
                                `agg` of values, explodes them, tests them for nulls, compares \
                                them (`==`, `!=`, `eq_missing`), counts them, picks the first or last per group, moves them to other \
                                rows (`shift`, `reverse`, `gather`, `sort_by`, fills, of \
                                window groups too), chooses them row by row \
                                (`when/then/otherwise`, `fill_null`) and takes `list.len`, \
                                `list.get` (`first`, `last`), `list.sum`, `list.mean`, \
                                `list.median`, `list.std`, `list.var`, `list.min`, \
                                `list.max`, `list.arg_min`, `list.arg_max`, `list.shift`, \
                                `list.diff`, `list.join`, \
                                `list.contains` (and `is_in` of lists), `list.count_matches`, \
                                `list.drop_nulls`, `list.sort`, `list.slice` (`head`, `tail`), \
                                `list.eval` and `list.agg` of them, and makes them by \
                                `concat_list` of lists and values and of texts by \
                                `str.split` and `str.extract_all`";

/// Whether list values are decimals (ordered and compared by their scaled
/// integers, of one scale within a list).
fn is_decimal(values: GpuDtype) -> bool {
    matches!(values, GpuDtype::Decimal(..))
}

/// Each list's values, of type `values`, as `element()` reads them within
/// the list (column 0 of the values alone).
pub(crate) fn element(values: GpuDtype) -> GpuExpr {
    GpuExpr::column(
        0,
        polars_plan::constants::get_pl_element_name().to_string(),
        values,
    )
}

/// Whether `e` gives other values than one per value of its input: a
/// filter, `unique`, a gather.
fn keeps_other_values(e: &GpuExpr) -> bool {
    matches!(
        e.kind,
        ExprKind::Where { .. } | ExprKind::Unique { .. } | ExprKind::Gather { .. }
    )
}

/// The columns of a list's values as `element()` reads them (the only
/// one, of `values`).
pub(crate) fn elements_schema(values: DataType) -> Schema {
    let mut schema = Schema::default();
    schema.insert(polars_plan::constants::get_pl_element_name(), values);
    schema
}

/// A lowering of expressions of each list's values (`schema`: see
/// [`elements_schema`]), each list a group, with `substituted` (a node
/// that stands for the values) where given.
pub(crate) fn over_elements<'s>(
    arena: &'s Arena<AExpr>,
    refusals: &'s mut Vec<Refusal>,
    schema: &'s Schema,
    substituted: Option<(Node, GpuExpr)>,
) -> ExprLowering<'s> {
    ExprLowering {
        arena,
        schema,
        one_row: Vec::new(),
        refusals,
        per_group: true,
        unsliced: None,
        unfiltered: false,
        nulled: None,
        substituted,
        fields_of: None,
        scalar_columns: None,
    }
}

/// Whether `e`, evaluated over a list's values, gives one value per value
/// (no filter, `unique` or gather; not an aggregation alone, which gives
/// one value per list).
pub(crate) fn one_per_value(e: &GpuExpr) -> bool {
    !e.any(&keeps_other_values) && !matches!(e.kind, ExprKind::Agg { .. } | ExprKind::Len)
}

impl ExprLowering<'_> {
    /// A function of the `list` namespace, of a list column.
    pub(crate) fn list(
        &mut self,
        node: Node,
        inputs: &[ExprIR],
        function: &IRListFunction,
    ) -> Lowered {
        if let IRListFunction::Concat = function {
            return self.concat_list(node, inputs);
        }
        if let IRListFunction::Shift | IRListFunction::Diff { .. } = function {
            return self.list_in_order(node, inputs, function);
        }
        if let IRListFunction::DropNulls | IRListFunction::CountMatches = function {
            return self.list_of_values(node, inputs, function);
        }
        let literal = |lowering: &Self| lowering.literal_value(inputs.get(1)?.node());
        // The type of `contains`' item, where it is one.
        let mut contains_type = None;
        // The function, and the types of values it takes.
        let (function, takes): (ListFunction, fn(GpuDtype) -> bool) = match function {
            IRListFunction::Length => (ListFunction::Len, |_| true),
            IRListFunction::Get(null_on_oob) => {
                let null_on_oob = *null_on_oob;
                match literal(self) {
                    Some(index) => {
                        let Some(index) = index.extract::<i64>() else {
                            return self.refuse(
                                node,
                                "list.get of a literal index that is not an integer",
                            );
                        };
                        (ListFunction::Get { index, null_on_oob }, |_| true)
                    }
                    // Each row's own place.
                    None => {
                        let index = self.expr(inputs.get(1)?.node())?;
                        let index = self.row_integer(node, index, "list.get at a place")?;
                        (ListFunction::GetAt { index, null_on_oob }, |_| true)
                    }
                }
            }
            // Floats (and, for means, 64-bit integers as f64) in the order
            // Polars adds each list (see `PlanNode::reads_values_outside_lists`);
            // integers of up to 32 bits as the group's mean adds them, exactly.
            IRListFunction::Sum => (ListFunction::Aggregate(AggOp::Sum), |values| {
                values.is_integer() || values.is_float() || values == GpuDtype::Boolean
            }),
            IRListFunction::Mean => (ListFunction::Aggregate(AggOp::Mean), |values| {
                values.is_integer() || values.is_float()
            }),
            // Each list's median as a group's (the middle values by
            // Polars' linear interpolation in f64).
            IRListFunction::Median => (ListFunction::Aggregate(AggOp::Median), |values| {
                values.is_integer() || values.is_float()
            }),
            // Each list's spread as a group's (of f32 in f64, cast back).
            IRListFunction::Std(ddof) => (
                ListFunction::Aggregate(AggOp::Std { ddof: *ddof }),
                |values| values.is_integer() || values.is_float(),
            ),
            IRListFunction::Var(ddof) => (
                ListFunction::Aggregate(AggOp::Var { ddof: *ddof }),
                |values| values.is_integer() || values.is_float(),
            ),
            IRListFunction::Min | IRListFunction::Max => {
                let propagate_nans = false;
                let op = if matches!(function, IRListFunction::Min) {
                    AggOp::Min { propagate_nans }
                } else {
                    AggOp::Max { propagate_nans }
                };
                (ListFunction::Aggregate(op), |values| {
                    values.is_integer()
                        || values.is_float()
                        || values.is_temporal()
                        || is_decimal(values)
                })
            }
            IRListFunction::Join(ignore_nulls) => {
                let separator = match literal(self) {
                    Some(AnyValue::String(text)) => text.to_owned(),
                    Some(AnyValue::StringOwned(text)) => text.to_string(),
                    _ => {
                        return self.refuse(
                            node,
                            "list.join by a separator that is not a literal text is not \
                             supported on the GPU yet",
                        );
                    }
                };
                let ignore_nulls = *ignore_nulls;
                let op = AggOp::Join {
                    separator,
                    ignore_nulls,
                };
                (ListFunction::Aggregate(op), |values| {
                    values == GpuDtype::String
                })
            }
            // The place of each list's first least (greatest) valid value.
            IRListFunction::ArgMin | IRListFunction::ArgMax => {
                let op = match function {
                    IRListFunction::ArgMin => AggOp::ArgMin,
                    _ => AggOp::ArgMax,
                };
                (ListFunction::Aggregate(op), |values| {
                    values.is_integer()
                        || values.is_float()
                        || values.is_temporal()
                        || is_decimal(values)
                })
            }
            // As Polars sorts each list (a value's ties are alike; of
            // floats, -0.0 and 0.0 are not: a list holding both leaves the
            // query to Polars at run time, as sorts of floats do).
            IRListFunction::Sort(options) => (
                ListFunction::Sort {
                    descending: options.descending,
                    nulls_last: options.nulls_last,
                },
                |values| {
                    values.is_integer()
                        || values.is_float()
                        || values.is_temporal()
                        || is_decimal(values)
                        || matches!(values, GpuDtype::Boolean | GpuDtype::String)
                },
            ),
            // (`list.head` and `list.tail` are slices.)
            IRListFunction::Slice => {
                let (Some(offset), Some(length)) = (inputs.get(1), inputs.get(2)) else {
                    return self.refuse(node, "list.slice without its bounds");
                };
                let (offset, length) = (offset.node(), length.node());
                if self.literal_slice_bounds((offset, length)).is_none() {
                    (self.sliced_at(node, (offset, length))?, |_| true)
                } else {
                    let by = self.kept_by_place(node, (offset, length))?;
                    (
                        ListFunction::Keep {
                            what: "slice",
                            by: Box::new(by),
                        },
                        |_| true,
                    )
                }
            }
            IRListFunction::Contains { nulls_equal } => {
                let item = inputs.get(1).and_then(|item| self.expr(item.node()));
                if let Some(values) = self.literal_list(inputs[0].node())
                    && let Some(item) = item.clone()
                {
                    // One list (a literal) and items per row: Polars'
                    // `item.is_in(list)`.
                    return self.is_in_literal(node, item, values, *nulls_equal);
                }
                if let Some(item) = item.clone()
                    && !matches!(item.kind, ExprKind::Literal(_))
                {
                    // An item per row.
                    let lists = self.expr(inputs[0].node())?;
                    return self.in_lists(node, item, lists, *nulls_equal);
                }
                let Some(GpuExpr {
                    kind: ExprKind::Literal(item),
                    dtype,
                }) = item.filter(|item| !matches!(item.kind, ExprKind::Literal(Scalar::Null)))
                else {
                    return self.refuse(
                        node,
                        "list.contains of an item that is not a literal value is not supported \
                         on the GPU yet",
                    );
                };
                contains_type = Some(dtype);
                (ListFunction::Contains(item), |values| {
                    values.is_integer()
                        || values.is_temporal()
                        || is_decimal(values)
                        || matches!(values, GpuDtype::Boolean | GpuDtype::String)
                })
            }
            other => {
                return self.refuse(
                    node,
                    format!(
                        "function {other} is not supported on the GPU yet ({LISTS_ON_THE_GPU})"
                    ),
                );
            }
        };
        let input = self.single(inputs)?;
        let GpuDtype::List(of) = input.dtype else {
            return self.refuse(
                node,
                format!(
                    "{} of {} is not supported on the GPU",
                    function.name(),
                    input.dtype
                ),
            );
        };
        if !takes(of.values()) || contains_type.is_some_and(|item| item != of.values()) {
            return self.refuse_list_function(node, &function.name(), input.dtype);
        }
        let dtype = self.dtype(node)?;
        if function == ListFunction::Aggregate(AggOp::Median) && dtype == GpuDtype::Float32 {
            // Polars takes the median of f32 in f64, then as f32.
            let median = self.list_function_of(node, function, input, GpuDtype::Float64)?;
            return Some(median.cast(dtype, CastMode::NonStrict));
        }
        self.list_function_of(node, function, input, dtype)
    }

    /// A list function's integer argument of each row (`index`, `what`
    /// for the refusal): as i64; not an aggregation or a window.
    fn row_integer(&mut self, node: Node, index: GpuExpr, what: &str) -> Option<Box<GpuExpr>> {
        if !index.dtype.is_integer() || index.has_aggregation() || index.has_window() {
            // (Polars casts an argument of another type, by how it holds
            // the column: one it holds as a single value, a column of
            // nulls from a file say, it casts as a value, which can raise;
            // so the whole query is Polars'.)
            self.refusals.push(Refusal {
                subject: self.notation(node),
                reason: format!(
                    "{what} that is an aggregation, a window or not an integer ({}) is not \
                     supported on the GPU",
                    index.dtype
                ),
                whole_plan: !index.dtype.is_integer(),
            });
            return None;
        }
        Some(Box::new(match index.dtype {
            GpuDtype::Int64 => index,
            _ => index.cast(GpuDtype::Int64, CastMode::NonStrict),
        }))
    }

    /// `list.slice` (`head`, `tail`) by `offset` and `length`, at least
    /// one of them of each row (see [`ListFunction::SliceAt`]): a literal
    /// offset an integer (Polars raises at a null one), a literal length
    /// of null the rest (as a negative one is), as Polars takes them.
    fn sliced_at(&mut self, node: Node, (offset, length): (Node, Node)) -> Option<ListFunction> {
        let int64 = GpuDtype::Int64;
        let bound = |lowering: &mut Self, at: Node, is_length: bool| {
            if let Some(value) = lowering.constant(at) {
                let integer = value.dtype().is_integer();
                let value = match (is_length, value.extract::<i64>()) {
                    (_, Some(v)) if integer => Some(v),
                    // Null: the rest (as a negative length is).
                    (true, None) if value.is_null() => Some(-1),
                    _ => None,
                };
                let Some(value) = value else {
                    lowering.refuse(
                        node,
                        "list.slice by a literal bound that is not an integer (or a null \
                         offset) is not supported on the GPU",
                    );
                    return None;
                };
                return Some(Box::new(GpuExpr::literal(Scalar::Int(value), int64)));
            }
            let what = match is_length {
                true => "list.slice by a length",
                false => "list.slice from an offset",
            };
            if lowering.one_value(at) {
                // (Polars takes one value for every list, not row by row.)
                lowering.refuse(
                    node,
                    format!("{what} that is an aggregation is not supported on the GPU yet"),
                );
                return None;
            }
            let bound = lowering.expr(at)?;
            lowering.row_integer(node, bound, what)
        };
        let offset = bound(self, offset, false);
        let length = bound(self, length, true);
        Some(ListFunction::SliceAt {
            offset: offset?,
            length: length?,
        })
    }

    /// `left op right` of lists (`nodes`, their nodes): their equality
    /// ([`ExprKind::ListsEqual`]; `!=` its negation), of lists of one type
    /// whose values the GPU compares as keys (not categoricals, not nested),
    /// both of each row (not one value Polars compares with every row's).
    pub(crate) fn lists_compared(
        &mut self,
        node: Node,
        op: BinaryOp,
        (left, right): (GpuExpr, GpuExpr),
        nodes: (Node, Node),
    ) -> Lowered {
        let (equal, missing) = match op {
            BinaryOp::Eq => (true, false),
            BinaryOp::NotEq => (false, false),
            BinaryOp::EqMissing => (true, true),
            BinaryOp::NotEqMissing => (false, true),
            _ => {
                let op = op.symbol();
                return self.refuse(node, format!("`{op}` of lists is not supported on the GPU"));
            }
        };
        let GpuDtype::List(of) = left.dtype else {
            return self.refuse(node, format!("`{}` of {}", op.symbol(), left.dtype));
        };
        let values = of.values();
        let keyed = crate::support::group_key(crate::support::widened_key_type(values));
        if right.dtype != left.dtype
            || !keyed
            || values.is_nested()
            || matches!(values, GpuDtype::Categorical(_) | GpuDtype::Null)
        {
            return self.refuse(
                node,
                format!(
                    "comparisons of {} with {} are not supported on the GPU",
                    left.dtype, right.dtype
                ),
            );
        }
        if self.one_value(nodes.0) || self.one_value(nodes.1) {
            return self.refuse(
                node,
                "a comparison of lists with one list (a literal or an aggregation) is not \
                 supported on the GPU",
            );
        }
        let boolean = GpuDtype::Boolean;
        let same = GpuExpr {
            kind: ExprKind::ListsEqual {
                left: Box::new(left),
                right: Box::new(right),
                missing,
            },
            dtype: boolean,
        };
        Some(match equal {
            true => same,
            false => GpuExpr {
                kind: ExprKind::Not(Box::new(same)),
                dtype: boolean,
            },
        })
    }

    /// Whether `item` is in its row's list of `lists` (`node`: Polars'
    /// `item.is_in(lists)`, or `lists.list.contains(item)`), for an item of
    /// the lists' values' type that the GPU compares as join keys (not
    /// categoricals), neither of them aggregated nor a window.
    pub(crate) fn in_lists(
        &mut self,
        node: Node,
        item: GpuExpr,
        lists: GpuExpr,
        nulls_equal: bool,
    ) -> Lowered {
        let GpuDtype::List(of) = lists.dtype else {
            return self.refuse(node, format!("is_in of {} in {}", item.dtype, lists.dtype));
        };
        let keyed = crate::support::group_key(crate::support::widened_key_type(item.dtype));
        if item.dtype != of.values() || !keyed || matches!(item.dtype, GpuDtype::Categorical(_)) {
            return self.refuse(
                node,
                format!(
                    "is_in of {} in {} is not supported on the GPU",
                    item.dtype, lists.dtype
                ),
            );
        }
        if [&item, &lists]
            .iter()
            .any(|e| e.has_aggregation() || e.has_window())
        {
            return self.refuse(
                node,
                format!(
                    "is_in of `{item}` in `{lists}` (an aggregation or a window) is not \
                     supported on the GPU"
                ),
            );
        }
        Some(GpuExpr {
            kind: ExprKind::InLists {
                item: Box::new(item),
                lists: Box::new(lists),
                nulls_equal,
            },
            dtype: GpuDtype::Boolean,
        })
    }

    /// `function` of the lists `input`, of `dtype`: of a list column, or of
    /// lists computed in the expression the GPU makes (texts split, lists
    /// sorted, sliced, evaluated or concatenated, lists moved to other
    /// rows or chosen row by row, a first or last list).
    fn list_function_of(
        &mut self,
        node: Node,
        function: ListFunction,
        input: GpuExpr,
        dtype: GpuDtype,
    ) -> Lowered {
        let computed = matches!(
            &input.kind,
            ExprKind::String { op, .. } if op.makes_lists()
        ) || matches!(
            &input.kind,
            ExprKind::List {
                function: ListFunction::Sort { .. }
                    | ListFunction::Keep { .. }
                    | ListFunction::SliceAt { .. }
                    | ListFunction::Eval(_)
                    | ListFunction::Agg { listed: true, .. },
                ..
            } | ExprKind::ConcatList(_)
                | ExprKind::IntRanges { .. }
        ) || input.moved_rows().is_some()
            || input.is_choice()
            || matches!(
                input.kind,
                ExprKind::Agg {
                    op: AggOp::First | AggOp::Last,
                    ..
                }
            );
        if !computed && !matches!(input.kind, ExprKind::Column { .. }) {
            return self.refuse(
                node,
                format!(
                    "{} of a list computed in the expression is not supported on the \
                     GPU yet (of a list column, of texts split, of integer ranges, of lists \
                     sorted, sliced, evaluated or concatenated, shifted, reversed, gathered, \
                     filled, sorted by keys or chosen by `when/then/otherwise` or \
                     `fill_null`, a first or last list, it is)",
                    function.name()
                ),
            );
        }
        Some(GpuExpr {
            kind: ExprKind::List {
                function,
                input: Box::new(input),
            },
            dtype,
        })
    }

    /// `list.shift` by a literal count and `list.diff` (of numbers, nulls
    /// where there is no value `n` places before, Polars' `ignore`): each
    /// list's values shifted or their differences, as `list.eval` of
    /// `element().shift(n)` and `element().diff(n)` takes them.
    fn list_in_order(
        &mut self,
        node: Node,
        inputs: &[ExprIR],
        function: &IRListFunction,
    ) -> Lowered {
        let lists = self.expr(inputs.first()?.node());
        let n = match function {
            IRListFunction::Diff {
                n,
                null_behavior: NullBehavior::Ignore,
            } => Some(*n),
            IRListFunction::Shift => inputs
                .get(1)
                .and_then(|periods| self.literal_periods(periods.node())),
            _ => None,
        };
        let (lists, dtype) = (lists?, self.dtype(node)?);
        let (GpuDtype::List(of), GpuDtype::List(out), Some(n)) = (lists.dtype, dtype, n) else {
            return self.refuse(
                node,
                format!(
                    "{function} of {} by other than a literal count, or with \
                     null_behavior=\"drop\", is not supported on the GPU yet",
                    lists.dtype
                ),
            );
        };
        let element = element(of.values());
        let numbers = |dtype: GpuDtype| dtype.is_integer() || dtype.is_float();
        let evaluated = match function {
            IRListFunction::Shift if !of.values().is_nested() => element.shifted(n),
            IRListFunction::Diff { .. } if numbers(of.values()) && numbers(out.values()) => {
                difference(element.cast(out.values(), CastMode::NonStrict), n)
            }
            _ => {
                return self.refuse_list_function(node, function, lists.dtype);
            }
        };
        self.list_function_of(node, ListFunction::Eval(Box::new(evaluated)), lists, dtype)
    }

    /// The refusal of a list function `function` of lists of `dtype`.
    fn refuse_list_function(
        &mut self,
        node: Node,
        function: &dyn std::fmt::Display,
        dtype: GpuDtype,
    ) -> Lowered {
        self.refuse(
            node,
            format!("{function} of {dtype} is not supported on the GPU yet"),
        )
    }

    /// `list.drop_nulls()` (each list's valid values, in order) and
    /// `list.count_matches(value)` of a literal value (how many of each
    /// list's values equal it, as Polars' `eq_missing` has it: NaN equals
    /// NaN, a null value counts the nulls; u32, null where the list is),
    /// as a keep and an aggregation of each list's values.
    fn list_of_values(
        &mut self,
        node: Node,
        inputs: &[ExprIR],
        function: &IRListFunction,
    ) -> Lowered {
        let lists = self.expr(inputs.first()?.node())?;
        let dtype = self.dtype(node)?;
        let values = match lists.dtype {
            GpuDtype::List(of) if !of.values().is_nested() => of.values(),
            _ => {
                return self.refuse_list_function(node, function, lists.dtype);
            }
        };
        let element = element(values);
        if let IRListFunction::DropNulls = function {
            let kept = ListFunction::Keep {
                what: "drop_nulls",
                by: Box::new(element.is_not_null()),
            };
            return self.list_function_of(node, kept, lists, dtype);
        }
        let value = match self
            .constant(inputs.get(1)?.node())
            .map(|v| any_value_to_scalar(&v))
        {
            Some(Ok(value)) => value,
            _ => {
                return self.refuse(
                    node,
                    "list.count_matches of a value that is not a literal is not supported on \
                     the GPU yet",
                );
            }
        };
        let compared = values.is_numeric()
            || values.is_temporal()
            || matches!(values, GpuDtype::String | GpuDtype::Boolean);
        let uint32 = GpuDtype::UInt32;
        if !compared || dtype != uint32 {
            return self.refuse_list_function(node, function, lists.dtype);
        }
        let found = super::boolean::membership(element, &[value], true);
        let count = found
            .cast(uint32, CastMode::NonStrict)
            .aggregated(AggOp::Sum, uint32);
        let count = ListFunction::Agg {
            aggregation: Box::new(count),
            listed: false,
        };
        self.list_function_of(node, count, lists, dtype)
    }

    /// `list.eval(evaluation)` of the lists `expr`: the evaluation lowered
    /// over the values alone (`element()` column 0, per group: each list a
    /// group), where it gives one value per value (elementwise, or reading
    /// the list's other values in order: ranks, running sums, shifts,
    /// sorts, aggregations broadcast), or a filter of the values themselves
    /// (a filter, `drop_nulls`, a slice, `unique`: the values each list
    /// keeps), or one value per list (an aggregation: `list.agg` gives it,
    /// `list.eval` a list of it); filters inside expressions and
    /// evaluations of other columns stay with Polars.
    pub(crate) fn list_eval(
        &mut self,
        node: Node,
        expr: Node,
        evaluation: Node,
        aggregated: bool,
    ) -> Lowered {
        let lists = self.expr(expr)?;
        let GpuDtype::List(of) = lists.dtype else {
            return self.refuse(node, format!("list.eval of {}", lists.dtype));
        };
        let Some(DataType::List(values)) = self.polars_dtype(expr) else {
            return self.refuse(node, "list.eval of values that are not a list");
        };
        let schema = elements_schema(*values);
        let mut inner = over_elements(self.arena, &mut *self.refusals, &schema, None);
        // A filter of the values themselves (`element().filter(..)`,
        // `element().drop_nulls()`, `element().head(2)`): each list's values
        // it keeps, in order, as `list.slice` keeps them; their distinct
        // values (`element().unique()`, Python's `list.unique()`), in the
        // order they first come in the list, as Polars keeps them per group.
        let unique_of = match self.arena.get(evaluation) {
            AExpr::Function {
                input,
                function: IRFunctionExpr::Unique(_),
                ..
            } => input.first().map(|values| values.node()),
            _ => None,
        };
        let kept_values = match (aggregated, unique_of) {
            (true, _) => None,
            (false, Some(values)) => {
                Some(("eval(unique)", inner.first_distinct(evaluation, values)))
            }
            (false, None) => filtered_parts(self.arena, evaluation)
                .map(|parts| ("eval(filter)", inner.filtered(evaluation, parts))),
        };
        if let Some((what, lowered)) = kept_values {
            let (values, kept) = lowered?;
            if !matches!(values.kind, ExprKind::Column { index: 0, .. })
                || of.values().is_nested()
                || kept.any(&keeps_other_values)
            {
                return self.refuse(
                    node,
                    "list.eval of a filter of other than the values themselves is not supported \
                     on the GPU yet",
                );
            }
            let dtype = self.dtype(node)?;
            if dtype != lists.dtype {
                return self.refuse(node, format!("list.eval of a filter into {dtype}"));
            }
            let kept = ListFunction::Keep {
                what,
                by: Box::new(kept),
            };
            return self.list_function_of(node, kept, lists, dtype);
        }
        let evaluated = inner.expr(evaluation)?;
        // One value per list (an aggregation of the values): `list.agg`
        // gives it as it is, `list.eval` as a list of one.
        if polars_plan::plans::is_scalar_ae(evaluation, self.arena) {
            return self.list_agg(node, lists, evaluated, !aggregated);
        }
        if aggregated {
            return self.refuse(
                node,
                "list.agg of other than one value per list is not supported on the GPU",
            );
        }
        if !one_per_value(&evaluated) || of.values().is_nested() {
            return self.refuse(
                node,
                "list.eval of a filter or `unique` inside an expression is not supported on the \
                 GPU yet",
            );
        }
        let dtype = self.dtype(node)?;
        if dtype != GpuDtype::list_of(evaluated.dtype) {
            return self.refuse(node, format!("list.eval into {dtype}"));
        }
        self.list_function_of(node, ListFunction::Eval(Box::new(evaluated)), lists, dtype)
    }

    /// `list.agg(aggregation)` of `lists` (Python's `list.n_unique`,
    /// `list.any`, `list.all` are such): one value of each list's values,
    /// an expression of aggregations as a group-by aggregates a group;
    /// `listed`, `list.eval` of it: each value a list of one. `item`,
    /// `get`, lists, sums, means and spreads of floats (added in Polars'
    /// order of its own) stay with Polars.
    fn list_agg(
        &mut self,
        node: Node,
        lists: GpuExpr,
        aggregation: GpuExpr,
        listed: bool,
    ) -> Lowered {
        let name = if listed { "list.eval" } else { "list.agg" };
        let (function, dtype) = self.list_agg_of(node, aggregation, (listed, name))?;
        self.list_function_of(node, function, lists, dtype)
    }

    /// [`Self::list_agg`]'s function of each list, and its type, or why not
    /// (the construct called `name` in the reasons).
    pub(crate) fn list_agg_of(
        &mut self,
        node: Node,
        aggregation: GpuExpr,
        (listed, name): (bool, &str),
    ) -> Option<(ListFunction, GpuDtype)> {
        let floats_added = aggregation.any(&|e| {
            matches!(
                &e.kind,
                ExprKind::Agg {
                    op: AggOp::Sum
                        | AggOp::Mean
                        | AggOp::Std { .. }
                        | AggOp::Var { .. }
                        | AggOp::Median
                        | AggOp::Quantile { .. },
                    input,
                } if input.dtype.is_float()
            )
        });
        // (`first` and `last` of an empty list are null; `item`, `get`
        // and lists stay with Polars.)
        let picks = aggregation.any(&|e| {
            matches!(
                e.kind,
                ExprKind::Agg {
                    op: AggOp::Item { .. } | AggOp::Get { .. } | AggOp::Implode,
                    ..
                }
            )
        });
        // (Of a literal alone, Polars repeats it for each value.)
        let aggregates =
            aggregation.any(&|e| matches!(e.kind, ExprKind::Agg { .. } | ExprKind::Len));
        if !aggregates {
            self.refuse(
                node,
                format!("{name} of a literal is not supported on the GPU (Polars repeats it)"),
            );
            return None;
        }
        if picks || floats_added {
            self.refuse(
                node,
                format!(
                    "{name} is not supported on the GPU yet where it takes `item`, `get` or \
                     lists, or sums, means, spreads, medians or quantiles of floats"
                ),
            );
            return None;
        }
        let dtype = self.dtype(node)?;
        let expected = match listed {
            true => GpuDtype::list_of(aggregation.dtype),
            false => aggregation.dtype,
        };
        if dtype != expected || listed && aggregation.dtype.is_nested() {
            self.refuse(node, format!("{name} into {dtype}"));
            return None;
        }
        let aggregation = ListFunction::Agg {
            aggregation: Box::new(aggregation),
            listed,
        };
        Some((aggregation, dtype))
    }

    /// `concat_list` of `inputs`, lists of one type and values of their
    /// values' type (not single values Polars repeats): each row's lists
    /// and values in order.
    fn concat_list(&mut self, node: Node, inputs: &[ExprIR]) -> Lowered {
        // (A literal value beside inputs of every row is each row's.)
        let single = |lowering: &Self, input: &ExprIR| lowering.one_value(input.node());
        let literal = |lowering: &Self, input: &ExprIR| {
            (lowering.literal_value(input.node())).is_some_and(|value| !value.dtype().is_nested())
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
        let mut values = self.inputs(inputs)?;
        let dtype = self.dtype(node)?;
        // Numbers as the lists' values' type (Polars casts each value to
        // it, the types' supertype).
        if let GpuDtype::List(of) = dtype {
            let number = |d: GpuDtype| d.is_integer() || d.is_float();
            for value in &mut values {
                if !matches!(value.kind, ExprKind::Literal(Scalar::Null))
                    && number(value.dtype)
                    && number(of.values())
                    && value.dtype != of.values()
                {
                    *value = value.clone().cast(of.values(), CastMode::NonStrict);
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
                    .filter(|place| place.dtype().is_integer())
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

    /// Of `unique` (at `node`) of `values` within each group (or list),
    /// where Polars keeps the distinct values in the order they first come:
    /// the values, and whether each row is where its value first comes (of
    /// the valid values alone after `drop_nulls`: whether a row is kept is
    /// a function of its value). Of floats Polars' equality is its own.
    fn first_distinct(&mut self, node: Node, values: Node) -> Option<(GpuExpr, GpuExpr)> {
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
                let (values, first) = self.first_distinct(input, values.first()?.node())?;
                let kept = GpuExpr {
                    dtype: values.dtype,
                    kind: ExprKind::Where {
                        input: Box::new(values),
                        by: Box::new(first),
                    },
                };
                kept.aggregated(AggOp::Implode, dtype)
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
