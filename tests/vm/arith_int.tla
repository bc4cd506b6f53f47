// Integer arithmetic: ADD SUB MUL DIV MOD (truncating, sign of dividend),
// AND OR XOR BNOT NEG ADDK, MOV, and LDI in decimal, negative and hex.
// expect: 22
// expect: 12
// expect: -12
// expect: 85
// expect: 3
// expect: 2
// expect: -3
// expect: -2
// expect: -3
// expect: 2
// expect: 3
// expect: -2
// expect: 8
// expect: 14
// expect: 6
// expect: -13
// expect: -3
// expect: 255
// expect: -17
// expect: 17
module "arith_int"
source "arith_int.tl"
main main
native println_int (int) : void = builtin "println_int"

method main () : void static
  regs int, int, int, int, int
  LDI r0, 17
  LDI r1, 5
  LDI r3, -17
  LDI r4, -5
  ADD r2, r0, r1
  CALLN _, r2, println_int
  SUB r2, r0, r1
  CALLN _, r2, println_int
  SUB r2, r1, r0
  CALLN _, r2, println_int
  MUL r2, r0, r1
  CALLN _, r2, println_int
  DIV r2, r0, r1              // 17 / 5
  CALLN _, r2, println_int
  MOD r2, r0, r1              // 17 % 5
  CALLN _, r2, println_int
  DIV r2, r3, r1              // -17 / 5
  CALLN _, r2, println_int
  MOD r2, r3, r1              // -17 % 5
  CALLN _, r2, println_int
  DIV r2, r0, r4              // 17 / -5
  CALLN _, r2, println_int
  MOD r2, r0, r4              // 17 % -5
  CALLN _, r2, println_int
  DIV r2, r3, r4              // -17 / -5
  CALLN _, r2, println_int
  MOD r2, r3, r4              // -17 % -5
  CALLN _, r2, println_int
  LDI r0, 12
  LDI r1, 10
  AND r2, r0, r1
  CALLN _, r2, println_int
  OR r2, r0, r1
  CALLN _, r2, println_int
  XOR r2, r0, r1
  CALLN _, r2, println_int
  BNOT r2, r0
  CALLN _, r2, println_int
  LDI r0, 17
  ADDK r2, r0, -20
  CALLN _, r2, println_int
  LDI r2, 0xff
  CALLN _, r2, println_int
  NEG r2, r0
  CALLN _, r2, println_int
  MOV r1, r0
  CALLN _, r1, println_int
  RETV
end
