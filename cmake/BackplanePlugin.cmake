# backplane_add_plugin(<name> [NO_INSTALL] <sources>...)
#
# Builds libbackplane-<name>.so, a Backplane plugin: a MODULE library with
# hidden visibility that exports exactly the entry symbol bp_plugin_get_api
# (linker version script plugin.map, next to this file) and has no
# unresolved symbols (--no-undefined), and installs it into the plugin
# directory. The target is called backplane-<name>.
#
# Works in two places:
# - in Backplane's own build (included by the top-level CMakeLists.txt), where
#   BP_PLUGIN_OUTPUT_DIR and BP_PLUGIN_INSTALL_DIR put plugins beside the core;
# - from an installed SDK (find_package(backplane CONFIG) includes it), where
#   both may be set by the caller or are left to defaults: the output goes
#   where CMake puts libraries (CMAKE_LIBRARY_OUTPUT_DIRECTORY, else the
#   current binary directory), and `cmake --install` puts the plugin into
#   <prefix>/<libdir>/backplane/plugins of the caller's own prefix. To install
#   into the Backplane installation itself, set BP_PLUGIN_INSTALL_DIR to
#   ${BACKPLANE_PLUGIN_DIR}.
#
# In the source, define the entry symbol with BP_PLUGIN_EXPORT (plugin.h; the
# version script cannot export a hidden symbol):
#   BP_PLUGIN_EXPORT
#   const bp_plugin_api *bp_plugin_get_api(uint32_t host_abi_major, uint32_t host_abi_minor) {...}
set_property(GLOBAL PROPERTY BACKPLANE_PLUGIN_MAP "${CMAKE_CURRENT_LIST_DIR}/plugin.map")

function(backplane_add_plugin name)
  cmake_parse_arguments(ARG "NO_INSTALL" "" "" ${ARGN})
  get_property(map GLOBAL PROPERTY BACKPLANE_PLUGIN_MAP)
  set(target backplane-${name})
  add_library(${target} MODULE ${ARG_UNPARSED_ARGUMENTS})
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME backplane-${name}
    PREFIX lib
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    POSITION_INDEPENDENT_CODE ON)
  if(DEFINED BP_PLUGIN_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${BP_PLUGIN_OUTPUT_DIR})
  endif()
  # The ABI headers and the SDK's boundary code (plugin_sdk.h, .hpp).
  target_link_libraries(${target} PRIVATE backplane::plugin_sdk)
  target_link_options(${target} PRIVATE "LINKER:--version-script=${map}")
  if(NOT BP_SANITIZED)  # sanitizer runtimes leave symbols for the host to resolve
    target_link_options(${target} PRIVATE "LINKER:--no-undefined")
  endif()
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${map})
  if(NOT ARG_NO_INSTALL)
    if(DEFINED BP_PLUGIN_INSTALL_DIR)
      set(destination ${BP_PLUGIN_INSTALL_DIR})
    else()
      include(GNUInstallDirs)
      set(destination ${CMAKE_INSTALL_LIBDIR}/backplane/plugins)
    endif()
    install(TARGETS ${target} LIBRARY DESTINATION ${destination})
    # The project's own plugins also go into its Python wheel (bindings/python).
    set_property(GLOBAL APPEND PROPERTY BACKPLANE_INSTALLED_PLUGINS ${target})
  endif()
endfunction()
