// MOD by zero: "division by zero" (MIN % -1 before it is fine).
// expect: 0
// expect-runtime-error: division by zero
// expect-stderr: error: division by zero
// expect-stderr:   at rem (err_mod_zero.tl:4)
// expect-stderr:   at main (err_mod_zero.tl:12)
module "err_mod_zero"
source "err_mod_zero.tl"
main main
native println_int (int) : void = builtin "println_int"

method rem (int, int) : int static
  regs int
  line 4
  MOD r2, r0, r1
  RET r2
end

method main () : void static
  regs int, int, int
  line 10
  LDI r0, -9223372036854775808
  LDI r1, -1
  CALL r2, r0, rem
  CALLN _, r2, println_int
  LDI r1, 0
  line 12
  CALL r2, r0, rem
  RETV
end
