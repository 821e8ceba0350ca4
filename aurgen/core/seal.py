"""A generated set's seal: one line at the end of its text file naming aurgen's version, the config
it was made from (file name and the composed vehicle's sha256), the sha256 of each other file of the
set and of the text above the line, so ``aurgen audit`` can say that a file of the set was edited,
added or removed, and that the config changed since (:func:`seal`, :func:`unseal`). Pure.
"""

from __future__ import annotations

import hashlib
import re

SEAL_RE = re.compile(r"<!-- aurgen (?P<version>[^\s;]+) seal: config (?P<config>[^\s;]+) sha256:(?P<sha>[0-9a-f]{64}); "
                     r"files(?P<files>(?: [^\s:;]+:[0-9a-f]{64})*); text sha256:(?P<text>[0-9a-f]{64}) -->\n\Z",
                     re.ASCII)


def sha(data) -> str:
    return hashlib.sha256(data.encode("utf-8") if isinstance(data, str) else data).hexdigest()


def seal(text: str, version: str, config: str, config_sha: str, files: dict) -> str:
    """``text`` (ending in a newline) with the seal line appended; ``files``: {file name: bytes}."""
    listed = "".join(f" {n}:{sha(b)}" for n, b in sorted(files.items()))
    return text + f"<!-- aurgen {version} seal: config {config} sha256:{config_sha}; files{listed}; text sha256:{sha(text)} -->\n"


def unseal(text: str):
    """(the text above the seal, {version, config, sha, files: {name: sha256}, text_ok}) or None without a seal."""
    k = text.rfind("<!-- aurgen ", 0, len(text) - 1)
    m = SEAL_RE.fullmatch(text[k:]) if k >= 0 else None
    if m is None:
        return None
    body = text[:k]
    files = dict(p.split(":") for p in m["files"].split())
    return body, {"version": m["version"], "config": m["config"], "sha": m["sha"], "files": files,
                  "text_ok": sha(body) == m["text"]}
