//! Operations of the bitmap kernels (`kernels/cuda/bitmap.cu`): appends, conversions and counts of bits.

use super::*;

impl Ops<'_> {
    /// ORs the first `n` bits of `src` (`None`: `n` set bits, as a missing
    /// validity means) into `dst` from bit `at`. `dst` must start zeroed
    /// where the bits go: this is how bitmaps are concatenated.
    pub fn bitmap_append(
        &self,
        src: Option<&DeviceBuffer<u32>>,
        n: usize,
        dst: &DeviceBuffer<u32>,
        at: usize,
    ) -> Result<(), RuntimeError> {
        check_bitmap(src, n, "appended bitmap")?;
        check(at + n <= dst.len() * 32, || {
            format!("bits {at}..{} of a bitmap of {} words", at + n, dst.len())
        })?;
        let args = KernelArgs::new()
            .arg(ptr(src))
            .arg(n as u64)
            .buffer(dst)
            .arg(at as u64);
        self.launch(ids::bitmap_append, Self::linear(words(n)), args)
    }

    /// The first `n` flags (non-zero bytes) as a bitmap.
    pub fn flags_bitmap(
        &self,
        flags: &DeviceBuffer<u8>,
        n: usize,
    ) -> Result<DeviceBuffer<u32>, RuntimeError> {
        check(flags.len() >= n, || "flags too short".into())?;
        let out = self.zeroed::<u32>(words(n))?;
        let args = KernelArgs::new().buffer(flags).arg(n as u64).buffer(&out);
        self.launch(ids::bool_to_bitmap, Self::linear(n), args)?;
        Ok(out)
    }

    /// How many of the first `n` bits of `bits` are set, as one u64: a
    /// device-wide count in two launches (per-block counts, then their sum).
    pub fn count_set(
        &self,
        bits: &DeviceBuffer<u32>,
        n: usize,
    ) -> Result<DeviceBuffer<u64>, RuntimeError> {
        check_bitmap(Some(bits), n, "bitmap")?;
        let config = LaunchConfig::linear(words(n).max(1) as u64, BLOCK, REDUCE_BLOCKS);
        let partials = self.output::<u64>(config.grid.0 as usize)?;
        let args = KernelArgs::new()
            .buffer(bits)
            .arg(n as u64)
            .buffer(&partials);
        self.launch(ids::bitmap_popcount, config, args)?;
        self.reduce_partials(ids::reduce_sum_u64, &partials)
    }
}
