// DIV and MOD at INT64_MIN: MIN / -1 = MIN, MIN % -1 = 0 (no trap).
// expect: -9223372036854775808
// expect: 0
// expect: -9223372036854775808
// expect: -4611686018427387904
// expect: 0
// expect: -3074457345618258602
// expect: -2
// expect: 0
// expect: 7
module "div_min"
source "div_min.tl"
main main
native println_int (int) : void = builtin "println_int"

method main () : void static
  regs int, int, int
  LDI r0, -9223372036854775808
  LDI r1, -1
  DIV r2, r0, r1
  CALLN _, r2, println_int
  MOD r2, r0, r1
  CALLN _, r2, println_int
  LDI r1, 1
  DIV r2, r0, r1
  CALLN _, r2, println_int
  LDI r1, 2
  DIV r2, r0, r1
  CALLN _, r2, println_int
  MOD r2, r0, r1
  CALLN _, r2, println_int
  LDI r1, 3
  DIV r2, r0, r1
  CALLN _, r2, println_int
  MOD r2, r0, r1
  CALLN _, r2, println_int
  LDI r1, 7
  DIV r2, r1, r0              // 7 / MIN
  CALLN _, r2, println_int
  MOD r2, r1, r0              // 7 % MIN
  CALLN _, r2, println_int
  RETV
end
