// A raw jump target beyond the code.
// expect-error: jump_out_of_range: method main at offset 0: jump target 40 out of range (2 instructions)
module "jump_out_of_range"
main main
method main () : void static
  JMP #40
  RETV
end
