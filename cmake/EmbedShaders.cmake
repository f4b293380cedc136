# embed_shaders(NAME files...) turns each shader file into a string constant compiled into the
# binary, so the installed tool needs no source tree. It defines NAME_SOURCES (a generated .cpp)
# and NAME_INCLUDE_DIR (holding embedded_shaders.h), regenerated whenever a shader changes.
function(embed_shaders name)
  set(out_dir ${CMAKE_BINARY_DIR}/${name})
  set(abs_files)
  foreach(f ${ARGN})
    list(APPEND abs_files ${CMAKE_CURRENT_SOURCE_DIR}/${f})
  endforeach()
  add_custom_command(
    OUTPUT ${out_dir}/embedded_shaders.cpp ${out_dir}/embedded_shaders.h
    COMMAND ${CMAKE_COMMAND} -DOUT_DIR=${out_dir} "-DFILES=${abs_files}"
            -P ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/EmbedShadersScript.cmake
    DEPENDS ${abs_files} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/EmbedShadersScript.cmake
    COMMENT "Embedding shaders"
    VERBATIM)  # keeps the ;-list in -DFILES one shell word
  set(${name}_SOURCES ${out_dir}/embedded_shaders.cpp PARENT_SCOPE)
  set(${name}_INCLUDE_DIR ${out_dir} PARENT_SCOPE)
endfunction()
