//! Typed device buffers: RAII owners of device memory, freed in stream order.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use crate::error::RuntimeError;
use crate::memory::{DevicePtr, MemoryResource};
use crate::stream::{Event, Stream};

/// Element types that may live in device memory: plain values for which
/// every bit pattern is valid, so bytes copied from the device are always a
/// value of the type.
///
/// # Safety
/// Implement only for types with no padding, no pointers and no invalid bit
/// patterns.
pub unsafe trait DeviceCopy: Copy + Send + Sync + fmt::Debug + 'static {}

macro_rules! device_copy {
    ($($t:ty),*) => {
        // SAFETY: primitive numbers: no padding, no pointers, every bit pattern valid.
        $(unsafe impl DeviceCopy for $t {})*
    };
}
device_copy!(u8, u16, u32, u64, i8, i16, i32, i64, f32, f64);

/// What each byte of a [`DeviceBuffer::for_overwrite`] buffer holds on the
/// emulated device before it is written: as u32 0xa5a5a5a5, far from any
/// small count or index.
pub const POISON_BYTE: u8 = 0xa5;

/// `len` values of `T` in device memory, owned: the memory returns to its
/// resource, in the order of the buffer's stream, when the buffer is dropped.
/// The safe API offers no way to reach the memory after that.
pub struct DeviceBuffer<T: DeviceCopy> {
    ptr: DevicePtr,
    len: usize,
    resource: Arc<dyn MemoryResource>,
    stream: Stream,
    _values: PhantomData<T>,
}

impl<T: DeviceCopy> fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .field("stream", &self.stream.id())
            .finish()
    }
}

impl<T: DeviceCopy> DeviceBuffer<T> {
    fn bytes_for(len: usize) -> Result<u64, RuntimeError> {
        len.checked_mul(size_of::<T>())
            .and_then(|bytes| u64::try_from(bytes).ok())
            .ok_or_else(|| RuntimeError::InvalidArgument(format!("{len} elements overflow")))
    }

    /// A buffer of `len` zeroes, allocated and filled on `stream`.
    pub fn zeroed(
        len: usize,
        resource: Arc<dyn MemoryResource>,
        stream: &Stream,
    ) -> Result<Self, RuntimeError> {
        let buffer = Self::allocate(len, resource, stream)?;
        // SAFETY: the allocation holds `byte_len` bytes, is owned by this
        // buffer and freed only after this work (stream order).
        unsafe { stream.fill(buffer.ptr.0, buffer.byte_len(), 0) }?;
        Ok(buffer)
    }

    /// A buffer of `len` values for work that writes every one of them
    /// before anything reads it (a kernel's whole output): on a GPU no fill
    /// at all, where [`DeviceBuffer::zeroed`] would write the memory once
    /// more. Its values until then are unspecified (any bit pattern is a
    /// value of `T`). On the emulated device every byte starts as
    /// [`POISON_BYTE`], so that a test of work that leaves a value unwritten
    /// sees it.
    pub fn for_overwrite(
        len: usize,
        resource: Arc<dyn MemoryResource>,
        stream: &Stream,
    ) -> Result<Self, RuntimeError> {
        let buffer = Self::allocate(len, resource, stream)?;
        if stream.is_emulated() {
            // SAFETY: as in `zeroed`.
            unsafe { stream.fill(buffer.ptr.0, buffer.byte_len(), POISON_BYTE) }?;
        }
        Ok(buffer)
    }

    /// A copy of `values` on the device, made asynchronously on `stream`
    /// from a staging copy (the caller's slice is free at once).
    pub fn from_host(
        values: &[T],
        resource: Arc<dyn MemoryResource>,
        stream: &Stream,
    ) -> Result<Self, RuntimeError> {
        let buffer = Self::allocate(values.len(), resource, stream)?;
        buffer.enqueue_upload(values)?;
        Ok(buffer)
    }

    fn allocate(
        len: usize,
        resource: Arc<dyn MemoryResource>,
        stream: &Stream,
    ) -> Result<Self, RuntimeError> {
        let bytes = Self::bytes_for(len)?;
        stream.seam(crate::faults::Seam::Allocate, bytes)?;
        let ptr = resource.allocate(bytes, stream)?;
        Ok(DeviceBuffer {
            ptr,
            len,
            resource,
            stream: stream.clone(),
            _values: PhantomData,
        })
    }

    fn byte_len(&self) -> usize {
        self.len * size_of::<T>()
    }

    fn enqueue_upload(&self, values: &[T]) -> Result<(), RuntimeError> {
        debug_assert_eq!(values.len(), self.len);
        // SAFETY: the allocation holds `len` values of `T` (callers pass that
        // many), is aligned to 256 bytes, and is owned by this buffer, whose
        // memory is freed only after this work (stream order).
        unsafe { self.stream.upload(self.ptr.0, values) }
    }

    /// Overwrites the buffer with `values` (of the same length), in stream order.
    pub fn copy_from_host(&mut self, values: &[T]) -> Result<(), RuntimeError> {
        if values.len() != self.len {
            return Err(RuntimeError::InvalidArgument(format!(
                "copying {} values into a device buffer of {}",
                values.len(),
                self.len
            )));
        }
        self.enqueue_upload(values)
    }

    /// Copies all of `src` into this buffer from value `at`, device to
    /// device, in this buffer's stream order (after the work enqueued on
    /// `src`'s stream so far, and before later work there, when that is
    /// another stream).
    pub fn copy_from_device(&self, at: usize, src: &DeviceBuffer<T>) -> Result<(), RuntimeError> {
        if at.checked_add(src.len).is_none_or(|end| end > self.len) {
            return Err(RuntimeError::InvalidArgument(format!(
                "copying {} values to value {at} of a device buffer of {}",
                src.len, self.len
            )));
        }
        if src.len == 0 {
            return Ok(());
        }
        if self.ptr == src.ptr {
            return Err(RuntimeError::InvalidArgument(
                "copying a device buffer into itself".into(),
            ));
        }
        self.stream.wait_for(&src.stream)?;
        let (from, to) = (src.ptr.0, self.ptr.0 + (at * size_of::<T>()) as u64);
        // SAFETY: both ranges lie within their allocations (checked above),
        // which are distinct (two live buffers never share memory) and stay
        // allocated until after this work (stream order; `src`'s stream was
        // waited for).
        unsafe { self.stream.copy_device(from, to, src.len * size_of::<T>()) }?;
        // `src` may be freed (and its memory reused) on its own stream only
        // after the copy.
        src.stream.wait_for(&self.stream)
    }

    /// The values, copied to the host after the work enqueued on the
    /// buffer's stream so far (this waits for it).
    pub fn to_host(&self) -> Result<Vec<T>, RuntimeError> {
        self.to_host_range(0, self.len)
    }

    /// `len` values from `start`, copied to the host after the work enqueued
    /// on the buffer's stream so far (this waits for it).
    pub fn to_host_range(&self, start: usize, len: usize) -> Result<Vec<T>, RuntimeError> {
        let end = start
            .checked_add(len)
            .filter(|end| *end <= self.len)
            .ok_or_else(|| {
                RuntimeError::InvalidArgument(format!(
                    "values {start}..{} of a device buffer of {}",
                    start.saturating_add(len),
                    self.len
                ))
            })?;
        debug_assert_eq!(end - start, len);
        let address = self.ptr.0 + (start * size_of::<T>()) as u64;
        // SAFETY: `start..end` lies within the allocation (checked above),
        // whose bytes are all values of `T` (any bit pattern is one), and
        // which stays allocated until after the copy (this buffer is
        // borrowed until it returns).
        unsafe { self.stream.download(address, len) }
    }

    /// Copies the values into `out`, which must have room for exactly
    /// [`len`](Self::len) of them, after the work enqueued on the buffer's
    /// stream so far (this waits for it): a download into memory the
    /// caller reuses, with no allocation.
    pub fn copy_to_host(&self, out: &mut [T]) -> Result<(), RuntimeError> {
        if out.len() != self.len {
            return Err(RuntimeError::InvalidArgument(format!(
                "copying a device buffer of {} values into {} values",
                self.len,
                out.len()
            )));
        }
        // SAFETY: `out` is `len` values of `T`, `len * size_of::<T>()`
        // bytes, borrowed for as long as `bytes` lives; every bit pattern
        // written into them is a value of `T` (DeviceCopy).
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(
                out.as_mut_ptr().cast::<std::mem::MaybeUninit<u8>>(),
                std::mem::size_of_val(out),
            )
        };
        // SAFETY: the whole allocation, which stays allocated until after the
        // copy (this buffer is borrowed until it returns).
        unsafe { self.stream.download_into(self.ptr.0, bytes) }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no value.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device address of the first value.
    pub fn device_ptr(&self) -> DevicePtr {
        self.ptr
    }

    /// Makes `stream` the buffer's stream: later work on `stream` waits for
    /// the work enqueued on the old one so far, and the buffer is freed in
    /// `stream`'s order. This hands a result made on one stream to work on
    /// another.
    pub fn move_to_stream(&mut self, stream: &Stream) -> Result<(), RuntimeError> {
        stream.wait_for(&self.stream)?;
        self.stream = stream.clone();
        Ok(())
    }

    /// Hands the buffer to `stream` as [`DeviceBuffer::move_to_stream`]
    /// does, but waiting only for `ready`, an event recorded on the buffer's
    /// stream after the last work there that uses the buffer: work enqueued
    /// there since (other buffers' copies, say) goes on beside `stream`'s.
    pub fn move_to_stream_after(
        &mut self,
        stream: &Stream,
        ready: &Event,
    ) -> Result<(), RuntimeError> {
        ready.wait_on(stream)?;
        self.stream = stream.clone();
        Ok(())
    }

    /// The stream the buffer is used and freed on.
    pub fn stream(&self) -> &Stream {
        &self.stream
    }
}

impl<T: DeviceCopy> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        let bytes = self.byte_len() as u64;
        // SAFETY: the memory came from `resource.allocate(bytes, _)`, is freed
        // once, here, and the buffer (the only way to reach it) is going away.
        unsafe { self.resource.deallocate(self.ptr, bytes, &self.stream) }
    }
}
