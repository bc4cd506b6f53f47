// A module whose methods come from two source files (as after `import`):
// each trace line names the method's own file.  main (main.tl) calls
// lib.apply (lib.tl), which calls back into a lambda from main.tl that
// divides by zero.
// expect: applying
// expect-runtime-error: division by zero
// expect-stderr: error: division by zero
// expect-stderr:   at main$1 (main.tl:4)
// expect-stderr:   at lib.apply (lib.tl:3)
// expect-stderr:   at main (main.tl:8)
module "trace_files"
source "main.tl"
main main
native println_string (string) : void = builtin "println_string"

// from lib.tl: calls f with x
method lib.apply (fn(int):int, int) : int file "lib.tl" static
  regs fn(int):int, int, int, string
  line 2
  LDK r5, "applying"
  CALLN _, r5, println_string
  MOV r2, r0
  MOV r3, r1
  line 3
  CALLF r4, r2
  RET r4
end

// from main.tl: 100 / x
method main$1 (fn(int):int, int) : int lambda
  regs int
  line 4
  LDI r2, 100
  DIV r2, r2, r1
  RET r2
end

method main () : void static
  regs fn(int):int, int, int
  line 7
  CLOS r0, r0, main$1
  LDI r1, 0
  line 8
  CALL r2, r0, lib.apply
  RETV
end
