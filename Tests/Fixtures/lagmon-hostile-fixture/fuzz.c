// The live channel fuzzer (`lagmon-hostile-fixture fuzz SEED`): while lagmon watches this
// process, several threads write random and adversarial values into the channel, everywhere a
// target can reach: the futex words lagmon sleeps on, the header's counters, slots it never
// claimed honestly (published with pids and tids naming a decoy process, pid 1, lagmon itself),
// process entries. The main thread's loop is honest (slot 0: its identity and hot line are left
// alone) and stalls once, 150 ms, in spin_for_150ms_while_fuzzed(). Every choice derives from
// SEED, so a failing seed can be run again (the threads' interleaving still varies).
#define _GNU_SOURCE
#include "lagmon_channel.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static struct lagmon_channel_header *channel;
static int32_t decoy_pid;
static int stop_fuzzing;
static uint64_t writes;

static uint64_t fuzz_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static volatile uint64_t fuzz_sink;

__attribute__((noinline)) void spin_for_150ms_while_fuzzed(void) {
    uint64_t until = fuzz_now_ns() + 150000000ull;
    while (fuzz_now_ns() < until) {
        for (int i = 0; i < 1000; i++) fuzz_sink += (uint64_t)i * 2654435761u;
    }
    __asm__ volatile("" ::: "memory");
}

static uint64_t next(uint64_t *state) {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/// A value a hostile target would pick: edges, pids that are not its own, or noise.
static uint64_t adversarial(uint64_t *state) {
    switch (next(state) % 16) {
    case 0: return 0;
    case 1: return 1;
    case 2: return UINT64_MAX;
    case 3: return 0x7fff; /* the word that made glibc's sem_timedwait abort lagmon */
    case 4: return 0x7fffffffu;
    case 5: return 0x80000000u;
    case 6: return 0xffffffffu;
    case 7: return (uint64_t)INT64_MAX;
    case 8: return (uint64_t)(uint32_t)decoy_pid;
    case 9: return 1; /* pid 1 */
    case 10: return (uint64_t)(uint32_t)getppid(); /* lagmon */
    case 11: return (uint64_t)(uint32_t)getpid();
    case 12: return LAGMON_SLOT_ACTIVE;
    case 13: return next(state) % 4096;
    default: return next(state);
    }
}

static void wake(uint32_t *word) { syscall(SYS_futex, word, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0); }

static void write_at(void *base, size_t size, uint64_t *state) {
    size_t offset = (size_t)(next(state) % (size / 4)) * 4;
    uint64_t value = adversarial(state);
    if (offset + 8 <= size && next(state) % 2) {
        __atomic_store_n((uint64_t *)((uint8_t *)base + (offset & ~(size_t)7)), value, __ATOMIC_RELAXED);
    } else {
        __atomic_store_n((uint32_t *)((uint8_t *)base + offset), (uint32_t)value, __ATOMIC_RELAXED);
    }
}

/// A slot no honest probe of this process holds (slot 0 is the main loop's).
static struct lagmon_slot *hostile_slot(uint64_t *state) {
    return &channel->slots[1 + next(state) % (LAGMON_SLOT_CAPACITY - 1)];
}

/// Publishes a slot whose identity names someone else (or nobody sensible), mid-stall.
static void forge_slot(uint64_t *state) {
    struct lagmon_slot *slot = hostile_slot(state);
    slot->kind = (uint32_t)(1 + next(state) % 5);
    slot->pid = (int32_t)adversarial(state);
    slot->tid = (int32_t)adversarial(state);
    slot->claimed_ns = adversarial(state);
    slot->published_ns = adversarial(state);
    slot->process_index = (uint32_t)adversarial(state);
    slot->wake_ns = adversarial(state);
    slot->stall_head = adversarial(state);
    __atomic_store_n(&slot->word, lagmon_word_make(adversarial(state), LAGMON_ACTIVITY_AFTER_WAITING), __ATOMIC_SEQ_CST);
    __atomic_store_n(&slot->state, (uint32_t)(next(state) % 4 ? LAGMON_SLOT_ACTIVE : adversarial(state)),
                     __ATOMIC_SEQ_CST);
    lagmon_channel_post(&channel->discovery_sequence);
}

static void forge_process(uint64_t *state) {
    struct lagmon_process *entry = &channel->processes[1 + next(state) % (LAGMON_PROCESS_CAPACITY - 1)];
    write_at(entry, sizeof *entry, state);
    entry->pid = (int32_t)adversarial(state);
    entry->command_length = (uint32_t)adversarial(state);
    __atomic_store_n(&entry->state, LAGMON_SLOT_ACTIVE, __ATOMIC_SEQ_CST);
    lagmon_channel_post(&channel->discovery_sequence);
}

/// The words lagmon sleeps on: the discovery word and every slot's (the honest one's too).
static void hit_futex_words(uint64_t *state) {
    uint32_t *word = next(state) % 4 == 0 ? &channel->discovery_sequence
                                          : &channel->slots[next(state) % LAGMON_SLOT_CAPACITY].wake_sequence;
    __atomic_store_n(word, (uint32_t)adversarial(state), __ATOMIC_SEQ_CST);
    if (next(state) % 2) __atomic_store_n(&channel->slots[0].watchdog_parked, (uint32_t)adversarial(state), __ATOMIC_SEQ_CST);
    wake(word);
}

static void hit_header_counters(uint64_t *state) {
    uint32_t *counters[] = {&channel->mismatch_count, &channel->probe_flags, &channel->slots_claimed,
                            &channel->processes_claimed, &channel->unwatched_loops, &channel->unfollowed_processes,
                            &channel->refused_loops};
    __atomic_store_n(counters[next(state) % (sizeof counters / sizeof *counters)], (uint32_t)adversarial(state),
                     __ATOMIC_SEQ_CST);
}

static void *fuzz_thread(void *argument) {
    uint64_t state = (uint64_t)(uintptr_t)argument;
    uint64_t done = 0;
    while (!__atomic_load_n(&stop_fuzzing, __ATOMIC_RELAXED)) {
        switch (next(&state) % 8) {
        case 0: forge_slot(&state); break;
        case 1: forge_process(&state); break;
        case 2: case 3: hit_futex_words(&state); break;
        case 4: hit_header_counters(&state); break;
        case 5: write_at(hostile_slot(&state), sizeof(struct lagmon_slot), &state); break;
        case 6: { /* a whole hostile slot of noise, published */
            struct lagmon_slot *slot = hostile_slot(&state);
            for (size_t i = 0; i < 64; i++) write_at(slot, sizeof *slot, &state);
            __atomic_store_n(&slot->state, LAGMON_SLOT_ACTIVE, __ATOMIC_SEQ_CST);
            break;
        }
        default: /* the honest slot's watchdog line */
            write_at(&channel->slots[0].watchdog_parked, 16, &state);
            break;
        }
        done++;
        if (done % 64 == 0) sched_yield();
    }
    __atomic_fetch_add(&writes, done, __ATOMIC_RELAXED);
    return NULL;
}

/// Tries to shrink and grow the channel through its descriptor and through /proc.
static void try_resizing(int fd) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    int reopened = open(path, O_RDWR | O_CLOEXEC);
    int allowed = ftruncate(fd, 4096) == 0 || ftruncate(fd, (off_t)sizeof *channel * 2) == 0 ||
                  (reopened >= 0 && ftruncate(reopened, 0) == 0);
    if (reopened >= 0) close(reopened);
    printf("truncate %s\n", allowed ? "allowed" : "refused");
    fflush(stdout);
}

int run_fuzz(struct lagmon_channel_header *mapped, int fd, uint64_t seed, int32_t decoy, int threads, int ms,
             int status) {
    if (mapped == NULL) {
        printf("no channel\n");
        return 70;
    }
    channel = mapped;
    decoy_pid = decoy;
    int epoll = epoll_create1(EPOLL_CLOEXEC);
    int timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
    struct itimerspec every = {{0, 10000000}, {0, 10000000}};
    timerfd_settime(timer, 0, &every, NULL);
    struct epoll_event event = {.events = EPOLLIN, .data.fd = timer};
    epoll_ctl(epoll, EPOLL_CTL_ADD, timer, &event);
    uint64_t expirations;
    /* Five honest ticks first: the probe claims slot 0 for this loop after three. */
    for (int i = 0; i < 5; i++) {
        epoll_wait(epoll, &event, 1, -1);
        if (read(timer, &expirations, sizeof expirations) < 0) perror("read");
    }
    try_resizing(fd);
    if (threads < 1) threads = 1;
    if (threads > 16) threads = 16;
    pthread_t workers[16];
    for (int i = 0; i < threads; i++) {
        uint64_t state = (seed + 1) * 0x9E3779B97F4A7C15ull + (uint64_t)i * 0xBF58476D1CE4E5B9ull;
        pthread_create(&workers[i], NULL, fuzz_thread, (void *)(uintptr_t)(state | 1));
    }
    uint64_t until = fuzz_now_ns() + (uint64_t)ms * 1000000ull;
    int stalled = 0;
    while (fuzz_now_ns() < until || !stalled) {
        epoll_wait(epoll, &event, 1, -1);
        if (read(timer, &expirations, sizeof expirations) < 0) perror("read");
        if (!stalled && fuzz_now_ns() + (uint64_t)ms * 500000ull >= until) {
            spin_for_150ms_while_fuzzed();
            stalled = 1;
        }
    }
    __atomic_store_n(&stop_fuzzing, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < threads; i++) pthread_join(workers[i], NULL);
    close(timer);
    close(epoll);
    printf("fuzzed writes=%llu\n", (unsigned long long)writes);
    printf("done\n");
    fflush(stdout);
    return status;
}
