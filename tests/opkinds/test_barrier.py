"""The barrier op kind (SYNCALL, ptogen/opkinds/barrier.py): its two upstream declarations and
their participant sets. (Its generated cases run in tests/test_simulator.py.)"""

from __future__ import annotations

import re

from ..helpers import ROOT


def test_syncall_has_both_upstream_declarations_and_every_participant_set() -> None:
    header = " ".join((ROOT / "generated/include/pto/common/pto_instr.hpp").read_text().split())
    assert "template <SyncCoreType CoreType = SyncCoreType::AIVOnly> PTO_INST void SYNCALL() {" in header
    assert (
        "template <SyncAllMode Mode, SyncCoreType CoreType = SyncCoreType::AIVOnly, typename GlobalData, "
        "std::enable_if_t<is_global_data_v<GlobalData>, int> = 0> "
        "PTO_INST void SYNCALL(GlobalData& gmWorkspace, int32_t usedCores = 0) {"
    ) in header
    cases = (ROOT / "generated/tests/syncall/cases.cpp").read_text()
    for core in ("AIVOnly", "AICOnly", "Mix"):
        assert re.search(rf"SYNCALL<profile_cpu, SyncCoreType::{core}>\(\)", cases)
        for mode in ("Hard", "Soft"):
            assert (
                f"SYNCALL<profile_cpu, SyncAllMode::{mode}, SyncCoreType::{core}>(gm_workspace, 0)" in cases
            )
