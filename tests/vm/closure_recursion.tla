// 10,000-deep recursion through a closure: a lambda's r0 is the running
// closure itself, so it can CALLF itself.
// expect: 50005000
// expect: 55
module "closure_recursion"
source "closure_recursion.tl"
main main
native println_int (int) : void = builtin "println_int"

// sum(n) = n + sum(n - 1), sum(0) = 0
method sum$1 (fn(int):int, int) : int lambda
  regs fn(int):int, int
  JGTS r1, 0, more
  RET r1
more:
  MOV r2, r0
  ADDK r3, r1, -1
  CALLF r3, r2
  ADD r3, r3, r1
  RET r3
end

method main () : void static
  regs fn(int):int, int, int
  CLOS r0, r0, sum$1
  LDI r1, 10000
  CALLF r2, r0
  CALLN _, r2, println_int
  LDI r1, 10
  CALLF r2, r0
  CALLN _, r2, println_int
  RETV
end
