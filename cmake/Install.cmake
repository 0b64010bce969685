# Install rules: the three libraries, the headers, a pkg-config file and a CMake package, so that
#   g++ app.cpp $(pkg-config --cflags --libs freedml)
# and
#   find_package(FreeDML) ... target_link_libraries(app FreeDML::directml)
# both work against an installed prefix.
include(CMakePackageConfigHelpers)

set(freedml_installed_libraries)
foreach(lib d3d12 dxcore directml)
  if(TARGET ${lib})
    list(APPEND freedml_installed_libraries ${lib})
  endif()
endforeach()

install(TARGETS ${freedml_installed_libraries} freedml_headers EXPORT FreeDMLTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

install(EXPORT FreeDMLTargets NAMESPACE FreeDML:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/FreeDML)
configure_package_config_file(cmake/FreeDMLConfig.cmake.in ${PROJECT_BINARY_DIR}/FreeDMLConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/FreeDML)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/FreeDMLConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/FreeDMLConfig.cmake ${PROJECT_BINARY_DIR}/FreeDMLConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/FreeDML)

set(freedml_pc_libs "")
foreach(lib directml d3d12 dxcore)
  if(TARGET ${lib})
    string(APPEND freedml_pc_libs " -l${lib}")
  endif()
endforeach()
# The prefix as seen from the installed .pc file (${pcfiledir}), so that the prefix given to
# `cmake --install --prefix` is the one the file names; an absolute libdir keeps the configured prefix.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(freedml_pc_prefix "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH freedml_pc_up "/root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/root")
  string(REGEX REPLACE "/$" "" freedml_pc_up "${freedml_pc_up}")
  set(freedml_pc_prefix "\${pcfiledir}/${freedml_pc_up}")
endif()
configure_file(cmake/freedml.pc.in ${PROJECT_BINARY_DIR}/freedml.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/freedml.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
