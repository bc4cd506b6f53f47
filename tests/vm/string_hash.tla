// string_hash: FNV-1a 64 over the bytes, as a signed int; equal strings
// (different objects) hash equal, and the cached value is stable.
// expect: -3750763034362895579
// expect: -5808556873153909620
// expect: -6615550055289275125
// expect: true
// expect: true
module "string_hash"
source "string_hash.tl"
main main
native println_int (int) : void = builtin "println_int"
native println_bool (bool) : void = builtin "println_bool"
native string_hash (string) : int = builtin "string_hash"

method main () : void static
  regs string, string, int, int, bool
  LDK r0, ""
  CALLN r2, r0, string_hash
  CALLN _, r2, println_int
  LDK r0, "a"
  CALLN r2, r0, string_hash
  CALLN _, r2, println_int
  LDK r0, "hello"
  CALLN r2, r0, string_hash
  CALLN _, r2, println_int
  LDK r0, "hel"
  LDK r1, "lo"
  SCAT r0, r0, r1
  CALLN r3, r0, string_hash
  EQ r4, r2, r3
  CALLN _, r4, println_bool
  CALLN r3, r0, string_hash
  EQ r4, r2, r3
  CALLN _, r4, println_bool
  RETV
end
