"""`ptogen import`: ISA pages back to specs."""
