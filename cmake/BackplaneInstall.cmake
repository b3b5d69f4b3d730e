# The SDK: what `cmake --install build --prefix P` puts into P besides the
# files each component installs itself (headers: abi/, libbackplane: core/,
# plugins: backplane_add_plugin, bp: tools/, bp-check: tools/check/):
#   lib/cmake/backplane/  backplaneConfig.cmake (+Version), backplane-targets.cmake,
#                         BackplanePlugin.cmake, plugin.map
#   lib/pkgconfig/backplane.pc
#   share/doc/backplane/writing-a-plugin.md, share/backplane/examples/out-of-tree-plugin/
# Included at the end of the top-level CMakeLists.txt.
include(CMakePackageConfigHelpers)

set(BP_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/backplane)

# The header-only target for plugin authors is exported as backplane::plugin_sdk.
set_target_properties(backplane_abi PROPERTIES EXPORT_NAME plugin_sdk)
if(NOT TARGET backplane::plugin_sdk)
  add_library(backplane::plugin_sdk ALIAS backplane_abi)
endif()
install(TARGETS backplane_abi EXPORT backplane-targets)
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

# The walk-through and the example plugin it starts from.
install(FILES ${PROJECT_SOURCE_DIR}/docs/writing-a-plugin.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/out-of-tree-plugin
  DESTINATION ${CMAKE_INSTALL_DATADIR}/backplane/examples)
