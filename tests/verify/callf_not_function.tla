// CALLF on a register that does not hold a closure.
// expect-error: callf_not_function: method main at offset 1: register r0 has type int, expected a function
module "callf_not_function"
main main
method main () : void static
  regs int
  LDI r0, 3
  CALLF r0, r0
  RETV
end
