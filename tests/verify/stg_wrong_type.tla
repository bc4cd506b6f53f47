// Storing a string into an int global.
// expect-error: stg_wrong_type: method main at offset 1: global count: string is not assignable to int
module "stg_wrong_type"
main main
global count int
method main () : void static
  regs string
  LDK r0, "x"
  STG count, r0
  RETV
end
