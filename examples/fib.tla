// examples/fib.tla — demo: recursive Fibonacci in tally bytecode text.
//
//   bin/tally run examples/fib.tla [n]      (n defaults to 27)
//
// Prints "fib(n) = <value>" and, on a second line, the time the call took
// ("time: <seconds> s", measured with clock()).  There is no string-to-int
// built-in, so the argument's decimal digits are parsed here with SGET.
module "fib"
source "fib.tla"
main main
native println_string (string) : void = builtin "println_string"
native str_int (int) : string = builtin "str_int"
native str_float (float) : string = builtin "str_float"
native clock () : float = builtin "clock"

// fib(n) = n for n < 2, else fib(n - 1) + fib(n - 2)
method fib (int) : int static
  regs int, int
  JGES r0, 2, rec
  RET r0
rec:
  ADDK r1, r0, -1
  CALL r1, r1, fib
  ADDK r2, r0, -2
  CALL r2, r2, fib
  ADD r1, r1, r2
  RET r1
end

// The value of a string of decimal digits; parsing stops at the first
// byte that is not a digit ("" and "x" give 0).
method parse_int (string) : int static
  regs int, int, int, int, int
  LDI r1, 0                   // value
  LDI r2, 0                   // index
  SLEN r3, r0
  LDI r5, 10
next:
  JLE r3, r2, done
  SGET r4, r0, r2
  JLTS r4, 48, done           // below '0'
  JGTS r4, 57, done           // above '9'
  ADDK r4, r4, -48
  MUL r1, r1, r5
  ADD r1, r1, r4
  ADDK r2, r2, 1
  JMP next
done:
  RET r1
end

method main (string[]) : void static
  regs int, string, float, float, int, string, string
  LDI r1, 27                  // n
  ALEN r5, r0
  JLES r5, 0, run
  LDI r5, 0
  AGETR r2, r0, r5
  CALL r1, r2, parse_int
run:
  CALLN r3, r0, clock
  CALL r5, r1, fib
  CALLN r4, r0, clock
  FSUB r4, r4, r3
  // "fib(n) = value"
  LDK r6, "fib("
  CALLN r7, r1, str_int
  SCAT r6, r6, r7
  LDK r7, ") = "
  SCAT r6, r6, r7
  CALLN r7, r5, str_int
  SCAT r6, r6, r7
  CALLN _, r6, println_string
  // "time: seconds s"
  LDK r6, "time: "
  CALLN r7, r4, str_float
  SCAT r6, r6, r7
  LDK r7, " s"
  SCAT r6, r6, r7
  CALLN _, r6, println_string
  RETV
end
