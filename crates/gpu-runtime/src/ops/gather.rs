//! Operations of the gather kernels (`kernels/cuda/gather.cu`): gathers and scatters of values, bits and strings.

use super::*;

/// Element types with a gather kernel.
pub trait Gather: DeviceCopy {
    const KERNEL: Kernel;
}

/// Element types with a scatter kernel.
pub trait Scatter: DeviceCopy {
    const KERNEL: Kernel;
}

kernel_for!(Gather: u8 => gather_u8, i8 => gather_i8, i16 => gather_i16, u16 => gather_u16,
    i32 => gather_i32, u32 => gather_u32, i64 => gather_i64, u64 => gather_u64,
    f32 => gather_f32, f64 => gather_f64);
kernel_for!(Scatter: u8 => scatter_u8, i8 => scatter_i8, i16 => scatter_i16, u16 => scatter_u16,
    i32 => scatter_i32, u32 => scatter_u32, i64 => scatter_i64, u64 => scatter_u64,
    f32 => scatter_f32, f64 => scatter_f64);

impl Ops<'_> {
    /// `values[indices[i]]` with validity; an index out of range gives null.
    pub fn gather<T: Gather>(
        &self,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        indices: &DeviceBuffer<i64>,
    ) -> Result<(DeviceBuffer<T>, DeviceBuffer<u32>), RuntimeError> {
        check_bitmap(validity, values.len(), "validity")?;
        let n = indices.len();
        let out = self.output::<T>(n)?;
        let out_validity = self.output::<u32>(words(n))?;
        let args = KernelArgs::new()
            .buffer(values)
            .arg(ptr(validity))
            .arg(values.len() as u64)
            .buffer(indices)
            .arg(n as u64)
            .buffer(&out)
            .buffer(&out_validity);
        self.launch(T::KERNEL, Self::linear(n), args)?;
        Ok((out, out_validity))
    }

    /// `out[indices[i]] = values[i]`, with its validity bit, for every i;
    /// indices outside `out` are skipped, and must otherwise be distinct.
    pub fn scatter<T: Scatter>(
        &self,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        indices: &DeviceBuffer<i64>,
        out: &DeviceBuffer<T>,
        out_validity: &DeviceBuffer<u32>,
    ) -> Result<(), RuntimeError> {
        let n = values.len();
        check(indices.len() == n, || {
            format!("{} indices for {n} values", indices.len())
        })?;
        check_bitmap(validity, n, "validity")?;
        check_bitmap(Some(out_validity), out.len(), "output validity")?;
        let args = KernelArgs::new()
            .buffer(values)
            .arg(ptr(validity))
            .buffer(indices)
            .arg(n as u64)
            .buffer(out)
            .buffer(out_validity)
            .arg(out.len() as u64);
        self.launch(<T as Scatter>::KERNEL, Self::linear(n), args)
    }

    /// Gather of `n_values` packed booleans.
    pub fn gather_bits(
        &self,
        bits: &DeviceBuffer<u32>,
        n_values: usize,
        validity: Option<&DeviceBuffer<u32>>,
        indices: &DeviceBuffer<i64>,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), RuntimeError> {
        check_bitmap(Some(bits), n_values, "value")?;
        check_bitmap(validity, n_values, "validity")?;
        let n = indices.len();
        let out = self.zeroed::<u32>(words(n))?;
        let out_validity = self.zeroed::<u32>(words(n))?;
        let args = KernelArgs::new()
            .buffer(bits)
            .arg(ptr(validity))
            .arg(n_values as u64)
            .buffer(indices)
            .arg(n as u64)
            .buffer(&out)
            .buffer(&out_validity);
        self.launch(ids::gather_bits, Self::linear(n), args)?;
        Ok((out, out_validity))
    }

    /// Gather of strings (`offsets` has one more entry than there are strings).
    pub fn gather_strings(
        &self,
        offsets: &DeviceBuffer<i64>,
        bytes: &DeviceBuffer<u8>,
        validity: Option<&DeviceBuffer<u32>>,
        indices: &DeviceBuffer<i64>,
    ) -> Result<DeviceStrings, RuntimeError> {
        let n = indices.len();
        let (out_offsets, out_validity, total) = self.gathered_spans(offsets, validity, indices)?;
        let out_bytes = self.zeroed::<u8>(total)?;
        let args = KernelArgs::new()
            .buffer(offsets)
            .buffer(bytes)
            .buffer(indices)
            .buffer(&out_validity)
            .arg(n as u64)
            .buffer(&out_offsets)
            .buffer(&out_bytes);
        self.launch(ids::string_gather_bytes, Self::linear(n), args)?;
        Ok(DeviceStrings {
            offsets: out_offsets,
            bytes: out_bytes,
            validity: out_validity,
        })
    }

    /// The spans `offsets` delimit (one more offset than spans: the bytes
    /// of strings, the child rows of lists), gathered by `indices` (null
    /// where an index is out of bounds): the gathered spans' offsets (from
    /// 0), their validity and their total length.
    pub(crate) fn gathered_spans(
        &self,
        offsets: &DeviceBuffer<i64>,
        validity: Option<&DeviceBuffer<u32>>,
        indices: &DeviceBuffer<i64>,
    ) -> Result<(DeviceBuffer<i64>, DeviceBuffer<u32>, usize), RuntimeError> {
        check(!offsets.is_empty(), || "span offsets are empty".into())?;
        let n_values = offsets.len() - 1;
        check_bitmap(validity, n_values, "validity")?;
        let n = indices.len();
        // One extra zero length, so the exclusive scan ends with the total.
        let lengths = self.zeroed::<i64>(n + 1)?;
        let out_validity = self.zeroed::<u32>(words(n))?;
        let args = KernelArgs::new()
            .buffer(offsets)
            .arg(ptr(validity))
            .arg(n_values as u64)
            .buffer(indices)
            .arg(n as u64)
            .buffer(&lengths)
            .buffer(&out_validity);
        self.launch(ids::string_gather_lengths, Self::linear(n), args)?;
        let out_offsets = self.exclusive_scan_i64(&lengths)?;
        let total = out_offsets.to_host_range(n, 1)?[0];
        Ok((
            out_offsets,
            out_validity,
            usize::try_from(total).unwrap_or(0),
        ))
    }
}
