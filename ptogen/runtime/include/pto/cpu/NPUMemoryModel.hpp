// Compatibility with code written for upstream's CPU simulator, which selects the memory model of a
// target before a test (`pto::NPUMemoryModel::Instance().Initialize(pto::NPUArch::A5)`). Here the
// simulated unified buffer is one fixed 1 MiB region for every target, so selecting one only records
// the choice; the rules of a target come from PTO_TARGET_PROFILE, not from this call.
#pragma once

namespace pto {

enum class NPUArch { A2A3, A5 };

class NPUMemoryModel {
  public:
    static NPUMemoryModel& Instance() {
        static NPUMemoryModel model;
        return model;
    }

    void Initialize(NPUArch arch) {
        arch_ = arch;
    }

    NPUArch Arch() const {
        return arch_;
    }

  private:
    NPUArch arch_ = NPUArch::A2A3;
};

}  // namespace pto
