//! Builders of GPU expressions: column reads, literals, operators, casts, choices and aggregations of others.

use super::*;

impl GpuExpr {
    /// A read of input column `index`, held one value per row.
    pub fn column(index: usize, name: impl Into<String>, dtype: GpuDtype) -> GpuExpr {
        GpuExpr {
            kind: ExprKind::Column {
                index,
                name: name.into(),
                held: Held::PerRow,
            },
            dtype,
        }
    }

    /// A literal of `dtype`.
    pub fn literal(value: Scalar, dtype: GpuDtype) -> GpuExpr {
        GpuExpr {
            kind: ExprKind::Literal(value),
            dtype,
        }
    }

    /// `self`, of the Null type, as nulls of `dtype`: one a row (not one
    /// literal value, which the frame would repeat), as Polars casts them.
    pub fn nulls_as(self, dtype: GpuDtype) -> GpuExpr {
        let null = GpuExpr::literal(Scalar::Null, dtype);
        self.is_null().then(null.clone(), null, dtype)
    }

    /// `self` as `dtype` as Polars casts it to a supertype: as it is where
    /// it has that type, nulls of it where of the Null type
    /// ([`Self::nulls_as`]), else cast not strictly.
    pub fn cast_or_nulls(self, dtype: GpuDtype) -> GpuExpr {
        match self.dtype {
            found if found == dtype => self,
            GpuDtype::Null => self.nulls_as(dtype),
            _ => self.cast(dtype, CastMode::NonStrict),
        }
    }

    /// `self` shifted by `periods` rows (Polars' `shift`), of its type.
    pub fn shifted(self, periods: i64) -> GpuExpr {
        GpuExpr {
            dtype: self.dtype,
            kind: ExprKind::Shift {
                input: Box::new(self),
                periods,
            },
        }
    }

    /// `self op right`, of `dtype`.
    pub fn binary(self, op: BinaryOp, right: GpuExpr, dtype: GpuDtype) -> GpuExpr {
        GpuExpr {
            kind: ExprKind::Binary {
                op,
                left: Box::new(self),
                right: Box::new(right),
            },
            dtype,
        }
    }

    /// `when(self).then(truthy).otherwise(falsy)`, of `dtype`.
    pub fn then(self, truthy: GpuExpr, falsy: GpuExpr, dtype: GpuDtype) -> GpuExpr {
        GpuExpr {
            kind: ExprKind::Ternary {
                predicate: Box::new(self),
                truthy: Box::new(truthy),
                falsy: Box::new(falsy),
            },
            dtype,
        }
    }

    /// `f` of `self`, an aggregation's input; of the rows kept, where a
    /// filter keeps them (the filter stays the input of the aggregation).
    pub fn within_filter(self, f: impl Fn(GpuExpr) -> GpuExpr) -> GpuExpr {
        match self.kind {
            ExprKind::Where { input, by } => {
                let kept = f(*input);
                GpuExpr {
                    dtype: kept.dtype,
                    kind: ExprKind::Where {
                        input: Box::new(kept),
                        by,
                    },
                }
            }
            kind => f(GpuExpr {
                kind,
                dtype: self.dtype,
            }),
        }
    }

    /// `self` cast to `dtype` (nothing to do when it already is).
    pub fn cast(self, dtype: GpuDtype, mode: CastMode) -> GpuExpr {
        if self.dtype == dtype {
            return self;
        }
        GpuExpr {
            kind: ExprKind::Cast {
                input: Box::new(self),
                mode,
            },
            dtype,
        }
    }

    /// The aggregation `op` of `self`, of `dtype`.
    pub fn aggregated(self, op: AggOp, dtype: GpuDtype) -> GpuExpr {
        GpuExpr {
            kind: ExprKind::Agg {
                op,
                input: Box::new(self),
            },
            dtype,
        }
    }

    /// `self.is_null()`.
    pub fn is_null(self) -> GpuExpr {
        GpuExpr {
            kind: ExprKind::IsNull(Box::new(self)),
            dtype: GpuDtype::Boolean,
        }
    }

    /// `self.is_not_null()`.
    pub fn is_not_null(self) -> GpuExpr {
        GpuExpr {
            kind: ExprKind::IsNotNull(Box::new(self)),
            dtype: GpuDtype::Boolean,
        }
    }

    /// `self.fill_null(value)`, of `self`'s type.
    pub fn fill_null(self, value: GpuExpr) -> GpuExpr {
        let dtype = self.dtype;
        GpuExpr {
            kind: ExprKind::FillNull {
                input: Box::new(self),
                value: Box::new(value),
            },
            dtype,
        }
    }
}
