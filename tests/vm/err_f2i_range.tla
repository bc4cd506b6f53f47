// F2I out of range: "float to int: 1e+19 is out of range" (value as str
// prints it); 2^63 itself is out of range too, but is not reached.
// expect: -9223372036854775808
// expect-runtime-error: float to int: 1e+19 is out of range
// expect-stderr: error: float to int: 1e+19 is out of range
// expect-stderr:   at to_int (err_f2i_range.tl:3)
// expect-stderr:   at main (err_f2i_range.tl:11)
module "err_f2i_range"
source "err_f2i_range.tl"
main main
native println_int (int) : void = builtin "println_int"

method to_int (float) : int static
  regs int
  line 3
  F2I r1, r0
  RET r1
end

method main () : void static
  regs float, int
  line 8
  LDF r0, -9.223372036854775808e18
  CALL r1, r0, to_int
  CALLN _, r1, println_int
  LDF r0, 1e19
  line 11
  CALL r1, r0, to_int
  RETV
end
