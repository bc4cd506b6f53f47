// ADD on a float register.
// expect-error: arith_float_operand: method main at offset 2: register r1 has type float, expected int
module "arith_float_operand"
main main
method main () : void static
  regs int, float, int
  LDI r0, 1
  LDF r1, 2.0
  ADD r2, r0, r1
  RETV
end
