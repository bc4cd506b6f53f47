// Float printing: the shortest of %.15g/%.16g/%.17g that reads back, plus
// ".0" when the text has no '.', 'e', "inf" or "nan"; also str_float and
// print_float (no newline).
// expect: 1.0
// expect: 0.1
// expect: 0.3333333333333333
// expect: 0.6666666666666666
// expect: 100.0
// expect: 1000000000000000.0
// expect: 100000000000000.0
// expect: 123.456
// expect: -0.0
// expect: 1e+300
// expect: 1e-07
// expect: 2.5e-05
// expect: inf
// expect: -inf
// expect: nan
// expect: nan
// expect: 5e-324
// expect: 14.285714285714286
// expect: 1e+23
// expect: x=0.5
// expect: 2.5|-1.0
module "float_print"
source "float_print.tl"
main main
native println_float (float) : void = builtin "println_float"
native print_float (float) : void = builtin "print_float"
native println_string (string) : void = builtin "println_string"
native print_string (string) : void = builtin "print_string"
native str_float (float) : string = builtin "str_float"

method main () : void static
  regs float, float, float, string, string
  LDF r0, 1.0
  CALLN _, r0, println_float
  LDF r0, 0.1
  CALLN _, r0, println_float
  LDF r0, 1.0
  LDF r1, 3.0
  FDIV r2, r0, r1
  CALLN _, r2, println_float
  LDF r0, 2.0
  FDIV r2, r0, r1
  CALLN _, r2, println_float
  LDF r0, 100.0
  CALLN _, r0, println_float
  LDF r0, 1e15
  CALLN _, r0, println_float
  LDF r0, 1e14
  CALLN _, r0, println_float
  LDF r0, 123.456
  CALLN _, r0, println_float
  LDF r0, 0.0
  FNEG r0, r0
  CALLN _, r0, println_float
  LDF r0, 1e300
  CALLN _, r0, println_float
  LDF r0, 1e-7
  CALLN _, r0, println_float
  LDF r0, 2.5e-5
  CALLN _, r0, println_float
  LDF r0, inf
  CALLN _, r0, println_float
  LDF r0, -inf
  CALLN _, r0, println_float
  LDF r0, nan
  CALLN _, r0, println_float
  LDF r0, 0.0
  FDIV r0, r0, r0             // 0/0: the machine's NaN has its sign bit set
  CALLN _, r0, println_float
  LDF r0, 5e-324
  CALLN _, r0, println_float
  LDF r0, 100.0
  LDF r1, 7.0
  FDIV r2, r0, r1
  CALLN _, r2, println_float
  LDF r0, 1e23
  CALLN _, r0, println_float
  LDK r3, "x="
  LDF r0, 0.5
  CALLN r4, r0, str_float
  SCAT r3, r3, r4
  CALLN _, r3, println_string
  LDF r0, 2.5
  CALLN _, r0, print_float
  LDK r3, "|"
  CALLN _, r3, print_string
  LDF r0, -1.0
  CALLN _, r0, print_float
  LDK r3, ""
  CALLN _, r3, println_string
  RETV
end
