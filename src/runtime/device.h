// Device (GPU) memory, detected without a build dependency on CUDA or ROCm.
//
// Only when the process has already loaded the CUDA driver (libcuda.so.1)
// or the HIP runtime (libamdhip64.so) does the library look up
// cuPointerGetAttribute / hipPointerGetAttributes (dlopen with RTLD_NOLOAD,
// looked for again every 256 calls, when the loader has loaded anything
// since, until one is found) and ask it
// about a buffer; device ranges it reports are cached. Otherwise a check is
// one load of a flag.
#pragma once

namespace adacomp {

// True for a pointer into device memory (MPI_IN_PLACE, MPI_BOTTOM and null:
// false).
bool on_device(const void* p);

}  // namespace adacomp
