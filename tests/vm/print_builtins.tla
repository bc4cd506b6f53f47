// Every print built-in: print_* without newline, println_*, println(),
// str_* conversions, and null printed by print_string.
// expect: -7 2.0 true text null
// expect: 9223372036854775807
// expect: 0.25
// expect: false
// expect: done
// expect: -9223372036854775808|1e+100|true
module "print_builtins"
source "print_builtins.tl"
main main
native print_int (int) : void = builtin "print_int"
native print_float (float) : void = builtin "print_float"
native print_bool (bool) : void = builtin "print_bool"
native print_string (string) : void = builtin "print_string"
native println_int (int) : void = builtin "println_int"
native println_float (float) : void = builtin "println_float"
native println_bool (bool) : void = builtin "println_bool"
native println_string (string) : void = builtin "println_string"
native println () : void = builtin "println"
native str_int (int) : string = builtin "str_int"
native str_float (float) : string = builtin "str_float"
native str_bool (bool) : string = builtin "str_bool"

method main () : void static
  regs int, float, bool, string, string, string
  LDK r4, " "
  LDI r0, -7
  CALLN _, r0, print_int
  CALLN _, r4, print_string
  LDF r1, 2.0
  CALLN _, r1, print_float
  CALLN _, r4, print_string
  LDTRUE r2
  CALLN _, r2, print_bool
  CALLN _, r4, print_string
  LDK r3, "text"
  CALLN _, r3, print_string
  CALLN _, r4, print_string
  LDNULL r3
  CALLN _, r3, print_string
  CALLN _, r0, println
  LDI r0, 9223372036854775807
  CALLN _, r0, println_int
  LDF r1, 0.25
  CALLN _, r1, println_float
  LDFALSE r2
  CALLN _, r2, println_bool
  LDK r3, "done"
  CALLN _, r3, print_string
  CALLN _, r0, println
  LDK r4, "|"
  LDI r0, -9223372036854775808
  CALLN r3, r0, str_int
  SCAT r3, r3, r4
  LDF r1, 1e100
  CALLN r5, r1, str_float
  SCAT r3, r3, r5
  SCAT r3, r3, r4
  LDTRUE r2
  CALLN r5, r2, str_bool
  SCAT r3, r3, r5
  CALLN _, r3, println_string
  RETV
end
