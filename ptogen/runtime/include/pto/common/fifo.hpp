// The types a pipe between a cube core and its vector cores is built from, under upstream's names
// and values (its include/pto/common/fifo.hpp), so kernels that include that header build unchanged.
// The pipe itself (TPipe: the ring of slots, its producer and consumer) is the simulator's, in
// pto/cpu/pipe.hpp.
#pragma once

#include <cstdint>
#include <type_traits>

#include <pto/common/pto_core.hpp>

#ifndef __gm__
#define __gm__  // global-memory pointers are plain host pointers on the simulator
#endif

namespace pto {

// How a tile is shared between the two vector cores (AIV0, AIV1) of a cube core: not at all (AIV0
// alone), rows split in halves, or columns split in halves (the _ODD forms for an odd extent).
enum TileSplitAxis : std::uint8_t {
    TILE_NO_SPLIT = 0,
    TILE_UP_DOWN = 1,
    TILE_LEFT_RIGHT = 2,
    TILE_UP_DOWN_ODD = 3,
    TILE_LEFT_RIGHT_ODD = 4,
};

// Which way a pipe carries tiles: cube to vector, vector to cube, both; bit 2 marks a control pipe.
enum Direction : std::uint8_t {
    UNDEFINED = 0,
    DIR_C2V = 1,
    DIR_V2C = 2,
    DIR_BOTH = DIR_C2V | DIR_V2C,
    DIR_V2C_CTRL = 4,
#ifdef PTO_NPU_ARCH_A5
    DIR_C2V_GM = 5,
    DIR_V2C_GM = 6,
    DIR_BOTH_GM = DIR_C2V_GM | DIR_V2C_GM,
#endif
};

// Where a pipe's slots live: a GM buffer (null: none) and the consumers' local buffers (a UB address
// for cube-to-vector, an L1 address for vector-to-cube), with the ring's geometry.
template <int SlotSize, int SlotNum, int LocalSlotNum>
struct RingFIFO {
    __gm__ void* GM_SLOT_BUFFER = nullptr;
    std::uint32_t C2V_CONSUMER_BUF = 0x0;
    std::uint32_t V2C_CONSUMER_BUF = 0x0;
    std::uint64_t V2C_CONTROL_BUF = 0x0;
    static constexpr std::uint32_t SLOT_SIZE = SlotSize;
    static constexpr std::uint32_t SLOT_NUM = SlotNum;
    static constexpr std::uint32_t SLOT_SYNCT = SlotNum;
    static constexpr std::uint32_t LOCAL_SLOT_NUM = LocalSlotNum;

    PTO_INTERNAL RingFIFO(__gm__ void* gm_slots, std::uint32_t c2v_buffer, std::uint32_t v2c_buffer)
        : GM_SLOT_BUFFER(gm_slots), C2V_CONSUMER_BUF(c2v_buffer), V2C_CONSUMER_BUF(v2c_buffer) {}
};

enum class FIFOType : std::uint8_t { GM_FIFO = 0, VEC_FIFO = 1, MAT_FIFO = 2, CTRL_FIFO = 3 };

enum class VecCubeRatio : std::uint8_t { V1C1_VEC0 = 0, V1C1_VEC1 = 1, V2C1_VECS = 2 };

template <FIFOType T>
struct IsGMFiFo : std::bool_constant<T == FIFOType::GM_FIFO> {};
template <FIFOType T>
struct IsTileFiFo : std::bool_constant<T == FIFOType::VEC_FIFO || T == FIFOType::MAT_FIFO> {};
template <FIFOType T>
struct IsCtrlFiFo : std::bool_constant<T == FIFOType::CTRL_FIFO> {};

// A FIFO's description: its depth, period and where it lives (one form per FIFOType).
template <typename DataType, FIFOType FifoType, int Depth, int Period, int LocalDepth = 0, typename Enable = void>
struct DataFIFO;

template <typename DataType, FIFOType FifoType, int Depth, int Period, int LocalDepth>
struct DataFIFO<DataType, FifoType, Depth, Period, LocalDepth, std::enable_if_t<IsGMFiFo<FifoType>::value>> {
    static constexpr int fifoDepth = Depth;
    static constexpr int fifoPeriod = Period;
    static constexpr FIFOType fifoType = FifoType;
    static constexpr int localFiFoDepth = LocalDepth;
    static constexpr bool useLocalFiFo = LocalDepth > 0;
    using DType = DataType;
    __gm__ DataType* fifoBase = nullptr;
    std::uint32_t localFiFoBase = 0;

    PTO_INTERNAL DataFIFO(__gm__ DataType* base, std::uint32_t local_base) : fifoBase(base), localFiFoBase(local_base) {}
    template <int M = LocalDepth, std::enable_if_t<M == 0, int> = 0>
    PTO_INTERNAL DataFIFO(__gm__ DataType* base) : fifoBase(base) {}
    __gm__ DataType* getBasePtr() {
        return fifoBase;
    }
};

template <typename DataType, FIFOType FifoType, int Depth, int Period, int LocalDepth>
struct DataFIFO<DataType, FifoType, Depth, Period, LocalDepth, std::enable_if_t<IsTileFiFo<FifoType>::value>> {
    static constexpr int fifoDepth = Depth;
    static constexpr int fifoPeriod = Period;
    static constexpr FIFOType fifoType = FifoType;
    std::uint32_t fifoBase = 0;

    PTO_INTERNAL DataFIFO(std::uint32_t base) : fifoBase(base) {}
};

template <typename DataType, FIFOType FifoType, int Depth, int Period, int LocalDepth>
struct DataFIFO<DataType, FifoType, Depth, Period, LocalDepth, std::enable_if_t<IsCtrlFiFo<FifoType>::value>> {
    static constexpr int fifoDepth = Depth;
    static constexpr int fifoPeriod = Period;
    static constexpr FIFOType fifoType = FifoType;
    bool ctrlSignal = false;
    std::uint32_t fifoBase = 0x0;

    PTO_INTERNAL DataFIFO(std::uint32_t base) : fifoBase(base) {}
};

}  // namespace pto

// The neighbour-core pipes of a grid of cores, which TPUSH and TPOP take too.
#include <pto/common/grid_pipe.hpp>
