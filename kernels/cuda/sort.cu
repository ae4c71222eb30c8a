// Stable LSD radix sort of 32- and 64-bit keys with a 32-bit payload (row indices).
//
// Keys are first made "sortable": unsigned bits whose unsigned order is the
// wanted order (signed integers: sign bit flipped; floats: total order with
// -0.0 equal to 0.0 and every NaN last; descending: all bits inverted).
// radix_digit_counts counts every pass's digits over the whole input in one
// launch; then each pass over an 8-bit digit is one launch of
// radix_onesweep, which moves each element to its place keeping the order
// of equal digits (stable), so the passes from the lowest digit up sort the
// keys.
#include "kernel_common.cuh"

__device__ __forceinline__ u32 sortable(i32 key) { return static_cast<u32>(key) ^ 0x80000000u; }
__device__ __forceinline__ u64 sortable(i64 key) {
    return static_cast<u64>(key) ^ 0x8000000000000000ull;
}
__device__ __forceinline__ u32 sortable(u32 key) { return key; }
__device__ __forceinline__ u64 sortable(u64 key) { return key; }
__device__ __forceinline__ u64 sortable(double key) {
    u64 bits;
    if (key != key) {
        bits = 0x7ff8000000000000ull;  // every NaN as the positive quiet NaN: last
    } else if (key == 0.0) {
        bits = 0;  // -0.0 and 0.0 compare equal
    } else {
        memcpy(&bits, &key, sizeof(bits));
    }
    return (bits >> 63) != 0 ? ~bits : bits | 0x8000000000000000ull;
}
__device__ __forceinline__ u32 sortable(float key) {
    u32 bits;
    if (key != key) {
        bits = 0x7fc00000u;
    } else if (key == 0.0f) {
        bits = 0;
    } else {
        memcpy(&bits, &key, sizeof(bits));
    }
    return (bits >> 31) != 0 ? ~bits : bits | 0x80000000u;
}

// Key i is of value rows[i] of the `len` values (`rows` null: of value i),
// so a later key of a multi-key sort is read through the permutation so far
// in the same pass. Null rows (validity bit 0; a null `validity` is all
// valid) and rows past the end get key 0: equal, so they keep their order
// for the pass that places the nulls.
#define SORTABLE(T, U, suffix)                                                             \
    extern "C" __global__ void sortable_keys_##suffix(const T* in, const u32* validity,     \
                                                      const u32* rows, u64 len, u64 n,      \
                                                      u32 descending, U* out) {             \
        for (u64 i = global_index(); i < n; i += global_stride()) {                         \
            const u64 row = rows != nullptr ? static_cast<u64>(rows[i]) : i;                \
            U key = U(0);                                                                   \
            if (row < len && is_valid(validity, row)) {                                     \
                key = sortable(in[row]);                                                    \
                if (descending != 0) key = static_cast<U>(~key);                            \
            }                                                                               \
            out[i] = key;                                                                   \
        }                                                                                   \
    }                                                                                       \
    EMU_KERNEL(sortable_keys_##suffix)

SORTABLE(i32, u32, i32)
SORTABLE(i64, u64, i64)
SORTABLE(u32, u32, u32)
SORTABLE(u64, u64, u64)
SORTABLE(float, u32, f32)
SORTABLE(double, u64, f64)

constexpr u32 kDigits = 256;

// The keys a tile holds in shared memory (16 KiB of keys and their 32-bit
// rows): 4,096 of 32 bits, 2,048 of 64. (ops.rs: SORT_TILE_BYTES.)
template <typename U>
struct SortTile {
    static constexpr u32 kKeys = 16384 / sizeof(U);
};

// A tile's published count of one digit: the flag in the top two bits
// (nothing yet is 0), the count below.
constexpr u64 kTileTotal = 1ull << 62;      // the keys of the digit in the tile
constexpr u64 kTilePrefix = 2ull << 62;     // ... in the tile and every tile before
constexpr u64 kCountBits = kTileTotal - 1;

// Lanes of each warp of a block of kDigits threads with each digit in the
// chunk being ranked (the last column counts lanes past the end); at most
// 32, so a byte each.
constexpr u32 kRankWarps = kDigits / 32;
typedef unsigned char WarpCounts[kRankWarps][kDigits + 1];

__device__ __forceinline__ void clear(WarpCounts& warp_counts) {
    for (u32 k = threadIdx.x; k < kRankWarps * (kDigits + 1); k += kDigits) {
        warp_counts[k / (kDigits + 1)][k % (kDigits + 1)] = 0;
    }
}

// The lanes of the calling warp whose 8-bit `digit` equals the caller's:
// one ballot per bit. Every lane of the warp calls it together.
__device__ __forceinline__ u32 lanes_with_digit(u32 digit) {
    u32 peers = 0xffffffffu;
    UNROLL
    for (u32 bit = 0; bit < 8; ++bit) {
        const u32 set = (digit >> bit) & 1u;
        const u32 votes = __ballot_sync(0xffffffffu, set);
        peers &= set != 0 ? votes : ~votes;
    }
    return peers;
}

// Places one chunk of the keys being sorted by the digit at `shift`, one
// per thread of a block of kDigits threads (`inside`: the thread has one),
// into `keys_out` and `rows_out` (shared memory) after the keys placed
// before: at run_start[digit] + placed[digit] + its rank among the chunk's
// keys of its digit, then adds the chunk's counts to `placed`. Each warp
// finds the lanes that share a thread's digit (lanes_with_digit, and a
// ballot of the lanes past the end, whose digit is kDigits) and ranks the
// thread among the lower ones; the warps' per-digit counts order the warps,
// so equal digits keep their order (stable). `warp_counts` starts and ends
// cleared.
template <typename U>
__device__ __forceinline__ void place_chunk(U key, u32 row, bool inside, u32 shift,
                                            const u32* run_start, u32* placed,
                                            WarpCounts& warp_counts, U* keys_out, u32* rows_out) {
    const u32 d = threadIdx.x, lane = d % 32, warp = d / 32;
    const u32 digit = inside ? static_cast<u32>(key >> shift) & 0xffu : kDigits;
    const u32 lanes_inside = __ballot_sync(0xffffffffu, inside);
    const u32 peers = lanes_with_digit(digit) & (inside ? lanes_inside : ~lanes_inside);
    const u32 below = peers & ((1u << lane) - 1u);
    if (below == 0) warp_counts[warp][digit] = static_cast<unsigned char>(__popc(peers));
    __syncthreads();
    if (inside) {
        u32 rank = static_cast<u32>(__popc(below));
        for (u32 w = 0; w < warp; ++w) rank += warp_counts[w][digit];
        const u32 slot = run_start[digit] + placed[digit] + rank;
        keys_out[slot] = key;
        rows_out[slot] = row;
    }
    __syncthreads();
    u32 total = 0;
    for (u32 w = 0; w < kRankWarps; ++w) {
        total += warp_counts[w][d];
        warp_counts[w][d] = 0;
    }
    if (d == 0) {
        for (u32 w = 0; w < kRankWarps; ++w) warp_counts[w][kDigits] = 0;
    }
    placed[d] += total;
    __syncthreads();
}

// One pass over the 8-bit digit at `shift` (Adinets and Merrill's
// "onesweep"): a block of kDigits threads takes the next tile number from
// a counter (status[tiles * kDigits]) and ranks the tile's keys warp by
// warp: warp w holds the w-th eighth of the tile in registers, 32 keys a
// round, and ranks each key among the keys of its digit that come before
// it in that eighth (the lanes of the round sharing its digit, found with
// eight ballots, after the warp's count of the digit so far). The warps'
// counts give the tile's count of each digit, which the block publishes
// at once (status[tile * kDigits + digit]); thread d then looks back over
// the tiles before for digit d, adding their counts until one has
// published its prefix, and publishes its own. A key's place is every key
// of a lower digit (from `digit_counts`, this pass's counts over the whole
// input: counts[shift / 8 * kDigits + digit]), plus its digit's keys in the
// tiles before, plus its rank in the tile. The tile is first put in digit
// order in shared memory and then written out in that order, so each
// digit's run goes to consecutive places. Equal digits keep their order
// (stable): within a warp by round and lane, between warps by warp.
//
// `rows` null: the rows are 0, 1, ... (a sort's first pass reads no
// payload). `keys_out` null: only the rows are written (a sort's last pass).
//
// Launch exactly ceil(n / SortTile<U>::kKeys) blocks of kDigits threads,
// with `status` (kDigits per tile, plus the counter) all zero. Every tile
// before a block's own belongs to a block that has started and publishes
// its counts before it waits on anything, so the look-back cannot deadlock.
template <typename U>
__device__ __forceinline__ void onesweep_pass(const U* keys, const u32* rows, u64 n, u32 shift,
                                              const u32* digit_counts, u64* status, U* keys_out,
                                              u32* rows_out) {
    constexpr u32 kTile = SortTile<U>::kKeys;
    constexpr u32 kWarps = kDigits / 32;
    // Keys per lane: the rounds of each warp.
    constexpr u32 kRounds = kTile / kDigits;
    __shared__ U tile_keys[kTile];
    __shared__ u32 tile_rows[kTile];
    // Where each digit's keys go in the output, and where its run starts
    // in the tile's shared copy.
    __shared__ u64 out_start[kDigits];
    __shared__ u32 run_start[kDigits];
    // warp_counts[w][d]: warp w's keys of digit d ranked so far; then where
    // they start in the tile's run of digit d.
    __shared__ u32 warp_counts[kWarps][kDigits];
    __shared__ u64 tile_number;
    // Another block size would leave the poisoned output of a test unwritten.
    if (blockDim.x != kDigits) return;
    const u32 d = threadIdx.x, lane = d % 32, warp = d / 32;
    const u64 tiles = (n + kTile - 1) / kTile;
    if (d == 0) tile_number = atomicAdd(&status[tiles * kDigits], 1ull);
    UNROLL
    for (u32 w = 0; w < kWarps; ++w) warp_counts[w][d] = 0;
    __syncthreads();
    const u64 tile = tile_number;
    if (tile >= tiles) return;
    const u64 begin = tile * kTile;
    const u64 end = begin + kTile < n ? begin + kTile : n;
    const bool full = end - begin == kTile;
    const u64 first = begin + warp * (kRounds * 32) + lane;
    U mine[kRounds];
    UNROLL
    for (u32 r = 0; r < kRounds; ++r) {
        const u64 i = first + r * 32;
        mine[r] = i < end ? keys[i] : U(0);
    }
    const u32 lanes_below = (1u << lane) - 1u;
    u32 rank[kRounds];
    UNROLL
    for (u32 r = 0; r < kRounds; ++r) {
        // The rounds past the end (in the last tile) rank nothing.
        if (first - lane + r * 32 >= end) break;
        const bool inside = first + r * 32 < end;
        const u32 digit = static_cast<u32>(mine[r] >> shift) & 0xffu;
        const u32 peers = (full ? 0xffffffffu : __ballot_sync(0xffffffffu, inside)) &
                          lanes_with_digit(digit);
        const u32 base = inside ? warp_counts[warp][digit] : 0u;
        __syncwarp();
        if (inside && (peers & lanes_below) == 0) {
            warp_counts[warp][digit] = base + static_cast<u32>(__popc(peers));
        }
        __syncwarp();
        rank[r] = base + static_cast<u32>(__popc(peers & lanes_below));
    }
    __syncthreads();
    // The tile's count of digit d, and where each warp's keys of it start.
    u32 count = 0;
    UNROLL
    for (u32 w = 0; w < kWarps; ++w) {
        const u32 of_warp = warp_counts[w][d];
        warp_counts[w][d] = count;
        count += of_warp;
    }
    u64 before = 0;
    if (tile == 0) {
        atomicExch(&status[d], kTilePrefix | count);
    } else {
        atomicExch(&status[tile * kDigits + d], kTileTotal | count);
        for (u64 t = tile; t-- > 0;) {
            u64 word;
            // The count is in the word: no other value to read after it.
            while ((word = load_published(&status[t * kDigits + d])) == 0) SPIN_WAIT();
            before += word & kCountBits;
            if ((word & ~kCountBits) == kTilePrefix) break;
        }
        atomicExch(&status[tile * kDigits + d], kTilePrefix | (before + count));
    }
    u64 all;
    const u64 global = digit_counts[(shift / 8) * kDigits + d];
    out_start[d] = block_inclusive_sum<u64>(global, &all) - global + before;
    u32 tile_keys_total;
    run_start[d] = block_inclusive_sum<u32>(count, &tile_keys_total) - count;
    __syncthreads();
    // Into shared memory in digit order.
    UNROLL
    for (u32 r = 0; r < kRounds; ++r) {
        const u64 i = first + r * 32;
        if (i < end) {
            const u32 digit = static_cast<u32>(mine[r] >> shift) & 0xffu;
            const u32 slot = run_start[digit] + warp_counts[warp][digit] + rank[r];
            tile_keys[slot] = mine[r];
            tile_rows[slot] = rows != nullptr ? rows[i] : static_cast<u32>(i);
        }
    }
    __syncthreads();
    // Out in the tile's sorted order: slot j of digit d's run goes j places
    // after the digit's start.
    for (u32 j = d; j < end - begin; j += kDigits) {
        const U key = tile_keys[j];
        const u32 digit = static_cast<u32>(key >> shift) & 0xffu;
        const u64 place = out_start[digit] + (j - run_start[digit]);
        if (keys_out != nullptr) keys_out[place] = key;
        rows_out[place] = tile_rows[j];
    }
}

// counts[pass * 256 + digit]: how many keys have `digit` as their 8-bit
// digit `pass` (from the lowest), for the first `passes` digits, summed over
// the whole input (`counts` starts at zero). A pass where one digit counts
// every key would move nothing: the sort skips it (the high bytes of small
// numbers, the padding of short string keys).
template <typename U>
__device__ __forceinline__ void digit_counts(const U* keys, u64 n, u32 passes, u32* counts) {
    __shared__ u32 local[8 * kDigits];
    for (u32 k = threadIdx.x; k < passes * kDigits; k += blockDim.x) local[k] = 0;
    __syncthreads();
    for (u64 i = global_index(); i < n; i += global_stride()) {
        U key = keys[i];
        for (u32 pass = 0; pass < passes; ++pass) {
            atomicAdd(&local[pass * kDigits + (static_cast<u32>(key >> (8 * pass)) & 0xffu)], 1u);
        }
    }
    __syncthreads();
    for (u32 k = threadIdx.x; k < passes * kDigits; k += blockDim.x) {
        if (local[k] != 0) atomicAdd(&counts[k], local[k]);
    }
}

// The most keys radix_block_sort takes: two copies of them and their rows
// in shared memory, 12 or 16 KiB each (2,048 keys of 32 bits, 1,024 of 64).
// (ops.rs: BLOCK_SORT_BYTES.)
template <typename U>
struct BlockSort {
    static constexpr u32 kKeys = 8192 / sizeof(U);
};

// A whole sort of n <= BlockSort<U>::kKeys keys by one block of kDigits
// threads in one launch: every pass over the low `passes` digits, from the
// lowest, between two copies in shared memory (place_chunk), skipping a
// pass where one digit holds every key; then the rows in sorted order into
// `rows_out` (`rows` null: the rows are 0, 1, ...). A small sort thus costs
// one launch and no read-back, instead of a launch per pass.
template <typename U>
__device__ __forceinline__ void block_sort(const U* keys, const u32* rows, u32 n, u32 passes,
                                           u32* rows_out) {
    constexpr u32 kMax = BlockSort<U>::kKeys;
    __shared__ U sort_keys[2][kMax];
    __shared__ u32 sort_rows[2][kMax];
    // Each digit's count, then where its run starts.
    __shared__ u32 run_start[kDigits];
    __shared__ u32 placed[kDigits];
    __shared__ WarpCounts warp_counts;
    __shared__ u32 one_digit;
    // Another block size or more keys would leave a test's poisoned output
    // unwritten.
    if (blockDim.x != kDigits || n > kMax || n == 0) return;
    const u32 d = threadIdx.x;
    for (u32 j = d; j < n; j += kDigits) {
        sort_keys[0][j] = keys[j];
        sort_rows[0][j] = rows != nullptr ? rows[j] : j;
    }
    clear(warp_counts);
    u32 from = 0;
    for (u32 pass = 0; pass < passes; ++pass) {
        const u32 shift = 8 * pass;
        run_start[d] = 0;
        placed[d] = 0;
        if (d == 0) one_digit = 0;
        __syncthreads();
        for (u32 j = d; j < n; j += kDigits) {
            atomicAdd(&run_start[static_cast<u32>(sort_keys[from][j] >> shift) & 0xffu], 1u);
        }
        __syncthreads();
        if (run_start[d] == n) one_digit = 1;
        __syncthreads();
        const bool skip = one_digit != 0;
        const u32 count = run_start[d];
        u32 total;
        // (Its barriers also keep the next pass's resets after every read.)
        const u32 start = block_inclusive_sum<u32>(count, &total) - count;
        if (skip) continue;
        run_start[d] = start;
        __syncthreads();
        for (u32 first = 0; first < n; first += kDigits) {
            const u32 i = first + d;
            const bool inside = i < n;
            place_chunk<U>(inside ? sort_keys[from][i] : U(0), inside ? sort_rows[from][i] : 0u,
                           inside, shift, run_start, placed, warp_counts, sort_keys[1 - from],
                           sort_rows[1 - from]);
        }
        from = 1 - from;
    }
    __syncthreads();
    for (u32 j = d; j < n; j += kDigits) rows_out[j] = sort_rows[from][j];
}


#define RADIX(U, suffix)                                                                    \
    extern "C" __global__ void radix_digit_counts_##suffix(const U* keys, u64 n, u32 passes, \
                                                           u32* counts) {                   \
        digit_counts<U>(keys, n, passes, counts);                                            \
    }                                                                                        \
    EMU_KERNEL(radix_digit_counts_##suffix)                                                  \
    extern "C" __global__ void __launch_bounds__(kDigits, 3) radix_onesweep_##suffix(       \
        const U* keys, const u32* rows, u64 n, u32 shift, const u32* digit_counts,           \
        u64* status, U* keys_out, u32* rows_out) {                                           \
        onesweep_pass<U>(keys, rows, n, shift, digit_counts, status, keys_out, rows_out);    \
    }                                                                                        \
    EMU_KERNEL(radix_onesweep_##suffix)                                                      \
    extern "C" __global__ void radix_block_sort_##suffix(const U* keys, const u32* rows, u32 n,   \
                                                         u32 passes, u32* rows_out) {       \
        block_sort<U>(keys, rows, n, passes, rows_out);                                      \
    }                                                                                        \
    EMU_KERNEL(radix_block_sort_##suffix)

RADIX(u32, u32)
RADIX(u64, u64)

// Keys that order nulls: 0 for the rows that come first, 1 for the others
// (nulls last: valid rows are 0; nulls first: null rows are 0).
extern "C" __global__ void null_sort_keys(const u32* validity, u64 n, u32 nulls_last, u32* out) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        bool valid = is_valid(validity, i);
        out[i] = (valid == (nulls_last != 0)) ? 0u : 1u;
    }
}
EMU_KERNEL(null_sort_keys)

// 32-bit row numbers widened to the 64-bit indices gathers take.
extern "C" __global__ void widen_u32_i64(const u32* in, u64 n, i64* out) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        out[i] = static_cast<i64>(in[i]);
    }
}
EMU_KERNEL(widen_u32_i64)

// String sort and group keys, as columns of u64 the radix sort orders:
// string_key_chunk writes bytes [8 * chunk, 8 * chunk + 8) of each string as
// one big-endian word (zeros past the end), string_key_length each length.
// Ordering by the chunks from the first to the last, then by the length, is
// the byte-wise (UTF-8, so code point) order of the strings. Null strings
// give 0; the sort places them by the validity. `with_length`: the chunk's
// last byte is past the end of every string and every length is below 256,
// so the word carries the length there and no length key is needed.
extern "C" __global__ void string_key_chunk(const i64* offsets, const unsigned char* bytes,
                                            const u32* validity, u64 n, u64 chunk,
                                            u32 with_length, u64* out) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        u64 word = 0;
        if (is_valid(validity, i)) {
            u64 start = static_cast<u64>(offsets[i]);
            u64 len = static_cast<u64>(offsets[i + 1]) - start;
            for (u64 b = 0; b < 8; ++b) {
                u64 at = chunk * 8 + b;
                word = (word << 8) | (at < len ? bytes[start + at] : 0u);
            }
            if (with_length != 0) word |= len & 0xffu;
        }
        out[i] = word;
    }
}
EMU_KERNEL(string_key_chunk)

extern "C" __global__ void string_key_length(const i64* offsets, const u32* validity, u64 n,
                                             u64* out) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        out[i] = is_valid(validity, i) ? static_cast<u64>(offsets[i + 1] - offsets[i]) : 0;
    }
}
EMU_KERNEL(string_key_length)
