"""Files read back and checked: readback (generated files -> link records), xmldiff
(comparison by meaning), audit (specs comment vs content vs config vs fresh render).
Imports aurgen.emit and below."""
