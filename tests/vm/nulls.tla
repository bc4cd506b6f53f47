// null handling: LDNULL in reference registers of several types, JNULL,
// JNNULL, REQ/RNE against null, NOP, MOV of null.
// expect: 1 0 1
// expect: true false
// expect: false true
// expect: true
module "nulls"
source "nulls.tl"
main main
native print_int (int) : void = builtin "print_int"
native println_int (int) : void = builtin "println_int"
native print_bool (bool) : void = builtin "print_bool"
native println_bool (bool) : void = builtin "println_bool"
native print_string (string) : void = builtin "print_string"

class Thing
end

method main () : void static
  regs Thing, Thing, int, bool, string, int[], fn(int):int, Object
  LDK r4, " "
  NOP
  LDNULL r0
  NEW r1, Thing
  // 1 when null
  LDI r2, 0
  JNNULL r0, a
  LDI r2, 1
a:
  CALLN _, r2, print_int
  CALLN _, r4, print_string
  LDI r2, 0
  JNULL r1, b
  JMP c
b:
  LDI r2, 1
c:
  CALLN _, r2, print_int            // 0: r1 is not null
  CALLN _, r4, print_string
  LDNULL r5
  LDNULL r6
  MOV r7, r5
  LDI r2, 0
  JNNULL r7, d
  LDI r2, 1
d:
  CALLN _, r2, println_int
  LDNULL r1
  REQ r3, r0, r1
  CALLN _, r3, print_bool           // null == null
  CALLN _, r4, print_string
  RNE r3, r0, r1
  CALLN _, r3, println_bool
  NEW r1, Thing
  REQ r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r4, print_string
  RNE r3, r1, r0
  CALLN _, r3, println_bool
  NOP
  LDNULL r4
  LDTRUE r3
  JNULL r6, e
  LDFALSE r3
e:
  CALLN _, r3, println_bool
  RETV
end
