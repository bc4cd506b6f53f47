// bool[]: NEWA (zeroed to false), APUTB/AGETB; a sieve of Eratosthenes
// counting the primes below 100.
// expect: false
// expect: true
// expect: 25
// expect: 97
module "arrays_bool"
source "arrays_bool.tl"
main main
native println_int (int) : void = builtin "println_int"
native println_bool (bool) : void = builtin "println_bool"

method main () : void static
  regs bool[], int, int, bool, int, int, int
  LDI r1, 100
  NEWA r0, r1, bool[]               // composite[i]
  LDI r1, 7
  AGETB r3, r0, r1
  CALLN _, r3, println_bool         // false
  LDTRUE r3
  APUTB r0, r1, r3
  AGETB r3, r0, r1
  CALLN _, r3, println_bool         // true
  LDFALSE r3
  APUTB r0, r1, r3
  // sieve: for i in 2..99: if !composite[i]: count++, last = i, mark multiples
  LDI r1, 2                         // i
  LDI r4, 0                         // count
  LDI r5, 0                         // last prime
  LDI r6, 100
outer:
  AGETB r3, r0, r1
  JT r3, next
  ADDK r4, r4, 1
  MOV r5, r1
  ADD r2, r1, r1                    // j = 2i
mark:
  JGES r2, 100, next
  LDTRUE r3
  APUTB r0, r2, r3
  ADD r2, r2, r1
  JMP mark
next:
  LOOP r1, r6, outer
  CALLN _, r4, println_int
  CALLN _, r5, println_int
  RETV
end
