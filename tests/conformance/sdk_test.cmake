# The SDK end to end, as a plugin author meets it:
#  1. install Backplane into a fresh prefix (cmake --install),
#  2. configure and build examples/out-of-tree-plugin against that prefix only,
#  3. drop the plugin into a plugin directory and run `bp check` on it,
#  4. see it listed by `bp devices` (or the example's list-devices program)
#     through BACKPLANE_PLUGIN_PATH, and use the C API through pkg-config,
#  5. build and run a C++ application (examples/app) through
#     find_package(backplane 1.1) + backplane::cpp and through pkg-config.
#
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DGENERATOR=... -P sdk_test.cmake
set(prefix ${WORK_DIR}/prefix)
set(example_build ${WORK_DIR}/example-build)
set(plugin_dir ${WORK_DIR}/plugins)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${plugin_dir})

function(run what)
  cmake_parse_arguments(ARG "" "" "COMMAND;ENV" ${ARGN})
  message("-- ${what}")
  if(ARG_ENV)
    set(ARG_COMMAND ${CMAKE_COMMAND} -E env ${ARG_ENV} ${ARG_COMMAND})
  endif()
  execute_process(COMMAND ${ARG_COMMAND} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "${what} failed (${rc})")
  endif()
  set(last_output "${out}${err}" PARENT_SCOPE)
endfunction()

run("install Backplane into ${prefix}" COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(f include/backplane/backplane.h include/backplane/plugin.h include/backplane.hpp
          lib/cmake/backplane/backplaneConfig.cmake
          lib/cmake/backplane/BackplanePlugin.cmake lib/cmake/backplane/plugin.map lib/pkgconfig/backplane.pc
          lib/backplane/plugins/libbackplane-reference.so)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "the install lacks ${f}")
  endif()
endforeach()

# Only the installed SDK: no build-tree package registry, no other prefix.
run("configure the example against the installed SDK"
  COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/out-of-tree-plugin -B ${example_build} -G ${GENERATOR}
          -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
          -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON
          # A sanitized Backplane needs sanitized programs around it.
          "-DCMAKE_C_FLAGS=${EXAMPLE_C_FLAGS}")
run("build the example" COMMAND ${CMAKE_COMMAND} --build ${example_build})
file(COPY ${example_build}/libbackplane-example.so DESTINATION ${plugin_dir})
set(plugin ${plugin_dir}/libbackplane-example.so)

if(EXISTS ${prefix}/bin/bp)
  set(check ${prefix}/bin/bp check)
else()
  set(check ${prefix}/bin/bp-check)
endif()
run("bp check the dropped-in plugin" COMMAND ${check} ${plugin} --level 4)
# The example has no collective, execute_fused or wrap_host entry, no
# softmax, no normalisation, convolution, pooling or topk operator and no
# fused attention (all optional): those groups are skipped.
if(NOT last_output MATCHES "11 passed, 0 failed, 9 skipped")
  message(FATAL_ERROR "bp check did not pass every group")
endif()

if(EXISTS ${prefix}/bin/bp)
  run("bp devices with BACKPLANE_PLUGIN_PATH" COMMAND ${prefix}/bin/bp devices ENV BACKPLANE_PLUGIN_PATH=${plugin_dir})
  if(NOT last_output MATCHES "example:0")
    message(FATAL_ERROR "bp devices does not list example:0")
  endif()
else()
  message("-- (no bp tool in this build: list-devices stands in for `bp devices`)")
endif()
run("list-devices (links backplane::backplane) with BACKPLANE_PLUGIN_PATH"
  COMMAND ${example_build}/list-devices ENV BACKPLANE_PLUGIN_PATH=${plugin_dir})
if(NOT last_output MATCHES "example:0 +example")
  message(FATAL_ERROR "the C API does not list example:0")
endif()

# The package's version is the API's that `bp --version` and bp_api_version() report.
file(STRINGS ${SOURCE_DIR}/abi/include/backplane/backplane.h api REGEX "^#define BP_API_VERSION_(MAJOR|MINOR) ")
string(REGEX REPLACE ".*MAJOR +([0-9]+).*MINOR +([0-9]+).*" "\\1.\\2" api "${api}")
file(READ ${prefix}/lib/cmake/backplane/backplaneConfigVersion.cmake version_file)
if(NOT version_file MATCHES "set\\(PACKAGE_VERSION \"${api}\\.[0-9]+\"\\)")
  message(FATAL_ERROR "the CMake package's version is not the API's (${api})")
endif()

# A C++ application through the CMake package. It asks for C++14:
# backplane::cpp must raise that to the C++17 backplane.hpp needs.
set(app_build ${WORK_DIR}/app-build)
run("configure examples/app (find_package(backplane 1.1), backplane::cpp, CMAKE_CXX_STANDARD=14)"
  COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/app -B ${app_build} -G ${GENERATOR}
          -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
          -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON -DCMAKE_CXX_STANDARD=14
          "-DCMAKE_CXX_FLAGS=${EXAMPLE_C_FLAGS}")
run("build the application" COMMAND ${CMAKE_COMMAND} --build ${app_build})
set(app_output "tensor\\(\\[\\[3\\., 3\\., 3\\.\\],\n +\\[3\\., 3\\., 3\\.\\]\\], device='[a-z]+:0'\\)\nsum 18\nevery element is 3")
run("run the application" COMMAND ${app_build}/app)
if(NOT last_output MATCHES "${app_output}")
  message(FATAL_ERROR "the application built with find_package did not print its tensor and sum")
endif()

# pkg-config: clean absolute paths, no rpath (where libbackplane is found at
# run time is the program's choice); a C and a C++ program built with them.
find_program(PKG_CONFIG pkg-config)
find_program(CC NAMES cc gcc clang)
find_program(CXX NAMES c++ g++ clang++)
if(PKG_CONFIG AND CC AND CXX)
  run("pkg-config --cflags --libs backplane" COMMAND ${PKG_CONFIG} --cflags --libs backplane
      ENV PKG_CONFIG_PATH=${prefix}/lib/pkgconfig)
  string(STRIP "${last_output}" flags)
  if(NOT flags STREQUAL "-I${prefix}/include -L${prefix}/lib -lbackplane")
    message(FATAL_ERROR "pkg-config printed '${flags}', not -I${prefix}/include -L${prefix}/lib -lbackplane")
  endif()
  run("pkg-config --modversion backplane" COMMAND ${PKG_CONFIG} --modversion backplane
      ENV PKG_CONFIG_PATH=${prefix}/lib/pkgconfig)
  if(NOT last_output MATCHES "^${api}\\.[0-9]+\n$")
    message(FATAL_ERROR "the pkg-config version is not the API's (${api})")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  file(WRITE ${WORK_DIR}/version.c
    "#include <stdio.h>\n#include <backplane/backplane.h>\nint main(void) { printf(\"api %u\\n\", (unsigned)bp_api_version()); return 0; }\n")
  separate_arguments(extra UNIX_COMMAND "${EXAMPLE_C_FLAGS}")
  run("compile with pkg-config flags" COMMAND ${CC} ${extra} ${WORK_DIR}/version.c -o ${WORK_DIR}/version ${flags})
  run("run it" COMMAND ${WORK_DIR}/version ENV LD_LIBRARY_PATH=${prefix}/lib)
  if(NOT last_output MATCHES "api [0-9]+")
    message(FATAL_ERROR "the pkg-config program did not run")
  endif()
  run("compile examples/app with pkg-config flags"
    COMMAND ${CXX} -std=c++17 ${extra} ${SOURCE_DIR}/examples/app/app.cpp -o ${WORK_DIR}/app-pc ${flags})
  run("run it" COMMAND ${WORK_DIR}/app-pc ENV LD_LIBRARY_PATH=${prefix}/lib)
  if(NOT last_output MATCHES "${app_output}")
    message(FATAL_ERROR "the application built with pkg-config did not print its tensor and sum")
  endif()
endif()
message("-- the SDK works: install, find_package, backplane_add_plugin, bp check, discovery, pkg-config, a C++ application")
