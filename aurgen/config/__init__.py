"""Reading and validating input: vehicle and world configs, the parts catalog, part shapes
and sensors (YAML -> frozen records).  Imports aurgen.core only."""
