// main returning a value.
// expect-error: main_returns_int: method main: main must return void
module "main_returns_int"
main main
method main () : int static
  regs int
  RET r0
end
