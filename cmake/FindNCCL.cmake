# Finds NCCL: sets NCCL_FOUND, NCCL_INCLUDE_DIR, NCCL_LIBRARY, NCCL_VERSION_CODE (its nccl.h's)
# and the target NCCL::nccl.
find_path(NCCL_INCLUDE_DIR nccl.h
          HINTS ${NCCL_HOME} $ENV{NCCL_HOME} ${CUDAToolkit_INCLUDE_DIRS} /usr/local/cuda
          PATH_SUFFIXES include)
# libnccl.so.2 too: the nvidia-nccl-cu13 wheel ships no libnccl.so link. NAMES_PER_DIR: the
# first directory of the hints holding either wins (NCCL_HOME over the CUDA prefix).
find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 NAMES_PER_DIR
             HINTS ${NCCL_HOME} $ENV{NCCL_HOME} ${CUDAToolkit_LIBRARY_DIR} /usr/local/cuda
             PATH_SUFFIXES lib lib64)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL DEFAULT_MSG NCCL_LIBRARY NCCL_INCLUDE_DIR)
if(NCCL_FOUND)
  file(STRINGS ${NCCL_INCLUDE_DIR}/nccl.h NCCL_VERSION_CODE_LINE
       REGEX "^#define NCCL_VERSION_CODE [0-9]+")
  string(REGEX MATCH "[0-9]+$" NCCL_VERSION_CODE "${NCCL_VERSION_CODE_LINE}")
endif()
if(NCCL_FOUND AND NOT TARGET NCCL::nccl)
  add_library(NCCL::nccl UNKNOWN IMPORTED)
  set_target_properties(NCCL::nccl PROPERTIES IMPORTED_LOCATION ${NCCL_LIBRARY}
                        INTERFACE_INCLUDE_DIRECTORIES ${NCCL_INCLUDE_DIR})
endif()
