/*
 * Replay of vectors/e2e_session.json (TVM's real host against TVM's device) against this
 * server: the host's messages are fed in order, with the device handles and pointers of the
 * recording replaced by the ones this server returned, and every reply is checked to be
 * equivalent to the recorded one (same RPC code, number and type codes of values, same values
 * except handles, pointers, exception texts and timings; copies return the same data).
 *
 * The recorded system library had `answer`, `greet`, `echo` and `add`; this one has
 * test_echo and test_add_f32, so "echo" and "add" are looked up under those names (also as the
 * graph's func_name inside the graph JSON) and the requests that need anything else are skipped,
 * explicitly, in kSkips below. A request that uses a handle issued by a skipped request is
 * skipped as well (counted and checked). The graph and AOT executor steps replay against
 * src/graph and src/aot (test system library: the AOT model "default"); their NDArray replies'
 * data pointers are mapped like handles. One reply differs by design (kDiffers).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "e2e_session_vectors.h"
#include "rpc_harness.h"
#include "utvm/aot.h"
#include "utvm/graph.h"

#define ALL_REQUESTS 0xFFFFFFFFu

/* Requests skipped per step (bit k = the step's k-th host request); markers match by prefix. */
static const struct {
  const char *marker;
  uint32_t requests;
} kSkips[] = {
    /* answer() does not exist here: keep the ModuleGetFunction global lookup only. */
    {"ModuleGetFunction answer + CallFunc answer() (device logs)", ALL_REQUESTS & ~1u},
    {"ModuleGetFunction greet + call (string return)", ALL_REQUESTS},
    /* test_echo does not echo DataType/Device; 0x1234 is not a pointer this server issued. */
    {"echo int/float/str/bytes/DataType/Device/handle/null/bool", (1u << 5) | (1u << 6) | (1u << 7)},
};

/* Requests (bit k = the step's k-th host request) whose reply is expected to be a void CallFunc
 * result where TVM's device raised: set_input works here (it copies the tensor into the input;
 * TVM v0.18's registry cannot reach it, "invalid function index: 0008"). */
static const struct {
  const char *marker;
  uint32_t requests;
} kDiffers[] = {{"graph executor: set_input (expected to fail in v0.18 CRT)", 1u << 1}};

static const struct {
  const char *recorded;
  const char *ours;
} kAliases[] = {{"echo", "test_echo"}, {"add", "test_add_f32"}};

/* Inside longer strings (the graph JSON): the operator's name. */
static const char kRecordedFunc[] = "\"func_name\":\"add\"";
static const char kOurFunc[] = "\"func_name\":\"test_add_f32\"";

#define MAX_MAP 256u
static uint64_t map_from[MAX_MAP];
static uint64_t map_to[MAX_MAP];
static size_t map_len;
static uint64_t dead[MAX_MAP];
static size_t dead_len;

static void map_set(uint64_t from, uint64_t to) {
  for (size_t i = 0u; i < map_len; i++) {
    if (map_from[i] == from) {
      map_to[i] = to;
      return;
    }
  }
  assert_true(map_len < MAX_MAP);
  map_from[map_len] = from;
  map_to[map_len] = to;
  map_len++;
}

static uint64_t subst(uint64_t v) {
  for (size_t i = 0u; i < map_len; i++) {
    if (map_from[i] == v) {
      return map_to[i];
    }
  }
  return v;
}

static bool is_dead(uint64_t v) {
  for (size_t i = 0u; i < dead_len; i++) {
    if (dead[i] == v && v != 0u) {
      return true;
    }
  }
  return false;
}

static uint32_t step_differs(const char *marker) {
  for (size_t i = 0u; i < sizeof(kDiffers) / sizeof(kDiffers[0]); i++) {
    if (strcmp(kDiffers[i].marker, marker) == 0) {
      return kDiffers[i].requests;
    }
  }
  return 0u;
}

/* Appends the Str value s[0..n) with kRecordedFunc replaced by kOurFunc (u64 length first). */
static void put_str_with_func_alias(test_bytes_t *out, const uint8_t *s, size_t n) {
  size_t from = strlen(kRecordedFunc);
  size_t to = strlen(kOurFunc);
  size_t count = 0u;
  for (size_t i = 0u; i + from <= n; i++) {
    if (memcmp(&s[i], kRecordedFunc, from) == 0) {
      count++;
    }
  }
  rpc_put_u64(out, n + count * (to - from));
  for (size_t i = 0u; i < n;) {
    if (i + from <= n && memcmp(&s[i], kRecordedFunc, from) == 0) {
      test_bytes_append(out, (const uint8_t *)kOurFunc, to);
      i += from;
    } else {
      test_bytes_append(out, &s[i], 1u);
      i++;
    }
  }
}

static uint32_t step_skips(const char *marker) {
  for (size_t i = 0u; i < sizeof(kSkips) / sizeof(kSkips[0]); i++) {
    if (strncmp(kSkips[i].marker, marker, strlen(kSkips[i].marker)) == 0) {
      return kSkips[i].requests;
    }
  }
  return 0u;
}

/* Re-encodes the packed sequence at p[0..n) into out with substitutions; false if it uses a
 * dead handle. */
static bool reencode_seq(const uint8_t *p, size_t n, test_bytes_t *out) {
  rpc_value_t v[16];
  int32_t num = 0;
  size_t used = 0u;
  assert_true(rpc_parse_seq(p, n, v, 16, &num, &used));
  test_bytes_append(out, p, 4u + 4u * (size_t)num);
  size_t at = 4u + 4u * (size_t)num;
  for (int32_t i = 0; i < num; i++) {
    const uint8_t *raw = &p[at];
    switch (v[i].tc) {
      case kTVMOpaqueHandle:
      case kTVMModuleHandle:
      case kTVMPackedFuncHandle:
        if (is_dead(v[i].u)) {
          return false;
        }
        rpc_put_u64(out, subst(v[i].u));
        break;
      case kTVMDLTensorHandle: {
        uint64_t data = rpc_get_u64(raw);
        if (is_dead(data)) {
          return false;
        }
        rpc_put_u64(out, subst(data));
        test_bytes_append(out, &raw[8], v[i].len - 8u);
        break;
      }
      case kTVMStr: {
        const char *alias = NULL;
        for (size_t k = 0u; k < sizeof(kAliases) / sizeof(kAliases[0]); k++) {
          if (strlen(kAliases[k].recorded) == v[i].u &&
              memcmp(kAliases[k].recorded, v[i].bytes, (size_t)v[i].u) == 0) {
            alias = kAliases[k].ours;
          }
        }
        if (alias != NULL) {
          rpc_put_u64(out, strlen(alias));
          test_bytes_append(out, (const uint8_t *)alias, strlen(alias));
        } else {
          put_str_with_func_alias(out, v[i].bytes, (size_t)v[i].u);
        }
        break;
      }
      default:
        test_bytes_append(out, raw, v[i].len);
        break;
    }
    at += v[i].len;
  }
  assert_int_equal(at, n);
  return true;
}

/* Builds our request from the recorded one; false if it must be skipped (dead handle). */
static bool translate_request(const uint8_t *rec, size_t n, test_bytes_t *out) {
  assert_true(n >= 12u);
  int32_t code = (int32_t)rpc_get_u32(&rec[8]);
  rpc_packet_begin(out, code);
  if (code == 3) {
    uint64_t h = rpc_get_u64(&rec[12]);
    if (is_dead(h)) {
      return false;
    }
    rpc_put_u64(out, subst(h));
    if (!reencode_seq(&rec[20], n - 20u, out)) {
      return false;
    }
  } else if (code == 6 || code == 7) {
    uint64_t data = rpc_get_u64(&rec[12]);
    if (is_dead(data)) {
      return false;
    }
    rpc_put_u64(out, subst(data));
    test_bytes_append(out, &rec[20], n - 20u);
  } else if (code >= 9) {
    if (!reencode_seq(&rec[12], n - 12u, out)) {
      return false;
    }
  } else {
    test_bytes_append(out, &rec[12], n - 12u);
  }
  rpc_packet_finish(out);
  return true;
}

/* Records the handles of a recorded reply as dead (their request was skipped), unless an
 * earlier replayed request already obtained them (e.g. a repeated global lookup). */
static void kill_handles(const uint8_t *rec, size_t n) {
  rpc_reply_t r;
  rpc_parse_reply(rec, n, &r);
  for (int32_t i = 0; i < r.num; i++) {
    if (r.values[i].tc == kTVMOpaqueHandle && r.values[i].u != 0u && dead_len < MAX_MAP &&
        subst(r.values[i].u) == r.values[i].u) {
      dead[dead_len] = r.values[i].u;
      dead_len++;
    }
  }
}

static void compare_replies(const test_bytes_t *ours, const uint8_t *rec, size_t n,
                            bool timing_values) {
  rpc_reply_t a;
  rpc_reply_t b;
  rpc_parse_reply(ours->data, ours->len, &a);
  rpc_parse_reply(rec, n, &b);
  assert_int_equal(a.code, b.code);
  if (a.code == 8) {
    assert_int_equal(a.data_len, b.data_len);
    assert_memory_equal(a.data, b.data, a.data_len);
    return;
  }
  assert_int_equal(a.num, b.num);
  for (int32_t i = 0; i < a.num; i++) {
    const rpc_value_t *x = &a.values[i];
    const rpc_value_t *y = &b.values[i];
    assert_int_equal(x->tc, y->tc);
    if (a.code == 5) {
      continue; /* exception texts differ between implementations */
    }
    if (x->tc == kTVMOpaqueHandle) {
      assert_int_equal(x->u == 0u, y->u == 0u);
      if (y->u != 0u) {
        map_set(y->u, x->u);
      }
    } else if (x->tc == kTVMDLTensorHandle) {
      /* NDArray result: the data pointer is this device's; the rest must be equal. */
      assert_int_equal(x->len, y->len);
      assert_memory_equal(&x->bytes[8], &y->bytes[8], x->len - 8u);
      map_set(rpc_get_u64(y->bytes), rpc_get_u64(x->bytes));
    } else if (x->tc == kTVMStr || x->tc == kTVMBytes) {
      assert_int_equal(x->u, y->u);
      if (!timing_values) {
        assert_memory_equal(x->bytes, y->bytes, (size_t)x->u);
      }
    } else {
      assert_int_equal(x->u, y->u);
    }
  }
}

/* Index of the next device->host Normal message after event i (Logs are skipped). */
static size_t next_device_normal(size_t i) {
  for (size_t k = i + 1u; k < E2E_SESSION_EVENTS_COUNT; k++) {
    const e2e_event_t *e = &e2e_session_events[k];
    if (strcmp(e->dir, "H>D") == 0) {
      return SIZE_MAX;
    }
    if (strcmp(e->dir, "D>H") == 0 && strcmp(e->type, "Normal") == 0) {
      return k;
    }
  }
  return SIZE_MAX;
}

static void test_replay_e2e_session(void **state) {
  (void)state;
  rpc_h_setup(0u);
  utvm_rpc_server_enable_ndarrays(rpc_h_server());
  assert_int_equal(utvm_graph_register_global(), UTVM_OK);
  assert_int_equal(utvm_aot_register_global(), UTVM_OK);
  map_len = 0u;
  dead_len = 0u;
  static const uint64_t tick[1] = {1000u};
  fake_timer_script(tick, 1u);
  test_bytes_t request;
  test_bytes_t reply;
  test_bytes_t wire;
  test_bytes_init(&request);
  test_bytes_init(&reply);
  test_bytes_init(&wire);
  const char *marker = "";
  uint32_t index_in_step = 0u;
  size_t replayed = 0u;
  size_t skipped = 0u;
  size_t skipped_dead = 0u;
  size_t steps_replayed = 0u;
  size_t differing = 0u;
  bool step_counted = false;
  bool handshake_done = false;
  for (size_t i = 0u; i < E2E_SESSION_EVENTS_COUNT; i++) {
    const e2e_event_t *e = &e2e_session_events[i];
    if (e->name[0] != '\0') {
      marker = e->name;
      index_in_step = 0u;
      step_counted = false;
      continue;
    }
    if (strcmp(e->dir, "H>D") != 0) {
      continue;
    }
    assert_true(e->payload_len >= 3u);
    if (strcmp(e->type, "Normal") != 0) {
      /* Handshake: the host's Terminate + Init re-key the session (our device nonce). */
      test_encode_packet(&wire, e->payload, e->payload_len, TEST_NO_NOP, 0u);
      rpc_h_feed(wire.data, wire.len, 0u);
      test_bytes_clear(&wire);
      if (strcmp(e->type, "StartSessionInit") == 0) {
        test_bytes_t out;
        test_bytes_init(&out);
        rpc_h_take_output(&out);
        /* One StartSessionReply: the host's nonce, a fresh non-zero device nonce, version 1. */
        test_bytes_t payload;
        test_bytes_init(&payload);
        size_t lens[2];
        assert_int_equal(test_decode_packets(out.data, out.len, &payload, lens, 2u), 1u);
        assert_int_equal(lens[0], 4u);
        assert_int_equal(payload.data[0], e->payload[0]);
        assert_true(payload.data[1] != 0u);
        assert_int_equal(payload.data[2], UTVM_MSG_START_SESSION_REPLY);
        assert_int_equal(payload.data[3], UTVM_SESSION_VERSION);
        test_bytes_t frame;
        test_bytes_init(&frame);
        test_encode_packet(&frame, payload.data, 4u, TEST_NO_NOP, 0u);
        assert_true(test_bytes_equal(&out, frame.data, frame.len));
        rpc_h_set_nonces(e->payload[0], payload.data[1]);
        test_bytes_free(&payload);
        handshake_done = true;
        test_bytes_free(&frame);
        test_bytes_free(&out);
      }
      continue;
    }
    assert_true(handshake_done);
    const uint8_t *rec = &e->payload[3];
    size_t rec_len = e->payload_len - 3u;
    size_t r = next_device_normal(i);
    bool skip = (index_in_step < 32u) && ((step_skips(marker) >> index_in_step) & 1u) != 0u;
    bool differs = (index_in_step < 32u) && ((step_differs(marker) >> index_in_step) & 1u) != 0u;
    index_in_step++;
    bool translated = !skip && translate_request(rec, rec_len, &request);
    if (!translated) {
      if (!skip) {
        (void)fprintf(stderr, "step \"%s\": request %u uses a handle of a skipped request\n",
                      marker, index_in_step - 1u);
        skipped_dead++;
      }
      skipped++;
      if (r != SIZE_MAX) {
        kill_handles(&e2e_session_events[r].payload[3], e2e_session_events[r].payload_len - 3u);
      }
      continue;
    }
    rpc_h_send(request.data, request.len, 0u);
    size_t count = rpc_h_replies(&reply, 1u);
    if (r == SIZE_MAX) {
      assert_int_equal(count, 0u); /* Shutdown */
    } else {
      if (count != 1u) {
        (void)fprintf(stderr, "step \"%s\": %zu replies\n", marker, count);
      }
      assert_int_equal(count, 1u);
      if (differs) {
        (void)rpc_expect_call_result(&reply, kTVMNullptr);
        differing++;
      } else {
        compare_replies(&reply, &e2e_session_events[r].payload[3],
                        e2e_session_events[r].payload_len - 3u,
                        strstr(marker, "time evaluator") != NULL);
      }
    }
    replayed++;
    if (!step_counted) {
      steps_replayed++;
      step_counted = true;
    }
  }
  (void)fprintf(stderr, "replayed %zu host requests in %zu steps; skipped %zu (%zu for handles "
                "of skipped requests)\n", replayed, steps_replayed, skipped, skipped_dead);
  /* Everything but answer(), greet() and three echo types is replayed, the graph and AOT
   * executor steps included (56 of their requests); one reply differs by design. */
  assert_int_equal(replayed, 113u);
  assert_int_equal(skipped_dead, 1u);
  assert_int_equal(differing, 1u);
  test_bytes_free(&request);
  test_bytes_free(&reply);
  test_bytes_free(&wire);
  rpc_h_teardown();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_replay_e2e_session),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
