"""What op kinds share: the one implementation of each fact several kinds' goldens, test plans or
simulators rely on (a tile's storage layout, the quantisations, the golden region check, the
forms machinery, the families of kinds that specialise one idea).

An op-kind module (ptogen/opkinds/) imports only `opkinds.base` and this package, never another
kind's module; this package imports no op kind (tests/test_contracts.py checks both).
"""
