/* The case list of utvm-model-test-ad.elf (model_test_main.c with UTVM_MODEL_TEST_CASES): the AD
 * autoencoder alone, for boards whose flash does not hold it beside the other models. */
EMBED(ad_model, "mlperf_tiny_ad_autoencoder_int8.tflite");
EMBED(ad_in, "refdata/mlperf_tiny/ad_window0_int8.bin");
EMBED(ad_out, "refdata/mlperf_tiny/ad_window0_int8_tflm.out0.bin");

UTVM_OP_RESOLVER(kAdOps, &utvm_op_fully_connected);
static const utvm_op_resolver_t *const kResolver = &kAdOps;

static const model_case_t kCases[] = {
    CASE("ad_autoencoder", ad_model, ad_in, ad_out),
};
