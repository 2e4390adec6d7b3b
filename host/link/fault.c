/* Fault-injecting transport wrapper (fault:OPTIONS/SPEC, see utvm/host.h): flips bits, drops,
 * inserts and duplicates bytes, splits and delays deliveries, and power-cycles the device at a
 * chosen byte of the traffic. Faults come from a seeded PRNG so a run can be repeated. */
#define _DEFAULT_SOURCE

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "link_internal.h"

/* Largest read taken from the inner transport at once. */
#define FAULT_READ_CHUNK 4096u
/* Index of a direction in the rate and counter tables. */
#define DIR_TO_DEVICE 0u
#define DIR_FROM_DEVICE 1u

typedef struct {
  double ber;
  double drop;
  double insert;
  double dup;
} fault_rates_t;


typedef struct {
  utvm_host_transport_t inner;
  fault_rates_t rates[2];
  bool split;
  uint32_t delay_us;
  int64_t reset_at; /* -1: disarmed */
  bool dead;        /* a restart failed: the device is gone */
  uint64_t rng;
  utvm_host_fault_stats_t stats;
  host_buffer_t rx;   /* faulted bytes from the device not yet delivered */
  size_t rx_pos;      /* next byte of rx to deliver */
  host_buffer_t out;  /* faulted bytes of the write in progress */
} fault_transport_t;

/* splitmix64 */
static uint64_t fault_next(fault_transport_t *f) {
  f->rng += 0x9E3779B97F4A7C15ULL;
  uint64_t z = f->rng;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* True with probability p. */
static bool fault_hit(fault_transport_t *f, double p) {
  if (p <= 0.0) {
    return false;
  }
  return ((double)(fault_next(f) >> 11) * (1.0 / 9007199254740992.0)) < p;
}

/* Appends data to b with the faults of direction dir applied; false if out of memory. */
static bool fault_apply(fault_transport_t *f, uint32_t dir, const uint8_t *data, size_t n,
                        host_buffer_t *b) {
  if (!host_buffer_reserve(b, 3u * n, SIZE_MAX)) {
    return false;
  }
  const fault_rates_t *r = &f->rates[dir];
  utvm_host_fault_counts_t *c = (dir == DIR_TO_DEVICE) ? &f->stats.to_device
                                                       : &f->stats.from_device;
  c->bytes += n;
  for (size_t i = 0u; i < n; i++) {
    if (fault_hit(f, r->drop)) {
      c->drops++;
      continue;
    }
    if (fault_hit(f, r->insert)) {
      b->data[b->len] = (uint8_t)(fault_next(f) >> 56);
      b->len++;
      c->inserts++;
    }
    uint8_t byte = data[i];
    if (r->ber > 0.0) {
      for (uint32_t bit = 0u; bit < 8u; bit++) {
        if (fault_hit(f, r->ber)) {
          byte ^= (uint8_t)(1u << bit);
          c->bit_flips++;
        }
      }
    }
    b->data[b->len] = byte;
    b->len++;
    if (fault_hit(f, r->dup)) {
      b->data[b->len] = byte;
      b->len++;
      c->duplicates++;
    }
  }
  return true;
}

/* Bytes of an n-byte transfer to forward before the armed reset; sets *fire if it falls
 * inside. Counts the forwarded bytes as traffic. */
static size_t fault_forwardable(fault_transport_t *f, size_t n, bool *fire) {
  *fire = false;
  size_t keep = n;
  if ((f->reset_at >= 0) && ((f->stats.traffic + n) > (uint64_t)f->reset_at)) {
    keep = (size_t)((uint64_t)f->reset_at - f->stats.traffic);
    *fire = true;
  }
  f->stats.traffic += keep;
  return keep;
}

static void fault_restart(fault_transport_t *f) {
  f->reset_at = -1;
  f->stats.resets++;
  if (utvm_host_transport_restart(&f->inner, NULL, 0u) != UTVM_HOST_OK) {
    f->dead = true;
  }
}

static void fault_delay(const fault_transport_t *f) {
  if (f->delay_us > 0u) {
    struct timespec pause = {(time_t)(f->delay_us / 1000000u),
                             (long)(f->delay_us % 1000000u) * 1000L};
    (void)nanosleep(&pause, NULL);
  }
}

/* Size of the next piece of a delivery of n bytes. */
static size_t fault_piece(fault_transport_t *f, size_t n) {
  if (!f->split || (n <= 1u)) {
    return n;
  }
  size_t piece = 1u + (size_t)(fault_next(f) % (uint64_t)n);
  if (piece < n) {
    f->stats.split_pieces++;
  }
  return piece;
}

static long fault_read(void *ctx, uint8_t *buf, size_t n, int32_t timeout_ms) {
  fault_transport_t *f = (fault_transport_t *)ctx;
  if (f->dead) {
    return -1;
  }
  if (f->rx_pos == f->rx.len) {
    f->rx_pos = 0u;
    f->rx.len = 0u;
    uint8_t chunk[FAULT_READ_CHUNK];
    size_t want = (n < sizeof(chunk)) ? n : sizeof(chunk);
    long got = f->inner.read(f->inner.ctx, chunk, want, timeout_ms);
    if (got <= 0) {
      return got;
    }
    bool fire = false;
    size_t keep = fault_forwardable(f, (size_t)got, &fire);
    if (!fault_apply(f, DIR_FROM_DEVICE, chunk, keep, &f->rx)) {
      return -1;
    }
    if (fire) {
      fault_restart(f);
    }
    if (f->rx.len == 0u) {
      return 0;
    }
  }
  size_t avail = f->rx.len - f->rx_pos;
  size_t take = fault_piece(f, (avail < n) ? avail : n);
  fault_delay(f);
  (void)memcpy(buf, &f->rx.data[f->rx_pos], take);
  f->rx_pos += take;
  return (long)take;
}

static int fault_write(void *ctx, const uint8_t *data, size_t n, int32_t timeout_ms) {
  fault_transport_t *f = (fault_transport_t *)ctx;
  if (f->dead) {
    return -1;
  }
  bool fire = false;
  size_t keep = fault_forwardable(f, n, &fire);
  f->out.len = 0u;
  if (!fault_apply(f, DIR_TO_DEVICE, data, keep, &f->out)) {
    return -1;
  }
  int rc = 0;
  size_t done = 0u;
  while ((rc == 0) && (done < f->out.len)) {
    size_t piece = fault_piece(f, f->out.len - done);
    fault_delay(f);
    rc = f->inner.write(f->inner.ctx, &f->out.data[done], piece, timeout_ms);
    done += piece;
  }
  if (fire) {
    /* The device is power-cycled: what it did not get yet is lost, as on a real link. */
    fault_restart(f);
    rc = 0;
  }
  return rc;
}

static void fault_close(void *ctx) {
  fault_transport_t *f = (fault_transport_t *)ctx;
  f->inner.close(f->inner.ctx);
  host_buffer_free(&f->rx);
  host_buffer_free(&f->out);
  free(f);
}

/* Parses a probability in [0, 1]; false if malformed. */
static bool parse_rate(const char *text, double *out) {
  char *end = NULL;
  double v = strtod(text, &end);
  if ((end == text) || (*end != '\0') || !(v >= 0.0) || (v > 1.0)) {
    return false;
  }
  *out = v;
  return true;
}

static bool parse_u64(const char *text, uint64_t *out) {
  char *end = NULL;
  unsigned long long v = strtoull(text, &end, 0);
  if ((end == text) || (*end != '\0') || (text[0] == '-')) {
    return false;
  }
  *out = (uint64_t)v;
  return true;
}

/* Applies one rate option (ber, drop, insert, dup) to the directions in mask (bit 0: to the
 * device, bit 1: from it). False if key is not a rate. */
static bool set_rate(fault_transport_t *f, const char *key, double v, uint32_t mask) {
  for (uint32_t dir = 0u; dir < 2u; dir++) {
    if ((mask & (1u << dir)) == 0u) {
      continue;
    }
    fault_rates_t *r = &f->rates[dir];
    if (strcmp(key, "ber") == 0) {
      r->ber = v;
    } else if (strcmp(key, "drop") == 0) {
      r->drop = v;
    } else if (strcmp(key, "insert") == 0) {
      r->insert = v;
    } else if (strcmp(key, "dup") == 0) {
      r->dup = v;
    } else {
      return false;
    }
  }
  return true;
}

/* Parses one key=value option; false (with a reason in errbuf) if invalid. */
static bool parse_option(fault_transport_t *f, char *option, char *errbuf, size_t errbuf_size) {
  char *eq = strchr(option, '=');
  if (eq == NULL) {
    host_format(errbuf, errbuf_size, "fault: option '%s' is not key=value", option);
    return false;
  }
  *eq = '\0';
  const char *key = option;
  const char *value = eq + 1;
  uint32_t mask = 3u;
  if (strncmp(key, "tx.", 3u) == 0) {
    mask = 1u;
    key += 3;
  } else if (strncmp(key, "rx.", 3u) == 0) {
    mask = 2u;
    key += 3;
  } else {
    /* Both directions. */
  }
  uint64_t u = 0u;
  double rate = 0.0;
  bool ok = false;
  if ((strcmp(key, "ber") == 0) || (strcmp(key, "drop") == 0) || (strcmp(key, "insert") == 0) ||
      (strcmp(key, "dup") == 0)) {
    ok = parse_rate(value, &rate) && set_rate(f, key, rate, mask);
  } else if (mask != 3u) {
    ok = false;
  } else if (strcmp(key, "seed") == 0) {
    ok = parse_u64(value, &f->rng);
  } else if (strcmp(key, "split") == 0) {
    ok = parse_u64(value, &u) && (u <= 1u);
    f->split = (u == 1u);
  } else if (strcmp(key, "delay_us") == 0) {
    ok = parse_u64(value, &u) && (u <= 10000000u);
    f->delay_us = (uint32_t)u;
  } else if (strcmp(key, "reset_at") == 0) {
    ok = parse_u64(value, &u) && (u <= (uint64_t)INT64_MAX);
    f->reset_at = (int64_t)u;
  } else {
    ok = false;
  }
  if (!ok) {
    host_format(errbuf, errbuf_size, "fault: bad option %s=%s (see fault:OPTIONS in utvm/host.h)",
                option, value);
  }
  return ok;
}

utvm_host_err_t host_fault_open(const char *arg, utvm_host_transport_t *out, char *errbuf,
                                size_t errbuf_size) {
  const char *slash = strchr(arg, '/');
  char options[512];
  size_t options_len = (slash != NULL) ? (size_t)(slash - arg) : 0u;
  if ((slash == NULL) || (slash[1] == '\0') || (options_len >= sizeof(options))) {
    host_format(errbuf, errbuf_size, "fault: expected fault:OPTIONS/SPEC");
    return UTVM_HOST_ERR_ARGUMENT;
  }
  fault_transport_t *f = (fault_transport_t *)calloc(1u, sizeof(*f));
  if (f == NULL) {
    host_format(errbuf, errbuf_size, "out of memory");
    return UTVM_HOST_ERR_NO_MEMORY;
  }
  f->rng = 1u;
  f->reset_at = -1;
  (void)memcpy(options, arg, options_len);
  options[options_len] = '\0';
  char *save = NULL;
  for (char *option = strtok_r(options, ",", &save); option != NULL;
       option = strtok_r(NULL, ",", &save)) {
    if (!parse_option(f, option, errbuf, errbuf_size)) {
      free(f);
      return UTVM_HOST_ERR_ARGUMENT;
    }
  }
  utvm_host_err_t rc = utvm_host_transport_open(slash + 1, &f->inner, errbuf, errbuf_size);
  if (rc != UTVM_HOST_OK) {
    free(f);
    return rc;
  }
  out->read = fault_read;
  out->write = fault_write;
  out->close = fault_close;
  out->ctx = f;
  return UTVM_HOST_OK;
}

bool utvm_host_fault_get_stats(const utvm_host_transport_t *transport,
                               utvm_host_fault_stats_t *stats) {
  if ((transport == NULL) || (transport->read != fault_read)) {
    return false;
  }
  *stats = ((const fault_transport_t *)transport->ctx)->stats;
  return true;
}

uint64_t utvm_host_fault_total(const utvm_host_fault_stats_t *stats) {
  const utvm_host_fault_counts_t *d[2] = {&stats->to_device, &stats->from_device};
  uint64_t total = stats->resets;
  for (size_t i = 0u; i < 2u; i++) {
    total += d[i]->bit_flips + d[i]->drops + d[i]->inserts + d[i]->duplicates;
  }
  return total;
}

bool utvm_host_fault_set_reset_at(const utvm_host_transport_t *transport, int64_t byte) {
  if ((transport == NULL) || (transport->read != fault_read)) {
    return false;
  }
  ((fault_transport_t *)transport->ctx)->reset_at = (byte < 0) ? -1 : byte;
  return true;
}
