# Runs dmlrun on a GEMM model (oneDNN, so OpenMP, loads on its first use) with OMP_DISPLAY_ENV=true,
# which makes GNU OpenMP print the settings it read when it loaded. Without a choice of the user's,
# FreeDML asks for the passive wait policy (cmake/DnnlLazy.cmake); a user's OMP_WAIT_POLICY wins.
# -D DMLRUN=... -D MODEL=...
function(expect_policy expected)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env OMP_DISPLAY_ENV=true ${ARGN} ${DMLRUN} ${MODEL}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "dmlrun ${MODEL} failed (${failed}):\n${out}\n${err}")
  endif()
  if(NOT "${out}${err}" MATCHES "OMP_WAIT_POLICY = '${expected}'")
    message(FATAL_ERROR "OpenMP did not report OMP_WAIT_POLICY = '${expected}' (environment: ${ARGN}):\n${err}")
  endif()
endfunction()
expect_policy(PASSIVE --unset=OMP_WAIT_POLICY --unset=GOMP_SPINCOUNT)
expect_policy(ACTIVE OMP_WAIT_POLICY=active)
