"""``aurgen sitl ... --video udp://HOST:PORT``: the flown vehicle's camera as H.264 over RTP.

A watcher of :func:`aurgen.runtime.sitl.server.serve`. Every 1/:data:`FPS` s of SIMULATED time the
bridge thread puts the state (joint positions and the simulated time) in a one-slot box and goes on;
a worker thread draws it offscreen (:mod:`aurgen.runtime.sitl.camera`, its GL context its own),
encodes it with PyAV's FFmpeg/libx264 (constrained baseline, ``tune=zerolatency``, an IDR every
:data:`FPS` frames, one second) and sends it with FFmpeg's RTP muxer (RFC 6184, packetization-mode 1,
payload type 96) to HOST:PORT, as QGroundControl's "UDP h.264 Video Stream" receives it (SPS/PPS
repeated before every IDR, so a receiver may join at any time). The RTP timestamp is the frame's
simulated time at 90 kHz (plus the random start RFC 3550 asks for). A state the worker has not taken
when the next comes is dropped (counted): the bridge never waits for the picture.

An SDP file describing the stream (for ffplay, VLC, GStreamer) is written at the start. With the
environment variable ``AURGEN_VIDEO_STATES`` set to a path, each frame sent is logged there as a JSON
line (``pts`` in 1/90000 s, ``t`` in s, ``qpos``): a test draws the same states and compares.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import threading
from fractions import Fraction
from pathlib import Path

from aurgen.core.errors import AurgenError
from aurgen.runtime.sitl import camera as cammod

FPS = 30  # frames per second of simulated time
CLOCK = 90000  # RTP's clock for video, Hz
PAYLOAD_TYPE = 96  # RTP dynamic payload type (FFmpeg's RTP muxer's first)
PACKET = 1200  # bytes: RTP packet size (fits any path's MTU)
X264 = {"tune": "zerolatency", "profile": "baseline", "preset": "veryfast",
        "x264-params": f"keyint={FPS}:min-keyint={FPS}:scenecut=0:repeat-headers=1"}


def parse_url(url: str) -> tuple:
    """``udp://HOST:PORT`` as (host, port, IPv4 address); AurgenError naming ``--video`` otherwise."""
    scheme, sep, rest = url.partition("://")
    host, colon, port = rest.rpartition(":")
    if scheme.lower() != "udp" or not sep or not colon or not host or not port.isdigit() or "/" in rest:
        raise AurgenError(f"--video {url!r}: expected udp://HOST:PORT (e.g. udp://127.0.0.1:5600, QGroundControl's "
                          "default)")
    number = int(port)
    if not 1 <= number <= 65535:
        raise AurgenError(f"--video {url!r}: port {number} is not 1–65535")
    host = host.strip("[]")
    try:
        address = socket.getaddrinfo(host, number, socket.AF_INET, socket.SOCK_DGRAM)[0][4][0]
    except (socket.gaierror, UnicodeError) as exc:
        raise AurgenError(f"--video {url!r}: cannot resolve host {host!r} ({exc})") from None
    return host, number, address


def _import_av():
    try:
        import av
    except ImportError:
        raise AurgenError("--video needs PyAV (FFmpeg with libx264): pip install 'aurgen[video]' "
                          "(or '.[video]' in a checkout)") from None
    return av


def _encoder(av, size: tuple):
    cc = av.CodecContext.create("libx264", "w")
    cc.width, cc.height = size
    cc.pix_fmt = "yuv420p"
    cc.time_base = Fraction(1, CLOCK)
    cc.framerate = Fraction(FPS, 1)
    cc.gop_size = FPS
    cc.max_b_frames = 0
    cc.options = dict(X264)
    return cc


def parameter_sets(av, size: tuple) -> tuple:
    """(SPS, PPS) NAL units (bytes) the encoder writes at ``size``: one black frame encoded aside."""
    import numpy as np

    cc = _encoder(av, size)
    frame = av.VideoFrame.from_ndarray(np.zeros((size[1], size[0], 3), np.uint8), format="rgb24")
    frame.pts = 0
    data = b"".join(bytes(p) for p in cc.encode(frame.reformat(format="yuv420p")) + cc.encode(None))
    nals = {}
    for nal in data.replace(b"\x00\x00\x00\x01", b"\x00\x00\x01").split(b"\x00\x00\x01"):
        if nal:
            nals.setdefault(nal[0] & 0x1F, nal.rstrip(b"\x00"))
    if 7 not in nals or 8 not in nals:
        raise AurgenError("--video: libx264 wrote no SPS/PPS (is PyAV's FFmpeg built with libx264?)")
    return nals[7], nals[8]


def sdp(host_address: str, port: int, sps: bytes, pps: bytes, title: str) -> str:
    """The session description of the stream (RFC 4566, RFC 6184's H.264 parameters)."""
    sets = ",".join(base64.b64encode(n).decode() for n in (sps, pps))
    return (f"v=0\r\no=- 0 0 IN IP4 {host_address}\r\ns={title}\r\nc=IN IP4 {host_address}\r\nt=0 0\r\n"
            f"m=video {port} RTP/AVP {PAYLOAD_TYPE}\r\na=rtpmap:{PAYLOAD_TYPE} H264/{CLOCK}\r\n"
            f"a=fmtp:{PAYLOAD_TYPE} packetization-mode=1; sprop-parameter-sets={sets}; "
            f"profile-level-id={sps[1:4].hex()}\r\na=framerate:{FPS}\r\n")


class Plan:
    """What ``--video`` asks for, checked before anything runs: destination, camera, size, SDP path."""

    def __init__(self, args, sim, rig):
        self.av = _import_av()
        self.host, self.port, self.address = parse_url(args.video)
        self.cam = cammod.find(sim.model, rig)
        self.camera = cammod.name(sim.model, self.cam)
        size_text = getattr(args, "video_size", None)
        sensor = cammod.sensor_size(sim.model, self.cam)
        self.size = (cammod.parse_size(size_text) if size_text
                     else cammod.even_size(sensor) if sensor else (640, 480))
        sdp_path = getattr(args, "video_sdp", None)
        self.sdp_path = Path(sdp_path) if sdp_path else Path(f"{Path(str(args.model)).stem}.sdp")
        if not self.sdp_path.parent.is_dir() or self.sdp_path.is_dir():
            raise AurgenError(f"--video-sdp {self.sdp_path}: no such folder to write the SDP file in")
        try:
            self.sps, self.pps = parameter_sets(self.av, self.size)
        except AurgenError:
            raise
        except Exception as exc:  # noqa: BLE001 - FFmpeg's errors, e.g. no libx264
            raise AurgenError(f"--video: cannot encode H.264 with PyAV ({exc})") from None
        cammod.check_gl(sim.model, self.cam, self.size)


class Video:
    """The watcher: frames of ``plan``'s camera for ``bridge`` (:class:`~aurgen.runtime.sitl.bridge.Bridge`)
    streamed to ``plan``'s destination. Writes the SDP file and starts the worker."""

    def __init__(self, plan: Plan, bridge):
        self.plan, self.bridge = plan, bridge
        self.rendered = self.dropped = 0
        self.error = None
        self._next = 0.0  # simulated time of the next frame, s
        self._last_pts = -1
        self._box = None
        self._cond = threading.Condition()
        self._closing = False
        title = f"aurgen sitl {plan.camera}"
        plan.sdp_path.write_text(sdp(plan.address, plan.port, plan.sps, plan.pps, title))
        self._model = cammod.view_model(bridge.sim.model, plan.size)
        log = os.environ.get("AURGEN_VIDEO_STATES")
        self._log = open(log, "w") if log else None  # noqa: SIM115 - closed by close()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._work, name="aurgen-video", daemon=True)
        self._thread.start()
        self._ready.wait(30.0)
        if self.error:
            raise AurgenError(f"--video: {self.error}")

    def describe(self) -> str:
        p = self.plan
        return (f"  video: {p.camera} at {p.size[0]}x{p.size[1]}, {FPS} fps of simulated time, H.264 over RTP to "
                f"udp://{p.host}:{p.port}; SDP: {p.sdp_path}")

    def frame(self, sim) -> bool:
        """After a reply: hand the state over when a frame is due (never waits); always True."""
        t = self.bridge.counts.flown + float(sim.data.time)
        if t + 1e-9 < self._next:
            return True
        pts = round(t * CLOCK)
        if pts <= self._last_pts:
            return True
        self._last_pts = pts
        k = int(t * FPS + 1e-6) + 1
        self._next = k / FPS
        state = (pts, t, sim.data.qpos.copy())
        with self._cond:
            if self._box is not None:
                self.dropped += 1
            self._box = state
            self._cond.notify()
        return True

    def _work(self):
        av = self.plan.av
        try:
            drawer = cammod.Drawer(self._model, self.plan.cam, self.plan.size)
            out = av.open(f"rtp://{self.plan.address}:{self.plan.port}?pkt_size={PACKET}", "w", format="rtp")
            stream = out.add_stream("libx264", rate=FPS)
            cc = stream.codec_context
            cc.width, cc.height = self.plan.size
            cc.pix_fmt = "yuv420p"
            cc.time_base = Fraction(1, CLOCK)
            cc.gop_size = FPS
            cc.max_b_frames = 0
            cc.options = dict(X264)
            stream.time_base = Fraction(1, CLOCK)
        except Exception as exc:  # noqa: BLE001
            self.error = f"{type(exc).__name__}: {exc}"
            self._ready.set()
            return
        self._ready.set()
        try:
            while True:
                with self._cond:
                    while self._box is None and not self._closing:
                        self._cond.wait()
                    state, self._box = self._box, None
                if state is None:
                    break
                pts, t, qpos = state
                image = drawer.draw(qpos, t)
                frame = av.VideoFrame.from_ndarray(image, format="rgb24").reformat(format="yuv420p")
                frame.pts = pts
                frame.time_base = Fraction(1, CLOCK)
                for packet in stream.encode(frame):
                    out.mux(packet)
                self.rendered += 1
                if self._log is not None:
                    self._log.write(json.dumps({"pts": pts, "t": t, "qpos": qpos.tolist()}) + "\n")
            for packet in stream.encode(None):
                out.mux(packet)
        except Exception as exc:  # noqa: BLE001 - a broken stream ends the video, not the flight
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            try:
                out.close()
            except Exception:  # noqa: BLE001
                pass
            drawer.close()

    def status(self) -> str:
        """The status line's part: frames sent and dropped so far."""
        return f"video {self.rendered} sent, {self.dropped} dropped"

    def summary(self) -> str | None:
        self.close()  # the last state drawn and sent first, so the counts are final
        return (f"video: {self.rendered} frames sent, {self.dropped} dropped (not drawn in time)"
                + (f"; stopped: {self.error}" if self.error else ""))

    def close(self) -> None:
        if self._closing:
            return
        with self._cond:
            self._closing = True
            self._cond.notify()
        self._thread.join(30.0)
        if self._log is not None:
            self._log.close()
