//! Our own pool: best-fit sub-allocation of large chunks, coalescing, per-stream free lists.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::error::RuntimeError;
use crate::memory::{DevicePtr, MemoryResource, Upstream, aligned};
use crate::stream::{Stream, WeakStream};

/// Sizes of a [`PoolResource`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolOptions {
    /// Bytes reserved at creation, and the least a chunk grows the pool by.
    pub initial_bytes: u64,
    /// The most the pool may hold from the device; `None`: no bound but the device.
    pub maximum_bytes: Option<u64>,
}

impl Default for PoolOptions {
    fn default() -> Self {
        PoolOptions {
            initial_bytes: 256 << 20,
            maximum_bytes: None,
        }
    }
}

/// A pool that sub-allocates large chunks taken from a device.
///
/// Free blocks live in per-stream free lists: a block freed on stream S is
/// reused by S at once (S's work is ordered) and by another stream T only
/// after T waits for S. Allocation is best fit (the smallest free block that
/// fits, first on the requesting stream, then on others), splitting the
/// block; freeing coalesces with free neighbours of the same chunk on the
/// same stream. When nothing fits, the pool grows by a chunk of at least
/// `initial_bytes`, up to `maximum_bytes`. [`PoolResource::release`] returns
/// wholly free chunks to the device.
#[derive(Debug)]
pub struct PoolResource<U: Upstream> {
    upstream: Arc<U>,
    options: PoolOptions,
    state: Mutex<PoolState>,
}

#[derive(Debug, Default)]
struct PoolState {
    /// Chunks by start address: their size.
    chunks: BTreeMap<u64, u64>,
    /// Free blocks by the id of the stream they were freed on (few streams:
    /// a vector searched in order beats hashing).
    free: Vec<(u64, FreeList)>,
    /// Bytes held from the device.
    reserved: u64,
    /// Bytes handed out and not yet returned.
    in_use: u64,
}

#[derive(Debug)]
struct FreeList {
    stream: WeakStream,
    /// (size, address), for best fit.
    by_size: BTreeSet<(u64, u64)>,
    /// address -> size, for coalescing.
    by_address: BTreeMap<u64, u64>,
}

impl FreeList {
    fn new(stream: &Stream) -> Self {
        FreeList {
            stream: stream.downgrade(),
            by_size: BTreeSet::new(),
            by_address: BTreeMap::new(),
        }
    }

    fn insert(&mut self, address: u64, size: u64) {
        self.by_size.insert((size, address));
        self.by_address.insert(address, size);
    }

    fn remove(&mut self, address: u64, size: u64) {
        self.by_size.remove(&(size, address));
        self.by_address.remove(&address);
    }

    /// The smallest block of at least `size` bytes.
    fn best_fit(&self, size: u64) -> Option<(u64, u64)> {
        self.by_size.range((size, 0)..).next().copied()
    }
}

impl PoolState {
    /// Adds a free block to `stream`'s list, merging it with free neighbours
    /// there that lie in the same chunk (chunks need not be contiguous).
    fn free_block(&mut self, stream: &Stream, mut address: u64, mut size: u64) {
        let (chunk_start, chunk_end) = chunk_of(&self.chunks, address)
            .map(|(start, size)| (start, start + size))
            .unwrap_or((address, address + size));
        let list = self.list_mut(stream);
        if let Some((&prev_address, &prev_size)) = list.by_address.range(..address).next_back()
            && prev_address + prev_size == address
            && prev_address >= chunk_start
        {
            list.remove(prev_address, prev_size);
            address = prev_address;
            size += prev_size;
        }
        if let Some((&next_address, &next_size)) = list.by_address.range(address + size..).next()
            && address + size == next_address
            && next_address < chunk_end
        {
            list.remove(next_address, next_size);
            size += next_size;
        }
        list.insert(address, size);
    }

    /// `stream`'s free list, created empty on first use.
    fn list_mut(&mut self, stream: &Stream) -> &mut FreeList {
        let id = stream.id();
        match self.free.iter().position(|(owner, _)| *owner == id) {
            Some(index) => &mut self.free[index].1,
            None => {
                self.free.push((id, FreeList::new(stream)));
                let last = self.free.len() - 1;
                &mut self.free[last].1
            }
        }
    }

    /// Moves the free blocks of streams that have ended into `stream`'s
    /// list (their work is done, so no wait is needed) and drops their lists.
    fn adopt_blocks_of_ended_streams(&mut self, stream: &Stream) {
        let mut orphans = Vec::new();
        self.free.retain_mut(|(_, list)| {
            // (A stream being dropped can no longer be upgraded but may
            // still run its work: only an ended one's blocks are free.)
            if !list.stream.has_ended() {
                return true;
            }
            orphans.extend(list.by_address.iter().map(|(a, s)| (*a, *s)));
            false
        });
        for (address, size) in orphans {
            self.free_block(stream, address, size);
        }
    }

    /// `stream`'s free list, if it has one.
    fn list(&self, stream_id: u64) -> Option<&FreeList> {
        self.free
            .iter()
            .find(|(owner, _)| *owner == stream_id)
            .map(|(_, list)| list)
    }
}

/// The chunk holding `address`: (start, size).
fn chunk_of(chunks: &BTreeMap<u64, u64>, address: u64) -> Option<(u64, u64)> {
    chunks
        .range(..=address)
        .next_back()
        .map(|(start, size)| (*start, *size))
        .filter(|(start, size)| address < start + size)
}

impl<U: Upstream> PoolResource<U> {
    /// A pool over `upstream`, reserving `options.initial_bytes` at once.
    pub fn new(upstream: Arc<U>, options: PoolOptions) -> Result<Self, RuntimeError> {
        if let Some(maximum) = options.maximum_bytes
            && options.initial_bytes > maximum
        {
            return Err(RuntimeError::InvalidArgument(format!(
                "pool initial size {} bytes exceeds its maximum {maximum} bytes",
                options.initial_bytes
            )));
        }
        let pool = PoolResource {
            upstream,
            options,
            state: Mutex::new(PoolState::default()),
        };
        Ok(pool)
    }

    /// Bytes held from the device.
    pub fn reserved_bytes(&self) -> u64 {
        self.state.lock().reserved
    }

    /// Bytes handed out and not yet returned.
    pub fn in_use_bytes(&self) -> u64 {
        self.state.lock().in_use
    }

    /// Returns every wholly free chunk to the device, after the streams that
    /// freed its blocks have finished their work. Returns the bytes released.
    pub fn release(&self) -> Result<u64, RuntimeError> {
        let mut state = self.state.lock();
        for (_, list) in &state.free {
            list.stream.finish()?;
        }
        let whole: Vec<(u64, u64)> = state
            .chunks
            .iter()
            .map(|(start, size)| (*start, *size))
            .filter(|(start, size)| {
                state
                    .free
                    .iter()
                    .any(|(_, list)| list.by_address.get(start) == Some(size))
            })
            .collect();
        let mut released = 0;
        for (start, size) in whole {
            for (_, list) in state.free.iter_mut() {
                if list.by_address.get(&start) == Some(&size) {
                    list.remove(start, size);
                }
            }
            state.chunks.remove(&start);
            state.reserved -= size;
            released += size;
            // SAFETY: the chunk came from `allocate_raw(size)`, all of it is
            // free, and the streams that freed it have been synchronised.
            unsafe { self.upstream.free_raw(DevicePtr(start), size) };
        }
        state.free.retain(|(_, list)| !list.by_address.is_empty());
        Ok(released)
    }

    /// A block of `size` bytes freed by streams whose last handle is gone
    /// but whose drop still runs their work: waited for until they have
    /// ended (soon: no work of theirs waits on the pool), then adopted by
    /// `stream`. Without this, a stream that adopted the free blocks and is
    /// being dropped would make every allocation in the meantime grow the
    /// pool, and the pool would grow without bound.
    fn after_dying_streams(
        &self,
        state: &mut PoolState,
        size: u64,
        stream: &Stream,
    ) -> Result<Option<(u64, u64)>, RuntimeError> {
        let dying: Vec<WeakStream> = state
            .free
            .iter()
            .filter(|(id, list)| *id != stream.id() && list.best_fit(size).is_some())
            .map(|(_, list)| list.stream.clone())
            .collect();
        if dying.is_empty() {
            return Ok(None);
        }
        for weak in &dying {
            weak.finish()?;
        }
        state.adopt_blocks_of_ended_streams(stream);
        Ok(state.list(stream.id()).and_then(|list| list.best_fit(size)))
    }

    /// Takes `size` bytes from the best-fitting free block, preferring the
    /// requesting stream's own list.
    fn take_free(
        &self,
        state: &mut PoolState,
        size: u64,
        stream: &Stream,
    ) -> Result<Option<u64>, RuntimeError> {
        let mut own = state.list(stream.id()).and_then(|l| l.best_fit(size));
        if own.is_none() {
            // Blocks of streams that have ended need no wait: adopt them.
            state.adopt_blocks_of_ended_streams(stream);
            own = state.list(stream.id()).and_then(|l| l.best_fit(size));
        }
        let (owner, (block_size, address), other) = match own {
            Some(block) => (stream.id(), block, None),
            None => {
                // Another stream's block: of a live stream (held, so that it
                // lives until the wait below is enqueued), or of one that
                // has ended; never of one still finishing its work.
                let other = state
                    .free
                    .iter()
                    .filter(|(id, _)| *id != stream.id())
                    .filter_map(|(id, list)| {
                        let block = list.best_fit(size)?;
                        match list.stream.upgrade() {
                            Some(live) => Some((*id, block, Some(live))),
                            None if list.stream.has_ended() => Some((*id, block, None)),
                            None => None,
                        }
                    })
                    .min_by_key(|(_, block, _)| *block);
                match other {
                    Some(found) => found,
                    None => match self.after_dying_streams(state, size, stream)? {
                        Some(block) => (stream.id(), block, None),
                        None => return Ok(None),
                    },
                }
            }
        };
        if let Some(other) = &other {
            // Work the other stream enqueued before freeing may still use the block.
            stream.wait_for(other)?;
        }
        let list = state
            .free
            .iter_mut()
            .find(|(id, _)| *id == owner)
            .map(|(_, list)| list)
            .ok_or_else(|| RuntimeError::Internal("a free list vanished".into()))?;
        list.remove(address, block_size);
        if block_size > size {
            list.insert(address + size, block_size - size);
        }
        Ok(Some(address))
    }
}

impl<U: Upstream + 'static> MemoryResource for PoolResource<U> {
    fn allocate(&self, bytes: u64, stream: &Stream) -> Result<DevicePtr, RuntimeError> {
        if bytes == 0 {
            return Ok(DevicePtr::NULL);
        }
        let size = aligned(bytes).ok_or(RuntimeError::OutOfMemory {
            requested: bytes,
            available: 0,
        })?;
        let mut state = self.state.lock();
        if let Some(address) = self.take_free(&mut state, size, stream)? {
            state.in_use += size;
            return Ok(DevicePtr(address));
        }
        let limit = self.options.maximum_bytes.unwrap_or(u64::MAX);
        let grow = size.max(self.options.initial_bytes);
        let grow = if state.reserved.saturating_add(grow) > limit {
            size
        } else {
            grow
        };
        if state.reserved.saturating_add(grow) > limit {
            return Err(RuntimeError::OutOfMemory {
                requested: bytes,
                available: limit.saturating_sub(state.in_use),
            });
        }
        let chunk = self.upstream.allocate_raw(grow).map_err(|e| match e {
            RuntimeError::OutOfMemory { available, .. } => RuntimeError::OutOfMemory {
                requested: bytes,
                available,
            },
            other => other,
        })?;
        state.chunks.insert(chunk.0, grow);
        state.reserved += grow;
        state.in_use += size;
        if grow > size {
            state.free_block(stream, chunk.0 + size, grow - size);
        }
        Ok(chunk)
    }

    unsafe fn deallocate(&self, ptr: DevicePtr, bytes: u64, stream: &Stream) {
        if ptr.is_null() || bytes == 0 {
            return;
        }
        let Some(size) = aligned(bytes) else {
            return;
        };
        let mut state = self.state.lock();
        state.in_use = state.in_use.saturating_sub(size);
        state.free_block(stream, ptr.0, size);
    }
}

impl<U: Upstream> Drop for PoolResource<U> {
    fn drop(&mut self) {
        let state = self.state.get_mut();
        for (_, list) in &state.free {
            let _ = list.stream.finish();
        }
        if state.in_use > 0 {
            // Buffers hold the pool alive, so this means a leak: keep the memory.
            tracing::error!("memory pool dropped with {} bytes in use", state.in_use);
            return;
        }
        for (start, size) in std::mem::take(&mut state.chunks) {
            // SAFETY: nothing is in use and the streams that freed blocks have
            // been synchronised; each chunk came from `allocate_raw(size)`.
            unsafe { self.upstream.free_raw(DevicePtr(start), size) };
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    use super::*;
    use crate::EmulatedDevice;

    #[test]
    fn blocks_of_a_stream_still_finishing_its_work_wait_until_it_has_ended() {
        // The last handle of `a` goes while `a` still runs work that uses a
        // block it freed: that block is not `b`'s before the work is done.
        let device = Arc::new(EmulatedDevice::new(0, 64 << 20));
        let options = PoolOptions {
            initial_bytes: 1 << 20,
            maximum_bytes: None,
        };
        let pool = PoolResource::new(device, options).unwrap();
        let (a, b) = (
            Stream::emulated(0, 1).unwrap(),
            Stream::emulated(0, 1).unwrap(),
        );
        let block = pool.allocate(4096, &a).unwrap();
        let done = Arc::new(AtomicBool::new(false));
        let finished = done.clone();
        a.enqueue(move || {
            std::thread::sleep(Duration::from_millis(1000));
            finished.store(true, Ordering::SeqCst);
        })
        .unwrap();
        // SAFETY: `block` came from `allocate(4096, &a)` and is freed once,
        // in `a`'s order (after the work above).
        unsafe { pool.deallocate(block, 4096, &a) };
        let ending = std::thread::spawn(move || drop(a));
        std::thread::sleep(Duration::from_millis(50));
        // `b` waits for `a` to end, then takes its block: not before `a`'s
        // work is done, and without growing the pool.
        let during = pool.allocate(4096, &b).unwrap();
        assert!(
            done.load(Ordering::SeqCst),
            "a block of a stream still running its work was handed out"
        );
        assert_eq!(
            during, block,
            "the ending stream's block was not waited for"
        );
        assert_eq!(pool.reserved_bytes(), 1 << 20, "the pool grew instead");
        ending.join().unwrap();
    }
}
