//! Operations of the expression evaluator (`kernels/cuda/expr.cu`): one fused launch per expression program.

use super::*;

/// Element types the evaluator reads.
pub trait Valued: DeviceCopy {
    const TYPE: ValueType;
}

/// An input column of an expression: values of one type, optional validity.
#[derive(Debug, Clone, Copy)]
pub struct ExprInput<'a> {
    pub(super) ptr: DevicePtr,
    /// Values available (bits, for booleans).
    pub(super) len: usize,
    pub(super) ty: ValueType,
    pub(super) validity: Option<&'a DeviceBuffer<u32>>,
}

impl<'a> ExprInput<'a> {
    /// A column of plain values.
    pub fn values<T: Valued>(
        values: &'a DeviceBuffer<T>,
        validity: Option<&'a DeviceBuffer<u32>>,
    ) -> Self {
        ExprInput {
            ptr: values.device_ptr(),
            len: values.len(),
            ty: T::TYPE,
            validity,
        }
    }

    /// A column of `len` booleans packed as bits.
    pub fn bits(
        bits: &'a DeviceBuffer<u32>,
        len: usize,
        validity: Option<&'a DeviceBuffer<u32>>,
    ) -> Self {
        ExprInput {
            ptr: bits.device_ptr(),
            len: len.min(bits.len() * 32),
            ty: ValueType::Bool,
            validity,
        }
    }
}

macro_rules! valued {
    ($($t:ty => $v:ident),*) => { $(impl Valued for $t { const TYPE: ValueType = ValueType::$v; })* };
}
valued!(i8 => I8, i16 => I16, i32 => I32, i64 => I64, u8 => U8, u16 => U16, u32 => U32,
    u64 => U64, f32 => F32, f64 => F64);

impl Ops<'_> {
    /// Evaluates `program` over `n` rows of `inputs` in one launch: the
    /// result and its validity. A program that checks values
    /// ([`ExprProgram::strict`]) needs `failed`, one word that the launch
    /// sets to 1 where a check fails (and leaves alone elsewhere).
    pub fn eval(
        &self,
        program: &ExprProgram,
        inputs: &[ExprInput<'_>],
        n: usize,
        failed: Option<&DeviceBuffer<u32>>,
    ) -> Result<(Values, DeviceBuffer<u32>), RuntimeError> {
        let out_type = program.output()?;
        if program.checks_values() && failed.is_none_or(|flag| flag.is_empty()) {
            return Err(RuntimeError::InvalidArgument(
                "a program that checks values needs a failure flag".into(),
            ));
        }
        let mut columns = Vec::with_capacity(program.inputs.len());
        let mut validities = Vec::with_capacity(program.inputs.len());
        for (slot, ty) in program.inputs.iter().enumerate() {
            match (ty, inputs.get(slot)) {
                (None, _) => {
                    columns.push(0u64);
                    validities.push(0u64);
                }
                (Some(ty), Some(input)) => {
                    check(input.ty == *ty, || {
                        format!("input {slot} is {:?}, read as {ty:?}", input.ty)
                    })?;
                    check(input.len >= n, || {
                        format!("input {slot} has {} of {n} rows", input.len)
                    })?;
                    check_bitmap(input.validity, n, "input validity")?;
                    columns.push(input.ptr.address());
                    validities.push(ptr(input.validity).address());
                }
                (Some(_), None) => {
                    return Err(RuntimeError::InvalidArgument(format!(
                        "input {slot} is missing"
                    )));
                }
            }
        }
        // One upload: the column addresses, the validity addresses, then the
        // program's words, two to a slot (little-endian on both sides).
        let slots = columns.len();
        let mut table = columns;
        table.append(&mut validities);
        table.extend(
            program.words.chunks(2).map(|pair| {
                u64::from(pair[0]) | u64::from(pair.get(1).copied().unwrap_or(0)) << 32
            }),
        );
        // An empty table still needs a valid pointer.
        table.push(0);
        let table = DeviceBuffer::from_host(&table, self.memory.clone(), self.stream)?;
        let at = |slot: usize| DevicePtr(table.device_ptr().address() + 8 * slot as u64);
        // eval_expression writes every value and every validity word.
        let out_validity = self.output::<u32>(words(n))?;
        macro_rules! out {
            ($variant:ident, $len:expr) => {{
                let buffer = self.output($len)?;
                let ptr = buffer.device_ptr();
                (Values::$variant(buffer), ptr)
            }};
        }
        let (out, out_ptr) = match out_type {
            ValueType::Bool => out!(Bits, words(n)),
            ValueType::I8 => out!(I8, n),
            ValueType::I16 => out!(I16, n),
            ValueType::I32 => out!(I32, n),
            ValueType::I64 => out!(I64, n),
            ValueType::U8 => out!(U8, n),
            ValueType::U16 => out!(U16, n),
            ValueType::U32 => out!(U32, n),
            ValueType::U64 => out!(U64, n),
            ValueType::F32 => out!(F32, n),
            ValueType::F64 => out!(F64, n),
        };
        let args = KernelArgs::new()
            .arg(at(2 * slots))
            .arg(program.words.len() as u32)
            .arg(at(0))
            .arg(at(slots))
            .arg(n as u64)
            .arg(out_type as u32)
            .arg(out_ptr)
            .buffer(&out_validity)
            .arg(ptr(failed));
        self.launch(ids::eval_expression, Self::linear(n), args)?;
        Ok((out, out_validity))
    }
}
