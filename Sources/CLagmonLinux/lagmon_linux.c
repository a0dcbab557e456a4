#define _GNU_SOURCE
#include "lagmon_linux.h"

#include <sys/mman.h>
#include <sys/prctl.h>
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

void lagmon_set_thread_name(const char *name) { prctl(PR_SET_NAME, name, 0, 0, 0); }
