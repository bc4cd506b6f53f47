// NEWA with a negative length: "negative array length: -3".
// expect-runtime-error: negative array length: -3
// expect-stderr: error: negative array length: -3
// expect-stderr:   at make (err_neg_array.tl:3)
// expect-stderr:   at main (err_neg_array.tl:9)
module "err_neg_array"
source "err_neg_array.tl"
main main

method make (int) : float[] static
  regs float[]
  line 3
  NEWA r1, r0, float[]
  RET r1
end

method main () : void static
  regs int, float[]
  line 8
  LDI r0, -3
  line 9
  CALL r1, r0, make
  RETV
end
