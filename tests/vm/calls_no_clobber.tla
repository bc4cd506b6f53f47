// Calls copy arguments into a fresh frame: a callee overwriting its
// parameter registers leaves the caller's registers unchanged, across
// CALL, CALLV, CALLI and CALLF; a result may land in an argument register.
// expect: 1 2 3
// expect: 60
// expect: 6 2 3
// expect: 10 20
// expect: 10 20
// expect: 10 20
module "calls_no_clobber"
source "calls_no_clobber.tl"
main main
native print_int (int) : void = builtin "print_int"
native println_int (int) : void = builtin "println_int"
native print_string (string) : void = builtin "print_string"

interface Smash
  methods Smash.smash
end

class K implements Smash
  vtable K.smash
end

method Smash.smash (Smash, int) : int owner Smash abstract

method K.smash (K, int) : int owner K
  LDI r1, -99
  LDNULL r0
  RET r1
end

method smash$1 (fn(int):int, int) : int lambda
  LDI r1, -77
  LDNULL r0
  RET r1
end

// overwrites all three parameters, returns their former sum
method clobber (int, int, int) : int static
  regs int
  ADD r3, r0, r1
  ADD r3, r3, r2
  LDI r0, 100
  LDI r1, 200
  LDI r2, 300
  LDI r2, 10
  RET r3
end

method show2 (int, int) : void static
  regs string
  CALLN _, r0, print_int
  LDK r2, " "
  CALLN _, r2, print_string
  CALLN _, r1, println_int
  RETV
end

method main () : void static
  regs int, int, int, int, string, K, int, Smash, int, fn(int):int, int, int
  LDK r4, " "
  LDI r0, 1
  LDI r1, 2
  LDI r2, 3
  CALL r3, r0, clobber
  CALLN _, r0, print_int
  CALLN _, r4, print_string
  CALLN _, r1, print_int
  CALLN _, r4, print_string
  CALLN _, r2, println_int          // 1 2 3
  LDI r6, 10
  MUL r3, r3, r6
  CALLN _, r3, println_int          // 6 * 10
  // the result replaces the first argument register only
  CALL r0, r0, clobber
  CALLN _, r0, print_int
  CALLN _, r4, print_string
  CALLN _, r1, print_int
  CALLN _, r4, print_string
  CALLN _, r2, println_int          // 6 2 3
  NEW r5, K
  LDI r6, 20
  LDI r0, 10
  CALLV r3, r5, K.smash
  MOV r1, r6
  CALL _, r0, show2                 // 10 20 (r6 kept)
  MOV r7, r5
  MOV r8, r6
  CALLI r3, r7, Smash.smash
  MOV r1, r8
  CALL _, r0, show2                 // 10 20
  CLOS r9, r9, smash$1
  MOV r10, r6
  CALLF r11, r9
  MOV r1, r10
  CALL _, r0, show2                 // 10 20
  RETV
end
