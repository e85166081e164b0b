! Matched probes from Fortran through AdaComp: Mprobe/Mrecv and
! Improbe/Imrecv of compressed messages (thresholds forced to 0), two message
! handles outstanding at once and received out of order, counts through
! MPI_Get_count, data bit-identical, MPI_MESSAGE_NO_PROC from MPI_PROC_NULL.
! Every receive goes through a matched probe, so stats_check.sh seeing
! compressed `recv` traffic means the matched receives decoded frames.
! Built twice: `use mpi`, and `use mpi_f08` with -DADACOMP_F08.
#ifdef ADACOMP_F08
#define SOURCE(s) s%MPI_SOURCE
#define TAG(s) s%MPI_TAG
#else
#define SOURCE(s) s(MPI_SOURCE)
#define TAG(s) s(MPI_TAG)
#endif
program fortran_mprobe
#ifdef ADACOMP_F08
  use mpi_f08
#else
  use mpi
#endif
  use, intrinsic :: iso_fortran_env, only : int64
  implicit none
  integer, parameter :: n = 20000, m = 30000
#ifdef ADACOMP_F08
  type(MPI_Message) :: msg1, msg2
  type(MPI_Status) :: status
  type(MPI_Request) :: req, sreqs(3)
#else
  integer :: msg1, msg2, status(MPI_STATUS_SIZE), req, sreqs(3)
#endif
  integer :: ierr, rank, nprocs, nxt, prv, i, fails, cnt, ignored_source
  logical :: flag
  double precision :: a(n), b(n + 10)
  integer :: ia(m), ib(m)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  nxt = mod(rank + 1, nprocs)
  prv = mod(rank - 1 + nprocs, nprocs)
  fails = 0
  do i = 1, n
    a(i) = dble(mod(i, 1000)) * 0.25d0 + rank
  end do
  a(3) = -0d0
  do i = 1, m
    ia(i) = i / 7 + rank * 1000
  end do
  call MPI_Isend(a, n, MPI_DOUBLE_PRECISION, nxt, 11, MPI_COMM_WORLD, sreqs(1), ierr)
  call MPI_Isend(a, n - 3, MPI_DOUBLE_PRECISION, nxt, 12, MPI_COMM_WORLD, sreqs(2), ierr)
  call MPI_Isend(ia, m, MPI_INTEGER, nxt, 13, MPI_COMM_WORLD, sreqs(3), ierr)

  ! Two handles at once: Mprobe tag 11, Improbe tag 12, received in reverse.
  call MPI_Mprobe(prv, 11, MPI_COMM_WORLD, msg1, status, ierr)
  call MPI_Get_count(status, MPI_DOUBLE_PRECISION, cnt, ierr)
  if (ierr /= MPI_SUCCESS .or. cnt /= n .or. SOURCE(status) /= prv .or. TAG(status) /= 11) &
    call fail(fails, 1)
  flag = .false.
  do while (.not. flag)
    call MPI_Improbe(MPI_ANY_SOURCE, 12, MPI_COMM_WORLD, flag, msg2, status, ierr)
  end do
  call MPI_Get_count(status, MPI_DOUBLE_PRECISION, cnt, ierr)
  if (cnt /= n - 3 .or. SOURCE(status) /= prv) call fail(fails, 2)
  if (msg1 == MPI_MESSAGE_NULL .or. msg2 == MPI_MESSAGE_NULL .or. msg1 == msg2) call fail(fails, 3)
  b = -1
  call MPI_Imrecv(b, n + 10, MPI_DOUBLE_PRECISION, msg2, req, ierr)
  if (msg2 /= MPI_MESSAGE_NULL) call fail(fails, 4)
  call MPI_Wait(req, status, ierr)
  call MPI_Get_count(status, MPI_DOUBLE_PRECISION, cnt, ierr)
  if (cnt /= n - 3 .or. TAG(status) /= 12) call fail(fails, 5)
  if (.not. same_bits(b, n - 3) .or. b(n - 2) /= -1) call fail(fails, 6)
  b = -1
  call MPI_Mrecv(b, n, MPI_DOUBLE_PRECISION, msg1, status, ierr)
  call MPI_Get_count(status, MPI_DOUBLE_PRECISION, cnt, ierr)
  if (ierr /= MPI_SUCCESS .or. msg1 /= MPI_MESSAGE_NULL .or. cnt /= n) call fail(fails, 7)
  if (.not. same_bits(b, n)) call fail(fails, 8)

  ! Wildcards: the integer message is the only one left. MPI_STATUS_IGNORE
  ! must be recognised, not written to (Wait has no buffer: on MPICH's
  ! mpi_f08 too it is our entry that sees the sentinel).
  call MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, msg1, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
  if (cnt /= m .or. TAG(status) /= 13) call fail(fails, 9)
  ib = 0
  ignored_source = SOURCE(MPI_STATUS_IGNORE)
  call MPI_Imrecv(ib, m, MPI_INTEGER, msg1, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  if (SOURCE(MPI_STATUS_IGNORE) /= ignored_source) call fail(fails, 10)
  if (any(ib /= ia - (rank - prv) * 1000)) call fail(fails, 11)
  call MPI_Waitall(3, sreqs, MPI_STATUSES_IGNORE, ierr)

  ! MPI_PROC_NULL: MPI_MESSAGE_NO_PROC, then an empty receive from MPI_PROC_NULL.
  call MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, msg1, status, ierr)
  if (msg1 /= MPI_MESSAGE_NO_PROC .or. SOURCE(status) /= MPI_PROC_NULL) call fail(fails, 12)
  call MPI_Mrecv(b, n, MPI_DOUBLE_PRECISION, msg1, status, ierr)
  call MPI_Get_count(status, MPI_DOUBLE_PRECISION, cnt, ierr)
  if (msg1 /= MPI_MESSAGE_NULL .or. SOURCE(status) /= MPI_PROC_NULL .or. cnt /= 0) &
    call fail(fails, 13)
  flag = .false.
  call MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, flag, msg2, status, ierr)
  if (.not. flag .or. msg2 /= MPI_MESSAGE_NO_PROC) call fail(fails, 14)
  call MPI_Imrecv(b, n, MPI_DOUBLE_PRECISION, msg2, req, ierr)
  call MPI_Wait(req, status, ierr)
  if (msg2 /= MPI_MESSAGE_NULL .or. SOURCE(status) /= MPI_PROC_NULL) call fail(fails, 15)

  call MPI_Allreduce(MPI_IN_PLACE, fails, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0)', 'fortran mprobe: failures ', fails
  call MPI_Finalize(ierr)
  if (fails /= 0) stop 1
contains
  ! The first k received values carry exactly the bits prv sent.
  logical function same_bits(x, k)
    double precision, intent(in) :: x(:)
    integer, intent(in) :: k
    integer :: j
    double precision :: e
    same_bits = .true.
    do j = 1, k
      e = dble(mod(j, 1000)) * 0.25d0 + prv
      if (j == 3) e = -0d0
      if (transfer(x(j), 0_int64) /= transfer(e, 0_int64)) same_bits = .false.
    end do
  end function
  subroutine fail(fails, id)
    integer, intent(inout) :: fails
    integer, intent(in) :: id
    print '(a,i0)', 'fortran mprobe: check failed: ', id
    fails = fails + 1
  end subroutine
end program
