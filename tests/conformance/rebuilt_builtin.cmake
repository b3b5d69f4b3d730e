# Another build of a built-in plugin, checked from a directory of its own
# (a plugin developer's daily loop): L0 notes it instead of failing it for
# the built-in's name, and L3 through the core runs it in the built-in's
# place instead of failing "duplicate backend name".
#
#   cmake -DCHECK=bp@@check -DBUILTIN=<built-in plugin file> -DWORK_DIR=<dir> -P rebuilt_builtin.cmake
string(REPLACE "@@" ";" check "${CHECK}")
get_filename_component(file "${BUILTIN}" NAME)
set(copy "${WORK_DIR}/${file}")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
# A byte past the end of the ELF file: it loads the same, but is no longer
# a byte-identical copy of the built-in file.
file(COPY_FILE "${BUILTIN}" "${copy}")
file(APPEND "${copy}" "\n")

function(run what expect_rc)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${what}:\n${out}${err}")
  if(NOT rc STREQUAL expect_rc)
    message(FATAL_ERROR "${what}: expected exit status ${expect_rc}, got '${rc}'")
  endif()
  set(out "${out}${err}" PARENT_SCOPE)
endfunction()

run("L0" 0 ${check} "${copy}" --level 0)
if(NOT out MATCHES "note: another build of the built-in plugin [^\n]*/${file}")
  message(FATAL_ERROR "L0 does not say it is another build of the built-in plugin")
endif()
# The L3 group alone, as the kit's parent runs it (its events on fd 1).
run("L3 through the core" 0 ${check} --run-group core --result-fd 1 "${copy}")
if(NOT out MATCHES "N stands in for the built-in plugin [^\n]*/${file}")
  message(FATAL_ERROR "L3 does not say the file stands in for the built-in one")
endif()
if(out MATCHES "\nF " OR NOT out MATCHES "\nR passed")
  message(FATAL_ERROR "L3 through the core did not pass")
endif()
