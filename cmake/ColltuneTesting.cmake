# Test helpers (DESIGN.md: cmake/ holds them).

# add_mpi_test(NAME SCRIPT RANKS): a real `mpirun -np RANKS` run of the colltune binary, checked
# from outside by tests/mpi/SCRIPT. Serial: the machines have 2 cores. Exit 77: Skipped.
function(add_mpi_test name script ranks)
  add_test(NAME mpi.${name}.np${ranks}
           COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/tests/mpi/${script}
                   --colltune $<TARGET_FILE:colltune> --np ${ranks}
                   --docs ${PROJECT_SOURCE_DIR}/docs)
  set_tests_properties(mpi.${name}.np${ranks} PROPERTIES LABELS mpi RUN_SERIAL TRUE TIMEOUT 300
                       SKIP_RETURN_CODE 77)
  # The same test under Debian's MPICH (colltune-mpich4 and Hydra's mpiexec); skipped without it.
  add_test(NAME mpich.${name}.np${ranks}
           COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/tests/mpi/${script}
                   --colltune ${PROJECT_BINARY_DIR}/src/colltune-mpich4 --np ${ranks}
                   --docs ${PROJECT_SOURCE_DIR}/docs)
  set_tests_properties(mpich.${name}.np${ranks} PROPERTIES LABELS mpi RUN_SERIAL TRUE TIMEOUT 300
                       SKIP_RETURN_CODE 77 ENVIRONMENT COLLTUNE_TEST_MPI=mpich)
endfunction()
