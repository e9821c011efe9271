# `make install` / `cmake --install build --prefix PREFIX` (DESTDIR honoured):
#   bin/llmprof
#   lib/llmprof/libllmprof_tracer.so           (where the CUDA toolkit is)
#   lib/llmprof/pytorch/sitecustomize.py, _llmprof_pytorch.py, libllmprof_nvtx.so
#                                              (the PyTorch startup module: pytorch/CMakeLists.txt;
#                                               the library where the CUDA toolkit is)
#   libexec/llmprof/llmprof-llm, llmprof-dummy, llmprof-calibrate (nvcc)
#   share/llmprof/conf/
#   share/man/man1/llmprof.1
#   share/bash-completion/completions/llmprof
# The installed llmprof finds each relative to its own folder (<exe>/../),
# the same lookups as in the build tree: config_find_conf_dir(),
# tracer_library_path(), plan_workloads_dir(); the LLMPROF_* variables
# still override them. Included by the top-level CMakeLists.txt.

# The man page and the bash completion, generated from the command table.
file(GLOB_RECURSE LLMPROF_CONF_FILES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/conf/*.yaml)
foreach(doc "llmprof.1;--man" "llmprof.bash;--bash-completion")
  list(GET doc 0 out)
  list(GET doc 1 what)
  add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/${out}
    COMMAND ${CMAKE_COMMAND} -DLLMPROF=$<TARGET_FILE:llmprof> -DWHAT=${what}
            -DCONF=${CMAKE_SOURCE_DIR}/conf -DOUT=${CMAKE_BINARY_DIR}/${out}
            -P ${CMAKE_SOURCE_DIR}/cmake/gendoc.cmake
    DEPENDS llmprof ${CMAKE_SOURCE_DIR}/cmake/gendoc.cmake ${LLMPROF_CONF_FILES}
    COMMENT "Generating ${out}" VERBATIM)
endforeach()
add_custom_target(llmprof_doc ALL
  DEPENDS ${CMAKE_BINARY_DIR}/llmprof.1 ${CMAKE_BINARY_DIR}/llmprof.bash)

install(TARGETS llmprof RUNTIME DESTINATION bin)
if(TARGET llmprof_tracer)
  install(TARGETS llmprof_tracer LIBRARY DESTINATION lib/llmprof)
endif()
foreach(t llmprof-llm llmprof-dummy llmprof-calibrate)
  if(TARGET ${t})
    install(TARGETS ${t} RUNTIME DESTINATION libexec/llmprof)
  endif()
endforeach()
install(DIRECTORY ${CMAKE_SOURCE_DIR}/conf/ DESTINATION share/llmprof/conf)
install(FILES ${CMAKE_BINARY_DIR}/llmprof.1 DESTINATION share/man/man1)
install(FILES ${CMAKE_BINARY_DIR}/llmprof.bash DESTINATION share/bash-completion/completions
  RENAME llmprof)
