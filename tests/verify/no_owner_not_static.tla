// A function without an owner must be marked static.
// expect-error: no_owner_not_static: method helper: a method without an owner must be static or a lambda
module "no_owner_not_static"
main main
method helper () : void
  RETV
end
method main () : void static
  RETV
end
