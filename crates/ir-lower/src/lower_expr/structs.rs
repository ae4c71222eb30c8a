//! Lowering of structs: `pl.struct` of expressions, `struct.field` of a struct, its fields renamed, replaced, added (`struct.with_fields`) and dropped.

use super::*;

/// What the GPU does with structs, for the reasons that refuse the rest.
pub(crate) const STRUCTS_ON_THE_GPU: &str = "the GPU holds struct columns, builds them by \
                                             `pl.struct`, unnests them, reads their fields by \
                                             `struct.field`, renames them, replaces, adds and \
                                             drops fields (`struct.with_fields`, \
                                             `struct.drop`), tests them for \
                                             nulls, counts them, picks the first or last per \
                                             group, moves them to other rows (`shift`, \
                                             `reverse`, `gather`, `sort_by`, fills, of window \
                                             groups too), chooses them row by row \
                                             (`when/then/otherwise`, `fill_null`), and groups, \
                                             sorts and joins rows by \
                                             structs of keys";

impl ExprLowering<'_> {
    /// A function of the `struct` namespace: `struct.field` (by name).
    pub(crate) fn struct_function(
        &mut self,
        node: Node,
        inputs: &[ExprIR],
        function: &IRStructFunction,
    ) -> Lowered {
        if let IRStructFunction::RenameFields(_)
        | IRStructFunction::PrefixFields(_)
        | IRStructFunction::SuffixFields(_) = function
        {
            return self.renamed_fields(node, inputs);
        }
        if let IRStructFunction::DropFields(..) = function {
            return self.dropped_fields(node, inputs);
        }
        let IRStructFunction::FieldByName(name) = function else {
            return self.refuse(
                node,
                format!(
                    "function {function} is not supported on the GPU yet \
                     ({STRUCTS_ON_THE_GPU})"
                ),
            );
        };
        let input = self.single(inputs)?;
        let GpuDtype::Struct(of) = input.dtype else {
            return self.refuse(node, format!("struct.field of {}", input.dtype));
        };
        let Some(field) = of
            .fields()
            .iter()
            .position(|(field, _)| field == name.as_str())
        else {
            return self.refuse(node, format!("no field {name:?} in {}", input.dtype));
        };
        let dtype = self.dtype(node)?;
        if dtype.is_nested() {
            // (The executor copies fields of flat types.)
            return self.refuse(
                node,
                format!("the field {name:?} of {dtype} is not supported on the GPU"),
            );
        }
        Some(GpuExpr {
            kind: ExprKind::StructField {
                field,
                name: name.to_string(),
                input: Box::new(input),
            },
            dtype,
        })
    }

    /// `struct.rename_fields` (`prefix_fields`, `suffix_fields`) of the
    /// struct at `inputs`: the same struct under the names of Polars' plan,
    /// its nulls kept (a cast the executor takes as a new name for the
    /// same values, see `is_renamed_struct`).
    fn renamed_fields(&mut self, node: Node, inputs: &[ExprIR]) -> Lowered {
        let input = self.single(inputs)?;
        let dtype = self.dtype(node)?;
        let renamed = GpuExpr {
            kind: ExprKind::Cast {
                input: Box::new(input),
                mode: CastMode::NonStrict,
            },
            dtype,
        };
        if !is_renamed_struct(&renamed) {
            return self.refuse(
                node,
                format!("struct fields renamed as {dtype} is not supported on the GPU"),
            );
        }
        Some(renamed)
    }

    /// `struct.with_fields(evaluation)` of the struct `expr`: the struct's
    /// fields in order, each replaced by the expression of its name, then
    /// the expressions of other names as new fields (two expressions of
    /// one name: Polars raises), null where the struct is. The
    /// expressions read the struct's fields by `pl.field(name)` and the
    /// frame's columns. Fields of lists or structs stay with Polars (the
    /// executor copies fields of flat types).
    pub(crate) fn with_fields(&mut self, node: Node, expr: Node, evaluation: &[ExprIR]) -> Lowered {
        let input = self.expr(expr)?;
        let dtype = self.dtype(node)?;
        let (GpuDtype::Struct(_), GpuDtype::Struct(out)) = (input.dtype, dtype) else {
            return self.refuse(
                node,
                format!("struct.with_fields of {} into {dtype}", input.dtype),
            );
        };
        // The expressions see the frame's columns and, after them, the
        // struct (as Polars' planner gives them it).
        let mut schema = self.schema.clone();
        schema.insert(
            polars_plan::constants::get_pl_structfields_name(),
            self.polars_dtype(expr)?,
        );
        let mut inner = ExprLowering {
            arena: self.arena,
            schema: &schema,
            one_row: self.one_row.clone(),
            refusals: &mut *self.refusals,
            per_group: self.per_group,
            unsliced: self.unsliced,
            unfiltered: self.unfiltered,
            nulled: self.nulled.clone(),
            substituted: self.substituted.clone(),
            fields_of: Some(input.clone()),
            scalar_columns: self.scalar_columns.clone(),
            constant_windows: None,
        };
        let evaluated: Vec<GpuExpr> = evaluation
            .iter()
            .map(|e| inner.expr(e.node()))
            .collect::<Option<_>>()?;
        let mut fields = Vec::new();
        for (name, field_dtype) in out.fields() {
            let given = evaluation
                .iter()
                .zip(&evaluated)
                .find(|(e, _)| e.output_name() == name.as_str());
            let field = match given {
                Some((_, field)) => field.clone(),
                None => match field_of(&input, &name) {
                    Some(field) => field,
                    None => {
                        return self.refuse(node, format!("no field {name:?} in {}", input.dtype));
                    }
                },
            };
            if field.dtype != field_dtype || field_dtype.is_nested() || field.has_aggregation() {
                return self.refuse(
                    node,
                    format!(
                        "struct.with_fields of `{field}` as the field {name:?} of {dtype} is not \
                         supported on the GPU"
                    ),
                );
            }
            fields.push(field);
        }
        Some(rebuilt(input, fields, dtype))
    }

    /// `struct.drop(names)`: the struct of the other fields (of the plan's
    /// type, in order), null where the struct is (fields of lists or
    /// structs kept stay with Polars).
    fn dropped_fields(&mut self, node: Node, inputs: &[ExprIR]) -> Lowered {
        let input = self.single(inputs)?;
        let dtype = self.dtype(node)?;
        let kept = match dtype {
            GpuDtype::Struct(out) => out
                .fields()
                .iter()
                .map(|(name, dtype)| field_of(&input, name).filter(|_| !dtype.is_nested()))
                .collect::<Option<Vec<_>>>(),
            _ => None,
        };
        let Some(fields) = kept.filter(|fields| !fields.is_empty()) else {
            return self.refuse(
                node,
                format!(
                    "struct.drop of {} into {dtype} is not supported on the GPU",
                    input.dtype
                ),
            );
        };
        Some(rebuilt(input, fields, dtype))
    }

    /// `pl.field(name)` inside `struct.with_fields`: that field of the
    /// struct.
    pub(crate) fn field_of_with_fields(&mut self, node: Node, name: &PlSmallStr) -> Lowered {
        let Some(input) = self.fields_of.clone() else {
            return self.refuse(node, "pl.field outside struct.with_fields");
        };
        match field_of(&input, name) {
            Some(field) => Some(field),
            None => self.refuse(node, format!("no field {name:?} in {}", input.dtype)),
        }
    }

    /// `pl.struct` of `inputs`: a struct of one field per input.
    pub(crate) fn make_struct(&mut self, node: Node, inputs: &[ExprIR]) -> Lowered {
        let fields = self.inputs(inputs)?;
        let dtype = self.dtype(node)?;
        Some(GpuExpr {
            kind: ExprKind::MakeStruct(fields),
            dtype,
        })
    }
}

/// The struct `input` rebuilt of `fields` (of `dtype`): null where
/// `input` is, which a struct made (`pl.struct`) never is.
fn rebuilt(input: GpuExpr, fields: Vec<GpuExpr>, dtype: GpuDtype) -> GpuExpr {
    let kind = match input.kind {
        ExprKind::MakeStruct(_) => ExprKind::MakeStruct(fields),
        _ => ExprKind::WithFields {
            input: Box::new(input),
            fields,
        },
    };
    GpuExpr { kind, dtype }
}

/// The field `name` of the struct `input` (`struct.field`); `None` where
/// it has none.
fn field_of(input: &GpuExpr, name: &str) -> Option<GpuExpr> {
    let GpuDtype::Struct(of) = input.dtype else {
        return None;
    };
    let (field, (_, dtype)) = of
        .fields()
        .into_iter()
        .enumerate()
        .find(|(_, (field, _))| field == name)?;
    Some(GpuExpr {
        kind: ExprKind::StructField {
            field,
            name: name.to_string(),
            input: Box::new(input.clone()),
        },
        dtype,
    })
}

/// Whether `expr` is a cast of structs to structs of the same field types
/// in the same order, their names alone other: the same values.
pub fn is_renamed_struct(expr: &GpuExpr) -> bool {
    let ExprKind::Cast { input, .. } = &expr.kind else {
        return false;
    };
    let (GpuDtype::Struct(from), GpuDtype::Struct(to)) = (input.dtype, expr.dtype) else {
        return false;
    };
    let types = |of: crate::dtype::StructOf| -> Vec<GpuDtype> {
        of.fields().into_iter().map(|(_, dtype)| dtype).collect()
    };
    types(from) == types(to)
}
