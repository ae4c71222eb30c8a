//! Operations of the group-by kernels (`kernels/cuda/groupby.cu`): group starts and per-group aggregations and ranks.

use super::*;

/// Rows of a chunk of a large group: each chunk is reduced by one thread,
/// then each group's chunks (see [`Ops::chunks`]).
pub const CHUNK_ROWS: usize = 256;

/// Which groups a variance is of, each taken in Polars' order for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarianceOf {
    /// A group-by's groups: Welford's steps in row order, bit for bit (where
    /// some group has more than [`WELFORD_MOST`] rows, two passes over
    /// chunks instead, each group's mean and then its squared deviations,
    /// whose last bits may differ).
    Groups,
    /// A whole column's, or each list's (`ChunkVar::var`, bit for bit where
    /// Polars holds the values in one chunk).
    Columns,
}

/// Rows of the largest group whose variance takes Welford's steps in row
/// order, as Polars' group-by takes it (one thread a group); groups beyond
/// take two passes over chunks, whose last bits may differ.
pub const WELFORD_MOST: usize = 1 << 16;

/// Chunks of one group's variance beyond which the host folds them
/// ([`fold_moments`]) rather than one device thread.
const HOST_FOLD: usize = 1024;

/// The variance (`ddof`) of chunks' weights, means and sums of squared
/// deviations, merged in order as polars-compute's `VarState::combine`
/// merges them and finished as its `finalize` (`None` for no more than
/// `ddof` values; a negative variance 0.0): `fold_chunk_moments_f64`'s
/// arithmetic, step for step.
fn fold_moments((weights, means, squares): (&[f64], &[f64], &[f64]), ddof: u8) -> Option<f64> {
    let (mut weight, mut mean, mut dp) = (0.0f64, 0.0f64, 0.0f64);
    for ((&other_weight, &other_mean), &other_dp) in weights.iter().zip(means).zip(squares) {
        if other_weight == 0.0 {
            continue;
        }
        let new_weight = weight + other_weight;
        let other_weight_frac = other_weight / new_weight;
        let delta_mean = other_mean - mean;
        let new_mean = mean + delta_mean * other_weight_frac;
        dp += other_dp + other_weight * (other_mean - new_mean) * delta_mean;
        weight = new_weight;
        mean = new_mean;
    }
    let ddof = f64::from(ddof);
    (weight > ddof).then(|| match dp / (weight - ddof) {
        variance if variance < 0.0 => 0.0,
        variance => variance,
    })
}

/// Values of a chunk of Polars' variance of a column (polars-compute's
/// `moment::CHUNK_SIZE`).
const VARIANCE_CHUNK: usize = 128;

/// How a quantile between two values is chosen (Polars' methods; the
/// kernel's numbering).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuantileMethod {
    Nearest = 0,
    Lower = 1,
    Higher = 2,
    Midpoint = 3,
    Linear = 4,
    Equiprobable = 5,
}

impl QuantileMethod {
    /// The method Polars names `name` (`"linear"`, ...).
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "nearest" => Self::Nearest,
            "lower" => Self::Lower,
            "higher" => Self::Higher,
            "midpoint" => Self::Midpoint,
            "linear" => Self::Linear,
            "equiprobable" => Self::Equiprobable,
            _ => return None,
        })
    }
}

/// Which place Polars' `rank` gives tied values (its `average` method is
/// [`Ops::rank_averages`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RankPlace {
    /// The first place of the run of ties.
    Min = 0,
    /// The last place of the run.
    Max = 1,
    /// The run's number among the partition's runs.
    Dense = 2,
    /// Each row its own place, in sorted order.
    Ordinal = 3,
}

/// Key types a group-by runs of sorted keys over.
pub trait GroupKey: SortKey {
    const FLAGS: Kernel;
}

/// Value types the aggregations take: per group (sums keep the type), and
/// over the whole buffer ([`Ops::reduce_sum`], [`Ops::reduce_extreme`]),
/// whose sums accumulate in `Sum` (integers of 32 bits in 64), reduced
/// from the block partials by `REDUCE_SUM_OF_SUMS`.
pub trait Aggregable: Gather {
    const SUM: Kernel;
    /// Sums as doubles (the partials of a mean).
    const SUM_F64: Kernel;
    const MEAN: Kernel;
    const MIN: Kernel;
    const MAX: Kernel;
    const FIRST: Kernel;
    const LAST: Kernel;
    type Sum: DeviceCopy;
    const REDUCE_SUM: Kernel;
    const REDUCE_SUM_OF_SUMS: Kernel;
    const REDUCE_MIN: Kernel;
    const REDUCE_MAX: Kernel;
}

/// Element types a group's product is taken in: 64-bit integers (Polars
/// multiplies smaller integers as i64), wrapping, and floats, in order.
pub trait Multipliable: DeviceCopy {
    const PRODUCT: Kernel;
    /// Whether the product depends on the order of the factors (floats
    /// round at every step): then each group is multiplied by one thread
    /// from its first value to its last, never in chunks.
    const IN_ORDER: bool;
}

impl Multipliable for i64 {
    const PRODUCT: Kernel = ids::segment_product_i64;
    const IN_ORDER: bool = false;
}

impl Multipliable for u64 {
    const PRODUCT: Kernel = ids::segment_product_u64;
    const IN_ORDER: bool = false;
}

impl Multipliable for f64 {
    const PRODUCT: Kernel = ids::segment_product_f64;
    const IN_ORDER: bool = true;
}

impl Multipliable for f32 {
    const PRODUCT: Kernel = ids::segment_product_f32;
    const IN_ORDER: bool = true;
}

/// Per-group aggregations that keep the value type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentPick {
    Min,
    Max,
    First,
    Last,
}

impl GroupKey for i32 {
    const FLAGS: Kernel = ids::group_flags_i32;
}

impl GroupKey for i64 {
    const FLAGS: Kernel = ids::group_flags_i64;
}

impl GroupKey for u32 {
    const FLAGS: Kernel = ids::group_flags_u32;
}

impl GroupKey for u64 {
    const FLAGS: Kernel = ids::group_flags_u64;
}

/// A split of groups into chunks (see [`Ops::chunks`]).
pub(super) struct Chunks {
    pub(super) starts: DeviceBuffer<i64>,
    pub(super) offsets: DeviceBuffer<i64>,
}

macro_rules! aggregable {
    ($($t:ty => $sum:ident, $sum_f64:ident, $mean:ident, $min:ident, $max:ident, $first:ident, $last:ident;
        $acc:ty, $reduce_sum:ident, $sum_of_sums:ident, $reduce_min:ident, $reduce_max:ident);*) => {
        $(impl Aggregable for $t {
            const SUM: Kernel = ids::$sum;
            const SUM_F64: Kernel = ids::$sum_f64;
            const MEAN: Kernel = ids::$mean;
            const MIN: Kernel = ids::$min;
            const MAX: Kernel = ids::$max;
            const FIRST: Kernel = ids::$first;
            const LAST: Kernel = ids::$last;
            type Sum = $acc;
            const REDUCE_SUM: Kernel = ids::$reduce_sum;
            const REDUCE_SUM_OF_SUMS: Kernel = ids::$sum_of_sums;
            const REDUCE_MIN: Kernel = ids::$reduce_min;
            const REDUCE_MAX: Kernel = ids::$reduce_max;
        })*
    };
}
aggregable!(
    i32 => segment_sum_i32, segment_sum_i32_f64, segment_mean_i32, segment_min_i32, segment_max_i32, segment_first_i32, segment_last_i32;
        i64, reduce_sum_i32, reduce_sum_i64, reduce_min_i32, reduce_max_i32;
    i64 => segment_sum_i64, segment_sum_i64_f64, segment_mean_i64, segment_min_i64, segment_max_i64, segment_first_i64, segment_last_i64;
        i64, reduce_sum_i64, reduce_sum_i64, reduce_min_i64, reduce_max_i64;
    u32 => segment_sum_u32, segment_sum_u32_f64, segment_mean_u32, segment_min_u32, segment_max_u32, segment_first_u32, segment_last_u32;
        u64, reduce_sum_u32, reduce_sum_u64, reduce_min_u32, reduce_max_u32;
    u64 => segment_sum_u64, segment_sum_u64_f64, segment_mean_u64, segment_min_u64, segment_max_u64, segment_first_u64, segment_last_u64;
        u64, reduce_sum_u64, reduce_sum_u64, reduce_min_u64, reduce_max_u64;
    f64 => segment_sum_f64, segment_sum_f64, segment_mean_f64, segment_min_f64, segment_max_f64, segment_first_f64, segment_last_f64;
        f64, reduce_sum_f64, reduce_sum_f64, reduce_min_f64, reduce_max_f64
);

impl Ops<'_> {
    /// The group of each of `n` sorted rows, from the groups' starts.
    pub fn segment_ids(
        &self,
        starts: &DeviceBuffer<i64>,
        n: usize,
    ) -> Result<DeviceBuffer<u32>, RuntimeError> {
        check(n == 0 || !starts.is_empty(), || {
            "rows without a group".into()
        })?;
        check(u32::try_from(starts.len()).is_ok(), || {
            format!("{} groups do not fit 32-bit group numbers", starts.len())
        })?;
        let out = self.zeroed::<u32>(n)?;
        let args = KernelArgs::new()
            .buffer(starts)
            .arg(starts.len() as u64)
            .arg(n as u64)
            .buffer(&out);
        self.launch(ids::segment_ids, Self::linear(n), args)?;
        Ok(out)
    }

    /// Polars' shift (or, with `sources`, forward or backward fill) within
    /// groups, as the rows to gather from: `rows` are the n rows sorted by
    /// group, `starts` the groups' first positions in it, `group_of` each
    /// position's group (see [`Ops::segment_ids`]). Position i reads
    /// position `sources[i]` (-1 for none), or `i - shift`; a source outside
    /// i's group gives -1. The result is by row, not by sorted position.
    pub fn segment_sources(
        &self,
        rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
        group_of: &DeviceBuffer<u32>,
        sources: Option<&DeviceBuffer<i64>>,
        shift: i64,
    ) -> Result<DeviceBuffer<i64>, RuntimeError> {
        let n = Self::check_sorted_groups(rows, starts, group_of)?;
        if let Some(sources) = sources {
            check(sources.len() == n, || {
                format!("{} sources for {n} rows", sources.len())
            })?;
        }
        // Beyond n either way every source is outside its group.
        let limit = i64::try_from(n).unwrap_or(i64::MAX);
        let args = KernelArgs::new()
            .arg(ptr(sources))
            .arg(shift.clamp(-limit, limit));
        self.launch_in_sorted_groups(ids::segment_sources, args, rows, starts, group_of)
    }

    /// Inclusive prefix sums restarted at each group, by row: `scan` is the
    /// whole inclusive scan of the values in `rows`' sorted order (see
    /// [`Ops::inclusive_scan`]); each group's sums are taken less the sum
    /// before it began, wrapping.
    pub fn segment_rebase<T: Word64>(
        &self,
        scan: &DeviceBuffer<T>,
        rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
        group_of: &DeviceBuffer<u32>,
    ) -> Result<DeviceBuffer<T>, RuntimeError> {
        let n = Self::check_sorted_groups(rows, starts, group_of)?;
        check(scan.len() == n, || {
            format!("a scan of {} values for {n} rows", scan.len())
        })?;
        let args = KernelArgs::new().buffer(scan);
        self.launch_in_sorted_groups(ids::segment_rebase, args, rows, starts, group_of)
    }

    /// Launches `kernel`, one thread per sorted position, with its own
    /// arguments `args` followed by the groups (starts, their count, each
    /// position's group, the sorted rows, their count) and a new output of
    /// one `T` per row, which it returns.
    pub(super) fn launch_in_sorted_groups<T: DeviceCopy>(
        &self,
        kernel: Kernel,
        args: KernelArgs,
        rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
        group_of: &DeviceBuffer<u32>,
    ) -> Result<DeviceBuffer<T>, RuntimeError> {
        let n = rows.len();
        let out = self.zeroed::<T>(n)?;
        let args = args
            .buffer(starts)
            .arg(starts.len() as u64)
            .buffer(group_of)
            .buffer(rows)
            .arg(n as u64)
            .buffer(&out);
        self.launch(kernel, Self::linear(n), args)?;
        Ok(out)
    }

    /// Polars' `rank` places (from 1) of rows sorted by partition, then by
    /// value with nulls last: `ties` are the starts of the runs of equal
    /// values (never crossing a partition), `parts` the partitions' starts,
    /// `tie_of` and `part_of` each sorted position's run and partition (see
    /// [`Ops::segment_ids`]). Places count within the partition; the result
    /// is by row. Nulls get places too: their validity is the caller's.
    pub fn rank_places(
        &self,
        rows: &DeviceBuffer<i64>,
        (ties, tie_of): (&DeviceBuffer<i64>, &DeviceBuffer<u32>),
        (parts, part_of): (&DeviceBuffer<i64>, &DeviceBuffer<u32>),
        place: RankPlace,
    ) -> Result<DeviceBuffer<u32>, RuntimeError> {
        let args = KernelArgs::new().arg(place as u32);
        self.launch_ranks(
            ids::rank_places_u32,
            args,
            rows,
            (ties, tie_of),
            (parts, part_of),
        )
    }

    /// As [`Ops::rank_places`], for Polars' `average` method: the mean of
    /// the first and last place of each run.
    pub fn rank_averages(
        &self,
        rows: &DeviceBuffer<i64>,
        ties: (&DeviceBuffer<i64>, &DeviceBuffer<u32>),
        parts: (&DeviceBuffer<i64>, &DeviceBuffer<u32>),
    ) -> Result<DeviceBuffer<f64>, RuntimeError> {
        self.launch_ranks(ids::rank_averages_f64, KernelArgs::new(), rows, ties, parts)
    }

    pub(super) fn launch_ranks<T: DeviceCopy>(
        &self,
        kernel: Kernel,
        args: KernelArgs,
        rows: &DeviceBuffer<i64>,
        (ties, tie_of): (&DeviceBuffer<i64>, &DeviceBuffer<u32>),
        (parts, part_of): (&DeviceBuffer<i64>, &DeviceBuffer<u32>),
    ) -> Result<DeviceBuffer<T>, RuntimeError> {
        Self::check_sorted_groups(rows, ties, tie_of)?;
        Self::check_sorted_groups(rows, parts, part_of)?;
        let args = args.buffer(parts).arg(parts.len() as u64).buffer(part_of);
        self.launch_in_sorted_groups(kernel, args, rows, ties, tie_of)
    }

    /// The number of rows of groups given as rows sorted by group, the
    /// groups' starts and each position's group, checked to agree.
    pub(super) fn check_sorted_groups(
        rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
        group_of: &DeviceBuffer<u32>,
    ) -> Result<usize, RuntimeError> {
        let n = rows.len();
        check(group_of.len() == n, || {
            format!("groups of {} positions for {n} rows", group_of.len())
        })?;
        check(n == 0 || !starts.is_empty(), || {
            "rows without a group".into()
        })?;
        Ok(n)
    }

    /// Flags for group starts over `n` sorted rows (one extra zero entry).
    pub fn group_flags(&self, n: usize) -> Result<DeviceBuffer<u8>, RuntimeError> {
        self.zeroed(n + 1)
    }

    /// Marks in `flags` the rows where `sorted` (a key column in the sorted
    /// order) differs from the row before; nulls equal nulls.
    pub fn mark_group_starts<T: GroupKey>(
        &self,
        sorted: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        flags: &DeviceBuffer<u8>,
    ) -> Result<(), RuntimeError> {
        let n = sorted.len();
        check(flags.len() > n, || "group flags too short".into())?;
        check_bitmap(validity, n, "validity")?;
        let args = KernelArgs::new()
            .buffer(sorted)
            .arg(ptr(validity))
            .arg(n as u64)
            .buffer(flags);
        self.launch(T::FLAGS, Self::linear(n), args)
    }

    /// The first row of each group (sorted rows), from the marked flags.
    pub fn group_starts(
        &self,
        flags: &DeviceBuffer<u8>,
        n: usize,
    ) -> Result<DeviceBuffer<i64>, RuntimeError> {
        self.indices_of_flags(flags, n)
    }

    /// The checks of a segmented operation's arguments. Groups may be
    /// empty and outnumber the rows (a list column's lists, as groups of
    /// its values).
    pub(super) fn check_segments<T: DeviceCopy>(
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
    ) -> Result<(), RuntimeError> {
        check_bitmap(validity, values.len(), "validity")
    }

    /// Per-group sums of the valid values (0 for none), wrapping in `T`.
    pub fn segment_sum<T: Aggregable>(
        &self,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceBuffer<T>, RuntimeError> {
        self.segments_in_chunks(T::SUM, values, validity, starts)
    }

    /// Each group's product of its valid values (1 for none): of integers
    /// wrapping, the same in any order, so large groups are multiplied in
    /// chunks; of floats in the values' order, as Polars' loop multiplies
    /// (a group's values by one thread).
    pub fn segment_product<T: Multipliable>(
        &self,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceBuffer<T>, RuntimeError> {
        if T::IN_ORDER {
            Self::check_segments(values, validity)?;
            return self.segment_values(T::PRODUCT, values, validity, starts);
        }
        self.segments_in_chunks(T::PRODUCT, values, validity, starts)
    }

    /// A per-group reduction `kernel` whose result has the values' type
    /// (a sum or a product), over [`Ops::chunks`] of large groups first and
    /// then over each group's chunks.
    pub(super) fn segments_in_chunks<T: DeviceCopy>(
        &self,
        kernel: Kernel,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceBuffer<T>, RuntimeError> {
        Self::check_segments(values, validity)?;
        if let Some(chunks) = self.chunks(starts, values.len())? {
            let partial = self.segment_values(kernel, values, validity, &chunks.starts)?;
            return self.segments_in_chunks(kernel, &partial, None, &chunks.offsets);
        }
        self.segment_values(kernel, values, validity, starts)
    }

    /// A per-group kernel with one value per group and no validity.
    pub(super) fn segment_values<T: DeviceCopy, A: DeviceCopy>(
        &self,
        kernel: Kernel,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceBuffer<A>, RuntimeError> {
        let groups = starts.len();
        let out = self.zeroed::<A>(groups)?;
        let args = KernelArgs::new()
            .buffer(values)
            .arg(ptr(validity))
            .buffer(starts)
            .arg(groups as u64)
            .arg(values.len() as u64)
            .buffer(&out);
        self.launch(kernel, Self::linear(groups), args)?;
        Ok(out)
    }

    /// The chunks of at most [`CHUNK_ROWS`] rows that the groups of `n`
    /// sorted rows split into, when some group is large enough for that to
    /// pay (on average at least 64 rows a group): `starts`, the chunks' first
    /// rows (chunks never cross a group; trailing slots are empty chunks
    /// starting at `n`), and `offsets`, each group's first chunk. Reducing
    /// the chunks, then each group's chunks (with `offsets` as the starts),
    /// gives the groups' results; a group of at most `CHUNK_ROWS` rows is one
    /// chunk, reduced in the same order as without chunks.
    pub(super) fn chunks(
        &self,
        starts: &DeviceBuffer<i64>,
        n: usize,
    ) -> Result<Option<Chunks>, RuntimeError> {
        let groups = starts.len();
        if n < 2 * CHUNK_ROWS || groups.saturating_mul(64) > n {
            return Ok(None);
        }
        self.chunks_of(starts, n, CHUNK_ROWS).map(Some)
    }

    /// The chunks of at most `tile` rows that the groups of `n` sorted rows
    /// split into, as [`Ops::chunks`] gives them (each group at least one,
    /// empty where the group is).
    pub(super) fn chunks_of(
        &self,
        starts: &DeviceBuffer<i64>,
        n: usize,
        tile: usize,
    ) -> Result<Chunks, RuntimeError> {
        let groups = starts.len();
        let counts = self.zeroed::<i64>(groups)?;
        let tile = tile as u64;
        let args = KernelArgs::new()
            .buffer(starts)
            .arg(groups as u64)
            .arg(n as u64)
            .arg(tile)
            .buffer(&counts);
        self.launch(ids::segment_chunk_counts, Self::linear(groups), args)?;
        let offsets = self.exclusive_scan_i64(&counts)?;
        // Each group has at most size / tile + 1 chunks.
        let slots = groups + n / tile as usize;
        let chunk_starts = self.zeroed::<i64>(slots)?;
        let args = KernelArgs::new()
            .buffer(starts)
            .arg(groups as u64)
            .arg(n as u64)
            .arg(tile)
            .buffer(&offsets)
            .arg(slots as u64)
            .buffer(&chunk_starts);
        self.launch(ids::segment_chunk_starts, Self::linear(slots), args)?;
        Ok(Chunks {
            starts: chunk_starts,
            offsets,
        })
    }

    /// Per-group means (null for no valid value).
    pub fn segment_mean<T: Aggregable>(
        &self,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<(DeviceBuffer<f64>, DeviceBuffer<u32>), RuntimeError> {
        Self::check_segments(values, validity)?;
        let Some(chunks) = self.chunks(starts, values.len())? else {
            return self.segment_with_validity(T::MEAN, values, validity, starts);
        };
        let (sums, counts) = self.chunked_sums(values, validity, &chunks)?;
        self.means_of_sums(&sums, &counts)
    }

    /// Per-group sums (as doubles) and counts of the valid values, over
    /// `chunks` of the groups.
    pub(super) fn chunked_sums<T: Aggregable>(
        &self,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        chunks: &Chunks,
    ) -> Result<(DeviceBuffer<f64>, DeviceBuffer<u32>), RuntimeError> {
        let partial_sums: DeviceBuffer<f64> =
            self.segment_values(T::SUM_F64, values, validity, &chunks.starts)?;
        let partial_counts = self.segment_count(validity, &chunks.starts, values.len())?;
        Ok((
            self.segment_sum(&partial_sums, None, &chunks.offsets)?,
            self.segment_sum(&partial_counts, None, &chunks.offsets)?,
        ))
    }

    /// Means from per-group sums and counts (null for a count of 0).
    pub(super) fn means_of_sums(
        &self,
        sums: &DeviceBuffer<f64>,
        counts: &DeviceBuffer<u32>,
    ) -> Result<(DeviceBuffer<f64>, DeviceBuffer<u32>), RuntimeError> {
        let groups = sums.len();
        let out = self.zeroed::<f64>(groups)?;
        let out_validity = self.zeroed::<u32>(words(groups))?;
        let args = KernelArgs::new()
            .buffer(sums)
            .buffer(counts)
            .arg(groups as u64)
            .buffer(&out)
            .buffer(&out_validity);
        self.launch(ids::mean_of_sums, Self::linear(groups), args)?;
        Ok((out, out_validity))
    }

    /// Per-group minimum, maximum, first or last value, with validity.
    pub fn segment_pick<T: Aggregable>(
        &self,
        pick: SegmentPick,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<(DeviceBuffer<T>, DeviceBuffer<u32>), RuntimeError> {
        let kernel = match pick {
            SegmentPick::Min => T::MIN,
            SegmentPick::Max => T::MAX,
            SegmentPick::First => T::FIRST,
            SegmentPick::Last => T::LAST,
        };
        if matches!(pick, SegmentPick::Min | SegmentPick::Max) {
            Self::check_segments(values, validity)?;
            if let Some(chunks) = self.chunks(starts, values.len())? {
                let (partial, partial_validity) =
                    self.segment_with_validity(kernel, values, validity, &chunks.starts)?;
                return self.segment_pick(pick, &partial, Some(&partial_validity), &chunks.offsets);
            }
        }
        self.segment_with_validity(kernel, values, validity, starts)
    }

    /// The chunks of [`CHUNK_ROWS`] rows the groups of `n` sorted rows split
    /// into, where some group has more than [`WELFORD_MOST`] rows (`None`
    /// otherwise: each group's variance by Welford's steps, one thread a
    /// group, takes time in proportion to the largest).
    fn welford_too_long(
        &self,
        starts: &DeviceBuffer<i64>,
        n: usize,
    ) -> Result<Option<Chunks>, RuntimeError> {
        if n <= WELFORD_MOST || starts.is_empty() {
            return Ok(None);
        }
        let lengths = self.segment_count(None, starts, n)?;
        let mut largest = [0u32];
        self.reduce_extreme(&lengths, None, true)?
            .copy_to_host(&mut largest)?;
        if largest[0] as usize <= WELFORD_MOST {
            return Ok(None);
        }
        self.chunks_of(starts, n, CHUNK_ROWS).map(Some)
    }

    /// Per-group variances (`std`: standard deviations) of the valid
    /// values with `ddof` delta degrees of freedom, in Polars' order for
    /// groups `of` that kind (see [`VarianceOf`]): null where a group has no
    /// more than `ddof` values.
    pub fn segment_variance(
        &self,
        values: &DeviceBuffer<f64>,
        validity: Option<&DeviceBuffer<u32>>,
        starts: &DeviceBuffer<i64>,
        (ddof, std): (u8, bool),
        of: VarianceOf,
    ) -> Result<(DeviceBuffer<f64>, DeviceBuffer<u32>), RuntimeError> {
        Self::check_segments(values, validity)?;
        if of == VarianceOf::Columns {
            return self.variance_in_chunks(values, validity, starts, ddof, std);
        }
        let Some(chunks) = self.welford_too_long(starts, values.len())? else {
            return self.segment_with_validity_and(
                ids::segment_variance_f64,
                values,
                validity,
                starts,
                |args| args.arg(u32::from(ddof)).arg(u32::from(std)),
            );
        };
        // The same two passes over chunks: the groups' means, then each
        // chunk's squared deviations from its group's mean.
        let (sums, counts) = self.chunked_sums(values, validity, &chunks)?;
        let (means, _) = self.means_of_sums(&sums, &counts)?;
        let slots = chunks.starts.len();
        let group_of_chunk = self.widen(&self.segment_ids(&chunks.offsets, slots)?)?;
        let (chunk_means, _) = self.gather(&means, None, &group_of_chunk)?;
        let partial = self.zeroed::<f64>(slots)?;
        let args = KernelArgs::new()
            .buffer(values)
            .arg(ptr(validity))
            .buffer(&chunks.starts)
            .arg(slots as u64)
            .arg(values.len() as u64)
            .buffer(&chunk_means)
            .buffer(&partial);
        self.launch(
            ids::segment_squared_deviations_f64,
            Self::linear(slots),
            args,
        )?;
        let squares = self.segment_sum(&partial, None, &chunks.offsets)?;
        let groups = starts.len();
        let out = self.zeroed::<f64>(groups)?;
        let out_validity = self.zeroed::<u32>(words(groups))?;
        let args = KernelArgs::new()
            .buffer(&squares)
            .buffer(&counts)
            .arg(groups as u64)
            .arg(u32::from(ddof))
            .arg(u32::from(std))
            .buffer(&out)
            .buffer(&out_validity);
        self.launch(ids::variance_of_squares, Self::linear(groups), args)?;
        Ok((out, out_validity))
    }

    /// [`Ops::segment_variance`] of [`VarianceOf::Columns`]: the valid
    /// values in chunks of 128, each chunk's mean and squared deviations from
    /// it summed in order, the chunks merged in order (polars-compute's
    /// `VarState`).
    fn variance_in_chunks(
        &self,
        values: &DeviceBuffer<f64>,
        validity: Option<&DeviceBuffer<u32>>,
        starts: &DeviceBuffer<i64>,
        ddof: u8,
        std: bool,
    ) -> Result<(DeviceBuffer<f64>, DeviceBuffer<u32>), RuntimeError> {
        let n = values.len();
        // Polars chunks the valid values alone: packed first, each group
        // starting after the valid values of the groups before it.
        let packed;
        let (values, starts) = match validity {
            None => (values, starts),
            Some(validity) => {
                let kept = self.filter_indices(validity, None, n)?;
                let (dense, _) = self.gather(values, None, &kept)?;
                let counts = self.widen(&self.segment_count(Some(validity), starts, n)?)?;
                packed = (dense, self.exclusive_scan_i64(&counts)?);
                (&packed.0, &packed.1)
            }
        };
        let n = values.len();
        let chunks = self.chunks_of(starts, n, VARIANCE_CHUNK)?;
        let slots = chunks.starts.len();
        let (weights, means, squares) = (
            self.zeroed::<f64>(slots)?,
            self.zeroed::<f64>(slots)?,
            self.zeroed::<f64>(slots)?,
        );
        let args = KernelArgs::new()
            .buffer(values)
            .buffer(&chunks.starts)
            .arg(slots as u64)
            .arg(n as u64)
            .buffer(&weights)
            .buffer(&means)
            .buffer(&squares);
        self.launch(ids::segment_chunk_moments_f64, Self::linear(slots), args)?;
        let groups = starts.len();
        if groups == 1 && slots > HOST_FOLD {
            // One group of many chunks: their fold, sequential, is faster
            // on a host thread than on one of the device's.
            let variance = fold_moments(
                (&weights.to_host()?, &means.to_host()?, &squares.to_host()?),
                ddof,
            );
            let value = variance.map_or(0.0, |v| if std { v.sqrt() } else { v });
            let valid = u32::from(variance.is_some());
            return Ok((
                DeviceBuffer::from_host(&[value], self.memory.clone(), self.stream)?,
                DeviceBuffer::from_host(&[valid], self.memory.clone(), self.stream)?,
            ));
        }
        let out = self.zeroed::<f64>(groups)?;
        let out_validity = self.zeroed::<u32>(words(groups))?;
        let args = KernelArgs::new()
            .buffer(&weights)
            .buffer(&means)
            .buffer(&squares)
            .buffer(&chunks.offsets)
            .arg(groups as u64)
            .arg(slots as u64)
            .arg(u32::from(ddof))
            .arg(u32::from(std))
            .buffer(&out)
            .buffer(&out_validity);
        self.launch(ids::fold_chunk_moments_f64, Self::linear(groups), args)?;
        Ok((out, out_validity))
    }

    /// Per-group quantiles `q` (in [0, 1]) of the valid values, as Polars
    /// computes them with `method`. Each group's values must be sorted in
    /// total order, nulls first (`sort_by` by value, then by group).
    pub fn segment_quantile(
        &self,
        values: &DeviceBuffer<f64>,
        validity: Option<&DeviceBuffer<u32>>,
        starts: &DeviceBuffer<i64>,
        q: f64,
        method: QuantileMethod,
    ) -> Result<(DeviceBuffer<f64>, DeviceBuffer<u32>), RuntimeError> {
        check((0.0..=1.0).contains(&q), || {
            format!("quantile {q} is not between 0 and 1")
        })?;
        self.segment_with_validity_and(
            ids::segment_quantile_f64,
            values,
            validity,
            starts,
            |args| args.arg(q).arg(method as u32),
        )
    }

    pub(super) fn segment_with_validity<T: DeviceCopy, A: DeviceCopy>(
        &self,
        kernel: Kernel,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<(DeviceBuffer<A>, DeviceBuffer<u32>), RuntimeError> {
        self.segment_with_validity_and(kernel, values, validity, starts, |args| args)
    }

    /// A per-group kernel with a value and validity per group; `extra` adds
    /// the kernel's parameters between the row count and the outputs.
    pub(super) fn segment_with_validity_and<T: DeviceCopy, A: DeviceCopy>(
        &self,
        kernel: Kernel,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        starts: &DeviceBuffer<i64>,
        extra: impl FnOnce(KernelArgs) -> KernelArgs,
    ) -> Result<(DeviceBuffer<A>, DeviceBuffer<u32>), RuntimeError> {
        Self::check_segments(values, validity)?;
        let groups = starts.len();
        let out = self.zeroed::<A>(groups)?;
        let out_validity = self.zeroed::<u32>(words(groups))?;
        let args = KernelArgs::new()
            .buffer(values)
            .arg(ptr(validity))
            .buffer(starts)
            .arg(groups as u64)
            .arg(values.len() as u64);
        let args = extra(args).buffer(&out).buffer(&out_validity);
        self.launch(kernel, Self::linear(groups), args)?;
        Ok((out, out_validity))
    }

    /// Rows per group over `n` sorted rows (`len`), or valid rows per group
    /// (`count`) when `validity` is given.
    pub fn segment_count(
        &self,
        validity: Option<&DeviceBuffer<u32>>,
        starts: &DeviceBuffer<i64>,
        n: usize,
    ) -> Result<DeviceBuffer<u32>, RuntimeError> {
        check_bitmap(validity, n, "validity")?;
        if let Some(chunks) = self.chunks(starts, n)? {
            let partial = self.segment_count(validity, &chunks.starts, n)?;
            return self.segment_sum(&partial, None, &chunks.offsets);
        }
        let groups = starts.len();
        let out = self.zeroed::<u32>(groups)?;
        let args = KernelArgs::new()
            .arg(ptr(validity))
            .buffer(starts)
            .arg(groups as u64)
            .arg(n as u64)
            .buffer(&out);
        self.launch(ids::segment_count, Self::linear(groups), args)?;
        Ok(out)
    }
}
