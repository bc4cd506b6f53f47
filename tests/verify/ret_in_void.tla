// RET with a value in a void method.
// expect-error: ret_in_void: method main at offset 1: RET in a void method (use RETV)
module "ret_in_void"
main main
method main () : void static
  regs int
  LDI r0, 0
  RET r0
end
