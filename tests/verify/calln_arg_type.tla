// Passing an int to a native that takes a string.
// expect-error: calln_arg_type: method main at offset 1: argument 0: int is not assignable to string
module "calln_arg_type"
main main
native println_string (string) : void = builtin "println_string"
method main () : void static
  regs int
  LDI r0, 7
  CALLN _, r0, println_string
  RETV
end
