// A conditional branch as the last instruction can fall through.
// expect-error: branch_at_end: method f at offset 2: execution falls off the end of the method
module "branch_at_end"
main main
method f (bool) : int static
  regs int
top:
  LDI r1, 0
  RET r1
  JF r0, top
end
method main () : void static
  RETV
end
