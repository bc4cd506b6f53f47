// RETV in a method that must return an int.
// expect-error: retv_in_int: method f at offset 0: RETV in a method returning int
module "retv_in_int"
main main
method f () : int static
  RETV
end
method main () : void static
  RETV
end
