// What the preload shim does around one Swift concurrency job (lagmon_swift_jobs.c): record the
// job's start (after-waiting), run it, record its end (before-waiting). Inline here, not in the
// shim, so that the micro-benchmarks (Benchmarks/Micro) time the very code the shim runs per job.
#ifndef LAGMON_SWIFT_JOB_H
#define LAGMON_SWIFT_JOB_H

#include <stdint.h>

#include "lagmon_channel.h"
#include "lagmon_probe.h"
#include "lagmon_tsc_clock.h"

/// Inlined even where a caller has two copies (one per clock kind): a call would cost more than
/// the code.
#define LAGMON_SWIFT_JOB_INLINE static inline __attribute__((always_inline))

/// The Swift runtime's job entry as libdispatch calls it (`__swift_run_job`).
typedef void (*lagmon_swift_job_function)(void *job);
/// The channel clock at counter value `tsc` the slow way: when `clock` has no rate yet or its span
/// ran out (lagmon_tsc_clock_now), or for every read where the counter is not usable (such a clock
/// is never calibrated, so every read takes this path). Out of line, so that the per-job path
/// keeps no registers for it.
typedef uint64_t (*lagmon_swift_job_slow_clock)(struct lagmon_tsc_clock *clock, uint64_t tsc);

/// The channel clock now: `clock`'s fast path (lagmon_tsc_clock_now's, inline), else `slow`.
LAGMON_SWIFT_JOB_INLINE uint64_t lagmon_swift_job_now(struct lagmon_tsc_clock *clock, lagmon_swift_job_slow_clock slow) {
    uint64_t tsc = lagmon_tsc_read();
    uint64_t ticks = tsc - clock->anchor_tsc;
    if (__builtin_expect(ticks >= clock->span_ticks, 0)) return slow(clock, tsc);
    uint64_t now = clock->anchor_ns + (uint64_t)(((unsigned __int128)ticks * clock->rate) >> 32);
    if (__builtin_expect(now < clock->last_ns, 0)) now = clock->last_ns;
    clock->last_ns = now;
    return now;
}

/// Opens the busy period of a job starting at `start` on `slot`, which is idle (before-waiting):
/// its claim left it so and every job ends so. Not lagmon_probe_record_at: what that looks up
/// (the previous state, an open busy period) is known here, and the word is published with a
/// release store, not a full barrier, because no watchdog ever parks on a Swift job slot (it looks
/// at least once a threshold instead, so nothing needs waking; docs/design.md).
LAGMON_SWIFT_JOB_INLINE void lagmon_swift_job_begin(struct lagmon_slot *slot, uint64_t start) {
    lagmon_probe_store(&slot->wake_ns, start);
    __atomic_store_n(&slot->word, lagmon_word_make(start, LAGMON_ACTIVITY_AFTER_WAITING), __ATOMIC_RELEASE);
}

/// Closes the busy period of the job `lagmon_swift_job_begin` opened, at `end`: a stall record if
/// it lasted past the threshold, the busy-period statistics, the before-waiting word. The job's
/// two transitions are counted here, together. Its start is read back from `wake_ns` (which only
/// the observer writes) rather than kept in a register across the job. `end` is not before the
/// start: one thread's clock never goes backwards (a main-actor job clamps its own).
LAGMON_SWIFT_JOB_INLINE void lagmon_swift_job_end(struct lagmon_slot *slot, uint64_t end) {
    uint64_t start = slot->wake_ns;
    uint64_t busy = end - start;
    if (__builtin_expect(busy > slot->stall_threshold_ns, 0)) {
        lagmon_probe_record_stall(slot, start, end, LAGMON_ACTIVITY_AFTER_WAITING);
    }
    lagmon_probe_close_busy(slot, busy);
    __atomic_store_n(&slot->word, lagmon_word_make(end, LAGMON_ACTIVITY_BEFORE_WAITING), __ATOMIC_RELEASE);
    lagmon_probe_store(&slot->transitions, slot->transitions + 2);
}

/// Runs one cooperative-pool job as one iteration of its thread's loop (`slot`). The job may be
/// freed once `run` returns: it is never touched again.
LAGMON_SWIFT_JOB_INLINE void lagmon_swift_job_run_pool(struct lagmon_slot *slot, struct lagmon_tsc_clock *clock,
                                                       lagmon_swift_job_slow_clock slow, lagmon_swift_job_function run,
                                                       void *job) {
    lagmon_swift_job_begin(slot, lagmon_swift_job_now(clock, slow));
    run(job);
    lagmon_swift_job_end(slot, lagmon_swift_job_now(clock, slow));
}

/// Runs one main-actor job on thread `tid` as one iteration of the main actor's loop (`slot`),
/// whose tid follows the job. Jobs follow each other on different threads, whose clocks may differ
/// by a few ns: a job never starts before the previous one ended, nor ends before it started.
LAGMON_SWIFT_JOB_INLINE void lagmon_swift_job_run_main(struct lagmon_slot *slot, int32_t tid, struct lagmon_tsc_clock *clock,
                                                       lagmon_swift_job_slow_clock slow, lagmon_swift_job_function run,
                                                       void *job) {
    if (slot->tid != tid) __atomic_store_n(&slot->tid, tid, __ATOMIC_RELAXED);
    uint64_t previous = lagmon_word_timestamp(slot->word);
    uint64_t start = lagmon_swift_job_now(clock, slow);
    if (start < previous) start = previous;
    lagmon_swift_job_begin(slot, start);
    run(job);
    uint64_t end = lagmon_swift_job_now(clock, slow);
    lagmon_swift_job_end(slot, end > start ? end : start);
}

#endif
