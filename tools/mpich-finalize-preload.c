/* Preloaded into MPICH ranks on emulated links (tools/netns.sh, tools/cluster.sh).
 *
 * MPICH 4.0's MPI_Finalize closes every UCX endpoint with a flush
 * (ucp_disconnect_nb) and spins until all are closed, then waits in a PMI
 * barrier without progressing UCX. Over UCX's TCP transport a flush can need
 * an answer from the peer (the end of the connection handshake, or the
 * acknowledgement of a PUT); a peer that already reached that barrier never
 * answers. About one 2x2 job in three hung after the program was done, and
 * one 2-rank job on one shaped loopback in a hundred or so (the CI's demo,
 * with the peer's socket holding the unread 25-byte PUT request). Later
 * MPICH releases drop that PMI barrier for this reason.
 *
 * Here a disconnect flushes the endpoint, progressing the worker until the
 * flush completes or until one second after the first disconnect of the
 * process, and then leaves the endpoint to ucp_worker_destroy, which follows
 * shortly and never waits on a peer. Everything the program sent is on the
 * wire by then unless a peer has stopped listening. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <time.h>
#include <ucp/api/ucp.h>

typedef ucs_status_t (*worker_create_fn)(ucp_context_h, const ucp_worker_params_t*, ucp_worker_h*);

static ucp_worker_h first_worker; /* MPICH's only worker with one VCI */
static double deadline;

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

ucs_status_t ucp_worker_create(ucp_context_h context, const ucp_worker_params_t* params,
                               ucp_worker_h* worker) {
  static worker_create_fn real;
  if (real == NULL) real = (worker_create_fn)dlsym(RTLD_NEXT, "ucp_worker_create");
  ucs_status_t status = real(context, params, worker);
  if (status == UCS_OK && first_worker == NULL) first_worker = *worker;
  return status;
}

static void flushed(void* request, ucs_status_t status, void* user_data) {
  (void)request, (void)status, (void)user_data;
}

ucs_status_ptr_t ucp_disconnect_nb(ucp_ep_h ep) {
  if (deadline == 0) deadline = seconds() + 1.0;
  ucp_request_param_t param = {0};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK;
  param.cb.send = flushed;
  ucs_status_ptr_t request = ucp_ep_flush_nbx(ep, &param);
  if (UCS_PTR_IS_PTR(request)) {
    while (ucp_request_check_status(request) == UCS_INPROGRESS && seconds() < deadline)
      ucp_worker_progress(first_worker);
    ucp_request_free(request);
  }
  return UCS_OK;
}
