// With no program arguments, main's string[] and args() are empty arrays.
// expect: 0
// expect: 0
module "noargs"
source "noargs.tl"
main main
native println_int (int) : void = builtin "println_int"
native args () : string[] = builtin "args"

method main (string[]) : void static
  regs int, string[]
  ALEN r1, r0
  CALLN _, r1, println_int
  CALLN r2, r1, args
  ALEN r1, r2
  CALLN _, r1, println_int
  RETV
end
