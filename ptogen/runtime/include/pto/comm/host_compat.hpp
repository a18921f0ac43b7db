// The host side of a multi-rank test as upstream's communication tests write it, on one process:
// every rank of a test is a thread or a loop iteration of the same program, so the job launcher's
// calls (MPI start and stop, the barrier between ranks) have nothing to do, and every rank count a
// test asks for is available. A rank's view of the others is the device context below: its id, the
// number of ranks and the base address of each rank's window of global memory.
#pragma once

#include <cstdint>

// Most ranks one context describes (the windows table's length).
static constexpr uint32_t HCCL_MAX_RANK_NUM = 64;

// Where ranks meet: a device's collective-library handle, empty here (all ranks share a process).
struct HcclRootInfo {};

// What a kernel knows of its rank: a scratch workspace, its rank among rankNum, and the windows of
// global memory (winSize bytes each) through which ranks read and write each other.
struct CommDeviceContext {
    uint64_t workSpace;
    uint64_t workSpaceSize;
    uint32_t rankId;
    uint32_t rankNum;
    uint64_t winSize;
    uint64_t windowsIn[HCCL_MAX_RANK_NUM];
    uint64_t windowsOut[HCCL_MAX_RANK_NUM];
};

// The launcher's calls: one process holds every rank, so starting always succeeds, the barrier and
// the stop have nothing to wait for, and no test skips for want of ranks.
#define CommMpiInit(argc, argv) (true)
#define CommMpiFinalize()
#define HcclHostBarrier(comm, stream)
#define SKIP_IF_RANKS_LT(n)
