// The emulated device's block scheduler: CUDA threads as fibers, blocks on host threads.
//
// A launch runs its blocks on a few host threads (blocks taken in order from
// a shared counter). On each host thread, a block's CUDA threads are fibers
// with small stacks, switched by a hand-written context switch (no system
// call per switch, unlike swapcontext). A fiber runs until it waits at a
// barrier or finishes, then switches straight to the next unfinished fiber in
// turn; control returns to the host thread's scheduler only when the block is
// done. A full turn over the fibers in which none arrives anywhere nor
// finishes is a deadlock (threads that exit while others wait at
// __syncthreads), reported as a launch error.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#if !defined(__x86_64__)
#error "the emulated device's fiber switch is written for x86-64 only"
#endif

// Saves the callee-saved registers on the current stack, stores the stack
// pointer in *save, loads `load` as the stack pointer and restores its registers.
extern "C" void emu_switch(void** save, void* load);
asm(R"(
    .text
    .p2align 4
    .globl emu_switch
    .type emu_switch, @function
emu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size emu_switch, .-emu_switch
)");

namespace emu {

thread_local ThreadState* current_thread = nullptr;
thread_local BlockState* current_block = nullptr;

namespace {

constexpr std::size_t kStackBytes = 32 * 1024;
constexpr unsigned kWarp = 32;

struct Fiber {
    void* sp = nullptr;
    ThreadState state{};
    bool finished = false;
};

struct LaunchFailure {
    std::string message;
};

// One per host thread: the fibers and stacks it reuses across blocks.
struct Executor {
    void* scheduler_sp = nullptr;
    std::vector<Fiber> fibers;
    std::vector<char> stacks;
    std::vector<char> shared;
    BlockState block{};
    Fiber* running = nullptr;
    Body body = nullptr;
    void* kernel = nullptr;
    void** params = nullptr;
    unsigned threads = 0;
    // Barrier state: arrivals and generation, for the block and each warp.
    unsigned block_arrivals = 0;
    unsigned block_generation = 0;
    std::vector<unsigned> warp_arrivals;
    std::vector<unsigned> warp_generation;
    std::vector<std::uint64_t> warp_slots;
    // Bumped whenever a fiber arrives at a barrier or finishes; compared at
    // every turn over the fibers to detect deadlocks.
    std::uint64_t progress = 0;
    std::uint64_t progress_at_turn = 0;
    unsigned current = 0;
    bool failed = false;
    std::string failure;
};

thread_local Executor* executor = nullptr;

// Switches from the running fiber to the next unfinished one, or to the
// scheduler when none is left or a whole turn made no progress.
void switch_to_next() {
    Executor* e = executor;
    Fiber* from = e->running;
    for (unsigned step = 1; step <= e->threads; ++step) {
        unsigned next = (e->current + step) % e->threads;
        if (next == 0) {
            if (e->progress == e->progress_at_turn) {
                e->failed = true;
                if (e->failure.empty()) {
                    e->failure =
                        "deadlock: threads of a block wait at a barrier that other threads of "
                        "the block never reach";
                }
                break;
            }
            e->progress_at_turn = e->progress;
        }
        Fiber& candidate = e->fibers[next];
        if (!candidate.finished) {
            e->current = next;
            e->running = &candidate;
            current_thread = &candidate.state;
            emu_switch(&from->sp, candidate.sp);
            return;
        }
    }
    emu_switch(&from->sp, e->scheduler_sp);
}

[[noreturn]] void fiber_entry() {
    Executor* e = executor;
    e->body(e->kernel, e->params);
    e->running->finished = true;
    e->progress++;
    switch_to_next();
    std::abort();  // a finished fiber is never resumed
}

// Prepares a fiber's stack so that switching to it starts fiber_entry.
void* initial_stack(char* stack, std::size_t bytes) {
    auto top = reinterpret_cast<std::uintptr_t>(stack + bytes) & ~std::uintptr_t(15);
    auto* slots = reinterpret_cast<void**>(top);
    slots[-1] = nullptr;                                       // fake return address
    slots[-2] = reinterpret_cast<void*>(&fiber_entry);         // where `ret` goes
    for (int i = 3; i <= 8; ++i) slots[-i] = nullptr;          // rbp rbx r12-r15
    return &slots[-8];
}

unsigned warp_size_of(const Executor& e, unsigned warp) {
    return std::min(kWarp, e.threads - warp * kWarp);
}

// Waits until every thread of the group has arrived (block or one warp).
void barrier(unsigned& arrivals, unsigned& generation, unsigned group_size) {
    Executor* e = executor;
    unsigned waiting_for = generation;
    e->progress++;
    if (++arrivals == group_size) {
        arrivals = 0;
        generation++;
        return;
    }
    while (generation == waiting_for) {
        switch_to_next();
    }
}

void run_block(Executor& e, const LaunchConfig& config, std::uint32_t linear_block) {
    std::uint32_t gx = config.grid[0], gy = config.grid[1];
    e.block.block_idx = {linear_block % gx, (linear_block / gx) % gy, linear_block / (gx * gy)};
    e.block.block_dim = {config.block[0], config.block[1], config.block[2]};
    e.block.grid_dim = {config.grid[0], config.grid[1], config.grid[2]};
    e.block.dynamic_shared = e.shared.data();
    current_block = &e.block;
    unsigned bx = config.block[0], by = config.block[1];
    for (unsigned i = 0; i < e.threads; ++i) {
        Fiber& f = e.fibers[i];
        f.state.thread_idx = {i % bx, (i / bx) % by, i / (bx * by)};
        f.state.lane = i % kWarp;
        f.state.warp = i / kWarp;
        f.finished = false;
        f.sp = initial_stack(e.stacks.data() + i * kStackBytes, kStackBytes);
    }
    e.block_arrivals = 0;
    std::fill(e.warp_arrivals.begin(), e.warp_arrivals.end(), 0u);
    e.failed = false;
    e.current = 0;
    e.progress_at_turn = e.progress;
    e.running = &e.fibers[0];
    current_thread = &e.fibers[0].state;
    emu_switch(&e.scheduler_sp, e.fibers[0].sp);
    current_thread = nullptr;
}

}  // namespace

void syncthreads() {
    Executor* e = executor;
    barrier(e->block_arrivals, e->block_generation, e->threads);
}

void syncwarp() {
    Executor* e = executor;
    unsigned warp = current_thread->warp;
    barrier(e->warp_arrivals[warp], e->warp_generation[warp], warp_size_of(*e, warp));
}

std::uint64_t warp_exchange(std::uint64_t value, int source) {
    Executor* e = executor;
    unsigned warp = current_thread->warp;
    std::uint64_t* slots = e->warp_slots.data() + warp * kWarp;
    slots[current_thread->lane] = value;
    syncwarp();
    unsigned size = warp_size_of(*e, warp);
    std::uint64_t out =
        (source >= 0 && static_cast<unsigned>(source) < size) ? slots[source] : value;
    syncwarp();
    return out;
}

unsigned int warp_ballot(bool predicate) {
    Executor* e = executor;
    unsigned warp = current_thread->warp;
    std::uint64_t* slots = e->warp_slots.data() + warp * kWarp;
    slots[current_thread->lane] = predicate ? 1 : 0;
    syncwarp();
    unsigned int votes = 0;
    for (unsigned lane = 0; lane < warp_size_of(*e, warp); ++lane) {
        votes |= static_cast<unsigned int>(slots[lane]) << lane;
    }
    syncwarp();
    return votes;
}

void fail(const char* message) {
    Executor* e = executor;
    e->failed = true;
    e->failure = message;
    // Back to the scheduler for good: the block, and the launch, stop here.
    emu_switch(&e->running->sp, e->scheduler_sp);
    std::abort();
}

char* dynamic_shared() { return current_block->dynamic_shared; }

void spin_wait() { std::this_thread::yield(); }

int launch(Body body, void* kernel, const LaunchConfig* config, void** params, char* error,
           std::size_t error_len) {
    auto report = [&](const std::string& message) {
        if (error != nullptr && error_len > 0) {
            std::snprintf(error, error_len, "%s", message.c_str());
        }
        return 1;
    };
    std::uint64_t threads = std::uint64_t(config->block[0]) * config->block[1] * config->block[2];
    std::uint64_t blocks = std::uint64_t(config->grid[0]) * config->grid[1] * config->grid[2];
    if (threads == 0 || threads > 1024) {
        return report("a block must have 1 to 1024 threads");
    }
    if (blocks == 0) return 0;
    if (blocks > 0xffffffffull) return report("too many blocks");
    unsigned workers = config->host_threads != 0 ? config->host_threads
                                                 : std::max(1u, std::thread::hardware_concurrency());
    workers = static_cast<unsigned>(std::min<std::uint64_t>(workers, blocks));
    std::atomic<std::uint64_t> next_block{0};
    std::atomic<bool> failed{false};
    std::string failure;
    std::atomic_flag failure_lock = ATOMIC_FLAG_INIT;
    auto work = [&]() {
        Executor e;
        e.threads = static_cast<unsigned>(threads);
        e.fibers.resize(threads);
        e.stacks.resize(threads * kStackBytes);
        e.shared.resize(std::max<std::uint32_t>(config->shared_bytes, 16));
        unsigned warps = static_cast<unsigned>((threads + kWarp - 1) / kWarp);
        e.warp_arrivals.assign(warps, 0);
        e.warp_generation.assign(warps, 0);
        e.warp_slots.assign(warps * kWarp, 0);
        e.body = body;
        e.kernel = kernel;
        e.params = params;
        executor = &e;
        for (;;) {
            if (failed.load()) break;
            std::uint64_t block = next_block.fetch_add(1);
            if (block >= blocks) break;
            run_block(e, *config, static_cast<std::uint32_t>(block));
            if (e.failed) {
                if (!failed.exchange(true)) {
                    while (failure_lock.test_and_set()) {
                    }
                    failure = e.failure;
                    failure_lock.clear();
                }
                break;
            }
        }
        executor = nullptr;
        current_block = nullptr;
    };
    if (workers == 1) {
        work();
    } else {
        std::vector<std::thread> pool;
        pool.reserve(workers);
        for (unsigned i = 0; i < workers; ++i) pool.emplace_back(work);
        for (auto& t : pool) t.join();
    }
    if (failed.load()) return report(failure);
    return 0;
}

}  // namespace emu
