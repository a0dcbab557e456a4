// A hostile target for lagmon's channel tests: it maps the channel lagmon hands it
// (LAGMON_CHANNEL_FD) and writes what no probe would, then runs one honest epoll loop that
// stalls for 250 ms in spin_for_250ms_in_hostile_loop() and exits with --exit-status. Lines on
// stdout say what it did (tests read them, never sleep).
//
//   lagmon-hostile-fixture forge PID [--exit-status S]
//       publishes a slot naming process PID (not itself) as a loop stalled for a second
//   lagmon-hostile-fixture forge-thread [--exit-status S]
//       starts a thread that only sleeps, prints `forged tid=N` and publishes a slot naming
//       that thread's id as a process (its pid and tid) stalled for a second
//   lagmon-hostile-fixture random SEED [--exit-status S]
//       publishes two slots and a process entry of random bytes (one slot keeps its own pid and
//       tid, so only its numbers are hostile) and rewrites them on every tick
//   lagmon-hostile-fixture fuzz SEED [--decoy PID] [--threads N] [--ms M] [--exit-status S]
//       the live fuzzer (fuzz.c): first tries to shrink and grow the channel (prints `truncate
//       refused` or `truncate allowed`), then N threads (4) write random and adversarial values
//       (wake-up words, counters, pids and tids naming PID, pid 1, lagmon, random numbers,
//       lengths, states, process entries) into the channel for M ms (1500) while the honest
//       loop ticks and stalls once; prints `fuzzed writes=N` and `done`
//   lagmon-hostile-fixture uffd-copy|uffd-unwind [--exit-status S]
//       stalls with the stack above the stalled frame behind a userfaultfd nobody answers
//       (uffd_stack.c)
//   lagmon-hostile-fixture fuse-serve MOUNTPOINT FILE NAME COMM
//       not run under lagmon: serves FILE as MOUNTPOINT/NAME over FUSE, answering only threads
//       named COMM (fuse_serve.c)
//   lagmon-hostile-fixture forge-self
//       meant to run as a setuid-root copy exec'd by an unprivileged target: publishes a slot
//       naming itself as a loop stalled for a second, then spins 1.5 s (a CPU alert too) checking
//       its TracerPid every 2 ms; prints `privileged euid=E traced checks=N of M`
//   lagmon-hostile-fixture victim
//       not run under lagmon: prints `victim pid=N`, then checks its TracerPid every 5 ms until
//       stdin closes and prints `traced checks=N of M`
#define _GNU_SOURCE
#include "lagmon_channel.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static volatile uint64_t sink;

__attribute__((noinline)) void spin_for_250ms_in_hostile_loop(void) {
    uint64_t until = now_ns() + 250000000ull;
    while (now_ns() < until) {
        for (int i = 0; i < 1000; i++) sink += (uint64_t)i * 2654435761u;
    }
    __asm__ volatile("" ::: "memory");
}

static struct lagmon_channel_header *map_channel(void) {
    const char *value = getenv(LAGMON_CHANNEL_ENV);
    if (value == NULL) return NULL;
    int fd = atoi(value);
    struct stat info;
    if (fstat(fd, &info) != 0 || (size_t)info.st_size < sizeof(struct lagmon_channel_header)) return NULL;
    void *base = mmap(NULL, sizeof(struct lagmon_channel_header), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return base == MAP_FAILED ? NULL : base;
}

/// Takes a free slot from the end of the table (the honest probe claims from the start).
static struct lagmon_slot *grab_slot(struct lagmon_channel_header *channel) {
    for (int i = LAGMON_SLOT_CAPACITY - 1; i >= 0; i--) {
        uint32_t expected = LAGMON_SLOT_FREE;
        if (__atomic_compare_exchange_n(&channel->slots[i].state, &expected, LAGMON_SLOT_CLAIMING, 0,
                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
            return &channel->slots[i];
        }
    }
    return NULL;
}

static void publish(struct lagmon_channel_header *channel, struct lagmon_slot *slot) {
    __atomic_store_n(&slot->state, LAGMON_SLOT_ACTIVE, __ATOMIC_SEQ_CST);
    lagmon_channel_post(&channel->discovery_sequence);
}

static int forge(struct lagmon_channel_header *channel, int32_t victim) {
    struct lagmon_slot *slot = grab_slot(channel);
    if (slot == NULL) return -1;
    uint64_t now = now_ns() - channel->clock_base_ns;
    uint64_t since = now > 1000000000ull ? now - 1000000000ull : 0;
    slot->kind = LAGMON_OBSERVER_WAITCALL;
    slot->pid = victim;
    slot->tid = victim;
    strcpy(slot->thread_name, "forged");
    slot->claimed_ns = since;
    slot->published_ns = now;
    slot->process_index = LAGMON_PROCESS_NONE;
    slot->wake_ns = since;
    __atomic_store_n(&slot->word, lagmon_word_make(since, LAGMON_ACTIVITY_AFTER_WAITING), __ATOMIC_SEQ_CST);
    publish(channel, slot);
    return 0;
}

/* ---- Random bytes ---------------------------------------------------------------------- */

static uint64_t random_state;

static uint64_t next_random(void) {
    random_state ^= random_state << 13;
    random_state ^= random_state >> 7;
    random_state ^= random_state << 17;
    return random_state;
}

static void fill_random(void *start, size_t bytes) {
    uint8_t *p = start;
    for (size_t i = 0; i < bytes; i++) p[i] = (uint8_t)next_random();
}

static struct lagmon_slot *random_slots[2];
static struct lagmon_process *random_process;

/// Everything a slot holds except its watchdog line is random (the fuzz mode scrambles that too);
/// the first slot names this thread, so lagmon reads its numbers.
static void scramble(void) {
    for (int i = 0; i < 2; i++) {
        struct lagmon_slot *slot = random_slots[i];
        if (slot == NULL) continue;
        fill_random((uint8_t *)slot + 4, offsetof(struct lagmon_slot, watchdog_parked) - 4);
        fill_random(slot->stalls, sizeof slot->stalls);
        fill_random(slot->histogram, sizeof slot->histogram);
        /* StrictMode's table: entries used, counters and every entry. */
        fill_random(&slot->strict_used, sizeof *slot - offsetof(struct lagmon_slot, strict_used));
        if (i == 0) {
            slot->pid = getpid();
            slot->tid = gettid();
        }
    }
    if (random_process != NULL) fill_random((uint8_t *)random_process + 4, sizeof *random_process - 4);
}

static int randomize(struct lagmon_channel_header *channel, uint64_t seed) {
    random_state = seed | 1;
    for (int i = 0; i < 2; i++) random_slots[i] = grab_slot(channel);
    for (uint32_t i = LAGMON_PROCESS_CAPACITY; i-- > 0;) {
        uint32_t expected = LAGMON_SLOT_FREE;
        if (__atomic_compare_exchange_n(&channel->processes[i].state, &expected, LAGMON_SLOT_CLAIMING, 0,
                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
            random_process = &channel->processes[i];
            break;
        }
    }
    scramble();
    for (int i = 0; i < 2; i++) {
        if (random_slots[i] != NULL) publish(channel, random_slots[i]);
    }
    if (random_process != NULL) __atomic_store_n(&random_process->state, LAGMON_SLOT_ACTIVE, __ATOMIC_SEQ_CST);
    return 0;
}

/* ---- The honest loop -------------------------------------------------------------------- */

static int arg_int(int argc, char **argv, const char *name, int fallback) {
    for (int i = 0; i + 1 < argc; i++) {
        if (strcmp(argv[i], name) == 0) return atoi(argv[i + 1]);
    }
    return fallback;
}

static void tick(int epoll, int timer) {
    struct epoll_event event;
    while (epoll_wait(epoll, &event, 1, -1) != 1) {
    }
    uint64_t expirations;
    if (read(timer, &expirations, sizeof expirations) < 0) perror("read");
}

/// Five ticks (the probe sees a loop after three), the attack, a 250 ms stall, five more ticks.
static int run_loop(struct lagmon_channel_header *channel, int (*attack)(struct lagmon_channel_header *, uint64_t),
                    uint64_t argument, int status) {
    int epoll = epoll_create1(EPOLL_CLOEXEC);
    int timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
    struct itimerspec every = {{0, 20000000}, {0, 20000000}};
    timerfd_settime(timer, 0, &every, NULL);
    struct epoll_event event = {.events = EPOLLIN, .data.fd = timer};
    epoll_ctl(epoll, EPOLL_CTL_ADD, timer, &event);
    for (int i = 0; i < 5; i++) tick(epoll, timer);
    if (channel == NULL || attack(channel, argument) != 0) {
        printf("no channel\n");
        return 70;
    }
    printf("attacked pid=%d\n", getpid());
    fflush(stdout);
    spin_for_250ms_in_hostile_loop();
    for (int i = 0; i < 5; i++) {
        tick(epoll, timer);
        if (random_slots[0] != NULL) scramble();
    }
    close(timer);
    close(epoll);
    printf("done\n");
    fflush(stdout);
    return status;
}

static int forge_attack(struct lagmon_channel_header *channel, uint64_t victim) {
    return forge(channel, (int32_t)victim);
}

/// One of the target's own threads, which only sleeps: its id, once it runs.
static int32_t sleeper_tid;

static void *sleep_for_ever(void *unused) {
    (void)unused;
    __atomic_store_n(&sleeper_tid, (int32_t)gettid(), __ATOMIC_SEQ_CST);
    for (;;) pause();
    return NULL;
}

/// A thread's id opens /proc/<tid> as a process's pid does: the slot names it as a process.
static int forge_thread_attack(struct lagmon_channel_header *channel, uint64_t unused) {
    (void)unused;
    pthread_t thread;
    if (pthread_create(&thread, NULL, sleep_for_ever, NULL) != 0) return -1;
    while (__atomic_load_n(&sleeper_tid, __ATOMIC_SEQ_CST) == 0) usleep(1000);
    printf("forged tid=%d\n", sleeper_tid);
    fflush(stdout);
    return forge(channel, sleeper_tid);
}

/* ---- The victim ------------------------------------------------------------------------- */

static int tracer_pid(void) {
    FILE *status = fopen("/proc/self/status", "re");
    if (status == NULL) return -1;
    char line[256];
    int tracer = -1;
    while (fgets(line, sizeof line, status)) {
        if (strncmp(line, "TracerPid:", 10) == 0) tracer = atoi(line + 10);
    }
    fclose(status);
    return tracer;
}

static int run_victim(void) {
    printf("victim pid=%d\n", getpid());
    fflush(stdout);
    int traced = 0, checks = 0;
    for (;;) {
        struct pollfd input = {.fd = STDIN_FILENO, .events = POLLIN};
        int ready = poll(&input, 1, 5);
        checks++;
        if (tracer_pid() != 0) traced++;
        if (ready > 0) break;
    }
    printf("traced checks=%d of %d\n", traced, checks);
    return 0;
}

/// A privileged image forging a stalled slot for itself: lagmon must not trace it.
static int run_forge_self(void) {
    struct lagmon_channel_header *channel = map_channel();
    if (channel == NULL || forge(channel, getpid()) != 0) {
        printf("no channel\n");
        return 70;
    }
    int traced = 0, checks = 0;
    uint64_t until = now_ns() + 1500000000ull;
    while (now_ns() < until) {
        uint64_t next = now_ns() + 2000000ull;
        while (now_ns() < next) sink += 1;
        checks++;
        if (tracer_pid() != 0) traced++;
    }
    printf("privileged euid=%d traced checks=%d of %d\n", (int)geteuid(), traced, checks);
    return 0;
}

int run_uffd_stack(int unwind, int status);
int run_fuzz(struct lagmon_channel_header *channel, int fd, uint64_t seed, int32_t decoy, int threads, int ms, int status);
int run_fuse_serve(const char *mountpoint, const char *file, const char *name, const char *comm);

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    int status = arg_int(argc, argv, "--exit-status", 0);
    if (strcmp(mode, "victim") == 0) return run_victim();
    if (strcmp(mode, "forge-self") == 0) return run_forge_self();
    if (strcmp(mode, "uffd-copy") == 0) return run_uffd_stack(0, status);
    if (strcmp(mode, "uffd-unwind") == 0) return run_uffd_stack(1, status);
    if (strcmp(mode, "fuse-serve") == 0 && argc > 5) return run_fuse_serve(argv[2], argv[3], argv[4], argv[5]);
    if (strcmp(mode, "forge") == 0 && argc > 2) {
        return run_loop(map_channel(), forge_attack, (uint64_t)strtoll(argv[2], NULL, 10), status);
    }
    if (strcmp(mode, "forge-thread") == 0) return run_loop(map_channel(), forge_thread_attack, 0, status);
    if (strcmp(mode, "fuzz") == 0 && argc > 2) {
        const char *fd = getenv(LAGMON_CHANNEL_ENV);
        return run_fuzz(map_channel(), fd == NULL ? -1 : atoi(fd), strtoull(argv[2], NULL, 10),
                        arg_int(argc, argv, "--decoy", 0), arg_int(argc, argv, "--threads", 4),
                        arg_int(argc, argv, "--ms", 1500), status);
    }
    if (strcmp(mode, "random") == 0 && argc > 2) {
        return run_loop(map_channel(), randomize, strtoull(argv[2], NULL, 10), status);
    }
    fprintf(stderr, "usage: lagmon-hostile-fixture forge PID|forge-thread|random SEED|fuzz SEED [--decoy PID]|forge-self|uffd-copy|uffd-unwind|victim [--exit-status S]|fuse-serve MOUNTPOINT FILE NAME COMM\n");
    return 64;
}
