//! A tokio `current_thread` runtime with its I/O and time drivers, for lagmon's Rust tests: the
//! runtime parks in epoll_wait between ticks of a 20 ms interval. It stalls twice, in its own
//! code, under tokio's and std's frames:
//!
//! - tick 5: the async fn `handle_tick_in_async_fn` computes for 250 ms without awaiting;
//! - tick 10: a task spawned on the runtime calls the plain fn `spin_in_spawned_task` for 350 ms.
//!
//! After each it prints `stall <what> <start CLOCK_MONOTONIC ns> <duration ns>`; the first line
//! is `rust-tokio-loop: ready`, the last `done`.

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

fn report(what: &str, start: u64) {
    println!("stall {} {} {}", what, start, monotonic_ns() - start);
    std::io::stdout().flush().unwrap();
}

#[inline(never)]
async fn handle_tick_in_async_fn(tick: u64) -> u64 {
    let until = Instant::now() + Duration::from_millis(250);
    let mut total = tick;
    while Instant::now() < until {
        for round in 0..1000u64 {
            total = opaque!(total.wrapping_mul(5).wrapping_add(round));
        }
    }
    total
}

#[inline(never)]
fn spin_in_spawned_task(tick: u64) -> u64 {
    let until = Instant::now() + Duration::from_millis(350);
    let mut total = tick;
    while Instant::now() < until {
        for round in 0..1000u64 {
            total = opaque!(total ^ round.wrapping_mul(2862933555777941757));
        }
    }
    total
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let mut interval = tokio::time::interval(Duration::from_millis(20));
        // After a stall the next tick comes a period later, not at once: every tick is a wake-up.
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        println!("rust-tokio-loop: ready");
        std::io::stdout().flush().unwrap();
        let mut sum = 0;
        for tick in 1..=20u64 {
            interval.tick().await;
            let start = monotonic_ns();
            if tick == 5 {
                sum ^= handle_tick_in_async_fn(tick).await;
                report("handle_tick_in_async_fn", start);
            } else if tick == 10 {
                let task = tokio::spawn(async move { spin_in_spawned_task(tick) });
                sum ^= task.await.unwrap();
                report("spin_in_spawned_task", start);
            }
        }
        opaque!(sum);
    });
    println!("done");
}
