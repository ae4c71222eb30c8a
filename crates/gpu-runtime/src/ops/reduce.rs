//! Operations of the reduction kernels (`kernels/cuda/reduce.cu`): sums and extremes of whole buffers.

use super::*;

/// Blocks of a device-wide reduction's first launch, at most: one partial
/// each, which one block then reduces.
pub(super) const REDUCE_BLOCKS: u32 = 1024;

/// Float types Polars sums pairwise in their own type (f64, f32): the
/// kernels of the block sums, of a level of the tree, and of the total.
pub trait PairwiseSum: DeviceCopy {
    const KERNELS: [Kernel; 3];
}

impl PairwiseSum for f64 {
    const KERNELS: [Kernel; 3] = [
        ids::pairwise_sum_blocks_f64,
        ids::pairwise_sum_level_f64,
        ids::pairwise_sum_total_f64,
    ];
}

impl PairwiseSum for f32 {
    const KERNELS: [Kernel; 3] = [
        ids::pairwise_sum_blocks_f32,
        ids::pairwise_sum_level_f32,
        ids::pairwise_sum_total_f32,
    ];
}

impl Ops<'_> {
    /// Polars' sum of a whole float column of one chunk, bit for bit, in
    /// the values' type (polars-compute's `float_sum`; nulls add 0.0): the
    /// first n % 128 values in order, the rest in blocks of 128 summed in
    /// 16 lanes, the blocks' sums pairwise (see `kernels/cuda/reduce.cu`).
    /// One value.
    pub fn pairwise_sum<T: PairwiseSum>(
        &self,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
    ) -> Result<DeviceBuffer<T>, RuntimeError> {
        const BLOCK_VALUES: usize = 128;
        let [blocks_kernel, level_kernel, total_kernel] = T::KERNELS;
        let n = values.len();
        check_bitmap(validity, n, "validity")?;
        let head = n % BLOCK_VALUES;
        let blocks = n / BLOCK_VALUES;
        let sums = self.zeroed::<T>(blocks.max(1))?;
        if blocks > 0 {
            // Sixteen threads a block.
            let args = KernelArgs::new()
                .buffer(values)
                .arg(ptr(validity))
                .arg(head as u64)
                .arg(blocks as u64)
                .buffer(&sums);
            self.launch(blocks_kernel, Self::linear(blocks * 16), args)?;
        }
        // The tree's levels, the deepest first: at depth `depth` every node
        // holds at most one block.
        let depth = blocks.max(1).next_power_of_two().trailing_zeros();
        let nodes = 1usize << depth;
        let (mut below, mut level) = (self.zeroed::<T>(nodes)?, self.zeroed::<T>(nodes)?);
        for d in (0..=depth).rev() {
            let args = KernelArgs::new()
                .buffer(&sums)
                .arg(blocks as u64)
                .arg(d)
                .buffer(&below)
                .buffer(&level);
            self.launch(level_kernel, Self::linear(1 << d), args)?;
            std::mem::swap(&mut below, &mut level);
        }
        let out = self.zeroed::<T>(1)?;
        let args = KernelArgs::new()
            .buffer(values)
            .arg(ptr(validity))
            .arg(head as u64)
            .arg(blocks as u64)
            .buffer(&below)
            .buffer(&out);
        self.launch(total_kernel, LaunchConfig::linear(1, 32, 1), args)?;
        Ok(out)
    }

    /// The sum of the valid values of the whole buffer (0 for none),
    /// wrapping in the accumulator type, as a one-element buffer. Float
    /// sums are in the device's order, not Polars' (see
    /// [`Ops::pairwise_sum`] for that).
    pub fn reduce_sum<T: Aggregable>(
        &self,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
    ) -> Result<DeviceBuffer<T::Sum>, RuntimeError> {
        self.reduce((T::REDUCE_SUM, T::REDUCE_SUM_OF_SUMS), values, validity)
    }

    /// The minimum (or maximum) of the valid values of the whole buffer as
    /// a one-element buffer: the type's highest (lowest) value for none
    /// (NaN for floats); floats skip NaN unless every value is NaN.
    pub fn reduce_extreme<T: Aggregable>(
        &self,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        max: bool,
    ) -> Result<DeviceBuffer<T>, RuntimeError> {
        let kernel = if max { T::REDUCE_MAX } else { T::REDUCE_MIN };
        self.reduce((kernel, kernel), values, validity)
    }

    /// A device-wide reduction in two launches: `first` writes one partial
    /// per block (grid-stride over the values), `second` reduces the
    /// partials in one block.
    pub(super) fn reduce<T: DeviceCopy, A: DeviceCopy>(
        &self,
        (first, second): (Kernel, Kernel),
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
    ) -> Result<DeviceBuffer<A>, RuntimeError> {
        let n = values.len();
        check_bitmap(validity, n, "validity")?;
        // Enough blocks to fill a large GPU with a few waves of loads each.
        let config = LaunchConfig::linear(n.max(1) as u64, BLOCK, REDUCE_BLOCKS);
        let blocks = config.grid.0 as usize;
        let partials = self.output::<A>(blocks)?;
        let args = KernelArgs::new()
            .buffer(values)
            .arg(ptr(validity))
            .arg(n as u64)
            .buffer(&partials);
        self.launch(first, config, args)?;
        self.reduce_partials(second, &partials)
    }

    /// One block's reduction of a first launch's `partials` by `kernel`
    /// (a reduction kernel, as over values without validity).
    pub(super) fn reduce_partials<A: DeviceCopy>(
        &self,
        kernel: Kernel,
        partials: &DeviceBuffer<A>,
    ) -> Result<DeviceBuffer<A>, RuntimeError> {
        let out = self.output::<A>(1)?;
        let args = KernelArgs::new()
            .buffer(partials)
            .arg(DevicePtr::NULL)
            .arg(partials.len() as u64)
            .buffer(&out);
        self.launch(kernel, LaunchConfig::linear(1, BLOCK, 1), args)?;
        Ok(out)
    }
}
