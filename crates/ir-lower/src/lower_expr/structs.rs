//! Lowering of structs: `pl.struct` of expressions and `struct.field` of a struct.

use super::*;

/// What the GPU does with structs, for the reasons that refuse the rest.
pub(crate) const STRUCTS_ON_THE_GPU: &str = "the GPU holds struct columns, builds them by \
                                             `pl.struct`, unnests them, reads their fields by \
                                             `struct.field`, counts them and picks the first \
                                             or last per group";

impl ExprLowering<'_> {
    /// A function of the `struct` namespace: `struct.field` (by name).
    pub(crate) fn struct_function(
        &mut self,
        node: Node,
        inputs: &[ExprIR],
        function: &IRStructFunction,
    ) -> Lowered {
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
