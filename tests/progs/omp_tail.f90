! omp_tail.f90: a Fortran OpenMP region whose body is one call, which
! gfortran -O2 compiles to a body that jumps to it (`jmp work_`): the body's
! frame is in no stack (tests/e2e/test_omp_tail.sh).  Built with -fno-inline
! (gfortran 12 has no noinline attribute) so that the call stays a call.
! usage: omp_tail_f [scale]      (run with OMP_NUM_THREADS=2)
subroutine work(n)
  integer(8), intent(in) :: n
  integer(8) :: i
  integer(8), volatile :: x
  x = 1
  do i = 1, n
    x = x * 6364136223846793005_8 + 1442695040888963407_8
  end do
end subroutine work

subroutine region(n)
  integer(8), intent(in) :: n
  !$omp parallel
  call work(n)
  !$omp end parallel
end subroutine region

program omp_tail
  implicit none
  integer(8) :: n
  integer :: k
  character(len=32) :: arg
  real :: scale
  scale = 1.0
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) scale
  end if
  n = int(25000000 * scale, 8)
  do k = 1, 16
    call region(n)
  end do
  print '(a)', 'done'
end program omp_tail
