// Closures: CLOS of lambdas with and without captures, CALLF (the closure
// in b, arguments in b+1...), closures passed to and returned from
// functions, a closure capturing another closure, void and zero-parameter
// function types, two parameters.
// expect: 42
// expect: 15
// expect: 99
// expect: 7
// expect: 4
// expect: hi from lambda
// expect: 77
// expect: 42
module "closures"
source "closures.tl"
main main
native println_int (int) : void = builtin "println_int"
native println_string (string) : void = builtin "println_string"

method inc$1 (fn(int):int, int) : int lambda
  ADDK r1, r1, 1
  RET r1
end

method adder$1 (fn(int):int, int) : int lambda
  caps int
  regs int
  LDCAP r2, 0
  ADD r2, r2, r1
  RET r2
end

method twice$1 (fn(int):int, int) : int lambda
  caps fn(int):int
  regs fn(int):int, int
  LDCAP r2, 0
  MOV r3, r1
  CALLF r3, r2
  CALLF r3, r2
  RET r3
end

method printer$1 (fn(string), string) : void lambda
  CALLN _, r1, println_string
  RETV
end

method const$1 (fn():int) : int lambda
  caps int
  regs int
  LDCAP r1, 0
  RET r1
end

method mul$1 (fn(int,int):int, int, int) : int lambda
  MUL r1, r1, r2
  RET r1
end

method apply (fn(int):int, int) : int static
  regs int
  CALLF r2, r0
  RET r2
end

method make_adder (int) : fn(int):int static
  regs fn(int):int
  CLOS r1, r0, adder$1
  RET r1
end

method twice (fn(int):int) : fn(int):int static
  regs fn(int):int
  CLOS r1, r0, twice$1
  RET r1
end

method main () : void static
  regs fn(int):int, int, int, fn(string), string, fn():int, fn(int,int):int, int, int
  CLOS r0, r0, inc$1
  LDI r1, 41
  CALL r2, r0, apply
  CALLN _, r2, println_int          // 42
  LDI r1, 10
  CALL r0, r1, make_adder
  LDI r1, 5
  CALL r2, r0, apply
  CALLN _, r2, println_int          // 15
  LDI r1, 100
  CALL r0, r1, make_adder
  LDI r1, -1
  CALLF r2, r0
  CALLN _, r2, println_int          // 99
  LDI r1, 3
  CALL r0, r1, make_adder
  CALL r0, r0, twice
  LDI r1, 1
  CALLF r2, r0
  CALLN _, r2, println_int          // 1 + 3 + 3
  CLOS r0, r0, inc$1
  CALL r0, r0, twice
  CALL r0, r0, twice
  LDI r1, 0
  CALLF r2, r0
  CALLN _, r2, println_int          // 4
  CLOS r3, r3, printer$1
  LDK r4, "hi from lambda"
  CALLF _, r3
  LDI r1, 77
  CLOS r5, r1, const$1
  CALLF r2, r5
  CALLN _, r2, println_int          // 77
  CLOS r6, r6, mul$1
  LDI r7, 6
  LDI r8, 7
  CALLF r2, r6
  CALLN _, r2, println_int          // 42
  RETV
end
