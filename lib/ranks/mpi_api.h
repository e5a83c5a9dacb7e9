#pragma once
// The MPI plugin's interface (libosched_mpi.so): plain C types only, so the
// executable and the plugin share no C++ objects across the boundary. Each
// call returns 0, or non-zero with a one-line message written into `err`.

#include <cstddef>

extern "C" {

struct OschedMpiApi {
  int (*init)(int* rank, int* size, int* owns, char* err, size_t err_len);
  // Every rank's `bytes` bytes, concatenated in rank order into `all`.
  int (*allgather)(const void* local, int bytes, void* all, char* err, size_t err_len);
  // Rank r's `counts[r]` bytes land at `all + displs[r]`.
  int (*allgatherv)(const void* local, int bytes, void* all, const int* counts, const int* displs,
                    char* err, size_t err_len);
  int (*broadcast)(void* buf, int bytes, int root, char* err, size_t err_len);
  int (*barrier)(char* err, size_t err_len);
  // Finalizes MPI unless it already is.
  void (*finalize)();
};

// The one symbol the plugin exports.
typedef const OschedMpiApi* (*OschedMpiApiFn)();
}
