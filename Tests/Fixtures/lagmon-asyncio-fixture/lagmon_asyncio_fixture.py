"""An asyncio program for lagmon's wait-call probe tests.

    python3 lagmon_asyncio_fixture.py stall   # 5 ticks of 20 ms, a synchronous 250 ms sleep in a
                                              # coroutine, 5 more ticks
    python3 lagmon_asyncio_fixture.py monotonic # 5 ticks, 300 ms of time.monotonic() calls in a
                                              # coroutine (samples land in the vDSO), 5 ticks
    python3 lagmon_asyncio_fixture.py idle    # 25 ticks of 20 ms, nothing else
    python3 lagmon_asyncio_fixture.py lock    # 5 ticks; a thread "lock-holder" takes a
                                              # threading.Lock and spins 400 ms holding it while
                                              # a coroutine waits for it; 5 ticks
    python3 lagmon_asyncio_fixture.py bench N # N loop iterations that only yield (each polls the
                                              # selector once, timeout 0); prints iterations/s

Lines on stdout say what happened; the timing comes from the event loop's own timers.
"""
import asyncio
import sys
import threading
import time


def block_event_loop_with_time_sleep_250ms():
    # The classic mistake: a blocking call inside a coroutine stops the whole loop.
    time.sleep(0.25)


def spin_on_time_monotonic_300ms():
    # A loop of clock reads: nearly every sample lands in clock_gettime, inside the vDSO.
    until = time.monotonic() + 0.3
    while time.monotonic() < until:
        pass


async def ticks(count):
    for _ in range(count):
        await asyncio.sleep(0.02)


async def stall():
    await ticks(5)
    print("stalling", flush=True)
    block_event_loop_with_time_sleep_250ms()
    await ticks(5)


async def monotonic():
    await ticks(5)
    print("stalling in time.monotonic", flush=True)
    spin_on_time_monotonic_300ms()
    await ticks(5)


def spin_holding_the_lock(lock, held):
    with lock:
        held.set()
        until = time.monotonic() + 0.4
        while time.monotonic() < until:
            pass


async def lock_held_by_a_thread():
    await ticks(5)
    lock = threading.Lock()
    held = threading.Event()
    holder = threading.Thread(target=spin_holding_the_lock, args=(lock, held), name="lock-holder")
    holder.start()
    held.wait()
    started = time.monotonic()
    with lock:  # the loop waits for the holder: the stall
        pass
    print(f"lock waited {int((time.monotonic() - started) * 1000)} ms", flush=True)
    holder.join()
    await ticks(5)


async def bench(iterations):
    best = 0.0
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(iterations):
            await asyncio.sleep(0)
        best = max(best, iterations / (time.perf_counter() - start))
    print(f"rate={best:.1f}", flush=True)


async def main(mode, argument):
    if mode == "stall":
        await stall()
    elif mode == "monotonic":
        await monotonic()
    elif mode == "lock":
        await lock_held_by_a_thread()
    elif mode == "bench":
        await bench(int(argument))
    else:
        await ticks(25)
    print("done", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "stall", sys.argv[2] if len(sys.argv) > 2 else "0"))
