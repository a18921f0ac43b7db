// Handles of PTO's asynchronous DMA operations (namespace pto::comm), as far as the CPU simulator
// and code written for upstream's simulator use them: the engine, the session a kernel waits in,
// the event an asynchronous op returns, and TPREFETCH_ASYNC's context. The simulator completes
// every asynchronous operation when it is issued, so waiting on an event succeeds at once.
#pragma once

#include <cstdint>

namespace pto::comm {

enum class DmaEngine : std::uint8_t { SDMA = 0, URMA = 1, RDMA = 2 };

// The state a kernel issues asynchronous operations and waits in (workspaces and queues on a
// device; nothing on the host).
struct AsyncSession {
    DmaEngine engine{DmaEngine::SDMA};
    bool valid{false};
};

// Completion handle of an asynchronous operation. A handle of 0 names no operation in flight.
struct AsyncEvent {
    std::uint64_t handle{0};
    DmaEngine engine{DmaEngine::SDMA};

    constexpr AsyncEvent() = default;
    constexpr AsyncEvent(std::uint64_t h, DmaEngine e) : handle(h), engine(e) {}
    constexpr bool valid() const {
        return handle != 0;
    }
    // Waits for the operation (and every earlier one of the session); true when it completed.
    bool Wait(const AsyncSession&) const {
        return true;
    }
    // Whether the operation has completed, without waiting.
    bool Test(const AsyncSession&) const {
        return true;
    }
};

} // namespace pto::comm

namespace pto {

// TPREFETCH_ASYNC's compute-side context: the SDMA workspace prepared by the host and the session
// the prefetch is issued in (its own, or an external one shared with other asynchronous ops).
struct PrefetchAsyncContext {
    std::uint8_t* workspace{nullptr};
    comm::AsyncSession session{};
    comm::AsyncSession* externalSession{nullptr};

    constexpr PrefetchAsyncContext() = default;
    constexpr explicit PrefetchAsyncContext(std::uint8_t* workspace_, comm::AsyncSession* external = nullptr)
        : workspace(workspace_), externalSession(external) {}

    comm::AsyncSession& GetSession() {
        return externalSession != nullptr ? *externalSession : session;
    }
    const comm::AsyncSession& GetSession() const {
        return externalSession != nullptr ? *externalSession : session;
    }
};

} // namespace pto
