// AGETI past the end: "index out of bounds: index 7, length 3".
// expect-runtime-error: index out of bounds: index 7, length 3
// expect-stderr: error: index out of bounds: index 7, length 3
// expect-stderr:   at get (err_bounds.tl:2)
// expect-stderr:   at main (err_bounds.tl:6)
module "err_bounds"
source "err_bounds.tl"
main main

method get (int[], int) : int static
  regs int
  line 2
  AGETI r2, r0, r1
  RET r2
end

method main () : void static
  regs int[], int, int
  line 5
  LDI r1, 3
  NEWA r0, r1, int[]
  LDI r1, 2
  CALL r2, r0, get
  LDI r1, 7
  line 6
  CALL r2, r0, get
  RETV
end
