/*
 * utvm-kernel-test firmware: the int8 kernels' fast paths (blocked portable C, on cores with
 * the DSP extension the DSP paths with real SMLAD/SXTAB16, on cores with MVE the MVE paths)
 * compared with their reference loops on random layers (tests/support/kernels_fast_compare.c,
 * the host unit test's cases and more), reported on the UART as one line, then the verdict:
 *
 *   kernels: <conv> conv (<1x1> 1x1, <n> int16 filters, <n> term filters), <dw> depthwise
 *     (<n> as convolutions), <fc> fully connected (<n> term weights), ..., <bytes> bytes,
 *     <n> mismatches, blocked|DSP|MVE paths
 *   kernels PASS|FAIL
 */
#include <stddef.h>
#include <stdint.h>

#include "cortex_m.h"
#include "kernels_fast_compare.h"
#include "port.h"
#include "utvm/kernels.h"

#define KERNEL_TEST_SEED 20261126u
#define KERNEL_TEST_CASES 3000

static void write_line(char *text, size_t len) {
  text[len] = '\n';
  utvm_port_uart_write((const uint8_t *)text, len + 1u);
}

int main(void) {
  char text[320];
  size_t len = 0u;
  utvm_fast_compare_result_t result;
  utvm_port_timer_init();
  utvm_port_uart_init();
  utvm_fast_compare_run(KERNEL_TEST_SEED, KERNEL_TEST_CASES, &result);
  utvm_port_append_str(text, sizeof(text) - 1u, &len, "kernels: ");
  utvm_port_append_dec(text, sizeof(text) - 1u, &len, (uint32_t)result.conv_cases);
  utvm_port_append_str(text, sizeof(text) - 1u, &len, " conv (");
  utvm_port_append_dec(text, sizeof(text) - 1u, &len, (uint32_t)result.conv_pointwise);
  utvm_port_append_str(text, sizeof(text) - 1u, &len, " 1x1, ");
  utvm_port_append_dec(text, sizeof(text) - 1u, &len, (uint32_t)result.conv_dsp_s16);
  utvm_port_append_str(text, sizeof(text) - 1u, &len, " int16 filters, ");
  utvm_port_append_dec(text, sizeof(text) - 1u, &len, (uint32_t)result.conv_mve_terms);
  utvm_port_append_str(text, sizeof(text) - 1u, &len, " term filters), ");
  utvm_port_append_dec(text, sizeof(text) - 1u, &len, (uint32_t)result.depthwise_cases);
  utvm_port_append_str(text, sizeof(text) - 1u, &len, " depthwise (");
  utvm_port_append_dec(text, sizeof(text) - 1u, &len, (uint32_t)result.depthwise_as_conv);
  utvm_port_append_str(text, sizeof(text) - 1u, &len, " as convolutions), ");
  utvm_port_append_dec(text, sizeof(text) - 1u, &len, (uint32_t)result.fc_cases);
  utvm_port_append_str(text, sizeof(text) - 1u, &len, " fully connected (");
  utvm_port_append_dec(text, sizeof(text) - 1u, &len, (uint32_t)result.fc_dsp_s16);
  utvm_port_append_str(text, sizeof(text) - 1u, &len, " int16 weights, ");
  utvm_port_append_dec(text, sizeof(text) - 1u, &len, (uint32_t)result.fc_mve_terms);
  utvm_port_append_str(text, sizeof(text) - 1u, &len, " term weights), ");
  utvm_port_append_dec(text, sizeof(text) - 1u, &len, (uint32_t)result.add_cases);
  utvm_port_append_str(text, sizeof(text) - 1u, &len, " add, ");
  utvm_port_append_dec(text, sizeof(text) - 1u, &len, (uint32_t)result.inplace_cases);
  utvm_port_append_str(text, sizeof(text) - 1u, &len, " in place, ");
  utvm_port_append_dec(text, sizeof(text) - 1u, &len, (uint32_t)result.window_inplace_cases);
  utvm_port_append_str(text, sizeof(text) - 1u, &len, " windows in place, ");
  utvm_port_append_dec(text, sizeof(text) - 1u, &len, (uint32_t)result.stage_cases);
  utvm_port_append_str(text, sizeof(text) - 1u, &len, " stages, ");
  utvm_port_append_dec(text, sizeof(text) - 1u, &len, (uint32_t)result.avg_pool_cases);
  utvm_port_append_str(text, sizeof(text) - 1u, &len, " average pools, ");
  utvm_port_append_dec(text, sizeof(text) - 1u, &len, (uint32_t)result.compared_bytes);
  utvm_port_append_str(text, sizeof(text) - 1u, &len, " bytes, ");
  utvm_port_append_dec(text, sizeof(text) - 1u, &len, (uint32_t)result.mismatches);
  utvm_port_append_str(text, sizeof(text) - 1u, &len, " mismatches, ");
  utvm_port_append_str(text, sizeof(text) - 1u, &len,
                       (result.fast_core == (int32_t)UTVM_KERNELS_MVE)
                           ? "MVE paths"
                           : ((result.fast_core == (int32_t)UTVM_KERNELS_DSP) ? "DSP paths"
                                                                               : "blocked paths"));
  write_line(text, len);
  len = 0u;
  const bool pass = (result.mismatches == 0) && (result.conv_cases == KERNEL_TEST_CASES) &&
                    (result.depthwise_cases == KERNEL_TEST_CASES) &&
                    (result.fc_cases == KERNEL_TEST_CASES) &&
                    (result.conv_mve_terms == KERNEL_TEST_CASES) &&
                    (result.fc_mve_terms == KERNEL_TEST_CASES) &&
                    (result.add_cases == KERNEL_TEST_CASES) &&
                    (result.inplace_cases > (KERNEL_TEST_CASES * 5) / 6) &&
                    (result.window_inplace_cases > (KERNEL_TEST_CASES * 3) / 4) &&
                    (result.stage_cases > (KERNEL_TEST_CASES * 3) / 4) &&
                    (result.avg_pool_cases == KERNEL_TEST_CASES) &&
                    (result.fast_core == (int32_t)UTVM_KERNELS_NATIVE);
  utvm_port_append_str(text, sizeof(text) - 1u, &len, pass ? "kernels PASS" : "kernels FAIL");
  write_line(text, len);
  for (;;) {
    utvm_wfi();
  }
}
