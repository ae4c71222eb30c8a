// Shared definitions of the kernel sources: fixed-width types and what differs between nvcc and the host build.
#pragma once

#ifdef __CUDACC__
#include <cstdint>
#define DYNAMIC_SHARED(type, name) extern __shared__ type name[]
#define EMU_KERNEL(name)
#else
#define DYNAMIC_SHARED(type, name) type* name = reinterpret_cast<type*>(emu::dynamic_shared())
#endif

typedef unsigned long long u64;
typedef long long i64;
typedef unsigned int u32;
typedef int i32;

// The global index of the calling thread in a one-dimensional launch.
__device__ __forceinline__ u64 global_index() {
    return static_cast<u64>(blockIdx.x) * blockDim.x + threadIdx.x;
}

// The number of threads of a one-dimensional launch, for grid-stride loops.
__device__ __forceinline__ u64 global_stride() {
    return static_cast<u64>(gridDim.x) * blockDim.x;
}
