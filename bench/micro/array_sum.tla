// array_sum: fill an int array of 1e6 elements once, then sum it
// repeatedly (array loads in a counted loop).
//   fn main() {
//       let n = 1000000; let rounds = 80;
//       let a = new int[n];
//       for i in 0..n { a[i] = i * 7 % 1000; }
//       var s = 0;
//       for r in 0..rounds { for i in 0..n { s += a[i]; } }
//       println(s);
//   }
module "array_sum"
source "array_sum.tl"
main main

native println_int (int) : void = builtin "println_int"

// r0 n, r1 rounds, r2 a, r3 i, r4 t1, r5 s, r6 r, r7 t2
method main () : void static
  regs int, int, int[], int, int, int, int, int
  line 2
  LDI r0, 1000000
  LDI r1, 80
  line 3
  NEWA r2, r0, int[]
  line 4
  LDI r3, 0
  JLE r0, r3, fill_done
fill:
  LDI r4, 7
  MUL r4, r3, r4
  LDI r7, 1000
  MOD r4, r4, r7
  APUTI r2, r3, r4
  LOOP r3, r0, fill
fill_done:
  line 5
  LDI r5, 0
  line 6
  LDI r6, 0
  JLE r1, r6, rounds_done
round:
  LDI r3, 0
  JLE r0, r3, sum_done
sum:
  AGETI r4, r2, r3
  ADD r5, r5, r4
  LOOP r3, r0, sum
sum_done:
  LOOP r6, r1, round
rounds_done:
  line 7
  CALLN _, r5, println_int
  RETV
end
