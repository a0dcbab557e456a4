// Shims for Linux calls Swift cannot import directly: they need _GNU_SOURCE (which Swift's
// Glibc module does not define) or are variadic. All are logic-free but one,
// lagmon_wait_for_stop_within: a waitid bounded by a timer that signals the calling thread,
// which needs SIGEV_THREAD_ID (in a union Swift cannot set) and a signal handler installed
// from C; the timer is the calling thread's, made once and deleted when the thread exits. It
// restores the caller's signal mask before it returns. x86_64 only (README).
#ifndef LAGMON_LINUX_H
#define LAGMON_LINUX_H

#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

/// The pid of the process at the other end of a connected UNIX socket (getsockopt SO_PEERCRED:
/// struct ucred needs _GNU_SOURCE); 0, or -1 with errno.
int lagmon_socket_peer_pid(int fd, pid_t *pid);
/// memfd_create(2): needs _GNU_SOURCE.
int lagmon_memfd_create(const char *name, unsigned int flags);
/// The MFD_CLOEXEC flag value.
unsigned int lagmon_mfd_cloexec(void);
/// The MFD_ALLOW_SEALING flag value.
unsigned int lagmon_mfd_allow_sealing(void);
/// fcntl(F_ADD_SEALS) with F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL (variadic; _GNU_SOURCE):
/// nobody, the target included, can resize the memfd again. 0, or -1 with errno.
int lagmon_seal_size(int fd);
/// futex(2) FUTEX_WAIT_BITSET (shared, any bit) on `word` while it holds `expected`, until the
/// absolute CLOCK_MONOTONIC `deadline_ns`: 0 when woken, else the errno (EAGAIN, EINTR,
/// ETIMEDOUT, ...). Never fatal, whatever the word holds (syscall is variadic).
int lagmon_futex_wait_until(uint32_t *word, uint32_t expected, uint64_t deadline_ns);
/// pthread_clockjoin_np(3) on CLOCK_MONOTONIC, at most `timeout_ns` from now (a GNU extension):
/// 0 once `thread` returned and was joined, ETIMEDOUT while it runs, else the error.
int lagmon_thread_join_within(pthread_t thread, uint64_t timeout_ns);
/// sem_clockwait(3) on CLOCK_MONOTONIC with an absolute deadline in nanoseconds: glibc-only.
int lagmon_sem_wait_until_monotonic(sem_t *semaphore, uint64_t deadline_ns);
/// Names the calling thread (prctl PR_SET_NAME is variadic; at most 15 bytes are kept).
void lagmon_set_thread_name(const char *name);
/// Makes lagmon the reaper of its orphaned descendants (prctl PR_SET_CHILD_SUBREAPER, variadic):
/// 0, or -1 with errno.
int lagmon_become_child_subreaper(void);
/// Forks a child process that copies a regular file into `memory` (a memfd) and exits: 0 when
/// copied, 1 when neither path is a regular file with inode `inode` (any inode when 0), 2 when
/// the file is larger than `limit` bytes, 3 on a failed read or write. `first` is tried, then
/// `second` (either may be NULL; `second` is opened below directory `root` as by
/// lagmon_open_in_root, unless `root` is -1). The child keeps no descriptor but the copy's (as its fd 3), so a
/// child stuck for ever in the kernel (a FUSE or NFS server that never answers: not even SIGKILL
/// ends that wait) holds nothing of lagmon's and never keeps lagmon from exiting. Only system
/// calls run in the child. The child's pid, or -1 with errno.
pid_t lagmon_copy_file_in_child(
    const char *first, int root, const char *second, uint64_t inode, int memory, uint64_t limit);
/// gettid(2): needs _GNU_SOURCE.
pid_t lagmon_gettid(void);
/// sched_getcpu(3) (_GNU_SOURCE): the CPU the calling thread runs on; -1 on error.
int lagmon_sched_getcpu(void);
/// sched_getaffinity/sched_setaffinity(2) of the calling thread (_GNU_SOURCE), as a mask of the
/// first 64 CPUs (bit n: CPU n). Get: the mask, 0 on error. Set: 0, or -1 with errno.
uint64_t lagmon_thread_cpus(void);
int lagmon_set_thread_cpus(uint64_t mask);
/// The width of the terminal on `fd` (ioctl TIOCGWINSZ is variadic); 0 when it is none.
int lagmon_terminal_columns(int fd);
/// The terminal's height in rows, or 0 when `fd` is not a terminal.
int lagmon_terminal_rows(int fd);

/* ptrace(2) is variadic in glibc, which Swift cannot call: one wrapper per request used. */

/// Reaps traced thread `tid` if it has exited (a seized thread that dies stays a zombie, and
/// keeps its whole process from being reaped, until its tracer waits for it). 1 when reaped, 0
/// when it has not exited yet, -1 with errno (ECHILD: nothing to reap).
int lagmon_reap_exited(pid_t tid);

/// PTRACE_SEIZE of one thread, with no options: it keeps running.
long lagmon_ptrace_seize(pid_t tid);
/// PTRACE_INTERRUPT: asks a seized thread to stop.
long lagmon_ptrace_interrupt(pid_t tid);
/// PTRACE_GETREGS into `regs`.
long lagmon_ptrace_getregs(pid_t tid, struct user_regs_struct *regs);
/// PTRACE_SETREGS from `regs`.
long lagmon_ptrace_setregs(pid_t tid, const struct user_regs_struct *regs);
/// PTRACE_CONT, delivering `signal` (0 for none).
long lagmon_ptrace_cont(pid_t tid, int signal);
/// PTRACE_DETACH, delivering `signal` (0 for none).
long lagmon_ptrace_detach(pid_t tid, int signal);
/// waitid for a ptrace stop of `tid` only (never an exit, which lagmon's main thread collects),
/// without blocking. Returns 1 and the stop's status (signal | event << 8) when one was
/// pending, 0 when none, -1 on error (errno set; ECHILD when the thread is gone or not traced).
int lagmon_wait_for_stop(pid_t tid, int *status);
/// Like `lagmon_wait_for_stop`, but sleeps in waitid until the stop arrives or `timeout_ns`
/// passed (then 0), so a thread that has to run on lagmon's CPU to stop gets it at once. Bounded
/// by a timer that signals this thread at the deadline and every millisecond after it while it
/// waits (one lost tick cannot hang it). The timer is made at a thread's first wait and deleted
/// when the thread exits; its signal is unblocked meanwhile, and the caller's signal mask
/// restored after.
int lagmon_wait_for_stop_within(pid_t tid, int *status, uint64_t timeout_ns);
/// The event part of a stop status (PTRACE_EVENT_STOP for interrupt and group stops).
int lagmon_ptrace_event_stop(void);
/// pidfd_open(2): a descriptor that becomes readable when the process exits.
int lagmon_pidfd_open(pid_t pid);
/// pidfd_open(2) of one thread (PIDFD_THREAD, Linux 6.9+), falling back to a plain pidfd_open
/// (which only a thread group leader passes): the descriptor `lagmon_pidfd_getfd` reads the
/// thread's own descriptor table through. -1 with errno set on failure. glibc has no wrapper.
int lagmon_thread_pidfd_open(pid_t tid);
/// pidfd_getfd(2) (Linux 5.6+; glibc has no wrapper): a close-on-exec duplicate, in lagmon, of
/// descriptor `fd` of the process behind `pidfd`. Never blocks. -1 with errno set on failure.
int lagmon_pidfd_getfd(int pidfd, int fd);
/// openat2(2) (Linux 5.6+; glibc has no wrapper) of `path` below directory `root` with
/// RESOLVE_IN_ROOT and RESOLVE_NO_MAGICLINKS: absolute symlinks and `..` resolve inside `root`,
/// as they would for a process whose root it is, so a container's symlink cannot name a file of
/// lagmon's. `flags` as for open(2) (O_CLOEXEC is added). The descriptor, or -errno.
int lagmon_open_in_root(int root, const char *path, int flags);
/// O_PATH, which Swift's Glibc does not import (it is defined under _GNU_SOURCE only).
int lagmon_o_path(void);

/// A netlink socket that receives a taskstats record for every task exit on the CPUs `cpus`
/// (`0-1`, as in /sys/devices/system/cpu/possible); `*family` is the TASKSTATS family id.
/// Negative errno when refused (registering needs CAP_NET_ADMIN). Receives time out after 200 ms.
int lagmon_task_exits_open(const char *cpus, int *family);
/// Processes one exit filter can let through.
#define LAGMON_TASK_EXITS_MAX_PIDS 64u
/// Lets through `fd` only the exit records of the `count` tasks `pids` (a socket filter: the
/// kernel drops the rest before they are queued, so the machine's other exits cost lagmon
/// nothing; none: every record is dropped). 0, or -errno (-E2BIG past
/// LAGMON_TASK_EXITS_MAX_PIDS).
int lagmon_task_exits_only(int fd, const pid_t *pids, uint32_t count);
/// The next exit record on `fd`: the task's id and its elapsed time since it started, in
/// microseconds. 1 when one was read; negative errno otherwise (-EAGAIN: none waiting with
/// `wait` 0, or none within the timeout). Records dropped while the buffer was full are skipped.
int lagmon_task_exits_next(int fd, int32_t *tid, uint64_t *elapsed_us, int wait);
/// A live task's elapsed time since it started, in microseconds (CLOCK_MONOTONIC), asked of
/// taskstats; 0, or negative errno.
int lagmon_task_elapsed(pid_t pid, uint64_t *elapsed_us);
/// process_vm_readv(2) of one range: needs _GNU_SOURCE.
long lagmon_read_memory(pid_t pid, uint64_t address, void *buffer, size_t length);

/* perf_event_open(2) has no glibc wrapper, and its ring's head and tail need the kernel's
   memory ordering (an acquire load, a release store) on fields Swift cannot reach atomically. */

/// perf_event_open(2) of thread `tid`'s major page faults (PERF_COUNT_SW_PAGE_FAULTS_MAJ), one
/// sample per fault carrying the faulting address (PERF_SAMPLE_ADDR), counting at once,
/// close-on-exec. The descriptor, or -1 with errno.
int lagmon_perf_open_major_faults(pid_t tid);
/// The ring's data_head (acquire), from its first (metadata) page.
uint64_t lagmon_perf_ring_head(const void *metadata);
/// The ring's data_tail (what lagmon stored last).
uint64_t lagmon_perf_ring_tail(const void *metadata);
/// Stores the ring's data_tail (release): the kernel may reuse everything before it.
void lagmon_perf_ring_set_tail(void *metadata, uint64_t tail);
/// Where the ring's data starts and how long it is (data_offset, data_size), from its first page.
void lagmon_perf_ring_data(const void *metadata, uint64_t *offset, uint64_t *size);

#endif
