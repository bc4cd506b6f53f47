// Captures: several capture types read with LDCAP; captures are copies made
// at CLOS time; state shared through a captured array; two closures of the
// same lambda keep their own captures.
// expect: 7 2.5 s true 9
// expect: 1
// expect: 1
// expect: 2
// expect: 3
// expect: 3
// expect: 110 220
module "closure_captures"
source "closure_captures.tl"
main main
native print_int (int) : void = builtin "print_int"
native println_int (int) : void = builtin "println_int"
native print_float (float) : void = builtin "print_float"
native print_bool (bool) : void = builtin "print_bool"
native print_string (string) : void = builtin "print_string"

class Box
  field v int
end

// captures: int, float, string, bool, Box
method show$1 (fn()) : void lambda
  caps int, float, string, bool, Box
  regs int, float, string, bool, Box, string
  LDK r6, " "
  LDCAP r1, 0
  CALLN _, r1, print_int
  CALLN _, r6, print_string
  LDCAP r2, 1
  CALLN _, r2, print_float
  CALLN _, r6, print_string
  LDCAP r3, 2
  CALLN _, r3, print_string
  CALLN _, r6, print_string
  LDCAP r4, 3
  CALLN _, r4, print_bool
  CALLN _, r6, print_string
  LDCAP r5, 4
  GETF r1, r5, Box.v
  CALLN _, r1, println_int
  RETV
end

method get$1 (fn():int) : int lambda
  caps int
  regs int
  LDCAP r1, 0
  RET r1
end

// counter: a[0] += 1; return a[0]
method count$1 (fn():int) : int lambda
  caps int[]
  regs int[], int, int
  LDCAP r1, 0
  LDI r2, 0
  AGETI r3, r1, r2
  ADDK r3, r3, 1
  APUTI r1, r2, r3
  RET r3
end

method add$1 (fn(int):int, int) : int lambda
  caps int
  regs int
  LDCAP r2, 0
  ADD r2, r2, r1
  RET r2
end

method main () : void static
  regs int, float, string, bool, Box, fn(), int, fn():int, int[], int, fn(int):int, int, fn(int):int, int, string
  LDI r0, 7
  LDF r1, 2.5
  LDK r2, "s"
  LDTRUE r3
  NEW r4, Box
  LDI r6, 9
  PUTF r4, Box.v, r6
  CLOS r5, r0, show$1
  CALLF _, r5
  // a copy: changing r6 after CLOS does not change the capture
  LDI r6, 1
  CLOS r7, r6, get$1
  LDI r6, 2
  CALLF r9, r7
  CALLN _, r9, println_int          // 1
  // shared state through a captured array
  LDI r9, 1
  NEWA r8, r9, int[]
  CLOS r7, r8, count$1
  CALLF r9, r7
  CALLN _, r9, println_int          // 1
  CALLF r9, r7
  CALLN _, r9, println_int          // 2
  CALLF r9, r7
  CALLN _, r9, println_int          // 3
  LDI r9, 0
  AGETI r9, r8, r9
  CALLN _, r9, println_int          // 3, seen from outside
  // two closures of one lambda
  LDI r9, 100
  CLOS r10, r9, add$1
  LDI r9, 200
  CLOS r12, r9, add$1
  LDI r11, 10
  LDI r13, 20
  CALLF r9, r10
  CALLN _, r9, print_int            // 110
  LDK r14, " "
  CALLN _, r14, print_string
  CALLF r9, r12
  CALLN _, r9, println_int          // 220
  RETV
end
