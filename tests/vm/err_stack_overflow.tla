// Unbounded recursion ends in "stack overflow" (exit status 1), not a crash.
// expect-runtime-error: stack overflow
module "err_stack_overflow"
source "err_stack_overflow.tl"
main main

method down (int) : int static
  regs int
  line 2
  ADDK r1, r0, 1
  line 3
  CALL r1, r1, down
  RET r1
end

method main () : void static
  regs int, int
  line 7
  CALL r1, r0, down
  RETV
end
