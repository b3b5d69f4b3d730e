# Runs a command; fails unless it exits 0 and its output matches every
# regular expression given.
#   cmake -DCOMMAND=prog@@arg@@arg [-DMATCH=re1@@re2] -P expect_output.cmake
string(REPLACE "@@" ";" command "${COMMAND}")
execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "expected exit status 0, got '${rc}'")
endif()
if(DEFINED MATCH)
  string(REPLACE "@@" ";" patterns "${MATCH}")
  foreach(re IN LISTS patterns)
    if(NOT "${out}${err}" MATCHES "${re}")
      message(FATAL_ERROR "the output does not match: ${re}")
    endif()
  endforeach()
endif()
