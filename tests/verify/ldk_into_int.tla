// A string constant loaded into an int register.
// expect-error: ldk_into_int: method main at offset 0: register r0 has type int, expected string
module "ldk_into_int"
main main
method main () : void static
  regs int
  LDK r0, "hello"
  RETV
end
