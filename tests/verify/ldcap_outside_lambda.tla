// LDCAP in a method that is not a lambda.
// expect-error: ldcap_outside_lambda: method main at offset 0: LDCAP outside a lambda
module "ldcap_outside_lambda"
main main
method main () : void static
  regs int
  LDCAP r0, 0
  RETV
end
