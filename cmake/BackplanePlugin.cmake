# backplane_add_plugin(<name> <sources>...)
# Builds libbackplane-<name>.so as a MODULE that exports exactly the entry
# symbol (version script) and has no unresolved symbols, into the plugin
# directory of the build tree, and installs it into the plugin directory.
set(BP_PLUGIN_MAP ${CMAKE_CURRENT_LIST_DIR}/plugin.map)

function(backplane_add_plugin name)
  add_library(backplane-${name} MODULE ${ARGN})
  set_target_properties(backplane-${name} PROPERTIES
    OUTPUT_NAME backplane-${name}
    PREFIX lib
    LIBRARY_OUTPUT_DIRECTORY ${BP_PLUGIN_OUTPUT_DIR})
  target_link_libraries(backplane-${name} PRIVATE backplane::abi)
  target_link_options(backplane-${name} PRIVATE "LINKER:--version-script=${BP_PLUGIN_MAP}")
  if(NOT BP_SANITIZE)
    target_link_options(backplane-${name} PRIVATE "LINKER:--no-undefined")
  endif()
  set_property(TARGET backplane-${name} APPEND PROPERTY LINK_DEPENDS ${BP_PLUGIN_MAP})
  install(TARGETS backplane-${name} LIBRARY DESTINATION ${BP_PLUGIN_INSTALL_DIR})
endfunction()
