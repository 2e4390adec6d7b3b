/* utvm info: the session, packet limits, the device's functions (globals and system library),
 * tensor memory and link statistics. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "utvm/rpc_codes.h"
#if defined(UTVM_WITH_ACL)
#include "utvm/acl.h"
#endif

/* utvm info --help. */
static const char info_help[] =
    "usage: utvm [--connect T] [--json] info\n\n"
    "Prints the session, packet limits, the device's global functions and the functions\n"
    "of its system library (when the device lists them: utvm.crt.FunctionName), its\n"
    "kernels (utvm_k_kernels: the core's fast paths and the constant layouts they read,\n"
    "which utvm run and compile --cpu lay constants out for), tensor memory and link\n"
    "statistics. A utvm built with the Arm Compute Library (preset aarch64-linux-acl)\n"
    "first names it: utvm run on this host gives ACL the float32 layers it takes.\n";

/* Most names listed per function table. */
#define CLI_MAX_LISTED_FUNCTIONS 256

/* Names of the device's function tables through utvm.crt.FunctionName (table 0: system
 * library, 1: globals), malloc'd into names[table] with counts[table]; listed is false for a
 * device without that function (TVM's). */
typedef struct {
  bool listed;
  char *names[2][CLI_MAX_LISTED_FUNCTIONS];
  size_t counts[2];
} function_lists_t;

static void function_lists_free(function_lists_t *lists) {
  for (size_t t = 0u; t < 2u; t++) {
    for (size_t i = 0u; i < lists->counts[t]; i++) {
      free(lists->names[t][i]);
    }
    lists->counts[t] = 0u;
  }
}

static utvm_host_err_t list_functions(utvm_host_t *host, function_lists_t *lists) {
  (void)memset(lists, 0, sizeof(*lists));
  uint64_t f = 0u;
  utvm_host_err_t rc = utvm_host_get_global(host, "utvm.crt.FunctionName", &f);
  if ((rc != UTVM_HOST_OK) || (f == 0u)) {
    return rc;
  }
  lists->listed = true;
  for (size_t t = 0u; t < 2u; t++) {
    for (size_t i = 0u; i < CLI_MAX_LISTED_FUNCTIONS; i++) {
      utvm_host_value_t args[2];
      (void)memset(args, 0, sizeof(args));
      args[0].type_code = UTVM_TC_INT;
      args[0].v.i = (int64_t)t;
      args[1].type_code = UTVM_TC_INT;
      args[1].v.i = (int64_t)i;
      utvm_host_value_t ret;
      rc = utvm_host_call(host, f, args, 2u, &ret);
      if (rc != UTVM_HOST_OK) {
        return rc;
      }
      if (ret.type_code != UTVM_TC_STR) {
        break;
      }
      char *name = (char *)malloc(ret.v.bytes.len + 1u);
      if (name == NULL) {
        return UTVM_HOST_ERR_NO_MEMORY;
      }
      (void)memcpy(name, ret.v.bytes.data, ret.v.bytes.len);
      name[ret.v.bytes.len] = '\0';
      lists->names[t][lists->counts[t]++] = name;
    }
  }
  return UTVM_HOST_OK;
}

static int info_on_device(const cli_options_t *o, utvm_host_t *host) {
  static const char *const globals[] = {
      "runtime.SystemLib", "tvm.rpc.server.ModuleGetFunction",
      "tvm.rpc.server.GetCRTMaxPacketSize", "utvm.rpc.server.GetMaxTransferSize",
      "runtime.RPCTimeEvaluator", "tvm.aot_executor.create", "tvm.graph_executor.create"};
  bool present[sizeof(globals) / sizeof(globals[0])];
  int64_t sizes[2] = {0, 0};
  for (size_t i = 0u; i < sizeof(globals) / sizeof(globals[0]); i++) {
    uint64_t handle = 0u;
    utvm_host_err_t rc = utvm_host_get_global(host, globals[i], &handle);
    if (rc != UTVM_HOST_OK) {
      return cli_report(o, rc, utvm_host_last_error(host));
    }
    present[i] = (handle != 0u);
    if (present[i] && ((i == 2u) || (i == 3u))) {
      utvm_host_value_t ret;
      rc = utvm_host_call(host, handle, NULL, 0u, &ret);
      if (rc != UTVM_HOST_OK) {
        return cli_report(o, rc, utvm_host_last_error(host));
      }
      sizes[i - 2u] = ret.v.i;
    }
  }
  uint64_t max_packet = 0u;
  utvm_host_err_t rc = utvm_host_max_packet(host, &max_packet);
  if (rc != UTVM_HOST_OK) {
    return cli_report(o, rc, utvm_host_last_error(host));
  }
  /* RPC protocol: InitServer succeeds only if the device speaks this host's version. */
  rc = utvm_host_init_server(host);
  if ((rc != UTVM_HOST_OK) && (rc != UTVM_HOST_ERR_DEVICE_EXCEPTION)) {
    return cli_report(o, rc, utvm_host_last_error(host));
  }
  bool protocol_ok = (rc == UTVM_HOST_OK);
  /* Device attributes of cpu(0) the device answers (kExist, total and free tensor memory). */
  static const int32_t attr_kinds[3] = {0, 14, 15};
  static const char *const attr_names[3] = {"exist", "total_memory", "available_memory"};
  int64_t attrs[3] = {-1, -1, -1};
  const utvm_host_device_t cpu0 = {1, 0};
  for (size_t i = 0u; i < 3u; i++) {
    utvm_host_value_t v;
    rc = utvm_host_dev_get_attr(host, cpu0, attr_kinds[i], &v);
    if (rc == UTVM_HOST_OK) {
      attrs[i] = (v.type_code == UTVM_TC_INT) ? v.v.i : -1;
    } else if (rc != UTVM_HOST_ERR_DEVICE_EXCEPTION) {
      return cli_report(o, rc, utvm_host_last_error(host));
    }
  }
  function_lists_t lists;
  rc = list_functions(host, &lists);
  if (rc != UTVM_HOST_OK) {
    function_lists_free(&lists);
    return cli_report(o, rc, utvm_host_last_error(host));
  }
  int64_t kernels = 0;
  const bool kernels_known = cli_device_kernels(host, &kernels);
  static const char *const core_names[3] = {"portable", "dsp", "mve"};
  const int64_t core = UTVM_KERNELS_INFO_CORE(kernels);
  const char *core_name = ((core >= 0) && (core <= 2)) ? core_names[core] : "unknown";
  const bool dsp_s16 = (UTVM_KERNELS_INFO_LAYOUTS(kernels) & (1 << UTVM_FILTER_DSP_S16)) != 0;
  const bool mve_terms =
      (UTVM_KERNELS_INFO_LAYOUTS(kernels) & (1 << UTVM_FILTER_MVE_TERMS)) != 0;
  static const char *const table_names[2] = {"system_lib", "globals"};
  utvm_host_stats_t s;
  utvm_host_get_stats(host, &s);
  if (o->json) {
    (void)printf("{\"ok\": true, \"rpc_protocol\": \"%s\", \"protocol_accepted\": %s, "
                 "\"attributes\": {", UTVM_RPC_PROTOCOL_VERSION, protocol_ok ? "true" : "false");
    const char *separator = "";
    for (size_t i = 0u; i < 3u; i++) {
      if (attrs[i] >= 0) {
        (void)printf("%s\"%s\": %lld", separator, attr_names[i], (long long)attrs[i]);
        separator = ", ";
      }
    }
    (void)printf("}, \"transport\": ");
    cli_json_string(stdout, o->connect, strlen(o->connect));
    (void)printf(", \"session_id\": %u, \"crt_max_packet_size\": %lld, "
                 "\"max_transfer_size\": %lld, \"copy_packet_size\": %llu, \"globals\": {",
                 (unsigned)s.session_id, (long long)sizes[0], (long long)sizes[1],
                 (unsigned long long)max_packet);
    for (size_t i = 0u; i < sizeof(globals) / sizeof(globals[0]); i++) {
      (void)printf("%s\"%s\": %s", (i > 0u) ? ", " : "", globals[i],
                   present[i] ? "true" : "false");
    }
    (void)printf("}, \"kernels\": ");
    if (kernels_known) {
      (void)printf("{\"core\": \"%s\", \"filter_layouts\": [\"plain\"%s%s], \"float32\": %s}",
                   core_name, dsp_s16 ? ", \"dsp_s16\"" : "", mve_terms ? ", \"mve_terms\"" : "",
                   UTVM_KERNELS_INFO_NO_F32(kernels) ? "false" : "true");
    } else {
      (void)printf("null");
    }
    (void)printf(", \"functions\": ");
    if (lists.listed) {
      for (size_t t = 0u; t < 2u; t++) {
        (void)printf("%s\"%s\": [", (t == 0u) ? "{" : ", ", table_names[t]);
        for (size_t i = 0u; i < lists.counts[t]; i++) {
          (void)printf("%s", (i > 0u) ? ", " : "");
          cli_json_string(stdout, lists.names[t][i], strlen(lists.names[t][i]));
        }
        (void)printf("]");
      }
      (void)printf("}");
    } else {
      (void)printf("null");
    }
    (void)printf(", \"stats\": {\"bytes_sent\": %llu, \"bytes_received\": %llu, "
                 "\"requests\": %u, \"exceptions\": %u, \"logs\": %u, "
                 "\"handshake_attempts\": %u, \"packets_ok\": %u, \"crc_errors\": %u, "
                 "\"short_packets\": %u, \"invalid_escapes\": %u, \"dropped_wrong_sid\": %u}}\n",
                 (unsigned long long)s.bytes_sent, (unsigned long long)s.bytes_received,
                 s.requests, s.exceptions, s.logs, s.handshake_attempts, s.framing.packets_ok,
                 s.framing.crc_errors, s.framing.short_packets, s.framing.invalid_escapes,
                 s.session.dropped_wrong_sid);
  } else {
    (void)printf("transport          %s\n", o->connect);
    (void)printf("rpc protocol       %s (%s)\n", UTVM_RPC_PROTOCOL_VERSION,
                 protocol_ok ? "InitServer accepted" : "InitServer refused by the device");
    static const char *const attr_labels[3] = {"cpu(0) exists", "tensor memory", "free memory"};
    for (size_t i = 0u; i < 3u; i++) {
      if (attrs[i] >= 0) {
        (void)printf("%-18s %lld%s\n", attr_labels[i], (long long)attrs[i],
                     (i == 0u) ? "" : " bytes");
      }
    }
    (void)printf("session id         0x%04x (%u handshake attempt(s))\n", (unsigned)s.session_id,
                 s.handshake_attempts);
    (void)printf("crt max packet     %lld bytes\n", (long long)sizes[0]);
    (void)printf("max transfer       %lld bytes%s\n", (long long)sizes[1],
                 present[3] ? "" : " (not offered: TVM-compatible chunking)");
    (void)printf("copy packet used   %llu bytes\n", (unsigned long long)max_packet);
    if (kernels_known) {
      (void)printf("kernels            %s (filter layouts: plain%s%s; utvm run lays constants "
                   "out for them)\n", core_name, dsp_s16 ? ", dsp_s16" : "",
                   mve_terms ? ", mve_terms" : "");
      (void)printf("float32            %s\n", UTVM_KERNELS_INFO_NO_F32(kernels)
                                                  ? "no (built without: a core without an FPU)"
                                                  : "yes");
    } else {
      (void)printf("kernels            not told (no utvm_k_kernels: TFLite's layouts)\n");
    }
    (void)printf("globals:\n");
    for (size_t i = 0u; i < sizeof(globals) / sizeof(globals[0]); i++) {
      (void)printf("  %-36s %s\n", globals[i], present[i] ? "yes" : "no");
    }
    if (lists.listed) {
      static const char *const table_labels[2] = {"system library functions", "all globals"};
      for (size_t t = 0u; t < 2u; t++) {
        (void)printf("%s (%zu):\n", table_labels[t], lists.counts[t]);
        for (size_t i = 0u; i < lists.counts[t]; i++) {
          (void)printf("  %s\n", lists.names[t][i]);
        }
      }
    } else {
      (void)printf("functions: not listed by this device (no utvm.crt.FunctionName)\n");
    }
    (void)printf("link: %llu bytes sent, %llu received, %u requests, %u exceptions, %u logs\n",
                 (unsigned long long)s.bytes_sent, (unsigned long long)s.bytes_received,
                 s.requests, s.exceptions, s.logs);
    (void)printf("framing: %u packets ok, %u CRC errors, %u short packets, %u invalid escapes\n",
                 s.framing.packets_ok, s.framing.crc_errors, s.framing.short_packets,
                 s.framing.invalid_escapes);
  }
  function_lists_free(&lists);
  return CLI_EXIT_OK;
}

static int info_main(const cli_options_t *o) {
#if defined(UTVM_WITH_ACL)
  if (!o->json) {
    (void)printf("host backend       ACL %s (Arm Compute Library: utvm run offloads float32 "
                 "layers; --no-acl)\n", utvm_acl_version());
  }
#endif
  return cli_on_device(o, false, cli_log_to_stderr, info_on_device);
}

const cli_command_t cli_info_command = {"info", info_help, info_main};
