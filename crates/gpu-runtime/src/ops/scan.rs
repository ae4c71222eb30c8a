//! Operations of the scan kernels (`kernels/cuda/scan.cu`): prefix sums, compactions, fills, running extremes and sequential float sums.

use super::*;

/// Elements per tile of the running extremes (`cum_max`, `cum_min`).
pub(super) const SCAN_TILE: u64 = 4096;

/// Elements per tile of the single-pass scan: its kernels' block size
/// (`kScanBlock`, which `BLOCK` must equal) times the elements a thread
/// takes (`kScanItems`).
pub(super) const SCAN_PASS_TILE: u64 = BLOCK as u64 * 16;

/// 64-bit integer element types, read by kernels as plain words.
pub trait Word64: DeviceCopy {}

/// 64-bit values [`Ops::running_best`] orders: signed, unsigned or floats.
pub trait OrderedWord: DeviceCopy {
    /// How the kernels read the word: 0 signed, 1 unsigned, 2 a float.
    const KIND: u32;
}

impl OrderedWord for i64 {
    const KIND: u32 = 0;
}

impl OrderedWord for u64 {
    const KIND: u32 = 1;
}

impl OrderedWord for f64 {
    const KIND: u32 = 2;
}

impl Word64 for i64 {}

/// Float element types with a kernel of sequential sums.
pub trait SequentialSum: DeviceCopy {
    const KERNEL: Kernel;
}

kernel_for!(SequentialSum: f64 => sequential_sums_f64, f32 => sequential_sums_f32);

/// Element types with a kernel of sequential products ([`Ops::sequential_products`]).
pub trait SequentialProduct: DeviceCopy {
    const KERNEL: Kernel;
}

kernel_for!(SequentialProduct: i64 => sequential_products_i64, u64 => sequential_products_u64,
    f64 => sequential_products_f64, f32 => sequential_products_f32);

impl Word64 for u64 {}

impl Ops<'_> {
    /// Polars' `cum_max` (or `cum_min`, `minimum`) as rows to gather: for
    /// every row of `values` (nulls where `validity` says), the row of the
    /// best valid value at or before it, the earliest of equal values, or
    /// the row itself where it is null. Floats compare as Polars'
    /// `f64::max`/`min` do: NaN only where no number came before, both
    /// zeros alike. With `groups` (rows sorted by group, and each sorted
    /// position's group, as [`Ops::segment_ids`] numbers them) "before"
    /// follows that order, restarted in each group.
    pub fn running_best<T: OrderedWord>(
        &self,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        minimum: bool,
        groups: Option<(&DeviceBuffer<i64>, &DeviceBuffer<u32>)>,
    ) -> Result<DeviceBuffer<i64>, RuntimeError> {
        let n = values.len();
        check_bitmap(validity, n, "validity")?;
        if let Some((rows, group_of)) = groups {
            check(rows.len() == n && group_of.len() == n, || {
                format!(
                    "{} sorted rows and {} groups for {n} values",
                    rows.len(),
                    group_of.len()
                )
            })?;
        }
        let (rows, group_of) = groups.unzip();
        let n_tiles = (n as u64).div_ceil(SCAN_TILE).max(1);
        let per_tile = Self::per_tile(n_tiles, "scan")?;
        let inputs = || {
            KernelArgs::new()
                .buffer(values)
                .arg(ptr(validity))
                .arg(ptr(rows))
                .arg(ptr(group_of))
                .arg(n as u64)
                .arg(T::KIND)
                .arg(u32::from(minimum))
                .arg(SCAN_TILE)
        };
        let best = self.zeroed::<u64>(n)?;
        let runs = self.zeroed::<u64>(4 * n_tiles as usize)?;
        let out = self.zeroed::<i64>(n)?;
        self.launch(
            ids::running_best_tiles,
            per_tile,
            inputs().buffer(&best).buffer(&runs),
        )?;
        self.launch(
            ids::running_best_carries,
            LaunchConfig::linear(1, BLOCK, 1),
            KernelArgs::new().buffer(&runs).arg(n_tiles),
        )?;
        self.launch(
            ids::running_best_finish,
            per_tile,
            inputs().buffer(&best).buffer(&runs).buffer(&out),
        )?;
        Ok(out)
    }

    /// The rows where the predicate is true (and not null), in order.
    pub fn filter_indices(
        &self,
        bits: &DeviceBuffer<u32>,
        validity: Option<&DeviceBuffer<u32>>,
        n: usize,
    ) -> Result<DeviceBuffer<i64>, RuntimeError> {
        check_bitmap(Some(bits), n, "predicate")?;
        check_bitmap(validity, n, "validity")?;
        // A tile is a block's words, one a thread.
        let tiles = words(n).div_ceil(BLOCK as usize).max(1);
        let per_tile = Self::per_tile(tiles as u64, "compaction")?;
        // One extra zero count, so the exclusive scan ends with the total.
        let counts = self.zeroed::<u32>(tiles + 1)?;
        let args = KernelArgs::new()
            .buffer(bits)
            .arg(ptr(validity))
            .arg(n as u64)
            .buffer(&counts);
        self.launch(ids::compact_tile_counts, per_tile, args)?;
        let starts: DeviceBuffer<u64> = self.scan_counts(&counts)?;
        let count = usize::try_from(starts.to_host_range(tiles, 1)?[0]).unwrap_or(0);
        // compact_bits writes u64 rows; below 2^63 they are the same i64 bits.
        let out = self.output::<i64>(count)?;
        if count > 0 {
            let args = KernelArgs::new()
                .buffer(bits)
                .arg(ptr(validity))
                .arg(n as u64)
                .buffer(&starts)
                .buffer(&out);
            self.launch(ids::compact_bits, per_tile, args)?;
        }
        Ok(out)
    }

    /// Polars' forward (or backward) fill of the nulls of `n` rows, as the
    /// rows to gather from: each row's last valid row at or before it (the
    /// first at or after it), -1 where there is none or it is more than
    /// `limit` rows away.
    pub fn fill_sources(
        &self,
        validity: &DeviceBuffer<u32>,
        n: usize,
        forward: bool,
        limit: Option<u64>,
    ) -> Result<DeviceBuffer<i64>, RuntimeError> {
        check_bitmap(Some(validity), n, "validity")?;
        // One extra zero flag, so the exclusive scan ends with the count.
        let flags = self.zeroed::<u8>(n + 1)?;
        let args = KernelArgs::new()
            .buffer(validity)
            .arg(DevicePtr::NULL)
            .arg(n as u64)
            .buffer(&flags);
        self.launch(ids::filter_flags, Self::linear(n), args)?;
        let positions = self.scan_u8(&flags)?;
        let valid_rows = self.filter_indices(validity, None, n)?;
        let out = self.zeroed::<i64>(n)?;
        let args = KernelArgs::new()
            .buffer(&positions)
            .buffer(&valid_rows)
            .arg(valid_rows.len() as u64)
            .arg(n as u64)
            .arg(u32::from(forward))
            .arg(limit.unwrap_or(u64::MAX))
            .buffer(&out);
        self.launch(ids::fill_sources, Self::linear(n), args)?;
        Ok(out)
    }

    /// The rows whose flag is set, in order; `flags` has one extra zero entry.
    pub(super) fn indices_of_flags(
        &self,
        flags: &DeviceBuffer<u8>,
        n: usize,
    ) -> Result<DeviceBuffer<i64>, RuntimeError> {
        check(flags.len() > n, || "flags need one extra entry".into())?;
        let positions = self.scan_u8(flags)?;
        let count = positions.to_host_range(n, 1)?[0];
        let out = self.zeroed::<i64>(usize::try_from(count).unwrap_or(0))?;
        // compact_indices writes u64 indices; below 2^63 they are the same i64 bits.
        let args = KernelArgs::new()
            .buffer(flags)
            .buffer(&positions)
            .arg(n as u64)
            .buffer(&out);
        self.launch(ids::compact_indices, Self::linear(n), args)?;
        Ok(out)
    }

    /// Polars' `cum_sum` of floats, restarted in each group (`rows` in
    /// group order, `starts` each group's first position): each group's
    /// valid values added in order by one thread, as Polars' loop adds
    /// them (f32 values into an f64 sum, rounded to f32 as written); 0 at a
    /// null row. Exact, and sequential within a group.
    pub fn sequential_sums<T: SequentialSum>(
        &self,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceBuffer<T>, RuntimeError> {
        self.sequential(T::KERNEL, values, validity, (rows, starts))
    }

    /// Polars' `cum_prod`, restarted in each group (`rows` in group order,
    /// `starts` each group's first position): each group's valid values
    /// multiplied in order from 1 by one thread in their own type (integers
    /// wrapping, as Polars' release build does); 0 at a null row.
    pub fn sequential_products<T: SequentialProduct>(
        &self,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceBuffer<T>, RuntimeError> {
        self.sequential(T::KERNEL, values, validity, (rows, starts))
    }

    /// A sequential running `kernel` of `values` per group (one thread per
    /// group, in group order).
    fn sequential<T: DeviceCopy>(
        &self,
        kernel: Kernel,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        (rows, starts): (&DeviceBuffer<i64>, &DeviceBuffer<i64>),
    ) -> Result<DeviceBuffer<T>, RuntimeError> {
        check_bitmap(validity, values.len(), "validity")?;
        check(rows.len() == values.len(), || {
            format!("{} rows for {} values", rows.len(), values.len())
        })?;
        let out = self.zeroed::<T>(values.len())?;
        if values.is_empty() || starts.is_empty() {
            return Ok(out);
        }
        let args = KernelArgs::new()
            .buffer(values)
            .arg(ptr(validity))
            .buffer(rows)
            .buffer(starts)
            .arg(values.len() as u64)
            .arg(starts.len() as u64)
            .buffer(&out);
        self.launch(kernel, Self::linear(starts.len()), args)?;
        Ok(out)
    }

    /// Exclusive prefix sums of `values`.
    pub fn exclusive_scan_i64(
        &self,
        values: &DeviceBuffer<i64>,
    ) -> Result<DeviceBuffer<i64>, RuntimeError> {
        self.scan(values, ids::scan_i64, false)
    }

    /// Inclusive prefix sums of 64-bit integers, wrapping around (Polars'
    /// `cum_sum` of integers, as its release build computes it).
    pub fn inclusive_scan<T: Word64>(
        &self,
        values: &DeviceBuffer<T>,
        signed: bool,
    ) -> Result<DeviceBuffer<T>, RuntimeError> {
        let kernel = if signed { ids::scan_i64 } else { ids::scan_u64 };
        self.scan(values, kernel, true)
    }

    /// The exclusive scan of 32-bit counts into 64-bit offsets.
    pub(super) fn scan_counts(
        &self,
        counts: &DeviceBuffer<u32>,
    ) -> Result<DeviceBuffer<u64>, RuntimeError> {
        self.scan(counts, ids::scan_u32, false)
    }

    pub(super) fn scan_u8(
        &self,
        flags: &DeviceBuffer<u8>,
    ) -> Result<DeviceBuffer<u64>, RuntimeError> {
        self.scan(flags, ids::scan_u8, false)
    }

    /// Exclusive (or inclusive) sums of `input` in the kernel's
    /// accumulator type `A`: one launch of a single-pass scan over tiles of
    /// [`SCAN_PASS_TILE`] elements, with a status word and two values per
    /// tile for the look-back, and the tile counter.
    pub(super) fn scan<T: DeviceCopy, A: DeviceCopy>(
        &self,
        input: &DeviceBuffer<T>,
        kernel: Kernel,
        inclusive: bool,
    ) -> Result<DeviceBuffer<A>, RuntimeError> {
        let n = input.len() as u64;
        let out = self.output::<A>(n as usize)?;
        if n == 0 {
            return Ok(out);
        }
        let tiles = n.div_ceil(SCAN_PASS_TILE);
        let config = Self::per_tile(tiles, "scan")?;
        let status = self.zeroed::<u32>(tiles as usize + 1)?;
        let (totals, prefixes) = (
            self.zeroed::<A>(tiles as usize)?,
            self.zeroed::<A>(tiles as usize)?,
        );
        let args = KernelArgs::new()
            .buffer(input)
            .arg(n)
            .buffer(&out)
            .arg(u32::from(inclusive))
            .buffer(&status)
            .buffer(&totals)
            .buffer(&prefixes);
        self.launch(kernel, config, args)?;
        Ok(out)
    }
}
