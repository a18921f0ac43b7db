// The types of PTO's communication ops (namespace pto::comm), with upstream's names and values: the
// parallel group a collective runs over, the signals TNOTIFY, TWAIT and TTEST work on, the engines,
// and the handles of asynchronous DMA operations with TPREFETCH_ASYNC's context (the enums that
// carry semantics, NotifyOp, WaitCmp and ReduceOp, are targets.yaml's, in pto_enums.hpp). On the CPU
// simulator every rank is a GlobalTensor of one process, and the simulator completes every
// asynchronous operation when it is issued, so waiting on an event succeeds at once.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../common/global_tensor.hpp"
#include "../common/sim_support.hpp"

namespace pto::comm {

enum class DmaEngine : std::uint8_t { SDMA = 0, URMA = 1, RDMA = 2 };

// One GlobalTensor per rank of a communication group (an array the caller owns), the group's size
// and the rank of the calling NPU (the root of a collective).
template <typename GlobalData>
struct ParallelGroup {
    using value_type = GlobalData;
    // Its tensors' element type and layout, which the profile checks compare with the op's other
    // tensors and tiles, as they compare a GlobalTensor's.
    using DType = typename GlobalData::DType;
    static constexpr Layout layout = GlobalData::layout;

    GlobalData* tensors{nullptr};
    int nranks{0};
    int rootIdx{-1};

    constexpr ParallelGroup() = default;
    constexpr ParallelGroup(GlobalData* tensorArray, int size, int root) : tensors(tensorArray), nranks(size), rootIdx(root) {}

    static constexpr ParallelGroup Create(GlobalData* tensorArray, int size, int rootIdx) {
        return ParallelGroup(tensorArray, size, rootIdx);
    }
    constexpr int GetRootIdx() const {
        return rootIdx;
    }
    constexpr int GetSize() const {
        return nranks;
    }
    constexpr bool empty() const {
        return nranks == 0;
    }
    GlobalData& operator[](int teamRank) {
        sim::check(teamRank >= 0 && teamRank < nranks, "ParallelGroup", "the rank is outside the group");
        return tensors[teamRank];
    }
    const GlobalData& operator[](int teamRank) const {
        sim::check(teamRank >= 0 && teamRank < nranks, "ParallelGroup", "the rank is outside the group");
        return tensors[teamRank];
    }
};

template <typename T>
struct ParallelGroupTraits {
    static_assert(std::is_same_v<T, void>, "ParallelGroupTraits: T must be ParallelGroup<GlobalData>");
};

template <typename GlobalData>
struct ParallelGroupTraits<ParallelGroup<GlobalData>> {
    using GlobalDataType = GlobalData;
};

template <typename T>
inline constexpr bool is_parallel_group_v = false;
template <typename GlobalData>
inline constexpr bool is_parallel_group_v<ParallelGroup<GlobalData>> = true;

// The engine a collective runs on: the vector cores (tile staging) or the CCU (A5 only).
enum class CollEngine : std::uint8_t { AIV = 0, CCU = 1 };

enum class CcuInputSource : std::uint8_t { HostManaged = 0, AivStored = 1 };

// What a collective's CCU form needs to trigger the CCU (its first trailing argument).
struct CcuTriggerContext {
    std::uint64_t ckeSlotVA{0};
    std::uint32_t mask{0};
    std::uint32_t selfIdx{0};
    CcuInputSource inputSource{CcuInputSource::HostManaged};
};

// One 32-bit signal in global memory.
using Signal = GlobalTensor<int32_t, Shape<1, 1, 1, 1, 1>, Stride<1, 1, 1, 1, 1>, Layout::ND>;

template <typename Element_, typename Shape_, typename Stride_, Layout Layout_ = Layout::ND>
using GlobalSignal = GlobalTensor<Element_, Shape_, Stride_, Layout_>;

// A Rows x Cols matrix of signals, its rows `stride` elements apart (Cols by default): TWAIT and
// TTEST hold only when every signal of it satisfies the comparison.
template <int Rows, int Cols>
struct Signal2D : public GlobalTensor<int32_t, Shape<1, 1, 1, Rows, Cols>, Stride<1, 1, 1, DYNAMIC, 1>, Layout::ND> {
private:
    using Base = GlobalTensor<int32_t, Shape<1, 1, 1, Rows, Cols>, Stride<1, 1, 1, DYNAMIC, 1>, Layout::ND>;

public:
    explicit Signal2D(int32_t* ptr) : Base(ptr, typename Base::Shape{}, typename Base::Stride{Cols}) {}
    Signal2D(int32_t* ptr, int stride) : Base(ptr, typename Base::Shape{}, typename Base::Stride{stride}) {}
};

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
