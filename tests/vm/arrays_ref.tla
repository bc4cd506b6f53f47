// Reference arrays: string[] (zeroed to null), Object[] holding a class
// instance, a string and an array (APUTR of subtypes into Object[]),
// AGETR back and CAST, identity with REQ.
// expect: null
// expect: 3
// expect: one two three
// expect: true
// expect: 7
// expect: true
// expect: 2
module "arrays_ref"
source "arrays_ref.tl"
main main
native println_int (int) : void = builtin "println_int"
native println_bool (bool) : void = builtin "println_bool"
native println_string (string) : void = builtin "println_string"

class Box
  field v int
end

method main () : void static
  regs string[], int, string, string, Object[], Object, Box, bool, int[], int
  LDI r1, 3
  NEWA r0, r1, string[]
  LDI r1, 1
  AGETR r2, r0, r1
  CALLN _, r2, println_string       // null
  ALEN r1, r0
  CALLN _, r1, println_int          // 3
  LDI r1, 0
  LDK r2, "one"
  APUTR r0, r1, r2
  LDI r1, 1
  LDK r2, "two"
  APUTR r0, r1, r2
  LDI r1, 2
  LDK r2, "three"
  APUTR r0, r1, r2
  // join with spaces
  LDI r1, 0
  AGETR r3, r0, r1
  LDI r1, 1
join:
  LDK r2, " "
  SCAT r3, r3, r2
  AGETR r2, r0, r1
  SCAT r3, r3, r2
  LDI r9, 3
  LOOP r1, r9, join
  CALLN _, r3, println_string
  // Object[] with a Box, a string and an int[]
  LDI r1, 3
  NEWA r4, r1, Object[]
  NEW r6, Box
  LDI r9, 7
  PUTF r6, Box.v, r9
  LDI r1, 0
  APUTR r4, r1, r6
  LDI r1, 1
  LDK r2, "s"
  APUTR r4, r1, r2
  LDI r1, 2
  LDI r9, 2
  NEWA r8, r9, int[]
  APUTR r4, r1, r8
  LDI r1, 0
  AGETR r5, r4, r1
  REQ r7, r5, r6
  CALLN _, r7, println_bool         // the same Box
  CAST r6, r5, Box
  GETF r9, r6, Box.v
  CALLN _, r9, println_int          // 7
  LDI r1, 1
  AGETR r5, r4, r1
  CAST r2, r5, string
  LDK r3, "s"
  SEQ r7, r2, r3
  CALLN _, r7, println_bool
  LDI r1, 2
  AGETR r5, r4, r1
  CAST r8, r5, int[]
  ALEN r9, r8
  CALLN _, r9, println_int          // 2
  RETV
end
