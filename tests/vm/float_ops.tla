// Float arithmetic: FADD FSUB FMUL FDIV FNEG, I2F, F2I (truncating, the
// int range ends included), LDF forms, and the sqrt built-in.
// expect: 3.75
// expect: -0.75
// expect: 3.375
// expect: 0.25
// expect: -3.75
// expect: 7.0
// expect: 2
// expect: -2
// expect: 1.4142135623730951
// expect: inf
// expect: -inf
// expect: 9.223372036854776e+18
// expect: 9200000000000000000
// expect: -9223372036854775808
// expect: 0
// expect: 3.0
// expect: 0.30000000000000004
// expect: 1500.0
module "float_ops"
source "float_ops.tl"
main main
native println_int (int) : void = builtin "println_int"
native println_float (float) : void = builtin "println_float"
native sqrt (float) : float = builtin "sqrt"

method main () : void static
  regs float, float, float, int
  LDF r0, 1.5
  LDF r1, 2.25
  FADD r2, r0, r1
  CALLN _, r2, println_float
  FSUB r2, r0, r1
  CALLN _, r2, println_float
  FMUL r2, r0, r1
  CALLN _, r2, println_float
  LDF r0, 1.0
  LDF r1, 4.0
  FDIV r2, r0, r1
  CALLN _, r2, println_float
  LDF r0, 3.75
  FNEG r2, r0
  CALLN _, r2, println_float
  LDI r3, 7
  I2F r2, r3
  CALLN _, r2, println_float
  LDF r0, 2.9
  F2I r3, r0
  CALLN _, r3, println_int
  LDF r0, -2.9
  F2I r3, r0
  CALLN _, r3, println_int
  LDF r0, 2.0
  CALLN r2, r0, sqrt
  CALLN _, r2, println_float
  LDF r0, 1.0
  LDF r1, 0.0
  FDIV r2, r0, r1
  CALLN _, r2, println_float
  FNEG r0, r0
  FDIV r2, r0, r1
  CALLN _, r2, println_float
  LDI r3, 9223372036854775807
  I2F r2, r3
  CALLN _, r2, println_float
  LDF r0, 9.2e18
  F2I r3, r0
  CALLN _, r3, println_int
  LDF r0, -9.223372036854775808e18
  F2I r3, r0
  CALLN _, r3, println_int
  LDF r0, -0.5
  F2I r3, r0
  CALLN _, r3, println_int
  LDF r0, 9.0
  CALLN r2, r0, sqrt
  CALLN _, r2, println_float
  LDF r0, 0.1
  LDF r1, 0.2
  FADD r2, r0, r1
  CALLN _, r2, println_float
  LDF r0, 1.5e3
  CALLN _, r0, println_float
  RETV
end
