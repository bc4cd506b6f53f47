// The last instruction falls through past the end of the code.
// expect-error: falls_off_end: method main at offset 1: execution falls off the end of the method
module "falls_off_end"
main main
method main () : void static
  regs int
  LDI r0, 1
  ADDK r0, r0, 2
end
