//! ir-lower's unary functions of numbers against the kernel's: the same names and numbers, read from both.

use ir_lower::UnaryFunction;

const EXPR_CU: &str = include_str!("../../../../kernels/cuda/expr.cu");

#[test]
fn unary_functions_are_numbered_as_the_kernel_numbers_them() {
    let rust: Vec<(String, u32)> = UnaryFunction::ALL
        .iter()
        .map(|&function| {
            let name = format!("F_{}", function.name().to_uppercase());
            (name, function as u32)
        })
        .collect();
    assert_eq!(kernels::c_enum(EXPR_CU, "enum Function : u32 {"), rust);
}
