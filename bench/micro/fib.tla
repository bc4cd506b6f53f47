// fib: naive recursive Fibonacci (call/return and int arithmetic).
//   fn fib(n: int): int { if n < 2 { return n; } return fib(n - 1) + fib(n - 2); }
//   fn main() { println(fib(35)); }
module "fib"
source "fib.tl"
main main

native println_int (int) : void = builtin "println_int"

method fib (int) : int static
  regs int, int
  line 2
  JGES r0, 2, recurse
  RET r0
recurse:
  line 3
  ADDK r1, r0, -1
  CALL r1, r1, fib
  ADDK r2, r0, -2
  CALL r2, r2, fib
  ADD r1, r1, r2
  RET r1
end

method main () : void static
  regs int
  line 4
  LDI r0, 35
  CALL r0, r0, fib
  CALLN _, r0, println_int
  RETV
end
