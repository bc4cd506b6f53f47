// Program arguments: main(string[]) receives them; args() returns the same
// strings; an argument with digits parsed by hand.
// args: alpha beta 42
// expect: 3
// expect: alpha
// expect: beta
// expect: 42
// expect: 3
// expect: true
// expect: 43
module "main_args"
source "main_args.tl"
main main
native println_int (int) : void = builtin "println_int"
native println_bool (bool) : void = builtin "println_bool"
native println_string (string) : void = builtin "println_string"
native args () : string[] = builtin "args"

// decimal digits to int (no sign, no checks)
method parse (string) : int static
  regs int, int, int, int, int
  LDI r1, 0
  LDI r2, 0
  SLEN r3, r0
  JLES r3, 0, done
  LDI r5, 10
digit:
  MUL r1, r1, r5
  SGET r4, r0, r2
  ADDK r4, r4, -48
  ADD r1, r1, r4
  LOOP r2, r3, digit
done:
  RET r1
end

method main (string[]) : void static
  regs int, int, string, string[], string, bool, int
  ALEN r1, r0
  CALLN _, r1, println_int
  LDI r2, 0
each:
  AGETR r3, r0, r2
  CALLN _, r3, println_string
  LOOP r2, r1, each
  CALLN r4, r0, args
  ALEN r1, r4
  CALLN _, r1, println_int
  LDI r2, 1
  AGETR r3, r0, r2
  AGETR r5, r4, r2
  SEQ r6, r3, r5
  CALLN _, r6, println_bool
  LDI r2, 2
  AGETR r3, r0, r2
  CALL r7, r3, parse
  ADDK r7, r7, 1
  CALLN _, r7, println_int
  RETV
end
