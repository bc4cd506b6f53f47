// float[]: NEWA (zeroed to 0.0), APUTF/AGETF, an average, special values.
// expect: 0.0
// expect: 4
// expect: 2.75
// expect: -inf
// expect: nan
module "arrays_float"
source "arrays_float.tl"
main main
native println_int (int) : void = builtin "println_int"
native println_float (float) : void = builtin "println_float"

method main () : void static
  regs float[], int, float, float, int
  LDI r1, 4
  NEWA r0, r1, float[]
  LDI r1, 2
  AGETF r2, r0, r1
  CALLN _, r2, println_float        // 0.0
  ALEN r4, r0
  CALLN _, r4, println_int          // 4
  // a = {1.0, 2.5, 3.0, 4.5}
  LDI r1, 0
  LDF r2, 1.0
  APUTF r0, r1, r2
  LDI r1, 1
  LDF r2, 2.5
  APUTF r0, r1, r2
  LDI r1, 2
  LDF r2, 3.0
  APUTF r0, r1, r2
  LDI r1, 3
  LDF r2, 4.5
  APUTF r0, r1, r2
  LDI r1, 0
  LDF r3, 0.0
sum:
  AGETF r2, r0, r1
  FADD r3, r3, r2
  LOOP r1, r4, sum
  I2F r2, r4
  FDIV r3, r3, r2
  CALLN _, r3, println_float        // 11 / 4 = 2.75
  LDI r1, 0
  LDF r2, -inf
  APUTF r0, r1, r2
  AGETF r3, r0, r1
  CALLN _, r3, println_float
  LDF r2, nan
  APUTF r0, r1, r2
  AGETF r3, r0, r1
  CALLN _, r3, println_float
  RETV
end
