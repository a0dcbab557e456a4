//! A task-heavy tokio program for `make bench` (rows tokioPoolOverhead and tokioPoolInstructions):
//! a `multi_thread` runtime of two workers, with its I/O driver, runs `YIELDS`
//! `tokio::task::yield_now().await` in all, in `ROUNDS` rounds; each round spawns `TASKS` tasks
//! that yield `YIELDS / (TASKS * ROUNDS)` times each, and waits for them all.
//!
//! Several tasks keep both workers busy; between rounds the workers run out of tasks and park
//! (the rounds make sure they do, as a server's pool does between bursts). Within a round, once a
//! worker has polled the tasks it holds, tokio polls the I/O driver without blocking before running
//! them again (`yield_now` defers its wake-up to that point: tokio 1.24, Debian's): the pool's own
//! rhythm, which a watched worker's probe sees as parks.
//!
//! It prints one JSON line: `{"nsPerYield": …, "cpuNsPerYield": …, "yields": …, "tasks": …,
//! "rounds": …, "workers": 2}`, the wall-clock and the process's CPU time (every thread's) per
//! yield over the rounds (make bench compares it alone and under lagmon run).
//!
//!     rust-tokio-yields YIELDS [TASKS [ROUNDS]]    (defaults: 8 tasks, 100 rounds)

use std::time::Instant;

const WORKERS: usize = 2;

/// The process's CPU time, every thread's, in nanoseconds (CLOCK_PROCESS_CPUTIME_ID, which std
/// does not offer; the libc crate comes with tokio).
fn process_cpu_ns() -> u64 {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut time) };
    time.tv_sec as u64 * 1_000_000_000 + time.tv_nsec as u64
}

async fn yield_times(count: usize) {
    for _ in 0..count {
        tokio::task::yield_now().await;
    }
}

/// `rounds` rounds of `tasks` tasks yielding `per_task` times each.
async fn run_rounds(rounds: usize, tasks: usize, per_task: usize) {
    for _ in 0..rounds {
        let handles: Vec<_> = (0..tasks)
            .map(|_| tokio::spawn(yield_times(per_task)))
            .collect();
        for handle in handles {
            handle.await.expect("a yielding task panicked");
        }
    }
}

fn argument(arguments: &[String], index: usize, default: usize) -> usize {
    match arguments.get(index) {
        None => default,
        Some(text) => text.parse().unwrap_or_else(|_| usage()),
    }
}

fn usage() -> ! {
    eprintln!("usage: rust-tokio-yields YIELDS [TASKS [ROUNDS]]");
    std::process::exit(2)
}

fn main() {
    let arguments: Vec<String> = std::env::args().collect();
    if arguments.len() < 2 || arguments.len() > 4 {
        usage();
    }
    let (yields, tasks, rounds) = (
        argument(&arguments, 1, 0),
        argument(&arguments, 2, 8),
        argument(&arguments, 3, 100),
    );
    let per_task = yields / tasks.max(1) / rounds.max(1);
    if per_task == 0 {
        usage();
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(WORKERS)
        .enable_all()
        .build()
        .expect("cannot build the tokio runtime");

    let (wall, cpu_start) = (Instant::now(), process_cpu_ns());
    runtime.block_on(run_rounds(rounds, tasks, per_task));
    let (wall_ns, cpu_ns) = (
        wall.elapsed().as_nanos() as f64,
        (process_cpu_ns() - cpu_start) as f64,
    );

    let done = per_task * tasks * rounds;
    println!(
        "{{\"nsPerYield\": {:.3}, \"cpuNsPerYield\": {:.3}, \"yields\": {}, \"tasks\": {}, \"rounds\": {}, \"workers\": {}}}",
        wall_ns / done as f64,
        cpu_ns / done as f64,
        done,
        tasks,
        rounds,
        WORKERS
    );
}
