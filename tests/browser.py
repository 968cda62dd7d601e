"""Headless Chromium for the tests, driven over the DevTools protocol: load a page, collect its
console errors, check its images, take a screenshot. Chromium comes from Debian's `chromium`
package (installed by .ci/run); tests skip where it is absent."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

#: Seconds to wait for the browser to start and the page to load.
TIMEOUT_S = 60


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Page:
    """What loading a page showed: console errors, images, a screenshot (PNG bytes)."""

    def __init__(self, errors: list[str], images: list[dict], screenshot: bytes, value=None):
        self.errors = errors
        self.images = images
        self.screenshot = screenshot
        self.value = value  # what `evaluate` returned (JSON-decoded)


def load(path: Path, width: int = 1200, height: int = 900, evaluate: str | None = None) -> Page:
    """Load `path` in a window of `width` × `height` CSS pixels; `evaluate` is a JavaScript
    expression giving a JSON string, run once the page has loaded."""
    import websocket

    # Chromium's helper processes may still be writing to the profile when the main one has
    # exited: what they leave behind is not the test's business.
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
        proc = subprocess.Popen(
            [
                chromium(),
                "--headless",
                "--no-sandbox",  # CI runs as root
                "--disable-gpu",
                "--remote-debugging-port=0",
                "--remote-allow-origins=*",
                f"--user-data-dir={profile}",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            port = _devtools_port(Path(profile) / "DevToolsActivePort", proc)
            targets = json.loads(
                urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list").read()
            )
            url = next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")
            ws = websocket.create_connection(url, timeout=TIMEOUT_S, suppress_origin=True)
            try:
                return _visit(_Session(ws), path, evaluate)
            finally:
                ws.close()
        finally:
            proc.terminate()
            proc.wait(timeout=TIMEOUT_S)


def _devtools_port(port_file: Path, proc: subprocess.Popen) -> int:
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        if port_file.is_file() and port_file.read_text().strip():
            return int(port_file.read_text().split()[0])
        if proc.poll() is not None:
            raise RuntimeError(f"chromium exited with status {proc.returncode}")
        time.sleep(0.1)
    raise TimeoutError("chromium did not open its DevTools port")


class _Session:
    """Commands and events over one DevTools websocket."""

    def __init__(self, ws):
        self.ws = ws
        self.next_id = 0
        self.events: list[dict] = []

    def send(self, method: str, **params) -> dict:
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg["result"]
            self.events.append(msg)

    def wait_for(self, method: str) -> dict:
        for e in self.events:
            if e.get("method") == method:
                return e
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            msg = json.loads(self.ws.recv())
            self.events.append(msg)
            if msg.get("method") == method:
                return msg
        raise TimeoutError(f"no {method}")


def _visit(s: _Session, path: Path, evaluate: str | None) -> Page:
    for domain in ("Page", "Runtime", "Log"):
        s.send(f"{domain}.enable")
    s.send("Page.navigate", url=path.resolve().as_uri())
    s.wait_for("Page.loadEventFired")
    images = s.send(
        "Runtime.evaluate",
        expression="JSON.stringify(Array.from(document.images).map(i => "
        "({alt: i.alt, complete: i.complete, width: i.naturalWidth, height: i.naturalHeight})))",
        returnByValue=True,
    )["result"]["value"]
    value = None
    if evaluate:
        value = json.loads(
            s.send("Runtime.evaluate", expression=evaluate, returnByValue=True)["result"]["value"]
        )
    shot = s.send("Page.captureScreenshot", format="png", captureBeyondViewport=True)
    errors = []
    for e in s.events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            errors.append(" ".join(str(a.get("value", a.get("description"))) for a in p["args"]))
        elif m == "Runtime.exceptionThrown":
            errors.append(p["exceptionDetails"].get("text", "exception"))
        elif m == "Log.entryAdded" and p["entry"]["level"] == "error":
            errors.append(p["entry"]["text"])
    return Page(errors, json.loads(images), base64.b64decode(shot["data"]), value)
