// The assert built-in: a true assert passes, a false one raises
// "assertion failed: <message>"; the native adds no frame of its own.
// expect: ok
// expect-runtime-error: assertion failed: x must be positive
// expect-stderr: error: assertion failed: x must be positive
// expect-stderr:   at check (err_assert.tl:4)
// expect-stderr:   at main (err_assert.tl:12)
module "err_assert"
source "err_assert.tl"
main main
native assert (bool, string) : void = builtin "assert"
native println_string (string) : void = builtin "println_string"

method check (int) : void static
  regs bool, string, int
  line 3
  LDI r3, 0
  LT r1, r3, r0
  LDK r2, "x must be positive"
  line 4
  CALLN _, r1, assert
  RETV
end

method main () : void static
  regs int, string
  line 10
  LDI r0, 5
  CALL _, r0, check
  LDK r1, "ok"
  CALLN _, r1, println_string
  LDI r0, -5
  line 12
  CALL _, r0, check
  RETV
end
