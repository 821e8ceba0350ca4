"""ArduPilot's side of the link for the tests: start the installed ``aurgen sitl`` in a process of its
own and talk to it over a real UDP socket on 127.0.0.1, as ArduPilot's JSON backend does
(libraries/SITL/SIM_JSON.cpp: output_servos sends the packet to the physics' port and recv_fdm reads
the reply from the same socket)."""
from __future__ import annotations

import os
import re
import signal
import socket
import struct
import subprocess
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]


def aurgen_cmd() -> list[str]:
    """The installed console script beside this Python (``python -m aurgen`` without one)."""
    exe = Path(sys.executable).parent / "aurgen"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "aurgen"]


def clean_env() -> dict:
    """This environment less the checkout on PYTHONPATH (the installed aurgen is the one under test)."""
    keep = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
            if p and CHECKOUT != Path(p).resolve() and CHECKOUT not in Path(p).resolve().parents]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(keep), MPLBACKEND="Agg")


def packet(count: int, pwm, rate: int = 400) -> bytes:
    """ArduPilot's servo packet (SIM_JSON.h servo_packet_16 / servo_packet_32, packed little-endian)."""
    pwm = list(pwm)
    magic = 18458 if len(pwm) == 16 else 29569
    return struct.pack(f"<HHI{len(pwm)}H", magic, rate, count, *pwm)


class Sitl:
    """``aurgen sitl <model> <args…> --port 0`` running; ``.port`` is the port it printed.
    ``stderr``: where its stderr goes (a pipe; a pty's end for a terminal); ``preexec_fn``: run in
    the child before aurgen (the bench pins it to a core)."""

    def __init__(self, model, *args, cwd=None, timeout=60.0, stderr=subprocess.PIPE, preexec_fn=None):
        self.proc = subprocess.Popen(aurgen_cmd() + ["sitl", str(model), "--port", "0", *args], cwd=cwd,
                                     stdout=subprocess.PIPE, stderr=stderr, text=True, env=clean_env(),
                                     preexec_fn=preexec_fn)
        self.head = []
        for line in self.proc.stdout:
            self.head.append(line)
            m = re.search(r"listening on udp ([0-9.]+):(\d+)", line)
            if m:
                self.port = int(m[2])
                break
        else:
            err = self.proc.stderr.read() if self.proc.stderr is not None else ""
            raise AssertionError(f"aurgen sitl did not start (rc {self.proc.wait()}):\n{''.join(self.head)}\n{err}")
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.settimeout(timeout)

    def send(self, data: bytes) -> None:
        self.sock.sendto(data, ("127.0.0.1", self.port))

    def ask(self, data: bytes) -> bytes:
        """Send a datagram and the reply's bytes."""
        self.send(data)
        reply, _ = self.sock.recvfrom(65536)
        return reply

    def silent(self, data: bytes, wait: float = 0.3) -> bool:
        """Send a datagram; True when no reply comes within ``wait`` seconds."""
        self.send(data)
        self.sock.settimeout(wait)
        try:
            self.sock.recvfrom(65536)
            return False
        except socket.timeout:
            return True
        finally:
            self.sock.settimeout(60.0)

    def stop(self, sig=signal.SIGINT, timeout=60.0):
        """Ctrl-C (or ``sig``); (exit status, stdout after the start lines, stderr)."""
        self.sock.close()
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        out, err = self.proc.communicate(timeout=timeout)
        return self.proc.returncode, out, err

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()
