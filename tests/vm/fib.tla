// Recursive fib: fib(0..10) and fib(20).
// expect: 0 1 1 2 3 5 8 13 21 34 55
// expect: 6765
module "fib"
source "fib.tl"
main main
native print_int (int) : void = builtin "print_int"
native print_string (string) : void = builtin "print_string"
native println_int (int) : void = builtin "println_int"
native println () : void = builtin "println"

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

method main () : void static
  regs int, int, int, string
  LDI r0, 0
  LDI r2, 11
  LDK r3, " "
each:
  CALL r1, r0, fib
  CALLN _, r1, print_int
  JGES r0, 10, last
  CALLN _, r3, print_string
last:
  LOOP r0, r2, each
  CALLN _, r0, println
  LDI r0, 20
  CALL r1, r0, fib
  CALLN _, r1, println_int
  RETV
end
