# The SDK: what `cmake --install build --prefix P` puts into P besides the
# files each component installs itself (headers: abi/, libbackplane: core/,
# plugins: backplane_add_plugin, bp: tools/, bp-check: tools/check/):
#   lib/cmake/backplane/  backplaneConfig.cmake (+Version), backplane-targets.cmake,
#                         BackplanePlugin.cmake, plugin.map
#   lib/pkgconfig/backplane.pc
#   share/doc/backplane/writing-a-plugin.md, abi-rules.md, CHANGELOG.md,
#   share/backplane/examples/out-of-tree-plugin/
# Included at the end of the top-level CMakeLists.txt.
include(CMakePackageConfigHelpers)

set(BP_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/backplane)

# Header-only targets: backplane::abi (the C headers) and backplane::plugin_sdk
# (the ABI headers plus the SDK's boundary code, for plugin authors).
install(TARGETS backplane_abi backplane_plugin_sdk EXPORT backplane-targets)
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

# pkg-config, relocatable: the prefix is found relative to the .pc file.
file(RELATIVE_PATH BP_PC_RELATIVE_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
configure_file(${CMAKE_CURRENT_LIST_DIR}/backplane.pc.in ${PROJECT_BINARY_DIR}/cmake/backplane.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cmake/backplane.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The walk-through, the ABI's rules and changelog, and the example plugin.
install(FILES ${PROJECT_SOURCE_DIR}/docs/writing-a-plugin.md ${PROJECT_SOURCE_DIR}/docs/abi-rules.md
  ${PROJECT_SOURCE_DIR}/abi/CHANGELOG.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/out-of-tree-plugin
  DESTINATION ${CMAKE_INSTALL_DATADIR}/backplane/examples)
