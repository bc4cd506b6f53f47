// The second argument register holds a string where add wants an int.
// expect-error: call_arg_type: method main at offset 3: argument 1: string is not assignable to int
module "call_arg_type"
main main
method add (int, int) : int static
  ADD r0, r0, r1
  RET r0
end
method main () : void static
  regs int, int, string
  LDI r1, 2
  LDK r2, "x"
  MOV r1, r0
  CALL r0, r1, add
  RETV
end
