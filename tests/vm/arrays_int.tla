// int[]: NEWA (zeroed), ALEN, APUTI/AGETI, a squares-and-sum loop, a zero
// length array, an array passed to and filled by a function.
// expect: 5
// expect: 0
// expect: 30
// expect: 16
// expect: 0
// expect: -9223372036854775808
// expect: 42
module "arrays_int"
source "arrays_int.tl"
main main
native println_int (int) : void = builtin "println_int"

method main () : void static
  regs int[], int, int, int, int, int[]
  LDI r1, 5
  NEWA r0, r1, int[]
  ALEN r2, r0
  CALLN _, r2, println_int          // 5
  LDI r1, 3
  AGETI r2, r0, r1
  CALLN _, r2, println_int          // zeroed: 0
  // a[i] = i * i
  LDI r1, 0
  ALEN r3, r0
sq:
  MUL r2, r1, r1
  APUTI r0, r1, r2
  LOOP r1, r3, sq
  LDI r1, 0
  LDI r4, 0
sum:
  AGETI r2, r0, r1
  ADD r4, r4, r2
  LOOP r1, r3, sum
  CALLN _, r4, println_int          // 0+1+4+9+16 = 30
  LDI r1, 4
  AGETI r2, r0, r1
  CALLN _, r2, println_int          // 16
  LDI r1, 0
  NEWA r5, r1, int[]
  ALEN r2, r5
  CALLN _, r2, println_int          // 0
  LDI r1, 2
  LDI r2, -9223372036854775808
  APUTI r0, r1, r2
  AGETI r2, r0, r1
  CALLN _, r2, println_int
  CALL _, r0, fill
  LDI r1, 1
  AGETI r2, r0, r1
  CALLN _, r2, println_int          // 42, written by fill
  RETV
end

method fill (int[]) : void static
  regs int, int, int
  LDI r1, 0
  ALEN r2, r0
  LDI r3, 42
loop:
  APUTI r0, r1, r3
  LOOP r1, r2, loop
  RETV
end
