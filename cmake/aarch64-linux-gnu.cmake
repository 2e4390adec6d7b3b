# Toolchain file for the aarch64 Linux port (the POSIX server, the host tool and the tests) with
# Debian's gcc-aarch64-linux-gnu. The C library is libc6-dev-arm64-cross in
# /usr/aarch64-linux-gnu; other arm64 libraries come from Debian's multiarch packages
# (dpkg --add-architecture arm64; libcmocka-dev:arm64, ...), whose headers are in /usr/include
# (the cross compiler searches it after its own) and whose libraries are in
# /usr/lib/aarch64-linux-gnu. Executables run under qemu-user (qemu-aarch64), so ctest runs the
# test programs as on an aarch64 machine.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(UTVM_AARCH64_SYSROOT /usr/aarch64-linux-gnu)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_AR aarch64-linux-gnu-gcc-ar)
set(CMAKE_RANLIB aarch64-linux-gnu-gcc-ranlib)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# The run-time loader and C library, one glibc build, never a mix: Debian's arm64 system
# (qemu-aarch64 -L /: /lib/ld-linux-aarch64.so.1 and /lib/aarch64-linux-gnu) when multiarch has
# libc6:arm64 (every :arm64 library package brings it), else the cross C library's
# (-L /usr/aarch64-linux-gnu). With -L /usr/aarch64-linux-gnu and libc6:arm64 installed, the
# cross loader takes libc.so.6 from /lib/aarch64-linux-gnu (the ld.so cache lists it), a
# different build of glibc, and a forked child hangs before it can exec.
find_program(UTVM_QEMU_AARCH64 qemu-aarch64)
if(NOT UTVM_QEMU_AARCH64)
  message(FATAL_ERROR "qemu-aarch64 not found: install Debian's qemu-user")
endif()
if(EXISTS /lib/aarch64-linux-gnu/libc.so.6 AND EXISTS /lib/ld-linux-aarch64.so.1)
  set(UTVM_AARCH64_RUNTIME /)
else()
  set(UTVM_AARCH64_RUNTIME ${UTVM_AARCH64_SYSROOT})
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR ${UTVM_QEMU_AARCH64} -L ${UTVM_AARCH64_RUNTIME})

# Programs are the build machine's; libraries and headers the cross C library's or multiarch's
# (root / with CMAKE_LIBRARY_ARCHITECTURE: /usr/lib/aarch64-linux-gnu and /usr/include, never
# the build machine's /usr/lib/x86_64-linux-gnu).
set(CMAKE_FIND_ROOT_PATH ${UTVM_AARCH64_SYSROOT} /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
