# Compiler set-up shared by every Motus target: ccache, warnings, sanitizers.
# Targets opt in with target_link_libraries(<t> PRIVATE motus::build_flags).

find_program(MOTUS_CCACHE ccache)
if(MOTUS_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
    set(CMAKE_CXX_COMPILER_LAUNCHER ${MOTUS_CCACHE})
    message(STATUS "Motus: compiling through ccache (${MOTUS_CCACHE})")
endif()

add_library(motus_build_flags INTERFACE)
add_library(motus::build_flags ALIAS motus_build_flags)

if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(motus_build_flags INTERFACE -Wall -Wextra -Wpedantic)
    # GCC 12 at -O2/-O3 reports -Wrestrict false positives inside std::string's own code
    # (GCC bug 105651, fixed in 13) for ordinary string concatenation.
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
        target_compile_options(motus_build_flags INTERFACE -Wno-restrict)
    endif()
    if(MOTUS_WERROR)
        target_compile_options(motus_build_flags INTERFACE -Werror)
    endif()
endif()

# Sanitizers apply to every target of the build (including third-party code compiled here),
# so set them globally rather than per target.
if(MOTUS_SANITIZE)
    if(NOT MOTUS_SANITIZE MATCHES "^(address,undefined|undefined,address|address|undefined|thread)$")
        message(FATAL_ERROR "MOTUS_SANITIZE='${MOTUS_SANITIZE}': expected 'address,undefined' or 'thread'")
    endif()
    message(STATUS "Motus: sanitizers ${MOTUS_SANITIZE}")
    add_compile_options(-fsanitize=${MOTUS_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
    add_link_options(-fsanitize=${MOTUS_SANITIZE})
endif()

# Fuzzing builds: every target is instrumented for libFuzzer, AddressSanitizer and UBSan; the
# fuzzer executables add the libFuzzer driver (-fsanitize=fuzzer) themselves. Undefined
# behaviour stops the fuzzer like a crash (UBSan would otherwise print it and go on).
if(MOTUS_FUZZ)
    if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
        message(FATAL_ERROR "MOTUS_FUZZ needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++")
    endif()
    # MOTUS_FUZZ_ADDRESS=OFF leaves AddressSanitizer out: a tree for long runs of the targets
    # whose libraries allocate large blocks per input (AddressSanitizer maps fresh pages for
    # every block over 128 KB; docs/performance.md, "Fuzzing"). Their findings and their corpus
    # are then run through the AddressSanitizer build.
    if(MOTUS_FUZZ_ADDRESS)
        set(motus_fuzz_sanitizers address,undefined)
    else()
        set(motus_fuzz_sanitizers undefined)
    endif()
    add_compile_options(-fsanitize=fuzzer-no-link,${motus_fuzz_sanitizers} -fno-sanitize-recover=all
                        -fno-omit-frame-pointer)
    add_link_options(-fsanitize=${motus_fuzz_sanitizers})
endif()
