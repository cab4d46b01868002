# Checks which shared libraries an executable loads (ldd):
#   -DBINARY=<exe> [-DFORBID=<regex>] [-DREQUIRE=<regex>] -P check_linked_libraries.cmake
# Used to prove that motus-cli (engine only) loads no Qt while the GUI does, so the check
# itself is known to see Qt when it is there.
execute_process(COMMAND ldd ${BINARY} RESULT_VARIABLE rc OUTPUT_VARIABLE libs ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ldd ${BINARY} failed: ${err}")
endif()
if(DEFINED FORBID AND libs MATCHES "${FORBID}")
    message(FATAL_ERROR "${BINARY} loads a forbidden library (${CMAKE_MATCH_0}):\n${libs}")
endif()
if(DEFINED REQUIRE AND NOT libs MATCHES "${REQUIRE}")
    message(FATAL_ERROR "${BINARY} does not load a library matching '${REQUIRE}':\n${libs}")
endif()
message(STATUS "${BINARY}:\n${libs}")
