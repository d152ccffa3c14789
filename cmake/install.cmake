# What `cmake --install build [--prefix P]` puts under the prefix for C++ users: the headers (with
# the include paths of this tree: `#include "dsl/func.h"`), the libraries, the `cubekit` CLI and a
# CMake package, so that another project's
#   find_package(cubekit 0.1 REQUIRED)
#   target_link_libraries(app PRIVATE cubekit::cubekit)
# compiles and links (examples/cpp_project; the `package` test installs the tree and builds it).
# The Python package's rule is in python/CMakeLists.txt.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(cubekit_include_dir ${CMAKE_INSTALL_INCLUDEDIR}/cubekit)
set(cubekit_config_dir ${CMAKE_INSTALL_LIBDIR}/cmake/cubekit)

# Each library is a component, cubekit::<name>. They are static (with PIC): the exported targets
# carry their link dependencies, which cubekitConfig.cmake finds.
set(cubekit_components emulator dsl host schedules codegen tunedb kernels tune npy)
foreach(component ${cubekit_components})
  set_target_properties(cubekit_${component} PROPERTIES EXPORT_NAME ${component})
  add_library(cubekit::${component} ALIAS cubekit_${component})
endforeach()
list(TRANSFORM cubekit_components PREPEND cubekit_ OUTPUT_VARIABLE cubekit_libraries)

# cubekit::cubekit: everything a kernel author links (the executable is already `cubekit`, hence
# the name of the target in this tree).
add_library(cubekit_all INTERFACE)
set_target_properties(cubekit_all PROPERTIES EXPORT_NAME cubekit)
target_link_libraries(cubekit_all INTERFACE ${cubekit_libraries})
add_library(cubekit::cubekit ALIAS cubekit_all)

# Headers, module by module, all of them: the public ones include most of the others, and the rest
# (emulator/rounding.h's f16 conversions, codegen/ir.h) are there for whoever wants to go deeper.
foreach(module emulator dsl schedules codegen kernels tune)
  file(GLOB headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${module}/*.h)
  install(FILES ${headers} DESTINATION ${cubekit_include_dir}/${module})
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/tools/npy.h DESTINATION ${cubekit_include_dir}/tools)

install(TARGETS cubekit_all ${cubekit_libraries} EXPORT cubekitTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${cubekit_include_dir})
# The Halide reference's module, which cubekit::host loads on first use from here (dsl/host.cpp).
install(TARGETS cubekit_halide LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The CLI, also as the imported executable cubekit::cli (e.g. for add_custom_command).
set_target_properties(cubekit PROPERTIES EXPORT_NAME cli)
install(TARGETS cubekit EXPORT cubekitTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Its dynamically linked twin beside it, which it hands the commands that load a module (tools/twin.h).
if(TARGET cubekit-dynamic)
  install(TARGETS cubekit-dynamic RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

install(EXPORT cubekitTargets NAMESPACE cubekit:: DESTINATION ${cubekit_config_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/cubekitConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/cmake/cubekitConfig.cmake
                              INSTALL_DESTINATION ${cubekit_config_dir})
# 0.x: a minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/cubekitConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/cubekitConfig.cmake ${PROJECT_BINARY_DIR}/cmake/cubekitConfigVersion.cmake
        DESTINATION ${cubekit_config_dir})
