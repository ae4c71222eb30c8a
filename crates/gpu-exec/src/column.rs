//! Device columns and frames, and their conversion from and to Polars.

use std::sync::Arc;

use gpu_runtime::memory::{DeviceBuffer, DeviceCopy, MemoryResource};
use gpu_runtime::{RuntimeError, Stream};
use ir_lower::GpuDtype;
use polars::prelude::*;
use polars_arrow::array::{BooleanArray, Utf8Array};
use polars_arrow::bitmap::Bitmap;
use polars_arrow::datatypes::ArrowDataType;
use polars_compute::cast::utf8_to_utf8view;
use rayon::prelude::*;

use crate::error::ExecError;

/// Where device work goes: a stream and the memory resource to allocate from.
#[derive(Debug, Clone)]
pub struct ExecContext {
    pub memory: Arc<dyn MemoryResource>,
    pub stream: Stream,
    /// A second stream for independent inputs: the right side of a join and
    /// the later inputs of a union or hconcat run on it while the first runs
    /// on `stream`, and their results join `stream` through an event.
    /// `None`: everything runs on `stream`.
    pub side_stream: Option<Stream>,
}

impl ExecContext {
    /// The same device and memory with the two streams swapped (`None`
    /// when there is no second stream).
    pub(crate) fn swapped(&self) -> Option<ExecContext> {
        let side = self.side_stream.clone()?;
        Some(ExecContext {
            memory: self.memory.clone(),
            stream: side,
            side_stream: Some(self.stream.clone()),
        })
    }
}

/// The values of a device column, by physical type.
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
}

/// A column in device memory.
#[derive(Debug)]
pub struct DeviceColumn {
    pub name: PlSmallStr,
    pub dtype: GpuDtype,
    len: usize,
    values: Values,
    validity: Option<DeviceBuffer<u32>>,
}

/// A bitmap as the device holds it: 32-bit words, bit `i` of the column at
/// bit `i % 32` of word `i / 32`, the bits past the end zero.
fn bitmap_words(bitmap: &Bitmap) -> Vec<u32> {
    let len = bitmap.len();
    let mut chunks = bitmap.chunks::<u32>();
    let mut words: Vec<u32> = Vec::with_capacity(len.div_ceil(32));
    words.extend(chunks.by_ref());
    if !len.is_multiple_of(32) {
        words.push(chunks.remainder() & ((1u32 << (len % 32)) - 1));
    }
    words
}

/// The bitmap of the first `len` bits of `words` (as [`bitmap_words`]).
fn words_bitmap(words: &[u32], len: usize) -> Result<Bitmap, ExecError> {
    let bytes = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    Bitmap::try_new(bytes, len)
        .map_err(|e| RuntimeError::Internal(format!("a device bitmap of {len} bits: {e}")).into())
}

/// The `len` values of a device buffer, as downloaded.
fn downloaded<T: DeviceCopy>(buffer: &DeviceBuffer<T>, len: usize) -> Result<Vec<T>, ExecError> {
    let values = buffer.to_host()?;
    if values.len() != len {
        return Err(RuntimeError::Internal(format!(
            "a device column of {len} rows holds {} values",
            values.len()
        ))
        .into());
    }
    Ok(values)
}

impl DeviceColumn {
    /// A column from its parts (lengths as the caller built them).
    pub(crate) fn from_parts(
        name: PlSmallStr,
        dtype: GpuDtype,
        len: usize,
        values: Values,
        validity: Option<DeviceBuffer<u32>>,
    ) -> Self {
        DeviceColumn {
            name,
            dtype,
            len,
            values,
            validity,
        }
    }

    /// Hands the column to `stream` (see `DeviceBuffer::move_to_stream`).
    pub(crate) fn move_to_stream(&mut self, stream: &Stream) -> Result<(), RuntimeError> {
        match &mut self.values {
            Values::Bits(b) | Values::U32(b) => b.move_to_stream(stream)?,
            Values::I8(b) => b.move_to_stream(stream)?,
            Values::I16(b) => b.move_to_stream(stream)?,
            Values::I32(b) => b.move_to_stream(stream)?,
            Values::I64(b) => b.move_to_stream(stream)?,
            Values::U8(b) => b.move_to_stream(stream)?,
            Values::U16(b) => b.move_to_stream(stream)?,
            Values::U64(b) => b.move_to_stream(stream)?,
            Values::F32(b) => b.move_to_stream(stream)?,
            Values::F64(b) => b.move_to_stream(stream)?,
            Values::Str { offsets, bytes } => {
                offsets.move_to_stream(stream)?;
                bytes.move_to_stream(stream)?;
            }
        }
        if let Some(validity) = &mut self.validity {
            validity.move_to_stream(stream)?;
        }
        Ok(())
    }

    /// The values and the validity, taken apart.
    pub(crate) fn into_parts(self) -> (Values, Option<DeviceBuffer<u32>>) {
        (self.values, self.validity)
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the column has no row.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The values.
    pub fn values(&self) -> &Values {
        &self.values
    }

    /// The validity bitmap; `None` when no value is null.
    pub fn validity(&self) -> Option<&DeviceBuffer<u32>> {
        self.validity.as_ref()
    }

    /// Copies a Polars column to the device (any chunking, slicing and nulls).
    pub fn from_series(series: &Series, ctx: &ExecContext) -> Result<Self, ExecError> {
        let dtype = GpuDtype::from_polars(series.dtype()).map_err(ExecError::Unsupported)?;
        let series = series.rechunk();
        let physical = series.to_physical_repr();
        let len = series.len();
        let upload =
            |words: Vec<u32>| DeviceBuffer::from_host(&words, ctx.memory.clone(), &ctx.stream);
        // After the rechunk one array holds every value (none, when empty).
        let array = physical.chunks().first();
        let nulls = array
            .and_then(|a| a.validity())
            .filter(|_| series.null_count() > 0);
        let validity = nulls
            .map(|bitmap| upload(bitmap_words(bitmap)))
            .transpose()?;
        macro_rules! primitive {
            ($variant:ident, $accessor:ident) => {{
                let ca = physical.$accessor()?;
                // Null slots hold whatever Polars left there; the bitmap masks them.
                let values: &[_] = match ca.downcast_iter().next() {
                    Some(array) => array.values().as_slice(),
                    None => &[],
                };
                Values::$variant(DeviceBuffer::from_host(
                    values,
                    ctx.memory.clone(),
                    &ctx.stream,
                )?)
            }};
        }
        let values = match physical.dtype() {
            DataType::Boolean => {
                let ca = physical.bool()?;
                // Null slots false, as the kernels expect.
                let mut words = match ca.downcast_iter().next() {
                    Some(array) => bitmap_words(array.values()),
                    None => Vec::new(),
                };
                if let Some(valid) = nulls {
                    for (word, valid) in words.iter_mut().zip(bitmap_words(valid)) {
                        *word &= valid;
                    }
                }
                Values::Bits(upload(words)?)
            }
            DataType::Int8 => primitive!(I8, i8),
            DataType::Int16 => primitive!(I16, i16),
            DataType::Int32 => primitive!(I32, i32),
            DataType::Int64 => primitive!(I64, i64),
            DataType::UInt8 => primitive!(U8, u8),
            DataType::UInt16 => primitive!(U16, u16),
            DataType::UInt32 => primitive!(U32, u32),
            DataType::UInt64 => primitive!(U64, u64),
            DataType::Float32 => primitive!(F32, f32),
            DataType::Float64 => primitive!(F64, f64),
            DataType::String => {
                let ca = physical.str()?;
                let mut offsets = Vec::with_capacity(len + 1);
                let mut bytes =
                    Vec::with_capacity(ca.downcast_iter().map(|a| a.total_bytes_len()).sum());
                offsets.push(0i64);
                for value in ca.iter() {
                    bytes.extend_from_slice(value.unwrap_or_default().as_bytes());
                    offsets.push(bytes.len() as i64);
                }
                Values::Str {
                    offsets: DeviceBuffer::from_host(&offsets, ctx.memory.clone(), &ctx.stream)?,
                    bytes: DeviceBuffer::from_host(&bytes, ctx.memory.clone(), &ctx.stream)?,
                }
            }
            other => {
                return Err(ExecError::Unsupported(format!(
                    "physical type {other} of column {:?}",
                    series.name()
                )));
            }
        };
        Ok(DeviceColumn {
            name: series.name().clone(),
            dtype,
            len,
            values,
            validity,
        })
    }

    /// Copies the column back into a Polars column of its type.
    pub fn to_series(&self) -> Result<Series, ExecError> {
        let validity = match &self.validity {
            Some(words) => Some(words.to_host()?),
            None => None,
        };
        let name = self.name.clone();
        let bitmap = validity
            .as_ref()
            .map(|words| words_bitmap(words, self.len))
            .transpose()?;
        macro_rules! primitive {
            ($buffer:expr, $ca:ty) => {{ <$ca>::from_vec_validity(name, downloaded($buffer, self.len)?, bitmap).into_series() }};
        }
        let physical = match &self.values {
            Values::Bits(words) => {
                let values = words_bitmap(&words.to_host()?, self.len)?;
                let array = BooleanArray::new(ArrowDataType::Boolean, values, bitmap);
                BooleanChunked::with_chunk(name, array).into_series()
            }
            Values::I8(b) => primitive!(b, Int8Chunked),
            Values::I16(b) => primitive!(b, Int16Chunked),
            Values::I32(b) => primitive!(b, Int32Chunked),
            Values::I64(b) => primitive!(b, Int64Chunked),
            Values::U8(b) => primitive!(b, UInt8Chunked),
            Values::U16(b) => primitive!(b, UInt16Chunked),
            Values::U32(b) => primitive!(b, UInt32Chunked),
            Values::U64(b) => primitive!(b, UInt64Chunked),
            Values::F32(b) => primitive!(b, Float32Chunked),
            Values::F64(b) => primitive!(b, Float64Chunked),
            Values::Str { offsets, bytes } => {
                let offsets = offsets.to_host()?;
                // Polars' views hold lengths of 31 bits.
                if offsets
                    .windows(2)
                    .any(|w| w[1] - w[0] > i64::from(i32::MAX))
                {
                    return Err(ExecError::Unsupported(format!(
                        "a string of column {name:?} is longer than Polars holds"
                    )));
                }
                // Checked: offsets in order, and UTF-8 between them.
                let array = Utf8Array::<i64>::try_new(
                    ArrowDataType::LargeUtf8,
                    offsets.try_into()?,
                    bytes.to_host()?.into(),
                    bitmap,
                )?;
                StringChunked::with_chunk(name, utf8_to_utf8view(&array)).into_series()
            }
        };
        Ok(match self.dtype {
            GpuDtype::Date => physical.cast(&DataType::Date)?,
            GpuDtype::Datetime(unit) => {
                physical.cast(&DataType::Datetime(polars_unit(unit), None))?
            }
            GpuDtype::Duration(unit) => physical.cast(&DataType::Duration(polars_unit(unit)))?,
            _ => physical,
        })
    }
}

fn polars_unit(unit: ir_lower::TimeUnit) -> TimeUnit {
    match unit {
        ir_lower::TimeUnit::Milliseconds => TimeUnit::Milliseconds,
        ir_lower::TimeUnit::Microseconds => TimeUnit::Microseconds,
        ir_lower::TimeUnit::Nanoseconds => TimeUnit::Nanoseconds,
    }
}

/// A frame of device columns of equal length.
#[derive(Debug)]
pub struct DeviceFrame {
    pub columns: Vec<DeviceColumn>,
    pub height: usize,
}

impl DeviceFrame {
    /// Copies the columns of `df` at `projection` (all when `None`) to the device.
    pub fn from_dataframe(
        df: &DataFrame,
        projection: Option<&[usize]>,
        ctx: &ExecContext,
    ) -> Result<Self, ExecError> {
        let all: Vec<usize> = (0..df.width()).collect();
        // Columns convert and copy in parallel: the host's copies into
        // staging memory are the work a transfer waits on.
        let columns = projection
            .unwrap_or(&all)
            .par_iter()
            .map(|i| {
                let column = df.columns().get(*i).ok_or_else(|| {
                    ExecError::Unsupported(format!("column {i} of a frame of {}", df.width()))
                })?;
                DeviceColumn::from_series(column.as_materialized_series(), ctx)
            })
            .collect::<Result<_, _>>()?;
        Ok(DeviceFrame {
            columns,
            height: df.height(),
        })
    }

    /// Copies the frame back into a DataFrame.
    pub fn to_dataframe(&self) -> Result<DataFrame, ExecError> {
        let columns: Vec<Column> = self
            .columns
            .par_iter()
            .map(|c| c.to_series().map(Column::from))
            .collect::<Result<_, _>>()?;
        Ok(DataFrame::new(self.height, columns)?)
    }
}
