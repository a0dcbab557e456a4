// In-target probe: channel attachment, slot claiming and the main CFRunLoop's installation:
// CoreFoundation observers for the agent, or a slot the preload shim records from CF's own waits
// (lagmon_preload.c). CoreFoundation is reached through dlsym so the preload shim works in any
// process and never forces CF to load; the agent uses the same path.
#define _GNU_SOURCE
#include "lagmon_probe.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- Channel attachment ------------------------------------------------------------------ */

static pthread_once_t attach_once = PTHREAD_ONCE_INIT;
static struct lagmon_channel_header *attached_channel;
int32_t lagmon_probe_pid;
/* This process's entry in the channel's process table, or LAGMON_PROCESS_NONE. */
static uint32_t process_index = LAGMON_PROCESS_NONE;
/* Channel clock when this image (or this fork) attached. */
static uint64_t image_attached_ns;

static void lagmon_probe_warn(const char *message) {
    /* One line, prefixed, so it never mixes with the target's own output. */
    char line[256];
    int length = snprintf(line, sizeof line, "lagmon: %s\n", message);
    if (length > 0) (void)!write(STDERR_FILENO, line, (size_t)length < sizeof line ? (size_t)length : sizeof line - 1);
}

/// Maps the channel. Only the stable 16-byte prefix is required here, so a channel of another
/// version (another size) is still recognised and told about the mismatch.
static struct lagmon_channel_header *lagmon_probe_map(int fd, size_t *size) {
    struct stat info;
    if (fstat(fd, &info) != 0 || (size_t)info.st_size < 16) return NULL;
    *size = (size_t)info.st_size;
    void *base = mmap(NULL, (size_t)info.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return base == MAP_FAILED ? NULL : (struct lagmon_channel_header *)base;
}

/// The channel's descriptor. With --follow-children lagmon also names it by path
/// (/proc/<lagmon>/fd/<n>): descendants started after the target closed its descriptors (daemons,
/// Python's subprocess) can still open it. The path is opened once and closed after mapping.
static struct lagmon_channel_header *lagmon_probe_open(size_t *size) {
    const char *path = getenv(LAGMON_CHANNEL_PATH_ENV);
    if (path != NULL && *path != '\0') {
        int fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd >= 0) {
            struct lagmon_channel_header *channel = lagmon_probe_map(fd, size);
            close(fd);
            if (channel != NULL) return channel;
        }
    }
    const char *value = getenv(LAGMON_CHANNEL_ENV);
    if (value == NULL || *value == '\0') return NULL;
    char *end = NULL;
    long fd = strtol(value, &end, 10);
    if (*end != '\0' || fd < 0 || fd > INT_MAX) return NULL;
    struct lagmon_channel_header *channel = lagmon_probe_map((int)fd, size);
    if (channel == NULL) lagmon_probe_warn("channel not readable; running unmonitored");
    return channel;
}

static void lagmon_probe_after_fork_child(void);
static void lagmon_probe_register_process(struct lagmon_channel_header *channel, uint32_t flags, int32_t ppid);
static void lagmon_probe_watch_fatal_signals(void);

static void lagmon_probe_attach(void) {
    size_t size = 0;
    struct lagmon_channel_header *channel = lagmon_probe_open(&size);
    if (channel == NULL) return;
    if (channel->magic != LAGMON_CHANNEL_MAGIC) {
        lagmon_probe_warn("channel has an unknown format; running unmonitored");
        munmap(channel, size);
        return;
    }
    if (channel->version != LAGMON_CHANNEL_VERSION || size < sizeof *channel ||
        channel->header_size != offsetof(struct lagmon_channel_header, slots) ||
        channel->slot_size != sizeof(struct lagmon_slot)) {
        __atomic_fetch_add(&channel->mismatch_count, 1, __ATOMIC_SEQ_CST);
        lagmon_probe_warn("probe and lagmon versions differ; running unmonitored (rebuild both)");
        munmap(channel, size);
        return;
    }
    /* Children inherit the environment; unless lagmon follows them, only the process lagmon
       started is observed. Its probe attaches first (its constructor runs before it can fork),
       so the first claim wins; a later image of the same pid (exec) attaches again. */
    int32_t expected = 0;
    int32_t self = (int32_t)getpid();
    int claimed = __atomic_compare_exchange_n(&channel->target_pid, &expected, self, 0, __ATOMIC_SEQ_CST,
                                              __ATOMIC_SEQ_CST) || expected == self;
    if (!claimed && (channel->options & LAGMON_OPTION_FOLLOW_CHILDREN) == 0) {
        __atomic_fetch_add(&channel->unfollowed_processes, 1, __ATOMIC_SEQ_CST);
        munmap(channel, size);
        return;
    }
    lagmon_probe_pid = self;
    attached_channel = channel;
    lagmon_probe_register_process(channel, 0, (int32_t)getppid());
    pthread_atfork(NULL, NULL, lagmon_probe_after_fork_child);
    lagmon_probe_watch_fatal_signals();
}

struct lagmon_channel_header *lagmon_probe_channel(void) {
    pthread_once(&attach_once, lagmon_probe_attach);
    return attached_channel;
}

void lagmon_probe_note_agent(struct lagmon_channel_header *channel) {
    __atomic_fetch_or(&channel->probe_flags, LAGMON_PROBE_AGENT_CALLED, __ATOMIC_SEQ_CST);
}

/* ---- Processes --------------------------------------------------------------------------- */

/// 8 of the 16 random bytes the kernel places in every new image (AT_RANDOM): they tell an exec
/// of the same pid apart from the image that ran before it, and two probe copies in one image
/// (agent and preload) find the same value.
static uint64_t lagmon_probe_image_id(void) {
    uint64_t id = 0;
    const void *random = (const void *)getauxval(AT_RANDOM);
    if (random != NULL) memcpy(&id, random, sizeof id);
    return id;
}

/// Copies this process's argv (/proc/self/cmdline) into `process`, cut to fit.
static void lagmon_probe_read_command(struct lagmon_process *process) {
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    char buffer[LAGMON_PROCESS_COMMAND_BYTES + 1];
    ssize_t total = 0;
    while (total < (ssize_t)sizeof buffer) {
        ssize_t got = read(fd, buffer + total, sizeof buffer - (size_t)total);
        if (got <= 0) break;
        total += got;
    }
    close(fd);
    if (total > (ssize_t)LAGMON_PROCESS_COMMAND_BYTES) {
        total = LAGMON_PROCESS_COMMAND_BYTES;
        buffer[total - 1] = '\0';
        process->flags |= LAGMON_PROCESS_COMMAND_TRUNCATED;
    }
    memcpy(process->command, buffer, (size_t)total);
    process->command_length = (uint32_t)total;
}

/// Lists this process image in the channel's process table, once per image: the other probe
/// copy of the same image finds the entry; an earlier image of the same pid is marked replaced.
static void lagmon_probe_register_process(struct lagmon_channel_header *channel, uint32_t flags, int32_t ppid) {
    uint64_t image = lagmon_probe_image_id();
    uint64_t now = lagmon_probe_now_ns(channel->clock_base_ns);
    image_attached_ns = now;
    uint32_t parent_index = process_index;
    process_index = LAGMON_PROCESS_NONE;
    for (uint32_t i = 0; i < LAGMON_PROCESS_CAPACITY; i++) {
        struct lagmon_process *entry = &channel->processes[i];
        if (__atomic_load_n(&entry->state, __ATOMIC_ACQUIRE) != LAGMON_SLOT_ACTIVE || entry->pid != lagmon_probe_pid) {
            continue;
        }
        if (entry->image_id == image && (flags & LAGMON_PROCESS_FORKED) == 0) {
            process_index = i;
            return;
        }
        uint64_t unset = 0;
        if (__atomic_compare_exchange_n(&entry->ended_ns, &unset, now, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
            __atomic_fetch_or(&entry->flags, LAGMON_PROCESS_EXECED, __ATOMIC_SEQ_CST);
        }
    }
    for (uint32_t i = 0; i < LAGMON_PROCESS_CAPACITY; i++) {
        struct lagmon_process *entry = &channel->processes[i];
        uint32_t expected = LAGMON_SLOT_FREE;
        if (!__atomic_compare_exchange_n(&entry->state, &expected, LAGMON_SLOT_CLAIMING, 0, __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE)) {
            continue;
        }
        entry->pid = lagmon_probe_pid;
        entry->ppid = ppid;
        entry->image_id = image;
        entry->attached_ns = now;
        entry->flags = flags;
        if ((flags & LAGMON_PROCESS_FORKED) && parent_index != LAGMON_PROCESS_NONE) {
            /* A fork runs the parent's image: same argv. */
            const struct lagmon_process *parent = &channel->processes[parent_index];
            memcpy(entry->command, parent->command, parent->command_length);
            entry->command_length = parent->command_length;
            entry->flags |= parent->flags & LAGMON_PROCESS_COMMAND_TRUNCATED;
        } else {
            lagmon_probe_read_command(entry);
        }
        __atomic_store_n(&entry->state, LAGMON_SLOT_ACTIVE, __ATOMIC_RELEASE);
        __atomic_fetch_add(&channel->processes_claimed, 1, __ATOMIC_SEQ_CST);
        lagmon_channel_post(&channel->discovery_sequence);
        process_index = i;
        return;
    }
    __atomic_fetch_or(&channel->probe_flags, LAGMON_PROBE_PROCESSES_EXHAUSTED, __ATOMIC_SEQ_CST);
}

/// In the child of a fork (async-signal-safe calls only: the parent may have had threads).
/// Without --follow-children the child goes inert; with it, the child lists itself. Either way
/// no slot of the parent is written from here on: the CF callout and the wait-call state check
/// the slot's pid against `lagmon_probe_pid`.
static void lagmon_probe_after_fork_child(void) {
    struct lagmon_channel_header *channel = attached_channel;
    if (channel == NULL) return;
    int32_t parent = lagmon_probe_pid;
    lagmon_probe_pid = (int32_t)getpid();
    if ((channel->options & LAGMON_OPTION_FOLLOW_CHILDREN) == 0) {
        __atomic_fetch_add(&channel->unfollowed_processes, 1, __ATOMIC_SEQ_CST);
        attached_channel = NULL;
        return;
    }
    lagmon_probe_register_process(channel, LAGMON_PROCESS_FORKED, parent);
}

/// Records in the process entry that this image ends now, once. Async-signal-safe (a clock read
/// and an atomic store): the fatal-signal handler calls it too.
static void lagmon_probe_record_end(void) {
    struct lagmon_channel_header *channel = attached_channel;
    if (channel == NULL || process_index == LAGMON_PROCESS_NONE) return;
    struct lagmon_process *entry = &channel->processes[process_index];
    if (entry->pid != lagmon_probe_pid) return;
    uint64_t unset = 0;
    uint64_t now = lagmon_probe_now_ns(channel->clock_base_ns);
    __atomic_compare_exchange_n(&entry->ended_ns, &unset, now, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/// At exit(): the process entry records when the process ended (a crash records it from the
/// fatal-signal handler below; a kill leaves it 0 and lagmon bounds the end itself).
__attribute__((destructor)) static void lagmon_probe_detach(void) { lagmon_probe_record_end(); }

/* ---- Fatal signals ----------------------------------------------------------------------- */

/* Signals that end a process by a crash. Their handler records the end on the target's own
   clock (lagmon may notice the death late: a loaded machine, or lagmon stopped) and then lets
   the signal do exactly what it would have done: installed only where the disposition is the
   default, it restores the default and the crash proceeds (same signal, same core dump). */
static const int lagmon_probe_fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define LAGMON_PROBE_FATAL_COUNT (sizeof lagmon_probe_fatal_signals / sizeof lagmon_probe_fatal_signals[0])

static void lagmon_probe_on_fatal_signal(int signal_number, siginfo_t *info, void *context) {
    (void)context;
    int saved_errno = errno;
    lagmon_probe_record_end();
    struct sigaction default_action;
    memset(&default_action, 0, sizeof default_action);
    default_action.sa_handler = SIG_DFL;
    sigemptyset(&default_action.sa_mask);
    sigaction(signal_number, &default_action, NULL);
    /* A fault (si_code > 0: the kernel's, for the faulting instruction) happens again when the
       handler returns and now takes the default action. A signal that was sent (kill, raise,
       abort: si_code <= 0) does not recur by itself: send it again, to this thread, delivered
       as the handler returns. */
    if (info == NULL || info->si_code <= 0) {
        syscall(SYS_tgkill, (pid_t)getpid(), (pid_t)syscall(SYS_gettid), signal_number);
    }
    errno = saved_errno;
}

/// Installs the handler for each fatal signal whose disposition is still the default (a
/// program's own handler is left alone: it may recover, and the program installs it later
/// anyway, replacing this one). Runs at attach, before the program's main.
static void lagmon_probe_watch_fatal_signals(void) {
    for (size_t i = 0; i < LAGMON_PROBE_FATAL_COUNT; i++) {
        struct sigaction current;
        if (sigaction(lagmon_probe_fatal_signals[i], NULL, &current) != 0) continue;
        if ((current.sa_flags & SA_SIGINFO) != 0 || current.sa_handler != SIG_DFL) continue;
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = lagmon_probe_on_fatal_signal;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        sigaction(lagmon_probe_fatal_signals[i], &action, NULL);
    }
}

/* ---- Slots ------------------------------------------------------------------------------- */

static void lagmon_probe_set_flag(struct lagmon_channel_header *channel, uint32_t flag) {
    __atomic_fetch_or(&channel->probe_flags, flag, __ATOMIC_SEQ_CST);
}

/// Whether `slot` was claimed by this process image. After an exec the pid and the main
/// thread's tid are the same, but the old image's slots are over: its process entry differs
/// (or, with a full process table, it was claimed before this image attached).
static int lagmon_probe_is_own_image(const struct lagmon_slot *slot) {
    if (process_index != LAGMON_PROCESS_NONE) return slot->process_index == process_index;
    return slot->claimed_ns >= image_attached_ns;
}

/// The slot this image claimed for thread `tid`, if any. Own slots lie before the first free one
/// (claims take the lowest free slot and slots are never freed), so the scan stops there: its
/// cost follows the loops in use, not the capacity, and untouched slots stay unmapped here.
struct lagmon_slot *lagmon_probe_thread_slot(struct lagmon_channel_header *channel, int32_t tid) {
    for (uint32_t i = 0; i < LAGMON_SLOT_CAPACITY; i++) {
        struct lagmon_slot *slot = &channel->slots[i];
        uint32_t state = __atomic_load_n(&slot->state, __ATOMIC_ACQUIRE);
        if (state == LAGMON_SLOT_FREE) break;
        if (slot->pid == lagmon_probe_pid && slot->tid == tid && lagmon_probe_is_own_image(slot)) return slot;
    }
    return NULL;
}

struct lagmon_slot *lagmon_probe_claim(struct lagmon_channel_header *channel, uint32_t kind) {
    for (uint32_t i = 0; i < LAGMON_SLOT_CAPACITY; i++) {
        struct lagmon_slot *slot = &channel->slots[i];
        uint32_t expected = LAGMON_SLOT_FREE;
        if (!__atomic_compare_exchange_n(&slot->state, &expected, LAGMON_SLOT_CLAIMING, 0,
                                         __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            continue;
        }
        slot->kind = kind;
        slot->pid = lagmon_probe_pid;
        slot->tid = gettid();
        prctl(PR_GET_NAME, slot->thread_name, 0, 0, 0);
        slot->stall_threshold_ns = channel->stall_threshold_ns;
        slot->wake_ns = UINT64_MAX;
        slot->claimed_ns = lagmon_probe_now_ns(channel->clock_base_ns);
        slot->process_index = process_index;
        return slot;
    }
    lagmon_probe_set_flag(channel, LAGMON_PROBE_SLOTS_EXHAUSTED);
    __atomic_fetch_add(&channel->refused_loops, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

void lagmon_probe_publish(struct lagmon_channel_header *channel, struct lagmon_slot *slot) {
    slot->published_ns = lagmon_probe_now_ns(channel->clock_base_ns);
    __atomic_store_n(&slot->state, LAGMON_SLOT_ACTIVE, __ATOMIC_RELEASE);
    __atomic_fetch_add(&channel->slots_claimed, 1, __ATOMIC_SEQ_CST);
    lagmon_channel_post(&channel->discovery_sequence);
}

void lagmon_probe_record_stall(struct lagmon_slot *slot, uint64_t start_ns, uint64_t end_ns,
                               uint32_t activity) {
    uint64_t head = slot->stall_head;
    struct lagmon_stall_record *record = &slot->stalls[head % LAGMON_STALL_RING_CAPACITY];
    lagmon_probe_store(&record->start_ns, start_ns);
    lagmon_probe_store(&record->end_ns, end_ns);
    lagmon_probe_store(&record->activity, activity);
    __atomic_store_n(&slot->stall_head, head + 1, __ATOMIC_RELEASE);
}

void lagmon_probe_wake_watchdog(struct lagmon_slot *slot) {
    /* Exactly one post per park: whoever clears the flag owns the post. */
    if (__atomic_exchange_n(&slot->watchdog_parked, 0, __ATOMIC_SEQ_CST) != 0) {
        lagmon_probe_store(&slot->watchdog_posts, slot->watchdog_posts + 1);
        lagmon_channel_post(&slot->wake_sequence);
    }
}

/* ---- CoreFoundation observer ------------------------------------------------------------- */

typedef struct {
    long version;
    void *info;
    const void *(*retain)(const void *info);
    void (*release)(const void *info);
    void *(*copy_description)(const void *info);
} lagmon_cf_observer_context;
typedef void (*lagmon_cf_callout)(void *observer, unsigned long activity, void *info);

struct lagmon_cf_api {
    void *(*get_main)(void);
    void *(*get_current)(void);
    void *(*copy_current_mode)(void *run_loop);
    void (*release)(const void *object);
    void *(*observer_create)(const void *allocator, unsigned long activities, unsigned char repeats,
                             long order, lagmon_cf_callout callout, lagmon_cf_observer_context *context);
    void (*add_observer)(void *run_loop, void *observer, const void *mode);
    const void *const *common_modes;
};

static int lagmon_cf_resolve(struct lagmon_cf_api *api) {
    api->get_main = (void *(*)(void))dlsym(RTLD_DEFAULT, "CFRunLoopGetMain");
    api->get_current = (void *(*)(void))dlsym(RTLD_DEFAULT, "CFRunLoopGetCurrent");
    api->copy_current_mode = (void *(*)(void *))dlsym(RTLD_DEFAULT, "CFRunLoopCopyCurrentMode");
    api->release = (void (*)(const void *))dlsym(RTLD_DEFAULT, "CFRelease");
    api->observer_create = (void *(*)(const void *, unsigned long, unsigned char, long,
                                      lagmon_cf_callout, lagmon_cf_observer_context *))
        dlsym(RTLD_DEFAULT, "CFRunLoopObserverCreate");
    api->add_observer = (void (*)(void *, void *, const void *))dlsym(RTLD_DEFAULT, "CFRunLoopAddObserver");
    api->common_modes = (const void *const *)dlsym(RTLD_DEFAULT, "kCFRunLoopCommonModes");
    return api->get_main && api->get_current && api->copy_current_mode && api->release &&
           api->observer_create && api->add_observer && api->common_modes;
}

/* The callouts. `info` is the slot; the channel's clock base sits in the slot's channel, but
   reading the header on every transition would touch another cache line, so it is cached. */
static uint64_t cf_clock_base_ns;

static void lagmon_cf_callout_record(void *observer, unsigned long activity, void *info) {
    (void)observer;
    struct lagmon_slot *slot = (struct lagmon_slot *)info;
    /* A forked child keeps the parent's observer: it must not write the parent's slot. */
    if (__builtin_expect(slot->pid != lagmon_probe_pid, 0)) return;
    lagmon_probe_record(slot, (uint32_t)activity, cf_clock_base_ns);
}

/// Awake activities are recorded by an observer ordered first, so busy time starts before any
/// other observer runs; before-waiting by one ordered last, so work done in other before-waiting
/// observers counts as busy rather than hiding in the idle state.
///
/// Entry, before-timers and exit are not observed: each observed activity costs CoreFoundation's
/// observer dispatch (two run loop locks released and taken again, the observer's lock, a retain
/// and a release: about 600 instructions in callgrind, five times the record itself).
/// Before-timers is followed by before-sources with nothing run between (timers fire after
/// waking on Linux), and entry by before-timers; neither is a stalling activity, and the first
/// awake transition after an idle one opens the busy period and wakes a parked watchdog
/// whichever it is. Exit is left out because what follows it is not idle: the thread returns to
/// the program that ran the loop. A loop pumped with CFRunLoopRunInMode(mode, 0, true) runs the
/// program's own code between two pumps, and while it does the loop services nothing: a 300 ms
/// computation between pumps is a stall, seen as one because the loop stays in before-sources
/// until the next pump. A nested loop's exit likewise returns to the outer loop's callout, which
/// is still busy. A pumped pass thus pays one dispatch (before-sources) instead of four, as a
/// long CFRunLoopRun that never sleeps does. The cost: a main thread that stops its run loop for
/// good and then blocks elsewhere (joins a thread, waits on stdin) shows as one stall until it
/// exits (docs/design.md).
#define LAGMON_CF_AWAKE_ACTIVITIES (LAGMON_ACTIVITY_BEFORE_SOURCES | LAGMON_ACTIVITY_AFTER_WAITING)
#define LAGMON_CF_SLEEPING_ACTIVITIES LAGMON_ACTIVITY_BEFORE_WAITING

static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;
static enum lagmon_install_result install_result = LAGMON_INSTALL_NOT_YET;

static enum lagmon_install_result lagmon_cf_install_locked(struct lagmon_channel_header *channel,
                                                          int require_running, struct lagmon_slot **recorded) {
    /* Resolved once: the preload shim asks again on every main-thread wait until the loop runs,
       and dlsym is not cheap. */
    static struct lagmon_cf_api api;
    static int resolved;
    if (!resolved) {
        if (!lagmon_cf_resolve(&api)) {
            lagmon_probe_set_flag(channel, LAGMON_PROBE_NO_CF);
            return LAGMON_INSTALL_NEVER;
        }
        resolved = 1;
        lagmon_probe_set_flag(channel, LAGMON_PROBE_CF_FOUND);
    }
    void *main_loop = api.get_main();
    if (main_loop == NULL || api.get_current() != main_loop) return LAGMON_INSTALL_NOT_YET;
    if (require_running) {
        void *mode = api.copy_current_mode(main_loop);
        if (mode == NULL) return LAGMON_INSTALL_NOT_YET;
        api.release(mode);
    }
    /* A thread already observed through its wait calls (the main thread waited repeatedly
       before its run loop started) hands its slot over: the CF observer is more precise, and the
       wait-call writer stops when it sees the kind change (same thread, so never concurrently). */
    struct lagmon_slot *slot = lagmon_probe_thread_slot(channel, gettid());
    if (slot != NULL && slot->kind == LAGMON_OBSERVER_CFRUNLOOP) return LAGMON_INSTALL_DONE;
    int fresh = slot == NULL;
    if (fresh) slot = lagmon_probe_claim(channel, LAGMON_OBSERVER_CFRUNLOOP);
    if (slot == NULL) return LAGMON_INSTALL_NEVER;
    cf_clock_base_ns = channel->clock_base_ns;
    if (recorded != NULL) {
        /* The caller records the transitions: the slot is the loop's, with no observer. */
        if (fresh) {
            lagmon_probe_publish(channel, slot);
        } else {
            __atomic_store_n(&slot->kind, LAGMON_OBSERVER_CFRUNLOOP, __ATOMIC_RELEASE);
        }
        *recorded = slot;
        lagmon_probe_set_flag(channel, LAGMON_PROBE_OBSERVER_INSTALLED);
        return LAGMON_INSTALL_DONE;
    }
    lagmon_cf_observer_context context = {0, slot, NULL, NULL, NULL};
    void *first = api.observer_create(NULL, LAGMON_CF_AWAKE_ACTIVITIES, 1, LONG_MIN,
                                      lagmon_cf_callout_record, &context);
    void *last = api.observer_create(NULL, LAGMON_CF_SLEEPING_ACTIVITIES, 1, LONG_MAX,
                                     lagmon_cf_callout_record, &context);
    if (first == NULL || last == NULL) {
        lagmon_probe_set_flag(channel, LAGMON_PROBE_INSTALL_FAILED);
        return LAGMON_INSTALL_NEVER;
    }
    if (fresh) {
        lagmon_probe_publish(channel, slot);
    } else {
        __atomic_store_n(&slot->kind, LAGMON_OBSERVER_CFRUNLOOP, __ATOMIC_RELEASE);
    }
    api.add_observer(main_loop, first, *api.common_modes);
    api.add_observer(main_loop, last, *api.common_modes);
    /* The run loop retains them; they live as long as the process. */
    api.release(first);
    api.release(last);
    lagmon_probe_set_flag(channel, LAGMON_PROBE_OBSERVER_INSTALLED);
    return LAGMON_INSTALL_DONE;
}

static enum lagmon_install_result lagmon_cf_install(int require_running, struct lagmon_slot **recorded) {
    struct lagmon_channel_header *channel = lagmon_probe_channel();
    if (channel == NULL) return LAGMON_INSTALL_NEVER;
    pthread_mutex_lock(&install_lock);
    if (install_result == LAGMON_INSTALL_NOT_YET) {
        install_result = lagmon_cf_install_locked(channel, require_running, recorded);
    }
    enum lagmon_install_result result = install_result;
    pthread_mutex_unlock(&install_lock);
    return result;
}

enum lagmon_install_result lagmon_probe_install_main_observer(int require_running) {
    return lagmon_cf_install(require_running, NULL);
}

enum lagmon_install_result lagmon_probe_install_main_loop_unobserved(struct lagmon_slot **recorded) {
    *recorded = NULL;
    return lagmon_cf_install(1, recorded);
}
