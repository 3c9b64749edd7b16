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
endfunction()
