//! The spill manager: frames the executor keeps for later move to host memory when device memory runs short, and come back when used.
//!
//! What the executor keeps: the result of a shared subplan between its
//! uses, and the inputs of a node already run while its later inputs run
//! (a join's left side while its right side runs, a union's or an
//! hconcat's earlier inputs). Each run of a plan allocates through a
//! [`SpillResource`] over its memory whose spiller is the run's
//! [`SpillStore`]: an allocation that fails for lack of memory first moves
//! kept frames to host memory, the longest kept first, until it frees
//! what the allocation asked for, then tries again. A frame taken back is
//! uploaded again on the taker's stream. Frames in use are never spilled,
//! so a run whose working set (what one operator needs at once) does not
//! fit still runs out of memory.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use gpu_runtime::RuntimeError;
use gpu_runtime::memory::{SpillResource, Spiller};

use crate::column::spilled::HostFrame;
use crate::column::{DeviceFrame, ExecContext};
use crate::error::ExecError;

/// What the spill manager moved to host memory while device memory ran
/// short (summed over the device runs of a query).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Spilled {
    /// Frames moved to host memory (a frame moved twice counts twice).
    pub frames: usize,
    /// Bytes moved to host memory.
    pub bytes: u64,
    /// Bytes moved back to the device when a spilled frame was used.
    pub restored_bytes: u64,
}

impl Spilled {
    /// Both counts together.
    pub fn plus(self, other: Spilled) -> Spilled {
        Spilled {
            frames: self.frames + other.frames,
            bytes: self.bytes + other.bytes,
            restored_bytes: self.restored_bytes + other.restored_bytes,
        }
    }
}

/// A frame kept in a [`SpillStore`], to take back once.
#[derive(Debug)]
#[must_use = "a kept frame is held until taken back"]
pub(crate) struct Kept(u64);

/// The frames a run keeps for later, on the device or spilled.
#[derive(Debug, Default)]
pub(crate) struct SpillStore {
    held: Mutex<Held>,
    /// Whether every frame goes to host memory as it is kept
    /// (`ExecContext::spill_kept`).
    eager: bool,
}

#[derive(Debug, Default)]
struct Held {
    next: u64,
    /// By the order they were kept in: the first is the longest kept.
    frames: BTreeMap<u64, Frame>,
    spilled: Spilled,
}

#[derive(Debug)]
enum Frame {
    Device(DeviceFrame),
    Host(HostFrame),
    /// Moving it to host memory failed (a device failure): taking it gives
    /// the error.
    Lost(RuntimeError),
}

impl SpillStore {
    /// A new store, and `ctx` allocating through it: out of memory, it
    /// spills what the store keeps and tries again.
    pub(crate) fn over(ctx: &ExecContext) -> (Arc<SpillStore>, ExecContext) {
        let store = Arc::new(SpillStore {
            held: Mutex::default(),
            eager: ctx.spill_kept,
        });
        let spiller: Arc<dyn Spiller> = store.clone();
        let spiller: Weak<dyn Spiller> = Arc::downgrade(&spiller);
        let ctx = ExecContext {
            memory: Arc::new(SpillResource::new(ctx.memory.clone(), spiller)),
            ..ctx.clone()
        };
        (store, ctx)
    }

    fn held(&self) -> MutexGuard<'_, Held> {
        // Nothing panics while holding it; a poisoned lock still holds
        // frames whole.
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Keeps `frame` until [`SpillStore::take`], spilling it if memory runs short.
    pub(crate) fn keep(&self, frame: DeviceFrame) -> Kept {
        let mut held = self.held();
        let id = held.next;
        held.next += 1;
        let frame = match self.eager {
            true => spilled(frame, &mut held.spilled),
            false => Frame::Device(frame),
        };
        held.frames.insert(id, frame);
        Kept(id)
    }

    /// The frame kept as `kept`: as it was, or, where it was spilled,
    /// uploaded again on `ctx`'s stream.
    pub(crate) fn take(&self, kept: Kept, ctx: &ExecContext) -> Result<DeviceFrame, ExecError> {
        let frame = self.held().frames.remove(&kept.0);
        match frame {
            Some(Frame::Device(frame)) => Ok(frame),
            Some(Frame::Host(frame)) => {
                let (frame, bytes) = frame.into_device(ctx)?;
                self.held().spilled.restored_bytes += bytes;
                Ok(frame)
            }
            Some(Frame::Lost(e)) => Err(e.into()),
            None => Err(ExecError::Unsupported(format!(
                "kept frame {} taken twice",
                kept.0
            ))),
        }
    }

    /// Drops every frame kept (a run that starts again).
    pub(crate) fn clear(&self) {
        let frames = std::mem::take(&mut self.held().frames);
        drop(frames);
    }

    /// What it spilled so far.
    pub(crate) fn spilled(&self) -> Spilled {
        self.held().spilled
    }
}

impl Spiller for SpillStore {
    fn spill(&self, wanted: u64) -> u64 {
        // Held by another thread (one uploading ahead, or taking a frame
        // back): nothing to free now; its allocation fails as it would have.
        let Ok(mut held) = self.held.try_lock() else {
            return 0;
        };
        let on_device: Vec<u64> = held
            .frames
            .iter()
            .filter(|(_, frame)| matches!(frame, Frame::Device(_)))
            .map(|(&id, _)| id)
            .collect();
        let mut freed = 0;
        for id in on_device {
            if freed >= wanted {
                break;
            }
            let Some(Frame::Device(frame)) = held.frames.remove(&id) else {
                continue;
            };
            let before = held.spilled.bytes;
            let frame = spilled(frame, &mut held.spilled);
            let lost = matches!(frame, Frame::Lost(_));
            held.frames.insert(id, frame);
            if lost {
                break;
            }
            freed += held.spilled.bytes - before;
        }
        freed
    }
}

/// `frame` moved to host memory, counted in `spilled` (or lost to the
/// device failure that stopped the move).
fn spilled(frame: DeviceFrame, spilled: &mut Spilled) -> Frame {
    match frame.into_host() {
        Ok((frame, bytes)) => {
            spilled.frames += 1;
            spilled.bytes += bytes;
            Frame::Host(frame)
        }
        Err(e) => Frame::Lost(e),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use gpu_runtime::Device;
    use gpu_runtime::memory::{LimitResource, StatisticsResource};
    use ir_lower::{GpuDtype, GpuExpr, GpuPlan, PlanNode, SortKey};
    use polars::prelude::{DataFrame, SortMultipleOptions, df};

    use super::super::execute_counting;
    use super::super::tests::{context, k_and, pool, scan};
    use crate::error::ExecError;
    use gpu_runtime::RuntimeError;

    #[test]
    fn a_plan_that_fits_only_by_spilling_what_it_keeps_runs() {
        // A union of a small input and a sort of a large one: the small
        // input, run first, is kept while the sort runs, whose work is the
        // most the plan holds at once. Under a limit below that most by
        // half the small input's bytes, the plan runs only where the kept
        // input goes to host memory meanwhile (and comes back after).
        let device = Arc::new(Device::under_test(1 << 30).expect("the device under test"));
        let frame = |n: i64, step: i64| -> DataFrame {
            df!(
                "k" => (0..n).map(|i| i * step % 1_000_003).collect::<Vec<i64>>(),
                "v" => (0..n).map(|i| i * 3).collect::<Vec<i64>>(),
            )
            .unwrap()
        };
        let (small, large) = (frame(40_000, 7), frame(400_000, 11));
        let schema = k_and(("v", GpuDtype::Int64));
        let plan = GpuPlan {
            root: PlanNode::Union {
                inputs: vec![
                    scan(&small, &schema),
                    PlanNode::Sort {
                        input: Box::new(scan(&large, &schema)),
                        keys: vec![SortKey {
                            expr: GpuExpr::column(0, "k", GpuDtype::Int64),
                            descending: false,
                            nulls_last: false,
                        }],
                        stable: true,
                        slice: None,
                        schema: schema.clone(),
                    },
                ],
                slice: None,
                schema: schema.clone(),
            },
        };
        let mut expected = small.clone();
        expected
            .vstack_mut(&large.sort(["k"], SortMultipleOptions::default()).unwrap())
            .unwrap();
        let counted = Arc::new(StatisticsResource::new(pool(&device)));
        let (df, counts) =
            execute_counting(&plan, &context(&device, counted.clone(), false), &[]).unwrap();
        assert!(df.equals_missing(&expected), "{df}\n{expected}");
        assert_eq!(counts.spilled, super::Spilled::default());
        let small_bytes = 40_000 * 16;
        let limit = counted.statistics().peak_bytes - small_bytes / 2;
        let limited = Arc::new(LimitResource::new(pool(&device), limit));
        let (df, counts) = execute_counting(&plan, &context(&device, limited, false), &[]).unwrap();
        assert!(df.equals_missing(&expected), "{df}\n{expected}");
        assert_eq!(counts.spilled.frames, 1);
        assert_eq!(counts.spilled.bytes, small_bytes);
        assert_eq!(counts.spilled.restored_bytes, small_bytes);
        // Below what the sort needs on its own, spilling cannot help.
        let limited = Arc::new(LimitResource::new(pool(&device), limit / 4));
        match execute_counting(&plan, &context(&device, limited, false), &[]) {
            Err(ExecError::Runtime(RuntimeError::OutOfMemory { .. })) => {}
            other => panic!("expected out of memory, got {:?}", other.map(|(df, _)| df)),
        }
    }
}
