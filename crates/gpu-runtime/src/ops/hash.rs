//! Operations of the hash kernels (`kernels/cuda/hash.cu`): hash joins and cross joins.

use super::*;

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

impl Ops<'_> {
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
                Values::I64(out) => Ok(out),
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
    pub(super) fn hash_keys<T: HashKey>(
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
}
