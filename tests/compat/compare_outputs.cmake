# cmake -DA=<program> -DB=<program> -P compare_outputs.cmake: runs both and
# fails unless they print exactly the same lines.
execute_process(COMMAND ${A} OUTPUT_VARIABLE out_a RESULT_VARIABLE rc_a)
execute_process(COMMAND ${B} OUTPUT_VARIABLE out_b RESULT_VARIABLE rc_b)
if(NOT rc_a EQUAL 0 OR NOT rc_b EQUAL 0)
  message(FATAL_ERROR "a program failed: ${A} -> ${rc_a}, ${B} -> ${rc_b}")
endif()
if(NOT out_a STREQUAL out_b)
  message(FATAL_ERROR "the outputs differ:\n--- ${A}\n${out_a}--- ${B}\n${out_b}")
endif()
string(REGEX MATCHALL "\n" lines "${out_a}")
list(LENGTH lines n)
message(STATUS "${n} lines identical")
