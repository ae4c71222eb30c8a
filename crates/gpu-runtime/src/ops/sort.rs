//! Operations of the sort kernels (`kernels/cuda/sort.cu`): sortable keys and the radix sort of rows.

use super::*;

/// Element types the radix sort orders (through sortable keys).
pub trait SortKey: Gather {
    /// The kernel that makes sortable keys of these values.
    const SORTABLE: Kernel;
    /// Whether the sortable keys are 64-bit (else 32-bit).
    const WIDE: bool;
    /// Whether the values, in ascending order, are their own sortable keys
    /// (unsigned integers): the sort's first pass then reads them.
    const OWN_KEYS: bool;
}

/// Keys a tile of a radix pass holds, in bytes: its shared copy of the
/// tile (`SortTile` in sort.cu).
pub(super) const SORT_TILE_BYTES: usize = 16384;

/// Keys the one-block radix sort takes at most, in bytes (`BlockSort` in
/// sort.cu).
pub(super) const BLOCK_SORT_BYTES: usize = 8192;

/// A column's values and validity, and the rows of it a sort orders
/// (`None`: every row, in order).
pub(super) type SortColumn<'a, T> = (
    &'a DeviceBuffer<T>,
    Option<&'a DeviceBuffer<u32>>,
    Option<&'a DeviceBuffer<u32>>,
);

/// The keys a sort's first radix pass reads, as sortable unsigned bits.
pub(super) enum FirstKeys<K: DeviceCopy> {
    /// Made for the sort; a later pass writes over them.
    Made(DeviceBuffer<K>),
    /// The values themselves (unsigned, ascending), which the caller
    /// borrows for the whole sort.
    Values(DevicePtr),
}

impl<K: DeviceCopy> FirstKeys<K> {
    pub(super) fn device_ptr(&self) -> DevicePtr {
        match self {
            Self::Made(keys) => keys.device_ptr(),
            Self::Values(values) => *values,
        }
    }
}

/// The kernels of LSD radix passes over one key width.
#[derive(Clone, Copy)]
pub(super) struct Radix {
    pub(super) digits: Kernel,
    pub(super) onesweep: Kernel,
    /// The whole sort in one launch, for at most [`BLOCK_SORT_BYTES`] of
    /// keys.
    pub(super) block_sort: Kernel,
    /// Keys from which the digit counts are read back, to skip the passes
    /// that would move nothing: below, the read-back costs more than the
    /// launches it may save. 32-bit keys: from 2^16. 64-bit keys: every
    /// sort above the block sort, since of their eight passes, sortable
    /// integers, text words and lengths usually leave several to skip.
    pub(super) skip_from: u64,
}

pub(super) const RADIX_U32: Radix = Radix {
    digits: ids::radix_digit_counts_u32,
    onesweep: ids::radix_onesweep_u32,
    block_sort: ids::radix_block_sort_u32,
    skip_from: 1 << 16,
};

pub(super) const RADIX_U64: Radix = Radix {
    digits: ids::radix_digit_counts_u64,
    onesweep: ids::radix_onesweep_u64,
    block_sort: ids::radix_block_sort_u64,
    skip_from: 0,
};

macro_rules! sort_key {
    ($($t:ty => $kernel:ident, $wide:expr, $own:expr),*) => {
        $(impl SortKey for $t {
            const SORTABLE: Kernel = ids::$kernel;
            const WIDE: bool = $wide;
            const OWN_KEYS: bool = $own;
        })*
    };
}
sort_key!(i32 => sortable_keys_i32, false, false, u32 => sortable_keys_u32, false, true,
    i64 => sortable_keys_i64, true, false, u64 => sortable_keys_u64, true, true,
    f32 => sortable_keys_f32, false, false, f64 => sortable_keys_f64, true, false);

impl Ops<'_> {
    /// A string column as u64 sort keys, most significant first: 8 bytes
    /// of every string per key (big-endian, zero past the end), then the
    /// lengths. Sorting or grouping by all of them sorts or groups by the
    /// strings in byte order (nulls give zeros; pass the validity with the
    /// most significant key). As many keys as the longest string needs;
    /// where the last key's lowest byte is past the end of every string
    /// (the longest is not a multiple of 8 bytes) and the strings are
    /// shorter than 256 bytes, that byte holds the length instead of a key
    /// of its own: one sort fewer (a column of one-letter flags is one
    /// key).
    pub fn string_sort_keys(
        &self,
        offsets: &DeviceBuffer<i64>,
        bytes: &DeviceBuffer<u8>,
        validity: Option<&DeviceBuffer<u32>>,
    ) -> Result<Vec<DeviceBuffer<u64>>, RuntimeError> {
        check(!offsets.is_empty(), || "string offsets are empty".into())?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        let lengths = self.output::<u64>(n)?;
        let args = KernelArgs::new()
            .buffer(offsets)
            .arg(ptr(validity))
            .arg(n as u64)
            .buffer(&lengths);
        self.launch(ids::string_key_length, Self::linear(n), args)?;
        let longest = if n == 0 {
            0
        } else {
            // The device-wide reduction (run 5: 99 % of the copy bandwidth).
            self.reduce_extreme(&lengths, None, true)?.to_host()?[0]
        };
        let chunks = longest.div_ceil(8);
        let with_length = longest % 8 != 0 && longest < 256;
        let mut keys = Vec::new();
        for chunk in 0..chunks {
            let out = self.output::<u64>(n)?;
            let args = string_args((offsets, bytes, validity), n)
                .arg(chunk)
                .arg(u32::from(with_length && chunk + 1 == chunks))
                .buffer(&out);
            self.launch(ids::string_key_chunk, Self::linear(n), args)?;
            keys.push(out);
        }
        if !with_length {
            keys.push(lengths);
        }
        Ok(keys)
    }

    /// 32-bit row numbers as the 64-bit indices gathers take.
    pub fn widen(&self, rows: &DeviceBuffer<u32>) -> Result<DeviceBuffer<i64>, RuntimeError> {
        let n = rows.len();
        let out = self.output::<i64>(n)?;
        self.launch(
            ids::widen_u32_i64,
            Self::linear(n),
            KernelArgs::new().buffer(rows).arg(n as u64).buffer(&out),
        )?;
        Ok(out)
    }

    /// One key of a stable multi-key sort: reorders `permutation` (row
    /// numbers of the column, in the order so far) by `values` at those rows,
    /// keeping the order of equal keys. Sorting by keys from the last to the
    /// first sorts by all of them. Nulls go first or last; floats sort in
    /// total order (NaN greatest, -0.0 equal to 0.0).
    pub fn sort_by<T: SortKey>(
        &self,
        permutation: DeviceBuffer<u32>,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        descending: bool,
        nulls_last: bool,
    ) -> Result<DeviceBuffer<u32>, RuntimeError> {
        self.sort_rows(Some(permutation), values, validity, descending, nulls_last)
    }

    /// The rows of `values` (0, 1, ...) in the order of a stable sort by
    /// them: [`Ops::sort_by`] from the rows in order, without reading the
    /// values through that permutation first.
    pub fn sorted_rows<T: SortKey>(
        &self,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        descending: bool,
        nulls_last: bool,
    ) -> Result<DeviceBuffer<u32>, RuntimeError> {
        self.sort_rows(None, values, validity, descending, nulls_last)
    }

    /// [`Ops::sort_by`] from `permutation`, or where that is `None`,
    /// [`Ops::sorted_rows`]: `permutation` (the rows in order) reordered by
    /// `values` (a column) at those rows, and by `validity`, the column's
    /// own; null rows tie, keeping their order. Without a permutation the
    /// first pass numbers the rows as it reads them.
    pub fn sort_rows<T: SortKey>(
        &self,
        permutation: Option<DeviceBuffer<u32>>,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        descending: bool,
        nulls_last: bool,
    ) -> Result<DeviceBuffer<u32>, RuntimeError> {
        let len = values.len();
        let n = permutation.as_ref().map_or(len, DeviceBuffer::len);
        match permutation {
            Some(_) => check(n <= len, || {
                format!("sorting {n} rows of a column of {len}")
            })?,
            None => check(u32::try_from(n).is_ok(), || {
                format!("{n} rows do not fit 32-bit row numbers")
            })?,
        }
        check_bitmap(validity, len, "validity")?;
        let column = (values, validity, permutation.as_ref());
        let permutation = if T::WIDE {
            let keys = self.first_keys::<T, u64>(column, descending)?;
            self.radix_passes(keys, permutation, n, 64, RADIX_U64)?
        } else {
            let keys = self.first_keys::<T, u32>(column, descending)?;
            self.radix_passes(keys, permutation, n, 32, RADIX_U32)?
        };
        let Some(validity) = validity else {
            return Ok(permutation);
        };
        // Nulls are the more significant part of the key: one more pass.
        let indices = self.widen(&permutation)?;
        let (valid, _) = self.gather_bits(validity, len, None, &indices)?;
        let keys = self.output::<u32>(n)?;
        let args = KernelArgs::new()
            .buffer(&valid)
            .arg(n as u64)
            .arg(u32::from(nulls_last))
            .buffer(&keys);
        self.launch(ids::null_sort_keys, Self::linear(n), args)?;
        self.radix_passes(FirstKeys::Made(keys), Some(permutation), n, 8, RADIX_U32)
    }

    /// Floats as u64 keys in total order, equal exactly when Polars counts
    /// the floats equal (every NaN one value, -0.0 equal to 0.0): what
    /// grouping by a float column compares.
    pub fn total_order_keys(
        &self,
        values: &DeviceBuffer<f64>,
    ) -> Result<DeviceBuffer<u64>, RuntimeError> {
        let keys = self.output::<u64>(values.len())?;
        self.sortable((values, None, None), false, &keys, ids::sortable_keys_f64)?;
        Ok(keys)
    }

    /// The sortable keys (`K`: u32, or u64 for wide keys) of a column's
    /// `values` at `rows` (`None`: every row in order), key 0 at its null
    /// rows (`validity`): the values themselves where they are their own
    /// keys, else made, read through `rows` in the same pass.
    pub(super) fn first_keys<T: SortKey, K: DeviceCopy>(
        &self,
        column: SortColumn<'_, T>,
        descending: bool,
    ) -> Result<FirstKeys<K>, RuntimeError> {
        let (values, validity, rows) = column;
        if T::OWN_KEYS && !descending && validity.is_none() && rows.is_none() {
            return Ok(FirstKeys::Values(values.device_ptr()));
        }
        let keys = self.output::<K>(rows.map_or(values.len(), DeviceBuffer::len))?;
        self.sortable(column, descending, &keys, T::SORTABLE)?;
        Ok(FirstKeys::Made(keys))
    }

    pub(super) fn sortable<T: DeviceCopy, K: DeviceCopy>(
        &self,
        (values, validity, rows): SortColumn<'_, T>,
        descending: bool,
        keys: &DeviceBuffer<K>,
        kernel: Kernel,
    ) -> Result<(), RuntimeError> {
        let n = keys.len();
        let args = KernelArgs::new()
            .buffer(values)
            .arg(ptr(validity))
            .arg(ptr(rows))
            .arg(values.len() as u64)
            .arg(n as u64)
            .arg(u32::from(descending))
            .buffer(keys);
        self.launch(kernel, Self::linear(n), args)
    }

    /// LSD radix passes over the low `bits` of the `n` keys, moving
    /// `payload` along (`None`: the rows 0, 1, ..., which the first pass
    /// makes as it reads). Up to [`BLOCK_SORT_BYTES`] of keys, the whole
    /// sort is one launch of one block (`radix_block_sort`). Otherwise the
    /// digits of every pass are counted first (one launch), then each pass
    /// is one launch (`radix_onesweep`); the last writes only the payload.
    /// From `Radix::skip_from` keys on, the counts are read back, and a pass
    /// whose digit is the same for every key is skipped: it would move
    /// nothing.
    pub(super) fn radix_passes<K: DeviceCopy>(
        &self,
        keys: FirstKeys<K>,
        payload: Option<DeviceBuffer<u32>>,
        n: usize,
        bits: u32,
        radix: Radix,
    ) -> Result<DeviceBuffer<u32>, RuntimeError> {
        let unsorted = |payload: Option<DeviceBuffer<u32>>| match payload {
            Some(payload) => Ok(payload),
            None => self.rows(n),
        };
        if n <= 1 {
            return unsorted(payload);
        }
        let passes = bits.div_ceil(8);
        let key_bytes = size_of::<K>();
        if n * key_bytes <= BLOCK_SORT_BYTES {
            // Every pass in one launch, skipping the trivial ones on the
            // device.
            let sorted = self.output::<u32>(n)?;
            let args = KernelArgs::new()
                .arg(keys.device_ptr())
                .arg(ptr(payload.as_ref()))
                .arg(n as u32)
                .arg(passes)
                .buffer(&sorted);
            self.launch(radix.block_sort, LaunchConfig::linear(1, BLOCK, 1), args)?;
            return Ok(sorted);
        }
        let mut needed = vec![true; passes as usize];
        // Every pass's digit counts over the whole input: where each
        // digit's keys start in the output of its pass.
        let digits = self.zeroed::<u32>(256 * passes as usize)?;
        let args = KernelArgs::new()
            .arg(keys.device_ptr())
            .arg(n as u64)
            .arg(passes)
            .buffer(&digits);
        self.launch(radix.digits, Self::linear(n), args)?;
        if n as u64 >= radix.skip_from {
            let counts = digits.to_host()?;
            for (pass, counts) in counts.chunks(256).enumerate() {
                needed[pass] = !counts.iter().any(|&count| count as usize == n);
            }
        }
        let shifts: Vec<u32> = (0..bits)
            .step_by(8)
            .zip(&needed)
            .filter_map(|(shift, needed)| needed.then_some(shift))
            .collect();
        if shifts.is_empty() {
            return unsorted(payload);
        }
        let tiles = (n * key_bytes).div_ceil(SORT_TILE_BYTES);
        let per_tile = Self::per_tile(tiles as u64, "sort")?;
        let (mut keys, mut payload) = (Some(keys), payload);
        // The buffers a pass has read, for the pass after the next to
        // write over (the stream runs the passes in order).
        let (mut spare_keys, mut spare_payload) = (None, None);
        for (pass, &shift) in shifts.iter().enumerate() {
            // The last pass leaves the keys unwritten: only their order counts.
            let keys_out = match (pass + 1 == shifts.len(), spare_keys.take()) {
                (true, _) => None,
                (false, Some(spare)) => Some(spare),
                (false, None) => Some(self.output::<K>(n)?),
            };
            let payload_out = match spare_payload.take() {
                Some(spare) => spare,
                None => self.output::<u32>(n)?,
            };
            // Each tile's published digit counts, and the tile counter.
            let status = self.zeroed::<u64>(256 * tiles + 1)?;
            let args = KernelArgs::new()
                .arg(keys.as_ref().map_or(DevicePtr::NULL, FirstKeys::device_ptr))
                .arg(ptr(payload.as_ref()))
                .arg(n as u64)
                .arg(shift)
                .buffer(&digits)
                .buffer(&status)
                .arg(ptr(keys_out.as_ref()))
                .buffer(&payload_out);
            self.launch(radix.onesweep, per_tile, args)?;
            if let Some(FirstKeys::Made(read)) =
                std::mem::replace(&mut keys, keys_out.map(FirstKeys::Made))
            {
                spare_keys = Some(read);
            }
            spare_payload = payload.replace(payload_out);
        }
        unsorted(payload)
    }
}
