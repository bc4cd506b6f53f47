// Garbage collection under load: a 200,000-node list reachable from a
// register, then only from a global, plus one node reachable only from a
// closure capture, survives a steady stream of garbage (int arrays and
// strings); every node's int and string are intact afterwards.
// expect: 200000
// expect: 19999900000
// expect: 1088890
// expect: 0
// expect: 199999
// expect: 1004
module "gc_stress"
source "gc_stress.tl"
main main
native println_int (int) : void = builtin "println_int"
native str_int (int) : string = builtin "str_int"

class Node
  field v int
  field s string
  field next Node
end

global head Node

// node.v + node.s.length of the captured node
method keep$1 (fn():int) : int lambda
  caps Node
  regs Node, int, string, int
  LDCAP r1, 0
  GETF r2, r1, Node.v
  GETF r3, r1, Node.s
  SLEN r4, r3
  ADD r2, r2, r4
  RET r2
end

method main () : void static
  regs Node, Node, int, int, string, int[], int, int, int, int, fn():int, string, bool, int
  LDNULL r0
  LDI r2, 0
  LDI r3, 200000
build:
  NEW r1, Node
  PUTF r1, Node.v, r2
  CALLN r4, r2, str_int
  PUTF r1, Node.s, r4
  PUTF r1, Node.next, r0
  MOV r0, r1
  LDI r6, 100
  NEWA r5, r6, int[]
  LDI r6, 99
  APUTI r5, r6, r2
  SCAT r11, r4, r4
  JNES r2, 1000, nocap
  CLOS r10, r1, keep$1
nocap:
  LOOP r2, r3, build
  // from now on the list hangs off the global only
  STG head, r0
  LDNULL r0
  LDNULL r1
  LDNULL r4
  LDI r2, 0
  LDI r3, 100000
burst:
  LDI r6, 50
  NEWA r5, r6, int[]
  CALLN r11, r2, str_int
  LOOP r2, r3, burst
  // walk: count, sum of v, sum of s.length, mismatches of s vs str(v)
  LDG r1, head
  LDI r7, 0
  LDI r8, 0
  LDI r9, 0
  LDI r13, 0
walk:
  JNULL r1, walked
  ADDK r7, r7, 1
  GETF r6, r1, Node.v
  ADD r8, r8, r6
  GETF r4, r1, Node.s
  SLEN r2, r4
  ADD r9, r9, r2
  CALLN r11, r6, str_int
  SEQ r12, r4, r11
  JT r12, same
  ADDK r13, r13, 1
same:
  GETF r1, r1, Node.next
  JMP walk
walked:
  CALLN _, r7, println_int
  CALLN _, r8, println_int
  CALLN _, r9, println_int
  CALLN _, r13, println_int
  LDG r1, head
  GETF r6, r1, Node.v
  CALLN _, r6, println_int
  CALLF r6, r10
  CALLN _, r6, println_int
  RETV
end
