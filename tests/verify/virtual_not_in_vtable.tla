// A virtual method that has no vtable slot.
// expect-error: virtual_not_in_vtable: method A.extra: listed 0 times in the vtable of A, expected once
module "virtual_not_in_vtable"
main main
class A
end
method A.extra (A) : void owner A
  RETV
end
method main () : void static
  RETV
end
