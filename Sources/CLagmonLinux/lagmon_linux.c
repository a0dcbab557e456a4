#define _GNU_SOURCE
#include "lagmon_linux.h"

#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int lagmon_memfd_create(const char *name, unsigned int flags) { return memfd_create(name, flags); }

unsigned int lagmon_mfd_cloexec(void) { return MFD_CLOEXEC; }

int lagmon_sem_wait_until_monotonic(sem_t *semaphore, uint64_t deadline_ns) {
    struct timespec deadline = {
        .tv_sec = (time_t)(deadline_ns / 1000000000ull),
        .tv_nsec = (long)(deadline_ns % 1000000000ull),
    };
    return sem_clockwait(semaphore, CLOCK_MONOTONIC, &deadline);
}

pid_t lagmon_gettid(void) { return gettid(); }

int lagmon_terminal_columns(int fd) {
    struct winsize size;
    return ioctl(fd, TIOCGWINSZ, &size) == 0 ? size.ws_col : 0;
}

void lagmon_set_thread_name(const char *name) { prctl(PR_SET_NAME, name, 0, 0, 0); }

long lagmon_ptrace_seize(pid_t tid) { return ptrace(PTRACE_SEIZE, tid, 0, 0); }

long lagmon_ptrace_interrupt(pid_t tid) { return ptrace(PTRACE_INTERRUPT, tid, 0, 0); }

long lagmon_ptrace_getregs(pid_t tid, struct user_regs_struct *regs) { return ptrace(PTRACE_GETREGS, tid, 0, regs); }

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

int lagmon_ptrace_event_stop(void) { return PTRACE_EVENT_STOP; }

long lagmon_read_memory(pid_t pid, uint64_t address, void *buffer, size_t length) {
    struct iovec local = {buffer, length};
    struct iovec remote = {(void *)(uintptr_t)address, length};
    return process_vm_readv(pid, &local, 1, &remote, 1, 0);
}

int lagmon_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }
