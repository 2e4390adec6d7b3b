# Warning policy shared by every target of the project: warnings are errors, on gcc,
# clang and arm-none-eabi-gcc alike.
set(UTVM_WARNING_FLAGS -Wall -Wextra -Wpedantic -Werror -Wshadow -Wstrict-prototypes
    -Wmissing-prototypes -Wcast-align -Wconversion -Wsign-conversion -Wundef)

# utvm_target_warnings(<target>): apply the policy to one target's sources.
function(utvm_target_warnings target)
  target_compile_options(${target} PRIVATE ${UTVM_WARNING_FLAGS})
endfunction()
