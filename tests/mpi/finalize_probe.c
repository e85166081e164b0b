/* Test helper, preloaded after the library (report_finalize_check.sh): at
 * each rank's PMPI_Finalize, says whether the JSON report that rank 0
 * writes in MPI_Finalize (PROBE_REPORT, the ADACOMP_REPORT path) is
 * complete yet, then calls the real PMPI_Finalize. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int PMPI_Finalize(void) {
  const char* path = getenv("PROBE_REPORT");
  FILE* f = path ? fopen(path, "r") : NULL;
  char tail[3] = {0};
  int complete = f && fseek(f, -2, SEEK_END) == 0 && fread(tail, 1, 2, f) == 2 &&
                 strcmp(tail, "}\n") == 0;
  if (f) fclose(f);
  fprintf(stderr, "finalize probe: report %s at PMPI_Finalize\n",
          complete ? "complete" : "not complete");
  int (*real)(void) = (int (*)(void))dlsym(RTLD_NEXT, "PMPI_Finalize");
  return real ? real() : 1;
}
