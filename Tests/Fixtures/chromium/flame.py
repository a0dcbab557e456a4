#!/usr/bin/env python3
"""Drives one flame graph of a lagmon HTML page in headless Chromium (drive.py's browser, over the
DevTools pipe) as a person would, step by step, and prints one JSON array: what the graph showed at
each `measure` step (its box, status line, reset button, and every frame: name, samples, offset,
depth, drawn box (its rect's, which a long label does not widen), classes, label).

    flame.py PAGE WIDTH HEIGHT GRAPH STEP...

GRAPH is a CSS selector of the graph's section (`#flame-all`). Steps, in order:
  search=TEXT   types TEXT into the graph's search box (real key input)
  click=NAME    clicks the middle of the first drawn frame whose function is NAME (real mouse)
  enter=NAME    focuses that frame and presses Enter
  escape        presses Escape on the focused frame
  reset         clicks the Reset zoom button
  measure       measures the graph
  shot=PNG      a screenshot of the window, the graph scrolled into view
"""
import base64
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import drive

MEASURE = r"""
(function (selector) {
  var graph = document.querySelector(selector + ' div.flame-graph'), svg = graph.querySelector('svg.flame');
  function box(el) { var r = el.getBoundingClientRect(); return { left: r.left, right: r.right, width: r.width, height: r.height }; }
  var frames = Array.from(svg.querySelectorAll('svg.frame')).map(function (el) {
    // A frame's box is its rect's: the frame's own svg box also spans a label wider than the frame,
    // which the frame's viewport clips on screen.
    var text = el.querySelector('text'), drawn = el.getClientRects().length > 0;
    var frame = box(el.querySelector('rect'));
    frame.name = el.querySelector('title').textContent.split('\n')[0];
    frame.title = el.querySelector('title').textContent;
    frame.samples = +el.dataset.n; frame.offset = +el.dataset.o; frame.depth = +el.dataset.d; frame.drawn = drawn;
    frame.classes = el.getAttribute('class').split(' ');
    frame.label = text && drawn && text.getClientRects().length > 0 ? text.textContent : null;
    frame.fill = getComputedStyle(el.querySelector('rect')).fill;
    return frame;
  });
  return JSON.stringify({ graph: box(svg), status: graph.querySelector('.flame-status').textContent,
    resetDisabled: graph.querySelector('.flame-reset').disabled, frames: frames });
})
"""

FRAME_CENTER = r"""
(function (selector, name) {
  var frame = Array.from(document.querySelectorAll(selector + ' svg.frame')).find(function (el) {
    return el.getClientRects().length > 0 && el.querySelector('title').textContent.split('\n')[0] === name;
  });
  if (!frame) return 'null';
  frame.scrollIntoView({ block: 'center' });
  var r = frame.querySelector('rect').getBoundingClientRect();
  return JSON.stringify({ x: r.left + r.width / 2, y: r.top + r.height / 2 });
})
"""


def key(browser, session, name, code):
    for kind in ("keyDown", "keyUp"):
        browser.send("Input.dispatchKeyEvent", session, type=kind, key=name, code=name,
                     windowsVirtualKeyCode=code, nativeVirtualKeyCode=code)


def frame_center(browser, session, graph, name):
    found = json.loads(browser.evaluate(session, f"{FRAME_CENTER}({json.dumps(graph)}, {json.dumps(name)})"))
    if found is None:
        raise SystemExit(f"flame.py: no drawn frame named {name!r} in {graph}")
    return found


def click(browser, session, x, y):
    browser.send("Input.dispatchMouseEvent", session, type="mouseMoved", x=x, y=y)
    for kind in ("mousePressed", "mouseReleased"):
        browser.send("Input.dispatchMouseEvent", session, type=kind, x=x, y=y, button="left", clickCount=1)


def step(browser, session, graph, action, results):
    frame = "new Promise(function (r) { requestAnimationFrame(function () { requestAnimationFrame(r); }); })"
    name, _, value = action.partition("=")
    if name == "search":
        browser.evaluate(session, f"document.querySelector({json.dumps(graph + ' .flame-search')}).focus()")
        browser.send("Input.insertText", session, text=value)
    elif name == "click":
        center = frame_center(browser, session, graph, value)
        click(browser, session, center["x"], center["y"])
    elif name == "enter":
        frame_center(browser, session, graph, value)
        browser.evaluate(session, f"""Array.from(document.querySelectorAll({json.dumps(graph + ' svg.frame')}))
            .find(function (el) {{ return el.querySelector('title').textContent.split('\\n')[0] === {json.dumps(value)}; }})
            .focus()""")
        key(browser, session, "Enter", 13)
    elif name == "escape":
        key(browser, session, "Escape", 27)
    elif name == "reset":
        box = json.loads(browser.evaluate(session, f"""(function () {{
            var b = document.querySelector({json.dumps(graph + ' .flame-reset')}); b.scrollIntoView({{ block: 'center' }});
            var r = b.getBoundingClientRect(); return JSON.stringify({{ x: r.left + r.width / 2, y: r.top + r.height / 2 }});
        }})()"""))
        click(browser, session, box["x"], box["y"])
    elif name == "measure":
        results.append(json.loads(browser.evaluate(session, f"{MEASURE}({json.dumps(graph)})")))
    elif name == "shot":
        browser.evaluate(session, f"document.querySelector({json.dumps(graph)}).scrollIntoView()")
        browser.evaluate(session, frame)
        data = browser.send("Page.captureScreenshot", session, format="png")["data"]
        with open(value, "wb") as out:
            out.write(base64.b64decode(data))
    else:
        raise SystemExit(f"flame.py: unknown step {action!r}")
    browser.evaluate(session, frame)


def main():
    page, width, height, graph = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    browser = drive.Browser(width, height)
    results = []
    try:
        target = browser.send("Target.createTarget", url="about:blank")["targetId"]
        session = browser.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        browser.send("Emulation.setDeviceMetricsOverride", session, width=width, height=height,
                     deviceScaleFactor=1, mobile=False)
        browser.send("Page.navigate", session, url="file://" + os.path.abspath(page))
        while browser.evaluate(session, "document.body && document.body.dataset.ready || ''") != "yes":
            browser.evaluate(session, "new Promise(function (r) { setTimeout(r, 20); })")
        for action in sys.argv[5:]:
            step(browser, session, graph, action, results)
        print(json.dumps(results))
    finally:
        browser.close()


if __name__ == "__main__":
    main()
