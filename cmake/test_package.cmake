# The `package` test (cmake -P): install the build tree into a fresh prefix the way a user does,
# then configure, build and run examples/cpp_project against it with find_package(cubekit), and
# import the installed Python package. Any step failing fails the test with its output.
#   -DBUILD_DIR= -DSOURCE_DIR= -DWORK_DIR= -DGENERATOR= -DCXX_COMPILER= -DC_COMPILER= -DLAUNCHER= -DPYTHON_DIR=
#   [-DLINK_FLAGS=]
cmake_minimum_required(VERSION 3.25)
set(prefix ${WORK_DIR}/prefix)
set(app ${WORK_DIR}/app)
file(REMOVE_RECURSE ${WORK_DIR})

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "package test: ${what} failed (${rc}): ${ARGN}")
  endif()
endfunction()

step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# The installed package must not point back into the tree it was built in.
file(GLOB_RECURSE config_files ${prefix}/cubekit*.cmake)
if(NOT config_files)
  message(FATAL_ERROR "package test: no cubekit*.cmake under ${prefix}")
endif()
foreach(file ${config_files})
  file(READ ${file} text)
  foreach(tree ${BUILD_DIR} ${SOURCE_DIR})
    string(FIND "${text}" "${tree}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "package test: ${file} names ${tree}: the installed package is not self-contained")
    endif()
  endforeach()
endforeach()

# A sanitizer tree's libraries need its runtime at link time (LINK_FLAGS: the tree's linker flags).
set(link_flags)
if(LINK_FLAGS)
  set(link_flags "-DCMAKE_EXE_LINKER_FLAGS=${LINK_FLAGS}")
endif()
set(launcher)
if(LAUNCHER)
  set(launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER} -DCMAKE_C_COMPILER_LAUNCHER=${LAUNCHER})
endif()
step("configuring examples/cpp_project" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/cpp_project -B ${app} -G "${GENERATOR}"
     -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
     -DCMAKE_C_COMPILER=${C_COMPILER} ${launcher} ${link_flags})
step("building examples/cpp_project" ${CMAKE_COMMAND} --build ${app})
# With the module the prefix holds (the app is neither beside it nor in the build tree's place).
step("running fused_matmul" ${CMAKE_COMMAND} -E env CUBEKIT_HALIDE_MODULE=${prefix}/lib/libcubekit_halide.so
     ${app}/fused_matmul 130 200 300)

# The example's check can fail: a changed element of the result must make it exit 1.
execute_process(COMMAND ${app}/fused_matmul 130 200 300 --break-output RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE out)
if(NOT rc EQUAL 1 OR NOT out MATCHES "FAIL")
  message(FATAL_ERROR "package test: fused_matmul --break-output should report FAIL and exit 1, got ${rc}:\n${out}")
endif()

# Projects that use the package wrongly get its own explanation, not a failure deep in another.
function(expect_configure_failure name project_lines expected)
  file(WRITE ${WORK_DIR}/${name}/CMakeLists.txt "cmake_minimum_required(VERSION 3.20)\n${project_lines}\n")
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK_DIR}/${name} -B ${WORK_DIR}/${name}/build -G "${GENERATOR}"
                  -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_C_COMPILER=${C_COMPILER}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(REGEX REPLACE "[ \n]+" " " out "${out}")
  if(rc EQUAL 0 OR NOT out MATCHES "${expected}")
    message(FATAL_ERROR "package test: the ${name} project should fail with '${expected}', got ${rc}:\n${out}")
  endif()
endfunction()
expect_configure_failure(unknown_component "project(unknown_component LANGUAGES C CXX)\nfind_package(cubekit REQUIRED COMPONENTS dsl tensorflow)"
                         "cubekit has no component 'tensorflow': it has emulator, dsl, .*cli")

# The installed CLI runs, and the Python package is under the prefix and imports from there.
step("running the installed CLI" ${prefix}/bin/cubekit chips)
step("checking a kernel with the installed CLI (the Halide module beside it)" ${prefix}/bin/cubekit kernel add --rows 8 --cols 40)
step("importing the installed Python package" ${CMAKE_COMMAND} -E env PYTHONPATH=${prefix}/${PYTHON_DIR}
     /usr/bin/python3 -c "import cubekit, sys; assert cubekit.__file__.startswith('${prefix}/'), cubekit.__file__; print(cubekit.chips())")
