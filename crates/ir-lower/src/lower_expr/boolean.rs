//! Boolean functions: tests of values, memberships (`is_in`), equality where nulls are equal.

use super::*;

/// `input.is_in(values)` as Polars decides membership: by exact value (a
/// value the input's type cannot hold exactly matches nothing, so `1` is not
/// in `[1.5]` and a u16 not in `[70000]`), NaN equal to NaN and -0.0 to 0.0.
/// A null input gives null, or with `nulls_equal` whether the list holds a
/// null; nulls of the list match nothing else. Lowered to equalities (and
/// `is_nan` for NaN) joined by `or`, which every type runs.
pub(crate) fn membership(input: GpuExpr, values: &[Scalar], nulls_equal: bool) -> GpuExpr {
    let dtype = input.dtype;
    let boolean = GpuDtype::Boolean;
    let has_null = values.iter().any(|v| matches!(v, Scalar::Null));
    let mut exact: Vec<Scalar> = values
        .iter()
        .filter_map(|v| held_exactly(v, dtype))
        .collect();
    exact.dedup();
    let nan = exact
        .iter()
        .any(|v| matches!(v, Scalar::Float(f) if f.is_nan()));
    exact.retain(|v| !matches!(v, Scalar::Float(f) if f.is_nan()));
    let mut tests: Vec<GpuExpr> = exact
        .into_iter()
        .map(|v| {
            let value = GpuExpr::literal(v, dtype);
            input.clone().binary(BinaryOp::Eq, value, boolean)
        })
        .collect();
    if nan {
        tests.push(GpuExpr {
            kind: ExprKind::FloatCheck {
                check: FloatCheck::IsNan,
                input: Box::new(input.clone()),
            },
            dtype: boolean,
        });
    }
    let any = tests
        .into_iter()
        .reduce(|left, right| left.binary(BinaryOp::Or, right, boolean));
    let null_input = GpuExpr::literal(
        if nulls_equal {
            Scalar::Boolean(has_null)
        } else {
            Scalar::Null
        },
        boolean,
    );
    match any {
        // Null only where the input is null: there a fill gives the member test.
        Some(any) if nulls_equal => any.fill_null(null_input),
        Some(any) => any,
        None => input.is_null().then(
            null_input,
            GpuExpr::literal(Scalar::Boolean(false), boolean),
            boolean,
        ),
    }
}

/// The least and the greatest value of integer type `dtype`.
pub(crate) fn integer_range(dtype: GpuDtype) -> Option<(i128, i128)> {
    Some(match dtype {
        GpuDtype::Int8 => (i8::MIN.into(), i8::MAX.into()),
        GpuDtype::Int16 => (i16::MIN.into(), i16::MAX.into()),
        GpuDtype::Int32 => (i32::MIN.into(), i32::MAX.into()),
        GpuDtype::Int64 => (i64::MIN.into(), i64::MAX.into()),
        GpuDtype::UInt8 => (0, u8::MAX.into()),
        GpuDtype::UInt16 => (0, u16::MAX.into()),
        GpuDtype::UInt32 => (0, u32::MAX.into()),
        GpuDtype::UInt64 => (0, u64::MAX.into()),
        _ => return None,
    })
}

/// `value` as a value of `dtype`, if `dtype` holds it exactly.
pub(crate) fn held_exactly(value: &Scalar, dtype: GpuDtype) -> Option<Scalar> {
    let integer = |v: i128| -> Option<Scalar> {
        let (min, max): (i128, i128) = match dtype {
            GpuDtype::Float64 => {
                let f = v as f64;
                return (f as i128 == v).then_some(Scalar::Float(f));
            }
            GpuDtype::Float32 => {
                let f = v as f32;
                return (f as i128 == v).then_some(Scalar::Float(f.into()));
            }
            _ => integer_range(dtype)?,
        };
        if !(min..=max).contains(&v) {
            return None;
        }
        Some(if dtype.is_unsigned() {
            Scalar::UInt(v as u64)
        } else {
            Scalar::Int(v as i64)
        })
    };
    match (value, dtype) {
        (Scalar::Null, _) => None,
        (Scalar::Int(v), _) if dtype.is_numeric() => integer((*v).into()),
        (Scalar::UInt(v), _) if dtype.is_numeric() => integer((*v).into()),
        (Scalar::Float(f), GpuDtype::Float64) => Some(Scalar::Float(*f)),
        (Scalar::Float(f), GpuDtype::Float32) => {
            (f.is_nan() || f64::from(*f as f32) == *f).then_some(Scalar::Float(*f))
        }
        (Scalar::Float(f), _) if dtype.is_integer() => {
            (f.fract() == 0.0 && f.abs() < 2f64.powi(64)).then(|| integer(*f as i128))?
        }
        (Scalar::Boolean(_), GpuDtype::Boolean)
        | (Scalar::String(_), GpuDtype::String)
        | (Scalar::Date(_), GpuDtype::Date)
        | (Scalar::Datetime(_), GpuDtype::Datetime(_) | GpuDtype::ZonedDatetime(..))
        | (Scalar::Duration(_), GpuDtype::Duration(_))
        | (Scalar::Time(_), GpuDtype::Time)
        | (Scalar::UInt(_), GpuDtype::Categorical(_))
        // A decimal's scaled integer (of the column's scale: lowering checks).
        | (Scalar::Int(_), GpuDtype::Decimal(..)) => Some(value.clone()),
        _ => None,
    }
}

/// Polars' `eq_missing` (`equal`) or `ne_missing`: where either side is
/// null, whether both are (are not both), else `left == right`
/// (`left != right`); never null. A literal side is known null or not, so
/// against a value the answer is Kleene's `left is not null and left ==
/// value` (`left is null or left != value`), against null a null test.
/// Whether integer type `wide` holds every value of integer type `narrow`.
fn holds_every(wide: GpuDtype, narrow: GpuDtype) -> bool {
    match (integer_range(wide), integer_range(narrow)) {
        (Some((low, high)), Some((from, to))) => low <= from && to <= high,
        _ => false,
    }
}

pub(crate) fn null_aware_equality(left: GpuExpr, right: GpuExpr, equal: bool) -> GpuExpr {
    let boolean = GpuDtype::Boolean;
    let known_null = |e: &GpuExpr| match &e.kind {
        ExprKind::Literal(Scalar::Null) => Some(true),
        ExprKind::Literal(_) => Some(false),
        _ => None,
    };
    let (values, nulls) = if equal {
        (BinaryOp::Eq, BinaryOp::And)
    } else {
        (BinaryOp::NotEq, BinaryOp::Xor)
    };
    let known = (known_null(&left), known_null(&right));
    // Where one side is a literal, the other is the one tested.
    let literal_left = known.0.is_some();
    match known {
        (Some(false), Some(false)) => left.binary(values, right, boolean),
        (Some(left_null), Some(right_null)) => {
            let answer = (left_null == right_null) == equal;
            GpuExpr::literal(Scalar::Boolean(answer), boolean)
        }
        (Some(true), None) | (None, Some(true)) => {
            let other = if literal_left { right } else { left };
            if equal {
                other.is_null()
            } else {
                other.is_not_null()
            }
        }
        (Some(false), None) | (None, Some(false)) => {
            let other = if literal_left { &right } else { &left };
            let (test, join) = if equal {
                (other.clone().is_not_null(), BinaryOp::And)
            } else {
                (other.clone().is_null(), BinaryOp::Or)
            };
            test.binary(join, left.binary(values, right, boolean), boolean)
        }
        (None, None) => {
            let (left_null, right_null) = (left.clone().is_null(), right.clone().is_null());
            let either = left_null
                .clone()
                .binary(BinaryOp::Or, right_null.clone(), boolean);
            either.then(
                left_null.binary(nulls, right_null, boolean),
                left.binary(values, right, boolean),
                boolean,
            )
        }
    }
}

impl ExprLowering<'_> {
    pub(crate) fn boolean(
        &mut self,
        node: Node,
        inputs: &[ExprIR],
        function: &IRBooleanFunction,
    ) -> Lowered {
        use IRBooleanFunction as B;
        let kind = match function {
            B::IsNan | B::IsNotNan | B::IsFinite | B::IsInfinite => {
                let check = match function {
                    B::IsNan => FloatCheck::IsNan,
                    B::IsNotNan => FloatCheck::IsNotNan,
                    B::IsFinite => FloatCheck::IsFinite,
                    _ => FloatCheck::IsInfinite,
                };
                let input = self.single(inputs)?;
                if !matches!(input.dtype, GpuDtype::Float32 | GpuDtype::Float64) {
                    return self.refuse(
                        node,
                        format!("{check} of {} is not supported on the GPU", input.dtype),
                    );
                }
                ExprKind::FloatCheck {
                    check,
                    input: Box::new(input),
                }
            }
            B::IsUnique | B::IsDuplicated | B::IsFirstDistinct | B::IsLastDistinct => {
                let test = match function {
                    B::IsUnique => DistinctTest::Unique,
                    B::IsDuplicated => DistinctTest::Duplicated,
                    B::IsFirstDistinct => DistinctTest::FirstDistinct,
                    _ => DistinctTest::LastDistinct,
                };
                ExprKind::Distinct {
                    input: Box::new(self.single(inputs)?),
                    test,
                }
            }
            B::IsNull => ExprKind::IsNull(Box::new(self.single(inputs)?)),
            B::IsNotNull => ExprKind::IsNotNull(Box::new(self.single(inputs)?)),
            B::Not => ExprKind::Not(Box::new(self.single(inputs)?)),
            B::IsBetween { closed } => {
                let closed = match closed {
                    ClosedInterval::Both => Closed::Both,
                    ClosedInterval::Left => Closed::Left,
                    ClosedInterval::Right => Closed::Right,
                    ClosedInterval::None => Closed::None,
                };
                let [mut input, lower, upper] = self.exactly::<3>(node, inputs)?;
                let categorical = matches!(input.dtype, GpuDtype::Categorical(_));
                if let GpuDtype::Categorical(dictionary) = input.dtype {
                    // Polars orders a categorical by its texts.
                    let text = GpuDtype::String;
                    if dictionary.is_enum() || lower.dtype != text || upper.dtype != text {
                        return self.refuse(
                            node,
                            format!(
                                "is_between of {} with bounds of {} and {} is not supported on \
                                 the GPU",
                                input.dtype, lower.dtype, upper.dtype
                            ),
                        );
                    }
                    input = as_texts(input);
                }
                // Integers between bounds of a wider integer type (Polars
                // compares in their supertype: a u32 column between i64
                // literals): the input widened.
                if lower.dtype == upper.dtype
                    && input.dtype != lower.dtype
                    && holds_every(lower.dtype, input.dtype)
                {
                    input = input.cast(lower.dtype, CastMode::NonStrict);
                }
                if !categorical && (lower.dtype != input.dtype || upper.dtype != input.dtype) {
                    return self.refuse(
                        node,
                        format!(
                            "is_between of {} with bounds of {} and {} is not supported on the \
                             GPU",
                            input.dtype, lower.dtype, upper.dtype
                        ),
                    );
                }
                let literal = |e: &GpuExpr| matches!(e.kind, ExprKind::Literal(_));
                // (A text literal between bounds of each row, which Polars
                // broadcasts, compared with a literal bound: the device
                // compares texts of a column with a literal.)
                if input.dtype == GpuDtype::String
                    && literal(&input)
                    && (literal(&lower) || literal(&upper))
                {
                    return self.refuse(
                        node,
                        "is_between of a text literal with a literal bound is not supported on \
                         the GPU",
                    );
                }
                // What the predicate kernels test: a column of a type they
                // compare, between literals.
                let kernels_test = literal(&lower)
                    && literal(&upper)
                    && !categorical
                    && matches!(input.kind, ExprKind::Column { .. })
                    && crate::support::comparable(input.dtype);
                if !kernels_test {
                    // Bounds of the rows, a computed input, a type the
                    // predicate kernels do not compare (text, a
                    // categorical's texts): the two comparisons, and
                    // Kleene's and of them, as Polars answers (null and
                    // false is false). (The predicate kernels test columns
                    // between literals.)
                    let (low, high) = match closed {
                        Closed::Both => (BinaryOp::GtEq, BinaryOp::LtEq),
                        Closed::Left => (BinaryOp::GtEq, BinaryOp::Lt),
                        Closed::Right => (BinaryOp::Gt, BinaryOp::LtEq),
                        Closed::None => (BinaryOp::Gt, BinaryOp::Lt),
                    };
                    let boolean = GpuDtype::Boolean;
                    let above = input.clone().binary(low, lower, boolean);
                    let below = input.binary(high, upper, boolean);
                    return Some(above.binary(BinaryOp::And, below, boolean));
                }
                ExprKind::IsBetween {
                    input: Box::new(input),
                    lower: Box::new(lower),
                    upper: Box::new(upper),
                    closed,
                }
            }
            B::IsIn { nulls_equal } => {
                let nulls_equal = *nulls_equal;
                let input = self.boxed(inputs[0].node());
                let values = self.literal_list(inputs[1].node());
                if let (None, AExpr::Agg(IRAggExpr::Implode { input: other, .. })) =
                    (&values, self.arena.get(inputs[1].node()))
                {
                    let other = self.boxed(*other);
                    let (input, other) = (input?, other?);
                    if input.dtype != other.dtype {
                        return self
                            .refuse(node, format!("is_in of {} in {}", input.dtype, other.dtype));
                    }
                    // (Polars answers one value; the executor looks up
                    // each row's value.)
                    let per_row = |e: &GpuExpr| {
                        matches!(
                            e.kind,
                            ExprKind::Column {
                                held: Held::PerRow,
                                ..
                            }
                        )
                    };
                    // (Named as the user wrote them.)
                    let written = |at: usize| self.notation(inputs[at].node());
                    if other.has_aggregation() || other.has_window() {
                        let other = written(1);
                        return self.refuse(
                            node,
                            format!(
                                "is_in of a column in aggregated values (`{other}`) is not \
                                 supported on the GPU"
                            ),
                        );
                    }
                    if input.has_aggregation() || !input.any(&per_row) {
                        let input = written(0);
                        return self.refuse(
                            node,
                            format!(
                                "is_in of one value (`{input}`) in a column is not supported on \
                                 the GPU"
                            ),
                        );
                    }
                    return Some(GpuExpr {
                        kind: ExprKind::IsInColumn {
                            input,
                            other,
                            nulls_equal,
                        },
                        dtype: GpuDtype::Boolean,
                    });
                }
                let Some(values) = values else {
                    // A list per row (one item, a literal, in each).
                    let lists = self.expr(inputs[1].node());
                    if let Some(lists) = lists
                        && let GpuDtype::List(_) = lists.dtype
                    {
                        return self.in_lists(node, *input?, lists, nulls_equal);
                    }
                    return self.refuse(
                        node,
                        "is_in needs a literal list, an imploded column or a list column on the \
                         GPU",
                    );
                };
                return self.is_in_literal(node, *input?, values, nulls_equal);
            }
            B::AllHorizontal | B::AnyHorizontal => {
                // Kleene and (or) of booleans, left to right.
                let op = if matches!(function, B::AllHorizontal) {
                    BinaryOp::And
                } else {
                    BinaryOp::Or
                };
                let mut inputs = self.inputs(inputs)?.into_iter();
                let mut folded = inputs.next()?;
                for next in inputs {
                    if folded.dtype != GpuDtype::Boolean || next.dtype != GpuDtype::Boolean {
                        return self.refuse(node, format!("{function} of non-booleans"));
                    }
                    folded = GpuExpr {
                        kind: ExprKind::Binary {
                            op,
                            left: Box::new(folded),
                            right: Box::new(next),
                        },
                        dtype: GpuDtype::Boolean,
                    };
                }
                if folded.dtype != GpuDtype::Boolean {
                    return self.refuse(node, format!("{function} of non-booleans"));
                }
                return Some(folded);
            }
            B::Any { .. } | B::All { .. } | B::IsEmpty { .. } | B::HasNulls => {
                let [input] = inputs else {
                    return self.refuse(node, format!("{function} of several inputs"));
                };
                return self.boolean_aggregation(node, input.node(), function);
            }
            B::IsSorted { .. } => {
                return self.refuse(
                    node,
                    format!("function {function} is not supported on the GPU"),
                );
            }
            // What Polars features this workspace does not enable add (a
            // crate depending on ours may enable them): refused the same way.
            #[allow(unreachable_patterns)]
            _ => {
                return self.refuse(
                    node,
                    format!("function {function} is not supported on the GPU"),
                );
            }
        };
        let dtype = self.dtype(node)?;
        Some(GpuExpr { kind, dtype })
    }
}

impl ExprLowering<'_> {
    /// `input.is_in(values)` of a literal list of `list_dtype` (`node`):
    /// a categorical's codes or texts among the values' (see
    /// [`membership`]).
    pub(crate) fn is_in_literal(
        &mut self,
        node: Node,
        input: GpuExpr,
        (values, list_dtype): (Vec<Scalar>, GpuDtype),
        nulls_equal: bool,
    ) -> Lowered {
        if let GpuDtype::Categorical(dictionary) = input.dtype {
            // Texts (or the same dictionary's values) by their codes.
            let same = list_dtype == input.dtype;
            let codes = match list_dtype {
                GpuDtype::String => codes_of(dictionary, &values),
                _ if same => Some(values.clone()),
                _ => None,
            };
            return match codes {
                Some(codes) => Some(membership(input, &codes, nulls_equal)),
                // A categorical's texts among the texts.
                None if list_dtype == GpuDtype::String && !dictionary.is_enum() => {
                    Some(membership(as_texts(input), &values, nulls_equal))
                }
                None => self.refuse(
                    node,
                    format!("is_in of {} in a list of {list_dtype}", input.dtype),
                ),
            };
        }
        if (input.dtype.is_temporal() && list_dtype != input.dtype)
            || input.dtype.decimal_scale() != list_dtype.decimal_scale()
        {
            return self.refuse(
                node,
                format!("is_in of {} in a list of {list_dtype}", input.dtype),
            );
        }
        Some(membership(input, &values, nulls_equal))
    }
}
