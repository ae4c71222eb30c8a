// Stable LSD radix sort of 32- and 64-bit keys with a 32-bit payload (row indices).
//
// Keys are first made "sortable": unsigned bits whose unsigned order is the
// wanted order (signed integers: sign bit flipped; floats: total order with
// -0.0 equal to 0.0 and every NaN last; descending: all bits inverted). Each
// pass over an 8-bit digit is three steps over tiles of the input:
// radix_histogram (per tile, per digit counts, stored digit-major), an
// exclusive scan of the counts (the scan kernels), and radix_scatter, which
// sorts each tile by the digit in shared memory and then writes each digit's
// run of the tile to consecutive places, keeping the order of equal digits
// (stable), so the passes from the lowest digit up sort the keys.
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

#define SORTABLE(T, U, suffix)                                                             \
    extern "C" __global__ void sortable_keys_##suffix(const T* in, u64 n, u32 descending,   \
                                                      U* out) {                             \
        for (u64 i = global_index(); i < n; i += global_stride()) {                         \
            U key = sortable(in[i]);                                                        \
            out[i] = descending != 0 ? static_cast<U>(~key) : key;                          \
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

// counts[digit * tiles + tile]: how many keys of tile `tile` have `digit`.
template <typename U>
__device__ __forceinline__ void histogram(const U* keys, u64 n, u64 tile, u32 shift, u32* counts) {
    __shared__ u32 local[kDigits];
    for (u32 d = threadIdx.x; d < kDigits; d += blockDim.x) local[d] = 0;
    __syncthreads();
    u64 begin = static_cast<u64>(blockIdx.x) * tile;
    u64 end = begin + tile < n ? begin + tile : n;
    for (u64 i = begin + threadIdx.x; i < end; i += blockDim.x) {
        atomicAdd(&local[static_cast<u32>(keys[i] >> shift) & 0xffu], 1u);
    }
    __syncthreads();
    for (u32 d = threadIdx.x; d < kDigits; d += blockDim.x) {
        counts[static_cast<u64>(d) * gridDim.x + blockIdx.x] = local[d];
    }
}

// Warps in a block, at most (1024 threads).
constexpr u32 kMaxWarps = 32;

// The most keys a tile of the scatter holds in shared memory (16 KiB of
// keys and their 32-bit rows).
template <typename U>
struct SortTile {
    static constexpr u32 kKeys = 16384 / sizeof(U);
};

// Moves tile `blockIdx.x`'s elements to their places: offsets[digit * tiles
// + tile] is where the tile's first element with `digit` goes (the
// exclusive scan of the histogram's counts, digit-major, so the next entry
// less this one is the tile's count of the digit; `n` less the last one).
// The tile (at most SortTile<U>::kKeys elements) is first sorted by the
// digit in shared memory, then written out in that order: each digit's
// keys of the tile go to consecutive places, so neighbouring threads write
// neighbouring addresses. The sort in shared memory takes the tile a
// block-sized chunk at a time; in a chunk, each warp finds the lanes that
// share a thread's digit with nine ballots (the digit's eight bits, and a
// ninth for lanes past the end), ranks the thread among the lower ones, and
// the warps' per-digit counts (in shared memory) order the warps, so equal
// digits keep their order (stable). The block size must be a multiple of
// 32: every lane takes part in the ballots.
template <typename U>
__device__ __forceinline__ void scatter_pass(const U* keys, const u32* rows, u64 n, u64 tile,
                                             u32 shift, const u64* offsets, U* keys_out,
                                             u32* rows_out) {
    constexpr u32 kTile = SortTile<U>::kKeys;
    __shared__ U tile_keys[kTile];
    __shared__ u32 tile_rows[kTile];
    // Where each digit goes in the output, and where its run starts in the
    // tile's shared copy; then how many of its keys are placed so far.
    __shared__ u64 out_start[kDigits];
    __shared__ u32 run_start[kDigits];
    __shared__ u32 placed[kDigits];
    // Lanes of each warp with each digit in the current chunk (the last
    // column counts lanes past the end); at most 32, so a byte each.
    __shared__ unsigned char warp_counts[kMaxWarps][kDigits + 1];
    const u32 lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const u32 warps = (blockDim.x + 31) / 32;
    const u64 tiles = gridDim.x;
    // A tile the shared copy cannot hold writes nothing (callers size tiles
    // by SortTile; a test's poisoned output shows a mistake).
    if (tile > kTile) return;
    for (u32 d = threadIdx.x; d < kDigits; d += blockDim.x) {
        const u64 at = static_cast<u64>(d) * tiles + blockIdx.x;
        out_start[d] = offsets[at];
        const u64 next = at + 1 < kDigits * tiles ? offsets[at + 1] : n;
        placed[d] = static_cast<u32>(next - offsets[at]);
    }
    for (u32 k = threadIdx.x; k < kMaxWarps * (kDigits + 1); k += blockDim.x) {
        warp_counts[k / (kDigits + 1)][k % (kDigits + 1)] = 0;
    }
    __syncthreads();
    // The runs' starts: an exclusive scan of the tile's counts by one warp,
    // eight digits a lane.
    if (warp == 0) {
        u32 counts[kDigits / 32];
        u32 sum = 0;
        for (u32 k = 0; k < kDigits / 32; ++k) {
            counts[k] = placed[lane * (kDigits / 32) + k];
            sum += counts[k];
        }
        u32 before = sum;
        for (int delta = 1; delta < 32; delta *= 2) {
            const u32 other = __shfl_up_sync(FULL_MASK, before, delta);
            if (lane >= static_cast<u32>(delta)) before += other;
        }
        before -= sum;
        for (u32 k = 0; k < kDigits / 32; ++k) {
            run_start[lane * (kDigits / 32) + k] = before;
            placed[lane * (kDigits / 32) + k] = 0;
            before += counts[k];
        }
    }
    __syncthreads();
    const u64 begin = static_cast<u64>(blockIdx.x) * tile;
    const u64 end = begin + tile < n ? begin + tile : n;
    for (u64 start = begin; start < end; start += blockDim.x) {
        const u64 i = start + threadIdx.x;
        const bool inside = i < end;
        const U key = inside ? keys[i] : U(0);
        const u32 digit = inside ? static_cast<u32>(key >> shift) & 0xffu : kDigits;
        u32 peers = 0xffffffffu;
        for (u32 bit = 0; bit < 9; ++bit) {
            const u32 set = (digit >> bit) & 1u;
            const u32 votes = __ballot_sync(0xffffffffu, set);
            peers &= set != 0 ? votes : ~votes;
        }
        const u32 below = peers & ((1u << lane) - 1u);
        if (below == 0) warp_counts[warp][digit] = static_cast<unsigned char>(__popc(peers));
        __syncthreads();
        if (inside) {
            u32 rank = static_cast<u32>(__popc(below));
            for (u32 w = 0; w < warp; ++w) rank += warp_counts[w][digit];
            const u32 slot = run_start[digit] + placed[digit] + rank;
            tile_keys[slot] = key;
            tile_rows[slot] = rows[i];
        }
        __syncthreads();
        for (u32 d = threadIdx.x; d <= kDigits; d += blockDim.x) {
            u32 total = 0;
            for (u32 w = 0; w < warps; ++w) {
                total += warp_counts[w][d];
                warp_counts[w][d] = 0;
            }
            if (d < kDigits) placed[d] += total;
        }
        __syncthreads();
    }
    // Out in the tile's sorted order: slot j of digit d's run goes j places
    // after the digit's start.
    for (u32 j = threadIdx.x; j < end - begin; j += blockDim.x) {
        const U key = tile_keys[j];
        const u32 digit = static_cast<u32>(key >> shift) & 0xffu;
        const u64 place = out_start[digit] + (j - run_start[digit]);
        keys_out[place] = key;
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

#define RADIX(U, suffix)                                                                    \
    extern "C" __global__ void radix_digit_counts_##suffix(const U* keys, u64 n, u32 passes, \
                                                           u32* counts) {                   \
        digit_counts<U>(keys, n, passes, counts);                                            \
    }                                                                                        \
    EMU_KERNEL(radix_digit_counts_##suffix)                                                  \
    extern "C" __global__ void radix_histogram_##suffix(const U* keys, u64 n, u64 tile,      \
                                                        u32 shift, u32* counts) {           \
        histogram<U>(keys, n, tile, shift, counts);                                          \
    }                                                                                        \
    EMU_KERNEL(radix_histogram_##suffix)                                                     \
    extern "C" __global__ void radix_scatter_##suffix(const U* keys, const u32* rows, u64 n, \
                                                      u64 tile, u32 shift,                   \
                                                      const u64* offsets, U* keys_out,       \
                                                      u32* rows_out) {                       \
        scatter_pass<U>(keys, rows, n, tile, shift, offsets, keys_out, rows_out);            \
    }                                                                                        \
    EMU_KERNEL(radix_scatter_##suffix)

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
// give 0; the sort places them by the validity.
extern "C" __global__ void string_key_chunk(const i64* offsets, const unsigned char* bytes,
                                            const u32* validity, u64 n, u64 chunk, u64* out) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        u64 word = 0;
        if (is_valid(validity, i)) {
            u64 start = static_cast<u64>(offsets[i]);
            u64 len = static_cast<u64>(offsets[i + 1]) - start;
            for (u64 b = 0; b < 8; ++b) {
                u64 at = chunk * 8 + b;
                word = (word << 8) | (at < len ? bytes[start + at] : 0u);
            }
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
