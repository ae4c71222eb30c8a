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

    /// `self` over the windows of `partition_by`, each group's rows in the
    /// order of `order_by` (Polars' `over`), of `self`'s type. Text made
    /// row by row at its top (a `when/then`, `fill_null`, `concat_str` or
    /// string operation) is that function of its inputs instead, each input
    /// that aggregates or reads other rows a window of its own: `over` gives
    /// each row the function of its own row's inputs, so the two agree, and
    /// the executor makes text of a window's group only where the function
    /// at the top aggregates or moves values.
    pub fn over(self, partition_by: Vec<GpuExpr>, order_by: Option<RowOrder>) -> GpuExpr {
        let distributes = self.dtype == GpuDtype::String
            && matches!(
                self.kind,
                ExprKind::Ternary { .. }
                    | ExprKind::FillNull { .. }
                    | ExprKind::ConcatStr { .. }
                    | ExprKind::String { .. }
            );
        if !distributes {
            return GpuExpr {
                dtype: self.dtype,
                kind: ExprKind::Window {
                    function: Box::new(self),
                    partition_by,
                    order_by,
                },
            };
        }
        let mut distributed = self;
        for input in distributed.children_mut() {
            input.windowed(&partition_by, order_by.as_ref());
        }
        distributed
    }

    /// `self` as a window of `partition_by` and `order_by` (see
    /// [`Self::over`]) where it aggregates or reads other rows, else as it
    /// is; of a cast of such a part, the cast of the window (each row's
    /// value cast, as text too: fuzz seed 5081, case 102).
    fn windowed(&mut self, partition_by: &[GpuExpr], order_by: Option<&RowOrder>) {
        if !(self.has_aggregation() || self.has_part_reading_other_rows()) {
            return;
        }
        if let ExprKind::Cast { input, .. } = &mut self.kind
            && (input.has_aggregation() || input.has_part_reading_other_rows())
        {
            return input.windowed(partition_by, order_by);
        }
        let function = std::mem::replace(self, GpuExpr::literal(Scalar::Null, self.dtype));
        *self = function.over(partition_by.to_vec(), order_by.cloned());
    }
}
