# Runs one command and judges its exit status and output (ctest alone can
# check either, not both).
#
#   cmake -DCOMMAND=a@@b@@c      the command, arguments separated by @@
#         -DEXPECT_EXIT=0|nonzero|<status>
#         [-DMATCH=re1@@re2]      regular expressions the output must match
#         [-DNO_MATCH=re1@@re2]   regular expressions it must not match
#         [-DJUNIT=file -DJUNIT_MATCH=re1@@re2]  a file the command writes, and what it must contain
#         [-DMAX_BYTES=n]         the output (stdout and stderr) is at most n bytes
#         [-DJSON=1]              the output is one JSON document whose first keys are
#                                 "schema": "bp-check/2", "schema_version": 2; for a check run (not --probe),
#                                 with summary.failed == 0 and at least one group
#         -P run_check.cmake
string(REPLACE "@@" ";" command "${COMMAND}")
if(DEFINED JUNIT)
  file(REMOVE "${JUNIT}")
endif()
execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
string(LENGTH "${all}" all_bytes)
if(DEFINED MAX_BYTES AND all_bytes GREATER MAX_BYTES)
  string(SUBSTRING "${all}" 0 4000 head)
  message(FATAL_ERROR "the output is ${all_bytes} bytes, more than ${MAX_BYTES}; it begins:\n${head}")
endif()
message("${all}")
if(EXPECT_EXIT STREQUAL "0" AND NOT rc STREQUAL "0")
  message(FATAL_ERROR "expected exit status 0, got ${rc}")
elseif(EXPECT_EXIT STREQUAL "nonzero" AND (rc STREQUAL "0" OR NOT rc MATCHES "^[0-9]+$"))
  message(FATAL_ERROR "expected a non-zero exit status, got '${rc}'")
elseif(EXPECT_EXIT MATCHES "^[1-9][0-9]*$" AND NOT rc STREQUAL EXPECT_EXIT)
  message(FATAL_ERROR "expected exit status ${EXPECT_EXIT}, got '${rc}'")
endif()
# Fails unless `text` matches each regular expression of the @@-separated
# `patterns` (should_match TRUE) or none of them (FALSE); the message is
# `failure`, then the expression.
function(check_patterns text patterns should_match failure)
  string(REPLACE "@@" ";" patterns "${patterns}")
  foreach(re IN LISTS patterns)
    if(text MATCHES "${re}")
      set(matches TRUE)
    else()
      set(matches FALSE)
    endif()
    if(NOT matches STREQUAL should_match)
      message(FATAL_ERROR "${failure}: ${re}")
    endif()
  endforeach()
endfunction()
if(DEFINED MATCH)
  check_patterns("${all}" "${MATCH}" TRUE "the output does not match")
endif()
if(DEFINED NO_MATCH)
  check_patterns("${all}" "${NO_MATCH}" FALSE "the output matches what it must not")
endif()
if(DEFINED JUNIT)
  if(NOT EXISTS "${JUNIT}")
    message(FATAL_ERROR "no JUnit file was written at ${JUNIT}")
  endif()
  file(READ "${JUNIT}" xml)
  check_patterns("${xml}" "${JUNIT_MATCH}" TRUE "the JUnit file does not match")
endif()
if(JSON)
  string(JSON doc_schema ERROR_VARIABLE json_error GET "${out}" schema)
  if(json_error)
    message(FATAL_ERROR "the output is not the expected JSON document: ${json_error}")
  endif()
  # CMake's JSON reader sorts keys: the order is checked on the text.
  if(NOT out MATCHES "^{[ \n]*\"schema\": \"bp-check/2\",[ \n]*\"schema_version\": 2,")
    message(FATAL_ERROR "JSON: the first keys are not \"schema\": \"bp-check/2\", \"schema_version\": 2 (schema: '${doc_schema}')")
  endif()
  string(JSON tool GET "${out}" tool)
  string(JSON nplugins LENGTH "${out}" plugins)
  if(nplugins LESS 1)
    message(FATAL_ERROR "JSON: no plugins")
  endif()
  if(tool STREQUAL "bp check")
    string(JSON failed GET "${out}" summary failed)
    string(JSON ngroups LENGTH "${out}" plugins 0 groups)
    if(NOT failed EQUAL 0 OR ngroups LESS 1)
      message(FATAL_ERROR "JSON: ${failed} failed groups, ${ngroups} groups")
    endif()
  elseif(NOT tool STREQUAL "bp check --probe")
    message(FATAL_ERROR "JSON: unknown tool '${tool}'")
  endif()
endif()
