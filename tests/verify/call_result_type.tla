// The result of a call goes to a register of the wrong type.
// expect-error: call_result_type: method main at offset 0: result: int is not assignable to string
module "call_result_type"
main main
method f () : int static
  regs int
  RET r0
end
method main () : void static
  regs string
  CALL r0, r0, f
  RETV
end
