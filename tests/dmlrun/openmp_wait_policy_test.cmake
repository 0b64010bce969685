# Runs dmlrun on a GEMM model (oneDNN, so OpenMP, loads on its first use) with
# OMP_DISPLAY_ENV=verbose, which makes GNU OpenMP print the settings it read when it loaded,
# GOMP_SPINCOUNT among them: how long an idle thread spins (0 under the passive policy, 300000
# when nothing is set, 30000000000 under the active one). Without a choice of the user's, FreeDML
# has OpenMP load with a short spin, FREEDML_OMP_SPIN_COUNT (CMakeLists.txt, read by
# src/dml/kernels/cpu/dnnl_lazy.cpp); a user's OMP_WAIT_POLICY or GOMP_SPINCOUNT wins.
# -D DMLRUN=... -D MODEL=... -D SPIN_COUNT=...
function(expect_spin_count expected)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env OMP_DISPLAY_ENV=verbose ${ARGN} ${DMLRUN} ${MODEL}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "dmlrun ${MODEL} failed (${failed}):\n${out}\n${err}")
  endif()
  if(NOT "${out}${err}" MATCHES "GOMP_SPINCOUNT = '${expected}'")
    message(FATAL_ERROR "OpenMP did not report GOMP_SPINCOUNT = '${expected}' (environment: ${ARGN}):\n${err}")
  endif()
endfunction()
expect_spin_count(${SPIN_COUNT} --unset=OMP_WAIT_POLICY --unset=GOMP_SPINCOUNT)
expect_spin_count(0 --unset=GOMP_SPINCOUNT OMP_WAIT_POLICY=passive)
expect_spin_count(30000000000 --unset=GOMP_SPINCOUNT OMP_WAIT_POLICY=active)
expect_spin_count(1234 --unset=OMP_WAIT_POLICY GOMP_SPINCOUNT=1234)
