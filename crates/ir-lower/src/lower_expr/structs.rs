//! Lowering of structs: `pl.struct` of expressions, `struct.field` of a struct, and its fields renamed.

use super::*;

/// What the GPU does with structs, for the reasons that refuse the rest.
pub(crate) const STRUCTS_ON_THE_GPU: &str = "the GPU holds struct columns, builds them by \
                                             `pl.struct`, unnests them, reads their fields by \
                                             `struct.field`, renames them, tests them for \
                                             nulls, counts them, picks the first or last per \
                                             group, and groups, sorts and joins rows by \
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
