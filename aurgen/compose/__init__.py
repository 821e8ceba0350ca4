"""The pure AUR stage: assembly of the parts, mass, centre of mass and inertia derived from
them, the declared displacement, the resolved model, its specs and the stamp.  Imports
aurgen.config, aurgen.core and the runtime's hydrostatics kernel."""
