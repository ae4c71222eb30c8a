//! Operations of the time-zone kernels (`kernels/cuda/zones.cu`): local times of instants by a table of a zone's UTC offsets.

use super::*;

/// A zone's UTC offsets as spans of instants, in one time unit: span `k`
/// runs from `starts[k]` to the next start (the first from the least
/// instant) with the offset `offsets[k]`; the table holds for the instants
/// in `low..high`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZoneTable {
    pub starts: Vec<i64>,
    pub offsets: Vec<i64>,
    pub low: i64,
    pub high: i64,
}

/// What a local time the clocks pass twice gives (Polars' `ambiguous`;
/// the kernel's numbering).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ambiguous {
    Raise = 0,
    Earliest = 1,
    Latest = 2,
    Null = 3,
}

/// The instants of local times ([`Ops::zone_instants`]), with their
/// validity and two flags (one word each): `failed`, a local time the
/// clocks skip or pass twice where that raises; `outside`, a valid local
/// time outside the table's `low..high`.
#[derive(Debug)]
pub struct ZoneInstants {
    pub instants: DeviceBuffer<i64>,
    pub validity: DeviceBuffer<u32>,
    pub failed: DeviceBuffer<u32>,
    pub outside: DeviceBuffer<u32>,
}

impl Ops<'_> {
    /// The instants whose local times by `table` are the valid values of
    /// `locals` (plain timestamps of wall-clock times, `validity`): the one
    /// such instant; of two (the clocks pass the time twice) as `ambiguous`
    /// says; of none (the clocks skip it) null, or a raised `failed` with
    /// `non_existent_raises`.
    pub fn zone_instants(
        &self,
        locals: &DeviceBuffer<i64>,
        validity: Option<&DeviceBuffer<u32>>,
        table: &ZoneTable,
        ambiguous: Ambiguous,
        non_existent_raises: bool,
    ) -> Result<ZoneInstants, RuntimeError> {
        let n = locals.len();
        check_bitmap(validity, n, "validity")?;
        check_table(table)?;
        let reach = table
            .offsets
            .iter()
            .map(|offset| offset.unsigned_abs())
            .max()
            .unwrap_or(0)
            .saturating_add(1);
        let reach = i64::try_from(reach).map_err(|_| {
            RuntimeError::InvalidArgument("a zone table of offsets beyond any instant".into())
        })?;
        let starts = DeviceBuffer::from_host(&table.starts, self.memory.clone(), self.stream)?;
        let offsets = DeviceBuffer::from_host(&table.offsets, self.memory.clone(), self.stream)?;
        let out = ZoneInstants {
            instants: self.output::<i64>(n)?,
            validity: self.zeroed::<u32>(words(n))?,
            failed: self.zeroed::<u32>(1)?,
            outside: self.zeroed::<u32>(1)?,
        };
        if n == 0 {
            return Ok(out);
        }
        let args = KernelArgs::new()
            .buffer(locals)
            .arg(ptr(validity))
            .arg(n as u64)
            .buffer(&starts)
            .buffer(&offsets)
            .arg(table.starts.len() as u64)
            .arg(reach)
            .arg(table.low)
            .arg(table.high)
            .arg(ambiguous as u32)
            .arg(u32::from(non_existent_raises))
            .buffer(&out.instants)
            .buffer(&out.validity)
            .buffer(&out.failed)
            .buffer(&out.outside);
        self.launch(ids::zone_instants, Self::linear(n), args)?;
        Ok(out)
    }

    /// Each valid instant of `instants` (`validity`) plus the offset of the
    /// span of `table` it falls in: the local times, with a flag (one word)
    /// raised where a valid instant lies outside the table's `low..high`.
    pub fn zone_local_times(
        &self,
        instants: &DeviceBuffer<i64>,
        validity: Option<&DeviceBuffer<u32>>,
        table: &ZoneTable,
    ) -> Result<(DeviceBuffer<i64>, DeviceBuffer<u32>), RuntimeError> {
        let n = instants.len();
        check_bitmap(validity, n, "validity")?;
        check_table(table)?;
        let starts = DeviceBuffer::from_host(&table.starts, self.memory.clone(), self.stream)?;
        let offsets = DeviceBuffer::from_host(&table.offsets, self.memory.clone(), self.stream)?;
        let out = self.output::<i64>(n)?;
        let outside = self.zeroed::<u32>(1)?;
        if n == 0 {
            return Ok((out, outside));
        }
        let args = KernelArgs::new()
            .buffer(instants)
            .arg(ptr(validity))
            .arg(n as u64)
            .buffer(&starts)
            .buffer(&offsets)
            .arg(table.starts.len() as u64)
            .arg(table.low)
            .arg(table.high)
            .buffer(&out)
            .buffer(&outside);
        self.launch(ids::zone_local_times, Self::linear(n), args)?;
        Ok((out, outside))
    }
}

/// `table` holds at least one span, starts from the least instant, ascends.
fn check_table(table: &ZoneTable) -> Result<(), RuntimeError> {
    check(
        !table.starts.is_empty()
            && table.starts.len() == table.offsets.len()
            && table.starts[0] == i64::MIN
            && table.starts.is_sorted(),
        || "a zone table of no spans, or of starts unsorted or not from the least instant".into(),
    )
}
