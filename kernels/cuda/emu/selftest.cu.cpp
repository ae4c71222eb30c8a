// Kernels that check the emulator itself (host build only, never compiled to PTX).
#include "kernel_common.cuh"

// Half the block returns before a barrier the other half waits at: a deadlock.
extern "C" __global__ void selftest_deadlock(u32* out) {
    if (threadIdx.x % 2 == 0) return;
    __syncthreads();
    out[threadIdx.x] = 1;
}
EMU_KERNEL(selftest_deadlock)

// A warp vote with a partial mask, which the emulator does not support.
extern "C" __global__ void selftest_partial_mask(u32* out) {
    out[threadIdx.x] = __ballot_sync(0x0000ffffu, 1);
}
EMU_KERNEL(selftest_partial_mask)

// Every lane's value from lane (lane + 1) % 32, and the block's barrier
// ordering: thread t writes, all sync, thread t reads thread (t + 1)'s write.
extern "C" __global__ void selftest_exchange(u32* out) {
    __shared__ u32 written[1024];
    u32 lane = threadIdx.x % 32;
    u32 from_next = __shfl_sync(FULL_MASK, threadIdx.x * 10, (lane + 1) % 32);
    written[threadIdx.x] = threadIdx.x;
    __syncthreads();
    u32 neighbour = written[(threadIdx.x + 1) % blockDim.x];
    u32 votes = __popc(__ballot_sync(FULL_MASK, lane % 3 == 0));
    out[global_index()] = from_next + neighbour * 100000 + votes * 100000000u;
}
EMU_KERNEL(selftest_exchange)
