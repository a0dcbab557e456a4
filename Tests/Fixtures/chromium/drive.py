#!/usr/bin/env python3
"""Opens an HTML report in headless Chromium and drives it over the DevTools protocol (through
--remote-debugging-pipe: no port, no network), as a person would: the page loads at a given
window width, optionally a mouse drag across the timeline's plot, then the layout is measured in
the browser (axis labels and their boxes, rendered font sizes, culprit cells, alert squares, page
height) and printed as one JSON object. Every wait is bounded by a deadline.

    drive.py PAGE WIDTH HEIGHT [--resize WIDTH] [--drag FROM TO] [--screenshot PNG [--scroll SELECTOR]]

FROM and TO are fractions of the timeline plot's width (0.25 0.5: drag from a quarter to the
middle).
"""
import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

DEADLINE_SECONDS = 45

MEASURE = r"""
(function () {
  // Drawn: laid out and not inside a closed <details>.
  function shown(el) { return !el.closest('details:not([open])') && el.getClientRects().length > 0; }
  function box(el) { var r = el.getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height }; }
  function axis(selector) {
    var chart = document.querySelector(selector);
    if (!chart) return null;
    return { plot: box(chart.querySelector('svg.plot .plot-bg')),
      ticks: Array.from(chart.querySelectorAll('g.axis text')).map(function (t) { var b = box(t); b.label = t.textContent; return b; }) };
  }
  var fonts = Array.from(document.querySelectorAll('svg.chart text')).filter(shown)
    .map(function (t) { return parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a; });
  var culprits = Array.from(document.querySelectorAll('td.culprit')).filter(shown)
    .map(function (td) { var b = box(td); b.scrollWidth = td.scrollWidth; b.clientWidth = td.clientWidth; b.text = td.textContent; b.title = td.title; return b; });
  return JSON.stringify({
    viewportWidth: window.innerWidth, pageWidth: document.documentElement.scrollWidth,
    pageHeight: document.documentElement.scrollHeight, span: +document.body.dataset.spanSeconds,
    fonts: fonts, timeline: axis('svg.timeline'), cpu: axis('svg.cpu-chart'),
    zoomText: (document.getElementById('zoom-range') || {}).textContent || '',
    culprits: culprits,
    tables: Array.from(document.querySelectorAll('table')).filter(shown).map(box),
    alerts: Array.from(document.querySelectorAll('rect.alert')).map(box),
    stallRows: document.querySelectorAll('table.stall-table tbody tr').length,
    visibleStallRows: Array.from(document.querySelectorAll('table.stall-table tbody tr')).filter(shown).length,
    summaries: Array.from(document.querySelectorAll('summary')).map(function (s) { return s.textContent; })
  });
})()
"""


class Browser:
    def __init__(self, width, height):
        self.profile = tempfile.mkdtemp(prefix="lagmon-chromium-")
        to_read, to_write = os.pipe()
        from_read, from_write = os.pipe()
        # Chromium reads commands on fd 3 and writes replies on fd 4.
        child_in, child_out = os.dup(to_read), os.dup(from_write)

        def place():
            os.dup2(child_in, 3)
            os.dup2(child_out, 4)

        self.process = subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
             "--remote-debugging-pipe", "--user-data-dir=" + self.profile,
             f"--window-size={width},{height}", "about:blank"],
            # No thread runs in this script, so the fork-then-dup2 of preexec_fn is safe here.
            pass_fds=(3, 4), preexec_fn=place,  # noqa: PLW1509
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for fd in (to_read, from_write, child_in, child_out):
            os.close(fd)
        self.write, self.read = to_write, from_read
        self.buffer = b""
        self.next_id = 0
        self.deadline = time.monotonic() + DEADLINE_SECONDS

    def close(self):
        # Past the deadline (SystemExit) or a broken pipe, the browser is killed all the same.
        self.deadline = min(self.deadline, time.monotonic() + 5)
        with contextlib.suppress(SystemExit, OSError):
            self.send("Browser.close")
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)

    def message(self):
        while b"\0" not in self.buffer:
            left = self.deadline - time.monotonic()
            if left <= 0 or not select.select([self.read], [], [], left)[0]:
                raise SystemExit(f"drive.py: chromium did not answer within {DEADLINE_SECONDS} s")
            chunk = os.read(self.read, 1 << 20)
            if not chunk:
                raise SystemExit("drive.py: chromium closed the DevTools pipe")
            self.buffer += chunk
        text, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(text)

    def send(self, method, session=None, **params):
        self.next_id += 1
        command = {"id": self.next_id, "method": method, "params": params}
        if session:
            command["sessionId"] = session
        os.write(self.write, json.dumps(command).encode() + b"\0")
        while True:
            reply = self.message()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise SystemExit(f"drive.py: {method} failed: {reply['error']}")
                return reply.get("result", {})

    def evaluate(self, session, expression):
        result = self.send("Runtime.evaluate", session, expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            raise SystemExit(f"drive.py: script failed: {result['exceptionDetails']}")
        return result["result"].get("value")


def main():
    page, width, height = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rest = sys.argv[4:]
    drag = (float(rest[rest.index("--drag") + 1]), float(rest[rest.index("--drag") + 2])) if "--drag" in rest else None
    shot = rest[rest.index("--screenshot") + 1] if "--screenshot" in rest else None
    scroll = rest[rest.index("--scroll") + 1] if "--scroll" in rest else None
    resize = int(rest[rest.index("--resize") + 1]) if "--resize" in rest else None
    browser = Browser(width, height)
    try:
        target = browser.send("Target.createTarget", url="about:blank")["targetId"]
        session = browser.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        browser.send("Emulation.setDeviceMetricsOverride", session, width=width, height=height,
                     deviceScaleFactor=1, mobile=False)
        browser.send("Page.navigate", session, url="file://" + os.path.abspath(page))
        # The page's script marks the body when it has run (bounded by the browser's deadline).
        while browser.evaluate(session, "document.body && document.body.dataset.ready || ''") != "yes":
            browser.evaluate(session, "new Promise(function (r) { setTimeout(r, 20); })")
        frame = "new Promise(function (r) { requestAnimationFrame(function () { requestAnimationFrame(r); }); })"
        browser.evaluate(session, frame)
        if resize:
            # The window changes width after the page has laid itself out (a person resizing it).
            browser.send("Emulation.setDeviceMetricsOverride", session, width=resize, height=height,
                         deviceScaleFactor=1, mobile=False)
            browser.evaluate(session, frame)
            browser.evaluate(session, frame)
        if drag:
            plot = json.loads(browser.evaluate(session, """(function () {
                var plot = document.querySelector('svg.timeline svg.plot .plot-bg'); plot.scrollIntoView({ block: 'center' });
                var r = plot.getBoundingClientRect(); return JSON.stringify({ left: r.left, width: r.width, y: r.top + r.height / 2 });
            })()"""))
            x0, x1 = plot["left"] + drag[0] * plot["width"], plot["left"] + drag[1] * plot["width"]
            browser.send("Input.dispatchMouseEvent", session, type="mouseMoved", x=x0, y=plot["y"])
            browser.send("Input.dispatchMouseEvent", session, type="mousePressed", x=x0, y=plot["y"], button="left",
                         buttons=1, clickCount=1)
            for step in range(1, 6):
                browser.send("Input.dispatchMouseEvent", session, type="mouseMoved", x=x0 + (x1 - x0) * step / 5,
                             y=plot["y"], button="left", buttons=1)
            browser.send("Input.dispatchMouseEvent", session, type="mouseReleased", x=x1, y=plot["y"], button="left",
                         buttons=0, clickCount=1)
            browser.evaluate(session, frame)
        measured = json.loads(browser.evaluate(session, MEASURE))
        if shot:
            if scroll:
                browser.evaluate(session, f"document.querySelector({json.dumps(scroll)}).scrollIntoView()")
                browser.evaluate(session, frame)
            data = browser.send("Page.captureScreenshot", session, format="png")["data"]
            with open(shot, "wb") as out:
                out.write(base64.b64decode(data))
        print(json.dumps(measured))
    finally:
        browser.close()


if __name__ == "__main__":
    main()
