// LD_PRELOAD shim. lagmon starts the target with this library preloaded; it needs no change to
// the target. It interposes libc's wait calls (epoll_wait, epoll_pwait, epoll_pwait2, poll,
// ppoll, select, pselect, and the fortified __poll_chk/__ppoll_chk) for two reasons:
//
//  - CoreFoundation: the shim cannot call CF from its constructor (CF may not be initialised
//    yet), so it waits for the main thread's first sleep in a wait call: CFRunLoop on Linux sleeps
//    in ppoll, so by then CF is set up and the main run loop may be running. Until the observer is
//    installed (or known impossible), main-thread waits try once more.
//  - Any other event loop: a thread that waits repeatedly on one wait set is a loop, and its
//    waits are its transitions (lagmon_waitcall.h has the rule). close() and thread exit end a
//    loop.
//
// In a process that runs tokio it also interposes syscall(), through which Rust's std makes its
// futex waits: a tokio runtime parks on a futex when it has no I/O driver, and a multi_thread
// runtime's workers park on their own futex or in the driver's epoll_wait, each park one wait of
// the worker's loop (docs/design/tokio.md).
//
// A thread that becomes a loop here also becomes a StrictMode thread: lagmon_strict_calls.c wraps
// the blocking calls that do not belong on it and counts them in its slot.
//
// The hot path of a loop's wait (lagmon_preload_enter/return) touches only thread-local state and
// the thread's own slot: no lock, no system call besides the real wait (a watchdog that parked is
// woken with a futex wake, as the CF observer does). Everything else is out of line.
#define _GNU_SOURCE
#include "lagmon_preload.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lagmon_probe.h"
#include "lagmon_strict_calls.h"
#include "lagmon_swift_jobs.h"
#include "lagmon_tsc_clock.h"
#include "lagmon_waitcall.h"

#define LAGMON_EXPORT __attribute__((visibility("default")))
#define LAGMON_COLD __attribute__((noinline, cold))

static pthread_t main_thread;
/* The main run loop recorded from CF's waits (mode CF, main thread only): libdispatch's main-queue
   port, and the port sets CF added it to: those of the loop's common modes. A mode lives as long
   as its run loop, and the main run loop as long as the process, so a set stays known. */
#define LAGMON_CF_PORT_SETS 8
static int cf_main_queue_port = -1;
static int cf_port_sets[LAGMON_CF_PORT_SETS];
static uint32_t cf_port_set_count;
/* 1 while the main run loop may still need a CF observer. */
static int install_pending;
/* The attached channel (NULL: no monitoring, or a fork's child lagmon does not follow) and its
   clock base, copied so the hot path reads no header line. */
static struct lagmon_channel_header *channel;
static uint64_t clock_base_ns;
/* Gives loop threads a destructor: a loop whose thread exits has ended. */
static pthread_key_t exit_key;

/* Whether the program runs tokio (lagmon_preload_detect_tokio), decided at its first futex wait
   through syscall(): 0 not yet, then one of these. */
enum { LAGMON_TOKIO_UNKNOWN = 0, LAGMON_TOKIO_PRESENT = 1, LAGMON_TOKIO_ABSENT = 2 };
static int tokio_process;

/* 1 when the kernel's clocksource is the TSC: timestamps then come from lagmon_tsc_clock.h. */
static int tsc_usable;

static __thread struct lagmon_waitcall_thread waitcall __attribute__((tls_model("initial-exec")));
static __thread struct lagmon_tsc_clock thread_clock __attribute__((tls_model("initial-exec")));

static void lagmon_preload_thread_exit(void *slot);
static void lagmon_preload_after_fork_child(void);

/// Whether the kernel keeps time with the TSC (invariant, synchronised across CPUs, or it would
/// have picked another clocksource).
static int lagmon_preload_tsc_is_clocksource(void) {
#if defined(__x86_64__)
    int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char name[8] = {0};
    ssize_t length = read(fd, name, sizeof name - 1);
    close(fd);
    return length >= 3 && name[0] == 't' && name[1] == 's' && name[2] == 'c' && (length == 3 || name[3] == '\n');
#else
    return 0;
#endif
}

__attribute__((constructor)) static void lagmon_preload_init(void) {
    channel = lagmon_probe_channel();
    if (channel == NULL) return;
    clock_base_ns = channel->clock_base_ns;
    tsc_usable = lagmon_preload_tsc_is_clocksource();
    pthread_key_create(&exit_key, lagmon_preload_thread_exit);
    /* Registered after the probe's own handler, so it runs after it in the child. */
    pthread_atfork(NULL, NULL, lagmon_preload_after_fork_child);
    lagmon_swift_jobs_init(channel, tsc_usable);
    /* Looking a symbol up is safe this early; calling CoreFoundation is not. */
    uint32_t found = dlsym(RTLD_DEFAULT, "CFRunLoopGetMain") != NULL ? LAGMON_PROBE_CF_FOUND : LAGMON_PROBE_NO_CF;
    __atomic_fetch_or(&channel->probe_flags, LAGMON_PROBE_PRELOAD_LOADED | found, __ATOMIC_SEQ_CST);
    if (found == LAGMON_PROBE_NO_CF) return;
    main_thread = pthread_self();
    __atomic_store_n(&install_pending, 1, __ATOMIC_RELEASE);
}

static uint64_t lagmon_preload_precise_now(void) { return lagmon_probe_now_ns(clock_base_ns); }

/// Now on the channel clock, for the calling thread's transitions.
static inline uint64_t lagmon_preload_now(void) {
    if (__builtin_expect(tsc_usable, 1)) {
        return lagmon_tsc_clock_now(&thread_clock, lagmon_tsc_read(), lagmon_preload_precise_now, lagmon_tsc_read);
    }
    return lagmon_probe_now_ns(clock_base_ns);
}

uint64_t lagmon_preload_clock_now(void) { return lagmon_preload_now(); }

/* ---- tokio ---------------------------------------------------------------------------------- */

/// tokio's default name for the threads of its pools ("tokio-runtime-worker"), as the kernel
/// keeps it (15 bytes).
static const char lagmon_tokio_thread_name[] = "tokio-runtime-w";

/// Whether the main executable's loaded segments hold tokio's default thread name: tokio is linked
/// into the program (a Rust program links its crates statically). The program headers come from
/// the auxiliary vector (no loader lock: this runs inside a futex wait); the scan reads only
/// file-backed bytes of readable segments, once per process.
LAGMON_COLD static int lagmon_preload_detect_tokio(void) {
    static const char needle[] = "tokio-runtime-worker";
    const ElfW(Phdr) *headers = (const ElfW(Phdr) *)getauxval(AT_PHDR);
    size_t count = getauxval(AT_PHNUM);
    if (headers == NULL || count == 0 || count > 4096) return LAGMON_TOKIO_ABSENT;
    uintptr_t base = 0;
    int based = 0;
    for (size_t i = 0; i < count; i++) {
        if (headers[i].p_type == PT_PHDR) {
            base = (uintptr_t)headers - headers[i].p_vaddr;
            based = 1;
        }
    }
    if (!based) return LAGMON_TOKIO_ABSENT;
    for (size_t i = 0; i < count; i++) {
        if (headers[i].p_type != PT_LOAD || (headers[i].p_flags & PF_R) == 0) continue;
        const void *start = (const void *)(base + headers[i].p_vaddr);
        if (memmem(start, headers[i].p_filesz, needle, sizeof needle - 1) != NULL) return LAGMON_TOKIO_PRESENT;
    }
    return LAGMON_TOKIO_ABSENT;
}

/// Whether the program runs tokio, deciding it at the first call (racing threads find the same).
static int lagmon_preload_runs_tokio(void) {
    int known = __atomic_load_n(&tokio_process, __ATOMIC_ACQUIRE);
    if (__builtin_expect(known != LAGMON_TOKIO_UNKNOWN, 1)) return known == LAGMON_TOKIO_PRESENT;
    known = lagmon_preload_detect_tokio();
    __atomic_store_n(&tokio_process, known, __ATOMIC_RELEASE);
    return known == LAGMON_TOKIO_PRESENT;
}

/// Decides the role of a thread in a process known to run tokio: a thread named as tokio names
/// its pools' threads is a worker (tokio names a thread before it runs anything on it). A thread
/// already a loop keeps its keys.
LAGMON_COLD static void lagmon_preload_classify(struct lagmon_waitcall_thread *t) {
    t->role = LAGMON_WAITCALL_ROLE_ORDINARY;
    if (t->mode != LAGMON_WAITCALL_COUNTING) return;
    char name[16] = {0};
    if (prctl(PR_GET_NAME, name, 0, 0, 0) == 0 && memcmp(name, lagmon_tokio_thread_name, 15) == 0) {
        t->role = LAGMON_WAITCALL_ROLE_TOKIO_WORKER;
    }
}

/* ---- Out of line: CF installation, counting, qualifying, ending --------------------------- */

/// libdispatch's main-queue port (an eventfd) as CoreFoundation's main run loop uses it, or -1.
/// The main run loop is running when this is asked, so CF has already fetched (and created) it.
static int lagmon_preload_main_queue_port(void) {
    int (*port)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "_dispatch_get_main_queue_port_4CF");
    return port != NULL ? port() : -1;
}

static void lagmon_preload_note_cf_port_set(int set);

/// Whether the epoll instance `set` watches `port`, from /proc/self/fdinfo/<set>, whose lines
/// name each watched descriptor ("tfd:        6 events: ..."). Once, at installation.
static int lagmon_preload_epoll_watches(int set, int port) {
    char path[48];
    snprintf(path, sizeof path, "/proc/self/fdinfo/%d", set);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char text[4096];
    ssize_t length = read(fd, text, sizeof text - 1);
    close(fd);
    if (length <= 0) return 0;
    text[length] = '\0';
    for (const char *line = text; line != NULL && *line != '\0';) {
        if (strncmp(line, "tfd:", 4) == 0) {
            char *end = NULL;
            long watched = strtol(line + 4, &end, 10);
            if (end != line + 4 && watched == port) return 1;
        }
        line = strchr(line, '\n');
        if (line != NULL) line++;
    }
    return 0;
}

/// On the main thread while CF may still need its observer, inside a wait on `key`. Returns 1
/// when the main run loop is now watched, by this shim from CF's waits (mode CF) or by CF
/// observers (mode OFF); the thread's other wait calls are then not recorded.
LAGMON_COLD static int lagmon_preload_try_cf(struct lagmon_waitcall_thread *t, uint64_t key) {
    struct lagmon_slot *recorded = NULL;
    int port = lagmon_preload_main_queue_port();
    enum lagmon_install_result result =
        port >= 0 ? lagmon_probe_install_main_loop_unobserved(&recorded) : lagmon_probe_install_main_observer(1);
    if (result == LAGMON_INSTALL_NOT_YET) return 0;
    __atomic_store_n(&install_pending, 0, __ATOMIC_RELEASE);
    if (result != LAGMON_INSTALL_DONE) return 0;
    if (t->mode == LAGMON_WAITCALL_LOOP && t->slot->pid == lagmon_probe_pid) {
        /* The run loop took this thread's slot over inside a wait: the loop is going to sleep. */
        lagmon_probe_record_at(t->slot, LAGMON_ACTIVITY_BEFORE_WAITING, lagmon_preload_now());
    }
    if (recorded != NULL) {
        cf_main_queue_port = port;
        t->slot = recorded;
        t->mode = LAGMON_WAITCALL_CF;
        /* CF added the main queue to this wait's port set before the shim knew its port: when this
           wait is CF's (the program's first pass may be its only one), it is recorded too. */
        int set = lagmon_waitcall_key_descriptor(key);
        if ((key >> 56) == LAGMON_WAITCALL_POLL && set >= 0 && lagmon_preload_epoll_watches(set, port)) {
            lagmon_preload_note_cf_port_set(set);
        }
    } else {
        t->mode = LAGMON_WAITCALL_OFF;
    }
    /* The run loop's thread: StrictMode counts its blocking calls in the observer's slot. */
    lagmon_strict_watch(channel, lagmon_probe_thread_slot(channel, (int32_t)gettid()));
    return 1;
}

static int lagmon_preload_is_main(void) {
    return __atomic_load_n(&install_pending, __ATOMIC_ACQUIRE) && pthread_equal(pthread_self(), main_thread);
}

/// The thread qualified as a loop on its wait `token`, entered at `now`: find or claim its slot.
LAGMON_COLD static int lagmon_preload_qualify(struct lagmon_waitcall_thread *t, int token, uint64_t now) {
    struct lagmon_channel_header *attached = channel;
    int32_t tid = (int32_t)gettid();
    int32_t pid = lagmon_probe_pid;
    if (t->slot != NULL && t->slot->pid == pid) {
        /* Its own slot from an earlier loop: already published, so no replay (lagmon could see
           the replayed past as a stall in progress). */
        lagmon_waitcall_adopt(t, token, t->slot, 0, now);
        lagmon_strict_watch(attached, t->slot);
        return LAGMON_WAITCALL_TOKEN_LOOP;
    }
    struct lagmon_slot *existing = lagmon_probe_thread_slot(attached, tid);
    if (existing != NULL) {
        /* A CFRunLoop observer (the agent, or this shim) watches it already. */
        t->mode = LAGMON_WAITCALL_OFF;
        return LAGMON_WAITCALL_TOKEN_NONE;
    }
    if ((attached->options & LAGMON_OPTION_ALL_THREADS) == 0 && tid != pid) {
        __atomic_fetch_add(&attached->unwatched_loops, 1, __ATOMIC_SEQ_CST);
        t->mode = LAGMON_WAITCALL_OFF;
        return LAGMON_WAITCALL_TOKEN_NONE;
    }
    uint32_t kind =
        t->role == LAGMON_WAITCALL_ROLE_TOKIO_WORKER ? LAGMON_OBSERVER_TOKIO_WORKER : LAGMON_OBSERVER_WAITCALL;
    struct lagmon_slot *slot = lagmon_probe_claim(attached, kind);
    if (slot == NULL) {
        t->mode = LAGMON_WAITCALL_OFF;
        return LAGMON_WAITCALL_TOKEN_NONE;
    }
    slot->claimed_ns = lagmon_waitcall_history_start(t, token, now);
    lagmon_waitcall_adopt(t, token, slot, 1, now);
    lagmon_probe_publish(attached, slot);
    pthread_setspecific(exit_key, slot);
    lagmon_strict_watch(attached, slot);
    return LAGMON_WAITCALL_TOKEN_LOOP;
}

/// Entry of a wait by a thread that is not (or not on this key) a loop.
LAGMON_COLD static int lagmon_preload_count(struct lagmon_waitcall_thread *t, uint64_t key) {
    if (lagmon_preload_is_main() && lagmon_preload_try_cf(t, key)) return LAGMON_WAITCALL_TOKEN_NONE;
    if (t->mode == LAGMON_WAITCALL_LOOP) return LAGMON_WAITCALL_TOKEN_NONE; /* another key: busy */
    /* A tokio pool thread is a loop by its parks only: its other waits are a task's, busy. */
    if (t->role == LAGMON_WAITCALL_ROLE_TOKIO_WORKER && (key >> 56) != LAGMON_WAITCALL_PARK) {
        return LAGMON_WAITCALL_TOKEN_NONE;
    }
    int qualified = 0;
    uint64_t now = lagmon_preload_now();
    int token = lagmon_waitcall_count_entry(t, key, now, &qualified);
    return qualified ? lagmon_preload_qualify(t, token, now) : token;
}

static int lagmon_preload_enter_loop(struct lagmon_waitcall_thread *t);

/// The caller sees the errno its wait call leaves, whatever counting and claiming did before it.
LAGMON_COLD static int lagmon_preload_enter_slow(struct lagmon_waitcall_thread *t, uint64_t key) {
    if (channel == NULL || t->mode >= LAGMON_WAITCALL_OFF) return LAGMON_WAITCALL_TOKEN_NONE;
    int saved = errno;
    if (t->role == LAGMON_WAITCALL_ROLE_UNKNOWN &&
        __atomic_load_n(&tokio_process, __ATOMIC_ACQUIRE) == LAGMON_TOKIO_PRESENT) {
        /* A thread of a tokio program whose first wait is not a futex wait (a worker's first park
           in the I/O driver). In other programs the role stays unknown: ordinary keys. */
        lagmon_preload_classify(t);
        key = lagmon_waitcall_role_key(t->role, key);
    }
    /* A worker's minor park (or a first park before its role was known) on its loop's key. */
    int token = t->mode == LAGMON_WAITCALL_LOOP && lagmon_waitcall_counted_key(key) == t->loop_key
                    ? lagmon_preload_enter_loop(t)
                    : lagmon_preload_count(t, key);
    errno = saved;
    return token;
}

LAGMON_COLD static void lagmon_preload_return_slow(struct lagmon_waitcall_thread *t, int token) {
    lagmon_waitcall_count_return(t, token, lagmon_preload_now());
}

/// The slot changed hands (a CF observer took it over, or this is a fork's child): stop.
LAGMON_COLD static int lagmon_preload_disown(struct lagmon_waitcall_thread *t) {
    t->mode = LAGMON_WAITCALL_OFF;
    /* A CF observer on this thread keeps the slot (and StrictMode with it); a fork's child not. */
    if (t->slot->pid != lagmon_probe_pid) lagmon_strict_watch(NULL, NULL);
    return LAGMON_WAITCALL_TOKEN_NONE;
}

static void lagmon_preload_thread_exit(void *slot) {
    (void)slot;
    struct lagmon_waitcall_thread *t = &waitcall;
    if (t->mode == LAGMON_WAITCALL_LOOP && lagmon_waitcall_owns_slot(t, lagmon_probe_pid)) {
        lagmon_waitcall_end_loop(t, lagmon_preload_now());
    }
    t->mode = LAGMON_WAITCALL_OFF;
    lagmon_strict_watch(NULL, NULL);
}

/// In a fork's child (only the forking thread exists): its loop state belongs to the parent.
static void lagmon_preload_after_fork_child(void) {
    struct lagmon_waitcall_thread none = {0};
    waitcall = none;
    lagmon_strict_after_fork_child();
    channel = lagmon_probe_channel();
    lagmon_swift_jobs_after_fork_child(channel);
    /* CoreFoundation is not fork-safe: a fork's child never gets an observer. */
    __atomic_store_n(&install_pending, 0, __ATOMIC_RELEASE);
    cf_port_set_count = 0;
}

/* ---- The hot path ------------------------------------------------------------------------ */

/// A wait on the loop's key: the loop goes to sleep.
__attribute__((always_inline)) static inline int lagmon_preload_enter_loop(struct lagmon_waitcall_thread *t) {
    if (__builtin_expect(!lagmon_waitcall_owns_slot(t, lagmon_probe_pid), 0)) return lagmon_preload_disown(t);
    lagmon_probe_record_at(t->slot, LAGMON_ACTIVITY_BEFORE_WAITING, lagmon_preload_now());
    return LAGMON_WAITCALL_TOKEN_LOOP;
}

/// Before the real wait: returns what the return hook must do.
__attribute__((always_inline)) static inline int lagmon_preload_enter(uint64_t key) {
    struct lagmon_waitcall_thread *t = &waitcall;
    if (__builtin_expect(t->mode == LAGMON_WAITCALL_LOOP && key == t->loop_key, 1)) return lagmon_preload_enter_loop(t);
    return lagmon_preload_enter_slow(t, key);
}

/// After the real wait. The loop's path sets no errno (the clock and the slot's stores cannot
/// fail; a watchdog's wake-up keeps errno); the counting path may, so it
/// keeps the wait's errno for the caller.
__attribute__((always_inline)) static inline void lagmon_preload_return(int token) {
    if (__builtin_expect(token == LAGMON_WAITCALL_TOKEN_LOOP, 1)) {
        lagmon_probe_record_at(waitcall.slot, LAGMON_ACTIVITY_AFTER_WAITING, lagmon_preload_now());
    } else if (token != LAGMON_WAITCALL_TOKEN_NONE) {
        int saved = errno;
        lagmon_preload_return_slow(&waitcall, token);
        errno = saved;
    }
}

/* ---- Keys -------------------------------------------------------------------------------- */

static inline uint64_t lagmon_poll_key(const struct pollfd *fds, nfds_t nfds) {
    return lagmon_waitcall_key(LAGMON_WAITCALL_POLL, nfds > 0 && fds != NULL ? fds[0].fd : -1);
}

/// A select's lowest descriptor (read set first): stable while the loop's first descriptor
/// (typically its listening socket or wake-up pipe) stays open.
static inline uint64_t lagmon_select_key(int nfds, const fd_set *read, const fd_set *write) {
    const fd_set *sets[2] = {read, write};
    for (int s = 0; s < 2; s++) {
        if (sets[s] == NULL) continue;
        for (int fd = 0; fd < nfds && fd < FD_SETSIZE; fd += 64) {
            uint64_t word = 0;
            __builtin_memcpy(&word, (const char *)sets[s] + fd / 8, sizeof word);
            if (word != 0) return lagmon_waitcall_key(LAGMON_WAITCALL_SELECT, fd + __builtin_ctzll(word));
        }
    }
    return lagmon_waitcall_key(LAGMON_WAITCALL_SELECT, -1);
}

/* ---- The interposed entry points ------------------------------------------------------------ */

/* The real libc entry points, resolved once. dlsym(RTLD_NEXT) is safe to race: every thread
   stores the same pointer. */
#define LAGMON_REAL(name)                                              \
    static __typeof__(&name) real_##name;                              \
    if (__builtin_expect(real_##name == NULL, 0)) {                    \
        real_##name = (__typeof__(&name))dlsym(RTLD_NEXT, #name);      \
    }

/* Wraps one real wait call between the two hooks. A thread whose waits are not observed (a
   CFRunLoop observer watches it, or it is not a thread lagmon watches) goes straight to the
   real call: CoreFoundation polls once or twice per pass of the main run loop, and the hooks'
   frame and key cost more than the glibc wrapper itself (callgrind: ~80 instructions a call). */
#define LAGMON_WAIT(key, call)                                              \
    if (__builtin_expect(waitcall.mode >= LAGMON_WAITCALL_OFF, 0)) return call; \
    int token = lagmon_preload_enter(key);                                  \
    __typeof__(call) result = call;                                         \
    lagmon_preload_return(token);                                           \
    return result;

/// An epoll wait's key: a tokio worker's is its park.
static inline uint64_t lagmon_epoll_key(int epfd) {
    return lagmon_waitcall_role_key(waitcall.role, lagmon_waitcall_key(LAGMON_WAITCALL_EPOLL, epfd));
}

LAGMON_EXPORT int epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout) {
    LAGMON_REAL(epoll_wait);
    LAGMON_WAIT(lagmon_epoll_key(epfd), real_epoll_wait(epfd, events, maxevents, timeout));
}

LAGMON_EXPORT int epoll_pwait(int epfd, struct epoll_event *events, int maxevents, int timeout,
                              const sigset_t *sigmask) {
    LAGMON_REAL(epoll_pwait);
    LAGMON_WAIT(lagmon_epoll_key(epfd),
                real_epoll_pwait(epfd, events, maxevents, timeout, sigmask));
}

LAGMON_EXPORT int epoll_pwait2(int epfd, struct epoll_event *events, int maxevents, const struct timespec *timeout,
                               const sigset_t *sigmask) {
    LAGMON_REAL(epoll_pwait2);
    if (real_epoll_pwait2 == NULL) {
        /* A libc without it (before glibc 2.35): behave like one. */
        errno = ENOSYS;
        return -1;
    }
    LAGMON_WAIT(lagmon_epoll_key(epfd),
                real_epoll_pwait2(epfd, events, maxevents, timeout, sigmask));
}

LAGMON_EXPORT int poll(struct pollfd *fds, nfds_t nfds, int timeout) {
    LAGMON_REAL(poll);
    LAGMON_WAIT(lagmon_poll_key(fds, nfds), real_poll(fds, nfds, timeout));
}

/* ---- The main run loop, from CoreFoundation's own waits ----------------------------------------

   A CF observer costs a CoreFoundation observer dispatch per observed activity (about 600
   instructions: locks, a retain, a release) where recording the transition costs about 100. With
   this shim loaded, the main run loop's passes are recorded from the system calls CF makes around
   each wait of a common mode on the main thread (CFRunLoop.c, __CFRunLoopRun):

     epoll_ctl(set, EPOLL_CTL_ADD, main_queue_port)   the main queue joins the mode's port set
     ppoll({set}, 1, timeout, NULL)                   the wait: timeout 0 when a source was just
                                                      handled (or the loop runs for 0 seconds),
                                                      none (NULL) when the loop sleeps
     epoll_ctl(set, EPOLL_CTL_DEL, main_queue_port)

   CF adds the main queue only to the port sets of common modes, so a set it was added to is a
   common mode's, and a ppoll of one of them is CF's wait (the program cannot know the set). A wait
   with timeout 0 ends a pass that did not sleep: before-sources, the one activity observers
   recorded for such a pass (CF dispatches after-waiting only after a sleep). A wait that sleeps is
   before-waiting at its entry and after-waiting at its return: later and earlier than observers
   ordered last and first, so the work of other observers counts as busy. A wait of a mode that is
   not common (a nested run in a private mode) is not a pass: meanwhile the loop's common modes
   are serviced by nothing, as with observers, which are added to the common modes. */

static void lagmon_preload_note_cf_port_set(int set) {
    if (cf_port_set_count > 0 && cf_port_sets[0] == set) return;
    uint32_t known = 0;
    while (known < cf_port_set_count && cf_port_sets[known] != set) known++;
    if (known == cf_port_set_count && known < LAGMON_CF_PORT_SETS) {
        cf_port_sets[known] = set;
        cf_port_set_count = known + 1;
    }
}

/* Resolved on first use. The two entry points below keep their fast path free of calls (so of a
   stack frame): epoll_ctl is hot in every epoll server, ppoll on CF's main thread. */
static __typeof__(&epoll_ctl) real_epoll_ctl;
static __typeof__(&ppoll) real_ppoll;

LAGMON_COLD static int lagmon_preload_epoll_ctl_slow(int epfd, int op, int fd, struct epoll_event *event) {
    if (real_epoll_ctl == NULL) real_epoll_ctl = (__typeof__(&epoll_ctl))dlsym(RTLD_NEXT, "epoll_ctl");
    if (waitcall.mode == LAGMON_WAITCALL_CF && fd == cf_main_queue_port && op == EPOLL_CTL_ADD) {
        lagmon_preload_note_cf_port_set(epfd);
    }
    return real_epoll_ctl(epfd, op, fd, event);
}

LAGMON_EXPORT int epoll_ctl(int epfd, int op, int fd, struct epoll_event *event) {
    if (__builtin_expect(waitcall.mode == LAGMON_WAITCALL_CF, 0) && fd == cf_main_queue_port &&
        op == EPOLL_CTL_ADD && (cf_port_set_count == 0 || epfd != cf_port_sets[0])) {
        return lagmon_preload_epoll_ctl_slow(epfd, op, fd, event);
    }
    if (__builtin_expect(real_epoll_ctl == NULL, 0)) return lagmon_preload_epoll_ctl_slow(epfd, op, fd, event);
    return real_epoll_ctl(epfd, op, fd, event);
}

/// Whether `fds` is CF's wait on a common mode's port set.
static inline int lagmon_preload_is_cf_wait(const struct pollfd *fds, nfds_t nfds) {
    if (nfds != 1 || fds == NULL) return 0;
    for (uint32_t i = 0; i < cf_port_set_count; i++) {
        if (cf_port_sets[i] == fds[0].fd) return 1;
    }
    return 0;
}

/// CF's wait on the port set of a common mode, on the main thread: one pass of the run loop.
__attribute__((noinline)) static int lagmon_preload_cf_wait(struct pollfd *fds, nfds_t nfds,
                                                            const struct timespec *timeout,
                                                            const sigset_t *sigmask) {
    struct lagmon_slot *slot = waitcall.slot;
    if (timeout != NULL && timeout->tv_sec == 0 && timeout->tv_nsec == 0) {
        int result = real_ppoll(fds, nfds, timeout, sigmask);
        lagmon_probe_record_at(slot, LAGMON_ACTIVITY_BEFORE_SOURCES, lagmon_preload_now());
        return result;
    }
    lagmon_probe_record_at(slot, LAGMON_ACTIVITY_BEFORE_WAITING, lagmon_preload_now());
    int result = real_ppoll(fds, nfds, timeout, sigmask);
    lagmon_probe_record_at(slot, LAGMON_ACTIVITY_AFTER_WAITING, lagmon_preload_now());
    /* A pass that slept: counted here, as the observer counted its before-sources. */
    lagmon_probe_store(&slot->passes, slot->passes + 1);
    return result;
}

/// A ppoll of the main thread while its run loop is recorded from CF's waits.
__attribute__((noinline)) static int lagmon_preload_cf_ppoll(struct pollfd *fds, nfds_t nfds,
                                                             const struct timespec *timeout,
                                                             const sigset_t *sigmask) {
    if (lagmon_preload_is_cf_wait(fds, nfds)) return lagmon_preload_cf_wait(fds, nfds, timeout, sigmask);
    return real_ppoll(fds, nfds, timeout, sigmask);
}

/// A ppoll of a thread whose waits are observed or counted (or before ppoll is resolved).
__attribute__((noinline)) static int lagmon_preload_ppoll_watched(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout,
                                                    const sigset_t *sigmask) {
    if (real_ppoll == NULL) real_ppoll = (__typeof__(&ppoll))dlsym(RTLD_NEXT, "ppoll");
    if (waitcall.mode == LAGMON_WAITCALL_OFF) return real_ppoll(fds, nfds, timeout, sigmask);
    int token = lagmon_preload_enter(lagmon_poll_key(fds, nfds));
    if (__builtin_expect(waitcall.mode == LAGMON_WAITCALL_CF, 0) && lagmon_preload_is_cf_wait(fds, nfds)) {
        /* This wait installed the run loop's recording, and it is CF's. */
        return lagmon_preload_cf_wait(fds, nfds, timeout, sigmask);
    }
    int result = real_ppoll(fds, nfds, timeout, sigmask);
    lagmon_preload_return(token);
    return result;
}

LAGMON_EXPORT int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout, const sigset_t *sigmask) {
    if (__builtin_expect(waitcall.mode == LAGMON_WAITCALL_CF, 0)) return lagmon_preload_cf_ppoll(fds, nfds, timeout, sigmask);
    if (__builtin_expect(real_ppoll == NULL || waitcall.mode != LAGMON_WAITCALL_OFF, 0)) {
        return lagmon_preload_ppoll_watched(fds, nfds, timeout, sigmask);
    }
    return real_ppoll(fds, nfds, timeout, sigmask);
}

/* _FORTIFY_SOURCE turns poll/ppoll on arrays of known size into these. */
int __poll_chk(struct pollfd *fds, nfds_t nfds, int timeout, size_t fdslen);
int __ppoll_chk(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout, const sigset_t *sigmask,
                size_t fdslen);

LAGMON_EXPORT int __poll_chk(struct pollfd *fds, nfds_t nfds, int timeout, size_t fdslen) {
    LAGMON_REAL(__poll_chk);
    LAGMON_WAIT(lagmon_poll_key(fds, nfds), real___poll_chk(fds, nfds, timeout, fdslen));
}

LAGMON_EXPORT int __ppoll_chk(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout,
                              const sigset_t *sigmask, size_t fdslen) {
    LAGMON_REAL(__ppoll_chk);
    LAGMON_WAIT(lagmon_poll_key(fds, nfds), real___ppoll_chk(fds, nfds, timeout, sigmask, fdslen));
}

LAGMON_EXPORT int select(int nfds, fd_set *readfds, fd_set *writefds, fd_set *exceptfds, struct timeval *timeout) {
    LAGMON_REAL(select);
    LAGMON_WAIT(lagmon_select_key(nfds, readfds, writefds), real_select(nfds, readfds, writefds, exceptfds, timeout));
}

LAGMON_EXPORT int pselect(int nfds, fd_set *readfds, fd_set *writefds, fd_set *exceptfds,
                          const struct timespec *timeout, const sigset_t *sigmask) {
    LAGMON_REAL(pselect);
    LAGMON_WAIT(lagmon_select_key(nfds, readfds, writefds),
                real_pselect(nfds, readfds, writefds, exceptfds, timeout, sigmask));
}

/* ---- Futex waits through syscall() --------------------------------------------------------------

   Rust's std makes its futex waits (Mutex, Condvar, thread::park; so tokio's parkers) through
   libc's syscall(), which the program calls through its PLT: interposable, unlike glibc's own
   futex calls (pthread's), which are inline system calls. Only waits of a tokio program are
   looked at; every other call goes straight on after two comparisons. */

/// Whether a futex operation is a plain wait (FUTEX_WAIT or FUTEX_WAIT_BITSET, private or not).
static inline int lagmon_preload_is_futex_wait(long op) {
    int command = (int)op & FUTEX_CMD_MASK;
    return command == FUTEX_WAIT || command == FUTEX_WAIT_BITSET;
}

/// A futex wait of a thread whose waits may be observed: in a tokio program, a wait on its key.
__attribute__((noinline)) static long lagmon_preload_futex_wait(long (*real)(long, ...), long address, long op,
                                                                long value, long timeout, long second,
                                                                long bitset) {
    if (channel == NULL || !lagmon_preload_runs_tokio()) return real(SYS_futex, address, op, value, timeout, second, bitset);
    struct lagmon_waitcall_thread *t = &waitcall;
    if (__builtin_expect(t->role == LAGMON_WAITCALL_ROLE_UNKNOWN, 0)) {
        int saved = errno;
        lagmon_preload_classify(t);
        errno = saved;
    }
    uint64_t key = lagmon_waitcall_futex_key(t->role, (uintptr_t)address, (uint32_t)value, timeout != 0);
    int token = lagmon_preload_enter(key);
    long result = real(SYS_futex, address, op, value, timeout, second, bitset);
    lagmon_preload_return(token);
    return result;
}

/* A system call has at most six arguments, each a register-sized word: the six are read whatever
   the call and passed on unchanged (glibc's own syscall() passes six registers on the same way). */
LAGMON_EXPORT long syscall(long number, ...) {
    LAGMON_REAL(syscall);
    va_list list;
    va_start(list, number);
    long a = va_arg(list, long), b = va_arg(list, long), c = va_arg(list, long);
    long d = va_arg(list, long), e = va_arg(list, long), f = va_arg(list, long);
    va_end(list);
    if (__builtin_expect(number == SYS_futex, 0) && lagmon_preload_is_futex_wait(b) &&
        waitcall.mode < LAGMON_WAITCALL_OFF) {
        return lagmon_preload_futex_wait(real_syscall, a, b, c, d, e, f);
    }
    return real_syscall(number, a, b, c, d, e, f);
}

/// Closing a loop's wait set (asyncio's loop.close(), uv_loop_close) ends the loop: what the
/// thread does next is not an iteration of it.
LAGMON_EXPORT int close(int fd) {
    LAGMON_REAL(close);
    struct lagmon_waitcall_thread *t = &waitcall;
    if (__builtin_expect(t->mode == LAGMON_WAITCALL_LOOP, 0) && lagmon_waitcall_key_descriptor(t->loop_key) == fd &&
        lagmon_waitcall_owns_slot(t, lagmon_probe_pid)) {
        int saved = errno;
        lagmon_waitcall_end_loop(t, lagmon_preload_now());
        lagmon_strict_watch(NULL, NULL);
        errno = saved;
    }
    int result = real_close(fd);
    /* After the close: a descriptor another thread opens meanwhile is never marked stale. */
    lagmon_strict_forget_fd(fd);
    return result;
}
