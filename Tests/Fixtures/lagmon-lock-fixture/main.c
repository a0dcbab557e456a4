// An epoll loop whose main thread waits for a lock that a worker thread holds while it spins.
// Every step is driven by pipes and timerfd ticks, never by sleeps; lines on stdout say what
// happened (tests read them).
//
//   lagmon-lock-fixture normal|recursive|errorcheck|adaptive|pi|rwlock-writer|rwlock-readers|condvar
//
// The worker (named `lock-holder`) takes the lock (a mutex of that type; a rwlock for writing,
// or for reading beside a second reader that lets go after it; nothing for `condvar`), prints
// `holder tid N` and tells the main thread over a pipe. The main thread prints `waiting for the
// lock`, tells the worker, and locks (rwlock: for reading after a writer, for writing after
// readers; condvar: waits for a signal). The worker, told, spins 400 ms in hold_and_spin() and
// lets go.
#define _GNU_SOURCE
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

#include "lagmon_fixture_loop.h"

static const char *mode;
static pthread_mutex_t mutex;
static pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_cond_t condition = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t condition_mutex = PTHREAD_MUTEX_INITIALIZER;
static int signalled;
static int holding[2], waiting[2], second_reader[2], released[2];

static inline __attribute__((always_inline)) long long now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1000000000ll + now.tv_nsec;
}

static void post(int fd) {
    char byte = 1;
    if (write(fd, &byte, 1) != 1) exit(3);
}

static void await(int fd) {
    char byte;
    if (read(fd, &byte, 1) != 1) exit(3);
}

/// Spins for `milliseconds` of wall time, holding whatever the caller holds.
__attribute__((noinline)) void hold_and_spin(int milliseconds) {
    long long until = now_ns() + milliseconds * 1000000ll;
    volatile unsigned long long spins = 0;
    while (now_ns() < until) {
        for (int i = 0; i < 10000; i++) spins++;
    }
    __asm__ volatile("" ::: "memory"); /* not a tail call: keep the caller's frame */
}

static void lock_for_holder(void) {
    if (strcmp(mode, "rwlock-writer") == 0) {
        pthread_rwlock_wrlock(&rwlock);
    } else if (strcmp(mode, "rwlock-readers") == 0) {
        pthread_rwlock_rdlock(&rwlock);
    } else if (strcmp(mode, "condvar") != 0) {
        pthread_mutex_lock(&mutex);
        if (strcmp(mode, "recursive") == 0) pthread_mutex_lock(&mutex);
    }
}

static void unlock_for_holder(void) {
    if (strncmp(mode, "rwlock", 6) == 0) {
        pthread_rwlock_unlock(&rwlock);
    } else if (strcmp(mode, "condvar") == 0) {
        pthread_mutex_lock(&condition_mutex);
        signalled = 1;
        pthread_cond_signal(&condition);
        pthread_mutex_unlock(&condition_mutex);
    } else {
        pthread_mutex_unlock(&mutex);
        if (strcmp(mode, "recursive") == 0) pthread_mutex_unlock(&mutex);
    }
}

static void *holder(void *unused) {
    (void)unused;
    pthread_setname_np(pthread_self(), "lock-holder");
    lock_for_holder();
    printf("holder tid %ld\n", (long)syscall(SYS_gettid));
    fflush(stdout);
    post(holding[1]);
    await(waiting[0]);
    hold_and_spin(400);
    if (strcmp(mode, "rwlock-readers") == 0) post(released[1]);
    unlock_for_holder();
    return NULL;
}

/// A second reader of the rwlock (rwlock-readers), which holds it until the holder lets go.
static void *reader(void *unused) {
    (void)unused;
    pthread_setname_np(pthread_self(), "lock-reader");
    pthread_rwlock_rdlock(&rwlock);
    post(second_reader[1]);
    await(released[0]);
    pthread_rwlock_unlock(&rwlock);
    return NULL;
}

/// The main thread's wait: the stall.
__attribute__((noinline)) void wait_for_the_lock(void) {
    if (strcmp(mode, "rwlock-writer") == 0) {
        pthread_rwlock_rdlock(&rwlock);
        pthread_rwlock_unlock(&rwlock);
    } else if (strcmp(mode, "rwlock-readers") == 0) {
        pthread_rwlock_wrlock(&rwlock);
        pthread_rwlock_unlock(&rwlock);
    } else if (strcmp(mode, "condvar") == 0) {
        pthread_mutex_lock(&condition_mutex);
        while (!signalled) pthread_cond_wait(&condition, &condition_mutex);
        pthread_mutex_unlock(&condition_mutex);
    } else {
        pthread_mutex_lock(&mutex);
        pthread_mutex_unlock(&mutex);
    }
    __asm__ volatile("" ::: "memory");
}

static int mutex_type(void) {
    if (strcmp(mode, "recursive") == 0) return PTHREAD_MUTEX_RECURSIVE;
    if (strcmp(mode, "errorcheck") == 0) return PTHREAD_MUTEX_ERRORCHECK;
    if (strcmp(mode, "adaptive") == 0) return PTHREAD_MUTEX_ADAPTIVE_NP;
    return PTHREAD_MUTEX_NORMAL;
}

static const char *modes[] = {"normal", "recursive", "errorcheck", "adaptive", "pi",
                              "rwlock-writer", "rwlock-readers", "condvar"};

int main(int argc, char **argv) {
    int known = 0;
    for (size_t i = 0; argc == 2 && i < sizeof modes / sizeof *modes; i++) known |= strcmp(argv[1], modes[i]) == 0;
    if (!known) {
        fprintf(stderr, "usage: lagmon-lock-fixture normal|recursive|errorcheck|adaptive|pi|rwlock-writer|rwlock-readers|condvar\n");
        return 2;
    }
    mode = argv[1];
    pthread_mutexattr_t attributes;
    pthread_mutexattr_init(&attributes);
    pthread_mutexattr_settype(&attributes, mutex_type());
    if (strcmp(mode, "pi") == 0) pthread_mutexattr_setprotocol(&attributes, PTHREAD_PRIO_INHERIT);
    pthread_mutex_init(&mutex, &attributes);
    if (pipe(holding) != 0 || pipe(waiting) != 0 || pipe(second_reader) != 0 || pipe(released) != 0) return 3;
    printf("pid %d\n", (int)getpid());
    fflush(stdout);
    int epoll, timer;
    lagmon_fixture_loop_open(20000000, &epoll, &timer);
    lagmon_fixture_ticks(epoll, timer, 5);
    pthread_t threads[2];
    pthread_create(&threads[0], NULL, holder, NULL);
    await(holding[0]);
    int readers = strcmp(mode, "rwlock-readers") == 0;
    if (readers) {
        pthread_create(&threads[1], NULL, reader, NULL);
        await(second_reader[0]);
    }
    printf("waiting for the lock\n");
    fflush(stdout);
    post(waiting[1]);
    wait_for_the_lock();
    printf("got the lock\n");
    fflush(stdout);
    lagmon_fixture_ticks(epoll, timer, 5);
    pthread_join(threads[0], NULL);
    if (readers) pthread_join(threads[1], NULL);
    printf("done\n");
    return 0;
}
