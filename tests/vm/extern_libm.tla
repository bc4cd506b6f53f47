// Natives through libffi: cbrt (glibc cbrt(27.0) is 3.0000000000000004, so 64) and pow from libm.so.6 (double), labs
// (int64) and strlen (string argument) from libc.so.6.
// expect: 4.0
// expect: -2.0
// expect: 1024.0
// expect: 5
// expect: 11
module "extern_libm"
source "extern_libm.tl"
main main
native cbrt (float) : float = "libm.so.6" "cbrt"
native pow (float, float) : float = "libm.so.6" "pow"
native labs (int) : int = "libc.so.6" "labs"
native strlen (string) : int = "libc.so.6" "strlen"
native println_float (float) : void = builtin "println_float"
native println_int (int) : void = builtin "println_int"

method main () : void static
  regs float, float, float, int, string
  LDF r0, 64.0
  CALLN r2, r0, cbrt
  CALLN _, r2, println_float
  LDF r0, -8.0
  CALLN r2, r0, cbrt
  CALLN _, r2, println_float
  LDF r0, 2.0
  LDF r1, 10.0
  CALLN r2, r0, pow
  CALLN _, r2, println_float
  LDI r3, -5
  CALLN r3, r3, labs
  CALLN _, r3, println_int
  LDK r4, "hello world"
  CALLN r3, r4, strlen
  CALLN _, r3, println_int
  RETV
end
