// The one shared-memory layout between lagmon and the probes inside a target.
//
// lagmon creates the channel (a memfd), initialises every field below, and hands it to the
// target through an inherited file descriptor named by LAGMON_CHANNEL_FD. Probes in the target
// (the LD_PRELOAD shim or LagmonAgent) claim one slot per observed loop and write only to that
// slot; lagmon only reads slots. Each process whose probe attaches also claims one entry of the
// process table (with --follow-children, the target's descendants do too). Fields shared across processes are accessed exclusively through
// the __atomic helpers at the end of this file, which Swift can call (it cannot import _Atomic).
//
// Change anything below and bump LAGMON_CHANNEL_VERSION: the _Static_asserts pin the layout.
#ifndef LAGMON_CHANNEL_H
#define LAGMON_CHANNEL_H

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LAGMON_CHANNEL_MAGIC 0x4843454E4F4D474CULL /* "LGMONECH" little-endian */
#define LAGMON_CHANNEL_VERSION 6u
#define LAGMON_CHANNEL_ENV "LAGMON_CHANNEL_FD"
/// Set with --follow-children: a path that reopens the channel (/proc/<lagmon pid>/fd/<fd>), for
/// descendants that no longer have the inherited descriptor.
#define LAGMON_CHANNEL_PATH_ENV "LAGMON_CHANNEL_PATH"

/// Loops one channel can describe, for every process of a session; further claims fail and are
/// counted in `refused_loops`. The memfd is sparse: a slot costs memory only once it is touched
/// (lagmon's initialisation writes nothing into them; a loop's own use, a few more).
/// Probes claim the lowest free slot and slots are never freed, so an honest channel's claimed
/// slots are a prefix of the table: the probes' scans stop at the first free slot.
#define LAGMON_SLOT_CAPACITY 256u
/// Processes (program images: an exec starts a new one) one channel can list.
#define LAGMON_PROCESS_CAPACITY 256u
/// Bytes of a process's argv (NUL-separated) kept in its entry.
#define LAGMON_PROCESS_COMMAND_BYTES 208u
/// Completed stalls a slot buffers until lagmon drains them.
#define LAGMON_STALL_RING_CAPACITY 1024u
/// Busy periods are binned log-linearly: values below 2^SUB_BITS exactly, above that with
/// SUB_BITS bits after the leading one (relative error below 1/128).
#define LAGMON_HISTOGRAM_SUB_BITS 7u
#define LAGMON_HISTOGRAM_SUB_COUNT (1u << LAGMON_HISTOGRAM_SUB_BITS)
/// Highest binade kept; longer periods land in the last bucket (2^43 ns is about 2.4 hours).
#define LAGMON_HISTOGRAM_MAX_MAGNITUDE 43u
#define LAGMON_HISTOGRAM_BUCKETS \
    (LAGMON_HISTOGRAM_SUB_COUNT * (LAGMON_HISTOGRAM_MAX_MAGNITUDE - LAGMON_HISTOGRAM_SUB_BITS + 2u))
/// Distinct (call, call site) pairs of blocking calls one slot aggregates (StrictMode); calls of
/// further pairs are only counted in `strict_overflow`.
#define LAGMON_STRICT_CAPACITY 32u

/// Run loop activities, with CoreFoundation's CFRunLoopActivity bit values.
enum lagmon_activity {
    LAGMON_ACTIVITY_NONE = 0,
    LAGMON_ACTIVITY_ENTRY = 1u << 0,
    LAGMON_ACTIVITY_BEFORE_TIMERS = 1u << 1,
    LAGMON_ACTIVITY_BEFORE_SOURCES = 1u << 2,
    LAGMON_ACTIVITY_BEFORE_WAITING = 1u << 5,
    LAGMON_ACTIVITY_AFTER_WAITING = 1u << 6,
    LAGMON_ACTIVITY_EXIT = 1u << 7,
};
/// Activities in which the loop is awake and handling work: staying in one is a stall.
#define LAGMON_STALLING_ACTIVITIES (LAGMON_ACTIVITY_BEFORE_SOURCES | LAGMON_ACTIVITY_AFTER_WAITING)

/// Slot lifecycle.
enum lagmon_slot_state {
    LAGMON_SLOT_FREE = 0,
    LAGMON_SLOT_CLAIMING = 1,
    LAGMON_SLOT_ACTIVE = 2,
};

/// What kind of probe writes a slot.
enum lagmon_observer_kind {
    LAGMON_OBSERVER_CFRUNLOOP = 1,
    /// A thread that waits repeatedly in epoll_wait/poll/select, seen by the preload shim's
    /// wrappers: entering the wait is before-waiting, returning from it after-waiting.
    LAGMON_OBSERVER_WAITCALL = 2,
    /// The Swift main actor, seen by the preload shim's libdispatch wrappers: each job it runs
    /// off the main thread is one iteration (the slot's tid is the thread running the latest).
    LAGMON_OBSERVER_SWIFT_MAIN_ACTOR = 3,
    /// A thread of Swift's cooperative pool (the global concurrent executor): each job is one
    /// iteration of the thread running it.
    LAGMON_OBSERVER_SWIFT_POOL = 4,
    /// A worker of a tokio runtime's pool, seen like a wait-call loop whose every park (a futex
    /// wait or its I/O driver's epoll_wait) is one wait: the busy time between parks is one
    /// iteration (docs/design/tokio.md).
    LAGMON_OBSERVER_TOKIO_WORKER = 5,
};

/// What lagmon asks of the probes (`options`, written before the target starts).
enum lagmon_channel_option {
    /// Wait-call loops on any thread claim slots (otherwise only a process's main thread does).
    LAGMON_OPTION_ALL_THREADS = 1u << 0,
    /// Processes the target starts attach too (otherwise only the first process to attach).
    LAGMON_OPTION_FOLLOW_CHILDREN = 1u << 1,
    /// StrictMode: the preload shim counts blocking calls (file I/O, DNS, blocking connect,
    /// sleeps, waiting for children, shells) made on a watched loop's thread.
    LAGMON_OPTION_STRICT = 1u << 2,
};

/// The blocking calls StrictMode counts (`call` of a strict entry), one per libc entry point
/// family (open64, __open_2 … count as open).
enum lagmon_strict_call {
    LAGMON_STRICT_READ = 1,          /* read on a regular file */
    LAGMON_STRICT_PREAD = 2,
    LAGMON_STRICT_WRITE = 3,         /* write on a regular file */
    LAGMON_STRICT_PWRITE = 4,
    LAGMON_STRICT_FSYNC = 5,
    LAGMON_STRICT_FDATASYNC = 6,
    LAGMON_STRICT_OPEN = 7,
    LAGMON_STRICT_OPENAT = 8,
    LAGMON_STRICT_GETADDRINFO = 9,
    LAGMON_STRICT_CONNECT = 10,      /* connect on a socket without O_NONBLOCK */
    LAGMON_STRICT_SLEEP = 11,
    LAGMON_STRICT_USLEEP = 12,
    LAGMON_STRICT_NANOSLEEP = 13,
    LAGMON_STRICT_CLOCK_NANOSLEEP = 14,
    LAGMON_STRICT_WAITPID = 15,
    LAGMON_STRICT_WAIT4 = 16,
    LAGMON_STRICT_SYSTEM = 17,
    LAGMON_STRICT_POPEN = 18,
    LAGMON_STRICT_READV = 19,        /* readv, writev, preadv, pwritev: on a regular file */
    LAGMON_STRICT_WRITEV = 20,
    LAGMON_STRICT_PREADV = 21,
    LAGMON_STRICT_PWRITEV = 22,
    LAGMON_STRICT_CALL_LIMIT = 23,   /* one past the last */
};

/// One (call, call site) pair of blocking calls made on a loop's thread, aggregated by the
/// thread itself (the slot's only writer): filled once, then only its counters change.
struct lagmon_strict_entry {
    uint64_t site;      /* the return address of the call into libc, in the target */
    uint32_t call;      /* lagmon_strict_call */
    uint32_t pad;
    uint64_t count;
    uint64_t total_ns;  /* time spent inside the calls */
    uint64_t max_ns;    /* the longest one */
};

/// Bits of a process entry's `flags`.
enum lagmon_process_flag {
    /// A fork of its parent without exec (it shares the parent's image and argv).
    LAGMON_PROCESS_FORKED = 1u << 0,
    /// Its argv did not fit `command` and was cut.
    LAGMON_PROCESS_COMMAND_TRUNCATED = 1u << 1,
    /// The image was replaced by an exec (`ended_ns` is when the new image attached).
    LAGMON_PROCESS_EXECED = 1u << 2,
};

/// Bits the probes OR into `probe_flags` so lagmon can explain a missing observer.
enum lagmon_probe_flag {
    LAGMON_PROBE_PRELOAD_LOADED = 1u << 0,
    LAGMON_PROBE_AGENT_CALLED = 1u << 1,
    LAGMON_PROBE_CF_FOUND = 1u << 2,
    LAGMON_PROBE_NO_CF = 1u << 3,
    LAGMON_PROBE_OBSERVER_INSTALLED = 1u << 4,
    LAGMON_PROBE_SLOTS_EXHAUSTED = 1u << 5,
    LAGMON_PROBE_INSTALL_FAILED = 1u << 6,
    /// The process table was full: a process was not listed (its loops are still observed).
    LAGMON_PROBE_PROCESSES_EXHAUSTED = 1u << 7,
};

/// lagmon's coarse clock for Swift's cooperative pool (docs/design/swift-concurrency.md): a pool
/// job's start and end are `now_ns` as the job reads it, not a clock read, so a job costs a few
/// instructions. lagmon's ticker (one thread a session, started with the first Swift job slot)
/// stores the channel clock into `now_ns` every `period_ns`; 0 until its first tick, and probes
/// then time jobs exactly. A job whose coarse length comes within `slack_ns` (two periods) of
/// its slot's threshold takes the exact clock at its end. Only lagmon writes this line.
struct lagmon_swift_tick {
    uint64_t now_ns;          /* atomic; the channel clock at the latest tick, 0 before the first */
    uint64_t period_ns;       /* set before the target starts */
    uint64_t slack_ns;        /* set before the target starts: 2 * period_ns */
    uint8_t pad[40];
};

/// One stall as the observer saw it end: the loop sat in `activity` from `start_ns` to
/// `end_ns` (both relative to the channel's clock base) without a transition.
struct lagmon_stall_record {
    uint64_t start_ns;
    uint64_t end_ns;
    uint64_t activity;
};

/// Everything about one observed loop. Cache lines separate what the observer writes on every
/// transition from what lagmon writes when its watchdog parks.
struct lagmon_slot {
    /* Identity, written once by the claiming probe before it publishes state = ACTIVE. */
    uint32_t state;
    uint32_t kind;
    int32_t pid;
    int32_t tid;
    char thread_name[16];
    uint64_t stall_threshold_ns;
    uint64_t claimed_ns;      /* channel clock when observation began (a wait-call loop's slot
                                 starts at its first qualifying wait, before it was published) */
    uint64_t published_ns;    /* channel clock when the slot became ACTIVE */
    uint32_t process_index;   /* the claiming process's entry in the process table, or
                                 LAGMON_PROCESS_NONE */
    uint32_t identity_pad;

    /* Hot line: written by the observer on every transition. */
    uint64_t word;            /* (timestamp_ns << 8) | activity; the current state, atomic */
    uint64_t transitions;     /* sequence number: transitions observed so far */
    uint64_t wake_ns;         /* when the current busy period began (observer-private) */
    uint64_t busy_count;      /* completed busy periods */
    uint64_t busy_total_ns;   /* their summed length */
    uint64_t busy_max_ns;     /* the longest one */
    uint64_t stall_head;      /* stall records ever written */
    uint64_t passes;          /* before-sources transitions: loop passes */

    /* Watchdog line: lagmon sets `watchdog_parked` before sleeping without a deadline. */
    uint32_t watchdog_parked;
    uint32_t watchdog_pad0;
    uint64_t watchdog_posts;  /* wake-ups the observer posted */
    uint32_t wake_sequence;   /* futex word: lagmon_channel_post adds one per wake-up */
    uint8_t watchdog_pad[64 - 20];

    struct lagmon_stall_record stalls[LAGMON_STALL_RING_CAPACITY];
    uint64_t histogram[LAGMON_HISTOGRAM_BUCKETS];

    /* StrictMode line: blocking calls made on the loop's thread, written by that thread. */
    uint32_t strict_used;     /* entries filled; an entry is complete before it is counted here */
    uint32_t strict_pad;
    uint64_t strict_calls;    /* every blocking call counted, whether an entry holds it or not */
    uint64_t strict_overflow; /* calls no entry holds: every entry was taken by other pairs */
    uint8_t strict_line_pad[40];
    struct lagmon_strict_entry strict[LAGMON_STRICT_CAPACITY];
};

#define LAGMON_PROCESS_NONE 0xffffffffu

/// One process image whose probe attached: written once by that probe before it publishes
/// state = ACTIVE, except `ended_ns`, which a later image of the same pid (exec) or the
/// process's own exit sets.
struct lagmon_process {
    uint32_t state;           /* lagmon_slot_state values */
    int32_t pid;
    int32_t ppid;
    uint32_t flags;           /* lagmon_process_flag bits */
    uint64_t image_id;        /* 8 of the kernel's AT_RANDOM bytes: new on every exec */
    uint64_t attached_ns;     /* channel clock when the probe attached */
    uint64_t ended_ns;        /* channel clock of exit() or of the exec replacing it; 0 before */
    uint32_t command_length;  /* bytes used in `command` */
    uint32_t pad;
    char command[LAGMON_PROCESS_COMMAND_BYTES]; /* argv, each argument NUL-terminated */
};

/// The channel header. The first 16 bytes never change between versions so a mismatched peer
/// can still recognise the channel and count itself in `mismatch_count`.
struct lagmon_channel_header {
    uint64_t magic;
    uint32_t version;
    uint32_t mismatch_count;
    uint32_t header_size;
    uint32_t slot_size;
    uint32_t slot_capacity;
    int32_t target_pid;        /* the first probe to attach claims it (CAS from 0); only probes
                                  in that process observe loops */
    uint64_t total_size;
    uint64_t clock_base_ns;    /* CLOCK_MONOTONIC when lagmon created the channel */
    uint64_t stall_threshold_ns;
    uint32_t probe_flags;      /* lagmon_probe_flag bits, atomic OR */
    uint32_t slots_claimed;    /* atomic */
    uint32_t discovery_sequence; /* futex word, posted when a slot or a process entry becomes
                                    ACTIVE */
    uint8_t discovery_pad[28];
    uint32_t options;          /* lagmon_channel_option bits, set by lagmon before the start */
    uint32_t process_capacity;
    uint32_t processes_claimed; /* atomic */
    uint32_t unwatched_loops;  /* atomic: threads that qualified as wait-call loops but were
                                  not given a slot because only main threads are watched */
    uint32_t unfollowed_processes; /* atomic: descendants whose probe stayed inert because lagmon
                                      does not follow children */
    uint32_t refused_loops;    /* atomic: loops that found every slot taken (each counted once) */
    uint8_t pad[256 - 64 - 32 - 24];
    struct lagmon_swift_tick swift_tick; /* on a line of its own, read by every pool job */
    uint8_t tail_pad[4096 - 256 - sizeof(struct lagmon_swift_tick)];
    struct lagmon_slot slots[LAGMON_SLOT_CAPACITY];
    struct lagmon_process processes[LAGMON_PROCESS_CAPACITY];
};

_Static_assert(offsetof(struct lagmon_slot, wake_sequence) == 144, "watchdog line layout");
_Static_assert(offsetof(struct lagmon_slot, wake_sequence) % 4 == 0, "a futex word is 4-aligned");
_Static_assert(offsetof(struct lagmon_slot, published_ns) == 48, "identity line layout");
_Static_assert(offsetof(struct lagmon_slot, process_index) == 56, "identity line layout");
_Static_assert(offsetof(struct lagmon_slot, word) == 64, "hot line starts on its own cache line");
_Static_assert(offsetof(struct lagmon_slot, watchdog_parked) == 128, "watchdog line is separate");
_Static_assert(offsetof(struct lagmon_slot, stalls) == 192, "stall ring follows the watchdog line");
_Static_assert(sizeof(struct lagmon_stall_record) == 24, "stall record layout");
_Static_assert(sizeof(struct lagmon_slot) % 64 == 0, "slots are cache-line multiples");
_Static_assert(offsetof(struct lagmon_slot, strict_used) % 64 == 0, "the strict line is a line of its own");
_Static_assert(offsetof(struct lagmon_slot, strict) - offsetof(struct lagmon_slot, strict_used) == 64, "strict line");
_Static_assert(sizeof(struct lagmon_strict_entry) == 40, "strict entry layout");
_Static_assert(offsetof(struct lagmon_channel_header, magic) == 0, "stable prefix");
_Static_assert(offsetof(struct lagmon_channel_header, version) == 8, "stable prefix");
_Static_assert(offsetof(struct lagmon_channel_header, mismatch_count) == 12, "stable prefix");
_Static_assert(offsetof(struct lagmon_channel_header, discovery_sequence) == 64, "header layout");
_Static_assert(offsetof(struct lagmon_channel_header, options) == 96, "header layout");
_Static_assert(offsetof(struct lagmon_channel_header, unwatched_loops) == 108, "header layout");
_Static_assert(offsetof(struct lagmon_channel_header, unfollowed_processes) == 112, "header layout");
_Static_assert(offsetof(struct lagmon_channel_header, refused_loops) == 116, "header layout");
_Static_assert(sizeof(struct lagmon_swift_tick) == 64, "the Swift tick is one cache line");
_Static_assert(offsetof(struct lagmon_channel_header, swift_tick) == 256, "the Swift tick has a line of its own");
_Static_assert(offsetof(struct lagmon_channel_header, slots) == 4096, "slots start on a page");
_Static_assert(sizeof(struct lagmon_process) == 256, "process entry layout");
_Static_assert(offsetof(struct lagmon_process, command) == 48, "process entry layout");
_Static_assert(offsetof(struct lagmon_channel_header, processes) % 64 == 0, "process table is aligned");

/* ---- Wake-ups ------------------------------------------------------------------------------
 * No libc object lives in the channel: the target can write every byte of it, and glibc's
 * semaphores abort the process that waits on one whose futex word makes no sense. A wake-up is
 * a sequence word instead: a post adds one and wakes the futex; lagmon keeps the value it last
 * saw in its own memory and waits (bounded, every error is a plain result) while the word still
 * holds it. A target that writes the word can only wake lagmon early. */

/// Posts a wake-up on `sequence` (a slot's `wake_sequence` or the header's
/// `discovery_sequence`): one atomic add and one FUTEX_WAKE (shared: the waiter is another
/// process). Its result is ignored (a failed wake leaves the waiter to its deadline) and errno
/// is kept: the probes post from inside the target's own calls.
static inline void lagmon_channel_post(uint32_t *sequence) {
    __atomic_fetch_add(sequence, 1u, __ATOMIC_SEQ_CST);
    int saved = errno;
    (void)syscall(SYS_futex, sequence, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
    errno = saved;
}

/* ---- Word packing ------------------------------------------------------------------------- */

static inline uint64_t lagmon_word_make(uint64_t timestamp_ns, uint32_t activity) {
    return (timestamp_ns << 8) | (activity & 0xffu);
}
static inline uint32_t lagmon_word_activity(uint64_t word) { return (uint32_t)(word & 0xffu); }
static inline uint64_t lagmon_word_timestamp(uint64_t word) { return word >> 8; }

/* ---- Histogram binning (mirrored by LatencyBuckets in LagmonCore; a test keeps them equal) */

/// Values from here on share the last bucket (2^(MAX_MAGNITUDE + 1) - 1: the last binade's end).
#define LAGMON_HISTOGRAM_LAST_VALUE ((2ull << LAGMON_HISTOGRAM_MAX_MAGNITUDE) - 1u)

/// The bucket of `value_ns`, which is at most LAGMON_HISTOGRAM_LAST_VALUE, in one formula (the
/// observers bin every busy period): with `shift` the low bits the value's binade drops (0 below
/// 2^(SUB_BITS + 1), where values are exact), the bucket is `shift` binades of SUB_COUNT buckets
/// on, plus the value's top SUB_BITS + 1 bits (the leading one included, which also steps over
/// the exact range).
static inline uint32_t lagmon_histogram_index_bounded(uint64_t value_ns) {
    uint32_t shift = 63u - (uint32_t)__builtin_clzll(value_ns | LAGMON_HISTOGRAM_SUB_COUNT) - LAGMON_HISTOGRAM_SUB_BITS;
    return (shift << LAGMON_HISTOGRAM_SUB_BITS) + (uint32_t)(value_ns >> shift);
}

/// The bucket of `value_ns`: longer values count as the last bucket's.
static inline uint32_t lagmon_histogram_index(uint64_t value_ns) {
    return lagmon_histogram_index_bounded(value_ns < LAGMON_HISTOGRAM_LAST_VALUE ? value_ns : LAGMON_HISTOGRAM_LAST_VALUE);
}

/* ---- Array accessors (Swift does not import arrays this large, nor macro expressions) ----- */

static inline uint64_t *lagmon_slot_histogram(struct lagmon_slot *slot) { return slot->histogram; }
static inline uint32_t lagmon_histogram_bucket_count(void) { return LAGMON_HISTOGRAM_BUCKETS; }
static inline struct lagmon_stall_record *lagmon_slot_stalls(struct lagmon_slot *slot) { return slot->stalls; }
static inline struct lagmon_strict_entry *lagmon_slot_strict(struct lagmon_slot *slot) { return slot->strict; }
static inline uint32_t lagmon_strict_capacity(void) { return LAGMON_STRICT_CAPACITY; }
static inline struct lagmon_process *lagmon_channel_processes(struct lagmon_channel_header *channel) {
    return channel->processes;
}
static inline uint32_t lagmon_process_capacity(void) { return LAGMON_PROCESS_CAPACITY; }
static inline const char *lagmon_process_command(const struct lagmon_process *process) { return process->command; }

/* ---- Atomic accessors (Swift cannot import C11 atomics) ------------------------------------ */

static inline uint64_t lagmon_load_u64(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline uint32_t lagmon_load_u32(const uint32_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline int32_t lagmon_load_i32(const int32_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline void lagmon_store_u32(uint32_t *p, uint32_t v) { __atomic_store_n(p, v, __ATOMIC_SEQ_CST); }
/// A release store: lagmon's tick (struct lagmon_swift_tick), which no one waits on.
static inline void lagmon_store_release_u64(uint64_t *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
static inline uint32_t lagmon_exchange_u32(uint32_t *p, uint32_t v) {
    return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
}
/// A full barrier: the watchdog's "parked" store must be visible before it re-reads the word.
static inline void lagmon_fence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

#endif
