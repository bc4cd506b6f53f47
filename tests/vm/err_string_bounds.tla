// SGET at the length: "index out of bounds: index 3, length 3", 3 frames.
// expect: 99
// expect-runtime-error: index out of bounds: index 3, length 3
// expect-stderr: error: index out of bounds: index 3, length 3
// expect-stderr:   at byte_at (err_string_bounds.tl:3)
// expect-stderr:   at last_plus_one (err_string_bounds.tl:9)
// expect-stderr:   at main (err_string_bounds.tl:15)
module "err_string_bounds"
source "err_string_bounds.tl"
main main
native println_int (int) : void = builtin "println_int"

method byte_at (string, int) : int static
  regs int
  line 3
  SGET r2, r0, r1
  RET r2
end

method last_plus_one (string) : int static
  regs int, int
  line 8
  SLEN r1, r0
  line 9
  CALL r2, r0, byte_at
  RET r2
end

method main () : void static
  regs string, int, int
  line 14
  LDK r0, "abc"
  LDI r1, 2
  CALL r2, r0, byte_at
  CALLN _, r2, println_int
  line 15
  CALL r2, r0, last_plus_one
  RETV
end
