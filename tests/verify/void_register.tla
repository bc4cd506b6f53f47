// A register cannot have type void.
// expect-error: void_register: method main: register r0 has type void
module "void_register"
main main
method main () : void static
  regs void
  RETV
end
