# Generates the OpenGL 4.3 core loader with Debian's glad 2 (python3-glad) at configure time.
# --reproducible uses the Khronos XML shipped with the package: no network, same output each time.
find_program(GLAD_EXECUTABLE glad REQUIRED)
set(GLAD_OUT ${CMAKE_BINARY_DIR}/glad)
set(GLAD_ARGS --quiet --reproducible --api gl:core=4.3
    --extensions GL_KHR_debug,GL_KHR_shader_subgroup,GL_ARB_shader_ballot,GL_NV_shader_thread_group
    --out-path ${GLAD_OUT} c)
string(REPLACE ";" " " GLAD_ARGS_STR "${GLAD_ARGS}")
if(NOT EXISTS ${GLAD_OUT}/src/gl.c OR NOT "${GLAD_ARGS_STR}" STREQUAL "${GLAD_LAST_ARGS}")
  message(STATUS "Generating the OpenGL loader: glad ${GLAD_ARGS_STR}")
  execute_process(COMMAND ${GLAD_EXECUTABLE} ${GLAD_ARGS}
                  RESULT_VARIABLE glad_rc OUTPUT_QUIET ERROR_VARIABLE glad_err)
  if(NOT glad_rc EQUAL 0 OR NOT EXISTS ${GLAD_OUT}/src/gl.c)
    message(FATAL_ERROR "glad failed (${glad_rc}): ${glad_err}")
  endif()
  set(GLAD_LAST_ARGS "${GLAD_ARGS_STR}" CACHE INTERNAL "")
endif()
add_library(glad_gl STATIC ${GLAD_OUT}/src/gl.c)
target_include_directories(glad_gl SYSTEM PUBLIC ${GLAD_OUT}/include)
set_target_properties(glad_gl PROPERTIES POSITION_INDEPENDENT_CODE ON)
