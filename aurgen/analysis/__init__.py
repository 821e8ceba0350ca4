"""What the composed model does: stability (righting arms, GM, trim branches), payload
(a point mass added: load line, ballast), roll_period and roll_decay, the report
(report_compute, report_figures, report), time-domain runs (timedomain) and parameter
sweeps (the sweep package).  Imports aurgen.emit and below (never aurgen.check)."""
