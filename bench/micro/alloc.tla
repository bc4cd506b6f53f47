// alloc: build a linked list of 1000 small nodes, walk it summing a field,
// drop it; repeated (allocation, GC and field access).
//   class Node {
//       value: int; next: Node;
//       init(value: int, next: Node) { self.value = value; self.next = next; }
//   }
//   fn main() {
//       let n = 1000; let rounds = 5000; var total = 0;
//       for r in 1..rounds + 1 {
//           var head: Node = null;
//           for i in 0..n { head = Node(i + r, head); }
//           var node = head;
//           while node != null { total += node.value; node = node.next; }
//       }
//       println(total);
//   }
module "alloc"
source "alloc.tl"
main main

native println_int (int) : void = builtin "println_int"

class Node
  field value int
  field next Node
end

method Node.init (Node, int, Node) : void owner Node static
  line 5
  PUTF r0, Node.value, r1
  PUTF r0, Node.next, r2
  RETV
end

// r0 n, r1 rounds, r2 total, r3 r, r4 round bound, r5 head, r6 i, r7 node,
// r8 t; r9-r11 Node.init arguments
method main () : void static
  regs int, int, int, int, int, Node, int, Node, int, Node, int, Node
  line 8
  LDI r0, 1000
  LDI r1, 5000
  LDI r2, 0
  line 9
  LDI r3, 1
  ADDK r4, r1, 1
  JLE r4, r3, rounds_done
round:
  line 10
  LDNULL r5
  line 11
  LDI r6, 0
  JLE r0, r6, build_done
build:
  NEW r9, Node
  ADD r10, r6, r3
  MOV r11, r5
  CALL _, r9, Node.init
  MOV r5, r9
  LOOP r6, r0, build
build_done:
  line 12
  MOV r7, r5
  line 13
  JMP walk_cond
walk:
  GETF r8, r7, Node.value
  ADD r2, r2, r8
  GETF r7, r7, Node.next
walk_cond:
  JNNULL r7, walk
  line 9
  LOOP r3, r4, round
rounds_done:
  line 15
  CALLN _, r2, println_int
  RETV
end
