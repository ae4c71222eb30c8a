//! Literals and constants: their values, the constants Polars folds, and literal arguments of functions.

use super::*;

/// Whether `node` is computed from literals alone (no column, no `len()`,
/// no window, no user function) by elementwise functions, aggregations,
/// functions of the rows in order that keep the length (a shift, a running
/// sum, a fill, a rank) and sorts. Polars takes a literal below these as
/// one value over the frame and, by context, as one value or as the
/// group's rows per group: [`ExprLowering::folded`] computes such a
/// constant only where both agree (a sort by other values, a gather, do
/// not keep the one value's place: they are no constants).
pub(crate) fn is_constant(node: Node, arena: &Arena<AExpr>) -> bool {
    use polars_plan::plans::ArenaExprIter;
    arena.iter(node).all(|(_, e)| match e {
        AExpr::Function { options, .. } => {
            options.is_elementwise()
                || options.flags.returns_scalar()
                || options.flags.is_length_preserving()
        }
        AExpr::Sort { .. } => true,
        AExpr::SortBy { .. } | AExpr::Gather { .. } => false,
        other => !reads_the_frame(other),
    })
}

/// Whether the expression node `e` reads the frame it is evaluated over: a
/// column, its length, a list's element, a window, a user's function or an
/// evaluation within lists or structs.
pub(crate) fn reads_the_frame(e: &AExpr) -> bool {
    matches!(
        e,
        AExpr::Column(_)
            | AExpr::Len
            | AExpr::Element
            | AExpr::Over { .. }
            | AExpr::AnonymousFunction { .. }
            | AExpr::AnonymousAgg { .. }
            | AExpr::Eval { .. }
            | AExpr::StructEval { .. }
    )
}

/// `value` as a number or temporal of `dtype`, as Polars' `AnyValue::extract`
/// converts it (`None` where it does not fit).
pub(crate) fn extracted(value: &AnyValue<'_>, dtype: GpuDtype) -> Option<Scalar> {
    Some(match dtype {
        GpuDtype::Int8 => Scalar::Int(value.extract::<i8>()?.into()),
        GpuDtype::Int16 => Scalar::Int(value.extract::<i16>()?.into()),
        GpuDtype::Int32 => Scalar::Int(value.extract::<i32>()?.into()),
        GpuDtype::Int64 => Scalar::Int(value.extract::<i64>()?),
        GpuDtype::UInt8 => Scalar::UInt(value.extract::<u8>()?.into()),
        GpuDtype::UInt16 => Scalar::UInt(value.extract::<u16>()?.into()),
        GpuDtype::UInt32 => Scalar::UInt(value.extract::<u32>()?.into()),
        GpuDtype::UInt64 => Scalar::UInt(value.extract::<u64>()?),
        GpuDtype::Float32 => Scalar::Float(value.extract::<f32>()?.into()),
        GpuDtype::Float64 => Scalar::Float(value.extract::<f64>()?),
        GpuDtype::Date => Scalar::Date(value.extract::<i32>()?),
        GpuDtype::Datetime(_) | GpuDtype::ZonedDatetime(..) => {
            Scalar::Datetime(value.extract::<i64>()?)
        }
        GpuDtype::Duration(_) => Scalar::Duration(value.extract::<i64>()?),
        GpuDtype::Time => Scalar::Time(value.extract::<i64>()?),
        // A decimal literal of this scale, its scaled integer (an i64).
        GpuDtype::Decimal(_, scale) => match value {
            AnyValue::Decimal(v, _, s) if *s == usize::from(scale) => {
                Scalar::Int(i64::try_from(*v).ok()?)
            }
            _ => return None,
        },
        GpuDtype::Boolean
        | GpuDtype::Null
        | GpuDtype::String
        | GpuDtype::Categorical(_)
        | GpuDtype::List(_)
        | GpuDtype::Struct(_) => return None,
    })
}

/// The type of a literal's value; `None` for a category's, of which
/// Polars' `AnyValue::dtype` knows none (it panics).
pub(crate) fn value_dtype(value: &AnyValue<'_>) -> Option<DataType> {
    match value {
        AnyValue::Categorical(..)
        | AnyValue::CategoricalOwned(..)
        | AnyValue::Enum(..)
        | AnyValue::EnumOwned(..) => None,
        value => Some(value.dtype()),
    }
}

/// A Polars value as a literal of the GPU plan (a category by its code, a
/// decimal by its scaled integer); an error naming the value's type where
/// the GPU holds none such.
pub fn any_value_to_scalar(value: &AnyValue<'_>) -> Result<Scalar, String> {
    Ok(match value {
        AnyValue::Null => Scalar::Null,
        AnyValue::Boolean(v) => Scalar::Boolean(*v),
        AnyValue::Int8(v) => Scalar::Int((*v).into()),
        AnyValue::Int16(v) => Scalar::Int((*v).into()),
        AnyValue::Int32(v) => Scalar::Int((*v).into()),
        AnyValue::Int64(v) => Scalar::Int(*v),
        AnyValue::UInt8(v) => Scalar::UInt((*v).into()),
        AnyValue::UInt16(v) => Scalar::UInt((*v).into()),
        AnyValue::UInt32(v) => Scalar::UInt((*v).into()),
        AnyValue::UInt64(v) => Scalar::UInt(*v),
        AnyValue::Float32(v) => Scalar::Float((*v).into()),
        AnyValue::Float64(v) => Scalar::Float(*v),
        AnyValue::String(v) => Scalar::String((*v).to_owned()),
        AnyValue::StringOwned(v) => Scalar::String(v.to_string()),
        AnyValue::Date(v) => Scalar::Date(*v),
        AnyValue::Datetime(v, _, _) | AnyValue::DatetimeOwned(v, _, _) => Scalar::Datetime(*v),
        AnyValue::Duration(v, _) => Scalar::Duration(*v),
        AnyValue::Time(v) => Scalar::Time(*v),
        // A category, by its code (its dictionary is the literal's type).
        AnyValue::Categorical(code, _)
        | AnyValue::CategoricalOwned(code, _)
        | AnyValue::Enum(code, _)
        | AnyValue::EnumOwned(code, _) => Scalar::UInt((*code).into()),
        // A decimal, by its scaled integer (its scale is the literal's type),
        // where an i64 holds it.
        AnyValue::Decimal(v, _, _) => Scalar::Int(i64::try_from(*v).map_err(|_| {
            format!(
                "the decimal literal {value} needs more than 18 digits (the GPU holds decimals as \
                 64-bit integers)"
            )
        })?),
        other => {
            return Err(format!(
                "a literal of type {} is not supported on the GPU",
                other.dtype()
            ));
        }
    })
}

impl ExprLowering<'_> {
    /// A constant expression (no column, no `len()`: literals and what
    /// functions make of them) that Polars holds as one value, computed by
    /// Polars itself into a literal: Polars takes a literal as one value,
    /// not as a column, so `lit(-2).shift(1)` is null and `lit("z").count()`
    /// is 1 (also per group). `None` when `node` is no such expression (a
    /// literal itself included); `Some(None)` when Polars raises on it (it
    /// is refused, so that Polars raises its error).
    pub(crate) fn folded(&mut self, node: Node) -> Option<Lowered> {
        if matches!(self.arena.get(node), AExpr::Literal(_)) || !is_constant(node, self.arena) {
            return None;
        }
        if !polars_plan::plans::is_scalar_ae(node, self.arena) {
            return None;
        }
        // Per group, `is_empty` of a literal is its group's (a rolling
        // window of no row is empty): lowered as the group's length (see
        // `boolean_aggregation`), not folded over groups of rows.
        let is_empty = |e: &AExpr| {
            matches!(
                e,
                AExpr::Function {
                    function: IRFunctionExpr::Boolean(IRBooleanFunction::IsEmpty { .. }),
                    ..
                }
            )
        };
        if self.per_group && self.arena.iter(node).any(|(_, e)| is_empty(e)) {
            return None;
        }
        // Over a frame of one row, as Polars meets it in a query (its
        // literal arithmetic panics on some values of no frame at all).
        let expr = polars_plan::plans::node_to_expr(node, self.arena);
        // Grouped by `k`: over one group, or over two (of one row and of
        // two), as Polars takes a constant otherwise by how many groups
        // there are (`lit("É").str.to_date(..).slice(0, 2).arg_min()`).
        let computed = |groups: Option<&[i32]>| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let keys = groups.unwrap_or(&[0]);
                let frame = polars::prelude::DataFrame::new(
                    keys.len(),
                    vec![polars::prelude::Column::new("k".into(), keys)],
                )?;
                // (Without simplification, whose literal arithmetic panics
                // on an integer division by zero where the engine gives null.)
                let lf = polars::prelude::IntoLazy::lazy(frame).with_simplify_expr(false);
                let constant = expr.clone().alias("constant");
                match groups {
                    Some(_) => lf
                        .group_by([polars::prelude::col("k")])
                        .agg([constant])
                        .select([polars::prelude::col("constant")])
                        .collect(),
                    None => lf.select([constant]).collect(),
                }
            }))
        };
        let column = match computed(None) {
            Ok(Ok(df)) if df.height() == 1 => df.columns()[0].as_materialized_series().clone(),
            // Polars panics on it, or it is no one value: lowered as it is.
            Err(_) | Ok(Ok(_)) => return None,
            Ok(Err(e)) => return Some(self.refuse(node, format!("Polars raises on it: {e}"))),
        };
        // Polars takes some aggregations of literals its own way per group
        // (`lit(NULL).all()` is false there): a constant whose value per
        // group is another is its own, whichever way it is met.
        let same_per_group = |keys: &[i32], groups: usize| match computed(Some(keys)) {
            Ok(Ok(df)) if df.height() == groups => {
                let values = df.columns()[0].as_materialized_series();
                (0..groups).all(|i| values.slice(i as i64, 1).equals_missing(&column))
            }
            _ => false,
        };
        if !(same_per_group(&[0], 1) && same_per_group(&[0, 1, 1], 2)) {
            return Some(self.refuse(
                node,
                "a constant Polars computes otherwise per group than over the frame",
            ));
        }
        let dtype = self.dtype(node);
        let (Some(dtype), Some(polars_dtype)) = (dtype, self.polars_dtype(node)) else {
            return Some(None);
        };
        // Polars' plan and its engine disagree on the type (dynamic integers
        // that the plan types by the first and the engine widens by the
        // second): the query's answer is the engine's, in its type.
        if !column.dtype().is_null() && column.dtype() != &polars_dtype {
            return Some(self.refuse(
                node,
                format!(
                    "a constant Polars plans as {dtype} and computes as {}",
                    column.dtype()
                ),
            ));
        }
        // Strictly: a value that does not fit the planned type (a dynamic
        // integer Polars computes wider) is no null; Polars raises on it
        // where it casts it, as `clip` does its bounds.
        let value = column
            .strict_cast(&polars_dtype)
            .map_err(|_| {
                format!(
                    "the constant {} does not fit {dtype}, the type planned for it",
                    column.get(0).map_or_else(|_| "?".into(), |v| v.to_string())
                )
            })
            .and_then(|column| {
                column
                    .get(0)
                    .map(|v| v.into_static())
                    .map_err(|e| e.to_string())
            });
        // A list (`lit("a b").str.split(" ")`): a list literal of its values.
        if let Ok(AnyValue::List(values)) = &value {
            return Some(self.list_literal(node, values));
        }
        Some(match value.and_then(|value| any_value_to_scalar(&value)) {
            Ok(scalar) => Some(GpuExpr {
                kind: ExprKind::Literal(scalar),
                dtype,
            }),
            Err(reason) => self.refuse(node, reason),
        })
    }

    pub(crate) fn literal(&mut self, node: Node, value: &LiteralValue) -> Lowered {
        let scalar = match value {
            LiteralValue::Scalar(scalar) if let AnyValue::List(values) = scalar.value() => {
                return self.list_literal(node, values);
            }
            LiteralValue::Scalar(scalar) => match any_value_to_scalar(scalar.value()) {
                Ok(scalar) => scalar,
                Err(reason) => return self.refuse(node, reason),
            },
            LiteralValue::Dyn(_) => {
                // Polars materialises dynamic literals during optimisation; one
                // left over is taken at its resolved type.
                let dtype = self.dtype(node)?;
                match value.to_any_value() {
                    Some(value) => match any_value_to_scalar(&value) {
                        Ok(scalar) => {
                            return Some(GpuExpr {
                                kind: ExprKind::Literal(scalar),
                                dtype,
                            });
                        }
                        Err(reason) => return self.refuse(node, reason),
                    },
                    None => return self.refuse(node, "the literal has no value"),
                }
            }
            LiteralValue::Series(_) => {
                return self.refuse(
                    node,
                    "a Series literal inside an expression (but as a whole column of a select \
                     or with_columns, or the values of is_in or replace) is not supported on \
                     the GPU",
                );
            }
            LiteralValue::Range(_) => {
                return self.refuse(node, "range literals are not supported on the GPU");
            }
        };
        let dtype = self.dtype(node)?;
        Some(GpuExpr {
            kind: ExprKind::Literal(scalar),
            dtype,
        })
    }

    /// A list literal (`lit([1, 2])`, one list, repeated on every row):
    /// the list of its values' literals (`concat_list`), of one to 64
    /// values of a type lists hold.
    fn list_literal(&mut self, node: Node, values: &Series) -> Lowered {
        use super::made_lists::MOST_LISTED;
        let dtype = self.dtype(node)?;
        let GpuDtype::List(of) = dtype else {
            return self.refuse(node, format!("a list literal of type {dtype}"));
        };
        if values.is_empty() || values.len() > MOST_LISTED {
            return self.refuse(
                node,
                format!(
                    "a list literal of {} values is not supported on the GPU (1 to {MOST_LISTED} \
                     are)",
                    values.len()
                ),
            );
        }
        let literals: Result<Vec<GpuExpr>, String> = values
            .iter()
            .map(|value| {
                let scalar = any_value_to_scalar(&value)?;
                Ok(GpuExpr::literal(scalar, of.values()))
            })
            .collect();
        match literals {
            Ok(literals) => Some(GpuExpr {
                kind: ExprKind::ConcatList(literals),
                dtype,
            }),
            Err(reason) => self.refuse(node, reason),
        }
    }

    /// `lowered`, the lowering of `node`, as a literal of `dtype` where
    /// `node` is a dynamic literal (`lit(-2)`) of another type that holds
    /// its value; else as it is.
    pub(crate) fn dynamic_literal_as(
        &self,
        node: Node,
        lowered: Box<GpuExpr>,
        dtype: GpuDtype,
    ) -> Box<GpuExpr> {
        if lowered.dtype == dtype
            || !matches!(self.arena.get(node), AExpr::Literal(LiteralValue::Dyn(_)))
        {
            return lowered;
        }
        match self
            .literal_value(node)
            .and_then(|value| extracted(&value, dtype))
        {
            Some(scalar) => Box::new(GpuExpr {
                kind: ExprKind::Literal(scalar),
                dtype,
            }),
            None => lowered,
        }
    }

    pub(crate) fn literal_value(&self, node: Node) -> Option<AnyValue<'static>> {
        match self.arena.get(node) {
            AExpr::Literal(value) => value.to_any_value().map(|v| v.into_static()),
            _ => None,
        }
    }

    /// The value of `node` when it is a literal, or a cast of one (cast as
    /// Polars casts it); `None` for anything else, or a cast that fails.
    pub(crate) fn constant(&self, node: Node) -> Option<AnyValue<'static>> {
        match self.arena.get(node) {
            AExpr::Cast {
                expr,
                dtype,
                options,
            } => {
                let value = self.constant(*expr)?;
                let scalar = polars_core::scalar::Scalar::new(value_dtype(&value)?, value);
                let cast = scalar.cast_with_options(dtype, *options).ok()?;
                Some(cast.value().clone().into_static())
            }
            _ => self.literal_value(node),
        }
    }

    /// The count of a shift: a literal integer, not null.
    pub(crate) fn literal_periods(&self, node: Node) -> Option<i64> {
        match self.literal_value(node)? {
            AnyValue::Null => None,
            value => value.extract::<i64>(),
        }
    }

    pub(crate) fn literal_str(&self, node: Node) -> Option<String> {
        match self.literal_value(node)? {
            AnyValue::String(s) => Some(s.to_owned()),
            AnyValue::StringOwned(s) => Some(s.to_string()),
            _ => None,
        }
    }

    /// Whether `node` is a null literal, or a null literal cast to a type.
    pub(crate) fn is_null_literal(&self, node: Node) -> bool {
        match self.arena.get(node) {
            AExpr::Cast { expr, .. } => self.is_null_literal(*expr),
            _ => matches!(self.literal_value(node), Some(AnyValue::Null)),
        }
    }

    pub(crate) fn literal_i64(&self, node: Node) -> Option<i64> {
        self.literal_value(node)?.extract::<i64>()
    }

    pub(crate) fn literal_f64(&self, node: Node) -> Option<f64> {
        self.literal_value(node)?.extract::<f64>()
    }

    /// A literal length: `Some(None)` for null (to the end).
    pub(crate) fn literal_optional_u64(&self, node: Node) -> Option<Option<u64>> {
        match self.literal_value(node)? {
            AnyValue::Null => Some(None),
            value => value.extract::<u64>().map(Some),
        }
    }

    /// The values of a literal list (a Series literal or a list scalar),
    /// and their type.
    pub(crate) fn literal_list(&self, node: Node) -> Option<(Vec<Scalar>, GpuDtype)> {
        let series: Series = match self.arena.get(node) {
            AExpr::Literal(LiteralValue::Series(series)) => (**series).clone(),
            AExpr::Literal(LiteralValue::Scalar(scalar)) => match scalar.value() {
                AnyValue::List(series) => series.clone(),
                _ => return None,
            },
            _ => return None,
        };
        let dtype = GpuDtype::from_polars(series.dtype()).ok()?;
        let values = series
            .iter()
            .map(|value| any_value_to_scalar(&value).ok())
            .collect::<Option<_>>()?;
        Some((values, dtype))
    }
}
