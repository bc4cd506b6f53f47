// An override with an extra parameter.
// expect-error: override_signature: class Leaf: vtable slot 0: Leaf.area does not match the signature of Base.area
module "override_signature"
main main
class Base abstract
  vtable Base.area
end
class Leaf extends Base
  vtable Leaf.area
end
method Base.area (Base) : float owner Base abstract
method Leaf.area (Leaf, int) : float owner Leaf
  regs float
  RET r2
end
method main () : void static
  RETV
end
