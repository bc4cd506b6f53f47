// Returning a float from an int method.
// expect-error: ret_wrong_type: method f at offset 1: return value: float is not assignable to int
module "ret_wrong_type"
main main
method f () : int static
  regs float
  LDF r0, 1.5
  RET r0
end
method main () : void static
  RETV
end
