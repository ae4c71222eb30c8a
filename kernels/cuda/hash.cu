// Open-addressing hash tables on 64-bit keys (linear probing), for joins and group-by.
//
// Both tables give each distinct key one slot: a slot's state goes empty ->
// writing -> ready, and a thread that meets a slot being written waits for
// it. A unique table (group-by) gives each row its key's slot. A multimap
// (joins) also counts each slot's rows, then (after an exclusive scan of the
// counts into each slot's start) places every build row in its slot's run of
// `rows_by_slot`, so building is linear in the rows however often a key
// repeats (a slot per row made every duplicate probe past the others), and a
// probe reads its matches as one contiguous run. Probing is a later launch,
// so keys are complete by then. Null keys are skipped (they never match).
// Capacity: a power of two above the rows.
#include "kernel_common.cuh"

constexpr u32 EMPTY_ROW = 0xffffffffu;
constexpr u32 SLOT_EMPTY = 0, SLOT_WRITING = 1, SLOT_READY = 2;

__device__ __forceinline__ u32 load_acquire(const u32* address) {
#ifdef __CUDACC__
    u32 value;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(value) : "l"(address) : "memory");
    return value;
#else
    return __atomic_load_n(address, __ATOMIC_ACQUIRE);
#endif
}

__device__ __forceinline__ void store_release(u32* address, u32 value) {
#ifdef __CUDACC__
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(address), "r"(value) : "memory");
#else
    __atomic_store_n(address, value, __ATOMIC_RELEASE);
#endif
}

// The slot of `key`: the one that holds it, or an empty one claimed for it.
__device__ __forceinline__ u64 claim_slot(u64 key, u64* slot_keys, u32* slot_states, u64 mask) {
    for (u64 slot = hash64(key) & mask;; slot = (slot + 1) & mask) {
        u32 state = atomicCAS(&slot_states[slot], SLOT_EMPTY, SLOT_WRITING);
        if (state == SLOT_EMPTY) {
            slot_keys[slot] = key;
            store_release(&slot_states[slot], SLOT_READY);
            return slot;
        }
        while (load_acquire(&slot_states[slot]) != SLOT_READY) {
        }
        if (slot_keys[slot] == key) return slot;
    }
}

// The slot that holds `key` once building is done, or `capacity` for none.
__device__ __forceinline__ u64 find_slot(u64 key, const u64* slot_keys, const u32* slot_states,
                                         u64 capacity) {
    u64 mask = capacity - 1;
    for (u64 slot = hash64(key) & mask; slot_states[slot] != SLOT_EMPTY;
         slot = (slot + 1) & mask) {
        if (slot_keys[slot] == key) return slot;
    }
    return capacity;
}

// Step one of a multimap: row_slots[i] is build row i's slot (EMPTY_ROW for
// a null key) and slot_counts[slot] its slot's rows. States and counts
// start at zero.
extern "C" __global__ void hash_build_multimap_u64(const u64* keys, const u32* validity, u64 n,
                                                   u64* slot_keys, u32* slot_states,
                                                   u32* slot_counts, u64 capacity,
                                                   u32* row_slots) {
    u64 mask = capacity - 1;
    for (u64 i = global_index(); i < n; i += global_stride()) {
        if (!is_valid(validity, i)) {
            row_slots[i] = EMPTY_ROW;
            continue;
        }
        u64 slot = claim_slot(keys[i], slot_keys, slot_states, mask);
        atomicAdd(&slot_counts[slot], 1u);
        row_slots[i] = static_cast<u32>(slot);
    }
}
EMU_KERNEL(hash_build_multimap_u64)

// Step two: each valid build row into its slot's run, which starts at
// slot_starts[slot] (the exclusive scan of the counts). `slot_fill` starts
// at zero. Within a run the rows come in no set order.
extern "C" __global__ void hash_place_multimap(const u32* row_slots, u64 n,
                                               const u64* slot_starts, u32* slot_fill,
                                               u32* rows_by_slot) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        u32 slot = row_slots[i];
        if (slot == EMPTY_ROW) continue;
        u64 place = slot_starts[slot] + atomicAdd(&slot_fill[slot], 1u);
        rows_by_slot[place] = static_cast<u32>(i);
    }
}
EMU_KERNEL(hash_place_multimap)

// counts[i]: how many build rows have probe row i's key (0 for a null key);
// with `keep_unmatched` (left joins) at least 1, for the row's null match.
extern "C" __global__ void hash_probe_count_u64(const u64* keys, const u32* validity, u64 n,
                                                const u64* slot_keys, const u32* slot_states,
                                                const u32* slot_counts, u64 capacity,
                                                u32 keep_unmatched, u32* counts) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        u32 count = 0;
        if (is_valid(validity, i)) {
            u64 slot = find_slot(keys[i], slot_keys, slot_states, capacity);
            if (slot < capacity) count = slot_counts[slot];
        }
        counts[i] = (count == 0 && keep_unmatched != 0) ? 1u : count;
    }
}
EMU_KERNEL(hash_probe_count_u64)

// The matching (build row, probe row) pairs; probe row i's pairs start at
// offsets[i] (the exclusive scan of the counts). With `keep_unmatched`, a
// probe row without a match gets one pair with build row EMPTY_ROW.
extern "C" __global__ void hash_probe_pairs_u64(const u64* keys, const u32* validity, u64 n,
                                                const u64* slot_keys, const u32* slot_states,
                                                const u32* slot_counts, const u64* slot_starts,
                                                const u32* rows_by_slot, u64 capacity,
                                                u32 keep_unmatched, const u64* offsets,
                                                u32* build_rows, u32* probe_rows) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        u64 out = offsets[i];
        if (is_valid(validity, i)) {
            u64 slot = find_slot(keys[i], slot_keys, slot_states, capacity);
            if (slot < capacity) {
                const u32* run = rows_by_slot + slot_starts[slot];
                for (u32 k = 0; k < slot_counts[slot]; ++k) {
                    build_rows[out] = run[k];
                    probe_rows[out] = static_cast<u32>(i);
                    out++;
                }
            }
        }
        if (out == offsets[i] && keep_unmatched != 0) {
            build_rows[out] = EMPTY_ROW;
            probe_rows[out] = static_cast<u32>(i);
        }
    }
}
EMU_KERNEL(hash_probe_pairs_u64)

// 64-bit hash keys of 32-bit values (sign-extended for signed ones, so equal
// values give equal keys).
extern "C" __global__ void hash_keys_i32(const i32* in, u64 n, u64* out) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        out[i] = static_cast<u64>(static_cast<i64>(in[i]));
    }
}
EMU_KERNEL(hash_keys_i32)

extern "C" __global__ void hash_keys_u32(const u32* in, u64 n, u64* out) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        out[i] = static_cast<u64>(in[i]);
    }
}
EMU_KERNEL(hash_keys_u32)

// Bits of the rows whose count is non-zero (or zero, with `invert`).
extern "C" __global__ void nonzero_bits(const u32* counts, u64 n, u32 invert, u32* out) {
    unsigned int lane = threadIdx.x % 32;
    for (u64 i = global_index(); i - lane < n; i += global_stride()) {
        bool set = i < n && ((counts[i] != 0) != (invert != 0));
        u32 word = __ballot_sync(FULL_MASK, set);
        if (lane == 0) out[i / 32] = word;
    }
}
EMU_KERNEL(nonzero_bits)

// row_slots[i]: the slot of row i's key, the same for equal keys
// (EMPTY_ROW for a null key). Slot states start at SLOT_EMPTY.
extern "C" __global__ void hash_insert_unique_u64(const u64* keys, const u32* validity, u64 n,
                                                  u64* slot_keys, u32* slot_states,
                                                  u64 capacity, u32* row_slots) {
    u64 mask = capacity - 1;
    for (u64 i = global_index(); i < n; i += global_stride()) {
        if (!is_valid(validity, i)) {
            row_slots[i] = EMPTY_ROW;
            continue;
        }
        row_slots[i] = static_cast<u32>(claim_slot(keys[i], slot_keys, slot_states, mask));
    }
}
EMU_KERNEL(hash_insert_unique_u64)
