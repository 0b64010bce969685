# cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK=... -DLIBDIR=... -DCPACK=... -DCXX=... -P run.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../cmake/run_checked.cmake)

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/out)

# 1. The package, from the build tree as a user would make it.
run(${CPACK} -G DEB --config ${BUILD_DIR}/CPackConfig.cmake -B ${WORK}/out)
file(GLOB debs ${WORK}/out/*.deb)
list(LENGTH debs count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "cpack wrote ${count} .deb files (${debs}); expected one")
endif()
message(STATUS "package: ${debs}")

run(dpkg-deb --field ${debs} Package Version Depends)
message(STATUS "${run_output}")
if(NOT run_output MATCHES "Package: libfreedml" OR NOT run_output MATCHES "directx-headers-dev")
  message(FATAL_ERROR "Unexpected control fields:\n${run_output}")
endif()

# 2. Its files, unpacked into a scratch root (no root rights, nothing installed system-wide).
set(root ${WORK}/root)
run(dpkg-deb -x ${debs} ${root})
set(prefix ${root}/usr)
foreach(file ${LIBDIR}/libdirectml.so ${LIBDIR}/libd3d12.so ${LIBDIR}/libdxcore.so include/DirectML.h
             include/freedml/helpers.h ${LIBDIR}/pkgconfig/freedml.pc ${LIBDIR}/cmake/FreeDML/FreeDMLConfig.cmake
             bin/dmlrun share/doc/libfreedml/copyright)
  if(NOT EXISTS ${prefix}/${file})
    run(dpkg-deb --contents ${debs})
    message(FATAL_ERROR "The package has no /usr/${file}. It holds:\n${run_output}")
  endif()
endforeach()

# 3. HelloDirectML built against that root only, through the packaged freedml.pc (whose prefix is
#    relative to the .pc file, so it names the scratch root).
set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
run(pkg-config --cflags --libs freedml)
string(STRIP "${run_output}" flags)
message(STATUS "pkg-config --cflags --libs freedml: ${flags}")
separate_arguments(flags UNIX_COMMAND "${flags}")
foreach(flag ${flags})
  if(flag MATCHES "^-[IL]" AND NOT flag MATCHES "^-[IL]${root}" AND NOT flag MATCHES "^-I/usr/include")
    message(FATAL_ERROR "pkg-config names a directory outside the unpacked package: ${flag}")
  endif()
  # The scratch root itself lives in the build tree, so only paths outside it count here.
  if(flag MATCHES "${BUILD_DIR}|${SOURCE_DIR}/include" AND NOT flag MATCHES "^(-[IL]|-Wl,-rpath,)${root}")
    message(FATAL_ERROR "pkg-config names the build or source tree: ${flag}")
  endif()
endforeach()
run(${CXX} -std=gnu++17 ${SOURCE_DIR}/samples/hello_directml/main.cpp ${flags} -o ${WORK}/hello_directml)
run(${WORK}/hello_directml)
message(STATUS "${run_output}")
if(NOT run_output MATCHES "copied all 24 elements")
  message(FATAL_ERROR "hello_directml did not print the expected result:\n${run_output}")
endif()
run(ldd ${WORK}/hello_directml)
if(NOT run_output MATCHES "libdirectml.so[^\n]*${root}" OR NOT run_output MATCHES "libd3d12.so[^\n]*${root}")
  message(FATAL_ERROR "hello_directml does not load FreeDML from the unpacked package:\n${run_output}")
endif()

# 4. The packaged dmlrun runs the bundled model with the packaged libraries, found through its own
#    RPATH (no LD_LIBRARY_PATH), although the root is not where the package would be installed.
run(${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH ${prefix}/bin/dmlrun
    ${SOURCE_DIR}/models/hello_directml.json)
message(STATUS "dmlrun: ${run_output}")
run(${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH ldd ${prefix}/bin/dmlrun)
if(NOT run_output MATCHES "libdirectml.so[^\n]*${root}" OR NOT run_output MATCHES "libd3d12.so[^\n]*${root}")
  message(FATAL_ERROR "The packaged dmlrun does not load FreeDML from the unpacked package:\n${run_output}")
endif()
