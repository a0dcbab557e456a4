// In-target probe: channel attachment, slot claiming and the CoreFoundation observer.
// CoreFoundation is reached through dlsym so the preload shim works in any process and never
// forces CF to load; the agent uses the same path so both install identical observers.
#define _GNU_SOURCE
#include "lagmon_probe.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- Channel attachment ------------------------------------------------------------------ */

static pthread_once_t attach_once = PTHREAD_ONCE_INIT;
static struct lagmon_channel_header *attached_channel;

static void lagmon_probe_warn(const char *message) {
    /* One line, prefixed, so it never mixes with the target's own output. */
    char line[256];
    int length = snprintf(line, sizeof line, "lagmon: %s\n", message);
    if (length > 0) (void)!write(STDERR_FILENO, line, (size_t)length < sizeof line ? (size_t)length : sizeof line - 1);
}

/// Maps the channel. Only the stable 16-byte prefix is required here, so a channel of another
/// version (another size) is still recognised and told about the mismatch.
static struct lagmon_channel_header *lagmon_probe_map(int fd, size_t *size) {
    struct stat info;
    if (fstat(fd, &info) != 0 || (size_t)info.st_size < 16) return NULL;
    *size = (size_t)info.st_size;
    void *base = mmap(NULL, (size_t)info.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return base == MAP_FAILED ? NULL : (struct lagmon_channel_header *)base;
}

static void lagmon_probe_attach(void) {
    const char *value = getenv(LAGMON_CHANNEL_ENV);
    if (value == NULL || *value == '\0') return;
    char *end = NULL;
    long fd = strtol(value, &end, 10);
    if (*end != '\0' || fd < 0 || fd > INT_MAX) return;
    size_t size = 0;
    struct lagmon_channel_header *channel = lagmon_probe_map((int)fd, &size);
    if (channel == NULL) {
        lagmon_probe_warn("channel not readable; running unmonitored");
        return;
    }
    if (channel->magic != LAGMON_CHANNEL_MAGIC) {
        lagmon_probe_warn("channel has an unknown format; running unmonitored");
        munmap(channel, size);
        return;
    }
    if (channel->version != LAGMON_CHANNEL_VERSION || size < sizeof *channel ||
        channel->header_size != offsetof(struct lagmon_channel_header, slots) ||
        channel->slot_size != sizeof(struct lagmon_slot)) {
        __atomic_fetch_add(&channel->mismatch_count, 1, __ATOMIC_SEQ_CST);
        lagmon_probe_warn("probe and lagmon versions differ; running unmonitored (rebuild both)");
        munmap(channel, size);
        return;
    }
    /* Children inherit the environment; only the process lagmon started is observed. Its probe
       attaches first (its constructor runs before it can fork), so the first claim wins. */
    int32_t expected = 0;
    int32_t self = (int32_t)getpid();
    if (!__atomic_compare_exchange_n(&channel->target_pid, &expected, self, 0, __ATOMIC_SEQ_CST,
                                     __ATOMIC_SEQ_CST) && expected != self) {
        munmap(channel, size);
        return;
    }
    attached_channel = channel;
}

struct lagmon_channel_header *lagmon_probe_channel(void) {
    pthread_once(&attach_once, lagmon_probe_attach);
    return attached_channel;
}

void lagmon_probe_note_agent(struct lagmon_channel_header *channel) {
    __atomic_fetch_or(&channel->probe_flags, LAGMON_PROBE_AGENT_CALLED, __ATOMIC_SEQ_CST);
}

/* ---- Slots ------------------------------------------------------------------------------- */

static void lagmon_probe_set_flag(struct lagmon_channel_header *channel, uint32_t flag) {
    __atomic_fetch_or(&channel->probe_flags, flag, __ATOMIC_SEQ_CST);
}

/// Whether a probe (this copy or another in the process) already observes this thread.
static int lagmon_probe_thread_claimed(struct lagmon_channel_header *channel, pid_t tid) {
    for (uint32_t i = 0; i < channel->slot_capacity; i++) {
        struct lagmon_slot *slot = &channel->slots[i];
        if (__atomic_load_n(&slot->state, __ATOMIC_ACQUIRE) != LAGMON_SLOT_FREE &&
            slot->pid == getpid() && slot->tid == tid) {
            return 1;
        }
    }
    return 0;
}

static struct lagmon_slot *lagmon_probe_claim(struct lagmon_channel_header *channel, uint32_t kind) {
    for (uint32_t i = 0; i < channel->slot_capacity; i++) {
        struct lagmon_slot *slot = &channel->slots[i];
        uint32_t expected = LAGMON_SLOT_FREE;
        if (!__atomic_compare_exchange_n(&slot->state, &expected, LAGMON_SLOT_CLAIMING, 0,
                                         __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            continue;
        }
        slot->kind = kind;
        slot->pid = getpid();
        slot->tid = gettid();
        prctl(PR_GET_NAME, slot->thread_name, 0, 0, 0);
        slot->stall_threshold_ns = channel->stall_threshold_ns;
        slot->wake_ns = UINT64_MAX;
        slot->claimed_ns = lagmon_probe_now_ns(channel->clock_base_ns);
        __atomic_store_n(&slot->state, LAGMON_SLOT_ACTIVE, __ATOMIC_RELEASE);
        __atomic_fetch_add(&channel->slots_claimed, 1, __ATOMIC_SEQ_CST);
        sem_post(&channel->discovery);
        return slot;
    }
    lagmon_probe_set_flag(channel, LAGMON_PROBE_SLOTS_EXHAUSTED);
    return NULL;
}

void lagmon_probe_record_stall(struct lagmon_slot *slot, uint64_t start_ns, uint64_t end_ns,
                               uint32_t activity) {
    uint64_t head = slot->stall_head;
    struct lagmon_stall_record *record = &slot->stalls[head % LAGMON_STALL_RING_CAPACITY];
    lagmon_probe_store(&record->start_ns, start_ns);
    lagmon_probe_store(&record->end_ns, end_ns);
    lagmon_probe_store(&record->activity, activity);
    __atomic_store_n(&slot->stall_head, head + 1, __ATOMIC_RELEASE);
}

void lagmon_probe_wake_watchdog(struct lagmon_slot *slot) {
    /* Exactly one post per park: whoever clears the flag owns the post. */
    if (__atomic_exchange_n(&slot->watchdog_parked, 0, __ATOMIC_SEQ_CST) != 0) {
        lagmon_probe_store(&slot->watchdog_posts, slot->watchdog_posts + 1);
        sem_post(&slot->semaphore);
    }
}

/* ---- CoreFoundation observer ------------------------------------------------------------- */

typedef struct {
    long version;
    void *info;
    const void *(*retain)(const void *info);
    void (*release)(const void *info);
    void *(*copy_description)(const void *info);
} lagmon_cf_observer_context;
typedef void (*lagmon_cf_callout)(void *observer, unsigned long activity, void *info);

struct lagmon_cf_api {
    void *(*get_main)(void);
    void *(*get_current)(void);
    void *(*copy_current_mode)(void *run_loop);
    void (*release)(const void *object);
    void *(*observer_create)(const void *allocator, unsigned long activities, unsigned char repeats,
                             long order, lagmon_cf_callout callout, lagmon_cf_observer_context *context);
    void (*add_observer)(void *run_loop, void *observer, const void *mode);
    const void *const *common_modes;
};

static int lagmon_cf_resolve(struct lagmon_cf_api *api) {
    api->get_main = (void *(*)(void))dlsym(RTLD_DEFAULT, "CFRunLoopGetMain");
    api->get_current = (void *(*)(void))dlsym(RTLD_DEFAULT, "CFRunLoopGetCurrent");
    api->copy_current_mode = (void *(*)(void *))dlsym(RTLD_DEFAULT, "CFRunLoopCopyCurrentMode");
    api->release = (void (*)(const void *))dlsym(RTLD_DEFAULT, "CFRelease");
    api->observer_create = (void *(*)(const void *, unsigned long, unsigned char, long,
                                      lagmon_cf_callout, lagmon_cf_observer_context *))
        dlsym(RTLD_DEFAULT, "CFRunLoopObserverCreate");
    api->add_observer = (void (*)(void *, void *, const void *))dlsym(RTLD_DEFAULT, "CFRunLoopAddObserver");
    api->common_modes = (const void *const *)dlsym(RTLD_DEFAULT, "kCFRunLoopCommonModes");
    return api->get_main && api->get_current && api->copy_current_mode && api->release &&
           api->observer_create && api->add_observer && api->common_modes;
}

/* The callouts. `info` is the slot; the channel's clock base sits in the slot's channel, but
   reading the header on every transition would touch another cache line, so it is cached. */
static uint64_t cf_clock_base_ns;

static void lagmon_cf_callout_record(void *observer, unsigned long activity, void *info) {
    (void)observer;
    lagmon_probe_record((struct lagmon_slot *)info, (uint32_t)activity, cf_clock_base_ns);
}

/// Awake activities are recorded by an observer ordered first, so busy time starts before any
/// other observer runs; sleeping activities by one ordered last, so work done in other
/// before-waiting observers counts as busy rather than hiding in the idle state.
#define LAGMON_CF_AWAKE_ACTIVITIES \
    (LAGMON_ACTIVITY_ENTRY | LAGMON_ACTIVITY_BEFORE_TIMERS | LAGMON_ACTIVITY_BEFORE_SOURCES | \
     LAGMON_ACTIVITY_AFTER_WAITING)
#define LAGMON_CF_SLEEPING_ACTIVITIES (LAGMON_ACTIVITY_BEFORE_WAITING | LAGMON_ACTIVITY_EXIT)

static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;
static enum lagmon_install_result install_result = LAGMON_INSTALL_NOT_YET;

static enum lagmon_install_result lagmon_cf_install_locked(struct lagmon_channel_header *channel,
                                                          int require_running) {
    struct lagmon_cf_api api;
    if (!lagmon_cf_resolve(&api)) {
        lagmon_probe_set_flag(channel, LAGMON_PROBE_NO_CF);
        return LAGMON_INSTALL_NEVER;
    }
    lagmon_probe_set_flag(channel, LAGMON_PROBE_CF_FOUND);
    void *main_loop = api.get_main();
    if (main_loop == NULL || api.get_current() != main_loop) return LAGMON_INSTALL_NOT_YET;
    if (require_running) {
        void *mode = api.copy_current_mode(main_loop);
        if (mode == NULL) return LAGMON_INSTALL_NOT_YET;
        api.release(mode);
    }
    if (lagmon_probe_thread_claimed(channel, gettid())) return LAGMON_INSTALL_DONE;
    struct lagmon_slot *slot = lagmon_probe_claim(channel, LAGMON_OBSERVER_CFRUNLOOP);
    if (slot == NULL) return LAGMON_INSTALL_NEVER;
    cf_clock_base_ns = channel->clock_base_ns;
    lagmon_cf_observer_context context = {0, slot, NULL, NULL, NULL};
    void *first = api.observer_create(NULL, LAGMON_CF_AWAKE_ACTIVITIES, 1, LONG_MIN,
                                      lagmon_cf_callout_record, &context);
    void *last = api.observer_create(NULL, LAGMON_CF_SLEEPING_ACTIVITIES, 1, LONG_MAX,
                                     lagmon_cf_callout_record, &context);
    if (first == NULL || last == NULL) {
        lagmon_probe_set_flag(channel, LAGMON_PROBE_INSTALL_FAILED);
        return LAGMON_INSTALL_NEVER;
    }
    api.add_observer(main_loop, first, *api.common_modes);
    api.add_observer(main_loop, last, *api.common_modes);
    /* The run loop retains them; they live as long as the process. */
    api.release(first);
    api.release(last);
    lagmon_probe_set_flag(channel, LAGMON_PROBE_OBSERVER_INSTALLED);
    return LAGMON_INSTALL_DONE;
}

enum lagmon_install_result lagmon_probe_install_main_observer(int require_running) {
    struct lagmon_channel_header *channel = lagmon_probe_channel();
    if (channel == NULL) return LAGMON_INSTALL_NEVER;
    pthread_mutex_lock(&install_lock);
    if (install_result == LAGMON_INSTALL_NOT_YET) {
        install_result = lagmon_cf_install_locked(channel, require_running);
    }
    enum lagmon_install_result result = install_result;
    pthread_mutex_unlock(&install_lock);
    return result;
}
