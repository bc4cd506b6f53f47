// A vtable slot holding a method of an unrelated class.
// expect-error: vtable_foreign_method: class A: vtable slot 0: B.get belongs to B, not to A or a superclass
module "vtable_foreign_method"
main main
class A
  vtable B.get
end
class B
  vtable B.get
end
method B.get (B) : int owner B
  regs int
  RET r1
end
method main () : void static
  RETV
end
