// 64-bit wrapping of ADD, SUB, MUL, NEG and ADDK at the int limits.
// expect: -9223372036854775808
// expect: 9223372036854775807
// expect: -2
// expect: -9223372036854775808
// expect: -9223372036854775808
// expect: -9223372036709301616
// expect: -9223372036854775808
// expect: 9223372036854775807
module "arith_wrap"
source "arith_wrap.tl"
main main
native println_int (int) : void = builtin "println_int"

method main () : void static
  regs int, int, int, int
  LDI r0, 9223372036854775807
  LDI r1, 1
  ADD r2, r0, r1              // MAX + 1 = MIN
  CALLN _, r2, println_int
  LDI r3, -9223372036854775808
  SUB r2, r3, r1              // MIN - 1 = MAX
  CALLN _, r2, println_int
  LDI r1, 2
  MUL r2, r0, r1              // MAX * 2 = -2
  CALLN _, r2, println_int
  NEG r2, r3                  // -MIN = MIN
  CALLN _, r2, println_int
  ADDK r2, r0, 1              // MAX + 1 = MIN
  CALLN _, r2, println_int
  LDI r1, 3037000500
  MUL r2, r1, r1
  CALLN _, r2, println_int
  LDI r1, -1
  MUL r2, r3, r1              // MIN * -1 = MIN
  CALLN _, r2, println_int
  LDI r1, 0x7fffffffffffffff
  CALLN _, r1, println_int
  RETV
end
