// Host emulation of CUDA's device-side API, for the emulated device (host build only).
//
// The kernel sources compile unchanged as C++ with this header forced in
// (`-include emu/cuda_emu.h`). Each CUDA thread of a block is a fiber on one
// host thread: `__syncthreads()` is a real barrier (a fiber waits until every
// thread of its block arrives), warp shuffles and votes exchange values
// between the 32 fibers of a warp, and atomics are host atomics, since blocks
// run in parallel on several host threads. What is not here (textures,
// cooperative groups, partial-mask warp operations, ...) fails to compile or
// fails the launch with a message: the emulator never silently diverges.
#pragma once

#ifdef __CUDACC__
#error "cuda_emu.h is the host emulation; nvcc builds use CUDA's own headers"
#endif

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

// CUDA's device math functions, from the host's C library.
using std::fabs;
using std::ceil;
using std::floor;
using std::isfinite;
using std::rint;
using std::round;
using std::sqrt;
using std::trunc;

struct uint3 {
    unsigned int x, y, z;
};

struct dim3 {
    unsigned int x, y, z;
};

namespace emu {

// The state of the running CUDA thread and block, set by the scheduler.
struct ThreadState {
    uint3 thread_idx;
    unsigned int lane;
    unsigned int warp;
};

struct BlockState {
    uint3 block_idx;
    dim3 block_dim;
    dim3 grid_dim;
    char* dynamic_shared;
};

extern thread_local ThreadState* current_thread;
extern thread_local BlockState* current_block;

void syncthreads();
void syncwarp();
// Exchanges `value` between the lanes of the calling warp: returns the value
// lane `source` put in (its own value when `source` is out of range).
std::uint64_t warp_exchange(std::uint64_t value, int source);
// The vote of each lane of the calling warp, bit per lane.
unsigned int warp_ballot(bool predicate);
// Fails the launch with `message` (a kernel used something unsupported).
[[noreturn]] void fail(const char* message);
char* dynamic_shared();
// Gives up the host thread for a moment: a kernel waiting for another block
// (which runs on another host thread) lets that block have the core.
void spin_wait();

inline void check_full_mask(unsigned int mask) {
    if (mask != 0xffffffffu) {
        fail("warp operations with partial masks are not supported by the emulator");
    }
}

template <typename T>
T shuffle_from(T value, int source) {
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
                  "warp shuffles move values of at most 8 bytes");
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    bits = warp_exchange(bits, source);
    T out;
    std::memcpy(&out, &bits, sizeof(T));
    return out;
}

}  // namespace emu

#define threadIdx (emu::current_thread->thread_idx)
#define blockIdx (emu::current_block->block_idx)
#define blockDim (emu::current_block->block_dim)
#define gridDim (emu::current_block->grid_dim)
#define warpSize 32

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __restrict__ __restrict
// Shared memory is per block; a block runs on one host thread at a time.
#define __shared__ static thread_local

#define __syncthreads() emu::syncthreads()
#define __syncwarp(...) emu::syncwarp()
#define __threadfence() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define __threadfence_block() __atomic_thread_fence(__ATOMIC_SEQ_CST)

template <typename T>
inline T __shfl_sync(unsigned int mask, T value, int source, int width = 32) {
    emu::check_full_mask(mask);
    int lane = static_cast<int>(emu::current_thread->lane);
    int base = lane - lane % width;
    return emu::shuffle_from(value, base + (source % width + width) % width);
}

template <typename T>
inline T __shfl_down_sync(unsigned int mask, T value, unsigned int delta, int width = 32) {
    emu::check_full_mask(mask);
    int lane = static_cast<int>(emu::current_thread->lane);
    int source = lane + static_cast<int>(delta);
    bool inside = (lane % width) + static_cast<int>(delta) < width;
    T out = emu::shuffle_from(value, inside ? source : lane);
    return out;
}

template <typename T>
inline T __shfl_up_sync(unsigned int mask, T value, unsigned int delta, int width = 32) {
    emu::check_full_mask(mask);
    int lane = static_cast<int>(emu::current_thread->lane);
    bool inside = (lane % width) >= static_cast<int>(delta);
    return emu::shuffle_from(value, inside ? lane - static_cast<int>(delta) : lane);
}

template <typename T>
inline T __shfl_xor_sync(unsigned int mask, T value, int lane_mask, int width = 32) {
    emu::check_full_mask(mask);
    int lane = static_cast<int>(emu::current_thread->lane);
    int source = lane ^ lane_mask;
    bool inside = source / width == lane / width;
    return emu::shuffle_from(value, inside ? source : lane);
}

inline unsigned int __ballot_sync(unsigned int mask, int predicate) {
    emu::check_full_mask(mask);
    return emu::warp_ballot(predicate != 0);
}

inline int __any_sync(unsigned int mask, int predicate) {
    return __ballot_sync(mask, predicate) != 0;
}

inline int __all_sync(unsigned int mask, int predicate) {
    emu::check_full_mask(mask);
    unsigned int votes = emu::warp_ballot(predicate != 0);
    return votes == emu::warp_ballot(true);
}

inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned int>(x)); }
inline int __clzll(long long x) {
    return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x));
}
inline int __ffs(int x) { return __builtin_ffs(x); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
}
inline double __longlong_as_double(long long bits) {
    double value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}
inline float __int_as_float(int bits) {
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}
inline int __ffsll(long long x) { return __builtin_ffsll(x); }

// Atomics: host atomics, since blocks run on several host threads.
template <typename T>
inline T emu_atomic_update(T* address, T (*update)(T, T), T operand) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "atomics on 32- and 64-bit values");
    using Bits = typename std::conditional<sizeof(T) == 4, std::uint32_t, std::uint64_t>::type;
    Bits* bits = reinterpret_cast<Bits*>(address);
    Bits expected = __atomic_load_n(bits, __ATOMIC_RELAXED);
    for (;;) {
        T old;
        std::memcpy(&old, &expected, sizeof(T));
        T next = update(old, operand);
        Bits desired;
        std::memcpy(&desired, &next, sizeof(T));
        if (__atomic_compare_exchange_n(bits, &expected, desired, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_RELAXED)) {
            return old;
        }
    }
}

template <typename T>
inline T atomicAdd(T* address, T value) {
    return emu_atomic_update<T>(address, [](T a, T b) { return static_cast<T>(a + b); }, value);
}

template <typename T>
inline T atomicSub(T* address, T value) {
    return emu_atomic_update<T>(address, [](T a, T b) { return static_cast<T>(a - b); }, value);
}

template <typename T>
inline T atomicMin(T* address, T value) {
    return emu_atomic_update<T>(address, [](T a, T b) { return b < a ? b : a; }, value);
}

template <typename T>
inline T atomicMax(T* address, T value) {
    return emu_atomic_update<T>(address, [](T a, T b) { return b > a ? b : a; }, value);
}

template <typename T>
inline T atomicExch(T* address, T value) {
    return emu_atomic_update<T>(address, [](T, T b) { return b; }, value);
}

template <typename T>
inline T atomicOr(T* address, T value) {
    return emu_atomic_update<T>(address, [](T a, T b) { return static_cast<T>(a | b); }, value);
}

template <typename T>
inline T atomicAnd(T* address, T value) {
    return emu_atomic_update<T>(address, [](T a, T b) { return static_cast<T>(a & b); }, value);
}

template <typename T>
inline T atomicCAS(T* address, T compare, T value) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "atomics on 32- and 64-bit values");
    T expected = compare;
    __atomic_compare_exchange(address, &expected, &value, false, __ATOMIC_SEQ_CST,
                              __ATOMIC_SEQ_CST);
    return expected;
}

// The exported entry of a kernel: `EMU_KERNEL(name)` after its definition.
namespace emu {

struct LaunchConfig {
    std::uint32_t grid[3];
    std::uint32_t block[3];
    std::uint32_t shared_bytes;
    std::uint32_t host_threads;
};

using Body = void (*)(void* kernel, void** params);

int launch(Body body, void* kernel, const LaunchConfig* config, void** params, char* error,
           std::size_t error_len);

template <typename... Args, std::size_t... I>
void call_with(void (*kernel)(Args...), void** params, std::index_sequence<I...>) {
    kernel(*static_cast<typename std::remove_reference<Args>::type*>(params[I])...);
}

template <typename... Args>
void invoke(void* kernel, void** params) {
    auto typed = reinterpret_cast<void (*)(Args...)>(kernel);
    call_with(typed, params, std::index_sequence_for<Args...>{});
}

template <typename... Args>
Body body_for(void (*)(Args...)) {
    return &invoke<Args...>;
}

}  // namespace emu

#define EMU_KERNEL(name)                                                                   \
    extern "C" int emu_kernel_##name(const emu::LaunchConfig* config, void** params,      \
                                     char* error, std::size_t error_len) {                 \
        return emu::launch(emu::body_for(&name), reinterpret_cast<void*>(&name), config,   \
                           params, error, error_len);                                      \
    }
