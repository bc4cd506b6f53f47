// The module's init method runs once, before main, and can set globals
// and print; main sees its effects.
// expect: init runs first
// expect: main sees 42 and hello
module "init_method"
source "init_method.tl"
main main
init globals$init
native println_string (string) : void = builtin "println_string"
native str_int (int) : string = builtin "str_int"

global answer int
global greeting string

method globals$init () : void static
  regs int, string
  LDK r1, "init runs first"
  CALLN _, r1, println_string
  LDI r0, 42
  STG answer, r0
  LDK r1, "hello"
  STG greeting, r1
  RETV
end

method main () : void static
  regs string, string, int
  LDK r0, "main sees "
  LDG r2, answer
  CALLN r1, r2, str_int
  SCAT r0, r0, r1
  LDK r1, " and "
  SCAT r0, r0, r1
  LDG r1, greeting
  SCAT r0, r0, r1
  CALLN _, r0, println_string
  RETV
end
