// Partition hashes: each row's keys mixed into one 64-bit hash, equal for
// equal keys whatever frame the rows are in, so that the partitioned
// executor sends every row of a key, from every partition, to one bucket.
//
// A hash starts at zero and takes one key after the other (a column's
// 64-bit words, or texts by their bytes); a null key is a word of its own.
// Keys that group together must come as equal words (floats as their
// total-order keys, small integers widened); different keys may share a
// bucket.
#include "kernel_common.cuh"

constexpr u64 NULL_KEY = 0x9e3779b97f4a7c15ull;

// `hash` with one more key's hash mixed in (the order of the keys counts).
__device__ __forceinline__ u64 mix_key(u64 hash, u64 key_hash) {
    return hash64(hash ^ (key_hash + NULL_KEY + (hash << 6) + (hash >> 2)));
}

// hashes[i] with row i's word mixed in.
extern "C" __global__ void partition_mix_words(const u64* words, const u32* validity, u64 n,
                                               u64* hashes) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        u64 key = is_valid(validity, i) ? hash64(words[i]) : NULL_KEY;
        hashes[i] = mix_key(hashes[i], key);
    }
}
EMU_KERNEL(partition_mix_words)

// hashes[i] with row i's text mixed in (FNV-1a over its bytes, then its length).
extern "C" __global__ void partition_mix_strings(const i64* offsets, const unsigned char* bytes,
                                                 const u32* validity, u64 n, u64* hashes) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        u64 key = NULL_KEY;
        if (is_valid(validity, i)) {
            u64 fnv = 0xcbf29ce484222325ull;
            for (i64 at = offsets[i]; at < offsets[i + 1]; ++at) {
                fnv = (fnv ^ bytes[at]) * 0x100000001b3ull;
            }
            key = hash64(fnv ^ static_cast<u64>(offsets[i + 1] - offsets[i]));
        }
        hashes[i] = mix_key(hashes[i], key);
    }
}
EMU_KERNEL(partition_mix_strings)

// Each row's bucket: its hash modulo `buckets`.
extern "C" __global__ void partition_buckets(const u64* hashes, u64 n, u32 buckets, u32* out) {
    for (u64 i = global_index(); i < n; i += global_stride()) {
        out[i] = static_cast<u32>(hashes[i] % buckets);
    }
}
EMU_KERNEL(partition_buckets)
