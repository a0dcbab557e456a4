// LD_PRELOAD shim. lagmon starts the target with this library preloaded; it needs no change to
// the target. It cannot call CoreFoundation from its constructor (CF may not be initialised
// yet), so it waits for the main thread's first sleep in a libc wait call: CFRunLoop on Linux
// sleeps in epoll_wait, so by then CF is set up and the main run loop may be running. Until the
// observer is installed (or known impossible), main-thread waits try once more; afterwards each
// interposed call costs one predictable branch before jumping to libc.
#define _GNU_SOURCE
#include "lagmon_preload.h"

#include <dlfcn.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>

#include "lagmon_probe.h"

#define LAGMON_EXPORT __attribute__((visibility("default")))

static pthread_t main_thread;
/* 1 while the main run loop may still need an observer. */
static int install_pending;

__attribute__((constructor)) static void lagmon_preload_init(void) {
    struct lagmon_channel_header *channel = lagmon_probe_channel();
    if (channel == NULL) return;
    /* Looking a symbol up is safe this early; calling CoreFoundation is not. */
    uint32_t found = dlsym(RTLD_DEFAULT, "CFRunLoopGetMain") != NULL ? LAGMON_PROBE_CF_FOUND : LAGMON_PROBE_NO_CF;
    __atomic_fetch_or(&channel->probe_flags, LAGMON_PROBE_PRELOAD_LOADED | found, __ATOMIC_SEQ_CST);
    if (found == LAGMON_PROBE_NO_CF) return;
    main_thread = pthread_self();
    __atomic_store_n(&install_pending, 1, __ATOMIC_RELEASE);
}

static inline void lagmon_preload_before_wait(void) {
    if (__builtin_expect(__atomic_load_n(&install_pending, __ATOMIC_RELAXED), 0) &&
        pthread_equal(pthread_self(), main_thread)) {
        if (lagmon_probe_install_main_observer(1) != LAGMON_INSTALL_NOT_YET) {
            __atomic_store_n(&install_pending, 0, __ATOMIC_RELEASE);
        }
    }
}

/* The real libc entry points, resolved once. dlsym(RTLD_NEXT) is safe to race: every thread
   stores the same pointer. */
#define LAGMON_REAL(name)                                              \
    static __typeof__(&name) real_##name;                              \
    if (__builtin_expect(real_##name == NULL, 0)) {                    \
        real_##name = (__typeof__(&name))dlsym(RTLD_NEXT, #name);      \
    }

LAGMON_EXPORT int epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout) {
    LAGMON_REAL(epoll_wait);
    lagmon_preload_before_wait();
    return real_epoll_wait(epfd, events, maxevents, timeout);
}

LAGMON_EXPORT int epoll_pwait(int epfd, struct epoll_event *events, int maxevents, int timeout,
                              const sigset_t *sigmask) {
    LAGMON_REAL(epoll_pwait);
    lagmon_preload_before_wait();
    return real_epoll_pwait(epfd, events, maxevents, timeout, sigmask);
}

LAGMON_EXPORT int poll(struct pollfd *fds, nfds_t nfds, int timeout) {
    LAGMON_REAL(poll);
    lagmon_preload_before_wait();
    return real_poll(fds, nfds, timeout);
}

LAGMON_EXPORT int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout,
                        const sigset_t *sigmask) {
    LAGMON_REAL(ppoll);
    lagmon_preload_before_wait();
    return real_ppoll(fds, nfds, timeout, sigmask);
}
