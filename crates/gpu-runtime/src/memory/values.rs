//! The values of a device column by physical type: one typed buffer enum (lists and structs nest children), for the evaluator's outputs and for gpu-exec's columns, on the device or spilled to host memory.

use std::fmt;
use std::sync::Arc;

use crate::error::RuntimeError;
use crate::memory::{DeviceBuffer, DeviceCopy, MemoryResource};
use crate::stream::Stream;

/// Where the buffers of [`ValuesIn`] live.
pub trait Storage {
    /// A buffer of values of `T`.
    type Buf<T: DeviceCopy>: fmt::Debug + Send + Sync;
}

/// Buffers in device memory: [`Values`], [`Child`].
#[derive(Debug)]
pub struct OnDevice;

/// Buffers copied to host memory (a spilled column): [`HostValues`].
#[derive(Debug)]
pub struct OnHost;

impl Storage for OnDevice {
    type Buf<T: DeviceCopy> = DeviceBuffer<T>;
}

impl Storage for OnHost {
    type Buf<T: DeviceCopy> = Vec<T>;
}

/// The values of a device column, by physical type (the expression
/// evaluator gives the fixed-width ones).
pub type Values = ValuesIn<OnDevice>;

/// A nested column's child on the device.
pub type Child = ChildIn<OnDevice>;

/// The values of a column moved to host memory, to come back as they were.
pub type HostValues = ValuesIn<OnHost>;

/// A column's values by physical type, their buffers on the device or on
/// the host (`S`).
#[derive(Debug)]
pub enum ValuesIn<S: Storage> {
    /// Booleans, packed as bits like a validity bitmap.
    Bits(S::Buf<u32>),
    I8(S::Buf<i8>),
    I16(S::Buf<i16>),
    I32(S::Buf<i32>),
    I64(S::Buf<i64>),
    U8(S::Buf<u8>),
    U16(S::Buf<u16>),
    U32(S::Buf<u32>),
    U64(S::Buf<u64>),
    F32(S::Buf<f32>),
    F64(S::Buf<f64>),
    /// UTF-8 strings: `offsets` has `len + 1` entries; string i is
    /// `bytes[offsets[i]..offsets[i + 1]]`.
    Str {
        offsets: S::Buf<i64>,
        bytes: S::Buf<u8>,
    },
    /// Lists: `offsets` has `len + 1` entries, the first 0, the last the
    /// child's length; list i is the child's values
    /// `offsets[i]..offsets[i + 1]` (a null list spans none).
    List {
        offsets: S::Buf<i64>,
        child: Box<ChildIn<S>>,
    },
    /// Structs: a child of as many rows per field, in the fields' order;
    /// a field is null wherever the struct is (as Polars keeps them).
    Struct {
        fields: Vec<ChildIn<S>>,
    },
}

/// A nested column's child: the values every list of a list column holds,
/// in turn, or one field of a struct column.
#[derive(Debug)]
pub struct ChildIn<S: Storage> {
    pub len: usize,
    pub values: ValuesIn<S>,
    /// `None` when no value is null.
    pub validity: Option<S::Buf<u32>>,
}

/// Moves each buffer of a [`ValuesIn`] from storage `A` to storage `B`.
pub trait MoveBuffer<A: Storage, B: Storage> {
    fn move_buffer<T: DeviceCopy>(&mut self, buffer: A::Buf<T>) -> Result<B::Buf<T>, RuntimeError>;
}

impl<A: Storage> ValuesIn<A> {
    /// The same values with every buffer moved by `mover`, in one order
    /// (values, then nested children depth first).
    pub fn moved<B: Storage>(
        self,
        mover: &mut impl MoveBuffer<A, B>,
    ) -> Result<ValuesIn<B>, RuntimeError> {
        use ValuesIn as V;
        Ok(match self {
            V::Bits(b) => V::Bits(mover.move_buffer(b)?),
            V::I8(b) => V::I8(mover.move_buffer(b)?),
            V::I16(b) => V::I16(mover.move_buffer(b)?),
            V::I32(b) => V::I32(mover.move_buffer(b)?),
            V::I64(b) => V::I64(mover.move_buffer(b)?),
            V::U8(b) => V::U8(mover.move_buffer(b)?),
            V::U16(b) => V::U16(mover.move_buffer(b)?),
            V::U32(b) => V::U32(mover.move_buffer(b)?),
            V::U64(b) => V::U64(mover.move_buffer(b)?),
            V::F32(b) => V::F32(mover.move_buffer(b)?),
            V::F64(b) => V::F64(mover.move_buffer(b)?),
            V::Str { offsets, bytes } => V::Str {
                offsets: mover.move_buffer(offsets)?,
                bytes: mover.move_buffer(bytes)?,
            },
            V::List { offsets, child } => V::List {
                offsets: mover.move_buffer(offsets)?,
                child: Box::new(child.moved(mover)?),
            },
            V::Struct { fields } => V::Struct {
                fields: fields
                    .into_iter()
                    .map(|field| field.moved(mover))
                    .collect::<Result<_, _>>()?,
            },
        })
    }
}

impl<A: Storage> ChildIn<A> {
    /// The same child with every buffer moved by `mover`.
    pub fn moved<B: Storage>(
        self,
        mover: &mut impl MoveBuffer<A, B>,
    ) -> Result<ChildIn<B>, RuntimeError> {
        Ok(ChildIn {
            len: self.len,
            values: self.values.moved(mover)?,
            validity: self
                .validity
                .map(|validity| mover.move_buffer(validity))
                .transpose()?,
        })
    }
}

/// Copies device buffers to host memory (each after the work enqueued on
/// its stream so far), freeing their device memory, and counts the bytes.
#[derive(Debug, Default)]
pub struct ToHost {
    pub bytes: u64,
}

impl MoveBuffer<OnDevice, OnHost> for ToHost {
    fn move_buffer<T: DeviceCopy>(
        &mut self,
        buffer: DeviceBuffer<T>,
    ) -> Result<Vec<T>, RuntimeError> {
        let values = buffer.to_host()?;
        self.bytes += std::mem::size_of_val(values.as_slice()) as u64;
        Ok(values)
    }
}

/// Copies host buffers back to the device, allocated from `resource` and
/// uploaded on `stream`, and counts the bytes.
#[derive(Debug)]
pub struct ToDevice<'a> {
    pub resource: &'a Arc<dyn MemoryResource>,
    pub stream: &'a Stream,
    pub bytes: u64,
}

impl MoveBuffer<OnHost, OnDevice> for ToDevice<'_> {
    fn move_buffer<T: DeviceCopy>(
        &mut self,
        values: Vec<T>,
    ) -> Result<DeviceBuffer<T>, RuntimeError> {
        self.bytes += std::mem::size_of_val(values.as_slice()) as u64;
        DeviceBuffer::from_host(&values, self.resource.clone(), self.stream)
    }
}
