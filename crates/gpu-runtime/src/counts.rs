//! Process-wide counts of the device work asked for (kernel launches, host waits), read by profiles.
//!
//! A launch costs a few microseconds of the host's time on a GPU and a host
//! wait (a stream's or an event's synchronization: a download waits for
//! each staging block it reads through) a round trip to the device: plans of many small operators are
//! bound by these counts rather than by bandwidth. The counts are the
//! emulated device's and a GPU's alike, so they are measured without a GPU.

use std::sync::atomic::{AtomicU64, Ordering};

static LAUNCHES: AtomicU64 = AtomicU64::new(0);
static HOST_WAITS: AtomicU64 = AtomicU64::new(0);

/// Kernel launches and host waits since the process started, on every
/// stream of every device (a profile of one query at a time reads
/// differences).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WorkCounts {
    pub launches: u64,
    pub host_waits: u64,
}

impl WorkCounts {
    /// The counts now.
    pub fn now() -> Self {
        WorkCounts {
            launches: LAUNCHES.load(Ordering::Relaxed),
            host_waits: HOST_WAITS.load(Ordering::Relaxed),
        }
    }

    /// The counts from `earlier` to `self`.
    pub fn since(self, earlier: WorkCounts) -> WorkCounts {
        WorkCounts {
            launches: self.launches.saturating_sub(earlier.launches),
            host_waits: self.host_waits.saturating_sub(earlier.host_waits),
        }
    }
}

pub(crate) fn launched() {
    LAUNCHES.fetch_add(1, Ordering::Relaxed);
}

pub(crate) fn waited() {
    HOST_WAITS.fetch_add(1, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_go_up_and_differences_never_go_below_zero() {
        let before = WorkCounts::now();
        launched();
        waited();
        waited();
        let after = WorkCounts::now().since(before);
        // Other tests may launch meanwhile: at least ours are counted.
        assert!(after.launches >= 1 && after.host_waits >= 2, "{after:?}");
        assert_eq!(before.since(WorkCounts::now()), WorkCounts::default());
    }
}
