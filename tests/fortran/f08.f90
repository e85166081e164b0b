! `use mpi_f08` through AdaComp (Open MPI: every routine through our
! mpi_<name>_f08_; MPICH: buffer routines through our C entry points, the
! others, Init and Waitall here, through our mpi_<name>_f08_). Checked like
! p2p_coll.f90.
program fortran_f08
  use mpi_f08
  implicit none
  integer, parameter :: n = 20000
  integer :: rank, nprocs, nxt, prv, i, fails, cnt
  type(MPI_Status) :: status
  type(MPI_Request) :: reqs(2)
  double precision :: a(n), b(n)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  nxt = mod(rank + 1, nprocs)
  prv = mod(rank - 1 + nprocs, nprocs)
  fails = 0
  do i = 1, n
    a(i) = dble(mod(i, 1000)) * 0.25d0 + rank
  end do
  call MPI_Irecv(b, n, MPI_DOUBLE_PRECISION, prv, 1, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(a, n, MPI_DOUBLE_PRECISION, nxt, 1, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  if (b(10) /= 2.5d0 + prv) fails = fails + 1
  call MPI_Sendrecv(a, n, MPI_DOUBLE_PRECISION, nxt, 2, b, n, MPI_DOUBLE_PRECISION, prv, 2, &
                    MPI_COMM_WORLD, status)
  call MPI_Get_count(status, MPI_DOUBLE_PRECISION, cnt)
  if (cnt /= n .or. status%MPI_SOURCE /= prv) fails = fails + 1
  b = a
  call MPI_Allreduce(MPI_IN_PLACE, b, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  if (b(4) /= nprocs * 1d0 + nprocs * (nprocs - 1) / 2) fails = fails + 1
  call MPI_Allreduce(MPI_IN_PLACE, fails, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print '(a,i0)', 'fortran f08: failures ', fails
  call MPI_Finalize()
  if (fails /= 0) stop 1
end program
