# Sourced by the scripts: lets Open MPI run as root (containers, CI) and more ranks than cores.
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
MPIRUN=(mpirun --oversubscribe)
