// A field cannot have type void.
// expect-error: field_of_void: field x: field of type void
module "field_of_void"
main main
class A
  field x void
end
method main () : void static
  RETV
end
