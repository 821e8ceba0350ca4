"""The ground floor: errors, input limits, the one writer, YAML reading, spatial algebra,
records and the bundled data's location.  Imports nothing of aurgen above it; the runtime
(aurgen.runtime) may import it."""
