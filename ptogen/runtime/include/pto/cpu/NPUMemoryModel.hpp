// The simulated on-chip memories that TASSIGN places tiles in: one zeroed region per kind of
// buffer (the unified buffer for Vec tiles, L1 for Mat, L0A/L0B for Left/Right, L0C for Acc, the
// MX scale buffers for ScaleLeft/ScaleRight), sized as the selected target's. Code written for
// upstream's CPU simulator selects the target before a test (`NPU_MEMORY_INIT(NPUArch::A5)`, or
// `NPUMemoryModel::Instance().Initialize(...)`), clears the memories between tests
// (`NPU_MEMORY_CLEAR()`) and reads a region's base (`GetL0CBase()`). The rules of a target come
// from PTO_TARGET_PROFILE, not from this choice; only the region sizes follow it.
//
// Each simulated core has memories of its own, as each AI core of the device has: every host
// thread (one per core, pto/cpu/execution_context.hpp) gets its own set, so `TASSIGN(tile, 0)` on
// the cube core and on each vector core are different bytes. A thread's set is allocated on first
// use with the target NPU_MEMORY_INIT last selected on any thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace pto {

enum class NPUArch { A2A3, A5 };

class NPUMemoryModel {
  public:
    enum Region { UB, L1, L0A, L0B, L0C, L0A_MX, L0B_MX, RegionCount };

    // The unified buffer is 1 MiB on every target: the simulator's scratch for vector tiles (the
    // hardware's 192 or 256 KiB are a profile's business, not the host's).
    static constexpr std::size_t ub_bytes = std::size_t{1} << 20;

    // The calling core's memories.
    static NPUMemoryModel& Instance() {
        static thread_local NPUMemoryModel model;
        return model;
    }

    // The target a core's memories take when it first uses them.
    static void SetDefaultArch(NPUArch arch) {
        default_arch() = arch;
    }

    // Selects the target's region sizes; every region of this core is (re)allocated and zeroed.
    void Initialize(NPUArch arch) {
        constexpr std::size_t KiB = 1024;
        const std::size_t a2a3[RegionCount] = {ub_bytes, 512 * KiB, 64 * KiB, 64 * KiB, 128 * KiB, 4 * KiB, 4 * KiB};
        const std::size_t a5[RegionCount] = {ub_bytes, 512 * KiB, 64 * KiB, 64 * KiB, 256 * KiB, 4 * KiB, 4 * KiB};
        for (int r = 0; r < RegionCount; ++r)
            regions_[r].assign(arch == NPUArch::A5 ? a5[r] : a2a3[r], 0);
        arch_ = arch;
        initialized_ = true;
    }

    void EnsureInitialized() {
        if (!initialized_)
            Initialize(default_arch());
    }

    // Zeroes every region (their addresses stay).
    void Clear() {
        for (auto& region : regions_)
            region.assign(region.size(), 0);
    }

    NPUArch Arch() const {
        return arch_;
    }

    char* Base(Region r) {
        EnsureInitialized();
        return regions_[r].data();
    }
    std::size_t Size(Region r) {
        EnsureInitialized();
        return regions_[r].size();
    }
    char* GetUBBase() {
        return Base(UB);
    }
    char* GetL1Base() {
        return Base(L1);
    }
    char* GetL0ABase() {
        return Base(L0A);
    }
    char* GetL0BBase() {
        return Base(L0B);
    }
    char* GetL0CBase() {
        return Base(L0C);
    }

    // The region an address already points into (a host pointer to simulated memory), or
    // RegionCount when it points into none.
    Region RegionOf(std::uintptr_t addr) {
        EnsureInitialized();
        for (int r = 0; r < RegionCount; ++r) {
            const auto start = reinterpret_cast<std::uintptr_t>(regions_[r].data());
            if (addr >= start && addr < start + regions_[r].size())
                return static_cast<Region>(r);
        }
        return RegionCount;
    }

  private:
    NPUMemoryModel() = default;
    NPUMemoryModel(const NPUMemoryModel&) = delete;

    static std::atomic<NPUArch>& default_arch() {
        static std::atomic<NPUArch> arch{NPUArch::A2A3};
        return arch;
    }

    // Regions start on a 64-byte line, as tiles' own storage does (pto/common/tile.hpp): a tile at a
    // 32-byte multiple then sits as it would on the hardware, and vector loads do not straddle lines
    // (malloc would give 16 bytes past a page).
    template <typename T>
    struct LineAligned {
        using value_type = T;
        LineAligned() = default;
        template <typename U>
        LineAligned(const LineAligned<U>&) {}
        T* allocate(std::size_t n) {
            return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{64}));
        }
        void deallocate(T* p, std::size_t) {
            ::operator delete(p, std::align_val_t{64});
        }
        template <typename U>
        bool operator==(const LineAligned<U>&) const {
            return true;
        }
    };
    std::vector<char, LineAligned<char>> regions_[RegionCount];
    NPUArch arch_ = NPUArch::A2A3;
    bool initialized_ = false;
};

// The MX scale address of a Left or Right tile's storage (TGET_SCALE_ADDR's relation on A5): its
// offset into its simulated memory shifted right by SHIFT_MX_ADDR, as upstream's CPU simulator and
// A5 backend compute it; kernels TASSIGN their ScaleLeft/ScaleRight tiles there.
inline constexpr std::uint32_t SHIFT_MX_ADDR = 4;

template <typename T>
std::uint64_t GetScaleAddr(T* data) {
    auto& memory = NPUMemoryModel::Instance();
    const auto addr = reinterpret_cast<std::uintptr_t>(data);
    const auto region = memory.RegionOf(addr);
    const auto base = region == NPUMemoryModel::RegionCount ? addr : reinterpret_cast<std::uintptr_t>(memory.Base(region));
    return static_cast<std::uint64_t>(addr - base) >> SHIFT_MX_ADDR;
}

// Selects the target for every core and (re)initialises the calling core's memories (upstream's
// spelling).
inline void NPU_MEMORY_INIT(NPUArch arch = NPUArch::A2A3) {
    NPUMemoryModel::SetDefaultArch(arch);
    NPUMemoryModel::Instance().Initialize(arch);
}

// Zeroes the calling core's memories, e.g. between tests (upstream's spelling).
inline void NPU_MEMORY_CLEAR() {
    NPUMemoryModel::Instance().Clear();
}

}  // namespace pto
