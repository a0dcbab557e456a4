//! tokio runtimes whose threads park on a futex, for lagmon's tokio tests. The first argument
//! picks one:
//!
//! - `current-thread-park`: a `current_thread` runtime without an I/O driver (time only): it
//!   parks on a futex between ticks of a 20 ms interval. At tick 5 the async fn
//!   `handle_tick_in_async_fn` computes for 250 ms without awaiting; at tick 10 a spawned task
//!   calls the plain fn `spin_in_spawned_task` for 350 ms.
//! - `pool`: a `multi_thread` runtime of two workers with its I/O driver: the worker that holds
//!   the driver parks in epoll_wait, the other on its own futex. Between idle stretches of 400 ms
//!   (every worker parked), a task holds a worker in `hold_worker_in_plain_fn` for 300 ms, then the
//!   async fn `hold_worker_in_async_fn` holds one for 250 ms.
//! - `idle-pool`: the same pool, idle or lightly loaded for about 2 s: sleeps of 150–400 ms, short
//!   tasks, and four `spawn_blocking` closures in a row that each sleep 300 ms on the blocking
//!   pool. No stall.
//! - `starved-pool`: the same pool, woken by short tasks, then two tasks hold both workers at once
//!   in `hold_worker_in_plain_fn` for 300 ms each: every task in the program starves.
//!
//! After each stall it prints `stall <what> <start CLOCK_MONOTONIC ns> <duration ns>`; the first
//! line is `rust-tokio-runtimes: ready`, the last `done`.

use std::io::Write;
use std::time::{Duration, Instant};

fn monotonic_ns() -> u64 {
    // std's Instant is CLOCK_MONOTONIC on Linux; its difference from a fixed instant is not a
    // timestamp, so the clock is read through the C library std links anyway.
    #[repr(C)]
    struct Timespec {
        seconds: i64,
        nanoseconds: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, time: *mut Timespec) -> i32;
    }
    let mut time = Timespec { seconds: 0, nanoseconds: 0 };
    unsafe { clock_gettime(1, &mut time) };
    time.seconds as u64 * 1_000_000_000 + time.nanoseconds as u64
}

/// `value`, through memory the compiler cannot see through. A macro, so that no function of the
/// fixture's own sits under the stalling ones: core's `read_volatile` does.
macro_rules! opaque {
    ($value:expr) => {{
        let value = $value;
        unsafe { std::ptr::read_volatile(&value) }
    }};
}

fn say(line: &str) {
    println!("{}", line);
    std::io::stdout().flush().unwrap();
}

fn report(what: &str, start: u64, end: u64) {
    say(&format!("stall {} {} {}", what, start, end - start));
}

/// Computes for `milliseconds` without returning to the runtime.
macro_rules! spin_for {
    ($milliseconds:expr, $seed:expr) => {{
        let until = Instant::now() + Duration::from_millis($milliseconds);
        let mut total: u64 = $seed;
        while Instant::now() < until {
            for round in 0..1000u64 {
                total = opaque!(total.wrapping_mul(5).wrapping_add(round));
            }
        }
        total
    }};
}

#[inline(never)]
async fn handle_tick_in_async_fn(tick: u64) -> u64 {
    spin_for!(250, tick)
}

#[inline(never)]
fn spin_in_spawned_task(tick: u64) -> u64 {
    spin_for!(350, tick)
}

#[inline(never)]
fn hold_worker_in_plain_fn(seed: u64) -> (u64, u64, u64) {
    let start = monotonic_ns();
    let total = spin_for!(300, seed);
    (total, start, monotonic_ns())
}

#[inline(never)]
async fn hold_worker_in_async_fn(seed: u64) -> (u64, u64, u64) {
    let start = monotonic_ns();
    let total = spin_for!(250, seed);
    (total, start, monotonic_ns())
}

fn current_thread_park() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    runtime.block_on(async {
        let mut interval = tokio::time::interval(Duration::from_millis(20));
        // After a stall the next tick comes a period later, not at once: every tick is a wake-up.
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        say("rust-tokio-runtimes: ready");
        let mut sum = 0;
        for tick in 1..=20u64 {
            interval.tick().await;
            let start = monotonic_ns();
            if tick == 5 {
                sum ^= handle_tick_in_async_fn(tick).await;
                report("handle_tick_in_async_fn", start, monotonic_ns());
            } else if tick == 10 {
                let task = tokio::spawn(async move { spin_in_spawned_task(tick) });
                sum ^= task.await.unwrap();
                report("spin_in_spawned_task", start, monotonic_ns());
            }
        }
        opaque!(sum);
    });
}

fn pool() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

/// A few short tasks 20 ms apart: the workers wake, poll and park again.
async fn light_load(rounds: u64) -> u64 {
    let mut sum = 0;
    for round in 0..rounds {
        tokio::time::sleep(Duration::from_millis(20)).await;
        sum ^= tokio::spawn(async move { opaque!(round * 3) }).await.unwrap();
    }
    sum
}

fn busy_pool() {
    pool().block_on(async {
        say("rust-tokio-runtimes: ready");
        tokio::time::sleep(Duration::from_millis(400)).await;
        let mut sum = light_load(5).await;
        let (total, start, end) = tokio::spawn(async { hold_worker_in_plain_fn(7) }).await.unwrap();
        report("hold_worker_in_plain_fn", start, end);
        sum ^= total;
        tokio::time::sleep(Duration::from_millis(400)).await;
        sum ^= light_load(5).await;
        let (total, start, end) = tokio::spawn(hold_worker_in_async_fn(9)).await.unwrap();
        report("hold_worker_in_async_fn", start, end);
        sum ^= total;
        tokio::time::sleep(Duration::from_millis(400)).await;
        opaque!(sum ^ total);
    });
}

fn idle_pool() {
    pool().block_on(async {
        say("rust-tokio-runtimes: ready");
        let mut sum = 0;
        for pause in [400u64, 150, 300, 200, 400] {
            tokio::time::sleep(Duration::from_millis(pause)).await;
            sum ^= light_load(3).await;
        }
        // One after the other: the blocking pool runs them on one thread, which waits for the
        // next between them.
        for round in 0..4u64 {
            let blocking = tokio::task::spawn_blocking(move || {
                std::thread::sleep(Duration::from_millis(300));
                opaque!(round)
            });
            sum ^= blocking.await.unwrap();
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        opaque!(sum);
    });
}

fn starved_pool() {
    pool().block_on(async {
        say("rust-tokio-runtimes: ready");
        let mut sum = light_load(10).await;
        let first = tokio::spawn(async { hold_worker_in_plain_fn(3) });
        let second = tokio::spawn(async { hold_worker_in_plain_fn(5) });
        for (total, start, end) in [first.await.unwrap(), second.await.unwrap()] {
            report("hold_worker_in_plain_fn", start, end);
            sum ^= total;
        }
        sum ^= light_load(5).await;
        opaque!(sum);
    });
}

fn main() {
    match std::env::args().nth(1).as_deref() {
        Some("current-thread-park") => current_thread_park(),
        Some("pool") => busy_pool(),
        Some("idle-pool") => idle_pool(),
        Some("starved-pool") => starved_pool(),
        _ => {
            eprintln!("usage: rust-tokio-runtimes current-thread-park|pool|idle-pool|starved-pool");
            std::process::exit(2);
        }
    }
    say("done");
}
