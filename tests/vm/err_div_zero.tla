// DIV by zero: "division by zero" with a three-frame trace.
// expect: 5
// expect-runtime-error: division by zero
// expect-stderr: error: division by zero
// expect-stderr:   at divide (err_div_zero.tl:2)
// expect-stderr:   at average (err_div_zero.tl:8)
// expect-stderr:   at main (err_div_zero.tl:15)
module "err_div_zero"
source "err_div_zero.tl"
main main
native println_int (int) : void = builtin "println_int"

method divide (int, int) : int static
  regs int
  line 2
  DIV r2, r0, r1
  RET r2
end

// sum / count
method average (int, int) : int static
  regs int
  line 8
  CALL r2, r0, divide
  RET r2
end

method main () : void static
  regs int, int, int
  line 13
  LDI r0, 10
  LDI r1, 2
  CALL r2, r0, average
  CALLN _, r2, println_int
  LDI r1, 0
  line 15
  CALL r2, r0, average
  CALLN _, r2, println_int
  RETV
end
