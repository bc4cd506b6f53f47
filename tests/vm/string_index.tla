// SGET reads bytes as 0..255 (bytes >= 128 are not sign-extended); a loop
// over a string's bytes.
// expect: 72
// expect: 105
// expect: 33
// expect: 255
// expect: 128
// expect: 0
// expect: 616
module "string_index"
source "string_index.tl"
main main
native println_int (int) : void = builtin "println_int"

method main () : void static
  regs string, int, int, int, int
  LDK r0, "Hi!"
  LDI r1, 0
  SGET r2, r0, r1
  CALLN _, r2, println_int
  LDI r1, 1
  SGET r2, r0, r1
  CALLN _, r2, println_int
  LDI r1, 2
  SGET r2, r0, r1
  CALLN _, r2, println_int
  LDK r0, "\xff\x80\0"
  LDI r1, 0
  SGET r2, r0, r1
  CALLN _, r2, println_int
  LDI r1, 1
  SGET r2, r0, r1
  CALLN _, r2, println_int
  LDI r1, 2
  SGET r2, r0, r1
  CALLN _, r2, println_int
  // sum of the bytes of "tally!!"
  LDK r0, "tally!!"
  SLEN r3, r0
  LDI r1, 0
  LDI r4, 0
next:
  SGET r2, r0, r1
  ADD r4, r4, r2
  LOOP r1, r3, next
  CALLN _, r4, println_int
  RETV
end
