//! The values of a device column by physical type: one typed buffer enum (lists and structs nest children), for the evaluator's outputs and for gpu-exec's columns.

use crate::memory::DeviceBuffer;

/// The values of a device column, by physical type (the expression
/// evaluator gives the fixed-width ones).
#[derive(Debug)]
pub enum Values {
    /// Booleans, packed as bits like a validity bitmap.
    Bits(DeviceBuffer<u32>),
    I8(DeviceBuffer<i8>),
    I16(DeviceBuffer<i16>),
    I32(DeviceBuffer<i32>),
    I64(DeviceBuffer<i64>),
    U8(DeviceBuffer<u8>),
    U16(DeviceBuffer<u16>),
    U32(DeviceBuffer<u32>),
    U64(DeviceBuffer<u64>),
    F32(DeviceBuffer<f32>),
    F64(DeviceBuffer<f64>),
    /// UTF-8 strings: `offsets` has `len + 1` entries; string i is
    /// `bytes[offsets[i]..offsets[i + 1]]`.
    Str {
        offsets: DeviceBuffer<i64>,
        bytes: DeviceBuffer<u8>,
    },
    /// Lists: `offsets` has `len + 1` entries, the first 0, the last the
    /// child's length; list i is the child's values
    /// `offsets[i]..offsets[i + 1]` (a null list spans none).
    List {
        offsets: DeviceBuffer<i64>,
        child: Box<Child>,
    },
    /// Structs: a child of as many rows per field, in the fields' order;
    /// a field is null wherever the struct is (as Polars keeps them).
    Struct {
        fields: Vec<Child>,
    },
}

/// A nested column's child: the values every list of a list column holds,
/// in turn, or one field of a struct column.
#[derive(Debug)]
pub struct Child {
    pub len: usize,
    pub values: Values,
    /// `None` when no value is null.
    pub validity: Option<DeviceBuffer<u32>>,
}
