// A global cannot have type void.
// expect-error: global_of_void: global nothing: global of type void
module "global_of_void"
main main
global nothing void
method main () : void static
  RETV
end
