// substring with an end past the length raises the bounds error from the
// built-in; the trace starts at the calling method.
// expect: bc
// expect-runtime-error: index out of bounds: index 5, length 3
// expect-stderr: error: index out of bounds: index 5, length 3
// expect-stderr:   at cut (err_substring_bounds.tl:3)
// expect-stderr:   at main (err_substring_bounds.tl:10)
module "err_substring_bounds"
source "err_substring_bounds.tl"
main main
native substring (string, int, int) : string = builtin "substring"
native println_string (string) : void = builtin "println_string"

method cut (string, int, int) : string static
  regs string
  line 3
  CALLN r3, r0, substring
  RET r3
end

method main () : void static
  regs string, int, int, string
  line 8
  LDK r0, "abc"
  LDI r1, 1
  LDI r2, 3
  CALL r3, r0, cut
  CALLN _, r3, println_string
  LDI r2, 5
  line 10
  CALL r3, r0, cut
  RETV
end
