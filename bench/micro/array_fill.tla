// array_fill: fill a float array of 1e6 elements and copy it, scaled, into a
// second one, repeatedly (float array stores and loads); prints a float
// checksum of the second array.
//   fn main() {
//       let n = 1000000; let rounds = 25;
//       let a = new float[n]; let b = new float[n];
//       var sum = 0.0;
//       for r in 0..rounds {
//           let base = float(r) * 0.25;
//           for i in 0..n { a[i] = float(i) * 0.5 + base; }
//           for i in 0..n { b[i] = a[i] * 1.5; }
//           sum = sum + b[r] + b[n - 1];
//       }
//       println(sum);
//   }
module "array_fill"
source "array_fill.tl"
main main

native println_float (float) : void = builtin "println_float"

// ints: r0 n, r1 rounds, r4 r, r5 i, r6 t; arrays: r2 a, r3 b;
// floats: r7 sum, r8 base, r9 t1, r10 t2
method main () : void static
  regs int, int, float[], float[], int, int, int, float, float, float, float
  line 2
  LDI r0, 1000000
  LDI r1, 25
  line 3
  NEWA r2, r0, float[]
  NEWA r3, r0, float[]
  line 4
  LDF r7, 0.0
  line 5
  LDI r4, 0
  JLE r1, r4, rounds_done
round:
  line 6
  I2F r9, r4
  LDF r10, 0.25
  FMUL r8, r9, r10
  line 7
  LDI r5, 0
  JLE r0, r5, fill_done
fill:
  I2F r9, r5
  LDF r10, 0.5
  FMUL r9, r9, r10
  FADD r9, r9, r8
  APUTF r2, r5, r9
  LOOP r5, r0, fill
fill_done:
  line 8
  LDI r5, 0
  JLE r0, r5, copy_done
copy:
  AGETF r9, r2, r5
  LDF r10, 1.5
  FMUL r9, r9, r10
  APUTF r3, r5, r9
  LOOP r5, r0, copy
copy_done:
  line 9
  AGETF r9, r3, r4
  FADD r9, r7, r9
  ADDK r6, r0, -1
  AGETF r10, r3, r6
  FADD r7, r9, r10
  line 5
  LOOP r4, r1, round
rounds_done:
  line 11
  CALLN _, r7, println_float
  RETV
end
