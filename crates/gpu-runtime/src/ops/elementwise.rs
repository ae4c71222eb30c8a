//! Operations of the elementwise kernels (`kernels/cuda/elementwise.cu`): sequences and fills.

use super::*;

impl Ops<'_> {
    /// `start, start + 1, ...`: `n` row indices.
    pub fn iota(&self, n: usize, start: i64) -> Result<DeviceBuffer<i64>, RuntimeError> {
        let out = self.output::<i64>(n)?;
        self.launch(
            ids::iota_i64,
            Self::linear(n),
            KernelArgs::new().buffer(&out).arg(n as u64).arg(start),
        )?;
        Ok(out)
    }

    /// `n` copies of row index 0: gathering by them repeats a first row.
    pub fn repeat_first(&self, n: usize) -> Result<DeviceBuffer<i64>, RuntimeError> {
        self.zeroed(n)
    }

    /// `0, 1, ..., n - 1` as 32-bit row numbers (a sort's first permutation).
    pub fn rows(&self, n: usize) -> Result<DeviceBuffer<u32>, RuntimeError> {
        self.row_numbers(n, 0)
    }

    /// `start, start + 1, ...`: `n` 32-bit row numbers (Polars'
    /// `with_row_index` from `start`); refused where they do not fit.
    pub fn row_numbers(&self, n: usize, start: u32) -> Result<DeviceBuffer<u32>, RuntimeError> {
        check(
            u32::try_from(n)
                .ok()
                .and_then(|n| start.checked_add(n))
                .is_some(),
            || format!("{n} row numbers from {start} do not fit 32 bits"),
        )?;
        let out = self.output::<u32>(n)?;
        self.launch(
            ids::iota_u32,
            Self::linear(n),
            KernelArgs::new().buffer(&out).arg(n as u64).arg(start),
        )?;
        Ok(out)
    }
}
