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

impl Ops<'_> {
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
        check(
            !table.starts.is_empty()
                && table.starts.len() == table.offsets.len()
                && table.starts[0] == i64::MIN
                && table.starts.is_sorted(),
            || {
                "a zone table of no spans, or of starts unsorted or not from the least instant"
                    .into()
            },
        )?;
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
