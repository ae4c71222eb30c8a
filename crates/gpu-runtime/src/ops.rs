//! Safe device operations on buffers: each checks its buffers' lengths, then launches the right kernels.
//!
//! This is the only safe way to run the kernel library: every function here
//! knows its kernels' parameters and checks that the buffers it passes hold
//! what the kernels will read and write. Booleans are bitmaps (`u32` words,
//! bit i of word i / 32) with optional validity bitmaps of the same layout.

use std::sync::Arc;

use kernels::{Kernel, ids};

use crate::error::RuntimeError;
use crate::expr::{ExprBinary, ExprProgram, ValueType, slot_of_int};
use crate::launch::{KernelArgs, KernelRef, LaunchConfig};
use crate::memory::{DeviceBuffer, DeviceCopy, DevicePtr, MemoryResource};
use crate::stream::Stream;

impl From<Kernel> for KernelRef {
    fn from(kernel: Kernel) -> Self {
        KernelRef {
            name: kernel.name,
            ptx: kernel.module.ptx,
            cubins: kernel.module.cubins,
            host: kernel.host_entry(),
        }
    }
}

const BLOCK: u32 = 256;
const MAX_BLOCKS: u32 = 4096;
/// Blocks of a device-wide reduction's first launch, at most: one partial
/// each, which one block then reduces.
const REDUCE_BLOCKS: u32 = 1024;
/// Elements per tile of the running extremes (`cum_max`, `cum_min`).
const SCAN_TILE: u64 = 4096;
/// Elements per tile of the single-pass scan: its kernels' block size
/// (`kScanBlock`, which `BLOCK` must equal) times the elements a thread
/// takes (`kScanItems`).
const SCAN_PASS_TILE: u64 = BLOCK as u64 * 16;
/// Rows of a chunk of a large group: each chunk is reduced by one thread,
/// then each group's chunks (see [`Ops::chunks`]).
pub const CHUNK_ROWS: usize = 256;

/// The first field of a parse format ([`Ops::string_parse_dates`]): the
/// year, 4 digits; then the month, day, hour, minute and second (2 digits
/// each) in that order, numbered on from it.
pub const PARSE_YEAR: u32 = 256;

/// A comparison operator (the kernels' numbering).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparison {
    Eq = 0,
    NotEq = 1,
    Lt = 2,
    LtEq = 3,
    Gt = 4,
    GtEq = 5,
}

/// How a string is matched against a literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StringMatch {
    Equals = 0,
    StartsWith = 1,
    EndsWith = 2,
    Contains = 3,
}

/// What `string_map_chars` does to ASCII letters (the kernel's numbering).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AsciiCase {
    Keep = 0,
    Upper = 1,
    Lower = 2,
}

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

/// The joins [`Ops::hash_join`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinKind {
    Inner,
    Left,
    Semi,
    Anti,
}

/// The rows a join takes from each side, pair by pair: `left[i]` with
/// `right[i]` (an index past the right side's end stands for "no match":
/// gathers give nulls). Semi and anti joins take left rows only.
#[derive(Debug)]
pub struct JoinIndices {
    pub left: DeviceBuffer<i64>,
    pub right: Option<DeviceBuffer<i64>>,
}

/// Key types of hash joins: 64-bit ones hash as they are, 32-bit ones are
/// widened first (signed ones sign-extended).
pub trait HashKey: DeviceCopy {
    /// The widening kernel; `None` for 64-bit types.
    const WIDEN: Option<Kernel>;
}

impl HashKey for i64 {
    const WIDEN: Option<Kernel> = None;
}
impl HashKey for u64 {
    const WIDEN: Option<Kernel> = None;
}
impl HashKey for i32 {
    const WIDEN: Option<Kernel> = Some(ids::hash_keys_i32);
}
impl HashKey for u32 {
    const WIDEN: Option<Kernel> = Some(ids::hash_keys_u32);
}

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
impl Word64 for u64 {}

/// Float types texts parse to and are written as ([`Ops::string_parse_floats`],
/// [`Ops::string_from_floats`]).
pub trait ParsedFloat: DeviceCopy {
    const PARSE: Kernel;
}
impl ParsedFloat for f64 {
    const PARSE: Kernel = ids::string_parse_f64;
}
impl ParsedFloat for f32 {
    const PARSE: Kernel = ids::string_parse_f32;
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

/// Kleene logic's binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Logic {
    And = 0,
    Or = 1,
}

/// Element types with a gather kernel.
pub trait Gather: DeviceCopy {
    const KERNEL: Kernel;
}

/// Element types with a scatter kernel.
pub trait Scatter: DeviceCopy {
    const KERNEL: Kernel;
}

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
/// multiplies smaller integers as i64), wrapping.
pub trait Multipliable: DeviceCopy {
    const PRODUCT: Kernel;
}

impl Multipliable for i64 {
    const PRODUCT: Kernel = ids::segment_product_i64;
}

impl Multipliable for u64 {
    const PRODUCT: Kernel = ids::segment_product_u64;
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

/// Per-group aggregations that keep the value type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentPick {
    Min,
    Max,
    First,
    Last,
}

/// Element types with a comparison kernel.
pub trait Compare: DeviceCopy {
    const KERNEL: Kernel;
}

macro_rules! kernel_for {
    ($trait:ident: $($t:ty => $kernel:ident),*) => {
        $(impl $trait for $t { const KERNEL: Kernel = ids::$kernel; })*
    };
}
kernel_for!(Gather: u8 => gather_u8, i8 => gather_i8, i16 => gather_i16, u16 => gather_u16,
    i32 => gather_i32, u32 => gather_u32, i64 => gather_i64, u64 => gather_u64,
    f32 => gather_f32, f64 => gather_f64);
kernel_for!(Scatter: u8 => scatter_u8, i8 => scatter_i8, i16 => scatter_i16, u16 => scatter_u16,
    i32 => scatter_i32, u32 => scatter_u32, i64 => scatter_i64, u64 => scatter_u64,
    f32 => scatter_f32, f64 => scatter_f64);
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

/// Keys a tile of a radix pass holds, in bytes: its shared copy of the
/// tile (`SortTile` in sort.cu).
const SORT_TILE_BYTES: usize = 16384;
/// Keys the one-block radix sort takes at most, in bytes (`BlockSort` in
/// sort.cu).
const BLOCK_SORT_BYTES: usize = 8192;

/// A column's values and validity, and the rows of it a sort orders
/// (`None`: every row, in order).
type SortColumn<'a, T> = (
    &'a DeviceBuffer<T>,
    Option<&'a DeviceBuffer<u32>>,
    Option<&'a DeviceBuffer<u32>>,
);

/// The keys a sort's first radix pass reads, as sortable unsigned bits.
enum FirstKeys<K: DeviceCopy> {
    /// Made for the sort; a later pass writes over them.
    Made(DeviceBuffer<K>),
    /// The values themselves (unsigned, ascending), which the caller
    /// borrows for the whole sort.
    Values(DevicePtr),
}

impl<K: DeviceCopy> FirstKeys<K> {
    fn device_ptr(&self) -> DevicePtr {
        match self {
            Self::Made(keys) => keys.device_ptr(),
            Self::Values(values) => *values,
        }
    }
}

/// The kernels of LSD radix passes over one key width.
#[derive(Clone, Copy)]
struct Radix {
    digits: Kernel,
    onesweep: Kernel,
    /// The whole sort in one launch, for at most [`BLOCK_SORT_BYTES`] of
    /// keys.
    block_sort: Kernel,
    /// Keys from which the digit counts are read back, to skip the passes
    /// that would move nothing: below, the read-back costs more than the
    /// launches it may save. 32-bit keys: from 2^16. 64-bit keys: every
    /// sort above the block sort, since of their eight passes, sortable
    /// integers, text words and lengths usually leave several to skip.
    skip_from: u64,
}

const RADIX_U32: Radix = Radix {
    digits: ids::radix_digit_counts_u32,
    onesweep: ids::radix_onesweep_u32,
    block_sort: ids::radix_block_sort_u32,
    skip_from: 1 << 16,
};

const RADIX_U64: Radix = Radix {
    digits: ids::radix_digit_counts_u64,
    onesweep: ids::radix_onesweep_u64,
    block_sort: ids::radix_block_sort_u64,
    skip_from: 0,
};

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

kernel_for!(Compare: i32 => compare_i32, u32 => compare_u32, i64 => compare_i64,
    u64 => compare_u64, f64 => compare_f64);

fn words(bits: usize) -> usize {
    bits.div_ceil(32)
}

fn check(condition: bool, what: impl FnOnce() -> String) -> Result<(), RuntimeError> {
    if condition {
        Ok(())
    } else {
        Err(RuntimeError::InvalidArgument(what()))
    }
}

fn check_bitmap(
    bitmap: Option<&DeviceBuffer<u32>>,
    bits: usize,
    name: &str,
) -> Result<(), RuntimeError> {
    check(bitmap.is_none_or(|b| b.len() >= words(bits)), || {
        format!("the {name} bitmap is shorter than {bits} bits")
    })
}

/// The device address of an optional buffer (a bitmap, mostly), or null.
fn ptr<T: DeviceCopy>(buffer: Option<&DeviceBuffer<T>>) -> DevicePtr {
    buffer.map_or(DevicePtr::NULL, DeviceBuffer::device_ptr)
}

/// The first arguments of the kernels over `n` strings: offsets, bytes,
/// validity (null: all valid), and `n`.
fn string_args((offsets, bytes, validity): StringsRef<'_>, n: usize) -> KernelArgs {
    KernelArgs::new()
        .buffer(offsets)
        .buffer(bytes)
        .arg(ptr(validity))
        .arg(n as u64)
}

/// A buffer of one of the evaluator's value types (booleans as bits).
#[derive(Debug)]
pub enum TypedBuffer {
    Bits(DeviceBuffer<u32>),
    I8(DeviceBuffer<i8>),
    I16(DeviceBuffer<i16>),
    I32(DeviceBuffer<i32>),
    I64(DeviceBuffer<i64>),
    U8(DeviceBuffer<u8>),
    U16(DeviceBuffer<u16>),
    U32(DeviceBuffer<u32>),
    U64(DeviceBuffer<u64>),
    F32(DeviceBuffer<f32>),
    F64(DeviceBuffer<f64>),
}

/// Element types the evaluator reads.
pub trait Valued: DeviceCopy {
    const TYPE: ValueType;
}

macro_rules! valued {
    ($($t:ty => $v:ident),*) => { $(impl Valued for $t { const TYPE: ValueType = ValueType::$v; })* };
}
valued!(i8 => I8, i16 => I16, i32 => I32, i64 => I64, u8 => U8, u16 => U16, u32 => U32,
    u64 => U64, f32 => F32, f64 => F64);

/// An input column of an expression: values of one type, optional validity.
#[derive(Debug, Clone, Copy)]
pub struct ExprInput<'a> {
    ptr: DevicePtr,
    /// Values available (bits, for booleans).
    len: usize,
    ty: ValueType,
    validity: Option<&'a DeviceBuffer<u32>>,
}

impl<'a> ExprInput<'a> {
    /// A column of plain values.
    pub fn values<T: Valued>(
        values: &'a DeviceBuffer<T>,
        validity: Option<&'a DeviceBuffer<u32>>,
    ) -> Self {
        ExprInput {
            ptr: values.device_ptr(),
            len: values.len(),
            ty: T::TYPE,
            validity,
        }
    }

    /// A column of `len` booleans packed as bits.
    pub fn bits(
        bits: &'a DeviceBuffer<u32>,
        len: usize,
        validity: Option<&'a DeviceBuffer<u32>>,
    ) -> Self {
        ExprInput {
            ptr: bits.device_ptr(),
            len: len.min(bits.len() * 32),
            ty: ValueType::Bool,
            validity,
        }
    }
}

/// Strings on the device: `offsets` (one more than the strings), UTF-8 `bytes`, validity.
#[derive(Debug)]
pub struct DeviceStrings {
    pub offsets: DeviceBuffer<i64>,
    pub bytes: DeviceBuffer<u8>,
    pub validity: DeviceBuffer<u32>,
}

/// How [`Ops::string_from_integers`] reads its 64-bit words (the kernel's numbering).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntegerText {
    Signed = 0,
    Unsigned = 1,
    /// 0 is `false`, anything else `true`.
    Boolean = 2,
}

/// Which ends [`Ops::string_strip`] strips (the kernel's bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Start = 1,
    End = 2,
    Both = 3,
}

/// Strings on the device, borrowed: offsets, bytes, validity.
/// The tables of a DFA that matches a regular expression (built on the
/// host: ir-lower's `RegexDfa`): each byte's class (256 entries); the next
/// state from state s on a byte of class c at `transitions[s * classes + c]`,
/// `classes` being the largest class plus one; each state's flags (1: a
/// match ended before the last byte, 2: dead, 4: a match if the text ends
/// here); the start states (one for an unanchored search; for an anchored
/// one, the start after each byte, at its index, and at the text's start,
/// at 256).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DfaTables<'a> {
    pub classes: &'a [u8],
    pub transitions: &'a [u32],
    pub flags: &'a [u8],
    pub starts: &'a [u32],
}

/// What `str.count_matches`, `str.find` and `str.replace` search for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern<'a> {
    /// A literal text.
    Literal(&'a str),
    /// A regular expression, as its anchored DFA: each character boundary
    /// is tried from the left, to the end of its leftmost-first match (an
    /// empty match where the last one ended is skipped).
    Anchored(DfaTables<'a>),
}

/// A DFA's tables on the device.
struct DfaBuffers {
    classes: DeviceBuffer<u8>,
    transitions: DeviceBuffer<u32>,
    flags: DeviceBuffer<u8>,
    starts: DeviceBuffer<u32>,
    stride: u32,
}

/// A [`Pattern`] on the device.
struct PatternBuffers {
    text: DeviceBuffer<u8>,
    text_len: u64,
    dfa: Option<DfaBuffers>,
}

impl PatternBuffers {
    /// The pattern's arguments, as the matching kernels take them after
    /// the strings: the literal and its length, then the DFA's tables (null
    /// for a literal) and its number of classes.
    fn args(&self, args: KernelArgs) -> KernelArgs {
        let args = args.buffer(&self.text).arg(self.text_len);
        match &self.dfa {
            Some(dfa) => args
                .buffer(&dfa.classes)
                .buffer(&dfa.transitions)
                .buffer(&dfa.flags)
                .buffer(&dfa.starts)
                .arg(dfa.stride),
            None => args
                .arg(DevicePtr::NULL)
                .arg(DevicePtr::NULL)
                .arg(DevicePtr::NULL)
                .arg(DevicePtr::NULL)
                .arg(0u32),
        }
    }
}

pub type StringsRef<'a> = (
    &'a DeviceBuffer<i64>,
    &'a DeviceBuffer<u8>,
    Option<&'a DeviceBuffer<u32>>,
);

/// One input of [`Ops::string_concat`]: a column of strings (offsets,
/// bytes, validity), or with `repeated` a single string (or null) repeated
/// on every row; a `mask` (one bit per output row) makes the input null
/// where its bit is 0.
#[derive(Debug, Clone, Copy)]
pub struct ConcatPart<'a> {
    pub offsets: &'a DeviceBuffer<i64>,
    pub bytes: &'a DeviceBuffer<u8>,
    pub validity: Option<&'a DeviceBuffer<u32>>,
    pub mask: Option<&'a DeviceBuffer<u32>>,
    pub repeated: bool,
}

/// A split of groups into chunks (see [`Ops::chunks`]).
struct Chunks {
    starts: DeviceBuffer<i64>,
    offsets: DeviceBuffer<i64>,
}

/// Device operations on one stream, allocating from one memory resource.
#[derive(Debug, Clone, Copy)]
pub struct Ops<'a> {
    pub memory: &'a Arc<dyn MemoryResource>,
    pub stream: &'a Stream,
}

impl Ops<'_> {
    fn zeroed<T: DeviceCopy>(&self, len: usize) -> Result<DeviceBuffer<T>, RuntimeError> {
        DeviceBuffer::zeroed(len, self.memory.clone(), self.stream)
    }

    /// A buffer the next launch writes whole ([`DeviceBuffer::for_overwrite`]:
    /// no fill on a GPU, poison on the emulated device, where the tests
    /// catch a value left unwritten).
    fn output<T: DeviceCopy>(&self, len: usize) -> Result<DeviceBuffer<T>, RuntimeError> {
        DeviceBuffer::for_overwrite(len, self.memory.clone(), self.stream)
    }

    fn launch(
        &self,
        kernel: Kernel,
        config: LaunchConfig,
        args: KernelArgs,
    ) -> Result<(), RuntimeError> {
        // SAFETY: every caller in this module passes the parameters `kernel`
        // declares (see kernels/cuda), with buffers whose lengths it checked,
        // owned by the caller or returned to it, so they outlive the launch
        // (freed in stream order after it).
        unsafe { self.stream.launch(&kernel.into(), config, args) }
    }

    fn linear(n: usize) -> LaunchConfig {
        LaunchConfig::linear(n as u64, BLOCK, MAX_BLOCKS)
    }

    /// One block per tile, `tiles` of them (`what`: the work, for the error
    /// where there are more than a grid holds).
    fn per_tile(tiles: u64, what: &str) -> Result<LaunchConfig, RuntimeError> {
        let blocks = u32::try_from(tiles)
            .map_err(|_| RuntimeError::InvalidArgument(format!("{what} too large")))?;
        Ok(LaunchConfig {
            grid: (blocks, 1, 1),
            block: (BLOCK, 1, 1),
            shared_bytes: 0,
        })
    }

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
    fn first_keys<T: SortKey, K: DeviceCopy>(
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

    fn sortable<T: DeviceCopy, K: DeviceCopy>(
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
    fn radix_passes<K: DeviceCopy>(
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

    /// The rows of a cross join of `n_left` by `n_right` rows: every left
    /// row with every right row, left-major (the order Polars gives).
    pub fn cross_join(&self, n_left: usize, n_right: usize) -> Result<JoinIndices, RuntimeError> {
        let n = n_left
            .checked_mul(n_right)
            .filter(|n| i64::try_from(*n).is_ok())
            .ok_or_else(|| {
                RuntimeError::InvalidArgument(format!(
                    "a cross join of {n_left} by {n_right} rows is too large"
                ))
            })?;
        if n == 0 {
            return Ok(JoinIndices {
                left: self.zeroed(0)?,
                right: Some(self.zeroed(0)?),
            });
        }
        let rows = self.iota(n, 0)?;
        // Output row i pairs left row i / n_right with right row i % n_right.
        let part = |op| -> Result<DeviceBuffer<i64>, RuntimeError> {
            let mut program = ExprProgram::new();
            program.column(0, ValueType::I64)?;
            program.constant(
                ValueType::I64,
                Some(slot_of_int(n_right as i64, ValueType::I64)),
            )?;
            program.binary(op, ValueType::I64)?;
            match self
                .eval(&program, &[ExprInput::values(&rows, None)], n, None)?
                .0
            {
                TypedBuffer::I64(out) => Ok(out),
                _ => Err(RuntimeError::InvalidArgument(
                    "row numbers are not i64".into(),
                )),
            }
        };
        Ok(JoinIndices {
            left: part(ExprBinary::FloorDiv)?,
            right: Some(part(ExprBinary::Mod)?),
        })
    }

    /// A hash join on one key column per side: the rows each side
    /// contributes, in the order of the left rows, then of the right rows.
    /// Null keys never match.
    pub fn hash_join<T: HashKey>(
        &self,
        (left, left_validity): (&DeviceBuffer<T>, Option<&DeviceBuffer<u32>>),
        (right, right_validity): (&DeviceBuffer<T>, Option<&DeviceBuffer<u32>>),
        kind: JoinKind,
    ) -> Result<JoinIndices, RuntimeError> {
        check_bitmap(left_validity, left.len(), "left validity")?;
        check_bitmap(right_validity, right.len(), "right validity")?;
        check(
            u32::try_from(right.len()).is_ok() && u32::try_from(left.len()).is_ok(),
            || "joins take at most 2^32 - 1 rows a side".into(),
        )?;
        let (n_left, n_right) = (left.len(), right.len());
        let capacity = (2 * n_right).max(16).next_power_of_two();
        // Slots are numbered in 32 bits, with u32::MAX for "no slot".
        check(capacity < u32::MAX as usize, || {
            "joins take at most 2^31 - 1 rows on the right".into()
        })?;
        let slot_keys = self.zeroed::<u64>(capacity)?;
        let slot_states = self.zeroed::<u32>(capacity)?;
        // One extra zero count, so the exclusive scan ends with the total.
        let slot_counts = self.zeroed::<u32>(capacity + 1)?;
        let row_slots = self.zeroed::<u32>(n_right)?;
        let right_keys = self.hash_keys(right)?;
        let args = KernelArgs::new()
            .arg(
                right_keys
                    .as_ref()
                    .map_or(right.device_ptr(), DeviceBuffer::device_ptr),
            )
            .arg(ptr(right_validity))
            .arg(n_right as u64)
            .buffer(&slot_keys)
            .buffer(&slot_states)
            .buffer(&slot_counts)
            .arg(capacity as u64)
            .buffer(&row_slots);
        self.launch(ids::hash_build_multimap_u64, Self::linear(n_right), args)?;
        let slot_starts: DeviceBuffer<u64> = self.scan_counts(&slot_counts)?;
        let slot_fill = self.zeroed::<u32>(capacity)?;
        let rows_by_slot = self.zeroed::<u32>(n_right)?;
        let args = KernelArgs::new()
            .buffer(&row_slots)
            .arg(n_right as u64)
            .buffer(&slot_starts)
            .buffer(&slot_fill)
            .buffer(&rows_by_slot);
        self.launch(ids::hash_place_multimap, Self::linear(n_right), args)?;
        drop((row_slots, slot_fill));
        let left_keys = self.hash_keys(left)?;
        let left_ptr = left_keys
            .as_ref()
            .map_or(left.device_ptr(), DeviceBuffer::device_ptr);
        let keep_unmatched = u32::from(kind == JoinKind::Left);
        // One extra zero count, so the exclusive scan ends with the total.
        let counts = self.zeroed::<u32>(n_left + 1)?;
        let args = KernelArgs::new()
            .arg(left_ptr)
            .arg(ptr(left_validity))
            .arg(n_left as u64)
            .buffer(&slot_keys)
            .buffer(&slot_states)
            .buffer(&slot_counts)
            .arg(capacity as u64)
            .arg(keep_unmatched)
            .buffer(&counts);
        self.launch(ids::hash_probe_count_u64, Self::linear(n_left), args)?;
        if matches!(kind, JoinKind::Semi | JoinKind::Anti) {
            let bits = self.zeroed::<u32>(words(n_left))?;
            let invert = u32::from(kind == JoinKind::Anti);
            let args = KernelArgs::new()
                .buffer(&counts)
                .arg(n_left as u64)
                .arg(invert)
                .buffer(&bits);
            self.launch(ids::nonzero_bits, Self::linear(n_left), args)?;
            return Ok(JoinIndices {
                left: self.filter_indices(&bits, None, n_left)?,
                right: None,
            });
        }
        let offsets: DeviceBuffer<u64> = self.scan_counts(&counts)?;
        let total = usize::try_from(offsets.to_host_range(n_left, 1)?[0]).unwrap_or(0);
        // hash_probe_pairs writes every pair the counts promised.
        let build_rows = self.output::<u32>(total)?;
        let probe_rows = self.output::<u32>(total)?;
        let args = KernelArgs::new()
            .arg(left_ptr)
            .arg(ptr(left_validity))
            .arg(n_left as u64)
            .buffer(&slot_keys)
            .buffer(&slot_states)
            .buffer(&slot_counts)
            .buffer(&slot_starts)
            .buffer(&rows_by_slot)
            .arg(capacity as u64)
            .arg(keep_unmatched)
            .buffer(&offsets)
            .buffer(&build_rows)
            .buffer(&probe_rows);
        self.launch(ids::hash_probe_pairs_u64, Self::linear(n_left), args)?;
        // Pairs in (left row, right row) order: by right, then stably by left.
        let order = self.sorted_rows(&build_rows, None, false, false)?;
        let order = self.sort_by(order, &probe_rows, None, false, false)?;
        let order = self.widen(&order)?;
        let (left_rows, _) = self.gather(&probe_rows, None, &order)?;
        let (right_rows, _) = self.gather(&build_rows, None, &order)?;
        Ok(JoinIndices {
            left: self.widen(&left_rows)?,
            right: Some(self.widen(&right_rows)?),
        })
    }

    /// 64-bit hash keys of `values`: `None` when the values are the keys.
    fn hash_keys<T: HashKey>(
        &self,
        values: &DeviceBuffer<T>,
    ) -> Result<Option<DeviceBuffer<u64>>, RuntimeError> {
        let Some(kernel) = T::WIDEN else {
            return Ok(None);
        };
        let n = values.len();
        let keys = self.output::<u64>(n)?;
        self.launch(
            kernel,
            Self::linear(n),
            KernelArgs::new().buffer(values).arg(n as u64).buffer(&keys),
        )?;
        Ok(Some(keys))
    }

    /// Evaluates `program` over `n` rows of `inputs` in one launch: the
    /// result and its validity. A program that checks values
    /// ([`ExprProgram::strict`]) needs `failed`, one word that the launch
    /// sets to 1 where a check fails (and leaves alone elsewhere).
    pub fn eval(
        &self,
        program: &ExprProgram,
        inputs: &[ExprInput<'_>],
        n: usize,
        failed: Option<&DeviceBuffer<u32>>,
    ) -> Result<(TypedBuffer, DeviceBuffer<u32>), RuntimeError> {
        let out_type = program.output()?;
        if program.checks_values() && failed.is_none_or(|flag| flag.is_empty()) {
            return Err(RuntimeError::InvalidArgument(
                "a program that checks values needs a failure flag".into(),
            ));
        }
        let mut columns = Vec::with_capacity(program.inputs.len());
        let mut validities = Vec::with_capacity(program.inputs.len());
        for (slot, ty) in program.inputs.iter().enumerate() {
            match (ty, inputs.get(slot)) {
                (None, _) => {
                    columns.push(0u64);
                    validities.push(0u64);
                }
                (Some(ty), Some(input)) => {
                    check(input.ty == *ty, || {
                        format!("input {slot} is {:?}, read as {ty:?}", input.ty)
                    })?;
                    check(input.len >= n, || {
                        format!("input {slot} has {} of {n} rows", input.len)
                    })?;
                    check_bitmap(input.validity, n, "input validity")?;
                    columns.push(input.ptr.address());
                    validities.push(ptr(input.validity).address());
                }
                (Some(_), None) => {
                    return Err(RuntimeError::InvalidArgument(format!(
                        "input {slot} is missing"
                    )));
                }
            }
        }
        // One upload: the column addresses, the validity addresses, then the
        // program's words, two to a slot (little-endian on both sides).
        let slots = columns.len();
        let mut table = columns;
        table.append(&mut validities);
        table.extend(
            program.words.chunks(2).map(|pair| {
                u64::from(pair[0]) | u64::from(pair.get(1).copied().unwrap_or(0)) << 32
            }),
        );
        // An empty table still needs a valid pointer.
        table.push(0);
        let table = DeviceBuffer::from_host(&table, self.memory.clone(), self.stream)?;
        let at = |slot: usize| DevicePtr(table.device_ptr().address() + 8 * slot as u64);
        // eval_expression writes every value and every validity word.
        let out_validity = self.output::<u32>(words(n))?;
        macro_rules! out {
            ($variant:ident, $len:expr) => {{
                let buffer = self.output($len)?;
                let ptr = buffer.device_ptr();
                (TypedBuffer::$variant(buffer), ptr)
            }};
        }
        let (out, out_ptr) = match out_type {
            ValueType::Bool => out!(Bits, words(n)),
            ValueType::I8 => out!(I8, n),
            ValueType::I16 => out!(I16, n),
            ValueType::I32 => out!(I32, n),
            ValueType::I64 => out!(I64, n),
            ValueType::U8 => out!(U8, n),
            ValueType::U16 => out!(U16, n),
            ValueType::U32 => out!(U32, n),
            ValueType::U64 => out!(U64, n),
            ValueType::F32 => out!(F32, n),
            ValueType::F64 => out!(F64, n),
        };
        let args = KernelArgs::new()
            .arg(at(2 * slots))
            .arg(program.words.len() as u32)
            .arg(at(0))
            .arg(at(slots))
            .arg(n as u64)
            .arg(out_type as u32)
            .arg(out_ptr)
            .buffer(&out_validity)
            .arg(ptr(failed));
        self.launch(ids::eval_expression, Self::linear(n), args)?;
        Ok((out, out_validity))
    }

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
        check(!offsets.is_empty(), || "string offsets are empty".into())?;
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
        let out_bytes = self.zeroed::<u8>(usize::try_from(total).unwrap_or(0))?;
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

    /// Polars' `str.slice(offset, length)` of each string, in characters (a
    /// negative offset counts from the end; `None`: to the end), keeping
    /// nothing of the last `drop_last` characters (`str.head(-k)`). Nulls
    /// stay null.
    pub fn string_slice(
        &self,
        offsets: &DeviceBuffer<i64>,
        bytes: &DeviceBuffer<u8>,
        validity: Option<&DeviceBuffer<u32>>,
        (offset, length): (i64, Option<u64>),
        drop_last: u64,
    ) -> Result<DeviceStrings, RuntimeError> {
        check(!offsets.is_empty(), || "string offsets are empty".into())?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        let starts = self.zeroed::<i64>(n)?;
        // One extra zero length, so the exclusive scan ends with the total.
        let lengths = self.zeroed::<i64>(n + 1)?;
        let args = string_args((offsets, bytes, validity), n)
            .arg(offset)
            .arg(length.unwrap_or(u64::MAX))
            .arg(drop_last)
            .buffer(&starts)
            .buffer(&lengths);
        self.launch(ids::string_slice_ranges, Self::linear(n), args)?;
        self.copy_ranges(bytes, validity, &starts, &lengths)
    }

    /// Polars' `str.strip_chars` (`Side::Both`), `strip_chars_start` and
    /// `strip_chars_end` of valid rows: the characters of `set` removed
    /// from the ends, or white space (Rust's `char::is_whitespace`) when
    /// `set` is `None`.
    pub fn string_strip(
        &self,
        offsets: &DeviceBuffer<i64>,
        bytes: &DeviceBuffer<u8>,
        validity: Option<&DeviceBuffer<u32>>,
        set: Option<&[char]>,
        sides: Side,
    ) -> Result<DeviceStrings, RuntimeError> {
        check(!offsets.is_empty(), || "string offsets are empty".into())?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        let code_points: Vec<u32> = set
            .unwrap_or_default()
            .iter()
            .map(|&c| u32::from(c))
            .collect();
        let code_points = DeviceBuffer::from_host(&code_points, self.memory.clone(), self.stream)?;
        let starts = self.zeroed::<i64>(n)?;
        // One extra zero length, so the exclusive scan ends with the total.
        let lengths = self.zeroed::<i64>(n + 1)?;
        let args = string_args((offsets, bytes, validity), n)
            .buffer(&code_points)
            .arg(code_points.len() as u32)
            .arg(u32::from(set.is_none()))
            .arg(sides as u32)
            .buffer(&starts)
            .buffer(&lengths);
        self.launch(ids::string_strip_ranges, Self::linear(n), args)?;
        self.copy_ranges(bytes, validity, &starts, &lengths)
    }

    /// Polars' `str.replace`: in each valid row, the first `limit` matches
    /// of `pattern` (all when `None`), leftmost and not overlapping,
    /// replaced by `value` as it is. A literal pattern must not be empty.
    pub fn string_replace(
        &self,
        offsets: &DeviceBuffer<i64>,
        bytes: &DeviceBuffer<u8>,
        validity: Option<&DeviceBuffer<u32>>,
        (pattern, value): (Pattern<'_>, &str),
        limit: Option<u64>,
    ) -> Result<DeviceStrings, RuntimeError> {
        check(!offsets.is_empty(), || "string offsets are empty".into())?;
        check(pattern != Pattern::Literal(""), || {
            "an empty pattern to replace".into()
        })?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        let pattern = self.pattern_buffers(pattern)?;
        let d_value = DeviceBuffer::from_host(value.as_bytes(), self.memory.clone(), self.stream)?;
        self.two_pass_strings(ids::string_replace, n, validity, || {
            pattern
                .args(string_args((offsets, bytes, validity), n))
                .buffer(&d_value)
                .arg(value.len() as u64)
                .arg(limit.unwrap_or(u64::MAX))
        })
    }

    /// Polars' `pad_start` and `pad_end` (`side` 0 and 1) to `length`
    /// characters with `fill`, and `zfill` (`side` 2) to `length` bytes with
    /// zeros after a leading sign.
    pub fn string_pad(
        &self,
        (offsets, bytes, validity): StringsRef<'_>,
        length: u64,
        fill: char,
        side: u32,
    ) -> Result<DeviceStrings, RuntimeError> {
        check(!offsets.is_empty(), || "string offsets are empty".into())?;
        check(side <= 2, || format!("no padding side {side}"))?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        let mut encoded = [0u8; 4];
        let fill = fill.encode_utf8(&mut encoded).as_bytes();
        let d_fill = DeviceBuffer::from_host(fill, self.memory.clone(), self.stream)?;
        self.two_pass_strings(ids::string_pad, n, validity, || {
            string_args((offsets, bytes, validity), n)
                .arg(length)
                .buffer(&d_fill)
                .arg(fill.len() as u64)
                .arg(side)
        })
    }

    /// Dates or timestamps (no time zone) as text in a chrono format, as
    /// Polars writes them: `values` are days (`per_day` 1) or ticks of
    /// `per_day` to the day (a unit of whole seconds' fractions); `program`
    /// is the format, one item a word as `string_format_temporal` in
    /// `kernels/cuda/strings.cu` reads them (the code in the high 24 bits,
    /// up to 18, its argument in the low 8).
    pub fn string_format_temporal(
        &self,
        values: &DeviceBuffer<i64>,
        validity: Option<&DeviceBuffer<u32>>,
        per_day: i64,
        program: &[u32],
    ) -> Result<DeviceStrings, RuntimeError> {
        let n = values.len();
        check_bitmap(validity, n, "validity")?;
        check(
            per_day == 1 || (per_day % 86_400 == 0 && 1_000_000_000 % (per_day / 86_400) == 0),
            || format!("{per_day} ticks a day"),
        )?;
        check(program.iter().all(|&item| item >> 8 <= 18), || {
            "an unknown item in a format program".into()
        })?;
        // (An empty format still uploads one word, never read.)
        let length = program.len() as u64;
        let words = if program.is_empty() {
            &[0][..]
        } else {
            program
        };
        let program = DeviceBuffer::from_host(words, self.memory.clone(), self.stream)?;
        self.two_pass_strings(ids::string_format_temporal, n, validity, || {
            KernelArgs::new()
                .buffer(values)
                .arg(ptr(validity))
                .arg(n as u64)
                .arg(per_day)
                .buffer(&program)
                .arg(length)
        })
    }

    /// Polars' cast to strings of 64-bit integers (`kind`: how to read the
    /// words) and of booleans (0 or 1 words): decimal digits with a minus
    /// sign, or `true` and `false`.
    pub fn string_from_integers<T: Word64>(
        &self,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        kind: IntegerText,
    ) -> Result<DeviceStrings, RuntimeError> {
        let n = values.len();
        check_bitmap(validity, n, "validity")?;
        self.two_pass_strings(ids::string_from_integers, n, validity, || {
            KernelArgs::new()
                .buffer(values)
                .arg(ptr(validity))
                .arg(n as u64)
                .arg(kind as u32)
        })
    }

    /// Polars' cast of floats (f64 or f32) to strings, as zmij writes them:
    /// the shortest digits that read back as the same float (the nearest to
    /// it where several are), in plain notation where the first digit is at
    /// 10^-5 to 10^15 (f32: 10^-6 to 10^12; "1234.0", "0.001234"), else as
    /// "1.234e+33"; "NaN", "inf", "-inf", "0.0", "-0.0". Nulls give empty
    /// strings; the validity is a copy of `validity`.
    pub fn string_from_floats<T: ParsedFloat>(
        &self,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
    ) -> Result<DeviceStrings, RuntimeError> {
        let n = values.len();
        check_bitmap(validity, n, "validity")?;
        let width = 8 * std::mem::size_of::<T>() as u32;
        self.two_pass_strings(ids::string_from_floats, n, validity, || {
            KernelArgs::new()
                .buffer(values)
                .arg(ptr(validity))
                .arg(n as u64)
                .arg(width)
        })
    }

    /// New strings made by two launches of `kernel`, whose last parameters
    /// are `u32 write, i64* lengths, const i64* out_offsets, unsigned char*
    /// out_bytes` after those `leading` gives: the first writes each row's
    /// length in bytes, the second (`write`) the bytes from the scanned
    /// offsets. The validity is a copy of `validity`.
    fn two_pass_strings(
        &self,
        kernel: Kernel,
        n: usize,
        validity: Option<&DeviceBuffer<u32>>,
        leading: impl Fn() -> KernelArgs,
    ) -> Result<DeviceStrings, RuntimeError> {
        // One extra zero length, so the exclusive scan ends with the total.
        let lengths = self.zeroed::<i64>(n + 1)?;
        let measure = leading()
            .arg(0u32)
            .buffer(&lengths)
            .arg(DevicePtr::NULL)
            .arg(DevicePtr::NULL);
        self.launch(kernel, Self::linear(n), measure)?;
        let (offsets, bytes) = self.string_layout(&lengths, n)?;
        let write = leading()
            .arg(1u32)
            .arg(DevicePtr::NULL)
            .buffer(&offsets)
            .buffer(&bytes);
        self.launch(kernel, Self::linear(n), write)?;
        Ok(DeviceStrings {
            offsets,
            bytes,
            validity: self.copy_validity(validity, n)?,
        })
    }

    /// New strings from byte ranges of `bytes` (`starts`, and `lengths` with
    /// one extra zero), with a copy of `validity`.
    fn copy_ranges(
        &self,
        bytes: &DeviceBuffer<u8>,
        validity: Option<&DeviceBuffer<u32>>,
        starts: &DeviceBuffer<i64>,
        lengths: &DeviceBuffer<i64>,
    ) -> Result<DeviceStrings, RuntimeError> {
        let n = starts.len();
        let (out_offsets, out_bytes) = self.string_layout(lengths, n)?;
        let args = KernelArgs::new()
            .buffer(bytes)
            .buffer(starts)
            .arg(n as u64)
            .buffer(&out_offsets)
            .buffer(&out_bytes);
        self.launch(ids::string_copy_ranges, Self::linear(n), args)?;
        Ok(DeviceStrings {
            offsets: out_offsets,
            bytes: out_bytes,
            validity: self.copy_validity(validity, n)?,
        })
    }

    /// The `n` rows of `parts` concatenated row by row, `separator` between
    /// two parts, as Polars' `concat_str`: a row with a null part is null,
    /// unless `ignore_nulls`, which skips the null parts (an all-null row is
    /// then empty).
    pub fn string_concat(
        &self,
        parts: &[ConcatPart<'_>],
        n: usize,
        separator: &[u8],
        ignore_nulls: bool,
    ) -> Result<DeviceStrings, RuntimeError> {
        self.concat_or_coalesce(parts, n, separator, ignore_nulls, false)
    }

    /// The `n` rows of `parts`, each row its first part that is not null
    /// (null when all are): Polars' `coalesce` (and `fill_null`) of strings.
    pub fn string_coalesce(
        &self,
        parts: &[ConcatPart<'_>],
        n: usize,
    ) -> Result<DeviceStrings, RuntimeError> {
        self.concat_or_coalesce(parts, n, b"", true, true)
    }

    fn concat_or_coalesce(
        &self,
        parts: &[ConcatPart<'_>],
        n: usize,
        separator: &[u8],
        ignore_nulls: bool,
        first_only: bool,
    ) -> Result<DeviceStrings, RuntimeError> {
        check(!parts.is_empty(), || "nothing to concatenate".into())?;
        let mut table = Vec::with_capacity(5 * parts.len());
        for (j, part) in parts.iter().enumerate() {
            let rows = if part.repeated { 1 } else { n };
            check(part.offsets.len() == rows + 1, || {
                format!(
                    "part {j} has {} offsets for {rows} rows",
                    part.offsets.len()
                )
            })?;
            check_bitmap(part.validity, rows, "part validity")?;
            check_bitmap(part.mask, n, "part mask")?;
            table.extend([
                part.offsets.device_ptr().address(),
                part.bytes.device_ptr().address(),
                ptr(part.validity).address(),
                ptr(part.mask).address(),
                u64::from(part.repeated),
            ]);
        }
        let table = DeviceBuffer::from_host(&table, self.memory.clone(), self.stream)?;
        // One extra zero length, so the exclusive scan ends with the total.
        let lengths = self.zeroed::<i64>(n + 1)?;
        let validity = self.zeroed::<u32>(words(n))?;
        let args = KernelArgs::new()
            .buffer(&table)
            .arg(parts.len() as u32)
            .arg(n as u64)
            .arg(separator.len() as u64)
            .arg(u32::from(ignore_nulls))
            .arg(u32::from(first_only))
            .buffer(&lengths)
            .buffer(&validity);
        self.launch(ids::string_concat_lengths, Self::linear(n), args)?;
        let (offsets, bytes) = self.string_layout(&lengths, n)?;
        let separator = DeviceBuffer::from_host(separator, self.memory.clone(), self.stream)?;
        let args = KernelArgs::new()
            .buffer(&table)
            .arg(parts.len() as u32)
            .arg(n as u64)
            .buffer(&separator)
            .arg(separator.len() as u64)
            .arg(u32::from(first_only))
            .buffer(&offsets)
            .buffer(&validity)
            .buffer(&bytes);
        self.launch(ids::string_concat_write, Self::linear(n), args)?;
        Ok(DeviceStrings {
            offsets,
            bytes,
            validity,
        })
    }

    /// The offsets of `n` strings of `lengths` (n + 1 entries, the last 0,
    /// so that the exclusive scan ends with the total) and room for their bytes.
    fn string_layout(
        &self,
        lengths: &DeviceBuffer<i64>,
        n: usize,
    ) -> Result<(DeviceBuffer<i64>, DeviceBuffer<u8>), RuntimeError> {
        let offsets = self.exclusive_scan_i64(lengths)?;
        let total = offsets.to_host_range(n, 1)?[0];
        let bytes = self.zeroed::<u8>(usize::try_from(total).unwrap_or(0))?;
        Ok((offsets, bytes))
    }

    /// A copy of the validity of `n` values (all valid when `None`).
    fn copy_validity(
        &self,
        validity: Option<&DeviceBuffer<u32>>,
        n: usize,
    ) -> Result<DeviceBuffer<u32>, RuntimeError> {
        let out = self.zeroed::<u32>(words(n))?;
        self.bitmap_append(validity, n, &out, 0)?;
        Ok(out)
    }

    /// Every character of each string mapped: ASCII letters by `ascii`, the
    /// others through a table (`from`: sorted code points above ASCII; `to`:
    /// three code points for each, 0 ending a shorter mapping; a character
    /// not in `from` stays). Nulls stay null. With `sigma` (sorted
    /// case-ignorable code points, and sorted cased ones that are not), a
    /// capital sigma becomes final or medial sigma by its context, as
    /// Polars' lower case decides (see `strings.cu`).
    pub fn string_map_chars(
        &self,
        (offsets, bytes, validity): (
            &DeviceBuffer<i64>,
            &DeviceBuffer<u8>,
            Option<&DeviceBuffer<u32>>,
        ),
        ascii: AsciiCase,
        (from, to): (&DeviceBuffer<u32>, &DeviceBuffer<u32>),
        sigma: Option<(&DeviceBuffer<u32>, &DeviceBuffer<u32>)>,
    ) -> Result<DeviceStrings, RuntimeError> {
        check(!offsets.is_empty(), || "string offsets are empty".into())?;
        check(to.len() == 3 * from.len(), || {
            format!(
                "{} mapped code points for {} characters",
                to.len(),
                from.len()
            )
        })?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        self.two_pass_strings(ids::string_map_chars, n, validity, || {
            string_args((offsets, bytes, validity), n)
                .arg(ascii as u32)
                .buffer(from)
                .buffer(to)
                .arg(from.len() as u64)
                .arg(sigma.map_or(DevicePtr::NULL, |(i, _)| i.device_ptr()))
                .arg(sigma.map_or(0, |(i, _)| i.len() as u64))
                .arg(sigma.map_or(DevicePtr::NULL, |(_, c)| c.device_ptr()))
                .arg(sigma.map_or(0, |(_, c)| c.len() as u64))
        })
    }

    /// Each string's length in bytes, or in characters (UTF-8) when
    /// `chars`: lengths (0 for null) and validity.
    pub fn string_lengths(
        &self,
        offsets: &DeviceBuffer<i64>,
        bytes: &DeviceBuffer<u8>,
        validity: Option<&DeviceBuffer<u32>>,
        chars: bool,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), RuntimeError> {
        check(!offsets.is_empty(), || "string offsets are empty".into())?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        let lengths = self.zeroed::<u32>(n)?;
        let args = string_args((offsets, bytes, validity), n)
            .arg(u32::from(chars))
            .buffer(&lengths);
        self.launch(ids::string_lengths, Self::linear(n), args)?;
        let out_validity = self.zeroed::<u32>(words(n))?;
        self.bitmap_append(validity, n, &out_validity, 0)?;
        Ok((lengths, out_validity))
    }

    /// Polars' `str.count_matches` (`find` false) or `str.find` (`find`) of
    /// `pattern` in each of `n` strings: the number of leftmost,
    /// non-overlapping matches (an empty literal matches at every character
    /// boundary), or the byte offset of the first, null where there is none.
    /// Null strings give null.
    pub fn string_matches(
        &self,
        (offsets, bytes, validity): StringsRef<'_>,
        pattern: Pattern<'_>,
        find: bool,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), RuntimeError> {
        check(!offsets.is_empty(), || "string offsets are empty".into())?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        let pattern = self.pattern_buffers(pattern)?;
        let out = self.zeroed::<u32>(n)?;
        let out_validity = self.zeroed::<u32>(words(n))?;
        let args = pattern
            .args(string_args((offsets, bytes, validity), n))
            .arg(u32::from(find))
            .buffer(&out)
            .buffer(&out_validity);
        self.launch(ids::string_matches, Self::linear(n), args)?;
        Ok((out, out_validity))
    }

    /// Polars' `str.extract` of a whole match: the first match of `pattern`
    /// in each string, null where there is none (or the string is null).
    pub fn string_extract(
        &self,
        (offsets, bytes, validity): StringsRef<'_>,
        pattern: Pattern<'_>,
    ) -> Result<DeviceStrings, RuntimeError> {
        check(!offsets.is_empty(), || "string offsets are empty".into())?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        let pattern = self.pattern_buffers(pattern)?;
        let starts = self.zeroed::<i64>(n)?;
        // One extra zero length, as `copy_ranges` takes them.
        let lengths = self.zeroed::<i64>(n + 1)?;
        let found = self.zeroed::<u32>(words(n))?;
        let args = pattern
            .args(string_args((offsets, bytes, validity), n))
            .buffer(&starts)
            .buffer(&lengths)
            .buffer(&found);
        self.launch(ids::string_match_ranges, Self::linear(n), args)?;
        self.copy_ranges(bytes, Some(&found), &starts, &lengths)
    }

    /// `pattern` on the device, checked (a DFA's tables must name only
    /// states and classes they have).
    fn pattern_buffers(&self, pattern: Pattern<'_>) -> Result<PatternBuffers, RuntimeError> {
        let text = match pattern {
            Pattern::Literal(text) => text.as_bytes(),
            Pattern::Anchored(_) => &[],
        };
        let dfa = match pattern {
            Pattern::Literal(_) => None,
            Pattern::Anchored(tables) => {
                check(tables.starts.len() == 257, || {
                    format!(
                        "an anchored DFA has 257 start states, not {}",
                        tables.starts.len()
                    )
                })?;
                Some(self.dfa_buffers(tables)?)
            }
        };
        Ok(PatternBuffers {
            text: self.upload_pattern(text)?,
            text_len: text.len() as u64,
            dfa,
        })
    }

    /// A literal pattern's bytes on the device, one byte more (so that an
    /// empty pattern, which the kernels never read, still has a buffer).
    fn upload_pattern(&self, text: &[u8]) -> Result<DeviceBuffer<u8>, RuntimeError> {
        let held: Vec<u8> = text.iter().copied().chain([0]).collect();
        DeviceBuffer::from_host(&held, self.memory.clone(), self.stream)
    }

    /// A DFA's tables on the device, checked: 256 byte classes, a row of
    /// transitions per state (one entry per class), and transitions and
    /// start states that each name a state.
    fn dfa_buffers(&self, tables: DfaTables<'_>) -> Result<DfaBuffers, RuntimeError> {
        let DfaTables {
            classes,
            transitions,
            flags,
            starts,
        } = tables;
        check(classes.len() == 256, || {
            format!("a DFA has 256 byte classes, not {}", classes.len())
        })?;
        let stride = usize::from(classes.iter().copied().max().unwrap_or(0)) + 1;
        let states = flags.len();
        check(transitions.len() == states * stride, || {
            format!(
                "a DFA of {states} states and {stride} classes has {} transitions",
                transitions.len()
            )
        })?;
        check(!starts.is_empty(), || "a DFA without a start state".into())?;
        if let Some(start) = starts.iter().find(|&&start| start as usize >= states) {
            return Err(RuntimeError::InvalidArgument(format!(
                "the DFA's start state {start} is not one of its {states}"
            )));
        }
        check(transitions.iter().all(|&to| (to as usize) < states), || {
            format!("a DFA transition leads past its {states} states")
        })?;
        let upload =
            |bytes: &[u8]| DeviceBuffer::from_host(bytes, self.memory.clone(), self.stream);
        let upload_u32 =
            |words: &[u32]| DeviceBuffer::from_host(words, self.memory.clone(), self.stream);
        Ok(DfaBuffers {
            classes: upload(classes)?,
            transitions: upload_u32(transitions)?,
            flags: upload(flags)?,
            starts: upload_u32(starts)?,
            stride: stride as u32,
        })
    }

    /// Polars' cast of `n` texts to an integer type whose values run from
    /// `min` to `max`: an optional '+' (or '-', for signed types), then
    /// ASCII digits (leading zeros without limit), nothing else. The values
    /// as 64-bit two's complement words and their validity: null where the
    /// text is null, does not parse or does not fit. With `failed`, a valid
    /// text that gives null sets it to 1 (a strict cast's error).
    pub fn string_parse_integers(
        &self,
        (offsets, bytes, validity): StringsRef<'_>,
        (min, max): (i64, u64),
        failed: Option<&DeviceBuffer<u32>>,
    ) -> Result<(DeviceBuffer<u64>, DeviceBuffer<u32>), RuntimeError> {
        self.parse_texts(
            ids::string_parse_integers,
            (offsets, bytes, validity),
            |args| {
                args.arg(u32::from(min < 0))
                    .arg(max)
                    .arg(min.unsigned_abs())
            },
            failed,
        )
    }

    /// Polars' cast of `n` texts to `T` (f64 or f32; fast_float2's
    /// grammar: an optional sign, digits with at most one '.', an optional
    /// exponent; or `nan`, `inf`, `infinity` in any case), correctly
    /// rounded. The values and their validity: null where the text is null
    /// or no number. With `failed`, a valid text that is no number sets it
    /// to 1 (a strict cast's error). A number that only big-number
    /// arithmetic rounds (rare: more than 19 significant digits, or a value
    /// halfway between two floats to 128 bits) sets `undecided` to 1; its
    /// value is then not given.
    pub fn string_parse_floats<T: ParsedFloat>(
        &self,
        (offsets, bytes, validity): StringsRef<'_>,
        failed: Option<&DeviceBuffer<u32>>,
        undecided: &DeviceBuffer<u32>,
    ) -> Result<(DeviceBuffer<T>, DeviceBuffer<u32>), RuntimeError> {
        check(!undecided.is_empty(), || {
            "the undecided flag is empty".into()
        })?;
        self.parse_texts(
            T::PARSE,
            (offsets, bytes, validity),
            |args| args.buffer(undecided),
            failed,
        )
    }

    /// Texts of exactly the form `format` gives (bytes below 256 as
    /// themselves, [`PARSE_YEAR`] for 4 digits and the other fields for 2)
    /// naming a date, as days since 1970-01-01, and the validity of those;
    /// any other valid text sets `failed` (the caller leaves the column to
    /// Polars' parser).
    pub fn string_parse_dates(
        &self,
        strings: StringsRef<'_>,
        format: &[u32],
        failed: &DeviceBuffer<u32>,
    ) -> Result<(DeviceBuffer<i32>, DeviceBuffer<u32>), RuntimeError> {
        self.parse_formatted(strings, format, 0, failed)
    }

    /// Texts of exactly the form `format` gives naming a date and a time of
    /// day (missing time fields 0), as timestamps in units of
    /// `1 / per_second` s, and the validity of those; any other valid text,
    /// or a timestamp past i64, sets `failed`.
    pub fn string_parse_timestamps(
        &self,
        strings: StringsRef<'_>,
        format: &[u32],
        per_second: u64,
        failed: &DeviceBuffer<u32>,
    ) -> Result<(DeviceBuffer<i64>, DeviceBuffer<u32>), RuntimeError> {
        check(per_second > 0, || "timestamps of no unit".into())?;
        self.parse_formatted(strings, format, per_second, failed)
    }

    /// The launch of `string_parse_dates` with its `format` program (bytes
    /// below 256 as themselves, then [`PARSE_YEAR`] and the other fields).
    fn parse_formatted<T: DeviceCopy>(
        &self,
        strings: StringsRef<'_>,
        format: &[u32],
        per_second: u64,
        failed: &DeviceBuffer<u32>,
    ) -> Result<(DeviceBuffer<T>, DeviceBuffer<u32>), RuntimeError> {
        check(!format.is_empty(), || "an empty parse format".into())?;
        check(format.iter().all(|&item| item <= PARSE_YEAR + 5), || {
            "a parse format item out of range".into()
        })?;
        let program = DeviceBuffer::from_host(format, self.memory.clone(), self.stream)?;
        self.parse_texts(
            ids::string_parse_dates,
            strings,
            |args| {
                args.arg(per_second)
                    .buffer(&program)
                    .arg(format.len() as u32)
            },
            Some(failed),
        )
    }

    /// Launches a parse of texts, one thread per text: `kernel` takes the
    /// texts, their count, its own arguments (`own`), the values and their
    /// validity it writes, and the failure flag (null for none).
    fn parse_texts<T: DeviceCopy>(
        &self,
        kernel: Kernel,
        (offsets, bytes, validity): StringsRef<'_>,
        own: impl FnOnce(KernelArgs) -> KernelArgs,
        failed: Option<&DeviceBuffer<u32>>,
    ) -> Result<(DeviceBuffer<T>, DeviceBuffer<u32>), RuntimeError> {
        check(!offsets.is_empty(), || "string offsets are empty".into())?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        check(failed.is_none_or(|f| !f.is_empty()), || {
            "the failure flag is empty".into()
        })?;
        let out = self.zeroed::<T>(n)?;
        let out_validity = self.zeroed::<u32>(words(n))?;
        let args = own(string_args((offsets, bytes, validity), n))
            .buffer(&out)
            .buffer(&out_validity)
            .arg(ptr(failed));
        self.launch(kernel, Self::linear(n), args)?;
        Ok((out, out_validity))
    }

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

    /// Concatenates string columns (offsets and bytes; validity is a bitmap
    /// for [`Ops::bitmap_append`]).
    pub fn concat_strings(
        &self,
        parts: &[(&DeviceBuffer<i64>, &DeviceBuffer<u8>)],
    ) -> Result<(DeviceBuffer<i64>, DeviceBuffer<u8>), RuntimeError> {
        for (offsets, _) in parts {
            check(!offsets.is_empty(), || "string offsets are empty".into())?;
        }
        let rows: usize = parts.iter().map(|(o, _)| o.len() - 1).sum();
        let total: usize = parts.iter().map(|(_, b)| b.len()).sum();
        let offsets = self.zeroed::<i64>(rows + 1)?;
        let bytes = self.zeroed::<u8>(total)?;
        let (mut row, mut byte) = (0, 0);
        for (part_offsets, part_bytes) in parts {
            let n = part_offsets.len() - 1;
            // The part's bytes may start after a sliced-off prefix.
            let bounds = part_offsets.to_host_range(0, 1)?[0]..part_offsets.to_host_range(n, 1)?[0];
            check(
                bounds.start >= 0
                    && bounds.start <= bounds.end
                    && bounds.end as usize <= part_bytes.len(),
                || "string offsets outside their bytes".into(),
            )?;
            let used = (bounds.end - bounds.start) as usize;
            let args = KernelArgs::new()
                .buffer(*part_offsets)
                .arg(n as u64)
                .buffer(&offsets)
                .arg(row as u64)
                .arg(byte as i64);
            self.launch(ids::string_offsets_append, Self::linear(n + 1), args)?;
            if used == part_bytes.len() {
                bytes.copy_from_device(byte, part_bytes)?;
            } else {
                let indices = self.iota(used, bounds.start)?;
                let (copied, _) = self.gather(*part_bytes, None, &indices)?;
                bytes.copy_from_device(byte, &copied)?;
            }
            row += n;
            byte += used;
        }
        Ok((offsets, bytes))
    }

    /// The group of each of `n` sorted rows, from the groups' starts.
    pub fn segment_ids(
        &self,
        starts: &DeviceBuffer<i64>,
        n: usize,
    ) -> Result<DeviceBuffer<u32>, RuntimeError> {
        check(starts.len() <= n.max(1), || "more groups than rows".into())?;
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

    /// Launches `kernel`, one thread per sorted position, with its own
    /// arguments `args` followed by the groups (starts, their count, each
    /// position's group, the sorted rows, their count) and a new output of
    /// one `T` per row, which it returns.
    fn launch_in_sorted_groups<T: DeviceCopy>(
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

    fn launch_ranks<T: DeviceCopy>(
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
    fn check_sorted_groups(
        rows: &DeviceBuffer<i64>,
        starts: &DeviceBuffer<i64>,
        group_of: &DeviceBuffer<u32>,
    ) -> Result<usize, RuntimeError> {
        let n = rows.len();
        check(group_of.len() == n, || {
            format!("groups of {} positions for {n} rows", group_of.len())
        })?;
        check(starts.len() <= n.max(1), || "more groups than rows".into())?;
        check(n == 0 || !starts.is_empty(), || {
            "rows without a group".into()
        })?;
        Ok(n)
    }

    /// `a op b` for `n` rows (`b` one value when `b_scalar`): bits and validity.
    #[allow(clippy::too_many_arguments)]
    pub fn compare<T: Compare>(
        &self,
        a: &DeviceBuffer<T>,
        a_validity: Option<&DeviceBuffer<u32>>,
        b: &DeviceBuffer<T>,
        b_validity: Option<&DeviceBuffer<u32>>,
        b_scalar: bool,
        n: usize,
        op: Comparison,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), RuntimeError> {
        check(a.len() >= n, || {
            format!("left operand has {} of {n} rows", a.len())
        })?;
        check(b.len() >= if b_scalar { 1 } else { n }, || {
            "right operand too short".into()
        })?;
        check_bitmap(a_validity, n, "left validity")?;
        check_bitmap(b_validity, if b_scalar { 1 } else { n }, "right validity")?;
        let bits = self.zeroed::<u32>(words(n))?;
        let valid = self.zeroed::<u32>(words(n))?;
        let args = KernelArgs::new()
            .buffer(a)
            .arg(ptr(a_validity))
            .buffer(b)
            .arg(ptr(b_validity))
            .arg(u32::from(b_scalar))
            .arg(n as u64)
            .arg(op as u32)
            .buffer(&bits)
            .buffer(&valid);
        self.launch(T::KERNEL, Self::linear(n), args)?;
        Ok((bits, valid))
    }

    /// Kleene and/or of two boolean columns of `n` rows.
    pub fn kleene(
        &self,
        a: (&DeviceBuffer<u32>, Option<&DeviceBuffer<u32>>),
        b: (&DeviceBuffer<u32>, Option<&DeviceBuffer<u32>>),
        n: usize,
        op: Logic,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), RuntimeError> {
        for (bits, validity) in [a, b] {
            check_bitmap(Some(bits), n, "value")?;
            check_bitmap(validity, n, "validity")?;
        }
        let out = self.zeroed::<u32>(words(n))?;
        let valid = self.zeroed::<u32>(words(n))?;
        let args = KernelArgs::new()
            .buffer(a.0)
            .arg(ptr(a.1))
            .buffer(b.0)
            .arg(ptr(b.1))
            .arg(n as u64)
            .arg(op as u32)
            .buffer(&out)
            .buffer(&valid);
        self.launch(ids::kleene, Self::linear(words(n)), args)?;
        Ok((out, valid))
    }

    /// Each of the `offsets.len() - 1` strings matched against `pattern`:
    /// bits and validity (a null string gives null).
    pub fn string_match(
        &self,
        offsets: &DeviceBuffer<i64>,
        bytes: &DeviceBuffer<u8>,
        validity: Option<&DeviceBuffer<u32>>,
        pattern: &[u8],
        how: StringMatch,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), RuntimeError> {
        let d_pattern = self.upload_pattern(pattern)?;
        self.test_strings(ids::string_match, (offsets, bytes, validity), |args| {
            args.buffer(&d_pattern)
                .arg(pattern.len() as u64)
                .arg(how as u32)
        })
    }

    /// Each string of `a` matched (`how`) against the string in the same row
    /// of `b`: bits and validity (null where either is null).
    pub fn string_match_rows(
        &self,
        a: StringsRef<'_>,
        b: StringsRef<'_>,
        how: StringMatch,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), RuntimeError> {
        self.string_pairs(ids::string_match_rows, a, b, false, how as u32)
    }

    /// Two string columns compared row by row in Rust's `str` order (bytes,
    /// then length), `b` a single string for every row when `b_scalar`:
    /// bits and validity (a null operand gives null).
    pub fn string_compare(
        &self,
        (a_offsets, a_bytes, a_valid): StringsRef<'_>,
        (b_offsets, b_bytes, b_valid): StringsRef<'_>,
        b_scalar: bool,
        op: Comparison,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), RuntimeError> {
        self.string_pairs(
            ids::string_compare,
            (a_offsets, a_bytes, a_valid),
            (b_offsets, b_bytes, b_valid),
            b_scalar,
            op as u32,
        )
    }

    /// Launches `kernel` over the rows of `a` with those of `b` (its only row
    /// when `b_scalar`), as the kernels of pairs of strings take them: both,
    /// `b_scalar`, the count, `mode`, then bits and validity out.
    fn string_pairs(
        &self,
        kernel: Kernel,
        (a_offsets, a_bytes, a_valid): StringsRef<'_>,
        (b_offsets, b_bytes, b_valid): StringsRef<'_>,
        b_scalar: bool,
        mode: u32,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), RuntimeError> {
        check(!a_offsets.is_empty() && !b_offsets.is_empty(), || {
            "string offsets are empty".into()
        })?;
        let n = a_offsets.len() - 1;
        let b_rows = if b_scalar { 1 } else { n };
        check(b_offsets.len() == b_rows + 1, || {
            format!("{} strings to compare with {n}", b_offsets.len() - 1)
        })?;
        check_bitmap(a_valid, n, "validity")?;
        check_bitmap(b_valid, b_rows, "validity")?;
        let bits = self.zeroed::<u32>(words(n))?;
        let valid = self.zeroed::<u32>(words(n))?;
        let args = KernelArgs::new()
            .buffer(a_offsets)
            .buffer(a_bytes)
            .arg(ptr(a_valid))
            .buffer(b_offsets)
            .buffer(b_bytes)
            .arg(ptr(b_valid))
            .arg(u32::from(b_scalar))
            .arg(n as u64)
            .arg(mode)
            .buffer(&bits)
            .buffer(&valid);
        self.launch(kernel, Self::linear(n), args)?;
        Ok((bits, valid))
    }

    /// Each string against a choice of `alternatives`, each literal texts
    /// that must occur in order with no newline between consecutive ones
    /// (the regex `a.*b|c`): bits and validity (a null string gives null).
    pub fn string_match_sequence(
        &self,
        offsets: &DeviceBuffer<i64>,
        bytes: &DeviceBuffer<u8>,
        validity: Option<&DeviceBuffer<u32>>,
        alternatives: &[Vec<String>],
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), RuntimeError> {
        check(!alternatives.is_empty(), || {
            "no alternatives to match".into()
        })?;
        let mut texts = Vec::new();
        let mut text_offsets = vec![0u64];
        let mut ends = Vec::with_capacity(alternatives.len());
        for alternative in alternatives {
            for text in alternative {
                texts.extend_from_slice(text.as_bytes());
                text_offsets.push(texts.len() as u64);
            }
            ends.push(u32::try_from(text_offsets.len() - 1).map_err(|_| {
                RuntimeError::InvalidArgument("too many texts in a pattern".into())
            })?);
        }
        // A trailing byte keeps the upload non-empty when every text is empty.
        texts.push(0);
        let texts = DeviceBuffer::from_host(&texts, self.memory.clone(), self.stream)?;
        let text_offsets =
            DeviceBuffer::from_host(&text_offsets, self.memory.clone(), self.stream)?;
        let ends = DeviceBuffer::from_host(&ends, self.memory.clone(), self.stream)?;
        let strings = (offsets, bytes, validity);
        self.test_strings(ids::string_match_sequence, strings, |args| {
            args.buffer(&texts)
                .buffer(&text_offsets)
                .buffer(&ends)
                .arg(ends.len() as u32)
        })
    }

    /// Launches `kernel`, a test of each of the strings, as those kernels
    /// take their arguments: the strings and their number, then what `more`
    /// adds, then the bits and validity returned.
    fn test_strings(
        &self,
        kernel: Kernel,
        (offsets, bytes, validity): StringsRef<'_>,
        more: impl FnOnce(KernelArgs) -> KernelArgs,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), RuntimeError> {
        check(!offsets.is_empty(), || "string offsets are empty".into())?;
        let n = offsets.len() - 1;
        check_bitmap(validity, n, "validity")?;
        let bits = self.zeroed::<u32>(words(n))?;
        let valid = self.zeroed::<u32>(words(n))?;
        let args = more(string_args((offsets, bytes, validity), n));
        let args = args.buffer(&bits).buffer(&valid);
        self.launch(kernel, Self::linear(n), args)?;
        Ok((bits, valid))
    }

    /// Whether each string holds a match of a regular expression, given as
    /// the tables of its unanchored DFA (one start state): true once the
    /// walk enters a state flagged matched, or ends in one flagged matched
    /// at the end; a dead state ends it false. Bits and validity (null
    /// strings give null). Tables that name a state or class that does not
    /// exist are refused before any launch.
    pub fn string_match_dfa(
        &self,
        strings: StringsRef<'_>,
        tables: DfaTables<'_>,
    ) -> Result<(DeviceBuffer<u32>, DeviceBuffer<u32>), RuntimeError> {
        check(tables.starts.len() == 1, || {
            format!(
                "an unanchored DFA has 1 start state, not {}",
                tables.starts.len()
            )
        })?;
        let dfa = self.dfa_buffers(tables)?;
        let start = tables.starts[0];
        self.test_strings(ids::string_match_dfa, strings, |args| {
            args.buffer(&dfa.classes)
                .buffer(&dfa.transitions)
                .buffer(&dfa.flags)
                .arg(dfa.stride)
                .arg(start)
        })
    }

    /// The negation of `n` bits (bits past `n` are 0).
    pub fn bits_not(
        &self,
        bits: &DeviceBuffer<u32>,
        n: usize,
    ) -> Result<DeviceBuffer<u32>, RuntimeError> {
        check_bitmap(Some(bits), n, "value")?;
        let out = self.zeroed::<u32>(words(n))?;
        self.launch(
            ids::bits_not,
            Self::linear(words(n)),
            KernelArgs::new().buffer(bits).arg(n as u64).buffer(&out),
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
    fn indices_of_flags(
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

    /// The first row of each group (sorted rows), from the marked flags.
    pub fn group_starts(
        &self,
        flags: &DeviceBuffer<u8>,
        n: usize,
    ) -> Result<DeviceBuffer<i64>, RuntimeError> {
        self.indices_of_flags(flags, n)
    }

    fn check_segments<T: DeviceCopy>(
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<(), RuntimeError> {
        check_bitmap(validity, values.len(), "validity")?;
        check(starts.len() <= values.len().max(1), || {
            "more groups than rows".into()
        })
    }

    /// Polars' sum of a whole float column of one chunk, bit for bit
    /// (polars-compute's `float_sum`; nulls add 0.0): the first n % 128
    /// values in order, the rest in blocks of 128 summed in 16 lanes, the
    /// blocks' sums pairwise (see `kernels/cuda/reduce.cu`). One value.
    pub fn pairwise_sum(
        &self,
        values: &DeviceBuffer<f64>,
        validity: Option<&DeviceBuffer<u32>>,
    ) -> Result<DeviceBuffer<f64>, RuntimeError> {
        const BLOCK_VALUES: usize = 128;
        let n = values.len();
        check_bitmap(validity, n, "validity")?;
        let head = n % BLOCK_VALUES;
        let blocks = n / BLOCK_VALUES;
        let sums = self.zeroed::<f64>(blocks.max(1))?;
        if blocks > 0 {
            // Sixteen threads a block.
            let args = KernelArgs::new()
                .buffer(values)
                .arg(ptr(validity))
                .arg(head as u64)
                .arg(blocks as u64)
                .buffer(&sums);
            self.launch(
                ids::pairwise_sum_blocks_f64,
                Self::linear(blocks * 16),
                args,
            )?;
        }
        // The tree's levels, the deepest first: at depth `depth` every node
        // holds at most one block.
        let depth = blocks.max(1).next_power_of_two().trailing_zeros();
        let nodes = 1usize << depth;
        let (mut below, mut level) = (self.zeroed::<f64>(nodes)?, self.zeroed::<f64>(nodes)?);
        for d in (0..=depth).rev() {
            let args = KernelArgs::new()
                .buffer(&sums)
                .arg(blocks as u64)
                .arg(d)
                .buffer(&below)
                .buffer(&level);
            self.launch(ids::pairwise_sum_level_f64, Self::linear(1 << d), args)?;
            std::mem::swap(&mut below, &mut level);
        }
        let out = self.zeroed::<f64>(1)?;
        let args = KernelArgs::new()
            .buffer(values)
            .arg(ptr(validity))
            .arg(head as u64)
            .arg(blocks as u64)
            .buffer(&below)
            .buffer(&out);
        self.launch(
            ids::pairwise_sum_total_f64,
            LaunchConfig::linear(1, 32, 1),
            args,
        )?;
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
    fn reduce<T: DeviceCopy, A: DeviceCopy>(
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
    fn reduce_partials<A: DeviceCopy>(
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

    /// Per-group sums of the valid values (0 for none), wrapping in `T`.
    pub fn segment_sum<T: Aggregable>(
        &self,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceBuffer<T>, RuntimeError> {
        self.segments_in_chunks(T::SUM, values, validity, starts)
    }

    /// Each group's product of its valid values (1 for none), wrapping:
    /// the same in any order, so large groups are multiplied in chunks.
    pub fn segment_product<T: Multipliable>(
        &self,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceBuffer<T>, RuntimeError> {
        self.segments_in_chunks(T::PRODUCT, values, validity, starts)
    }

    /// A per-group reduction `kernel` whose result has the values' type
    /// (a sum or a product), over [`Ops::chunks`] of large groups first and
    /// then over each group's chunks.
    fn segments_in_chunks<T: DeviceCopy>(
        &self,
        kernel: Kernel,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<DeviceBuffer<T>, RuntimeError> {
        Self::check_segments(values, validity, starts)?;
        if let Some(chunks) = self.chunks(starts, values.len())? {
            let partial = self.segment_values(kernel, values, validity, &chunks.starts)?;
            return self.segments_in_chunks(kernel, &partial, None, &chunks.offsets);
        }
        self.segment_values(kernel, values, validity, starts)
    }

    /// A per-group kernel with one value per group and no validity.
    fn segment_values<T: DeviceCopy, A: DeviceCopy>(
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
    fn chunks(&self, starts: &DeviceBuffer<i64>, n: usize) -> Result<Option<Chunks>, RuntimeError> {
        let groups = starts.len();
        if n < 2 * CHUNK_ROWS || groups.saturating_mul(64) > n {
            return Ok(None);
        }
        let counts = self.zeroed::<i64>(groups)?;
        let tile = CHUNK_ROWS as u64;
        let args = KernelArgs::new()
            .buffer(starts)
            .arg(groups as u64)
            .arg(n as u64)
            .arg(tile)
            .buffer(&counts);
        self.launch(ids::segment_chunk_counts, Self::linear(groups), args)?;
        let offsets = self.exclusive_scan_i64(&counts)?;
        // Each group has at most size / tile + 1 chunks.
        let slots = groups + n / CHUNK_ROWS;
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
        Ok(Some(Chunks {
            starts: chunk_starts,
            offsets,
        }))
    }

    /// Per-group means (null for no valid value).
    pub fn segment_mean<T: Aggregable>(
        &self,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        starts: &DeviceBuffer<i64>,
    ) -> Result<(DeviceBuffer<f64>, DeviceBuffer<u32>), RuntimeError> {
        Self::check_segments(values, validity, starts)?;
        let Some(chunks) = self.chunks(starts, values.len())? else {
            return self.segment_with_validity(T::MEAN, values, validity, starts);
        };
        let (sums, counts) = self.chunked_sums(values, validity, &chunks)?;
        self.means_of_sums(&sums, &counts)
    }

    /// Per-group sums (as doubles) and counts of the valid values, over
    /// `chunks` of the groups.
    fn chunked_sums<T: Aggregable>(
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
    fn means_of_sums(
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
            Self::check_segments(values, validity, starts)?;
            if let Some(chunks) = self.chunks(starts, values.len())? {
                let (partial, partial_validity) =
                    self.segment_with_validity(kernel, values, validity, &chunks.starts)?;
                return self.segment_pick(pick, &partial, Some(&partial_validity), &chunks.offsets);
            }
        }
        self.segment_with_validity(kernel, values, validity, starts)
    }

    /// Per-group variances (`std`: standard deviations) of the valid
    /// values with `ddof` delta degrees of freedom, as Polars computes them:
    /// null where a group has no more than `ddof` values.
    pub fn segment_variance(
        &self,
        values: &DeviceBuffer<f64>,
        validity: Option<&DeviceBuffer<u32>>,
        starts: &DeviceBuffer<i64>,
        ddof: u8,
        std: bool,
    ) -> Result<(DeviceBuffer<f64>, DeviceBuffer<u32>), RuntimeError> {
        Self::check_segments(values, validity, starts)?;
        let Some(chunks) = self.chunks(starts, values.len())? else {
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

    fn segment_with_validity<T: DeviceCopy, A: DeviceCopy>(
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
    fn segment_with_validity_and<T: DeviceCopy, A: DeviceCopy>(
        &self,
        kernel: Kernel,
        values: &DeviceBuffer<T>,
        validity: Option<&DeviceBuffer<u32>>,
        starts: &DeviceBuffer<i64>,
        extra: impl FnOnce(KernelArgs) -> KernelArgs,
    ) -> Result<(DeviceBuffer<A>, DeviceBuffer<u32>), RuntimeError> {
        Self::check_segments(values, validity, starts)?;
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
        check(starts.len() <= n.max(1), || "more groups than rows".into())?;
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
    fn scan_counts(&self, counts: &DeviceBuffer<u32>) -> Result<DeviceBuffer<u64>, RuntimeError> {
        self.scan(counts, ids::scan_u32, false)
    }

    fn scan_u8(&self, flags: &DeviceBuffer<u8>) -> Result<DeviceBuffer<u64>, RuntimeError> {
        self.scan(flags, ids::scan_u8, false)
    }

    /// Exclusive (or inclusive) sums of `input` in the kernel's
    /// accumulator type `A`: one launch of a single-pass scan over tiles of
    /// [`SCAN_PASS_TILE`] elements, with a status word and two values per
    /// tile for the look-back, and the tile counter.
    fn scan<T: DeviceCopy, A: DeviceCopy>(
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
