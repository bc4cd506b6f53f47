// A call to a function returning int with destination _.
// expect-error: call_missing_dest: method main at offset 0: call of a function returning int has no destination
module "call_missing_dest"
main main
method f () : int static
  regs int
  RET r0
end
method main () : void static
  regs int
  CALL _, r0, f
  RETV
end
