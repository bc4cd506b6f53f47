// NEWA with a type that is not an array type.
// expect-error: newa_not_array: method main at offset 1: type int is not an array type
module "newa_not_array"
main main
method main () : void static
  regs int[], int
  LDI r1, 4
  NEWA r0, r1, int
  RETV
end
