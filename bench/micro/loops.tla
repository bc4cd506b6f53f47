// loops: three nested counted int loops folding i*j xor k into a checksum
// that wraps around 64 bits.
//   fn main() {
//       let n = 1000; var s = 0;
//       for i in 0..n { for j in 0..n { for k in 0..50 { s = s * 31 + (i * j ^ k); } } }
//       println(s);
//   }
module "loops"
source "loops.tl"
main main

native println_int (int) : void = builtin "println_int"

// r0 n, r1 s, r2 i, r3 j, r4 k, r5 k bound, r6 t1, r7 t2
method main () : void static
  regs int, int, int, int, int, int, int, int
  line 2
  LDI r0, 1000
  LDI r1, 0
  line 3
  LDI r2, 0
  JLE r0, r2, done_i
loop_i:
  LDI r3, 0
  JLE r0, r3, done_j
loop_j:
  LDI r4, 0
  LDI r5, 50
  JLE r5, r4, done_k
loop_k:
  LDI r6, 31
  MUL r6, r1, r6
  MUL r7, r2, r3
  XOR r7, r7, r4
  ADD r1, r6, r7
  LOOP r4, r5, loop_k
done_k:
  LOOP r3, r0, loop_j
done_j:
  LOOP r2, r0, loop_i
done_i:
  line 4
  CALLN _, r1, println_int
  RETV
end
