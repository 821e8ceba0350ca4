"""What the composed model does: stability (righting arms, GM, trim), the report, time-domain
runs and parameter sweeps.  Imports aurgen.emit and below (never aurgen.check)."""
