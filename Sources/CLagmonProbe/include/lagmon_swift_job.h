// What the preload shim does around one Swift concurrency job (lagmon_swift_jobs.c): record the
// job's start (after-waiting), run it, record its end (before-waiting). Inline here, not in the
// shim, so that the micro-benchmarks (Benchmarks/Micro) time the very code the shim runs per job.
#ifndef LAGMON_SWIFT_JOB_H
#define LAGMON_SWIFT_JOB_H

#include <stdint.h>

#include "lagmon_channel.h"
#include "lagmon_probe.h"
#include "lagmon_tsc_clock.h"

/// The Swift runtime's job entry as libdispatch calls it (`__swift_run_job`).
typedef void (*lagmon_swift_job_function)(void *job);
/// The channel clock read precisely (clock_gettime); the counter clock's fallback.
typedef uint64_t (*lagmon_swift_job_precise_clock)(void);

/// The channel clock now: the thread's counter clock when the TSC is usable, else the precise one.
static inline uint64_t lagmon_swift_job_now(int tsc_usable, struct lagmon_tsc_clock *clock,
                                            lagmon_swift_job_precise_clock precise) {
    if (__builtin_expect(tsc_usable, 1)) return lagmon_tsc_clock_now(clock, lagmon_tsc_read(), precise);
    return precise();
}

/// Runs one cooperative-pool job as one iteration of its thread's loop (`slot`). The job may be
/// freed once `run` returns: it is never touched again.
static inline void lagmon_swift_job_run_pool(struct lagmon_slot *slot, int tsc_usable, struct lagmon_tsc_clock *clock,
                                             lagmon_swift_job_precise_clock precise, lagmon_swift_job_function run,
                                             void *job) {
    lagmon_probe_record_at(slot, LAGMON_ACTIVITY_AFTER_WAITING, lagmon_swift_job_now(tsc_usable, clock, precise));
    run(job);
    lagmon_probe_record_at(slot, LAGMON_ACTIVITY_BEFORE_WAITING, lagmon_swift_job_now(tsc_usable, clock, precise));
}

/// Runs one main-actor job on thread `tid` as one iteration of the main actor's loop (`slot`),
/// whose tid follows the job. Jobs follow each other on different threads, whose clocks may differ
/// by a few ns: a job never starts before the previous one ended, nor ends before it started.
static inline void lagmon_swift_job_run_main(struct lagmon_slot *slot, int32_t tid, int tsc_usable,
                                             struct lagmon_tsc_clock *clock, lagmon_swift_job_precise_clock precise,
                                             lagmon_swift_job_function run, void *job) {
    if (slot->tid != tid) __atomic_store_n(&slot->tid, tid, __ATOMIC_RELAXED);
    uint64_t previous = lagmon_word_timestamp(slot->word);
    uint64_t start = lagmon_swift_job_now(tsc_usable, clock, precise);
    lagmon_probe_record_at(slot, LAGMON_ACTIVITY_AFTER_WAITING, start > previous ? start : previous);
    run(job);
    uint64_t end = lagmon_swift_job_now(tsc_usable, clock, precise);
    previous = lagmon_word_timestamp(slot->word);
    lagmon_probe_record_at(slot, LAGMON_ACTIVITY_BEFORE_WAITING, end > previous ? end : previous);
}

#endif
