// SHL, SHR (arithmetic) and USHR (logical); the count is taken & 63.
// expect: 40
// expect: -9223372036854775808
// expect: 1
// expect: -9223372036854775808
// expect: -4
// expect: -1
// expect: 15
// expect: 9223372036854775807
// expect: -16
// expect: 1
// expect: 2
module "shifts"
source "shifts.tl"
main main
native println_int (int) : void = builtin "println_int"

method main () : void static
  regs int, int, int
  LDI r0, 5
  LDI r1, 3
  SHL r2, r0, r1              // 5 << 3
  CALLN _, r2, println_int
  LDI r0, 1
  LDI r1, 63
  SHL r2, r0, r1              // 1 << 63
  CALLN _, r2, println_int
  LDI r1, 64
  SHL r2, r0, r1              // 1 << (64 & 63) = 1
  CALLN _, r2, println_int
  LDI r1, -1
  SHL r2, r0, r1              // 1 << (-1 & 63) = 1 << 63
  CALLN _, r2, println_int
  LDI r0, -16
  LDI r1, 2
  SHR r2, r0, r1              // -16 >> 2
  CALLN _, r2, println_int
  LDI r1, 63
  SHR r2, r0, r1              // -16 >> 63
  CALLN _, r2, println_int
  LDI r1, 60
  USHR r2, r0, r1             // -16 >>> 60
  CALLN _, r2, println_int
  LDI r0, -1
  LDI r1, 1
  USHR r2, r0, r1             // -1 >>> 1
  CALLN _, r2, println_int
  LDI r0, -16
  LDI r1, 64
  USHR r2, r0, r1             // -16 >>> 0
  CALLN _, r2, println_int
  LDI r0, 4
  LDI r1, 66
  SHR r2, r0, r1              // 4 >> 2
  CALLN _, r2, println_int
  USHR r2, r0, r1             // 4 >>> 2 -> 1; then shift 1 left by 1
  LDI r1, 1
  SHL r2, r2, r1
  CALLN _, r2, println_int
  RETV
end
