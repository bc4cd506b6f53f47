// Float comparisons (FEQ FNE FLT FLE) and branches (FJLT FJLE FJNLT FJNLE
// FJEQ FJNE) on ordinary values, NaN (unordered: only FNE, FJNE, FJNLT and
// FJNLE hold), signed zeros and infinities.  Each line: the four compare
// results, then one digit per branch (1 = taken).
// Pairs: (1.5,2.5) (2.5,2.5) (3.5,2.5) (nan,1) (1,nan) (nan,nan) (0,-0) (-inf,inf)
// expect: false true true true 110001
// expect: true false false true 011010
// expect: false true false false 001101
// expect: false true false false 001101
// expect: false true false false 001101
// expect: false true false false 001101
// expect: true false false true 011010
// expect: false true true true 110001
module "float_nan_branches"
source "float_nan_branches.tl"
main main
native print_int (int) : void = builtin "print_int"
native print_bool (bool) : void = builtin "print_bool"
native print_string (string) : void = builtin "print_string"
native println () : void = builtin "println"

method main () : void static
  regs float, float, int, bool, int, string
  LDK r5, " "
  LDF r0, 1.5
  LDF r1, 2.5
  FEQ r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  FNE r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  FLT r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  FLE r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  LDI r2, 1
  FJLT r0, r1, t1
  LDI r2, 0
t1:
  CALLN _, r2, print_int
  LDI r2, 1
  FJLE r0, r1, t2
  LDI r2, 0
t2:
  CALLN _, r2, print_int
  LDI r2, 1
  FJNLT r0, r1, t3
  LDI r2, 0
t3:
  CALLN _, r2, print_int
  LDI r2, 1
  FJNLE r0, r1, t4
  LDI r2, 0
t4:
  CALLN _, r2, print_int
  LDI r2, 1
  FJEQ r0, r1, t5
  LDI r2, 0
t5:
  CALLN _, r2, print_int
  LDI r2, 1
  FJNE r0, r1, t6
  LDI r2, 0
t6:
  CALLN _, r2, print_int
  CALLN _, r0, println
  LDF r0, 2.5
  LDF r1, 2.5
  FEQ r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  FNE r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  FLT r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  FLE r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  LDI r2, 1
  FJLT r0, r1, t7
  LDI r2, 0
t7:
  CALLN _, r2, print_int
  LDI r2, 1
  FJLE r0, r1, t8
  LDI r2, 0
t8:
  CALLN _, r2, print_int
  LDI r2, 1
  FJNLT r0, r1, t9
  LDI r2, 0
t9:
  CALLN _, r2, print_int
  LDI r2, 1
  FJNLE r0, r1, t10
  LDI r2, 0
t10:
  CALLN _, r2, print_int
  LDI r2, 1
  FJEQ r0, r1, t11
  LDI r2, 0
t11:
  CALLN _, r2, print_int
  LDI r2, 1
  FJNE r0, r1, t12
  LDI r2, 0
t12:
  CALLN _, r2, print_int
  CALLN _, r0, println
  LDF r0, 3.5
  LDF r1, 2.5
  FEQ r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  FNE r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  FLT r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  FLE r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  LDI r2, 1
  FJLT r0, r1, t13
  LDI r2, 0
t13:
  CALLN _, r2, print_int
  LDI r2, 1
  FJLE r0, r1, t14
  LDI r2, 0
t14:
  CALLN _, r2, print_int
  LDI r2, 1
  FJNLT r0, r1, t15
  LDI r2, 0
t15:
  CALLN _, r2, print_int
  LDI r2, 1
  FJNLE r0, r1, t16
  LDI r2, 0
t16:
  CALLN _, r2, print_int
  LDI r2, 1
  FJEQ r0, r1, t17
  LDI r2, 0
t17:
  CALLN _, r2, print_int
  LDI r2, 1
  FJNE r0, r1, t18
  LDI r2, 0
t18:
  CALLN _, r2, print_int
  CALLN _, r0, println
  LDF r0, nan
  LDF r1, 1.0
  FEQ r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  FNE r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  FLT r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  FLE r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  LDI r2, 1
  FJLT r0, r1, t19
  LDI r2, 0
t19:
  CALLN _, r2, print_int
  LDI r2, 1
  FJLE r0, r1, t20
  LDI r2, 0
t20:
  CALLN _, r2, print_int
  LDI r2, 1
  FJNLT r0, r1, t21
  LDI r2, 0
t21:
  CALLN _, r2, print_int
  LDI r2, 1
  FJNLE r0, r1, t22
  LDI r2, 0
t22:
  CALLN _, r2, print_int
  LDI r2, 1
  FJEQ r0, r1, t23
  LDI r2, 0
t23:
  CALLN _, r2, print_int
  LDI r2, 1
  FJNE r0, r1, t24
  LDI r2, 0
t24:
  CALLN _, r2, print_int
  CALLN _, r0, println
  LDF r0, 1.0
  LDF r1, nan
  FEQ r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  FNE r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  FLT r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  FLE r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  LDI r2, 1
  FJLT r0, r1, t25
  LDI r2, 0
t25:
  CALLN _, r2, print_int
  LDI r2, 1
  FJLE r0, r1, t26
  LDI r2, 0
t26:
  CALLN _, r2, print_int
  LDI r2, 1
  FJNLT r0, r1, t27
  LDI r2, 0
t27:
  CALLN _, r2, print_int
  LDI r2, 1
  FJNLE r0, r1, t28
  LDI r2, 0
t28:
  CALLN _, r2, print_int
  LDI r2, 1
  FJEQ r0, r1, t29
  LDI r2, 0
t29:
  CALLN _, r2, print_int
  LDI r2, 1
  FJNE r0, r1, t30
  LDI r2, 0
t30:
  CALLN _, r2, print_int
  CALLN _, r0, println
  LDF r0, nan
  LDF r1, nan
  FEQ r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  FNE r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  FLT r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  FLE r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  LDI r2, 1
  FJLT r0, r1, t31
  LDI r2, 0
t31:
  CALLN _, r2, print_int
  LDI r2, 1
  FJLE r0, r1, t32
  LDI r2, 0
t32:
  CALLN _, r2, print_int
  LDI r2, 1
  FJNLT r0, r1, t33
  LDI r2, 0
t33:
  CALLN _, r2, print_int
  LDI r2, 1
  FJNLE r0, r1, t34
  LDI r2, 0
t34:
  CALLN _, r2, print_int
  LDI r2, 1
  FJEQ r0, r1, t35
  LDI r2, 0
t35:
  CALLN _, r2, print_int
  LDI r2, 1
  FJNE r0, r1, t36
  LDI r2, 0
t36:
  CALLN _, r2, print_int
  CALLN _, r0, println
  LDF r0, 0.0
  LDF r1, 0.0
  FNEG r1, r1
  FEQ r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  FNE r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  FLT r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  FLE r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  LDI r2, 1
  FJLT r0, r1, t37
  LDI r2, 0
t37:
  CALLN _, r2, print_int
  LDI r2, 1
  FJLE r0, r1, t38
  LDI r2, 0
t38:
  CALLN _, r2, print_int
  LDI r2, 1
  FJNLT r0, r1, t39
  LDI r2, 0
t39:
  CALLN _, r2, print_int
  LDI r2, 1
  FJNLE r0, r1, t40
  LDI r2, 0
t40:
  CALLN _, r2, print_int
  LDI r2, 1
  FJEQ r0, r1, t41
  LDI r2, 0
t41:
  CALLN _, r2, print_int
  LDI r2, 1
  FJNE r0, r1, t42
  LDI r2, 0
t42:
  CALLN _, r2, print_int
  CALLN _, r0, println
  LDF r0, -inf
  LDF r1, inf
  FEQ r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  FNE r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  FLT r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  FLE r3, r0, r1
  CALLN _, r3, print_bool
  CALLN _, r5, print_string
  LDI r2, 1
  FJLT r0, r1, t43
  LDI r2, 0
t43:
  CALLN _, r2, print_int
  LDI r2, 1
  FJLE r0, r1, t44
  LDI r2, 0
t44:
  CALLN _, r2, print_int
  LDI r2, 1
  FJNLT r0, r1, t45
  LDI r2, 0
t45:
  CALLN _, r2, print_int
  LDI r2, 1
  FJNLE r0, r1, t46
  LDI r2, 0
t46:
  CALLN _, r2, print_int
  LDI r2, 1
  FJEQ r0, r1, t47
  LDI r2, 0
t47:
  CALLN _, r2, print_int
  LDI r2, 1
  FJNE r0, r1, t48
  LDI r2, 0
t48:
  CALLN _, r2, print_int
  CALLN _, r0, println
  RETV
end
