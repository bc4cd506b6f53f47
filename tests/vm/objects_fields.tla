// Objects: NEW (fields zeroed: 0, 0.0, false, null), PUTF/GETF of every
// field type (next == null printed last), a reference field linking two objects, REQ/RNE identity.
// expect: 0 0.0 false null true
// expect: 3 -1.5 true p1 true
// expect: 3
// expect: true
// expect: false
// expect: true
// expect: false
module "objects_fields"
source "objects_fields.tl"
main main
native print_int (int) : void = builtin "print_int"
native print_float (float) : void = builtin "print_float"
native print_bool (bool) : void = builtin "print_bool"
native print_string (string) : void = builtin "print_string"
native println_string (string) : void = builtin "println_string"
native println_int (int) : void = builtin "println_int"
native println_bool (bool) : void = builtin "println_bool"

class Node
  field n int
  field f float
  field b bool
  field s string
  field next Node
end

method show_all (Node) : void static
  regs int, float, bool, string, string, Node
  LDK r4, " "
  GETF r1, r0, Node.n
  CALLN _, r1, print_int
  CALLN _, r4, print_string
  GETF r2, r0, Node.f
  CALLN _, r2, print_float
  CALLN _, r4, print_string
  GETF r3, r0, Node.b
  CALLN _, r3, print_bool
  CALLN _, r4, print_string
  GETF r6, r0, Node.next
  GETF r4, r0, Node.s
  CALLN _, r4, print_string
  LDK r4, " "
  CALLN _, r4, print_string
  LDFALSE r3
  JNNULL r6, has_next
  LDTRUE r3
has_next:
  CALLN _, r3, println_bool         // next == null
  RETV
end

method main () : void static
  regs Node, Node, int, float, bool, string, Node, bool
  NEW r0, Node
  CALL _, r0, show_all
  LDI r2, 3
  PUTF r0, Node.n, r2
  LDF r3, -1.5
  PUTF r0, Node.f, r3
  LDTRUE r4
  PUTF r0, Node.b, r4
  LDK r5, "p1"
  PUTF r0, Node.s, r5
  NEW r1, Node
  PUTF r1, Node.next, r0
  GETF r6, r1, Node.next
  CALL _, r6, show_all
  GETF r2, r6, Node.n
  CALLN _, r2, println_int          // 3, through the link
  REQ r7, r6, r0
  CALLN _, r7, println_bool         // true
  REQ r7, r0, r1
  CALLN _, r7, println_bool         // false
  RNE r7, r0, r1
  CALLN _, r7, println_bool         // true
  RNE r7, r6, r0
  CALLN _, r7, println_bool         // false
  RETV
end
