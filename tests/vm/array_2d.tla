// int[][]: an array of rows; m[i][j] = i * 10 + j; row lengths differ
// (a triangle); sums and single elements.
// expect: 4
// expect: 3
// expect: 32
// expect: 210
// expect: 0
module "array_2d"
source "array_2d.tl"
main main
native println_int (int) : void = builtin "println_int"

method main () : void static
  regs int[][], int[], int, int, int, int, int, int
  LDI r2, 4
  NEWA r0, r2, int[][]
  ALEN r3, r0
  CALLN _, r3, println_int          // 4
  // row i has i + 1 elements
  LDI r2, 0
rows:
  ADDK r4, r2, 1
  NEWA r1, r4, int[]
  LDI r3, 0
cols:
  LDI r5, 10
  MUL r6, r2, r5
  ADD r6, r6, r3
  APUTI r1, r3, r6
  LOOP r3, r4, cols
  APUTR r0, r2, r1
  LDI r5, 4
  LOOP r2, r5, rows
  LDI r2, 2
  AGETR r1, r0, r2
  ALEN r3, r1
  CALLN _, r3, println_int          // 3
  LDI r3, 2
  LDI r2, 3
  AGETR r1, r0, r2
  AGETI r6, r1, r3
  CALLN _, r6, println_int          // m[3][2] = 32
  // total of all elements
  LDI r7, 0
  LDI r2, 0
srows:
  AGETR r1, r0, r2
  ALEN r4, r1
  LDI r3, 0
scols:
  AGETI r6, r1, r3
  ADD r7, r7, r6
  LOOP r3, r4, scols
  LDI r5, 4
  LOOP r2, r5, srows
  CALLN _, r7, println_int
  LDI r2, 0
  AGETR r1, r0, r2
  LDI r3, 0
  AGETI r6, r1, r3
  CALLN _, r6, println_int          // m[0][0] = 0
  RETV
end
