"""The ArduPilot bridge: a world flown by ArduPilot SITL through its JSON physics backend.

ArduPilot (``sim_vehicle.py --model JSON``) sends servo packets over UDP and waits for each answer;
the bridge steps one :class:`aurgen.runtime.sim.Simulation` a frame per packet, with each thruster's
thrust from its PWM, and answers with the vehicle's state as ArduPilot's IMU, GPS and rangefinder
read it (``libraries/SITL/SIM_JSON.cpp``). ``protocol`` (the packet and the reply: pure functions
over bytes), ``frames`` (ENU/FLU to NED/FRD), ``thrust`` (PWM to thrust), ``lockstep`` (what a frame
count asks), ``rig`` (the vehicle in the compiled model), ``measure`` (the sensors), ``bridge`` (one
packet in, one reply out), ``server`` (the UDP loop and ``aurgen sitl``). Imported by the CLI only;
it reaches MuJoCo through the simulation.
"""
