// A conditional branch on an int instead of a bool.
// expect-error: jt_on_int: method main at offset 1: register r0 has type int, expected bool
module "jt_on_int"
main main
method main () : void static
  regs int
  LDI r0, 1
  JT r0, done
done:
  RETV
end
