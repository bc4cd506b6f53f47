// main taking an int.
// expect-error: main_params: method main: main takes no parameters or one string[]
module "main_params"
main main
method main (int) : void static
  RETV
end
