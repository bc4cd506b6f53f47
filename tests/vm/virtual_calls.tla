// Virtual calls: CALLV through a Base register on six receiver classes
// (more than the 4 profiled ways), a method calling another virtual
// method on its receiver, arguments and results, and CALL of Base.value
// on a subclass instance (no dispatch).
// expect: 1
// expect: 11
// expect: 22
// expect: 33
// expect: 44
// expect: 55
// expect: 16600
// expect: 1
// expect: 10
module "virtual_calls"
source "virtual_calls.tl"
main main
native println_int (int) : void = builtin "println_int"

class Base
  vtable Base.value, Base.add
end

method Base.value (Base) : int owner Base
  regs int
  LDI r1, 1
  RET r1
end

// add(k) = k + this.value()
method Base.add (Base, int) : int owner Base
  regs int
  CALLV r2, r0, Base.value
  ADD r2, r2, r1
  RET r2
end

class A extends Base
  vtable A.value, Base.add
end

method A.value (A) : int owner A
  regs int
  LDI r1, 10
  RET r1
end

class B extends Base
  vtable B.value, Base.add
end

method B.value (B) : int owner B
  regs int
  LDI r1, 20
  RET r1
end

class C extends Base
  vtable C.value, Base.add
end

method C.value (C) : int owner C
  regs int
  LDI r1, 30
  RET r1
end

class D extends Base
  vtable D.value, Base.add
end

method D.value (D) : int owner D
  regs int
  LDI r1, 40
  RET r1
end

class E extends Base
  vtable E.value, Base.add
end

method E.value (E) : int owner E
  regs int
  LDI r1, 50
  RET r1
end

method main () : void static
  regs Base[], int, Base, int, int, int, int, A, B, C, D, E
  LDI r1, 6
  NEWA r0, r1, Base[]
  LDI r1, 0
  NEW r2, Base
  APUTR r0, r1, r2

  LDI r1, 1
  NEW r7, A
  APUTR r0, r1, r7

  LDI r1, 2
  NEW r8, B
  APUTR r0, r1, r8

  LDI r1, 3
  NEW r9, C
  APUTR r0, r1, r9

  LDI r1, 4
  NEW r10, D
  APUTR r0, r1, r10

  LDI r1, 5
  NEW r11, E
  APUTR r0, r1, r11

  // first pass: print a[i].add(i)
  LDI r1, 0
  LDI r4, 6
first:
  AGETR r2, r0, r1
  MOV r3, r1
  CALLV r5, r2, Base.add
  CALLN _, r5, println_int
  LOOP r1, r4, first
  // 100 passes: total of a[i].add(i)
  LDI r6, 0
  LDI r5, 0
outer:
  LDI r1, 0
inner:
  AGETR r2, r0, r1
  MOV r3, r1
  CALLV r3, r2, Base.add
  ADD r6, r6, r3
  LOOP r1, r4, inner
  LDI r3, 100
  LOOP r5, r3, outer
  CALLN _, r6, println_int
  // no dispatch: Base.value on an A
  NEW r7, A
  CALL r3, r7, Base.value
  CALLN _, r3, println_int
  CALLV r3, r7, Base.value
  CALLN _, r3, println_int
  RETV
end
