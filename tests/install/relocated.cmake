# cmake -DBUILD_DIR=... -DWORK=... -DMODEL=... -P relocated.cmake
# An installation works from any prefix: install, move the whole prefix elsewhere, and run the
# installed dmlrun with a clean environment (no LD_LIBRARY_PATH, a minimal PATH). It must load the
# moved prefix's libraries through its own RPATH and print the model's resources.
include(${CMAKE_CURRENT_LIST_DIR}/../cmake/run_checked.cmake)

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(RUN_WORKING_DIRECTORY ${WORK})  # dmlrun writes the model's .npy output here
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK}/installed-here)
file(RENAME ${WORK}/installed-here ${WORK}/moved-there)
set(dmlrun ${WORK}/moved-there/bin/dmlrun)

run(env -i PATH=/usr/bin:/bin ${dmlrun} ${MODEL})
message(STATUS "${run_output}")
# chain.json's logits as numpy computed them (models/expected/chain.json), in dmlrun's six significant digits.
if(NOT run_output MATCHES "Resource 'logits': 1.9375, 12.25, 2.64062, 5.84375")
  message(FATAL_ERROR "The installed dmlrun did not print the model's resources:\n${run_output}")
endif()
run(env -i PATH=/usr/bin:/bin ldd ${dmlrun})
foreach(lib libdirectml.so libd3d12.so libdxcore.so)
  if(NOT run_output MATCHES "${lib}[^\n]*${WORK}/moved-there/")
    message(FATAL_ERROR "The installed dmlrun does not load ${lib} from its own prefix:\n${run_output}")
  endif()
endforeach()
