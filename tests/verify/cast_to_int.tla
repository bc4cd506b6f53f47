// CAST to a primitive type.
// expect-error: cast_to_int: method main at offset 1: type int is not a reference type
module "cast_to_int"
main main
method main () : void static
  regs Object, int
  LDNULL r0
  CAST r1, r0, int
  RETV
end
