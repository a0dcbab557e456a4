#!/usr/bin/env python3
"""Loads a Trace Event JSON file into Chrome DevTools' own trace engine (the Performance panel's
importer, bundled in Chromium as devtools://devtools/bundled/) in headless Chromium, through
drive.py's browser, and prints what it read as one JSON object: per thread, the CPU profile's
samples (each its node's function and time) and the trace events the panel draws on the thread's
track (stalls, and the calls it made of the samples, `ProfileCall`, with their function, start and
length). Times are microseconds, as in the file.

    trace.py TRACE.json
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import drive

PARSE = r"""
(async function (events) {
  const Trace = await import('./models/trace/trace.js');
  const model = Trace.TraceModel.Model.createWithAllHandlers();
  await model.parse(events, { isFreshRecording: false, metadata: {} });
  const data = model.parsedTrace(0).data;
  const profiles = [];
  for (const [pid, threads] of data.Samples.profilesInProcess) {
    for (const [tid, entry] of threads) {
      const profile = entry.parsedProfile;
      profiles.push({ pid: pid, tid: tid, samples: profile.samples.map(function (id, index) {
        const node = profile.nodeById(id);
        return { function: node ? node.functionName : null, url: node ? node.url : null,
          line: node ? node.lineNumber : null, ts: profile.timestamps[index] * 1000 };
      }) });
    }
  }
  const tracks = [];
  for (const [pid, process] of data.Renderer.processes) {
    for (const [tid, thread] of process.threads) {
      tracks.push({ pid: pid, tid: tid, name: thread.name || '', entries: (thread.entries || []).map(function (e) {
        return { name: e.name, function: e.callFrame ? e.callFrame.functionName : null, ts: e.ts, dur: e.dur || 0 };
      }) });
    }
  }
  return JSON.stringify({ profiles: profiles, tracks: tracks });
})
"""


def main():
    with open(sys.argv[1], encoding="utf-8") as file:
        trace = json.load(file)
    browser = drive.Browser(800, 600)
    try:
        target = browser.send("Target.createTarget", url="devtools://devtools/bundled/devtools_app.html")["targetId"]
        session = browser.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        # The page must have loaded before its modules import (each wait bounded by the deadline).
        ready = "location.protocol === 'devtools:' && document.readyState === 'complete'"
        while not browser.evaluate(session, ready):
            browser.evaluate(session, "new Promise(function (r) { setTimeout(r, 20); })")
        events = trace["traceEvents"] if isinstance(trace, dict) else trace
        print(browser.evaluate(session, f"{PARSE}({json.dumps(events)})"))
    finally:
        browser.close()


if __name__ == "__main__":
    main()
