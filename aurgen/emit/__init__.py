"""The resolved model written out: MJCF, SDF and URDF through the Jinja templates, worlds,
the ROS files, the self-check each file passes before it is written, and the build that
writes a set.  Imports aurgen.compose and below."""
