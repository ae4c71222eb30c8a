// Open-addressing hash tables on 64-bit keys (linear probing), for joins and group-by.
//
// A multimap (joins): every valid build row takes its own slot, claimed by an
// atomic compare-and-swap on the slot's row (EMPTY_ROW when free); probing is
// a later launch, so keys are complete by then. A unique table (group-by):
// rows with equal keys share a slot; a slot's state goes empty -> writing ->
// ready, and a thread that meets a slot being written waits for it. Null keys
// are skipped (they never match). Capacity: a power of two above the rows.
#include "kernel_common.cuh"

constexpr u32 EMPTY_ROW = 0xffffffffu;
constexpr u32 SLOT_EMPTY = 0, SLOT_WRITING = 1, SLOT_READY = 2;

// MurmurHash3's 64-bit finaliser.
__device__ __forceinline__ u64 hash64(u64 key) {
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    key *= 0xc4ceb9fe1a85ec53ull;
    key ^= key >> 33;
    return key;
}

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

extern "C" __global__ void hash_build_multimap_u64(const u64* keys, const u32* validity, u64 n,
                                                   u64* slot_keys, u32* slot_rows,
                                                   u64 capacity) {
    u64 mask = capacity - 1;
    for (u64 i = global_index(); i < n; i += global_stride()) {
        if (!is_valid(validity, i)) continue;
        u64 key = keys[i];
        for (u64 slot = hash64(key) & mask;; slot = (slot + 1) & mask) {
            if (atomicCAS(&slot_rows[slot], EMPTY_ROW, static_cast<u32>(i)) == EMPTY_ROW) {
                slot_keys[slot] = key;
                break;
            }
        }
    }
}
EMU_KERNEL(hash_build_multimap_u64)

// counts[i]: how many build rows have probe row i's key (0 for a null key);
// with `keep_unmatched` (left joins) at least 1, for the row's null match.
extern "C" __global__ void hash_probe_count_u64(const u64* keys, const u32* validity, u64 n,
                                                const u64* slot_keys, const u32* slot_rows,
                                                u64 capacity, u32 keep_unmatched, u32* counts) {
    u64 mask = capacity - 1;
    for (u64 i = global_index(); i < n; i += global_stride()) {
        u32 count = 0;
        if (is_valid(validity, i)) {
            u64 key = keys[i];
            for (u64 slot = hash64(key) & mask; slot_rows[slot] != EMPTY_ROW;
                 slot = (slot + 1) & mask) {
                if (slot_keys[slot] == key) count++;
            }
        }
        counts[i] = (count == 0 && keep_unmatched != 0) ? 1u : count;
    }
}
EMU_KERNEL(hash_probe_count_u64)

// The matching (build row, probe row) pairs; probe row i's pairs start at
// offsets[i] (the exclusive scan of the counts). With `keep_unmatched`, a
// probe row without a match gets one pair with build row EMPTY_ROW.
extern "C" __global__ void hash_probe_pairs_u64(const u64* keys, const u32* validity, u64 n,
                                                const u64* slot_keys, const u32* slot_rows,
                                                u64 capacity, u32 keep_unmatched,
                                                const u64* offsets, u32* build_rows,
                                                u32* probe_rows) {
    u64 mask = capacity - 1;
    for (u64 i = global_index(); i < n; i += global_stride()) {
        u64 out = offsets[i];
        if (is_valid(validity, i)) {
            u64 key = keys[i];
            for (u64 slot = hash64(key) & mask; slot_rows[slot] != EMPTY_ROW;
                 slot = (slot + 1) & mask) {
                if (slot_keys[slot] == key) {
                    build_rows[out] = slot_rows[slot];
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
        u64 key = keys[i];
        for (u64 slot = hash64(key) & mask;; slot = (slot + 1) & mask) {
            u32 state = atomicCAS(&slot_states[slot], SLOT_EMPTY, SLOT_WRITING);
            if (state == SLOT_EMPTY) {
                slot_keys[slot] = key;
                store_release(&slot_states[slot], SLOT_READY);
                row_slots[i] = static_cast<u32>(slot);
                break;
            }
            while (load_acquire(&slot_states[slot]) != SLOT_READY) {
            }
            if (slot_keys[slot] == key) {
                row_slots[i] = static_cast<u32>(slot);
                break;
            }
        }
    }
}
EMU_KERNEL(hash_insert_unique_u64)
