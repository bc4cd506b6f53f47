// SCAT: building strings in a loop, with str_int, the empty string on
// either side, and a longer result measured with SLEN.
// expect: abcde
// expect: n=-5
// expect: left
// expect: right
// expect: 2000
// expect: 10,9,8,7,6,5,4,3,2,1,
module "concat"
source "concat.tl"
main main
native println_int (int) : void = builtin "println_int"
native println_string (string) : void = builtin "println_string"
native str_int (int) : string = builtin "str_int"
native chr (int) : string = builtin "chr"

method main () : void static
  regs string, int, int, string, string, int
  // "a" + "b" + ... + "e"
  LDK r0, ""
  LDI r1, 0
  LDI r2, 5
letters:
  ADDK r5, r1, 97
  CALLN r3, r5, chr
  SCAT r0, r0, r3
  LOOP r1, r2, letters
  CALLN _, r0, println_string
  LDK r0, "n="
  LDI r5, -5
  CALLN r3, r5, str_int
  SCAT r0, r0, r3
  CALLN _, r0, println_string
  LDK r0, "left"
  LDK r3, ""
  SCAT r4, r0, r3
  CALLN _, r4, println_string
  LDK r0, "right"
  SCAT r4, r3, r0
  CALLN _, r4, println_string
  // 400 x "ab.cd" = 2000 bytes
  LDK r0, ""
  LDK r3, "ab.cd"
  LDI r1, 0
  LDI r2, 400
grow:
  SCAT r0, r0, r3
  LOOP r1, r2, grow
  SLEN r5, r0
  CALLN _, r5, println_int
  // countdown "10,9,...,1,"
  LDK r0, ""
  LDK r4, ","
  LDI r5, 10
down:
  CALLN r3, r5, str_int
  SCAT r0, r0, r3
  SCAT r0, r0, r4
  ADDK r5, r5, -1
  JGTS r5, 0, down
  CALLN _, r0, println_string
  RETV
end
