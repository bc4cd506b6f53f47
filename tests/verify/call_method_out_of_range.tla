// A raw method index beyond the method table.
// expect-error: call_method_out_of_range: method main at offset 0: method index 99 out of range
module "call_method_out_of_range"
main main
method main () : void static
  regs int
  CALL _, r0, #99
  RETV
end
