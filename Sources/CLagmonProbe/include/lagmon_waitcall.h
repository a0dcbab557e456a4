// The wait-call loop probe's per-thread state machine: decides when a thread that calls
// epoll_wait/poll/select is running an event loop, and turns its waits into loop transitions.
// Pure functions over a thread-local struct (times are passed in), so the rule is unit-tested
// without a target; the preload shim supplies the clock, the channel and the real wait calls.
//
// The rule (docs/design.md, "Wait-call loops"):
//  - Each wait has a key: the wait set it sleeps on (the epoll descriptor; a poll's first
//    descriptor; a select's lowest descriptor), tagged with the call's family.
//  - A thread becomes a loop on its LAGMON_WAITCALL_QUALIFYING_WAITS-th wait on one key. Until then
//    nothing touches the channel: up to LAGMON_WAITCALL_CANDIDATES keys are counted in the thread's
//    own memory, with the busy periods between their waits, which are replayed into the slot when
//    the thread qualifies (so a stall in those first iterations is still reported).
//  - From then on only waits on that key are transitions (entry = before-waiting, return =
//    after-waiting). A wait on another key inside an iteration (a blocking DNS lookup's poll, a
//    synchronous HTTP call) is part of the busy period: it is what stalls loops.
//  - Closing the key's descriptor, or the thread's exit, ends the loop (exit activity); the
//    thread must qualify again to be a loop again (it keeps its slot).
#ifndef LAGMON_WAITCALL_H
#define LAGMON_WAITCALL_H

#include <stdint.h>

#include "lagmon_channel.h"
#include "lagmon_probe.h"

/// Waits on one key that make a thread a loop: one is any blocking I/O, two is a request and
/// its reply; three on the same wait set is a thread that keeps coming back to it.
#define LAGMON_WAITCALL_QUALIFYING_WAITS 3u
/// Keys counted at once per thread before it qualifies (the oldest is replaced).
#define LAGMON_WAITCALL_CANDIDATES 4u
#define LAGMON_WAITCALL_HISTORY (LAGMON_WAITCALL_QUALIFYING_WAITS - 1u)

/// The call families a key is tagged with (a poll and an epoll on the same descriptor differ).
enum lagmon_waitcall_family {
    LAGMON_WAITCALL_EPOLL = 1,
    LAGMON_WAITCALL_POLL = 2,
    LAGMON_WAITCALL_SELECT = 3,
    /// A futex wait made through libc's syscall() (Rust's std, tokio's parkers): the futex's
    /// address. Only in a process that runs tokio (lagmon_preload.c).
    LAGMON_WAITCALL_FUTEX = 4,
    /// Every park of a tokio worker: its futex waits and its I/O driver's epoll_wait alike are the
    /// pool thread going idle, whichever it parks in (docs/design/tokio.md).
    LAGMON_WAITCALL_PARK = 5,
};

/// What a thread is to the wait-call rule, decided at its first wait in a process that runs tokio.
enum lagmon_waitcall_role {
    /// Not decided yet (the zero state).
    LAGMON_WAITCALL_ROLE_UNKNOWN = 0,
    /// Any thread: each wait set is its own key.
    LAGMON_WAITCALL_ROLE_ORDINARY = 1,
    /// A tokio pool thread (`tokio-runtime-worker`): its parks share one key, LAGMON_WAITCALL_PARK.
    LAGMON_WAITCALL_ROLE_TOKIO_WORKER = 2,
};

/// The value std's thread parker waits on (`PARKED`, -1): `thread::park`, which std's and
/// crossbeam's channels block in. tokio never parks a worker so: on a worker it is a task blocking.
#define LAGMON_WAITCALL_STD_PARKED 0xffffffffu

enum lagmon_waitcall_mode {
    /// Counting waits (the zero state: every thread starts here).
    LAGMON_WAITCALL_COUNTING = 0,
    /// A loop: waits on `loop_key` are recorded in `slot`.
    LAGMON_WAITCALL_LOOP = 1,
    /// Not observed through its waits: a CFRunLoop observer watches it, it is not a thread lagmon
    /// watches, no slot was free, or there is no channel.
    LAGMON_WAITCALL_OFF = 2,
    /// The main thread's CFRunLoop, recorded from CoreFoundation's own waits on a common mode's
    /// port set (lagmon_preload.c); every other wait of the thread is not observed, as with OFF.
    LAGMON_WAITCALL_CF = 3,
};

/// What an entry hook asks the matching return hook to do.
enum lagmon_waitcall_token {
    /// Nothing.
    LAGMON_WAITCALL_TOKEN_NONE = -1,
    /// The loop went to sleep: record after-waiting on return.
    LAGMON_WAITCALL_TOKEN_LOOP = -2,
    /* 0 … CANDIDATES-1: a counted wait on that candidate; note its return time. */
};

/// One key being counted.
struct lagmon_waitcall_candidate {
    uint64_t key;
    uint32_t waits;           /* waits entered on the key */
    uint32_t periods;         /* busy periods stored (the last HISTORY are kept) */
    uint64_t last_return_ns;  /* return of the previous wait on the key; 0 before the first */
    uint64_t busy_start_ns[LAGMON_WAITCALL_HISTORY];
    uint64_t busy_end_ns[LAGMON_WAITCALL_HISTORY];
};

/// One thread's state; zero-initialised (thread-local storage) is a valid counting state.
struct lagmon_waitcall_thread {
    struct lagmon_slot *slot; /* the thread's slot once it qualified (kept across loop exits) */
    uint64_t loop_key;        /* valid in LOOP mode */
    uint32_t mode;            /* lagmon_waitcall_mode */
    uint32_t next_victim;     /* candidate replaced when a new key arrives and all are taken */
    uint32_t role;            /* lagmon_waitcall_role */
    struct lagmon_waitcall_candidate candidates[LAGMON_WAITCALL_CANDIDATES];
};

static inline uint64_t lagmon_waitcall_key(uint32_t family, int64_t object) {
    return ((uint64_t)family << 56) | ((uint64_t)object & 0x00ffffffffffffffull);
}

/// The descriptor a key names (-1 for none, and for a futex or a park): closing it ends the loop.
static inline int64_t lagmon_waitcall_key_descriptor(uint64_t key) {
    uint64_t object = key & 0x00ffffffffffffffull;
    if ((key >> 56) > LAGMON_WAITCALL_SELECT) return -1;
    return object == 0x00ffffffffffffffull ? -1 : (int64_t)object;
}

/// The value std's Mutex waits on when contended (`CONTENDED`).
#define LAGMON_WAITCALL_STD_CONTENDED 2u

/// A tokio worker's park (its own condvar, the I/O driver's epoll_wait), and a minor park: one
/// that is idle on a worker but never makes a thread one (lagmon_waitcall_futex_key).
#define LAGMON_WAITCALL_PARK_KEY (((uint64_t)LAGMON_WAITCALL_PARK << 56) | 0x00ffffffffffffffull)
#define LAGMON_WAITCALL_MINOR_PARK_KEY (((uint64_t)LAGMON_WAITCALL_PARK << 56) | 1u)

/// The key of a futex wait on `address` whose expected value is `value`, with a timeout or not,
/// by a thread of `role`: a tokio worker's waits are all its park, but for std's thread parker (a
/// task blocking it). tokio's blocking pool (`spawn_blocking`), whose threads share the workers'
/// name, waits between closures only with a timeout (its keep-alive) and, woken, re-locks the
/// pool's contended Mutex: such waits are minor parks, so a blocking thread never qualifies.
static inline uint64_t lagmon_waitcall_futex_key(uint32_t role, uintptr_t address, uint32_t value, int timed) {
    if (role != LAGMON_WAITCALL_ROLE_TOKIO_WORKER || value == LAGMON_WAITCALL_STD_PARKED) {
        return lagmon_waitcall_key(LAGMON_WAITCALL_FUTEX, (int64_t)address);
    }
    return timed || value == LAGMON_WAITCALL_STD_CONTENDED ? LAGMON_WAITCALL_MINOR_PARK_KEY : LAGMON_WAITCALL_PARK_KEY;
}

/// The key a wait counts on: a minor park is a park.
static inline uint64_t lagmon_waitcall_counted_key(uint64_t key) {
    return key == LAGMON_WAITCALL_MINOR_PARK_KEY ? LAGMON_WAITCALL_PARK_KEY : key;
}

/// `key` as a thread of `role` waits on it: a tokio worker's epoll_wait is its I/O driver's park.
static inline uint64_t lagmon_waitcall_role_key(uint32_t role, uint64_t key) {
    if (role == LAGMON_WAITCALL_ROLE_TOKIO_WORKER && (key >> 56) == LAGMON_WAITCALL_EPOLL) return LAGMON_WAITCALL_PARK_KEY;
    return key;
}

/// Counts a wait entered on `key` at `now_ns` (COUNTING mode). Returns the candidate's index (the
/// token for the return hook); `*qualified` becomes 1 when this wait makes the thread a loop. A
/// minor park counts as a park but never qualifies the thread itself.
static inline int lagmon_waitcall_count_entry(struct lagmon_waitcall_thread *t, uint64_t entered, uint64_t now_ns,
                                              int *qualified) {
    uint64_t key = lagmon_waitcall_counted_key(entered);
    int index = -1;
    for (uint32_t i = 0; i < LAGMON_WAITCALL_CANDIDATES; i++) {
        if (t->candidates[i].waits != 0 && t->candidates[i].key == key) {
            index = (int)i;
            break;
        }
    }
    if (index < 0) {
        for (uint32_t i = 0; i < LAGMON_WAITCALL_CANDIDATES && index < 0; i++) {
            if (t->candidates[i].waits == 0) index = (int)i;
        }
        if (index < 0) {
            index = (int)(t->next_victim % LAGMON_WAITCALL_CANDIDATES);
            t->next_victim++;
        }
        struct lagmon_waitcall_candidate fresh = {0};
        fresh.key = key;
        t->candidates[index] = fresh;
    }
    struct lagmon_waitcall_candidate *c = &t->candidates[index];
    if (c->last_return_ns != 0) {
        uint32_t at = c->periods % LAGMON_WAITCALL_HISTORY;
        c->busy_start_ns[at] = c->last_return_ns;
        c->busy_end_ns[at] = now_ns;
        c->periods++;
    }
    c->waits++;
    *qualified = c->waits >= LAGMON_WAITCALL_QUALIFYING_WAITS && entered == key;
    return index;
}

/// Notes the return of a counted wait (token = the candidate's index).
static inline void lagmon_waitcall_count_return(struct lagmon_waitcall_thread *t, int token, uint64_t now_ns) {
    if (token < 0 || token >= (int)LAGMON_WAITCALL_CANDIDATES) return;
    /* 0 means "none yet": a return at channel time 0 is impossible after the probe attached. */
    t->candidates[token].last_return_ns = now_ns == 0 ? 1 : now_ns;
}

/// When observation of the candidate's loop began: its oldest stored busy period (or `now_ns`).
static inline uint64_t lagmon_waitcall_history_start(const struct lagmon_waitcall_thread *t, int token,
                                                     uint64_t now_ns) {
    const struct lagmon_waitcall_candidate *c = &t->candidates[token];
    if (c->periods == 0) return now_ns;
    uint32_t kept = c->periods < LAGMON_WAITCALL_HISTORY ? c->periods : LAGMON_WAITCALL_HISTORY;
    return c->busy_start_ns[(c->periods - kept) % LAGMON_WAITCALL_HISTORY];
}

/// Makes the thread a loop on the candidate's key, observed through `slot` (claimed, and not yet
/// published unless it is the thread's own slot from an earlier loop). A fresh slot gets the
/// stored busy periods replayed (stalls among them land in its ring); then the wait being
/// entered at `now_ns` is recorded as before-waiting.
static inline void lagmon_waitcall_adopt(struct lagmon_waitcall_thread *t, int token, struct lagmon_slot *slot,
                                         int replay, uint64_t now_ns) {
    const struct lagmon_waitcall_candidate *c = &t->candidates[token];
    if (replay) {
        uint32_t kept = c->periods < LAGMON_WAITCALL_HISTORY ? c->periods : LAGMON_WAITCALL_HISTORY;
        for (uint32_t n = c->periods - kept; n < c->periods; n++) {
            uint32_t at = n % LAGMON_WAITCALL_HISTORY;
            lagmon_probe_record_at(slot, LAGMON_ACTIVITY_AFTER_WAITING, c->busy_start_ns[at]);
            lagmon_probe_record_at(slot, LAGMON_ACTIVITY_BEFORE_WAITING, c->busy_end_ns[at]);
        }
    }
    if (!replay || c->periods == 0) lagmon_probe_record_at(slot, LAGMON_ACTIVITY_BEFORE_WAITING, now_ns);
    t->slot = slot;
    t->loop_key = c->key;
    t->mode = LAGMON_WAITCALL_LOOP;
}

/// Forgets every counted key (the thread must qualify again).
static inline void lagmon_waitcall_reset_counts(struct lagmon_waitcall_thread *t) {
    struct lagmon_waitcall_candidate none = {0};
    for (uint32_t i = 0; i < LAGMON_WAITCALL_CANDIDATES; i++) t->candidates[i] = none;
    t->next_victim = 0;
}

/// The loop ended (its descriptor was closed, or its thread exits) at `now_ns`: records exit and
/// goes back to counting, keeping the slot for the thread's next loop.
static inline void lagmon_waitcall_end_loop(struct lagmon_waitcall_thread *t, uint64_t now_ns) {
    if (t->mode != LAGMON_WAITCALL_LOOP) return;
    lagmon_probe_record_at(t->slot, LAGMON_ACTIVITY_EXIT, now_ns);
    t->mode = LAGMON_WAITCALL_COUNTING;
    lagmon_waitcall_reset_counts(t);
}

/// Whether the thread's slot is still its own to write: a CFRunLoop observer installed later on
/// the same thread takes the slot over (kind changes), and a forked child must not write its
/// parent's slot.
static inline int lagmon_waitcall_owns_slot(const struct lagmon_waitcall_thread *t, int32_t pid) {
    uint32_t kind = __atomic_load_n(&t->slot->kind, __ATOMIC_RELAXED);
    return (kind == LAGMON_OBSERVER_WAITCALL || kind == LAGMON_OBSERVER_TOKIO_WORKER) && t->slot->pid == pid;
}

#endif
