// The probe that runs inside a target: maps the channel, claims a slot per observed loop and
// records loop transitions into it. Linked into both the LD_PRELOAD shim and LagmonAgent; each
// copy keeps its own process-local state, and they coordinate only through the channel (a loop
// already claimed by one copy is not claimed again by the other).
#ifndef LAGMON_PROBE_H
#define LAGMON_PROBE_H

#include <stdint.h>
#include <time.h>

#include "lagmon_channel.h"

#define LAGMON_HIDDEN __attribute__((visibility("hidden")))

/// Outcome of an attempt to observe the main CFRunLoop.
enum lagmon_install_result {
    /// Observers are installed (now or by an earlier call, possibly by the other probe copy).
    LAGMON_INSTALL_DONE = 0,
    /// CoreFoundation is present but the main run loop is not running yet: try again later.
    LAGMON_INSTALL_NOT_YET = 1,
    /// Nothing to observe here (no channel, no CoreFoundation, or no free slot): stop trying.
    LAGMON_INSTALL_NEVER = 2,
};

/// Maps the channel named by LAGMON_CHANNEL_FD. Returns NULL (after at most one `lagmon:` line on
/// stderr) when the variable is absent, the channel is unusable, or this process is not the
/// target. Idempotent and thread-safe.
LAGMON_HIDDEN struct lagmon_channel_header *lagmon_probe_channel(void);

/// Notes in the channel that LagmonAgent.install() was called (for lagmon's diagnostics).
LAGMON_HIDDEN void lagmon_probe_note_agent(struct lagmon_channel_header *channel);

/// This process's pid as the probe last saw it (set on attach and in a fork's child); 0 while
/// unattached. Cheaper than getpid(), which is a system call.
LAGMON_HIDDEN extern int32_t lagmon_probe_pid;

/// The slot a probe already claimed for thread `tid` of this process, or NULL.
LAGMON_HIDDEN struct lagmon_slot *lagmon_probe_thread_slot(struct lagmon_channel_header *channel, int32_t tid);

/// Claims a free slot of `kind` for the calling thread and fills its identity, without publishing
/// it: lagmon does not see it until `lagmon_probe_publish`, so the caller can prepare its state.
/// NULL (and the slots-exhausted flag) when every slot is taken.
LAGMON_HIDDEN struct lagmon_slot *lagmon_probe_claim(struct lagmon_channel_header *channel, uint32_t kind);

/// Makes a claimed slot ACTIVE and wakes lagmon's discovery.
LAGMON_HIDDEN void lagmon_probe_publish(struct lagmon_channel_header *channel, struct lagmon_slot *slot);

/// Installs the CFRunLoop observers on the main run loop. With `require_running`, only does so
/// when the loop is already running (the preload shim must not touch CF before it is set up).
LAGMON_HIDDEN enum lagmon_install_result lagmon_probe_install_main_observer(int require_running);

/// Like `lagmon_probe_install_main_observer(1)`, but the caller (the preload shim, on the main
/// thread) records the loop's transitions itself from CoreFoundation's own wait calls, so no
/// observer is added. `*recorded` is the slot to record into when this call installed the loop
/// that way; NULL when the loop was already observed (by observers, the other probe copy, or an
/// earlier call) or nothing was installed.
LAGMON_HIDDEN enum lagmon_install_result lagmon_probe_install_main_loop_unobserved(struct lagmon_slot **recorded);

/// Records one activity transition of the loop observed through `slot`. The hot path: two loads,
/// a clock read, a few stores; a syscall only to wake a parked watchdog.
static inline void lagmon_probe_record(struct lagmon_slot *slot, uint32_t activity,
                                       uint64_t clock_base_ns);

/// `lagmon_probe_record` with the transition's time given (channel clock), for transitions
/// recorded after the fact (a wait-call loop's qualifying waits).
static inline void lagmon_probe_record_at(struct lagmon_slot *slot, uint32_t activity, uint64_t now);

/* Cold paths of lagmon_probe_record, kept out of line. */
LAGMON_HIDDEN void lagmon_probe_record_stall(struct lagmon_slot *slot, uint64_t start_ns,
                                             uint64_t end_ns, uint32_t activity);
LAGMON_HIDDEN void lagmon_probe_wake_watchdog(struct lagmon_slot *slot);

static inline uint64_t lagmon_probe_now_ns(uint64_t clock_base_ns) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec - clock_base_ns;
}

/// Whether `activity` is the loop's first awake transition after an idle one (none yet,
/// before-waiting, exit).
static inline int lagmon_probe_wakes(uint32_t previous_activity, uint32_t activity) {
    const uint32_t idle = LAGMON_ACTIVITY_BEFORE_WAITING | LAGMON_ACTIVITY_EXIT;
    return (activity & idle) == 0 && (previous_activity == LAGMON_ACTIVITY_NONE || (previous_activity & idle) != 0);
}

static inline void lagmon_probe_store(uint64_t *p, uint64_t v) {
    __atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/// Closes the slot's open busy period, which lasted `busy` ns and falls in histogram bucket
/// `bucket`: no period is open any more, and the busy-period statistics (histogram, count, total,
/// longest) count it. Only the observing thread writes these fields.
static inline __attribute__((always_inline)) void lagmon_probe_close_busy_in(struct lagmon_slot *slot, uint64_t busy,
                                                                           uint32_t bucket) {
    lagmon_probe_store(&slot->wake_ns, UINT64_MAX);
    lagmon_probe_store(&slot->histogram[bucket], slot->histogram[bucket] + 1);
    lagmon_probe_store(&slot->busy_count, slot->busy_count + 1);
    lagmon_probe_store(&slot->busy_total_ns, slot->busy_total_ns + busy);
    if (busy > slot->busy_max_ns) lagmon_probe_store(&slot->busy_max_ns, busy);
}

/// Closes the slot's open busy period, which lasted `busy` ns (lagmon_probe_close_busy_in).
static inline __attribute__((always_inline)) void lagmon_probe_close_busy(struct lagmon_slot *slot, uint64_t busy) {
    lagmon_probe_close_busy_in(slot, busy, lagmon_histogram_index(busy));
}

static inline void lagmon_probe_record(struct lagmon_slot *slot, uint32_t activity,
                                       uint64_t clock_base_ns) {
    lagmon_probe_record_at(slot, activity, lagmon_probe_now_ns(clock_base_ns));
}

static inline void lagmon_probe_record_at(struct lagmon_slot *slot, uint32_t activity, uint64_t now) {
    uint64_t previous = slot->word; /* only this thread writes it */
    uint32_t previous_activity = lagmon_word_activity(previous);
    uint64_t previous_ns = lagmon_word_timestamp(previous);
    if (__builtin_expect((previous_activity & LAGMON_STALLING_ACTIVITIES) != 0 &&
                             now - previous_ns > slot->stall_threshold_ns, 0)) {
        lagmon_probe_record_stall(slot, previous_ns, now, previous_activity);
    }
    if (activity & (LAGMON_ACTIVITY_BEFORE_WAITING | LAGMON_ACTIVITY_EXIT)) {
        if (slot->wake_ns != UINT64_MAX) {
            lagmon_probe_close_busy(slot, now - slot->wake_ns);
        }
    } else if (slot->wake_ns == UINT64_MAX) {
        /* Any awake activity opens a busy period if none is open (after waking, or the first
           pass of a wait-call loop that an exit ended before). */
        lagmon_probe_store(&slot->wake_ns, now);
    }
    if ((activity & (LAGMON_ACTIVITY_AFTER_WAITING | LAGMON_ACTIVITY_ENTRY)) ||
        __builtin_expect(lagmon_probe_wakes(previous_activity, activity), 0)) {
        /* Waking from sleep already cost a syscall; a full barrier here is noise. It orders the
           word store before the parked check (the watchdog does the mirror image). The first
           awake transition after an idle one (before-sources as a CF loop's first pass: entry
           is not observed) wakes a parked watchdog too. */
        __atomic_store_n(&slot->word, lagmon_word_make(now, activity), __ATOMIC_SEQ_CST);
        lagmon_probe_store(&slot->transitions, slot->transitions + 1);
        if (activity == LAGMON_ACTIVITY_BEFORE_SOURCES) lagmon_probe_store(&slot->passes, slot->passes + 1);
        if (__builtin_expect(__atomic_load_n(&slot->watchdog_parked, __ATOMIC_SEQ_CST) != 0, 0)) {
            lagmon_probe_wake_watchdog(slot);
        }
        return;
    }
    __atomic_store_n(&slot->word, lagmon_word_make(now, activity), __ATOMIC_RELEASE);
    lagmon_probe_store(&slot->transitions, slot->transitions + 1);
    if (activity == LAGMON_ACTIVITY_BEFORE_SOURCES) lagmon_probe_store(&slot->passes, slot->passes + 1);
}

#endif
