# SPDX-License-Identifier: Apache-2.0
# `cmake --install` of normlab as a package: the public header and the headers it includes,
# the static libraries behind normlab::normlab, the normlab program (where configured), and a
# config that find_package(normlab CONFIG) reads. python/CMakeLists.txt installs
# libnormlab_capi.so (component python). tests/consumer/ builds a project of its own against it.
include(CMakePackageConfigHelpers)

set(NORMLAB_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/normlab)

# normlab.hpp and what it includes, transitively (the consumer test fails without any of them).
install(FILES ${PROJECT_SOURCE_DIR}/api/include/normlab/normlab.hpp
              ${PROJECT_SOURCE_DIR}/common/include/normlab/kernel.hpp
              ${PROJECT_SOURCE_DIR}/common/include/normlab/dtype.hpp
              ${PROJECT_SOURCE_DIR}/common/include/normlab/ops.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/normlab)

# Static libraries: normlab::normlab (normlab_api) links the kernels, the registry, every chapter
# and the harness, each exported under normlab:: so that the link line follows them.
get_property(normlab_chapter_libraries GLOBAL PROPERTY NORMLAB_CHAPTER_LIBRARIES)
install(TARGETS normlab_api normlab_kernels normlab_registry ${normlab_chapter_libraries}
                normlab_common
        EXPORT normlabTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
if(TARGET normlab)  # not configured with NORMLAB_LIBRARY_ONLY
  install(TARGETS normlab RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(EXPORT normlabTargets NAMESPACE normlab:: DESTINATION ${NORMLAB_INSTALL_CMAKEDIR})

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/normlabConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/normlabConfig.cmake
                              INSTALL_DESTINATION ${NORMLAB_INSTALL_CMAKEDIR})
# 0.x: a new minor version may change the interface.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/normlabConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/normlabConfig.cmake
              ${PROJECT_BINARY_DIR}/normlabConfigVersion.cmake
        DESTINATION ${NORMLAB_INSTALL_CMAKEDIR})
