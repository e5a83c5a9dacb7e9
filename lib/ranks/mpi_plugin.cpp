// libosched_mpi.so: the only code that links OpenMPI. The executable loads it
// when a run is launched by mpirun (lib/ranks/mpi_rank_context.cpp), so no
// other run pays OpenMPI's start-up.

#include <mpi.h>

#include <cstdio>

#include "ranks/mpi_api.h"

namespace {

int report(int rc, const char* what, char* err, size_t err_len) {
  if (rc == MPI_SUCCESS)
    return 0;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  std::snprintf(err, err_len, "MPI error in %s: %.*s", what, len, msg);
  return 1;
}

int init(int* rank, int* size, int* owns, char* err, size_t err_len) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  *owns = 0;
  if (!initialized) {
    if (MPI_Init(nullptr, nullptr) != MPI_SUCCESS) {
      std::snprintf(err, err_len, "MPI_Init failed");
      return 1;
    }
    *owns = 1;
  }
  // Errors come back as codes, so they become one-line messages.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (report(MPI_Comm_rank(MPI_COMM_WORLD, rank), "MPI_Comm_rank", err, err_len))
    return 1;
  return report(MPI_Comm_size(MPI_COMM_WORLD, size), "MPI_Comm_size", err, err_len);
}

int allgather(const void* local, int bytes, void* all, char* err, size_t err_len) {
  return report(MPI_Allgather(local, bytes, MPI_BYTE, all, bytes, MPI_BYTE, MPI_COMM_WORLD),
                "MPI_Allgather", err, err_len);
}

int allgatherv(const void* local, int bytes, void* all, const int* counts, const int* displs,
               char* err, size_t err_len) {
  return report(
      MPI_Allgatherv(local, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, MPI_COMM_WORLD),
      "MPI_Allgatherv", err, err_len);
}

int broadcast(void* buf, int bytes, int root, char* err, size_t err_len) {
  return report(MPI_Bcast(buf, bytes, MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast", err, err_len);
}

int barrier(char* err, size_t err_len) {
  return report(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier", err, err_len);
}

void finalize() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized)
    MPI_Finalize();
}

const OschedMpiApi kApi = {init, allgather, allgatherv, broadcast, barrier, finalize};

} // namespace

extern "C" __attribute__((visibility("default"))) const OschedMpiApi* osched_mpi_plugin_api() {
  return &kApi;
}
