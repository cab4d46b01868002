# Runs a program and checks its exit status, stdout and stderr separately (CTest's own
# PASS_REGULAR_EXPRESSION ignores the exit status and mixes the two streams).
#   cmake -DPROGRAM=<exe> -DARGS="a|b|c" -DEXIT=<n|nonzero> [-DSTDOUT=<regex>]
#         [-DSTDERR=<regex>] [-DSTDERR_EMPTY=ON] [-DUNSET_DISPLAY=ON] -P expect_command.cmake
string(REPLACE "|" ";" args "${ARGS}")
set(command ${PROGRAM} ${args})
if(UNSET_DISPLAY)
    set(command ${CMAKE_COMMAND} -E env --unset=DISPLAY --unset=WAYLAND_DISPLAY ${command})
endif()
execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                TIMEOUT 60)
message(STATUS "exit status: ${rc}\n--- stdout ---\n${out}--- stderr ---\n${err}--------------")

if(EXIT STREQUAL "nonzero")
    if(rc EQUAL 0 OR NOT rc MATCHES "^[0-9]+$")
        message(FATAL_ERROR "expected a non-zero exit status, got '${rc}'")
    endif()
elseif(NOT rc STREQUAL "${EXIT}")
    message(FATAL_ERROR "expected exit status ${EXIT}, got '${rc}'")
endif()
if(DEFINED STDOUT AND NOT out MATCHES "${STDOUT}")
    message(FATAL_ERROR "stdout does not match '${STDOUT}'")
endif()
if(DEFINED STDERR AND NOT err MATCHES "${STDERR}")
    message(FATAL_ERROR "stderr does not match '${STDERR}'")
endif()
if(STDERR_EMPTY AND NOT err STREQUAL "")
    message(FATAL_ERROR "expected nothing on stderr")
endif()
