// The substring built-in: bytes [start, end), empty ranges, the whole string.
// expect: hello
// expect: world
// expect: []
// expect: [hello world]
// expect: o w
// expect: []
module "substring"
source "substring.tl"
main main
native println_string (string) : void = builtin "println_string"
native substring (string, int, int) : string = builtin "substring"

method main () : void static
  regs string, int, int, string, string, string
  LDK r0, "hello world"
  LDI r1, 0
  LDI r2, 5
  CALLN r3, r0, substring
  CALLN _, r3, println_string
  LDI r1, 6
  LDI r2, 11
  CALLN r3, r0, substring
  CALLN _, r3, println_string
  LDI r1, 3
  LDI r2, 3
  CALLN r3, r0, substring
  CALL r3, r3, bracket
  CALLN _, r3, println_string
  LDI r1, 0
  SLEN r2, r0
  CALLN r3, r0, substring
  CALL r3, r3, bracket
  CALLN _, r3, println_string
  LDI r1, 4
  LDI r2, 7
  CALLN r3, r0, substring
  CALLN _, r3, println_string
  // the empty range at the very end is allowed
  LDI r1, 11
  LDI r2, 11
  CALLN r3, r0, substring
  CALL r3, r3, bracket
  CALLN _, r3, println_string
  RETV
end

method bracket (string) : string static
  regs string
  LDK r1, "["
  SCAT r1, r1, r0
  LDK r0, "]"
  SCAT r1, r1, r0
  RET r1
end
