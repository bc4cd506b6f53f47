// F2I of exactly 2^63 (one past INT64_MAX) is out of range.
// expect-runtime-error: float to int: 9.223372036854776e+18 is out of range
// expect-stderr: error: float to int: 9.223372036854776e+18 is out of range
// expect-stderr:   at main (err_f2i_2p63.tl:4)
module "err_f2i_2p63"
source "err_f2i_2p63.tl"
main main

method main () : void static
  regs float, int
  line 3
  LDF r0, 9.223372036854775808e18
  line 4
  F2I r1, r0
  RETV
end
