# Toolchain file for bare-metal Cortex-M builds with Debian's arm-none-eabi-gcc and
# newlib-nano. The CPU comes from UTVM_CPU_FLAGS (set by each CMake preset).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
# The gcc wrappers index LTO symbols too (UTVM_LTO); for ordinary objects they act as ar/ranlib.
set(CMAKE_AR arm-none-eabi-gcc-ar)
set(CMAKE_RANLIB arm-none-eabi-gcc-ranlib)
set(CMAKE_SIZE arm-none-eabi-size CACHE FILEPATH "size tool")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(UTVM_CPU_FLAGS "-mcpu=cortex-m4 -mfloat-abi=hard -mfpu=fpv4-sp-d16" CACHE STRING
    "CPU and FPU flags for the target core")

# -fno-short-enums: the TVM ABI needs int-sized enums (DLDeviceType inside DLDevice/DLTensor;
# checked by static asserts in tvm/runtime/c_runtime_api.h), but arm-none-eabi defaults to short
# enums. newlib is built with short enums and exchanges no enum with utvm, hence the linker flag
# --no-enum-size-warning.
set(CMAKE_C_FLAGS_INIT "${UTVM_CPU_FLAGS} -mthumb -fno-short-enums -ffunction-sections -fdata-sections -fno-common")
set(CMAKE_ASM_FLAGS_INIT "${UTVM_CPU_FLAGS} -mthumb")
set(CMAKE_C_FLAGS_MINSIZEREL_INIT "-Os -DNDEBUG")
set(CMAKE_EXE_LINKER_FLAGS_INIT "--specs=nano.specs -Wl,--gc-sections -Wl,--no-enum-size-warning")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
