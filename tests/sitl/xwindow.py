"""A window manager's close button and a screenshot, over Xlib (ctypes on libX11): for the ``--view``
test under a virtual display (Xvfb).

``close(display, title)`` does what a window manager does when the user clicks a window's close button
(ICCCM 2.0, section 4.2.8.1 "Window Deletion"): it sends the top-level window a ``ClientMessage`` of
type ``WM_PROTOCOLS`` carrying ``WM_DELETE_WINDOW``. GLFW handles exactly this (``src/x11_window.c``,
``processEvent``, ``case ClientMessage``: ``wmDeleteWindow`` -> ``_glfwInputWindowCloseRequest``), which
is what MuJoCo's viewer sees as the window closed. ``screenshot(display, title)`` reads the window's
pixels (``XGetImage``, ZPixmap, 24-bit TrueColor as Xvfb's default visual gives)."""
from __future__ import annotations

import contextlib
import ctypes
import ctypes.util

import numpy as np

_lib = None


def _x11():
    global _lib
    if _lib is None:
        name = ctypes.util.find_library("X11")
        if name is None:
            raise OSError("libX11 not found")
        lib = ctypes.CDLL(name)
        lib.XOpenDisplay.restype = ctypes.c_void_p
        lib.XOpenDisplay.argtypes = [ctypes.c_char_p]
        lib.XDefaultRootWindow.restype = ctypes.c_ulong
        lib.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
        lib.XQueryTree.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(ctypes.c_ulong),
                                   ctypes.POINTER(ctypes.c_ulong), ctypes.POINTER(ctypes.POINTER(ctypes.c_ulong)),
                                   ctypes.POINTER(ctypes.c_uint)]
        lib.XFetchName.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(ctypes.c_char_p)]
        lib.XInternAtom.restype = ctypes.c_ulong
        lib.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
        lib.XSendEvent.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_long, ctypes.c_void_p]
        lib.XFlush.argtypes = [ctypes.c_void_p]
        lib.XFree.argtypes = [ctypes.c_void_p]
        lib.XCloseDisplay.argtypes = [ctypes.c_void_p]
        lib.XGetWindowAttributes.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_void_p]
        lib.XGetImage.restype = ctypes.c_void_p
        lib.XGetImage.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_int, ctypes.c_uint,
                                  ctypes.c_uint, ctypes.c_ulong, ctypes.c_int]
        lib.XGetPixel.restype = ctypes.c_ulong
        lib.XGetPixel.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
        _lib = lib
    return _lib


class _ClientMessage(ctypes.Structure):  # XClientMessageEvent, format 32
    _fields_ = [("type", ctypes.c_int), ("serial", ctypes.c_ulong), ("send_event", ctypes.c_int),
                ("display", ctypes.c_void_p), ("window", ctypes.c_ulong), ("message_type", ctypes.c_ulong),
                ("format", ctypes.c_int), ("data", ctypes.c_long * 5)]


class _XEvent(ctypes.Union):
    _fields_ = [("xclient", _ClientMessage), ("pad", ctypes.c_long * 24)]


class _Attributes(ctypes.Structure):  # XWindowAttributes, the leading fields
    _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_int), ("width", ctypes.c_int), ("height", ctypes.c_int),
                ("rest", ctypes.c_char * 256)]


CLIENT_MESSAGE = 33  # X.h
Z_PIXMAP = 2
ALL_PLANES = 0xFFFFFFFF


def _windows(lib, dpy, window):
    root, parent = ctypes.c_ulong(), ctypes.c_ulong()
    children, n = ctypes.POINTER(ctypes.c_ulong)(), ctypes.c_uint()
    if not lib.XQueryTree(dpy, window, ctypes.byref(root), ctypes.byref(parent), ctypes.byref(children),
                          ctypes.byref(n)):
        return []
    out = [children[i] for i in range(n.value)]
    if children:
        lib.XFree(children)
    return out


def find(display: str, title: str):
    """(Display*, window) of the first top-level window whose name contains ``title``; (dpy, None) when
    none (the caller closes ``dpy`` with ``release``)."""
    lib = _x11()
    dpy = lib.XOpenDisplay(display.encode())
    if not dpy:
        raise OSError(f"cannot open X display {display}")
    for w in _windows(lib, dpy, lib.XDefaultRootWindow(dpy)):
        name = ctypes.c_char_p()
        if lib.XFetchName(dpy, w, ctypes.byref(name)) and name.value is not None:
            found = title.encode() in name.value
            lib.XFree(name)
            if found:
                return dpy, w
    return dpy, None


def release(dpy) -> None:
    _x11().XCloseDisplay(dpy)


@contextlib.contextmanager
def window(display: str, title: str):
    """(Xlib, Display*, window or None) of :func:`find`, the display closed after."""
    dpy, w = find(display, title)
    try:
        yield _x11(), dpy, w
    finally:
        release(dpy)


def title_of(display: str, title: str) -> str | None:
    """The full name of the first top-level window whose name contains ``title``; None when none."""
    with window(display, title) as (lib, dpy, w):
        if w is None:
            return None
        name = ctypes.c_char_p()
        lib.XFetchName(dpy, w, ctypes.byref(name))
        text = name.value.decode()
        lib.XFree(name)
        return text


def close(display: str, title: str) -> bool:
    """Ask the window named like ``title`` to close, as a window manager's close button does; False when
    there is no such window."""
    with window(display, title) as (lib, dpy, w):
        if w is None:
            return False
        ev = _XEvent()
        ev.xclient.type = CLIENT_MESSAGE
        ev.xclient.window = w
        ev.xclient.message_type = lib.XInternAtom(dpy, b"WM_PROTOCOLS", 0)
        ev.xclient.format = 32
        ev.xclient.data[0] = lib.XInternAtom(dpy, b"WM_DELETE_WINDOW", 0)
        ev.xclient.data[1] = 0  # CurrentTime
        lib.XSendEvent(dpy, w, 0, 0, ctypes.byref(ev))
        lib.XFlush(dpy)
        return True


def screenshot(display: str, title: str, every: int = 8) -> np.ndarray | None:
    """The window's pixels, every ``every``-th in each direction, (rows, columns, 3) uint8 RGB; None when
    there is no such window. (The XImage is left to the process's end: XDestroyImage is a macro.)"""
    with window(display, title) as (lib, dpy, w):
        if w is None:
            return None
        a = _Attributes()
        lib.XGetWindowAttributes(dpy, w, ctypes.byref(a))
        img = lib.XGetImage(dpy, w, 0, 0, a.width, a.height, ALL_PLANES, Z_PIXMAP)
        if not img:
            return None
        px = np.array([[lib.XGetPixel(img, x, y) for x in range(0, a.width, every)] for y in range(0, a.height, every)],
                      dtype=np.uint32)
        return np.stack([(px >> 16) & 255, (px >> 8) & 255, px & 255], axis=-1).astype(np.uint8)
