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


# a sweep's inputs (``aurgen sweep``'s sweep.md, :mod:`aurgen.check.audit_sweep`): one per line in its text,
# 'input KEY: VALUE' (KEY 'aurgen', 'sweep <file>', 'vehicle <file>' or 'part <type>'; VALUE a version,
# 'sha256:<hex>' or 'absent'); the seal's config sha256 is :func:`inputs_sha` of them
INPUT_RE = re.compile(r"^    input (?P<key>[^\n:]+): (?P<value>\S+)$", re.ASCII | re.MULTILINE)


def inputs_sha(inputs: dict) -> str:
    """The sha256 of ``inputs`` ({key: value}) in a canonical form (sorted, one 'key: value' a line)."""
    return sha("".join(f"{k}: {v}\n" for k, v in sorted(inputs.items())))


def inputs_text(inputs: dict) -> str:
    """``inputs`` as the indented lines :func:`inputs_of_text` reads back."""
    return "".join(f"    input {k}: {v}\n" for k, v in sorted(inputs.items()))


def inputs_of_text(text: str) -> dict:
    """The inputs listed in ``text`` by :func:`inputs_text`."""
    return {m["key"]: m["value"] for m in INPUT_RE.finditer(text)}
