! Fortran (use mpi) through AdaComp: point-to-point and collectives with
! thresholds forced to 0, each result checked against the exact expected
! values; fortran_report.sh then checks the JSON statistics for compressed
! calls. Counts failures and stops with a non-zero code on any.
program fortran_p2p_coll
  use mpi
  implicit none
  integer, parameter :: n = 20000
  integer :: ierr, rank, nprocs, nxt, prv, i, fails, cnt, half, hrank, hsize
  integer :: status(MPI_STATUS_SIZE), reqs(2), statuses(MPI_STATUS_SIZE, 2)
  double precision, allocatable :: a(:), b(:), c(:), g(:)
  integer, allocatable :: ia(:), ib(:)
  double precision :: expect

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  nxt = mod(rank + 1, nprocs)
  prv = mod(rank - 1 + nprocs, nprocs)
  fails = 0
  allocate(a(n), b(n), c(n), g(n * nprocs), ia(n * nprocs), ib(n * nprocs))

  ! Send/Recv round the ring, status and count.
  do i = 1, n
    a(i) = (dble(mod(i, 1000)) * 0.5d0) + rank
  end do
  call MPI_Sendrecv(a, n, MPI_DOUBLE_PRECISION, nxt, 1, b, n, MPI_DOUBLE_PRECISION, prv, 1, &
                    MPI_COMM_WORLD, status, ierr)
  call MPI_Get_count(status, MPI_DOUBLE_PRECISION, cnt, ierr)
  if (cnt /= n .or. status(MPI_SOURCE) /= prv) call fail(fails, 1)
  do i = 1, n
    if (b(i) /= (dble(mod(i, 1000)) * 0.5d0) + prv) then
      call fail(fails, 2)
      exit
    end if
  end do

  ! Isend/Irecv + Waitall with statuses; Send/Recv with MPI_STATUS_IGNORE.
  b = 0
  call MPI_Irecv(b, n, MPI_DOUBLE_PRECISION, prv, 2, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(a, n, MPI_DOUBLE_PRECISION, nxt, 2, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, statuses, ierr)
  call MPI_Get_count(statuses(:, 1), MPI_DOUBLE_PRECISION, cnt, ierr)
  if (cnt /= n .or. reqs(1) /= MPI_REQUEST_NULL) call fail(fails, 3)
  if (b(n) /= (dble(mod(n, 1000)) * 0.5d0) + prv) call fail(fails, 4)
  b = 0
  call MPI_Irecv(b, n, MPI_DOUBLE_PRECISION, prv, 3, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Send(a, n, MPI_DOUBLE_PRECISION, nxt, 3, MPI_COMM_WORLD, ierr)
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)
  if (b(7) /= 3.5d0 + prv) call fail(fails, 5)

  ! Probe reports the application's count.
  call MPI_Isend(a, n - 5, MPI_DOUBLE_PRECISION, nxt, 4, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Probe(MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, status, ierr)
  call MPI_Get_count(status, MPI_DOUBLE_PRECISION, cnt, ierr)
  if (cnt /= n - 5) call fail(fails, 6)
  call MPI_Recv(b, n, MPI_DOUBLE_PRECISION, status(MPI_SOURCE), 4, MPI_COMM_WORLD, status, ierr)
  call MPI_Wait(reqs(2), MPI_STATUS_IGNORE, ierr)

  ! Allreduce (normal and in place), Bcast, Reduce.
  do i = 1, n
    a(i) = dble(mod(i, 97)) + rank
  end do
  call MPI_Allreduce(a, b, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  expect = nprocs * dble(mod(5, 97)) + nprocs * (nprocs - 1) / 2
  if (b(5) /= expect) call fail(fails, 7)
  b = a
  call MPI_Allreduce(MPI_IN_PLACE, b, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (b(5) /= expect) call fail(fails, 8)
  if (rank == 0) b = a
  call MPI_Bcast(b, n, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  if (b(9) /= 9d0) call fail(fails, 9)
  b = a
  if (rank == 0) call MPI_Reduce(MPI_IN_PLACE, b, n, MPI_DOUBLE_PRECISION, MPI_MAX, 0, &
                                 MPI_COMM_WORLD, ierr)
  if (rank /= 0) call MPI_Reduce(a, b, n, MPI_DOUBLE_PRECISION, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. b(3) /= 3d0 + nprocs - 1) call fail(fails, 10)

  ! Nonblocking Iallreduce and Ibcast (compressed: docs/nonblocking.md),
  ! completed by Waitall; Iallreduce in place by Wait.
  c = 0
  if (rank == 0) c = a
  call MPI_Iallreduce(a, b, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Ibcast(c, n, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, statuses, ierr)
  if (b(5) /= expect .or. reqs(1) /= MPI_REQUEST_NULL) call fail(fails, 16)
  if (c(9) /= 9d0) call fail(fails, 17)
  b = a
  call MPI_Iallreduce(MPI_IN_PLACE, b, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, &
                      reqs(1), ierr)
  call MPI_Wait(reqs(1), status, ierr)
  if (b(5) /= expect .or. b(n) /= nprocs * dble(mod(n, 97)) + nprocs * (nprocs - 1) / 2) &
    call fail(fails, 18)

  ! Allgather, Alltoall, Gather with MPI_IN_PLACE at the root, Scatter.
  do i = 1, n
    ia(i) = i / 3 + rank * 100000
  end do
  call MPI_Allgather(ia, n, MPI_INTEGER, ib, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do i = 0, nprocs - 1
    if (ib(i * n + 10) /= 10 / 3 + i * 100000) call fail(fails, 11)
  end do
  do i = 1, n * nprocs
    ia(i) = (i - 1) / n * 1000 + rank
  end do
  call MPI_Alltoall(ia, n, MPI_INTEGER, ib, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do i = 0, nprocs - 1
    if (ib(i * n + 1) /= rank * 1000 + i) call fail(fails, 12)
  end do
  g = -1
  g(rank * n + 1 : rank * n + n) = a
  if (rank == 0) then
    call MPI_Gather(MPI_IN_PLACE, n, MPI_DOUBLE_PRECISION, g, n, MPI_DOUBLE_PRECISION, 0, &
                    MPI_COMM_WORLD, ierr)
    do i = 0, nprocs - 1
      if (g(i * n + 2) /= 2d0 + i) call fail(fails, 13)
    end do
  else
    call MPI_Gather(a, n, MPI_DOUBLE_PRECISION, g, n, MPI_DOUBLE_PRECISION, 0, &
                    MPI_COMM_WORLD, ierr)
  end if
  call MPI_Scatter(g, n, MPI_DOUBLE_PRECISION, b, n, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  if (b(2) /= 2d0 + rank) call fail(fails, 14)

  ! Nonblocking Iallgather and Igather with MPI_IN_PLACE at the root
  ! (compressed: docs/nonblocking.md), completed by Waitall.
  ib = -1
  call MPI_Iallgather(ia, n, MPI_INTEGER, ib, n, MPI_INTEGER, MPI_COMM_WORLD, reqs(1), ierr)
  g = -1
  g(rank * n + 1 : rank * n + n) = a
  if (rank == 0) then
    call MPI_Igather(MPI_IN_PLACE, n, MPI_DOUBLE_PRECISION, g, n, MPI_DOUBLE_PRECISION, 0, &
                     MPI_COMM_WORLD, reqs(2), ierr)
  else
    call MPI_Igather(a, n, MPI_DOUBLE_PRECISION, g, n, MPI_DOUBLE_PRECISION, 0, &
                     MPI_COMM_WORLD, reqs(2), ierr)
  end if
  call MPI_Waitall(2, reqs, statuses, ierr)
  do i = 0, nprocs - 1
    if (ib(i * n + 1) /= i .or. ib(i * n + n) /= i) call fail(fails, 40)
    if (rank == 0 .and. g(i * n + 2) /= 2d0 + i) call fail(fails, 41)
  end do

  ! A split communicator.
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
  call MPI_Comm_rank(half, hrank, ierr)
  call MPI_Comm_size(half, hsize, ierr)
  call MPI_Sendrecv(a, n, MPI_DOUBLE_PRECISION, mod(hrank + 1, hsize), 5, b, n, &
                    MPI_DOUBLE_PRECISION, mod(hrank - 1 + hsize, hsize), 5, half, status, ierr)
  call MPI_Get_count(status, MPI_DOUBLE_PRECISION, cnt, ierr)
  if (cnt /= n) call fail(fails, 15)
  call MPI_Comm_free(half, ierr)

  call MPI_Allreduce(MPI_IN_PLACE, fails, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0)', 'fortran: failures ', fails
  call MPI_Finalize(ierr)
  if (fails /= 0) stop 1
contains
  subroutine fail(fails, id)
    integer, intent(inout) :: fails
    integer, intent(in) :: id
    print '(a,i0)', 'fortran: check failed: ', id
    fails = fails + 1
  end subroutine
end program
