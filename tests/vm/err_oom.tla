// With a 32 MB heap limit, keeping 8 MB arrays alive ends in "out of memory".
// flags: -X gc.max_heap=32M
// expect-runtime-error: out of memory
// expect-stderr: error: out of memory
// expect-stderr:   at grab (err_oom.tl:3)
// expect-stderr:   at main (err_oom.tl:12)
module "err_oom"
source "err_oom.tl"
main main

method grab (int) : int[] static
  regs int[]
  line 3
  NEWA r1, r0, int[]
  RET r1
end

method main () : void static
  regs Object[], int, int, int, int[]
  line 9
  LDI r1, 1000
  NEWA r0, r1, Object[]
  LDI r2, 0
  LDI r3, 1000000
keep:
  line 12
  CALL r4, r3, grab
  line 13
  APUTR r0, r2, r4
  LOOP r2, r1, keep
  RETV
end
