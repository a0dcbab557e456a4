// What the preload shim does around one Swift concurrency job (lagmon_swift_jobs.c): record the
// job's start (after-waiting), run it, record its end (before-waiting). Inline here, not in the
// shim, so that the micro-benchmarks (Benchmarks/Micro) time the very code the shim runs per job.
//
// Two ways to time a job. Exactly (lagmon_swift_job_run): the counter clock at both ends, for
// every main-actor job and for one pool job in LAGMON_SWIFT_JOB_SAMPLE_EVERY. Coarsely
// (lagmon_swift_job_run_pool's common path): a pool job's start and end are lagmon's tick
// (struct lagmon_swift_tick) as the job reads it, a load instead of a counter read (two of which
// cost a yield-sized job 6 %), and a job that comes near its threshold by that clock takes the
// exact clock at its end. docs/design/swift-concurrency.md has the reasoning and the numbers.
#ifndef LAGMON_SWIFT_JOB_H
#define LAGMON_SWIFT_JOB_H

#include <stdint.h>

#include "lagmon_channel.h"
#include "lagmon_probe.h"
#include "lagmon_tsc_clock.h"

/// Inlined even where a caller has two copies (one per clock kind): a call would cost more than
/// the code.
#define LAGMON_SWIFT_JOB_INLINE static inline __attribute__((always_inline))

/// One pool job in this many is timed exactly (and counts this many times in the histogram): the
/// busy-period distribution of the pool's threads is that sample's.
#define LAGMON_SWIFT_JOB_SAMPLE_EVERY 64u

/// The Swift runtime's job entry as libdispatch calls it (`__swift_run_job`).
typedef void (*lagmon_swift_job_function)(void *job);
/// The channel clock at counter value `tsc` the slow way: when `clock` has no rate yet or its span
/// ran out (lagmon_tsc_clock_now), or for every read where the counter is not usable (such a clock
/// is never calibrated, so every read takes this path). Out of line, so that the per-job path
/// keeps no registers for it.
typedef uint64_t (*lagmon_swift_job_slow_clock)(struct lagmon_tsc_clock *clock, uint64_t tsc);
/// The channel clock now, read exactly (a coarsely timed job's end near its threshold).
typedef uint64_t (*lagmon_swift_job_precise_clock)(void);

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

/// Closes the slot's open busy period, which lasted `busy` ns, in histogram bucket `bucket`
/// counted `weight` times (a sampled pool job stands for LAGMON_SWIFT_JOB_SAMPLE_EVERY jobs; the
/// count, total and longest count the job once).
LAGMON_SWIFT_JOB_INLINE void lagmon_swift_job_count_busy(struct lagmon_slot *slot, uint64_t busy, uint32_t bucket,
                                                         uint32_t weight) {
    lagmon_probe_store(&slot->wake_ns, UINT64_MAX);
    lagmon_probe_store(&slot->histogram[bucket], slot->histogram[bucket] + weight);
    lagmon_probe_store(&slot->busy_count, slot->busy_count + 1);
    lagmon_probe_store(&slot->busy_total_ns, slot->busy_total_ns + busy);
    if (busy > slot->busy_max_ns) lagmon_probe_store(&slot->busy_max_ns, busy);
}

/// Closes the busy period of the job `lagmon_swift_job_begin` opened at `start`, at `end` (not
/// before it): a stall record if it lasted past the threshold, the busy-period statistics, the
/// before-waiting word. The job's two transitions are counted here, together; it counts `weight`
/// times in the histogram (lagmon_swift_job_count_busy).
LAGMON_SWIFT_JOB_INLINE void lagmon_swift_job_close(struct lagmon_slot *slot, uint64_t start, uint64_t end,
                                                    uint32_t weight) {
    uint64_t busy = end - start;
    if (__builtin_expect(busy > slot->stall_threshold_ns, 0)) {
        lagmon_probe_record_stall(slot, start, end, LAGMON_ACTIVITY_AFTER_WAITING);
    }
    lagmon_swift_job_count_busy(slot, busy, lagmon_histogram_index(busy), weight);
    __atomic_store_n(&slot->word, lagmon_word_make(end, LAGMON_ACTIVITY_BEFORE_WAITING), __ATOMIC_RELEASE);
    lagmon_probe_store(&slot->transitions, slot->transitions + 2);
}

/// lagmon_swift_job_close out of line, for the ends that make a call anyway (a stall record, the
/// slow clock): the common end then makes none, so no register is saved around one.
static __attribute__((noinline, cold, unused)) void lagmon_swift_job_close_slowly(struct lagmon_slot *slot, uint64_t start,
                                                                                uint64_t end, uint32_t weight) {
    lagmon_swift_job_close(slot, start, end, weight);
}

/// Ends the job `lagmon_swift_job_begin` opened: its end is its start plus the counter ticks since
/// (its start counter is `clock->mark_tsc`), converted, so never before its start. One comparison
/// covers every case that needs the slow clock (no rate, a counter below the start's, a job longer
/// than the span). The start is read back from `wake_ns` (only the observer writes it) and the
/// start counter from `clock`, not kept in registers across the job (each would be one more
/// register saved and restored). The end becomes the clock's latest reading: the thread's next job
/// starts no earlier.
LAGMON_SWIFT_JOB_INLINE void lagmon_swift_job_end(struct lagmon_slot *slot, struct lagmon_tsc_clock *clock,
                                                  lagmon_swift_job_slow_clock slow, uint32_t weight) {
    uint64_t start = slot->wake_ns;
    uint64_t tsc = lagmon_tsc_read();
    uint64_t ticks = tsc - clock->mark_tsc;
    uint64_t end;
    if (__builtin_expect(ticks < clock->span_ticks, 1)) {
        uint64_t busy = (uint64_t)(((unsigned __int128)ticks * clock->rate) >> 32);
        end = start + busy;
        clock->last_ns = end;
        if (__builtin_expect(busy <= slot->stall_threshold_ns, 1)) {
            /* Less than the span (50 ms) of ticks: far below the histogram's last value. */
            lagmon_swift_job_count_busy(slot, busy, lagmon_histogram_index_bounded(busy), weight);
            __atomic_store_n(&slot->word, lagmon_word_make(end, LAGMON_ACTIVITY_BEFORE_WAITING), __ATOMIC_RELEASE);
            lagmon_probe_store(&slot->transitions, slot->transitions + 2);
            return;
        }
    } else {
        end = slow(clock, tsc);
        /* Read again after the call rather than kept in a register across it. */
        start = slot->wake_ns;
        if (end < start) end = start;
        clock->last_ns = end;
    }
    lagmon_swift_job_close_slowly(slot, start, end, weight);
}

/// A job whose start needs the slow clock (`clock->mark_tsc` is its start counter), run and
/// recorded as lagmon_swift_job_run_pool and lagmon_swift_job_run_main do, out of line: their
/// common path then calls nothing but the job, and keeps no register for this one. It starts no
/// earlier than `previous` nor than the clock's latest reading.
static __attribute__((noinline, cold, unused)) void lagmon_swift_job_run_slowly(
    struct lagmon_slot *slot, struct lagmon_tsc_clock *clock, lagmon_swift_job_slow_clock slow,
    lagmon_swift_job_function const *run, void *job, uint64_t previous, uint32_t weight) {
    uint64_t start = slow(clock, clock->mark_tsc);
    if (start < clock->last_ns) start = clock->last_ns;
    lagmon_swift_job_begin(slot, start < previous ? previous : start);
    (*run)(job);
    lagmon_swift_job_end(slot, clock, slow, weight);
}

/// Runs one job as one iteration of the loop `slot`, starting no earlier than `previous` nor than
/// the clock's latest reading (the end of the thread's previous job: the start itself is not
/// stored there, as the job's end stores a later reading before anything reads it again). The
/// start counter is kept in `clock->mark_tsc` for the end. `run` is where the job entry is kept,
/// read only when the job is called (not kept in a register across the clock read). The job
/// counts `weight` times in the histogram.
LAGMON_SWIFT_JOB_INLINE void lagmon_swift_job_run(struct lagmon_slot *slot, struct lagmon_tsc_clock *clock,
                                                  lagmon_swift_job_slow_clock slow, lagmon_swift_job_function const *run,
                                                  void *job, uint64_t previous, uint32_t weight) {
    uint64_t tsc = lagmon_tsc_read();
    clock->mark_tsc = tsc;
    uint64_t ticks = tsc - clock->anchor_tsc;
    if (__builtin_expect(ticks >= clock->span_ticks, 0)) {
        lagmon_swift_job_run_slowly(slot, clock, slow, run, job, previous, weight);
        return;
    }
    uint64_t start = clock->anchor_ns + (uint64_t)(((unsigned __int128)ticks * clock->rate) >> 32);
    if (start < clock->last_ns) start = clock->last_ns;
    lagmon_swift_job_begin(slot, start < previous ? previous : start);
    (*run)(job);
    lagmon_swift_job_end(slot, clock, slow, weight);
}

/// A pool job timed exactly, out of line: the pool's sample, or every job before lagmon's first
/// tick (`tick_now` 0: each then counts once). It starts no earlier than the thread's previous
/// job ended (the slot's word), which a ticked job dated by lagmon's clock, not the counter's.
static __attribute__((noinline, cold, unused)) void lagmon_swift_job_run_sampled(
    struct lagmon_slot *slot, struct lagmon_tsc_clock *clock, lagmon_swift_job_slow_clock slow,
    lagmon_swift_job_function const *run, void *job, uint64_t tick_now) {
    lagmon_swift_job_run(slot, clock, slow, run, job, lagmon_word_timestamp(slot->word),
                         tick_now == 0 ? 1 : LAGMON_SWIFT_JOB_SAMPLE_EVERY);
}

/// A coarsely timed pool job whose tick length came within the tick's slack of its threshold:
/// its end is read exactly (so a stall's end and length are the exact clock's; its start is the
/// tick it began at), out of line. It counts once in the histogram.
static __attribute__((noinline, cold, unused)) void lagmon_swift_job_end_exactly(struct lagmon_slot *slot,
                                                                               lagmon_swift_job_precise_clock precise) {
    uint64_t start = slot->wake_ns;
    uint64_t end = precise();
    lagmon_swift_job_close(slot, start, end < start ? start : end, 1);
}

/// Runs one cooperative-pool job as one iteration of its thread's loop (`slot`). One job in
/// LAGMON_SWIFT_JOB_SAMPLE_EVERY (counted by the slot's transitions, two a job), and every job
/// before lagmon's first tick, is timed exactly (`clock`, `slow`); any other starts and ends at
/// the tick it reads (`tick`, read again after the job rather than kept in a register across it;
/// the start raised to the previous job's end, so that a thread's busy periods never overlap),
/// and costs loads and stores only: the busy total adds its tick length (whose mean is the job's
/// length), the histogram and the longest period do not count it. The job may be freed once it
/// returns: it is never touched again.
LAGMON_SWIFT_JOB_INLINE void lagmon_swift_job_run_pool(struct lagmon_slot *slot, const struct lagmon_swift_tick *const *tick,
                                                       lagmon_swift_job_precise_clock precise,
                                                       struct lagmon_tsc_clock *clock, lagmon_swift_job_slow_clock slow,
                                                       lagmon_swift_job_function const *run, void *job) {
    uint64_t start = __atomic_load_n(&(*tick)->now_ns, __ATOMIC_RELAXED);
    const uint64_t sampled = 2u * LAGMON_SWIFT_JOB_SAMPLE_EVERY - 2u; /* bits 1.. of the transitions: jobs */
    if (__builtin_expect(start == 0 || (slot->transitions & sampled) == 0, 0)) {
        lagmon_swift_job_run_sampled(slot, clock, slow, run, job, start);
        return;
    }
    /* Never before the thread's previous job ended (its word's timestamp: only this thread writes
       the word): an end read exactly, near the threshold, is later than the tick still is. */
    uint64_t previous = lagmon_word_timestamp(slot->word);
    if (start < previous) start = previous;
    lagmon_swift_job_begin(slot, start);
    (*run)(job);
    const struct lagmon_swift_tick *ticked = *tick;
    uint64_t end = __atomic_load_n(&ticked->now_ns, __ATOMIC_RELAXED);
    /* The start is read back from wake_ns (only the observer writes it), not kept across the job;
       a tick still behind a raised start (the previous job's exact end) ends the job at its start. */
    uint64_t began = slot->wake_ns;
    if (end < began) end = began;
    uint64_t coarse = end - began;
    /* lagmon keeps the slack below the threshold. */
    if (__builtin_expect(coarse >= slot->stall_threshold_ns - ticked->slack_ns, 0)) {
        lagmon_swift_job_end_exactly(slot, precise);
        return;
    }
    lagmon_probe_store(&slot->wake_ns, UINT64_MAX);
    lagmon_probe_store(&slot->busy_count, slot->busy_count + 1);
    lagmon_probe_store(&slot->busy_total_ns, slot->busy_total_ns + coarse);
    __atomic_store_n(&slot->word, lagmon_word_make(end, LAGMON_ACTIVITY_BEFORE_WAITING), __ATOMIC_RELEASE);
    lagmon_probe_store(&slot->transitions, slot->transitions + 2);
}

/// Runs one main-actor job on thread `tid` as one iteration of the main actor's loop (`slot`),
/// whose tid follows the job. Jobs follow each other on different threads, whose clocks may differ
/// by a few ns: a job never starts before the previous one ended (and ends its own length later).
LAGMON_SWIFT_JOB_INLINE void lagmon_swift_job_run_main(struct lagmon_slot *slot, int32_t tid, struct lagmon_tsc_clock *clock,
                                                       lagmon_swift_job_slow_clock slow,
                                                       lagmon_swift_job_function const *run, void *job) {
    if (slot->tid != tid) __atomic_store_n(&slot->tid, tid, __ATOMIC_RELAXED);
    lagmon_swift_job_run(slot, clock, slow, run, job, lagmon_word_timestamp(slot->word), 1);
}

#endif
