// A call to a void function must have destination _.
// expect-error: call_void_with_dest: method main at offset 0: call of a void function has destination r0
module "call_void_with_dest"
main main
method f () : void static
  RETV
end
method main () : void static
  regs int
  CALL r0, r0, f
  RETV
end
