"""`arh guard hook --server URL`: the event posted to a daemon (serve.py), its reply
given back as the hook's own (body on stdout, exit code and stderr in headers)."""

from __future__ import annotations

import json
import urllib.request
from urllib.parse import quote

from .events import Reply

__all__ = ["post"]


def post(server: str, body: bytes, dialect: str, timeout: float) -> Reply:
    url = server.rstrip("/") + "/hook/" + quote(dialect)
    request = urllib.request.Request(
        url, data=body, method="POST", headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        text = response.read().decode("utf-8")
        code = int(response.headers.get("X-Arh-Exit-Code", "0"))
        stderr = json.loads(response.headers.get("X-Arh-Stderr", '""'))
    return Reply(text, stderr if isinstance(stderr, str) else "", code)
