// floats: Mandelbrot escape-time kernel over a W x H grid (float multiply,
// add, compare in the inner loop); prints the total iteration count and a
// float checksum of the final z values.
//   fn main() {
//       let w = 640; let h = 480; let maxit = 200;
//       var count = 0; var acc = 0.0;
//       for py in 0..h {
//           let ci = float(py) * 2.0 / float(h) - 1.0;
//           for px in 0..w {
//               let cr = float(px) * 3.0 / float(w) - 2.0;
//               var zr = 0.0; var zi = 0.0; var it = 0;
//               while it < maxit {
//                   let zr2 = zr * zr; let zi2 = zi * zi;
//                   if zr2 + zi2 > 4.0 { break; }
//                   zi = 2.0 * zr * zi + ci;
//                   zr = zr2 - zi2 + cr;
//                   it += 1;
//               }
//               count += it; acc += zr;
//           }
//       }
//       println(count); println(acc);
//   }
module "floats"
source "floats.tl"
main main

native println_int (int) : void = builtin "println_int"
native println_float (float) : void = builtin "println_float"

// ints:   r0 w, r1 h, r2 maxit, r3 count, r4 py, r5 px, r6 it
// floats: r7 acc, r8 ci, r9 cr, r10 zr, r11 zi, r12 zr2, r13 zi2, r14 t1, r15 t2
method main () : void static
  regs int, int, int, int, int, int, int, float, float, float, float, float, float, float, float, float
  line 2
  LDI r0, 640
  LDI r1, 480
  LDI r2, 200
  LDI r3, 0
  LDF r7, 0.0
  line 3
  LDI r4, 0
  JLE r1, r4, done_py
loop_py:
  line 4
  I2F r14, r4
  LDF r15, 2.0
  FMUL r14, r14, r15
  I2F r15, r1
  FDIV r14, r14, r15
  LDF r15, 1.0
  FSUB r8, r14, r15
  line 5
  LDI r5, 0
  JLE r0, r5, done_px
loop_px:
  line 6
  I2F r14, r5
  LDF r15, 3.0
  FMUL r14, r14, r15
  I2F r15, r0
  FDIV r14, r14, r15
  LDF r15, 2.0
  FSUB r9, r14, r15
  line 7
  LDF r10, 0.0
  LDF r11, 0.0
  LDI r6, 0
  line 8
  JMP while_cond
while_body:
  line 9
  FMUL r12, r10, r10
  FMUL r13, r11, r11
  line 10
  FADD r14, r12, r13
  LDF r15, 4.0
  FJLT r15, r14, while_end
  line 11
  LDF r14, 2.0
  FMUL r14, r14, r10
  FMUL r14, r14, r11
  FADD r11, r14, r8
  line 12
  FSUB r14, r12, r13
  FADD r10, r14, r9
  line 13
  ADDK r6, r6, 1
while_cond:
  line 8
  JLT r6, r2, while_body
while_end:
  line 15
  ADD r3, r3, r6
  FADD r7, r7, r10
  line 5
  LOOP r5, r0, loop_px
done_px:
  line 3
  LOOP r4, r1, loop_py
done_py:
  line 18
  CALLN _, r3, println_int
  CALLN _, r7, println_float
  RETV
end
