"""A Python program that stalls its asyncio loop in a named function, for lagmon's interpreter
frame tests (any CPython 3.6+).

    python3 lagmon_python_stall.py stall    # ticks, then 500 ms of JSON parsing in parse_feed
                                            # (called by handle_request), then ticks
    python3 lagmon_python_stall.py wait     # as `stall`, after a line on stdin (for attach)
    python3 lagmon_python_stall.py native   # starts a thread that runs no Python code (a plain
                                            # pthread in libc's pause(), created via ctypes),
                                            # prints its tid, then parses in parse_feed (called by
                                            # handle_request) for 60 s, without asyncio

Lines on stdout are the truths the tests compare with: `hot line=N` is the line parse_feed
spends its time on, `native tid=N` the native thread.
"""
import asyncio
import ctypes
import ctypes.util
import json
import os
import sys
import time

PAYLOAD = json.dumps({"items": [{"id": i, "title": f"entry {i}", "tags": ["a", "b"]} for i in range(200)]})


def parse_feed(payload, seconds):
    deadline = time.monotonic() + seconds
    while json.loads(payload) and time.monotonic() < deadline: pass  # one line: the hot line


HOT_LINE = parse_feed.__code__.co_firstlineno + 2


def handle_request(seconds=0.5):
    parse_feed(PAYLOAD, seconds)


async def ticks(count):
    for _ in range(count):
        await asyncio.sleep(0.02)


async def main():
    await ticks(5)
    print("stalling", flush=True)
    handle_request()
    await ticks(5)
    print("done", flush=True)


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
    print(f"hot line={HOT_LINE}", flush=True)
    if len(sys.argv) > 1 and sys.argv[1] == "native":
        print(f"native tid={start_native_thread()}", flush=True)
        handle_request(60)
    else:
        if len(sys.argv) > 1 and sys.argv[1] == "wait":
            print(f"waiting pid={os.getpid()}", flush=True)
            sys.stdin.readline()
        if hasattr(asyncio, "run"):
            asyncio.run(main())
        else:  # 3.6: closed as asyncio.run closes it, so the loop ends here and the
            # interpreter's teardown after it (slow on a loaded machine) is no stall of its
            loop = asyncio.get_event_loop()
            loop.run_until_complete(main())
            loop.close()
