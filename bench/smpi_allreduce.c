/* SimGrid SMPI side of the all-reduce comparison (bench/compare_smpi_allreduce.sh): one
 * MPI_Allreduce of COUNT floats, with the algorithm SMPI is told to use
 * (--cfg=smpi/allreduce:lr | rab_rdb | rdb). Prints when the first rank entered it and
 * when the last one left ("start <s>", "end <s>"). Buffers are SMPI_SHARED_MALLOC'd: every
 * rank shares one copy (only the sizes matter).
 *   smpirun ... smpi_allreduce COUNT */
#include <mpi.h>
#include <smpi/smpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc != 2) {
    fprintf(stderr, "usage: smpi_allreduce COUNT\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int count = atoi(argv[1]);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  float* in = (float*)SMPI_SHARED_MALLOC(sizeof(float) * (size_t)count);
  float* out = (float*)SMPI_SHARED_MALLOC(sizeof(float) * (size_t)count);
  double start = MPI_Wtime();
  MPI_Allreduce(in, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  double end = MPI_Wtime();
  double first = 0, last = 0;
  MPI_Reduce(&start, &first, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(&end, &last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("start %.17g\nend %.17g\n", first, last);
  SMPI_SHARED_FREE(in);
  SMPI_SHARED_FREE(out);
  MPI_Finalize();
  return 0;
}
