# run(COMMAND...): the install and package scripts' way to run a step. It stops the script with
# the command, its exit status and its output when the command fails, and leaves its standard
# output in `run_output`. Commands run in RUN_WORKING_DIRECTORY when the script sets it.
function(run)
  set(directory_option)
  if(RUN_WORKING_DIRECTORY)
    set(directory_option WORKING_DIRECTORY ${RUN_WORKING_DIRECTORY})
  endif()
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err ${directory_option})
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "Failed (${result}): ${ARGN}\n${out}\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()
