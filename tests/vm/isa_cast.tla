// ISA and CAST: classes (exact, superclass, unrelated), interfaces, Object,
// string, arrays (invariant), function types, null (ISA false, CAST passes).
// expect: true true false true true
// expect: false false
// expect: true false true
// expect: true
// expect: false false
// expect: 9
// expect: null passed
// expect: 10
module "isa_cast"
source "isa_cast.tl"
main main
native println_bool (bool) : void = builtin "println_bool"
native print_bool (bool) : void = builtin "print_bool"
native print_string (string) : void = builtin "print_string"
native println_string (string) : void = builtin "println_string"
native println_int (int) : void = builtin "println_int"

interface Tag
end

class Base
end

class Sub extends Base implements Tag
  field k int
end

class Other
end

method twice$lambda (fn(int):int, int) : int lambda
  ADD r1, r1, r1
  RET r1
end

method main () : void static
  regs Object, bool, string, Sub, Base, Tag, int[], int, fn(int):int, int, int
  LDK r2, " "
  NEW r3, Sub
  MOV r0, r3
  ISA r1, r0, Sub
  CALLN _, r1, print_bool           // true
  CALLN _, r2, print_string
  ISA r1, r0, Base
  CALLN _, r1, print_bool           // true
  CALLN _, r2, print_string
  ISA r1, r0, Other
  CALLN _, r1, print_bool           // false
  CALLN _, r2, print_string
  ISA r1, r0, Tag
  CALLN _, r1, print_bool           // true
  CALLN _, r2, print_string
  ISA r1, r0, Object
  CALLN _, r1, println_bool         // true
  // a plain Base is neither a Sub nor a Tag
  NEW r4, Base
  MOV r0, r4
  ISA r1, r0, Sub
  CALLN _, r1, print_bool
  CALLN _, r2, print_string
  ISA r1, r0, Tag
  CALLN _, r1, println_bool         // false false
  // strings and arrays
  LDK r0, "text"
  ISA r1, r0, string
  CALLN _, r1, print_bool           // true
  CALLN _, r2, print_string
  LDI r7, 2
  NEWA r6, r7, int[]
  MOV r0, r6
  ISA r1, r0, string[]
  CALLN _, r1, print_bool           // false
  CALLN _, r2, print_string
  ISA r1, r0, int[]
  CALLN _, r1, println_bool         // true
  // a closure is an instance of its function type
  CLOS r8, r0, twice$lambda
  MOV r0, r8
  ISA r1, r0, fn(int):int
  CALLN _, r1, println_bool         // true
  // null: ISA is false for every type
  LDNULL r0
  ISA r1, r0, Object
  CALLN _, r1, print_bool
  CALLN _, r2, print_string
  ISA r1, r0, Sub
  CALLN _, r1, println_bool         // false false
  // CAST down and use the result
  NEW r3, Sub
  LDI r7, 9
  PUTF r3, Sub.k, r7
  MOV r4, r3
  CAST r3, r4, Sub
  GETF r7, r3, Sub.k
  CALLN _, r7, println_int          // 9
  // CAST of null passes and stays null
  LDNULL r0
  CAST r3, r0, Sub
  JNNULL r3, bad
  LDK r2, "null passed"
  CALLN _, r2, println_string
  // CAST to a function type and call it
  MOV r0, r8
  LDNULL r8
  CAST r8, r0, fn(int):int
  LDI r9, 5
  CALLF r10, r8
  CALLN _, r10, println_int         // 10
  RETV
bad:
  LDK r2, "null did not pass"
  CALLN _, r2, println_string
  RETV
end
