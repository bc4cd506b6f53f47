// The init method must take no parameters.
// expect-error: init_params: method setup: init takes no parameters
module "init_params"
main main
init setup
method setup (int) : void static
  RETV
end
method main () : void static
  RETV
end
