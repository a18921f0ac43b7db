// The pipes between a cube core and its vector cores (TPUSH, TPOP, TFREE, TALLOC) as the CPU
// simulator runs them, each simulated core on its own thread (execution_context.hpp).
//
// A pipe (TPipe<FlagID, DirType, SlotSize, SlotNum, LocalSlotNum, IsNoSplit, EN_UNIT_FLAG>) is a ring
// of SlotNum slots that every TPipe object of the same parameters shares, whichever core holds it. A
// producer waits for the slot at its cursor to be free, writes its tile into it and publishes it; a
// consumer waits for the next published slot of its direction, reads it, and frees it once every
// consumer the slot has was done with it. In a slot a tile is a row-major matrix: the whole tile a
// cube core pushes, the halves the two vector cores read (TileSplitAxis), or the halves two vector
// cores push and the cube core reads whole. The slots live in the pipe's GM buffer when it has one
// (and a GlobalTensor may then be bound to a slot: TALLOC, TPOP's GM form), else in the shared state.
//
// A wait that nothing ends (a pop no producer serves, a push into a full ring nobody drains) is a
// deadlock on a device; here it stops after PTO_CPU_SIM_PIPE_MAX_WAIT_MS milliseconds (10000 unless
// the macro or the environment variable of that name says otherwise; 0 waits for ever) with the
// pipe, the core, the op and its call site.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <thread>
#include <type_traits>

#include <pto/common/check_core.hpp>
#include <pto/common/fifo.hpp>
#include <pto/common/fixpipe.hpp>
#include <pto/common/global_tensor.hpp>
#include <pto/common/tile.hpp>
#include <pto/cpu/execution_context.hpp>
#include <pto/cpu/sim_quant.hpp>
#include <pto/cpu/sim_scalar_quant.hpp>
#include <pto/cpu/tile_offsets.hpp>

#ifndef PTO_CPU_SIM_PIPE_MAX_WAIT_MS
#define PTO_CPU_SIM_PIPE_MAX_WAIT_MS 10000
#endif

namespace pto::sim::pipe {

// Which way a published slot goes (None: free, or still being written).
enum class Flow : std::uint8_t { None = 0, C2V = 1, V2C = 2 };

inline std::uint64_t max_wait_ms() {
    const char* text = std::getenv("PTO_CPU_SIM_PIPE_MAX_WAIT_MS");
    if (text != nullptr && *text != '\0') {
        char* end = nullptr;
        const unsigned long long n = std::strtoull(text, &end, 10);
        if (end != text && *end == '\0')
            return n;
    }
    return PTO_CPU_SIM_PIPE_MAX_WAIT_MS;
}

// The fix-pipe's quantisation registers of the calling core: the scalar word SET_QUANT_SCALAR
// writes, and the parameter tile (one 64-bit word per column) SET_QUANT_VECTOR names.
struct QuantRegisters {
    std::uint64_t scalar = 0;
    const std::uint64_t* vector = nullptr;
};
inline QuantRegisters& quant_registers() {
    static thread_local QuantRegisters registers;
    return registers;
}

template <typename T>
constexpr bool is_global = is_global_data_v<std::remove_cvref_t<T>>;

// A cube producer's tile (Acc or Mat) goes cube to vector; a Vec tile vector to cube.
template <typename TileT>
constexpr bool on_cube() {
    if constexpr (is_global<TileT>)
        return false;
    else
        return TileT::Loc != TileType::Vec;
}

template <TileSplitAxis Split>
constexpr bool split() {
    return Split != TileSplitAxis::TILE_NO_SPLIT;
}

// The element a cube-to-vector push writes: converted, quantised and rectified as TConfig says.
template <typename D, typename S, QuantMode_t Mode, bool Relu>
D fixpipe_element(S x, std::uint64_t q) {
    using sim::ScalarQuant;
    using sim::VectorQuant;
    if constexpr (Mode == QuantMode_t::NoQuant) {
        if constexpr (Relu)
            x = x > S(0) ? x : S(0);
        return static_cast<D>(x);
    } else if constexpr (Mode == QuantMode_t::VDEQF16)
        return sim::vector_quantise<D, S, VectorQuant::Int32ToHalf>(x, q, Relu);
    else if constexpr (Mode == QuantMode_t::VQF322B8_PRE || Mode == QuantMode_t::VREQ8)
        return sim::vector_quantise<D, S, VectorQuant::ToByte>(x, q, Relu);
    else if constexpr (Mode == QuantMode_t::QF322B8_PRE || Mode == QuantMode_t::REQ8)
        return sim::scalar_quantise<D, S, ScalarQuant::FloatToByte>(x, q, Relu);
    else if constexpr (Mode == QuantMode_t::DEQF16)
        return sim::scalar_quantise<D, S, ScalarQuant::Int32ToHalf>(x, q, Relu);
    else if constexpr (Mode == QuantMode_t::QF322F16_PRE)
        return sim::scalar_quantise<D, S, ScalarQuant::FloatToHalf>(x, q, Relu);
    else if constexpr (Mode == QuantMode_t::QF322BF16_PRE || Mode == QuantMode_t::F322BF16)
        return sim::scalar_quantise<D, S, ScalarQuant::FloatToBf16>(x, q, Relu);
    else if constexpr (Mode == QuantMode_t::SHIFTS322S16 || Mode == QuantMode_t::VSHIFTS322S16)
        return sim::scalar_quantise<D, S, ScalarQuant::Int32ToInt16>(x, q, Relu);
    else
        return sim::scalar_quantise<D, S, ScalarQuant::None>(x, q, Relu);  // scaled, not clamped
}

// The quantisation word of column c: the vector register's c-th word, else the scalar register (a
// scalar never set scales by 1.0, as upstream's simulator assumes).
template <QuantMode_t Mode>
std::uint64_t quant_word(std::size_t c) {
    const QuantRegisters& q = quant_registers();
    if constexpr (is_vector_quant_v<Mode>) {
        check(q.vector != nullptr, "TPUSH", "a vector quantisation mode needs SET_QUANT_VECTOR first");
        return q.vector[c];
    } else {
        if (q.scalar != 0)
            return q.scalar;
        const float one = 1.0f;
        std::uint32_t bits;
        std::memcpy(&bits, &one, sizeof bits);
        return bits;
    }
}

}  // namespace pto::sim::pipe

namespace pto {

template <std::uint8_t FlagID, std::uint8_t DirType, std::uint32_t SlotSize, std::uint32_t SlotNum,
          std::uint32_t LocalSlotNum = 2, bool IsNoSplit = false, bool EN_UNIT_FLAG = false>
struct TPipe {
    static constexpr std::uint8_t DIR_MASK = 0x7;
    static constexpr std::uint8_t DIR_TYPE = DIR_MASK & DirType;
    static constexpr bool is_c2v = (DIR_TYPE & Direction::DIR_C2V) == Direction::DIR_C2V;
    static constexpr bool is_v2c = (DIR_TYPE & Direction::DIR_V2C) == Direction::DIR_V2C;
    static constexpr bool is_v2c_ctrl = (DIR_TYPE & Direction::DIR_V2C_CTRL) == Direction::DIR_V2C_CTRL;
    static constexpr bool is_no_split = IsNoSplit;
    static constexpr std::uint8_t VEC_CORE_ID_OFFSET = 16;
    using RingFiFo = RingFIFO<SlotSize, SlotNum, LocalSlotNum>;
    // A cube-to-vector slot holds the whole tile the cube pushes, which two vector cores read half each.
    static constexpr std::uint32_t LOCAL_SPLIT_COPIES = is_c2v ? 2u : 1u;
    static constexpr std::uint32_t LOCAL_SLOT_STORAGE_SIZE = SlotSize * LOCAL_SPLIT_COPIES;
    static_assert(SlotNum > 0, "TPipe: a pipe has at least one slot (SlotNum > 0)");
    static_assert(SlotSize > 0, "TPipe: a slot has at least one byte (SlotSize > 0)");

    // What the producers and consumers of the pipe share; the field names are upstream's where its
    // tests read them.
    struct SharedState {
        std::mutex mutex;
        std::condition_variable cv;
        int next_producer_slot = 0;
        int occupied = 0;  // slots published and not yet freed by all their consumers
        // Where a consumer's search starts: cube to vector per lane (a vector core's sub-block; lane 1
        // in next_consumer_slots_by_lane), vector to cube for the cube core.
        int next_c2v_consumer_slot = 0;
        std::array<int, 2> next_consumer_slots_by_lane{};
        int next_v2c_consumer_slot = 0;
        // Slots popped and not yet freed, in all and per consumer lane.
        int popped_not_freed = 0;
        std::array<int, 2> popped_not_freed_by_lane{};
        std::array<sim::pipe::Flow, SlotNum> transfer_dirs{};
        std::array<int, SlotNum> slot_busy{};                  // claimed by a producer, until freed
        std::array<std::uint32_t, SlotNum> producers_allocated{};  // vector lanes writing a shared slot
        std::array<std::uint32_t, SlotNum> producers_done{};       // ... and those that have written
        std::array<std::uint32_t, SlotNum> remaining_consumers{};
        std::array<std::uint32_t, SlotNum> consumers_claimed{};    // lanes that popped the slot
        alignas(64) std::array<std::array<std::uint8_t, LOCAL_SLOT_STORAGE_SIZE>, SlotNum> local_slot_storage{};
    };

    // The bytes a host runtime hands out for the shared state (register_hooks): constructed once.
    struct SharedStateStorage {
        std::atomic<std::uint32_t> init_state{0};
        alignas(SharedState) unsigned char payload[sizeof(SharedState)]{};
    };

    static std::uint64_t key() {
        return (std::uint64_t{FlagID} << 56) | (std::uint64_t{DirType} << 48) | (std::uint64_t{SlotNum} << 40) |
               (std::uint64_t{LocalSlotNum} << 32) | std::uint64_t{SlotSize};
    }

    static SharedState& construct(SharedStateStorage& storage) {
        std::uint32_t expected = 0;
        if (storage.init_state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
            new (storage.payload) SharedState();
            storage.init_state.store(2, std::memory_order_release);
        } else {
            while (storage.init_state.load(std::memory_order_acquire) != 2)
                std::this_thread::yield();
        }
        return *std::launder(reinterpret_cast<SharedState*>(storage.payload));
    }

    static SharedState& GetSharedState() {
        if (auto hook = cpu_sim::injected_pipe_shared_state_hook.load(); hook != nullptr) {
            if (void* bytes = hook(key(), sizeof(SharedStateStorage)); bytes != nullptr)
                return construct(*static_cast<SharedStateStorage*>(bytes));
        }
        static SharedStateStorage storage;
        return construct(storage);
    }

    // Empties the ring (a test's fresh start): no slot published, claimed or being written.
    static void reset_for_cpu_sim() {
        SharedState& s = GetSharedState();
        {
            std::lock_guard<std::mutex> lock(s.mutex);
            s.next_producer_slot = 0;
            s.occupied = 0;
            s.next_c2v_consumer_slot = 0;
            s.next_consumer_slots_by_lane.fill(0);
            s.next_v2c_consumer_slot = 0;
            s.popped_not_freed = 0;
            s.popped_not_freed_by_lane.fill(0);
            s.transfer_dirs.fill(sim::pipe::Flow::None);
            s.slot_busy.fill(0);
            s.producers_allocated.fill(0);
            s.producers_done.fill(0);
            s.remaining_consumers.fill(0);
            s.consumers_claimed.fill(0);
            for (auto& slot : s.local_slot_storage)
                slot.fill(0);
        }
        s.cv.notify_all();
    }

    // Waits under the state's lock until `ready`, or stops the simulation naming the deadlock.
    template <typename Ready>
    static void wait_for(std::unique_lock<std::mutex>& lock, SharedState& s, Ready ready, const char* op,
                         const char* what) {
        const std::uint64_t limit = sim::pipe::max_wait_ms();
        if (limit == 0) {
            s.cv.wait(lock, ready);
            return;
        }
        if (s.cv.wait_for(lock, std::chrono::milliseconds(limit), ready))
            return;
        const cpu_sim::ExecutionContext core = cpu_sim::current_context();
        static thread_local char rule[512];
        std::snprintf(rule, sizeof rule,
                      "pipe TPipe<%u, %u, %u, %u> (flag %u, direction %u, %u-byte slots, %u slots; %d published) "
                      "on core block %u, sub-block %u of %u: %s within %llu ms (a deadlock; "
                      "PTO_CPU_SIM_PIPE_MAX_WAIT_MS sets the limit)",
                      unsigned{FlagID}, unsigned{DirType}, unsigned{SlotSize}, unsigned{SlotNum}, unsigned{FlagID},
                      unsigned{DIR_TYPE}, unsigned{SlotSize}, unsigned{SlotNum}, s.occupied,
                      static_cast<unsigned>(core.block_idx), static_cast<unsigned>(get_subblockid()),
                      static_cast<unsigned>(core.subblock_dim), what, static_cast<unsigned long long>(limit));
        lock.unlock();
        sim::fail(op, rule);
    }

    // What a producer and a consumer both keep: the slot it holds, its lane, its offset in a slot.
    struct End {
        int tileIndex = 0;
        int subTileIndex = 0;
        int entryOffset = 0;

        void setTileId(int tile, int sub) {
            tileIndex = tile;
            subTileIndex = sub;
        }
        int getTileId() const {
            return tileIndex;
        }
        int getSubTileId() const {
            return subTileIndex;
        }
    };

    struct Producer : End {
        bool isAllocate = true;
        bool isRecord = true;

        void setAllocateStatus(bool allocate) {
            isAllocate = allocate;
        }
        bool getAllocateStatus() const {
            return isAllocate;
        }
        void setRecordStatus(bool record) {
            isRecord = record;
        }
        bool getRecordStatus() const {
            return isRecord;
        }
        void setEntryOffset(int offset) {
            this->entryOffset = offset;
        }

        // Claims the slot at the producer cursor. Two vector lanes writing halves of one tile share
        // it (each claims its lane once); any other producer waits for it to be wholly free.
        template <bool Shared>
        void allocate(std::uint32_t lane, const char* op) {
            SharedState& s = GetSharedState();
            std::unique_lock<std::mutex> lock(s.mutex);
            const std::uint32_t mask = 1u << lane;
            if constexpr (Shared) {
                wait_for(
                    lock, s,
                    [&] {
                        const auto at = static_cast<std::size_t>(s.next_producer_slot);
                        return s.occupied < static_cast<int>(SlotNum) && (s.producers_allocated[at] & mask) == 0 &&
                               s.transfer_dirs[at] == sim::pipe::Flow::None &&
                               (s.slot_busy[at] == 0 || s.producers_allocated[at] != 0);
                    },
                    op, "no slot became free for the push (the ring is full and no consumer frees one)");
                this->tileIndex = s.next_producer_slot;
                s.producers_allocated[static_cast<std::size_t>(this->tileIndex)] |= mask;
            } else {
                wait_for(
                    lock, s,
                    [&] {
                        const auto at = static_cast<std::size_t>(s.next_producer_slot);
                        return s.occupied < static_cast<int>(SlotNum) && s.slot_busy[at] == 0 &&
                               s.transfer_dirs[at] == sim::pipe::Flow::None;
                    },
                    op, "no slot became free for the push (the ring is full and no consumer frees one)");
                this->tileIndex = s.next_producer_slot;
            }
            s.slot_busy[static_cast<std::size_t>(this->tileIndex)] = 1;
            this->subTileIndex = static_cast<int>(lane);
        }

        // Publishes the claimed slot to `consumers` consumers; a shared slot once both lanes wrote.
        template <bool Shared>
        void record(sim::pipe::Flow flow, std::uint32_t consumers) {
            SharedState& s = GetSharedState();
            {
                std::lock_guard<std::mutex> lock(s.mutex);
                const auto at = static_cast<std::size_t>(this->tileIndex);
                if constexpr (Shared) {
                    s.producers_done[at] |= 1u << static_cast<std::uint32_t>(this->subTileIndex);
                    if (s.producers_done[at] != 0x3u)
                        return;
                    s.producers_allocated[at] = 0;
                    s.producers_done[at] = 0;
                }
                s.transfer_dirs[at] = flow;
                s.remaining_consumers[at] = consumers;
                s.consumers_claimed[at] = 0;
                s.next_producer_slot = (this->tileIndex + 1) % static_cast<int>(SlotNum);
                ++s.occupied;
            }
            s.cv.notify_all();
        }
    };

    struct Consumer : End {
        bool isWait = true;
        bool isFree = true;
        // Slots this object popped and has not freed, oldest first, with the lane that popped each.
        std::array<int, SlotNum * 2> pending{};
        std::array<std::uint32_t, SlotNum * 2> pending_lane{};
        int pending_count = 0;

        void setWaitStatus(bool wait) {
            isWait = wait;
        }
        bool getWaitStatus() const {
            return isWait;
        }
        void setFreeStatus(bool free) {
            isFree = free;
        }
        bool getFreeStatus() const {
            return isFree;
        }
        void setentryOffset(int offset) {
            this->entryOffset = offset;
        }

        // Waits for the next published slot of `flow` this lane has not popped, from its cursor on.
        // `consumers`, when not 0, is how many lanes share a slot the first of them claims.
        void wait(sim::pipe::Flow flow, std::uint32_t lane, std::uint32_t consumers, const char* op) {
            SharedState& s = GetSharedState();
            std::unique_lock<std::mutex> lock(s.mutex);
            const std::uint32_t mask = 1u << lane;
            int& cursor = flow == sim::pipe::Flow::V2C ? s.next_v2c_consumer_slot
                          : lane == 0                  ? s.next_c2v_consumer_slot
                                                       : s.next_consumer_slots_by_lane[lane];
            int found = -1;
            wait_for(
                lock, s,
                [&] {
                    for (std::uint32_t k = 0; k < SlotNum; ++k) {
                        const auto at = static_cast<std::size_t>((static_cast<std::uint32_t>(cursor) + k) % SlotNum);
                        if (s.transfer_dirs[at] == flow && (s.consumers_claimed[at] & mask) == 0) {
                            found = static_cast<int>(at);
                            return true;
                        }
                    }
                    return false;
                },
                op, "no producer pushed a slot for the pop");
            const auto at = static_cast<std::size_t>(found);
            if (consumers != 0 && s.consumers_claimed[at] == 0)
                s.remaining_consumers[at] = consumers;
            s.consumers_claimed[at] |= mask;
            cursor = (found + 1) % static_cast<int>(SlotNum);
            this->tileIndex = found;
            this->subTileIndex = static_cast<int>(lane);
            ++s.popped_not_freed;
            ++s.popped_not_freed_by_lane[lane];
            if (pending_count < static_cast<int>(pending.size())) {
                pending[static_cast<std::size_t>(pending_count)] = found;
                pending_lane[static_cast<std::size_t>(pending_count)] = lane;
                ++pending_count;
            }
        }

        // Frees the oldest slot this lane popped; the slot is free for producers once every consumer
        // it has freed it.
        void free(std::uint32_t lane, const char* op) {
            SharedState& s = GetSharedState();
            {
                std::lock_guard<std::mutex> lock(s.mutex);
                int k = 0;
                while (k < pending_count && pending_lane[static_cast<std::size_t>(k)] != lane)
                    ++k;
                sim::check(k < pending_count, op, "the pipe has no slot this core popped and has not freed");
                const int slot = pending[static_cast<std::size_t>(k)];
                for (int i = k + 1; i < pending_count; ++i) {
                    pending[static_cast<std::size_t>(i - 1)] = pending[static_cast<std::size_t>(i)];
                    pending_lane[static_cast<std::size_t>(i - 1)] = pending_lane[static_cast<std::size_t>(i)];
                }
                --pending_count;
                --s.popped_not_freed;
                --s.popped_not_freed_by_lane[lane];
                const auto at = static_cast<std::size_t>(slot);
                if (s.remaining_consumers[at] > 1) {
                    --s.remaining_consumers[at];
                } else {
                    s.remaining_consumers[at] = 0;
                    s.consumers_claimed[at] = 0;
                    s.transfer_dirs[at] = sim::pipe::Flow::None;
                    s.slot_busy[at] = 0;
                    --s.occupied;
                }
            }
            s.cv.notify_all();
        }
    };

    RingFiFo fifo;
    Producer prod;
    Consumer cons;

    explicit TPipe(__gm__ void* gmSlotBuffer, std::uint32_t c2vConsumerBuf, std::uint32_t v2cConsumerBuf)
        : fifo(gmSlotBuffer, c2vConsumerBuf, v2cConsumerBuf), prod(), cons() {}
    // No GM buffer (the slots live in the shared state) and consumer buffers at address 0.
    TPipe() : TPipe(nullptr, 0x0, 0x0) {}

    // The first byte of a slot: in the GM buffer when the pipe has one, else in the shared state.
    std::uint8_t* slot_bytes(int slot, int entry_offset) {
        const std::size_t offset = static_cast<std::size_t>(entry_offset);
        if (fifo.GM_SLOT_BUFFER != nullptr)
            return static_cast<std::uint8_t*>(fifo.GM_SLOT_BUFFER) + static_cast<std::size_t>(slot) * SlotSize + offset;
        return GetSharedState().local_slot_storage[static_cast<std::size_t>(slot)].data() + offset;
    }
};

template <typename T>
struct is_tpipe : std::false_type {};
template <std::uint8_t F, std::uint8_t D, std::uint32_t S, std::uint32_t N, std::uint32_t L, bool NS, bool U>
struct is_tpipe<TPipe<F, D, S, N, L, NS, U>> : std::true_type {};
template <typename T>
inline constexpr bool is_tpipe_v = is_tpipe<std::remove_cvref_t<T>>::value;

}  // namespace pto

namespace pto::sim::pipe {

// Which way a producer's tile goes on this pipe: the pipe's one direction, or (both) the tile's side.
template <typename Pipe, typename TileT>
constexpr Flow produced_flow() {
    if constexpr (Pipe::is_c2v && !Pipe::is_v2c)
        return Flow::C2V;
    else if constexpr (Pipe::is_v2c && !Pipe::is_c2v)
        return Flow::V2C;
    else
        return on_cube<TileT>() ? Flow::C2V : Flow::V2C;
}

// Which way a consumer's tile comes: a Vec tile from the cube, else from the vector cores.
template <typename Pipe, typename TileT>
constexpr Flow consumed_flow() {
    if constexpr (Pipe::is_c2v && !Pipe::is_v2c)
        return Flow::C2V;
    else if constexpr (Pipe::is_v2c && !Pipe::is_c2v)
        return Flow::V2C;
    else if constexpr (is_global<TileT>)
        return Flow::C2V;
    else
        return TileT::Loc == TileType::Vec ? Flow::C2V : Flow::V2C;
}

// The vector lane the calling core is (its sub-block, 0 or 1), or the one an explicit id names.
inline std::uint32_t lane_of(int explicit_id) {
    const std::uint32_t id = explicit_id >= 0 ? static_cast<std::uint32_t>(explicit_id) : get_subblockid();
    return id == 0 ? 0u : 1u;
}

// Where a lane's share of the whole tile starts, and the whole tile's row length, for the halves of
// a split: rows [lane * rows, ...) or columns [lane * cols, ...).
template <TileSplitAxis Split>
constexpr std::size_t row_offset(std::uint32_t lane, std::size_t rows) {
    return Split == TileSplitAxis::TILE_UP_DOWN ? lane * rows : 0;
}
template <TileSplitAxis Split>
constexpr std::size_t col_offset(std::uint32_t lane, std::size_t cols) {
    return Split == TileSplitAxis::TILE_LEFT_RIGHT ? lane * cols : 0;
}
template <TileSplitAxis Split>
constexpr std::size_t whole_width(std::size_t cols) {
    return Split == TileSplitAxis::TILE_LEFT_RIGHT ? 2 * cols : cols;
}

template <typename TileT>
void fill_zero(TileT& tile) {
    using T = typename TileT::DType;
    for (int r = 0; r < tile.GetValidRow(); ++r)
        for (int c = 0; c < tile.GetValidCol(); ++c)
            tile.data()[GetTileElementOffset<TileT>(static_cast<std::size_t>(r), static_cast<std::size_t>(c))] = T{};
}

// The cube's push: its tile, through the fix-pipe (TConfig), into the slot as a row-major matrix;
// unsplit its valid region, split its whole static shape (each vector core reads half of it).
template <typename Pipe, typename TileT, typename TConfig, TileSplitAxis Split>
void write_c2v(Pipe& pipe, TileT& tile) {
    using S = typename TileT::DType;
    using D = FixpipeConsDType_t<TConfig::QuantPre, S>;
    constexpr bool relu = TConfig::ReluMode == ReluPreMode::NormalRelu;
    const std::size_t rows = split<Split>() ? TileT::Rows : static_cast<std::size_t>(tile.GetValidRow());
    const std::size_t cols = split<Split>() ? TileT::Cols : static_cast<std::size_t>(tile.GetValidCol());
    if (rows * cols * sizeof(D) > Pipe::RingFiFo::SLOT_SIZE * (split<Split>() ? 2 : 1))
        fail("TPUSH", "the cube tile's valid region does not fit the pipe's SlotSize", "bytes", rows * cols * sizeof(D),
             "SlotSize", Pipe::RingFiFo::SLOT_SIZE);
    auto* out = reinterpret_cast<D*>(pipe.slot_bytes(pipe.prod.tileIndex, pipe.prod.entryOffset));
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c)
            out[r * cols + c] =
                fixpipe_element<D, S, TConfig::QuantPre, relu>(tile.data()[GetTileElementOffset<TileT>(r, c)],
                                                               TConfig::QuantPre == QuantMode_t::NoQuant
                                                                   ? 0
                                                                   : quant_word<TConfig::QuantPre>(c));
}

// A vector core's push: its tile's valid region into its share of the whole tile (unsplit: the whole
// static shape, zero outside the valid region).
template <typename Pipe, typename TileT, TileSplitAxis Split>
void write_v2c(Pipe& pipe, TileT& tile, std::uint32_t lane) {
    using T = typename TileT::DType;
    const std::size_t width = whole_width<Split>(TileT::Cols);
    auto* out = reinterpret_cast<T*>(pipe.slot_bytes(pipe.prod.tileIndex, pipe.prod.entryOffset));
    if constexpr (!split<Split>())
        std::fill(out, out + TileT::Rows * TileT::Cols, T{});
    const std::size_t r0 = row_offset<Split>(lane, TileT::Rows);
    const std::size_t c0 = col_offset<Split>(lane, TileT::Cols);
    for (int r = 0; r < tile.GetValidRow(); ++r)
        for (int c = 0; c < tile.GetValidCol(); ++c)
            out[(r0 + static_cast<std::size_t>(r)) * width + c0 + static_cast<std::size_t>(c)] =
                tile.data()[GetTileElementOffset<TileT>(static_cast<std::size_t>(r), static_cast<std::size_t>(c))];
}

// A consumer's pop: its valid region from its share of the whole tile in the slot.
template <typename Pipe, typename TileT, TileSplitAxis Split>
void read_slot(Pipe& pipe, TileT& tile, std::uint32_t lane) {
    using T = typename TileT::DType;
    const bool halves = split<Split>() && TileT::Loc == TileType::Vec;
    const std::size_t width = halves ? whole_width<Split>(TileT::Cols) : TileT::Cols;
    const std::size_t r0 = halves ? row_offset<Split>(lane, TileT::Rows) : 0;
    const std::size_t c0 = halves ? col_offset<Split>(lane, TileT::Cols) : 0;
    const auto* in = reinterpret_cast<const T*>(pipe.slot_bytes(pipe.cons.tileIndex, pipe.cons.entryOffset));
    for (int r = 0; r < tile.GetValidRow(); ++r)
        for (int c = 0; c < tile.GetValidCol(); ++c)
            tile.data()[GetTileElementOffset<TileT>(static_cast<std::size_t>(r), static_cast<std::size_t>(c))] =
                in[(r0 + static_cast<std::size_t>(r)) * width + c0 + static_cast<std::size_t>(c)];
}

// Two vector lanes write one slot when a split tile goes vector to cube.
template <typename Pipe, typename TileT, TileSplitAxis Split>
constexpr bool shared_slot() {
    return produced_flow<Pipe, TileT>() == Flow::V2C && split<Split>();
}

// How many consumers free a slot the cube published: both vector cores for a split tile, else one
// (a no-split pipe's second vector core joins when the launch has two; wait() raises the count).
template <TileSplitAxis Split>
constexpr std::uint32_t c2v_consumers() {
    return split<Split>() ? 2u : 1u;
}

// The second vector core of an unsplit cube-to-vector transfer takes part only on a no-split pipe
// with two vector cores; elsewhere it is idle: its pop zero-fills the tile and its free does nothing.
template <typename Pipe, TileSplitAxis Split>
bool idle_second_lane(std::uint32_t lane) {
    if constexpr (split<Split>() || !Pipe::is_c2v)
        return false;
    else
        return lane != 0 && !(Pipe::is_no_split && get_subblockdim() >= 2);
}

// A slot holds what one consumer reads (cube to vector: one vector core's share of the tile), so a
// tile whose static shape cannot fit is a compile error; an unsplit cube tile's valid region is
// checked when it is pushed. The producer and consumer locations the pages give per direction are
// profile rules (the CPU profile accepts what upstream's simulator moves).
template <typename Pipe, typename TileT, TileSplitAxis Split, std::size_t ElementBytes>
constexpr void check_producer() {
    constexpr std::size_t tile = TileT::Rows * TileT::Cols * ElementBytes;
    if constexpr (produced_flow<Pipe, TileT>() == Flow::V2C)
        static_assert(tile * (split<Split>() ? 2 : 1) <= Pipe::RingFiFo::SLOT_SIZE,
                      "TPUSH: the vector cores' whole tile does not fit the pipe's SlotSize");
    else if constexpr (split<Split>())
        static_assert(tile / 2 <= Pipe::RingFiFo::SLOT_SIZE,
                      "TPUSH: a vector core's half of the tile does not fit the pipe's SlotSize");
}

template <typename Pipe, typename TileT>
constexpr void check_consumer() {
    static_assert(TileT::Rows * TileT::Cols * sizeof(typename TileT::DType) <= Pipe::RingFiFo::SLOT_SIZE,
                  "TPOP: the consumer's tile does not fit the pipe's SlotSize");
}

// TPUSH of a tile (TConfig: the cube's fix-pipe; `lane` -1: the calling core's sub-block).
template <typename Pipe, typename TileT, typename TConfig, TileSplitAxis Split>
void push(Pipe& pipe, TileT& tile, int explicit_lane = -1) {
    using Written = std::conditional_t<TileT::Loc == TileType::Vec, typename TileT::DType,
                                       FixpipeConsDType_t<TConfig::QuantPre, typename TileT::DType>>;
    check_producer<Pipe, TileT, Split, sizeof(Written)>();
    constexpr Flow flow = produced_flow<Pipe, TileT>();
    const std::uint32_t lane = lane_of(explicit_lane);
    if constexpr (!split<Split>() && flow == Flow::V2C) {
        if (lane != 0)
            return;  // an unsplit vector-to-cube tile comes from the first vector core alone
    }
    constexpr bool shared = shared_slot<Pipe, TileT, Split>();
    if (pipe.prod.getAllocateStatus())
        pipe.prod.template allocate<shared>(lane, "TPUSH");
    if constexpr (flow == Flow::C2V)
        write_c2v<Pipe, TileT, TConfig, Split>(pipe, tile);
    else
        write_v2c<Pipe, TileT, Split>(pipe, tile, lane);
    if (pipe.prod.getRecordStatus())
        pipe.prod.template record<shared>(flow, flow == Flow::C2V ? c2v_consumers<Split>() : 1u);
}

// TPOP into a tile.
template <typename Pipe, typename TileT, TileSplitAxis Split>
void pop(Pipe& pipe, TileT& tile, int explicit_lane = -1) {
    check_consumer<Pipe, TileT>();
    constexpr Flow flow = consumed_flow<Pipe, TileT>();
    const std::uint32_t lane = flow == Flow::C2V ? lane_of(explicit_lane) : 0u;
    if (flow == Flow::C2V && idle_second_lane<Pipe, Split>(lane)) {
        fill_zero(tile);
        return;
    }
    const bool dual = flow == Flow::C2V && !split<Split>() && Pipe::is_no_split && get_subblockdim() >= 2;
    if (pipe.cons.getWaitStatus())
        pipe.cons.wait(flow, lane, dual ? get_subblockdim() : 0u, "TPOP");
    if (dual && lane != 0)
        fill_zero(tile);  // a no-split pipe gives its tile to the first vector core only
    else
        read_slot<Pipe, TileT, Split>(pipe, tile, lane);
}

// TFREE: releases the oldest slot the calling core popped from this pipe object.
template <typename Pipe, TileSplitAxis Split>
void free(Pipe& pipe) {
    // The lane the calling core popped as: the cube pops as lane 0, a vector core as its sub-block.
    std::uint32_t lane = lane_of(-1);
    bool popped_as_lane = false;
    for (int k = 0; k < pipe.cons.pending_count; ++k)
        popped_as_lane = popped_as_lane || pipe.cons.pending_lane[static_cast<std::size_t>(k)] == lane;
    if (!popped_as_lane && pipe.cons.pending_count > 0 && lane != 0 && Pipe::is_v2c)
        lane = 0;
    if (Pipe::is_c2v && idle_second_lane<Pipe, Split>(lane) && !popped_as_lane)
        return;
    if (pipe.cons.getFreeStatus())
        pipe.cons.free(lane, "TFREE");
}

// TALLOC: claims a slot of the pipe's GM buffer for the calling producer and binds the tensor to it;
// TPUSH of that tensor then publishes the slot.
template <typename Pipe, typename GlobalData, TileSplitAxis Split>
void alloc(Pipe& pipe, GlobalData& gm) {
    check(pipe.fifo.GM_SLOT_BUFFER != nullptr, "TALLOC", "the pipe has no GM slot buffer to allocate from");
    pipe.prod.template allocate<false>(0, "TALLOC");
    gm.SetAddr(reinterpret_cast<typename GlobalData::DType*>(pipe.slot_bytes(pipe.prod.tileIndex, pipe.prod.entryOffset)));
}

template <typename Pipe, typename GlobalData, TileSplitAxis Split>
void push_global(Pipe& pipe, GlobalData& gm) {
    static_cast<void>(gm);
    constexpr Flow flow = Pipe::is_c2v ? Flow::C2V : Flow::V2C;
    pipe.prod.template record<false>(flow, flow == Flow::C2V ? c2v_consumers<Split>() : 1u);
}

// TPOP of a tensor: waits for the next published slot and binds the tensor to it in the GM buffer.
template <typename Pipe, typename GlobalData, TileSplitAxis Split>
void pop_global(Pipe& pipe, GlobalData& gm) {
    check(pipe.fifo.GM_SLOT_BUFFER != nullptr, "TPOP", "the pipe has no GM slot buffer to bind the tensor to");
    constexpr Flow flow = Pipe::is_c2v ? Flow::C2V : Flow::V2C;
    const std::uint32_t lane = flow == Flow::C2V && split<Split>() ? lane_of(-1) : 0u;
    pipe.cons.wait(flow, lane, 0u, "TPOP");
    gm.SetAddr(reinterpret_cast<typename GlobalData::DType*>(pipe.slot_bytes(pipe.cons.tileIndex, pipe.cons.entryOffset)));
}

template <typename Pipe, typename GlobalData, TileSplitAxis Split>
void free_global(Pipe& pipe, GlobalData& gm) {
    static_cast<void>(gm);
    free<Pipe, Split>(pipe);
}

// The entry points the intrinsics' backend calls: a tile or (GM forms) a tensor, `lane` -1 for the
// calling core's sub-block.
template <TileSplitAxis Split, typename TConfig, typename Pipe, typename T>
void push_any(Pipe& pipe, T& x, int lane = -1) {
    static_assert(is_tpipe_v<Pipe>, "TPUSH: the pipe is a TPipe");
    if constexpr (is_global<T>)
        push_global<Pipe, T, Split>(pipe, x);
    else
        push<Pipe, T, TConfig, Split>(pipe, x, lane);
}

template <TileSplitAxis Split, typename Pipe, typename T>
void pop_any(Pipe& pipe, T& x, int lane = -1) {
    static_assert(is_tpipe_v<Pipe>, "TPOP: the pipe is a TPipe");
    if constexpr (is_global<T>)
        pop_global<Pipe, T, Split>(pipe, x);
    else
        pop<Pipe, T, Split>(pipe, x, lane);
}

// SET_QUANT_SCALAR<OutType>: the scale's bits, bit 46 the signedness of an 8-bit result.
template <typename OutType>
void set_quant_scalar(float scale) {
    std::uint32_t bits;
    std::memcpy(&bits, &scale, sizeof bits);
    std::uint64_t word = bits;
    if constexpr (sizeof(OutType) == 1) {
        const std::uint64_t sign = std::is_same_v<OutType, int8_t> ? 1u : 0u;
        word = (word & ~(std::uint64_t{1} << 46)) | (sign << 46);
    }
    quant_registers().scalar = word;
}

// SET_QUANT_VECTOR: the parameter tile whose words quantise column by column.
template <typename FpTile>
void set_quant_vector(FpTile& fp) {
    static_assert(FpTile::Loc == TileType::Scaling, "SET_QUANT_VECTOR: the parameter tile is a Scaling tile");
    quant_registers().vector = reinterpret_cast<const std::uint64_t*>(fp.data());
}

}  // namespace pto::sim::pipe
