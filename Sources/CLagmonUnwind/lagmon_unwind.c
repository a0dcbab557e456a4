#define _GNU_SOURCE
#include "lagmon_unwind.h"
#include "lagmon_unwind_registers.h"

#include <libunwind.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#define LAGMON_PAGE_SIZE 4096u
#define LAGMON_PAGE_SLOTS 64u

struct lagmon_page {
    uint64_t address;    /* page-aligned target address; 0 = empty */
    uint64_t generation; /* 0: valid until flushed; otherwise valid for that unwind only */
    uint8_t bytes[LAGMON_PAGE_SIZE];
};

/* libunwind's binary search over a remote .eh_frame_hdr table, read through the accessors. It is
   exported but not declared in the public headers; like every unw_* name it is a macro over a
   per-architecture symbol (_U<arch>_dwarf_search_unwind_table), spelled here with the public
   UNW_OBJ macro, as libunwind's own dwarf.h does, so no architecture is named. */
#define dwarf_search_unwind_table UNW_OBJ(dwarf_search_unwind_table)
extern int dwarf_search_unwind_table(unw_addr_space_t space, unw_word_t ip, unw_dyn_info_t *info, unw_proc_info_t *proc,
                                     int need_unwind_info, void *arg);

struct lagmon_unwinder {
    pid_t pid;
    unw_addr_space_t space;
    struct lagmon_unwind_region *regions; /* sorted by start_ip, not overlapping */
    int region_count;
    const struct lagmon_stack_copy *copy;
    uint64_t generation; /* incremented per unwind */
    uint64_t page_reads;
    struct lagmon_page pages[LAGMON_PAGE_SLOTS];
};

/* The unwinder in use, for the accessors (libunwind's `arg` is passed through as given, but
   one place to find it keeps them simple). One unwind runs per thread at a time. */
static __thread struct lagmon_unwinder *current_unwinder;

static const uint8_t *lagmon_page_for(struct lagmon_unwinder *u, uint64_t page) {
    struct lagmon_page *slot = &u->pages[(page / LAGMON_PAGE_SIZE) % LAGMON_PAGE_SLOTS];
    const struct lagmon_stack_copy *copy = u->copy;
    int is_stack = copy && page + LAGMON_PAGE_SIZE > copy->live_stack_start && page < copy->live_stack_end;
    uint64_t generation = is_stack ? u->generation : 0;
    if (slot->address == page && slot->generation == generation) return slot->bytes;
    slot->generation = generation;
    struct iovec local = {slot->bytes, LAGMON_PAGE_SIZE};
    struct iovec remote = {(void *)(uintptr_t)page, LAGMON_PAGE_SIZE};
    u->page_reads++;
    if (process_vm_readv(u->pid, &local, 1, &remote, 1, 0) != (ssize_t)LAGMON_PAGE_SIZE) {
        slot->address = 0;
        return NULL;
    }
    slot->address = page;
    return slot->bytes;
}

static int lagmon_read_word(struct lagmon_unwinder *u, uint64_t address, uint64_t *value) {
    const struct lagmon_stack_copy *copy = u->copy;
    // Written so that no sum can wrap: libunwind asks for addresses near 2^64 on garbage frames.
    if (copy && copy->stack_length >= 8 && address >= copy->stack_start &&
        address - copy->stack_start <= copy->stack_length - 8) {
        memcpy(value, copy->bytes + (address - copy->stack_start), 8);
        return 0;
    }
    uint8_t buffer[8];
    for (unsigned i = 0; i < 8;) {
        uint64_t at = address + i;
        uint64_t page = at & ~(uint64_t)(LAGMON_PAGE_SIZE - 1);
        const uint8_t *bytes = lagmon_page_for(u, page);
        if (bytes == NULL) return -UNW_EINVAL;
        unsigned available = (unsigned)(page + LAGMON_PAGE_SIZE - at);
        unsigned take = available < 8 - i ? available : 8 - i;
        memcpy(buffer + i, bytes + (at - page), take);
        i += take;
    }
    memcpy(value, buffer, 8);
    return 0;
}

static int lagmon_access_mem(unw_addr_space_t space, unw_word_t address, unw_word_t *value, int write, void *arg) {
    (void)space;
    (void)arg;
    if (write || current_unwinder == NULL) return -UNW_EINVAL;
    return lagmon_read_word(current_unwinder, address, (uint64_t *)value);
}

static int lagmon_access_reg(unw_addr_space_t space, unw_regnum_t reg, unw_word_t *value, int write, void *arg) {
    (void)space;
    (void)arg;
    if (write || current_unwinder == NULL || current_unwinder->copy == NULL) return -UNW_EBADREG;
    return lagmon_register_value(&current_unwinder->copy->regs, reg, value);
}

static int lagmon_access_fpreg(unw_addr_space_t space, unw_regnum_t reg, unw_fpreg_t *value, int write, void *arg) {
    (void)space, (void)reg, (void)value, (void)write, (void)arg;
    return -UNW_EBADREG;
}

/* The region holding `ip`: a binary search over the table Swift handed over. */
static const struct lagmon_unwind_region *lagmon_region_for(const struct lagmon_unwinder *u, uint64_t ip) {
    int low = 0, high = u->region_count;
    while (low < high) {
        int middle = low + (high - low) / 2;
        if (u->regions[middle].start_ip <= ip) low = middle + 1;
        else high = middle;
    }
    if (low == 0 || ip >= u->regions[low - 1].end_ip) return NULL;
    return &u->regions[low - 1];
}

/* Replaces libunwind's _UPT_find_proc_info, which opens (and mmaps, and parses unchecked) the file
   /proc/PID/maps names for `ip`: a FIFO there blocked lagmon, a hostile file could crash it, and
   the vDSO, which has no file, got no unwind information at all. Here the .eh_frame_hdr tables
   lagmon located itself are searched in the target's memory, through the accessors. */
static int lagmon_find_proc_info(unw_addr_space_t space, unw_word_t ip, unw_proc_info_t *info, int need_unwind_info,
                                 void *arg) {
    if (current_unwinder == NULL) return -UNW_ENOINFO;
    const struct lagmon_unwind_region *region = lagmon_region_for(current_unwinder, ip);
    if (region == NULL) return -UNW_ENOINFO;
    unw_dyn_info_t table;
    memset(&table, 0, sizeof table);
    table.format = UNW_INFO_FORMAT_REMOTE_TABLE;
    table.start_ip = region->start_ip;
    table.end_ip = region->end_ip;
    table.u.rti.segbase = region->eh_frame_hdr;
    table.u.rti.table_data = region->table_data;
    /* Two 32-bit words (initial location, FDE address) per entry. */
    table.u.rti.table_len = region->table_entries * 8 / sizeof(unw_word_t);
    return dwarf_search_unwind_table(space, ip, &table, info, need_unwind_info, arg);
}

static void lagmon_put_unwind_info(unw_addr_space_t space, unw_proc_info_t *info, void *arg) {
    /* Table-format information is freed by libunwind itself; only dynamic information (which
       lagmon never hands out) would come here. */
    (void)space, (void)info, (void)arg;
}

static int lagmon_get_dyn_info_list_addr(unw_addr_space_t space, unw_word_t *address, void *arg) {
    (void)space, (void)address, (void)arg;
    return -UNW_ENOINFO;
}

static int lagmon_resume(unw_addr_space_t space, unw_cursor_t *cursor, void *arg) {
    (void)space, (void)cursor, (void)arg;
    return -UNW_EINVAL;
}

static int lagmon_get_proc_name(unw_addr_space_t space, unw_word_t address, char *buffer, size_t length,
                                unw_word_t *offset, void *arg) {
    (void)space, (void)address, (void)buffer, (void)length, (void)offset, (void)arg;
    return -UNW_ENOINFO; /* symbols are resolved after sampling, in batch */
}

static unw_accessors_t lagmon_accessors = {
    .find_proc_info = lagmon_find_proc_info,
    .put_unwind_info = lagmon_put_unwind_info,
    .get_dyn_info_list_addr = lagmon_get_dyn_info_list_addr,
    .access_mem = lagmon_access_mem,
    .access_reg = lagmon_access_reg,
    .access_fpreg = lagmon_access_fpreg,
    .resume = lagmon_resume,
    .get_proc_name = lagmon_get_proc_name,
};

lagmon_unwinder *lagmon_unwinder_create(pid_t pid) {
    struct lagmon_unwinder *u = calloc(1, sizeof *u);
    if (u == NULL) return NULL;
    u->pid = pid;
    u->space = unw_create_addr_space(&lagmon_accessors, 0);
    if (u->space == NULL) {
        lagmon_unwinder_destroy(u);
        return NULL;
    }
    unw_set_caching_policy(u->space, UNW_CACHE_GLOBAL);
    return u;
}

void lagmon_unwinder_destroy(lagmon_unwinder *u) {
    if (u == NULL) return;
    if (u->space) unw_destroy_addr_space(u->space);
    free(u->regions);
    free(u);
}

int lagmon_unwinder_set_regions(lagmon_unwinder *u, const struct lagmon_unwind_region *regions, int count) {
    struct lagmon_unwind_region *copy = NULL;
    if (count > 0) {
        copy = malloc((size_t)count * sizeof *copy);
        if (copy == NULL) return -1;
        memcpy(copy, regions, (size_t)count * sizeof *copy);
    }
    free(u->regions);
    u->regions = copy;
    u->region_count = count > 0 ? count : 0;
    /* Unwind information cached for addresses whose image changed must not be used again. */
    unw_flush_cache(u->space, 0, 0);
    return 0;
}

void lagmon_unwinder_forget_pages(lagmon_unwinder *u) {
    for (unsigned i = 0; i < LAGMON_PAGE_SLOTS; i++) u->pages[i].address = 0;
}

uint64_t lagmon_unwinder_page_reads(const lagmon_unwinder *u) { return u->page_reads; }

/* The frame pointer register of the cursor's frame (0 when unknown, or not x86_64). */
static uint64_t lagmon_unwind_frame_pointer(unw_cursor_t *cursor) {
#if defined(__x86_64__)
    unw_word_t fp = 0;
    return unw_get_reg(cursor, UNW_X86_64_RBP, &fp) < 0 ? 0 : fp;
#else
    (void)cursor;
    return 0;
#endif
}

int lagmon_unwind(lagmon_unwinder *u, const struct lagmon_stack_copy *copy, uint64_t *ips, uint64_t *frame_pointers,
                  uint64_t *stack_pointers, int max_frames, enum lagmon_unwind_outcome *outcome) {
    unw_cursor_t cursor;
    int count = 0;
    *outcome = LAGMON_UNWIND_FAILED;
    u->copy = copy;
    u->generation++;
    current_unwinder = u;
    if (unw_init_remote(&cursor, u->space, u) == 0) {
        while (count < max_frames) {
            unw_word_t ip = 0;
            if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0) break;
            if (frame_pointers != NULL) frame_pointers[count] = lagmon_unwind_frame_pointer(&cursor);
            if (stack_pointers != NULL) {
                unw_word_t sp = 0;
                stack_pointers[count] = unw_get_reg(&cursor, UNW_REG_SP, &sp) < 0 ? 0 : sp;
            }
            ips[count++] = ip;
            int step = unw_step(&cursor);
            if (step == 0) {
                *outcome = LAGMON_UNWIND_COMPLETE;
                break;
            }
            if (step < 0) break;
            if (count == max_frames) *outcome = LAGMON_UNWIND_TRUNCATED;
        }
    }
    current_unwinder = NULL;
    u->copy = NULL;
    return count;
}
