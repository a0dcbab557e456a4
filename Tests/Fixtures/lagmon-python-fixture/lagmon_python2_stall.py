"""The Python 2.7 twin of lagmon_python_stall.py (2.7 has no asyncio, f-strings or async def):
a loop waiting in select.epoll stalls in a named function, for lagmon's interpreter frame tests.

    python2.7 lagmon_python2_stall.py stall    # ticks, then 500 ms of JSON parsing in parse_feed
                                               # (called by handle_request), then ticks
    python2.7 lagmon_python2_stall.py native   # starts a thread that runs no Python code (a plain
                                               # pthread in libc's pause(), created via ctypes),
                                               # prints its tid, then parses in parse_feed (called
                                               # by handle_request) for 60 s, without the loop

Lines on stdout are the truths the tests compare with: `hot line=N` is the line parse_feed
spends its time on, `native tid=N` the native thread.
"""
# This file must parse as Python 2.7: no f-strings, and print needs the __future__ import.
# ruff: noqa: UP010, UP031
from __future__ import print_function

import ctypes
import ctypes.util
import json
import os
import select
import sys
import time

PAYLOAD = json.dumps({"items": [{"id": i, "title": "entry %d" % i, "tags": ["a", "b"]} for i in range(200)]})


def parse_feed(payload, seconds):
    deadline = time.time() + seconds
    while json.loads(payload) and time.time() < deadline: pass  # one line: the hot line


HOT_LINE = parse_feed.__code__.co_firstlineno + 2


def handle_request(seconds=0.5):
    parse_feed(PAYLOAD, seconds)


def ticks(poller, count):
    for _ in range(count):
        poller.poll(0.02)


def main():
    poller = select.epoll()
    ticks(poller, 5)
    print("stalling")
    sys.stdout.flush()
    handle_request()
    ticks(poller, 5)
    print("done")
    sys.stdout.flush()


def start_native_thread():
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    handle = ctypes.c_ulong()
    pause = ctypes.cast(libc.pause, ctypes.c_void_p)
    if libc.pthread_create(ctypes.byref(handle), None, pause, None) != 0:
        raise SystemExit("pthread_create failed")
    # The new thread is the only one besides the main thread.
    while True:
        tids = [int(t) for t in os.listdir("/proc/self/task") if int(t) != os.getpid()]
        if tids:
            return tids[0]


if __name__ == "__main__":
    print("hot line=%d" % HOT_LINE)
    sys.stdout.flush()
    if len(sys.argv) > 1 and sys.argv[1] == "native":
        print("native tid=%d" % start_native_thread())
        sys.stdout.flush()
        handle_request(60)
    else:
        main()
