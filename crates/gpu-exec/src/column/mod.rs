//! Device columns and frames, and their conversion from and to Polars.

use std::borrow::Cow;
use std::sync::Arc;

pub use gpu_runtime::memory::{Child, Values};
use gpu_runtime::memory::{DeviceBuffer, DeviceCopy, MemoryResource};
use gpu_runtime::ops::Ops;
use gpu_runtime::{Event, RuntimeError, Stream};
use ir_lower::GpuDtype;
use polars::prelude::*;
use polars_arrow::array::{Array, BooleanArray, Utf8ViewArray, View};
use polars_arrow::bitmap::Bitmap;
use polars_arrow::datatypes::ArrowDataType;
use polars_buffer::Buffer;
use rayon::prelude::*;

use crate::error::ExecError;

pub(crate) mod lists;
pub(crate) mod spilled;
mod structs;

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
    /// A stream for uploads made ahead of their use: a plan's in-memory
    /// inputs (when it has two or more) are uploaded on it by a host thread,
    /// one ahead of the executor, while the executor computes, each handed
    /// to `stream` through an event (see `PREFETCH_VAR`). `None`: inputs
    /// upload when the executor reaches them.
    pub copy_stream: Option<Stream>,
    /// Moves every frame the executor keeps for later to host memory at
    /// once (tests: spilling on every query); `false`: only when device
    /// memory runs short (see `execute/spill.rs`).
    pub spill_kept: bool,
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
            copy_stream: self.copy_stream.clone(),
            spill_kept: self.spill_kept,
        })
    }
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

    /// An unnamed i64 column of `values`, none null: the row numbers,
    /// places and offsets the executor computes along the way.
    pub(crate) fn of_i64(values: DeviceBuffer<i64>) -> Self {
        let len = values.len();
        DeviceColumn::from_parts("".into(), GpuDtype::Int64, len, Values::I64(values), None)
    }

    /// A list column of type `dtype`, unnamed: each list's values from
    /// its offset to the next in `child`, null where `validity` says.
    pub(crate) fn listed(
        dtype: GpuDtype,
        offsets: DeviceBuffer<i64>,
        child: Child,
        validity: Option<DeviceBuffer<u32>>,
    ) -> Self {
        let len = offsets.len().saturating_sub(1);
        let values = Values::List {
            offsets,
            child: Box::new(child),
        };
        DeviceColumn::from_parts("".into(), dtype, len, values, validity)
    }

    /// Hands the column to `stream` (see `DeviceBuffer::move_to_stream`),
    /// or, given `ready` (recorded on the column's stream after its last
    /// use there), after that event only (`DeviceBuffer::move_to_stream_after`).
    pub(crate) fn move_to_stream(
        &mut self,
        stream: &Stream,
        ready: Option<&Event>,
    ) -> Result<(), RuntimeError> {
        hand_values(&mut self.values, &mut self.validity, stream, ready)
    }

    /// The column as the child of a list or struct column.
    pub(crate) fn into_child(self) -> Child {
        Child {
            len: self.len,
            values: self.values,
            validity: self.validity,
        }
    }

    /// The child of a list or struct column as a column of `dtype`.
    pub(crate) fn from_child(name: PlSmallStr, dtype: GpuDtype, child: Child) -> Self {
        DeviceColumn::from_parts(name, dtype, child.len, child.values, child.validity)
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
        if dtype == GpuDtype::Null {
            // Booleans all null.
            let words = series.len().div_ceil(32);
            let zeroed = || DeviceBuffer::zeroed(words, ctx.memory.clone(), &ctx.stream);
            let (words, validity) = (zeroed()?, zeroed()?);
            return Ok(DeviceColumn {
                name: series.name().clone(),
                dtype,
                len: series.len(),
                values: Values::Bits(words),
                validity: Some(validity),
            });
        }
        let physical = match dtype {
            // Codes of every width as u32.
            GpuDtype::Categorical(_) => {
                Cow::Owned(series.to_physical_repr().cast(&DataType::UInt32)?)
            }
            _ => series.to_physical_repr(),
        };
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
            DataType::Int128 => Values::I64(DeviceBuffer::from_host(
                &decimals_as_i64(physical.i128()?, series.name())?,
                ctx.memory.clone(),
                &ctx.stream,
            )?),
            DataType::List(_) => lists::upload(series.list()?, ctx)?,
            DataType::Struct(_) => structs::upload(series.struct_()?, ctx)?,
            DataType::String => match physical.str()?.downcast_iter().next() {
                Some(array) => upload_strings(array, ctx)?,
                None => Values::Str {
                    offsets: DeviceBuffer::from_host(&[0], ctx.memory.clone(), &ctx.stream)?,
                    bytes: DeviceBuffer::zeroed(0, ctx.memory.clone(), &ctx.stream)?,
                },
            },
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
        series_of(
            self.name.clone(),
            self.dtype,
            self.len,
            &self.values,
            self.validity.as_ref(),
        )
    }
}

/// `values` and `validity` handed to `stream` (see
/// [`DeviceColumn::move_to_stream`]), a list's values with them.
fn hand_values(
    values: &mut Values,
    validity: &mut Option<DeviceBuffer<u32>>,
    stream: &Stream,
    ready: Option<&Event>,
) -> Result<(), RuntimeError> {
    fn hand<T: DeviceCopy>(
        buffer: &mut DeviceBuffer<T>,
        stream: &Stream,
        ready: Option<&Event>,
    ) -> Result<(), RuntimeError> {
        match ready {
            Some(ready) => buffer.move_to_stream_after(stream, ready),
            None => buffer.move_to_stream(stream),
        }
    }
    match values {
        Values::Bits(b) | Values::U32(b) => hand(b, stream, ready)?,
        Values::I8(b) => hand(b, stream, ready)?,
        Values::I16(b) => hand(b, stream, ready)?,
        Values::I32(b) => hand(b, stream, ready)?,
        Values::I64(b) => hand(b, stream, ready)?,
        Values::U8(b) => hand(b, stream, ready)?,
        Values::U16(b) => hand(b, stream, ready)?,
        Values::U64(b) => hand(b, stream, ready)?,
        Values::F32(b) => hand(b, stream, ready)?,
        Values::F64(b) => hand(b, stream, ready)?,
        Values::Str { offsets, bytes } => {
            hand(offsets, stream, ready)?;
            hand(bytes, stream, ready)?;
        }
        Values::List { offsets, child } => {
            hand(offsets, stream, ready)?;
            let Child {
                values, validity, ..
            } = child.as_mut();
            hand_values(values, validity, stream, ready)?;
        }
        Values::Struct { fields } => {
            for Child {
                values, validity, ..
            } in fields
            {
                hand_values(values, validity, stream, ready)?;
            }
        }
    }
    if let Some(validity) = validity {
        hand(validity, stream, ready)?;
    }
    Ok(())
}

/// A Polars column of `dtype` named `name`, of the `len` values and
/// validity downloaded from the device.
fn series_of(
    name: PlSmallStr,
    dtype: GpuDtype,
    len: usize,
    values: &Values,
    validity: Option<&DeviceBuffer<u32>>,
) -> Result<Series, ExecError> {
    let validity = match validity {
        Some(words) => Some(words.to_host()?),
        None => None,
    };
    let bitmap = validity
        .as_ref()
        .map(|words| words_bitmap(words, len))
        .transpose()?;
    macro_rules! primitive {
        ($buffer:expr, $ca:ty) => {{ <$ca>::from_vec_validity(name, downloaded($buffer, len)?, bitmap).into_series() }};
    }
    let physical = match values {
        Values::Bits(words) => {
            let values = words_bitmap(&words.to_host()?, len)?;
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
            string_chunks(name, &offsets.to_host()?, bytes.to_host()?, bitmap)?.into_series()
        }
        Values::List { offsets, child } => {
            let GpuDtype::List(of) = dtype else {
                return Err(RuntimeError::Internal(format!("lists of a {dtype} column")).into());
            };
            let child = series_of(
                "".into(),
                of.values(),
                child.len,
                &child.values,
                child.validity.as_ref(),
            )?;
            return lists::series(name, &offsets.to_host()?, &child, bitmap);
        }
        Values::Struct { fields } => {
            let GpuDtype::Struct(of) = dtype else {
                return Err(RuntimeError::Internal(format!("fields of a {dtype} column")).into());
            };
            let fields = fields
                .iter()
                .zip(of.fields())
                .map(|(child, (field, dtype))| {
                    let (values, validity) = (&child.values, child.validity.as_ref());
                    series_of(field.into(), dtype, child.len, values, validity)
                })
                .collect::<Result<Vec<_>, _>>()?;
            return structs::series(name, len, &fields, bitmap);
        }
    };
    Ok(match dtype {
        GpuDtype::Null => Series::full_null(physical.name().clone(), len, &DataType::Null),
        GpuDtype::Date => physical.cast(&DataType::Date)?,
        GpuDtype::Datetime(unit) => physical.cast(&DataType::Datetime(polars_unit(unit), None))?,
        GpuDtype::Duration(unit) => physical.cast(&DataType::Duration(polars_unit(unit)))?,
        GpuDtype::Time => physical.cast(&DataType::Time)?,
        GpuDtype::Categorical(dictionary) => categorical(&physical, dictionary.dtype())?,
        GpuDtype::Decimal(precision, scale) => physical
            .cast(&DataType::Int128)?
            .i128()?
            .clone()
            .into_decimal_unchecked(precision.into(), scale.into())
            .into_series(),
        GpuDtype::ZonedDatetime(unit, zone) => physical.cast(&DataType::Datetime(
            polars_unit(unit),
            Some(zone.to_polars()),
        ))?,
        _ => physical,
    })
}

/// Rows per piece of the host-side string conversions, which run in
/// parallel piece by piece (a single-threaded pass over 60 million strings
/// cost over a second on an H200 machine, more than the copies).
const STRING_PIECE: usize = 1 << 16;

/// A string offset on the host, before it goes to the device.
trait HostOffset: Copy + Default + Send + Sync + DeviceCopy {
    /// `bytes`, which the caller knows to fit.
    fn at(bytes: usize) -> Self;
}

impl HostOffset for u32 {
    fn at(bytes: usize) -> Self {
        bytes as u32
    }
}

impl HostOffset for i64 {
    fn at(bytes: usize) -> Self {
        bytes as i64
    }
}

/// A string array on the device: its offsets and the bytes of every value
/// one after the other (null rows empty). Offsets travel as 32 bits when the
/// bytes allow it (most columns), widened to the device's 64 on arrival:
/// a third less to copy for short strings.
fn upload_strings(array: &Utf8ViewArray, ctx: &ExecContext) -> Result<Values, ExecError> {
    upload_strings_narrow_up_to(array, ctx, u32::MAX as usize)
}

/// [`upload_strings`], with 32-bit offsets up to `narrow_bytes` bytes.
fn upload_strings_narrow_up_to(
    array: &Utf8ViewArray,
    ctx: &ExecContext,
    narrow_bytes: usize,
) -> Result<Values, ExecError> {
    let len = array.len();
    let pieces: Vec<(usize, usize)> = (0..len)
        .step_by(STRING_PIECE)
        .map(|start| (start, (start + STRING_PIECE).min(len)))
        .collect();
    let piece_bytes: Vec<usize> = pieces
        .par_iter()
        .map(|&(start, end)| {
            (start..end)
                .filter(|&row| array.is_valid(row))
                .map(|row| array.views()[row].length as usize)
                .sum()
        })
        .collect();
    let (offsets, bytes) = if piece_bytes.iter().sum::<usize>() <= narrow_bytes {
        let (offsets, bytes) = flatten_strings::<u32>(array, &pieces, &piece_bytes);
        let narrow = DeviceBuffer::from_host(&offsets, ctx.memory.clone(), &ctx.stream)?;
        let ops = Ops {
            memory: &ctx.memory,
            stream: &ctx.stream,
        };
        (ops.widen(&narrow)?, bytes)
    } else {
        let (offsets, bytes) = flatten_strings::<i64>(array, &pieces, &piece_bytes);
        let offsets = DeviceBuffer::from_host(&offsets, ctx.memory.clone(), &ctx.stream)?;
        (offsets, bytes)
    };
    Ok(Values::Str {
        offsets,
        bytes: DeviceBuffer::from_host(&bytes, ctx.memory.clone(), &ctx.stream)?,
    })
}

/// The `len + 1` offsets and the bytes of `array`'s values, piece by piece
/// in parallel (`pieces` of rows, holding `piece_bytes` bytes each).
fn flatten_strings<O: HostOffset>(
    array: &Utf8ViewArray,
    pieces: &[(usize, usize)],
    piece_bytes: &[usize],
) -> (Vec<O>, Vec<u8>) {
    let mut offsets = vec![O::default(); array.len() + 1];
    let mut bytes = vec![0u8; piece_bytes.iter().sum()];
    // Each piece writes its own offsets and its own run of bytes.
    let mut byte_runs = Vec::with_capacity(pieces.len());
    let mut rest = bytes.as_mut_slice();
    let mut first_byte = 0;
    for &n in piece_bytes {
        let (run, tail) = rest.split_at_mut(n);
        byte_runs.push((first_byte, run));
        first_byte += n;
        rest = tail;
    }
    offsets[1..]
        .par_chunks_mut(STRING_PIECE)
        .zip(byte_runs)
        .zip(pieces)
        .for_each(|((ends, (first_byte, run)), &(start, _))| {
            let mut at = 0;
            for (row, end) in (start..).zip(ends.iter_mut()) {
                if array.is_valid(row) {
                    let value = array.value(row).as_bytes();
                    run[at..at + value.len()].copy_from_slice(value);
                    at += value.len();
                }
                *end = O::at(first_byte + at);
            }
        });
    (offsets, bytes)
}

/// The strings of `offsets` into `bytes` (as [`upload_strings`] gives
/// them) as Polars' string views, built piece by piece in parallel, each
/// piece one chunk whose views point into one shared buffer of the bytes.
/// Checked as Polars checks: each value UTF-8 and of at most 2^31 - 1
/// bytes (a view's length).
fn string_chunks(
    name: PlSmallStr,
    offsets: &[i64],
    bytes: Vec<u8>,
    validity: Option<Bitmap>,
) -> Result<StringChunked, ExecError> {
    let len = offsets.len().saturating_sub(1);
    let in_order = offsets.first() == Some(&0)
        && offsets
            .last()
            .is_some_and(|&end| end as usize == bytes.len())
        && offsets.par_windows(2).all(|w| w[0] <= w[1]);
    if !in_order {
        return Err(RuntimeError::Internal(format!(
            "the offsets of string column {name:?} are out of order or past its {} bytes",
            bytes.len()
        ))
        .into());
    }
    if offsets
        .par_windows(2)
        .any(|w| w[1] - w[0] > i64::from(i32::MAX))
    {
        return Err(ExecError::Unsupported(format!(
            "a string of column {name:?} is longer than Polars holds"
        )));
    }
    // A view's offset has 32 bits: a piece spans less than 4 GiB of bytes
    // (one string is under 2 GiB, so halving always ends).
    let span = |start: usize, end: usize| (offsets[end] - offsets[start]) as u64;
    let mut pieces = Vec::new();
    let mut start = 0;
    while start < len {
        let mut end = (start + STRING_PIECE).min(len);
        while end > start + 1 && span(start, end) > u64::from(u32::MAX) {
            end = start + (end - start) / 2;
        }
        pieces.push((start, end));
        start = end;
    }
    let buffer = Buffer::from(bytes);
    let arrays = pieces
        .par_iter()
        .map(|&(start, end)| {
            let first = offsets[start] as usize;
            let piece = buffer
                .clone()
                .sliced(first..first + span(start, end) as usize);
            let views: Vec<View> = (start..end)
                .map(|row| {
                    let (from, to) = (
                        offsets[row] as usize - first,
                        offsets[row + 1] as usize - first,
                    );
                    View::new_from_bytes(&piece[from..to], 0, from as u32)
                })
                .collect();
            Utf8ViewArray::try_new(
                ArrowDataType::Utf8View,
                views.into(),
                Buffer::from(vec![piece]),
                validity.clone().map(|v| v.sliced(start, end - start)),
            )
        })
        .collect::<PolarsResult<Vec<_>>>()?;
    if arrays.is_empty() {
        return Ok(StringChunked::full_null(name, 0));
    }
    Ok(StringChunked::from_chunk_iter(name, arrays))
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
    /// Hands every column to `stream` (see [`DeviceColumn::move_to_stream`]).
    pub(crate) fn move_to_stream(
        &mut self,
        stream: &Stream,
        ready: Option<&Event>,
    ) -> Result<(), RuntimeError> {
        for column in &mut self.columns {
            column.move_to_stream(stream, ready)?;
        }
        Ok(())
    }
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

/// A decimal column's scaled integers (Polars' i128) as the device holds
/// them, i64 (0 in null slots); refused where a value needs more.
fn decimals_as_i64(values: &Int128Chunked, name: &str) -> Result<Vec<i64>, ExecError> {
    let mut out = Vec::with_capacity(values.len());
    for value in values.iter() {
        match value.map(i64::try_from) {
            Some(Ok(value)) => out.push(value),
            None => out.push(0),
            Some(Err(_)) => {
                return Err(ExecError::DependsOnPolars(format!(
                    "column {name:?} holds decimals of more than 18 digits (the GPU holds \
                     decimals as 64-bit integers)"
                )));
            }
        }
    }
    Ok(out)
}

/// `codes` (u32) as a column of the categorical or enum type `dtype`.
fn categorical(codes: &Series, dtype: DataType) -> PolarsResult<Series> {
    let physical = dtype.to_physical();
    let codes = codes.cast(&physical)?;
    Ok(match physical {
        DataType::UInt8 => {
            CategoricalChunked::<Categorical8Type>::from_cats_and_dtype(codes.u8()?.clone(), dtype)
                .into_series()
        }
        DataType::UInt16 => CategoricalChunked::<Categorical16Type>::from_cats_and_dtype(
            codes.u16()?.clone(),
            dtype,
        )
        .into_series(),
        _ => CategoricalChunked::<Categorical32Type>::from_cats_and_dtype(
            codes.u32()?.clone(),
            dtype,
        )
        .into_series(),
    })
}

#[cfg(test)]
mod tests {
    use gpu_runtime::Device;
    use gpu_runtime::memory::{PoolOptions, PoolResource};

    use super::*;

    #[test]
    fn strings_upload_with_narrow_and_wide_offsets_alike() {
        let device = Arc::new(Device::under_test(1 << 30).expect("the device under test"));
        let ctx = ExecContext {
            memory: Arc::new(PoolResource::new(device.clone(), PoolOptions::default()).unwrap()),
            stream: device.create_stream().unwrap(),
            side_stream: None,
            copy_stream: None,
            spill_kept: false,
        };
        let values: Vec<Option<String>> = (0..150_000)
            .map(|i| (i % 5 != 0).then(|| "ü".repeat(i % 17)))
            .collect();
        let series = Series::new("s".into(), values);
        let array = series
            .str()
            .unwrap()
            .rechunk()
            .downcast_iter()
            .next()
            .unwrap()
            .clone();
        // Every byte count above 0 takes the wide offsets; the default, narrow.
        for narrow_bytes in [0, u32::MAX as usize] {
            let values = upload_strings_narrow_up_to(&array, &ctx, narrow_bytes).unwrap();
            let column = DeviceColumn::from_parts(
                "s".into(),
                GpuDtype::String,
                series.len(),
                values,
                DeviceColumn::from_series(&series, &ctx)
                    .unwrap()
                    .into_parts()
                    .1,
            );
            let back = column.to_series().unwrap();
            assert!(back.equals_missing(&series), "narrow up to {narrow_bytes}");
        }
    }
}
