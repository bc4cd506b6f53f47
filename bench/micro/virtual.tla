// virtual: polymorphic method calls over three classes of a small hierarchy
// (Square, Rect, Tri extend Shape) plus a call of the interface method
// size(k) on the same objects.
//   interface Sized { fn size(k: int): int; }
//   abstract class Shape implements Sized {
//       abstract fn area(): int;
//       abstract fn size(k: int): int;
//   }
//   class Square extends Shape {
//       side: int;
//       init(side: int) { self.side = side; }
//       fn area(): int { return self.side * self.side; }
//       fn size(k: int): int { return self.side + k; }
//   }
//   class Rect extends Shape {
//       w: int; h: int;
//       init(w: int, h: int) { self.w = w; self.h = h; }
//       fn area(): int { return self.w * self.h; }
//       fn size(k: int): int { return self.w + self.h + k; }
//   }
//   class Tri extends Shape {
//       b: int; h: int;
//       init(b: int, h: int) { self.b = b; self.h = h; }
//       fn area(): int { return self.b * self.h >> 1; }
//       fn size(k: int): int { return self.b + 2 * k; }
//   }
//   fn main() {
//       let n = 999; let rounds = 6000;
//       let shapes = new Shape[n];
//       for i in 0..n {
//           let kind = i % 3;
//           if kind == 0 { shapes[i] = Square(i % 17 + 1); }
//           else if kind == 1 { shapes[i] = Rect(i % 13 + 1, i % 7 + 2); }
//           else { shapes[i] = Tri(i % 11 + 3, i % 5 + 1); }
//       }
//       var s = 0;
//       for r in 1..rounds + 1 {
//           for i in 0..n {
//               let sh = shapes[i];
//               let z: Sized = sh;
//               s = s + sh.area() + z.size(r);
//           }
//       }
//       println(s);
//   }
module "virtual"
source "virtual.tl"
main main

native println_int (int) : void = builtin "println_int"

interface Sized
  methods Sized.size
end

class Shape implements Sized abstract
  vtable Shape.area, Shape.size
end

class Square extends Shape
  field side int
  vtable Square.area, Square.size
end

class Rect extends Shape
  field w int
  field h int
  vtable Rect.area, Rect.size
end

class Tri extends Shape
  field b int
  field h int
  vtable Tri.area, Tri.size
end

method Sized.size (Sized, int) : int owner Sized abstract
method Shape.area (Shape) : int owner Shape abstract
method Shape.size (Shape, int) : int owner Shape abstract

method Square.init (Square, int) : void owner Square static
  PUTF r0, Square.side, r1
  RETV
end

method Square.area (Square) : int owner Square
  regs int, int
  GETF r1, r0, Square.side
  GETF r2, r0, Square.side
  MUL r1, r1, r2
  RET r1
end

method Square.size (Square, int) : int owner Square
  regs int
  GETF r2, r0, Square.side
  ADD r2, r2, r1
  RET r2
end

method Rect.init (Rect, int, int) : void owner Rect static
  PUTF r0, Rect.w, r1
  PUTF r0, Rect.h, r2
  RETV
end

method Rect.area (Rect) : int owner Rect
  regs int, int
  GETF r1, r0, Rect.w
  GETF r2, r0, Rect.h
  MUL r1, r1, r2
  RET r1
end

method Rect.size (Rect, int) : int owner Rect
  regs int, int
  GETF r2, r0, Rect.w
  GETF r3, r0, Rect.h
  ADD r2, r2, r3
  ADD r2, r2, r1
  RET r2
end

method Tri.init (Tri, int, int) : void owner Tri static
  PUTF r0, Tri.b, r1
  PUTF r0, Tri.h, r2
  RETV
end

method Tri.area (Tri) : int owner Tri
  regs int, int
  GETF r1, r0, Tri.b
  GETF r2, r0, Tri.h
  MUL r1, r1, r2
  LDI r2, 1
  SHR r1, r1, r2
  RET r1
end

method Tri.size (Tri, int) : int owner Tri
  regs int, int
  GETF r2, r0, Tri.b
  LDI r3, 2
  MUL r3, r3, r1
  ADD r2, r2, r3
  RET r2
end

// r0 n, r1 rounds, r2 shapes, r3 i, r4 kind, r5 t, r6 s, r7 r, r8 sh, r9 z,
// r10 t2, r11 t3, r20 round bound; argument blocks: r12-r13 Square.init,
// r14-r16 Rect.init, r17-r19 Tri.init, r21-r22 Sized.size
method main () : void static
  regs int, int, Shape[], int, int, int, int, int, Shape, Sized, int, int, Square, int, Rect, int, int, Tri, int, int, int, Sized, int
  line 28
  LDI r0, 999
  LDI r1, 6000
  line 29
  NEWA r2, r0, Shape[]
  line 30
  LDI r3, 0
  JLE r0, r3, build_done
build:
  line 31
  LDI r5, 3
  MOD r4, r3, r5
  line 32
  JNES r4, 0, not_square
  NEW r12, Square
  LDI r5, 17
  MOD r13, r3, r5
  ADDK r13, r13, 1
  CALL _, r12, Square.init
  APUTR r2, r3, r12
  JMP built
not_square:
  line 33
  JNES r4, 1, not_rect
  NEW r14, Rect
  LDI r5, 13
  MOD r15, r3, r5
  ADDK r15, r15, 1
  LDI r5, 7
  MOD r16, r3, r5
  ADDK r16, r16, 2
  CALL _, r14, Rect.init
  APUTR r2, r3, r14
  JMP built
not_rect:
  line 34
  NEW r17, Tri
  LDI r5, 11
  MOD r18, r3, r5
  ADDK r18, r18, 3
  LDI r5, 5
  MOD r19, r3, r5
  ADDK r19, r19, 1
  CALL _, r17, Tri.init
  APUTR r2, r3, r17
built:
  line 30
  LOOP r3, r0, build
build_done:
  line 36
  LDI r6, 0
  line 37
  LDI r7, 1
  ADDK r20, r1, 1
  JLE r20, r7, rounds_done
round:
  line 38
  LDI r3, 0
  JLE r0, r3, inner_done
inner:
  line 39
  AGETR r8, r2, r3
  line 40
  MOV r9, r8
  line 41
  CALLV r10, r8, Shape.area
  ADD r10, r6, r10
  MOV r21, r9
  MOV r22, r7
  CALLI r11, r21, Sized.size
  ADD r6, r10, r11
  line 38
  LOOP r3, r0, inner
inner_done:
  line 37
  LOOP r7, r20, round
rounds_done:
  line 44
  CALLN _, r6, println_int
  RETV
end
