// LOOP (a += 1; if a < b goto c) as a counted back edge: a sum, a nested
// pair of loops, the do-while shape when the counter starts past the
// bound, and a plain backward JMP loop with JGES as the exit test.
// expect: 45
// expect: 12
// expect: 1
// expect: 6
// expect: 5050
module "loop_op"
source "loop_op.tl"
main main
native println_int (int) : void = builtin "println_int"

method main () : void static
  regs int, int, int, int, int, int
  // sum of 0..9
  LDI r0, 0                   // i
  LDI r1, 10                  // n
  LDI r2, 0                   // sum
sum:
  ADD r2, r2, r0
  LOOP r0, r1, sum
  CALLN _, r2, println_int
  // 3 x 4 nested
  LDI r2, 0
  LDI r0, 0
  LDI r1, 3
  LDI r4, 4
outer:
  LDI r3, 0
inner:
  ADDK r2, r2, 1
  LOOP r3, r4, inner
  LOOP r0, r1, outer
  CALLN _, r2, println_int
  // counter already past the bound: the body runs once, the counter ends at 6
  LDI r0, 5
  LDI r1, 3
  LDI r2, 0
once:
  ADDK r2, r2, 1
  LOOP r0, r1, once
  CALLN _, r2, println_int
  CALLN _, r0, println_int
  // 1 + 2 + ... + 100 with a forward exit and a backward JMP
  LDI r0, 1
  LDI r2, 0
head:
  JGES r0, 101, done
  ADD r2, r2, r0
  ADDK r0, r0, 1
  JMP head
done:
  CALLN _, r2, println_int
  RETV
end
