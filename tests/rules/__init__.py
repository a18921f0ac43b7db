"""Rule tests, one module per rule kind or subject."""
