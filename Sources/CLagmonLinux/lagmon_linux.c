#if !defined(__x86_64__)
#error "lagmon supports Linux on x86_64 only (README): PTRACE_GETREGS and struct user_regs_struct are x86_64's here"
#endif

#define _GNU_SOURCE
#include "lagmon_linux.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/openat2.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int lagmon_memfd_create(const char *name, unsigned int flags) { return memfd_create(name, flags); }

unsigned int lagmon_mfd_cloexec(void) { return MFD_CLOEXEC; }

unsigned int lagmon_mfd_allow_sealing(void) { return MFD_ALLOW_SEALING; }

int lagmon_seal_size(int fd) { return fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL); }

int lagmon_futex_wait_until(uint32_t *word, uint32_t expected, uint64_t deadline_ns) {
    struct timespec deadline = {
        .tv_sec = (time_t)(deadline_ns / 1000000000ull),
        .tv_nsec = (long)(deadline_ns % 1000000000ull),
    };
    long result = syscall(SYS_futex, word, FUTEX_WAIT_BITSET, expected, &deadline, NULL, FUTEX_BITSET_MATCH_ANY);
    return result == 0 ? 0 : errno;
}

int lagmon_thread_join_within(pthread_t thread, uint64_t timeout_ns) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    uint64_t deadline_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec + timeout_ns;
    struct timespec deadline = {
        .tv_sec = (time_t)(deadline_ns / 1000000000ull),
        .tv_nsec = (long)(deadline_ns % 1000000000ull),
    };
    return pthread_clockjoin_np(thread, NULL, CLOCK_MONOTONIC, &deadline);
}

int lagmon_sem_wait_until_monotonic(sem_t *semaphore, uint64_t deadline_ns) {
    struct timespec deadline = {
        .tv_sec = (time_t)(deadline_ns / 1000000000ull),
        .tv_nsec = (long)(deadline_ns % 1000000000ull),
    };
    return sem_clockwait(semaphore, CLOCK_MONOTONIC, &deadline);
}

pid_t lagmon_gettid(void) { return gettid(); }

int lagmon_sched_getcpu(void) { return sched_getcpu(); }

uint64_t lagmon_thread_cpus(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    uint64_t mask = 0;
    for (int cpu = 0; cpu < 64; cpu++) {
        if (CPU_ISSET(cpu, &set)) mask |= (uint64_t)1 << cpu;
    }
    return mask;
}

int lagmon_set_thread_cpus(uint64_t mask) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu = 0; cpu < 64; cpu++) {
        if (mask & ((uint64_t)1 << cpu)) CPU_SET(cpu, &set);
    }
    return sched_setaffinity(0, sizeof set, &set);
}

int lagmon_terminal_columns(int fd) {
    struct winsize size;
    return ioctl(fd, TIOCGWINSZ, &size) == 0 ? size.ws_col : 0;
}

int lagmon_terminal_rows(int fd) {
    struct winsize size;
    return ioctl(fd, TIOCGWINSZ, &size) == 0 ? size.ws_row : 0;
}

void lagmon_set_thread_name(const char *name) { prctl(PR_SET_NAME, name, 0, 0, 0); }

int lagmon_become_child_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

long lagmon_ptrace_seize(pid_t tid) { return ptrace(PTRACE_SEIZE, tid, 0, 0); }

long lagmon_ptrace_interrupt(pid_t tid) { return ptrace(PTRACE_INTERRUPT, tid, 0, 0); }

long lagmon_ptrace_getregs(pid_t tid, struct user_regs_struct *regs) { return ptrace(PTRACE_GETREGS, tid, 0, regs); }

long lagmon_ptrace_setregs(pid_t tid, const struct user_regs_struct *regs) {
    return ptrace(PTRACE_SETREGS, tid, 0, regs);
}

long lagmon_ptrace_cont(pid_t tid, int signal) { return ptrace(PTRACE_CONT, tid, 0, (void *)(long)signal); }

long lagmon_ptrace_detach(pid_t tid, int signal) { return ptrace(PTRACE_DETACH, tid, 0, (void *)(long)signal); }

int lagmon_wait_for_stop(pid_t tid, int *status) {
    siginfo_t info;
    info.si_pid = 0;
    if (waitid(P_PID, (id_t)tid, &info, WSTOPPED | WNOHANG | __WALL) != 0) return -1;
    if (info.si_pid == 0) return 0;
    *status = info.si_status;
    return 1;
}

/* Whether /proc says `tid` leads its thread group (Tgid equals it); 1 when it cannot tell. */
/* Whether `tid` is the main thread of a process lagmon started itself (the target): its exit is
   the session's to collect. Every other traced task is reaped here: the main thread of a followed
   descendant is its parent's child, and that parent's wait() sees the exit only once the tracer
   has taken it (a fork of 200 children, each sampled, waited for ever on traced zombies).
   Unreadable: gone, or nothing lagmon may reap. */
static int lagmon_is_own_child_leader(pid_t tid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
    FILE *file = fopen(path, "re");
    if (file == NULL) return 1;
    char line[128];
    int tgid = -1, ppid = -1;
    while (fgets(line, sizeof line, file) != NULL && (tgid < 0 || ppid < 0)) {
        if (strncmp(line, "Tgid:", 5) == 0) tgid = atoi(line + 5);
        if (strncmp(line, "PPid:", 5) == 0) ppid = atoi(line + 5);
    }
    fclose(file);
    return tgid == (int)tid && ppid == (int)getpid();
}

int lagmon_reap_exited(pid_t tid) {
    siginfo_t info;
    info.si_pid = 0;
    /* A traced thread's stops are reported whatever the flags, so peek first (WNOWAIT): only an
       exit is consumed, a pending stop is left for lagmon_wait_for_stop. */
    if (waitid(P_PID, (id_t)tid, &info, WEXITED | WNOHANG | WNOWAIT | __WALL) != 0) return -1;
    if (info.si_pid == 0) return 0;
    if (info.si_code != CLD_EXITED && info.si_code != CLD_KILLED && info.si_code != CLD_DUMPED) return 0;
    if (lagmon_is_own_child_leader(tid)) return 0;
    info.si_pid = 0;
    if (waitid(P_PID, (id_t)tid, &info, WEXITED | WNOHANG | __WALL) != 0) return -1;
    return info.si_pid == 0 ? 0 : 1;
}

/* The signal that interrupts a blocking waitid when its time is up: a real-time signal lagmon
   uses for nothing else, handled by a no-op installed without SA_RESTART. */
#define LAGMON_WAIT_SIGNAL (SIGRTMAX - 3)

static void lagmon_wait_tick(int signal) { (void)signal; }

static void lagmon_install_wait_tick(void) {
    struct sigaction action = {0};
    action.sa_handler = lagmon_wait_tick;
    sigemptyset(&action.sa_mask);
    sigaction(LAGMON_WAIT_SIGNAL, &action, NULL);
}

static uint64_t lagmon_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

/* Sleeps in waitid until `tid` stops or the deadline passes; the timer's ticks interrupt it. */
static int lagmon_wait_ticking(pid_t tid, int *status, uint64_t deadline) {
    for (;;) {
        siginfo_t info;
        info.si_pid = 0;
        if (waitid(P_PID, (id_t)tid, &info, WSTOPPED | __WALL) == 0) {
            if (info.si_pid != 0) {
                *status = info.si_status;
                return 1;
            }
        } else if (errno != EINTR) {
            return -1;
        }
        if (lagmon_now_ns() >= deadline) return 0;
    }
}

/* The timer that bounds a thread's waits: made at its first wait, armed only while it waits,
   deleted when the thread exits. Creating and deleting one around every wait (as lagmon did)
   put a kernel allocation and a free in every pause that slept. */
struct lagmon_wait_timer {
    timer_t timer;
};

static pthread_key_t lagmon_wait_timer_key;

static void lagmon_delete_wait_timer(void *value) {
    struct lagmon_wait_timer *owned = value;
    timer_delete(owned->timer);
    free(owned);
}

static void lagmon_install_wait_tick_once(void) {
    lagmon_install_wait_tick();
    pthread_key_create(&lagmon_wait_timer_key, lagmon_delete_wait_timer);
}

/* This thread's timer, made the first time; NULL when it cannot be made. */
static struct lagmon_wait_timer *lagmon_thread_wait_timer(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, lagmon_install_wait_tick_once);
    struct lagmon_wait_timer *owned = pthread_getspecific(lagmon_wait_timer_key);
    if (owned != NULL) return owned;
    owned = malloc(sizeof *owned);
    if (owned == NULL) return NULL;
    struct sigevent event = {0};
    event.sigev_notify = SIGEV_THREAD_ID;
    event.sigev_signo = LAGMON_WAIT_SIGNAL;
    event._sigev_un._tid = gettid();
    if (timer_create(CLOCK_MONOTONIC, &event, &owned->timer) != 0) {
        free(owned);
        return NULL;
    }
    if (pthread_setspecific(lagmon_wait_timer_key, owned) != 0) {
        lagmon_delete_wait_timer(owned);
        return NULL;
    }
    return owned;
}

int lagmon_wait_for_stop_within(pid_t tid, int *status, uint64_t timeout_ns) {
    struct lagmon_wait_timer *owned = lagmon_thread_wait_timer();
    if (owned == NULL) return -1;
    sigset_t tick, previous;
    sigemptyset(&tick);
    sigaddset(&tick, LAGMON_WAIT_SIGNAL);
    pthread_sigmask(SIG_UNBLOCK, &tick, &previous);
    /* First at the deadline, then every millisecond (a tick that lands just before waitid is
       lost; the next one ends the wait). Not a tick every millisecond from the start: a timer
       that expires before the CPU's next timer event reprograms the clock event device, a VM
       exit on a virtual machine; that and the disarm cost ~10 us of every pause that slept. */
    uint64_t deadline_ns = lagmon_now_ns() + timeout_ns;
    uint64_t first_ns = timeout_ns > 1000 ? timeout_ns : 1000;
    struct itimerspec deadline = {
        .it_interval = {0, 1000000},
        .it_value = {(time_t)(first_ns / 1000000000ull), (long)(first_ns % 1000000000ull)},
    };
    int result = -1;
    if (timer_settime(owned->timer, 0, &deadline, NULL) == 0) {
        result = lagmon_wait_ticking(tid, status, deadline_ns);
        int saved = errno;
        struct itimerspec disarmed = {0};
        timer_settime(owned->timer, 0, &disarmed, NULL);
        errno = saved;
    }
    /* The caller's mask again: a tick still pending stays pending where it was blocked. */
    int saved = errno;
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    errno = saved;
    return result;
}

int lagmon_ptrace_event_stop(void) { return PTRACE_EVENT_STOP; }

long lagmon_read_memory(pid_t pid, uint64_t address, void *buffer, size_t length) {
    struct iovec local = {buffer, length};
    struct iovec remote = {(void *)(uintptr_t)address, length};
    return process_vm_readv(pid, &local, 1, &remote, 1, 0);
}

int lagmon_socket_peer_pid(int fd, pid_t *pid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *pid = credentials.pid;
    return 0;
}

int lagmon_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

int lagmon_thread_pidfd_open(pid_t tid) {
    // PIDFD_THREAD is O_EXCL (linux/pidfd.h, which older headers lack).
    int fd = (int)syscall(SYS_pidfd_open, tid, O_EXCL);
    return fd >= 0 ? fd : (int)syscall(SYS_pidfd_open, tid, 0);
}

int lagmon_pidfd_getfd(int pidfd, int fd) { return (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0); }

int lagmon_o_path(void) { return O_PATH; }

int lagmon_open_in_root(int root, const char *path, int flags) {
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = (uint64_t)(flags | O_CLOEXEC);
    how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
    long fd = syscall(SYS_openat2, root, path, &how, sizeof how);
    return fd < 0 ? -errno : (int)fd;
}

int lagmon_perf_open_major_faults(pid_t tid) {
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_PAGE_FAULTS_MAJ;
    attr.sample_period = 1;
    attr.sample_type = PERF_SAMPLE_ADDR;
    return (int)syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

uint64_t lagmon_perf_ring_head(const void *metadata) {
    const struct perf_event_mmap_page *page = metadata;
    return __atomic_load_n(&page->data_head, __ATOMIC_ACQUIRE);
}

uint64_t lagmon_perf_ring_tail(const void *metadata) {
    const struct perf_event_mmap_page *page = metadata;
    return page->data_tail;
}

void lagmon_perf_ring_set_tail(void *metadata, uint64_t tail) {
    struct perf_event_mmap_page *page = metadata;
    __atomic_store_n(&page->data_tail, tail, __ATOMIC_RELEASE);
}

void lagmon_perf_ring_data(const void *metadata, uint64_t *offset, uint64_t *size) {
    const struct perf_event_mmap_page *page = metadata;
    *offset = page->data_offset;
    *size = page->data_size;
}
