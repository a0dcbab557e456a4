// An epoll loop whose main thread sits in uninterruptible sleep (state D) for about 400 ms,
// where no signal and no ptrace stop reach it, or waits for a CPU another process holds. Lines
// on stdout say what happened (tests read them); every step is driven by timerfd ticks and
// pipes, never by sleeps for synchronisation.
//
//   lagmon-io-fixture vfork
//       the loop vforks; the child spins 400 ms in child_spins_before_exit() and exits; the
//       parent waits in vfork, in D, the whole time.
//   lagmon-io-fixture freeze DIR
//       DIR is the root of a filesystem that can be frozen (ext4, xfs; root only). The loop
//       opens DIR/lagmon-io-fixture.data, then a helper thread freezes the filesystem (FIFREEZE)
//       and wakes the loop, which writes to the file and blocks in write(), in D, until the
//       helper thaws it (FITHAW) 400 ms later. Prints `write blocked N ms`.
//   lagmon-io-fixture thief
//       the whole process runs on CPU 0; a forked child named `cpu-thief` (printing `thief pid
//       N`) spins there at nice -10 while the loop spins 400 ms of wall time in
//       spins_while_robbed(): the loop mostly waits for the CPU (root, for the nice value). The
//       thief is killed 25 ticks after the stall.
//   lagmon-io-fixture faults FILE
//       writes FILE (16 MiB, on a disk filesystem), maps it shared with readahead off
//       (MADV_RANDOM) and touches every page; then the loop pushes the mapping's pages out of
//       memory (MADV_PAGEOUT) and spends 400 ms of wall time in touches_paged_out_pages(), one
//       byte per page, each a major page fault that reads the page back. Prints `major faults
//       N` (its own thread's majflt over that stall, getrusage) and deletes FILE at the end.
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lagmon_fixture_loop.h"

static int wake[2];
static int mount_fd = -1;

static long long now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1000000000ll + now.tv_nsec;
}

/// The vfork child: spins (it shares the parent's memory, so it calls nothing but the clock).
__attribute__((noinline)) void child_spins_before_exit(int milliseconds) {
    long long until = now_ns() + milliseconds * 1000000ll;
    while (now_ns() < until) {
    }
    _exit(0);
}

__attribute__((noinline)) void vfork_and_wait(void) {
    pid_t child = vfork();
    if (child == 0) child_spins_before_exit(400);
    if (child < 0) {
        perror("vfork");
        exit(3);
    }
    waitpid(child, NULL, 0);
}

/// Freezes the filesystem, wakes the loop, and thaws it 400 ms later.
static void *freezer(void *unused) {
    (void)unused;
    if (ioctl(mount_fd, FIFREEZE, 0) != 0) {
        perror("FIFREEZE");
        exit(4);
    }
    printf("frozen\n");
    fflush(stdout);
    char byte = 1;
    if (write(wake[1], &byte, 1) != 1) exit(3);
    struct timespec hold = {0, 400000000};
    nanosleep(&hold, NULL);  // the length of the freeze, not a synchronisation
    if (ioctl(mount_fd, FITHAW, 0) != 0) {
        perror("FITHAW");
        exit(4);
    }
    return NULL;
}

__attribute__((noinline)) void write_to_the_frozen_file(int fd) {
    char block[4096];
    memset(block, 'x', sizeof block);
    long long started = now_ns();
    if (write(fd, block, sizeof block) != (ssize_t)sizeof block) {
        perror("write");
        exit(3);
    }
    printf("write blocked %lld ms\n", (now_ns() - started) / 1000000);
    fflush(stdout);
}

/// The loop waits for the freezer's wake-up (its ticks go on meanwhile), then writes.
static void freeze_and_write(int epoll, int timer, const char *directory) {
    char path[4096];
    snprintf(path, sizeof path, "%s/lagmon-io-fixture.data", directory);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    mount_fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || mount_fd < 0 || pipe2(wake, O_CLOEXEC) != 0) {
        perror(directory);
        exit(3);
    }
    struct epoll_event event = {.events = EPOLLIN, .data.fd = wake[0]};
    epoll_ctl(epoll, EPOLL_CTL_ADD, wake[0], &event);
    pthread_t thread;
    pthread_create(&thread, NULL, freezer, NULL);
    for (;;) {
        if (epoll_wait(epoll, &event, 1, -1) != 1) continue;
        if (event.data.fd == wake[0]) break;
        uint64_t expirations;
        if (read(timer, &expirations, sizeof expirations) != sizeof expirations) exit(3);
    }
    write_to_the_frozen_file(fd);
    pthread_join(thread, NULL);
    close(fd);
    unlink(path);
}

/// Spins for `milliseconds` of wall time, sharing CPU 0 with the thief.
__attribute__((noinline)) void spins_while_robbed(int milliseconds) {
    long long until = now_ns() + milliseconds * 1000000ll;
    volatile unsigned long long spins = 0;
    while (now_ns() < until) {
        for (int i = 0; i < 1000; i++) spins++;
    }
    __asm__ volatile("" ::: "memory");
}

/// Forks the thief (it spins on CPU 0 at nice -10 until killed); returns its pid.
static pid_t start_thief(void) {
    cpu_set_t cpu0;
    CPU_ZERO(&cpu0);
    CPU_SET(0, &cpu0);
    if (sched_setaffinity(0, sizeof cpu0, &cpu0) != 0) {
        perror("sched_setaffinity");
        exit(3);
    }
    pid_t thief = fork();
    if (thief == 0) {
        prctl(PR_SET_NAME, "cpu-thief");
        if (setpriority(PRIO_PROCESS, 0, -10) != 0) _exit(4);
        volatile unsigned long long spins = 0;
        for (;;) spins++;
    }
    printf("thief pid %d\n", (int)thief);
    fflush(stdout);
    return thief;
}

enum { fault_file_bytes = 16 << 20 };

/// FILE written, synced and mapped (every page touched once, so MADV_PAGEOUT can drop them).
static volatile char *map_fault_file(const char *path) {
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    char block[1 << 16];
    memset(block, 'f', sizeof block);
    for (long offset = 0; fd >= 0 && offset < fault_file_bytes; offset += sizeof block) {
        if (pwrite(fd, block, sizeof block, offset) != (ssize_t)sizeof block) fd = -1;
    }
    if (fd < 0 || fsync(fd) != 0) {
        perror(path);
        exit(3);
    }
    char *map = mmap(NULL, fault_file_bytes, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED || madvise(map, fault_file_bytes, MADV_RANDOM) != 0) {
        perror("mmap");
        exit(3);
    }
    close(fd);
    volatile unsigned long sum = 0;
    for (long offset = 0; offset < fault_file_bytes; offset += 4096) sum += (unsigned char)map[offset];
    return map;
}

static long thread_major_faults(void) {
    struct rusage usage;
    getrusage(RUSAGE_THREAD, &usage);
    return usage.ru_majflt;
}

/// Reads one byte of each page of the paged-out mapping, for `milliseconds` of wall time
/// (paging the whole mapping out again whenever every page was read).
__attribute__((noinline)) void touches_paged_out_pages(volatile char *map, int milliseconds) {
    long long until = now_ns() + milliseconds * 1000000ll;
    volatile unsigned long sum = 0;
    long offset = fault_file_bytes;
    while (now_ns() < until) {
        if (offset == fault_file_bytes) {
            madvise((void *)map, fault_file_bytes, MADV_PAGEOUT);
            offset = 0;
        }
        sum += (unsigned char)map[offset];
        offset += 4096;
    }
}

int main(int argc, char **argv) {
    int vforking = argc == 2 && strcmp(argv[1], "vfork") == 0;
    int robbed = argc == 2 && strcmp(argv[1], "thief") == 0;
    int faulting = argc == 3 && strcmp(argv[1], "faults") == 0;
    if (!vforking && !robbed && !faulting && !(argc == 3 && strcmp(argv[1], "freeze") == 0)) {
        fprintf(stderr, "usage: lagmon-io-fixture vfork | freeze DIR | thief | faults FILE\n");
        return 2;
    }
    printf("pid %d\n", (int)getpid());
    fflush(stdout);
    int epoll, timer;
    lagmon_fixture_loop_open(20000000, &epoll, &timer);
    lagmon_fixture_ticks(epoll, timer, 5);
    if (robbed) {
        pid_t thief = start_thief();
        spins_while_robbed(400);
        // The thief outlives the stall by 25 ticks: lagmon names the busiest processes at the
        // stall's end, and one that is gone by then is not listed.
        lagmon_fixture_ticks(epoll, timer, 25);
        kill(thief, SIGKILL);
        waitpid(thief, NULL, 0);
    } else if (faulting) {
        volatile char *map = map_fault_file(argv[2]);
        lagmon_fixture_ticks(epoll, timer, 5);
        long before = thread_major_faults();
        touches_paged_out_pages(map, 400);
        printf("major faults %ld\n", thread_major_faults() - before);
        fflush(stdout);
        unlink(argv[2]);
    } else if (vforking) {
        printf("vforking\n");
        fflush(stdout);
        vfork_and_wait();
    } else {
        freeze_and_write(epoll, timer, argv[2]);
    }
    lagmon_fixture_ticks(epoll, timer, 5);
    printf("done\n");
    return 0;
}
