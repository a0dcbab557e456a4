//! A Rust epoll + timerfd event loop for lagmon's Rust tests (std only: the few libc calls are
//! declared here, std already links libc). It stalls three times, each in a distinctively
//! named piece of its own crate, for a distinct time:
//!
//! - tick 5: `spin_in_plain_rust_fn` (a plain function), 200 ms;
//! - tick 10: a closure inside `run_closure_handler`, 300 ms;
//! - tick 15: the async fn `stall_in_async_handler`, polled by a small executor, 400 ms.
//!
//! Each spin goes through std (`std::time::Instant::now`) and core code, which must not be
//! blamed. After each it prints `stall <what> <start CLOCK_MONOTONIC ns> <duration ns>`; the
//! first line is `rust-loops: ready`, the last `done`.

use std::future::Future;
use std::io::Write;
use std::task::{Context, Poll, RawWaker, RawWakerVTable, Waker};
use std::time::{Duration, Instant};

#[repr(C, packed)]
struct EpollEvent {
    events: u32,
    data: u64,
}

#[repr(C)]
struct Timespec {
    seconds: i64,
    nanoseconds: i64,
}

#[repr(C)]
struct Itimerspec {
    interval: Timespec,
    value: Timespec,
}

extern "C" {
    fn epoll_create1(flags: i32) -> i32;
    fn epoll_ctl(epfd: i32, op: i32, fd: i32, event: *mut EpollEvent) -> i32;
    fn epoll_wait(epfd: i32, events: *mut EpollEvent, maxevents: i32, timeout: i32) -> i32;
    fn timerfd_create(clockid: i32, flags: i32) -> i32;
    fn timerfd_settime(fd: i32, flags: i32, new: *const Itimerspec, old: *mut Itimerspec) -> i32;
    fn read(fd: i32, buffer: *mut u8, count: usize) -> isize;
    fn clock_gettime(clock: i32, time: *mut Timespec) -> i32;
}

const CLOCK_MONOTONIC: i32 = 1;

/// `value`, through memory the compiler cannot see through (std::hint::black_box is newer than
/// the oldest rustc the fixture builds with, Debian 12's 1.63). A macro, so that no function of
/// the fixture's own sits under the stalling ones: core's `read_volatile` does.
macro_rules! black_box {
    ($value:expr) => {{
        let value = $value;
        unsafe { std::ptr::read_volatile(&value) }
    }};
}

fn monotonic_ns() -> u64 {
    let mut time = Timespec { seconds: 0, nanoseconds: 0 };
    unsafe { clock_gettime(CLOCK_MONOTONIC, &mut time) };
    time.seconds as u64 * 1_000_000_000 + time.nanoseconds as u64
}

/// Burns the CPU until `until`: std and core frames under the caller.
#[inline(never)]
fn burn_until(until: Instant) -> u64 {
    let mut state = 1u64;
    while Instant::now() < until {
        for round in 0..1000u64 {
            state = black_box!(state.wrapping_mul(6364136223846793005).wrapping_add(round));
        }
    }
    state
}

#[inline(never)]
fn spin_in_plain_rust_fn() -> u64 {
    let until = Instant::now() + Duration::from_millis(200);
    let mut total = 0;
    while Instant::now() < until {
        for round in 0..1000u64 {
            total = black_box!(total ^ round.wrapping_mul(2862933555777941757));
        }
    }
    total
}

#[inline(never)]
fn run_closure_handler(ticks: u64) -> u64 {
    let handler = |extra: u64| {
        let until = Instant::now() + Duration::from_millis(300);
        let mut total = extra;
        while Instant::now() < until {
            for round in 0..1000u64 {
                total = black_box!(total.wrapping_add(round.rotate_left(7)));
            }
        }
        total
    };
    black_box!(handler)(ticks)
}

#[inline(never)]
async fn stall_in_async_handler(extra: u64) -> u64 {
    let until = Instant::now() + Duration::from_millis(400);
    let mut total = extra;
    while Instant::now() < until {
        for round in 0..1000u64 {
            total = black_box!(total.wrapping_mul(3).wrapping_add(round));
        }
    }
    total
}

/// Polls `future` to completion on this thread (it never waits: the handler is CPU-bound).
fn block_on<F: Future>(future: F) -> F::Output {
    fn clone(_: *const ()) -> RawWaker {
        RawWaker::new(std::ptr::null(), &VTABLE)
    }
    fn ignore(_: *const ()) {}
    static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, ignore, ignore, ignore);
    let waker = unsafe { Waker::from_raw(RawWaker::new(std::ptr::null(), &VTABLE)) };
    let mut context = Context::from_waker(&waker);
    let mut future = Box::pin(future);
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut context) {
            return value;
        }
    }
}

fn report(what: &str, start: u64) {
    println!("stall {} {} {}", what, start, monotonic_ns() - start);
    std::io::stdout().flush().unwrap();
}

fn main() {
    let (poller, timer) = unsafe { (epoll_create1(0o2000000), timerfd_create(CLOCK_MONOTONIC, 0o2000000)) };
    let period = Timespec { seconds: 0, nanoseconds: 20_000_000 };
    let first = Timespec { seconds: 0, nanoseconds: 20_000_000 };
    let spec = Itimerspec { interval: period, value: first };
    let mut event = EpollEvent { events: 1, data: timer as u64 };
    if poller < 0
        || timer < 0
        || unsafe { timerfd_settime(timer, 0, &spec, std::ptr::null_mut()) } != 0
        || unsafe { epoll_ctl(poller, 1, timer, &mut event) } != 0
    {
        eprintln!("rust-loops: cannot set up epoll and timerfd");
        std::process::exit(1);
    }
    println!("rust-loops: ready");
    std::io::stdout().flush().unwrap();
    let mut ticks = 0u64;
    let mut sum = black_box!(burn_until(Instant::now()));
    while ticks < 20 {
        let mut ready = EpollEvent { events: 0, data: 0 };
        if unsafe { epoll_wait(poller, &mut ready, 1, -1) } != 1 {
            continue;
        }
        let mut expirations = [0u8; 8];
        if unsafe { read(timer, expirations.as_mut_ptr(), 8) } != 8 {
            continue;
        }
        ticks += 1;
        let start = monotonic_ns();
        match ticks {
            5 => {
                sum ^= spin_in_plain_rust_fn();
                report("spin_in_plain_rust_fn", start);
            }
            10 => {
                sum ^= run_closure_handler(ticks);
                report("run_closure_handler", start);
            }
            15 => {
                sum ^= block_on(stall_in_async_handler(ticks));
                report("stall_in_async_handler", start);
            }
            _ => {}
        }
    }
    black_box!(sum);
    println!("done");
}
