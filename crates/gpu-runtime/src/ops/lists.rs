//! Operations of the list kernels (`kernels/cuda/lists.cu`): the child rows a gather or an explode of lists reads, and sums and means of lists of floats.

use super::*;

/// Lists gathered: their offsets (from 0), validity, and the child rows
/// they hold in turn (gather the child column by them).
#[derive(Debug)]
pub struct GatheredLists {
    pub offsets: DeviceBuffer<i64>,
    pub validity: DeviceBuffer<u32>,
    pub rows: DeviceBuffer<i64>,
}

/// Lists exploded: for each row they become, the list it came from and
/// the child row it holds (-1 for the null row of an empty or null list).
#[derive(Debug)]
pub struct ExplodedLists {
    pub parents: DeviceBuffer<i64>,
    pub values: DeviceBuffer<i64>,
}

/// Values whose lists [`Ops::list_float_sums`] sums or averages in Polars'
/// order: `Out` the result's type, `SUM` the kernel of sums (none for
/// integers, whose sums are exact elsewhere), `MEAN` of means.
pub trait ListSummed: DeviceCopy {
    type Out: DeviceCopy;
    const SUM: Option<Kernel>;
    const MEAN: Kernel;
}

impl ListSummed for f64 {
    type Out = f64;
    const SUM: Option<Kernel> = Some(ids::list_float_sums_f64);
    const MEAN: Kernel = ids::list_float_sums_f64;
}

impl ListSummed for f32 {
    type Out = f32;
    const SUM: Option<Kernel> = Some(ids::list_float_sums_f32);
    const MEAN: Kernel = ids::list_float_means_f32;
}

impl ListSummed for i64 {
    type Out = f64;
    const SUM: Option<Kernel> = None;
    const MEAN: Kernel = ids::list_float_means_i64;
}

impl ListSummed for u64 {
    type Out = f64;
    const SUM: Option<Kernel> = None;
    const MEAN: Kernel = ids::list_float_means_u64;
}

/// Which of Polars' two paths a list's float sum takes (see
/// [`Ops::list_float_sums`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListSumPath {
    /// By the child: each list's values in order where it holds no null,
    /// else each list as a column of its own (Polars' `list.sum` and
    /// `list.mean` of numbers).
    ByNulls,
    /// Each list as a column of its own whatever the child holds (Polars'
    /// `list.mean` of decimals, by their scaled integers).
    AsColumns,
}

impl Ops<'_> {
    /// Polars' `list.sum` (or, with `mean`, `list.mean`) of the lists
    /// `offsets` (one more than the lists, from 0) delimit in the child
    /// `values` (with `validity`), in the order Polars adds them: where the
    /// child holds no null (and `path` goes by the nulls), each list's
    /// values in order from -0.0 (a mean over the list's length, null for
    /// an empty list); else each list as a column of its own
    /// (polars-compute's float sum: the first `len % 128` values in order,
    /// blocks of 128 in 16 lanes, the blocks pairwise; a sum 0.0 where no
    /// value is valid, a mean over the valid values, null for none). The
    /// results and their validity (a null list's result is the caller's to
    /// null).
    pub fn list_float_sums<T: ListSummed>(
        &self,
        offsets: &DeviceBuffer<i64>,
        (values, validity): (&DeviceBuffer<T>, Option<&DeviceBuffer<u32>>),
        (mean, path): (bool, ListSumPath),
    ) -> Result<(DeviceBuffer<T::Out>, DeviceBuffer<u32>), RuntimeError> {
        check(!offsets.is_empty(), || "list offsets are empty".into())?;
        let n = offsets.len() - 1;
        check_bitmap(validity, values.len(), "validity")?;
        let kernel = match (mean, T::SUM) {
            (true, _) => T::MEAN,
            (false, Some(sum)) => sum,
            (false, None) => {
                return Err(RuntimeError::InvalidArgument(
                    "integer lists are not summed as floats".into(),
                ));
            }
        };
        // (The kernel takes the column path where the count of valid
        // values is not the child's length: u64::MAX never is.)
        let valid_total = match path {
            ListSumPath::AsColumns => Some(DeviceBuffer::from_host(
                &[u64::MAX],
                self.memory.clone(),
                self.stream,
            )?),
            ListSumPath::ByNulls => validity
                .map(|bits| self.count_set(bits, values.len()))
                .transpose()?,
        };
        let out = self.zeroed::<T::Out>(n)?;
        let out_validity = self.zeroed::<u32>(words(n))?;
        let args = KernelArgs::new()
            .buffer(offsets)
            .arg(n as u64)
            .buffer(values)
            .arg(ptr(validity))
            .arg(
                valid_total
                    .as_ref()
                    .map_or(DevicePtr::NULL, |total| total.device_ptr()),
            )
            .arg(values.len() as u64)
            .arg(u32::from(mean))
            .buffer(&out)
            .buffer(&out_validity);
        self.launch(kernel, Self::linear(n), args)?;
        Ok((out, out_validity))
    }

    /// The lists `offsets` (one more than the lists) and `validity` hold,
    /// gathered by `indices`: an index out of bounds gives a null list.
    pub fn gather_lists(
        &self,
        offsets: &DeviceBuffer<i64>,
        validity: Option<&DeviceBuffer<u32>>,
        indices: &DeviceBuffer<i64>,
    ) -> Result<GatheredLists, RuntimeError> {
        let n = indices.len();
        let (out_offsets, out_validity, total) = self.gathered_spans(offsets, validity, indices)?;
        let rows = self.zeroed::<i64>(total)?;
        let args = KernelArgs::new()
            .buffer(offsets)
            .buffer(indices)
            .buffer(&out_validity)
            .arg(n as u64)
            .buffer(&out_offsets)
            .buffer(&rows);
        self.launch(ids::list_gather_rows, Self::linear(n), args)?;
        Ok(GatheredLists {
            offsets: out_offsets,
            validity: out_validity,
            rows,
        })
    }

    /// Polars' explode of the lists `offsets` and `validity` hold: each
    /// list's values in turn, an empty list one null row where
    /// `empty_as_null` (else none), a null list one null row where
    /// `keep_nulls` (else none).
    pub fn explode_lists(
        &self,
        offsets: &DeviceBuffer<i64>,
        validity: Option<&DeviceBuffer<u32>>,
        empty_as_null: bool,
        keep_nulls: bool,
    ) -> Result<ExplodedLists, RuntimeError> {
        check(!offsets.is_empty(), || "list offsets are empty".into())?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        // One extra zero count, so the exclusive scan ends with the total.
        let counts = self.zeroed::<i64>(n + 1)?;
        let args = KernelArgs::new()
            .buffer(offsets)
            .arg(ptr(validity))
            .arg(n as u64)
            .arg(u32::from(empty_as_null))
            .arg(u32::from(keep_nulls))
            .buffer(&counts);
        self.launch(ids::list_explode_counts, Self::linear(n), args)?;
        let starts = self.exclusive_scan_i64(&counts)?;
        let total = starts.to_host_range(n, 1)?[0];
        let total = usize::try_from(total).unwrap_or(0);
        let parents = self.zeroed::<i64>(total)?;
        let values = self.zeroed::<i64>(total)?;
        let args = KernelArgs::new()
            .buffer(offsets)
            .arg(ptr(validity))
            .arg(n as u64)
            .buffer(&starts)
            .buffer(&parents)
            .buffer(&values);
        self.launch(ids::list_explode_rows, Self::linear(n), args)?;
        Ok(ExplodedLists { parents, values })
    }

    /// The number of values of each list (`offsets` one more than the
    /// lists), null where the list is null.
    pub fn list_lengths(
        &self,
        offsets: &DeviceBuffer<i64>,
        validity: Option<&DeviceBuffer<u32>>,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), RuntimeError> {
        // The span lengths string_lengths counts in bytes; it reads no byte
        // when not counting characters.
        let no_bytes = self.zeroed::<u8>(0)?;
        self.string_lengths(offsets, &no_bytes, validity, false)
    }

    /// Polars' `list.get` at `index` (from the end when negative) of each
    /// list: the child rows to gather (-1, a null, where the list is null
    /// or has no such place), and a flag set to 1 where a valid list has
    /// no such place.
    pub fn list_get_rows(
        &self,
        offsets: &DeviceBuffer<i64>,
        validity: Option<&DeviceBuffer<u32>>,
        index: i64,
    ) -> Result<(DeviceBuffer<i64>, DeviceBuffer<u32>), RuntimeError> {
        check(!offsets.is_empty(), || "list offsets are empty".into())?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        let rows = self.zeroed::<i64>(n)?;
        let outside = self.zeroed::<u32>(1)?;
        let args = KernelArgs::new()
            .buffer(offsets)
            .arg(ptr(validity))
            .arg(n as u64)
            .arg(index)
            .buffer(&rows)
            .buffer(&outside);
        self.launch(ids::list_get_rows, Self::linear(n), args)?;
        Ok((rows, outside))
    }
}
