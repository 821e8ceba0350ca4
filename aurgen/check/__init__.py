"""Files read back and checked (``aurgen audit``): readback (generated SDF, URDF and MJCF
-> link records), xmldiff (two XML texts compared by meaning), audit_files (finding and
reading a generated file: header, specs comment, figures), audit_fresh (each file against
its config composed now and a fresh render), audit (the command, its checks and table).
Imports aurgen.emit and below."""
