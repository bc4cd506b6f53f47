// F2I of NaN: "float to int: nan is out of range".
// expect-runtime-error: float to int: nan is out of range
// expect-stderr: error: float to int: nan is out of range
// expect-stderr:   at to_int (err_f2i_nan.tl:3)
// expect-stderr:   at main (err_f2i_nan.tl:9)
module "err_f2i_nan"
source "err_f2i_nan.tl"
main main

method to_int (float) : int static
  regs int
  line 3
  F2I r1, r0
  RET r1
end

method main () : void static
  regs float, int
  line 8
  LDF r0, nan
  line 9
  CALL r1, r0, to_int
  RETV
end
