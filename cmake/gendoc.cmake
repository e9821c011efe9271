# Writes OUT from `LLMPROF help WHAT` (--man, --bash-completion): the man
# page and the bash completion, generated from the command table
# (src/cmd/gendoc.c). CONF is the conf/ folder the completion lists the
# config groups of. Run by the llmprof_doc target (cmake/install.cmake).
execute_process(COMMAND ${CMAKE_COMMAND} -E env LLMPROF_CONF_DIR=${CONF} ${LLMPROF} help ${WHAT}
  OUTPUT_FILE ${OUT}.tmp RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE ${OUT}.tmp)
  message(FATAL_ERROR "'${LLMPROF} help ${WHAT}' failed: ${rc}")
endif()
file(RENAME ${OUT}.tmp ${OUT})
