# The SDK: what `cmake --install build --prefix P` puts into P besides the
# files each component installs itself (headers: abi/, libbackplane: core/,
# plugins: backplane_add_plugin, bp: tools/, bp-check: tools/check/):
#   lib/cmake/backplane/  backplaneConfig.cmake (+Version: SameMajorVersion), backplane-targets.cmake,
#                         BackplanePlugin.cmake, plugin.map
#   lib/pkgconfig/backplane.pc
#   share/doc/backplane/writing-a-plugin.md, abi-rules.md, CHANGELOG.md,
#   share/backplane/examples/out-of-tree-plugin/, app/
# Included at the end of the top-level CMakeLists.txt.
include(CMakePackageConfigHelpers)

set(BP_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/backplane)

# Header-only targets: backplane::abi (the C headers), backplane::plugin_sdk
# (the ABI headers plus the SDK's boundary code, for plugin authors) and
# backplane::cpp (backplane.hpp over libbackplane, C++17, for applications).
install(TARGETS backplane_abi backplane_plugin_sdk backplane_cpp EXPORT backplane-targets)
install(EXPORT backplane-targets NAMESPACE backplane:: DESTINATION ${BP_CMAKE_INSTALL_DIR}
  FILE backplane-targets.cmake)

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/backplaneConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/backplaneConfig.cmake
  INSTALL_DESTINATION ${BP_CMAKE_INSTALL_DIR}
  PATH_VARS BP_PLUGIN_INSTALL_DIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/backplaneConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/cmake/backplaneConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/backplaneConfigVersion.cmake
  ${CMAKE_CURRENT_LIST_DIR}/BackplanePlugin.cmake
  ${CMAKE_CURRENT_LIST_DIR}/plugin.map
  DESTINATION ${BP_CMAKE_INSTALL_DIR})

# pkg-config: written at install time with the absolute directories of the
# prefix installed to (`cmake --install --prefix P` decides it then), so
# --cflags and --libs print clean paths; a pcfiledir-relative prefix printed
# P/lib/pkgconfig/../../include. One staging file per prefix: installs of one
# build tree into two prefixes at once do not overwrite each other's.
install(CODE "set(BP_PC_IN \"${CMAKE_CURRENT_LIST_DIR}/backplane.pc.in\")
  set(BP_PC_STAGING \"${PROJECT_BINARY_DIR}/cmake/pkgconfig\")
  set(BP_PC_VERSION \"${PROJECT_VERSION}\")
  set(BP_PC_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
  set(BP_PC_INCLUDEDIR \"${CMAKE_INSTALL_INCLUDEDIR}\")")
install(CODE [[
  set(BP_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(BP_PC_DESTINATION "${BP_PC_LIBDIR}/pkgconfig")
  foreach(dir LIBDIR INCLUDEDIR)
    if(NOT IS_ABSOLUTE "${BP_PC_${dir}}")
      set(BP_PC_${dir} "\${prefix}/${BP_PC_${dir}}")
    endif()
  endforeach()
  if(NOT IS_ABSOLUTE "${BP_PC_DESTINATION}")
    set(BP_PC_DESTINATION "${CMAKE_INSTALL_PREFIX}/${BP_PC_DESTINATION}")
  endif()
  string(MD5 BP_PC_KEY "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}")
  configure_file("${BP_PC_IN}" "${BP_PC_STAGING}/${BP_PC_KEY}/backplane.pc" @ONLY)
  file(INSTALL DESTINATION "${BP_PC_DESTINATION}" TYPE FILE FILES "${BP_PC_STAGING}/${BP_PC_KEY}/backplane.pc")
]])

# The walk-through, the ABI's rules and changelog, the example plugin and application.
install(FILES ${PROJECT_SOURCE_DIR}/docs/writing-a-plugin.md ${PROJECT_SOURCE_DIR}/docs/abi-rules.md
  ${PROJECT_SOURCE_DIR}/abi/CHANGELOG.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/out-of-tree-plugin ${PROJECT_SOURCE_DIR}/examples/app
  DESTINATION ${CMAKE_INSTALL_DATADIR}/backplane/examples)
