// calls: a small static function called in a hot counted loop.
//   fn step(x: int, i: int): int { return (x ^ i) + 3; }
//   fn main() {
//       let n = 40000000; var s = 0;
//       for i in 0..n { s = step(s, i); }
//       println(s);
//   }
module "calls"
source "calls.tl"
main main

native println_int (int) : void = builtin "println_int"

method step (int, int) : int static
  regs int
  line 1
  XOR r2, r0, r1
  ADDK r2, r2, 3
  RET r2
end

// r0 n, r1 s, r2 i, r3-r4 call arguments
method main () : void static
  regs int, int, int, int, int
  line 3
  LDI r0, 40000000
  LDI r1, 0
  line 4
  LDI r2, 0
  JLE r0, r2, done
loop:
  MOV r3, r1
  MOV r4, r2
  CALL r1, r3, step
  LOOP r2, r0, loop
done:
  line 5
  CALLN _, r1, println_int
  RETV
end
