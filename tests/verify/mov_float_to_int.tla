// MOV between registers of unrelated types.
// expect-error: mov_float_to_int: method main at offset 1: register r1: float is not assignable to int
module "mov_float_to_int"
main main
method main () : void static
  regs int, float
  LDF r1, 1.0
  MOV r0, r1
  RETV
end
