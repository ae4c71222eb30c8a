//! Staging for copies between the host and the device: a small pool of host blocks per device (page-locked on CUDA), each reused once the copy that used it has run.
//!
//! A copy goes through blocks of [`BLOCK_BYTES`]: an upload copies a block's
//! worth of the caller's values into a free block on the host, enqueues the
//! block's copy to the device and records an event after it, then goes on
//! with the next block, so the host's copying overlaps the device's; a
//! download enqueues each block's copy from the device and copies the block
//! out once its event has completed. Both take their blocks on several host
//! threads at once. A block goes back to
//! the pool with its event and is handed out again only once that event has
//! completed, so host writes never race a pending copy. From page-locked
//! memory the driver copies asynchronously (no staging of its own), so a
//! column's copy overlaps with work on another stream.

use std::alloc::Layout;
use std::collections::VecDeque;
use std::fmt;
use std::sync::OnceLock;

use parking_lot::Mutex;

use crate::error::RuntimeError;
use crate::stream::Event;

/// Bytes of one staging block.
pub(crate) const BLOCK_BYTES: usize = 4 << 20;
/// Blocks a pool keeps (more are made while all are in use, and freed when
/// given back): two per host thread, as columns are copied in parallel,
/// and at least 8.
fn pool_blocks() -> usize {
    static BLOCKS: OnceLock<usize> = OnceLock::new();
    *BLOCKS.get_or_init(|| {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        (2 * threads).max(8)
    })
}

/// Where staging blocks come from: page-locked memory of a CUDA context, or
/// plain host memory for the emulated device.
pub(crate) trait HostMemory: Send + Sync + fmt::Debug {
    /// `bytes` of host memory, aligned to 4096.
    fn allocate(&self, bytes: usize) -> Result<usize, RuntimeError>;

    /// Frees memory from `allocate`.
    ///
    /// # Safety
    /// `address` must come from `allocate(bytes)` here, be freed once, and
    /// no pending copy may use it.
    unsafe fn free(&self, address: usize, bytes: usize);
}

/// Plain host memory: the emulated device's staging.
#[derive(Debug)]
pub(crate) struct PlainHost;

fn block_layout(bytes: usize) -> Result<Layout, RuntimeError> {
    Layout::from_size_align(bytes.max(1), 4096).map_err(|e| {
        RuntimeError::InvalidArgument(format!("a staging block of {bytes} bytes: {e}"))
    })
}

impl HostMemory for PlainHost {
    fn allocate(&self, bytes: usize) -> Result<usize, RuntimeError> {
        let layout = block_layout(bytes)?;
        // SAFETY: the layout has a non-zero size and a valid alignment.
        let ptr = unsafe { std::alloc::alloc(layout) };
        if ptr.is_null() {
            return Err(RuntimeError::Internal(format!(
                "no host memory for a staging block of {bytes} bytes"
            )));
        }
        Ok(ptr as usize)
    }

    unsafe fn free(&self, address: usize, bytes: usize) {
        if let Ok(layout) = block_layout(bytes) {
            // SAFETY: the caller guarantees `address` came from `allocate(bytes)`,
            // which used this very layout.
            unsafe { std::alloc::dealloc(address as *mut u8, layout) }
        }
    }
}

/// A staging block, taken from its pool until given back.
#[derive(Debug)]
pub(crate) struct Block {
    address: usize,
    /// Completes when the last copy that used the block has run.
    busy_until: Event,
}

impl Block {
    /// The block's first byte.
    pub fn address(&self) -> usize {
        self.address
    }

    /// The event to record after the copy that uses the block.
    pub fn busy_until(&self) -> &Event {
        &self.busy_until
    }
}

/// A device's staging blocks.
#[derive(Debug)]
pub(crate) struct StagingPool {
    host: Box<dyn HostMemory>,
    state: Mutex<PoolState>,
}

#[derive(Debug, Default)]
struct PoolState {
    /// Blocks given back, oldest first.
    idle: VecDeque<Block>,
    /// Blocks that exist, idle or taken.
    blocks: usize,
}

impl StagingPool {
    pub fn new(host: Box<dyn HostMemory>) -> Self {
        StagingPool {
            host,
            state: Mutex::new(PoolState::default()),
        }
    }

    /// A block no pending copy uses: an idle one whose copy has run, a new
    /// one while the pool has fewer than its blocks, else the oldest idle
    /// one once its copy has run (this waits).
    pub fn take(&self) -> Result<Block, RuntimeError> {
        let oldest = {
            let mut state = self.state.lock();
            let ready = state
                .idle
                .iter()
                .position(|block| block.busy_until.is_complete());
            if let Some(block) = ready.and_then(|index| state.idle.remove(index)) {
                return Ok(block);
            }
            match state.idle.pop_front() {
                Some(oldest) if state.blocks >= pool_blocks() => oldest,
                other => {
                    if let Some(block) = other {
                        state.idle.push_front(block);
                    }
                    state.blocks += 1;
                    drop(state);
                    return self.new_block();
                }
            }
        };
        if let Err(e) = oldest.busy_until.synchronize() {
            self.give_back(oldest);
            return Err(e);
        }
        Ok(oldest)
    }

    fn new_block(&self) -> Result<Block, RuntimeError> {
        let allocated = crate::faults::at(crate::faults::Seam::AllocatePinned, BLOCK_BYTES as u64)
            .and_then(|()| self.host.allocate(BLOCK_BYTES));
        match allocated {
            Ok(address) => Ok(Block {
                address,
                busy_until: Event::new(),
            }),
            Err(e) => {
                self.state.lock().blocks -= 1;
                Err(e)
            }
        }
    }

    /// Returns a block to the pool: kept while the pool has no more than
    /// its blocks, else freed once its copy has run.
    pub fn give_back(&self, block: Block) {
        let mut state = self.state.lock();
        if state.blocks <= pool_blocks() {
            state.idle.push_back(block);
            return;
        }
        state.blocks -= 1;
        drop(state);
        self.free(block);
    }

    /// Forgets the idle blocks without freeing them: their memory died with
    /// the device's context (rebuilt after a sticky error).
    pub fn forget(&self) {
        let mut state = self.state.lock();
        let idle = std::mem::take(&mut state.idle);
        state.blocks -= idle.len();
    }

    fn free(&self, block: Block) {
        if let Err(e) = block.busy_until.synchronize() {
            // A copy may still read or write the block: keep it.
            tracing::error!("leaking a staging block: {e}");
            return;
        }
        // SAFETY: the block came from `allocate(BLOCK_BYTES)`, leaves the pool
        // here (freed once), and its last copy has run.
        unsafe { self.host.free(block.address, BLOCK_BYTES) }
    }

    /// Blocks that exist (idle or taken).
    #[cfg(test)]
    fn blocks(&self) -> usize {
        self.state.lock().blocks
    }
}

impl Drop for StagingPool {
    fn drop(&mut self) {
        let idle = std::mem::take(&mut self.state.get_mut().idle);
        for block in idle {
            self.free(block);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    use super::*;
    use crate::stream::Stream;

    #[test]
    fn a_block_is_handed_out_again_only_after_its_copy_has_run() {
        let pool = StagingPool::new(Box::new(PlainHost));
        let stream = Stream::emulated(0, 1).unwrap();
        let first = pool.take().unwrap();
        let released = Arc::new(AtomicBool::new(false));
        let flag = released.clone();
        // A slow "copy" reading the block.
        stream
            .enqueue(move || {
                std::thread::sleep(Duration::from_millis(100));
                flag.store(true, Ordering::SeqCst);
            })
            .unwrap();
        first.busy_until().record(&stream).unwrap();
        let first_address = first.address();
        pool.give_back(first);
        // While the copy runs, the pool makes other blocks up to its size...
        let mut others: Vec<Block> = (1..pool_blocks()).map(|_| pool.take().unwrap()).collect();
        assert!(others.iter().all(|b| b.address() != first_address));
        assert!(!released.load(Ordering::SeqCst));
        // ...then hands out the busy one only after waiting for its copy.
        let again = pool.take().unwrap();
        assert_eq!(again.address(), first_address);
        assert!(released.load(Ordering::SeqCst), "taken before its copy ran");
        others.push(again);
        // All blocks are taken: one more is made, and freed when given back.
        others.push(pool.take().unwrap());
        assert_eq!(pool.blocks(), pool_blocks() + 1);
        for block in others {
            pool.give_back(block);
        }
        assert_eq!(pool.blocks(), pool_blocks());
    }
}
