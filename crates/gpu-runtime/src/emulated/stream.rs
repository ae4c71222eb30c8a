//! Streams and events of the emulated device: each stream is a worker thread running its work in order.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use crate::error::RuntimeError;

/// A work item, and whether it runs even on a poisoned stream (event
/// records and waits: markers that must complete, or waiters would hang).
type Work = (Box<dyn FnOnce() + Send + 'static>, bool);

/// A queue of work that runs asynchronously, in order, on its own thread.
///
/// As on a GPU, enqueueing returns at once: a caller that reads results
/// without [`EmulatedStream::synchronize`] (or an event wait) races the worker,
/// so a missing synchronisation shows up in tests instead of being hidden.
/// Work that panics poisons the stream: the panic is reported by the next
/// synchronisation, and later work is skipped, like a sticky CUDA error.
#[derive(Debug)]
pub struct EmulatedStream {
    id: u64,
    sender: Mutex<Option<Sender<Work>>>,
    worker: Mutex<Option<JoinHandle<()>>>,
    state: Arc<StreamState>,
    /// Set once the worker has run all the stream's work and stopped.
    ended: Arc<AtomicBool>,
    /// The modules (by their PTX's address) whose kernels the stream has
    /// launched: the emulated device's stand-in for loading a module,
    /// where a fault can be injected (`faults::Seam::ModuleLoad`).
    modules: Mutex<HashSet<usize>>,
}

#[derive(Debug, Default)]
struct StreamState {
    /// Work items enqueued and finished.
    counts: Mutex<(u64, u64)>,
    finished: Condvar,
    /// The first failure of a work item, reported at synchronisation.
    error: Mutex<Option<String>>,
}

impl EmulatedStream {
    /// Starts a stream with its worker thread.
    pub fn new(device_ordinal: usize, id: u64) -> Result<Self, RuntimeError> {
        let (sender, receiver) = channel::<Work>();
        let state = Arc::new(StreamState::default());
        let worker_state = state.clone();
        let worker = std::thread::Builder::new()
            .name(format!("emulated-gpu{device_ordinal}-stream{id}"))
            .spawn(move || {
                for (work, always) in receiver {
                    let poisoned = worker_state
                        .error
                        .lock()
                        .map(|e| e.is_some())
                        .unwrap_or(true);
                    if !poisoned || always {
                        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
                        if let Err(panic) = outcome {
                            let message = panic
                                .downcast_ref::<&str>()
                                .map(|s| s.to_string())
                                .or_else(|| panic.downcast_ref::<String>().cloned())
                                .unwrap_or_else(|| "a work item panicked".to_owned());
                            if let Ok(mut error) = worker_state.error.lock() {
                                error.get_or_insert(message);
                            }
                        }
                    }
                    if let Ok(mut counts) = worker_state.counts.lock() {
                        counts.1 += 1;
                    }
                    worker_state.finished.notify_all();
                }
            })
            .map_err(|e| RuntimeError::Internal(format!("cannot start a stream thread: {e}")))?;
        Ok(EmulatedStream {
            id,
            sender: Mutex::new(Some(sender)),
            worker: Mutex::new(Some(worker)),
            state,
            ended: Arc::default(),
            modules: Mutex::default(),
        })
    }

    /// Whether this is the stream's first launch of a kernel of the module
    /// at `module` (its PTX's address); the module counts as loaded after.
    pub fn loads(&self, module: usize) -> bool {
        self.modules
            .lock()
            .is_ok_and(|mut modules| modules.insert(module))
    }

    /// The flag set once this stream has ended (its work done).
    pub fn ended(&self) -> Arc<AtomicBool> {
        self.ended.clone()
    }

    /// A number unique to this stream in the process.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Enqueues `work`; it runs after everything enqueued before it.
    pub fn enqueue(&self, work: impl FnOnce() + Send + 'static) -> Result<(), RuntimeError> {
        self.send(Box::new(work), false)
    }

    /// Enqueues a marker (an event's record or wait): it runs in order like
    /// work, and also once the stream is poisoned.
    fn enqueue_marker(&self, work: impl FnOnce() + Send + 'static) -> Result<(), RuntimeError> {
        self.send(Box::new(work), true)
    }

    fn send(
        &self,
        work: Box<dyn FnOnce() + Send + 'static>,
        always: bool,
    ) -> Result<(), RuntimeError> {
        let sender = self
            .sender
            .lock()
            .map_err(|_| RuntimeError::Internal("a stream's queue is poisoned".into()))?;
        let sender = sender
            .as_ref()
            .ok_or_else(|| RuntimeError::Internal("the stream has shut down".into()))?;
        if let Ok(mut counts) = self.state.counts.lock() {
            counts.0 += 1;
        }
        sender
            .send((work, always))
            .map_err(|_| RuntimeError::Internal("the stream's worker has stopped".into()))
    }

    /// Blocks until all work enqueued so far has run; reports the first failure.
    pub fn synchronize(&self) -> Result<(), RuntimeError> {
        let mut counts = self
            .state
            .counts
            .lock()
            .map_err(|_| RuntimeError::Internal("a stream's state is poisoned".into()))?;
        let target = counts.0;
        while counts.1 < target {
            counts = self
                .state
                .finished
                .wait(counts)
                .map_err(|_| RuntimeError::Internal("a stream's state is poisoned".into()))?;
        }
        drop(counts);
        self.check_error()
    }

    /// Whether all work enqueued so far has run (never blocks).
    pub fn is_idle(&self) -> bool {
        self.state
            .counts
            .lock()
            .map(|counts| counts.0 == counts.1)
            .unwrap_or(false)
    }

    fn check_error(&self) -> Result<(), RuntimeError> {
        match self.state.error.lock() {
            Ok(error) => match error.as_ref() {
                Some(message) => Err(RuntimeError::Internal(format!(
                    "work on emulated stream {} failed: {message}",
                    self.id
                ))),
                None => Ok(()),
            },
            Err(_) => Err(RuntimeError::Internal(
                "a stream's state is poisoned".into(),
            )),
        }
    }
}

impl Drop for EmulatedStream {
    fn drop(&mut self) {
        // Closing the queue lets the worker finish what was enqueued, then stop.
        if let Ok(mut sender) = self.sender.lock() {
            sender.take();
        }
        if let Ok(mut worker) = self.worker.lock()
            && let Some(worker) = worker.take()
        {
            let _ = worker.join();
        }
        self.ended.store(true, Ordering::Release);
    }
}

/// A marker in a stream's work: waiting on it waits for everything enqueued
/// on that stream before it was recorded.
#[derive(Debug, Clone, Default)]
pub struct EmulatedEvent {
    state: Arc<EventState>,
}

#[derive(Debug, Default)]
struct EventState {
    /// (times recorded, times completed)
    counts: Mutex<(u64, u64)>,
    completed: Condvar,
}

impl EmulatedEvent {
    /// Records the event on `stream`: it completes when the work enqueued on
    /// `stream` so far has run.
    pub fn record(&self, stream: &EmulatedStream) -> Result<(), RuntimeError> {
        {
            let mut counts = self
                .state
                .counts
                .lock()
                .map_err(|_| RuntimeError::Internal("an event is poisoned".into()))?;
            counts.0 += 1;
        }
        let state = self.state.clone();
        stream.enqueue_marker(move || {
            if let Ok(mut counts) = state.counts.lock() {
                counts.1 += 1;
            }
            state.completed.notify_all();
        })
    }

    /// How many times the event has been recorded: waiting targets the latest.
    fn latest_record(&self) -> Result<u64, RuntimeError> {
        self.state
            .counts
            .lock()
            .map(|counts| counts.0)
            .map_err(|_| RuntimeError::Internal("an event is poisoned".into()))
    }

    /// Makes later work on `stream` wait until this event's latest record completes.
    pub fn wait_on(&self, stream: &EmulatedStream) -> Result<(), RuntimeError> {
        let target = self.latest_record()?;
        let state = self.state.clone();
        stream.enqueue_marker(move || wait_for(&state, target))
    }

    /// Blocks the host until this event's latest record completes.
    pub fn synchronize(&self) -> Result<(), RuntimeError> {
        wait_for(&self.state, self.latest_record()?);
        Ok(())
    }

    /// Whether this event's latest record has completed (never blocks).
    pub fn is_complete(&self) -> bool {
        self.state
            .counts
            .lock()
            .map(|counts| counts.1 >= counts.0)
            .unwrap_or(false)
    }
}

fn wait_for(state: &EventState, target: u64) {
    let Ok(mut counts) = state.counts.lock() else {
        return;
    };
    while counts.1 < target {
        counts = match state.completed.wait(counts) {
            Ok(counts) => counts,
            Err(_) => return,
        };
    }
}
