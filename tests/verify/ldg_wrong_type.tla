// Loading an int global into a string register.
// expect-error: ldg_wrong_type: method main at offset 0: global count: int is not assignable to string
module "ldg_wrong_type"
main main
global count int
method main () : void static
  regs string
  LDG r0, count
  RETV
end
