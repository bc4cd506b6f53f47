// Globals: zero-initialized (0, 0.0, false, null), LDG/STG of each type,
// a counter global updated by a function called in a loop.
// expect: 0 0.0 false null true
// expect: 12 0.5 true name true
// expect: 10
module "globals"
source "globals.tl"
main main
native print_int (int) : void = builtin "print_int"
native print_float (float) : void = builtin "print_float"
native print_bool (bool) : void = builtin "print_bool"
native print_string (string) : void = builtin "print_string"
native println_bool (bool) : void = builtin "println_bool"
native println_int (int) : void = builtin "println_int"

global gi int
global gf float
global gb bool
global gs string
global ga int[]
global counter int

method show () : void static
  regs int, float, bool, string, int[], string, bool, int
  LDK r5, " "
  LDG r0, gi
  CALLN _, r0, print_int
  CALLN _, r5, print_string
  LDG r1, gf
  CALLN _, r1, print_float
  CALLN _, r5, print_string
  LDG r2, gb
  CALLN _, r2, print_bool
  CALLN _, r5, print_string
  LDG r3, gs
  CALLN _, r3, print_string
  CALLN _, r5, print_string
  // last: ga == null, or once set, ga.length == 3
  LDG r4, ga
  JNNULL r4, set
  LDTRUE r6
  JMP out
set:
  ALEN r0, r4
  LDI r7, 3
  EQ r6, r0, r7
out:
  CALLN _, r6, println_bool
  RETV
end

method bump () : void static
  regs int
  LDG r0, counter
  ADDK r0, r0, 1
  STG counter, r0
  RETV
end

method main () : void static
  regs int, float, bool, string, int[], int
  CALL _, r0, show
  LDI r0, 12
  STG gi, r0
  LDF r1, 0.5
  STG gf, r1
  LDTRUE r2
  STG gb, r2
  LDK r3, "name"
  STG gs, r3
  LDI r5, 3
  NEWA r4, r5, int[]
  STG ga, r4
  CALL _, r0, show
  LDI r0, 0
  LDI r5, 10
loop:
  CALL _, r0, bump
  LOOP r0, r5, loop
  LDG r0, counter
  CALLN _, r0, println_int
  RETV
end
