# The Debian package: `cpack -G DEB` in a build tree writes libfreedml_<version>_<arch>.deb with
# everything `cmake --install` installs (the three libraries, the CUDA plugin where it was built,
# include/, freedml.pc, the CMake package and dmlrun), under /usr.
#
# One package rather than a -dev/-tools split: FreeDML's headers and tools are small, and a user
# who installs it wants to build against it.
set(CPACK_PACKAGE_NAME libfreedml)
set(CPACK_PACKAGE_VENDOR "FreeDML")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "DirectML and the Direct3D 12 compute subset for Linux")
set(CPACK_PACKAGE_DESCRIPTION
    "FreeDML implements Microsoft's DirectML API and the Direct3D 12 compute subset it stands on, so that
programs written against DirectML.h and d3d12.h build and run on Linux: on the CPU everywhere, and on
NVIDIA GPUs through CUDA. Every misuse is reported with a message that names the rule that broke.
This package holds libd3d12.so, libdxcore.so, libdirectml.so, their headers, pkg-config and CMake
files, and the dmlrun model runner.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES TRUE)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "FreeDML developers <freedml@localhost>")

# Dependencies by hand rather than dpkg-shlibdeps: the CUDA plugin links libraries of the CUDA
# toolkit, which no Debian package provides, and it is only loaded where a CUDA driver exists.
# directx-headers-dev: d3d12.h, the wsl/ shims and DirectX-Guids, which FreeDML's headers, .pc
# and CMake package name. libdnnl2: libdirectml's dense math, where the build found oneDNN.
set(freedml_deb_depends "libc6, libstdc++6, libgcc-s1, directx-headers-dev")
if(TARGET directml)
  get_target_property(freedml_directml_links directml LINK_LIBRARIES)
  get_property(freedml_dnnl_lazy_soname GLOBAL PROPERTY FREEDML_DNNL_LAZY_SONAME)
  if("DNNL::dnnl" IN_LIST freedml_directml_links OR freedml_dnnl_lazy_soname)
    string(APPEND freedml_deb_depends ", libdnnl2")
  endif()
endif()
# libonnx1, libprotobuf32: dmlrun reads ONNX models when the build found ONNX's library.
if(FREEDML_ONNX)
  string(APPEND freedml_deb_depends ", libonnx1, libprotobuf32")
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${freedml_deb_depends}")

# Debian's copyright file (the MIT license, in the machine-readable format), installed wherever
# FreeDML is installed so that the license travels with the binaries.
install(FILES ${PROJECT_SOURCE_DIR}/cmake/debian-copyright
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/libfreedml RENAME copyright)
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)

include(CPack)
