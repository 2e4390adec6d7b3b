/*
 * QEMU TCG plugin: executed instructions by class and estimated cycles of a Cortex-M core
 * (bench/qemu/thumb_classes.h), between two marker addresses.
 *
 *   qemu-system-arm ... -plugin PATH/libinsn_plugin.so,core=m4,begin=0x...,end=0x...,out=FILE
 *
 * core   m3, m4 or m55: the cycle model (default m4)
 * begin  address whose execution starts a region (e.g. TVMPlatformTimerStart; Thumb bit
 *        ignored); end: address whose execution ends it. begin == end: each execution
 *        toggles (e.g. utvm_port_ticks read before and after a run). Without begin, the
 *        whole run is one region ended at exit.
 * out    file receiving one line per region as the region ends (flushed at once, so a QEMU
 *        killed by its caller keeps them):
 *          region K instructions N cycles C taken T not_taken U alu N dsp N ... other N
 *        (default: QEMU's log, qemu_plugin_outs)
 * profile file rewritten at the end of every region with the instructions and cycles each
 *        address has executed inside regions so far, one "ADDR INSTRUCTIONS CYCLES" line per
 *        address (hex, decimal, decimal): bench/qemu/profile.py sums them per function
 * A region counts the instructions from the begin marker (included) to the end marker
 * (excluded). A branch's taken or not-taken cost is charged when the next instruction runs.
 *
 * Only the few plugin API functions used are declared here (QEMU 7.2 plugin API version 1).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "thumb_classes.h"

/* --- the QEMU plugin API this plugin uses (include/qemu/qemu-plugin.h, API version 1) --- */
typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
                                            qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb,
                                    void *userdata);
void qemu_plugin_outs(const char *string);
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv);

#define PLUGIN_EXPORT __attribute__((visibility("default")))
extern int qemu_plugin_version;
PLUGIN_EXPORT int qemu_plugin_version = 1;
/* ------------------------------------------------------------------------------------------ */

/* Decoded instructions, one per (address, encoding), kept for the whole run: QEMU may
 * translate the same code again, so a table avoids growing with every translation. */
#define TABLE_BITS 20u
#define TABLE_SIZE (1u << TABLE_BITS)

typedef struct {
  uint32_t vaddr;
  uint32_t encoding;
  uint8_t used;
  thumb_insn_t insn;
  uint64_t executed; /* inside regions */
  uint64_t cycles;   /* inside regions */
} entry_t;

typedef struct {
  uint64_t instructions, cycles, taken, not_taken;
  uint64_t classes[THUMB_CLASS_COUNT];
} counts_t;

static entry_t *table;
static cortex_core_t core = CORE_M4;
static uint32_t begin_addr, end_addr;
static int have_markers;
static FILE *out;
static const char *profile_path;
static int counting;
static unsigned regions;
static counts_t region;
static entry_t *pending;  /* the previous instruction, charged when the next one runs */
static int pending_counted;      /* whether it ran inside a region */
static thumb_class_t before_pending = THUMB_CLASS_COUNT;

static void emit(const char *line) {
  if (out != NULL) {
    (void)fputs(line, out);
    (void)fflush(out);
  } else {
    qemu_plugin_outs(line);
  }
}

/* Rewrites the profile file with every address executed inside regions. */
static void write_profile(void) {
  if (profile_path == NULL) {
    return;
  }
  FILE *f = fopen(profile_path, "w");
  if (f == NULL) {
    fprintf(stderr, "insn_plugin: cannot write %s\n", profile_path);
    return;
  }
  for (uint32_t i = 0; i < TABLE_SIZE; i++) {
    if (table[i].used && table[i].executed != 0u) {
      fprintf(f, "%08" PRIx32 " %" PRIu64 " %" PRIu64 "\n", table[i].vaddr, table[i].executed,
              table[i].cycles);
    }
  }
  (void)fclose(f);
}

static void report_region(void) {
  char line[1024];
  int used = snprintf(line, sizeof(line),
                      "region %u instructions %" PRIu64 " cycles %" PRIu64 " taken %" PRIu64
                      " not_taken %" PRIu64,
                      regions, region.instructions, region.cycles, region.taken,
                      region.not_taken);
  for (unsigned c = 0; c < THUMB_CLASS_COUNT && used > 0 && (size_t)used < sizeof(line); c++) {
    used += snprintf(line + used, sizeof(line) - (size_t)used, " %s %" PRIu64,
                     thumb_class_name((thumb_class_t)c), region.classes[c]);
  }
  if (used > 0 && (size_t)used < sizeof(line) - 1u) {
    line[used] = '\n';
    line[used + 1] = '\0';
  }
  emit(line);
  write_profile();
  regions++;
  memset(&region, 0, sizeof(region));
}

/* Charges the previous instruction now that the next executed address is known. */
static void charge_pending(uint32_t next_vaddr) {
  if (pending == NULL) {
    return;
  }
  int taken = next_vaddr != pending->vaddr + pending->insn.size;
  if (pending_counted) {
    uint32_t cycles = cortex_cycles(core, &pending->insn, before_pending, taken);
    region.cycles += cycles;
    pending->cycles += cycles;
    if (pending->insn.cls == THUMB_BRANCH) {
      if (taken) {
        region.taken++;
      } else {
        region.not_taken++;
      }
    }
  }
  before_pending = pending->insn.cls;
}

static void on_insn(unsigned int vcpu_index, void *userdata) {
  (void)vcpu_index;
  entry_t *e = userdata;
  charge_pending(e->vaddr);
  if (have_markers) {
    if (e->vaddr == begin_addr && e->vaddr == end_addr) {
      if (counting) {
        report_region();
      }
      counting = !counting;
    } else if (e->vaddr == begin_addr) {
      counting = 1;
    } else if (e->vaddr == end_addr && counting) {
      report_region();
      counting = 0;
    }
  }
  if (counting) {
    region.instructions++;
    region.classes[e->insn.cls]++;
    e->executed++;
  }
  pending = e;
  pending_counted = counting;
}

static entry_t *lookup(uint32_t vaddr, uint32_t encoding) {
  uint32_t h = ((vaddr >> 1) * 2654435761u) >> (32u - TABLE_BITS);
  for (uint32_t probe = 0; probe < TABLE_SIZE; probe++) {
    entry_t *e = &table[(h + probe) & (TABLE_SIZE - 1u)];
    if (!e->used) {
      e->used = 1;
      e->vaddr = vaddr;
      e->encoding = encoding;
      return e;
    }
    if (e->vaddr == vaddr && e->encoding == encoding) {
      return e;
    }
  }
  return NULL;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
  (void)id;
  size_t n = qemu_plugin_tb_n_insns(tb);
  for (size_t i = 0; i < n; i++) {
    struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
    const uint8_t *bytes = qemu_plugin_insn_data(insn);
    size_t size = qemu_plugin_insn_size(insn);
    uint8_t word[4] = {0, 0, 0, 0};
    memcpy(word, bytes, size < 4u ? size : 4u);
    uint32_t encoding = (uint32_t)word[0] | ((uint32_t)word[1] << 8) |
                        ((uint32_t)word[2] << 16) | ((uint32_t)word[3] << 24);
    uint32_t vaddr = (uint32_t)qemu_plugin_insn_vaddr(insn);
    entry_t *e = lookup(vaddr, encoding);
    if (e == NULL) {
      fprintf(stderr, "insn_plugin: more than %u distinct instructions\n", TABLE_SIZE);
      abort();
    }
    if (e->insn.size == 0u) {
      thumb_classify(word, size, &e->insn);
    }
    qemu_plugin_register_vcpu_insn_exec_cb(insn, on_insn, QEMU_PLUGIN_CB_NO_REGS, e);
  }
}

static void on_exit_cb(qemu_plugin_id_t id, void *userdata) {
  (void)id;
  (void)userdata;
  if (!have_markers || counting) {
    charge_pending(0u);
    report_region();
  }
  if (out != NULL) {
    (void)fclose(out);
    out = NULL;
  }
}

static int parse_address(const char *text, uint32_t *addr) {
  char *end = NULL;
  unsigned long long v = strtoull(text, &end, 0);
  if (end == text || *end != '\0' || v > 0xFFFFFFFFull) {
    return -1;
  }
  *addr = (uint32_t)v & ~1u;
  return 0;
}

PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                      char **argv) {
  (void)info;
  int have_begin = 0, have_end = 0;
  for (int i = 0; i < argc; i++) {
    const char *arg = argv[i];
    int bad = 0;
    if (strncmp(arg, "core=", 5) == 0) {
      bad = cortex_core_parse(arg + 5, &core);
    } else if (strncmp(arg, "begin=", 6) == 0) {
      bad = parse_address(arg + 6, &begin_addr);
      have_begin = 1;
    } else if (strncmp(arg, "end=", 4) == 0) {
      bad = parse_address(arg + 4, &end_addr);
      have_end = 1;
    } else if (strncmp(arg, "profile=", 8) == 0) {
      profile_path = arg + 8;
    } else if (strncmp(arg, "out=", 4) == 0) {
      out = fopen(arg + 4, "w");
      bad = out == NULL ? -1 : 0;
    } else {
      bad = -1;
    }
    if (bad != 0) {
      fprintf(stderr, "insn_plugin: bad argument '%s' (core=m3|m4|m55, begin=ADDR, end=ADDR, "
                      "out=FILE, profile=FILE)\n", arg);
      return -1;
    }
  }
  if (have_begin != have_end) {
    fprintf(stderr, "insn_plugin: give both begin= and end=, or neither\n");
    return -1;
  }
  have_markers = have_begin;
  counting = !have_markers;
  table = calloc(TABLE_SIZE, sizeof(*table));
  if (table == NULL) {
    fprintf(stderr, "insn_plugin: out of memory\n");
    return -1;
  }
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
  qemu_plugin_register_atexit_cb(id, on_exit_cb, NULL);
  return 0;
}
