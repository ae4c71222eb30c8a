//! Lowering of the list functions (`list.len`, `list.get`, `list.sum`, `list.sort`, ...) and of comparisons and membership of lists; `list.eval` is lowered in `list_eval.rs`, what makes lists (`implode`, `concat_list`) in `made_lists.rs`.

use super::list_eval::element;
use super::*;

/// What the GPU does with lists, for the reasons that refuse the rest.
pub(crate) const LISTS_ON_THE_GPU: &str = "the GPU holds list columns, makes them by `implode` and by \
                                `agg` of values, explodes them, tests them for nulls, compares \
                                them (`==`, `!=`, `eq_missing`), groups, sorts, joins and tells apart rows \
                                by them (group-bys, sorts, joins, distinct rows, repeats, \
                                `n_unique`, `unique`), counts them, picks the first or last per group, moves them to other \
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

/// Whether lists of structs of `values` sort within each list on the GPU:
/// structs of keys (see [`crate::support::struct_key`]) by their codes, as
/// Polars' row encoding orders them field by field; not of floats (equal
/// structs of -0.0 and 0.0 Polars' unstable sort may swap) or
/// categoricals (ordered by their dictionary).
fn struct_sort_key(values: GpuDtype) -> bool {
    let GpuDtype::Struct(of) = values else {
        return false;
    };
    crate::support::struct_key(values)
        && of
            .fields()
            .iter()
            .all(|(_, field)| !field.is_float() && !matches!(field, GpuDtype::Categorical(_)))
}

/// Whether list values are decimals (ordered and compared by their scaled
/// integers, of one scale within a list).
fn is_decimal(values: GpuDtype) -> bool {
    matches!(values, GpuDtype::Decimal(..))
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
            // integers of up to 32 bits as the group's mean adds them, exactly;
            // decimals' sums as a group's (see below), their means and medians
            // of their scaled integers, over 10^scale (the executor's list
            // functions).
            IRListFunction::Sum => (ListFunction::Aggregate(AggOp::Sum), |values| {
                values.is_integer()
                    || values.is_float()
                    || values == GpuDtype::Boolean
                    || is_decimal(values)
            }),
            IRListFunction::Mean => (ListFunction::Aggregate(AggOp::Mean), |values| {
                values.is_integer() || values.is_float() || is_decimal(values)
            }),
            // Each list's median as a group's (the middle values by
            // Polars' linear interpolation in f64).
            IRListFunction::Median => (ListFunction::Aggregate(AggOp::Median), |values| {
                values.is_integer() || values.is_float() || is_decimal(values)
            }),
            // Each list's spread as a group's (of f32 in f64, cast back; of
            // decimals as floats: see `spread_of_decimals`).
            IRListFunction::Std(ddof) => (
                ListFunction::Aggregate(AggOp::Std {
                    ddof: *ddof,
                    in_chunks: false,
                }),
                |values| values.is_integer() || values.is_float() || is_decimal(values),
            ),
            IRListFunction::Var(ddof) => (
                ListFunction::Aggregate(AggOp::Var {
                    ddof: *ddof,
                    in_chunks: false,
                }),
                |values| values.is_integer() || values.is_float() || is_decimal(values),
            ),
            IRListFunction::Min | IRListFunction::Max => {
                let propagate_nans = false;
                let op = if matches!(function, IRListFunction::Min) {
                    AggOp::Min { propagate_nans }
                } else {
                    AggOp::Max { propagate_nans }
                };
                // (Booleans and texts as a group's extremes; categoricals
                // by their codes, below.)
                (ListFunction::Aggregate(op), |values| {
                    values.is_integer()
                        || values.is_float()
                        || values.is_temporal()
                        || is_decimal(values)
                        || matches!(
                            values,
                            GpuDtype::Boolean | GpuDtype::String | GpuDtype::Categorical(_)
                        )
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
            // The place of each list's first least (greatest) valid value
            // (of texts and categoricals, below).
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
                        || matches!(
                            values,
                            GpuDtype::Boolean | GpuDtype::String | GpuDtype::Categorical(_)
                        )
                })
            }
            // As Polars sorts each list (a value's ties are alike; of
            // floats, -0.0 and 0.0 are not: a list holding both leaves the
            // query to Polars at run time, as sorts of floats do). Lists
            // of lists by the inner lists' codes (as Polars' row encoding
            // orders them; not of floats, whose equal lists of -0.0 and
            // 0.0 Polars' unstable sort may swap).
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
                        // (Categoricals by their texts, enums in their order,
                        // as a column's sort takes them.)
                        || matches!(values, GpuDtype::Categorical(_))
                        || matches!(values, GpuDtype::List(inner)
                            if crate::support::list_sort_key(values) && !inner.values().is_float())
                        || struct_sort_key(values)
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
                // (A categorical's item is a code of its dictionary, as
                // Polars casts the literal to the values' type.)
                (ListFunction::Contains(item), |values| {
                    values.is_integer()
                        || values.is_temporal()
                        || is_decimal(values)
                        || matches!(
                            values,
                            GpuDtype::Boolean | GpuDtype::String | GpuDtype::Categorical(_)
                        )
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
        // A list's extremes of categoricals (and enums) Polars takes by
        // their codes (a column's, and a group's, by their texts or the
        // enum's order): of the codes, as the values' type again.
        if let (ListFunction::Aggregate(op @ (AggOp::Min { .. } | AggOp::Max { .. })), true) =
            (&function, matches!(of.values(), GpuDtype::Categorical(_)))
        {
            let codes = GpuDtype::UInt32;
            let extreme = element(of.values())
                .cast(codes, CastMode::Physical)
                .aggregated(op.clone(), codes)
                .cast(of.values(), CastMode::NonStrict);
            let function = ListFunction::Agg {
                aggregation: Box::new(extreme),
                listed: false,
            };
            return self.list_function_of(node, function, input, dtype);
        }
        if let ListFunction::Aggregate(op @ (AggOp::ArgMin | AggOp::ArgMax)) = &function
            && matches!(of.values(), GpuDtype::String | GpuDtype::Categorical(_))
        {
            let minimum = matches!(op, AggOp::ArgMin);
            let places = places_of_extreme(of.values(), minimum);
            let function = ListFunction::Agg {
                aggregation: Box::new(places.cast(dtype, CastMode::NonStrict)),
                listed: false,
            };
            return self.list_function_of(node, function, input, dtype);
        }
        if function == ListFunction::Aggregate(AggOp::Sum) && is_decimal(of.values()) {
            // Each list's sum as a group's, exactly (`list.agg(element().sum())`).
            let sum = super::decimals::sum_of_decimals(element(of.values()), dtype);
            let function = ListFunction::Agg {
                aggregation: Box::new(sum),
                listed: false,
            };
            return self.list_function_of(node, function, input, dtype);
        }
        // (A decimal list's spread is of its values as floats; its mean
        // and median go to the executor as they are, which takes them of
        // the scaled integers, as Polars does.)
        if let ListFunction::Aggregate(op @ (AggOp::Std { .. } | AggOp::Var { .. })) = &function
            && is_decimal(of.values())
            && dtype == GpuDtype::Float64
        {
            return self.spread_of_decimals(node, op.clone(), input);
        }
        if function == ListFunction::Aggregate(AggOp::Median) && dtype == GpuDtype::Float32 {
            // Polars takes the median of f32 in f64, then as f32.
            let median = self.list_function_of(node, function, input, GpuDtype::Float64)?;
            return Some(median.cast(dtype, CastMode::NonStrict));
        }
        self.list_function_of(node, function, input, dtype)
    }

    /// `op` (a spread) of each list of `lists`, of decimals, as Polars
    /// takes it of a list's values: of the values cast to floats.
    fn spread_of_decimals(&mut self, node: Node, op: AggOp, lists: GpuExpr) -> Lowered {
        let GpuDtype::List(of) = lists.dtype else {
            return self.refuse(node, "a spread of decimals not in lists");
        };
        let float = GpuDtype::Float64;
        let cast = super::list_eval::each_cast(of.values(), float, CastMode::NonStrict);
        let cast = self.list_function_of(node, cast, lists, GpuDtype::list_of(float))?;
        self.list_function_of(node, ListFunction::Aggregate(op), cast, float)
    }

    /// A list function's integer argument of each row (`index`, `what`
    /// for the refusal): as i64; not an aggregation or a window.
    fn row_integer(&mut self, node: Node, index: GpuExpr, what: &str) -> Option<Box<GpuExpr>> {
        if !index.dtype.is_integer() || index.has_aggregation() || index.has_window() {
            // (Polars casts an argument of another type, by how it holds
            // the column: one it holds as a single value, a column of
            // nulls from a file say, it casts as a value, which can raise;
            // so the whole query is Polars'.)
            let why = format!(
                "{what} that is an aggregation, a window or not an integer ({}) is not supported \
                 on the GPU",
                index.dtype
            );
            self.refused(node, why, !index.dtype.is_integer());
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
                let integer = value_dtype(&value).is_some_and(|dtype| dtype.is_integer());
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
        // (Lists of structs of keys by the structs' codes, equal where
        // every field is.)
        let keyed = crate::support::group_key(crate::support::widened_key_type(values))
            && !values.is_nested()
            || crate::support::struct_key(values);
        if right.dtype != left.dtype
            || !keyed
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
    /// the lists' values' type that the GPU compares as join keys
    /// (categoricals of one type by code), neither of them aggregated nor
    /// a window.
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
        if item.dtype != of.values() || !keyed {
            let why = format!(
                "is_in of {} in {} is not supported on the GPU",
                item.dtype, lists.dtype
            );
            // (Of nested items the whole query is Polars': its search
            // panics over null lists of structs held in one chunk, as a
            // frame from the device comes: stress fuzz 23203, case 140.)
            return match item.dtype.is_nested() {
                true => self.refuse_whole(node, why),
                false => self.refuse(node, why),
            };
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
    pub(crate) fn list_function_of(
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
        // (Of decimals of precision 38, differences of decimals, checked as
        // they are; of others, Polars' plan types them as their input, its
        // engine gives precision 38.)
        let decimals = matches!(of.values(), GpuDtype::Decimal(38, _)) && out == of;
        let evaluated = match function {
            // (Lists and structs shifted whole within each list.)
            IRListFunction::Shift => element.shifted(n),
            IRListFunction::Diff { .. }
                if numbers(of.values()) && numbers(out.values()) || decimals =>
            {
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
        // (Of lists of lists or structs too, for `drop_nulls`: those kept
        // are moved whole.)
        let values = match lists.dtype {
            GpuDtype::List(of) if !of.values().is_nested() => of.values(),
            GpuDtype::List(of) if matches!(function, IRListFunction::DropNulls) => of.values(),
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
        // (A decimal of the values' own type or a null: Polars rescales
        // other numbers, as the scalar does not.)
        let of_decimals_type = |v: &AnyValue<'static>| {
            !is_decimal(values)
                || v.is_null()
                || value_dtype(v)
                    .is_some_and(|v| GpuDtype::from_polars(&v).is_ok_and(|dtype| dtype == values))
        };
        let constant = self.constant(inputs.get(1)?.node());
        if let Some(other) = constant.as_ref().filter(|v| !of_decimals_type(v)) {
            let why = format!(
                "list.count_matches of a value of {} in {} (Polars casts it to the values' \
                 type) is not supported on the GPU yet",
                other.dtype(),
                lists.dtype
            );
            return self.refuse(node, why);
        }
        let value = match constant.map(|v| any_value_to_scalar(&v)) {
            Some(Ok(value)) => value,
            _ => {
                return self.refuse(
                    node,
                    "list.count_matches of a value that is not a literal is not supported on \
                     the GPU yet",
                );
            }
        };
        // (A categorical's text as its code, where its dictionary holds it
        // as the plan is lowered: Polars casts it to the values' type.)
        let value = match (values, &value) {
            // (Polars raises: it compares no categorical with a null.)
            (GpuDtype::Categorical(_), Scalar::Null) => {
                let why = format!(
                    "list.count_matches of a null in {} is not supported on the GPU (Polars \
                     compares no categorical with a null)",
                    lists.dtype
                );
                return self.refuse(node, why);
            }
            (GpuDtype::Categorical(dictionary), Scalar::String(_)) => {
                match super::categorical::codes_of(dictionary, std::slice::from_ref(&value)) {
                    Some(mut codes) => codes.pop()?,
                    None => {
                        let why = format!(
                            "list.count_matches of {value}, not a category of {} as the plan \
                             is lowered, is not supported on the GPU",
                            lists.dtype
                        );
                        return self.refuse(node, why);
                    }
                }
            }
            _ => value,
        };
        let compared = values.is_numeric()
            || values.is_temporal()
            || is_decimal(values)
            || matches!(
                values,
                GpuDtype::String | GpuDtype::Boolean | GpuDtype::Categorical(_)
            );
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
}

/// The place (i64) in its list of a list's least (`minimum`) or greatest
/// text or categorical, as Polars' `list.arg_min`/`list.arg_max` takes it:
/// texts and categoricals compared by their texts, the first least and the
/// last greatest (Rust's `min_by` and `max_by` over the valid values);
/// enums by their order (their codes), the first of either. An aggregation
/// of the values as column 0, each list a group: the valid values' places
/// in the values' stable order, the first (the least, the greatest enum) or
/// the last (the greatest text), nulls out of the way; null where the list
/// has no valid value.
fn places_of_extreme(values: GpuDtype, minimum: bool) -> GpuExpr {
    let int64 = GpuDtype::Int64;
    let valid = element(values).is_not_null();
    let places = valid.then(
        place_from_zero(),
        GpuExpr::literal(Scalar::Null, int64),
        int64,
    );
    let enumeration = matches!(values, GpuDtype::Categorical(dictionary) if dictionary.is_enum());
    let last = !minimum && !enumeration;
    let descending = !minimum && enumeration;
    let sorted = GpuExpr {
        kind: ExprKind::SortedBy {
            input: Box::new(places),
            order: vec![RowOrder {
                key: Box::new(element(values)),
                descending,
                nulls_last: !last,
            }],
            unstable: None,
        },
        dtype: int64,
    };
    sorted.aggregated(if last { AggOp::Last } else { AggOp::First }, int64)
}
