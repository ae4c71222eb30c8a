// A kernel that faults on purpose: it writes through an address no
// allocation holds, so that a GPU stops it with CUDA_ERROR_ILLEGAL_ADDRESS,
// an error the context keeps (a sticky one). For the tests of what a device
// fault costs; the runtime never launches it on the emulated device, where
// the write would land in host memory.
#include "kernel_common.cuh"

extern "C" __global__ void fault_write_unmapped(u64 address) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        *reinterpret_cast<volatile u64*>(address) = 1;
    }
}
EMU_KERNEL(fault_write_unmapped)
