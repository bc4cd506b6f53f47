// A raw constant index beyond the constant pool.
// expect-error: const_out_of_range: method main at offset 0: constant index 5 out of range
module "const_out_of_range"
main main
method main () : void static
  regs string
  LDK r0, #5
  RETV
end
