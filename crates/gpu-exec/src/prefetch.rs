//! Inputs made ahead of their use: a host thread uploads a plan's in-memory scans on a copy stream while the executor computes; inputs already on the device when a plan starts.
//!
//! The executor asks for its inputs one at a time, in an order known before
//! it starts (the plan's scans, depth first). [`Prefetch`] is the hand-over
//! between it and one worker thread that makes those inputs in that order,
//! at most `ahead` of them waiting at a time, so that an upload (host-side
//! conversion, staging, copies) overlaps the compute that comes before its
//! use instead of following it. The hand-over never changes a result: an
//! input the worker will not reach (it is paused on inputs made ahead and
//! not taken, or stopped), or failed to make, the executor makes itself,
//! exactly as without a worker; one the worker is making, or is on its way
//! to, the executor waits for.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use gpu_runtime::{Event, Stream};
use polars::prelude::DataFrame;

use crate::column::{DeviceFrame, ExecContext};
use crate::error::ExecError;

/// Where one input stands.
enum Slot<T> {
    /// Not started: the worker makes it when its turn comes, unless the
    /// executor asks for it while the worker cannot reach it (and then
    /// makes it itself).
    Waiting,
    /// The worker is making it.
    Making,
    /// Made, waiting to be taken.
    Ready(T),
}

struct State<T> {
    /// The inputs by key, until taken (or given up by the worker).
    slots: HashMap<usize, Slot<T>>,
    /// The keys in the order the worker makes them.
    order: Vec<usize>,
    /// How many of `order` the worker has passed.
    next: usize,
    /// Set once the executor is done: the worker starts nothing more.
    stopped: bool,
    /// How many made inputs were taken.
    taken: usize,
}

impl<T> State<T> {
    fn ready(&self) -> usize {
        self.slots
            .values()
            .filter(|slot| matches!(slot, Slot::Ready(_)))
            .count()
    }
}

/// Inputs made ahead by a worker thread, taken by key.
pub(crate) struct Prefetch<T> {
    state: Mutex<State<T>>,
    changed: Condvar,
    /// How many made inputs may wait to be taken before the worker pauses:
    /// each holds device memory the plan would only need later.
    ahead: usize,
}

impl<T> Prefetch<T> {
    /// Inputs with these keys, made in this order (a repeated key counts
    /// once), at most `ahead` (at least 1) waiting at a time.
    pub(crate) fn new(order: Vec<usize>, ahead: usize) -> Self {
        let slots = order.iter().map(|key| (*key, Slot::Waiting)).collect();
        Prefetch {
            state: Mutex::new(State {
                slots,
                order,
                next: 0,
                stopped: false,
                taken: 0,
            }),
            changed: Condvar::new(),
            ahead: ahead.max(1),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // A panic while the lock is held leaves nothing half-changed: every
        // change under it is one assignment.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The worker's loop: makes each input in order with `make` (`None`:
    /// it could not, and the executor will make that one itself), until
    /// every input is made or [`Prefetch::stop`]. A panic in `make` counts
    /// as `None` and ends the loop.
    pub(crate) fn work(&self, mut make: impl FnMut(usize) -> Option<T>) {
        loop {
            let key = {
                let mut state = self.lock();
                while !state.stopped && state.ready() >= self.ahead {
                    state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
                }
                if state.stopped || state.next == state.order.len() {
                    return;
                }
                let key = state.order[state.next];
                state.next += 1;
                match state.slots.get_mut(&key) {
                    Some(slot @ Slot::Waiting) => *slot = Slot::Making,
                    // Taken by the executor, or a repeated key.
                    _ => continue,
                }
                key
            };
            let made = catch_unwind(AssertUnwindSafe(|| make(key)));
            let mut state = self.lock();
            let panicked = made.is_err();
            match made.ok().flatten() {
                Some(input) => state.slots.insert(key, Slot::Ready(input)),
                None => state.slots.remove(&key),
            };
            state.stopped |= panicked;
            drop(state);
            self.changed.notify_all();
        }
    }

    /// The input `key`, if the worker makes it: waits while the worker is
    /// making it, or is on its way to it. `None` when the worker will not
    /// get to it (it is paused on inputs made ahead that are not taken, or
    /// stopped: the worker then never makes this one), could not make it, or
    /// it is not one of the keys: the caller makes it itself.
    pub(crate) fn take(&self, key: usize) -> Option<T> {
        let mut state = self.lock();
        loop {
            match state.slots.remove(&key) {
                Some(Slot::Ready(input)) => {
                    state.taken += 1;
                    drop(state);
                    self.changed.notify_all();
                    return Some(input);
                }
                Some(slot @ Slot::Making) => {
                    state.slots.insert(key, slot);
                }
                // The worker goes on until it makes this one or pauses.
                Some(slot @ Slot::Waiting) if !state.stopped && state.ready() < self.ahead => {
                    state.slots.insert(key, slot);
                }
                Some(Slot::Waiting) | None => return None,
            }
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// How many inputs the worker made were taken.
    pub(crate) fn taken(&self) -> usize {
        self.lock().taken
    }

    /// Ends the worker's loop after the input it is making, if any. Inputs
    /// made and not taken are dropped with the `Prefetch`.
    pub(crate) fn stop(&self) {
        self.lock().stopped = true;
        self.changed.notify_all();
    }
}

/// An in-memory input already on the device when a plan that scans it
/// runs: a join's whole other input, kept from one partition's run to the
/// next (`shared`: each scan of it, all its columns, copies it on the
/// device), or a partition uploaded on the copy stream while the run
/// before it computed (the first scan takes it).
pub(crate) struct Resident {
    df: Arc<DataFrame>,
    /// `None` once taken.
    frame: std::sync::Mutex<Option<DeviceFrame>>,
    /// Recorded after its upload.
    made: Event,
    shared: bool,
    /// Scans that copied or took it.
    uses: std::sync::atomic::AtomicUsize,
}

impl Resident {
    /// `df` uploaded on `ctx`'s stream.
    pub(crate) fn upload(
        df: Arc<DataFrame>,
        ctx: &ExecContext,
        shared: bool,
    ) -> Result<Resident, ExecError> {
        let frame = DeviceFrame::from_dataframe(&df, None, ctx)?;
        let made = Event::new();
        made.record(&ctx.stream)?;
        Ok(Resident {
            df,
            frame: std::sync::Mutex::new(Some(frame)),
            made,
            shared,
            uses: Default::default(),
        })
    }

    /// Whether it is `df` (the scan of all its `projection`'s columns).
    pub(crate) fn is(&self, df: &DataFrame, projection: &[usize]) -> bool {
        std::ptr::eq(df, &*self.df) && projection.iter().copied().eq(0..df.width())
    }

    /// The frame for a scan on `stream`, after its upload: shared, a copy
    /// made there by `copy` (the frame is freed on its own stream, once
    /// the runs that read it have ended); else the frame itself, handed to
    /// `stream`. `None` once taken.
    pub(crate) fn read(
        &self,
        stream: &Stream,
        copy: impl FnOnce(&DeviceFrame) -> Result<DeviceFrame, ExecError>,
    ) -> Option<Result<DeviceFrame, ExecError>> {
        let mut held = self
            .frame
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let read = match self.shared {
            true => {
                let frame = held.as_ref()?;
                self.made
                    .wait_on(stream)
                    .map_err(ExecError::from)
                    .and_then(|()| copy(frame))
            }
            false => {
                let mut frame = held.take()?;
                frame
                    .move_to_stream(stream, Some(&self.made))
                    .map(|()| frame)
                    .map_err(ExecError::from)
            }
        };
        self.uses.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Some(read)
    }

    /// Scans that copied or took it.
    pub(crate) fn uses(&self) -> usize {
        self.uses.load(std::sync::atomic::Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::thread;

    use super::*;

    /// Runs `executor` against a worker making `key * 10` (when `make`,
    /// which sees the key first, says so), stopping the worker when the
    /// executor returns.
    fn with_worker<R>(
        prefetch: &Prefetch<usize>,
        make: impl Fn(usize) -> Option<usize> + Send + Sync,
        executor: impl FnOnce() -> R,
    ) -> R {
        thread::scope(|s| {
            s.spawn(|| prefetch.work(|key| make(key).map(|_| key * 10)));
            let result = executor();
            prefetch.stop();
            result
        })
    }

    /// Waits until the worker has made `key`, then returns how many inputs
    /// wait to be taken.
    fn until_made(prefetch: &Prefetch<usize>, key: usize) -> usize {
        loop {
            let state = prefetch.lock();
            if matches!(state.slots.get(&key), Some(Slot::Ready(_))) {
                return state.ready();
            }
            drop(state);
            thread::yield_now();
        }
    }

    #[test]
    fn inputs_asked_for_in_order_come_from_the_worker_one_ahead() {
        let prefetch = Prefetch::new(vec![1, 2, 3], 1);
        let made = AtomicUsize::new(0);
        let (waiting, taken) = with_worker(
            &prefetch,
            |_| Some(made.fetch_add(1, Ordering::SeqCst)),
            || {
                let mut waiting = Vec::new();
                let mut taken = Vec::new();
                for key in [1, 2, 3] {
                    waiting.push(until_made(&prefetch, key));
                    taken.push(prefetch.take(key));
                }
                (waiting, taken)
            },
        );
        assert_eq!(taken, [Some(10), Some(20), Some(30)]);
        assert_eq!(waiting, [1, 1, 1], "the worker pauses with one input made");
        assert_eq!(made.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn an_input_asked_for_out_of_order_is_left_to_the_executor() {
        // The worker makes 1 and then waits for it to be taken (one ahead);
        // the executor asks for 3 first, makes it itself, and never waits
        // on the paused worker.
        let prefetch = Prefetch::new(vec![1, 2, 3], 1);
        let taken = with_worker(&prefetch, Some, || {
            until_made(&prefetch, 1);
            let third = prefetch.take(3);
            let first = prefetch.take(1);
            until_made(&prefetch, 2);
            (third, first, prefetch.take(2))
        });
        assert_eq!(taken, (None, Some(10), Some(20)));
    }

    #[test]
    fn an_input_being_made_is_waited_for() {
        let prefetch = Prefetch::new(vec![1], 1);
        let started = AtomicUsize::new(0);
        let taken = with_worker(
            &prefetch,
            |key| {
                started.store(1, Ordering::SeqCst);
                thread::sleep(std::time::Duration::from_millis(50));
                Some(key)
            },
            || {
                while started.load(Ordering::SeqCst) == 0 {
                    thread::yield_now();
                }
                prefetch.take(1)
            },
        );
        assert_eq!(taken, Some(10));
    }

    #[test]
    fn an_input_not_started_yet_is_waited_for_while_the_worker_goes_on() {
        // Two ahead: the worker makes 1 and goes on to 2 while the executor
        // waits for 2 (before the worker has even started, perhaps).
        let prefetch = Prefetch::new(vec![1, 2], 2);
        let taken = with_worker(&prefetch, Some, || (prefetch.take(2), prefetch.take(1)));
        assert_eq!(taken, (Some(20), Some(10)));
        assert_eq!(prefetch.taken(), 2);
    }

    #[test]
    fn a_failed_or_panicking_make_leaves_the_input_to_the_executor() {
        let prefetch = Prefetch::new(vec![1, 2, 3], 2);
        let attempts = AtomicUsize::new(0);
        let taken = with_worker(
            &prefetch,
            |key| {
                attempts.fetch_add(1, Ordering::SeqCst);
                match key {
                    1 => None,
                    2 => panic!("a worker's panic stays in the worker"),
                    _ => Some(key),
                }
            },
            || {
                // The worker is done once it has tried 1 and 2: the panic
                // stops it before 3.
                while attempts.load(Ordering::SeqCst) < 2 || !prefetch.lock().stopped {
                    thread::yield_now();
                }
                [1, 2, 3].map(|key| prefetch.take(key))
            },
        );
        assert_eq!(taken, [None, None, None]);
        assert_eq!(attempts.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn stopping_ends_a_paused_worker_and_unknown_keys_are_the_executors() {
        let prefetch = Prefetch::new(vec![1, 2], 1);
        let taken = with_worker(&prefetch, Some, || {
            until_made(&prefetch, 1);
            prefetch.take(7)
        });
        assert_eq!(taken, None);
        // The scope returned: the worker, paused on 1, ended.
        assert_eq!(prefetch.lock().next, 1);
    }

    #[test]
    fn a_repeated_key_is_made_once() {
        let prefetch = Prefetch::new(vec![4, 4], 1);
        let made = AtomicUsize::new(0);
        let taken = with_worker(
            &prefetch,
            |_| Some(made.fetch_add(1, Ordering::SeqCst)),
            || {
                until_made(&prefetch, 4);
                (prefetch.take(4), prefetch.take(4))
            },
        );
        assert_eq!(taken, (Some(40), None));
        assert_eq!(made.load(Ordering::SeqCst), 1);
    }
}
