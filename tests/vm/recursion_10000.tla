// Deep recursion: sum(n) = n + sum(n - 1) at depth 10,000 and 100,000
// (the language promises at least 10,000).
// expect: 50005000
// expect: 5000050000
module "recursion_10000"
source "recursion_10000.tl"
main main
native println_int (int) : void = builtin "println_int"

method sum (int) : int static
  regs int
  JGTS r0, 0, more
  LDI r1, 0
  RET r1
more:
  ADDK r1, r0, -1
  CALL r1, r1, sum
  ADD r1, r1, r0
  RET r1
end

method main () : void static
  regs int, int
  LDI r0, 10000
  CALL r1, r0, sum
  CALLN _, r1, println_int
  LDI r0, 100000
  CALL r1, r0, sum
  CALLN _, r1, println_int
  RETV
end
