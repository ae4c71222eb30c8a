// Prefix sums (inclusive and exclusive) in one pass with decoupled look-back, and stream compaction.
//
// A scan is one launch over tiles of kScanBlock threads x kScanItems
// elements (Merrill and Garland's single-pass scan). Each block takes the
// next tile number from a counter (so every tile before its own belongs to
// a block that has started, and waiting on it cannot deadlock), loads the
// tile coalesced through shared memory, and publishes the tile's total
// (status 1) at once. The first warp then looks back over the tiles before,
// kLookBack at a time, summing totals until it meets a tile whose inclusive
// prefix is published (status 2), and publishes its own inclusive prefix.
// Elements are read once and written once. A prefix reaches the tiles after
// it at kLookBack tiles per round of look-back, which is what bounds a
// scan's speed on a GPU, so tiles are large and the window wide. `status`
// has one word per tile plus the tile counter, all zero before the launch;
// `totals` and `prefixes` one value per tile.
#include "kernel_common.cuh"

constexpr u32 kScanBlock = 256;
constexpr u32 kScanItems = 16;
constexpr u32 kScanTile = kScanBlock * kScanItems;
// Tiles a look-back round reads: kLookBackRows per lane of a warp, all in
// flight at once.
constexpr u32 kLookBackRows = 4;
constexpr u32 kLookBack = 32 * kLookBackRows;

// Publishes `value` for tile `t` with status `state` (1: the tile's total,
// 2: its inclusive prefix): the value first, then, after a fence, the status.
template <typename A>
__device__ __forceinline__ void publish(u32* status, A* values, u64 t, A value, u32 state) {
    *const_cast<volatile A*>(&values[t]) = value;
    __threadfence();
    atomicExch(&status[t], state);
}

// The sum of the tiles before `tile` (called by the whole first warp; the
// result is valid in every lane). Each round reads the status of the
// kLookBack tiles before `end` (lane l reads tiles end - 1 - l - 32 k),
// waits until all have published something, then adds the totals down to
// the nearest inclusive prefix (itself included), or all of them and goes
// on before them.
template <typename A>
__device__ __forceinline__ A look_back(u32* status, const A* totals, const A* prefixes, u64 tile) {
    const u32 lane = threadIdx.x % 32;
    A prefix = A(0);
    i64 end = static_cast<i64>(tile);
    for (;;) {
        u32 state[kLookBackRows];
        bool waiting = false;
        UNROLL
        for (u32 k = 0; k < kLookBackRows; ++k) {
            const i64 t = end - 1 - static_cast<i64>(lane + 32 * k);
            // Before the first tile: an inclusive prefix of zero.
            state[k] = t >= 0 ? load_published(&status[t]) : 2u;
            waiting = waiting || state[k] == 0;
        }
        if (__any_sync(FULL_MASK, waiting)) {
            SPIN_WAIT();
            continue;
        }
        __threadfence();
        UNROLL
        for (u32 k = 0; k < kLookBackRows; ++k) {
            const i64 t = end - 1 - static_cast<i64>(lane + 32 * k);
            A value = t < 0          ? A(0)
                      : state[k] == 2 ? load_published(&prefixes[t])
                                      : load_published(&totals[t]);
            const u32 inclusive = __ballot_sync(FULL_MASK, state[k] == 2);
            if (inclusive != 0 &&
                lane > static_cast<u32>(__ffs(static_cast<int>(inclusive)) - 1)) {
                value = A(0);
            }
            for (int delta = 16; delta > 0; delta /= 2) {
                value += __shfl_xor_sync(FULL_MASK, value, delta);
            }
            prefix += value;
            if (inclusive != 0) return prefix;
        }
        end -= kLookBack;
    }
}

// Where element `local` of a tile sits in shared memory: one slot of padding
// per 32 elements keeps a thread's run of kScanItems off other threads' banks.
__device__ __forceinline__ u32 scan_slot(u32 local) { return local + local / 32; }

// The scan of `in` (n elements) into `out`, inclusive or exclusive, summed
// in `A`. Launch with blockDim kScanBlock and one block per kScanTile
// elements.
template <typename T, typename A>
__device__ __forceinline__ void scan_single_pass(const T* in, u64 n, A* out, bool inclusive,
                                                 u32* status, A* totals, A* prefixes) {
    __shared__ A exchange[kScanTile + kScanTile / 32];
    __shared__ u64 tile_number;
    __shared__ A tile_prefix;
    const u64 tiles = (n + kScanTile - 1) / kScanTile;
    if (threadIdx.x == 0) tile_number = atomicAdd(&status[tiles], 1u);
    __syncthreads();
    const u64 tile = tile_number;
    const u64 base = tile * kScanTile;
    UNROLL
    for (u32 k = 0; k < kScanItems; ++k) {
        const u32 local = k * kScanBlock + threadIdx.x;
        const u64 i = base + local;
        exchange[scan_slot(local)] = i < n ? static_cast<A>(in[i]) : A(0);
    }
    __syncthreads();
    A items[kScanItems];
    A sum = A(0);
    UNROLL
    for (u32 k = 0; k < kScanItems; ++k) {
        items[k] = exchange[scan_slot(threadIdx.x * kScanItems + k)];
        sum += items[k];
    }
    A tile_total;
    A running = block_inclusive_sum<A>(sum, &tile_total) - sum;
    if (threadIdx.x < 32) {
        A prefix = A(0);
        if (tile == 0) {
            if (threadIdx.x == 0) publish(status, prefixes, 0, tile_total, 2u);
        } else {
            if (threadIdx.x == 0) publish(status, totals, tile, tile_total, 1u);
            prefix = look_back(status, totals, prefixes, tile);
            if (threadIdx.x == 0) publish(status, prefixes, tile, prefix + tile_total, 2u);
        }
        if (threadIdx.x == 0) tile_prefix = prefix;
    }
    __syncthreads();
    running += tile_prefix;
    UNROLL
    for (u32 k = 0; k < kScanItems; ++k) {
        const A next = running + items[k];
        exchange[scan_slot(threadIdx.x * kScanItems + k)] = inclusive ? next : running;
        running = next;
    }
    __syncthreads();
    UNROLL
    for (u32 k = 0; k < kScanItems; ++k) {
        const u32 local = k * kScanBlock + threadIdx.x;
        const u64 i = base + local;
        if (i < n) out[i] = exchange[scan_slot(local)];
    }
}

#define SCAN(T, A, suffix)                                                                  \
    extern "C" __global__ void __launch_bounds__(kScanBlock)                                 \
        scan_##suffix(const T* in, u64 n, A* out, u32 inclusive, u32* status, A* totals,     \
                      A* prefixes) {                                                         \
        scan_single_pass<T, A>(in, n, out, inclusive != 0, status, totals, prefixes);         \
    }                                                                                        \
    EMU_KERNEL(scan_##suffix)

SCAN(unsigned char, u64, u8)
SCAN(i32, i64, i32)
SCAN(i64, i64, i64)
SCAN(u32, u64, u32)
SCAN(u64, u64, u64)
SCAN(double, double, f64)

// Stream compaction: the indices of the non-zero flags, in order, given the
// exclusive scan of the flags (`positions`, from the u8 scan).
extern "C" __global__ void compact_indices(const unsigned char* flags, const u64* positions,
                                           u64 n, u64* out) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        if (flags[i] != 0) out[positions[i]] = i;
    }
}
EMU_KERNEL(compact_indices)

// Stream compaction of a bitmap: the rows whose bit is set (and valid), in
// order, over tiles of one 32-bit word per thread of a block of
// kCompactBlock (8,192 rows). compact_tile_counts counts each tile's rows; an
// exclusive scan of the counts (the scan kernels) gives each tile's first
// place; compact_bits then writes each tile's rows. It reads the bitmap
// twice and writes the rows once.
constexpr u32 kCompactBlock = 256;
constexpr u32 kCompactTileRows = kCompactBlock * 32;

__device__ __forceinline__ u32 compact_word(const u32* bits, const u32* validity, u64 n, u64 w) {
    u64 words = (n + 31) / 32;
    if (w >= words) return 0;
    u32 word = bits[w];
    if (validity != nullptr) word &= validity[w];
    if (w == words - 1 && n % 32 != 0) word &= (1u << (n % 32)) - 1u;
    return word;
}

extern "C" __global__ void compact_tile_counts(const u32* bits, const u32* validity, u64 n,
                                               u32* counts) {
    u64 w = static_cast<u64>(blockIdx.x) * blockDim.x + threadIdx.x;
    u32 count = block_reduce<SumOp, u32>(static_cast<u32>(__popc(compact_word(bits, validity, n, w))));
    if (threadIdx.x == 0) counts[blockIdx.x] = count;
}
EMU_KERNEL(compact_tile_counts)

// Two phases, so the rows leave in whole lines: every warp takes its 32
// words one after another, lane l testing bit l, and puts the tile's rows
// in order in shared memory (as offsets in the tile, 16 bits each); then the
// block writes the tile's run of rows out, consecutive threads to
// consecutive places. (Written straight from the words, a warp's store
// covers only the word's set bits, half a line at half the rows selected,
// and rarely on a line's boundary.) Launch with blockDim kCompactBlock.
extern "C" __global__ void __launch_bounds__(kCompactBlock)
    compact_bits(const u32* bits, const u32* validity, u64 n, const u64* tile_starts, u64* out) {
    __shared__ unsigned short staged[kCompactTileRows];
    __shared__ u32 warp_starts[kCompactBlock / 32 + 1];
    // Another block size would leave the poisoned output of a test unwritten.
    if (blockDim.x != kCompactBlock) return;
    const u32 lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const u64 tile_word = static_cast<u64>(blockIdx.x) * kCompactBlock;
    const u32 word = compact_word(bits, validity, n, tile_word + threadIdx.x);
    u32 total = static_cast<u32>(__popc(word));
    for (int delta = 16; delta > 0; delta /= 2) total += __shfl_xor_sync(FULL_MASK, total, delta);
    if (lane == 0) warp_starts[warp + 1] = total;
    __syncthreads();
    if (threadIdx.x == 0) {
        warp_starts[0] = 0;
        for (u32 k = 1; k <= kCompactBlock / 32; ++k) warp_starts[k] += warp_starts[k - 1];
    }
    __syncthreads();
    u32 place = warp_starts[warp];
    for (u32 j = 0; j < 32; ++j) {
        const u32 w = __shfl_sync(FULL_MASK, word, j);
        if (((w >> lane) & 1u) != 0) {
            staged[place + __popc(w & ((1u << lane) - 1u))] =
                static_cast<unsigned short>((warp * 32 + j) * 32 + lane);
        }
        place += __popc(w);
    }
    __syncthreads();
    const u32 count = warp_starts[kCompactBlock / 32];
    const u64 start = tile_starts[blockIdx.x], first_row = tile_word * 32;
    for (u32 k = threadIdx.x; k < count; k += kCompactBlock) {
        out[start + k] = first_row + staged[k];
    }
}
EMU_KERNEL(compact_bits)

// Polars' forward (backward) fill of nulls as a gather: the row each row
// takes its value from, the last valid row at or before it (the first at or
// after it), -1 where there is none or it is more than `limit` rows away.
// `positions` is the exclusive scan of the rows' validity flags (n + 1
// entries), `valid_rows` the m valid rows in order.
extern "C" __global__ void fill_sources(const u64* positions, const i64* valid_rows, u64 m,
                                        u64 n, u32 forward, u64 limit, i64* out) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        i64 source = -1;
        if (forward != 0) {
            u64 before = positions[i + 1];
            if (before > 0) source = valid_rows[before - 1];
            if (source >= 0 && i - static_cast<u64>(source) > limit) source = -1;
        } else {
            u64 before = positions[i];
            if (before < m) source = valid_rows[before];
            if (source >= 0 && static_cast<u64>(source) - i > limit) source = -1;
        }
        out[i] = source;
    }
}
EMU_KERNEL(fill_sources)

// Polars' cum_sum of floats, restarted in each group: one thread per group
// adds the group's valid values in order, left to right, as Polars' loop
// does (from 0.0; f32 values into a double, each sum rounded to f32 as it
// is written), so that every sum is Polars' to the bit. Group g's rows are
// rows[starts[g]] .. rows[starts[g + 1] - 1] (the last group ends at
// n_rows); each sum is written at its row, 0 at a null row.
template <typename T>
__device__ __forceinline__ void sequential_sums(const T* values, const u32* validity,
                                                const i64* rows, const i64* starts, u64 n_rows,
                                                u64 n_groups, T* out) {
    for (u64 g = global_index(); g < n_groups; g += global_stride()) {
        u64 end = group_end(starts, g, n_groups, n_rows);
        double sum = 0.0;
        for (u64 p = static_cast<u64>(starts[g]); p < end; ++p) {
            i64 row = rows[p];
            if (is_valid(validity, static_cast<u64>(row))) {
                sum += static_cast<double>(values[row]);
                out[row] = static_cast<T>(sum);
            } else {
                out[row] = T(0);
            }
        }
    }
}

#define SEQUENTIAL_SUMS(T, suffix)                                                         \
    extern "C" __global__ void sequential_sums_##suffix(const T* values, const u32* validity, \
                                                        const i64* rows, const i64* starts,   \
                                                        u64 n_rows, u64 n_groups, T* out) {   \
        sequential_sums<T>(values, validity, rows, starts, n_rows, n_groups, out);           \
    }                                                                                      \
    EMU_KERNEL(sequential_sums_##suffix)

SEQUENTIAL_SUMS(double, f64)
SEQUENTIAL_SUMS(float, f32)

// Polars' cum_prod, restarted in each group (as sequential_sums): each
// group's valid values multiplied in order from 1 by one thread, in the
// values' own type (integers wrapping, as Polars' release build does: as
// unsigned words, the same bits for signed values); 0 at a null row.
template <typename T, typename W>
__device__ __forceinline__ void sequential_products(const T* values, const u32* validity,
                                                    const i64* rows, const i64* starts,
                                                    u64 n_rows, u64 n_groups, T* out) {
    for (u64 g = global_index(); g < n_groups; g += global_stride()) {
        u64 end = group_end(starts, g, n_groups, n_rows);
        W product = W(1);
        for (u64 p = static_cast<u64>(starts[g]); p < end; ++p) {
            i64 row = rows[p];
            if (is_valid(validity, static_cast<u64>(row))) {
                product = product * static_cast<W>(values[row]);
                out[row] = static_cast<T>(product);
            } else {
                out[row] = T(0);
            }
        }
    }
}

#define SEQUENTIAL_PRODUCTS(T, W, suffix)                                                  \
    extern "C" __global__ void sequential_products_##suffix(                               \
        const T* values, const u32* validity, const i64* rows, const i64* starts,          \
        u64 n_rows, u64 n_groups, T* out) {                                                \
        sequential_products<T, W>(values, validity, rows, starts, n_rows, n_groups, out);  \
    }                                                                                      \
    EMU_KERNEL(sequential_products_##suffix)

SEQUENTIAL_PRODUCTS(i64, u64, i64)
SEQUENTIAL_PRODUCTS(u64, u64, u64)
SEQUENTIAL_PRODUCTS(double, double, f64)
SEQUENTIAL_PRODUCTS(float, float, f32)

// Running extremes (Polars' cum_max and cum_min), restarted in each group:
// for every position, the position of the best valid value so far in its
// group, the earliest among equals. A scan of "runs" (first and last group,
// whether any value is valid, the best value's order key and position) in
// three launches like the prefix sums: running_best_tiles (one block per
// tile: each position's best within its tile, and the tile's run),
// running_best_carries (one block: the run before each tile),
// running_best_finish (one block per tile: the carry applied, and each row's
// best row written).
//
// Values are 64-bit words of `kind` 0 (i64), 1 (u64) or 2 (f64), read at
// `rows[i]` (or `i` when `rows` is null), grouped by `group_of[i]` (one
// group when null; groups are contiguous and increasing). Order keys rank
// the best highest: for f64, NaN lowest (ignored while a number is there,
// as Polars' f64::max and min ignore it) and both zeros alike (Polars keeps
// the first of equal values).

#define NO_POSITION 0xffffffffffffffffull

struct Run {
    u32 first, last;
    u32 valid;
    u64 key, pos;
};

__device__ __forceinline__ u64 best_order_key(u64 bits, u32 kind, bool minimum) {
    const u64 sign = 0x8000000000000000ull;
    u64 key;
    if (kind == 0) {
        key = bits ^ sign;
    } else if (kind == 1) {
        key = bits;
    } else {
        if ((bits & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) return 0;  // NaN
        if (bits == sign) bits = 0;                                               // -0.0 as 0.0
        key = (bits & sign) ? ~bits : (bits | sign);
    }
    if (minimum) {
        key = ~key;
        // Keep NaN (0) below every number: no f64 number maps to ~0.
    }
    return key;
}

// `b` after `a`: b's own run where b starts a group of its own or a group
// other than a's last; else the better of the two (a's on ties: earlier).
__device__ __forceinline__ Run combine_runs(Run a, Run b) {
    Run r = b;
    r.first = a.first;
    bool joined = b.first == b.last && a.last == b.first;
    if (joined && a.valid && (!b.valid || a.key >= b.key)) {
        r.valid = a.valid;
        r.key = a.key;
        r.pos = a.pos;
    }
    return r;
}

// At most this many threads per block run the running extremes.
#define RUNS_BLOCK 256

// A run that joins nothing before it and holds no value (past the end, and
// before the first tile).
__device__ __forceinline__ Run no_run() { return Run{0xffffffffu, 0xffffffffu, 0, 0, 0}; }

// A run as 4 words in global memory: groups, valid, key, position.
__device__ __forceinline__ void store_run(u64* out, Run r) {
    out[0] = static_cast<u64>(r.first) | (static_cast<u64>(r.last) << 32);
    out[1] = r.valid;
    out[2] = r.key;
    out[3] = r.pos;
}

__device__ __forceinline__ Run load_run(const u64* in) {
    return Run{static_cast<u32>(in[0]), static_cast<u32>(in[0] >> 32), static_cast<u32>(in[1]),
               in[2], in[3]};
}

// The inclusive scan of one run per thread across the block; with
// `previous`, also the scan's value at the thread before (none for the
// first thread).
__device__ __forceinline__ Run block_scan_runs(Run v, Run* previous = nullptr) {
    __shared__ Run runs[RUNS_BLOCK];
    u32 t = threadIdx.x;
    for (u32 offset = 1; offset < blockDim.x; offset <<= 1) {
        runs[t] = v;
        __syncthreads();
        if (t >= offset) v = combine_runs(runs[t - offset], v);
        __syncthreads();
    }
    if (previous != nullptr) {
        runs[t] = v;
        __syncthreads();
        *previous = t > 0 ? runs[t - 1] : no_run();
        __syncthreads();
    }
    return v;
}

// Shares the run of thread `from` with the whole block.
__device__ __forceinline__ Run block_share_run(Run v, u32 from) {
    __shared__ Run shared;
    if (threadIdx.x == from) shared = v;
    __syncthreads();
    Run r = shared;
    __syncthreads();
    return r;
}

__device__ __forceinline__ Run position_run(const u64* values, const u32* validity, const i64* rows,
                                            const u32* group_of, u64 n, u64 i, u32 kind,
                                            bool minimum) {
    u64 row = rows ? static_cast<u64>(rows[i]) : i;
    u32 g = group_of ? group_of[i] : 0;
    // (A row out of range counts as null; finish writes nothing for it.)
    bool valid = row < n && is_valid(validity, row);
    return Run{g, g, valid ? 1u : 0u, valid ? best_order_key(values[row], kind, minimum) : 0, i};
}

extern "C" __global__ void running_best_tiles(const u64* values, const u32* validity,
                                              const i64* rows, const u32* group_of, u64 n,
                                              u32 kind, u32 minimum, u64 tile, u64* best,
                                              u64* runs) {
    u64 begin = static_cast<u64>(blockIdx.x) * tile;
    u64 end = begin + tile < n ? begin + tile : n;
    Run carry = no_run();
    for (u64 start = begin; start < end; start += blockDim.x) {
        u64 i = start + threadIdx.x;
        Run v = i < end ? position_run(values, validity, rows, group_of, n, i, kind, minimum != 0)
                        : no_run();
        v = block_scan_runs(v);
        if (start > begin) v = combine_runs(carry, v);
        if (i < end) best[i] = v.valid ? v.pos : NO_POSITION;
        u64 last = (end - start < blockDim.x ? end - start : blockDim.x) - 1;
        carry = block_share_run(v, static_cast<u32>(last));
    }
    if (threadIdx.x == 0 && begin < end) store_run(runs + 4 * blockIdx.x, carry);
}
EMU_KERNEL(running_best_tiles)

// One block: each tile's run replaced, in place, by the run of all tiles
// before it (none valid before the first).
extern "C" __global__ void running_best_carries(u64* runs, u64 tiles) {
    Run carry = no_run();
    for (u64 start = 0; start < tiles; start += blockDim.x) {
        u64 t = start + threadIdx.x;
        Run previous;
        Run inclusive = block_scan_runs(t < tiles ? load_run(runs + 4 * t) : no_run(), &previous);
        if (start > 0) {
            inclusive = combine_runs(carry, inclusive);
            previous = threadIdx.x > 0 ? combine_runs(carry, previous) : carry;
        }
        if (t < tiles) store_run(runs + 4 * t, previous);
        u64 last = (tiles - start < blockDim.x ? tiles - start : blockDim.x) - 1;
        carry = block_share_run(inclusive, static_cast<u32>(last));
    }
}
EMU_KERNEL(running_best_carries)

extern "C" __global__ void running_best_finish(const u64* values, const u32* validity,
                                               const i64* rows, const u32* group_of, u64 n,
                                               u32 kind, u32 minimum, u64 tile, const u64* best,
                                               const u64* runs, i64* out) {
    u64 begin = static_cast<u64>(blockIdx.x) * tile;
    u64 end = begin + tile < n ? begin + tile : n;
    if (begin >= end) return;
    Run carry = load_run(runs + 4 * blockIdx.x);
    u32 leading = group_of ? group_of[begin] : 0;
    for (u64 i = begin + threadIdx.x; i < end; i += blockDim.x) {
        u64 row = rows ? static_cast<u64>(rows[i]) : i;
        if (row >= n) continue;
        u64 p = best[i];
        u32 g = group_of ? group_of[i] : 0;
        if (carry.valid && g == leading && carry.last == g) {
            if (p == NO_POSITION) {
                p = carry.pos;
            } else {
                u64 p_row = rows ? static_cast<u64>(rows[p]) : p;
                if (carry.key >= best_order_key(values[p_row], kind, minimum != 0)) p = carry.pos;
            }
        }
        bool valid = is_valid(validity, row);
        u64 p_row = p == NO_POSITION ? row : (rows ? static_cast<u64>(rows[p]) : p);
        out[row] = static_cast<i64>(valid ? p_row : row);
    }
}
EMU_KERNEL(running_best_finish)
