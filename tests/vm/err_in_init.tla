// A run-time error in the module's init method: main never runs; the
// trace names the init method and what it called.
// expect: init starts
// expect-runtime-error: index out of bounds: index -1, length 2
// expect-stderr: error: index out of bounds: index -1, length 2
// expect-stderr:   at setup (err_in_init.tl:4)
// expect-stderr:   at globals$init (err_in_init.tl:10)
module "err_in_init"
source "err_in_init.tl"
main main
init globals$init
native println_string (string) : void = builtin "println_string"

global table int[]

method setup (int) : void static
  regs int[], int
  line 3
  LDG r1, table
  line 4
  APUTI r1, r0, r0
  RETV
end

method globals$init () : void static
  regs int, int[], string
  line 8
  LDK r2, "init starts"
  CALLN _, r2, println_string
  LDI r0, 2
  NEWA r1, r0, int[]
  STG table, r1
  LDI r0, -1
  line 10
  CALL _, r0, setup
  RETV
end

method main () : void static
  regs string
  LDK r0, "main must not run"
  CALLN _, r0, println_string
  RETV
end
