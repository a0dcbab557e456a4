// Logic-free shims for Linux calls Swift cannot import directly: they need _GNU_SOURCE (which
// Swift's Glibc module does not define) or are variadic.
#ifndef LAGMON_LINUX_H
#define LAGMON_LINUX_H

#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

/// memfd_create(2): needs _GNU_SOURCE.
int lagmon_memfd_create(const char *name, unsigned int flags);
/// The MFD_CLOEXEC flag value.
unsigned int lagmon_mfd_cloexec(void);
/// sem_clockwait(3) on CLOCK_MONOTONIC with an absolute deadline in nanoseconds: glibc-only.
int lagmon_sem_wait_until_monotonic(sem_t *semaphore, uint64_t deadline_ns);
/// Names the calling thread (prctl PR_SET_NAME is variadic; at most 15 bytes are kept).
void lagmon_set_thread_name(const char *name);
/// gettid(2): needs _GNU_SOURCE.
pid_t lagmon_gettid(void);

#endif
