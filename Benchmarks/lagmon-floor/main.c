// The kernel's floor under two of lagmon's costs, for `make bench` (scripts/bench): the same
// kernel work done by the least code, so lagmon's figure can be read as a ratio to it. Not part
// of lagmon. Prints one JSON line.
//
//   lagmon-floor pause <pid> <count> <interval-ms>
//       stops thread <pid> (a main thread) <count> times, every <interval-ms>, the way a stack
//       sample does and doing nothing else: PTRACE_INTERRUPT, waitpid, PTRACE_GETREGS, one
//       process_vm_readv of the stack's innermost bytes (the red zone to at least 1 KiB past the
//       stack pointer, as lagmon copies), PTRACE_CONT. The pause is from the interrupt request to
//       the return of the continue, as lagmon times it.
//   lagmon-floor cpu <pid> <passes>
//       opens /proc/<pid>/task/<tid>/schedstat of every thread once, then reads them all with
//       pread <passes> times: the CPU time of a pass after the first (what lagmon's per-thread
//       CPU reader pays the kernel at the least).
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t clock_ns(clockid_t clock) {
    struct timespec now;
    clock_gettime(clock, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static int pause_floor(pid_t tid, int count, int interval_ms) {
    if (ptrace(PTRACE_SEIZE, tid, 0, 0) != 0) {
        perror("lagmon-floor: PTRACE_SEIZE");
        return 1;
    }
    static unsigned char stack[8192];
    printf("{\"pauseNs\":[");
    for (int i = 0; i < count; i++) {
        uint64_t requested = clock_ns(CLOCK_MONOTONIC);
        if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) != 0) break;
        int status = 0;
        if (waitpid(tid, &status, __WALL) != tid) break;
        struct user_regs_struct registers;
        if (ptrace(PTRACE_GETREGS, tid, 0, &registers) != 0) break;
        uint64_t start = registers.rsp - 128;
        uint64_t end = (registers.rsp | 0xfff) + 1;
        if (end < registers.rsp + 1024) end = registers.rsp + 1024;
        size_t length = end - start < sizeof stack ? end - start : sizeof stack;
        struct iovec local = {stack, length}, remote = {(void *)(uintptr_t)start, length};
        (void)process_vm_readv(tid, &local, 1, &remote, 1, 0);
        ptrace(PTRACE_CONT, tid, 0, 0);
        printf("%s%" PRIu64, i == 0 ? "" : ",", clock_ns(CLOCK_MONOTONIC) - requested);
        usleep((useconds_t)interval_ms * 1000);
    }
    printf("]}\n");
    ptrace(PTRACE_DETACH, tid, 0, 0);
    return 0;
}

static int cpu_floor(pid_t pid, int passes) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0) {
        limit.rlim_cur = limit.rlim_max;
        setrlimit(RLIMIT_NOFILE, &limit);
    }
    char path[320];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *directory = opendir(path);
    if (directory == NULL) {
        perror("lagmon-floor: opendir");
        return 1;
    }
    int capacity = 1024, count = 0;
    int *fds = malloc(sizeof(int) * (size_t)capacity);
    for (struct dirent *entry; fds != NULL && (entry = readdir(directory)) != NULL;) {
        if (entry->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "/proc/%d/task/%s/schedstat", (int)pid, entry->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        if (count == capacity) fds = realloc(fds, sizeof(int) * (size_t)(capacity *= 2));
        if (fds != NULL) fds[count++] = fd;
    }
    closedir(directory);
    if (fds == NULL) return 1;
    char buffer[4096];
    uint64_t reads = 0, started = 0;
    for (int pass = 0; pass < passes; pass++) {
        if (pass == 1) started = clock_ns(CLOCK_THREAD_CPUTIME_ID);
        for (int i = 0; i < count; i++) reads += pread(fds[i], buffer, sizeof buffer, 0) > 0;
    }
    uint64_t steady = passes > 1 ? (clock_ns(CLOCK_THREAD_CPUTIME_ID) - started) / (uint64_t)(passes - 1) : 0;
    printf("{\"threads\":%d,\"passes\":%d,\"reads\":%" PRIu64 ",\"steadyCpuNsPerPass\":%" PRIu64 "}\n", count, passes,
           reads, steady);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 5 && argv[1][0] == 'p') return pause_floor(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
    if (argc == 4 && argv[1][0] == 'c') return cpu_floor(atoi(argv[2]), atoi(argv[3]));
    fprintf(stderr, "usage: lagmon-floor pause <pid> <count> <interval-ms> | cpu <pid> <passes>\n");
    return 64;
}
