// Interface calls from one site on six receiver classes: more than the
// four profile ways, so dispatch goes through the ways, the megamorphic
// one-entry cache and the itable search.  h = h*7 + id over 3 rounds.
// expect: 316622135966625
module "iface_megamorphic"
source "iface_megamorphic.tl"
main main
native println_int (int) : void = builtin "println_int"

interface K
  methods K.id
end
method K.id (K) : int owner K abstract

class C1 implements K
  vtable C1.id
end
method C1.id (C1) : int owner C1
  regs int
  LDI r1, 1
  RET r1
end

class C2 implements K
  vtable C2.id
end
method C2.id (C2) : int owner C2
  regs int
  LDI r1, 2
  RET r1
end

class C3 implements K
  vtable C3.id
end
method C3.id (C3) : int owner C3
  regs int
  LDI r1, 3
  RET r1
end

class C4 implements K
  vtable C4.id
end
method C4.id (C4) : int owner C4
  regs int
  LDI r1, 4
  RET r1
end

class C5 implements K
  vtable C5.id
end
method C5.id (C5) : int owner C5
  regs int
  LDI r1, 5
  RET r1
end

class C6 implements K
  vtable C6.id
end
method C6.id (C6) : int owner C6
  regs int
  LDI r1, 6
  RET r1
end

method main () : void static
  regs K[], int, int, int, K, int, int, C1, C2, C3, C4, C5, C6
  LDI r1, 6
  NEWA r0, r1, K[]
  NEW r7, C1
  LDI r1, 0
  APUTR r0, r1, r7
  NEW r8, C2
  LDI r1, 1
  APUTR r0, r1, r8
  NEW r9, C3
  LDI r1, 2
  APUTR r0, r1, r9
  NEW r10, C4
  LDI r1, 3
  APUTR r0, r1, r10
  NEW r11, C5
  LDI r1, 4
  APUTR r0, r1, r11
  NEW r12, C6
  LDI r1, 5
  APUTR r0, r1, r12
  LDI r2, 0          // h
  LDI r5, 0          // round
  LDI r6, 7
round:
  LDI r3, 0          // i
next:
  AGETR r4, r0, r3
  CALLI r1, r4, K.id
  MUL r2, r2, r6
  ADD r2, r2, r1
  ADDK r3, r3, 1
  JLTS r3, 6, next
  ADDK r5, r5, 1
  JLTS r5, 3, round
  CALLN _, r2, println_int
  RETV
end
