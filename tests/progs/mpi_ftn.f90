! mpi_ftn.f90 — the MPI Fortran bindings under tally record -m
! (tests/e2e/test_mpi.sh): rank r sends (r+1)*1000 default integers to
! rank r+1 through `use mpi` (mpi_send_) from send_old, then (r+1)*2000
! through `use mpi_f08` (mpi_send_f08_) from send_new; everyone meets in
! MPI_Barrier; one MPI_Allreduce.
subroutine send_old(rank, nranks)
  use mpi
  implicit none
  integer, intent(in) :: rank, nranks
  integer :: ierr, n, n_in, req
  integer, allocatable :: out(:), in(:)
  n = (rank + 1) * 1000
  n_in = (modulo(rank - 1, nranks) + 1) * 1000
  allocate(out(n), in(n_in))
  out = rank
  call mpi_irecv(in, n_in, MPI_INTEGER, modulo(rank - 1, nranks), 5, MPI_COMM_WORLD, req, ierr)
  call mpi_send(out, n, MPI_INTEGER, modulo(rank + 1, nranks), 5, MPI_COMM_WORLD, ierr)
  call mpi_wait(req, MPI_STATUS_IGNORE, ierr)
  call mpi_barrier(MPI_COMM_WORLD, ierr)
end subroutine send_old

subroutine send_new(rank, nranks)
  use mpi_f08
  implicit none
  integer, intent(in) :: rank, nranks
  integer :: n, n_in, total
  type(MPI_Request) :: req
  integer, allocatable :: out(:), in(:)
  n = (rank + 1) * 2000
  n_in = (modulo(rank - 1, nranks) + 1) * 2000
  allocate(out(n), in(n_in))
  out = rank
  call MPI_Irecv(in, n_in, MPI_INTEGER, modulo(rank - 1, nranks), 6, MPI_COMM_WORLD, req)
  call MPI_Send(out, n, MPI_INTEGER, modulo(rank + 1, nranks), 6, MPI_COMM_WORLD)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
end subroutine send_new

program mpi_ftn
  use mpi
  implicit none
  integer :: ierr, rank, nranks
  call mpi_init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, nranks, ierr)
  call send_old(rank, nranks)
  call send_new(rank, nranks)
  call mpi_finalize(ierr)
end program mpi_ftn
