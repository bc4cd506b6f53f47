// Int comparisons (EQ NE LT LE), int branches (JEQ JNE JLT JLE and the
// immediate forms JEQS JNES JLTS JLES JGTS JGES), bool ops (BEQ BNE NOT,
// LDTRUE LDFALSE) and JT/JF.  Branch lines print 1 when taken.
// expect: true
// expect: false
// expect: true
// expect: false
// expect: true
// expect: false
// expect: true
// expect: false
// expect: 1
// expect: 0
// expect: 1
// expect: 0
// expect: 1
// expect: 0
// expect: 1
// expect: 0
// expect: 1
// expect: 0
// expect: 1
// expect: 0
// expect: 1
// expect: 0
// expect: 1
// expect: 0
// expect: 1
// expect: 0
// expect: 1
// expect: 0
// expect: false
// expect: true
// expect: true
// expect: false
// expect: false
// expect: true
// expect: 1
// expect: 0
// expect: 1
// expect: 0
module "compare_branches"
source "compare_branches.tl"
main main
native println_int (int) : void = builtin "println_int"
native println_bool (bool) : void = builtin "println_bool"

method main () : void static
  regs int, int, int, bool, bool, bool
  LDI r0, 3
  LDI r1, 3
  EQ r3, r0, r1
  CALLN _, r3, println_bool
  LDI r0, 3
  LDI r1, 4
  EQ r3, r0, r1
  CALLN _, r3, println_bool
  LDI r0, 3
  LDI r1, 4
  NE r3, r0, r1
  CALLN _, r3, println_bool
  LDI r0, 3
  LDI r1, 3
  NE r3, r0, r1
  CALLN _, r3, println_bool
  LDI r0, -5
  LDI r1, 3
  LT r3, r0, r1
  CALLN _, r3, println_bool
  LDI r0, 3
  LDI r1, 3
  LT r3, r0, r1
  CALLN _, r3, println_bool
  LDI r0, 3
  LDI r1, 3
  LE r3, r0, r1
  CALLN _, r3, println_bool
  LDI r0, 4
  LDI r1, 3
  LE r3, r0, r1
  CALLN _, r3, println_bool
  LDI r0, 3
  LDI r1, 3
  LDI r2, 1
  JEQ r0, r1, t1
  LDI r2, 0
t1:
  CALLN _, r2, println_int
  LDI r0, 3
  LDI r1, 4
  LDI r2, 1
  JEQ r0, r1, t2
  LDI r2, 0
t2:
  CALLN _, r2, println_int
  LDI r0, 3
  LDI r1, 4
  LDI r2, 1
  JNE r0, r1, t3
  LDI r2, 0
t3:
  CALLN _, r2, println_int
  LDI r0, 3
  LDI r1, 3
  LDI r2, 1
  JNE r0, r1, t4
  LDI r2, 0
t4:
  CALLN _, r2, println_int
  LDI r0, -9223372036854775808
  LDI r1, 9223372036854775807
  LDI r2, 1
  JLT r0, r1, t5
  LDI r2, 0
t5:
  CALLN _, r2, println_int
  LDI r0, 5
  LDI r1, 5
  LDI r2, 1
  JLT r0, r1, t6
  LDI r2, 0
t6:
  CALLN _, r2, println_int
  LDI r0, 5
  LDI r1, 5
  LDI r2, 1
  JLE r0, r1, t7
  LDI r2, 0
t7:
  CALLN _, r2, println_int
  LDI r0, 6
  LDI r1, 5
  LDI r2, 1
  JLE r0, r1, t8
  LDI r2, 0
t8:
  CALLN _, r2, println_int
  LDI r0, 7
  LDI r2, 1
  JEQS r0, 7, t9
  LDI r2, 0
t9:
  CALLN _, r2, println_int
  LDI r0, 7
  LDI r2, 1
  JEQS r0, 8, t10
  LDI r2, 0
t10:
  CALLN _, r2, println_int
  LDI r0, 7
  LDI r2, 1
  JNES r0, 8, t11
  LDI r2, 0
t11:
  CALLN _, r2, println_int
  LDI r0, 7
  LDI r2, 1
  JNES r0, 7, t12
  LDI r2, 0
t12:
  CALLN _, r2, println_int
  LDI r0, -3
  LDI r2, 1
  JLTS r0, -2, t13
  LDI r2, 0
t13:
  CALLN _, r2, println_int
  LDI r0, -2
  LDI r2, 1
  JLTS r0, -2, t14
  LDI r2, 0
t14:
  CALLN _, r2, println_int
  LDI r0, -2
  LDI r2, 1
  JLES r0, -2, t15
  LDI r2, 0
t15:
  CALLN _, r2, println_int
  LDI r0, -1
  LDI r2, 1
  JLES r0, -2, t16
  LDI r2, 0
t16:
  CALLN _, r2, println_int
  LDI r0, 10
  LDI r2, 1
  JGTS r0, 9, t17
  LDI r2, 0
t17:
  CALLN _, r2, println_int
  LDI r0, 9
  LDI r2, 1
  JGTS r0, 9, t18
  LDI r2, 0
t18:
  CALLN _, r2, println_int
  LDI r0, 9
  LDI r2, 1
  JGES r0, 9, t19
  LDI r2, 0
t19:
  CALLN _, r2, println_int
  LDI r0, 8
  LDI r2, 1
  JGES r0, 9, t20
  LDI r2, 0
t20:
  CALLN _, r2, println_int
  LDTRUE r4
  LDFALSE r5
  BEQ r3, r4, r5
  CALLN _, r3, println_bool
  BEQ r3, r5, r5
  CALLN _, r3, println_bool
  BNE r3, r4, r5
  CALLN _, r3, println_bool
  BNE r3, r4, r4
  CALLN _, r3, println_bool
  NOT r3, r4
  CALLN _, r3, println_bool
  NOT r3, r5
  CALLN _, r3, println_bool
  LDI r2, 1
  JT r4, t21
  LDI r2, 0
t21:
  CALLN _, r2, println_int
  LDI r2, 1
  JT r5, t22
  LDI r2, 0
t22:
  CALLN _, r2, println_int
  LDI r2, 1
  JF r5, t23
  LDI r2, 0
t23:
  CALLN _, r2, println_int
  LDI r2, 1
  JF r4, t24
  LDI r2, 0
t24:
  CALLN _, r2, println_int
  RETV
end
