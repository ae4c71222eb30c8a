//! Streams and events: ordered queues of device work and markers in them.

use std::sync::{Arc, Weak};

use crate::emulated::stream::{EmulatedEvent, EmulatedStream};
use crate::error::RuntimeError;

/// An ordered queue of device work. Cloning gives another handle to the
/// same stream; the stream ends (after finishing its work) with its last handle.
///
/// Work enqueued on a stream runs in order, asynchronously to the host and to
/// other streams. Reading results on the host needs [`Stream::synchronize`];
/// using them on another stream needs an [`Event`] recorded here and waited
/// on there.
#[derive(Debug, Clone)]
pub struct Stream {
    inner: Arc<EmulatedStream>,
    host_threads: u32,
}

/// A stream that does not keep its stream alive.
#[derive(Debug, Clone)]
pub(crate) struct WeakStream {
    inner: Weak<EmulatedStream>,
    host_threads: u32,
}

impl WeakStream {
    pub fn upgrade(&self) -> Option<Stream> {
        self.inner.upgrade().map(|inner| Stream {
            inner,
            host_threads: self.host_threads,
        })
    }
}

impl Stream {
    pub(crate) fn emulated(device_ordinal: usize, host_threads: u32) -> Result<Self, RuntimeError> {
        Ok(Stream {
            inner: Arc::new(EmulatedStream::new(device_ordinal)?),
            host_threads,
        })
    }

    /// Host threads an emulated launch on this stream may use (0: all cores).
    pub(crate) fn host_threads(&self) -> u32 {
        self.host_threads
    }

    /// A number unique to this stream in the process.
    pub fn id(&self) -> u64 {
        self.inner.id()
    }

    /// Blocks until all work enqueued so far has run; reports the first
    /// failure of that work.
    pub fn synchronize(&self) -> Result<(), RuntimeError> {
        self.inner.synchronize()
    }

    /// Whether all work enqueued so far has run (never blocks).
    pub fn is_idle(&self) -> bool {
        self.inner.is_idle()
    }

    /// Enqueues host-side work that runs in stream order (the emulated
    /// device's kernels and copies).
    pub(crate) fn enqueue(&self, work: impl FnOnce() + Send + 'static) -> Result<(), RuntimeError> {
        self.inner.enqueue(work)
    }

    pub(crate) fn downgrade(&self) -> WeakStream {
        WeakStream {
            inner: Arc::downgrade(&self.inner),
            host_threads: self.host_threads,
        }
    }

    /// Makes later work on `self` wait for the work enqueued on `other` so far.
    pub fn wait_for(&self, other: &Stream) -> Result<(), RuntimeError> {
        if self.id() == other.id() {
            return Ok(());
        }
        let event = Event::new();
        event.record(other)?;
        event.wait_on(self)
    }
}

/// A marker in a stream: it completes when the work enqueued before it has run.
#[derive(Debug, Clone, Default)]
pub struct Event {
    inner: EmulatedEvent,
}

impl Event {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records the event at the current end of `stream`.
    pub fn record(&self, stream: &Stream) -> Result<(), RuntimeError> {
        self.inner.record(&stream.inner)
    }

    /// Makes work enqueued on `stream` after this call wait for the event's
    /// latest record.
    pub fn wait_on(&self, stream: &Stream) -> Result<(), RuntimeError> {
        self.inner.wait_on(&stream.inner)
    }

    /// Blocks the host until the event's latest record completes.
    pub fn synchronize(&self) -> Result<(), RuntimeError> {
        self.inner.synchronize()
    }

    /// Whether the latest record has completed (never blocks).
    pub fn is_complete(&self) -> bool {
        self.inner.is_complete()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Duration;

    use super::*;

    fn slow_write(stream: &Stream, cell: &Arc<AtomicU64>, value: u64) {
        let cell = cell.clone();
        stream
            .enqueue(move || {
                std::thread::sleep(Duration::from_millis(50));
                cell.store(value, Ordering::SeqCst);
            })
            .unwrap();
    }

    fn read_on(stream: &Stream, cell: &Arc<AtomicU64>) -> Arc<AtomicU64> {
        let (cell, seen) = (cell.clone(), Arc::new(AtomicU64::new(u64::MAX)));
        let sink = seen.clone();
        stream
            .enqueue(move || sink.store(cell.load(Ordering::SeqCst), Ordering::SeqCst))
            .unwrap();
        seen
    }

    #[test]
    fn work_on_b_after_an_event_of_a_sees_a_results() {
        let (a, b) = (
            Stream::emulated(0, 1).unwrap(),
            Stream::emulated(0, 1).unwrap(),
        );
        let cell = Arc::new(AtomicU64::new(0));
        slow_write(&a, &cell, 7);
        let event = Event::new();
        event.record(&a).unwrap();
        event.wait_on(&b).unwrap();
        let seen = read_on(&b, &cell);
        b.synchronize().unwrap();
        assert_eq!(seen.load(Ordering::SeqCst), 7);
        assert!(event.is_complete());
    }

    #[test]
    fn without_the_wait_b_races_ahead_so_a_missing_wait_shows() {
        let (a, b) = (
            Stream::emulated(0, 1).unwrap(),
            Stream::emulated(0, 1).unwrap(),
        );
        let cell = Arc::new(AtomicU64::new(0));
        slow_write(&a, &cell, 7);
        let seen = read_on(&b, &cell);
        b.synchronize().unwrap();
        assert_eq!(seen.load(Ordering::SeqCst), 0, "b ran before a's work");
        assert!(!a.is_idle());
        a.synchronize().unwrap();
        assert!(a.is_idle());
    }

    #[test]
    fn wait_for_orders_two_streams_and_host_sync_waits() {
        let (a, b) = (
            Stream::emulated(1, 1).unwrap(),
            Stream::emulated(1, 1).unwrap(),
        );
        let cell = Arc::new(AtomicU64::new(0));
        slow_write(&a, &cell, 3);
        b.wait_for(&a).unwrap();
        let seen = read_on(&b, &cell);
        let event = Event::new();
        event.record(&b).unwrap();
        event.synchronize().unwrap();
        assert_eq!(seen.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn failed_work_is_reported_at_synchronize_and_poisons_the_stream() {
        let stream = Stream::emulated(0, 1).unwrap();
        stream.enqueue(|| panic!("kernel fault")).unwrap();
        let ran_after = Arc::new(AtomicU64::new(0));
        let flag = ran_after.clone();
        stream
            .enqueue(move || flag.store(1, Ordering::SeqCst))
            .unwrap();
        let err = stream.synchronize().unwrap_err();
        assert!(err.to_string().contains("kernel fault"), "{err}");
        assert_eq!(ran_after.load(Ordering::SeqCst), 0);
    }
}
