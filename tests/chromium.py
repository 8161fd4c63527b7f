"""A headless Chromium driven over the DevTools protocol, for the replay page's tests.

The protocol runs over a pipe (``--remote-debugging-pipe``: the browser reads commands on its
file descriptor 3 and writes answers and events on 4, each message JSON ended by a NUL byte), so
no websocket client, no port and no extra package are needed.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def find_browser() -> str | None:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """One headless browser with one page; ``call`` sends a command and returns its result."""

    def __init__(self, width: int = 1500, height: int = 1000, timeout: float = 60.0):
        path = find_browser()
        if path is None:
            raise RuntimeError(f"no browser found (looked for {', '.join(BROWSERS)})")
        self.timeout = timeout
        self._profile = tempfile.TemporaryDirectory(prefix="nos-view-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # The browser's ends move to descriptors above 4 first, so that putting them on 3 and 4
        # below cannot overwrite one with the other.
        to_browser_r, from_browser_w = (self._high(to_browser_r), self._high(from_browser_w))
        args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--hide-scrollbars", f"--window-size={width},{height}", f"--user-data-dir={self._profile.name}",
                "--remote-debugging-pipe", "about:blank"]
        # bash (dash takes single-digit descriptors only) puts the pipe ends on the descriptors
        # 3 and 4 the browser expects, then becomes the browser.
        self.process = subprocess.Popen(
            ["bash", "-c", f'exec "$0" "$@" 3<&{to_browser_r} 4>&{from_browser_w}', path, *args],
            pass_fds=(to_browser_r, from_browser_w), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []
        self.session: str | None = None
        target = self.call("Target.createTarget", {"url": "about:blank"}, browser_level=True)["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 browser_level=True)["sessionId"]
        # The page's own size (the window's includes the browser's frame in new headless mode).
        self.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height,
                                                         "deviceScaleFactor": 1, "mobile": False})
        self.call("Page.enable")
        self.call("Runtime.enable")

    @staticmethod
    def _high(fd: int) -> int:
        moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(fd)
        return moved

    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_browser], [], [], left)[0]:
                raise TimeoutError("the browser did not answer in time")
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("the browser closed its pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, params: dict | None = None, browser_level: bool = False) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if self.session and not browser_level:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def wait_for_event(self, method: str) -> dict:
        deadline = time.monotonic() + self.timeout
        while True:
            for k, event in enumerate(self.events):
                if event.get("method") == method:
                    return self.events.pop(k)
            self.events.append(self._read_message(deadline))

    def open(self, url: str) -> None:
        """Load ``url`` afresh (through about:blank: a change of #fragment alone loads nothing)."""
        for address in ("about:blank", url):
            self.events.clear()
            self.call("Page.navigate", {"url": address})
            self.wait_for_event("Page.loadEventFired")

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def press(self, key: str, code: str, key_code: int) -> None:
        """A real key press (down and up), as the keyboard would send it."""
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", {"type": kind, "key": key, "code": code,
                                                 "windowsVirtualKeyCode": key_code})

    def screenshot(self) -> bytes:
        return base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"})["data"])

    def close(self) -> None:
        try:
            self.call("Browser.close", browser_level=True)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)
        self._profile.cleanup()

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
