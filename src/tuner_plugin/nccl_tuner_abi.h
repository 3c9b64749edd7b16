#pragma once
// NCCL's tuner plugin interface as NCCL declares it (src/include/plugin/tuner/tuner_v3.h ..
// tuner_v5.h at 2.28.9, tuner_v6.h at 2.30.3, tuner_v7.h after 2.30.7; nccl.h, debug.h): only what
// the plugin uses, declared here so that it builds without CUDA or NCCL. v2 is not served: its
// getCollInfo returns one algorithm and protocol instead of editing the cost table, which cannot
// say "this algorithm, NCCL's protocol".

#include <stddef.h>
#include <stdint.h>

extern "C" {

typedef enum { ncclTunerSuccess = 0 } ncclTunerResult_t;  // ncclResult_t's ncclSuccess
typedef int ncclTunerFunc_t;                              // ncclFunc_t: broadcast 0 ... allreduce 4

enum { kNcclLogWarn = 2, kNcclLogInfo = 3 };
enum : unsigned long { kNcclLogInit = 1, kNcclLogTuning = 64 };
typedef void (*ncclTunerLogger_t)(int level, unsigned long flags, const char* file, int line,
                                  const char* fmt, ...);

typedef struct {
  int nNvlDomains;
  int minRanksPerNvlDomain;
  int maxRanksPerNvlDomain;
} ncclNvlDomainInfo_v5_t;

// Writable model constants (v5); the plugin leaves them alone, so only their address matters.
typedef struct ncclTunerConstants_v5 ncclTunerConstants_v5_t;

typedef struct {
  const char* name;
  ncclTunerResult_t (*init)(void** ctx, uint64_t commId, size_t nRanks, size_t nNodes,
                            ncclTunerLogger_t logFunction, ncclNvlDomainInfo_v5_t* nvlDomainInfo,
                            ncclTunerConstants_v5_t* constants);
  ncclTunerResult_t (*getCollInfo)(void* context, ncclTunerFunc_t collType, size_t nBytes,
                                   int numPipeOps, float** collCostTable, int numAlgo, int numProto,
                                   int regBuff, int* nChannels);
  ncclTunerResult_t (*finalize)(void* context);
} ncclTuner_v5_t;

// v6 (NCCL 2.30): v5 and then an optional getChunkSize (NULL: NCCL's own chunk size).
typedef struct {
  const char* name;
  ncclTunerResult_t (*init)(void** ctx, uint64_t commId, size_t nRanks, size_t nNodes,
                            ncclTunerLogger_t logFunction, ncclNvlDomainInfo_v5_t* nvlDomainInfo,
                            ncclTunerConstants_v5_t* constants);
  ncclTunerResult_t (*getCollInfo)(void* context, ncclTunerFunc_t collType, size_t nBytes,
                                   int numPipeOps, float** collCostTable, int numAlgo, int numProto,
                                   int regBuff, int* nChannels);
  ncclTunerResult_t (*finalize)(void* context);
  ncclTunerResult_t (*getChunkSize)(void* context, ncclTunerFunc_t collType, size_t nBytes,
                                    int algo, int proto, int nChannels, size_t* chunkSize);
} ncclTuner_v6_t;

// v7 (NCCL 2.32 looks it up first): v6 whose constants table has 5 compute capabilities, not 4.
// The plugin never reads the constants, so v6's layout, pointer for pointer, is v7's.
typedef ncclTuner_v6_t ncclTuner_v7_t;

typedef struct {
  const char* name;
  ncclTunerResult_t (*init)(size_t nRanks, size_t nNodes, ncclTunerLogger_t logFunction,
                            void** context);
  ncclTunerResult_t (*getCollInfo)(void* context, ncclTunerFunc_t collType, size_t nBytes,
                                   int numPipeOps, float** collCostTable, int numAlgo, int numProto,
                                   int regBuff, int* nChannels);
  ncclTunerResult_t (*destroy)(void* context);
} ncclTuner_v4_t;

typedef struct {
  const char* name;
  ncclTunerResult_t (*init)(size_t nRanks, size_t nNodes, ncclTunerLogger_t logFunction,
                            void** context);
  ncclTunerResult_t (*getCollInfo)(void* context, ncclTunerFunc_t collType, size_t nBytes,
                                   int numPipeOps, float** collCostTable, int numAlgo, int numProto,
                                   int* nChannels);
  ncclTunerResult_t (*destroy)(void* context);
} ncclTuner_v3_t;

}  // extern "C"
