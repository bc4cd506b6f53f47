// CLOS of a method that is not a lambda.
// expect-error: clos_not_lambda: method main at offset 0: CLOS of helper, which is not a lambda
module "clos_not_lambda"
main main
method helper (int) : int static
  RET r0
end
method main () : void static
  regs fn(int):int, int
  CLOS r0, r1, helper
  RETV
end
