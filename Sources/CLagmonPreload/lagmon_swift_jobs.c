// Swift concurrency jobs as loop iterations, with no change to the program.
//
// Why here, and why dispatch_async_f: on Linux the Swift runtime (libswift_Concurrency.so) hands
// every job for the global concurrent executor and for the main actor to libdispatch with
// dispatch_async_f(queue, job, __swift_run_job) (dispatch_after_f for delayed jobs). That call
// crosses libraries through the PLT, so the preload shim can interpose it. The runtime's own
// entry points cannot be interposed: swift_job_run is a protected symbol, and the runtime reaches
// it by a direct tail call (jobInvoke), never through the PLT; the enqueue hooks
// (swift_task_enqueueGlobal_hook) see a job being queued, not run. docs/design.md has the evidence.
//
// So when the runtime enqueues a job, the shim substitutes its own function for __swift_run_job:
// libdispatch later calls it on the thread that runs the job, and it records the job's start
// and end around the runtime's function. A job on the main queue is an iteration of the main
// actor's loop (one slot, whose tid follows the thread running the job); any other job is an
// iteration of the cooperative pool thread running it (a slot per pool thread, claimed on its
// first job). Main-queue jobs run by the main thread itself are left to that thread's own loop
// observer (a CFRunLoop drains the main queue there), so no stall is reported twice.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <unistd.h>

#include "lagmon_probe.h"
#include "lagmon_swift_job.h"
#include "lagmon_swift_jobs.h"
#include "lagmon_tsc_clock.h"

#define LAGMON_EXPORT __attribute__((visibility("default")))
#define LAGMON_COLD __attribute__((noinline, cold))

typedef lagmon_swift_job_function lagmon_job_function;

/* libdispatch's types, declared here: the shim does not link libdispatch or need its headers. */
typedef void *dispatch_queue_t;
typedef uint64_t dispatch_time_t;
typedef void (*dispatch_function_t)(void *context);
void dispatch_async_f(dispatch_queue_t queue, void *context, dispatch_function_t work);
void dispatch_after_f(dispatch_time_t when, dispatch_queue_t queue, void *context, dispatch_function_t work);

static struct lagmon_channel_header *jobs_channel;
/* lagmon's tick in the channel (jobs_channel->swift_tick): a pool job's coarse clock. */
static const struct lagmon_swift_tick *jobs_tick;
static uint64_t jobs_clock_base_ns;
static int jobs_tsc_usable;
/* libswift_Concurrency's loaded text (from `concurrency_low`, `concurrency_size` bytes): until its
   job entry is known, only a function from it can be the entry. */
static uintptr_t concurrency_low, concurrency_size;
/* libdispatch's main queue (&_dispatch_main_q): its jobs are the main actor's. */
static void *main_queue;
/* The runtime's job entry (__swift_run_job), learnt from its first enqueue. */
static lagmon_job_function runtime_run_job;
/* Stands for the job entry until it is known: no function passed to libdispatch equals it (not
   even NULL, which a bad caller might pass). Never called. */
static void lagmon_swift_jobs_unobserved(void *context) { (void)context; }
/* The runtime's job entry once jobs are observed (the channel attached): the one comparison of the
   enqueue path. `lagmon_swift_jobs_unobserved` before, and in a fork's child lagmon does not follow. */
static dispatch_function_t observed_entry = lagmon_swift_jobs_unobserved;
/* The main actor's slot, claimed by the first off-main-thread main-queue job. */
static struct lagmon_slot *main_actor_slot;
static pthread_mutex_t main_actor_claim = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t pool_exit_key;

/* Per thread, in one variable so the per-job path looks up one thread-local offset, not four. */
struct lagmon_swift_jobs_thread {
    struct lagmon_tsc_clock clock;
    struct lagmon_slot *pool_slot; /* the pool slot, or the sentinel when none could be had */
    int32_t tid;
    uint32_t flags;                /* lagmon_swift_jobs_flag bits: the per-job path tests them at once */
};
enum lagmon_swift_jobs_flag {
    /// A wrapped job is running on this thread: a job run inside it is not wrapped again.
    LAGMON_SWIFT_JOBS_RUNNING = 1u << 0,
    /// The thread has no pool slot (none was free, or the thread is exiting): not observed.
    LAGMON_SWIFT_JOBS_NO_POOL_SLOT = 1u << 1,
};
static __thread struct lagmon_swift_jobs_thread job_thread __attribute__((tls_model("initial-exec")));
#define pool_slot (job_thread.pool_slot)
#define job_thread_tid (job_thread.tid)
#define job_flags (job_thread.flags)
#define job_clock (job_thread.clock)

/* A pool slot that could not be claimed (every slot taken): its thread is not observed. */
static struct lagmon_slot no_slot;

static uint64_t lagmon_swift_jobs_precise_now(void) { return lagmon_probe_now_ns(jobs_clock_base_ns); }

/// The per-job clock's slow path (lagmon_swift_job_slow_clock). Without a usable counter the
/// clock is never calibrated, so every read comes here and is precise.
LAGMON_COLD static uint64_t lagmon_swift_jobs_slow_now(struct lagmon_tsc_clock *clock, uint64_t tsc) {
    if (!jobs_tsc_usable) return lagmon_swift_jobs_precise_now();
    return lagmon_tsc_clock_now(clock, tsc, lagmon_swift_jobs_precise_now, lagmon_tsc_read);
}

static inline uint64_t lagmon_swift_jobs_now(void) { return lagmon_swift_job_now(&job_clock, lagmon_swift_jobs_slow_now); }

/// Finds the loaded text of the object defining swift_job_run (libswift_Concurrency).
static int lagmon_swift_jobs_find_text(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    uintptr_t inside = (uintptr_t)data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[i];
        if (header->p_type != PT_LOAD || (header->p_flags & PF_X) == 0) continue;
        uintptr_t low = info->dlpi_addr + header->p_vaddr;
        uintptr_t high = low + header->p_memsz;
        if (inside >= low && inside < high) {
            concurrency_low = low;
            concurrency_size = high - low;
            return 1;
        }
    }
    return 0;
}

void lagmon_swift_jobs_init(struct lagmon_channel_header *channel, int tsc_usable) {
    void *job_run = dlsym(RTLD_DEFAULT, "swift_job_run");
    main_queue = dlsym(RTLD_DEFAULT, "_dispatch_main_q");
    if (job_run == NULL || main_queue == NULL) return; /* not a Swift-concurrency program */
    dl_iterate_phdr(lagmon_swift_jobs_find_text, job_run);
    if (concurrency_low == 0) return;
    jobs_clock_base_ns = channel->clock_base_ns;
    jobs_tsc_usable = tsc_usable;
    jobs_tick = &channel->swift_tick;
    pthread_key_create(&pool_exit_key, lagmon_swift_jobs_thread_exit);
    __atomic_store_n(&jobs_channel, channel, __ATOMIC_RELEASE);
}

void lagmon_swift_jobs_after_fork_child(struct lagmon_channel_header *channel) {
    /* The parent's slots are the parent's; the child claims its own (if lagmon follows it). */
    pool_slot = NULL;
    job_flags = 0;
    main_actor_slot = NULL;
    if (channel == NULL) {
        /* Not followed: no job is wrapped from here on, and none is looked at twice. */
        observed_entry = lagmon_swift_jobs_unobserved;
        concurrency_size = 0;
    }
    pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
    main_actor_claim = fresh;
    if (channel != NULL) jobs_tick = &channel->swift_tick;
    if (jobs_channel != NULL) __atomic_store_n(&jobs_channel, channel, __ATOMIC_RELEASE);
}

void lagmon_swift_jobs_thread_exit(void *slot) {
    struct lagmon_slot *own = slot;
    if (own != NULL && own != &no_slot && own->pid == lagmon_probe_pid) {
        lagmon_probe_record_at(own, LAGMON_ACTIVITY_EXIT, lagmon_swift_jobs_now());
    }
    pool_slot = &no_slot;
    job_flags |= LAGMON_SWIFT_JOBS_NO_POOL_SLOT;
}

/* ---- Claiming (once per pool thread, once for the main actor) ----------------------------- */

static inline int32_t lagmon_swift_jobs_tid(void) {
    if (__builtin_expect(job_thread_tid == 0, 0)) job_thread_tid = (int32_t)gettid();
    return job_thread_tid;
}

LAGMON_COLD static struct lagmon_slot *lagmon_swift_jobs_claim_pool(void) {
    struct lagmon_channel_header *channel = __atomic_load_n(&jobs_channel, __ATOMIC_ACQUIRE);
    struct lagmon_slot *slot = channel != NULL ? lagmon_probe_claim(channel, LAGMON_OBSERVER_SWIFT_POOL) : NULL;
    if (slot == NULL) {
        pool_slot = &no_slot;
        job_flags |= LAGMON_SWIFT_JOBS_NO_POOL_SLOT;
        return &no_slot;
    }
    slot->claimed_ns = lagmon_swift_jobs_now();
    /* Idle until its first job: the word starts as before-waiting. */
    lagmon_probe_record_at(slot, LAGMON_ACTIVITY_BEFORE_WAITING, slot->claimed_ns);
    lagmon_probe_publish(channel, slot);
    pool_slot = slot;
    pthread_setspecific(pool_exit_key, slot);
    return slot;
}

LAGMON_COLD static struct lagmon_slot *lagmon_swift_jobs_claim_main_actor(void) {
    struct lagmon_channel_header *channel = __atomic_load_n(&jobs_channel, __ATOMIC_ACQUIRE);
    if (channel == NULL) return &no_slot;
    pthread_mutex_lock(&main_actor_claim);
    struct lagmon_slot *slot = main_actor_slot;
    if (slot == NULL) {
        slot = lagmon_probe_claim(channel, LAGMON_OBSERVER_SWIFT_MAIN_ACTOR);
        if (slot != NULL) {
            /* The loop is the actor, not a thread: name it so; the tid follows the running job. */
            __builtin_memcpy(slot->thread_name, "main-actor", sizeof "main-actor");
            slot->claimed_ns = lagmon_swift_jobs_now();
            lagmon_probe_record_at(slot, LAGMON_ACTIVITY_BEFORE_WAITING, slot->claimed_ns);
            lagmon_probe_publish(channel, slot);
        } else {
            slot = &no_slot;
        }
        __atomic_store_n(&main_actor_slot, slot, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&main_actor_claim);
    return slot;
}

/* ---- The wrappers libdispatch calls instead of the runtime's __swift_run_job --------------- */

/// One job of the cooperative pool: an iteration of the pool thread running it. One test of the
/// thread's flags and slot, and one of lagmon's tick and the slot's job count, on the common path (a
/// job timed by the tick: no clock read); everything else is out of line.
static void lagmon_swift_jobs_run_pool_job(void *job) {
    if (__builtin_expect(job_flags != 0, 0)) {
        runtime_run_job(job);
        return;
    }
    struct lagmon_slot *slot = pool_slot;
    if (__builtin_expect(slot == NULL, 0)) {
        /* The thread's first job: the claim sets the slot or the no-slot flag, so this recurses once. */
        lagmon_swift_jobs_claim_pool();
        lagmon_swift_jobs_run_pool_job(job);
        return;
    }
    job_flags = LAGMON_SWIFT_JOBS_RUNNING;
    lagmon_swift_job_run_pool(slot, &jobs_tick, lagmon_swift_jobs_precise_now, &job_clock, lagmon_swift_jobs_slow_now,
                              &runtime_run_job, job);
    job_flags = 0;
}

/// One main-actor job: an iteration of the main actor's loop, on whichever thread runs it.
static void lagmon_swift_jobs_run_main_job(void *job) {
    int32_t tid = lagmon_swift_jobs_tid();
    struct lagmon_slot *slot = __atomic_load_n(&main_actor_slot, __ATOMIC_ACQUIRE);
    if (tid == lagmon_probe_pid || (job_flags & LAGMON_SWIFT_JOBS_RUNNING) != 0 || slot == &no_slot) {
        /* On the main thread its own loop (a CFRunLoop) is the iteration. */
        runtime_run_job(job);
        return;
    }
    if (__builtin_expect(slot == NULL, 0)) slot = lagmon_swift_jobs_claim_main_actor();
    if (slot == &no_slot) {
        runtime_run_job(job);
        return;
    }
    uint32_t flags = job_flags;
    job_flags = flags | LAGMON_SWIFT_JOBS_RUNNING;
    lagmon_swift_job_run_main(slot, tid, &job_clock, lagmon_swift_jobs_slow_now, &runtime_run_job, job);
    job_flags = flags;
}

/// The wrapper libdispatch runs instead of the runtime's job entry on `queue`.
static inline dispatch_function_t lagmon_swift_jobs_wrapper(dispatch_queue_t queue) {
    return (void *)queue == main_queue ? lagmon_swift_jobs_run_main_job : lagmon_swift_jobs_run_pool_job;
}

/// A function from libswift_Concurrency's text enqueued before jobs were observed: learns the
/// runtime's job entry from its first enqueue and, once the channel is attached, starts wrapping it.
LAGMON_COLD static dispatch_function_t lagmon_swift_jobs_learn(dispatch_queue_t queue, dispatch_function_t function) {
    if (runtime_run_job == NULL) {
        lagmon_job_function none = NULL;
        __atomic_compare_exchange_n(&runtime_run_job, &none, (lagmon_job_function)function, 0, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST);
    }
    if (__atomic_load_n(&jobs_channel, __ATOMIC_ACQUIRE) == NULL || function != runtime_run_job) return function;
    /* Release: a thread that sees it sees runtime_run_job, which the wrappers call. */
    __atomic_store_n(&observed_entry, function, __ATOMIC_RELEASE);
    return lagmon_swift_jobs_wrapper(queue);
}

/// The wrapper to give libdispatch for `function` on `queue`, or `function` itself when it is
/// not the Swift runtime's job entry.
LAGMON_COLD static dispatch_function_t lagmon_swift_jobs_wrap(dispatch_queue_t queue, dispatch_function_t function) {
    dispatch_function_t observed = __atomic_load_n(&observed_entry, __ATOMIC_ACQUIRE);
    if (function == observed) return lagmon_swift_jobs_wrapper(queue);
    if ((uintptr_t)function - concurrency_low < concurrency_size && observed == lagmon_swift_jobs_unobserved) {
        return lagmon_swift_jobs_learn(queue, function);
    }
    return function;
}

/// Whether an enqueue of `function` needs lagmon_swift_jobs_wrap: it might be the job entry, not
/// known yet. `observed` is observed_entry as the caller read it.
static inline int lagmon_swift_jobs_unlearnt(dispatch_function_t function, dispatch_function_t observed) {
    return __builtin_expect((uintptr_t)function - concurrency_low < concurrency_size, 0) &&
           observed == lagmon_swift_jobs_unobserved;
}

/* ---- The interposed libdispatch entry points ------------------------------------------------ */

/// libdispatch's own `name`: next in the search order, or (libdispatch opened with RTLD_LOCAL
/// after start) from the library itself.
LAGMON_COLD static void *lagmon_swift_jobs_real(const char *name) {
    void *real = dlsym(RTLD_NEXT, name);
    if (real != NULL) return real;
    void *library = dlopen("libdispatch.so", RTLD_NOLOAD | RTLD_LAZY);
    return library != NULL ? dlsym(library, name) : NULL;
}

/* The libdispatch functions interposed, found at their first call. */
static __typeof__(&dispatch_async_f) real_async_f;
static __typeof__(&dispatch_after_f) real_after_f;

/// dispatch_async_f's first call, or a function that may be the job entry before it is known:
/// resolves libdispatch's function and returns the one to give it.
LAGMON_COLD static dispatch_function_t lagmon_swift_jobs_async_f_slow(dispatch_queue_t queue, dispatch_function_t work) {
    if (real_async_f == NULL) real_async_f = (__typeof__(&dispatch_async_f))lagmon_swift_jobs_real("dispatch_async_f");
    return lagmon_swift_jobs_wrap(queue, work);
}

/// Every Swift job is enqueued here. A job costs one comparison (is it the job entry?), any other
/// function a range check more; the one call, to the slow path, is out of the way, so the common
/// cases need no stack frame and end in a tail call to libdispatch.
LAGMON_EXPORT void dispatch_async_f(dispatch_queue_t queue, void *context, dispatch_function_t work) {
    __typeof__(&dispatch_async_f) real = real_async_f;
    dispatch_function_t observed = __atomic_load_n(&observed_entry, __ATOMIC_ACQUIRE);
    if (__builtin_expect(real != NULL, 1)) {
        if (__builtin_expect(work == observed, 1)) {
            real(queue, context, lagmon_swift_jobs_wrapper(queue));
            return;
        }
        if (!lagmon_swift_jobs_unlearnt(work, observed)) {
            real(queue, context, work);
            return;
        }
    }
    work = lagmon_swift_jobs_async_f_slow(queue, work);
    real_async_f(queue, context, work);
}

/// dispatch_after_f's first call, or a function that may be the job entry before it is known.
LAGMON_COLD static dispatch_function_t lagmon_swift_jobs_after_f_slow(dispatch_queue_t queue, dispatch_function_t work) {
    if (real_after_f == NULL) real_after_f = (__typeof__(&dispatch_after_f))lagmon_swift_jobs_real("dispatch_after_f");
    return lagmon_swift_jobs_wrap(queue, work);
}

/// Delayed jobs (`Task.sleep`) are enqueued here, as by dispatch_async_f.
LAGMON_EXPORT void dispatch_after_f(dispatch_time_t when, dispatch_queue_t queue, void *context,
                                    dispatch_function_t work) {
    __typeof__(&dispatch_after_f) real = real_after_f;
    dispatch_function_t observed = __atomic_load_n(&observed_entry, __ATOMIC_ACQUIRE);
    if (__builtin_expect(real != NULL, 1)) {
        if (__builtin_expect(work == observed, 1)) {
            real(when, queue, context, lagmon_swift_jobs_wrapper(queue));
            return;
        }
        if (!lagmon_swift_jobs_unlearnt(work, observed)) {
            real(when, queue, context, work);
            return;
        }
    }
    work = lagmon_swift_jobs_after_f_slow(queue, work);
    real_after_f(when, queue, context, work);
}
